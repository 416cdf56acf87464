"""Datasette metadata for an exported SQLite file: descriptions and canned lookups.

``dicebase export --format datasette --out DIR`` writes ``DIR/dicebase.sqlite``
and ``DIR/metadata.json``; ``datasette serve DIR/dicebase.sqlite -m
DIR/metadata.json`` is then a browsable site and JSON API.  The metadata
carries every table's, view's and column's description (units are part of
each description: "points", "probability 0-1"), and canned queries with
named parameters for the main lookups, each returning the rows the CLI
prints (best first).  Datasette passes every parameter as text; the SQL
compares them with typed columns (SQLite converts) or casts them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol, runtime_checkable

from dicebase import games as descriptors
from dicebase.version import __version__

DATABASE = "dicebase"  # the file is DIR/dicebase.sqlite, so Datasette names the database "dicebase"


@runtime_checkable
class CannedQueries(Protocol):
    """A game's layout module with Datasette canned queries (a game without them has none in the metadata)."""

    #: the source documents (seeds) of the game's numbers, as the metadata's ``source`` names them
    SOURCE: str

    def canned_queries(self) -> dict[str, dict]:
        """name -> title, description, SQL with named parameters, its parameters; each returns the CLI's rows."""


def _layouts(names: list[str] | None = None) -> list[CannedQueries]:
    """The layout modules with canned queries of the games ``names`` (None: every game), in build order."""
    out = []
    for game in descriptors.all_games("layout"):
        if names is None or game.name in names:
            module = descriptors.load(game.name, "layout")
            if isinstance(module, CannedQueries):
                out.append(module)
    return out


def canned_queries(games: list[str]) -> dict[str, dict]:
    """Datasette canned queries for the games in the file (each game's layout module gives its own)."""
    return {name: query for module in _layouts(games) for name, query in module.canned_queries().items()}


def metadata(relations: list, games: list[str]) -> dict:
    """Datasette's metadata.json: title, description, source, every table's and column's description,
    and the canned queries."""
    tables = {
        rel.name: {
            "description": rel.description,
            "columns": {name: text for name, _type, text, _key, _required in rel.columns},
        }
        for rel in relations
    }
    return {
        "title": "dicebase",
        "description": (
            f"dicebase {__version__}: solved push-your-luck dice games "
            f"({', '.join(g.title for g in descriptors.all_games())}). Every table and view is described, and so is "
            "every column, with its unit. "
            "The canned queries answer the main lookups exactly as the dicebase command line does."
        ),
        "source": "dicebase's source documents (seeds): " + ", ".join(module.SOURCE for module in _layouts()),
        "databases": {DATABASE: {"tables": tables, "queries": canned_queries(games)}},
    }


def write_metadata(path: Path, relations: list, games: list[str]) -> None:
    Path(path).write_text(json.dumps(metadata(relations, games), indent=2) + "\n")
