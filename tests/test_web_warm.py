"""``dicebase serve`` warms its database at start (``dicebase.web.warm``).

Why it exists: benchmarks/serve.py's first run on a file that had left the
page cache (the machine reclaims idle page-cache pages) read the file's
blocks from the disk one lookup at a time, under load.  Warming reads them
once, in order, at start.  What is checked here: what the warm-up loads,
the one line it says, that it never stops the server, and that answers are
unchanged.  No timing is asserted.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.query.base import QueryTimeout  # noqa: E402
from dicebase.web import warm  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402

SEED_001 = "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4"

#: What a server process says once it has warmed its database, besides "serving" and "stopped".
WARM_LINE = re.compile(r"dicebase: (loaded the tables into memory \([\d,]+ MB in this process\)"
                       r"|read the database file \([\d,]+ MB\) into the page cache) in [\d.]+ s")


def stopped_cleanly(out: str) -> bool:
    """A server's stdout after its serving line: warm-up lines (if it got that far), then "stopped"."""
    lines = out.strip().splitlines()
    return bool(lines) and lines[-1] == "dicebase: stopped" and all(WARM_LINE.fullmatch(x) for x in lines[:-1])


def _buffer_pool_bytes(db) -> int:
    row = db.fetchone("SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'")
    return int(row[0])


#: Great Rolled Ones to 20, not 50: what the warm-up does is the same for a smaller file (the free
#: memory it compares with is set relative to the file's size below) and the build takes seconds.
SMALL_ROLLED_ONES = {"rolled_ones": {"goal": 20, "turn_total_bound": 50, "komi_max": 5}}


@pytest.fixture(scope="module")
def files(built_db):
    """Threes (its test build: seed 001's lookup) and Great Rolled Ones (its table the warm-up holds) in one file."""
    return {kind: built_db(("threes", "rolled-ones"), kind, SMALL_ROLLED_ONES) for kind in ("duckdb", "sqlite")}


def test_duckdb_warm_up_holds_the_lookup_tables_and_loads_the_others_into_the_buffer_pool(files):
    said: list[str] = []
    with dicebase.open(f"duckdb:///{files['duckdb']}") as db:
        before = _buffer_pool_bytes(db)
        warm.Warmer(db, say=said.append).run()
        after = _buffer_pool_bytes(db)
        tables = db.fetchone("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main'")[0]
        stats = db.statistics()
        held = stats.held_bytes
        assert set(stats.held_tables) == {"rolled_ones_states"} and held > 0  # Queries.hold (test_lookup_held.py)
    assert len(said) == 1 and WARM_LINE.fullmatch(said[0]) and "loaded the tables" in said[0], said
    assert tables > 10 and after > before
    # the line reports what the held tables and the others' blocks in the buffer pool then take in this process
    assert said[0].split("(")[1].split(" MB")[0].replace(",", "") == f"{(held + after) / 1e6:,.0f}".replace(",", "")


