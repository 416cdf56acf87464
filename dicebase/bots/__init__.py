"""Bots: every stored policy as a player; exact tournaments, simulated ones, and a game to play.

    from dicebase import query, bots
    with query.open("db/dicebase.duckdb") as db:
        t = bots.tournament(db, "threes", ["random"] * 3 + ["only-3s"] * 3)
        s = bots.simulate(db, "threes", ["only-3s", "win"] * 3, rounds=10_000, seed=3)

A bot reads its decisions from the database (docs/bots.md lists them).  ``tournament`` is exact:
each seat's probability of winning (a Threes round; a Great Rolled Ones or 10,000 game) from the bots' turn
outcome distributions and the game's recursion, no sampling.  ``simulate`` plays with dice.

Each game's bots module (its descriptor's ``bots``, :mod:`dicebase.games`) is a :class:`GameBots`: its bots,
its play module, its ways to count a win, its most seats, and ``engine(db, variant, players)``.
"""

from __future__ import annotations

import itertools
import weakref
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from dicebase import games
from dicebase.bots.base import seat_names, wilson
from dicebase.errors import BadInput

MAX_SEATINGS = 5040  # --rotate: distinct seatings evaluated (7 different bots)
MAX_ROUNDS = 100_000_000


class BotEngine(Protocol):
    """One game's bots on an open database for one rule set and number of seats."""

    #: the rule set played (as the answers name it)
    variant_name: str
    #: what one exact or simulated result is: ``"round"`` (Threes) or ``"game"``
    unit: str

    def exact(self, bots: list[str]) -> dict[str, Any]:
        """Each seat's exact chance (numpy array over seats) by way of counting (:attr:`GameBots.COUNTS`)."""

    def simulate(self, bots: list[str], rounds: int, rng) -> dict[str, Any]:
        """Each seat's wins in ``rounds`` rounds or games played with dice from ``rng``, by way of counting."""


@runtime_checkable
class GameBots(Protocol):
    """A game's bots module, as this package and :mod:`dicebase.bots.play` read it."""

    #: bot name -> what it plays (``is_bot`` may take more names: 10,000's bank-T)
    BOTS: dict[str, str]
    #: its play module (``turns(...)``, the :class:`dicebase.bots.play.TurnEngine` of the game loop)
    PLAY: str
    #: ways to count a win in ``simulate`` (``"win"`` first; Threes adds its tie counts)
    COUNTS: tuple[str, ...]
    #: the most seats a tournament takes, from the rules (None: the engine checks the built rounds)
    MAX_SEATS: int | None

    def is_bot(self, name: str) -> bool:
        """Whether ``name`` is one of its bots."""

    def engine(self, db, variant: str | None, players: int) -> BotEngine:
        """Its bots for rule set ``variant`` (None: the default) and ``players`` seats."""


def _game_name(game) -> str:
    name = str(game).replace("_", "-") if isinstance(game, str) else game
    known = games.cli_names("bots")  # the games whose descriptors name a bots module, registered ones too
    if name not in known:
        raise BadInput(f"unknown game {game!r} for bots; games: {', '.join(known)}")
    return name


def _module(game: str) -> GameBots:
    """The bots module of ``game`` (its CLI name), as its descriptor names it."""
    return games.load(game, "bots")


def bot_names(game: str) -> dict[str, str]:
    """Every bot of a game: name -> what it plays."""
    return dict(_module(_game_name(game)).BOTS)


def is_bot(game: str, name) -> bool:
    """Whether ``name`` is a bot of ``game`` (its module's ``is_bot``: 10,000 also takes any bank-T threshold
    player)."""
    return isinstance(name, str) and _module(_game_name(game)).is_bot(name)


def _check_bots(game: str, bots, least: int = 2) -> list[str]:
    if isinstance(bots, str) or not isinstance(bots, (list, tuple)):
        raise BadInput(f"bots must be a list of bot names, got {bots!r}")
    known = bot_names(game)
    if len(bots) < least:
        raise BadInput(f"a {game} tournament needs at least {least} bots, got {len(bots)}")
    for b in bots:
        if not is_bot(game, b):
            others = [g for g in games.cli_names("bots") if g != game and is_bot(g, b)]
            where = f" (it is a {others[0]} bot)" if others else ""
            raise BadInput(f"unknown {game} bot {b!r}{where}; {game} bots: {', '.join(known)}")
    most = _module(game).MAX_SEATS
    if most is not None and not 2 <= len(bots) <= most:
        raise BadInput(f"a {game} tournament takes 2 to {most} players (more than 2: the N-player "
                       f"tables), got {len(bots)} bots")
    return list(bots)


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str
    player: str
    p_win: float  # threes: every player tied for the lowest wins (seed 003's count); games: wins the game
    p_split: float | None = None  # threes: a tie splits one win
    p_sole: float | None = None  # threes: only a unique lowest score wins


