"""A read-only connection to a dicebase file, DuckDB or SQLite, behind one interface.

Every query runs on the caller's own thread, within a time limit that Ctrl-C
and ``interrupt()`` can cut short: SQLite checks a deadline and a stop flag
in its progress handler; for DuckDB one watchdog thread per process calls the
engine's ``interrupt()`` when a query passes its deadline, and, while the main
thread runs a query, when Ctrl-C arrives (it learns of it through
``signal.set_wakeup_fd``).  A memory ceiling (DuckDB ``memory_limit`` without
spilling to disk, SQLite's length limit) and a row ceiling on ``run_sql`` keep
one query from exhausting the machine.  Every engine error reaches the caller
as a ``DicebaseError`` subclass.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import threading
import weakref
from functools import cached_property
from pathlib import Path
from time import monotonic, sleep
from typing import Any, Callable

from dicebase import SCHEMA_VERSION
from dicebase.location import Location, resolve
from dicebase.errors import _kind, build_hint, classify, file_error  # noqa: F401  (build_hint: the games' hints)
from dicebase.errors import one_line as _one_line
from dicebase.errors import closed, missing, not_built, other_schema_version, timed_out
from dicebase.query.base import (
    BadInput,
    DicebaseError,
    NotADicebaseDatabase,
    QueryFailed,
    QueryInterrupted,
    QueryTimeout,
    QueryTooLarge,
    ReadOnlyViolation,
    clip,
    shorten,
)

#: Seconds a query may run before it is stopped (``None``: no limit).
DEFAULT_TIMEOUT = 60.0
#: DuckDB's buffer memory for one connection; nothing spills to disk, so this is the ceiling.
DEFAULT_MEMORY_LIMIT = "2GB"
#: Longest string or blob one SQLite value may hold (SQLite's own default is 1 GB).
SQLITE_MAX_LENGTH = 100_000_000
#: Most rows ``run_sql`` returns; a larger result is refused (use LIMIT, or ``dicebase export``).
MAX_RESULT_ROWS = 1_000_000
#: Seconds SQLite waits for another process's write lock before reporting the file as locked.
SQLITE_BUSY_SECONDS = 2.0
#: Most rows ``Database.read`` keeps per connection; past it the remembered reads are dropped.
READ_MEMO_ROWS = 200_000
#: SQLite virtual-machine steps between two calls of the progress handler that checks the
#: deadline and the stop flag (a lookup takes fewer: it never calls back into Python).
SQLITE_PROGRESS_STEPS = 10_000
#: Seconds between the watchdog's repeated interrupts of a DuckDB query it has stopped
#: (an interrupt that lands just before the engine starts the query is forgotten by it).
STOP_REPEAT_SECONDS = 0.05
_UNREAD = object()  # Database.read: no remembered result for this key

SQLITE_MAGIC = b"SQLite format 3\x00"
DUCKDB_MAGIC = b"DUCK"  # at byte 8 of a DuckDB file

# DuckDB statements `run_sql` runs (DuckDB parses DESCRIBE/SHOW/SUMMARIZE/FROM-first/VALUES as SELECT).
_DUCKDB_READ_TYPES = {"SELECT", "EXPLAIN", "PRAGMA"}
# Table functions that change state although they are called from a SELECT.
_DUCKDB_REFUSED_TABLE_FUNCTIONS = {"checkpoint", "force_checkpoint"}
# DuckDB pragmas that only read (any "=" assignment is refused as well).
_DUCKDB_READ_PRAGMAS = {
    "table_info", "show", "show_tables", "show_tables_expanded", "show_databases", "database_list",
    "database_size", "storage_info", "version", "platform", "functions", "metadata_info",
}

# SQLite pragmas that only read.  Those in the first set take an argument (a table, an index, a
# page budget); those in the second read a setting and are refused when they assign one.
_SQLITE_PRAGMAS_WITH_ARGUMENT = {
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
    "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
}
_SQLITE_READ_SETTINGS = {
    "user_version", "application_id", "schema_version", "data_version", "page_count", "page_size",
    "freelist_count", "encoding", "database_list", "collation_list", "function_list", "module_list",
    "pragma_list", "compile_options", "max_page_count",
}
_SQLITE_ACTIONS = {
    value: name[len("SQLITE_"):] for name, value in vars(sqlite3).items()
    if name.startswith("SQLITE_") and isinstance(value, int) and 1 <= value <= 33
}
# Attributes a thread's twin of a Database must not share: the game query objects cache per connection.
_PER_CONNECTION = ("threes", "rolled_ones", "ten_thousand")


class _SqliteGuard:
    """The SQLite authorizer: reads only, and it remembers why it refused a statement."""

    def __init__(self):
        self.refusal: str | None = None

    def __call__(self, action, arg1, arg2, dbname, source):
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                      getattr(sqlite3, "SQLITE_RECURSIVE", 33)):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master" and source is None:
            # SQLite asks this when a SELECT reads a table-valued pragma such as
            # pragma_table_info() (the pragma itself is checked next); no write can
            # succeed anyway: the file is opened mode=ro and writable_schema is refused.
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA:
            name = (arg1 or "").lower()
            if name in _SQLITE_PRAGMAS_WITH_ARGUMENT or (name in _SQLITE_READ_SETTINGS and arg2 is None):
                return sqlite3.SQLITE_OK
            self.refusal = f"PRAGMA {name}" + (" with a value" if arg2 is not None else "") + " is not a read-only pragma"
            return sqlite3.SQLITE_DENY
        what = _SQLITE_ACTIONS.get(action, str(action)).replace("_", " ")
        target = f" {arg1}" if arg1 else ""
        self.refusal = f"{what}{target} is not a read"
        return sqlite3.SQLITE_DENY


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


def _sniff(loc: Location) -> None:
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


class _Run:
    """One query in progress: its connection, deadline (monotonic seconds, or None) and why it is being stopped."""

    __slots__ = ("con", "deadline", "reason")

    def __init__(self, con, deadline: float | None):
        self.con = con
        self.deadline = deadline
        self.reason: str | None = None  # "timeout", "interrupt" (Database.interrupt) or "ctrl-c"

    def stop(self, db: "Database") -> None:
        """The engine's interrupt(), if this is still the query ``db`` runs (never the next one)."""
        with db._state:
            if db._running is self:
                self.con.interrupt()


