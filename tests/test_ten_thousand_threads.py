"""The parallel two-player 10,000 solve gives the same bits for any thread count (issue 12).

Each run is a subprocess with NUMBA_NUM_THREADS=2, so two threads exist even on a
one-core CI machine (numba fixes its pool size when it is first imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

SOLVE = """
import sys, numba, numpy as np
from dicebase.builder.ten_thousand import twoplayer
from dicebase.rules.ten_thousand import TEN_THOUSAND
numba.set_num_threads(int(sys.argv[1]))
s = twoplayer.solve(TEN_THOUSAND, int(sys.argv[2]), rows=sys.argv[3])
assert s.stats["threads"] == int(sys.argv[1])
np.savez(sys.argv[4], W=s.W, heur_h=s.heur_h, heur_o=s.heur_o, i=s.i, j=s.j, k=s.k, s=s.s,
         p_win=s.p_win, roll=s.roll, kmax=s.kmax, evaluations=s.stats["evaluations"])
"""


def _env() -> dict:
    return {**os.environ, "NUMBA_NUM_THREADS": "2"}


def _solve(tmp_path, threads: int, goal_units: int, rows: str) -> dict:
    out = tmp_path / f"t{threads}-{rows}.npz"
    subprocess.run([sys.executable, "-c", SOLVE, str(threads), str(goal_units), rows, str(out)],
                   check=True, env=_env(), capture_output=True)
    with np.load(out) as data:
        return dict(data)


@pytest.mark.parametrize("rows", ["all", "roll"])
def test_one_and_two_threads_give_identical_arrays(tmp_path, rows):
    one = _solve(tmp_path, 1, 16, rows)
    two = _solve(tmp_path, 2, 16, rows)
    assert set(one) == set(two)
    assert one["W"].shape == (16, 16) and one["i"].size > 10_000
    for name in one:
        a, b = one[name], two[name]
        assert a.dtype == b.dtype and a.shape == b.shape, name
        # exact equality, bit for bit (NaN only where neither is defined)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert not np.isnan(one["W"]).any() and not np.isnan(one["heur_h"]).any()
    # rows come out in the database's key order (score, opponent, turn total, dice, triple)
    from dicebase.rules.ten_thousand import TEN_THOUSAND, turn_states

    states = turn_states(TEN_THOUSAND)
    rank = np.argsort(sorted(range(len(states)), key=lambda s: states[s]))
    key = ((one["i"].astype(np.int64) * 16 + one["j"]) * 4096 + one["k"]) * 32 + rank[one["s"]]
    assert (np.diff(key) > 0).all()


def _dicebase(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dicebase", *args], env=_env(), capture_output=True, text=True)


def test_build_threads_same_checksums_and_recorded(tmp_path, run_cli):
    """The builds run in subprocesses (two numba threads exist there); what they recorded is read
    in-process.  One rule set: the threads run the two-player solve only (the solitaire tables of
    the other presets are computed on one thread whatever --threads says)."""
    sums = {}
    for threads in (1, 2):
        db = tmp_path / f"t{threads}.duckdb"
        done = _dicebase("build", "ten-thousand", "-q", "-o", "ten-thousand.goal=500",
                         "-o", 'ten-thousand.rules=["ten-thousand"]', "--threads", str(threads), "--db", str(db))
        assert done.returncode == 0, done.stderr
        code, out, err = run_cli(["sql", "SELECT table_name, checksum FROM build_tables ORDER BY table_name",
                                  "--json", "--db", str(db)])
        assert code == 0, err
        sums[threads] = json.loads(out)
        code, out, err = run_cli(["info", "--json", "--db", str(db)])
        assert code == 0, err
        info = json.loads(out)
        assert info["build"]["threads"] == str(threads)
        solver = info["variants"][[v["variant"] for v in info["variants"]].index("ten-thousand")]["solver"]
        assert solver["two_player"]["threads"] == threads
    assert len(sums[1]) > 5 and sums[1] == sums[2]


@pytest.mark.parametrize("value", ["0", "3", "x"])
def test_build_threads_bad_value(tmp_path, value):
    db = tmp_path / "x.duckdb"
    done = _dicebase("build", "threes", "--threads", value, "--db", str(db))
    assert done.returncode == 2
    assert done.stderr.startswith("Error:") and "--threads" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not db.exists()


def test_a_failing_pair_stops_the_solve_with_one_clear_error():
    """The prange bodies return error codes (a raise there would make numba run the loop
    serially); the solve turns the first one into a ValueError naming the score sum."""
    from dicebase.builder.ten_thousand import twoplayer
    from dicebase.rules.ten_thousand import TEN_THOUSAND

    with pytest.raises(ValueError, match=r"score sum \d+: policy iteration did not settle"):
        twoplayer.solve(TEN_THOUSAND, 4, tol=-1.0, keep_tables=False)  # no slack is ever <= -1
