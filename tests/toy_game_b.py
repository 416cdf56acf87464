"""A second tiny game, so tests can build two different games into one file at once.

Registered by the hardening tests only (``register()``); one table of n rows.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import Column, Integer, String

from dicebase.schema.base import table

GAME = "toy_b"
DEFAULT_OPTIONS = {"rows": 100}
TEST_OPTIONS = {"rows": 100}
VIEWS: list = []

toy_b_values = table(
    "toy_b_values",
    GAME,
    "Toy B rows: n and its text.",
    Column("n", Integer, primary_key=True, comment="row number"),
    Column("label", String, nullable=False, comment="n as text"),
)


def build(ctx, options):
    n = np.arange(int(options["rows"]))
    ctx.variant("standard", rules={"rows": len(n)}, solver={"method": "counting"})
    with ctx.step("rows"):
        ctx.write("toy_b_values", {"n": n, "label": n.astype(str)})


def register() -> None:
    """Make toy_b buildable (idempotent): its descriptor names this module as its schema and builder."""
    from dicebase import games

    games.register(games.Game(GAME, "Toy B", schema=__name__, builder=__name__))


def unregister() -> None:
    from dicebase import games

    games.unregister(GAME)
