"""Checks shared by every game's read API (whole numbers, names, the start of ``hold()``).

The exceptions live in :mod:`dicebase.errors`; they are importable from here as well.
"""

from __future__ import annotations

from dicebase.errors import (  # noqa: F401  (re-exported: dicebase.query.base was their home)
    BadInput,
    DatabaseClosed,
    DatabaseDamaged,
    DatabaseLocked,
    DatabaseMissing,
    DicebaseError,
    NotADicebaseDatabase,
    NotInDatabase,
    PermissionDenied,
    QueryFailed,
    QueryInterrupted,
    QueryTimeout,
    QueryTooLarge,
    ReadOnlyViolation,
    SchemaVersionMismatch,
    WriteFailed,
    clip,
    shorten,
)


def is_whole_number(value) -> bool:
    """An int or numpy integer, but not a bool (True is not a count) nor a float or str."""
    import numbers

    return isinstance(value, numbers.Integral) and not _is_boolean(value)


def _is_boolean(value) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def whole_number(value, what: str, allowed: str = "") -> int:
    """``value`` as an int, or BadInput naming ``what`` and what is ``allowed``.

    The one rule every game's read API applies to counts, scores and faces.
    """
    if not is_whole_number(value):
        hint = f" ({allowed})" if allowed else ""
        raise BadInput(f"{what} must be a whole number{hint}, got {clip(value)}")
    return int(value)


def first(rows: list[tuple]) -> tuple | None:
    """The first row of a ``Database.read`` result, or None when it is empty."""
    return rows[0] if rows else None


def text_choice(value, what: str) -> str:
    """``value`` when it is a str, else BadInput: names of variants and rule sets are text."""
    if not isinstance(value, str):
        raise BadInput(f"{what} must be a name (text), got {clip(value)}")
    return value


def ready_to_hold(db, stop) -> bool:
    """The start of a game's ``hold()``: BadInput unless ``stop`` is None or a function; False on
    SQLite (which holds nothing); on DuckDB, True once the connection draws no progress bar (a
    loading query may pass 2 s on a cold file)."""
    if stop is not None and not callable(stop):
        raise BadInput(f"stop must be a function that says when to stop, got {clip(stop)}")
    if db.store != "duckdb":
        return False
    db.without_progress_bar()
    return True
