"""The ``dicebase`` program: the top layer, which assembles the command line.

``dicebase.cli`` holds every command but ``serve``, which comes from the part it drives,
``dicebase.web`` (which itself serves the CLI's commands over HTTP, so it sits above the
CLI).  ``serve`` loads on first use, so a lookup never imports the web stack.  ``main`` is
the console script (``dicebase = "dicebase.main:main"``) and ``python -m dicebase``.

The layers below, top to bottom (enforced by import-linter, pyproject.toml): web; cli;
plots and present; query and builder; schema; layout; rules; errors; location, checksum
and version.
"""

from __future__ import annotations

import click

from dicebase.cli import cli as _commands
from dicebase.cli.run import run


def _serve() -> click.Command:
    from dicebase.web.command import serve

    return serve


#: The whole ``dicebase`` command group.
cli = _commands.with_commands({"serve": _serve})


def main(argv: list[str] | None = None) -> None:
    """Run ``dicebase ARGS...`` (default: sys.argv[1:]): one line on stderr for every error, then exit."""
    run(cli, argv)
