"""Great Rolled Ones' N-player turn (:mod:`dicebase.rules.rolled_ones_turn`, its one definition) compiled
for the builder's kernels and the bots: ``njit(cache=True)`` of the very functions the lookups run in
plain Python, so every caller computes each value by the same operations.  ``play_turn`` and
``final_start``, called per tuple and per bar from the kernels, are inlined into them (``inline="always"``:
as fast as when each kernel had its own copy; a compiled caller's cache does not see a change here, so
after editing these, clear ``__pycache__``'s ``*.nbi``/``*.nbc`` of the callers)."""

from __future__ import annotations

import numpy as np
from numba import njit

from dicebase.rules import rolled_ones_turn as turn

play_turn = njit(cache=True, inline="always")(turn.play_turn)
best_turn = njit(cache=True)(turn.best_turn)
final_start = njit(cache=True, inline="always")(turn.final_start)
final_turn = njit(cache=True)(turn.final_turn)
free_turn = njit(cache=True, inline="always")(turn.free_turn)


def outcome_arrays(rules) -> tuple[np.ndarray, ...]:
    """``(p_end, out_p, out_g, out_o, out_n)`` of ``rules`` (:func:`dicebase.rules.rolled_ones_turn.outcome_grids`)
    as numpy arrays: float probabilities, int64 points, 1s and counts."""
    p_end, out_p, out_g, out_o, out_n = turn.outcome_grids(rules)
    return (np.array(p_end, dtype=np.float64), np.array(out_p.flat()).reshape(out_p.shape),
            *(np.array(g.flat(), dtype=np.int64).reshape(g.shape) for g in (out_g, out_o)),
            np.array(out_n, dtype=np.int64))


@njit(cache=True)
def mover_decisions(m, bust, hold, mixq, tol, p_end, out_p, out_g, out_o, out_n):
    """q[n, k, o] (k = 0..K): seat ``m``'s roll probability in each of ``n`` turns played as stored
    (:func:`play_turn` on the mover's own entry): ``bust[n]`` what three 1s leave it, ``hold[n, k]`` what a
    hold at ``k`` gives it (k = 1..K + D; beyond K it holds), ``mixq[n, k, o]`` a stored mixing (NaN: none)."""
    n, KD = hold.shape
    K1, L = mixq.shape[1], mixq.shape[2]
    q = np.zeros((n, K1, L))
    H = np.zeros((KD, m + 1))
    B = np.zeros(m + 1)
    value = np.zeros((KD, L, m + 1))
    proll = np.zeros((K1, L, m + 1))
    pr = np.zeros(m + 1)
    for r in range(n):
        for k in range(KD):
            H[k, m] = hold[r, k]
        B[m] = bust[r]
        play_turn(m, m, m + 1, K1 - 1, KD - K1, L, 0, tol, p_end, out_p, out_g, out_o, out_n, H, B, mixq[r], value,
                  proll, q[r], pr)
    return q


@njit(cache=True)
def final_starts(D, L, Q0, A, c, nxt, out):
    """``out[s_j, R, x, :]`` = ``Phi_j(G + x; s_j, R)`` (:func:`final_start`) for every score ``s_j < G`` of seat
    ``j``, every index ``R`` of the later seats' scores and every bar ``G + x``: seat ``j``'s final turn
    from its free region above the bar ``A[R, t - G, o, :] + c[R, t - G, o] * Phi_{j+1}`` and the next
    seat's ``nxt[R, x, :]`` (the bots' final round, whatever each seat plays there).  A bar more than
    ``len(Q0) - 1`` above ``s_j`` reads the last row of ``Q0`` (a chance below 1e-16)."""
    G, R, nb, nr = out.shape
    top = Q0.shape[0] - 1
    W = np.empty(nr - 1)
    for sj in range(G):
        for r in range(R):
            for x in range(nb):
                final_start(nr - 1, D, L, min(G + x - sj, top), x, Q0, A[r], c[r], False, nxt[r, x], 0,
                            out[sj, r, x], 0, W)
    return out
