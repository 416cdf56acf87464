"""Time limits, interrupt() and Ctrl-C: how a running query is stopped.

Every query runs on the caller's own thread.  SQLite checks the deadline and the
stop flag of the query in progress in its progress handler; for DuckDB one
watchdog thread per process calls the engine's ``interrupt()`` when a query
passes its deadline, and, while the main thread runs a query, when Ctrl-C
arrives (it learns of it through ``signal.set_wakeup_fd``).  Each connection
has a :class:`Slot` that holds its query in progress (a :class:`Run`); the
watchdog and ``Database.interrupt()`` stop a run through its slot, never the
next query of the connection.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import weakref
from time import monotonic

#: Seconds between the watchdog's repeated interrupts of a DuckDB query it has stopped
#: (an interrupt that lands just before the engine starts the query is forgotten by it).
STOP_REPEAT_SECONDS = 0.05
#: The main thread's id: only there does Ctrl-C arrive (Database._run sets the wakeup fd on it).
MAIN_THREAD = threading.main_thread().ident


class Run:
    """One query in progress: its connection, deadline (monotonic seconds, or None) and why it is being stopped."""

    __slots__ = ("con", "deadline", "reason")

    def __init__(self, con, deadline: float | None):
        self.con = con
        self.deadline = deadline
        self.reason: str | None = None  # "timeout", "interrupt" (Database.interrupt) or "ctrl-c"


class Slot:
    """A connection's query in progress (``run``, None between queries), set and cleared by
    the thread running it; ``stop`` and the query's end are ordered by the slot's lock."""

    __slots__ = ("run", "_lock", "__weakref__")

    def __init__(self):
        self.run: Run | None = None
        self._lock = threading.Lock()

    def end(self) -> None:
        """The query has ended: nothing stops it any more."""
        with self._lock:
            self.run = None

    def stop(self, run: Run) -> None:
        """The engine's interrupt(), if ``run`` is still the query in progress (never the next one)."""
        with self._lock:
            if self.run is run:
                run.con.interrupt()


class Watchdog:
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
        self._slots: weakref.WeakSet[Slot] = weakref.WeakSet()
        self.wake_at = float("inf")  # when the thread next looks (read without the lock; see Database._run)
        self.main: tuple[Slot, Run] | None = None  # the query the main thread runs, for Ctrl-C
        self.forward_fd = -1  # the wakeup fd someone else had set; signal numbers are passed on to it
        self._read_fd, self.write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        os.set_blocking(self.write_fd, False)  # set_wakeup_fd requires it; a full pipe just drops a byte
        self._thread = threading.Thread(target=self._loop, name="dicebase-watchdog", daemon=True)
        self._thread.start()

    def watch(self, slot: Slot) -> None:
        """Look after the queries of ``slot`` (one connection's) from now on, while it lives."""
        with self._lock:
            self._slots.add(slot)

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
            for slot in list(self._slots):
                run = slot.run
                if run is None:
                    continue
                if run.reason is None and run.deadline is not None and now >= run.deadline:
                    run.reason = "timeout"
                if run.reason is not None:
                    slot.stop(run)
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


_watchdog: Watchdog | None = None
_watchdog_lock = threading.Lock()


def the_watchdog() -> Watchdog:
    """The process's watchdog, started at its first use (and again in a forked child)."""
    global _watchdog
    if _watchdog is None:
        with _watchdog_lock:
            if _watchdog is None:
                _watchdog = Watchdog()
    return _watchdog


def _forget_watchdog_in_child() -> None:
    global _watchdog, _watchdog_lock
    _watchdog = None  # its thread did not survive the fork; the child starts its own when needed
    _watchdog_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_watchdog_in_child)
