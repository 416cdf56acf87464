"""Where a database lives and which store it is (no heavy imports here)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

STORES = ("duckdb", "sqlite")
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


@dataclass(frozen=True)
class Location:
    path: Path
    store: str  # "duckdb" or "sqlite"

    def __str__(self) -> str:
        return f"{self.store}:///{self.path}"


def default_path() -> Path:
    """``$DICEBASE_DB``, else ``db/dicebase.duckdb`` in the source checkout, else in the cwd."""
    env = os.environ.get("DICEBASE_DB")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file():
        return checkout / "db" / "dicebase.duckdb"
    return Path("db") / "dicebase.duckdb"


def resolve(target: str | os.PathLike | None) -> Location:
    """Parse a path or URL: ``duckdb:///path``, ``sqlite:///path``, or a plain path.

    A plain path ending in .sqlite/.sqlite3/.db is SQLite, anything else DuckDB.
    Raises ValueError with one line for an unknown scheme or an empty path.
    """
    if target is None:
        target = os.environ.get("DICEBASE_DB") or default_path()
    text = os.fspath(target)
    if "://" in text:
        scheme, _, rest = text.partition("://")
        scheme = scheme.lower()
        if scheme not in STORES:
            raise ValueError(f"unknown database scheme {scheme!r}; use duckdb:///PATH or sqlite:///PATH")
        # sqlite:///relative/path and sqlite:////absolute/path, as SQLAlchemy spells them
        path = rest[1:] if rest.startswith("/") else rest
        if not path:
            raise ValueError(f"no file path in {text!r}; use {scheme}:///PATH")
        return Location(Path(path), scheme)
    if not text:
        raise ValueError("empty database path")
    path = Path(text)
    store = "sqlite" if path.suffix.lower() in SQLITE_SUFFIXES else "duckdb"
    return Location(path, store)
