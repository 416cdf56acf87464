"""Compiled kernels of seed 002's human policies with N players (:mod:`.nplayer_policies`): the
policy evaluation (one seat plays a policy, the others keep playing the stored equilibrium; the
fixed-seat solve, where the others best-respond, is :func:`.nplayer_kernels.solve_tuples` with a
policy seat).  Module-level functions only,
for numba's on-disk cache; the conventions (tuple indices, ``start``, the final-round tables, roll
outcomes) are those of :mod:`.nplayer_kernels`.  Each tuple is computed by the same operations
whatever the thread count or the chunking: bit-identical results.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dicebase.builder.rolled_ones.nplayer_kernels import fill_hold
from dicebase.numeric.rolled_ones_turn import play_turn


# --------------------------------------------------------------------------- the others keep the equilibrium
@njit(cache=True)
def occupancy(top, D, L, roll, out_p, out_g, out_o, out_n, p_end, M, w):
    """A turn played with roll probabilities ``roll[k, o]`` (``k <= top``; always at ``k = 0``; beyond
    ``top`` it holds), forward from ``(0, 0)``: ``w[k]`` the chance it ends holding at ``k`` (``1 <= k <=
    top + D``); returns the chance it ends on the 1s limit.  The turn's value is then ``sum_k w[k] H[k] +
    bust * T_next``: linear in the values it leads to.  ``M``: scratch ``[top + D + 1, L]``."""
    for k in range(top + D + 1):
        w[k] = 0.0
        for o in range(L):
            M[k, o] = 0.0
    M[0, 0] = 1.0
    bust = 0.0
    for k in range(top + 1):
        for o in range(L):
            mass = M[k, o]
            if mass == 0.0:
                continue
            r = 1.0 if k == 0 else roll[k, o]
            if r < 1.0:
                w[k] += (1.0 - r) * mass
            if r > 0.0:
                rm = r * mass
                bust += rm * p_end[o]
                for qq in range(out_n[o]):
                    M[k + out_g[o, qq], out_o[o, qq]] += rm * out_p[o, qq]
    for k in range(top + 1, top + D + 1):
        for o in range(L):
            w[k] += M[k, o]
    return bust


@njit(cache=True, parallel=True)
def policy_occupancy(hdec, KH, D, L, out_p, out_g, out_o, out_n, p_end, wtab, ctab, workers):
    """:func:`occupancy` of every policy turn: ``hdec[p, role, i, lead]`` (the decisions with own score ``i``
    and highest other score ``lead``, turn totals up to ``KH``) gives ``wtab[p, role, i, lead, k]`` and
    ``ctab[p, role, i, lead]`` (a policy turn depends on nothing else)."""
    P, R, G = hdec.shape[0], hdec.shape[1], hdec.shape[2]
    n = P * R * G * G
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        M = np.empty((KH + D + 1, L))
        roll = np.empty((KH + 1, L))
        for x in range(w, n, Wk):
            p, rest = divmod(x, R * G * G)
            r, rest = divmod(rest, G * G)
            i, lead = divmod(rest, G)
            for k in range(KH + 1):
                for o in range(L):
                    roll[k, o] = 1.0 if hdec[p, r, i, lead, k, o] else 0.0
            ctab[p, r, i, lead] = occupancy(KH, D, L, roll, out_p, out_g, out_o, out_n, p_end, M, wtab[p, r, i, lead])


@njit(cache=True)
def held_value(c, fin, idx, m, h, w, top, N, G, stride, startp, phi, phi_off, phi_rows):
    """``sum_k w[k] V(k)`` over ``k = 1 .. top``: ``V(k)`` seat ``h``'s win probability in evaluation ``c``
    after seat ``m`` holds at turn total ``k`` at the tuple ``idx``: the next seat's turn start at the
    higher tuple (``startp[c]``) below the goal; at it the last seat wins, another opens the final round
    (``phi[fin]``, roles ``[leader, m + 1, .., N - 1]``; the seats before ``m`` cannot win it)."""
    sm = (idx // stride[m]) % G
    nxt = (m + 1) % N
    below = min(top, G - 1 - sm)
    a = 0.0
    for k in range(1, below + 1):
        if w[k] != 0.0:
            a += w[k] * startp[c, idx + k * stride[m], nxt]
    if m == N - 1:
        if h == m:
            for k in range(below + 1, top + 1):
                a += w[k]
        return a
    if h < m:
        return a
    jj = m + 1
    width = N - jj + 1
    base = phi_off[jj] + (idx % phi_rows[jj]) * width + h - m
    step = phi_rows[jj] * width
    for k in range(below + 1, top + 1):
        if w[k] != 0.0:
            a += w[k] * phi[fin, base + (sm + k - G) * step]
    return a


@njit(cache=True)
def evaluate_tuple(idx, t, N, G, K, KH, D, L, tol, stride, out_p, out_g, out_o, out_n, p_end, start, phi_eq,
                   off_eq, rows_eq, mix_tuples, mix_q, wtab, ctab, role, c_pol, c_seat, c_fin, startp, phi, phi_off,
                   phi_rows, H, v, proll, pr, q, M, W, Cst, A, Cc, out):
    """Every evaluation ``c`` of the tuple ``idx``: seat ``c_seat[c]`` plays policy ``c_pol[c]`` (its turn's
    hold distribution ``wtab[c_pol[c], role[seat], own score, highest other score]``, :func:`policy_occupancy`;
    ``-1``: the stored play), every other seat the stored equilibrium's play (the lookups' turn,
    :func:`dicebase.rules.rolled_ones_turn.play_turn` on the mover's entry, from
    ``start``, ``phi_eq`` and the mixing ``mix_q`` of the tuples ``mix_tuples``, sorted; its last row all
    NaN).  Each turn is a fixed play, so its value is linear in the values it leads to (:func:`occupancy`)
    and the tuple's bust cycle is solved exactly for the evaluated seat's entry: ``out[c, t, m]``, its win
    probability at seat ``m``'s turn start."""
    fill_hold(idx, N, G, K, D, stride, start, phi_eq, off_eq, rows_eq, H)
    nm = mix_tuples.shape[0]
    row = np.searchsorted(mix_tuples, idx)
    if row >= nm or mix_tuples[row] != idx:
        row = nm
    for m in range(N):
        play_turn(m, m, m + 1, K, D, L, 0, tol, p_end, out_p, out_g, out_o, out_n, H[m], start[idx, (m + 1) % N],
                  mix_q[row, m], v, proll, q, pr)
        Cst[m] = occupancy(K, D, L, q, out_p, out_g, out_o, out_n, p_end, M, W[m])
    for c in range(c_pol.shape[0]):
        h = c_seat[c]
        p = c_pol[c]
        fin = c_fin[c]
        sh = (idx // stride[h]) % G
        lead = 0
        for n in range(N):
            if n != h:
                s = (idx // stride[n]) % G
                if s > lead:
                    lead = s
        for m in range(N):
            if m == h and p >= 0:
                A[m] = held_value(c, fin, idx, m, h, wtab[p, role[h], sh, lead], KH + D, N, G, stride, startp, phi,
                                  phi_off, phi_rows)
                Cc[m] = ctab[p, role[h], sh, lead]
            else:
                A[m] = held_value(c, fin, idx, m, h, W[m], K + D, N, G, stride, startp, phi, phi_off, phi_rows)
                Cc[m] = Cst[m]
        # T_m = A_m + c_m T_{m+1} around the tuple (T_N = T_0), as equilibrium_kernels.solve_cycle
        num = 0.0
        prod = 1.0
        for i in range(N):
            num += prod * A[i]
            prod *= Cc[i]
        out[c, t, 0] = num / (1.0 - prod)
        for m in range(N - 1, 0, -1):
            out[c, t, m] = A[m] + Cc[m] * out[c, t, (m + 1) % N]


@njit(cache=True, parallel=True)
def evaluate_tuples(tuples, N, G, K, KH, D, L, tol, stride, out_p, out_g, out_o, out_n, p_end, start, phi_eq, off_eq,
                    rows_eq, mix_tuples, mix_q, wtab, ctab, role, c_pol, c_seat, c_fin, startp, phi, phi_off, phi_rows,
                    out, workers):
    """:func:`evaluate_tuple` for every tuple of a chunk of one level (independent: each reads ``startp`` of
    higher levels only).  Writes ``out[c, t, :]``."""
    n = tuples.shape[0]
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        H = np.empty((N, K + D + 1, N))
        v = np.empty((K + D + 1, L, N))
        proll = np.empty((K + 1, L, N))
        pr = np.empty(N)
        q = np.empty((K + 1, L))
        M = np.empty((K + D + 1, L))
        W = np.empty((N, K + D + 1))
        Cst = np.empty(N)
        A = np.empty(N)
        Cc = np.empty(N)
        for t in range(w, n, Wk):
            evaluate_tuple(tuples[t], t, N, G, K, KH, D, L, tol, stride, out_p, out_g, out_o, out_n, p_end, start,
                           phi_eq, off_eq, rows_eq, mix_tuples, mix_q, wtab, ctab, role, c_pol, c_seat, c_fin, startp,
                           phi, phi_off, phi_rows, H, v, proll, pr, q, M, W, Cst, A, Cc, out)
