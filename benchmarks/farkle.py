"""Issue 24: the Farkle family's presets, their solve times and figures (docs/farkle.md).

    python benchmarks/farkle.py                      # Zilch's one-turn average, Minimal Farkle to 10,000
    python benchmarks/farkle.py --goal 5000          # Minimal Farkle to a smaller goal

Prints one line per measurement (wall and CPU seconds, the figure) for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--goal", type=int, default=10_000, help="Minimal Farkle's goal, points")
    args = ap.parse_args()

    from numba import get_num_threads

    from dicebase.builder.ten_thousand import solitaire, twoplayer
    from dicebase.rules.ten_thousand import PRESETS

    print(f"machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, "
          f"numba threads {get_num_threads()}")
    z = PRESETS["zilch-playr"]
    w, c = time.perf_counter(), time.process_time()
    a = solitaire.average_turn(z)
    print(f"zilch-playr one-turn average-reward solve: {time.perf_counter() - w:.1f} s wall, "
          f"{time.process_time() - c:.1f} s CPU, {a.iterations} iterations, gain {a.gain:.6f} points per turn "
          f"(bounds {a.gain_bounds[0]:.9f}..{a.gain_bounds[1]:.9f}), relative values {np.round(a.relative, 4)}")
    m = PRESETS["minimal-farkle"]
    G = args.goal // m.unit
    w, c = time.perf_counter(), time.process_time()
    d = twoplayer.solve(m, G, keep_tables=True, heuristic=False)
    first = d.W[0, : min(G, 40)]
    print(f"minimal-farkle two-player solve to {args.goal}: {time.perf_counter() - w:.1f} s wall, "
          f"{time.process_time() - c:.1f} s CPU, {d.i.size:,} roll-optimal states stored, "
          f"P1 wins {d.W[0, 0]:.6f}, fairest compensation {int(np.abs(first - 0.5).argmin()) * m.unit} "
          f"(P1 wins {first[4]:.6f} against 200, {first[5]:.6f} against 250)")


if __name__ == "__main__":
    main()
