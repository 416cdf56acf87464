"""Opening a dicebase file: the checks on the path, the 16-byte sniff of its store, and the
read-only connection of each engine with its limits (no query runs here)."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Callable

from dicebase.errors import BadInput, NotADicebaseDatabase, classify, file_error, missing
from dicebase.location import Location

#: DuckDB's buffer memory for one connection; nothing spills to disk, so this is the ceiling.
DEFAULT_MEMORY_LIMIT = "2GB"
#: Longest string or blob one SQLite value may hold (SQLite's own default is 1 GB).
SQLITE_MAX_LENGTH = 100_000_000
#: Seconds SQLite waits for another process's write lock before reporting the file as locked.
SQLITE_BUSY_SECONDS = 2.0
#: SQLite virtual-machine steps between two calls of the progress handler that checks the
#: deadline and the stop flag (a lookup takes fewer: it never calls back into Python).
SQLITE_PROGRESS_STEPS = 10_000

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # at byte 8 of a DuckDB file


def duckdb_engine():
    """DuckDB's compiled engine module, ``_duckdb`` (the ``duckdb`` package wraps it), else ``duckdb``.

    A read-only connection needs nothing of the wrapper, whose import (the relation and
    expression APIs, and its own version through importlib.metadata) took about 50 of the
    110 ms a CLI lookup spent importing (``python -X importtime``, fastest of 12 runs).
    Connections, cursors and error classes are the engine's own either way.
    """
    try:
        import _duckdb
    except ImportError:  # another layout (duckdb < 1.4 named it duckdb.duckdb)
        _duckdb = None
    if _duckdb is not None and hasattr(_duckdb, "connect") and hasattr(_duckdb, "Error"):
        return _duckdb
    import duckdb

    return duckdb


def check_file(loc: Location) -> None:
    """Refuse a location that is not a regular file of the expected store: DatabaseMissing
    (with the build command), a directory, a device, another store's or program's file."""
    path = loc.path
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise missing(loc) from None
    except OSError as exc:
        raise file_error(exc, path) from None
    if stat.S_ISDIR(st.st_mode):
        raise BadInput(f"{path} is a directory; give the database file, e.g. {path / 'dicebase.duckdb'}")
    if not stat.S_ISREG(st.st_mode):
        raise BadInput(f"{path} is not a regular file")
    sniff(loc)


def sniff(loc: Location) -> None:
    """Refuse a file that is not the expected store's (cheap: reads 16 bytes)."""
    path = loc.path
    try:
        with path.open("rb") as handle:
            head = handle.read(16)
    except OSError as exc:
        raise file_error(exc, path) from None
    if loc.store == "duckdb" and head.startswith(SQLITE_MAGIC):
        raise NotADicebaseDatabase(f"{path} is a SQLite file; open it as sqlite:///{path}")
    if loc.store == "sqlite" and head[8:12] == DUCKDB_MAGIC:
        raise NotADicebaseDatabase(f"{path} is a DuckDB file; open it as duckdb:///{path}")
    if loc.store == "duckdb" and head[8:12] != DUCKDB_MAGIC:
        raise NotADicebaseDatabase(f"{path} is not a DuckDB database file (nor a dicebase database)")
    if loc.store == "sqlite" and head and not head.startswith(SQLITE_MAGIC):
        raise NotADicebaseDatabase(f"{path} is not a SQLite database file (nor a dicebase database)")


def connect_duckdb(loc: Location, memory_limit: str):
    """A read-only DuckDB connection with no external access and ``memory_limit`` as its ceiling."""
    duckdb = duckdb_engine()
    try:
        return duckdb.connect(
            str(loc.path),
            read_only=True,
            config={
                "enable_external_access": False,
                "memory_limit": memory_limit,
                "temp_directory": "",  # never spill: the memory limit is a ceiling, and nothing is written
            },
        )
    except duckdb.Error as exc:
        raise classify(exc, loc) from None


def connect_sqlite(loc: Location, authorizer: Callable, progress: Callable[[], int]) -> sqlite3.Connection:
    """A ``mode=ro`` SQLite connection usable from any thread, with ``authorizer`` as its guard,
    ``progress`` as its progress handler (every SQLITE_PROGRESS_STEPS steps) and a length limit."""
    uri = Path(loc.path).resolve().as_uri() + "?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=SQLITE_BUSY_SECONDS)
    except sqlite3.Error as exc:
        raise classify(exc, loc) from None
    if hasattr(con, "setlimit"):
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_LENGTH)
    con.set_authorizer(authorizer)
    con.set_progress_handler(progress, SQLITE_PROGRESS_STEPS)
    return con


def cursor(con, sql: str, params):
    """con.execute(sql, params), or BadInput when the text holds no statement (DuckDB then returns None)."""
    result = con.execute(sql, params)
    if result is None:
        raise BadInput("the query holds no SQL statement")
    return result
