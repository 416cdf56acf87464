"""Compiled pieces of the per-tuple N-player equilibrium (:mod:`.equilibrium`, which documents the
equations), shared by the N-player solvers of Great Rolled Ones and 10,000: the exact solve of a
tuple's N-seat bust cycle, where policy iteration starts, and the status codes of a tuple solve.

A module of its own so that importing :mod:`.equilibrium` does not import numba, and so that
numba's on-disk cache finds the kernels again (module-level functions only).  Each game's kernels
call these from their own compiled tuple solve.

Array conventions (N seats, 0-based seat ``m``): a score tuple ``s`` is the index
``sum_m s[m] * stride[m]``, ``stride[m] = G ** (N - 1 - m)``; ``start[idx, m, :]`` the win vector
(one entry per seat) at seat ``m``'s turn start.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dicebase.numeric.cycle import solve_cycle  # noqa: F401  (the games' kernels import it from here)

#: status codes of a tuple solve
CONVERGED = 0
CYCLE = 1
NO_CONVERGENCE = 2
#: :func:`end_round`: neither converged nor cycling, policy iteration goes on
GOING = -1


@njit(cache=True)
def initial_beta(idx, N, G, stride, start, beta):
    """Where policy iteration starts: each seat's bust value ``beta[m] = start[., m + 1, m]``
    extrapolated from higher levels only (so the start does not depend on chunking):
    ``f(s + e_a) + f(s + e_b) - f(s + e_a + e_b)`` for the first two seats ``a < b`` with room below
    the goal, ``f(s + e_a)`` with one, ``1/N`` with none.  Only the number of rounds depends on it."""
    a = -1
    b = -1
    for i in range(N):
        if (idx // stride[i]) % G + 1 < G:
            if a < 0:
                a = i
            elif b < 0:
                b = i
    for m in range(N):
        nxt = (m + 1) % N
        if b >= 0:
            x = (start[idx + stride[a], nxt, m] + start[idx + stride[b], nxt, m]
                 - start[idx + stride[a] + stride[b], nxt, m])
            beta[m] = min(1.0, max(0.0, x))
        elif a >= 0:
            beta[m] = start[idx + stride[a], nxt, m]
        else:
            beta[m] = 1.0 / N


@njit(cache=True)
def record_start(it, m, N, A, c, SA, Sc, hist):
    """Seat ``m``'s turn start under its current policy (``A[0, 0]``, ``c[0, 0]`` of its turn) as
    round ``it``'s profile entry: ``SA[m]``, ``Sc[m]`` for the cycle solve, and ``hist[it, m]``."""
    for e in range(N):
        SA[m, e] = A[0, 0, e]
        hist[it, m, e] = A[0, 0, e]
    Sc[m] = c[0, 0]
    hist[it, m, N] = c[0, 0]


@njit(cache=True)
def profile_seen(it, N, hist):
    """The latest round ``p < it`` whose profile of turn-start coefficients equals round ``it``'s,
    or -1.  ``it - 1``: the policies did not change (the previous cycle solve is the fixed point);
    an earlier round: policy iteration is cycling (the caller computes a mixed equilibrium)."""
    for p in range(it - 1, -1, -1):
        same = True
        for m in range(N):
            for e in range(N + 1):
                if hist[p, m, e] != hist[it, m, e]:
                    same = False
                    break
            if not same:
                break
        if same:
            return p
    return -1


@njit(cache=True)
def next_beta(N, T, ivl, beta):
    """Each seat's new bust value ``beta[m] = T[m + 1, m]`` from the solved cycle ``T``; True when
    every one lies in the interval ``ivl[m] = (lo, hi]`` that keeps seat ``m``'s policy (converged)."""
    ok = True
    for m in range(N):
        b = T[(m + 1) % N, m]
        if not (b > ivl[m, 0] and b <= ivl[m, 1]):
            ok = False
        beta[m] = b
    return ok


@njit(cache=True)
def end_round(it, N, hist, SA, Sc, T, ivl, beta):
    """The end of policy-iteration round ``it`` (every seat's turn start recorded): ``CONVERGED``
    when the policies did not change (the previous cycle solve ``T`` is the fixed point) or when
    the new cycle solve ``T`` keeps every seat's policy; ``CYCLE`` when an older round's profile
    came back; else ``GOING`` with the new ``beta``."""
    seen = profile_seen(it, N, hist)
    if seen >= 0:
        return CONVERGED if seen == it - 1 else CYCLE
    solve_cycle(N, SA, Sc, T)
    return CONVERGED if next_beta(N, T, ivl, beta) else GOING
