"""Issue 7's acceptance figures: Ctrl-C latency, query overhead of the time limit, verify speed,
games lost by concurrent builds.

    python benchmarks/hardening.py            # prints a Markdown table
    python benchmarks/hardening.py --rounds 20

Builds small databases (threes at max_players 2, exported to SQLite) in a scratch directory;
nothing here is a test (the tests assert the same facts without timing them).
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DICEBASE = [sys.executable, "-m", "dicebase"]
SLOW = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


def run(args: list[str]) -> None:
    subprocess.run([*DICEBASE, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def ctrl_c_seconds(db: str, tries: int = 5) -> float:
    """Worst seconds from SIGINT to exit over ``tries`` runs of a never-ending query."""
    worst = 0.0
    for _ in range(tries):
        proc = subprocess.Popen([*DICEBASE, "sql", SLOW, "--db", db], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(2.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        assert proc.returncode == 130
        worst = max(worst, time.monotonic() - sent)
    return worst


def query_overhead_us(db: str) -> tuple[float, float]:
    """Median microseconds of `SELECT 1` through the Database (worker thread) and on the raw connection."""
    import dicebase

    with dicebase.open(db) as database:
        through, direct = [], []
        for _ in range(3000):
            t = time.perf_counter()
            database.fetchone("SELECT 1")
            through.append(time.perf_counter() - t)
            t = time.perf_counter()
            database._con.execute("SELECT 1").fetchone()
            direct.append(time.perf_counter() - t)
    return statistics.median(through) * 1e6, statistics.median(direct) * 1e6


def verify_seconds(db: str) -> float:
    started = time.perf_counter()
    run(["verify", "--db", db])
    return time.perf_counter() - started


def concurrent_games_lost(scratch: Path, rounds: int) -> int:
    """Two builds of different games into one file at once, ``rounds`` times; games missing afterwards."""
    import dicebase

    lost = 0
    for round_ in range(rounds):
        target = scratch / f"race{round_}.duckdb"
        procs = [subprocess.Popen([*DICEBASE, "build", game, "--db", str(target), "-q", *extra],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                 for game, extra in (("threes", ["-o", "threes.max_players=2"]),
                                     ("ten-thousand", ["-o", "ten-thousand.goal=300"]))]
        for proc in procs:
            assert proc.wait() == 0
        with dicebase.open(target) as db:
            lost += 2 - len(set(db.games()))
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="concurrent-build rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        duck = scratch / "h.duckdb"
        lite = scratch / "h.sqlite"
        run(["build", "threes", "-o", "threes.max_players=2", "--db", str(duck), "-q"])
        run(["export", "--format", "sqlite", "--out", str(lite), "--db", str(duck), "-q"])
        rows = []
        for store, db in (("duckdb", f"duckdb:///{duck}"), ("sqlite", f"sqlite:///{lite}")):
            through, direct = query_overhead_us(db)
            rows.append((store, f"{ctrl_c_seconds(db):.2f}", f"{through:.0f}", f"{direct:.0f}",
                         f"{verify_seconds(db):.2f}"))
        lost = concurrent_games_lost(scratch, args.rounds)
    print("| store | Ctrl-C to exit, worst of 5 (s) | `SELECT 1` through Database (µs) | raw connection (µs) "
          "| `dicebase verify` threes, max_players 2 (s) |")
    print("|---|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nConcurrent builds (threes and ten-thousand into one file at once), {args.rounds} rounds: "
          f"{lost} games lost.")


if __name__ == "__main__":
    main()
