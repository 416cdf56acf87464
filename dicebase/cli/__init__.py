"""The ``dicebase`` command line: every command but ``serve`` (dicebase.web), which
``dicebase.main`` adds when it assembles the program.

Game command groups load lazily, so ``dicebase threes best ...`` imports
neither the other games nor the solvers.  Every error a user can cause is
printed as one line on stderr with exit code 2 (``dicebase.cli.run``);
tracebacks are for bugs.  The web API is generated from these commands.
"""

from __future__ import annotations

import copy
from typing import Callable, Protocol

import click

from dicebase import games
from dicebase.cli import build as _build
from dicebase.cli import database as _database
from dicebase.cli.common import StrictCommand, StrictGroup, make_strict
from dicebase.version import __version__


class GameCommands(Protocol):
    """A game's command-line module (its descriptor's ``cli``): the lookup commands under its name."""

    group: click.Group


def _game_group(name: str) -> Callable[[], click.Command]:
    def load() -> click.Command:
        module: GameCommands = games.load(name, "cli")
        return module.group

    return load


def _plot() -> click.Command:
    from dicebase.cli.plot import group

    return group


def _rules() -> click.Command:
    from dicebase.cli.rules import group

    return group


def _bots(name: str) -> Callable[[], click.Command]:
    def load() -> click.Command:
        from dicebase.cli import bots

        return getattr(bots, name)

    return load


#: The games' lookup groups, loaded on first use: CLI name -> loader (from the descriptors, dicebase.games).
GAME_GROUPS: dict[str, Callable[[], click.Command]] = {g.cli_name: _game_group(g.name) for g in games.all_games("cli")}


class LazyGroup(StrictGroup):
    """A group whose ``lazy`` subcommands (name -> loader) are imported on first use.

    Every command under it is strict: an option given twice is refused.
    """

    command_class = StrictCommand
    group_class = StrictGroup

    def __init__(self, *args, lazy: dict[str, Callable[[], click.Command]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx, name):
        if name in self.lazy:
            return make_strict(self.lazy[name]())
        return super().get_command(ctx, name)

    def with_commands(self, lazy: dict[str, Callable[[], click.Command]]) -> "LazyGroup":
        """A copy of this group with the further ``lazy`` subcommands (this one is unchanged)."""
        group = copy.copy(self)
        group.commands = dict(self.commands)
        group.lazy = {**self.lazy, **lazy}
        return group


@click.group(cls=LazyGroup, lazy={**GAME_GROUPS, "plot": _plot, "rules": _rules,
                   **{name: _bots(name) for name in ("tournament", "simulate", "play")}},
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="dicebase")
def cli():
    """dicebase: solved push-your-luck dice games, answered from a database.

    Build once, then ask: every lookup ranks every legal action with its
    value, best first, like a chess endgame tablebase.

    Example:

    \b
        dicebase build
        dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 4
        dicebase sql "SELECT * FROM threes_expected_scores"
    """


for _command in (_build.build, _database.info, _database.sql, _database.schema, _database.verify, _build.export):
    cli.add_command(_command)
