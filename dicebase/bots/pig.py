"""Pig bots (issue 31; docs/pig.md): optimal play (the stored equilibrium) and the simple policies.

- ``optimal``: the stored policy, decided as ``dicebase pig best`` decides (the turn of
  :mod:`dicebase.rules.pig_turn` over the stored turn starts; with three or more players the stored mixing where a
  seat randomises).  It does not adapt to the other bots: it plays the equilibrium of optimal seats.
- ``hold-at-N`` for any N (``hold-at-20``, ``hold-at-25`` ...): roll while the turn total is below N, then hold.
- ``four-turns``: Neller and Presser's "four turns" style as the tables define it (``pig_policies``: roll while
  the turn total is below ``ceil((goal - score) / t)``, ``t = ceil(4 (goal - score) / goal)`` turns left).

Every bot holds at once when its score plus turn total reaches the goal: that wins.

Exact (``tournament``): each seat's chance to win from the game's recursion over the score tuples, from the
highest down, every turn valued under its bot's decisions by the one turn function and each tuple's cycle of
busts solved in closed form (:func:`dicebase.bots.pig_kernels.lineup_starts`): no sampling.  With ``optimal``
in one seat and a simple policy in another (two players) it is the tables' own ``pig_policy_wins``.
``simulate`` plays games with a seeded die (:func:`dicebase.bots.pig_kernels.play_games`).
"""

from __future__ import annotations

import re
from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays
from dicebase.errors import NotInDatabase
from dicebase.layout import pig as layout
from dicebase.rules.pig import MAX_PLAYERS, POLICIES
from dicebase.rules.pig_turn import HOLD_AT, TURNS

GAME = "pig"
BOTS = {
    "optimal": "optimal play: the stored equilibrium (pig_turn_starts; Neller and Presser 2004 for two players)",
    "hold-at-20": "roll while the turn total is below 20, then hold (any hold-at-N: N a whole number 1..1000)",
    "hold-at-25": "roll while the turn total is below 25, then hold",
    "four-turns": "Neller and Presser's 'four turns' style: " + POLICIES["four_turns"].definition,
}
#: ``hold-at-N`` for any whole N in 1..MAX_HOLD_AT (beyond the goal it is "roll to the goal").
PATTERN = re.compile(r"^hold-at-([1-9][0-9]{0,3})$")
MAX_HOLD_AT = 1000
#: Its turn engine for the game loop (:func:`dicebase.bots.play.play`): a module with ``turns(...)``.
PLAY = "dicebase.bots.play_pig"
#: Ways to count a win (``simulate``'s ``count``); the most seats a tournament takes (the rules' MAX_PLAYERS).
COUNTS = ("win",)
MAX_SEATS = MAX_PLAYERS


def is_bot(name: str) -> bool:
    """Whether ``name`` is one of :data:`BOTS` or ``hold-at-N`` (N in 1..MAX_HOLD_AT)."""
    if not isinstance(name, str):
        return False
    found = PATTERN.match(name)
    return name in BOTS or (found is not None and int(found.group(1)) <= MAX_HOLD_AT)


def policy(name: str) -> tuple[int, int]:
    """``(kind, param)`` of a bot: the kernels' ``OPTIMAL`` (the stored equilibrium), or
    :func:`dicebase.rules.pig_turn.policy_rolls`'s."""
    if name == "optimal":
        from dicebase.bots.pig_kernels import OPTIMAL

        return OPTIMAL, 0
    if name == "four-turns":
        return TURNS, POLICIES["four_turns"].param
    return HOLD_AT, int(PATTERN.match(name).group(1))


def engine(db, variant: str | None, players: int) -> "Pig":
    """The bots of rule set ``variant`` (None: the default) for ``players`` seats (that block must be built)."""
    return Pig(db, variant, players)


