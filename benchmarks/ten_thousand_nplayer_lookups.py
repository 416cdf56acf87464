"""N-player 10,000 lookup latency (issue 21): ``n.state``/``n.best`` in process and ``dicebase ten-thousand
state --scores ...`` end to end, next to the two-player ``state`` on the same file.

    python benchmarks/ten_thousand_nplayer_lookups.py --db db/n3.duckdb
    python benchmarks/ten_thousand_nplayer_lookups.py --db db/n3.duckdb --code /tmp/before   # an older checkout

The file needs an N-player block (``dicebase build ten-thousand -o ten-thousand.goal=1000 -o
'ten-thousand.players=[3]'``, docs/n_players.md).  In process, p50 / p99 over ``--states`` random states of
the largest block (fixed ``--seed``), each kind on one connection:

- "first on a connection": a new connection's first lookup (it finds the blocks, reads the roll groups);
- "new tuple": a state of a (scores, seat) not asked before on a warm connection: the turn is computed;
- "same turn": another state of a turn asked before on the connection (a later total, as a game goes on);
- "best, new tuple": ``n.best`` of a roll at a new (scores, seat);
- "final turn, new": a final-turn state (a seat at or above the goal) not asked before;
- "repeat": the same lookup again.

Each in wall-clock and CPU seconds of this process (on a shared, oversubscribed machine the CPU seconds are the
steadier figure).
CLI: process start to exit, p50 / p99 of ``--cli-runs`` runs, the N-player ``state`` and the two-player
``state`` of the same file.  The machine is shared: the load average is printed with the figures.  Nothing here
is a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

from run import CODE, machine, percentiles, time_cli  # run.py reads --code from sys.argv as well

#: Pre-roll states (turn total points, dice, standing triple) a turn reaches, some early, some late.
STATES = [(0, 6, 0), (50, 5, 0), (300, 3, 0), (350, 5, 0), (600, 2, 0), (450, 3, 2), (1200, 1, 4), (900, 4, 0),
          (1500, 6, 0), (2000, 1, 0)]
ROLLS = [[1, 5, 5, 2, 3, 4], [2, 2, 2, 3, 4, 6], [1, 1, 3, 4, 6, 6], [5, 3, 4], [1, 2], [6, 6, 6, 1, 5, 2]]


def _ms(samples: list[tuple[float, float]]) -> str:
    """p50 / p99 of the wall-clock and of the CPU seconds (this process's), in ms."""
    wall, cpu = percentiles([w for w, _ in samples]), percentiles([c for _, c in samples])
    return f"{1000 * wall[0]:.1f} / {1000 * wall[1]:.1f} ms | {1000 * cpu[0]:.1f} / {1000 * cpu[1]:.1f} ms"


def _timed(fn) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of ``fn()``: on a shared machine the CPU seconds are the steadier figure."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--code", type=Path, help="measure the dicebase of this checkout (run.py)")
    ap.add_argument("--states", type=int, default=40)
    ap.add_argument("--cli-runs", type=int, default=9)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args(argv)

    import dicebase
    from dicebase.query.base import BadInput, NotInDatabase

    path = args.db.resolve()
    with dicebase.open(path) as db:
        rules, goal, players = db.fetchone("SELECT rules, goal, players FROM ten_thousand_players "
                                           "ORDER BY players DESC, goal DESC LIMIT 1")
    unit = 50
    G = goal // unit
    rnd = random.Random(args.seed)
    tuples = set()

    def new_tuple(final: bool = False):
        while True:
            scores = [rnd.randrange(G) * unit for _ in range(players)]
            seat = rnd.randrange(players)
            if final:
                lead = rnd.choice([s for s in range(players) if s != seat])
                scores[lead] = goal + rnd.randrange(0, 10) * unit
            if (tuple(scores), seat) not in tuples:
                tuples.add((tuple(scores), seat))
                return scores, seat + 1

    def answer(fn) -> tuple[float, float] | None:
        try:
            return _timed(fn)
        except (BadInput, NotInDatabase):
            return None

    rows = []
    # first lookup on a new connection
    first = []
    for _ in range(min(5, args.states)):
        scores, seat = new_tuple()
        with dicebase.open(path) as db:
            first.append(_timed(lambda: db.ten_thousand.n.state(scores, seat, 0, 6, 0, rules=rules)))
    rows.append(("first on a connection (turn start)", first))
    with dicebase.open(path) as db:
        q = db.ten_thousand
        q.n.state([0] * players, 1, 0, 6, 0, rules=rules)  # warm: blocks found, roll groups read
        new, same, best, final, repeat = [], [], [], [], []
        while len(new) < args.states:
            scores, seat = new_tuple()
            k, n, t = rnd.choice(STATES)
            got = answer(lambda: q.n.state(scores, seat, k, n, t, rules=rules))
            if got is None:
                continue
            new.append(got)
            for k2, n2, t2 in rnd.sample(STATES, 3):
                if k2 >= k:
                    got = answer(lambda: q.n.state(scores, seat, k2, n2, t2, rules=rules))
                    if got is not None:
                        same.append(got)
            repeat.append(_timed(lambda: q.n.state(scores, seat, k, n, t, rules=rules)))
        while len(best) < args.states:
            scores, seat = new_tuple()
            roll, k = rnd.choice(ROLLS), rnd.randrange(0, 20) * unit
            got = answer(lambda: q.n.best(roll, scores, seat, k, rules=rules))
            if got is not None:
                best.append(got)
        while len(final) < args.states:
            scores, seat = new_tuple(final=True)
            k, n, t = rnd.choice(STATES)
            got = answer(lambda: q.n.state(scores, seat, k, n, t, rules=rules))
            if got is not None:
                final.append(got)
    rows += [("new tuple (n.state)", new), ("same turn, another total", same), ("n.best, new tuple", best),
             ("final turn, new (n.state)", final), ("repeat", repeat)]

    scores = ",".join(str(s * unit) for s in (6, 9, 0, 3)[:players])
    cli_n = time_cli(["ten-thousand", "state", "--scores", scores, "--player", "1", "--turn-total", "300",
                      "--dice", "3", "--rules", rules], path, args.cli_runs)
    cli_2 = time_cli(["ten-thousand", "state", "--score", "300", "--opponent", "450", "--turn-total", "300",
                      "--dice", "3", "--rules", rules], path, args.cli_runs)

    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"code: {CODE}; file: {path.name} ({rules}, goal {goal}, {players} players); {machine()}; "
          f"load average {load}")
    print("| lookup | wall p50 / p99 | CPU p50 / p99 |\n|---|---|---|")
    for label, samples in rows:
        print(f"| {label} ({len(samples)}) | {_ms(samples)} |")
    print(f"| CLI `state --scores {scores} --player 1 --turn-total 300 --dice 3` ({args.cli_runs}) | "
          f"{cli_n[0]:.2f} / {cli_n[1]:.2f} s | |")
    print(f"| CLI two-player `state --score 300 --opponent 450 --turn-total 300 --dice 3` ({args.cli_runs}) | "
          f"{cli_2[0]:.2f} / {cli_2[1]:.2f} s | |")


if __name__ == "__main__":
    sys.exit(main())
