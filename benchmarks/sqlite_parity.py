"""Do a DuckDB and a SQLite build of 10,000 answer the same?  Random two-player lookups on both.

    python benchmarks/sqlite_parity.py db/dicebase.duckdb db/dicebase.sqlite [--samples 300]

For the full-size files (issue 12 §3), which CI cannot build: the tests compare the two
stores at small goals.  Draws ``--samples`` random states (seeded) among the stored
two-player rows of the SQLite file, then asks both files ``state`` for each and ``best``
for a random roll of its dice, and compares every ranked action and value exactly.
Prints the store sizes, the lookup counts and any difference; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    import dicebase

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("duckdb", type=Path)
    parser.add_argument("sqlite", type=Path)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    with dicebase.open(f"duckdb:///{args.duckdb}") as d, dicebase.open(f"sqlite:///{args.sqlite}") as s:
        for db, name, path in ((d, "duckdb", args.duckdb), (s, "sqlite", args.sqlite)):
            (rows,) = db.fetchone("SELECT row_count FROM build_tables WHERE table_name = 'ten_thousand_duel'")
            print(f"{name}: {rows:,} two-player rows ({path.stat().st_size / 1e6:,.1f} MB file)")
        # rowid-free sampling: random (score, opponent) pairs, then a random stored row of each
        (goal,) = s.fetchone("SELECT max(goal) FROM ten_thousand_duel_bounds WHERE rules = 'ten-thousand'")
        scores = [v for (v,) in s.fetchall(
            "SELECT DISTINCT score FROM ten_thousand_duel_bounds WHERE rules = 'ten-thousand' AND goal = ?", (goal,))]
        differences = compared = refused = 0
        while compared < args.samples:
            i, j = rng.choice(scores), rng.choice(scores)
            states = s.fetchall(
                "SELECT turn_total, dice, triple FROM ten_thousand_duel WHERE rules = 'ten-thousand' "
                "AND goal = ? AND score = ? AND opponent = ? ORDER BY turn_total, dice, triple", (goal, i, j))
            if not states:
                continue
            k, n, t = rng.choice(states)
            roll = [rng.randint(1, 6) for _ in range(n)]
            for what, ask in (
                ("state", lambda db: _answer(lambda: dataclasses.asdict(db.ten_thousand.state(i, j, k, n, t)))),
                ("best", lambda db: _answer(lambda: db.ten_thousand.best(roll, k, t, i, j).as_dict())),
            ):
                a, b = ask(d), ask(s)
                compared += 1
                refused += isinstance(a, str)
                if a != b:
                    differences += 1
                    print(f"DIFFERENT {what} score={i} opponent={j} turn_total={k} dice={n} triple={t} roll={roll}:\n"
                          f"  duckdb {a}\n  sqlite {b}")
    print(f"{compared} lookups compared ({refused} of them refused alike as unreachable), {differences} different")
    return 1 if differences else 0


def _answer(ask):
    """The lookup's answer, or its refusal (a stored state no turn reaches, a roll that cannot go
    with the standing triple): both stores must refuse alike."""
    from dicebase.query.base import BadInput

    try:
        return ask()
    except BadInput as exc:
        return f"BadInput: {exc}"


if __name__ == "__main__":
    sys.exit(main())
