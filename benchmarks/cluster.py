"""Issue 22: the N-player solve on a Dask LocalCluster against the in-process solve.

    python benchmarks/cluster.py --game ten-thousand --players 3 --goal 2000 --workers 1,2,4,8,16

Runs the in-process solve on one thread, then for each worker count a LocalCluster of that many
worker processes (one thread each): a warm-up solve (every worker loads the compiled kernels),
then the timed solve.  Prints one markdown table and one JSON document: wall seconds, speed-up
over one worker and over in-process, efficiency (T1 / (W * TW)), tasks, the data shipped per
level (each level's delta to every worker), and a hash of the values (equal on every row:
bit-identical).  Needs ``pip install -e '.[cluster]'``.

Time: every row solves the whole goal, so the rows add up to about 3 one-worker solves.  Three
players to goal 2,000 take a few minutes on one core: on 16 cores
``--workers 2,4,8,16 --no-in-process --goal 2000`` stays within about 6 minutes (speed-up and
efficiency are then against 2 workers), ``--workers 1,2,4,8,16 --goal 1000`` measures from one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time


def _hash(sol) -> str:
    h = hashlib.sha256(sol.start.tobytes())
    kmax = getattr(sol, "kmax", None)
    if kmax is not None:
        h.update(kmax.tobytes())
    return h.hexdigest()[:12]


def _solver(game: str, players: int, goal: int):
    if game == "ten-thousand":
        from dicebase.builder.ten_thousand import nplayer
        from dicebase.rules.ten_thousand import PRESETS

        rules = PRESETS["ten-thousand"]
        warm = (lambda runner: nplayer.solve(rules, players, 300, runner=runner))
        return (lambda runner, threads=None: nplayer.solve(rules, players, goal, runner=runner, workers=threads)), warm
    from dicebase.builder.rolled_ones import nplayer
    from dicebase.rules.rolled_ones import rules_for

    rules = rules_for(players, goal)
    small = rules_for(players, 10)
    warm = (lambda runner: nplayer.solve(small, players, runner=runner))
    return (lambda runner, threads=None: nplayer.solve(rules, players, runner=runner, workers=threads)), warm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["ten-thousand", "rolled-ones"], default="ten-thousand")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--goal", type=int, default=2000)
    ap.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2,4,8,16")
    ap.add_argument("--no-in-process", action="store_true", help="skip the in-process row")
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",") if w.strip()]

    import numba

    from dicebase.builder import cluster, levels

    solve, warm = _solver(args.game, args.players, args.goal)
    rows = []
    if not args.no_in_process:
        warm(None)
        before = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            t = time.perf_counter()
            sol = solve(None, 1)
            wall = time.perf_counter() - t
        finally:
            numba.set_num_threads(before)
        rows.append({"runner": "in-process, 1 thread", "workers": 0, "seconds": round(wall, 2),
                     "tuples": sol.spec.tuples, "levels": sol.stats["levels"]["levels_solved"],
                     "hash": _hash(sol)})
        print(f"in-process: {wall:.1f} s", file=sys.stderr, flush=True)
    for w in counts:
        t = time.perf_counter()
        conn = cluster.connect(f"local:{w}")
        started = time.perf_counter() - t
        try:
            warm(levels.Levels(runner=cluster.DaskRunner(conn.client, name=f"local:{w}")))
            runner = cluster.DaskRunner(conn.client, name=f"local:{w}")
            t = time.perf_counter()
            sol = solve(levels.Levels(runner=runner))
            wall = time.perf_counter() - t
        finally:
            conn.close()
        n_levels = sol.stats["levels"]["levels_solved"]
        rows.append({"runner": f"local:{w}", "workers": w, "seconds": round(wall, 2), "cluster_start_s": round(started, 1),
                     "tasks": runner.stats["tasks"], "levels": n_levels,
                     "shipped_MB_per_level": round(runner.stats["bytes_scattered"] / n_levels / 1e6, 3),
                     "rescattered": runner.stats["rescattered"], "hash": _hash(sol)})
        print(f"local:{w}: {wall:.1f} s", file=sys.stderr, flush=True)
    # speed-up and efficiency against the smallest worker count run (1 when it is in --workers)
    first = min((r for r in rows if r["workers"]), key=lambda r: r["workers"], default=None)
    base = next((r["seconds"] for r in rows if r["workers"] == 0), None)
    for r in rows:
        if first and r["workers"]:
            w0, t0 = first["workers"], first["seconds"]
            r[f"speedup_vs_{w0}"] = round(t0 / r["seconds"], 2)
            r["efficiency"] = round(w0 * t0 / (r["workers"] * r["seconds"]), 2)
        if base:
            r["speedup_vs_in_process"] = round(base / r["seconds"], 2)
    meta = {"game": args.game, "players": args.players, "goal": args.goal, "cpus": os.cpu_count(),
            "machine": platform.machine(), "python": platform.python_version(),
            "load_average": os.getloadavg(), "date": time.strftime("%Y-%m-%d"),
            "bit_identical": len({r["hash"] for r in rows}) == 1}
    w0 = first["workers"] if first else 1
    cols = ["runner", "seconds", f"speedup_vs_{w0}", "efficiency", "speedup_vs_in_process", "tasks", "levels",
            "shipped_MB_per_level", "hash"]
    print(f"{args.game}, {args.players} players, goal {args.goal}; {meta['cpus']} CPUs, load {meta['load_average']}")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r.get(c, "-")) for c in cols) + " |")
    print(json.dumps({"meta": meta, "rows": rows}))


if __name__ == "__main__":
    main()
