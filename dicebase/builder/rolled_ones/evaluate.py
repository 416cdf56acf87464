"""Win probabilities of a fixed policy against the optimal player, in both seats.

The opponent keeps playing the optimal policy of :mod:`solver` (it does not
adapt to the human policy).  With both players' decisions fixed the
equations are linear: a turn's values are ``a + c * b`` in its "turn ends on
the 1s limit" value ``b``, the 2-cycle between the two turn starts of a
score pair is a 2x2 system, and one pass over the score-sum levels (from
``2G - 2`` down to 0, ``k`` descending inside each turn) solves every state
exactly.  All policies and both seats are stacked into one array per level,
so the cost is one such pass for all of them.

Beyond the turn-total bound ``K`` the optimal player holds (proven in
:mod:`solver`), but a human policy may keep rolling (Algorithm 1 rolls until
two 1s are set aside, whatever the score).  Its turns beyond ``K`` are
evaluated first, for all score pairs at once, up to ``K + tail``, where
``tail`` is the smallest length with ``max_o P_exceed(tail, o) <= 1e-16``:
``P_exceed(tail, o)`` is exactly the chance of a turn gaining more than
``tail`` points, so treating turns beyond ``K + tail`` as holding changes
any value by at most that.

Player 2's final turn (``j >= G``) is the same for every policy and for
optimal play (roll until exceeding ``j``, then hold), so its values are
``P_exceed`` for every matchup; :func:`final_turn_agrees` checks that.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dicebase.numeric.rolled_ones_policies import decide
from dicebase.builder.rolled_ones.rules import P_exceed_table
from dicebase.rules.rolled_ones import Rules
from dicebase.builder.rolled_ones.solver import (
    Solution,
    delta_max,
    final_turn_starts,
    hold_values,
    level_pairs,
    roll_matrix,
    solve_two_cycle,
    turn_kernel,
)

#: Truncation of a human policy's turns beyond the bound: P(turn gains > tail points).
TAIL_ERROR = 1e-16


@dataclass
class PolicyValues:
    """One policy against the optimal player.

    Arrays are ``[p - 1, i, j, k, o]`` for ``i, j < G``, ``k <= K``:
    ``roll``: the policy's decision; ``moving``: the policy's win probability
    when it is the player to move (it plays seat ``p``); ``waiting``: its win
    probability when the optimal player is to move (the policy plays seat
    ``3 - p``).  ``seat_win[s - 1]``: its win probability from the start of
    the game playing seat ``s``.
    """

    name: str
    roll: np.ndarray
    moving: np.ndarray
    waiting: np.ndarray
    seat_win: tuple[float, float]
    turn_start: np.ndarray = field(repr=False)  # [seat - 1, p - 1, i, x]: mover's win prob at turn starts


def policy_decisions(rules: Rules, rule: Callable, k_lo: int, k_hi: int) -> np.ndarray:
    """The rule's roll decisions ``[p - 1, i, j, k - k_lo, o]`` for ``i, j < G``, ``k_lo <= k <= k_hi``."""
    G, L = rules.goal, rules.ones_limit
    p = np.array([1, 2]).reshape(2, 1, 1, 1, 1)
    i = np.arange(G).reshape(1, G, 1, 1, 1)
    j = np.arange(G).reshape(1, 1, G, 1, 1)
    k = np.arange(k_lo, k_hi + 1).reshape(1, 1, 1, -1, 1)
    o = np.arange(L).reshape(1, 1, 1, 1, L)
    out = decide(rule, p, i, j, k, o, rules.goal)
    return np.broadcast_to(out, (2, G, G, k_hi - k_lo + 1, L))


def final_turn_agrees(rules: Rules, rule: Callable, j_max: int | None = None) -> bool:
    """True when the rule plays player 2's final turn as optimal play does: roll iff ``i + k <= j``."""
    G, K, L = rules.goal, rules.turn_total_bound, rules.ones_limit
    j_max = G - 1 + K if j_max is None else j_max
    i = np.arange(G).reshape(G, 1, 1, 1)
    j = np.arange(G, j_max + 1).reshape(1, -1, 1, 1)
    k = np.arange(K + 1).reshape(1, 1, -1, 1)
    o = np.arange(L).reshape(1, 1, 1, L)
    got = decide(rule, 2, i, j, k, o, G)
    want = (i + k <= j) | (k == 0)
    return bool(np.all(np.broadcast_to(got, np.broadcast_shapes(got.shape, want.shape)) == want))


def tail_length(rules: Rules) -> int:
    """Smallest ``t`` with ``max_o P_exceed(t, o) <= TAIL_ERROR`` (a turn gaining more than ``t``)."""
    pex = P_exceed_table(rules, 4000)
    ok = np.nonzero(pex[1:, : rules.ones_limit].max(axis=1) <= TAIL_ERROR)[0]
    if len(ok) == 0:  # pragma: no cover - absurd rules (a 1 almost never rolled)
        raise ValueError("turns are too long to bound the tail; use more faces-friendly rules")
    return int(ok[0])


