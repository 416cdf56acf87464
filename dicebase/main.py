"""The ``dicebase`` program: the top layer, which assembles the command line.

``dicebase.cli`` holds every command but two, which come from the parts they drive:
``serve`` from ``dicebase.web`` and ``plot`` from ``dicebase.plots``.  Both load on
first use, so a lookup imports neither the web stack nor matplotlib.  ``main`` is
the console script (``dicebase = "dicebase.main:main"``) and ``python -m dicebase``.

The layers below, top to bottom (enforced by import-linter, pyproject.toml):
web; cli and plots; present; query and builder; schema; layout; rules; errors;
location, checksum and version.
"""

from __future__ import annotations

import click

from dicebase.cli import cli as _commands
from dicebase.cli.run import run


def _plot() -> click.Command:
    from dicebase.plots.command import group

    return group


def _serve() -> click.Command:
    from dicebase.web.command import serve

    return serve


#: The whole ``dicebase`` command group.
cli = _commands.with_commands({"plot": _plot, "serve": _serve})


def main(argv: list[str] | None = None) -> None:
    """Run ``dicebase ARGS...`` (default: sys.argv[1:]): one line on stderr for every error, then exit."""
    run(cli, argv)
