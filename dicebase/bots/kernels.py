"""The simulation's one hot loop: Threes turns, compiled with numba.

Every random number is drawn beforehand by numpy's seeded Generator (``uniforms``), so a run is
reproducible from its seed; the kernel only walks each turn's rolls and looks its keeps up.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def threes_turns(cdf, offset, cost, keep, S, G, D, best, uniforms, first, count, random_keep):
    """Final scores of ``len(best)`` Threes turns.

    ``cdf``: per global roll g of d dice, (d - 1) + the cumulative probability within d;
    ``offset[d]``: first g of d dice; ``cost[g, a]``: worth of the a lowest dice; ``keep``: the flat
    keep table [B, flag, score, g] (B axis of length 1: index 0); ``uniforms[t, w * step]`` draws the
    roll, ``[t, w * step + 1]`` (w = 2 for the random bot, else 1) the random bot's keep among ``count[flag, g]`` legal keeps from
    ``first[flag, g]``."""
    n = best.shape[0]
    out = np.empty(n, dtype=np.int64)
    nbk = keep.shape[0] // (2 * S * G)
    w = 2 if random_keep else 1
    for t in range(n):
        d = D
        f = 0
        s = 0
        b = best[t] if nbk > 1 else 0
        step = 0
        while d > 0:
            u = uniforms[t, w * step] + (d - 1)
            lo = offset[d]
            hi = offset[d + 1] - 1
            while lo < hi:  # first g with cdf[g] > u
                mid = (lo + hi) // 2
                if cdf[mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            g = lo
            if random_keep:
                a = first[f, g] + int(uniforms[t, w * step + 1] * count[f, g])
            else:
                a = keep[((b * 2 + f) * S + s) * G + g]
            s += cost[g, a]
            d -= a
            f = 1 if a == 0 else 0
            step += 1
        out[t] = s
    return out
