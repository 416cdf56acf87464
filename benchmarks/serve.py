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

For each database, worker count, cache setting and workload (``mix``: all
three games' lookups, one third each; ``threes best``: Threes ``best`` alone)
a fresh server is started (``dicebase serve --port 0``), waited for until
every server process has said it warmed its database (``dicebase.web.warm``;
the seconds are reported), asked a few fixed states outside the pool, loaded,
and stopped with SIGINT.  Only 127.0.0.1 is ever contacted.  Nothing here is
a test.

Cold and warm.  Every run but one starts with the database file read through
(``cat FILE > /dev/null``), so runs compare like with like.  The first run of
each database starts cold instead: the file's pages are dropped from the
page cache first (``posix_fadvise(DONTNEED)``, this file only), as on a
machine that sat idle (the kernel reclaims page-cache pages nobody touched
for a while), and that row says ``cold`` (``--no-cold`` leaves it out).  Each
row reports the share of the file in the page cache at the start and the
megabytes the server processes read from the disk while starting and during
the load (``read_bytes`` of /proc/PID/io), so a cold run shows where its disk
reads went.
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
import queue
import tempfile
import threading
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


# -- the database file in the operating system's page cache ----------------------------------------
def db_file(db: str) -> Path:
    """The file behind a --db argument (a path or a duckdb:///, sqlite:/// URL)."""
    from dicebase.location import resolve

    path = resolve(db).path
    return path if path.is_absolute() else ROOT / path


def cached_share(path: Path) -> float | None:
    """The share of ``path``'s pages that are in the page cache now (mincore), or None off Linux."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    size = path.stat().st_size
    page = os.sysconf("SC_PAGE_SIZE")
    pages = (size + page - 1) // page
    if not pages:
        return 1.0
    with open(path, "rb") as f:
        addr = libc.mmap(None, size, 1, 1, f.fileno(), 0)  # PROT_READ, MAP_SHARED
        if addr in (None, ctypes.c_void_p(-1).value):
            return None
        try:
            vector = (ctypes.c_ubyte * pages)()
            if libc.mincore(addr, size, vector) != 0:
                return None
            return sum(b & 1 for b in vector) / pages
        finally:
            libc.munmap(addr, size)


def drop_from_page_cache(path: Path) -> None:
    """Make the next reads of ``path`` come from the disk: drop its clean pages from the page cache
    (POSIX_FADV_DONTNEED: this file only, no privileges needed; pages another process maps stay)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def read_through(path: Path) -> None:
    """Read the whole file once, as ``cat FILE > /dev/null`` does: its pages are then in the page cache."""
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            pass


# -- the server ----------------------------------------------------------------------------------
def default_workers() -> int:
    """What ``dicebase serve`` starts without --workers (dicebase.web.server.default_workers)."""
    from dicebase.web.server import default_workers as served

    return served()


def _server_pids(pid: int) -> list[int]:
    """The server process and its worker processes."""
    found, pids = [], [pid]
    while pids:
        p = pids.pop()
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        found.append(p)
        pids.extend(int(c) for c in children)
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of the server: the process and its worker processes."""
    total = 0
    for p in _server_pids(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return total / 1024


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) the server's processes have used so far, or None where unreadable."""
    total = 0
    for p in _server_pids(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


def disk_read_mb(pid: int) -> float | None:
    """Bytes the server's processes have read from the storage device so far (``read_bytes`` of
    /proc/PID/io: page-cache hits do not count), or None where that is not readable."""
    total = 0
    for p in _server_pids(pid):
        try:
            io = Path(f"/proc/{p}/io").read_text()
        except OSError:
            return None
        total += next(int(line.split()[1]) for line in io.splitlines() if line.startswith("read_bytes:"))
    return total / 1e6


def start_server(db: str, workers: int | None, cache: bool) -> tuple[subprocess.Popen, int, float]:
    """A fresh ``dicebase serve``: its process, port, and the seconds until every server process had
    warmed its database (each says so in one line: ``dicebase.web.warm``)."""
    argv = [sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", db]
    if workers:
        argv += ["--workers", str(workers)]
    if not cache:
        argv += ["--cache-mb", "0"]
    started = time.monotonic()
    # Its own process group (so that a server that does not stop is killed whole, its workers
    # included) and Ctrl-C's default action: a shell runs a background job with SIGINT ignored,
    # and Python keeps an ignored SIGINT ignored, so the SIGINT that stops it would do nothing.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    line = proc.stdout.readline()
    if " at http://" not in line:
        raise SystemExit(f"dicebase serve did not start: {line}{proc.stderr.read()}")
    port = int(line.split(" at http://")[1].split("/")[0].rsplit(":", 1)[1])
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(text) for text in proc.stdout], daemon=True).start()
    for _ in range(workers or default_workers()):
        try:
            said = lines.get(timeout=300)
        except queue.Empty:
            raise SystemExit("dicebase serve did not say it had warmed its database within 300 s") from None
        if "warming the database stopped" in said:
            print(said.strip(), file=sys.stderr)
    return proc, port, time.monotonic() - started


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


def measure(db: str, workload: str, cache: bool, start: str, workers: int | None, args) -> dict:
    """One run on a fresh server.  ``start`` is "cold" (the file's pages dropped from the page cache
    before the server starts: the first run after the machine has been idle) or "warm" (the file
    read through first, as after earlier runs)."""
    file = db_file(db)
    if start == "cold":
        drop_from_page_cache(file)
    else:
        read_through(file)
    in_page_cache = cached_share(file)
    proc, port, warm_seconds = start_server(db, workers, cache)
    try:
        info = json.loads(get(port, "/api/v1/info"))
        paths = pool(info, workload, args.states, args.seed)
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(paths) + "\n")
        for _ in range(3):
            for path in WARM_UP:
                get(port, path)
        before = rss_mb(proc.pid)
        read_before = disk_read_mb(proc.pid)
        cpu_before = cpu_seconds(proc.pid)
        result = wrk(port, Path(f.name), args.clients, args.threads, args.seconds, proc.pid)
        after = rss_mb(proc.pid)
        read_after = disk_read_mb(proc.pid)
        cpu_after = cpu_seconds(proc.pid)
        os.unlink(f.name)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the server and its worker processes
            proc.wait()
            print("dicebase serve did not stop within 30 s of SIGINT: killed", file=sys.stderr)
    seconds = result["duration_us"] / 1e6
    return {"db": db, "workload": workload, "cache": cache, "start": start, "in_page_cache": in_page_cache,
            "workers": workers or default_workers(), "warm_seconds": warm_seconds,
            "disk_start": read_before, "disk_run": None if read_before is None else read_after - read_before,
            "distinct": len(paths), "requests": result["requests"],
            "cpu_ms": None if cpu_before is None else 1000 * (cpu_after - cpu_before) / max(1, result["requests"]),
            "rps": result["requests"] / seconds, "p50": result["p50_us"] / 1000, "p99": result["p99_us"] / 1000,
            "max": result["max_us"] / 1000, "status_4xx": result["status_4xx"], "status_5xx": result["status_5xx"],
            "transport": result["transport_errors"], "hits": result["hits"], "misses": result["misses"],
            "rss_start": before, "rss_third": result["rss_third"], "rss_end": after}


