"""Server CPU of one cache-miss API request, in-process: the query layer and everything around it.

    python benchmarks/miss_cpu.py                                 # db/dicebase.duckdb and db/dicebase.sqlite
    python benchmarks/miss_cpu.py --db db/dicebase.duckdb --requests 6000

``benchmarks/serve.py`` measures the server as clients see it (sockets,
uvicorn, worker processes); this script takes the sockets and uvicorn away to
show where a miss's CPU goes.  For each database the ASGI application
(``create_app``, response cache off) is called directly:

- ``whole request``: ``--clients`` concurrent tasks on one uvloop event loop
  send the requests, each a distinct state of serve.py's mix (its ``pool``),
  so every one is a miss that runs its lookup on the server's lookup threads;
  CPU time of the process (every thread) per request.
- ``api_body``, ``query layer``, ``the rest``: the same kind of states one at
  a time through ``Server.api_body`` (the lookup thread's work: the click
  command line, the command, the JSON text), with the time spent inside
  ``db.GAME.LOOKUP(...)`` counted apart; the rest is the CLI-contract path
  (arguments, click, the document, JSON encoding).

Nothing here is a test.  Timings depend on the machine and on what else runs
on it: say which when quoting them.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import pool  # noqa: E402  (the same mix of states as the load test)


class _Timed:
    """A game's lookups (``db.threes``...) with the thread time spent inside them added to ``spent[0]``."""

    def __init__(self, lookups, spent: list[float]):
        self._lookups = lookups
        self._spent = spent

    def __getattr__(self, name):
        attr = getattr(self._lookups, name)
        if name.startswith("_") or not callable(attr):
            return attr

        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return attr(*args, **kwargs)
            finally:
                self._spent[0] += time.thread_time() - start

        return timed


def _scope(path: str) -> dict:
    route, _, query = path.partition("?")
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": route, "raw_path": route.encode(), "query_string": query.encode(), "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"accept", b"*/*")],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}


async def _request(app, path: str) -> int:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    await app(_scope(path), receive, send)
    return sent[0]["status"]


async def _whole(app, paths: list[str], clients: int) -> tuple[float, dict]:
    """CPU seconds of the process per request, and the statuses, for ``paths`` sent by ``clients`` tasks."""
    waiting = list(reversed(paths))
    statuses: dict[int, int] = {}

    async def client():
        while waiting:
            status = await _request(app, waiting.pop())
            statuses[status] = statuses.get(status, 0) + 1

    start = time.process_time()
    await asyncio.gather(*(client() for _ in range(clients)))
    return (time.process_time() - start) / len(paths), statuses


def measure(db_url: str, requests: int, clients: int, seed: int) -> dict:
    from dicebase.query import open as open_database
    from dicebase.web.app import create_app

    app = create_app(open_database(db_url), cache_bytes=0)
    server = app.state.server
    mix = pool(server.info, "mix", requests // 3 + 1, seed)
    whole_paths, body_paths = mix[: requests // 2], mix[requests // 2:requests]

    async def run():
        for path in pool(server.info, "mix", 50, seed + 1):  # warm: threads, their database twins
            await _request(app, path)
        return await _whole(app, whole_paths, clients)

    try:
        import uvloop

        whole, statuses = uvloop.run(run())
    except ImportError:
        whole, statuses = asyncio.run(run())

    spent = [0.0]
    twin = server.thread_db()
    for game in ("threes", "rolled_ones", "ten_thousand"):
        twin.__dict__[game] = _Timed(getattr(twin, game), spent)  # this thread's twin only
    bodies, queries = [], []
    for path in body_paths:
        route, _, query = path.partition("?")
        items = parse_qsl(query, keep_blank_values=True)
        spent[0] = 0.0
        start = time.thread_time()
        server.api_body(route, items)
        bodies.append(time.thread_time() - start)
        queries.append(spent[0])
    server.close()
    body, query = statistics.mean(bodies), statistics.mean(queries)
    return {"db": db_url, "store": server.db.store, "requests": len(whole_paths), "statuses": statuses,
            "whole": whole, "body": body, "query": query, "rest": body - query}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", action="append", help="database file or URL (repeatable); "
                        "default db/dicebase.duckdb and sqlite:///db/dicebase.sqlite")
    parser.add_argument("--requests", type=int, default=4000, help="distinct states (half for each measurement)")
    parser.add_argument("--clients", type=int, default=50, help="concurrent in-process clients")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    print("| database | requests | statuses | whole request us | api_body us | query layer us | the rest us |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for db in args.db or ["db/dicebase.duckdb", "sqlite:///db/dicebase.sqlite"]:
        r = measure(db, args.requests, args.clients, args.seed)
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(r["statuses"].items()))
        print(f"| `{r['db']}` | {r['requests']:,} | {statuses} | {1e6 * r['whole']:.0f} | {1e6 * r['body']:.0f} "
              f"| {1e6 * r['query']:.0f} | {1e6 * r['rest']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
