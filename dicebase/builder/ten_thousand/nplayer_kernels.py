"""Compiled kernels of the N-player 10,000 solve (:mod:`.nplayer`, which documents the equations).

Every turn here (a seat's turn below the goal, affine in what a farkle leaves it; seat p1's final turn above
and below the bar) is walked by the one definition of a turn's total,
:func:`dicebase.rules.ten_thousand.turn.turn_row`, compiled; the lookups run the same function plain.

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
from dicebase.numeric.ten_thousand_nturn import places, turn_row


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


# --------------------------------------------------------------------------- final round
# Both final-round pieces walk seat p1's turn by turn_row with W = r + 1 entries per state: the roles p1..pr (a farkle
# adds nothing to them: its effect is the coefficient's), then the farkle coefficient (which starts from pf[c]).
@njit(cache=True)
def _entries(r):
    """turn_row's ``fb`` and ``ff`` of a final-round piece: only the coefficient (entry ``r``) counts a farkle,
    first."""
    fb = np.zeros(r + 1)
    ff = np.zeros(r + 1)
    ff[r] = 1.0
    return fb, ff


@njit(cache=True)
def final_free_piece(r, combo, G, M, tol, scale, pf_min, pexc, sg, gp, go, place, pf,
                     phi, phi_off, FA, Fc, FR, V, bank, keep, qs, deltas, hold):
    """Seat p1 above the bar with ``r - 1`` players after it, for one offset pattern ``combo`` of
    their margins (``m_j = t - u_j``): ``FA[row, c, role]`` (roles p1..pr) and ``Fc[row, c]`` over
    ``m_2 = M .. 1`` (rows ``m_2 * B^(r-2) + combo``), the value ``FA + Fc * bust``.  p1 holds where
    ``sum_j pexc[m_j] <= pf_min * scale`` (proven optimal) and decides by its own entry; ``V`` holds the
    piece's rows ``m_2`` (above ``M``: row ``M``'s, as a margin past the tables reads)."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    W = r + 1
    maxp = (V.shape[0] // (S * W)) - M - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    offs = np.empty(r - 1, dtype=np.int64)
    x = combo
    offs[0] = G - 1
    for j in range(r - 2, 0, -1):
        offs[j] = x % B
        x //= B
    fb, ff = _entries(r)
    every = np.ones(S, dtype=np.bool_)
    none = np.zeros(S, dtype=np.bool_)
    none_f = np.zeros(0)
    none_i = np.zeros(0, dtype=np.int64)
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
        phi_get(r - 1, deltas, G, phi, phi_off, pexc, hold)  # roles [p1 (new leader), p2, .., pr]
        for i in range(r):
            bank[i] = hold[i]
        bank[r] = 0.0
        skip = every if tail <= pf_min * scale else none  # forced: p1 holds (proven optimal)
        turn_row(m2, m2, S, W, 0, -1, 0.0, V, bank, 0, fb, ff, 1, M + 1, tol, skip, True, sg, gp, go, place, pf,
                 none_i, none_i, none_f, none_i, none_i, none_i, none_i, none_f, keep, 0, qs, 0, none_f)
        for c in range(S):
            at = (m2 * S + c) * W
            for i in range(r):
                FA[row, c, i] = V[at + i]
            Fc[row, c] = V[at + r]
            FR[row, c] = qs[c] == 1.0
        if m2 == M:
            for x in range(M + 1, M + maxp + 1):
                for j in range(S * W):
                    V[x * S * W + j] = V[M * S * W + j]


@njit(cache=True, parallel=True)
def final_free(r, G, M, tol, scale, pf_min, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc, FR,
               maxp, workers):
    """:func:`final_free_piece` for every offset pattern (independent pieces)."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    place = places(op, ost, S, r + 1, np.empty(op.shape[0], dtype=np.int64))
    Wk = max(1, min(workers, nc))
    for w in prange(Wk):
        V = np.zeros((M + maxp + 1) * S * (r + 1))
        bank = np.empty(r + 1)
        keep = np.empty(gp.shape[0], dtype=np.int64)
        qs = np.empty(S)
        deltas = np.empty(r, dtype=np.int64)
        hold = np.empty(r + 1)
        for combo in range(w, nc, Wk):
            final_free_piece(r, combo, G, M, tol, scale, pf_min, pexc, sg, gp, go, place, pf,
                             phi, phi_off, FA, Fc, FR, V, bank, keep, qs, deltas, hold)


@njit(cache=True)
def final_phi_piece(r, piece, G, D, M, maxp, tol, pexc, sg, gp, go, place, pf, phi, phi_off, FA, Fc,
                    V, keep, qs, deltas, bust):
    """``Phi_r`` for the later players' deficits of ``piece`` (``delta_2`` and the offsets of the
    others): p1's final turn below the bar (it must roll; a bust or a turn ending at or below the
    bar leaves it 0), by ``d = X - t`` from 0 up, every ``delta_1 = d`` of the band at once.  ``V``'s
    row ``hi_d - d`` holds ``d`` below the bar, the rows above it ``FA``'s margins above the bar."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    W = r + 1
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
    for y in range(1, maxp + 1):  # p1 above the bar by y: its margin over p2 is d2 + y
        mm = min(d2 + y, M)
        for c in range(S):
            at = ((hi_d + y) * S + c) * W
            for i in range(r):
                V[at + i] = FA[mm * nc + combo, c, i]
            V[at + r] = Fc[mm * nc + combo, c]
    fb, ff = _entries(r)
    none = np.zeros(S, dtype=np.bool_)
    none_f = np.zeros(0)
    none_i = np.zeros(0, dtype=np.int64)
    for d in range(hi_d + 1):
        turn_row(-d, hi_d - d, S, W, 0, -1, 0.0, V, bust, 0, fb, ff, 1, 0, tol, none, True, sg, gp, go, place, pf,
                 none_i, none_i, none_f, none_i, none_i, none_i, none_i, none_f, keep, 0, qs, 0, none_f)
        if d >= lo_d:
            at = ((hi_d - d) * S) * W  # class 0
            ix = d
            for j in range(r - 1):
                ix = ix * B + (deltas[j] - d + G - 1)
            base = phi_off[r] + ix * (r + 1)
            phi[base] = V[at + r] * bust[0]
            phi[base + 1] = V[at]
            for i in range(1, r):
                phi[base + 1 + i] = V[at + i] + V[at + r] * bust[i]


