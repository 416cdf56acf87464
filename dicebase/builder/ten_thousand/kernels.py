"""Compiled kernels of the two-player 10,000 solve (:mod:`.twoplayer`, which documents the
equations).  A module of its own so that importing the solver does not import numba, and
so that numba's on-disk cache finds the kernels again (module-level functions; closures
over other compiled functions were recompiled by every process).

Parallel: the pairs of one score sum are independent; ``solve_sum`` and ``heuristic_sum``
run them with ``prange`` over T workers, worker t taking every T-th pair with its own
scratch arrays.  Each pair's arithmetic is the same whatever T, so the values are
bit-identical for every thread count (tests/test_ten_thousand_threads.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, fastmath=False)
def eval_turn(i, j, G, om, bm, F, kmax, W, pexd, sg, gp, go, op, ost, pf, VA, VB, ROLL, buf):
    """One turn of the player at (i, j) for farkle value F: affine values A + B F of
    every (k <= kmax, s), the argmax policy at F, and the interval of F keeping it."""
    S = sg.shape[0] - 1
    lo = -np.inf
    hi = np.inf
    for k in range(kmax, -1, -1):
        for s in range(S):
            ra = 0.0
            rb = pf[s]
            for g in range(sg[s], sg[s + 1]):
                o0 = go[g]
                o1 = go[g + 1]
                best = -1
                bv = -1.0
                for o in range(o0, o1):
                    kk = k + op[o]
                    if kk > kmax:
                        a = 1.0 - pexd[i + kk - j]
                        b = 0.0
                    else:
                        a = VA[kk, ost[o]]
                        b = VB[kk, ost[o]]
                    buf[0, o - o0] = a
                    buf[1, o - o0] = b
                    v = a + b * F
                    if v > bv:
                        bv = v
                        best = o - o0
                ca = buf[0, best]
                cb = buf[1, best]
                for q in range(o1 - o0):
                    if q != best:
                        db = cb - buf[1, q]
                        if db != 0.0:
                            x = (buf[0, q] - ca) / db
                            if db > 0.0:
                                if x > lo:
                                    lo = x
                            elif x < hi:
                                hi = x
                ra += gp[g] * ca
                rb += gp[g] * cb
            can_bank = k >= bm and (i > 0 or k >= om)  # bm >= 1: the bank minimum (issue 24)
            if can_bank:
                if i + k < G:
                    ba = 1.0 - W[j, i + k]
                else:
                    ba = 1.0 - pexd[i + k - j]
                # bank (ba, 0) vs roll (ra, rb); ties go to bank
                x = 0.0
                if rb != 0.0:
                    x = (ba - ra) / rb
                if sg[s] == sg[s + 1]:  # no dice to roll (no hot dice): the turn total is banked
                    VA[k, s] = ba
                    VB[k, s] = 0.0
                    ROLL[k, s] = False
                elif ra + rb * F > ba:
                    VA[k, s] = ra
                    VB[k, s] = rb
                    ROLL[k, s] = True
                    if rb != 0.0 and x > lo:  # roll stays better for F > x
                        lo = x
                else:
                    VA[k, s] = ba
                    VB[k, s] = 0.0
                    ROLL[k, s] = False
                    if rb != 0.0 and x < hi:
                        hi = x
            else:  # must roll; with no dice to roll (below the opening minimum) this is the farkle value
                VA[k, s] = ra
                VB[k, s] = rb
                ROLL[k, s] = True
    return VA[0, 0], VB[0, 0], lo, hi

@njit(cache=True)
def first_safe_d(pexd, level):
    """Smallest d with pexd[d] <= level (pexd is non-increasing)."""
    for d in range(pexd.shape[0]):
        if pexd[d] <= level:
            return d
    return -1

@njit(cache=True)
def solve_pair(i, j, G, om, bm, W, pexd, pf_min, sg, gp, go, op, ost, pf, kcap, tol,
               out_val, out_roll, out_kmax, i0, pair_stats, bound_scale,
               VA1, VB1, VA2, VB2, R1, R2, buf):
    """Solve the 2-cycle (i, j), (j, i) (i <= j); write W and both pairs' tables.

    Returns 0 or an error code (``twoplayer.PAIR_ERRORS``): the caller runs in a ``prange``
    body, which must not raise.
    pair_stats: [evaluations, max slack used, bound retries] of this pair.
    """
    S = sg.shape[0] - 1
    # initial guesses from the solved sum above
    if j + 1 < G:
        X = W[i, j + 1]
    elif i + 1 < G:
        X = W[i + 1, j]
    else:
        X = 0.5
    if i + 1 < G:
        Y = W[j, i + 1]
    elif j + 1 < G:
        Y = W[j + 1, i]
    else:
        Y = 0.5
    if i == j:
        Y = X
    # the turn-total bounds' first guess (kept as it was: it decides the stored solved_to)
    Xb = X
    Yb = Y
    if i + 1 < G and j + 1 < G:
        # policy iteration starts from a bilinear extrapolation of three solved neighbours:
        # about 100 times closer than W[i, j + 1] alone, so most 2-cycles settle after one
        # evaluation instead of 2-3 (the answer does not depend on the start: the stopping
        # rule proves the policy optimal at the solved values)
        X = W[i, j + 1] + W[i + 1, j] - W[i + 1, j + 1]
        Y = W[j, i + 1] + W[j + 1, i] - W[j + 1, i + 1]
        if i == j:
            Y = X
    scale = bound_scale
    k1 = 0
    k2 = 0
    settled = False
    attempt = 0
    while attempt < 40 and not settled:
        attempt += 1
        d1 = first_safe_d(pexd, pf_min * Yb * scale)
        d2 = first_safe_d(pexd, pf_min * Xb * scale)
        if d1 < 0 or d2 < 0:
            return 1
        k1 = max(G - i - 1, d1 + j - i - 1, bm - 1)  # past k1 banking must be allowed
        k2 = max(G - j - 1, d2 + i - j - 1, bm - 1)
        if k1 > kcap or k2 > kcap:
            return 2
        ok = False
        it = 0
        while it < 60 and not ok:
            it += 1
            F1 = 1.0 - Y
            F2 = 1.0 - X
            A1, B1, lo1, hi1 = eval_turn(i, j, G, om, bm, F1, k1, W, pexd, sg, gp, go, op, ost, pf, VA1, VB1, R1, buf)
            pair_stats[0] += 1
            if i == j:
                Xn = (A1 + B1) / (1.0 + B1)
                Yn = Xn
                lo2 = lo1
                hi2 = hi1
            else:
                A2, B2, lo2, hi2 = eval_turn(j, i, G, om, bm, F2, k2, W, pexd, sg, gp, go, op, ost, pf, VA2, VB2, R2, buf)
                pair_stats[0] += 1
                Xn = (A1 + B1 - B1 * A2 - B1 * B2) / (1.0 - B1 * B2)
                Yn = A2 + B2 * (1.0 - Xn)
            G1 = 1.0 - Yn
            G2 = 1.0 - Xn
            slack = max(lo1 - G1, G1 - hi1, lo2 - G2, G2 - hi2, 0.0)
            X = Xn
            Y = Yn
            if slack <= tol:
                if slack > pair_stats[1]:
                    pair_stats[1] = slack
                ok = True
        if not ok:
            return 3
        Xb = X  # a retry bounds with the solved values
        Yb = Y
        # the bound must hold for the solved values
        if pexd[i + k1 + 1 - j] <= pf_min * Y and pexd[j + k2 + 1 - i] <= pf_min * X:
            settled = True
        else:
            pair_stats[2] += 1
            scale *= 0.1
    if not settled:
        return 4
    W[i, j] = X
    W[j, i] = Y
    F1 = 1.0 - Y
    F2 = 1.0 - X
    p = i - i0
    for k in range(k1 + 1):
        for s in range(S):
            out_val[p, k, s] = VA1[k, s] + VB1[k, s] * F1
            out_roll[p, k, s] = R1[k, s]
    out_kmax[p] = k1
    if i != j:
        p = j - i0
        for k in range(k2 + 1):
            for s in range(S):
                out_val[p, k, s] = VA2[k, s] + VB2[k, s] * F2
                out_roll[p, k, s] = R2[k, s]
        out_kmax[p] = k2
    return 0

@njit(cache=True, parallel=True)
def solve_sum(ssum, G, om, bm, W, pexd, pf_min, sg, gp, go, op, ost, pf, kcap, tol,
              out_val, out_roll, out_kmax, stats, bound_scale, threads):
    """Solve every pair (i, j) with i + j = ssum; write W and each pair's table.

    out_val/out_roll: (pairs, kcap + 1, S) scratch rows per pair (pair p = i - i0),
    out_kmax[p] = kmax(i, j).  stats: [evaluations, max slack used, bound retries].
    The 2-cycles of a sum are independent (they read W of larger sums only): they run
    in parallel, each thread on every T-th cycle with its own scratch, so every value
    is computed by the same operations whatever the thread count.  Returns 0 or the
    first failing cycle's error code (see solve_pair).
    """
    S = sg.shape[0] - 1
    maxg = 0
    for g in range(go.shape[0] - 1):
        if go[g + 1] - go[g] > maxg:
            maxg = go[g + 1] - go[g]
    i0 = max(0, ssum - G + 1)
    n = ssum // 2 - i0 + 1  # cycles (i, ssum - i) with i <= ssum - i
    T = min(threads, n)
    errors = np.zeros(n, dtype=np.int64)
    pair_stats = np.zeros((n, 3))
    for t in prange(T):
        VA1 = np.empty((kcap + 1, S))
        VB1 = np.empty((kcap + 1, S))
        VA2 = np.empty((kcap + 1, S))
        VB2 = np.empty((kcap + 1, S))
        R1 = np.zeros((kcap + 1, S), dtype=np.bool_)
        R2 = np.zeros((kcap + 1, S), dtype=np.bool_)
        buf = np.empty((2, maxg))
        for q in range(t, n, T):
            i = i0 + q
            errors[q] = solve_pair(i, ssum - i, G, om, bm, W, pexd, pf_min, sg, gp, go, op, ost, pf,
                                   kcap, tol, out_val, out_roll, out_kmax, i0, pair_stats[q],
                                   bound_scale, VA1, VB1, VA2, VB2, R1, R2, buf)
    for q in range(n):  # in pair order: the same totals for any thread count
        if errors[q] != 0:
            return errors[q]
        stats[0] += pair_stats[q, 0]
        if pair_stats[q, 1] > stats[1]:
            stats[1] = pair_stats[q, 1]
        stats[2] += pair_stats[q, 2]
    return 0

@njit(cache=True)
def eval_h(i, j, G, om, bm, F, kh, hroll, Ho, pexd, hsg, hgp, hgo, hop, host, hpf, HA, HB):
    """Seed-004 heuristic H to move at (H: i, O: j); values P(H wins) = A + B F with
    F = P(H wins) after H farkles (O to move at (j, i))."""
    S = hsg.shape[0] - 1
    for k in range(kh, -1, -1):
        for s in range(S):
            roll = k < bm or hroll[k, s] or (i == 0 and k < om)
            if roll:
                ra = 0.0
                rb = hpf[s]
                for g in range(hsg[s], hsg[s + 1]):
                    o = hgo[g]
                    kk = k + hop[o]
                    if kk > kh:  # H banks there
                        if i + kk < G:
                            a = Ho[j, i + kk]
                        else:
                            a = 1.0 - pexd[i + kk - j]
                        b = 0.0
                    else:
                        a = HA[kk, host[o]]
                        b = HB[kk, host[o]]
                    ra += hgp[g] * a
                    rb += hgp[g] * b
                HA[k, s] = ra
                HB[k, s] = rb
            else:
                if i + k < G:
                    HA[k, s] = Ho[j, i + k]
                else:
                    HA[k, s] = 1.0 - pexd[i + k - j]
                HB[k, s] = 0.0
    return HA[0, 0], HB[0, 0]

@njit(cache=True)
def eval_o(a, b, G, F, kmax, V, R, Hh, pexd, pexh, sg, gp, go, op, ost, pf, OA, OB):
    """Optimal player O to move at (O: a, H: b) following the optimal policy (values V,
    roll flags R of pair (a, b)); values P(H wins) = A + B F, F = P(H wins) after O
    farkles (H to move at (b, a))."""
    S = sg.shape[0] - 1
    for k in range(kmax, -1, -1):
        for s in range(S):
            if R[k, s]:
                ra = 0.0
                rb = pf[s]
                for g in range(sg[s], sg[s + 1]):
                    best = -1
                    bv = -1.0
                    for o in range(go[g], go[g + 1]):
                        kk = k + op[o]
                        if kk > kmax:
                            v = 1.0 - pexd[a + kk - b]
                        else:
                            v = V[kk, ost[o]]
                        if v > bv:
                            bv = v
                            best = o
                    kk = k + op[best]
                    if kk > kmax:  # O banks past its bound: H's last turn
                        ra += gp[g] * pexh[a + kk - b]
                    else:
                        ra += gp[g] * OA[kk, ost[best]]
                        rb += gp[g] * OB[kk, ost[best]]
                OA[k, s] = ra
                OB[k, s] = rb
            else:
                if a + k < G:
                    OA[k, s] = Hh[b, a + k]
                else:
                    OA[k, s] = pexh[a + k - b]
                OB[k, s] = 0.0
    return OA[0, 0], OB[0, 0]

@njit(cache=True, parallel=True)
def heuristic_sum(ssum, G, om, bm, kh, hroll, Hh, Ho, pexd, pexh, hsg, hgp, hgo, hop, host, hpf,
                  sg, gp, go, op, ost, pf, out_val, out_roll, out_kmax, kcap, threads):
    """Seed-004 heuristic H against the fixed optimal policy O for every pair of this sum.

    Needs the optimal tables of this sum (out_val/out_roll/out_kmax from solve_sum).
    Pairs are independent (they read Hh, Ho of larger sums only) and run in parallel
    as in solve_sum."""
    S = sg.shape[0] - 1
    i0 = max(0, ssum - G + 1)
    n = min(ssum, G - 1) - i0 + 1
    T = min(threads, n)
    for t in prange(T):
        HA = np.empty((kh + 1, S))
        HB = np.empty((kh + 1, S))
        OA = np.empty((kcap + 1, S))
        OB = np.empty((kcap + 1, S))
        for q in range(t, n, T):
            i = i0 + q
            j = ssum - i
            # cycle h(i, j) <-> o(j, i), O uses pair (j, i)'s optimal tables
            p = j - i0
            A1, B1 = eval_h(i, j, G, om, bm, 0.0, kh, hroll, Ho, pexd, hsg, hgp, hgo, hop, host, hpf, HA, HB)
            A2, B2 = eval_o(j, i, G, 0.0, out_kmax[p], out_val[p], out_roll[p], Hh, pexd, pexh,
                            sg, gp, go, op, ost, pf, OA, OB)
            h = (A1 + B1 * A2) / (1.0 - B1 * B2)
            Hh[i, j] = h
            Ho[j, i] = A2 + B2 * h

@njit(cache=True, parallel=True)
def collect_rows(ssum, G, out_val, out_roll, out_kmax, all_rows, order):
    """The stored rows of every pair of this sum, pairs in order of i, each by k, then the
    classes s in ``order``: (rows per pair, k, s, value, roll).  ``all_rows`` False keeps the roll states
    except k = 0 with fewer than six dice (s > 0), which no turn reaches."""
    S = out_val.shape[2]
    i0 = max(0, ssum - G + 1)
    n = min(ssum, G - 1) - i0 + 1
    count = np.zeros(n, dtype=np.int64)
    for p in prange(n):
        c = 0
        for k in range(out_kmax[p] + 1):
            for s in range(S):
                if all_rows or (out_roll[p, k, s] and (k > 0 or s == 0)):
                    c += 1
        count[p] = c
    start = np.zeros(n + 1, dtype=np.int64)
    for p in range(n):
        start[p + 1] = start[p] + count[p]
    K = np.empty(start[n], dtype=np.int16)
    Sx = np.empty(start[n], dtype=np.int8)
    P = np.empty(start[n])
    R = np.empty(start[n], dtype=np.bool_)
    for p in prange(n):
        r = start[p]
        for k in range(out_kmax[p] + 1):
            for s in order:
                if all_rows or (out_roll[p, k, s] and (k > 0 or s == 0)):
                    K[r] = k
                    Sx[r] = s
                    P[r] = out_val[p, k, s]
                    R[r] = out_roll[p, k, s]
                    r += 1
    return count, K, Sx, P, R

@njit(cache=True, parallel=True)
def place_rows(ssum, G, count, K, Sx, P, R, dest, I_, J_, K_, S_, P_, R_):
    """Copy one sum's collected rows to their places in the (i, j)-ordered table;
    dest[i, j] is the first row of pair (i, j) there."""
    i0 = max(0, ssum - G + 1)
    n = count.shape[0]
    src = np.zeros(n + 1, dtype=np.int64)
    for p in range(n):
        src[p + 1] = src[p] + count[p]
    for p in prange(n):
        i = i0 + p
        j = ssum - i
        d = dest[i, j]
        for r in range(count[p]):
            I_[d + r] = i
            J_[d + r] = j
            K_[d + r] = K[src[p] + r]
            S_[d + r] = Sx[src[p] + r]
            P_[d + r] = P[src[p] + r]
            R_[d + r] = R[src[p] + r]


# --------------------------------------------------------------------------- issue 24: farkle penalty
@njit(cache=True)
def pen_turn(a, b, ci, cj, G, L, F, kmax, bm, first_wins, W, lastv, sg, gp, go, op, ost, pf, V, R):
    """One turn of the player to move at scores (i, j) = (a + L, b + L), farkle counts (ci, cj),
    with the farkle value F known (docs/farkle.md): V[k, s] for k = kmax..0, roll flags R.
    Past kmax the turn banks (proved optimal: :func:`.twoplayer.solve_penalty`).  A bank needs
    k >= bm; a bank below the goal hands the opponent (j, i + k, cj, 0), at or above it wins
    (first_wins) or leaves the opponent its last turn, worth ``lastv[i + k - j]`` to it."""
    S = sg.shape[0] - 1
    i = a + L
    j = b + L
    for k in range(kmax, -1, -1):
        for s in range(S):
            r = pf[s] * F
            for g in range(sg[s], sg[s + 1]):
                bv = -1.0
                for o in range(go[g], go[g + 1]):
                    kk = k + op[o]
                    if kk > kmax:
                        if i + kk < G:
                            v = 1.0 - W[b, a + kk, cj, 0]
                        elif first_wins:
                            v = 1.0
                        else:
                            v = 1.0 - lastv[i + kk - j]
                    else:
                        v = V[kk, ost[o]]
                    if v > bv:
                        bv = v
                r += gp[g] * bv
            if k >= bm and sg[s] < sg[s + 1]:
                if i + k < G:
                    bank = 1.0 - W[b, a + k, cj, 0]
                elif first_wins:
                    bank = 1.0
                else:
                    bank = 1.0 - lastv[i + k - j]
                if r > bank:  # ties go to bank
                    V[k, s] = r
                    R[k, s] = True
                else:
                    V[k, s] = bank
                    R[k, s] = False
            elif sg[s] == sg[s + 1] and k >= bm:  # no dice to roll (no hot dice): the total is banked
                if i + k < G:
                    V[k, s] = 1.0 - W[b, a + k, cj, 0]
                elif first_wins:
                    V[k, s] = 1.0
                else:
                    V[k, s] = 1.0 - lastv[i + k - j]
                R[k, s] = False
            else:  # must roll (below the bank minimum); with no dice left this is the farkle value
                V[k, s] = r
                R[k, s] = True
    return V[0, 0]


@njit(cache=True)
def pen_kmax(i, j, G, F, bm, first_wins, lastv, pf_min):
    """The last turn total a turn of (i, j) solves: past it banking is allowed and optimal.
    -1 where the last-turn table is too short."""
    k = G - i - 1
    if bm - 1 > k:
        k = bm - 1
    if not first_wins:
        # a roll is worth at most 1 - pf(s) (1 - F), banking 1 - lastv[d]: bank once lastv[d] <= pf_min (1 - F)
        level = pf_min * (1.0 - F)
        d = -1
        for x in range(lastv.shape[0]):
            if lastv[x] <= level:
                d = x
                break
        if d < 0:
            return -1
        if d + j - i - 1 > k:
            k = d + j - i - 1
    return k


@njit(cache=True, parallel=True)
def pen_sum(ssum, nS, m, G, L, P, reset_after_penalty, bm, first_wins, W, Wprev, lastv, pf_min,
            sg, gp, go, op, ost, pf, kcap, threads, keep, out_val, out_roll, out_kmax, stats):
    """Every turn start (a, b, ci, cj) with a + b = ssum (score indices, a = i - L): farkle count
    levels ci + cj descending (a farkle without the penalty raises the count sum at the same
    scores), the turns of one level in parallel.  The penalty's target (a lower score sum, or
    the same one at the floor) is read from Wprev, the previous sweep: one sweep of the outer
    fixed-point iteration.  keep: also write every state's value and roll flag to out_val /
    out_roll[(a - a0), ci, cj] (the rows of a final sweep).  stats: [turns, states].
    Returns 0, or 1 (last-turn table too short), 2 (turn-total bound above kcap)."""
    S = sg.shape[0] - 1
    a0 = max(0, ssum - nS + 1)
    npair = min(ssum, nS - 1) - a0 + 1
    errors = np.zeros(npair * m * m, dtype=np.int64)
    nstate = np.zeros(npair * m * m, dtype=np.int64)
    for c in range(2 * m - 2, -1, -1):
        lo_ci = max(0, c - m + 1)
        hi_ci = min(m - 1, c)
        ncc = hi_ci - lo_ci + 1
        n = npair * ncc
        T = min(threads, n)
        for t in prange(T):
            V = np.empty((kcap + 1, S))
            R = np.zeros((kcap + 1, S), dtype=np.bool_)
            for q in range(t, n, T):
                p = q // ncc
                ci = lo_ci + q % ncc
                cj = c - ci
                a = a0 + p
                b = ssum - a
                i = a + L
                j = b + L
                if ci + 1 < m:
                    F = 1.0 - W[b, a, cj, ci + 1]
                else:
                    ip = i - P
                    if ip < L:
                        ip = L
                    cn = 0
                    if not reset_after_penalty:
                        cn = m - 1
                    F = 1.0 - Wprev[b, ip - L, cj, cn]
                kmax = pen_kmax(i, j, G, F, bm, first_wins, lastv, pf_min)
                slot = (p * m + ci) * m + cj
                if kmax < 0:
                    errors[slot] = 1
                elif kmax > kcap:
                    errors[slot] = 2
                else:
                    W[a, b, ci, cj] = pen_turn(a, b, ci, cj, G, L, F, kmax, bm, first_wins, W, lastv,
                                               sg, gp, go, op, ost, pf, V, R)
                    nstate[slot] = (kmax + 1) * S
                    if keep:
                        out_kmax[p, ci, cj] = kmax
                        for k in range(kmax + 1):
                            for s in range(S):
                                out_val[p, ci, cj, k, s] = V[k, s]
                                out_roll[p, ci, cj, k, s] = R[k, s]
    for q in range(npair * m * m):  # in a fixed order: the same totals for any thread count
        if errors[q] != 0:
            return errors[q]
        if nstate[q] > 0:
            stats[0] += 1
            stats[1] += nstate[q]
    return 0
