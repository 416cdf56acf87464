"""Pictures of optimal play, drawn from the stored tables (SQL only, never recomputation).

    import dicebase
    from dicebase import plots
    with dicebase.open() as db:
        png = plots.render(db, "rolled-ones-strategy", "png", player=1)
        print(plots.sql(db, "threes-chances", variant="reroll"))

Every figure's data comes from one SQL statement, run through the read-only
query layer; :func:`sql` shows it.  matplotlib (Agg, no pyplot) loads only
when a figure is drawn; the CLI's lookups never import this package.
"""

from __future__ import annotations

from typing import Protocol

from dicebase import games
from dicebase.plots.base import FORMATS, FigureSpec, build_facts, fetch, literal_sql, render_spec
from dicebase.errors import BadInput

__all__ = ["FIGURES", "FORMATS", "names", "figure", "render", "sql", "data", "size_px", "build_stamp"]


class GameFigures(Protocol):
    """A game's figures module (its descriptor's ``plots``)."""

    #: its figures, in the order the gallery shows them
    FIGURES: tuple[FigureSpec, ...]


def _figures(game: str) -> list[FigureSpec]:
    module: GameFigures = games.load(game, "plots")
    return list(module.FIGURES)


#: Every figure by name, in the order `dicebase plot --list` shows them (the games' ``figures`` places).
FIGURES: dict[str, FigureSpec] = {f.name: f for g in sorted(games.all_games("figures"), key=lambda g: g.figures)
                                  for f in _figures(g.name)}


def names(game: str | None = None) -> list[str]:
    """Figure names, all or those of one game (``threes``, ``rolled_ones``/``rolled-ones``, ...)."""
    wanted = game.replace("-", "_") if game else None
    return [n for n, f in FIGURES.items() if wanted is None or f.game == wanted]


def figure(name: str) -> FigureSpec:
    """The figure called ``name``; BadInput listing the names otherwise."""
    try:
        return FIGURES[name]
    except (KeyError, TypeError):
        raise BadInput(f"no figure named {name!r}; figures: {', '.join(FIGURES)}") from None


def render(db, name: str, fmt: str = "png", **options) -> bytes:
    """The figure as PNG, SVG or PDF bytes (1200 px wide PNG at 100 dpi).

    ``options`` are the figure's keywords (``player=1``, ``variant="reroll"``...);
    unknown ones and bad values raise BadInput, missing data NotInDatabase.
    """
    return render_spec(db, figure(name), fmt, options)


def _resolved(db, name: str, options: dict) -> tuple[FigureSpec, dict]:
    spec = figure(name)
    return spec, spec.resolve(db, spec.check_options(options))


def sql(db, name: str, **options) -> str:
    """The figure's data query with the option values written in (runnable with `dicebase sql`)."""
    spec, opts = _resolved(db, name, options)
    return literal_sql(*spec.query(opts))


def data(db, name: str, **options) -> dict:
    """The arrays the figure is drawn from (what :func:`render` hands to its drawing code)."""
    spec, opts = _resolved(db, name, options)
    names_, rows = fetch(db, spec, opts)
    return spec.arrays(names_, rows, opts)


def size_px(db, name: str, **options) -> tuple[int, int]:
    """(width, height) in pixels of the PNG that :func:`render` writes for these options."""
    spec, opts = _resolved(db, name, options)
    return spec.size_px(opts)


def build_stamp(db, name: str) -> str:
    """A key that changes whenever the figure's game is rebuilt: cache rendered figures under it."""
    spec = figure(name)
    facts = build_facts(db, spec.game)
    return f"{db.location}|{facts['built_at']}|{facts['version']}"

