"""Great Rolled Ones: rule parameters and the two acyclic equations of seed 002.

Seed 002 (Neller, Nguyen, Pham, Phan, Presser, "Optimal Play of the Great
Rolled Ones Game") describes a non-terminal state as the 5-tuple
``(p, i, j, k, o)``: ``p`` the player to move (1 or 2), ``i`` the mover's
score, ``j`` the opponent's score, ``k`` the turn total and ``o`` the number
of rolled 1s set aside this turn.  This module holds the rule parameters and
the two equations that need no iteration:

* ``P_new1s(d, o_new)``: the chance that ``o_new`` of ``d`` rolled dice are 1s;
* ``P_exceed(Delta, o)``: the chance that player 2, on the final turn, exceeds
  player 1's score at or above the goal, ``Delta = j - (i + k)`` behind.

Nothing here is specific to 5 dice, goal 50 or three 1s: those are fields of
:class:`Rules`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from math import comb

import numpy as np


@dataclass(frozen=True)
class Rules:
    """One rule set of Great Rolled Ones (two players).

    ``goal``: a player ending a turn with ``goal`` or more points makes that round
    the last; player 2 must then exceed player 1's score (seed 002).
    ``dice``: dice rolled at the start of a turn; rolled 1s are set aside.
    ``ones_limit``: a turn ends with no score change once this many 1s are set aside
    (3 in the seed).  ``faces``: faces per die (a 1 has chance ``1/faces``).
    ``turn_total_bound``: the largest turn total ``k`` kept in the state space;
    the rules do not bound ``k`` (see ``solver`` for why the values below the
    bound are exact).
    """

    goal: int = 50
    dice: int = 5
    ones_limit: int = 3
    faces: int = 6
    turn_total_bound: int = 80

    def __post_init__(self) -> None:
        if self.goal < 1:
            raise ValueError(f"goal must be at least 1, got {self.goal}")
        if not 1 <= self.ones_limit <= self.dice:
            raise ValueError(
                f"need 1 <= ones_limit <= dice so every allowed roll has a die to roll, "
                f"got ones_limit={self.ones_limit}, dice={self.dice}"
            )
        if self.faces < 2:
            raise ValueError(f"faces must be at least 2, got {self.faces}")
        if self.turn_total_bound < self.goal:
            raise ValueError(
                f"turn_total_bound must be at least the goal ({self.goal}), got {self.turn_total_bound}"
            )

    def as_dict(self) -> dict:
        return asdict(self)

    # ---- roll outcomes -------------------------------------------------
    @property
    def ones(self) -> range:
        """Values of ``o`` in a non-terminal state: 0 .. ones_limit - 1."""
        return range(self.ones_limit)

    @cached_property
    def outcomes(self) -> tuple[tuple[tuple[float, int, int], ...], ...]:
        """For each ``o``: the non-ending roll outcomes ``(P_new1s(d, n), d - n, o + n)``.

        ``d = dice - o`` dice are rolled and ``n`` of them are new 1s with
        ``o + n < ones_limit``; the turn total grows by the ``d - n`` non-1s
        (seed 002's ``5 - o'``).  Outcomes with ``o + n >= ones_limit`` end the turn.
        """
        out = []
        for o in self.ones:
            d = self.dice - o
            out.append(
                tuple((P_new1s(d, n, self.faces), d - n, o + n) for n in range(self.ones_limit - o))
            )
        return tuple(out)

    @cached_property
    def p_end(self) -> np.ndarray:
        """``p_end[o]``: chance the next roll brings the 1s set aside to ``ones_limit`` or more."""
        return np.array(
            [
                sum(P_new1s(self.dice - o, n, self.faces) for n in range(self.ones_limit - o, self.dice - o + 1))
                for o in self.ones
            ]
        )

    @property
    def min_gain(self) -> int:
        """Fewest points a roll that does not end the turn adds (``dice - ones_limit + 1``)."""
        return self.dice - self.ones_limit + 1


def P_new1s(d: int, o_new: int, faces: int = 6) -> float:
    """Seed 002: ``P_new1s(d, o_new) = C(d, o_new) (1/6)^o_new (5/6)^(d - o_new)``.

    The probability that exactly ``o_new`` of ``d`` rolled dice show a 1
    (``0 <= o_new <= d``); ``faces`` generalises the 6.
    """
    q = 1.0 / faces
    return comb(d, o_new) * q**o_new * (1.0 - q) ** (d - o_new)


def P_new1s_table(rules: Rules) -> np.ndarray:
    """``table[d, n] = P_new1s(d, n)`` for ``0 <= n <= d <= dice`` (0 where ``n > d``)."""
    t = np.zeros((rules.dice + 1, rules.dice + 1))
    for d in range(rules.dice + 1):
        for n in range(d + 1):
            t[d, n] = P_new1s(d, n, rules.faces)
    return t


#: Turn totals ``Delta`` computed per matrix product in :func:`P_exceed_table`.
P_EXCEED_BLOCK = 64


def P_exceed_table(rules: Rules, delta_max: int) -> np.ndarray:
    """Seed 002's ``P_exceed(Delta, o)`` for ``Delta = -1 .. delta_max``, ``o = 0 .. ones_limit``.

    ::

        P_exceed(Delta, o) = 0                                  if o >= 3
                             1                                  if Delta < 0
                             sum_{n=0}^{2-o} P_new1s(5 - o, n) P_exceed(Delta - (5 - o'), o')
                                                                otherwise, o' = o + n

    Row ``Delta + 1`` holds ``Delta``; row 0 (``Delta = -1``) stands for every
    ``Delta < 0``.  Column ``o = ones_limit`` is the ``o >= 3`` case (all 0).

    Vectorised: the recursion is linear with constant coefficients and looks
    back at most ``dice`` rows, so the rows ``Delta = s .. s + B - 1`` are one
    fixed matrix ``T`` (``B * L x dice * L``) times the ``dice`` rows below
    ``s``.  ``T`` is built once by running the recursion on coefficient
    vectors (``B`` steps), then each block of ``B`` rows is one matrix-vector
    product.  Equal to the row-by-row recursion within 4e-16 (a test keeps
    the scalar recursion as the reference).
    """
    L, D, B = rules.ones_limit, rules.dice, P_EXCEED_BLOCK
    outcomes = [(prob, gain, o_next, o) for o in rules.ones for prob, gain, o_next in rules.outcomes[o]]
    # C[r, o]: row r - D (Delta = s + r - D) as coefficients of the D * L values of rows s - D .. s - 1
    C = np.zeros((D + B, L, D * L))
    C[:D].reshape(D * L, D * L)[...] = np.eye(D * L)
    for b in range(D, D + B):
        for prob, gain, o_next, o in outcomes:  # n = 0 .. 2 - o: the turn goes on (o' < ones_limit)
            C[b, o] += prob * C[b - gain, o_next]
    T = C[D:].reshape(B * L, D * L)
    n = delta_max + 1
    rows = np.ones((D + -(-n // B) * B, L))  # the first D rows: Delta < 0, already exceeded
    for s in range(D, len(rows), B):
        rows[s : s + B] = (T @ rows[s - D : s].ravel()).reshape(B, L)
    table = np.zeros((delta_max + 2, L + 1))
    table[0, :L] = 1.0  # Delta < 0: player 2 has exceeded player 1
    table[1:, :L] = rows[D : D + n]
    return table


def P_exceed(table: np.ndarray, delta, o):
    """Look up ``P_exceed(Delta, o)`` in a table from :func:`P_exceed_table` (arrays allowed)."""
    delta = np.maximum(np.asarray(delta), -1)
    return table[delta + 1, o]


def reachable_turns(rules: Rules) -> np.ndarray:
    """``reach[k, o]``: whether a turn can be at turn total ``k`` with ``o`` 1s set aside.

    A turn starts at ``(k, o) = (0, 0)`` and every roll that does not end it
    adds ``dice - o'`` points (at least ``dice - ones_limit + 1``), so e.g. with
    5 dice a turn total of 1 or 2, or one with no 1s that is not a multiple of
    5, cannot occur.  Only reachable ``(k, o)`` are stored.
    """
    K, L = rules.turn_total_bound, rules.ones_limit
    reach = np.zeros((K + 1, L), dtype=bool)
    reach[0, 0] = True
    for k in range(K + 1):
        for o in rules.ones:
            if reach[k, o]:
                for _, gain, o_next in rules.outcomes[o]:
                    if k + gain <= K:
                        reach[k + gain, o_next] = True
    return reach
