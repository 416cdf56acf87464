"""The read API shared by the CLI and users: ``dicebase.query.open(path)``."""

from dicebase.errors import (
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
)
from dicebase.query.database import Database, Statistics, open

__all__ = [
    "BadInput",
    "Database",
    "DatabaseClosed",
    "DatabaseDamaged",
    "DatabaseLocked",
    "DatabaseMissing",
    "DicebaseError",
    "NotADicebaseDatabase",
    "NotInDatabase",
    "PermissionDenied",
    "QueryFailed",
    "QueryInterrupted",
    "QueryTimeout",
    "QueryTooLarge",
    "ReadOnlyViolation",
    "SchemaVersionMismatch",
    "Statistics",
    "WriteFailed",
    "open",
]
