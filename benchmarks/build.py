"""The whole build, end to end: wall and CPU seconds, and where they go.

    python benchmarks/build.py                       # the default build (issue 12: under 120 s)
    python benchmarks/build.py --threads 1           # on one solver thread
    python benchmarks/build.py -o ten-thousand.goal=5000 --repeat 3
    python benchmarks/build.py --code /tmp/before    # an older checkout, for a before/after

Each run is a fresh ``dicebase build`` process (``/usr/bin/time``-style: wall seconds, the
CPU seconds of the process and its threads, peak RSS) into an empty scratch directory,
so it includes start-up, numba's cache loads, the checksums and the final rename.  The
database's ``build_steps``, ``build_tables.write_seconds`` and ``build_games.build_seconds``
then split the wall time: the steps of each game, the table writes, and what lies outside
every game (start-up, catalogue, checkpoint, rename).  Prints a markdown table; nothing
here is a test.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_once(code: Path, args: list[str], scratch: Path) -> dict:
    """One build into ``scratch``: wall, CPU and peak memory of the child, and its steps."""
    target = scratch / "dicebase.duckdb"
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(code))
    command = [sys.executable, "-m", "dicebase", "build", "--quiet", "--db", str(target), *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=scratch)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    import duckdb

    con = duckdb.connect(str(target), read_only=True)
    try:
        games = con.execute("SELECT game, build_seconds FROM build_games ORDER BY game").fetchall()
        steps = con.execute("SELECT game, step, seconds FROM build_steps ORDER BY game, seq").fetchall()
        writes = dict(con.execute("SELECT game, sum(write_seconds) FROM build_tables GROUP BY game").fetchall())
    finally:
        con.close()
    return {
        "wall": wall, "cpu": cpu, "rss_mb": after.ru_maxrss / 1024, "games": games, "steps": steps,
        "writes": writes, "mb": target.stat().st_size / 1e6,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--option", action="append", default=[], help="a build option, as for dicebase build")
    parser.add_argument("--threads", type=int, help="solver threads (default: every core)")
    parser.add_argument("--games", nargs="*", default=[], help="games to build (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="builds to run; the fastest is shown")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--scratch", type=Path, help="scratch directory (default: a new temporary one)")
    args = parser.parse_args(argv)

    build_args = [*args.games, *(a for o in args.option for a in ("-o", o))]
    if args.threads:
        build_args += ["--threads", str(args.threads)]
    with tempfile.TemporaryDirectory(prefix="dicebase-build-bench-") as tmp:
        scratch = args.scratch or Path(tmp) / "db"
        runs = [run_once(args.code.resolve(), build_args, scratch) for _ in range(args.repeat)]
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    best = min(runs, key=lambda r: r["wall"])
    inside = sum(seconds for _, seconds in best["games"])
    print(f"`dicebase build {' '.join(build_args)}` ({platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, code {args.code}); fastest of {len(runs)}: "
          + ", ".join(f"{r['wall']:.1f}" for r in runs) + " s wall\n")
    print("| what | s |")
    print("|---|---:|")
    print(f"| whole build, wall | {best['wall']:.2f} |")
    print(f"| whole build, CPU (all threads) | {best['cpu']:.2f} |")
    for game, seconds in best["games"]:
        print(f"| {game} (its steps and table writes) | {seconds:.2f} |")
        for step_game, step, step_seconds in best["steps"]:
            if step_game == game:
                print(f"| &nbsp;&nbsp;{step} | {step_seconds:.2f} |")
        print(f"| &nbsp;&nbsp;table writes (build_tables.write_seconds) | {best['writes'].get(game, 0.0):.2f} |")
    print(f"| outside every game (start-up, checksums read back, catalogue, checkpoint, rename) | {best['wall'] - inside:.2f} |")
    print(f"\nfile {best['mb']:.1f} MB, peak RSS {best['rss_mb']:.0f} MB")


if __name__ == "__main__":
    main()
