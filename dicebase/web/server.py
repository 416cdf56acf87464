"""Running the application under uvicorn: bind first (one-line errors), then serve until Ctrl-C.

With ``workers`` > 1 the server is that many processes, each a uvicorn
server with its own read-only connection to the database (an ``AppFactory``)
and its own response cache.  Each listens on its own socket bound to the same
port with SO_REUSEPORT, so the kernel spreads new connections evenly over
them (on one shared socket, whichever process wakes first takes a burst of
keep-alive connections and keeps them).  Answers and ETags depend only on the
database build, so every worker gives the same ones.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
from dataclasses import dataclass

import click
import uvicorn

from dicebase.location import Location
from dicebase.errors import BadInput
from dicebase.web.app import DEFAULT_CACHE_BYTES, create_app
from dicebase.web.lifeline import end_with_parent as _end_with_parent

#: Seconds Ctrl-C waits for requests in flight (a figure being drawn) before a worker stops.  A
#: request still running then is cancelled and uvicorn logs its traceback; drawing a server's first
#: figure took 2.5-4.7 s on a busy 2-core machine, so 3 s was too short.
GRACEFUL_SECONDS = 10


def default_workers() -> int:
    """One server process per core this process may run on, at most 4 (each holds a connection and a cache)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


@dataclass(frozen=True)
class AppFactory:
    """Builds the application in a worker process: opens the database read-only there (picklable)."""

    location: Location
    timeout: float | None
    cache_bytes: int

    def __call__(self):
        from dicebase.query import open as open_database

        return create_app(open_database(self.location, timeout=self.timeout), self.cache_bytes, warm=True,
                          freeze=True)


def _address(host: str, port: int):
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise BadInput(f"cannot listen on {host!r}: {exc}") from None
    return infos[0]


def _listen(info, address, reuse_port: bool) -> socket.socket:
    family, kind, proto, _, _ = info
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def bind(host: str, port: int, count: int = 1) -> list[socket.socket]:
    """``count`` listening sockets on host:port (one per worker, joined by SO_REUSEPORT where the
    system has it, else one shared), or BadInput with one line (port in use, unknown address, no
    permission)."""
    info = _address(host, port)
    address = info[4]
    reuse_port = count > 1 and hasattr(socket, "SO_REUSEPORT")
    try:
        # A plain socket first: it fails if anything at all holds the port (another server's
        # SO_REUSEPORT group included, which the sockets below would silently join).
        first = _listen(info, address, reuse_port=False)
        if not reuse_port:
            return [first] * count
        address = (address[0], first.getsockname()[1], *address[2:])
        first.close()
        sockets: list[socket.socket] = []
        try:
            for _ in range(count):
                sockets.append(_listen(info, address, reuse_port=True))
        except OSError:
            for sock in sockets:
                sock.close()
            raise
        return sockets
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise BadInput(f"cannot listen on {host}:{port}: {reason.lower()}") from None


#: The answer to a request the HTTP parser refuses before the application sees it (a request
#: line or headers past the parser's size limit, or not HTTP at all): the API's JSON error.
UNREADABLE_REQUEST = ("the request could not be read: it is not HTTP, or its request line and headers are too long "
                      "(keep a query string under 64 KB)")


def _http_protocol():
    """uvicorn's HTTP protocol (httptools or h11), answering a request it cannot parse with the
    API's JSON error ({"error": ...}, status 400) instead of a plain-text line."""
    import json

    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    body = json.dumps({"error": UNREADABLE_REQUEST}).encode()
    response = (b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
                b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)

    class JsonErrorProtocol(AutoHTTPProtocol):
        def send_400_response(self, msg: str) -> None:
            self.transport.write(response)
            self.transport.close()

    return JsonErrorProtocol


#: The answer to a request still running when a stopping server stops waiting (GRACEFUL_SECONDS).
DROPPED_REQUEST = "the server is stopping: this request was still running and was dropped; try again"


