"""A toy game with bots, a game to play, a page and Datasette canned queries: each a part of this module
that its descriptor names, as a game of the package names its own modules (docs/DESIGN.md, "Add a game").

Toss: every seat tosses a coin once, heads scores 1; the highest score wins, a tie is shared.  Registered
by tests/test_games.py only (``register()``), to show that tournaments, simulations, play, the pages'
routes and the Datasette metadata find a game through its descriptor alone.
"""

from __future__ import annotations

import numpy as np

GAME = "toy_toss"

# -- bots (dicebase.bots.GameBots) ---------------------------------------------------------------------
BOTS = {"coin": "tosses the coin it is given"}
PLAY = __name__
COUNTS = ("win",)
MAX_SEATS = 3


def is_bot(name: str) -> bool:
    return name in BOTS


class Engine:
    """By symmetry every seat of n wins 1/n of the games, exactly; simulated, a shared win splits."""

    variant_name = "standard"
    unit = "game"

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        return {"win": np.full(len(bots), 1.0 / len(bots))}

    def simulate(self, bots: list[str], rounds: int, rng) -> dict[str, np.ndarray]:
        heads = rng.integers(0, 2, size=(rounds, len(bots)))
        top = heads == heads.max(axis=1, keepdims=True)
        return {"win": (top / top.sum(axis=1, keepdims=True)).sum(axis=0)}


def engine(db, variant, players: int) -> Engine:
    return Engine()


# -- play (dicebase.bots.play.TurnEngine) ----------------------------------------------------------------
DEFAULT_BOTS = ("coin",)


class Turns:
    final_round = "one_each"
    goal = 1
    max_turns = MAX_SEATS
    must_end = True
    game = "toy-toss"

    def __init__(self, players: list[str], ask, rng):
        self.players, self.ask, self.rng, self.decisions = players, ask, rng, []

    def header(self, m: int, score: list[int], final: bool) -> str:
        return f"seat {m + 1} ({self.players[m]}) tosses"

    def turn(self, m: int, score: list[int], final: bool) -> int:
        if self.players[m] == "you":
            self.ask("toss? ")
        return int(self.rng.integers(0, 2))

    def reached(self, m: int) -> str | None:
        return None

    def result(self, score: list[int], m: int) -> str:
        return f"scores {score}"


def turns(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, **_) -> Turns:
    players = list(bots[: seat - 1]) + ["you"] + list(bots[seat - 1:])
    return Turns(players, ask, np.random.default_rng(seed))


def choices(prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    return [("toss", "Toss")]


# -- page (descriptor pages = "module:page") ---------------------------------------------------------------
def page(server, request):
    from starlette.responses import PlainTextResponse

    return PlainTextResponse(f"toss page of {server.name}")


# -- layout: the Datasette canned queries (dicebase.builder.datasette.CannedQueries) -----------------------
SOURCE = "a toy of the tests (no source)"


def canned_queries() -> dict[str, dict]:
    return {"toy_toss_heads": {"title": "Toss: heads", "description": "One row: the chance of heads.",
                               "sql": "SELECT 0.5 AS p_heads", "params": []}}


def register() -> None:
    """Register the toy (idempotent): its descriptor names this module as its bots, play, page and layout."""
    from dicebase import games

    games.register(games.Game(GAME, "Toss", bots=__name__, layout=__name__, pages=f"{__name__}:page",
                              page_title="Toss", page_blurb="Toss a coin."))


def unregister() -> None:
    from dicebase import games

    games.unregister(GAME)
