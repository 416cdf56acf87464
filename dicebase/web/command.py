"""``dicebase serve``: the click command that starts the web server (``dicebase.main`` adds it
to the command line).  Importing it loads click only: Starlette, uvicorn and Jinja2 load when
the command runs, so the other commands never import the web stack."""

from __future__ import annotations

import click

from dicebase.cli.common import FiniteFloatRange
from dicebase.errors import INSTALL
from dicebase.present import db_option, open_db

#: The largest --cache-mb (64 GiB per server process): more than any machine it runs on should give
#: it, and far below what overflows the byte count (1e308 MB did: OverflowError).
MAX_CACHE_MB = 65_536
#: The largest --timeout (one hour): a request may run that long at most; 1e308 s overflowed the
#: query watchdog's clock (an OverflowError traceback in its thread).
MAX_TIMEOUT_SECONDS = 3_600


@click.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 shares the advisor with every device on your network.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free port, printed at start).")
@click.option("--timeout", default=10.0, show_default=True, type=FiniteFloatRange(min=0, max=MAX_TIMEOUT_SECONDS, min_open=True),
              metavar="SECONDS", help="Stop a request that runs longer, a tournament's work included (the answer "
                                      "is a 503 error); at most 3600.")
@click.option("--workers", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Server processes, each with its own read-only connection. Default: one per core, at most 4.")
@click.option("--cache-mb", type=FiniteFloatRange(min=0, max=MAX_CACHE_MB), default=32.0, show_default=True, metavar="MB",
              help="Memory for remembered API answers, per server process (a build's answers never change); "
                   "0 turns the cache off; at most 65536.")
def serve(db_path, host, port, timeout, workers, cache_mb):
    """Serve the web advisor and the HTTP JSON API from the database (read-only).

    Every lookup `dicebase GAME COMMAND ... --json` is also
    GET /api/v1/GAME/COMMAND with the same options as query parameters and
    the same JSON answer; the pages at / are phone-sized advisors for each
    game. Stop it with Ctrl-C.

    Example:

    \b
        dicebase serve
        dicebase serve --db sqlite:///db/dicebase.sqlite --port 8080
        dicebase serve --workers 1 --cache-mb 0
        curl 'http://127.0.0.1:8000/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4'
    """
    try:
        from dicebase.web.server import default_workers, run
    except ImportError as exc:
        missing = (exc.name or "a module").split(".")[0]
        raise click.ClickException(f"dicebase serve needs the web extras ({missing} is missing): {INSTALL['serve']}") from None
    run(open_db(db_path, timeout=timeout), host, port, workers=workers or default_workers(),
        cache_bytes=int(cache_mb * 1024 * 1024))

