"""Load test of ``dicebase serve`` on 127.0.0.1: requests/s, latency, errors, cache hits, server memory.

    python benchmarks/serve.py                                   # db/dicebase.duckdb and db/dicebase.sqlite
    python benchmarks/serve.py --db db/dicebase.duckdb --seconds 10 --cache on
    python benchmarks/serve.py --out BENCHMARKS.md               # also replace its "Web server" section

The load generator is wrk (``apt-get install wrk``: C, epoll, one thread by
default, so the clients take little of the CPU the server needs), driven by
``serve.lua`` beside this file: ``--clients`` keep-alive connections for
``--seconds`` (wrk stops by itself), each request a path drawn uniformly at
random from a pool of distinct states.  The pool is made from what the served
database holds (``/api/v1/info``: its variants and goals), ``--states``
distinct states per game, so a correct mix gets no 400/404 and the response
cache is honestly exercised: its hit rate is reported (the server's
``X-Cache`` header), and every database is measured with the cache on and off.

For each database, cache setting and workload (``mix``: all three games'
lookups, one third each; ``threes best``: Threes ``best`` alone) a fresh
server is started (``dicebase serve --port 0``), warmed up on a few fixed
states outside the pool, loaded, and stopped with SIGINT.  Only 127.0.0.1 is
ever contacted.  Nothing here is a test.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
LUA = Path(__file__).resolve().parent / "serve.lua"

#: A few fixed lookups (seed examples) for the warm-up: connections, per-thread database twins, DuckDB's caches.
WARM_UP = [
    "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4",
    "/api/v1/threes/seats?players=4",
    "/api/v1/rolled-ones/best?player=1&score=0&opponent=0&turn_total=0&ones=0",
    "/api/v1/ten-thousand/best?dice=1,1,5,2,3,4&turn_total=0",
    "/api/v1/ten-thousand/state?score=0&opponent=0&turn_total=0&dice=6",
    "/api/v1/ten-thousand/odds?dice=6",
]

THREES_WORTH = (1, 2, 0, 4, 5, 6)  # points of faces 1..6 (a 3 is worth 0), as in dicebase.rules


# -- the pool of states: only what the database holds ------------------------------------------
def _path(endpoint: str, params: dict) -> str:
    return f"/api/v1/{endpoint}?" + urlencode({k: v for k, v in params.items() if v is not None}, safe=",")


def threes_best(rng: random.Random, options: dict) -> str:
    """A Threes roll in the middle of a turn: dice kept so far give the score, the rest are rolled."""
    rolled = rng.randint(1, options["dice"])
    kept = options["dice"] - rolled
    players_after = rng.randint(0, options["max_players"] - 1)
    score = sum(rng.choice(THREES_WORTH) for _ in range(kept))
    ties = rng.choice(options["ties"])
    return _path("threes/best", {
        "dice": ",".join(str(rng.randint(1, options["faces"])) for _ in range(rolled)),
        "score": score,
        "players_after": players_after,
        # the last player must know the score to beat (others may have nobody finished yet), and a
        # score to beat that the dice kept already reach (or tie under strict ties) is refused
        "to_beat": rng.randint(score + (ties == "strict"), 30) if players_after == 0 or rng.random() < 0.7 else None,
        "variant": rng.choice(options["variants"]),
        "ties": ties,
    })


def threes_other(rng: random.Random, options: dict) -> str:
    kind = rng.random()
    if kind < 0.5:
        return _path("threes/seats", {"players": rng.randint(2, options["max_players"]),
                                      "variant": rng.choice(options["variants"]), "ties": rng.choice(options["ties"])})
    return _path("threes/chances", {"dice": rng.randint(1, options["dice"]), "variant": rng.choice(options["variants"]),
                                    "ties": rng.choice(options["ties"])})


def rolled_ones(rng: random.Random, options: dict) -> str:
    """A Rolled Ones position: both scores below the goal, a turn reached by a few rolls (each roll that
    does not end the turn adds ``dice - ones`` points, ``ones`` the 1s set aside after it)."""
    goal, dice = options["goal"], options["dice"]
    player, score = rng.randint(1, 2), rng.randint(0, goal - 1)
    bound = options["turn_total_bound"] if player == 1 else min(options["turn_total_bound"], goal - 1 + dice - score)
    turn_total = ones = 0
    for _ in range(rng.randint(0, 10)):
        more = min(options["ones_limit"] - 1, ones + (rng.random() < 0.25))
        if turn_total + dice - more > bound:
            break
        ones = more
        turn_total += dice - ones
    params = {"player": player, "score": score, "opponent": rng.randint(0, goal - 1),
              "turn_total": turn_total, "ones": ones}
    if rng.random() < 0.25:
        return _path("rolled-ones/policy", {"name": rng.choice(["fixed-hold-at", "simple-ones-cases"]), **params})
    return _path("rolled-ones/best", params)


def ten_thousand(rng: random.Random, options: dict) -> str:
    """A 10,000 position of the two-player game (scores below the goal, multiples of 50)."""
    units = options["goal"] // 50
    score, opponent = 50 * rng.randrange(units), 50 * rng.randrange(units)
    dice = rng.randint(1, 6)
    # a turn reaches n < 6 dice having scored at least 50 points a die set aside (six again: hot dice)
    turn_total = 0 if dice == 6 and rng.random() < 0.5 else 50 * rng.randint(6 if dice == 6 else 6 - dice, 30)
    rules = rng.choice(options["duel_rules"])
    if rng.random() < 0.5:
        return _path("ten-thousand/state", {"score": score, "opponent": opponent, "turn_total": turn_total,
                                            "dice": dice, "rules": rules})
    roll = ",".join(str(rng.randint(1, 6)) for _ in range(dice))
    return _path("ten-thousand/best", {"dice": roll, "turn_total": turn_total, "score": score,
                                       "opponent": opponent, "rules": rules})


def pool(info: dict, workload: str, states: int, seed: int) -> list[str]:
    """``states`` distinct paths per game (fewer where the game has fewer), shuffled."""
    rng = random.Random(seed)
    options = {g["game"]: g["options"] for g in info["games"]}
    needed = {"threes"} if workload == "threes best" else {"threes", "rolled_ones", "ten_thousand"}
    if missing := sorted(needed - options.keys()):
        raise SystemExit(f"serve.py: the database holds no {', '.join(missing)}; "
                         f"the '{workload}' workload needs {', '.join(sorted(needed))}")
    if workload == "threes best":
        makers = [lambda: threes_best(rng, options["threes"])]
    else:
        makers = [
            lambda: threes_best(rng, options["threes"]) if rng.random() < 0.8 else threes_other(rng, options["threes"]),
            lambda: rolled_ones(rng, options["rolled_ones"]),
            lambda: ten_thousand(rng, options["ten_thousand"]),
        ]
    paths: list[str] = []
    for make in makers:
        found: set[str] = set()
        for _ in range(states * 20):
            if len(found) >= states:
                break
            found.add(make())
        paths.extend(sorted(found))
    rng.shuffle(paths)
    return paths


# -- the server ----------------------------------------------------------------------------------
def rss_mb(pid: int) -> float:
    """Resident memory of the server: the process and its worker processes."""
    total = 0
    pids = [pid]
    while pids:
        p = pids.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
        pids.extend(int(c) for c in children)
    return total / 1024


def start_server(db: str, workers: int | None, cache: bool) -> tuple[subprocess.Popen, int]:
    argv = [sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", db]
    if workers:
        argv += ["--workers", str(workers)]
    if not cache:
        argv += ["--cache-mb", "0"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stdout.readline()
    if " at http://" not in line:
        raise SystemExit(f"dicebase serve did not start: {line}{proc.stderr.read()}")
    return proc, int(line.split(" at http://")[1].split("/")[0].rsplit(":", 1)[1])


def get(port: int, path: str) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as reply:
        return reply.read()


def wrk(port: int, paths_file: Path, clients: int, threads: int, seconds: float, server_pid: int) -> dict:
    """One wrk run; its Lua ``done`` prints one JSON line with the counts and percentiles.

    The server's memory is sampled a third of the way through (``rss_third``), when its caches
    (DuckDB's buffer pool, the response cache) have filled, so start → third → end shows whether
    it keeps growing."""
    argv = ["wrk", f"-t{threads}", f"-c{clients}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(LUA),
            f"http://127.0.0.1:{port}", "--", str(paths_file)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.wait(timeout=seconds / 3)
    except subprocess.TimeoutExpired:
        pass
    rss_third = rss_mb(server_pid)
    try:
        stdout, stderr = proc.communicate(timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("wrk did not stop by itself") from None
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"wrk failed ({proc.returncode}): {stderr.strip() or stdout.strip()}")
    return {**json.loads(lines[-1]), "rss_third": rss_third}


def measure(db: str, workload: str, cache: bool, args) -> dict:
    proc, port = start_server(db, args.workers, cache)
    try:
        info = json.loads(get(port, "/api/v1/info"))
        paths = pool(info, workload, args.states, args.seed)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(paths) + "\n")
        for _ in range(3):
            for path in WARM_UP:
                get(port, path)
        before = rss_mb(proc.pid)
        result = wrk(port, Path(f.name), args.clients, args.threads, args.seconds, proc.pid)
        after = rss_mb(proc.pid)
        os.unlink(f.name)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    seconds = result["duration_us"] / 1e6
    return {"db": db, "workload": workload, "cache": cache, "distinct": len(paths), "requests": result["requests"],
            "rps": result["requests"] / seconds, "p50": result["p50_us"] / 1000, "p99": result["p99_us"] / 1000,
            "max": result["max_us"] / 1000, "status_4xx": result["status_4xx"], "status_5xx": result["status_5xx"],
            "transport": result["transport_errors"], "hits": result["hits"], "misses": result["misses"],
            "rss_start": before, "rss_third": result["rss_third"], "rss_end": after}


# -- the report ----------------------------------------------------------------------------------
HEADER = ("| database | workload | cache | distinct states | requests | requests/s | p50 ms | p99 ms | "
          "4xx | 5xx | transport errors | cache hits | server RSS MB start → 1/3 → end |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def _row(r: dict) -> str:
    answered = r["hits"] + r["misses"]
    hits = f"{100 * r['hits'] / answered:.0f}%" if r["cache"] and answered else "off"
    return (f"| `{r['db']}` | {r['workload']} | {'on' if r['cache'] else 'off'} | {r['distinct']:,} | "
            f"{r['requests']:,} | {r['rps']:,.0f} | {r['p50']:.1f} | {r['p99']:.1f} | {r['status_4xx']} | "
            f"{r['status_5xx']} | {r['transport']} | {hits} | {r['rss_start']:.0f} → {r['rss_third']:.0f} → "
            f"{r['rss_end']:.0f} |")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def section(rows: list[dict], args, command: str) -> str:
    lines = [
        f"### Web server (`{command}`; {date.today().isoformat()}, {machine()})",
        "",
        f"wrk with {args.clients} keep-alive connections on 127.0.0.1 for {args.seconds:g} s per run (wrk and "
        f"the server share the machine). Each request is drawn at random from a pool of up to {args.states:,} "
        "distinct states per game, made from what the database holds: `mix` is one third each of Threes "
        "(mostly `best`), Rolled Ones (`best`, `policy`) and the two-player 10,000 (`best`, `state`); "
        "`threes best` is Threes `best` alone. 4xx must be 0 (every state is in the database); 5xx and "
        "transport errors are server faults. Cache hits: the share of answers from the server's response "
        "cache (`--cache-mb 0` turns it off). Targets (issue 9): at least 500 requests/s for Threes `best` "
        "on SQLite, p99 under 100 ms on both stores, 0 errors, server memory flat. Server RSS counts every "
        "server process; it is sampled at the start, a third of the way through and at the end.",
        "",
    ]
    if args.note:
        lines += [args.note, ""]
    lines += [HEADER, *(_row(r) for r in rows), ""]
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace the first "## Web server" or "### Web server" section of ``path`` (up to the next
    heading of its level or above), or append ``text``."""
    old = path.read_text().splitlines() if path.exists() else ["# Benchmarks"]
    start = next((i for i, line in enumerate(old) if re.match(r"#{2,3} Web server", line)), None)
    if start is None:
        new = old + [""] + text.splitlines()
    else:
        level = len(old[start]) - len(old[start].lstrip("#"))
        end = next((i for i in range(start + 1, len(old))
                    if re.match(r"#{1,%d} " % level, old[i])), len(old))
        new = old[:start] + text.splitlines() + old[end:]
    path.write_text("\n".join(new).rstrip("\n") + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", help="database file or URL (repeatable); "
                        "default: db/dicebase.duckdb and db/dicebase.sqlite where present")
    parser.add_argument("--clients", type=int, default=50, help="concurrent keep-alive connections")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each run")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (each drives clients/threads connections)")
    parser.add_argument("--workers", type=int, help="dicebase serve --workers (default: the server's own default)")
    parser.add_argument("--cache", choices=("both", "on", "off"), default="both", help="response cache setting(s)")
    parser.add_argument("--workload", choices=("both", "mix", "threes best"), default="both")
    parser.add_argument("--states", type=int, default=3000, help="distinct states per game in the pool")
    parser.add_argument("--seed", type=int, default=9, help="seed of the pool")
    parser.add_argument("--out", help="also write the results as the 'Web server' section of this file")
    parser.add_argument("--note", default="", help="a line printed above the table (e.g. 'measured under load')")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("benchmarks/serve.py needs wrk, the HTTP load generator: apt-get install wrk")
    dbs = args.db or [str(p.relative_to(ROOT)) for p in (ROOT / "db/dicebase.duckdb", ROOT / "db/dicebase.sqlite")
                      if p.exists()]
    if not dbs:
        raise SystemExit("no database: build one with `dicebase build` (and `dicebase export --format sqlite "
                         "--out db/dicebase.sqlite`), or give --db")
    caches = {"both": (True, False), "on": (True,), "off": (False,)}[args.cache]
    workloads = ("mix", "threes best") if args.workload == "both" else (args.workload,)
    print(HEADER, flush=True)
    rows = []
    for db in dbs:
        for cache in caches:
            for workload in workloads:
                rows.append(measure(db, workload, cache, args))
                print(_row(rows[-1]), flush=True)
                time.sleep(1)
    if args.out:
        command = "python " + " ".join(["benchmarks/serve.py", *sys.argv[1:]])
        write_section(Path(args.out), section(rows, args, command))
        print(f"wrote the 'Web server' section of {args.out}")


if __name__ == "__main__":
    main()
