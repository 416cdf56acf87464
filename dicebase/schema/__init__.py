"""Every table, key, view and column description of dicebase, defined once.

Importing this package imports every game's schema module, so ``metadata``
holds the complete schema.  Helpers here answer "which tables and views
belong to a game" and produce the DDL for a store.
"""

from __future__ import annotations

import importlib
import re
from typing import Protocol

from sqlalchemy import Table
from sqlalchemy.dialects import sqlite as _sqlite_dialect
from sqlalchemy.schema import CreateTable

from dicebase import games
from dicebase.schema.base import CORE, CORE_TABLES, SCHEMA_VERSION, View, metadata

#: Each game's schema module, in build order (from the game descriptors, dicebase.games; live).
GAME_SCHEMAS = games.Layer("schema")


class GameSchema(Protocol):
    """A game's schema module: importing it adds its tables (``schema.base.table``) to ``metadata``."""

    #: its views, in creation order
    VIEWS: list[View]


for _module in GAME_SCHEMAS.values():
    importlib.import_module(_module)

# Both stores accept SQLite's rendering of the portable subset we use
# (INTEGER, SMALLINT, DOUBLE, BOOLEAN, VARCHAR, composite primary keys).
DIALECT = _sqlite_dialect.dialect()

__all__ = [
    "CORE",
    "SCHEMA_VERSION",
    "View",
    "metadata",
    "game_tables",
    "game_views",
    "create_table_sql",
    "create_view_sql",
    "catalogue",
]


def game_tables(game: str) -> list[Table]:
    """The tables of ``game`` (or of the core build metadata with ``CORE``)."""
    if game == CORE:
        return list(CORE_TABLES)
    return [t for t in metadata.sorted_tables if t.info.get("game") == game]


def game_views(game: str) -> list[View]:
    """The views of ``game`` (none for the core build metadata)."""
    if game not in GAME_SCHEMAS:
        return []
    module: GameSchema = games.load(game, "schema")
    return list(module.VIEWS)


def create_table_sql(table: Table, *, key_constraint: bool = True) -> str:
    """CREATE TABLE text; ``key_constraint=False`` leaves out the PRIMARY KEY clause."""
    sql = str(CreateTable(table).compile(dialect=DIALECT)).strip()
    if not key_constraint:
        sql = re.sub(r",\s*PRIMARY KEY \([^)]*\)", "", sql)
    return sql


def create_view_sql(view: View) -> str:
    body = view.select.compile(dialect=DIALECT, compile_kwargs={"literal_binds": True})
    return f"CREATE VIEW {view.name} AS {body}"


def catalogue(games: list[str]) -> tuple[list[tuple], list[tuple]]:
    """Rows for ``schema_tables`` and ``schema_columns`` describing ``games`` plus core."""
    table_rows: list[tuple] = []
    column_rows: list[tuple] = []
    for game in [CORE, *games]:
        for t in game_tables(game):
            table_rows.append((t.name, "table", game, t.comment))
            for pos, col in enumerate(t.columns, start=1):
                column_rows.append(
                    (t.name, pos, col.name, col.type.compile(dialect=DIALECT), bool(col.primary_key), col.comment)
                )
        for v in game_views(game):
            table_rows.append((v.name, "view", game, v.comment))
            for pos, (name, type_name, comment) in enumerate(v.columns(), start=1):
                column_rows.append((v.name, pos, name, type_name, False, comment))
    return table_rows, column_rows
