"""10,000: the two-player solve (optimal play, then seed 004 vs optimal) by thread count.

Prints a markdown table (benchmarks/run.py includes it in its report; BENCHMARKS.md keeps the latest):

    python benchmarks/threads.py [--goal 10000] [--threads 1,2,4,8,16]

Each thread count runs in a fresh process (numba fixes its pool when first imported;
NUMBA_NUM_THREADS is set to the largest count asked for).  Default thread counts: 1, 2,
4, 8, 16 up to this machine's cores.  The last column checks the answers: the sha256 of
the turn-start table W and of both seed-004 tables must be the same for every count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(goal: int, threads: int) -> dict:
    """Solve once on ``threads`` threads (in this process); seconds and a digest of the answers."""
    import numba

    from dicebase.builder.ten_thousand import twoplayer
    from dicebase.rules.ten_thousand import TEN_THOUSAND

    numba.set_num_threads(threads)
    twoplayer.solve(TEN_THOUSAND, 4, keep_tables=False)  # compile (cached) outside the timing
    started = time.perf_counter()
    sol = twoplayer.solve(TEN_THOUSAND, goal // TEN_THOUSAND.unit, rows="roll")
    total = time.perf_counter() - started
    digest = hashlib.sha256()
    for array in (sol.W, sol.heur_h, sol.heur_o, sol.p_win, sol.k, sol.s):
        digest.update(array.tobytes())
    return dict(threads=threads, solve=sol.stats["seconds"] - sol.stats["heuristic_seconds"],
                seed004=sol.stats["heuristic_seconds"], total=total, sha=digest.hexdigest())


def counts(text: str | None) -> list[int]:
    cores = os.cpu_count() or 1
    if text:
        return [int(t) for t in text.split(",") if t.strip()]
    return [t for t in (1, 2, 4, 8, 16) if t <= cores] or [1]


def main(argv=None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--goal", type=int, default=10_000, help="two-player goal, points (default 10000)")
    ap.add_argument("--threads", default=None, metavar="T,T,...", help="thread counts (default 1,2,4,8,16 up to the cores)")
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one(args.goal, args.one)))
        return ""
    wanted = counts(args.threads)
    env = {**os.environ, "NUMBA_NUM_THREADS": str(max(wanted)), "PYTHONPATH": str(ROOT)}
    rows = []
    for t in wanted:
        done = subprocess.run([sys.executable, __file__, "--goal", str(args.goal), "--one", str(t)],
                              check=True, capture_output=True, text=True, env=env)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"threads {t}: {rows[-1]['total']:.1f} s", file=sys.stderr, flush=True)
    base = rows[0]
    lines = [
        f"### 10,000: two-player solve to {args.goal:,} by thread count ({date.today()}, {platform.machine()}, "
        f"{os.cpu_count()} cores)",
        "",
        "| threads | optimal solve s | seed004 vs optimal s | total s | speedup vs 1 thread | same answers |",
        "|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| {r['threads']} | {r['solve']:.1f} | {r['seed004']:.1f} | {r['total']:.1f} | "
                     f"{base['total'] / r['total']:.2f}x | {'yes' if r['sha'] == base['sha'] else 'NO'} |")
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
