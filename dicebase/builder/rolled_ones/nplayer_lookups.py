"""Lookups of N-player Great Rolled Ones (:mod:`.nplayer` documents the equations): every state of a
turn below the goal (:func:`turn_values`) and of a final turn (:func:`final_turn_values`),
computed from stored turn-start vectors and the final-round tables by the turn defined once in
:mod:`dicebase.rules.rolled_ones_turn` (compiled; the query layer, :mod:`dicebase.query.rolled_ones_n`,
runs the same functions in plain Python).
"""

from __future__ import annotations

import numpy as np

from dicebase.builder.rolled_ones.nplayer_final import Finals, final_start
from dicebase.builder.rolled_ones.nplayer_spec import Spec
from dicebase.numeric.rolled_ones_turn import final_turn, outcome_arrays, play_turn


def turn_values(scores, seat: int, start_values_lookup, spec: Spec, finals: Finals, mixing=None):
    """Every ``(k, o)`` state of seat ``seat``'s (0-based) turn at ``scores`` (all below the goal).

    ``start_values_lookup(scores, seat) -> (N,)`` gives a stored turn-start win vector
    (e.g. :meth:`.nplayer.Solution.lookup`); ``finals`` the final round; ``mixing`` the mixed
    equilibrium's ``[(k, o, p_roll)]`` for this tuple and seat, if any.  Returns a dict of
    arrays over ``k = 0 .. K`` (turn total), ``o`` (1s set aside), ``e`` (seat):
    ``p_roll[k, o, e]``, ``p_hold[k, e]`` (NaN at ``k = 0``: holding not allowed),
    ``roll[k, o]`` (probability the mover rolls: 1, 0 or the mixing probability), ``p_win[k, o, e]``.
    Unreachable ``(k, o)`` are computed too (as if reached).  Reads ``N`` stored vectors from the
    higher tuples and the next seat's start vector; the turn itself is the one definition,
    :func:`dicebase.rules.rolled_ones_turn.play_turn`, compiled.
    """
    r, N = spec.rules, spec.players
    G, K, D, L = r.goal, r.turn_total_bound, r.dice, r.ones_limit
    scores = tuple(int(s) for s in scores)
    m = seat
    nxt = (m + 1) % N
    bust = np.asarray(start_values_lookup(scores, nxt), dtype=float)
    hold = np.full((K + D + 1, N), np.nan)
    for k in range(1, K + D + 1):
        t = scores[m] + k
        if t < G:
            higher = list(scores)
            higher[m] = t
            hold[k] = start_values_lookup(tuple(higher), nxt)
        else:
            hold[k] = 0.0
            if m == N - 1:
                hold[k, m] = 1.0
            else:
                roles = final_start(spec, finals, m + 1, t, scores[m + 1:])
                hold[k, m] = roles[0]
                hold[k, m + 1:] = roles[1:]
    mixq = np.full((K + 1, L), np.nan)
    for k, o, q in mixing or []:
        mixq[k, o] = q
    value, p_roll, roll = np.zeros((K + D + 1, L, N)), np.zeros((K + 1, L, N)), np.zeros((K + 1, L))
    p_end, out_p, out_g, out_o, out_n = outcome_arrays(r)
    play_turn(m, 0, N, K, D, L, 0, spec.tie_tolerance, p_end, out_p, out_g, out_o, out_n, hold, bust, mixq, value,
              p_roll, roll, np.zeros(N))
    return {"p_roll": p_roll, "p_hold": hold[: K + 1], "roll": roll, "p_win": value[: K + 1]}


def final_turn_values(spec: Spec, finals: Finals, j: int, X: int, later: tuple[int, ...]):
    """Seat ``j``'s (0-based, ``1 <= j < N``) final turn with bar ``X``; ``later`` = the scores of seats
    ``j+1 .. N-1``.  Returns ``(value, roll)``: ``value[t, o, role]`` over roles ``[leader, j, .., N-1]``
    for totals ``t = 0 .. G + TT`` (``t = s_j + k``; ``TT`` the stored free-region width) and ``roll[t, o]``
    (must roll at ``t <= X``)."""
    r, N = spec.rules, spec.players
    G, L = r.goal, r.ones_limit
    R = 0
    for s in later:
        R = R * G + int(s)
    nxt = np.array([1.0]) if j == N - 1 else final_start(spec, finals, j + 1, X, tuple(later))
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])  # the old leader keeps its role, j gets 0
    top = G + finals.fa[j].shape[1]
    value = np.zeros((top + 1, L, N - j + 1))
    roll = np.ones((top + 1, L), dtype=bool)  # at or below the bar it must roll
    roll[X + 1:] = finals.froll[j][R, X - G:]
    p_end, out_p, out_g, out_o, out_n = outcome_arrays(r)
    final_turn(N - j, G, L, top, X, 0, bust, finals.fa[j][R], finals.fc[j][R], p_end, out_p, out_g, out_o, out_n,
               value, np.zeros(N - j + 1))
    return value, roll
