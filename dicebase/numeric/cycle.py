"""The exact solve of one score tuple's N-seat bust cycle, compiled: the N-player solvers'
(:mod:`dicebase.builder.equilibrium_kernels` re-exports it) and the bots' exact recursion share it.

``T[m] = SA[m] + Sc[m] * T[m + 1]`` (``T[N] = T[0]``): seat ``m``'s turn start is its turn's win vector
``SA[m]`` plus its bust chance ``Sc[m]`` times the next seat's turn start at the same tuple."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def solve_cycle(N, SA, Sc, T):
    """The turn starts of one tuple: ``T[m] = SA[m] + Sc[m] * T[m + 1]`` (``T[N] = T[0]``), exactly.

    ``T[0] = (sum_i (prod_{l < i} Sc[l]) SA[i]) / (1 - prod Sc)``, then ``T[N-1] .. T[1]``.
    """
    num = np.zeros(N)
    prod = 1.0
    for i in range(N):
        for e in range(N):
            num[e] += prod * SA[i, e]
        prod *= Sc[i]
    for e in range(N):
        T[0, e] = num[e] / (1.0 - prod)
    for m in range(N - 1, 0, -1):
        nxt = (m + 1) % N
        for e in range(N):
            T[m, e] = SA[m, e] + Sc[m] * T[nxt, e]
