"""Compiled kernels of the N-player 10,000 solve (:mod:`.nplayer`, which documents the equations).

A module of its own so that importing the solver does not import numba, and so that numba's
on-disk cache finds the kernels again (module-level functions only).

Parallel: every ``prange`` runs independent pieces (the score tuples of one level read only
higher levels; the final-round pieces of one table read only the tables of fewer remaining
players).  Worker ``w`` of ``W`` takes every ``W``-th piece with its own scratch arrays and
writes only that piece's outputs; there is no shared accumulator and nothing raises or breaks
inside a ``prange``, so every piece is computed by the same operations whatever the thread
count or chunking: results are bit-identical (tests/test_ten_thousand_nplayer.py).

Array conventions (N seats, 0-based seat ``m``; all points in units of ``rules.unit``):

* score tuple ``s``: index ``sum_m s[m] * stride[m]``, ``stride[m] = G ** (N - 1 - m)``;
* ``start[idx, m, :]``: the win vector at seat ``m``'s turn start; ``kmax[idx, m]``: the largest
  turn total with a choice in that turn (beyond it the mover banks: proven optimal);
* moves (pre-roll classes ``c``): ``pf[c]`` farkle chance, groups ``sg[c] .. sg[c + 1]`` of
  probability ``gp[g]``, options ``go[g] .. go[g + 1]`` (points ``op[o]``, next class ``ost[o]``)
  listed in tie-break priority order (more points, no standing triple, fewer dice, lower triple);
* ``pexc[d]``: the chance to end a turn more than ``d`` units above its start (``E(d + 1)``);
* the final round ``Phi_r`` (``r`` players still to take a final turn, roles ``[leader, p1, .., pr]``)
  by deficits ``delta_i = X - u_i`` (bar minus score), stored for ``r >= 2`` at
  ``phi_off[r] + (delta_1 * B^(r-1) + sum_j (delta_j - delta_1 + G - 1) B^(r-1-j)) * (r + 1)``,
  ``B = 2G - 1``; ``Phi_1(delta) = [1 - pexc[delta], pexc[delta]]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dicebase.builder.equilibrium_kernels import (  # noqa: F401  (the status codes: re-exported)
    CONVERGED, CYCLE, GOING, NO_CONVERGENCE, end_round, initial_beta, record_start, solve_cycle,
)


# --------------------------------------------------------------------------- shared pieces
@njit(cache=True)
def phi_get(r, deltas, G, phi, phi_off, pexc, out):
    """``Phi_r(deltas)`` into ``out[0 .. r]`` (roles ``[leader, p1, .., pr]``)."""
    if r == 1:
        p = pexc[deltas[0]]
        out[0] = 1.0 - p
        out[1] = p
        return
    B = 2 * G - 1
    d1 = deltas[0]
    ix = d1
    for j in range(1, r):
        ix = ix * B + (deltas[j] - d1 + G - 1)
    base = phi_off[r] + ix * (r + 1)
    for i in range(r + 1):
        out[i] = phi[base + i]


@njit(cache=True)
def choose(vals_a, vals_b, n, beta, tol):
    """The option taken among ``n`` (priority order) with mover values ``a + b beta``: the first
    within ``tol`` of the best.  Returns (chosen, best)."""
    best = 0
    bv = vals_a[0] + vals_b[0] * beta
    for q in range(1, n):
        v = vals_a[q] + vals_b[q] * beta
        if v > bv:
            bv = v
            best = q
    for q in range(n):
        if vals_a[q] + vals_b[q] * beta >= bv - tol:
            return q, best
    return best, best


@njit(cache=True)
def keep_interval(vals_a, vals_b, n, chosen, best, tol, lim):
    """Narrow ``lim = [lo, hi]`` to betas that keep ``chosen`` (conservative: every option before it
    stays more than ``tol`` below ``best``, ``chosen`` within ``tol`` of ``best`` and of every later one)."""
    ac = vals_a[chosen]
    bc = vals_b[chosen]
    for q in range(n):
        if q == chosen:
            continue
        if q < chosen:  # a_q + b_q x < a_best + b_best x - tol
            db = vals_b[q] - vals_b[best]
            rhs = vals_a[best] - vals_a[q] - tol
        else:  # a_q + b_q x <= a_c + b_c x + tol
            db = vals_b[q] - bc
            rhs = ac - vals_a[q] + tol
        if db > 0.0:
            x = rhs / db
            if x < lim[1]:
                lim[1] = x
        elif db < 0.0:
            x = rhs / db
            if x > lim[0]:
                lim[0] = x
    if chosen != best:  # a_c + b_c x >= a_best + b_best x - tol
        db = vals_b[best] - bc
        rhs = ac - vals_a[best] + tol
        if db > 0.0:
            x = rhs / db
            if x < lim[1]:
                lim[1] = x
        elif db < 0.0:
            x = rhs / db
            if x > lim[0]:
                lim[0] = x


# --------------------------------------------------------------------------- final round
@njit(cache=True)
def final_free_piece(r, combo, G, M, tol, scale, pf_min, pexc, sg, gp, go, op, ost, pf,
                     phi, phi_off, FA, Fc, FR, buf, deltas, hold, tmp):
    """Seat p1 above the bar with ``r - 1`` players after it, for one offset pattern ``combo`` of
    their margins (``m_j = t - u_j``): ``FA[row, c, role]`` (roles p1..pr) and ``Fc[row, c]`` over
    ``m_2 = M .. 1`` (rows ``m_2 * B^(r-2) + combo``), the value ``FA + Fc * bust``.  p1 holds where
    ``sum_j pexc[m_j] <= pf_min * scale`` (proven optimal) and decides by its own entry."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    offs = np.empty(r - 1, dtype=np.int64)
    x = combo
    offs[0] = G - 1
    for j in range(r - 2, 0, -1):
        offs[j] = x % B
        x //= B
    for m2 in range(M, 0, -1):
        row = m2 * nc + combo
        valid = True
        tail = 0.0
        for j in range(r - 1):
            mj = m2 + offs[j] - (G - 1)
            deltas[j] = mj
            if mj < 1:
                valid = False
        if not valid:
            for c in range(S):
                for i in range(r):
                    FA[row, c, i] = 0.0
                Fc[row, c] = 0.0
                FR[row, c] = False
            continue
        for j in range(r - 1):
            tail += pexc[deltas[j]]
        forced = tail <= pf_min * scale
        phi_get(r - 1, deltas, G, phi, phi_off, pexc, hold)  # roles [p1 (new leader), p2, .., pr]
        for c in range(S):
            if forced or sg[c] == sg[c + 1]:
                for i in range(r):
                    FA[row, c, i] = hold[i]
                Fc[row, c] = 0.0
                FR[row, c] = False
                continue
            for i in range(r):
                tmp[i] = 0.0
            rc = pf[c]
            for g in range(sg[c], sg[c + 1]):
                n = go[g + 1] - go[g]
                for q in range(n):
                    o = go[g] + q
                    mm = m2 + op[o]
                    if mm > M:
                        mm = M
                    buf[0, q] = FA[mm * nc + combo, ost[o], 0]
                    buf[1, q] = 0.0
                ch, _ = choose(buf[0], buf[1], n, 0.0, tol)
                o = go[g] + ch
                mm = m2 + op[o]
                if mm > M:
                    mm = M
                rr = mm * nc + combo
                for i in range(r):
                    tmp[i] += gp[g] * FA[rr, ost[o], i]
                rc += gp[g] * Fc[rr, ost[o]]
            if tmp[0] > hold[0] + tol:
                for i in range(r):
                    FA[row, c, i] = tmp[i]
                Fc[row, c] = rc
                FR[row, c] = True
            else:
                for i in range(r):
                    FA[row, c, i] = hold[i]
                Fc[row, c] = 0.0
                FR[row, c] = False


