"""Compiled kernels of the N-player Great Rolled Ones solve (:mod:`.nplayer`, which documents the
equations).  A module of its own so that importing the solver does not import numba, and so
that numba's on-disk cache finds the kernels again (module-level functions only).

Parallel: the pieces a ``prange`` runs are independent (the score tuples of one level read
only higher levels; the final-round tables of one seat read only the next seat's table).
Worker ``w`` of ``W`` takes every ``W``-th piece with its own scratch arrays and writes only
that piece's outputs; there is no shared accumulator, so each piece is computed by the same
operations whatever the thread count and the results are bit-identical for any thread count
and any chunking (tests/test_rolled_ones_nplayer.py).

Array conventions (N seats, 0-based seat ``m`` here, seat ``m + 1`` in the docs):

* a score tuple ``s`` is the index ``sum_m s[m] * stride[m]``, ``stride[m] = G ** (N - 1 - m)``
  (seat 1 the most significant digit: ``start.reshape((G,) * N + (N, N))[s1, ..., sN]``);
* ``start[idx, m, :]``: the win vector (one entry per seat) at seat ``m``'s turn start;
* ``phi`` (flat): the final-round tables ``Phi_j(X; s_j..s_{N-1})`` for ``j = 1 .. N-1``, at
  ``phi_off[j] + ((X - G) * phi_rows[j] + r) * (N - j + 1) + role`` with
  ``r = idx % phi_rows[j]`` (``phi_rows[j] = G ** (N - j)``) and roles
  ``[leader, j, j+1, .., N-1]``;
* roll outcomes from ``o`` 1s set aside: ``out_p[o, q]``, ``out_g[o, q]`` (points added),
  ``out_o[o, q]`` (1s set aside after) for ``q < out_n[o]``; ``p_end[o]`` ends the turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dicebase.numeric.rolled_ones_turn import best_turn, final_start, free_turn

from dicebase.builder.equilibrium_kernels import (  # noqa: F401  (the status codes: re-exported)
    CONVERGED, CYCLE, GOING, NO_CONVERGENCE, end_round, initial_beta, record_start, solve_cycle,
)


# --------------------------------------------------------------------------- final round
@njit(cache=True)
def final_tables_piece(R, j, N, G, C, L, tol, tmax, XR, Q0, out_p, out_g, out_o, out_n, p_end,
                       phi, phi_off, phi_rows, FA, Fc, FR, W, fixed, given):
    """Seat ``j``'s final turn for the later seats' scores ``R`` (index of ``s_{j+1}..s_{N-1}``).

    Free region ``t > X`` (the mover may hold): ``FA[R, t - G - 1, o, :]`` (roles ``j..N-1``,
    ``j`` the leader after its hold) and ``Fc[R, t - G - 1, o]`` with the value ``FA + Fc * B``,
    ``B`` the next seat's table at the old bar (the mover gets 0 from a bust).  Then
    ``Phi_j(X; s_j, R)`` for every bar ``X = G .. G + XR - 1`` and every ``s_j < G`` from the
    first-passage table ``Q0[d, r - 1, o']`` (``d = X - s_j``: exceed first at ``X + r``).

    The turn is :func:`dicebase.rules.rolled_ones_turn.free_turn` (the bots' too).  Seat ``j``
    best-responds (``FR[R, t - G - 1, o]`` its decisions; it holds at the score cap ``C``), or with ``fixed``
    plays the decisions ``given[R, t - G - 1, o]`` (the stored equilibrium's, or never for a policy seat,
    which holds as soon as it is above the bar; False where a roll would pass ``tmax``; ``FR`` untouched).
    """
    nf = N - j  # roles of the free region: j, j+1, .., N-1
    TT = tmax - G
    hold = np.empty((TT, nf))  # holding at total t = G + 1 + i: j leads the next seat's final turn
    for i in range(TT):
        if j == N - 1:
            hold[i, 0] = 1.0
        else:
            base = phi_off[j + 1] + ((i + 1) * phi_rows[j + 1] + R) * nf
            for e in range(nf):
                hold[i, e] = phi[base + e]
    free_turn(nf, L, tol, TT - 1, 0, TT - 1, C - G - 1, hold, FA[R], Fc[R], FR[R], fixed, given[R], p_end, out_p,
              out_g, out_o, out_n, np.empty(nf))
    final_phi(R, j, N, G, L, XR, Q0, phi, phi_off, phi_rows, FA, Fc, W)


@njit(cache=True)
def final_phi(R, j, N, G, L, XR, Q0, phi, phi_off, phi_rows, FA, Fc, W):
    """``Phi_j(X; s_j, R)`` for every bar ``X = G .. G + XR - 1`` and every ``s_j < G`` from seat ``j``'s
    free region (``FA``, ``Fc``) and the first-passage table ``Q0[d, r - 1, o']`` (``d = X - s_j``):
    :func:`dicebase.rules.rolled_ones_turn.final_start`, the lookups' too."""
    nf = N - j
    D = Q0.shape[1]
    stride_j = phi_rows[j] // G  # G ** (N - 1 - j)
    FAR = FA[R]
    FcR = Fc[R]
    for X in range(G, G + XR):
        nb = 0 if j == N - 1 else phi_off[j + 1] + ((X - G) * phi_rows[j + 1] + R) * nf
        for sj in range(G):
            base = phi_off[j] + ((X - G) * phi_rows[j] + sj * stride_j + R) * (nf + 1)
            final_start(nf, D, L, X - sj, X - G - 1, Q0, FAR, FcR, j == N - 1, phi, nb, phi, base, W)


@njit(cache=True, parallel=True)
def final_tables(j, N, G, C, L, tol, tmax, XR, Q0, out_p, out_g, out_o, out_n, p_end,
                 phi, phi_off, phi_rows, FA, Fc, FR, fixed, given, workers):
    """:func:`final_tables_piece` for every ``R`` (independent pieces, ``prange`` over workers)."""
    nR = phi_rows[j] // G
    Wk = min(workers, nR)
    for w in prange(Wk):
        W = np.empty(N - j)
        for R in range(w, nR, Wk):
            final_tables_piece(R, j, N, G, C, L, tol, tmax, XR, Q0, out_p, out_g, out_o, out_n, p_end,
                               phi, phi_off, phi_rows, FA, Fc, FR, W, fixed, given)


# --------------------------------------------------------------------------- one score tuple
@njit(cache=True)
def fill_hold(idx, N, G, K, D, stride, start, phi, phi_off, phi_rows, H):
    """``H[m, k, :]``: the win vector after seat ``m`` holds at turn total ``k`` (``1 <= k <= K + D``).

    Below the goal: the next seat's turn start at the higher tuple (``start``).  At or above it:
    the last seat wins at once; another seat ends the round's last turns at bar ``X = s_m + k``
    (``Phi_{m+1}``, its leader role is seat ``m``).
    """
    for m in range(N):
        sm = (idx // stride[m]) % G
        nxt = (m + 1) % N
        for k in range(1, K + D + 1):
            t = sm + k
            if t < G:
                hi = idx + k * stride[m]
                for i in range(N):
                    H[m, k, i] = start[hi, nxt, i]
            else:
                for i in range(N):
                    H[m, k, i] = 0.0
                if m == N - 1:
                    H[m, k, m] = 1.0
                else:
                    jj = m + 1
                    nr = N - jj + 1
                    base = phi_off[jj] + ((t - G) * phi_rows[jj] + idx % phi_rows[jj]) * nr
                    H[m, k, m] = phi[base]
                    for i in range(1, nr):
                        H[m, k, jj + i - 1] = phi[base + i]


@njit(cache=True)
def solve_tuple(idx, h, hdec, N, G, K, KH, D, L, tol, maxit, stride, reach, out_p, out_g, out_o, out_n, p_end,
                start, phi, phi_off, phi_rows, H, A, c, dec, rv, ah, SA, Sc, T, beta, ivl, hist, out):
    """Every seat's turn start of the tuple ``idx`` by policy iteration on the N-cycle of turn
    starts; writes ``out[m, :]`` and returns ``(status, evaluations)``.

    Start: :func:`~dicebase.builder.equilibrium_kernels.initial_beta`.  Each round: every seat's
    greedy policy at its current ``beta`` (:func:`dicebase.rules.rolled_ones_turn.best_turn`), the exact
    cycle solve (:func:`~dicebase.builder.equilibrium_kernels.solve_cycle`), and the new ``beta``; done
    when every new ``beta`` lies in the interval that keeps its seat's policy.  A profile of start
    coefficients seen before (other than the last) is a policy cycle: status ``CYCLE`` (the
    caller computes a mixed equilibrium).

    Seat ``h`` (``-1``: none) does not best-respond but plays one of seed 002's policies
    (:mod:`.nplayer_policies`): ``hdec[s_h, lead, k, o]`` (``lead`` the highest other score; turn totals up
    to ``KH``, ``K`` for the others), evaluated once; its interval of ``beta`` is unbounded.
    """
    fill_hold(idx, N, G, KH, D, stride, start, phi, phi_off, phi_rows, H)
    initial_beta(idx, N, G, stride, start, beta)
    evals = 0
    ch = 0.0
    if h >= 0:
        sh = (idx // stride[h]) % G
        lead = 0
        for n in range(N):
            if n != h:
                s = (idx // stride[n]) % G
                if s > lead:
                    lead = s
        best_turn(h, 0.0, N, KH, D, L, tol, reach, out_p, out_g, out_o, out_n, p_end, H, A, c, dec, ivl[h], rv,
                  True, hdec[sh, lead])
        for e in range(N):
            ah[e] = A[0, 0, e]
        ch = c[0, 0]
        evals = 1
    for it in range(maxit):
        for m in range(N):
            if m == h:
                for e in range(N):
                    SA[m, e] = ah[e]
                    hist[it, m, e] = ah[e]
                Sc[m] = ch
                hist[it, m, N] = ch
                ivl[m, 0] = -np.inf
                ivl[m, 1] = np.inf
            else:
                best_turn(m, beta[m], N, K, D, L, tol, reach, out_p, out_g, out_o, out_n, p_end,
                          H, A, c, dec, ivl[m], rv, False, dec)
                evals += 1
                record_start(it, m, N, A, c, SA, Sc, hist)
        status = end_round(it, N, hist, SA, Sc, T, ivl, beta)
        if status == CONVERGED:
            out[:, :] = T
        if status != GOING:
            return status, evals
    return NO_CONVERGENCE, evals


@njit(cache=True, parallel=True)
def solve_tuples(tuples, h, hdec, N, G, K, KH, D, L, tol, maxit, stride, reach, out_p, out_g, out_o, out_n, p_end,
                 start, phi, phi_off, phi_rows, out, status, evals, workers):
    """:func:`solve_tuple` for every tuple of a chunk of one level (independent: each reads
    ``start`` of higher levels only).  Writes ``out[t]``, ``status[t]``, ``evals[t]``."""
    n = tuples.shape[0]
    Wk = max(1, min(workers, n))
    for w in prange(Wk):
        H = np.empty((N, KH + D + 1, N))
        A = np.empty((KH + D + 1, L, N))
        c = np.empty((KH + D + 1, L))
        dec = np.zeros((K + 1, L), dtype=np.bool_)
        rv = np.empty(N)
        ah = np.empty(N)
        SA = np.empty((N, N))
        Sc = np.empty(N)
        T = np.zeros((N, N))
        beta = np.empty(N)
        ivl = np.empty((N, 2))
        hist = np.empty((maxit, N, N + 1))
        for t in range(w, n, Wk):
            st, ev = solve_tuple(tuples[t], h, hdec, N, G, K, KH, D, L, tol, maxit, stride, reach, out_p, out_g,
                                 out_o, out_n, p_end, start, phi, phi_off, phi_rows, H, A, c, dec, rv, ah, SA, Sc,
                                 T, beta, ivl, hist, out[t])
            status[t] = st
            evals[t] = ev
