"""Adding one rule set to a built database: wall and CPU seconds, and where they go (issue 34).

    python benchmarks/add_variant.py                          # README's our-table into db/dicebase.duckdb
    python benchmarks/add_variant.py --db db/other.duckdb     # another built file
    python benchmarks/add_variant.py --two-player --goal 500  # a rule set with its two-player game
    python benchmarks/add_variant.py --store sqlite           # the same file exported to SQLite first
    python benchmarks/add_variant.py --code /tmp/before       # an older checkout, for a before/after

The source database is only read: it is copied into a scratch directory, and the copy gets
README's house rules (``dicebase rules ten-thousand farkle``, edited to ``name = "our-table"``
and ``three_pairs = 750``) by ``dicebase build ten-thousand --rules our-table.toml`` in a
fresh process, as a user runs it; then a second rule set (``our-table-2``, three pairs 1000)
the same way.  The first addition finds a copied file (its modification time the copy's), the
second the file the first build wrote, as a user's next addition does.  Each build process
times its parts as they run (each function below is wrapped where it exists, so an older
checkout is measured the same way):

- **solve**: the game's solver for the added rule set (its rows written as it goes);
- **checksums**: reading stored tables to verify or record their checksums (the check that the
  kept rule sets are unchanged, and the checksums of the tables the build writes);
- **copy/rewrite**: starting the new file from the old one (DuckDB's ``COPY FROM DATABASE`` or a
  file copy), removing the rows the build replaces, and the final checkpoint;
- **other**: the rest (start-up, reading the old file's options, metadata, the rename).

Wall seconds of each part, and the CPU seconds of the whole process (its threads included)
spent inside it, which a loaded machine disturbs less.  Prints a markdown table; nothing here
is a test (tests/test_hardening3_variant.py holds the guarantees).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: part -> (module, dotted attribute) of the functions whose calls it covers.
PARTS = {
    "checksums": [
        ("dicebase.checksum", "stored_table_checksum"),
    ],
    "copy/rewrite": [
        ("dicebase.builder.store", "Writer.__init__"),
        ("dicebase.builder.store", "Writer.close"),
        ("dicebase.builder.pipeline", "_forget_variants"),
        ("dicebase.builder.pipeline", "_forget_games"),
        ("dicebase.builder.pipeline", "_start_from"),
    ],
}


def _child(target: str, rules_file: str, report: str) -> None:
    """In the build process: wrap the parts' functions, run ``dicebase build``, write the times."""
    import importlib

    totals: dict[str, list[float]] = {"solve": [0.0, 0.0], "checksums": [0.0, 0.0], "copy/rewrite": [0.0, 0.0]}
    depth = {"n": 0}

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    def timed(part: str, function):
        def wrapper(*args, **kwargs):
            if depth["n"]:  # a part inside another part counts once, for the outer one
                return function(*args, **kwargs)
            depth["n"] += 1
            wall, used = time.perf_counter(), cpu()
            try:
                return function(*args, **kwargs)
            finally:
                totals[part][0] += time.perf_counter() - wall
                totals[part][1] += cpu() - used
                depth["n"] -= 1

        wrapper.__wrapped__ = function
        return wrapper

    def replace_everywhere(original, replacement) -> None:
        for module in list(sys.modules.values()):
            if module is None or not getattr(module, "__name__", "").startswith("dicebase"):
                continue
            for name, value in list(vars(module).items()):
                if value is original:
                    setattr(module, name, replacement)

    import dicebase.builder.pipeline  # noqa: F401  (every module the build uses, loaded)
    from dicebase.builder import registry

    for part, functions in PARTS.items():
        for module_name, dotted in functions:
            module = importlib.import_module(module_name)
            owner, _, name = dotted.rpartition(".")
            holder = getattr(module, owner) if owner else module
            original = getattr(holder, name, None)
            if original is None:
                continue
            wrapped = timed(part, original)
            setattr(holder, name, wrapped)
            if not owner:
                replace_everywhere(original, wrapped)
    game = registry.load("ten_thousand")
    game.build = timed("solve", game.build)

    from dicebase.main import main

    started, used = time.perf_counter(), cpu()
    code = 0
    try:
        main(["build", "ten-thousand", "--db", target, "--rules", rules_file])
    except SystemExit as exc:
        code = exc.code or 0
    result = {"wall": time.perf_counter() - started, "cpu": cpu() - used, "code": code,
              "parts": {part: {"wall": w, "cpu": c} for part, (w, c) in totals.items()}}
    Path(report).write_text(json.dumps(result))