@njit(cache=True, parallel=True)
def final_free(r, G, M, tol, scale, pf_min, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc, FR,
               maxg, workers):
    """:func:`final_free_piece` for every offset pattern (independent pieces)."""
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    Wk = max(1, min(workers, nc))
    for w in prange(Wk):
        buf = np.empty((2, maxg))
        deltas = np.empty(r, dtype=np.int64)
        hold = np.empty(r + 1)
        tmp = np.empty(r + 1)
        for combo in range(w, nc, Wk):
            final_free_piece(r, combo, G, M, tol, scale, pf_min, pexc, sg, gp, go, op, ost, pf,
                             phi, phi_off, FA, Fc, FR, buf, deltas, hold, tmp)


@njit(cache=True)
def final_phi_piece(r, piece, G, D, M, tol, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc,
                    a, b, buf, deltas, bust, dd):
    """``Phi_r`` for the later players' deficits of ``piece`` (``delta_2`` and the offsets of the
    others): p1's final turn below the bar (it must roll; a bust or a turn ending at or below the
    bar leaves it 0), by ``d = X - t`` from 0 up, every ``delta_1 = d`` of the band at once."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    d2 = piece // nc + 1
    combo = piece % nc
    x = combo
    deltas[0] = d2
    for j in range(r - 2, 0, -1):
        deltas[j] = d2 + x % B - (G - 1)
        x //= B
    lo_d = 1
    hi_d = D
    for j in range(r - 1):
        if deltas[j] < 1 or deltas[j] > D:
            return
        if deltas[j] - G + 1 > lo_d:
            lo_d = deltas[j] - G + 1
        if deltas[j] + G - 1 < hi_d:
            hi_d = deltas[j] + G - 1
    if hi_d < lo_d:
        return
    phi_get(r - 1, deltas, G, phi, phi_off, pexc, bust)  # roles [leader, p2, .., pr]
    for d in range(hi_d + 1):
        for c in range(S):
            for i in range(r):
                a[d, c, i] = 0.0
            rc = pf[c]
            for g in range(sg[c], sg[c + 1]):
                n = go[g + 1] - go[g]
                for q in range(n):
                    o = go[g] + q
                    p = op[o]
                    if p > d:
                        mm = d2 + p - d
                        if mm > M:
                            mm = M
                        buf[0, q] = FA[mm * nc + combo, ost[o], 0]
                    else:
                        buf[0, q] = a[d - p, ost[o], 0]
                    buf[1, q] = 0.0
                ch, _ = choose(buf[0], buf[1], n, 0.0, tol)
                o = go[g] + ch
                p = op[o]
                if p > d:
                    mm = d2 + p - d
                    if mm > M:
                        mm = M
                    rr = mm * nc + combo
                    for i in range(r):
                        a[d, c, i] += gp[g] * FA[rr, ost[o], i]
                    rc += gp[g] * Fc[rr, ost[o]]
                else:
                    for i in range(r):
                        a[d, c, i] += gp[g] * a[d - p, ost[o], i]
                    rc += gp[g] * b[d - p, ost[o]]
            b[d, c] = rc
        if d >= lo_d:
            ix = d
            for j in range(r - 1):
                ix = ix * B + (deltas[j] - d + G - 1)
            base = phi_off[r] + ix * (r + 1)
            phi[base] = b[d, 0] * bust[0]
            phi[base + 1] = a[d, 0, 0]
            for i in range(1, r):
                phi[base + 1 + i] = a[d, 0, i] + b[d, 0] * bust[i]


@njit(cache=True, parallel=True)
def final_phi(r, G, D, M, tol, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc, maxg, workers):
    """:func:`final_phi_piece` for every ``delta_2 = 1 .. D`` and offset pattern (independent)."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    n = D * nc
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        a = np.empty((D + 1, S, r))
        b = np.empty((D + 1, S))
        buf = np.empty((2, maxg))
        deltas = np.empty(r, dtype=np.int64)
        bust = np.empty(r)
        dd = np.empty(r, dtype=np.int64)
        for piece in range(w, n, Wk):
            final_phi_piece(r, piece, G, D, M, tol, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc,
                            a, b, buf, deltas, bust, dd)


