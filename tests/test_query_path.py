"""Issue 12 §2: queries run on the caller's thread, and the time limit, interrupt() and Ctrl-C
still stop them (SQLite's progress handler; DuckDB's one watchdog thread).  Behaviour only:
the per-query cost is measured by benchmarks/lookups.py, never asserted here."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import dicebase
from dicebase.query.base import DatabaseClosed, QueryInterrupted, QueryTimeout

STORES = ("duckdb", "sqlite")
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
HANG_GUARD = 30.0  # seconds: a stopped query ends long before; this only keeps a broken test from hanging


@pytest.fixture(scope="module")
def dbs(built_db):
    return {"duckdb": built_db(("threes",)), "sqlite": built_db(("threes",), "sqlite")}


def _url(dbs, store):
    return f"{store}:///{dbs[store]}"


def _in_thread(call):
    """Run ``call()`` on a new thread; returns (thread, outcome list: [result or exception])."""
    outcome: list = []

    def body():
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, outcome


@pytest.mark.parametrize("store", STORES)
def test_no_thread_is_started_per_query(dbs, store, monkeypatch):
    with dicebase.open(_url(dbs, store)) as db:
        db.fetchone("SELECT count(*) FROM threes_variants")  # the watchdog, if any, exists from here on
        started: list[threading.Thread] = []
        start = threading.Thread.start
        monkeypatch.setattr(threading.Thread, "start", lambda self: (started.append(self), start(self))[1])
        before = threading.active_count()
        for _ in range(50):
            db.fetchall("SELECT * FROM threes_variants")
            db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=1)
        assert started == [] and threading.active_count() == before
    names = [t.name for t in threading.enumerate()]
    assert not any(name.startswith("dicebase-query") for name in names), names
    assert names.count("dicebase-watchdog") <= 1, names


def test_sqlite_runs_the_query_on_the_callers_thread(dbs):
    with dicebase.open(_url(dbs, "sqlite")) as db:
        db.call(lambda con: con.create_function("thread_id", 0, threading.get_ident))
        assert db.fetchone("SELECT thread_id()")[0] == threading.get_ident()
        thread, outcome = _in_thread(lambda: db.fetchone("SELECT thread_id()")[0])
        thread.join(HANG_GUARD)
        assert outcome == [thread.ident]


def test_one_watchdog_serves_every_duckdb_database(dbs):
    with dicebase.open(_url(dbs, "duckdb")) as first, dicebase.open(_url(dbs, "duckdb")) as second:
        twin = first.for_thread()
        for db in (first, second, twin):
            db.fetchone("SELECT 1")
        twin.close()
    assert [t.name for t in threading.enumerate()].count("dicebase-watchdog") == 1


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("where", ["caller", "other thread"])
def test_the_time_limit_stops_a_long_query(dbs, store, where):
    with dicebase.open(_url(dbs, store), timeout=0.3) as db:
        if where == "caller":
            with pytest.raises(QueryTimeout, match="longer than 0.3 s"):
                db.run_sql(ENDLESS)
        else:
            thread, outcome = _in_thread(lambda: db.run_sql(ENDLESS))
            thread.join(HANG_GUARD)
            assert not thread.is_alive() and isinstance(outcome[0], QueryTimeout), outcome
        assert db.fetchone("SELECT count(*) FROM threes_variants")[0] == 2, "usable after a timeout"


@pytest.mark.parametrize("store", STORES)
def test_a_query_that_ends_past_its_deadline_is_a_timeout(dbs, store):
    # Nothing may stop a short query in time (the watchdog wakes, SQLite's handler is called,
    # only so often); the limit holds all the same: its answer is refused.
    with dicebase.open(_url(dbs, store), timeout=10) as db:
        db.timeout = 1e-9
        with pytest.raises(QueryTimeout):
            db.fetchall("SELECT * FROM threes_variants")
        db.timeout = 10.0
        assert len(db.fetchall("SELECT * FROM threes_variants")) == 2


@pytest.mark.parametrize("store", STORES)
def test_interrupt_stops_a_query_on_another_thread(dbs, store):
    with dicebase.open(_url(dbs, store), timeout=None) as db:
        thread, outcome = _in_thread(lambda: db.run_sql(ENDLESS))
        while not db.statistics().running and thread.is_alive():
            time.sleep(0.01)
        time.sleep(0.2)
        db.interrupt()
        thread.join(HANG_GUARD)
        assert not thread.is_alive() and isinstance(outcome[0], QueryInterrupted), outcome
        assert db.fetchone("SELECT count(*) FROM threes_variants")[0] == 2


@pytest.mark.parametrize("store", STORES)
def test_an_interrupt_between_queries_stops_nothing(dbs, store):
    with dicebase.open(_url(dbs, store)) as db:
        db.fetchone("SELECT 1")
        db.interrupt()
        assert db.fetchone("SELECT count(*) FROM threes_variants")[0] == 2


@pytest.mark.parametrize("store", STORES)
def test_twins_are_stopped_independently(dbs, store):
    with dicebase.open(_url(dbs, store), timeout=None) as db:
        twin = db.for_thread()
        try:
            mine, mine_outcome = _in_thread(lambda: db.run_sql(ENDLESS))
            theirs, their_outcome = _in_thread(lambda: twin.run_sql(ENDLESS))
            while not (db.statistics().running and twin.statistics().running) and mine.is_alive() and theirs.is_alive():
                time.sleep(0.01)
            twin.interrupt()
            theirs.join(HANG_GUARD)
            assert isinstance(their_outcome[0], QueryInterrupted), their_outcome
            time.sleep(0.3)
            assert mine.is_alive(), "the twin's interrupt stopped the other connection's query"
            assert twin.fetchone("SELECT count(*) FROM threes_variants")[0] == 2
            db.interrupt()
            mine.join(HANG_GUARD)
            assert isinstance(mine_outcome[0], QueryInterrupted), mine_outcome
        finally:
            twin.close()


@pytest.mark.parametrize("store", STORES)
def test_twins_keep_their_own_time_limits(dbs, store):
    with dicebase.open(_url(dbs, store), timeout=None) as db:
        twin = db.for_thread()
        twin.timeout = 0.3
        try:
            mine, mine_outcome = _in_thread(lambda: db.run_sql(ENDLESS))
            with pytest.raises(QueryTimeout):
                twin.run_sql(ENDLESS)
            assert mine.is_alive(), "the twin's time limit stopped the other connection's query"
            db.interrupt()
            mine.join(HANG_GUARD)
            assert isinstance(mine_outcome[0], QueryInterrupted), mine_outcome
        finally:
            twin.close()


@pytest.mark.parametrize("store", STORES)
def test_close_from_another_thread_stops_the_running_query(dbs, store):
    db = dicebase.open(_url(dbs, store), timeout=None)
    thread, outcome = _in_thread(lambda: db.run_sql(ENDLESS))
    while not db.statistics().running and thread.is_alive():
        time.sleep(0.01)
    time.sleep(0.2)
    db.close()
    thread.join(HANG_GUARD)
    # stopped, or (had it not begun the statement yet) refused: either way one DicebaseError
    assert not thread.is_alive() and isinstance(outcome[0], (QueryInterrupted, DatabaseClosed)), outcome


@pytest.mark.parametrize("store", STORES)
def test_the_signal_wakeup_fd_is_left_as_it_was(dbs, store):
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        with dicebase.open(_url(dbs, store)) as db:
            assert signal.set_wakeup_fd(-1) == -1
            db.fetchone("SELECT 1")
            assert signal.set_wakeup_fd(write_end) == -1, "a query left its wakeup fd behind"
            db.fetchone("SELECT 1")
            assert signal.set_wakeup_fd(-1) == write_end, "a query did not restore the caller's wakeup fd"
    finally:
        signal.set_wakeup_fd(-1)
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize("store", STORES)
def test_ctrl_c_reaches_a_wakeup_fd_set_before(dbs, store):
    # An asyncio loop (or anyone) that set a wakeup fd still learns which signal came while a
    # query ran on the main thread: the watchdog passes the signal's number on.
    code = (
        "import os, select, signal, threading, dicebase\n"
        "r, w = os.pipe(); os.set_blocking(w, False)\n"
        "signal.set_wakeup_fd(w)\n"
        f"db = dicebase.open({_url(dbs, store)!r}, timeout=None)\n"
        "threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        f"    db.run_sql({ENDLESS!r})\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
        "assert signal.set_wakeup_fd(-1) == w\n"
        "ready, _, _ = select.select([r], [], [], 10)\n"
        "print(list(os.read(r, 100)) if ready else 'nothing')\n"
        "db.close()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.split("\n")[:2] == ["interrupted", f"[{int(signal.SIGINT)}]"], proc.stdout


@pytest.mark.parametrize("store", STORES)
def test_ctrl_c_in_the_cli_during_a_long_sql_query_is_one_line(dbs, store, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "sql", ENDLESS, "--db", _url(dbs, store)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    time.sleep(2.0)  # inside the query (start-up takes a fraction of that)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "Error: interrupted; nothing was changed\n", err


def test_the_watchdog_is_started_again_after_a_fork(dbs):
    # The parent's watchdog thread does not exist in a forked child: the child starts its own.
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    code = (
        "import os, dicebase\n"
        f"with dicebase.open({_url(dbs, 'duckdb')!r}) as db:\n"
        "    db.fetchone('SELECT 1')  # the parent's watchdog is running (its DuckDB closed: not fork-safe)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        f"    child = dicebase.open({_url(dbs, 'duckdb')!r}, timeout=0.3)\n"
        "    try:\n"
        f"        child.run_sql({ENDLESS!r})\n"
        "    except dicebase.QueryTimeout:\n"
        "        os._exit(7)\n"
        "    os._exit(1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print(os.waitstatus_to_exitcode(status))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "7", (proc.stdout, proc.stderr)


@pytest.mark.parametrize("store", STORES)
def test_a_programs_own_sigint_handler_decides(dbs, store):
    # A handler that only records Ctrl-C: the query is not stopped by it (the time limit ends it).
    code = (
        "import os, signal, threading, dicebase\n"
        "seen = []\n"
        "signal.signal(signal.SIGINT, lambda number, frame: seen.append(number))\n"
        f"db = dicebase.open({_url(dbs, store)!r}, timeout=2.0)\n"
        "threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()\n"
        "try:\n"
        f"    db.run_sql({ENDLESS!r})\n"
        "except dicebase.QueryTimeout:\n"
        "    print('timeout', seen)\n"
        "db.close()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.strip() == f"timeout [{int(signal.SIGINT)}]", proc.stdout