def _tail_values(rules: Rules, pex: np.ndarray, dec: np.ndarray, p: int, tail: int) -> np.ndarray:
    """A policy's turn values ``(a, c)`` for ``k = K + 1 .. K + D``, all score pairs ``(i, j)``.

    Shape ``(D, L, 2, G * G)``, column ``i * G + j``.  Holding beyond ``K``
    (``i + k >= G`` there) is worth ``1 - P_exceed(i + k - j, 0)`` to player 1
    and 1 to player 2.
    """
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    i = np.repeat(np.arange(G), G)
    j = np.tile(np.arange(G), G)
    k = np.arange(K + 1, K + tail + D + 1)[:, None]
    H = 1.0 - pex[i[None, :] + k - j[None, :] + 1, 0] if p == 1 else np.ones((len(k), G * G))
    AC = np.zeros((tail + D, L, 2, G * G))
    AC[tail:, :, 0, :] = H[tail:, None, :]  # beyond K + tail: hold
    fixed = dec[p - 1].reshape(G * G, tail, L).transpose(1, 2, 0)
    R = np.empty((tail, L, 2, G * G))
    out = np.empty((tail, L, G * G), dtype=bool)
    turn_kernel(rules, roll_matrix(rules), AC, H, None, fixed, R, out, top=tail - 1, k_offset=K + 1)
    return AC[:D]


@dataclass
class Evaluation:
    policies: dict[str, PolicyValues]
    stats: dict


def evaluate(solution: Solution, rules_by_name: dict[str, Callable], progress: Callable | None = None) -> Evaluation:
    """Evaluate each policy against the optimal policy of ``solution``, in both seats, exactly.

    ``progress(iterable, label, length)`` wraps the loop over score-sum levels
    (the build's progress bar); None iterates plainly.
    """
    started = time.perf_counter()
    rules = solution.rules
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    names = list(rules_by_name)
    Q = len(names)
    tail = tail_length(rules)
    pex = P_exceed_table(rules, delta_max(rules, tail))
    M = roll_matrix(rules)
    width = G + K + D

    decisions = [np.ascontiguousarray(policy_decisions(rules, rules_by_name[n], 0, K)) for n in names]
    tails = []
    for n in names:
        dec_tail = np.ascontiguousarray(policy_decisions(rules, rules_by_name[n], K + 1, K + tail))
        tails.append([_tail_values(rules, pex, dec_tail, p, tail) for p in (1, 2)])

    # Tm[q, seat - 1, p - 1, i, x]: turn-start value for the mover in matchup (policy q, seat)
    Tm = np.broadcast_to(final_turn_starts(rules, pex, width), (Q, 2, 2, G, width)).copy()
    moving = np.zeros((Q, 2, G, G, K + 1, L))
    waiting = np.zeros((Q, 2, G, G, K + 1, L))
    opt = solution.roll

    levels = range(2 * G - 2, -1, -1)
    if progress is not None:
        levels = progress(levels, "policy evaluation, score sums", length=len(levels))
    for s in levels:
        i, j = level_pairs(rules, s)
        n = len(i)
        # groups g = (q, seat, turn): turn 0 = player 1 at (i, j), turn 1 = player 2 at (j, i)
        Hs, fixed, tails_now = [], [], []
        for q in range(Q):
            for seat in (1, 2):
                for p, (mi, mj) in ((1, (i, j)), (2, (j, i))):
                    H = hold_values(Tm[q, seat - 1], p, mi, mj, K + D)
                    Hs.append(H)
                    if seat == p:  # the policy moves
                        fixed.append(decisions[q][p - 1, mi, mj].transpose(1, 2, 0))
                        tails_now.append(tails[q][p - 1][..., mi * G + mj])
                    else:  # the optimal player moves, holding beyond the bound
                        fixed.append(opt[p - 1, mi, mj].transpose(1, 2, 0))
                        t = np.zeros((D, L, 2, n))
                        t[:, :, 0, :] = H[K + 1 :, None, :]
                        tails_now.append(t)
        H = np.concatenate(Hs, axis=1)
        m = H.shape[1]
        AC = np.empty((K + D + 1, L, 2, m))
        AC[K + 1 :] = np.concatenate(tails_now, axis=-1)
        R = np.empty((K + 1, L, 2, m))
        dec = np.empty((K + 1, L, m), dtype=bool)
        turn_kernel(rules, M, AC, H, None, np.concatenate(fixed, axis=-1), R, dec)
        a0 = AC[0, 0, 0].reshape(Q, 2, 2, n)
        c0 = AC[0, 0, 1].reshape(Q, 2, 2, n)
        x, y = solve_two_cycle(a0[:, :, 0], c0[:, :, 0], a0[:, :, 1], c0[:, :, 1])  # (Q, 2, n)
        Tm[:, :, 0, i, j] = x
        Tm[:, :, 1, j, i] = y
        b = np.stack([1.0 - y, 1.0 - x], axis=2)  # (Q, seat, turn, n)
        V = AC[: K + 1, :, 0].reshape(K + 1, L, Q, 2, 2, n) + AC[: K + 1, :, 1].reshape(K + 1, L, Q, 2, 2, n) * b
        V = V.transpose(2, 3, 4, 5, 0, 1)  # (Q, seat, turn, n, K+1, L)
        moving[:, 0, i, j] = V[:, 0, 0]
        moving[:, 1, j, i] = V[:, 1, 1]
        waiting[:, 0, i, j] = 1.0 - V[:, 1, 0]
        waiting[:, 1, j, i] = 1.0 - V[:, 0, 1]

    out = {}
    for q, name in enumerate(names):
        out[name] = PolicyValues(
            name=name,
            roll=decisions[q],
            moving=moving[q],
            waiting=waiting[q],
            seat_win=(float(Tm[q, 0, 0, 0, 0]), float(1.0 - Tm[q, 1, 0, 0, 0])),
            turn_start=Tm[q],
        )
    stats = {
        "method": "one pass over score-sum levels, k descending, exact 2x2 solve of the turn-start 2-cycle",
        "opponent": "the optimal policy (fixed, does not adapt); beyond the bound it holds",
        "tail_turn_totals": tail,
        "tail_error_bound": TAIL_ERROR,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return Evaluation(out, stats)