# --------------------------------------------------------------------------- one score tuple
@njit(cache=True)
def fill_hold(idx, m, N, G, kmax, maxp, stride, start, phi, phi_off, pexc, H, deltas, vec):
    """``H[m, k, :]`` for ``k = 1 .. kmax + maxp``: the win vector after seat ``m`` banks turn total
    ``k``: below the goal the next seat's turn start at the higher tuple; at or above it the final
    round ``Phi_{N-1}`` of the others (seats ``m+1, .., m-1``) at deficits ``t - s_j``."""
    sm = (idx // stride[m]) % G
    nxt = (m + 1) % N
    for k in range(1, kmax + maxp + 1):
        t = sm + k
        if t < G:
            hi = idx + k * stride[m]
            for i in range(N):
                H[m, k, i] = start[hi, nxt, i]
        else:
            for j in range(N - 1):
                sj = (idx // stride[(m + 1 + j) % N]) % G
                deltas[j] = t - sj
            phi_get(N - 1, deltas, G, phi, phi_off, pexc, vec)
            H[m, k, m] = vec[0]
            for j in range(N - 1):
                H[m, k, (m + 1 + j) % N] = vec[1 + j]


@njit(cache=True)
def bank_total(idx, m, N, G, stride, pexc, pf_min, beta, scale, tcap):
    """The smallest total ``T >= G - 1`` with ``sum_{j != m} pexc[T + 1 - s_j] <= pf_min (1 - beta) scale``:
    banking at every larger total is optimal for seat ``m`` (a roll is worth at most
    ``1 - pf_min (1 - beta)`` to it, a bank at least ``1 - sum_j P(j exceeds)``).  Clamped to ``tcap``;
    returns (T, proven)."""
    level = pf_min * (1.0 - beta) * scale
    for T in range(G - 1, tcap + 1):
        tail = 0.0
        for j in range(N):
            if j != m:
                tail += pexc[T + 1 - (idx // stride[j]) % G]
        if tail <= level:
            return T, True
    return tcap, False


@njit(cache=True)
def turn_dp(m, beta, sm, N, kmax, maxp, om, tol, reach, sg, gp, go, op, ost, pf, H, A, c, roll, keep, ivl, buf, rv):
    """Seat ``m``'s turn (score ``sm``) at the tuple of ``H`` when a farkle leaves it ``beta`` (its own
    entry of the next seat's turn start): every state's value ``A[k, c, :] + c[k, c] * T_next`` under
    its best response at ``beta`` (bank unless rolling beats it by more than ``tol``; keeps by
    priority within ``tol``; bank forced beyond ``kmax`` and in the no-dice class).  ``ivl = [lo, hi]``:
    the same decisions for every ``beta`` in ``(lo, hi]`` (conservative).  Decisions: ``roll[k, c]``,
    ``keep[k, g]`` (option offset within group ``g``)."""
    S = sg.shape[0] - 1
    lo = -np.inf
    hi = np.inf
    for k in range(kmax + maxp, kmax, -1):
        for cc in range(S):
            for i in range(N):
                A[k, cc, i] = H[m, k, i]
            c[k, cc] = 0.0
    for k in range(kmax, -1, -1):
        can_bank = k > 0 and (sm > 0 or k >= om)
        for cc in range(S):
            if not reach[k, cc]:  # no turn gets here: its decisions would only narrow the interval
                continue
            if can_bank and sg[cc] == sg[cc + 1]:  # no dice to roll: the turn total is banked
                for i in range(N):
                    A[k, cc, i] = H[m, k, i]
                c[k, cc] = 0.0
                roll[k, cc] = False
                continue
            for i in range(N):
                rv[i] = 0.0
            rc = pf[cc]
            for g in range(sg[cc], sg[cc + 1]):
                base = go[g]
                n = go[g + 1] - base
                best = 0
                bv = -np.inf
                for q in range(n):
                    o = base + q
                    kk = k + op[o]
                    s2 = ost[o]
                    av = A[kk, s2, m]
                    bw = c[kk, s2]
                    buf[0, q] = av
                    buf[1, q] = bw
                    v = av + bw * beta
                    if v > bv:
                        bv = v
                        best = q
                ch = best  # the first option (priority order) within tol of the best
                for q in range(best):
                    if buf[0, q] + buf[1, q] * beta >= bv - tol:
                        ch = q
                        break
                if n > 1:  # the betas that keep this choice (conservative; see keep_interval)
                    ac = buf[0, ch]
                    bc = buf[1, ch]
                    for q in range(n):
                        if q == ch:
                            continue
                        if q < ch:
                            db = buf[1, q] - buf[1, best]
                            rhs = buf[0, best] - buf[0, q] - tol
                        else:
                            db = buf[1, q] - bc
                            rhs = ac - buf[0, q] + tol
                        if db > 0.0:
                            x = rhs / db
                            if x < hi:
                                hi = x
                        elif db < 0.0:
                            x = rhs / db
                            if x > lo:
                                lo = x
                    if ch != best:
                        db = buf[1, best] - bc
                        rhs = ac - buf[0, best] + tol
                        if db > 0.0:
                            x = rhs / db
                            if x < hi:
                                hi = x
                        elif db < 0.0:
                            x = rhs / db
                            if x > lo:
                                lo = x
                keep[k, g] = ch
                o = base + ch
                kk = k + op[o]
                s2 = ost[o]
                for i in range(N):
                    rv[i] += gp[g] * A[kk, s2, i]
                rc += gp[g] * c[kk, s2]
            rolls = True
            if can_bank:
                h = H[m, k, m]
                rolls = rv[m] + rc * beta > h + tol
                if rc > 0.0:
                    x = (h + tol - rv[m]) / rc
                    if rolls:
                        if x > lo:
                            lo = x
                    elif x < hi:
                        hi = x
            roll[k, cc] = rolls
            if rolls:
                for i in range(N):
                    A[k, cc, i] = rv[i]
                c[k, cc] = rc
            else:
                for i in range(N):
                    A[k, cc, i] = H[m, k, i]
                c[k, cc] = 0.0
    ivl[0] = lo
    ivl[1] = hi


@njit(cache=True)
def solve_tuple(idx, N, G, om, tol, maxit, stride, reach, sg, gp, go, op, ost, pf, maxp, pexc, pf_min,
                bound_scale, tcap, start, phi, phi_off, H, A, c, roll, keep, SA, Sc, T, beta, beta0,
                ivl, hist, buf, rv, deltas, vec, out, kmax_out):
    """Every seat's turn start of tuple ``idx``: policy iteration on the N-cycle of turn starts
    (the rolled-ones scheme: best responses at the current ``beta``, the exact cycle solve, stop
    when every new ``beta`` keeps its policy), inside a loop that chooses each seat's forced-bank
    total from a guess of ``beta`` and checks it against the solved one (retrying with a safer
    guess, as the two-player solver does).  Returns ``(status, evaluations, proven)``."""
    initial_beta(idx, N, G, stride, start, beta0)
    evals = 0
    scale = bound_scale
    proven = True
    for attempt in range(40):
        for m in range(N):
            tt, ok = bank_total(idx, m, N, G, stride, pexc, pf_min, beta0[m], scale, tcap)
            sm = (idx // stride[m]) % G
            kmax_out[m] = tt - sm
            fill_hold(idx, m, N, G, kmax_out[m], maxp, stride, start, phi, phi_off, pexc, H, deltas, vec)
        for m in range(N):
            beta[m] = beta0[m]
        status = NO_CONVERGENCE
        for it in range(maxit):
            for m in range(N):
                sm = (idx // stride[m]) % G
                turn_dp(m, beta[m], sm, N, kmax_out[m], maxp, om, tol, reach, sg, gp, go, op, ost, pf, H, A, c,
                        roll, keep, ivl[m], buf, rv)
                evals += 1
                record_start(it, m, N, A, c, SA, Sc, hist)
            ended = end_round(it, N, hist, SA, Sc, T, ivl, beta)
            if ended != GOING:
                status = ended
                break
        if status != CONVERGED:
            return status, evals, proven
        # the forced-bank totals must hold for the solved values
        good = True
        for m in range(N):
            tt, okb = bank_total(idx, m, N, G, stride, pexc, pf_min, T[(m + 1) % N, m], 1.0, tcap)
            sm = (idx // stride[m]) % G
            if tt > kmax_out[m] + sm:
                if kmax_out[m] + sm >= tcap:
                    proven = False
                else:
                    good = False
        if good:
            for m in range(N):
                for e in range(N):
                    out[m, e] = T[m, e]
            return CONVERGED, evals, proven
        for m in range(N):
            beta0[m] = T[(m + 1) % N, m]
        scale *= 0.1
    for m in range(N):
        for e in range(N):
            out[m, e] = T[m, e]
    return CONVERGED, evals, False


@njit(cache=True, parallel=True)
def solve_tuples(tuples, N, G, om, tol, maxit, stride, reach, sg, gp, go, op, ost, pf, maxp, maxg, pexc, pf_min,
                 bound_scale, tcap, start, phi, phi_off, out, kmax, status, evals, proven, workers):
    """:func:`solve_tuple` for every tuple of a chunk of one level (independent: each reads ``start``
    of higher levels only).  Writes ``out[t]``, ``kmax[t]``, ``status[t]``, ``evals[t]``, ``proven[t]``."""
    S = sg.shape[0] - 1
    n = tuples.shape[0]
    Gr = gp.shape[0]
    KK = tcap + maxp + 2
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        H = np.empty((N, KK, N))
        A = np.empty((KK, S, N))
        c = np.empty((KK, S))
        roll = np.zeros((KK, S), dtype=np.bool_)
        keep = np.zeros((KK, Gr), dtype=np.int8)
        SA = np.empty((N, N))
        Sc = np.empty(N)
        T = np.zeros((N, N))
        beta = np.empty(N)
        beta0 = np.empty(N)
        ivl = np.empty((N, 2))
        hist = np.empty((maxit, N, N + 1))
        buf = np.empty((2, maxg))
        rv = np.empty(N)
        deltas = np.empty(N, dtype=np.int64)
        vec = np.empty(N + 1)
        for t in range(w, n, Wk):
            st, ev, pr = solve_tuple(tuples[t], N, G, om, tol, maxit, stride, reach, sg, gp, go, op, ost, pf, maxp,
                                     pexc, pf_min, bound_scale, tcap, start, phi, phi_off, H, A, c, roll, keep,
                                     SA, Sc, T, beta, beta0, ivl, hist, buf, rv, deltas, vec, out[t], kmax[t])
            status[t] = st
            evals[t] = ev
            proven[t] = pr


@njit(cache=True)
def one_turn(idx, m, beta, N, G, om, tol, stride, reach, sg, gp, go, op, ost, pf, maxp, kmax, start, phi, phi_off,
             pexc, A, c, roll, keep, ivl):
    """One seat's best response at ``beta`` with a given ``kmax`` (the cycle resolution's tool)."""
    S = sg.shape[0] - 1
    KK = A.shape[0]
    H = np.zeros((N, KK, N))
    deltas = np.empty(N, dtype=np.int64)
    vec = np.empty(N + 1)
    fill_hold(idx, m, N, G, kmax, maxp, stride, start, phi, phi_off, pexc, H, deltas, vec)
    maxg = 0
    for g in range(go.shape[0] - 1):
        if go[g + 1] - go[g] > maxg:
            maxg = go[g + 1] - go[g]
    buf = np.empty((2, maxg))
    rv = np.empty(N)
    sm = (idx // stride[m]) % G
    turn_dp(m, beta, sm, N, kmax, maxp, om, tol, reach, sg, gp, go, op, ost, pf, H, A, c, roll, keep, ivl, buf, rv)
    return S
