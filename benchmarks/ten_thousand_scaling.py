"""10,000: the two-player solve's time by goal, and the numpy measurement behind numba.

Prints a markdown table (benchmarks/run.py includes it in its report; BENCHMARKS.md keeps the latest):

    python benchmarks/ten_thousand_scaling.py [--goals 1000,2000,5000,10000] [--numpy-goals all]

For each goal: seconds of the numba solve (optimal play, policy iteration per 2-cycle)
and of the seed-004-vs-optimal evaluation, states solved, roll-optimal states stored, the
first player's win probability.  For the numpy goals (default: every goal, as in the table
of docs/ten_thousand.md; about 6 minutes in all, 2.2 GB at goal 10,000): seconds of ONE numpy
evaluation pass over every turn (vectorised over all pairs of a score sum and all keep
options, given the exact turn-start values), a lower bound for any numpy solver, since the
2-cycles need at least two passes; its values are checked against the numba solve.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dicebase.builder.ten_thousand import twoplayer  # noqa: E402
from dicebase.rules.ten_thousand import TEN_THOUSAND  # noqa: E402
from dicebase.numeric.ten_thousand_turn import transitions  # noqa: E402
from dicebase.builder.ten_thousand.solitaire import flatten  # noqa: E402


def numpy_pass(rules, sol) -> tuple[float, float]:
    """One evaluation pass in numpy given the solved W; returns (seconds, max |error|)."""
    fl = flatten(transitions(rules, prune=False))
    G = sol.goal
    W = sol.W
    pexd = sol.exceed[1:, 0]
    S = fl.n_states
    mp = fl.max_pts
    err = 0.0
    started = time.perf_counter()
    for ssum in range(2 * G - 2, -1, -1):
        ii = np.arange(max(0, ssum - G + 1), min(ssum, G - 1) + 1)
        jj = ssum - ii
        km = sol.kmax[ii, jj]
        K = int(km.max())
        F = 1.0 - W[jj, ii]
        V = np.empty((ii.size, K + 1 + mp, S))
        kk = np.arange(K + 1, K + 1 + mp)
        V[:, K + 1 :, :] = (1.0 - pexd[ii[:, None] + kk[None, :] - jj[:, None]])[:, :, None]
        for k in range(K, -1, -1):
            vals = V[:, k + fl.opt_pts, fl.opt_state]
            g = np.maximum.reduceat(vals, fl.group_opt[:-1], axis=1) * fl.group_prob
            roll = np.add.reduceat(g, fl.state_group[:-1], axis=1) + F[:, None] * fl.p_farkle
            below = ii + k < G
            bank = np.where(below, 1.0 - W[jj, np.minimum(ii + k, G - 1)],
                            1.0 - pexd[np.maximum(ii + k - jj, 0)])
            val = roll if k == 0 else np.maximum(roll, bank[:, None])
            forced = k > km  # past a pair's bound: bank
            V[:, k, :] = np.where(forced[:, None], bank[:, None], val)
        err = max(err, float(np.abs(V[:, 0, 0] - W[ii, jj]).max()))
    return time.perf_counter() - started, err


def goal_list(text: str) -> list[int]:
    """'1000,2000' -> [1000, 2000]: positive multiples of 50 up to 20,000 (the build's limit)."""
    goals = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            goal = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a whole number of points") from None
        if goal <= 0 or goal % 50 or goal > 20_000:
            raise argparse.ArgumentTypeError(f"goal {goal} must be a positive multiple of 50 up to 20000")
        goals.append(goal)
    if not goals:
        raise argparse.ArgumentTypeError("give at least one goal")
    return goals


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--goals", type=goal_list, default=goal_list("1000,2000,5000,10000"), metavar="G,G,...",
                    help="two-player goals to solve, points: positive multiples of 50 up to 20000, comma-separated "
                    "(default: 1000,2000,5000,10000)")
    ap.add_argument("--numpy-goals", default="all", metavar="G,G,...|all|none",
                    help="goals (a subset of --goals) at which to also time one numpy evaluation pass; 'all' (default) "
                    "= every goal, 'none' = skip it")
    args = ap.parse_args(argv)
    goals = args.goals
    if args.numpy_goals == "all":
        numpy_goals = set(goals)
    elif args.numpy_goals == "none":
        numpy_goals = set()
    else:
        try:
            numpy_goals = set(goal_list(args.numpy_goals))
        except argparse.ArgumentTypeError as exc:
            ap.error(f"argument --numpy-goals: {exc}")
        if not numpy_goals <= set(goals):
            ap.error(f"argument --numpy-goals: {sorted(numpy_goals - set(goals))} not in --goals {goals}")
    twoplayer.solve(TEN_THOUSAND, 2, keep_tables=False)  # compile (cached) outside the timings
    lines = [
        f"### 10,000: two-player solve by goal ({date.today()}, {platform.machine()}, {os.cpu_count()} cores)",
        "",
        "| goal | numba solve s | seed004 vs optimal s | states solved | roll states stored | P1 win | seed004 gap | numpy one pass s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for goal in goals:
        sol = twoplayer.solve(TEN_THOUSAND, goal // TEN_THOUSAND.unit, rows="roll")
        st = sol.stats
        solved = int(((sol.kmax + 1) * 24).sum())
        stored = int(sol.p_win.size)
        gap = (sol.heur_h[0, 0] - sol.W[0, 0]) + (sol.heur_o[0, 0] - (1 - sol.W[0, 0]))
        np_s = ""
        if goal in numpy_goals:
            sec, err = numpy_pass(TEN_THOUSAND, sol)
            assert err < 1e-12, err
            np_s = f"{sec:.1f}"
        lines.append(
            f"| {goal:,} | {st['seconds'] - st['heuristic_seconds']:.1f} | {st['heuristic_seconds']:.1f} | "
            f"{solved:,} | {stored:,} | {sol.W[0, 0]:.4f} | {gap:+.4f} | {np_s} |"
        )
        del sol
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
