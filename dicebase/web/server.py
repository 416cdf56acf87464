"""Running the application under uvicorn: bind first (one-line errors), then serve until Ctrl-C."""

from __future__ import annotations

import socket

import click
import uvicorn

from dicebase.query.base import BadInput
from dicebase.web.app import create_app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or BadInput with one line (port in use, unknown address, no permission)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise BadInput(f"cannot listen on {host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise BadInput(f"cannot listen on {host}:{port}: {reason.lower()}") from None
    sock.set_inheritable(True)
    return sock


def run(db, host: str, port: int) -> None:
    """Serve ``db`` (an open Database, closed on exit) on host:port until interrupted."""
    try:
        app = create_app(db)
        sock = bind(host, port)
    except BaseException:
        db.close()
        raise
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    click.echo(f"dicebase: serving {db.location} at http://{shown}:{bound_port}/ (Ctrl-C stops)")
    if host in ("0.0.0.0", "::"):
        click.echo("dicebase: listening on every network interface: anyone on your network can read the database")
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", server_header=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn has shut down cleanly and re-raises the signal it caught
        pass
    click.echo("dicebase: stopped")
