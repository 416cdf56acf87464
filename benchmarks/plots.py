"""Seconds per figure of `dicebase plot`, from built databases; prints a markdown table.

    python benchmarks/plots.py                          # db/dicebase.duckdb
    python benchmarks/plots.py --db a.duckdb --db b.duckdb --repeat 5

Each figure (with its first gallery options) is drawn from the first --db that holds its
game.  Columns: the SQL query alone; the whole in-process render to PNG bytes (query,
arrays, drawing, PNG encoding; median of --repeat after one warm-up that imports
matplotlib); and `dicebase plot NAME --out FILE.png` end to end in a fresh process (Python
start, matplotlib import, database open included), median of --cli-repeat runs.  Issue 10's
target: under 2 s a figure on the 2-core machine.  Nothing here is a test.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_S = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", action="append", help="database file(s) (default db/dicebase.duckdb)")
    parser.add_argument("--repeat", type=int, default=3, help="in-process renders per figure (after a warm-up)")
    parser.add_argument("--cli-repeat", type=int, default=3, help="end-to-end CLI runs per figure")
    args = parser.parse_args()

    import dicebase
    from dicebase import plots
    from dicebase.plots.base import fetch
    from dicebase.plots.__main__ import _options

    databases = [dicebase.open(path) for path in (args.db or [str(ROOT / "db" / "dicebase.duckdb")])]
    exe = Path(sys.executable).with_name("dicebase")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "dicebase"]
    scratch = Path(tempfile.mkdtemp(prefix="dicebase-plots-"))
    print("| figure | store | query s | render s (in-process) | `dicebase plot` s (end to end) | < 2 s |")
    print("|---|---|---:|---:|---:|---|")
    for name, spec in plots.FIGURES.items():
        db = next((d for d in databases if spec.game in d.games()), None)
        if db is None:
            print(f"| {name} | - | not built | | | |")
            continue
        extra = spec.gallery[0]
        options = _options(spec, extra)
        opts = spec.resolve(db, spec.check_options(options))
        started = time.perf_counter()
        fetch(db, spec, opts)
        query_s = time.perf_counter() - started
        plots.render(db, name, "png", **options)  # warm-up: imports matplotlib, fills the font cache
        renders = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            plots.render(db, name, "png", **options)
            renders.append(time.perf_counter() - started)
        cli_runs = []
        for _ in range(args.cli_repeat):
            out = scratch / f"{name}.png"
            started = time.perf_counter()
            subprocess.run([*command, "plot", name, *shlex.split(extra), "--out", str(out),
                            "--db", str(db.location.path)], check=True, capture_output=True)
            cli_runs.append(time.perf_counter() - started)
        render_s, cli_s = statistics.median(renders), statistics.median(cli_runs)
        label = f"`{name} {extra}`".replace(" `", "`")
        print(f"| {label} | {db.store} | {query_s:.2f} | {render_s:.2f} | {cli_s:.2f} | "
              f"{'yes' if cli_s < TARGET_S else 'NO'} |", flush=True)
    for db in databases:
        db.close()


if __name__ == "__main__":
    main()
