"""Lookup latency on existing database files: in-process p50/p99 and CLI end to end p50/p99, per store.

    python benchmarks/lookups.py --db db/dicebase.duckdb --db db/dicebase.sqlite

Every game built into a file is measured with its fixtures.LOOKUPS (in-process) and fixtures.CLI
(the `dicebase` command, process start to exit).  In-process figures come three ways:

- "new state": each call asks a state not asked before, on a warm connection (one that has
  answered other states: its small tables are read).  This is the first lookup of a state in
  a server or a script.  The states are random (benchmarks/states.py, fixed --seed), drawn and
  checked on a connection of their own that is closed before the timed one opens, so the
  timed connection has read none of them; --states of them per kind, one call each.
- "new state, warmed": the same, on a connection that first ran ``dicebase serve``'s warm-up
  (dicebase/web/warm.py: on DuckDB the two-player 10,000 table and Great Rolled Ones' states
  held in memory by ``db.ten_thousand.hold()`` and ``db.rolled_ones.hold()``, the other tables
  scanned into the buffer pool): what a server's lookups see.
- "repeat": the same lookup again on one open connection (the connection remembers its reads).
- "uncached": the same lookup after dropping everything the connection remembers, its small
  tables included (``forget_reads``).

A lookup the file cannot answer (a smaller build, e.g. the 10,000 two-player game to 2,000
where the probe asks about 9,000) is listed as n/a.

Before and after (issue 12 §4), on the same machine in the same session: build a database
with the older checkout, measure it with that checkout's code, then this one's:

    git worktree add /tmp/before 74419e1
    (cd /tmp/before && python -m dicebase build --db /tmp/before/db/dicebase.duckdb)
    python benchmarks/lookups.py --code /tmp/before --db /tmp/before/db/dicebase.duckdb --json-out /tmp/before.json
    python benchmarks/lookups.py --db db/dicebase.duckdb --before 74419e1=/tmp/before.json --out /tmp/lookups.md

(add the SQLite files the same way, `--db ...sqlite`; `--before LABEL=PATH` may be repeated, one
column each).  Each file is first read through the page cache (not with --no-preread): a lookup
on a file the kernel has dropped from memory waits for the disk, which is not what is measured.  An older checkout without the memo measures
the same thing as "repeat" and "uncached" (it remembers nothing); "new state" asks it the same
states as this checkout.  Nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path

from run import CODE, machine, time_cli, time_lookup  # run.py reads --code from sys.argv as well
from states import WARM_STATES, measure

from fixtures import CLI, LOOKUPS

GAMES = ("threes", "rolled_ones", "ten_thousand")


def answers(fn, db) -> bool:
    """Whether this database can answer the probe (its build holds the state)."""
    from dicebase.query.base import DicebaseError

    try:
        fn(db)
    except DicebaseError:
        return False
    return True


def commit(checkout: Path) -> str:
    """The short commit id of a checkout (its path would name this machine's directories)."""
    import subprocess

    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def preread(path: Path) -> None:
    """Read ``path`` once, so that its pages are in the operating system's page cache."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def main() -> None:
    import dicebase

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", action="append", required=True, help="a database file (repeat for each store)")
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--repeat", type=int, default=2000, help="in-process lookups per measurement")
    parser.add_argument("--cli-repeat", type=int, default=15, help="CLI runs per command")
    parser.add_argument("--states", type=int, default=300, help="new states timed per lookup kind")
    parser.add_argument("--seed", type=int, default=12, help="seed of the random new states")
    parser.add_argument("--code", default=None, metavar="PATH", help="measure the dicebase of another checkout")
    parser.add_argument("--json-out", default=None, metavar="PATH", help="write every figure as JSON")
    parser.add_argument("--before", action="append", default=[], metavar="[LABEL=]PATH",
                        help="JSON from an older checkout: a column of its p50s, headed LABEL (repeatable)")
    parser.add_argument("--no-preread", action="store_true",
                        help="do not read each file through the page cache before measuring it")
    parser.add_argument("--out", default=None, metavar="PATH", help="write the markdown table here (default: stdout)")
    args = parser.parse_args()
    befores = []
    for spec in args.before:
        label, _, path = spec.rpartition("=")
        befores.append((label or "before", json.loads(Path(path).read_text())))
    figures: dict[str, float] = {}

    def cell(key: str) -> str:
        return "".join(f" {before[key]:.3f} |" if key in before else " - |" for _label, before in befores)

    none = " |" * len(befores)  # the before cells of a row with no figure
    head = "| game | lookup | store | p50 ms | p99 ms |" + "".join(f" {label} p50 ms |" for label, _ in befores)
    rule = "|---|---|---|---:|---:|" + "---:|" * len(befores)
    lines = [
        f"Measured {date.today().isoformat()} on {machine()}, dicebase {dicebase.__version__} at commit {commit(CODE)}, "
        f"by `python benchmarks/lookups.py {' '.join(sys.argv[1:])}`.",
        "",
        f"In-process, on an open read-only connection: \"new state\": {args.states} random states per kind "
        f"(seed {args.seed}), one call each, after {WARM_STATES} other states; \"new state, warmed\": the same "
        "on a connection that first ran `dicebase serve`'s warm-up (DuckDB: the two-player 10,000 table and "
        "Great Rolled Ones' states held in memory by their `hold()`, every other table scanned into the "
        "process's buffer pool; SQLite: the file read through); "
        f"\"repeat\": {args.repeat} calls of one lookup after one warm-up call; \"uncached\": the same, "
        "dropping what the connection remembers before each call. "
        f"CLI: {args.cli_repeat} runs of `dicebase ... --db FILE`, process start to exit, with the checkout's "
        "bytecode compiled (as after pip install or a first run). "
        + ("Each file was read through the operating system's page cache before it was measured, so that "
           "the figures are the lookups', not the disk's." if not args.no_preread else
           "Files were not pre-read (--no-preread): the first reads of each may have gone to the disk."),
        "",
        head,
        rule,
    ]

    def emit(line: str) -> None:
        lines.append(line)
        print(line, file=sys.stderr, flush=True)

    for db_path in args.db:
        store, _, rest = db_path.partition(":///")
        if not rest:  # a plain path: the store by its suffix, as dicebase reads it
            store, rest = ("sqlite" if Path(db_path).suffix in (".sqlite", ".sqlite3", ".db") else "duckdb"), db_path
        path = Path(rest).resolve()
        if not args.no_preread:
            preread(path)
        for mode, warmed in (("new state", False), ("new state, warmed", True)):
            found = measure(f"{store}:///{path}", args.games, args.seed, args.states, warmed=warmed)
            if found is None:  # a checkout without the warm-up
                emit(f"| all | every kind | {store} in-process, {mode} | n/a | n/a |" + none)
                continue
            for (game, label), (n, p50, p99) in found.items():
                if not n:
                    emit(f"| {game} | `{label}` | {store} in-process, {mode} | n/a | n/a |" + none)
                    continue
                key = f"lookup {game} {label} {store} {mode}"
                figures[key] = p50 * 1e3
                emit(f"| {game} | `{label}` ({n} states) | {store} in-process, {mode} | {p50 * 1e3:.3f} | "
                     f"{p99 * 1e3:.3f} |" + cell(key))
        with dicebase.open(f"{store}:///{path}") as db:
            built = set(db.games())
            for game in args.games:
                if game not in built:
                    continue
                for label, fn in LOOKUPS.get(game, []):
                    if not answers(fn, db):
                        emit(f"| {game} | `{label}` | {store} in-process | n/a | n/a |" + none)
                        continue
                    for mode, uncached in (("repeat", False), ("uncached", True)):
                        p50, p99 = time_lookup(fn, db, args.repeat, uncached)
                        key = f"lookup {game} {label} {store}" + ("" if mode == "repeat" else " uncached")
                        figures[key] = p50 * 1e3
                        emit(f"| {game} | `{label}` | {store} in-process, {mode} | {p50 * 1e3:.3f} | {p99 * 1e3:.3f} |"
                             + cell(key))
        for game in args.games:
            if game not in built:
                continue
            for cli_args in CLI.get(game, []):
                try:
                    p50, p99 = time_cli(cli_args, path, args.cli_repeat)
                except Exception:  # the file cannot answer it (a smaller build)
                    emit(f"| {game} | `dicebase {' '.join(cli_args)}` | {store} CLI end to end | n/a | n/a |"
                         + none)
                    continue
                key = f"cli {game} {' '.join(cli_args)} {store}"
                figures[key] = p50 * 1e3
                emit(f"| {game} | `dicebase {' '.join(cli_args)}` | {store} CLI end to end | {p50 * 1e3:.1f} | "
                     f"{p99 * 1e3:.1f} |" + cell(key))
    slowest = {}
    for key, value in figures.items():
        kind = ("cli" if key.startswith("cli") else "lookup uncached" if key.endswith("uncached")
                else "lookup new state" if key.endswith("new state")
                else "lookup new state, warmed" if key.endswith("new state, warmed") else "lookup")
        store = "sqlite" if " sqlite" in key else "duckdb"
        slowest[(kind, store)] = max(slowest.get((kind, store), 0.0), value)
    lines += ["", "| slowest | store | p50 ms | target ms |", "|---|---|---:|---:|"]
    targets = {("lookup", "duckdb"): 1.0, ("lookup", "sqlite"): 0.1, ("lookup new state", "duckdb"): 1.0,
               ("lookup new state", "sqlite"): 0.1, ("lookup new state, warmed", "duckdb"): 1.0,
               ("lookup new state, warmed", "sqlite"): 0.1, ("cli", "duckdb"): 250.0, ("cli", "sqlite"): 120.0}
    for (kind, store), value in sorted(slowest.items()):
        target = targets.get((kind, store))
        lines.append(f"| {kind} | {store} | {value:.3f} | {'' if target is None else f'< {target:g}'} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
