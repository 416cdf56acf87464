"""Issue 22: the N-player level loop on a Dask cluster (dicebase/builder/cluster.py, levels.py).

A LocalCluster of 2 worker processes gives the in-process values bit for bit (both games, with
policy cycles); a worker killed mid-run still does; a build killed mid-solve and run again with
--resume gives the values of an uninterrupted build (checkpoints verified, a damaged one not
trusted) and removes its checkpoints; --cluster without Dask or with a bad address is one line,
exit 2; a lookup never loads Dask.  Small goals: the whole file takes well under a minute."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from dicebase.builder import cluster, levels
from dicebase.builder.rolled_ones import nplayer as rolled
from dicebase.builder.ten_thousand import nplayer as ten
from dicebase.rules.rolled_ones import Rules
from dicebase.rules.ten_thousand import PRESETS

#: Great Rolled Ones whose 3-player solve has policy cycles (tests/test_rolled_ones_nplayer.py's CYCLING)
CYCLING = Rules(goal=16, dice=4, ones_limit=2, faces=6, turn_total_bound=32)
TEN = PRESETS["ten-thousand"]
DICEBASE = [sys.executable, "-m", "dicebase"]


@pytest.fixture(scope="module")
def local2():
    conn = cluster.connect("local:2")
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def in_process():
    return {"rolled": rolled.solve(CYCLING, 3), "ten": ten.solve(TEN, 3, 300)}


def _runner(conn):
    return levels.Levels(runner=cluster.DaskRunner(conn.client, name="local:2"))


def _same_rolled(a, b):
    assert np.array_equal(a.start, b.start)
    assert a.mixed == b.mixed
    assert a.stats["cycle_tuples"] == b.stats["cycle_tuples"]


def _same_ten(a, b):
    assert np.array_equal(a.start, b.start) and np.array_equal(a.kmax, b.kmax)
    assert a.mixed == b.mixed
    for key in ("turn_evaluations", "cycle_tuples", "mixed_tuples", "unproven_tuples"):
        assert a.stats[key] == b.stats[key], key


def test_two_local_workers_give_the_in_process_values(local2, in_process):
    assert in_process["rolled"].stats["cycle_tuples"] > 0  # the cycle resolution runs on the workers too
    cfg = _runner(local2)
    sol = rolled.solve(CYCLING, 3, runner=cfg)
    _same_rolled(in_process["rolled"], sol)
    assert sol.stats["levels"]["runner"].startswith("Dask local:2, 2 workers")
    assert cfg.runner.stats["tasks"] > len(rolled.level_tuples(sol.spec))  # levels were split into chunks
    _same_ten(in_process["ten"], ten.solve(TEN, 3, 300, runner=_runner(local2)))


def test_a_killed_worker_costs_only_its_tasks(local2, in_process):
    client = local2.client
    before = set(client.run(os.getpid).values())
    assert len(before) == 2
    victim = sorted(before)[0]
    killed = threading.Event()

    def kill_soon(done, total):
        if done == total // 3 and not killed.is_set():
            killed.set()  # the next level's tasks are on their way: kill one worker while they run
            threading.Timer(0.05, os.kill, (victim, signal.SIGKILL)).start()

    sol = rolled.solve(CYCLING, 3, runner=_runner(local2), progress=kill_soon)
    _same_rolled(in_process["rolled"], sol)
    client.wait_for_workers(2, timeout=60)  # the nanny started a new worker
    after = set(client.run(os.getpid).values())
    assert killed.is_set() and victim not in after


def test_checkpoints_resume_and_are_verified(tmp_path, in_process):
    """The level loop alone: stop a solve part-way, resume it, damage a checkpoint."""
    ref = in_process["rolled"]
    cfg = levels.Levels(checkpoints=tmp_path, resume=False)

    class Stop(Exception):
        pass

    def stop_at(done, total):
        if done == 20:
            raise Stop

    with pytest.raises(Stop):
        rolled.solve(CYCLING, 3, runner=cfg, progress=stop_at)
    (solve_dir,) = tmp_path.iterdir()
    manifest = json.loads((solve_dir / "manifest.json").read_text())
    assert len(manifest["levels"]) == 20
    notes = []
    sol = rolled.solve(CYCLING, 3, runner=levels.Levels(checkpoints=tmp_path, resume=True, say=notes.append))
    _same_rolled(ref, sol)
    assert sol.stats["levels"]["levels_resumed"] == 20 and "resumed 20 of" in notes[0]
    # a damaged level file (same length, one byte changed) is not trusted: it and later levels are solved again
    level5 = solve_dir / "level-00005.npz"
    data = bytearray(level5.read_bytes())
    data[len(data) // 2] ^= 0xFF
    level5.write_bytes(bytes(data))
    sol = rolled.solve(CYCLING, 3, runner=levels.Levels(checkpoints=tmp_path, resume=True))
    _same_rolled(ref, sol)
    assert sol.stats["levels"]["levels_resumed"] == 5
    # without resume the old checkpoints are removed and every level solved
    sol = rolled.solve(CYCLING, 3, runner=levels.Levels(checkpoints=tmp_path))
    assert sol.stats["levels"]["levels_resumed"] == 0
    assert sol.stats["levels"]["levels_solved"] == len(rolled.level_tuples(sol.spec))
    _same_rolled(ref, sol)


BUILD_OPTIONS = ["-o", "rolled-ones.players=[2,3]", "-o", "rolled-ones.goal=16", "-o", "rolled-ones.dice=4",
                 "-o", "rolled-ones.ones_limit=2", "-o", "rolled-ones.komi_max=5", "-o", "rolled-ones.turn_total_bound=32"]


def _table_checksums(path) -> dict:
    from dicebase.query import open as open_db

    with open_db(path) as db:
        return dict(db.fetchall("SELECT table_name, checksum FROM build_tables WHERE game = 'rolled_ones' "
                                "ORDER BY table_name"))


def test_a_killed_cluster_build_resumes_with_identical_values(tmp_path, run_cli):
    target = tmp_path / "db" / "killed.duckdb"
    scratch = target.with_name(f".{target.name}.levels")
    proc = subprocess.Popen([*DICEBASE, "build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "-q"],
                            cwd=tmp_path, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        done = 0
        while time.monotonic() < deadline and proc.poll() is None:
            for manifest in scratch.glob("*/manifest.json"):
                try:
                    entry = json.loads(manifest.read_text())
                except (OSError, ValueError):
                    continue
                if "players=3" in entry["fingerprint"]["spec"]:
                    done = len(entry["levels"])
            if done >= 8:
                break
            time.sleep(0.05)
        assert proc.poll() is None and done >= 8, proc.stderr.read().decode()[-2000:] if proc.poll() else done
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the build (and anything it started)
        proc.wait()
    assert not target.exists()  # never half-written: the killed build left no target
    code, out, err = run_cli(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume"])
    assert code == 0, err
    assert "rolled-ones 3 players, goal 16: resumed" in err  # the 3-player solve went on from its checkpoints
    assert not scratch.exists()  # removed on success
    fresh = tmp_path / "fresh.duckdb"
    assert run_cli(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(fresh), "-q"])[0] == 0
    got, want = _table_checksums(target), _table_checksums(fresh)
    assert got == want and "rolled_ones_turn_starts" in got and "rolled_ones_cycle_tuples" in got


def _one_line_error(result):
    code, out, err = result
    assert code == 2, err
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    return err


def test_cluster_errors_are_one_line(tmp_path, run_cli, monkeypatch):
    target = str(tmp_path / "x.duckdb")
    line = _one_line_error(run_cli(["build", "threes", "--db", target, "--cluster", "local:two"]))
    assert "local:N" in line
    line = _one_line_error(run_cli(["build", "threes", "--db", target, "-q", "--cluster", "tcp://127.0.0.1:9"]))
    assert "cannot reach a Dask scheduler" in line
    # Dask not installed: importing distributed fails
    monkeypatch.setitem(sys.modules, "distributed", None)
    line = _one_line_error(run_cli(["build", "threes", "--db", target, "--cluster", "local:2"]))
    assert "pip install 'dicebase[cluster]'" in line
    assert not os.path.exists(target)


def test_a_lookup_never_loads_dask(built_db, tmp_path):
    db = built_db(("threes",))
    for args in (["threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "1", "--json",
                  "--db", str(db)],):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "dicebase", *args], capture_output=True,
                              text=True, timeout=120, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
        names = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
        assert "dicebase.cli" in names
        assert not {n for n in names if n.split(".")[0] in ("dask", "distributed")}, args


def test_chunks_cover_each_level_in_order():
    for n, workers in ((1, 1), (7, 2), (1000, 2), (1000, 16), (5, 64)):
        pieces = levels.split(np.arange(n), cluster.chunk_count(n, workers))
        assert np.array_equal(np.concatenate(pieces), np.arange(n)) and all(len(p) for p in pieces)
        assert len(pieces) <= max(1, cluster.TASKS_PER_WORKER * workers)
