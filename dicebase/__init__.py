"""dicebase: a precomputed strategy database for push-your-luck dice games.

    import dicebase
    with dicebase.open() as db:          # db/dicebase.duckdb, read-only
        db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=4)

Heavy modules (numpy, duckdb, the solvers) load only when used.
"""

from __future__ import annotations

from dicebase.version import SCHEMA_VERSION, __version__  # noqa: F401  (defined at the bottom of the layers)

_ERRORS = (
    "DicebaseError", "BadInput", "NotInDatabase", "DatabaseMissing", "DatabaseLocked", "PermissionDenied",
    "NotADicebaseDatabase", "DatabaseDamaged", "SchemaVersionMismatch", "DatabaseClosed", "QueryTimeout",
    "QueryInterrupted", "QueryTooLarge", "QueryFailed", "ReadOnlyViolation", "WriteFailed",
)

__all__ = ["__version__", "open", *_ERRORS]


def open(target=None, **limits):  # noqa: A001 - mirrors the builtin on purpose: dicebase.open(path)
    """Open a database read-only; ``target`` is a path, a duckdb:/// or sqlite:/// URL, or None.

    ``timeout`` (seconds, default 60, None for none) and ``memory_limit`` (DuckDB, default
    "2GB") bound every query; see ``dicebase.query.database.Database``.
    """
    from dicebase.query import open as _open

    return _open(target, **limits)


def __getattr__(name):
    if name in _ERRORS:
        from dicebase import errors

        return getattr(errors, name)
    raise AttributeError(name)
