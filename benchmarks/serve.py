"""Load test of ``dicebase serve`` on 127.0.0.1: requests/s, latency, errors, server memory.

    python benchmarks/serve.py                                   # db/dicebase.duckdb and db/dicebase.sqlite
    python benchmarks/serve.py --db db/dicebase.duckdb --seconds 10
    python benchmarks/serve.py --out BENCHMARKS.md               # also replace its "## Web server" section

For each database a real server is started (``dicebase serve --port 0``) and
two workloads run, each for a bounded time with ``--clients`` concurrent
keep-alive clients (threads spread over ``--processes`` processes, stdlib
http.client): ``mix``, lookups from all three games, and ``threes best``
alone.  Every loop stops by itself at its deadline; the server is stopped with
SIGINT at the end.  Only 127.0.0.1 is ever contacted.  Nothing here is a test.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

THREES_BEST = [
    "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4",
    "/api/v1/threes/best?dice=6,5,4,2,1&players_after=3",
    "/api/v1/threes/best?dice=6,5,4&score=2",
    "/api/v1/threes/best?dice=5,5,2,1&score=0&to_beat=6&players_after=1&ties=strict",
]
MIX = THREES_BEST + [
    "/api/v1/threes/seats?players=4",
    "/api/v1/rolled-ones/best?player=1&score=0&opponent=0&turn_total=0&ones=0",
    "/api/v1/rolled-ones/best?player=2&score=30&opponent=41&turn_total=13&ones=1",
    "/api/v1/rolled-ones/policy?name=fixed-hold-at&player=1&score=20&opponent=35&turn_total=22&ones=1",
    "/api/v1/ten-thousand/best?dice=1,1,5,2,3,4&turn_total=0",
    "/api/v1/ten-thousand/best?dice=1,5,5&turn_total=600&score=9000&opponent=9500",
    "/api/v1/ten-thousand/state?score=9000&opponent=9500&turn_total=1500&dice=3",
    "/api/v1/ten-thousand/odds?dice=6",
]
WORKLOADS = {"mix": MIX, "threes best": THREES_BEST}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _client_thread(port: int, paths: list[str], offset: int, deadline: float, out: list) -> None:
    """One client: keep-alive requests in a loop until the deadline; (latency ms, ok) per request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    i = offset
    while time.monotonic() < deadline:
        path = paths[i % len(paths)]
        i += 1
        start = time.perf_counter()
        try:
            conn.request("GET", path)
            reply = conn.getresponse()
            reply.read()
            ok = reply.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        out.append(((time.perf_counter() - start) * 1000, ok))
    conn.close()


def _client_process(port: int, paths: list[str], first: int, threads: int, deadline: float, queue) -> None:
    results: list = []
    workers = [threading.Thread(target=_client_thread, args=(port, paths, first + k, deadline, results))
               for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    queue.put(results)


def load(port: int, paths: list[str], clients: int, processes: int, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    queue = mp.get_context("fork").Queue()
    share = [clients // processes + (1 if k < clients % processes else 0) for k in range(processes)]
    procs = [mp.get_context("fork").Process(target=_client_process,
                                            args=(port, paths, sum(share[:k]), share[k], deadline, queue))
             for k in range(processes) if share[k]]
    started = time.monotonic()
    for p in procs:
        p.start()
    results = [r for _ in procs for r in queue.get()]
    for p in procs:
        p.join()
    elapsed = time.monotonic() - started
    latencies = sorted(ms for ms, _ in results)
    errors = sum(1 for _, ok in results if not ok)

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else float("nan")

    return {"requests": len(results), "rps": len(results) / elapsed, "p50": pct(0.50), "p99": pct(0.99),
            "errors": errors}


def start_server(db: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", db],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stdout.readline()
    if " at http://" not in line:
        raise SystemExit(f"dicebase serve did not start: {line}{proc.stderr.read()}")
    return proc, int(line.split(" at http://")[1].split("/")[0].rsplit(":", 1)[1])


def run(db: str, clients: int, processes: int, seconds: float) -> list[dict]:
    proc, port = start_server(db)
    rows = []
    try:
        load(port, MIX, 4, 1, 2.0)  # warm-up: every thread's connection, caches
        for name, paths in WORKLOADS.items():
            before = rss_mb(proc.pid)
            result = load(port, paths, clients, processes, seconds)
            rows.append({"db": db, "workload": name, "rss_start": before, "rss_end": rss_mb(proc.pid), **result})
            print(_row(rows[-1]), flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    return rows


def _row(r: dict) -> str:
    return (f"| `{r['db']}` | {r['workload']} | {r['requests']:,} | {r['rps']:,.0f} | {r['p50']:.1f} | "
            f"{r['p99']:.1f} | {r['errors']} | {r['rss_start']:.0f} → {r['rss_end']:.0f} |")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


HEADER = ("| database | workload | requests | requests/s | p50 ms | p99 ms | errors | server RSS MB start → end |\n"
          "|---|---|---:|---:|---:|---:|---:|---|")


def section(rows: list[dict], args, note: str) -> str:
    lines = [
        "## Web server",
        "",
        f"### `dicebase serve`, {args.clients} concurrent clients ({date.today().isoformat()}, {machine()})",
        "",
        f"`python benchmarks/serve.py --clients {args.clients} --seconds {args.seconds:g} "
        f"--processes {args.processes}`: {args.clients} concurrent keep-alive clients on 127.0.0.1 for "
        f"{args.seconds:g} s per workload (clients and server share the machine). `mix` cycles through "
        f"{len(MIX)} lookups of all three games, `threes best` through {len(THREES_BEST)} Threes `best` states. "
        "Targets (issue 9): at least 500 requests/s for Threes `best` on SQLite, p99 under 100 ms on both "
        "stores, 0 errors, server memory flat.",
        "",
    ]
    if note:
        lines += [note, ""]
    lines += [HEADER, *(_row(r) for r in rows), ""]
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    """Replace the "## Web server" section of ``path`` (up to the next "## "), or append it."""
    old = path.read_text() if path.exists() else "# Benchmarks\n"
    start = old.find("\n## Web server")
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = old.find("\n## ", start + 1)
        new = old[: start + 1] + text + ("\n" + old[end + 1:] if end >= 0 else "")
    path.write_text(new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", help="database file or URL (repeatable); "
                        "default: db/dicebase.duckdb and db/dicebase.sqlite where present")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=2, help="client processes the clients are spread over")
    parser.add_argument("--out", help="also write the results as the '## Web server' section of this file")
    parser.add_argument("--note", default="", help="a line printed above the table (e.g. 'measured under load')")
    args = parser.parse_args()
    dbs = args.db or [str(p.relative_to(ROOT)) for p in (ROOT / "db/dicebase.duckdb", ROOT / "db/dicebase.sqlite")
                      if p.exists()]
    if not dbs:
        raise SystemExit("no database: build one with `dicebase build` (and `dicebase export --format sqlite "
                         "--out db/dicebase.sqlite`), or give --db")
    print(HEADER, flush=True)
    rows = [row for db in dbs for row in run(db, args.clients, max(1, args.processes), args.seconds)]
    if args.out:
        write_section(Path(args.out), section(rows, args, args.note))
        print(f"wrote the '## Web server' section of {args.out}")


if __name__ == "__main__":
    main()
