"""Lookup latency of ``dicebase serve`` alone and while someone floods the expensive endpoints (issue 34, item 1).

    python benchmarks/serve_flood.py                          # db/dicebase.duckdb, 30 s a phase
    python benchmarks/serve_flood.py --db db/dicebase.duckdb --lookups 1000 --flooders 4 --timeout 10

One server process (``dicebase serve --workers 1 --cache-mb 0``: every lookup runs its query, no
answer comes from the response cache) on a free port of 127.0.0.1.  A client thread asks
``--lookups`` Threes ``best`` lookups (random rolls, scores to beat and players after), one after
another, for at least ``--seconds``, and records each one's latency:

1. ``alone``: nothing else runs;
2. ``flood``: meanwhile ``--flooders`` threads each send tournament requests back to back
   (``GET /api/v1/tournament``, rotated Threes lineups of 4 to 8 bots drawn at random, so most are
   distinct and the largest run past ``--timeout``), and count their answers by status.

Before issue 34 a tournament ran in a lookup's thread slot (two per process) until it ended, minutes
for 8 rotated bots, whatever ``--timeout`` said: two in flight and a lookup got no answer in 60 s.
Now they run in the server process's tournament process, one at a time (another is answered 503
"busy" at once), niced, and killed at ``--timeout`` (503).  Prints one table (p50, p95, p99, max
latency in ms; the flood's answers).  Only 127.0.0.1 is contacted.  Nothing here is a test.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREES_BOTS = ["random", "only-3s", "expected", "win", "win-strict"]


def lookup_path(rng: random.Random) -> str:
    dice = ",".join(str(rng.randint(1, 6)) for _ in range(5))
    return f"/api/v1/threes/best?dice={dice}&to_beat={rng.randint(0, 20)}&players_after={rng.randint(1, 4)}"


def tournament_path(rng: random.Random) -> str:
    bots = [rng.choice(THREES_BOTS) for _ in range(rng.randint(4, 8))]
    return f"/api/v1/tournament?game=threes&bots={','.join(bots)}&rotate=true"


def get(port: int, target: str, timeout: float = 120.0) -> tuple[int, float]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", target)
        reply = conn.getresponse()
        reply.read()
        return reply.status, time.perf_counter() - started
    except (OSError, http.client.HTTPException):
        return 0, time.perf_counter() - started  # no answer within the client's timeout
    finally:
        conn.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def lookups(port: int, count: int, seed: int, seconds: float = 0.0) -> tuple[list[float], dict[int, int]]:
    """``count`` lookups, and more until ``seconds`` have passed."""
    rng = random.Random(seed)
    times, statuses = [], {}
    end = time.perf_counter() + seconds
    while len(times) < count or time.perf_counter() < end:
        status, seconds = get(port, lookup_path(rng), timeout=60)
        statuses[status] = statuses.get(status, 0) + 1
        times.append(seconds)
    return times, statuses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default=str(ROOT / "db" / "dicebase.duckdb"))
    parser.add_argument("--lookups", type=int, default=400, help="lookups in each phase (at least)")
    parser.add_argument("--seconds", type=float, default=30.0, help="each phase lasts at least this long")
    parser.add_argument("--flooders", type=int, default=4, help="threads sending tournaments during the flood")
    parser.add_argument("--timeout", type=float, default=10.0, help="the server's --timeout")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--db", args.db, "--port", "0",
                             "--workers", "1", "--cache-mb", "0", "--timeout", str(args.timeout)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
    try:
        line = proc.stdout.readline()
        if " at http://127.0.0.1:" not in line:
            sys.exit(f"the server did not start: {line}{proc.stderr.read()}")
        port = int(line.split(" at http://127.0.0.1:")[1].split("/")[0])
        warm = proc.stdout.readline()  # "loaded the tables into memory ..." (DuckDB) once warm
        print(f"# {warm.strip()}", flush=True)
        lookups(port, 50, args.seed + 99)  # warm-up: connections, the lookup threads' twins
        get(port, "/api/v1/tournament?game=threes&bots=win,only-3s")  # starts the tournament process

        alone, alone_status = lookups(port, args.lookups, args.seed, args.seconds)

        stop = threading.Event()
        flood: dict[int, int] = {}
        lock = threading.Lock()

        def flooder(k: int) -> None:
            rng = random.Random(args.seed * 1000 + k)
            while not stop.is_set():
                status, _ = get(port, tournament_path(rng), timeout=max(60.0, 3 * args.timeout))
                with lock:
                    flood[status] = flood.get(status, 0) + 1

        threads = [threading.Thread(target=flooder, args=(k,), daemon=True) for k in range(args.flooders)]
        for t in threads:
            t.start()
        time.sleep(1.0)  # the flood is on before the first lookup
        started = time.perf_counter()
        flooded, flooded_status = lookups(port, args.lookups, args.seed, args.seconds)
        seconds = time.perf_counter() - started
        stop.set()
        for t in threads:
            t.join(3 * args.timeout + 60)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()

    print(f"# {platform.node()}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"{args.db}; serve --workers 1 --cache-mb 0 --timeout {args.timeout:g}; "
          f"{args.flooders} flooders over {seconds:.0f} s")
    print("| phase | lookups | p50 ms | p95 ms | p99 ms | max ms | lookup answers | tournament answers |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for name, times, statuses, other in (("alone", alone, alone_status, {}), ("flood", flooded, flooded_status, flood)):
        ms = [1000 * t for t in times]
        print(f"| {name} | {len(ms)} | {percentile(ms, 50):.1f} | {percentile(ms, 95):.1f} | "
              f"{percentile(ms, 99):.1f} | {max(ms):.1f} | {json.dumps(statuses)} | {json.dumps(other) if other else '-'} |")


if __name__ == "__main__":
    main()
