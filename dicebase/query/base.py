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
        raise BadInput(f"{what} must be a whole number{hint}, got {value!r}")
    return int(value)


class DicebaseError(Exception):
    """Base class for errors a user can act on; the message is one line."""


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
