"""Which module answers each game's lookups (``db.threes``, ``db.rolled_ones``, ``db.ten_thousand``).

A registry by module name, derived from the game descriptors (``dicebase.games``): the
connection makes a game's :class:`GameQueries` when ``db.<game>`` is first used, and the
game modules never import the connection back.  A new game needs no line here.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dicebase import games

#: game -> the module whose ``Queries(db)`` answers its lookups (live: follows ``games.register``)
QUERIES = games.Layer("query")


@runtime_checkable
class GameQueries(Protocol):
    """What every game's ``Queries(db)`` offers beside its own lookups."""

    def best(self, *args: Any, **kwargs: Any) -> Any:
        """Every legal action of a position, best first."""

    def seats(self, *args: Any, **kwargs: Any) -> Any:
        """Each seat's chance of winning from the start (or the stored per-seat figures)."""

    def rebuild_command(self, *args: Any, **kwargs: Any) -> str:
        """The ``dicebase build`` command that adds what a lookup missed."""


@runtime_checkable
class HoldsTables(Protocol):
    """A game whose lookup tables a server holds in memory (its descriptor says ``held``)."""

    def hold(self, variant: str | None = None, *, stop: Any = None) -> int:
        """Load the row-at-a-time tables into memory; the bytes held."""


def queries(db, game: str) -> GameQueries:
    """The ``Queries`` object of ``game`` on the connection ``db`` (it caches per connection)."""
    return games.load(game, "query").Queries(db)
