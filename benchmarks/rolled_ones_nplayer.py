"""Great Rolled Ones for N players (dicebase.builder.rolled_ones.nplayer): solve time, tuples, states,
memory and policy cycles by number of players and threads.

Prints a markdown table (and writes it with --out):

    python benchmarks/rolled_ones_nplayer.py [--players 2,3,4] [--threads 1,2] [--goal 50]

Each (players, threads) runs in a fresh process (numba fixes its pool when first imported; the
kernels are compiled, and cached, by a small warm-up solve outside the timing).  Columns: seconds
(whole solve; the final-round tables; the score-sum levels), score tuples, turn starts (tuples x
seats), mid-turn states the turn starts stand for (turn starts x reachable (k, o) with k <= the turn
total bound), turn evaluations per CPU-second, peak resident memory of the process (MB), the result
arrays' size (MB), the caps (turn-total bound K, score cap C: ``nplayer.rules_for``), tuples with a
policy cycle (and how many needed a mixed equilibrium), each seat's
win probability at the start and the sha256 (first 12 hex digits) of the turn-start table, which must be the same
for every thread count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(players: int, goal: int, threads: int) -> dict:
    import numba

    from dicebase.builder.rolled_ones import nplayer
    from dicebase.rules.rolled_ones import Rules

    numba.set_num_threads(threads)
    nplayer.solve(Rules(goal=8, turn_total_bound=16, dice=3, ones_limit=2, faces=4), players)  # compile
    rules = nplayer.rules_for(players, goal)  # turn-total bound proven harmless for this many players
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    sol = nplayer.solve(rules, players)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    reach = int(nplayer.reach_mask(rules).sum())
    s = sol.stats
    return dict(
        players=players, threads=threads, goal=goal, seconds=round(wall, 2), cpu=round(cpu, 2),
        finals=s["seconds_final_round"], levels=s["seconds_levels"], tuples=s["tuples"],
        turn_starts=s["turn_starts"], states=s["turn_starts"] * reach,
        turn_total_bound=s["turn_total_bound"], score_cap=s["score_cap"],
        evals_per_cpu_s=round(s["turn_evaluations"] / max(cpu, 1e-9)),
        peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        result_mb=round((s["bytes_start"] + s["bytes_finals"]) / 2**20, 1),
        cycles=s["cycle_tuples"], mixed=s["mixed_tuples"],
        randomising_seats={n: sum(1 for m in sol.mixed if m["kind"] == "mixed" and len(m["randomising"]) == n)
                           for n in range(1, players + 1)},
        p_win=[round(float(x), 6) for x in nplayer.summary(sol)["p_win_seats"]],
        sha=hashlib.sha256(sol.start.tobytes()).hexdigest()[:12],
        cycle_tuples=[(m["scores"], m["kind"]) for m in sol.mixed],
    )


def table(rows: list[dict]) -> str:
    head = ("| players | threads | K, C | seconds | final round s | levels s | tuples | turn starts | states "
            "| evals / CPU-s | peak MB | result MB | cycle tuples (mixed) | win by seat | sha256 |")
    out = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        out.append(
            f"| {r['players']} | {r['threads']} | {r['turn_total_bound']}, {r['score_cap']} | {r['seconds']} "
            f"| {r['finals']} | {r['levels']} | {r['tuples']:,} "
            f"| {r['turn_starts']:,} | {r['states']:,} | {r['evals_per_cpu_s']:,} | {r['peak_mb']} | {r['result_mb']} "
            f"| {r['cycles']} ({r['mixed']}) | {', '.join(f'{p:.4f}' for p in r['p_win'])} | {r['sha']} |"
        )
    return "\n".join(out)


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", default="2,3,4", metavar="N,N,...")
    ap.add_argument("--threads", default="1,2", metavar="T,T,...")
    ap.add_argument("--goal", type=int, default=50)
    ap.add_argument("--out", default=None, help="also write the report here")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        n, t = (int(x) for x in args.one.split(","))
        print(json.dumps(one(n, args.goal, t)))
        return ""
    rows = []
    for n in [int(x) for x in args.players.split(",")]:
        for t in [int(x) for x in args.threads.split(",")]:
            env = {**os.environ, "NUMBA_NUM_THREADS": str(t)}
            proc = subprocess.run([sys.executable, __file__, "--goal", str(args.goal), "--one", f"{n},{t}"],
                                  capture_output=True, text=True, env=env, cwd=ROOT, check=True)
            rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    report = (f"Great Rolled Ones, N players, goal {args.goal} ({date.today()}, {platform.machine()}, "
              f"{os.cpu_count()} CPUs; `python benchmarks/rolled_ones_nplayer.py --players {args.players} "
              f"--threads {args.threads} --goal {args.goal}`)\n\n" + table(rows) + "\n")
    for r in rows:
        if r["cycle_tuples"] and r["threads"] == rows[0]["threads"]:
            mixed = [s for s, kind in r["cycle_tuples"] if kind == "mixed"]
            pure = [s for s, kind in r["cycle_tuples"] if kind == "pure"]
            report += (f"\n{r['players']} players: {len(r['cycle_tuples'])} tuples where policy iteration cycled; "
                       f"{len(mixed)} without a pure equilibrium (mixed stored; tuples by number of randomising "
                       f"seats {r['randomising_seats']}), first: {mixed[:12]}; "
                       f"{len(pure)} with a pure equilibrium found by the search: {pure[:12]}\n")
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n")
    return report


if __name__ == "__main__":
    main()
