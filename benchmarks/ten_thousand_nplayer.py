"""10,000 for N players (dicebase.builder.ten_thousand.nplayer): solve time, turn starts per
CPU-second, memory and policy cycles, against today's two-player solve, and the projected cost of
3 and 4 players to 10,000.

    python benchmarks/ten_thousand_nplayer.py [--goals 1000,2000,3000] [--threads 1,2]
                                              [--players 3] [--rules ten-thousand] [--out FILE]

Each run is a fresh process (numba fixes its pool when first imported; a small warm-up solve
compiles, or loads, the kernels outside the timing); peak memory is that process's resident peak.
Turn starts: the N-player solve stores ``G^N x N`` turn-start vectors (every tuple, every seat to
move) but, the seats being alike up to play order, only ``G^N`` of them are distinct states (a
tuple's N turn starts are the turn starts of its N rotations, solved once); the two-player solve
stores ``G^2`` (its pairs ``(i, j)`` are already distinct states).  Both rates are printed; the fair
comparison with the two-player solve is the distinct one.  The hash (sha256 of the turn-start
table, 12 hex digits) must be the same for every thread count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(kind: str, players: int, goal: int, threads: int, rules_name: str) -> dict:
    import numba

    from dicebase.builder.ten_thousand import nplayer, twoplayer
    from dicebase.rules.ten_thousand import PRESETS

    numba.set_num_threads(threads)
    rules = PRESETS[rules_name]
    G = goal // rules.unit
    if kind == "two-player":
        twoplayer.solve(rules, 4, heuristic=False, keep_tables=False)  # compile / load the kernels
        cpu0, t0 = time.process_time(), time.perf_counter()
        tp = twoplayer.solve(rules, G, heuristic=False, keep_tables=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        return dict(kind=kind, players=2, goal=goal, threads=threads, seconds=round(wall, 2), cpu=round(cpu, 2),
                    turn_starts=G * G, distinct=G * G, evaluations=tp.stats["evaluations"],
                    mean_kmax=round(float(tp.kmax.mean()), 1),
                    peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                    p_win=[round(float(tp.W[0, 0]), 6), round(1 - float(tp.W[0, 0]), 6)],
                    hash=hashlib.sha256(tp.W.tobytes()).hexdigest()[:12])
    nplayer.solve(rules, players, 100)  # compile / load the kernels
    cpu0, t0 = time.process_time(), time.perf_counter()
    sol = nplayer.solve(rules, players, goal)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    s = sol.stats
    cyc = sorted({tuple(r["scores"]) for r in sol.mixed if r["cycle_length"] > 1})
    return dict(kind=kind, players=players, goal=goal, threads=threads, seconds=round(wall, 2), cpu=round(cpu, 2),
                finals=s["seconds_final_round"], turn_starts=s["turn_starts"], distinct=s["tuples"],
                evaluations=s["turn_evaluations"], mean_kmax=round(s["mean_kmax"], 1),
                peak_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                result_mb=round((s["bytes_start"] + s["bytes_finals"]) / 2**20, 1),
                cycle_classes=s["cycle_tuples"], cycle_tuples=s["cycle_tuples_all_rotations"],
                rechecks=s["fixed_point_rechecks"],
                mixed=s["mixed_tuples"], unproven=s["unproven_tuples"], cycles=[list(t) for t in cyc],
                p_win=[round(float(x), 6) for x in sol.start_at((0,) * players)[0]],
                hash=hashlib.sha256(sol.start.tobytes()).hexdigest()[:12])


def _rots(t):
    return [t[r:] + t[:r] for r in range(len(t))]


def run(kind, players, goal, threads, rules_name):
    out = subprocess.run([sys.executable, __file__, "--one", kind, str(players), str(goal), str(threads), rules_name],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def project(rows: list[dict], players: int, goal: int, unit: int = 50) -> dict:
    """CPU-seconds and memory of ``players`` to ``goal`` from the measured rows (fewest threads per goal): CPU per
    distinct turn start and per unit of the mean turn length (``mean_kmax``, fitted linearly in G)."""
    import numpy as np

    # per goal the row with the fewest threads (CPU time is what is projected; a run of 2 threads only still projects)
    pts = {}
    for r in sorted((r for r in rows if r["kind"] == "n-player"), key=lambda r: -r["threads"]):
        pts[r["goal"]] = r
    pts = [pts[g] for g in sorted(pts)]
    G = np.array([r["goal"] / unit for r in pts])
    kmax = np.array([r["mean_kmax"] for r in pts])
    per = np.array([r["cpu"] / (r["distinct"] * r["mean_kmax"]) for r in pts])
    a, b = np.polyfit(G, kmax, 1) if len(pts) > 1 else (0.0, kmax[0])
    Gt = goal / unit
    k_t = a * Gt + b
    distinct = Gt**players
    cpu = float(per[-1] * distinct * k_t)  # the largest measured goal's rate (smallest edge effects)
    mem = distinct * players * (players * 8 + 4)
    return dict(players=players, goal=goal, distinct=int(distinct), mean_kmax=round(float(k_t), 1),
                cpu_hours=round(cpu / 3600, 1), memory_gb=round(mem / 1e9, 1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--goals", default="1000,2000,3000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--rules", default="ten-thousand")
    ap.add_argument("--out")
    ap.add_argument("--one", nargs=5)
    a = ap.parse_args()
    if a.one:
        kind, n, goal, threads, rules_name = a.one
        print(json.dumps(one(kind, int(n), int(goal), int(threads), rules_name)))
        return
    rows = []
    for goal in [int(g) for g in a.goals.split(",")]:
        for threads in [int(t) for t in a.threads.split(",")]:
            rows.append(run("n-player", a.players, goal, threads, a.rules))
            print(json.dumps(rows[-1]), file=sys.stderr)
        rows.append(run("two-player", 2, goal, 1, a.rules))
        print(json.dumps(rows[-1]), file=sys.stderr)
    lines = [f"10,000 ({a.rules}) N-player solve, {platform.machine()}, {time.strftime('%Y-%m-%d')}", "",
             "| solve | goal | threads | seconds | CPU s | turn starts (stored) | distinct | per CPU-s (stored) "
             "| per CPU-s (distinct) | evaluations | mean kmax | peak MB | cycle tuples (classes) | unproven | hash |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cyc = f"{r['cycle_tuples']} ({r['cycle_classes']})" if "cycle_tuples" in r else "-"
        lines.append(
            f"| {r['players']} players{' (two-player solver)' if r['kind'] == 'two-player' else ''} | {r['goal']:,} "
            f"| {r['threads']} | {r['seconds']} | {r['cpu']} | {r['turn_starts']:,} | {r['distinct']:,} "
            f"| {r['turn_starts'] / max(r['cpu'], 1e-9):,.0f} | {r['distinct'] / max(r['cpu'], 1e-9):,.0f} "
            f"| {r['evaluations']:,} | {r['mean_kmax']} | {r['peak_mb']} | {cyc} | {r.get('unproven', '-')} "
            f"| {r['hash']} |")
    lines += ["", "Projected (single thread, from the largest measured goal's CPU per distinct turn start and "
              "turn length):", "", "| players | goal | distinct turn starts | mean kmax | CPU hours | table GB |",
              "|---|---|---|---|---|---|"]
    for n in (3, 4):
        p = project(rows, n, 10_000)
        lines.append(f"| {n} | 10,000 | {p['distinct']:,} | {p['mean_kmax']} | {p['cpu_hours']:,} | {p['memory_gb']} |")
    for r in rows:
        if r.get("cycles"):
            lines.append(f"\ncycle classes at goal {r['goal']} ({r['threads']} threads): {r['cycles']}")
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