class _Watchdog:
    """The one thread that stops DuckDB queries for every Database in the process.

    It sleeps until the earliest deadline of the queries running (or until woken
    through its pipe) and then calls the engine's ``interrupt()`` on those past
    their deadline, again every STOP_REPEAT_SECONDS until they end.  While the
    main thread runs a query, the pipe is also the signal wakeup fd: Ctrl-C
    writes SIGINT's number into it, which the main thread, blocked inside the
    engine, cannot see until the query ends.  A query start costs an attribute
    store and a comparison; the thread is woken only when a query's deadline
    comes before the time it will wake anyway.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._databases: weakref.WeakSet[Database] = weakref.WeakSet()
        self.wake_at = float("inf")  # when the thread next looks (read without the lock; see Database._run)
        self.main: tuple[Database, _Run] | None = None  # the query the main thread runs, for Ctrl-C
        self.forward_fd = -1  # the wakeup fd someone else had set; signal numbers are passed on to it
        self._read_fd, self.write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        os.set_blocking(self.write_fd, False)  # set_wakeup_fd requires it; a full pipe just drops a byte
        self._thread = threading.Thread(target=self._loop, name="dicebase-watchdog", daemon=True)
        self._thread.start()

    def watch(self, db: "Database") -> None:
        with self._lock:
            self._databases.add(db)

    def wake(self) -> None:
        try:
            os.write(self.write_fd, b"\0")
        except BlockingIOError:  # the pipe is full of wake-ups already
            pass

    def _loop(self) -> None:
        while True:
            wait = self._stop_due()
            ready, _, _ = select.select([self._read_fd], [], [], wait)
            if ready:
                self._read_signals()

    def _stop_due(self) -> float | None:
        """Stop every query past its deadline or asked to stop; the seconds until the next look.

        (A method of its own so that no connection stays referenced from the sleeping
        thread's frame: the engine's objects are freed at exit.)
        """
        with self._lock:
            self.wake_at = float("inf")  # before the scan: a query starting during it wakes us
            now = monotonic()
            soonest = float("inf")
            for db in list(self._databases):
                run = db._running
                if run is None:
                    continue
                if run.reason is None and run.deadline is not None and now >= run.deadline:
                    run.reason = "timeout"
                if run.reason is not None:
                    run.stop(db)
                    soonest = min(soonest, now + STOP_REPEAT_SECONDS)
                elif run.deadline is not None:
                    soonest = min(soonest, run.deadline)
            self.wake_at = soonest
        return None if soonest == float("inf") else max(0.0, soonest - monotonic())

    def _read_signals(self) -> None:
        try:
            data = os.read(self._read_fd, 4096)
        except BlockingIOError:
            return
        signals = data.replace(b"\0", b"")
        if not signals:
            return
        if signal.SIGINT in signals and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            # (a handler of the program's own decides for itself what Ctrl-C does)
            main = self.main
            if main is not None and main[1].reason is None:
                main[1].reason = "ctrl-c"
        if self.forward_fd >= 0:  # e.g. an asyncio loop's: it learns which signals came
            try:
                os.write(self.forward_fd, signals)
            except OSError:
                pass


_watchdog: _Watchdog | None = None
_watchdog_lock = threading.Lock()


def _the_watchdog() -> _Watchdog:
    global _watchdog
    if _watchdog is None:
        with _watchdog_lock:
            if _watchdog is None:
                _watchdog = _Watchdog()
    return _watchdog


def _forget_watchdog_in_child() -> None:
    global _watchdog, _watchdog_lock
    _watchdog = None  # its thread did not survive the fork; the child starts its own when needed
    _watchdog_lock = threading.Lock()


_MAIN_THREAD = threading.main_thread().ident


os.register_at_fork(after_in_child=_forget_watchdog_in_child)


class Database:
    """An open database.  Use as a context manager; every connection is read-only.

    ``timeout`` (seconds, None for none) ends a query that runs longer with
    QueryTimeout; ``memory_limit`` is DuckDB's memory ceiling; ``max_rows``
    caps what ``run_sql`` returns.
    """

    def __init__(
        self,
        location: Location,
        *,
        timeout: float | None = DEFAULT_TIMEOUT,
        memory_limit: str = DEFAULT_MEMORY_LIMIT,
        max_rows: int = MAX_RESULT_ROWS,
    ):
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
            raise BadInput(f"timeout must be a positive number of seconds or None, got {clip(timeout)}")
        self.location = location
        self.timeout = None if timeout is None else float(timeout)
        self.max_rows = max_rows
        self.memory_limit = memory_limit
        self._con = None
        self._running: _Run | None = None  # the query in progress (set and cleared by the thread running it)
        self._state = threading.Lock()  # orders a query's end against the watchdog's and interrupt()'s stop
        self._memo: dict[tuple, Any] = {}  # Database.read: (sql, params, into) -> result
        self._memo_rows = 0
        self._prepared: dict[str, str] = {}  # DuckDB: SQL -> name of its statement on this connection (prepared())
        #: tables held in memory (e.g. Queries.hold of the 10,000 game), shared with for_thread()'s twins
        self._held: dict[tuple, Any] = {}
        path = location.path
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise missing(location) from None
        except OSError as exc:
            raise file_error(exc, path) from None
        import stat

        if stat.S_ISDIR(st.st_mode):
            raise BadInput(f"{path} is a directory; give the database file, e.g. {path / 'dicebase.duckdb'}")
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{path} is not a regular file")
        _sniff(location)
        self._connect(memory_limit)
        try:
            self._check_version()
        except BaseException:
            self.close()
            raise

    def _connect(self, memory_limit: str) -> None:
        loc = self.location
        if loc.store == "duckdb":
            duckdb = duckdb_engine()
            try:
                self._con = duckdb.connect(
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
            _the_watchdog().watch(self)
        else:
            uri = Path(loc.path).resolve().as_uri() + "?mode=ro"
            try:
                self._con = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=SQLITE_BUSY_SECONDS)
            except sqlite3.Error as exc:
                raise classify(exc, loc) from None
            if hasattr(self._con, "setlimit"):
                self._con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_LENGTH)
            self._guard = _SqliteGuard()
            self._con.set_authorizer(self._guard)
            self._con.set_progress_handler(self._progress, SQLITE_PROGRESS_STEPS)

    def _games_if_readable(self) -> list[str]:
        """The games a file of another schema version holds, for its rebuild hint ([] if unreadable)."""
        try:
            return [g for (g,) in self.fetchall("SELECT game FROM build_games ORDER BY game")]
        except DicebaseError:
            return []

    def _check_version(self) -> None:
        path = self.location.path
        try:  # one query when the file is a dicebase database (a CLI lookup opens one per run)
            row = self.fetchone("SELECT value FROM build_info WHERE key = 'schema_version'")
        except QueryFailed:
            if self._has_relation("build_info"):
                raise
            raise NotADicebaseDatabase(
                f"{path} is not a dicebase database (it has no build_info table); "
                "give the path of a dicebase file, or build one at another path"
            ) from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = clip(row[0], 40) if row else "unknown"
            raise other_schema_version(self.location, found, SCHEMA_VERSION, self._games_if_readable())

    # -- running queries ----------------------------------------------------
    @property
    def store(self) -> str:
        return self.location.store

    def _run(self, work: Callable[[Any], Any]) -> Any:
        """``work(connection)`` on this thread, within the time limit.

        The time limit, ``interrupt()`` and Ctrl-C stop the query through the
        engine (SQLite's progress handler, DuckDB's interrupt() from the
        watchdog); engine errors become DicebaseError subclasses and Ctrl-C
        stays KeyboardInterrupt.
        """
        con = self._con
        if con is None:
            raise closed()
        timeout = self.timeout
        run = _Run(con, None if timeout is None else monotonic() + timeout)
        if self.store == "sqlite":
            self._guard.refusal = None
            self._running = run  # read by _progress, which SQLite calls on this thread
            try:
                return self._call(work, con, run)
            finally:
                with self._state:
                    self._running = None
        watchdog = _the_watchdog()
        self._running = run
        if run.deadline is not None and run.deadline < watchdog.wake_at:
            watchdog.wake()  # it sleeps past this deadline: let it look again
        previous = None
        if threading.get_ident() == _MAIN_THREAD:
            # The main thread sits inside DuckDB until the query ends, so Ctrl-C reaches the
            # watchdog through the signal wakeup fd, and it interrupts the query.
            try:
                previous = signal.set_wakeup_fd(watchdog.write_fd, warn_on_full_buffer=False)
            except ValueError:  # not the main interpreter
                previous = None
            else:
                watchdog.forward_fd = previous if previous != watchdog.write_fd else -1
                watchdog.main = (self, run)
        try:
            return self._call(work, con, run)
        finally:
            with self._state:
                self._running = None
            if previous is not None:
                watchdog.main = None
                signal.set_wakeup_fd(previous)

    def _call(self, work: Callable[[Any], Any], con, run: _Run) -> Any:
        """``work(con)`` within ``run``'s deadline; an engine error becomes a DicebaseError."""
        try:
            return self._in_time(work(con), run)
        except DicebaseError:
            raise
        except Exception as exc:
            raise self._translate(exc, run) from None

    def _in_time(self, result: Any, run: _Run) -> Any:
        """``result``, unless the query ended past its deadline before anything stopped it (the
        watchdog wakes, and SQLite calls _progress, only so often): the limit holds either way."""
        if run.deadline is not None and monotonic() > run.deadline:
            raise self._timeout()
        return result

    def _timeout(self) -> QueryTimeout:
        return timed_out(self.timeout)

    def _progress(self) -> int:
        """SQLite's progress handler: non-zero stops the running statement."""
        run = self._running
        if run is None:
            return 0
        if run.reason is None:
            if run.deadline is None or monotonic() < run.deadline:
                return 0
            run.reason = "timeout"
        return 1

    def _translate(self, exc: Exception, run: _Run | None = None) -> DicebaseError:
        if _kind(exc) == "interrupt" or (isinstance(exc, RuntimeError) and str(exc) == "Query interrupted"):
            why = run.reason if run is not None else "interrupt"
            if why == "interrupt":
                return QueryInterrupted("the query was interrupted; nothing was changed")
            if why == "timeout":
                return self._timeout()
            # Ctrl-C: the watchdog stopped the query, or the engine ran Python's SIGINT handler
            # itself (DuckDB's own check, a SQLite progress handler) and the KeyboardInterrupt
            # it raised there was replaced by the engine's error.
            raise KeyboardInterrupt
        if self.store == "sqlite" and self._guard.refusal:
            return ReadOnlyViolation(f"refused: {self._guard.refusal}; the sql command runs read-only statements")
        if isinstance(exc, (TypeError, ValueError, OverflowError)) or (
            isinstance(exc, sqlite3.ProgrammingError) and "binding" in str(exc)
        ):
            return BadInput(f"bad query parameters: {shorten(_one_line(exc), 200)}")
        if isinstance(exc, (sqlite3.Error, OSError)) or type(exc).__module__.startswith(("duckdb", "_duckdb")):
            return classify(exc, self.location)
        raise exc

    def interrupt(self) -> None:
        """Stop the running query from another thread; it raises QueryInterrupted."""
        con = self._con
        if con is None:
            return
        run = self._running
        if run is None:  # a cursor from execute(), or no query: the engine's interrupt as it is
            con.interrupt()
            return
        if run.reason is None:
            run.reason = "interrupt"
        if self.store == "duckdb":
            _the_watchdog().wake()  # it interrupts the query, again until it ends
        else:
            run.stop(self)  # and _progress refuses to go on

    def execute(self, sql: str, params: tuple | list = ()):
        """A cursor over the rows of one statement (for streaming large results; no time limit)."""
        _check_statement(sql, params)
        if self._con is None:
            raise closed()
        try:
            return self._con.execute(sql, params)
        except Exception as exc:
            raise self._translate(exc) from None

    def fetchall(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        _check_statement(sql, params)
        return self._run(lambda con: _cursor(con, sql, params).fetchall())

    def read(self, sql: str, params: tuple | list | dict = (),
             into: Callable[[list[tuple]], Any] | None = None) -> Any:
        """``fetchall`` remembered per connection: the lookups' reads of the (read-only) tables.

        ``into`` (a function of the rows, e.g. a dict by key) is applied once and its result
        remembered instead of the rows.  The file cannot change under an open connection
        (builds replace it whole), so a repeated read returns what the first did; the memo
        holds the results of at most READ_MEMO_ROWS rows and is dropped by ``close()``.
        Results are shared between calls: don't mutate them.
        """
        _check_statement(sql, params)
        if into is not None and not callable(into):
            raise BadInput(f"into must be a function of the rows, got {clip(into)}")
        if self._con is None:
            raise closed()
        try:
            bound = ("$", *sorted(params.items())) if isinstance(params, dict) else tuple(params)
            key = (sql, bound, into)
            value = self._memo.get(key, _UNREAD)
        except TypeError:  # a parameter that cannot be a key (a list): read without the memo
            rows = self.fetchall(sql, params)
            return rows if into is None else into(rows)
        if value is not _UNREAD:
            return value
        rows = self.fetchall(sql, params)
        value = rows if into is None else into(rows)
        if self._memo_rows + len(rows) > READ_MEMO_ROWS:
            self._memo.clear()
            self._memo_rows = 0
        self._memo[key] = value
        self._memo_rows += len(rows)
        return value

    def prepared(self, sql: str, *values: int) -> str:
        """DuckDB: the text that runs ``sql`` for these integer ``values`` ($1, $2, ...), for ``read``;
        ``sql`` is prepared once per connection, under a name made from its text.  DuckDB then plans
        the statement once, which saves about a tenth of a lookup's point read.  Its EXECUTE takes
        no bound parameters, so the values are written into the text: only integers (positions
        computed by the caller, never a user's text) are accepted."""
        if self.store != "duckdb":
            raise BadInput("prepared statements are read through DuckDB only")
        if not isinstance(sql, str) or not all(type(v) is int for v in values):
            raise BadInput(f"a prepared statement needs SQL text and integer values, got {clip(sql)}")
        name = self._prepared.get(sql)
        if name is None:
            name = f"dicebase_{len(self._prepared)}"
            self.fetchall(f"PREPARE {name} AS {sql}")
            self._prepared[sql] = name
        return f"EXECUTE {name}({', '.join(str(v) for v in values)})"

    def fetch_arrays(self, sql: str, params: tuple | list = ()) -> dict:
        """DuckDB: the result's columns as numpy arrays, by name (for loading a table into memory;
        never on a one-shot lookup's path, which must not import numpy)."""
        if self.store != "duckdb":
            raise BadInput("columns as arrays are read through DuckDB only")
        _check_statement(sql, params)
        return self._run(lambda con: _cursor(con, sql, params).fetchnumpy())

    def without_progress_bar(self) -> None:
        """DuckDB: no progress bar on this connection.  DuckDB draws one on the terminal for a
        query that passes 2 s, which loading a table (``hold()``) may do on a cold file."""
        if self.store == "duckdb":
            self.fetchall("SET enable_progress_bar = false")

    def forget_reads(self) -> None:
        """Drop what ``read`` remembers (benchmarks measure uncached lookups with it)."""
        self._memo.clear()
        self._memo_rows = 0

    def fetchone(self, sql: str, params: tuple | list = ()) -> tuple | None:
        _check_statement(sql, params)
        return self._run(lambda con: _cursor(con, sql, params).fetchone())

    def columns(self, sql: str, params: tuple | list = ()) -> tuple[list[str], list[tuple]]:
        _check_statement(sql, params)

        def work(con):
            cur = _cursor(con, sql, params)
            names = [d[0] for d in cur.description] if cur.description else []
            return names, cur.fetchall()

        return self._run(work)

    def _has_relation(self, name: str) -> bool:
        if self.store == "sqlite":
            row = self.fetchone("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,))
        else:
            # duckdb_tables(): a few times cheaper than the information_schema.tables view
            row = self.fetchone(
                "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?", (name,)
            )
        return bool(row and row[0])

    def for_thread(self) -> "Database":
        """The same database for use by another thread (the web server has one per worker thread).

        DuckDB: a cursor of this connection (one database instance, its settings
        and limits); SQLite: a new read-only connection.  Close it before this one.
        """
        if self._con is None:
            raise closed()
        if self.store == "sqlite":
            twin = Database(self.location, timeout=self.timeout, memory_limit=self.memory_limit)
            twin.max_rows = self.max_rows
            return twin
        twin = object.__new__(Database)
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("_con", *_PER_CONNECTION)})
        twin._con = self._con.cursor()
        twin._running = None  # its own query state
        twin._state = threading.Lock()
        twin._memo, twin._memo_rows = {}, 0  # each thread's connection remembers its own reads
        twin._prepared = {}  # and prepares its own statements
        _the_watchdog().watch(twin)
        return twin

    def close(self) -> None:
        con, self._con = self._con, None
        self.forget_reads()
        self._held = {}  # this object's reference: twins keep theirs
        for name in _PER_CONNECTION:  # their caches belong to this connection: a lookup after close() fails
            self.__dict__.pop(name, None)
        run = self._running
        if run is not None and run.con is con:  # another thread's query: stop it and let it end first
            if run.reason is None:
                run.reason = "interrupt"
            waited = monotonic()
            while self._running is run and monotonic() - waited < 5.0:
                run.stop(self)
                sleep(0.01)
        if con is not None:
            con.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- read-only SQL for users ----------------------------------------
    def run_sql(self, query: str, params: tuple | list = ()) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement; refuse anything that writes or touches files.

        DuckDB statements are classified by DuckDB's own parser; SQLite's are
        checked by its authorizer as they are prepared (and the file is open
        read-only in any case).
        """
        _check_statement(query, params)
        text = query.strip()
        if not text.rstrip(";").strip():
            raise BadInput("empty query; give one SELECT statement")
        limit = self.max_rows

        def work(con):  # the check and the statement are one query for the time limit and interrupt()
            if self.store == "duckdb":
                self._check_duckdb_statement(con, text)
            cur = con.execute(text, params)
            names = [d[0] for d in cur.description] if cur.description else []
            rows = cur.fetchmany(limit + 1)
            return names, rows

        names, rows = self._run(work)
        if len(rows) > limit:
            raise QueryTooLarge(
                f"the result has more than {limit:,} rows; add a LIMIT, or copy whole tables with dicebase export"
            )
        return names, rows

    def _check_duckdb_statement(self, con, text: str) -> None:
        """Refuse what is not a read, by DuckDB's own parser and tokenizer (inside ``_run``)."""
        def parse(sql):
            try:
                return con.extract_statements(sql)
            except Exception as exc:
                error = self._translate(exc, self._running)
                if isinstance(error, QueryFailed):
                    raise ReadOnlyViolation(f"cannot parse the query: {error}") from None
                raise error from None

        statements = parse(text)
        if len(statements) != 1:
            raise ReadOnlyViolation(f"one statement at a time, got {len(statements)}")
        kind = statements[0].type.name
        if kind not in _DUCKDB_READ_TYPES:
            raise ReadOnlyViolation(_refusal(kind))
        tokens = [(pos, text[pos:end].strip()) for pos, end in _token_spans(text)]
        words = [word for _, word in tokens]
        if kind == "EXPLAIN":
            if len(words) > 1 and words[1].upper() in ("ANALYZE", "ANALYSE"):
                raise ReadOnlyViolation("refused: EXPLAIN ANALYZE runs its statement; use plain EXPLAIN")
            inner = text[tokens[1][0]:] if len(tokens) > 1 else ""
            inner_statements = parse(inner) if inner else []
            if len(inner_statements) != 1 or inner_statements[0].type.name != "SELECT":
                raise ReadOnlyViolation("refused: EXPLAIN runs here only for a SELECT statement")
            text = inner
        if kind == "PRAGMA":
            name = words[1].lower() if len(words) > 1 else ""
            if name not in _DUCKDB_READ_PRAGMAS or "=" in words:
                raise ReadOnlyViolation(f"refused: PRAGMA {shorten(name, 40)} is not a read-only pragma")
            return
        try:
            tree = con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0]
        except Exception as exc:
            error = self._translate(exc, self._running)
            if isinstance(error, (QueryInterrupted, QueryTimeout)):
                raise error from None
            return  # no json extension: the read-only connection is still the guard
        for name in _table_functions(json.loads(tree)):
            if name.lower() in _DUCKDB_REFUSED_TABLE_FUNCTIONS:
                raise ReadOnlyViolation(f"refused: {name}() changes the database file; the sql command only reads")

    def sql(self, query: str, params: dict[str, Any] | tuple | list = ()) -> "Result":
        """Run one read-only statement (as ``dicebase sql``) and return its :class:`Result`.

        ``params`` binds ``$name`` placeholders from a dict (both stores) or
        ``?`` placeholders from a sequence; ``.df()``, ``.pl()`` and ``.arrow()``
        on the result hand it to pandas, polars or pyarrow when installed.
        """
        from dicebase.query.result import Result

        names, rows = self.run_sql(query, params)
        return Result(list(names), rows)

    # -- metadata ---------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """Everything the build recorded: versions, games, variants, tables, steps."""
        facts = dict(self.fetchall("SELECT key, value FROM build_info ORDER BY key"))
        games = [
            {
                "game": g,
                "options": json.loads(o),
                "notes": json.loads(n),
                "build_seconds": round(s, 3),
                "built_at": at,
            }
            for g, o, n, s, at in self.fetchall(
                "SELECT game, options_json, notes_json, build_seconds, built_at FROM build_games ORDER BY game"
            )
        ]
        variants = [
            {"game": g, "variant": v, "rules": json.loads(r), "solver": json.loads(s)}
            for g, v, r, s in self.fetchall(
                "SELECT game, variant, rules_json, solver_json FROM build_variants ORDER BY game, variant"
            )
        ]
        tables = [
            {"table": t, "game": g, "rows": int(n), "checksum": c, "write_seconds": round(w, 3)}
            for t, g, n, c, w in self.fetchall(
                "SELECT table_name, game, row_count, checksum, write_seconds FROM build_tables ORDER BY game, table_name"
            )
        ]
        steps = [
            {"game": g, "step": s, "seconds": round(sec, 3)}
            for g, s, sec in self.fetchall("SELECT game, step, seconds FROM build_steps ORDER BY game, seq")
        ]
        return {
            "location": str(self.location),
            "file_bytes": self.location.path.stat().st_size,
            "build": facts,
            "games": games,
            "variants": variants,
            "tables": tables,
            "steps": steps,
        }

    def games(self) -> list[str]:
        return [g for (g,) in self.fetchall("SELECT game FROM build_games ORDER BY game")]

    def require_game(self, game: str) -> None:
        if not isinstance(game, str):
            raise BadInput(f"a game is a name such as threes, got {clip(game)}")
        if game not in self.games():
            raise not_built(game, self.location)

    def relations(self) -> list[tuple[str, str]]:
        """(name, 'table'|'view') for every public relation, from the schema catalogue."""
        return [(n, k) for n, k in self.fetchall("SELECT name, kind FROM schema_tables ORDER BY kind, name")]

    # -- the games ----------------------------------------------------------
    @cached_property
    def threes(self):
        from dicebase.query.threes import Queries

        return Queries(self)

    @cached_property
    def rolled_ones(self):
        from dicebase.query.rolled_ones import Queries

        return Queries(self)

    @cached_property
    def ten_thousand(self):
        from dicebase.query.ten_thousand import Queries

        return Queries(self)


