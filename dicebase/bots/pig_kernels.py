"""Pig's bots, compiled with numba (:mod:`dicebase.bots.pig` documents the bots and the recursion).

Every decision and every turn's value comes from the one definition of Pig's turn,
:func:`dicebase.rules.pig_turn.turn` (the solver compiles it, the lookups run it as Python), and the simple
policies from :func:`dicebase.rules.pig_turn.policy_rolls`, both compiled once in
:mod:`dicebase.numeric.pig_turn`.  Arrays: ``opt[idx, m, e]`` seat ``e``'s stored win probability at seat ``m``'s turn start at tuple ``idx = sum_m s_m stride_m``
(``stride_m = G^(N-1-m)``, seat 1 the most significant digit, as :mod:`dicebase.layout.pig` stores them).
A bot is ``(kind, param)``: :data:`OPTIMAL` (the stored equilibrium) or a simple policy's kind.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicebase.numeric.cycle import solve_cycle
from dicebase.numeric.pig_turn import policy_rolls, stored_mix, turn

#: The ``optimal`` bot's kind: the stored equilibrium's decisions (the simple policies' kinds are
#: pig_turn.HOLD_AT and pig_turn.TURNS).
OPTIMAL = -1

@njit(cache=True)
def decisions(idx, m, N, G, stride, kind, param, opt, tol, p_face, p_bust, gains, mix_keys, mix_q,
              H, mix, rv, A, c, dec, ivl):
    """``dec[k]``, ``0 <= k < room``: the probability that seat ``m``, playing ``(kind, param)``, rolls at turn
    total ``k`` at tuple ``idx`` (``dec[0] = 1``: a turn starts with a roll).  :data:`OPTIMAL` decides as the
    lookups do (``dicebase pig best``): the turn of :mod:`dicebase.rules.pig_turn` over the stored turn starts, a
    bust worth the next seat's stored start, the stored mixing where the seat randomises (``mix_keys`` sorted
    ``idx * N + m``, ``mix_q`` their roll probabilities by turn total)."""
    sm = (idx // stride[m]) % G
    room = G - sm
    if kind != OPTIMAL:
        dec[0] = 1.0
        for k in range(1, room):
            dec[k] = 1.0 if policy_rolls(kind, param, G, sm, k) else 0.0
        return room
    nxt = (m + 1) % N
    for k in range(1, room):
        for e in range(N):
            H[k, e] = opt[idx + k * stride[m], nxt, e]
    stored_mix(idx * N + m, mix_keys, mix_q, G, mix)
    turn(m, N, room, 0, opt[idx, nxt, m], tol, p_face, p_bust, gains, H, mix, rv, A, c, dec, ivl)
    return room


@njit(cache=True)
def lineup_starts(N, G, stride, kinds, params, opt, tol, p_face, p_bust, gains, mix_keys, mix_q):
    """``V[idx, m, e]``: seat ``e``'s win probability at seat ``m``'s turn start at tuple ``idx`` when seat ``n``
    plays ``(kinds[n], params[n])``: the game's recursion, exactly.  Tuples from the highest index down (a hold
    raises the index); in each tuple every seat's turn is its decisions' value ``A + c T_next`` (the turn
    function with every decision fixed, ``T_next`` the next seat's start at the same tuple: a bust), and the
    tuple's N-cycle of busts is solved in closed form."""
    T = G ** N
    V = np.zeros((T, N, N))
    H = np.zeros((G, N))
    mix = np.full(G, -1.0)
    fixed = np.full(G, -1.0)
    rv = np.empty(N)
    A = np.zeros((G, N))
    c = np.zeros(G)
    dec = np.zeros(G)
    ivl = np.empty(2)
    SA = np.empty((N, N))
    Sc = np.empty(N)
    for idx in range(T - 1, -1, -1):
        for m in range(N):
            room = decisions(idx, m, N, G, stride, kinds[m], params[m], opt, tol, p_face, p_bust, gains, mix_keys,
                             mix_q, H, mix, rv, A, c, dec, ivl)
            for k in range(room):
                fixed[k] = dec[k]
            nxt = (m + 1) % N
            for k in range(1, room):
                for e in range(N):
                    H[k, e] = V[idx + k * stride[m], nxt, e]
            turn(m, N, room, 0, 0.0, tol, p_face, p_bust, gains, H, fixed, rv, A, c, dec, ivl)
            for e in range(N):
                SA[m, e] = A[0, e]
            Sc[m] = c[0]
        solve_cycle(N, SA, Sc, V[idx])  # V_m = SA_m + Sc_m V_{m+1} around the cycle, exactly
    return V


@njit(cache=True)
def play_games(games, N, G, stride, kinds, params, opt, tol, p_face, p_bust, gains, scores, bust_face,
               mix_keys, mix_q, rng):
    """Wins of each seat in ``games`` games played with dice from ``rng`` (a numpy Generator, its state
    advanced here): each turn the mover's decisions at its tuple (:func:`decisions`), a uniform face of the die
    each roll (``scores[f]`` its score, ``bust_face`` 0-based), a mixed decision drawn; the first seat whose
    score plus turn total reaches ``G`` wins at once."""
    faces = scores.shape[0]
    wins = np.zeros(N)
    s = np.zeros(N, dtype=np.int64)
    H = np.zeros((G, N))
    mix = np.full(G, -1.0)
    rv = np.empty(N)
    A = np.zeros((G, N))
    c = np.zeros(G)
    dec = np.zeros(G)
    ivl = np.empty(2)
    for _ in range(games):
        for e in range(N):
            s[e] = 0
        m = 0
        won = -1
        while won < 0:
            idx = 0
            for e in range(N):
                idx += s[e] * stride[e]
            decisions(idx, m, N, G, stride, kinds[m], params[m], opt, tol, p_face, p_bust, gains, mix_keys, mix_q,
                      H, mix, rv, A, c, dec, ivl)
            k = 0
            while True:
                q = dec[k]
                if k > 0 and q < 1.0 and (q <= 0.0 or rng.random() >= q):
                    s[m] += k  # holds
                    break
                face = rng.integers(0, faces)
                if face == bust_face:
                    break  # the turn ends with nothing
                k += scores[face]
                if s[m] + k >= G:
                    won = m
                    break
            m = (m + 1) % N
        wins[won] += 1.0
    return wins