@njit(cache=True, parallel=True)
def final_phi(r, G, D, M, tol, pexc, sg, gp, go, op, ost, pf, phi, phi_off, FA, Fc, maxp, workers):
    """:func:`final_phi_piece` for every ``delta_2 = 1 .. D`` and offset pattern (independent)."""
    S = sg.shape[0] - 1
    B = 2 * G - 1
    nc = 1
    for _ in range(r - 2):
        nc *= B
    n = D * nc
    place = places(op, ost, S, r + 1, np.empty(op.shape[0], dtype=np.int64))
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        V = np.zeros((D + 1 + maxp) * S * (r + 1))
        keep = np.empty(gp.shape[0], dtype=np.int64)
        qs = np.empty(S)
        deltas = np.empty(r, dtype=np.int64)
        bust = np.empty(r)
        for piece in range(w, n, Wk):
            final_phi_piece(r, piece, G, D, M, maxp, tol, pexc, sg, gp, go, place, pf, phi, phi_off, FA, Fc,
                            V, keep, qs, deltas, bust)


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
def turn_dp(m, beta, sm, N, kmax, maxp, om, tol, unreach, sg, gp, go, place, pf, H, V, roll, keep, ivl):
    """Seat ``m``'s turn (score ``sm``) at the tuple of ``H`` when a farkle leaves it ``beta`` (its own
    entry of the next seat's turn start), by :func:`turn_row` in its affine form: every state's value
    ``V[k, c, :N] + V[k, c, N] * T_next`` under its best response at ``beta`` (bank unless rolling beats it by
    more than ``tol``; keeps by priority within ``tol``; bank forced beyond ``kmax`` and in the no-dice class;
    a state no turn reaches, ``unreach``, is not decided: its decisions would only narrow the interval).
    ``ivl = [lo, hi]``: the same decisions for every ``beta`` in ``(lo, hi]`` (conservative).  Decisions:
    ``roll[k, c]``, ``keep[k, g]`` (option offset within group ``g``).  ``H[m, k, :]``: banking ``k``, its
    last entry 0."""
    S = sg.shape[0] - 1
    W = N + 1
    flat = V.reshape(-1)
    bank = H[m].reshape(-1)
    fb = np.zeros(W)
    ff = np.zeros(W)
    ff[N] = 1.0
    taken = np.empty(gp.shape[0], dtype=np.int64)
    qs = np.empty(S)
    none_f = np.zeros(0)
    none_i = np.zeros(0, dtype=np.int64)
    for k in range(kmax + maxp, kmax, -1):
        for cc in range(S):
            for i in range(W):
                V[k, cc, i] = H[m, k, i]
    ivl[0] = -np.inf
    ivl[1] = np.inf
    bank_from = 1 if sm > 0 or om <= 1 else om
    for k in range(kmax, -1, -1):
        turn_row(k, k, S, W, m, N, beta, flat, bank, k * W, fb, ff, bank_from, kmax, tol, unreach[k], True, sg, gp,
                 go, place, pf, none_i, none_i, none_f, none_i, none_i, none_i, none_i, none_f, taken, 0, qs, 0, ivl)
        for cc in range(S):
            if not unreach[k, cc]:
                roll[k, cc] = qs[cc] == 1.0
                for g in range(sg[cc], sg[cc + 1]):
                    keep[k, g] = taken[g] - go[g]


