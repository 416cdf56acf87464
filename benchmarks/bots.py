"""Bots (issue 23): simulated Threes turns per second on one core, and exact tournaments' times.

Builds Threes (6 players, no many-dice tables) and Great Rolled Ones into a temporary DuckDB
file unless ``--db`` names one, then measures, best of ``--repeat``:

- Threes turns per second of each bot (``Threes.play_turns``, the numba kernel, one thread:
  NUMBA_NUM_THREADS=1 is set before numba loads; the kernel is serial anyway), after one warm-up
  call that compiles it;
- seed 003's two tournaments: exact (``bots.tournament``) and simulated with its round counts
  (1,000 and 10,000 rounds), and 1,000,000 rounds of the second;
- Great Rolled Ones: optimal against each policy, exact, and 100,000 simulated games.

Target (issue 23): at least 1,000,000 Threes turns per second on one core.

``--ten-thousand DB``: only the optimal 10,000 bot on a file with the two-player game (the
default build: goal 10,000): its turns from every score pair (read a block of scores at a time),
the exact games optimal against seed004 and optimal against optimal (every pair's stored turn
start compared), the peak memory, and ``--games`` simulated games of optimal against seed004.

    python benchmarks/bots.py [--db db/dicebase.duckdb] [--turns 2000000] [--repeat 3]
    python benchmarks/bots.py --ten-thousand db/dicebase.duckdb [--games 20000]

``--rolled-ones-n DB``: Great Rolled Ones with 3 players on a file with the 3-player tables (the
default build): three optimal bots (every stored turn start compared), optimal beside seed 002's
policies, exact and ``--games`` simulated games, with times and the peak memory.

    python benchmarks/bots.py --rolled-ones-n db/dicebase.duckdb [--games 20000]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import dicebase  # noqa: E402
from dicebase import bots  # noqa: E402
from dicebase.bots.threes import Threes  # noqa: E402


def best_of(repeat: int, func):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default=None)
    ap.add_argument("--turns", type=int, default=2_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ten-thousand", dest="ten_thousand", default=None, metavar="DB")
    ap.add_argument("--rolled-ones-n", dest="rolled_ones_n", default=None, metavar="DB")
    ap.add_argument("--games", type=int, default=20_000)
    args = ap.parse_args()
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, numpy {np.__version__}")
    if args.ten_thousand:
        ten_thousand(args.ten_thousand, args.games)
        return
    if args.rolled_ones_n:
        rolled_ones_n(args.rolled_ones_n, args.games)
        return
    url = args.db
    if url is None:
        from dicebase.builder import pipeline

        path = os.path.join(tempfile.mkdtemp(), "bots.duckdb")
        t0 = time.perf_counter()
        pipeline.build(["threes", "rolled_ones"], f"duckdb:///{path}", quiet=True,
                       options={"threes": {"max_players": 6, "many_dice": 0, "many_dice_chances": 0},
                                "rolled_ones": {"players": [2]}})
        print(f"build threes + rolled-ones: {time.perf_counter() - t0:.1f} s")
        url = path
    with dicebase.open(url) as db:
        t = Threes(db)
        rng = np.random.default_rng(1)
        print("\n## Threes turns per second (one core)")
        print("bot        turns/s      mean score")
        for bot in ("random", "only-3s", "expected", "win"):
            t.play_turns(bot, 2, np.full(1000, t.rules.no_target), rng)  # compile, read the tables
            best = np.full(args.turns, t.rules.no_target)
            sec, x = best_of(args.repeat, lambda: t.play_turns(bot, 2, best, rng))
            print(f"{bot:<9} {args.turns / sec:>12,.0f}  {x.mean():.4f}")
        print("\n## Seed 003's tournaments")
        for rounds, seating in ((1000, ["random"] * 3 + ["only-3s"] * 3), (10_000, ["only-3s", "win"] * 3),
                                (1_000_000, ["only-3s", "win"] * 3)):
            sec_e, exact = best_of(args.repeat, lambda: bots.tournament(db, "threes", seating))
            sec_s, sim = best_of(args.repeat, lambda: bots.simulate(db, "threes", seating, rounds=rounds, seed=3))
            print(f"{' '.join(seating)}: exact {sec_e * 1000:.1f} ms; {rounds:,} rounds simulated {sec_s:.3f} s "
                  f"({rounds * len(seating) / sec_s:,.0f} turns/s), {sim.outside} of 6 outside 95%")
            for e, s in zip(exact.seats, sim.seats):
                print(f"  {e.player:<10} exact {e.p_win:.6f} x {rounds:,} = {e.p_win * rounds:10.1f}   simulated "
                      f"{s.wins:10.0f}  [{s.low:.4f}, {s.high:.4f}]")
        print("\n## Great Rolled Ones: optimal against each policy")
        for other in ("optimal", "roll-4-or-5-dice", "fixed-hold-at", "simple-ones-cases", "keep-pace-end-race"):
            sec_e, exact = best_of(1, lambda: bots.tournament(db, "rolled-ones", ["optimal", other]))
            sec_s, sim = best_of(1, lambda: bots.simulate(db, "rolled-ones", ["optimal", other], rounds=100_000,
                                                          seed=1))
            print(f"optimal vs {other:<19} exact {exact.seats[0].p_win:.6f} ({sec_e:.2f} s, first call reads "
                  f"and evaluates); 100,000 games {sim.seats[0].rate:.5f} [{sim.seats[0].low:.5f}, "
                  f"{sim.seats[0].high:.5f}] in {sec_s:.2f} s")


def ten_thousand(url: str, games: int) -> None:
    import resource

    from dicebase.bots.ten_thousand import TenThousand

    def rss() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    with dicebase.open(url) as db:
        t = TenThousand(db)
        t0, c0 = time.perf_counter(), time.process_time()
        blocks = list(t.blocks())
        opt = t.optimal
        t1, c1 = time.perf_counter(), time.process_time()
        print(f"## 10,000 ({t.variant_name}), goal {t.goal:,}: the optimal bot's turns from {t.G ** 2:,} pairs, "
              f"{len(blocks)} blocks: {t1 - t0:.1f} s wall, {c1 - c0:.1f} CPU-s; "
              f"tables {sum(a.nbytes for a in opt.values()) / 2**20:.0f} MB; peak RSS {rss():.0f} MB")
        stored = dict(((p, s), w) for p, s, w in db.fetchall(
            "SELECT policy, seat, p_win FROM ten_thousand_policy_duel WHERE rules = ? AND goal = ?",
            (t.variant_name, t.goal)))
        for seating in (["optimal", "seed004"], ["seed004", "optimal"]):
            t2 = time.perf_counter()
            r = bots.tournament(db, "ten-thousand", seating)
            seat = seating.index("seed004") + 1
            print(f"{' vs '.join(seating)}: {[round(x.p_win, 6) for x in r.seats]} in {time.perf_counter() - t2:.2f} s; "
                  f"seed004 against stored ten_thousand_policy_duel: "
                  f"{abs(r.seats[seat - 1].p_win - stored[('seed004', seat)]):.1e}")
        t2 = time.perf_counter()
        V1, V2 = t.start_values(["optimal", "optimal"])
        got = db.fetch_arrays("SELECT score, opponent, p_start FROM ten_thousand_duel_bounds WHERE rules = ? "
                              "AND goal = ?", (t.variant_name, t.goal))
        S = np.zeros_like(V1)
        S[got["score"] // t.u, got["opponent"] // t.u] = got["p_start"]
        print(f"optimal vs optimal: start {V1[0, 0]:.6f} in {time.perf_counter() - t2:.2f} s; every pair's turn start "
              f"against the stored: max |diff| {max(np.abs(V1 - S).max(), np.abs(V2 - S).max()):.1e}")
        t3, c3 = time.perf_counter(), time.process_time()
        sim = bots.simulate(db, "ten-thousand", ["optimal", "seed004"], rounds=games, seed=1)
        print(f"{games:,} simulated games optimal vs seed004: {sim.seats[0].rate:.4f} [{sim.seats[0].low:.4f}, "
              f"{sim.seats[0].high:.4f}] exact {sim.seats[0].exact:.6f}; {time.perf_counter() - t3:.1f} s wall, "
              f"{time.process_time() - c3:.1f} CPU-s (held rows: {t.held['pwin'].size:,}); peak RSS {rss():.0f} MB")


def rolled_ones_n(url: str, games: int) -> None:
    import resource

    def rss() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    with dicebase.open(url) as db:
        t0, c0 = time.perf_counter(), time.process_time()
        r = bots.tournament(db, "rolled-ones", ["optimal"] * 3)
        stored = [x.p_win for x in db.rolled_ones.seats(3)]
        print(f"## Great Rolled Ones ({r.variant}), 3 players\noptimal x 3 (first call: reads the tables, every "
              f"seat's decisions): {[round(x.p_win, 6) for x in r.seats]} in {time.perf_counter() - t0:.1f} s wall, "
              f"{time.process_time() - c0:.1f} CPU-s; against the stored seats "
              f"{max(abs(x.p_win - y) for x, y in zip(r.seats, stored)):.1e}; peak RSS {rss():.0f} MB")
        from dicebase.bots.rolled_ones_n import RolledOnesN

        e = RolledOnesN(db, None, 3)
        t1 = time.perf_counter()
        V = e.values(["optimal"] * 3)
        print(f"every turn start of every tuple against the stored: max |diff| {np.abs(V - e.starts).max():.1e} "
              f"({time.perf_counter() - t1:.1f} s, a second engine)")
        for seating in (["optimal", "fixed-hold-at", "keep-pace-end-race"],
                        ["roll-4-or-5-dice", "simple-ones-cases", "optimal"]):
            t2 = time.perf_counter()
            x = bots.tournament(db, "rolled-ones", seating)
            t3 = time.perf_counter()
            sim = bots.simulate(db, "rolled-ones", seating, rounds=games, seed=1)
            print(f"{' '.join(seating)}: exact {[round(s.p_win, 6) for s in x.seats]} in {t3 - t2:.1f} s; {games:,} "
                  f"games {[round(s.rate, 4) for s in sim.seats]} in {time.perf_counter() - t3:.1f} s, "
                  f"{sim.outside} of 3 outside 95%")
        print(f"peak RSS {rss():.0f} MB")


if __name__ == "__main__":
    main()
