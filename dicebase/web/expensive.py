"""Expensive requests (a tournament) run in a process of their own, killed at the server's time limit.

A lookup reads a few rows; a tournament computes every bot's outcome distributions and, with
``rotate``, up to 5,040 seatings (``dicebase.bots.MAX_SEATINGS``): seconds to minutes of numpy and
Python.  Run among the lookups, one tied up a lookup slot (two per process) and the GIL for as long
as it ran, past ``--timeout``, which only stops database queries (issue 34: a single GET held a
server for over 5 minutes; with two in flight a lookup got no answer in 60 s).  So each server
process hands its expensive requests to one helper process of its own:

* at most ``SLOTS`` at a time per server process; another one meanwhile is answered at once with
  503 and a one-line "busy" error, so expensive requests never wait on (or take) a lookup's slot;
* the helper runs at a lower priority (``NICE``), so the lookups keep the CPU they need;
* a request still running at ``--timeout`` is answered 503 and its work stops: the helper is
  killed (SIGKILL: no cooperation needed from the numpy inside), and the next expensive request
  starts a new one (what the old one had read is lost; the response cache keeps every answer given);
* the helper is started by the first expensive request, opens the database read-only itself,
  keeps its bots (what they read and computed) between requests, and ends with its server process.

Answers and errors are exactly those of the in-process lookup (the same ``Endpoint.run``).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio

from dicebase.errors import request_timed_out, server_busy
from dicebase.web.api import LookupFailed, http_status

#: The endpoints that run in the helper process.
PATHS = frozenset({"/api/v1/tournament"})
#: Expensive requests running at once per server process (each in the helper; the rest are refused).
SLOTS = 1
#: The helper's niceness: below the lookups' process, so a flood of tournaments leaves them the CPU.
NICE = 10


def _helper(location, timeout, memory_limit, conn, parent: int) -> None:
    """The helper process: answer (path, query items) from ``conn`` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server: it ends this process
    from dicebase.web.lifeline import end_with_parent

    end_with_parent(parent)
    try:
        os.nice(NICE)
    except OSError:
        pass
    from dicebase.present import error_line, json_text
    from dicebase.query import open as open_database
    from dicebase.web.api import endpoints

    routes = endpoints()
    try:
        db = open_database(location, timeout=timeout, memory_limit=memory_limit)
    except Exception as exc:
        line = error_line(exc)
        if line is None:
            raise
        conn.send(("failed", http_status(exc, line[1]), " ".join(line[0].split())))
        return
    conn.send(("ready",))
    while True:
        try:
            path, items = conn.recv()
        except (EOFError, OSError):
            break
        try:
            reply = ("ok", (json_text(routes[path].run(db, items)) + "\n").encode())
        except Exception as exc:
            line = error_line(exc)
            if line is None:
                import traceback

                reply = ("bug", "".join(traceback.format_exception(exc)))
            else:
                reply = ("failed", http_status(exc, line[1]), " ".join(line[0].split()))
        conn.send(reply)


class Helper:
    """One server process's helper for the expensive endpoints (``PATHS``)."""

    def __init__(self, db):
        self.location = db.location
        self.timeout = db.timeout
        self.memory_limit = db.memory_limit
        self.running = 0  # expensive requests in flight (all on one event loop)
        self.started = 0  # helper processes started (the tests count restarts)
        self._process = None
        self._conn = None
        self._ready = False
        self._asked = False  # a request sent to the helper whose answer has not been read

    async def run(self, path: str, items: list[tuple[str, str]]) -> bytes:
        """The answer's bytes; LookupFailed (503) when the helper is busy, past the time limit or lost."""
        what = "the tournament" if path.endswith("/tournament") else f"GET {path}"
        if self.running >= SLOTS:
            limit = f", each for at most {self.timeout:g} s" if self.timeout else ""
            raise self._failed(server_busy(
                f"the server is busy: it runs {SLOTS} tournament at a time per server process{limit}, and one "
                "is running; try again in a moment"))
        self.running += 1
        try:
            with anyio.move_on_after(self.timeout):
                return await self._ask(path, items)
            # past the time limit: its work stops with it (the finally below kills the helper)
            remedy = ("; the CLI runs it without this limit: dicebase tournament ..."
                      if path.endswith("/tournament") else "")
            raise self._failed(request_timed_out(what, self.timeout, remedy))
        finally:
            self.running -= 1
            if self._asked:  # no answer read (the time limit, a client gone): stop what it still computes
                self.stop()

    async def _ask(self, path, items) -> bytes:
        if self._process is None or self._process.poll() is not None:
            self._start()
        if not self._ready:
            reply = await self._receive()
            if reply[0] != "ready":
                self.stop()
                raise LookupFailed(reply[1], reply[2])
            self._ready = True
        try:
            self._conn.send((path, items))
        except OSError:
            self.stop()
            raise LookupFailed(503, self._lost()) from None
        self._asked = True
        reply = await self._receive()
        self._asked = False
        if reply[0] == "ok":
            return reply[1]
        if reply[0] == "failed":
            raise LookupFailed(reply[1], reply[2])
        print(reply[1], file=sys.stderr, end="", flush=True)  # a bug: its traceback, then the usual 500
        raise RuntimeError(f"GET {path} failed in the tournament process")

    async def _receive(self):
        conn = self._conn
        while True:
            await anyio.wait_readable(conn.fileno())
            if conn.poll():
                break
        try:
            return conn.recv()
        except (EOFError, OSError):
            self.stop()
            raise LookupFailed(503, self._lost()) from None

    def _lost(self) -> str:
        return ("the tournament's process stopped unexpectedly (out of memory, or killed); "
                "nothing was changed; try again")

    def _start(self) -> None:
        """A new helper: ``python -m dicebase.web.expensive FD``, a fresh interpreter that imports
        nothing of the server's program (multiprocessing's spawn would import its ``__main__`` again:
        the user's own script, where the application is embedded) and talks over a socket pair."""
        self.stop()
        ours, theirs = multiprocessing.Pipe()
        env = dict(os.environ)
        package_root = str(Path(__file__).resolve().parents[2])  # this very dicebase, however it was found
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        try:
            process = subprocess.Popen([sys.executable, "-m", "dicebase.web.expensive", str(theirs.fileno())],
                                       pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        ours.send((self.location, self.timeout, self.memory_limit, os.getpid()))
        self._process, self._conn, self._ready = process, ours, False
        self.started += 1

    @property
    def pid(self) -> int | None:
        """The helper process's id while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def stop(self) -> None:
        """Kill the helper (its work stops at once) and reap it; the next expensive request starts another."""
        process, conn = self._process, self._conn
        self._process, self._conn, self._ready, self._asked = None, None, False, False
        if conn is not None:
            conn.close()
        if process is not None:
            if process.poll() is None:
                process.kill()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:  # not reaped yet (a process in uninterruptible sleep): later
                pass

    @staticmethod
    def _failed(error) -> LookupFailed:
        return LookupFailed(http_status(error, error.exit_code), str(error))


def main(argv: list[str] | None = None) -> None:
    """``python -m dicebase.web.expensive FD``: the helper, on the socket ``FD`` its server passed it."""
    fd = int((sys.argv[1:] if argv is None else argv)[0])
    conn = multiprocessing.connection.Connection(fd)
    try:
        location, timeout, memory_limit, parent = conn.recv()
    except (EOFError, OSError):
        return
    _helper(location, timeout, memory_limit, conn, parent)


if __name__ == "__main__":
    main()