def _cursor(con, sql: str, params):
    """con.execute(sql, params), or BadInput when the text holds no statement (DuckDB then returns None)."""
    cursor = con.execute(sql, params)
    if cursor is None:
        raise BadInput("the query holds no SQL statement")
    return cursor


def _check_statement(sql, params) -> None:
    """BadInput unless ``sql`` is text and ``params`` a list, tuple or dict of values."""
    if not isinstance(sql, str):
        raise BadInput(f"the query must be SQL text, got {clip(sql)}")
    if "\x00" in sql:
        raise BadInput("the query contains a NUL character")
    if not isinstance(params, (tuple, list, dict)):
        raise BadInput(f"query parameters must be a list or tuple of values, got {clip(params)}")


def _token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each token but comments, by DuckDB's tokenizer (a token's text runs to the next)."""
    duckdb = duckdb_engine()
    starts = [pos for pos, kind in duckdb.tokenize(text) if kind != duckdb.token_type.comment]
    return [(start, end) for start, end in zip(starts, starts[1:] + [len(text)])]


def _table_functions(node) -> list[str]:
    """Names of every table function in a DuckDB parse tree (json_serialize_sql)."""
    found = []
    if isinstance(node, dict):
        if node.get("type") == "TABLE_FUNCTION":
            function = node.get("function") or {}
            found.append(str(function.get("function_name", "")))
        for value in node.values():
            found.extend(_table_functions(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_table_functions(value))
    return found


def _refusal(kind: str) -> str:
    return (
        f"refused: {kind} statements cannot run here; the sql command runs one read-only "
        "SELECT, WITH, VALUES, EXPLAIN or read-only PRAGMA statement"
    )


def open(  # noqa: A001
    target: str | os.PathLike | Location | None = None,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> Database:
    """Open a database read-only: a path, a duckdb:/// or sqlite:/// URL, a Location, or None (the default)."""
    if target is not None and not isinstance(target, (str, os.PathLike, Location)):
        raise BadInput(f"the database must be a path or a duckdb:///, sqlite:/// URL, got {clip(target)}")
    if isinstance(target, os.PathLike) and not isinstance(os.fspath(target), str):
        raise BadInput(f"the database path must be text, got {clip(target)}")
    if isinstance(target, str) and "\x00" in target:
        raise BadInput("the database path contains a NUL character")
    try:
        loc = target if isinstance(target, Location) else resolve(target)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    return Database(loc, timeout=timeout, memory_limit=memory_limit)
