"""Every game dicebase knows, declared once: the list every layer derives its games from.

A game is a :class:`Game` descriptor in :data:`GAMES` (build order) plus its own modules,
named here as dotted strings so that this module, the lowest layer, imports none of
them.  Each layer loads the module of a game it needs with :func:`load` and reads it
through its own ``typing.Protocol`` (``dicebase.builder.registry.GameBuilder``,
``dicebase.query.games.GameQueries`` ...).  A test game joins with :func:`register`.

No imports beyond the standard library: the command line reads this on every lookup.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = ["Game", "GAMES", "all_games", "names", "game", "cli_names", "modules", "load", "register", "unregister"]

#: The layers a game may have a module in (the fields of :class:`Game` that name modules).
LAYERS = ("rules", "layout", "schema", "builder", "query", "cli", "plots", "bots", "pages")


@dataclass(frozen=True)
class Game:
    """One game: its names, where each layer finds it, and what it supports."""

    #: the game's name in the code, the tables and the metadata (``rolled_ones``)
    name: str
    #: its full title (schema docs, pages' errors): "Great Rolled Ones"
    title: str
    #: the option naming a rule set in its lookups (``variant``; 10,000: ``rules``)
    rules_option: str = "variant"
    #: its module in each layer, dotted (None: the game has none in that layer)
    rules: str | None = None
    layout: str | None = None
    schema: str | None = None
    builder: str | None = None
    query: str | None = None
    cli: str | None = None
    plots: str | None = None
    bots: str | None = None
    #: its page, as "module:function" (None: no page)
    pages: str | None = None
    #: the page's link text and line on the home page
    page_title: str = ""
    page_blurb: str = ""
    #: more than two players (the N-player tables)
    n_players: bool = False
    #: a server holds its lookup tables in memory (its ``Queries.hold()``)
    held: bool = False
    #: its place in the figure gallery (docs/plots.md, ``dicebase plot --list``); 0: no figures
    figures: int = 0

    @property
    def cli_name(self) -> str:
        """The name users type (``rolled-ones``)."""
        return self.name.replace("_", "-")

    @property
    def prefix(self) -> str:
        """The prefix of its tables and views (``rolled_ones_``)."""
        return f"{self.name}_"

    @property
    def path(self) -> str:
        """Its page's URL path (``/rolled-ones``)."""
        return f"/{self.cli_name}"

    def supports(self, feature: str) -> bool:
        """Whether it has ``feature``: a layer's name (``bots``, ``pages``...) or ``n_players``/``held``/``figures``."""
        return bool(getattr(self, feature))


def _builtin(name: str, title: str, **fields: Any) -> Game:
    """A game of this package: its modules follow the layout ``dicebase.<layer>.<name>``."""
    mods = {layer: f"dicebase.{layer}.{name}" for layer in ("rules", "layout", "schema", "builder", "query",
                                                              "cli", "plots", "bots")}
    mods["pages"] = f"dicebase.web.pages.{name}:page"
    return Game(name, title, **{**mods, **fields})


#: Every game by name, in build order.  A new game is one line here (and its modules).
GAMES: dict[str, Game] = {g.name: g for g in (
    _builtin("threes", "Threes", page_title="Threes", figures=2,
             page_blurb="Lowest total of five dice wins; a 3 counts zero. Which dice to keep?"),
    _builtin("rolled_ones", "Great Rolled Ones", n_players=True, held=True, page_title="Rolled Ones", figures=1,
             page_blurb="Great Rolled Ones: two or more players race to 50; three 1s end the turn. Roll or hold?"),
    _builtin("ten_thousand", "10,000", rules_option="rules", n_players=True, held=True, page_title="10,000",
             figures=3, page_blurb="The Farkle family: which scoring dice to keep, and when to bank."),
    _builtin("pig", "Pig", n_players=True, page_title="Pig", figures=4,
             page_blurb="Pig: roll one die as often as you like, a 1 loses the turn; first to 100 wins. Roll or hold?"),
)}


def all_games(feature: str | None = None) -> list[Game]:
    """The games (with ``feature``: those that support it, see :meth:`Game.supports`), in build order."""
    return [g for g in GAMES.values() if feature is None or g.supports(feature)]


def names(feature: str | None = None) -> list[str]:
    """The games' names (``rolled_ones``), all or those with ``feature``."""
    return [g.name for g in all_games(feature)]


def cli_names(feature: str | None = None) -> list[str]:
    """The names users type (``rolled-ones``), all or those with ``feature``."""
    return [g.cli_name for g in all_games(feature)]


def game(name: str) -> Game:
    """The game called ``name`` (``rolled-ones`` or ``rolled_ones``, any case); KeyError otherwise."""
    key = name.strip().lower().replace("-", "_") if isinstance(name, str) else name
    return GAMES[key]


def modules(layer: str) -> dict[str, str]:
    """game name -> its module in ``layer``, for the games that have one, in build order (a snapshot)."""
    return {g.name: getattr(g, layer) for g in GAMES.values() if getattr(g, layer)}


def load(name: str, layer: str) -> Any:
    """The module of game ``name`` in ``layer`` (for ``pages``: the page function); KeyError if it has none."""
    dotted = getattr(game(name), layer)
    if dotted is None:
        raise KeyError(f"{name} has no {layer} module")
    module, _, attr = dotted.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attr) if attr else loaded


class Layer(Mapping):
    """A live, read-only mapping game name -> its module in one layer (it follows :func:`register`)."""

    def __init__(self, layer: str):
        if layer not in LAYERS:
            raise ValueError(f"no layer {layer!r}; layers: {', '.join(LAYERS)}")
        self.layer = layer

    def __getitem__(self, name: str) -> str:
        dotted = getattr(GAMES[name], self.layer) if isinstance(name, str) and name in GAMES else None
        if dotted is None:
            raise KeyError(name)
        return dotted

    def __iter__(self) -> Iterator[str]:
        return iter(list(modules(self.layer)))

    def __len__(self) -> int:
        return len(modules(self.layer))

    def __repr__(self) -> str:
        return f"Layer({self.layer!r}, {modules(self.layer)!r})"


def register(descriptor: Game) -> Game:
    """Add a game (a test's toy game) after the package's own; the same descriptor again is a no-op.

    ValueError if another game of that name is registered."""
    known = GAMES.get(descriptor.name)
    if known is not None and known != descriptor:
        raise ValueError(f"a different game called {descriptor.name!r} is registered")
    GAMES[descriptor.name] = descriptor
    return descriptor


def unregister(name: str) -> None:
    """Remove a game added by :func:`register` (the package's own games stay)."""
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is one of dicebase's own games")
    GAMES.pop(name, None)


_BUILTIN = frozenset(GAMES)
