"""Exceptions shared by the read API and the CLI."""

from __future__ import annotations


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