def rules_file(code: Path, directory: Path, two_player: bool, goal: int | None,
               name: str = "our-table", three_pairs: int = 750) -> Path:
    """README's house rules: the farkle preset named our-table with three pairs 750."""
    text = subprocess.run([sys.executable, "-m", "dicebase", "rules", "ten-thousand", "farkle"], check=True,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(code))).stdout
    for old, new in (('name = "farkle"', f'name = "{name}"'), ("three_pairs = 1500", f"three_pairs = {three_pairs}")):
        assert old in text, f"the farkle preset's rules file has no line {old!r}"
        text = text.replace(old, new, 1)
    if two_player:
        text = text.replace("two_player = false", "two_player = true")
    if goal is not None:
        text = text.replace("goal = 10000", f"goal = {goal}")
    path = directory / f"{name}.toml"
    path.write_text(text)
    return path


def run_once(code: Path, source: Path, store: str, scratch: Path, two_player: bool, goal: int | None) -> list[dict]:
    """The two additions, one after the other, on one copy of ``source``."""
    target = scratch / f"dicebase.{store}"
    if store == "duckdb":
        shutil.copyfile(source, target)
    else:  # the same database exported to SQLite (not timed)
        subprocess.run([sys.executable, "-m", "dicebase", "export", "sqlite", "--db", str(source),
                        "--out", str(target), "--quiet"], check=True, env=dict(os.environ, PYTHONPATH=str(code)))
    return [add(code, target, store, scratch, rules_file(code, scratch, two_player, goal, name, pairs))
            for name, pairs in (("our-table", 750), ("our-table-2", 1000))]


def add(code: Path, target: Path, store: str, scratch: Path, house: Path) -> dict:
    report = scratch / "report.json"
    env = dict(os.environ, PYTHONPATH=str(code))
    location = str(target) if store == "duckdb" else f"sqlite:///{target}"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", location, str(house), str(report)],
                   check=True, env=env, cwd=scratch)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(report.read_text())
    if result["code"] != 0:
        raise SystemExit(f"the build failed (exit {result['code']})")
    result["process_wall"] = wall
    result["process_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result["mb"] = target.stat().st_size / 1e6
    return result


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(*argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=ROOT / "db" / "dicebase.duckdb",
                        help="the built DuckDB file to copy (default: db/dicebase.duckdb; only read)")
    parser.add_argument("--store", choices=["duckdb", "sqlite"], default="duckdb")
    parser.add_argument("--two-player", action="store_true", help="the rule set with its two-player game")
    parser.add_argument("--goal", type=int, help="the rule set's goal (default: the preset's 10,000)")
    parser.add_argument("--repeat", type=int, default=1, help="runs; the fastest is shown")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    args = parser.parse_args(argv)

    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="dicebase-add-variant-") as tmp:
            runs.append(run_once(args.code.resolve(), args.db.resolve(), args.store, Path(tmp),
                                 args.two_player, args.goal))
    best = [min((run[i] for run in runs), key=lambda r: r["wall"]) for i in range(2)]
    print(f"adding our-table, then our-table-2 ({'two-player, ' if args.two_player else ''}goal "
          f"{args.goal or 10000}) to a copy of {args.db.name} ({args.store}, {best[0]['mb']:.1f} MB, then "
          f"{best[1]['mb']:.1f} MB after); code {args.code}")
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores\n")
    print("| part | first: wall s | CPU s | next: wall s | CPU s |")
    print("|---|---:|---:|---:|---:|")
    for part in ("solve", "checksums", "copy/rewrite"):
        print(f"| {part} | " + " | ".join(f"{b['parts'][part]['wall']:.2f} | {b['parts'][part]['cpu']:.2f}"
                                          for b in best) + " |")
    print("| other | " + " | ".join(
        f"{b['wall'] - sum(p['wall'] for p in b['parts'].values()):.2f} | "
        f"{b['cpu'] - sum(p['cpu'] for p in b['parts'].values()):.2f}" for b in best) + " |")
    print("| **build command** | " + " | ".join(f"**{b['wall']:.2f}** | **{b['cpu']:.2f}**" for b in best) + " |")
    print("| process (start-up included) | " + " | ".join(
        f"{b['process_wall']:.2f} | {b['process_cpu']:.2f}" for b in best) + " |")


if __name__ == "__main__":
    main()