class _Dropping(logging.Filter):
    """The end of a graceful stop, told in one line: uvicorn logs "Cancel N running task(s)" and then,
    for each request it cancels, "Exception in ASGI application" with the CancelledError's
    traceback (issue 34: SIGTERM of a busy server printed them).  This filter drops those records
    and prints one line instead; ``dropping`` tells the application wrapper (``_answer_dropped``)
    that a CancelledError now means the server is stopping."""

    def __init__(self):
        super().__init__("dicebase-dropping")
        self.dropping = False

    def filter(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Cancel %s running task(s)"):
            self.dropping = True
            count = record.args[0] if record.args else "the"
            print(f"dicebase: stopping: {count} request(s) still running after {GRACEFUL_SECONDS} s were dropped",
                  file=sys.stderr, flush=True)
            return False
        if self.dropping and record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            return False
        return True


def _answer_dropped(app, dropping: _Dropping):
    """``app``, answering a request that a stopping server cancels with 503 and the JSON error line
    (uvicorn would send a plain-text 500) instead of raising the cancellation."""
    import json

    body = json.dumps({"error": DROPPED_REQUEST}).encode()
    start = {"type": "http.response.start", "status": 503,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close")]}

    async def wrapped(scope, receive, send):
        try:
            await app(scope, receive, send)
        except asyncio.CancelledError:
            if scope["type"] != "http" or not dropping.dropping:
                raise
            try:
                await send(start)
                await send({"type": "http.response.body", "body": body})
            except Exception:  # the response had started, or the client is gone: the connection closes
                pass

    return wrapped


def _config(app) -> uvicorn.Config:
    # Ctrl-C waits at most a few seconds for requests in flight (a figure being drawn), then stops,
    # with one line if some were still running (no tracebacks).
    dropping = _Dropping()
    config = uvicorn.Config(_answer_dropped(app, dropping), log_level="warning", access_log=False, lifespan="on",
                            server_header=False, timeout_graceful_shutdown=GRACEFUL_SECONDS, http=_http_protocol())
    logging.getLogger("uvicorn.error").addFilter(dropping)  # after the Config set up uvicorn's logging
    return config


class _Terminated(Exception):
    """SIGTERM, re-raised by uvicorn after its graceful stop: the server stopped as asked."""


def _on_sigterm(signum, frame):
    raise _Terminated


def _worker(factory: AppFactory, sock: socket.socket, parent: int | None = None) -> None:
    """One worker process: its application, served on its socket until SIGINT or SIGTERM, or
    until its parent process ``parent`` dies."""
    from dicebase.present import error_line

    if parent is not None:
        _end_with_parent(parent)
    try:
        app = factory()
        uvicorn.Server(_config(app)).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C before uvicorn took over the signals, or re-raised after a clean stop
        pass
    except Exception as exc:  # the database went away between the check and this worker's start
        line = error_line(exc)
        print(f"dicebase: a server process could not start: {line[0] if line else exc}", file=sys.stderr)
        sys.exit(1)


def _serve_workers(factory: AppFactory, sockets: list[socket.socket]) -> int:
    """Run one worker process per socket until Ctrl-C (or SIGTERM), or until one of them fails.

    Returns the exit status: 0 after a clean stop, 1 when a worker stopped by itself.
    """
    spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: no DuckDB state is inherited
    workers = [spawn.Process(target=_worker, args=(factory, sock, os.getpid()), name=f"dicebase-serve-{k}")
               for k, sock in enumerate(sockets)]
    asked_to_stop = False

    def on_sigterm(signum, frame):
        nonlocal asked_to_stop
        asked_to_stop = True
        stop()

    def stop():
        for worker in workers:
            if worker.pid is not None and worker.exitcode is None:
                os.kill(worker.pid, signal.SIGTERM)  # uvicorn's graceful stop, as for Ctrl-C

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        for worker in workers:
            worker.start()
        try:
            multiprocessing.connection.wait([w.sentinel for w in workers])  # until one stops
        except KeyboardInterrupt:
            asked_to_stop = True
        stop()
        for worker in workers:
            worker.join(GRACEFUL_SECONDS + 10)
            if worker.exitcode is None:
                worker.kill()
                worker.join()
    except KeyboardInterrupt:  # a second Ctrl-C: do not wait any longer
        asked_to_stop = True
        for worker in workers:
            if worker.exitcode is None:
                worker.kill()
    finally:
        signal.signal(signal.SIGTERM, previous)
        for sock in set(sockets):
            sock.close()
    return 0 if asked_to_stop else 1


def run(db, host: str, port: int, workers: int = 1, cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
    """Serve ``db`` (an open Database, closed on exit) on host:port until interrupted.

    With ``workers`` > 1, ``db`` is only checked here (it was opened, so it is usable) and closed;
    each worker process opens its own.
    """
    try:
        if workers > 1:
            factory = AppFactory(db.location, db.timeout, cache_bytes)
            db.close()
        else:
            app = create_app(db, cache_bytes, warm=True, freeze=True)
        sockets = bind(host, port, workers)
    except BaseException:
        db.close()
        raise
    bound_host, bound_port = sockets[0].getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"dicebase: serving {db.location} at http://{shown}:{bound_port}/ (Ctrl-C stops)")
    if host in ("0.0.0.0", "::"):
        click.echo("dicebase: listening on every network interface: anyone on your network can read the database")
    if workers > 1:
        status = _serve_workers(factory, sockets)
        if status:
            raise click.ClickException("a server process stopped unexpectedly; the server has stopped")
    else:
        # uvicorn re-raises the signal it stopped for: Ctrl-C as KeyboardInterrupt, SIGTERM through
        # this handler (by default it would end the process with no last line)
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            uvicorn.Server(_config(app)).run(sockets=sockets)
        except (KeyboardInterrupt, _Terminated):  # uvicorn has shut down cleanly and re-raised the signal
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
    click.echo("dicebase: stopped")