@dataclass(frozen=True)
class Tournament:
    game: str
    variant: str
    bots: tuple[str, ...]
    rotate: bool
    seatings: int
    seats: tuple[SeatResult, ...]
    unit: str  # 'round' or 'game'

    def as_dict(self) -> dict:
        doc = asdict(self)
        doc["bots"] = list(self.bots)
        doc["seats"] = [{k: v for k, v in asdict(s).items() if v is not None} for s in self.seats]
        return doc


@dataclass(frozen=True)
class SimSeat:
    seat: int
    bot: str
    player: str
    wins: float
    rate: float
    low: float
    high: float
    exact: float
    outside: bool


@dataclass(frozen=True)
class Simulation:
    game: str
    variant: str
    bots: tuple[str, ...]
    rounds: int
    seed: int
    count: str
    seats: tuple[SimSeat, ...]
    outside: int = field(default=0)
    unit: str = field(default="game")  # 'round' or 'game' (the printed table's; not in the JSON document)

    def as_dict(self) -> dict:
        doc = asdict(self)
        doc["bots"] = list(self.bots)
        del doc["unit"]
        return doc


#: The bots of each open database, by (game, variant): what they read and computed is kept while it is open.
_ENGINES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _engine(db, game: str, variant: str | None, players: int = 2) -> BotEngine:
    if variant is not None and not isinstance(variant, str):
        raise BadInput(f"variant must be a rule set's name, got {variant!r}")
    held = _ENGINES.setdefault(db, {})
    key = (game, variant, players if games.game(game).n_players else 0)  # one engine for every round size
    if key not in held:
        held[key] = _module(game).engine(db, variant, players)
    return held[key]


def tournament(db, game: str, bots, *, rotate: bool = False, variant: str | None = None) -> Tournament:
    """Each seat's exact probability of winning (Threes: one round; Great Rolled Ones, 10,000: a game;
    Great Rolled Ones of 3 players from the N-player tables).

    ``rotate``: each listed player's average over every distinct seating instead."""
    game = _game_name(game)
    bots = _check_bots(game, bots)
    engine = _engine(db, game, variant, len(bots))
    names = seat_names(bots)
    n = len(bots)
    if not rotate:
        res = engine.exact(bots)
        seatings = 1
        per = [{c: float(res[c][s]) for c in res} for s in range(n)]
    else:
        orders = list(itertools.permutations(range(n)))
        distinct = {tuple(bots[i] for i in p) for p in orders}
        if len(distinct) > MAX_SEATINGS:
            raise BadInput(f"--rotate over {len(distinct)} distinct seatings is too many (at most {MAX_SEATINGS})")
        cache = {seq: engine.exact(list(seq)) for seq in distinct}
        per = [{c: 0.0 for c in next(iter(cache.values()))} for _ in range(n)]
        for p in orders:
            res = cache[tuple(bots[i] for i in p)]
            for s, player in enumerate(p):
                for c in res:
                    per[player][c] += float(res[c][s]) / len(orders)
        seatings = len(distinct)
    seats = tuple(
        SeatResult(s + 1, bots[s], names[s], per[s]["win"], per[s].get("split"), per[s].get("sole"))
        for s in range(n)
    )
    return Tournament(game, engine.variant_name, tuple(bots), bool(rotate), seatings, seats, engine.unit)


def simulate(db, game: str, bots, *, rounds: int, seed: int = 0, variant: str | None = None,
             count: str = "win", progress=None, chunk: int = 200_000) -> Simulation:
    """Play ``rounds`` rounds (Threes) or games with real dice, seeded; wins with 95% intervals and
    the exact value beside each.  ``progress(done)`` is called after every chunk."""
    import numpy as np

    game = _game_name(game)
    bots = _check_bots(game, bots)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise BadInput(f"rounds must be a whole number 1..{MAX_ROUNDS:,}, got {rounds!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise BadInput(f"seed must be a whole number >= 0, got {seed!r}")
    counts = _module(game).COUNTS
    if count not in counts:
        raise BadInput(f"count must be one of {', '.join(counts)} for {game}, got {count!r}")
    engine = _engine(db, game, variant, len(bots))
    exact = engine.exact(bots)[count]
    rng = np.random.default_rng(seed)
    wins = np.zeros(len(bots))
    done = 0
    while done < rounds:
        n = min(chunk, rounds - done)
        wins += engine.simulate(bots, n, rng)[count]
        done += n
        if progress is not None:
            progress(n)
    names = seat_names(bots)
    seats = []
    for s, b in enumerate(bots):
        low, high = wilson(float(wins[s]), rounds)
        e = float(exact[s])
        seats.append(SimSeat(s + 1, b, names[s], float(wins[s]), float(wins[s]) / rounds, low, high, e,
                             not low <= e <= high))
    return Simulation(game, engine.variant_name, tuple(bots), rounds, seed, count, tuple(seats),
                      sum(s.outside for s in seats), engine.unit)
