"""Lookups of N-player 10,000 (:mod:`.nplayer` documents the equations): every state of a turn below
the goal (:func:`turn_values`) and of a final turn (:func:`final_turn_values`), computed from
stored turn-start vectors and the final-round tables as a lookup would.
"""

from __future__ import annotations

import numpy as np

from .nplayer_final import Finals, final_start
from .nplayer_spec import Moves, Spec, moves


def final_turn_values(spec: Spec, finals: Finals, X: int, own: int, later) -> dict:
    """A final turn (from the stored tables, as a lookup would): the seat with score ``own`` and bar
    ``X``, the seats ``later`` after it.  Over totals ``t = 0 .. top`` and classes ``c``:
    ``p_win[t, c, role]`` (roles ``[leader, mover, later...]``), ``roll[t, c]`` (must roll at ``t <= X``),
    ``keep[t, g]`` (the option taken in group ``g``); ``p_win[own, 0]`` is ``Phi(X; own, later)``."""
    mv = moves(spec.rules)
    later = [int(u) for u in later]
    r = 1 + len(later)
    tol, pf_min = spec.tie_tolerance, spec.pf_min
    nxt = final_start(spec, finals, X, later)
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])

    def forced(t):
        return not later or sum(finals.pexc[t - u] for u in later) <= pf_min * spec.final_scale

    top = X + 1
    while not forced(top):
        top += 1
    top += mv.max_pts
    S, O = len(mv.states), len(mv.op)
    value = np.zeros((top + 1, S, r + 1))
    roll = np.zeros((top + 1, S), dtype=bool)
    keep = np.zeros((top + 1, len(mv.gp)), dtype=np.int64)
    for t in range(top, -1, -1):
        if t > X:
            h = np.zeros(r + 1)
            h[1:] = final_start(spec, finals, t, later)
        if t > X and (forced(t) or t + mv.max_pts > top):
            value[t] = h
            continue
        vals = value[np.minimum(t + mv.op, top), mv.ost]
        ch = _choose(mv, vals[:, 1], tol)
        keep[t] = ch - mv.go[:-1]
        pr = _class_sum(mv, mv.gp[:, None] * vals[ch]) + mv.pf[:, None] * bust
        for c in range(S):
            no_dice = mv.sg[c] == mv.sg[c + 1]
            if t > X and (no_dice or pr[c, 1] <= h[1] + tol):
                value[t, c] = h
            else:
                value[t, c] = pr[c]
                roll[t, c] = True
    return {"p_win": value, "roll": roll, "keep": keep, "top": top}


def _choose(mv: Moves, mover: np.ndarray, tol: float) -> np.ndarray:
    """Per group the option taken: the first (priority order) within ``tol`` of the group's best."""
    starts = mv.go[:-1]
    gmax = np.maximum.reduceat(mover, starts)
    sizes = np.diff(mv.go)
    ok = mover >= np.repeat(gmax, sizes) - tol
    idx = np.where(ok, np.arange(len(mover)), len(mover))
    return np.minimum.reduceat(idx, starts)


def _class_sum(mv: Moves, per_group: np.ndarray) -> np.ndarray:
    out = np.zeros((len(mv.states),) + per_group.shape[1:])
    np.add.at(out, mv.group_class, per_group)
    return out


def turn_values(scores, seat: int, start_values_lookup, spec: Spec, finals: Finals, kmax: int, mixing=None) -> dict:
    """Every ``(k, c)`` state of seat ``seat``'s (0-based) turn at ``scores`` (units, all below the goal).

    ``start_values_lookup(scores, seat) -> (N,)`` gives a stored turn-start win vector
    (:meth:`.nplayer.Solution.lookup`); ``kmax`` the stored largest turn total with a choice (beyond it the
    mover banks); ``mixing`` the tuple's randomised decisions for this seat, if any
    (:func:`.nplayer._decisions`).  Returns arrays over ``k = 0 .. kmax``, classes ``c``, seats ``e``:
    ``p_roll[k, c, e]``, ``p_bank[k, e]`` (NaN where banking is not allowed), ``roll[k, c]``
    (probability the mover rolls: 1, 0 or the mixing probability), ``keep[k, g]`` (the option the
    mover takes in roll group ``g``, an index into :func:`moves`' options), ``p_win[k, c, e]``.
    Reads ``kmax + max_pts`` stored turn starts (and the final round), as the two-player ``state``."""
    mv = moves(spec.rules)
    N, G, tol = spec.players, spec.G, spec.tie_tolerance
    scores = tuple(int(s) for s in scores)
    m, sm = seat, scores[seat]
    nxt = (m + 1) % N
    bust = np.asarray(start_values_lookup(scores, nxt), dtype=float)
    KK = kmax + mv.max_pts
    hold = np.full((KK + 1, N), np.nan)
    others = [(m + 1 + j) % N for j in range(N - 1)]
    for k in range(1, KK + 1):
        t = sm + k
        if t < G:
            higher = list(scores)
            higher[m] = t
            hold[k] = start_values_lookup(tuple(higher), nxt)
        else:
            v = final_start(spec, finals, t, [scores[j] for j in others])
            hold[k, m] = v[0]
            hold[k, others] = v[1:]
    roll_mix, keep_mix = {}, {}
    for d in mixing or []:
        if d[0] == "roll":
            roll_mix[(d[1], d[2])] = d[3]
        else:
            keep_mix[(d[1], d[2])] = d[3:]
    S = len(mv.states)
    value = np.zeros((KK + 1, S, N))
    value[kmax + 1:] = hold[kmax + 1:, None, :]
    p_roll = np.zeros((kmax + 1, S, N))
    roll = np.zeros((kmax + 1, S))
    keep = np.zeros((kmax + 1, len(mv.gp)), dtype=np.int64)
    p_bank = hold[: kmax + 1].copy()
    for k in range(kmax, -1, -1):
        vals = value[k + mv.op, mv.ost]
        ch = _choose(mv, vals[:, m], tol)
        keep[k] = ch
        chosen = vals[ch]
        for (kk, g), (o1, o0, q) in keep_mix.items():
            if kk == k:
                chosen[g] = q * vals[mv.go[g] + o1] + (1.0 - q) * vals[mv.go[g] + o0]
        pr = _class_sum(mv, mv.gp[:, None] * chosen) + mv.pf[:, None] * bust
        p_roll[k] = pr
        can_bank = k > 0 and (sm > 0 or k >= spec.om)
        if not can_bank:
            p_bank[k] = np.nan
        for c in range(S):
            if not can_bank:
                q = 1.0
            elif mv.sg[c] == mv.sg[c + 1]:
                q = 0.0
            elif (k, c) in roll_mix:
                q = roll_mix[(k, c)]
            else:
                q = 1.0 if pr[c, m] > hold[k, m] + tol else 0.0
            roll[k, c] = q
            value[k, c] = pr[c] if q == 1.0 else hold[k] if q == 0.0 else q * pr[c] + (1.0 - q) * hold[k]
    return {"p_roll": p_roll, "p_bank": p_bank, "roll": roll, "keep": keep, "p_win": value[: kmax + 1]}

