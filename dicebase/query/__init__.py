"""The read API shared by the CLI and users: ``dicebase.query.open(path)``."""

from dicebase.query.base import (
    BadInput,
    DatabaseMissing,
    DicebaseError,
    NotInDatabase,
    ReadOnlyViolation,
)
from dicebase.query.database import Database, open

__all__ = [
    "BadInput",
    "Database",
    "DatabaseMissing",
    "DicebaseError",
    "NotInDatabase",
    "ReadOnlyViolation",
    "open",
]
