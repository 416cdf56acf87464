"""Threes with many dice (issue 13): how long the many-dice step of the build takes.

Times ``solve_many`` for each variant up to ``--dice`` (default 5000) and
``solve_many_chances`` up to ``--chance-dice`` (default 50), wall-clock and CPU, and the whole
``dicebase build threes`` with and without the many-dice tables, whose difference is the
step's share of the build (solves plus writing ``threes_many_dice``, ``threes_many_dice_keeps``
and ``threes_many_dice_chances``).
Target (issue 13): the whole many-dice step under 30 s on the 2-core machine.

    python benchmarks/threes_many_dice.py [--dice 5000] [--chance-dice 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from dicebase.builder import pipeline
from dicebase.builder.threes_many import solve_many, solve_many_chances
from dicebase.rules.threes import standard_variants


def best_of(repeat: int, func) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def cpu_of(func) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=5000)
    parser.add_argument("--chance-dice", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    for name, rules in standard_variants().items():
        seconds = best_of(args.repeat, lambda: solve_many(rules, args.dice))
        sol = solve_many(rules, args.dice)
        cpu = cpu_of(lambda: solve_many(rules, args.dice))
        rows.append((f"solve_many {name}, 1..{args.dice} dice", seconds, f"CPU {cpu:.2f} s; E[{args.dice}] = {sol.expected[-1]:.10f}"))
        seconds = best_of(args.repeat, lambda: solve_many_chances(rules, args.chance_dice))
        cpu = cpu_of(lambda: solve_many_chances(rules, args.chance_dice))
        rows.append((f"solve_many_chances {name}, 1..{args.chance_dice} dice", seconds, f"CPU {cpu:.2f} s"))

    with tempfile.TemporaryDirectory() as tmp:
        builds = {}
        for many in (0, args.dice):
            target = f"duckdb:///{Path(tmp) / f'threes-{many}.duckdb'}"
            options = {"threes": {"many_dice": many, "many_dice_chances": args.chance_dice if many else 0}}
            builds[many] = best_of(
                args.repeat, lambda: pipeline.build(["threes"], target, quiet=True, force=True, options=options)
            )
    rows.append(("dicebase build threes, many_dice = many_dice_chances = 0", builds[0], ""))
    rows.append((f"dicebase build threes, many_dice = {args.dice}, many_dice_chances = {args.chance_dice}",
                 builds[args.dice], "the default build"))
    step = builds[args.dice] - builds[0]
    rows.append(("many-dice step of the build (difference)", step, "target: under 30 s"))

    print(f"machine: {platform.node()}, {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"best of {args.repeat} runs\n")
    print("| what | seconds | note |\n|---|---:|---|")
    for what, seconds, note in rows:
        print(f"| {what} | {seconds:.2f} | {note} |")


if __name__ == "__main__":
    main()
