"""Measure build seconds, database size and lookup latency; write BENCHMARKS.md.

    python benchmarks/run.py                 # every game, both stores
    python benchmarks/run.py --games threes  # one game
    python benchmarks/run.py --no-sqlite-for ten_thousand

Figures come from real builds into a scratch directory; nothing here is a test.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(ROOT))


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


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return p50, p99


def time_lookup(fn, db, repeat: int) -> tuple[float, float]:
    fn(db)  # warm: first call compiles statements and fills caches
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn(db)
        samples.append(time.perf_counter() - started)
    return percentiles(samples)


def time_cli(args: list[str], db_path: Path, repeat: int) -> tuple[float, float]:
    exe = Path(sys.executable).with_name("dicebase")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "dicebase"]
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([*command, *args, "--db", str(db_path)], check=True, capture_output=True)
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
    parser.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--note", default="", help="conditions of this run, printed under the header")
    args = parser.parse_args()

    games = [registry.canonical(g) for g in args.games]
    scratch = Path(tempfile.mkdtemp(prefix="dicebase-bench-"))
    lines = [
        "# Benchmarks",
        "",
        f"Measured {date.today().isoformat()} on {machine()}, dicebase {dicebase.__version__}, "
        f"by `python benchmarks/run.py {' '.join(_shown_args(sys.argv[1:]))}`.",
        "",
        "## Build",
        "",
        "| game | store | build s | file MB | rows |",
        "|---|---|---:|---:|---:|",
    ]
    steps_lines = ["", "### Build steps (DuckDB)", "", "| game | step | s |", "|---|---|---:|"]
    table_lines = ["", "### Tables (DuckDB)", "", "| game | table | rows | write s |", "|---|---|---:|---:|"]
    lookup_lines = [
        "",
        "## Lookup latency",
        "",
        f"In-process: {args.repeat} calls after one warm-up call, on an open read-only connection. "
        f"CLI: {args.cli_repeat} runs of the installed `dicebase` command, process start to exit.",
        "",
        "| game | lookup | store | p50 ms | p99 ms |",
        "|---|---|---|---:|---:|",
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
            pipeline.build([game], f"{store}:///{path}", quiet=True)
            seconds = time.perf_counter() - started
            paths[(game, store)] = path
            with dicebase.open(f"{store}:///{path}") as db:
                info = db.info()
            rows = sum(t["rows"] for t in info["tables"] if t["game"] == game)
            lines.append(f"| {game} | {store} | {seconds:.2f} | {path.stat().st_size / 1e6:.1f} | {rows:,} |")
            measured[f"build {game} {store}"] = seconds
            measured[f"size {game} {store}"] = path.stat().st_size / 1e6
            if store == "duckdb":
                measured[f"steps {game}"] = sum(
                    s["seconds"] for s in info["steps"] if s["game"] == game and "write" not in s["step"]
                )
            print(lines[-1], flush=True)
            if store == "duckdb":
                steps_lines += [f"| {game} | {s['step']} | {s['seconds']:.2f} |" for s in info["steps"] if s["game"] == game]
                table_lines += [
                    f"| {game} | {t['table']} | {t['rows']:,} | {t['write_seconds']:.2f} |"
                    for t in info["tables"]
                    if t["game"] == game
                ]
    for game in games:
        module = __import__(f"dicebase.query.{game}", fromlist=["BENCH_LOOKUPS"])
        for label, fn in getattr(module, "BENCH_LOOKUPS", []):
            for store in ("duckdb", "sqlite"):
                if (game, store) not in paths:
                    continue
                with dicebase.open(f"{store}:///{paths[(game, store)]}") as db:
                    p50, p99 = time_lookup(fn, db, args.repeat)
                lookup_lines.append(f"| {game} | `{label}` | {store} in-process | {p50 * 1e3:.3f} | {p99 * 1e3:.3f} |")
                if " best" in f" {label}":  # the probe: one state, every action ranked
                    key = f"lookup {game} {store}"
                    measured[key] = max(measured.get(key, 0.0), p50 * 1e3)
                print(lookup_lines[-1], flush=True)
        for cli_args in getattr(module, "BENCH_CLI", []):
            p50, p99 = time_cli(cli_args, paths[(game, "duckdb")], args.cli_repeat)
            lookup_lines.append(f"| {game} | `dicebase {' '.join(cli_args)}` | duckdb CLI end to end | {p50 * 1e3:.1f} | {p99 * 1e3:.1f} |")
            if cli_args[:2] == [game.replace("_", "-"), "best"]:
                measured[f"cli {game}"] = max(measured.get(f"cli {game}", 0.0), p50)
            print(lookup_lines[-1], flush=True)
    extra = []
    scaling = ROOT / "benchmarks" / "ten_thousand_scaling.py"
    if "ten_thousand" in games and scaling.exists():
        result = subprocess.run([sys.executable, str(scaling)], check=True, capture_output=True, text=True)
        extra = ["", "## 10,000: two-player solve by goal", "", result.stdout.strip()]
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
