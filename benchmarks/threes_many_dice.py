"""Threes with many dice (issue 13): how long the many-dice step of the build takes.

Times ``solve_many`` for each variant up to ``--dice`` (default 5000), and the whole
``dicebase build threes`` with and without the many-dice table, whose difference is the
step's share of the build (solve plus writing ``threes_many_dice`` and ``threes_many_dice_keeps``).
Target (issue 13): the whole many-dice step under 30 s on the 2-core machine.

    python benchmarks/threes_many_dice.py [--dice 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from dicebase.builder import pipeline
from dicebase.builder.threes_many import solve_many
from dicebase.rules.threes import standard_variants


def best_of(repeat: int, func) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    total_solve = 0.0
    for name, rules in standard_variants().items():
        seconds = best_of(args.repeat, lambda: solve_many(rules, args.dice))
        sol = solve_many(rules, args.dice)
        total_solve += seconds
        rows.append((f"solve_many {name}, 1..{args.dice} dice", seconds, f"E[{args.dice}] = {sol.expected[-1]:.10f}"))

    with tempfile.TemporaryDirectory() as tmp:
        builds = {}
        for many in (0, args.dice):
            target = f"duckdb:///{Path(tmp) / f'threes-{many}.duckdb'}"
            options = {"threes": {"many_dice": many}}
            builds[many] = best_of(
                args.repeat, lambda: pipeline.build(["threes"], target, quiet=True, force=True, options=options)
            )
    rows.append(("dicebase build threes, many_dice = 0", builds[0], ""))
    rows.append((f"dicebase build threes, many_dice = {args.dice} (default)", builds[args.dice], ""))
    step = builds[args.dice] - builds[0]
    rows.append(("many-dice step of the build (difference)", step, "target: under 30 s"))

    print(f"machine: {platform.node()}, {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"best of {args.repeat} runs\n")
    print("| what | seconds | note |\n|---|---:|---|")
    for what, seconds, note in rows:
        print(f"| {what} | {seconds:.2f} | {note} |")


if __name__ == "__main__":
    main()
