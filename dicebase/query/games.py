"""Which module answers each game's lookups (``db.threes``, ``db.rolled_ones``, ``db.ten_thousand``).

A registry by module name: the connection loads a game's query module when its
property is first used, and the game modules never import the connection back.
A new game is one entry here and one property on ``Database``.
"""

from __future__ import annotations

import importlib

#: game -> the module whose ``Queries(db)`` answers its lookups
QUERIES = {
    "threes": "dicebase.query.threes",
    "rolled_ones": "dicebase.query.rolled_ones",
    "ten_thousand": "dicebase.query.ten_thousand",
}


def queries(db, game: str):
    """The ``Queries`` object of ``game`` on the connection ``db`` (it caches per connection)."""
    return importlib.import_module(QUERIES[game]).Queries(db)