@njit(cache=True)
def solve_tuple(idx, N, G, om, tol, maxit, stride, unreach, sg, gp, go, place, pf, maxp, pexc, pf_min,
                bound_scale, tcap, start, phi, phi_off, H, V, roll, keep, SA, Sc, T, beta, beta0,
                ivl, hist, deltas, vec, out, kmax_out):
    """Every seat's turn start of tuple ``idx``: policy iteration on the N-cycle of turn starts
    (the rolled-ones scheme: best responses at the current ``beta``, the exact cycle solve, stop
    when every new ``beta`` keeps its policy), inside a loop that chooses each seat's forced-bank
    total from a guess of ``beta`` and checks it against the solved one (retrying with a safer
    guess, as the two-player solver does).  Returns ``(status, evaluations, proven)``."""
    initial_beta(idx, N, G, stride, start, beta0)
    A = V[:, :, :N]
    c = V[:, :, N]
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
                turn_dp(m, beta[m], sm, N, kmax_out[m], maxp, om, tol, unreach, sg, gp, go, place, pf, H, V,
                        roll, keep, ivl[m])
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
def solve_tuples(tuples, N, G, om, tol, maxit, stride, reach, sg, gp, go, op, ost, pf, maxp, pexc, pf_min,
                 bound_scale, tcap, start, phi, phi_off, out, kmax, status, evals, proven, workers):
    """:func:`solve_tuple` for every tuple of a chunk of one level (independent: each reads ``start``
    of higher levels only).  Writes ``out[t]``, ``kmax[t]``, ``status[t]``, ``evals[t]``, ``proven[t]``."""
    S = sg.shape[0] - 1
    n = tuples.shape[0]
    Gr = gp.shape[0]
    KK = tcap + maxp + 2
    unreach = ~reach
    place = places(op, ost, S, N + 1, np.empty(op.shape[0], dtype=np.int64))
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        H = np.zeros((N, KK, N + 1))
        V = np.zeros((KK, S, N + 1))
        roll = np.zeros((KK, S), dtype=np.bool_)
        keep = np.zeros((KK, Gr), dtype=np.int8)
        SA = np.empty((N, N))
        Sc = np.empty(N)
        T = np.zeros((N, N))
        beta = np.empty(N)
        beta0 = np.empty(N)
        ivl = np.empty((N, 2))
        hist = np.empty((maxit, N, N + 1))
        deltas = np.empty(N, dtype=np.int64)
        vec = np.empty(N + 1)
        for t in range(w, n, Wk):
            st, ev, pr = solve_tuple(tuples[t], N, G, om, tol, maxit, stride, unreach, sg, gp, go, place, pf, maxp,
                                     pexc, pf_min, bound_scale, tcap, start, phi, phi_off, H, V, roll, keep,
                                     SA, Sc, T, beta, beta0, ivl, hist, deltas, vec, out[t], kmax[t])
            status[t] = st
            evals[t] = ev
            proven[t] = pr


@njit(cache=True)
def one_turn(idx, m, beta, N, G, om, tol, stride, reach, sg, gp, go, op, ost, pf, maxp, kmax, start, phi, phi_off,
             pexc, V, roll, keep, ivl):
    """One seat's best response at ``beta`` with a given ``kmax`` (the cycle resolution's tool): ``V`` as
    :func:`turn_dp`'s."""
    S = sg.shape[0] - 1
    KK = V.shape[0]
    H = np.zeros((N, KK, N + 1))
    deltas = np.empty(N, dtype=np.int64)
    vec = np.empty(N + 1)
    fill_hold(idx, m, N, G, kmax, maxp, stride, start, phi, phi_off, pexc, H, deltas, vec)
    place = places(op, ost, S, N + 1, np.empty(op.shape[0], dtype=np.int64))
    sm = (idx // stride[m]) % G
    turn_dp(m, beta, sm, N, kmax, maxp, om, tol, ~reach, sg, gp, go, place, pf, H, V, roll, keep, ivl)
    return S
