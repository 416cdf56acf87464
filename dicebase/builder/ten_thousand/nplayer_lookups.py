"""Lookups of N-player 10,000 (:mod:`.nplayer` documents the equations): every state of a turn below
the goal (:func:`turn_values`) and of a final turn (:func:`final_turn_values`), computed from
stored turn-start vectors and the final-round tables as a lookup would: each total by the one
definition of a turn's total, :func:`dicebase.rules.ten_thousand.turn.turn_row` (compiled here; the
lookups run the plain function), every seat's entry carried beside the mover's.
"""

from __future__ import annotations

import numpy as np

from dicebase.numeric.ten_thousand_nturn import turn_row
from dicebase.rules.ten_thousand.turn import places

from .nplayer_final import Finals, final_start
from .nplayer_spec import Spec, moves

NONE = np.zeros(0)  # turn_row's interval, used by the solve only


def _walk(spec: Spec, W: int, dec: int, rows: int, hold: np.ndarray, bust, bank_from: int, kmax: int, totals,
          skip_row, mixes=None, roll_values: bool = False) -> dict:
    """The turn over ``totals`` (descending): values ``[rows, S, W]`` (rows above the first total: ``hold``),
    roll probabilities, the keep taken per group (global index) and with ``roll_values`` each state's value of
    rolling.  ``hold[k, :]``: banking ``k``; ``skip_row(k)``: the whole total banks (its keeps not computed)."""
    mv = moves(spec.rules)
    S, Gr = len(mv.states), len(mv.gp)
    place = places(mv.op, mv.ost, S, W, np.empty(len(mv.op), dtype=np.int64))  # plain: a numpy array back
    V = np.zeros((rows, S, W))
    V[totals[0] + 1:] = hold[totals[0] + 1:rows, None, :]
    flat = V.reshape(-1)
    bank = np.ascontiguousarray(hold.reshape(-1))
    fb = np.asarray(bust, dtype=float)
    qs = np.zeros(rows * S)
    keep = np.tile(mv.go[:-1], rows)  # a total not computed: each group's first keep
    p_roll = np.zeros((rows, S, W)) if roll_values else None
    none = np.zeros(S, dtype=np.bool_)
    mix = tuple(np.asarray(x, dtype=float if i in (2, 7) else np.int64)
                for i, x in enumerate(mixes or ([],) * 8))
    for k in totals:
        skip = np.ones(S, dtype=np.bool_) if skip_row(k) else none
        args = (S, W, dec, -1, 0.0, flat, bank, k * W, fb, np.zeros(W))
        tail = (spec.tie_tolerance, skip, True, mv.sg, mv.gp, mv.go, place, mv.pf, *mix, keep, k * Gr, qs, k * S, NONE)
        if roll_values:  # first as if banking were not allowed: every class's value of rolling
            turn_row(k, k, *args, rows + 1, kmax, *tail)
            p_roll[k] = V[k]
        turn_row(k, k, *args, bank_from, kmax, *tail)
    return {"value": V, "q": qs.reshape(rows, S), "keep": keep.reshape(rows, Gr), "p_roll": p_roll}


def final_turn_values(spec: Spec, finals: Finals, X: int, own: int, later) -> dict:
    """A final turn (from the stored tables, as a lookup would): the seat with score ``own`` and bar
    ``X``, the seats ``later`` after it.  Over totals ``t = 0 .. top`` and classes ``c``:
    ``p_win[t, c, role]`` (roles ``[leader, mover, later...]``), ``roll[t, c]`` (must roll at ``t <= X``),
    ``keep[t, g]`` (the option taken in group ``g``, within the group); ``p_win[own, 0]`` is ``Phi(X; own, later)``."""
    mv = moves(spec.rules)
    later = [int(u) for u in later]
    r = 1 + len(later)
    nxt = final_start(spec, finals, X, later)
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])

    def forced(t):
        return not later or sum(finals.pexc[t - u] for u in later) <= spec.pf_min * spec.final_scale

    top = X + 1
    while not forced(top):
        top += 1
    top += mv.max_pts
    rows = top + mv.max_pts + 1
    hold = np.zeros((rows, r + 1))
    for t in range(X + 1, rows):
        hold[t, 1:] = final_start(spec, finals, t, later)
    got = _walk(spec, r + 1, 1, rows, hold, bust, X + 1, rows, range(top, -1, -1),
                lambda t: t > X and (forced(t) or t + mv.max_pts > top))
    keep = got["keep"][: top + 1] - mv.go[:-1]
    return {"p_win": got["value"][: top + 1], "roll": got["q"][: top + 1] == 1.0, "keep": keep, "top": top}


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
    N, G = spec.players, spec.G
    scores = tuple(int(s) for s in scores)
    m, sm = seat, scores[seat]
    nxt = (m + 1) % N
    bust = np.asarray(start_values_lookup(scores, nxt), dtype=float)
    rows = kmax + mv.max_pts + 1
    hold = np.zeros((rows, N))
    others = [(m + 1 + j) % N for j in range(N - 1)]
    for k in range(1, rows):
        t = sm + k
        if t < G:
            higher = list(scores)
            higher[m] = t
            hold[k] = start_values_lookup(tuple(higher), nxt)
        else:
            v = final_start(spec, finals, t, [scores[j] for j in others])
            hold[k, m] = v[0]
            hold[k, others] = v[1:]
    mixes = [[] for _ in range(8)]  # turn_row's stored mixed decisions: rolls, then keeps
    for d in mixing or []:
        for i, x in zip((0, 1, 2) if d[0] == "roll" else (3, 4, 5, 6, 7), d[1:]):
            mixes[i].append(x)
    bank_from = 1 if sm > 0 else max(1, spec.om)
    got = _walk(spec, N, m, rows, hold, bust, bank_from, kmax, range(kmax, -1, -1), lambda k: False, mixes, True)
    keep = got["keep"][: kmax + 1]  # a stored mixture of two keeps: its first
    first = mv.go[:-1][None, :] + np.asarray(mixes[5], dtype=np.int64)[np.maximum(-1 - keep, 0)] if mixes[5] else 0
    p_bank = hold[: kmax + 1].copy()
    p_bank[: min(bank_from, kmax + 1)] = np.nan
    return {"p_roll": got["p_roll"][: kmax + 1], "p_bank": p_bank, "roll": got["q"][: kmax + 1],
            "keep": np.where(keep >= 0, keep, first), "p_win": got["value"][: kmax + 1]}
