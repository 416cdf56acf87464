"""Warming what a server process serves, once at start, in the background.

Why: a lookup reads a few blocks at random places in the database file.
When the file's pages are not in the operating system's page cache (a
machine that sat idle: the kernel reclaims page-cache pages nobody touched
for a while), each of those reads goes to the disk, and under load the
first seconds of serving queue behind them (benchmarks/serve.py's cold run).
Reading the same bytes in order once at start is far cheaper.

- DuckDB: the two-player 10,000 table and Great Rolled Ones' states are held
  in memory (``Queries.hold``, dicebase/query/held.py: their lookups then run
  no query, 0.01-0.06 ms instead of 0.7-1.5), and every other table is scanned once
  (one aggregate over all its columns), so its blocks are loaded into this
  process's buffer pool, where they stay (process memory, bounded by the
  connection's memory limit).  This is the memory each server process
  reaches anyway after its first seconds of load; warming only pays for it
  at once.
- SQLite: the file is read through once, so its pages are in the page cache
  (shared by every process; SQLite keeps only a small cache of its own).

Either is skipped, with one line, when it would not fit: a file larger than
half the memory the system has available.  Lookups are served meanwhile.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time

from dicebase import games
from dicebase.query.blocks import held_blocks, held_bytes

#: Bytes read at a time when a SQLite file is read through.
CHUNK_BYTES = 1 << 20
#: Games whose lookup tables a DuckDB server holds in memory (their Queries.hold(): the two-player
#: 10,000 table, Great Rolled Ones' states), so that their lookups run no query
HELD_GAMES = tuple(games.names("held"))
#: DuckDB's memory limit for the moment the buffer pool is emptied (see Warmer._drop_buffer_pool)
DROP_POOL_LIMIT = "64MB"


def available_memory_bytes() -> int | None:
    """MemAvailable of /proc/meminfo (None where there is none)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _say(line: str) -> None:
    """One line on standard output in one write: the worker processes of ``dicebase serve`` share
    it, and print() may write the text and its newline apart (unbuffered output), so two
    processes' lines could run together."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def freeze_heap() -> None:
    """Collect, then move every object alive into the garbage collector's permanent generation
    (``gc.freeze``), which its collections no longer traverse.

    Why: a server process's full collections traverse everything it holds: its modules, the
    application, the held tables' Python parts, about 46,000 objects; under load each took 25-55
    ms, every 1.5 s, while the requests of that process waited (benchmarks/serve.py with a
    ``gc.callbacks`` timer, BENCHMARKS.md).  What requests create later is collected as before.
    A frozen object that later becomes garbage is still freed by reference counting unless it is
    part of a cycle; what is alive at the end of the warm-up (modules, the application, the
    connections, the held tables) lives as long as the process anyway."""
    gc.collect()
    gc.freeze()


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Warmer:
    """Warms one open database on a daemon thread; ``stop()`` ends it early and silently."""

    def __init__(self, db, say=None, freeze: bool = False):
        self.db = db
        self.say = say or _say
        self.freeze = freeze  # freeze_heap() once warmed (a server process)
        self._stop = threading.Event()
        self._twin = None  # the DuckDB cursor scanning, to interrupt
        self._thread = threading.Thread(target=self.run, name="dicebase-warm", daemon=True)

    def start(self) -> "Warmer":
        self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the warm-up to end; whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def stop(self, wait: float = 5.0) -> None:
        self._stop.set()
        twin = self._twin
        if twin is not None:
            twin.interrupt()
        if self._thread.is_alive():
            self._thread.join(wait)

    def run(self) -> None:
        """Warm the database and say, in one line, what it cost (or why it was skipped); then, if
        asked, freeze the heap."""
        self._warm()
        if self.freeze and not self._stop.is_set():
            freeze_heap()

    def _warm(self) -> None:
        path = self.db.location.path
        try:
            size = os.path.getsize(path)
        except OSError:
            return
        available = available_memory_bytes()
        if available is not None and size > available / 2:
            self.say(f"dicebase: the database file ({size / 1e6:,.0f} MB) was not pre-read: it is larger than "
                     f"half the memory available ({available / 1e6:,.0f} MB); the first lookups read it from disk")
            return
        started = time.monotonic()
        try:
            if self.db.store == "duckdb":
                held = self._warm_duckdb()
                what = f"loaded the tables into memory ({held / 1e6:,.0f} MB in this process)"
            else:
                read = self.read_through(path)
                what = f"read the database file ({read / 1e6:,.0f} MB) into the page cache"
        except Exception as exc:  # noqa: BLE001 -- warming is an optimisation: never a reason to stop serving
            if not self._stop.is_set():
                from dicebase.present import error_line

                line = error_line(exc)
                self.say(f"dicebase: warming the database stopped: {line[0] if line else type(exc).__name__}")
            return
        if not self._stop.is_set():
            self.say(f"dicebase: {what} in {time.monotonic() - started:.1f} s")

    def _warm_duckdb(self) -> int:
        """Hold the tables lookups read a row at a time (HELD_GAMES' ``hold()``), then scan every
        other table once, on a cursor of its own; the bytes held and loaded into the buffer pool."""
        twin = self._twin = self.db.for_thread()
        try:
            games = twin.games()
            for game in HELD_GAMES:
                if game in games and not self._stop.is_set():
                    getattr(twin, game).hold(stop=self._stop.is_set)
            held = held_bytes(twin)
            if held:  # loading read the tables' blocks into the buffer pool: let them go
                self.drop_buffer_pool(twin)
            skip = {block[0] for block in held_blocks(twin)}
            columns: dict[str, list[str]] = {}
            for table, column in twin.fetchall(
                "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' AND NOT internal "
                "AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main') "  # not the views
                "ORDER BY table_name, column_index"
            ):
                columns.setdefault(table, []).append(column)
            for table, names in columns.items():
                if self._stop.is_set():
                    return 0
                if table in skip:
                    continue
                # hash() of every column reads every block (min, max or count may come from statistics)
                twin.fetchall(f"SELECT {', '.join(f'max(hash({_quoted(c)}))' for c in names)} FROM {_quoted(table)}")
            row = twin.fetchone("SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'")
            return held + (int(row[0]) if row else 0)
        finally:
            self._twin = None
            twin.close()

    @staticmethod
    def drop_buffer_pool(twin) -> None:
        """Empty DuckDB's buffer pool (it has no statement for that): lowering the memory limit
        evicts what is unpinned; the limit is set back at once.  A lookup needs far less."""
        try:
            twin.fetchall(f"SET memory_limit = '{DROP_POOL_LIMIT}'")
        finally:  # the limit the database was opened with, as given (current_setting() rounds it)
            twin.fetchall("SET memory_limit = '" + str(twin.memory_limit).replace("'", "''") + "'")

    def read_through(self, path) -> int:
        """Read the file once from start to end (into the page cache); the bytes read."""
        buffer = bytearray(CHUNK_BYTES)
        done = 0
        with open(path, "rb", buffering=0) as f:
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
            while not self._stop.is_set():
                n = f.readinto(buffer)
                if not n:
                    break
                done += n
        return done