class Pig:
    """Pig's bots on an open database: one rule set, one number of seats."""

    unit = "game"

    def __init__(self, db, variant: str | None, players: int):
        q = db.pig
        self.db = db
        self.v = q.variant(variant)
        q.seats(players, self.v.name)  # NotInDatabase, with the command that adds them, where not built
        self.block = q.built[(self.v.name, players)]
        self.variant_name = self.v.name
        self.rules = self.v.rules
        self.N, self.G = players, self.v.goal
        self.stride = np.array([self.G ** (players - 1 - m) for m in range(players)], dtype=np.int64)
        self._exact: dict[tuple[str, ...], np.ndarray] = {}

    @cached_property
    def stored(self) -> np.ndarray:
        """``opt[idx, m, e]``: the stored turn starts of the block (pig_turn_starts)."""
        N, G = self.N, self.G
        cols = ", ".join(("seat", *layout.SCORES[:N], *layout.WINS[:N]))
        got = arrays(self.db, f"SELECT {cols} FROM {layout.TURN_STARTS} WHERE variant = ? AND players = ?",
                     self.block.key)
        if len(got["seat"]) != N * G ** N:
            raise NotInDatabase(f"{layout.TURN_STARTS} lacks turn starts of {self.v.name} for {N} players; rebuild "
                                f"with: {self.db.pig.rebuild_command()}")
        idx = sum(got[layout.SCORES[m]].astype(np.int64) * self.stride[m] for m in range(N))
        opt = np.zeros((G ** N, N, N))
        for e in range(N):
            opt[idx, got["seat"].astype(np.int64) - 1, e] = got[layout.WINS[e]]
        return opt

    @cached_property
    def mixing(self) -> tuple[np.ndarray, np.ndarray]:
        """(keys ``idx * N + m`` sorted, their roll probabilities by turn total, -1 where not stored): the
        stored mixed equilibria (pig_mixing; none with two players)."""
        N, G = self.N, self.G
        rows: dict[int, np.ndarray] = {}
        if self.block.cycle_tuples:
            got = arrays(self.db, f"SELECT {', '.join(layout.SCORES[:N])}, seat, k, p_roll FROM pig_mixing "
                         "WHERE variant = ? AND players = ?", self.block.key)
            for n in range(len(got["seat"])):
                idx = sum(int(got[layout.SCORES[m]][n]) * int(self.stride[m]) for m in range(N))
                key = idx * N + int(got["seat"][n]) - 1
                rows.setdefault(key, np.full(G, -1.0))[int(got["k"][n])] = float(got["p_roll"][n])
        keys = np.array(sorted(rows), dtype=np.int64)
        return keys, (np.array([rows[k] for k in keys]) if len(keys) else np.zeros((0, G)))

    def _profile(self, bots: list[str]) -> tuple[np.ndarray, np.ndarray]:
        kinds, params = zip(*(policy(b) for b in bots))
        return np.array(kinds, dtype=np.int64), np.array(params, dtype=np.int64)

    def _common(self) -> tuple:
        r = self.rules
        return (self.stored, self.block.tie_tolerance, r.p_face, r.p_bust, np.array(r.gains, dtype=np.int64))

    def starts(self, bots: list[str]) -> np.ndarray:
        """``V[idx, m, e]``: every turn start's win vector of the lineup ``bots`` (seat order)."""
        from dicebase.bots.pig_kernels import lineup_starts

        key = tuple(bots)
        if key not in self._exact:
            kinds, params = self._profile(bots)
            self._exact[key] = lineup_starts(self.N, self.G, self.stride, kinds, params, *self._common(),
                                             *self.mixing)
        return self._exact[key]

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        """Each seat's exact chance to win from every score 0, seat 1 to move."""
        return {"win": self.starts(bots)[0, 0, :].copy()}

    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Wins of each seat over ``games`` games played with dice from ``rng``."""
        from dicebase.bots.pig_kernels import play_games

        kinds, params = self._profile(bots)
        r = self.rules
        return {"win": play_games(games, self.N, self.G, self.stride, kinds, params, *self._common(),
                                  np.array(r.scores, dtype=np.int64), r.bust_face - 1, *self.mixing, rng)}
