"""A read-only connection to a dicebase file, DuckDB or SQLite, behind one interface.

``Database`` is the connection's public surface; each of its concerns lives in a
module of its own:

* ``engine``: the checks on the file and the read-only connection of each engine;
* ``guard``: what a statement may do (``run_sql``'s read-only check, SQLite's authorizer);
* ``watchdog``: time limits, ``interrupt()`` and Ctrl-C;
* ``memo``: what a connection remembers (``read``'s results, prepared statements);
* ``metadata``: the build's record (``info``, ``games``, ``relations``);
* ``games``: which module answers each game's lookups (``db.threes`` ...);
* ``dicebase.errors``: every error, its text and its remedy.

A memory ceiling (DuckDB ``memory_limit`` without spilling to disk, SQLite's
length limit) and a row ceiling on ``run_sql`` keep one query from exhausting
the machine.  Every engine error reaches the caller as a ``DicebaseError``
subclass.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
from dataclasses import dataclass
from time import monotonic, sleep
from typing import Any, Callable

from dicebase.version import SCHEMA_VERSION
from dicebase.errors import (
    BadInput,
    DicebaseError,
    NotADicebaseDatabase,
    QueryFailed,
    QueryTimeout,
    QueryTooLarge,
    classify,
    clip,
    closed,
    interrupted,
    kind,
    one_line,
    other_schema_version,
    shorten,
    timed_out,
    value_too_large,
)
from dicebase.errors import VALUE_LIMIT_TAG
from dicebase.errors import build_hint, file_error  # noqa: F401  (importable from here, as before)
from dicebase.location import Location, resolve
from dicebase.query import games as game_modules
from dicebase.query import metadata
from dicebase.query.engine import (  # noqa: F401  (duckdb_engine: importable from here, as before)
    DEFAULT_MEMORY_LIMIT,
    bound_duckdb,
    calls_bounded,
    check_file,
    connect_duckdb,
    connect_sqlite,
    duckdb_engine,
)
from dicebase.query.engine import cursor as _cursor  # a global of this module: a test counts statements through it
from dicebase.query.guard import DuckdbGuard, GuardedConnection, SqliteGuard, check_duckdb_statement, check_statement
from dicebase.query.memo import READ_MEMO_ROWS, UNREAD, PreparedStatements, ReadMemo
from dicebase.query.watchdog import MAIN_THREAD, Run, Slot, the_watchdog

#: Seconds a query may run before it is stopped (``None``: no limit).
DEFAULT_TIMEOUT = 60.0
#: Most rows ``run_sql`` returns; a larger result is refused (use LIMIT, or ``dicebase export``).
MAX_RESULT_ROWS = 1_000_000


@dataclass(frozen=True)
class Statistics:
    """What one connection holds and has done (``Database.statistics()``), for diagnostics and tests.

    A thread's twin (``for_thread()``) has its own figures, but the tables held in memory
    are shared with the connection it came from.
    """

    #: whether the connection is open (False after ``close()``)
    open: bool
    #: whether a query runs on it now (on whichever thread)
    running: bool
    #: queries run since it opened: each fetch, ``run_sql``, ``execute``, ``call`` and each
    #: ``read`` that was not answered from what the connection remembers
    queries: int
    #: results ``read`` remembers, and the rows they were made of (at most ``read_memo_rows``)
    remembered_reads: int
    remembered_rows: int
    #: DuckDB: the statements ``prepared`` has prepared, as (SQL text, name) in the order prepared
    prepared: tuple[tuple[str, str], ...]
    #: the tables held in memory by a game's ``hold()`` (their names, once each), and their bytes
    held_tables: tuple[str, ...]
    held_bytes: int


class Database:
    """An open database.  Use as a context manager; every connection is read-only.

    ``timeout`` (seconds, None for none) ends a query that runs longer with
    QueryTimeout; ``memory_limit`` is DuckDB's memory ceiling; ``max_rows``
    caps what ``run_sql`` returns; ``read_memo_rows`` bounds what ``read``
    remembers.  ``statistics()`` says what the connection holds.
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
        #: Most rows whose results ``read`` remembers; past it what was remembered is dropped.
        self.read_memo_rows = READ_MEMO_ROWS
        self._con = None
        self._per_connection_state()
        #: tables held in memory (e.g. Queries.hold of the 10,000 game), shared with for_thread()'s twins
        self._held: dict[tuple, Any] = {}
        check_file(location)
        self._connect(memory_limit)
        try:
            self._check_version()
        except BaseException:
            self.close()
            raise

    def _per_connection_state(self) -> None:
        """What each connection (and each thread's twin) has of its own."""
        self._slot = Slot()  # the query in progress, for the watchdog and interrupt()
        self._memo = ReadMemo()  # read(): (sql, params, into) -> result
        self._prepared = PreparedStatements()  # DuckDB: prepared()'s statements on this connection
        self._queries = 0  # for statistics()
        self._bounded = False  # DuckDB: the bounded macros are on this connection (engine.calls_bounded)

    def _connect(self, memory_limit: str) -> None:
        loc = self.location
        if loc.store == "duckdb":
            self._con = connect_duckdb(loc, memory_limit)
            the_watchdog().watch(self._slot)
        else:
            self._guard = SqliteGuard()
            self._con = connect_sqlite(loc, self._guard, self._progress)

    def _check_version(self) -> None:
        path = self.location.path
        try:  # one query when the file is a dicebase database (a CLI lookup opens one per run)
            row = self.fetchone("SELECT value FROM build_info WHERE key = 'schema_version'")
        except QueryFailed:
            if metadata.has_relation(self, "build_info"):
                raise
            raise NotADicebaseDatabase(
                f"{path} is not a dicebase database (it has no build_info table); "
                "give the path of a dicebase file, or build one at another path"
            ) from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = clip(row[0], 40) if row else "unknown"
            raise other_schema_version(self.location, found, SCHEMA_VERSION, metadata.games_if_readable(self))

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
        self._queries += 1
        timeout = self.timeout
        run = Run(con, None if timeout is None else monotonic() + timeout)
        slot = self._slot
        if self.store == "sqlite":
            self._guard.reset()
            slot.run = run  # read by _progress, which SQLite calls on this thread
            try:
                return self._call(work, con, run)
            finally:
                slot.end()
        watchdog = the_watchdog()
        slot.run = run
        if run.deadline is not None and run.deadline < watchdog.wake_at:
            watchdog.wake()  # it sleeps past this deadline: let it look again
        previous = None
        if threading.get_ident() == MAIN_THREAD:
            # The main thread sits inside DuckDB until the query ends, so Ctrl-C reaches the
            # watchdog through the signal wakeup fd, and it interrupts the query.
            try:
                previous = signal.set_wakeup_fd(watchdog.write_fd, warn_on_full_buffer=False)
            except ValueError:  # not the main interpreter
                previous = None
            else:
                watchdog.forward_fd = previous if previous != watchdog.write_fd else -1
                watchdog.main = (slot, run)
        try:
            return self._call(work, con, run)
        finally:
            slot.end()
            if previous is not None:
                watchdog.main = None
                signal.set_wakeup_fd(previous)

    def _call(self, work: Callable[[Any], Any], con, run: Run) -> Any:
        """``work(con)`` within ``run``'s deadline; an engine error becomes a DicebaseError."""
        try:
            return self._in_time(work(con), run)
        except DicebaseError:
            raise
        except Exception as exc:
            raise self._translate(exc, run) from None

    def _in_time(self, result: Any, run: Run) -> Any:
        """``result``, unless the query ended past its deadline before anything stopped it (the
        watchdog wakes, and SQLite calls _progress, only so often): the limit holds either way."""
        if run.deadline is not None and monotonic() > run.deadline:
            raise self._timeout()
        return result

    def _timeout(self) -> QueryTimeout:
        return timed_out(self.timeout)

    def _progress(self) -> int:
        """SQLite's progress handler: non-zero stops the running statement."""
        run = self._slot.run
        if run is None:
            return 0
        if run.reason is None:
            if run.deadline is None or monotonic() < run.deadline:
                return 0
            run.reason = "timeout"
        return 1

    def _translate(self, exc: Exception, run: Run | None = None) -> DicebaseError:
        if kind(exc) == "interrupt" or (isinstance(exc, RuntimeError) and str(exc) == "Query interrupted"):
            why = run.reason if run is not None else "interrupt"
            if why == "interrupt":
                return interrupted()
            if why == "timeout":
                return self._timeout()
            # Ctrl-C: the watchdog stopped the query, or the engine ran Python's SIGINT handler
            # itself (DuckDB's own check, a SQLite progress handler) and the KeyboardInterrupt
            # it raised there was replaced by the engine's error.
            raise KeyboardInterrupt
        if self.store == "sqlite":
            refused = self._guard.refused()
            if refused is not None:
                return refused
            if isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == 18  # SQLITE_TOOBIG
                                                   or "too big" in str(exc)):
                return value_too_large(f"{VALUE_LIMIT_TAG} a value would be longer than 10,000,000 bytes")
        elif VALUE_LIMIT_TAG in str(exc):  # a bounded macro refused its call (engine.DUCKDB_BOUNDED_MACROS)
            return value_too_large(str(exc).splitlines()[0])
        if isinstance(exc, (TypeError, ValueError, OverflowError)) or (
            isinstance(exc, sqlite3.ProgrammingError) and "binding" in str(exc)
        ):
            return BadInput(f"bad query parameters: {shorten(one_line(exc), 200)}")
        if isinstance(exc, (sqlite3.Error, OSError)) or type(exc).__module__.startswith(("duckdb", "_duckdb")):
            return classify(exc, self.location)
        raise exc

    def interrupt(self) -> None:
        """Stop the running query from another thread; it raises QueryInterrupted."""
        con = self._con
        if con is None:
            return
        run = self._slot.run
        if run is None:  # a cursor from execute(), or no query: the engine's interrupt as it is
            con.interrupt()
            return
        if run.reason is None:
            run.reason = "interrupt"
        if self.store == "duckdb":
            the_watchdog().wake()  # it interrupts the query, again until it ends
        else:
            self._slot.stop(run)  # and _progress refuses to go on

    def call(self, work: Callable[[Any], Any]) -> Any:
        """``work(connection)`` with the engine's own connection, run as every query is: on this
        thread, within the time limit, stopped by ``interrupt()`` and Ctrl-C, its engine errors
        as DicebaseError.  For what the query methods cannot say (a checksum read column by
        column, a SQL function of a test); the connection is read-only, and ``work`` must not
        keep it."""
        if not callable(work):
            raise BadInput(f"work must be a function of the connection, got {clip(work)}")
        check = self._check_sql if self.store == "duckdb" else None
        return self._run(lambda con: work(GuardedConnection(con, check)))

    def _check_sql(self, con, sql: str) -> None:
        """The guard of the lower-level methods (``guard.DuckdbGuard``; SQLite's authorizer checks
        every statement by itself)."""
        if self.store == "duckdb":
            self._bound_for(con, sql)
            DuckdbGuard.check(con, sql, lambda exc: self._translate(exc, self._slot.run), self._prepared.names.values())

    def _bound_for(self, con, sql) -> None:
        """Create the bounded macros on this connection before the first statement that names one."""
        if not self._bounded and isinstance(sql, str) and calls_bounded(sql):
            bound_duckdb(con)
            self._bounded = True

    def _guarded(self, fetch: Callable[[Any], Any], sql: str, params) -> Any:
        """``fetch(cursor)`` of ``sql`` run through the guard, within the time limit."""
        def work(con):
            self._check_sql(con, sql)
            return fetch(_cursor(con, sql, params))

        return self._run(work)

    def execute(self, sql: str, params: tuple | list = ()):
        """A cursor over the rows of one statement (for streaming large results; no time limit)."""
        check_statement(sql, params)
        if self._con is None:
            raise closed()
        self._queries += 1
        if self.store == "sqlite":
            self._guard.reset()
        try:
            self._check_sql(self._con, sql)
            return self._con.execute(sql, params)
        except DicebaseError:
            raise
        except Exception as exc:
            raise self._translate(exc) from None

    def fetchall(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        check_statement(sql, params)
        return self._guarded(lambda cur: cur.fetchall(), sql, params)

    def read(self, sql: str, params: tuple | list | dict = (),
             into: Callable[[list[tuple]], Any] | None = None) -> Any:
        """``fetchall`` remembered per connection: the lookups' reads of the (read-only) tables.

        ``into`` (a function of the rows, e.g. a dict by key) is applied once and its result
        remembered instead of the rows.  The file cannot change under an open connection
        (builds replace it whole), so a repeated read returns what the first did; the memo
        holds the results of at most ``read_memo_rows`` rows and is dropped by ``close()``.
        Results are shared between calls: don't mutate them.
        """
        check_statement(sql, params)
        if into is not None and not callable(into):
            raise BadInput(f"into must be a function of the rows, got {clip(into)}")
        if self._con is None:
            raise closed()
        memo = self._memo
        try:
            key = memo.key(sql, params, into)
            value = memo.results.get(key, UNREAD)
        except TypeError:  # a parameter that cannot be a key (a list): read without the memo
            rows = self.fetchall(sql, params)
            return rows if into is None else into(rows)
        if value is not UNREAD:
            return value
        rows = self.fetchall(sql, params)
        value = rows if into is None else into(rows)
        memo.keep(key, value, len(rows), self.read_memo_rows)
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
        check_statement(sql, ())
        return self._prepared.execute(sql, values, lambda statement: self._run(
            lambda con: (self._check_sql(con, sql), _cursor(con, statement, ()).fetchall())[1]))

    def fetch_arrays(self, sql: str, params: tuple | list = ()) -> dict:
        """DuckDB: the result's columns as numpy arrays, by name (for loading a table into memory;
        never on a one-shot lookup's path, which must not import numpy)."""
        if self.store != "duckdb":
            raise BadInput("columns as arrays are read through DuckDB only")
        check_statement(sql, params)
        return self._guarded(lambda cur: cur.fetchnumpy(), sql, params)

    def without_progress_bar(self) -> None:
        """DuckDB: no progress bar on this connection.  DuckDB draws one on the terminal for a
        query that passes 2 s, which loading a table (``hold()``) may do on a cold file."""
        if self.store == "duckdb":
            self.fetchall("SET enable_progress_bar = false")

    def forget_reads(self) -> None:
        """Drop what ``read`` remembers (benchmarks measure uncached lookups with it)."""
        self._memo.clear()

    def fetchone(self, sql: str, params: tuple | list = ()) -> tuple | None:
        check_statement(sql, params)
        return self._guarded(lambda cur: cur.fetchone(), sql, params)

    def columns(self, sql: str, params: tuple | list = ()) -> tuple[list[str], list[tuple]]:
        check_statement(sql, params)

        def fetch(cur):
            names = [d[0] for d in cur.description] if cur.description else []
            return names, cur.fetchall()

        return self._guarded(fetch, sql, params)

    def statistics(self) -> Statistics:
        """What this connection holds and has done now (see :class:`Statistics`)."""
        held = self._held
        return Statistics(
            open=self._con is not None,
            running=self._slot.run is not None,
            queries=self._queries,
            remembered_reads=len(self._memo.results),
            remembered_rows=self._memo.rows,
            prepared=tuple(self._prepared.names.items()),
            held_tables=tuple(dict.fromkeys(key[0] for key in list(held))),
            held_bytes=sum(getattr(table, "nbytes", 0) for table in list(held.values())),
        )

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
            twin.read_memo_rows = self.read_memo_rows
            return twin
        twin = object.__new__(Database)
        # not the games' query objects (db.threes ...): they cache per connection
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k != "_con" and k not in game_modules.QUERIES})
        twin._con = self._con.cursor()  # a cursor has a temporary catalogue of its own: no macros yet
        twin._per_connection_state()  # its own query state, remembered reads and prepared statements
        the_watchdog().watch(twin._slot)
        return twin

    def close(self) -> None:
        con, self._con = self._con, None
        self.forget_reads()
        self._held = {}  # this object's reference: twins keep theirs
        for name in game_modules.QUERIES:  # the games' query objects: their caches belong to this connection: a lookup after close() fails
            self.__dict__.pop(name, None)
        slot = self._slot
        run = slot.run
        if run is not None and run.con is con:  # another thread's query: stop it and let it end first
            if run.reason is None:
                run.reason = "interrupt"
            waited = monotonic()
            while slot.run is run and monotonic() - waited < 5.0:
                slot.stop(run)
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
        check_statement(query, params)
        text = query.strip()
        if not text.rstrip(";").strip():
            raise BadInput("empty query; give one SELECT statement")
        limit = self.max_rows

        def work(con):  # the check and the statement are one query for the time limit and interrupt()
            if self.store == "duckdb":
                self._bound_for(con, text)
                check_duckdb_statement(con, text, lambda exc: self._translate(exc, self._slot.run))
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

    def sql(self, query: str, params: dict[str, Any] | tuple | list = ()) -> "Result":  # noqa: F821
        """Run one read-only statement (as ``dicebase sql``) and return its :class:`Result`.

        ``params`` binds ``$name`` placeholders from a dict (both stores) or
        ``?`` placeholders from a sequence; ``.df()``, ``.pl()`` and ``.arrow()``
        on the result hand it to pandas, polars or pyarrow when installed.
        """
        from dicebase.query.result import Result

        names, rows = self.run_sql(query, params)
        return Result(list(names), rows)

    # -- metadata (dicebase.query.metadata) ---------------------------------
    def info(self) -> dict[str, Any]:
        """Everything the build recorded: versions, games, variants, tables, steps."""
        return metadata.info(self)

    def games(self) -> list[str]:
        """The games built into the file (``rolled_ones``, not ``rolled-ones``)."""
        return metadata.games(self)

    def require_game(self, game: str) -> None:
        """NotInDatabase, naming the command that adds it, unless ``game`` is built into the file."""
        metadata.require_game(self, game)

    def relations(self) -> list[tuple[str, str]]:
        """(name, 'table'|'view') for every public relation, from the schema catalogue."""
        return metadata.relations(self)

    def _has_relation(self, name: str) -> bool:
        return metadata.has_relation(self, name)

    # -- the games (dicebase.query.games) -----------------------------------
    def __getattr__(self, name: str):
        """``db.threes``, ``db.rolled_ones``, ``db.ten_thousand`` (every game with a query module):
        the game's lookups, made on first use and kept with this connection."""
        if name in game_modules.QUERIES:
            self.__dict__[name] = game_modules.queries(self, name)
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


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
