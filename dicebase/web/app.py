"""The ASGI application: the JSON API, the pages and their assets (Starlette).

One open read-only database is shared by the whole server; each worker thread
reads through its own twin of it (``Database.for_thread``: a DuckDB cursor or a
SQLite connection).  Every answer depends only on the database build and this
dicebase version, so each carries one ETag and ``If-None-Match`` is answered
with 304 before any lookup runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dicebase import __version__
from dicebase.cli import error_line
from dicebase.cli.common import json_text
from dicebase.query.base import (
    DatabaseClosed,
    DatabaseLocked,
    NotInDatabase,
    QueryInterrupted,
    QueryTimeout,
    QueryTooLarge,
)
from dicebase.web import api, openapi

HERE = Path(__file__).parent


class LookupFailed(Exception):
    """A lookup the user got wrong: the HTTP status and the CLI's one-line message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class Server:
    """What every request shares: the database, its per-thread twins, the endpoints, the build's ETag."""

    def __init__(self, db):
        self.db = db
        self._local = threading.local()
        self._twins: list = []
        self._lock = threading.Lock()
        self.endpoints = api.endpoints()
        self.info = self.lookup("/api/v1/info", [])
        build = {k: v for k, v in self.info["build"].items()}
        checksums = [(t["table"], t["checksum"]) for t in self.info["tables"]]
        digest = hashlib.sha256(json.dumps([__version__, build, checksums], sort_keys=True).encode()).hexdigest()
        self.etag = f'"{digest[:20]}"'
        self.openapi = openapi.document(self.endpoints)

    def thread_db(self):
        """This thread's own connection to the database."""
        twin = getattr(self._local, "db", None)
        if twin is None:
            twin = self.db.for_thread()
            self._local.db = twin
            with self._lock:
                self._twins.append(twin)
        return twin

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
            raise LookupFailed(_status(exc, code), " ".join(message.split())) from None

    def not_modified(self, request: Request) -> bool:
        wanted = request.headers.get("if-none-match")
        if not wanted:
            return False
        tags = {t.strip().removeprefix("W/") for t in wanted.split(",")}
        return "*" in tags or self.etag in tags

    def close(self) -> None:
        with self._lock:
            twins, self._twins = self._twins, []
        for twin in twins:
            twin.close()
        self.db.close()


def _status(exc: Exception, exit_code: int) -> int:
    """The HTTP status of a failed lookup: the user's input 400, not in the database 404, and
    503 for what is no fault of the request (time limit, memory ceiling, a busy or faulty file)."""
    if isinstance(exc, NotInDatabase):
        return 404
    if isinstance(exc, (QueryTimeout, QueryInterrupted, QueryTooLarge, DatabaseLocked, DatabaseClosed)):
        return 503
    return 400 if exit_code == 2 else 503


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(db) -> Starlette:
    """The application serving the open database ``db`` (closed when the application shuts down)."""
    from dicebase.web import pages

    server = Server(db)
    cache_headers = {"ETag": server.etag, "Cache-Control": "no-cache"}

    def api_lookup(request: Request) -> Response:
        if server.not_modified(request):
            return Response(status_code=304, headers=cache_headers)
        path = request.url.path.rstrip("/")
        try:
            document = server.lookup(path, list(request.query_params.multi_items()))
        except LookupFailed as exc:
            return _error(exc.status, exc.message)
        return Response(json_text(document) + "\n", media_type="application/json", headers=cache_headers)

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
        yield
        server.close()

    routes = [
        Route("/api/v1/openapi.json", openapi_json),
        Route("/api/v1/{rest:path}", api_lookup),
        *pages.routes(server),
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
