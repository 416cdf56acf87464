"""Opening a dicebase file: the checks on the path, the 16-byte sniff of its store, and the
read-only connection of each engine with its limits (no query runs here)."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Callable

from dicebase.errors import BadInput, NotADicebaseDatabase, classify, file_error, missing, no_statement, value_too_large
from dicebase.location import Location

#: DuckDB's buffer memory for one connection; nothing spills to disk, so this is the ceiling.
DEFAULT_MEMORY_LIMIT = "2GB"
#: Longest string or blob one value may hold (SQLite's own default is 1 GB): one function call
#: that builds a longer one is refused, so that the time limit and Ctrl-C, which stop a query
#: between function calls, stop it within a second (issue 25).
MAX_VALUE_BYTES = 10_000_000
SQLITE_MAX_LENGTH = MAX_VALUE_BYTES
#: Most elements of a list one DuckDB function call may build (range, generate_series, list_resize).
MAX_LIST_ELEMENTS = 1_000_000

#: DuckDB functions that build a value as large as an argument says, in one call the engine cannot
#: interrupt: each is shadowed on every read connection by a temporary macro of the same name that
#: refuses a call past the bounds and otherwise calls the engine's own (``system.main.<name>``).
#: The guard refuses a qualified call (``system.main.repeat``) that would go around them.
_TOO_LARGE = "error('" + "dicebase value limit: {what}')"
_LEN = "length(CAST({} AS VARCHAR))"  # strings, blobs and lists alike (a list's text is longer than it)
_COUNT = "abs((TRY_CAST({b} AS HUGEINT) - TRY_CAST({a} AS HUGEINT)) // greatest(abs(TRY_CAST({step} AS HUGEINT)), 1))"
_BYTES = "would build a value of more than 10,000,000 bytes"
_ELEMENTS = "would build a list of more than 1,000,000 elements"
#: name -> overloads (parameters, the test of a call past the bounds, the engine's call with its size
#: argument made harmless when past them: DuckDB folds a constant call while planning, so the call
#: itself must not be large whatever the test says, what it would build).
DUCKDB_BOUNDED_MACROS = {
    "repeat": [("s, n", f"TRY_CAST(n AS HUGEINT) * greatest({_LEN.format('s')}, 1) > {MAX_VALUE_BYTES}",
                "repeat(s, CASE WHEN {c} THEN 0 ELSE n END)", _BYTES)],
    "lpad": [("s, n, p", f"TRY_CAST(n AS HUGEINT) > {MAX_VALUE_BYTES}", "lpad(s, CASE WHEN {c} THEN 0 ELSE n END, p)", _BYTES)],
    "rpad": [("s, n, p", f"TRY_CAST(n AS HUGEINT) > {MAX_VALUE_BYTES}", "rpad(s, CASE WHEN {c} THEN 0 ELSE n END, p)", _BYTES)],
    "replace": [("s, a, b", f"(length(s) + 1) // greatest(length(a), 1) * length(b) > {MAX_VALUE_BYTES}",
                 "replace(s, a, CASE WHEN {c} THEN '' ELSE b END)", _BYTES)],
    "regexp_replace": [
        ("s, p, r", f"(length(s) + 1) * length(r) > {MAX_VALUE_BYTES}",
         "regexp_replace(s, p, CASE WHEN {c} THEN '' ELSE r END)", _BYTES),
        ("s, p, r, o", f"(length(s) + 1) * length(r) > {MAX_VALUE_BYTES}",
         "regexp_replace(s, p, CASE WHEN {c} THEN '' ELSE r END, o)", _BYTES)],
    "bitstring": [("s, n", f"TRY_CAST(n AS HUGEINT) > {8 * MAX_VALUE_BYTES}",
                   "bitstring(s, CASE WHEN {c} THEN length(s) ELSE n END)", _BYTES)],
    **{name: [
        ("a", f"TRY_CAST(a AS HUGEINT) > {MAX_LIST_ELEMENTS}", name + "(CASE WHEN {c} THEN 0 ELSE a END)", _ELEMENTS),
        ("a, b", _COUNT.format(a="a", b="b", step=1) + f" > {MAX_LIST_ELEMENTS}",
         name + "(a, CASE WHEN {c} THEN a ELSE b END)", _ELEMENTS),
        ("a, b, c", _COUNT.format(a="a", b="b", step="c") + f" > {MAX_LIST_ELEMENTS}",
         name + "(a, CASE WHEN {c} THEN a ELSE b END, c)", _ELEMENTS),
    ] for name in ("range", "generate_series")},
    **{name: [
        ("l, n", f"TRY_CAST(n AS HUGEINT) > {MAX_LIST_ELEMENTS}", name + "(l, CASE WHEN {c} THEN 0 ELSE n END)", _ELEMENTS),
        ("l, n, v", f"TRY_CAST(n AS HUGEINT) > {MAX_LIST_ELEMENTS}", name + "(l, CASE WHEN {c} THEN 0 ELSE n END, v)",
         _ELEMENTS),
    ] for name in ("list_resize", "array_resize")},
}


def bounded_macros_sql() -> str:
    """The CREATE TEMP MACRO statements of DUCKDB_BOUNDED_MACROS (one per name, its overloads in it)."""
    statements = []
    for name, overloads in DUCKDB_BOUNDED_MACROS.items():
        bodies = [
            f"({params}) AS CASE WHEN {too_large} THEN {_TOO_LARGE.format(what=f'{name} {what}')} "
            f"ELSE system.main.{call.format(c=too_large)} END"
            for params, too_large, call, what in overloads
        ]
        statements.append(f"CREATE OR REPLACE TEMP MACRO {name}" + ", ".join(bodies))
    return ";\n".join(statements)


def bound_duckdb(con) -> None:
    """Shadow DuckDB's value-building functions with their bounded macros on ``con`` (a connection
    or a cursor: each has its own temporary catalogue)."""
    con.execute(bounded_macros_sql())


_BOUNDED_NAMES = None


def calls_bounded(text: str) -> bool:
    """Whether ``text`` names one of the functions DUCKDB_BOUNDED_MACROS shadows.  The macros are
    created on a connection before the first such statement runs on it, not when it opens: that
    costs about 15 ms, a tenth of a CLI lookup, and the lookups' own statements never call them.
    A statement can only call a function by naming it (the guard refuses ``query('...')`` and
    qualified names such as ``system.main.repeat``), so a statement that does not name one needs
    no macro."""
    global _BOUNDED_NAMES
    if _BOUNDED_NAMES is None:
        import re

        _BOUNDED_NAMES = re.compile(r"(?<![\w$])(?:" + "|".join(DUCKDB_BOUNDED_MACROS) + r")(?![\w$])", re.I)
    return _BOUNDED_NAMES.search(text) is not None
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
        con = duckdb.connect(
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
    return con  # the bounded macros come with the first statement that needs them (calls_bounded)


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
    for name in ("printf", "format"):  # '%.*c' with a precision of 2e9 loops 2e9 times past the length limit
        con.create_function(name, -1, bounded_printf(authorizer), deterministic=True)
    con.set_authorizer(authorizer)
    con.set_progress_handler(progress, SQLITE_PROGRESS_STEPS)
    return con


_PRINTF_SPEC = None
_PRINTF = None


def bounded_printf(guard) -> Callable:
    """SQLite's printf (and format) with every width and precision at most MAX_VALUE_BYTES: SQLite
    builds a '%.*c' of 2,000,000,000 characters one at a time, past its own length limit, in one
    call nothing can stop.  A call within the bound runs SQLite's own printf (on a private
    in-memory connection); one past it sets ``guard.error`` and fails.

    It fails without raising: a Python exception inside an SQLite function reaches
    ``sys.unraisablehook`` once anything in the process has called
    ``sqlite3.enable_callback_tracebacks(True)`` (Datasette does, on import), a traceback per
    refused call (issue 34: nine in a green test run).  It returns a value one byte past the
    connection's length limit instead (zeroed by calloc, never written), which SQLite refuses
    before copying it: SQLITE_TOOBIG, reported as ``guard.error``."""
    import re
    import threading

    global _PRINTF_SPEC, _PRINTF
    if _PRINTF_SPEC is None:
        _PRINTF_SPEC = re.compile(r"%([-+ #0!,]*)(\*|\d+)?(?:\.(\*|\d+))?(?:ll|l)?([a-zA-Z%])")
        _PRINTF = (sqlite3.connect(":memory:", check_same_thread=False), threading.Lock())

    def printf(form=None, *args):
        if isinstance(form, str):
            values = iter(args)
            for match in _PRINTF_SPEC.finditer(form):
                for size in match.group(2, 3):
                    if size is None:
                        continue
                    number = next(values, 0) if size == "*" else int(size)
                    if isinstance(number, (int, float)) and abs(number) > MAX_VALUE_BYTES:
                        guard.error = value_too_large(
                            "printf would build a string of more than 10,000,000 characters")
                        return bytes(SQLITE_MAX_LENGTH + 1)
                if match.group(4) != "%":
                    next(values, None)
        con, lock = _PRINTF
        with lock:
            return con.execute(f"SELECT printf({', '.join('?' for _ in range(1 + len(args)))})",
                               (form, *args)).fetchone()[0]

    return printf


def cursor(con, sql: str, params):
    """con.execute(sql, params), or BadInput when the text holds no statement (DuckDB then returns None)."""
    result = con.execute(sql, params)
    if result is None:
        raise no_statement()
    return result
