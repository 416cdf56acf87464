"""dicebase: a precomputed strategy database for push-your-luck dice games.

    import dicebase
    with dicebase.open() as db:          # db/dicebase.duckdb, read-only
        db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=4)

Heavy modules (numpy, duckdb, the solvers) load only when used.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: Bumped whenever a table, column or view changes meaning or shape; a database
#: built with another schema version is refused at open with a rebuild hint.
SCHEMA_VERSION = 6  # 5: threes_many_dice, threes_many_dice_keeps, threes_many_dice_chances (issue 13); 6: ten_thousand_duel_bounds.first_row, row_count, p_start (issue 12)

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
        from dicebase.query import base

        return getattr(base, name)
    raise AttributeError(name)
