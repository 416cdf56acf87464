"""Measure build seconds, database size, lookup latency and seconds per figure, as one Markdown report.

    python benchmarks/run.py --out /tmp/run.md   # every game, both stores
    python benchmarks/run.py --games threes  # one game
    python benchmarks/run.py --no-sqlite-for ten_thousand
    python benchmarks/run.py --threads 1        # build on one thread (default: every core)

Before and after (issue 12): measure an older checkout with this script, then this one:

    git worktree add /tmp/before <commit>
    python benchmarks/run.py --code /tmp/before --json-out /tmp/before.json --out /tmp/before.md
    python benchmarks/run.py --before /tmp/before.json

The report goes to --out, whose default is BENCHMARKS.md: that replaces the whole record, so
write it elsewhere and copy the rows that changed into BENCHMARKS.md's tables (one table per
figure, the latest value with its run and command).  Figures come from real builds into a
scratch directory; nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = ROOT  # the checkout whose dicebase is measured (--code)
if "--code" in sys.argv[1:-1]:
    CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
sys.path.insert(0, str(CODE))


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}, {platform.system()}"


def _shown_args(argv: list[str]) -> list[str]:
    """The command-line arguments as shown in the report (the --note text is printed on its own)."""
    shown, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--note":
            skip = True
        elif not arg.startswith("--note="):
            shown.append(arg)
    return shown


def _threads(threads: int | None) -> int:
    import numba

    return threads or numba.config.NUMBA_NUM_THREADS


def _before(before: dict, key: str, fmt: str) -> str:
    """A ' before |' cell (empty without --before; '-' where the older run lacks the figure)."""
    if not before:
        return ""
    return f" {fmt.format(before[key])} |" if key in before else " - |"


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return p50, p99


def time_lookup(fn, db, repeat: int, uncached: bool = False) -> tuple[float, float]:
    """p50, p99 seconds of ``fn(db)`` after one warm-up call; ``uncached``: first drop what the
    connection remembers of its reads (``forget_reads``; a checkout without it remembers nothing)."""
    forget = getattr(db, "forget_reads", None) if uncached else None
    fn(db)  # warm: first call compiles statements and fills caches
    samples = []
    for _ in range(repeat):
        if forget is not None:
            forget()
        started = time.perf_counter()
        fn(db)
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


_COMPILED: set[Path] = set()


def compile_bytecode(code: Path) -> None:
    """Write the measured checkout's .pyc files once, as pip install or any first run does: with
    PYTHONDONTWRITEBYTECODE=1 in the environment every CLI run would compile every dicebase
    module from source again (about 15 ms of CPU)."""
    if code not in _COMPILED:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "dicebase")], check=True,
                       capture_output=True)
        _COMPILED.add(code)


def time_cli(args: list[str], db_path: Path, repeat: int) -> tuple[float, float]:
    compile_bytecode(CODE)
    exe = Path(sys.executable).with_name("dicebase")
    command = [str(exe)] if exe.exists() and CODE == ROOT else [sys.executable, "-m", "dicebase"]
    env = {**os.environ, "PYTHONPATH": str(CODE)} if CODE != ROOT else None
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        # cwd=CODE: `python -m dicebase` puts the working directory first on sys.path
        subprocess.run([*command, *args, "--db", str(db_path)], check=True, capture_output=True, env=env, cwd=CODE)
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


TARGETS = [
    # (issue, what, key in measured, target, unit)
    (2, "full Threes build (both variants, both tie rules, 12 players), DuckDB", "build threes duckdb", 10.0, "s"),
    (2, "Threes `best` lookup p50 in-process, SQLite (slowest of the best lookups)", "lookup threes sqlite", 0.2, "ms"),
    (2, "Threes `best` lookup p50 in-process, DuckDB (slowest of the best lookups)", "lookup threes duckdb", 2.0, "ms"),
    (2, "`dicebase threes best ...` end to end, p50", "cli threes", 0.5, "s"),
    (3, "Great Rolled Ones optimal solve + four policy evaluations", "steps rolled_ones", 5.0, "s"),
    (4, "whole default 10,000 build, DuckDB", "build ten_thousand duckdb", 600.0, "s"),
    (4, "10,000 database file, DuckDB", "size ten_thousand duckdb", 1000.0, "MB"),
    (12, "whole default build (every game), DuckDB", "build all duckdb", 120.0, "s"),
    (12, "every lookup p50 in-process, DuckDB (slowest)", "lookup-all duckdb", 1.0, "ms"),
    (12, "every lookup p50 in-process, SQLite (slowest)", "lookup-all sqlite", 0.1, "ms"),
    (12, "first lookup of a new state p50 in-process, DuckDB (slowest kind)", "lookup-new duckdb", 1.0, "ms"),
    (12, "first lookup of a new state p50 in-process, SQLite (slowest kind)", "lookup-new sqlite", 0.1, "ms"),
    (12, "every CLI lookup end to end p50, DuckDB (slowest)", "cli-all duckdb", 0.25, "s"),
    (12, "every CLI lookup end to end p50, SQLite (slowest)", "cli-all sqlite", 0.12, "s"),
]


def targets(measured: dict[str, float]) -> list[str]:
    out = ["", "## Targets", "", "| issue | what | target | measured | met |", "|---|---|---:|---:|---|"]
    for issue, what, key, limit, unit in TARGETS:
        if key in measured:
            value = measured[key]
            out.append(f"| #{issue} | {what} | < {limit:g} {unit} | {value:.3g} {unit} | {'yes' if value < limit else 'NO'} |")
    return out


def main() -> None:
    import dicebase
    from dicebase.builder import pipeline, registry

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(registry.GAMES))
    parser.add_argument("--no-sqlite-for", nargs="*", default=[], help="games not built into SQLite (size/time)")
    parser.add_argument("--repeat", type=int, default=2000, help="in-process lookups per measurement")
    parser.add_argument("--cli-repeat", type=int, default=15)
    parser.add_argument("--states", type=int, default=300, help="new states timed per lookup kind")
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--note", default="", help="conditions of this run, printed under the header")
    parser.add_argument("--threads", type=int, default=None, help="build threads (default: every core)")
    parser.add_argument("--thread-counts", default=None, metavar="T,T,...",
                        help="thread counts for the two-player solve table (default 1,2,4,8,16 up to the cores)")
    parser.add_argument("--code", default=None, metavar="PATH", help="measure the dicebase of another checkout")
    parser.add_argument("--json-out", default=None, metavar="PATH", help="also write every figure as JSON")
    parser.add_argument("--before", default=None, metavar="PATH",
                        help="JSON written by --json-out from an older checkout: adds a before column")
    args = parser.parse_args()
    before = json.loads(Path(args.before).read_text()) if args.before else {}
    figures: dict[str, float] = {}  # every figure, for --json-out and --before

    games = [registry.canonical(g) for g in args.games]
    scratch = Path(tempfile.mkdtemp(prefix="dicebase-bench-"))
    lines = [
        "# Benchmarks",
        "",
        f"Measured {date.today().isoformat()} on {machine()}, dicebase {dicebase.__version__}, "
        f"by `python benchmarks/run.py {' '.join(_shown_args(sys.argv[1:]))}`"
        f"{'' if args.code else ', build threads: ' + str(_threads(args.threads))}.",
        "",
        "## Build",
        "",
        "| game | store | build s | file MB | rows |" + (" before s | before MB |" if before else ""),
        "|---|---|---:|---:|---:|" + ("---:|---:|" if before else ""),
    ]
    steps_lines = ["", "### Build steps (DuckDB)", "", "| game | step | s |" + (" before s |" if before else ""),
                   "|---|---|---:|" + ("---:|" if before else "")]
    table_lines = ["", "### Tables (DuckDB)", "", "| game | table | rows | write s |", "|---|---|---:|---:|"]
    lookup_lines = [
        "",
        "## Lookup latency",
        "",
        f"In-process: {args.repeat} calls after one warm-up call, on an open read-only connection "
        "(\"uncached\": the connection's remembered reads dropped before each call; the before column "
        "has the older code's one figure, which remembered nothing); \"new state\": "
        f"{args.states} random states per kind, one call each, on a warm connection (benchmarks/states.py). "
        f"CLI: {args.cli_repeat} runs of the installed `dicebase` command, process start to exit, "
        "bytecode compiled.",
        "",
        "| game | lookup | store | p50 ms | p99 ms |" + (" before p50 ms |" if before else ""),
        "|---|---|---|---:|---:|" + ("---:|" if before else ""),
    ]
    if args.note:
        lines[4:4] = [args.note, ""]
    paths: dict[tuple[str, str], Path] = {}
    measured: dict[str, float] = {}  # figures the issues set targets for
    for game in games:
        for store in ("duckdb", "sqlite"):
            if store == "sqlite" and game in args.no_sqlite_for:
                continue
            path = scratch / f"{game}.{store}"
            started = time.perf_counter()
            pipeline.build([game], f"{store}:///{path}", quiet=True,
                           **({"threads": args.threads} if args.threads else {}))
            seconds = time.perf_counter() - started
            paths[(game, store)] = path
            with dicebase.open(f"{store}:///{path}") as db:
                info = db.info()
            rows = sum(t["rows"] for t in info["tables"] if t["game"] == game)
            lines.append(f"| {game} | {store} | {seconds:.2f} | {path.stat().st_size / 1e6:.1f} | {rows:,} |"
                         + _before(before, f"build {game} {store}", "{:.2f}") + _before(before, f"size {game} {store}", "{:.1f}"))
            figures[f"build {game} {store}"] = seconds
            if set(games) == set(registry.GAMES):
                measured[f"build all {store}"] = measured.get(f"build all {store}", 0.0) + seconds
            figures[f"size {game} {store}"] = path.stat().st_size / 1e6
            measured[f"build {game} {store}"] = seconds
            measured[f"size {game} {store}"] = path.stat().st_size / 1e6
            if store == "duckdb":
                measured[f"steps {game}"] = sum(
                    s["seconds"] for s in info["steps"] if s["game"] == game and "write" not in s["step"]
                )
            print(lines[-1], flush=True)
            if store == "duckdb":
                for s in info["steps"]:
                    if s["game"] == game:
                        figures[f"step {game} {s['step']}"] = s["seconds"]
                        steps_lines.append(f"| {game} | {s['step']} | {s['seconds']:.2f} |"
                                           + _before(before, f"step {game} {s['step']}", "{:.2f}"))
                table_lines += [
                    f"| {game} | {t['table']} | {t['rows']:,} | {t['write_seconds']:.2f} |"
                    for t in info["tables"]
                    if t["game"] == game
                ]
    from states import measure

    for (game, store), path in paths.items():
        for (_, label), (n, p50, p99) in measure(f"{store}:///{path}", [game], 12, args.states).items():
            key = f"lookup {game} {label} {store} new state"
            if n:
                figures[key] = p50 * 1e3
                measured[f"lookup-new {store}"] = max(measured.get(f"lookup-new {store}", 0.0), p50 * 1e3)
            lookup_lines.append(f"| {game} | `{label}` ({n} states) | {store} in-process, new state | "
                                f"{p50 * 1e3:.3f} | {p99 * 1e3:.3f} |" + _before(before, key, "{:.3f}"))
            print(lookup_lines[-1], flush=True)
    for game in games:
        from fixtures import CLI, LOOKUPS

        for label, fn in LOOKUPS.get(game, []):
            for store in ("duckdb", "sqlite"):
                if (game, store) not in paths:
                    continue
                with dicebase.open(f"{store}:///{paths[(game, store)]}") as db:
                    p50, p99 = time_lookup(fn, db, args.repeat)
                    cold50, cold99 = time_lookup(fn, db, args.repeat, uncached=True)
                key = f"lookup {game} {label} {store}"
                figures[key] = p50 * 1e3
                figures[key + " uncached"] = cold50 * 1e3
                measured[f"lookup-all {store}"] = max(measured.get(f"lookup-all {store}", 0.0), p50 * 1e3)
                lookup_lines.append(f"| {game} | `{label}` | {store} in-process | {p50 * 1e3:.3f} | {p99 * 1e3:.3f} |"
                                    + _before(before, key, "{:.3f}"))
                lookup_lines.append(f"| {game} | `{label}` | {store} in-process, uncached | {cold50 * 1e3:.3f} | "
                                    f"{cold99 * 1e3:.3f} |" + _before(before, key, "{:.3f}"))
                if " best" in f" {label}":  # the probe: one state, every action ranked
                    key = f"lookup {game} {store}"
                    measured[key] = max(measured.get(key, 0.0), p50 * 1e3)
                print(lookup_lines[-1], flush=True)
        for cli_args in CLI.get(game, []):
            for store in ("duckdb", "sqlite"):
                if (game, store) not in paths:
                    continue
                p50, p99 = time_cli(cli_args, paths[(game, store)], args.cli_repeat)
                key = f"cli {game} {' '.join(cli_args)} {store}"
                figures[key] = p50 * 1e3
                measured[f"cli-all {store}"] = max(measured.get(f"cli-all {store}", 0.0), p50)
                lookup_lines.append(f"| {game} | `dicebase {' '.join(cli_args)}` | {store} CLI end to end | "
                                    f"{p50 * 1e3:.1f} | {p99 * 1e3:.1f} |" + _before(before, key, "{:.1f}"))
                if cli_args[:2] == [game.replace("_", "-"), "best"] and store == "duckdb":
                    measured[f"cli {game}"] = max(measured.get(f"cli {game}", 0.0), p50)
                print(lookup_lines[-1], flush=True)
    extra = []
    scaling = ROOT / "benchmarks" / "ten_thousand_scaling.py"
    if "ten_thousand" in games and scaling.exists() and not args.code:
        result = subprocess.run([sys.executable, str(scaling)], check=True, capture_output=True, text=True)
        extra = ["", "## 10,000: two-player solve by goal", "", result.stdout.strip()]
    threads_script = ROOT / "benchmarks" / "threads.py"
    if "ten_thousand" in games and not args.code:
        counts = ["--threads", args.thread_counts] if args.thread_counts else []
        result = subprocess.run([sys.executable, str(threads_script), *counts], check=True, capture_output=True, text=True)
        extra += ["", "## 10,000: two-player solve by thread count", "", result.stdout.strip()]
    plots_script = ROOT / "benchmarks" / "plots.py"
    duckdb_files = [arg for (game, store), path in paths.items() if store == "duckdb" for arg in ("--db", str(path))]
    if plots_script.exists() and duckdb_files and not args.code:
        result = subprocess.run([sys.executable, str(plots_script), *duckdb_files], check=True, capture_output=True,
                                text=True)
        extra += ["", "## Figures (`dicebase plot`, target < 2 s each)", "", result.stdout.strip()]
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    out = Path(args.out)
    # the "## Web server" section is written by benchmarks/serve.py: keep it
    previous = out.read_text() if out.exists() else ""
    if "\n## Web server" in previous:
        kept = previous[previous.index("\n## Web server") + 1:]
        extra += ["", kept[: kept.find("\n## ", 1) + 1 or None].strip()]
    out.write_text("\n".join(lines + targets(measured) + steps_lines + table_lines + lookup_lines + extra) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
