"""Issue 24: the Farkle family's presets, their solve times and figures (docs/farkle.md).

    python benchmarks/farkle.py                      # Zilch's one-turn average, Minimal Farkle to 10,000
    python benchmarks/farkle.py --goal 5000          # Minimal Farkle to a smaller goal
    python benchmarks/farkle.py --facebook 1000      # Facebook Farkle to 1,000, and the cost by penalty count
    python benchmarks/farkle.py --facebook-full      # Facebook Farkle to 10,000 (Busche 2016): one JSON line
    python benchmarks/farkle.py --facebook-full --rule three_pairs_with_four=false --tol 1e-5   # another reading
    python benchmarks/farkle.py --readings 2000 --lowest -1000   # each candidate reading's effect at a smaller goal

Prints one line per measurement (wall and CPU seconds, the figure) for BENCHMARKS.md.  --facebook-full
is the whole two-player game with the three-farkle penalty, scores down to -2,500 (423,765,000 states a
sweep, about 15 sweeps): hours on 2 cores; sized for a 16-core machine (set NUMBA_NUM_THREADS or leave
numba its default of every core).  It prints the first player's win probability, the state count, the
seconds and the peak memory as JSON, with Busche's published figures beside them.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--goal", type=int, default=10_000, help="Minimal Farkle's goal, points")
    ap.add_argument("--facebook", type=int, metavar="GOAL", help="Facebook Farkle to GOAL points (and the "
                    "cost by the penalty's count dimension) instead of the default measurements")
    ap.add_argument("--lowest", type=int, default=None, help="with --facebook/--facebook-full: lowest_score, points")
    ap.add_argument("--facebook-full", action="store_true", help="Facebook Farkle to 10,000: one JSON line")
    ap.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                    help="with --facebook-full: another reading of one rule, e.g. three_pairs_with_four=false, "
                         "straight=1000, two_triples=2500 (a TOML value; repeatable)")
    ap.add_argument("--tol", type=float, default=1e-13, help="with --facebook-full: stop when a sweep changes no "
                    "state by more than this (default 1e-13; 1e-5 gives the start value to about 3e-7 in 11 sweeps)")
    ap.add_argument("--readings", type=int, metavar="GOAL", help="Facebook Farkle to GOAL under each candidate "
                    "reading of its rules (docs/farkle.md): the first player's win probability beside the preset's")
    args = ap.parse_args()
    if args.readings:
        readings(args.readings, args.lowest if args.lowest is not None else -args.readings // 2)
        return
    if args.facebook_full:
        facebook_full(args.lowest, args.rule, args.tol)
        return
    if args.facebook:
        facebook(args.facebook, args.lowest)
        return

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


def facebook(goal: int, lowest: int | None) -> None:
    """Facebook Farkle to ``goal``, then the same with the penalty after 1, 2, 3 farkles (m x m counts)."""
    from dataclasses import replace

    from numba import get_num_threads

    from dicebase.builder.ten_thousand import twoplayer
    from dicebase.rules.ten_thousand import PRESETS

    fb = replace(PRESETS["facebook-farkle"], goal=goal)
    if lowest is not None:
        fb = replace(fb, lowest_score=lowest)
    print(f"machine: {platform.machine()}, python {platform.python_version()}, numba threads {get_num_threads()}")
    for m in (1, 2, 3):
        rs = replace(fb, farkle_penalty_after=m)
        w, c = time.perf_counter(), time.process_time()
        d = twoplayer.solve_penalty(rs, goal // rs.unit)
        print(f"facebook-farkle to {goal}, lowest {rs.lowest_score}, penalty after {m} ({m * m} count states): "
              f"{time.perf_counter() - w:.1f} s wall, {time.process_time() - c:.1f} s CPU, {d.stats['sweeps']} "
              f"sweeps, {d.stats['states']:,} states a sweep, P1 wins {d.start():.6f}, last change "
              f"{d.stats['last_change']:.1e}, contraction {d.stats['contraction']:.3f}", flush=True)


#: other readings of Facebook Farkle's rules than the preset's (docs/farkle.md), as TOML
READINGS = ["three_pairs_with_four=false", "straight=1000", "two_triples=2500", "extra_dice='double'",
            "farkle_penalty=1000", "farkle_count_reset='after_bank'", "three_pairs=1500"]


def readings(goal: int, lowest: int) -> None:
    """The first player's win probability to ``goal`` under the preset's reading and each of :data:`READINGS`."""
    import tomllib
    from dataclasses import replace

    from dicebase.builder.ten_thousand import twoplayer
    from dicebase.rules.ten_thousand import PRESETS

    base = replace(PRESETS["facebook-farkle"], goal=goal, lowest_score=lowest)
    first = None
    for reading in ["", *READINGS]:
        rs = replace(base, **tomllib.loads(reading)) if reading else base
        w = time.perf_counter()
        d = twoplayer.solve_penalty(rs, goal // rs.unit, tol=1e-10)
        first = d.start() if first is None else first
        print(f"facebook-farkle to {goal}, lowest {lowest}, {reading or 'as the preset reads it'}: P1 wins "
              f"{d.start():.9f} ({d.start() - first:+.2e}; {time.perf_counter() - w:.0f} s, {d.stats['sweeps']} sweeps)",
              flush=True)


def facebook_full(lowest: int | None, readings: list[str] = (), tol: float = 1e-13) -> None:
    """The whole Facebook Farkle game to 10,000 (Busche 2016), one JSON line; self-contained apart from
    dicebase itself (numpy, numba).  ``readings``: ``KEY=VALUE`` changes of the preset's rules (another
    reading of the source, docs/farkle.md), each a TOML value."""
    import json
    import resource
    import tomllib
    from dataclasses import replace

    from numba import get_num_threads

    from dicebase.builder.ten_thousand import twoplayer
    from dicebase.rules.ten_thousand import PRESETS

    rs = PRESETS["facebook-farkle"]
    if lowest is not None:
        rs = replace(rs, lowest_score=lowest)
    changed = {}
    for reading in readings:
        changed.update(tomllib.loads(reading))
    if changed:
        rs = replace(rs, **{k: tuple(v) if isinstance(v, list) else v for k, v in changed.items()})
    w, c = time.perf_counter(), time.process_time()

    def progress(sweep, change, p1_start):  # a run cut short still says where the value stands
        print(f"sweep {sweep}: largest change {change:.3e}, P1 win so far {p1_start:.9f} "
              f"({time.perf_counter() - w:.0f} s)", flush=True)

    d = twoplayer.solve_penalty(rs, rs.goal // rs.unit, tol=tol, progress=progress)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({
        "rules": rs.name, "goal": rs.goal, "lowest_score": rs.lowest_score, "readings": changed, "tol": tol,
        "p1_win": d.start(), "p1_win_percent": round(100 * d.start(), 3),
        "states_per_sweep": d.stats["states"],
        "state_count_formula": twoplayer.penalty_state_count(rs, rs.goal // rs.unit),
        "published": {"p1_win_percent": 53.487, "states": 423_765_000,
                      "source": "Busche, 'Maximizing Win Probability in the Game of Farkle' (2016)"},
        "sweeps": d.stats["sweeps"], "last_change": d.stats["last_change"],
        "contraction": d.stats["contraction"], "error_bound": d.stats["error_bound"],
        "seconds_wall": round(time.perf_counter() - w, 1), "seconds_cpu": round(time.process_time() - c, 1),
        "peak_memory_mb": round(peak, 1), "threads": get_num_threads(),
        "machine": f"{platform.machine()} {platform.processor()}", "cpus": __import__("os").cpu_count(),
    }))


if __name__ == "__main__":
    main()
