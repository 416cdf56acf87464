"""Every table of every game has unique primary keys in both stores.

DuckDB does not enforce keys of tables declared with ``key_index=False``,
so this checks what the builders write, on the test builds of each game.
"""

from __future__ import annotations

import pytest

import dicebase
from dicebase.builder import registry
from dicebase.schema import game_tables


@pytest.mark.parametrize("game", list(registry.GAMES))
def test_primary_keys_are_unique(built_db, game):
    path = built_db((game,), "duckdb")
    with dicebase.open(f"duckdb:///{path}") as db:
        for table in game_tables(game):
            keys = ", ".join(c.name for c in table.primary_key.columns)
            rows, distinct = db.fetchone(f"SELECT count(*), count(DISTINCT ({keys})) FROM {table.name}")
            assert rows == distinct, f"{table.name}: {rows - distinct} duplicate keys"
            assert table.primary_key.columns, f"{table.name} has no primary key"
