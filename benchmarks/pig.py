"""Pig (dicebase.builder.pig): build time and size by number of players and goal (issue 31).

    python benchmarks/pig.py [--runs 2:100,3:100,4:30] [--no-policies] [--out FILE]

Each (players, goal) runs in a fresh process: a whole ``dicebase build pig`` of Pig's die at that goal for
two players and for ``players`` (the simple policies' costs for both unless ``--no-policies``) into a
temporary DuckDB file, after a small warm-up build
that compiles (and caches) the kernels outside the timing.  Columns: the build's seconds, the solve's
seconds, score tuples, turn starts, the turn-start array (MB), peak resident memory of the process (MB),
the DuckDB file (MB), tuples whose best responses cycled (of them mixed) and each seat's win probability
at the start.  Prints a markdown table (and writes it with --out).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, resource, sys, time
from dicebase.builder import pipeline
goal, players = int(sys.argv[1]), int(sys.argv[2])
folder = sys.argv[3]
policies = sys.argv[4] == "1"
house = lambda g: {"b": {"goal": g, "faces": 6, "bust_face": 1, "scores": [0, 2, 3, 4, 5, 6]}}
counts = sorted({2, players})
opts = lambda g: {"pig": {"variants": [], "house_rules": house(g), "players": counts,
                          "policy_players": counts if policies else []}}
pipeline.build(["pig"], f"duckdb:///{folder}/warm.duckdb", quiet=True, options=opts(8))  # compile, cache
path = f"{folder}/pig.duckdb"
t = time.perf_counter()
pipeline.build(["pig"], f"duckdb:///{path}", quiet=True, options=opts(goal))
seconds = time.perf_counter() - t
import duckdb
con = duckdb.connect(path, read_only=True)
note = json.loads(con.execute("SELECT notes_json FROM build_games WHERE game = 'pig'").fetchone()[0])[f"b.players{players}"]
con.close()
print(json.dumps({"seconds": seconds, "note": note, "file_mb": os.path.getsize(path) / 1e6,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(players: int, goal: int, policies: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run([sys.executable, "-c", CHILD, str(goal), str(players), folder, str(int(policies))], check=True,
                             capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="2:100,3:100,4:30", help="players:goal, comma separated")
    parser.add_argument("--out", default=None)
    parser.add_argument("--no-policies", action="store_true", help="leave the simple policies' costs out")
    args = parser.parse_args()
    lines = ["| players | goal | build s | solve s | tuples | turn starts | start array MB | peak MB | file MB | "
             "cycle tuples (mixed) | p_win from the start |", "|" + "---|" * 11]
    for item in args.runs.split(","):
        n, g = (int(x) for x in item.split(":"))
        got = run(n, g, not args.no_policies)
        note = got["note"]
        lines.append(f"| {n} | {g} | {got['seconds']:.1f} | {note.get('seconds', float('nan')):.1f} | {g ** n:,} | "
                     f"{n * g ** n:,} | {note.get('bytes_start', 0) / 1e6:.1f} | {got['peak_mb']:.0f} | "
                     f"{got['file_mb']:.1f} | {note.get('cycle_tuples')} ({note.get('mixed_tuples')}) | "
                     + ", ".join(f"{x:.6f}" for x in note.get("p_win_seats", [])) + " |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", str(os.cpu_count() or 1))
    main()
