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


# --------------------------------------------------------------------------- 10,000: the optimal bot
@njit(cache=True)
def _bank_value(i, j, k, G, start, exo):
    """The two-player bank value of docs/ten_thousand.md: the opponent's turn start below the goal,
    its last turn's chance to exceed at or above it (exo: the optimal last turn, by need)."""
    if i + k < G:
        return 1.0 - start[j, i + k]
    need = i + k - j + 1
    if need <= 0:
        return 0.0
    if need < exo.shape[0]:
        return 1.0 - exo[need]
    return 1.0


@njit(cache=True)
def _exceed(ex, need):
    if need <= 0:
        return 1.0
    if need < ex.shape[0]:
        return ex[need]
    return 0.0


@njit(cache=True)
def tt_optimal_turns(pi, pj, first, count, rk, rc, rp, G, C, KT, start, exo, exs,
                     gofs, gprob, gopt, opts, opt_pts, opt_after):
    """The optimal 10,000 bot's turn from each pair (pi[p], pj[p]) (units), read from its stored
    roll states: rows first[p] .. first[p] + count[p] - 1 of (rk turn total, rc class, rp p_win).

    A stored state rolls, any other banks (a turn start always rolls); after a roll it keeps the
    first option (most points, then most dice) whose next state is worth most: a stored p_win, or
    the bank value.  Class C - 1 is 'every die scored, no hot dice' (it banks).  Keep options come
    in roll groups: class c's groups gofs[c] .. gofs[c + 1] - 1 with probability gprob[r] and
    options gopt[r] .. gopt[r + 1] - 1 (none: a farkle) of opts -> (opt_pts, opt_after).

    Returns Tb[p, g] (g = 0: a farkle; 1 <= g < G - i: banks g units below the goal) and
    fin[p, e] = sum over banks g at or above the goal of P(g) (1 - exs[e](i + g - j + 1)): the
    mover's chance to survive the opponent's last turn played by exceed table e."""
    n = pi.shape[0]
    E = exs.shape[0]
    Tb = np.zeros((n, G))
    fin = np.zeros((n, E))
    V = np.empty((KT + 1, C))
    roll = np.zeros((KT + 1, C), dtype=np.bool_)
    mass = np.zeros((KT + 1, C))
    for p in range(n):
        i = pi[p]
        j = pj[p]
        for k in range(KT + 1):
            b = _bank_value(i, j, k, G, start, exo)
            for c in range(C):
                V[k, c] = b
                roll[k, c] = False
                mass[k, c] = 0.0
        for r in range(first[p], first[p] + count[p]):
            V[rk[r], rc[r]] = rp[r]
            roll[rk[r], rc[r]] = True
        roll[0, 0] = True
        mass[0, 0] = 1.0
        for k in range(KT + 1):
            for c in range(C):
                m = mass[k, c]
                if m == 0.0:
                    continue
                if not roll[k, c] or c == C - 1:
                    if i + k < G:
                        Tb[p, k] += m
                    else:
                        for e in range(E):
                            fin[p, e] += m * (1.0 - _exceed(exs[e], i + k - j + 1))
                    continue
                for r in range(gofs[c], gofs[c + 1]):
                    w = m * gprob[r]
                    if gopt[r] == gopt[r + 1]:
                        Tb[p, 0] += w
                        continue
                    best = -1.0
                    bk = 0
                    bc = 0
                    for a in range(gopt[r], gopt[r + 1]):
                        o = opts[a]
                        k2 = k + opt_pts[o]
                        c2 = opt_after[o]
                        v = V[k2, c2]
                        if v > best:
                            best = v
                            bk = k2
                            bc = c2
                    mass[bk, bc] += w
    return Tb, fin


@njit(cache=True)
def _stored(keys, first, count, key):
    """Row of ``key`` among keys[first .. first + count - 1] (sorted), or -1."""
    lo = first
    hi = first + count
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < first + count and keys[lo] == key:
        return lo
    return -1


@njit(cache=True)
def tt_optimal_rolls(i, j, k, c, G, C, pfirst, pcount, keys):
    """Whether the optimal bot rolls at each state (scores i, j below the goal; a stored state rolls)."""
    n = i.shape[0]
    out = np.zeros(n, dtype=np.bool_)
    for t in range(n):
        if k[t] == 0 and c[t] == 0:
            out[t] = True
        elif c[t] < C - 1:
            p = i[t] * G + j[t]
            out[t] = _stored(keys, pfirst[p], pcount[p], k[t] * C + c[t]) >= 0
    return out


@njit(cache=True)
def tt_optimal_keeps(i, j, k, grp, G, C, pfirst, pcount, keys, pwin, start, exo, gopt, opts, opt_pts, opt_after):
    """The option (position among its roll group's options) the optimal bot keeps after a roll of
    group grp[t]: the first whose next state is worth most (stored p_win, else the bank value)."""
    n = i.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for t in range(n):
        p = i[t] * G + j[t]
        best = -1.0
        for a in range(gopt[grp[t]], gopt[grp[t] + 1]):
            o = opts[a]
            k2 = k[t] + opt_pts[o]
            c2 = opt_after[o]
            row = _stored(keys, pfirst[p], pcount[p], k2 * C + c2) if c2 < C - 1 else -1
            v = pwin[row] if row >= 0 else _bank_value(i[t], j[t], k2, G, start, exo)
            if v > best:
                best = v
                out[t] = a - gopt[grp[t]]
    return out


# --------------------------------------------------------------------------- Great Rolled Ones, N players
@njit(cache=True)
def ro_turns(q, p_end, oc_prob, oc_gain, oc_next, oc_count):
    """T[n, g]: the chance that a turn holds g points (g = 0: three 1s) under roll probabilities
    q[n, k, o] (k = 0..KT; at KT it holds).  Outcomes of a roll with o 1s set aside: oc_*[o, :oc_count[o]]."""
    n, K1, L = q.shape
    KT = K1 - 1
    T = np.zeros((n, K1))
    mass = np.zeros((K1, L))
    for r in range(n):
        mass[:] = 0.0
        mass[0, 0] = 1.0
        for k in range(K1):
            for o in range(L):
                m = mass[k, o]
                if m == 0.0:
                    continue
                rq = q[r, k, o] if k < KT else 0.0
                T[r, k] += (1.0 - rq) * m
                mr = rq * m
                if mr == 0.0:
                    continue
                T[r, 0] += mr * p_end[o]
                for x in range(oc_count[o]):
                    k2 = k + oc_gain[o, x]
                    if k2 > KT:
                        k2 = KT
                    mass[k2, oc_next[o, x]] += mr * oc_prob[o, x]
    return T
