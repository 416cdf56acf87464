"""Exceptions shared by the read API and the CLI."""

from __future__ import annotations


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


class DicebaseError(Exception):
    """Base class for errors a user can act on; the message is one line.

    ``exit_code`` is what the CLI exits with: 2 for the user's own input or
    path (the default), 1 for a fault of the machine (a full disk).
    """

    exit_code = 2


class BadInput(DicebaseError, ValueError):
    """An argument is invalid; the message says what is wrong and what is allowed."""


class NotInDatabase(DicebaseError, KeyError):
    """The database has no rows for the request (game, variant or range not built)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not in the database"


class DatabaseMissing(DicebaseError, FileNotFoundError):
    """No database file at the location; the message names the build command."""


class ReadOnlyViolation(DicebaseError):
    """A statement that writes (or touches files) was refused."""


class DatabaseLocked(DicebaseError):
    """Another process holds a lock on the file (a build, or an engine's write lock): wait and retry."""


class PermissionDenied(DicebaseError, PermissionError):
    """The operating system refuses to let this user read or write the file."""

    def __str__(self) -> str:  # OSError would format (errno, strerror)
        return str(self.args[0]) if self.args else "permission denied"


class NotADicebaseDatabase(DicebaseError):
    """The file is not a dicebase database (another program's file, or the other store's)."""


class DatabaseDamaged(DicebaseError):
    """The engine reports the file as corrupt (checksum error, malformed pages); only a rebuild helps."""


class SchemaVersionMismatch(DicebaseError):
    """The file is a dicebase database of another schema (or engine storage) version; rebuild it."""


class DatabaseClosed(DicebaseError):
    """A lookup on a database after ``close()``."""


class QueryTimeout(DicebaseError):
    """A query ran past its time limit and was stopped; nothing was changed."""


class QueryInterrupted(DicebaseError):
    """A query was stopped by ``Database.interrupt()`` from another thread."""


class QueryTooLarge(DicebaseError):
    """A query needs more memory, or returns more rows, than the ceiling allows."""


class QueryFailed(DicebaseError):
    """The engine refused a query for another reason (its one-line message is kept)."""


class WriteFailed(DicebaseError):
    """A build or export could not write its output; the old file is unchanged."""


def shorten(text: str, limit: int = 120) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[: max(limit - 25, 10)]}... ({len(text)} characters)"


def clip(value, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for echoing user input in an error line."""
    try:
        text = repr(value)
    except Exception:  # a user object whose repr fails
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text)} characters)"


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