def test_sqlite_warm_up_reads_the_whole_file(files):
    said: list[str] = []
    with dicebase.open(f"sqlite:///{files['sqlite']}") as db:
        warmer = warm.Warmer(db, say=said.append)
        assert warmer.read_through(files["sqlite"]) == files["sqlite"].stat().st_size
        warmer.run()
    assert len(said) == 1 and WARM_LINE.fullmatch(said[0]) and "page cache" in said[0], said
    assert f"({files['sqlite'].stat().st_size / 1e6:,.0f} MB)" in said[0]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_a_file_larger_than_half_the_free_memory_is_not_read(files, kind, monkeypatch):
    monkeypatch.setattr(warm, "available_memory_bytes", lambda: 2 * files[kind].stat().st_size - 2)
    said: list[str] = []
    with dicebase.open(f"{kind}:///{files[kind]}") as db:
        before = _buffer_pool_bytes(db) if kind == "duckdb" else None
        warm.Warmer(db, say=said.append).run()
        if kind == "duckdb":
            assert _buffer_pool_bytes(db) == before  # nothing was scanned
    assert len(said) == 1 and "was not pre-read: it is larger than half the memory available" in said[0]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_a_failed_warm_up_is_one_line_and_a_stopped_one_is_silent(files, kind, monkeypatch):
    def too_slow(self, *args):
        raise QueryTimeout("the query ran longer than 10 s and was stopped; nothing was changed")

    monkeypatch.setattr(warm.Warmer, "_warm_duckdb" if kind == "duckdb" else "read_through", too_slow)
    said: list[str] = []
    with dicebase.open(f"{kind}:///{files[kind]}") as db:
        warm.Warmer(db, say=said.append).run()
        assert said == ["dicebase: warming the database stopped: the query ran longer than 10 s and was stopped; "
                        "nothing was changed"]
        monkeypatch.undo()
        quiet = warm.Warmer(db, say=said.append)
        quiet.stop()  # before it ran: it does nothing and says nothing
        quiet.run()
    assert len(said) == 1


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_answers_are_the_same_while_and_after_warming(files, kind):
    with TestClient(create_app(dicebase.open(f"{kind}:///{files[kind]}"), cache_bytes=0)) as cold:
        expected = cold.get(SEED_001)
    with TestClient(create_app(dicebase.open(f"{kind}:///{files[kind]}"), cache_bytes=0, warm=True)) as warmed:
        answers = [warmed.get(SEED_001) for _ in range(20)]  # some during the warm-up, some after
        warmed.app.state.server.wait_warm(60)  # hang guard
        answers.append(warmed.get(SEED_001))
    assert {a.status_code for a in answers} == {200}
    assert {a.content for a in answers} == {expected.content}
    assert json.loads(expected.content)["best"]["keep"] == [3]  # seed 001 (001_f4320d56f1732e4d.txt)


def test_duckdb_lookups_run_on_one_duckdb_thread(files):
    with TestClient(create_app(dicebase.open(f"duckdb:///{files['duckdb']}"), cache_bytes=0)) as client:
        db = client.app.state.server.db
        assert db.fetchone("SELECT current_setting('threads')")[0] == 1
        assert client.get(SEED_001).status_code == 200


@pytest.mark.parametrize("kind, workers", [("duckdb", "2"), ("sqlite", "1")])
def test_serve_says_when_each_process_has_warmed_its_database(files, kind, workers):
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--workers", workers,
                             "--db", f"{kind}:///{files[kind]}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        line = proc.stdout.readline()
        assert " at http://127.0.0.1:" in line, line + proc.stderr.read()
        warmed = [proc.stdout.readline().strip() for _ in range(int(workers))]  # one line per server process
        base = line.split(" at ")[1].split("/ ")[0]
        with urllib.request.urlopen(base + SEED_001, timeout=60) as reply:
            assert json.load(reply)["best"]["keep"] == [3]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # leave no server (nor its worker processes) behind
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    assert all(WARM_LINE.fullmatch(x) for x in warmed), warmed
    assert proc.returncode == 0 and out.strip() == "dicebase: stopped" and err == ""


def test_a_server_process_freezes_its_heap_once_warmed_and_nothing_else_does(files):
    """``dicebase serve`` (create_app(..., freeze=True)) moves what its process holds after the
    warm-up into the garbage collector's permanent generation (warm.freeze_heap); a Warmer or an
    application not asked to leaves the collector alone."""
    import gc

    assert gc.get_freeze_count() == 0
    try:
        with dicebase.open(f"duckdb:///{files['duckdb']}") as db:
            warm.Warmer(db, say=lambda line: None).run()
            assert gc.get_freeze_count() == 0
        with TestClient(create_app(dicebase.open(f"duckdb:///{files['duckdb']}"), warm=True)) as plain:
            plain.app.state.server.wait_warm(60)
            assert gc.get_freeze_count() == 0
        with TestClient(create_app(dicebase.open(f"duckdb:///{files['duckdb']}"), warm=True, freeze=True)) as served:
            served.app.state.server.wait_warm(60)
            assert gc.get_freeze_count() > 1000
            assert served.get(SEED_001).json()["best"]["keep"] == [3]
    finally:
        gc.unfreeze()
