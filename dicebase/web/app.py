"""The ASGI application: the JSON API, the pages and their assets (Starlette).

One open read-only database is shared by the whole server; each worker thread
reads through its own twin of it (``Database.for_thread``: a DuckDB cursor or a
SQLite connection).  Every answer depends only on the database build and this
dicebase version, so each carries one ETag and ``If-None-Match`` is answered
with 304 before any lookup runs, and the rendered answers are kept in a
bounded cache keyed by the normalised query (``dicebase.web.cache``): a hit
is answered on the event loop without a lookup or a thread hop.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dicebase.present import error_line, json_text
from dicebase.version import __version__
from dicebase.web import api, expensive, openapi
from dicebase.web.api import LookupFailed, http_status
from dicebase.web.cache import ResponseCache, cache_key

HERE = Path(__file__).parent
#: Default bound of the response cache (per server process).
DEFAULT_CACHE_BYTES = 32 * 1024 * 1024
#: API lookups that run at once in one server process (the rest wait their turn).  Each holds the
#: GIL for most of its time, so more threads only queue behind one another and hold more
#: connections: with 40 (Starlette's default) throughput fell and the tail grew (benchmarks/serve.py).
#: (A pool of their own, asyncio's run_in_executor, took 50-100 us less CPU a lookup in-process: a thread
#: that ends a lookup starts the next without the event loop.  But the loop then has to win the GIL from
#: them to send the answers, and benchmarks/serve.py's p99/p50 grew from about 1.8 to 2.2, under load.)
LOOKUP_THREADS = 2
#: DuckDB's threads per server process (its ``threads`` setting), for the lookups and the warm-up scan.
DUCKDB_THREADS = 1


class Server:
    """What every request shares: the database, its per-thread twins, the endpoints, the build's ETag."""

    def __init__(self, db, cache_bytes: int = DEFAULT_CACHE_BYTES):
        self.db = db
        self.cache = ResponseCache(cache_bytes, watch=db.location.path)
        self._local = threading.local()
        self._twins: dict[threading.Thread, object] = {}  # each thread's twin, by thread
        self._lock = threading.Lock()
        self._warmer = None
        if db.store == "duckdb":
            # a lookup reads a few rows by key: DuckDB's intra-query parallelism only adds thread
            # hand-offs (measured: about 7% less CPU and a quarter fewer context switches a lookup)
            db.execute(f"SET threads = {DUCKDB_THREADS}")
        self.endpoints = api.endpoints()
        self.info = self.lookup("/api/v1/info", [])
        build = {k: v for k, v in self.info["build"].items()}
        checksums = [(t["table"], t["checksum"]) for t in self.info["tables"]]
        digest = hashlib.sha256(json.dumps([__version__, build, checksums], sort_keys=True).encode()).hexdigest()
        self.etag = f'"{digest[:20]}"'
        self.openapi = openapi.document(self.endpoints)
        self.helper = expensive.Helper(db)  # the process of the expensive endpoints, started when first asked

    def thread_db(self):
        """This thread's own connection to the database.

        The twins of threads that have ended are closed when a new one opens: the lookups and the
        pages run in anyio's worker threads, which end after 10 s idle and are replaced by new ones,
        and each twin holds a connection and its memo of reads.
        """
        twin = getattr(self._local, "db", None)
        if twin is None:
            twin = self.db.for_thread()
            self._local.db = twin
            with self._lock:
                ended = [thread for thread in self._twins if not thread.is_alive()]
                for thread in ended:
                    self._twins.pop(thread).close()
                self._twins[threading.current_thread()] = twin
        return twin

    def thread_databases(self) -> list:
        """The connections of the threads that have looked something up and not been replaced."""
        with self._lock:
            return list(self._twins.values())

    def wait_warm(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the warm-up (if one was started) to end; whether it has."""
        warmer = self._warmer
        return warmer is None or warmer.wait(timeout)

    def lookup(self, path: str, items: list[tuple[str, str]]):
        """The JSON document of the lookup at ``path``; LookupFailed for a user's mistake."""
        endpoint = self.endpoints.get(path)
        if endpoint is None:
            raise LookupFailed(404, f"no endpoint {path[:80]}; every endpoint is listed at /api/v1/openapi.json")
        try:
            return endpoint.run(self.thread_db(), items)
        except Exception as exc:
            line = error_line(exc)
            if line is None:
                raise
            message, code = line
            raise LookupFailed(http_status(exc, code), " ".join(message.split())) from None

    def api_body(self, path: str, items: list[tuple[str, str]]) -> bytes:
        """The answer's bytes as the API sends them (a miss of the cache; run in a worker thread)."""
        return (json_text(self.lookup(path, items)) + "\n").encode()

    def not_modified(self, request: Request) -> bool:
        wanted = request.headers.get("if-none-match")
        if not wanted:
            return False
        tags = {t.strip().removeprefix("W/") for t in wanted.split(",")}
        return "*" in tags or self.etag in tags

    def warm(self, freeze: bool = False) -> None:
        """Start warming the database in the background (``dicebase.web.warm``; ``freeze``: then
        freeze the heap); ``close`` stops it."""
        from dicebase.web.warm import Warmer

        self._warmer = Warmer(self.db, freeze=freeze).start()

    def close(self) -> None:
        self.helper.stop()
        warmer, self._warmer = self._warmer, None
        if warmer is not None:
            warmer.stop()
        with self._lock:
            twins, self._twins = list(self._twins.values()), {}
        for twin in twins:
            twin.close()
        self.db.close()


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(db, cache_bytes: int = DEFAULT_CACHE_BYTES, warm: bool = False, freeze: bool = False) -> Starlette:
    """The application serving the open database ``db`` (closed when the application shuts down).

    ``cache_bytes`` bounds the cache of rendered API answers (0 turns it off); ``warm`` reads the
    database once in the background when the application starts (``dicebase.web.warm``), and
    ``freeze`` then moves what the process holds into the garbage collector's permanent
    generation (``warm.freeze_heap``: for a server process, ``dicebase serve``).
    """
    from dicebase.web import pages, play

    server = Server(db, cache_bytes)
    lookups = anyio.CapacityLimiter(LOOKUP_THREADS)
    cache_headers = {"ETag": server.etag, "Cache-Control": "no-cache"}
    # X-Cache says whether an answer came from the response cache (the benchmark counts it)
    hit_headers = {**cache_headers, "X-Cache": "HIT"}
    miss_headers = {**cache_headers, "X-Cache": "MISS"} if server.cache.enabled else cache_headers

    async def api_lookup(request: Request) -> Response:
        if server.not_modified(request):
            return Response(status_code=304, headers=cache_headers)
        path = ("/api/v1/" + request.path_params["rest"]).rstrip("/")
        items = list(request.query_params.multi_items())
        key = cache_key(path, items)
        body = server.cache.get(key)
        if body is not None:
            return Response(body, media_type="application/json", headers=hit_headers)
        try:
            if path in expensive.PATHS:  # a tournament: in its own process, never in a lookup's slot
                body = await server.helper.run(path, items)
            else:
                body = await anyio.to_thread.run_sync(server.api_body, path, items, limiter=lookups)
        except LookupFailed as exc:
            return _error(exc.status, exc.message)
        server.cache.put(key, body)
        return Response(body, media_type="application/json", headers=miss_headers)

    def openapi_json(request: Request) -> Response:
        if server.not_modified(request):
            return Response(status_code=304, headers=cache_headers)
        return Response(json_text(server.openapi) + "\n", media_type="application/json", headers=cache_headers)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return _error(exc.status_code, f"{exc.detail}: {request.method} {request.url.path[:80]}")
        return pages.error_page(request, exc.status_code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        message = "internal error (a bug in dicebase; the server log has the details)"
        if request.url.path.startswith("/api/"):
            return _error(500, message)
        return pages.error_page(request, 500, message)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if warm:
            server.warm(freeze)
        yield
        server.close()

    routes = [
        Route("/api/v1/openapi.json", openapi_json),
        Route("/api/v1/{rest:path}", api_lookup),
        *pages.routes(server),
        *play.routes(server),  # "play against the bot" (docs/bots.md)
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET"], expose_headers=["ETag"])],
        exception_handlers={HTTPException: http_error, 500: server_error},
        lifespan=lifespan,
    )
    app.state.server = server
    return app