# -- the report ----------------------------------------------------------------------------------
HEADER = ("| database | workload | workers | cache | start | file in page cache | warmed after s | disk MB read: start-up, run | "
          "distinct states | requests | requests/s | server CPU ms a request | p50 ms | p99 ms | "
          "4xx | 5xx | transport errors | cache hits | server RSS MB start → 1/3 → end |\n"
          "|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def _row(r: dict) -> str:
    answered = r["hits"] + r["misses"]
    hits = f"{100 * r['hits'] / answered:.0f}%" if r["cache"] and answered else "off"
    share = "?" if r["in_page_cache"] is None else f"{100 * r['in_page_cache']:.0f}%"
    disk = "?" if r["disk_start"] is None else f"{r['disk_start']:.0f}, {r['disk_run']:.0f}"
    cpu = "?" if r["cpu_ms"] is None else f"{r['cpu_ms']:.2f}"
    return (f"| `{r['db']}` | {r['workload']} | {r['workers']} | {'on' if r['cache'] else 'off'} | {r['start']} | {share} | "
            f"{r['warm_seconds']:.1f} | {disk} | "
            f"{r['distinct']:,} | "
            f"{r['requests']:,} | {r['rps']:,.0f} | {cpu} | "
            f"{r['p50']:.1f} | {r['p99']:.1f} | {r['status_4xx']} | "
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
        "server process; it is sampled at the start, a third of the way through and at the end. Start: "
        "`warm` runs begin with the database file read through; the `cold` run (the first of each "
        "database) begins with the file's pages dropped from the page cache, as on a machine that sat "
        "idle. Warmed after: seconds from launching the server until every server process had warmed its "
        "database (DuckDB: its tables loaded into the process's buffer pool; SQLite: the file read into "
        "the page cache). Server CPU ms a request: the CPU time (user + system) of every server process "
        "during the load, divided by the requests answered; unlike requests/s it hardly depends on what "
        "else the machine runs, and the cores divided by it bound the requests/s. Disk MB read: what the server processes read from the disk (/proc/PID/io "
        "`read_bytes`) while starting and warming, and during the load.",
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
    parser.add_argument("--workers", type=int, action="append",
                        help="dicebase serve --workers (default: the server's own default); repeat it to compare "
                        "settings in one invocation")
    parser.add_argument("--cold", action=argparse.BooleanOptionalAction, default=True,
                        help="first run each database once cold: its file's pages dropped from the page cache "
                        "(as after the machine sat idle); every other run starts with the file read through")
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
    args.workers = args.workers or [None]
    caches = {"both": (True, False), "on": (True,), "off": (False,)}[args.cache]
    workloads = ("mix", "threes best") if args.workload == "both" else (args.workload,)
    print(HEADER, flush=True)
    rows = []

    def run(db: str, workers: int | None, workload: str, cache: bool, start: str) -> None:
        rows.append(measure(db, workload, cache, start, workers, args))
        print(_row(rows[-1]), flush=True)
        time.sleep(1)

    for db in dbs:
        if args.cold:  # the first run after the file left the page cache, reported as its own row
            run(db, args.workers[0], workloads[0], caches[0], "cold")
        for workers in args.workers:
            for cache in caches:
                for workload in workloads:
                    run(db, workers, workload, cache, "warm")
    if args.out:
        command = "python " + " ".join(["benchmarks/serve.py", *sys.argv[1:]])
        write_section(Path(args.out), section(rows, args, command))
        print(f"wrote the 'Web server' section of {args.out}")


if __name__ == "__main__":
    main()
