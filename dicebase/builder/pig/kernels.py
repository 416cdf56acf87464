"""Compiled kernels of the Pig solve (:mod:`.solver`): the turn of :mod:`dicebase.rules.pig_turn`
compiled with ``njit`` (the one definition, also run as plain Python by the lookups), the tuple solve by
policy iteration on the shared equilibrium engine (:mod:`dicebase.builder.equilibrium_kernels`), and the
evaluation of a fixed profile of decisions (the simple policies).

Parallel: the tuples of one level read only higher levels; worker ``w`` of ``W`` takes every ``W``-th
tuple with its own scratch and writes only that tuple's outputs, so the results are bit-identical for any
thread count and chunking.  Arrays: ``start[idx, m, e]`` seat ``e``'s win probability at seat ``m``'s turn
start at tuple ``idx = sum_m s_m stride_m`` (``stride_m = G^(N-1-m)``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from dicebase.builder.equilibrium_kernels import (  # noqa: F401  (the status codes: re-exported)
    CONVERGED, CYCLE, GOING, NO_CONVERGENCE, end_round, initial_beta, record_start, solve_cycle,
)
from dicebase.numeric.pig_turn import policy_rolls, stored_mix, turn  # the one definition, compiled once


@njit(cache=True)
def fill_hold(idx, N, G, stride, start, H):
    """``H[m, k, :]``: the win vector after seat ``m`` holds at turn total ``k`` (``1 <= k < G - s_m``):
    the next seat's turn start at the tuple with ``s_m + k``."""
    for m in range(N):
        sm = (idx // stride[m]) % G
        nxt = (m + 1) % N
        for k in range(1, G - sm):
            hi = idx + k * stride[m]
            for e in range(N):
                H[m, k, e] = start[hi, nxt, e]


@njit(cache=True)
def seat_turn(idx, m, N, G, stride, beta, tol, p_face, p_bust, gains, H, mix, rv, A, c, dec, ivl):
    """:func:`turn` of seat ``m`` at tuple ``idx`` from turn total 0 (``A[0]``, ``c[0]``: its turn start)."""
    room = G - (idx // stride[m]) % G
    return turn(m, N, room, 0, beta, tol, p_face, p_bust, gains, H[m], mix, rv, A, c, dec, ivl)


@njit(cache=True)
def solve_tuple(idx, N, G, tol, maxit, stride, p_face, p_bust, gains, start, H, mix, rv, A, c, dec,
                SA, Sc, T, beta, ivl, hist, out):
    """Every seat's turn start of tuple ``idx`` by policy iteration on the N-cycle of turn starts (as the
    other games' kernels: best responses at ``beta``, the exact cycle solve, new ``beta``; stop when every
    ``beta`` keeps its policy); writes ``out[m, :]``, returns ``(status, evaluations)``."""
    fill_hold(idx, N, G, stride, start, H)
    initial_beta(idx, N, G, stride, start, beta)
    A3 = A.reshape((A.shape[0], 1, N))
    c2 = c.reshape((c.shape[0], 1))
    evals = 0
    for it in range(maxit):
        for m in range(N):
            seat_turn(idx, m, N, G, stride, beta[m], tol, p_face, p_bust, gains, H, mix, rv, A, c, dec, ivl[m])
            evals += 1
            record_start(it, m, N, A3, c2, SA, Sc, hist)
        status = end_round(it, N, hist, SA, Sc, T, ivl, beta)
        if status == CONVERGED:
            out[:, :] = T
        if status != GOING:
            return status, evals
    return NO_CONVERGENCE, evals


@njit(cache=True)
def solve_piece(w, Wk, tuples, N, G, tol, maxit, stride, p_face, p_bust, gains, start, out, status, evals):
    """:func:`solve_tuple` for the tuples ``w, w + Wk, ...`` of a chunk of one level, with its own scratch
    (one worker's share; called alone, ``w = 0, Wk = 1``, for a small level: no thread pool to wake)."""
    H = np.zeros((N, G, N))
    mix = np.full(G, -1.0)
    rv = np.empty(N)
    A = np.zeros((G, N))
    c = np.zeros(G)
    dec = np.zeros(G)
    SA = np.empty((N, N))
    Sc = np.empty(N)
    T = np.zeros((N, N))
    beta = np.empty(N)
    ivl = np.empty((N, 2))
    hist = np.empty((maxit, N, N + 1))
    for t in range(w, tuples.shape[0], Wk):
        st, ev = solve_tuple(tuples[t], N, G, tol, maxit, stride, p_face, p_bust, gains, start, H, mix, rv,
                             A, c, dec, SA, Sc, T, beta, ivl, hist, out[t])
        status[t] = st
        evals[t] = ev


@njit(cache=True, parallel=True)
def solve_tuples(tuples, N, G, tol, maxit, stride, p_face, p_bust, gains, start, out, status, evals, workers):
    """:func:`solve_piece` on ``workers`` threads (every ``workers``-th tuple each)."""
    Wk = max(1, min(workers, tuples.shape[0]))
    for w in prange(Wk):
        solve_piece(w, Wk, tuples, N, G, tol, maxit, stride, p_face, p_bust, gains, start, out, status, evals)


@njit(cache=True)
def evaluate_piece(w, Wk, tuples, N, G, tol, stride, p_face, p_bust, gains, opt, mix_keys, mix_q, seats, kinds, params,
                   start):
    """One level of fixed profiles ``p``: seat ``seats[p]`` plays the simple policy (``kinds[p]``,
    ``params[p]``: :func:`~dicebase.rules.pig_turn.policy_rolls`; no seat when -1), every other seat the
    stored equilibrium (its decisions at the tuple from the optimal turn starts ``opt``, found once per
    tuple, its stored mixing where it randomises).  Writes ``start[p, idx]`` (profile ``p``'s turn starts)
    for the tuples ``w, w + Wk, ...`` of the level: every decision fixed, so each tuple's cycle is solved
    once, exactly."""
    P = seats.shape[0]
    H = np.zeros((N, G, N))
    Hopt = np.zeros((N, G, N))
    best = np.zeros((N, G))
    mix = np.full(G, -1.0)
    rv = np.empty(N)
    A = np.zeros((G, N))
    c = np.zeros(G)
    dec = np.zeros(G)
    ivl = np.empty(2)
    SA = np.empty((N, N))
    Sc = np.empty(N)
    T = np.zeros((N, N))
    for t in range(w, tuples.shape[0], Wk):
        idx = tuples[t]
        fill_hold(idx, N, G, stride, opt, Hopt)
        for m in range(N):  # the equilibrium's decisions at this tuple
            stored_mix(idx * N + m, mix_keys, mix_q, G, mix)
            seat_turn(idx, m, N, G, stride, opt[idx, (m + 1) % N, m], tol, p_face, p_bust, gains, Hopt, mix, rv,
                      A, c, dec, ivl)
            for k in range(G):
                best[m, k] = dec[k]
        for p in range(P):
            fill_hold(idx, N, G, stride, start[p], H)
            for m in range(N):
                sm = (idx // stride[m]) % G
                for k in range(G):
                    if m != seats[p]:
                        mix[k] = best[m, k]
                    else:
                        mix[k] = 1.0 if k == 0 or (k < G - sm and policy_rolls(kinds[p], params[p], G, sm, k)) else 0.0
                seat_turn(idx, m, N, G, stride, 0.0, tol, p_face, p_bust, gains, H, mix, rv, A, c, dec, ivl)
                for e in range(N):
                    SA[m, e] = A[0, e]
                Sc[m] = c[0]
            solve_cycle(N, SA, Sc, T)
            for m in range(N):
                for e in range(N):
                    start[p, idx, m, e] = T[m, e]


@njit(cache=True, parallel=True)
def evaluate_tuples(tuples, N, G, tol, stride, p_face, p_bust, gains, opt, mix_keys, mix_q, seats, kinds, params,
                    start, workers):
    """:func:`evaluate_piece` on ``workers`` threads (every ``workers``-th tuple each)."""
    Wk = max(1, min(workers, tuples.shape[0]))
    for w in prange(Wk):
        evaluate_piece(w, Wk, tuples, N, G, tol, stride, p_face, p_bust, gains, opt, mix_keys, mix_q, seats, kinds,
                       params, start)
