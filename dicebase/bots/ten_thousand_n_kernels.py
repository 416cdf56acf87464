"""The exact recursion of mixed 10,000 lineups of 3 or 4 players: the optimal seat's turns, compiled with numba
(:mod:`dicebase.bots.ten_thousand_n` documents the game and the recursion).

Both kernels walk one turn of the optimal seat from its highest total down by the one definition of a turn's total,
:func:`dicebase.rules.ten_thousand.turn.turn_row` (the lookups' own, so the decisions are ``n.state`` / ``n.best``'s),
carrying beside the mover's own equilibrium value the lineup's win vector under those decisions (what the seats
after it, played by their own bots, make of each bank and farkle).  The moves are the lookups' (the flat arrays of
:class:`dicebase.query.ten_thousand.nlayout.Layout`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicebase.numeric.ten_thousand_nturn import places, turn_row


@njit(cache=True)
def tt_n_turns(hold_own, hold_mix, bust_own, kmax, opened, om, tol, c0, sg, gp, go, op, ost, pf,
               rm_first, rm_k, rm_c, rm_q, km_first, km_k, km_g, km_a, km_z, km_q):
    """The optimal seat's turn at ``n`` score tuples, below the goal: ``(A[n, N], B[n])``, its turn start's win
    vector for the lineup is ``A + B * (the next seat's turn start at the same tuple)`` (B: the chance the turn
    ends in a farkle).

    Per tuple ``t``: ``hold_own[t, k]`` the mover's own stored value of banking ``k`` units (the next seat's stored
    turn start, or the stored final round at or past the goal), ``hold_mix[t, k, :]`` the lineup's win vector of
    that bank, ``bust_own[t]`` the mover's stored value of a farkle, ``kmax[t]`` the stored largest total with a
    choice (beyond it the mover banks), ``opened[t]`` the mover's score is above 0 (``om``: the opening minimum in
    units applies otherwise).  The tuple's stored mixed decisions (a cycle tuple): rolls ``rm_*[rm_first[t] ..
    rm_first[t + 1] - 1]`` (total, class, roll probability) and keeps ``km_*`` (total, global group, first and
    second option within the group, probability of the first).  Entries per state: the mover's own value, the
    farkle coefficient, the lineup's vector."""
    n, K1 = hold_own.shape
    N = hold_mix.shape[2]
    S = sg.shape[0] - 1
    W = N + 2
    A = np.zeros((n, N))
    B = np.zeros(n)
    V = np.zeros(K1 * S * W)
    bank = np.zeros(K1 * W)
    fb = np.zeros(W)
    fb[1] = 1.0
    ff = np.zeros(W)
    skip = np.zeros(S, dtype=np.bool_)
    keep = np.zeros(gp.shape[0], dtype=np.int64)
    qs = np.zeros(S)
    place = places(op, ost, S, W, np.empty(op.shape[0], dtype=np.int64))
    none_ivl = np.zeros(0)
    for t in range(n):
        top = kmax[t]
        for k in range(K1):
            bank[k * W] = hold_own[t, k]
            for e in range(N):
                bank[k * W + 2 + e] = hold_mix[t, k, e]
        for k in range(top + 1, K1):
            for c in range(S):
                for j in range(W):
                    V[(k * S + c) * W + j] = bank[k * W + j]
        fb[0] = bust_own[t]
        bank_from = 1 if opened[t] or om <= 1 else om
        r0, r1, k0, k1 = rm_first[t], rm_first[t + 1], km_first[t], km_first[t + 1]
        for k in range(top, -1, -1):
            turn_row(k, k, S, W, 0, -1, 0.0, V, bank, k * W, fb, ff, bank_from, top, tol, skip, True, sg, gp, go,
                     place, pf, rm_k[r0:r1], rm_c[r0:r1], rm_q[r0:r1], km_k[k0:k1], km_g[k0:k1], km_a[k0:k1],
                     km_z[k0:k1], km_q[k0:k1], keep, 0, qs, 0, none_ivl)
        for e in range(N):
            A[t, e] = V[c0 * W + 2 + e]
        B[t] = V[c0 * W + 1]
    return A, B


@njit(cache=True)
def tt_n_final(own_bank, mix_bank, bust_mix, e_top, depth, D, tol, c0, sg, gp, go, op, ost, pf):
    """The optimal seat's final turn, not the last one, for ``P`` patterns of the seats after it (their deficits to
    the bar): ``out[p, d, :]`` the lineup's win vector over roles ``[leader, mover, later...]`` when the mover
    starts ``d`` units below the bar (d = 0 .. depth[p] <= D; 0 beyond).

    Totals ``y`` are counted from the bar (row ``y + D``).  At or below it the mover must roll (its keeps by its
    own value); above it, at ``0 < y < e_top[p]`` (the first total where the stored final round makes it bank) it
    rolls when rolling beats banking by more than ``tol`` for itself, and banks from ``e_top`` up.
    ``own_bank[p, y]``: its own stored value of banking at ``y`` (the stored final round of the seats after it,
    itself leading), ``mix_bank[p, y, :]`` the lineup's win vector of that bank; a farkle is worth 0 to it and
    ``bust_mix[p, :]`` to the lineup."""
    P, EB = own_bank.shape
    R = mix_bank.shape[2]
    S = sg.shape[0] - 1
    W = R + 1
    out = np.zeros((P, D + 1, R))
    V = np.zeros((D + EB) * S * W)  # per state (y + D, class): the mover's own value, then the lineup's vector
    bank = np.zeros(EB * W)
    fb = np.zeros(W)
    ff = np.zeros(W)
    skip = np.zeros(S, dtype=np.bool_)
    keep = np.zeros(gp.shape[0], dtype=np.int64)
    qs = np.zeros(S)
    place = places(op, ost, S, W, np.empty(op.shape[0], dtype=np.int64))
    none_f = np.zeros(0)
    none_i = np.zeros(0, dtype=np.int64)
    for p in range(P):
        et = e_top[p]
        for y in range(EB):
            bank[y * W] = own_bank[p, y]
            for e in range(R):
                bank[y * W + 1 + e] = mix_bank[p, y, e]
        for e in range(R):
            fb[1 + e] = bust_mix[p, e]
        for y in range(et, EB):  # own_bank / mix_bank give every row from e_top up
            for c in range(S):
                for j in range(W):
                    V[((y + D) * S + c) * W + j] = bank[y * W + j]
        for y in range(min(et, EB) - 1, -depth[p] - 1, -1):
            turn_row(y, y + D, S, W, 0, -1, 0.0, V, bank, max(y, 0) * W, fb, ff, 1, EB, tol, skip, True, sg, gp, go,
                     place, pf, none_i, none_i, none_f, none_i, none_i, none_i, none_i, none_f, keep, 0, qs, 0, none_f)
        for d in range(depth[p] + 1):
            for e in range(R):
                out[p, d, e] = V[((D - d) * S + c0) * W + 1 + e]
    return out
