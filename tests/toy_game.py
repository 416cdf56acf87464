"""A tiny game for testing the build pipeline, store and CLI without any solver.

Registered by the foundation tests only (``register()``); it writes one
table of n rows, one view, and can fail or stall midway on request.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from sqlalchemy import Boolean, Column, Double, Integer, String, select

from dicebase.schema.base import View, table

GAME = "toy"
DEFAULT_OPTIONS = {"rows": 1000, "fail_after_first_write": False, "stall_signal_file": ""}
TEST_OPTIONS = {"rows": 1000}

toy_values = table(
    "toy_values",
    GAME,
    "Toy rows: n, its square root and parity.",
    Column("n", Integer, primary_key=True, comment="row number"),
    Column("root", Double, nullable=False, comment="square root of n"),
    Column("even", Boolean, nullable=False, comment="n is even"),
    Column("label", String, nullable=False, comment="n as text"),
)

VIEWS = [
    View(
        "toy_even",
        GAME,
        "The even rows of toy_values.",
        select(toy_values.c.n, toy_values.c.root).where(toy_values.c.even == True),  # noqa: E712
    )
]


def build(ctx, options):
    rows = int(options["rows"])
    n = np.arange(rows)
    half = rows // 2
    ctx.variant("standard", rules={"rows": rows}, solver={"method": "arithmetic", "tolerance": 0})
    with ctx.step("first half"):
        ctx.write("toy_values", {"n": n[:half], "root": np.sqrt(n[:half]), "even": n[:half] % 2 == 0,
                                 "label": n[:half].astype(str)})
    if options["fail_after_first_write"]:
        raise RuntimeError("toy build failed on purpose")
    if options["stall_signal_file"]:
        Path(options["stall_signal_file"]).write_text("written")
        time.sleep(60)
    with ctx.step("second half"):
        ctx.write("toy_values", {"n": n[half:], "root": np.sqrt(n[half:]), "even": n[half:] % 2 == 0,
                                 "label": n[half:].astype(str)})
    ctx.note("rows", rows)


def register() -> None:
    """Make the toy game buildable (idempotent): its descriptor names this module as its schema and builder."""
    from dicebase import games

    games.register(games.Game(GAME, "Toy", schema=__name__, builder=__name__))


def unregister() -> None:
    from dicebase import games

    games.unregister(GAME)
