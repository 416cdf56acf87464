"""The exact recursion of mixed 10,000 lineups of 3 or 4 players: the optimal seat's turns, compiled with numba
(:mod:`dicebase.bots.ten_thousand_n` documents the game and the recursion).

Both kernels walk one turn of the optimal seat from its highest total down, twice over in one pass: the mover's
own equilibrium value (from the stored turn starts and the stored final round: it makes every decision, with the
lookups' tie-break, in the lookups' order of operations, so the decisions are ``n.state`` / ``n.best``'s) and the
lineup's win vector under those decisions (what the seats after it, played by their own bots, make of each bank
and farkle).  The moves are the lookups' (``db.ten_thousand.n.moves``) flattened: class ``c``'s roll groups
``sg[c] .. sg[c + 1] - 1`` with probability ``gp[g]``, each group's keeps ``go[g] .. go[g + 1] - 1`` in tie-break
order with points ``op[o]`` and next class ``ost[o]``; ``pf[c]`` the farkle chance.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
    second option within the group, probability of the first)."""
    n, K1 = hold_own.shape
    N = hold_mix.shape[2]
    S = sg.shape[0] - 1
    A = np.zeros((n, N))
    B = np.zeros(n)
    X = np.zeros((K1, S, N + 2))  # per state: the mover's own value, the farkle coefficient, the lineup's vector
    acc = np.zeros(N + 2)
    for t in range(n):
        top = kmax[t]
        has_km = km_first[t + 1] > km_first[t]
        has_rm = rm_first[t + 1] > rm_first[t]
        for k in range(top + 1, K1):
            for c in range(S):
                X[k, c, 0] = hold_own[t, k]
                X[k, c, 1] = 0.0
                for e in range(N):
                    X[k, c, 2 + e] = hold_mix[t, k, e]
        for k in range(top, -1, -1):
            can_bank = k > 0 and (opened[t] or k >= om)
            hm = hold_own[t, k]
            for c in range(S):
                for j in range(N + 2):
                    acc[j] = 0.0
                for g in range(sg[c], sg[c + 1]):
                    mixed = -1
                    if has_km:
                        for x in range(km_first[t], km_first[t + 1]):
                            if km_k[x] == k and km_g[x] == g:
                                mixed = x
                    w = gp[g]
                    if mixed >= 0:
                        q = km_q[mixed]
                        oa = go[g] + km_a[mixed]
                        oz = go[g] + km_z[mixed]
                        ka, ca, kz, cz = k + op[oa], ost[oa], k + op[oz], ost[oz]
                        for j in range(N + 2):
                            acc[j] += w * (q * X[ka, ca, j] + (1.0 - q) * X[kz, cz, j])
                    else:
                        o = go[g]
                        if go[g + 1] - o > 1:
                            best = X[k + op[o], ost[o], 0]
                            for oo in range(o + 1, go[g + 1]):
                                v = X[k + op[oo], ost[oo], 0]
                                if v > best:
                                    best = v
                            floor = best - tol
                            while X[k + op[o], ost[o], 0] < floor:
                                o += 1
                        kk, cc = k + op[o], ost[o]
                        for j in range(N + 2):
                            acc[j] += w * X[kk, cc, j]
                pr = acc[0] + pf[c] * bust_own[t]
                acc[1] = acc[1] + pf[c]
                if not can_bank:
                    q = 1.0
                elif sg[c] == sg[c + 1]:
                    q = 0.0
                else:
                    q = -1.0
                    if has_rm:
                        for x in range(rm_first[t], rm_first[t + 1]):
                            if rm_k[x] == k and rm_c[x] == c:
                                q = rm_q[x]
                    if q < 0.0:
                        q = 1.0 if pr > hm + tol else 0.0
                if q == 1.0:
                    X[k, c, 0] = pr
                    for j in range(1, N + 2):
                        X[k, c, j] = acc[j]
                elif q == 0.0:
                    X[k, c, 0] = hm
                    X[k, c, 1] = 0.0
                    for e in range(N):
                        X[k, c, 2 + e] = hold_mix[t, k, e]
                else:
                    X[k, c, 0] = q * pr + (1.0 - q) * hm
                    X[k, c, 1] = q * acc[1]
                    for e in range(N):
                        X[k, c, 2 + e] = q * acc[2 + e] + (1.0 - q) * hold_mix[t, k, e]
        for e in range(N):
            A[t, e] = X[0, c0, 2 + e]
        B[t] = X[0, c0, 1]
    return A, B


@njit(cache=True)
def tt_n_final(own_bank, mix_bank, bust_mix, e_top, depth, D, tol, c0, sg, gp, go, op, ost, pf):
    """The optimal seat's final turn, not the last one, for ``P`` patterns of the seats after it (their deficits to
    the bar): ``out[p, d, :]`` the lineup's win vector over roles ``[leader, mover, later...]`` when the mover
    starts ``d`` units below the bar (d = 0 .. depth[p] <= D; 0 beyond).

    Totals ``y`` are counted from the bar.  At or below it the mover must roll (its keeps by its own value);
    above it, at ``0 < y < e_top[p]`` (the first total where the stored final round makes it bank) it rolls when
    rolling beats banking by more than ``tol`` for itself, and banks from ``e_top`` up.  ``own_bank[p, y]``: its
    own stored value of banking at ``y`` (the stored final round of the seats after it, itself leading),
    ``mix_bank[p, y, :]`` the lineup's win vector of that bank; a farkle is worth 0 to it and ``bust_mix[p, :]``
    to the lineup."""
    P, EB = own_bank.shape
    R = mix_bank.shape[2]
    S = sg.shape[0] - 1
    out = np.zeros((P, D + 1, R))
    H = D + EB
    X = np.zeros((H, S, R + 1))  # per state (y + D, class): the mover's own value, then the lineup's vector
    acc = np.zeros(R + 1)
    for p in range(P):
        et = e_top[p]
        for y in range(EB - 1, -depth[p] - 1, -1):  # own_bank / mix_bank give every row from e_top up
            iy = y + D
            if y >= et:
                for c in range(S):
                    X[iy, c, 0] = own_bank[p, y]
                    for e in range(R):
                        X[iy, c, 1 + e] = mix_bank[p, y, e]
                continue
            for c in range(S):
                for j in range(R + 1):
                    acc[j] = 0.0
                for g in range(sg[c], sg[c + 1]):
                    o = go[g]
                    if go[g + 1] - o > 1:
                        best = X[iy + op[o], ost[o], 0]
                        for oo in range(o + 1, go[g + 1]):
                            v = X[iy + op[oo], ost[oo], 0]
                            if v > best:
                                best = v
                        floor = best - tol
                        while X[iy + op[o], ost[o], 0] < floor:
                            o += 1
                    kk, cc = iy + op[o], ost[o]
                    w = gp[g]
                    for j in range(R + 1):
                        acc[j] += w * X[kk, cc, j]
                pr = acc[0] + pf[c] * 0.0  # a farkle is worth nothing to the mover
                if y > 0 and (sg[c] == sg[c + 1] or pr <= own_bank[p, y] + tol):
                    X[iy, c, 0] = own_bank[p, y]
                    for e in range(R):
                        X[iy, c, 1 + e] = mix_bank[p, y, e]
                else:
                    X[iy, c, 0] = pr
                    for e in range(R):
                        X[iy, c, 1 + e] = acc[1 + e] + pf[c] * bust_mix[p, e]
        for d in range(depth[p] + 1):
            for e in range(R):
                out[p, d, e] = X[D - d, c0, 1 + e]
    return out
