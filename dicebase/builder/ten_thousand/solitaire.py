"""Solitaire turn: maximise the expected banked points of one turn.

All turn totals are in units of ``rules.unit`` (50 points).  State before a roll:
``(k, s)`` with ``k`` the turn total and ``s`` an index into
:func:`~dicebase.rules.ten_thousand.turn_states` (dice left, standing triple).

    V(k, s) = max(k, sum_r P(r) max_keep V(k + pts, s'))        farkle -> 0

Without hot dice a keep of every die leads to the class ``(0, 0)`` (no dice, no rolls:
its "roll" is a farkle), so ``V(k, (0, 0)) = k``: the turn total is banked.

Bound (proved in :func:`bank_bound`): with ``Emax(s) = sum_r P(r) max_keep pts``
and ``pf(s)`` the farkle probability, banking is optimal at every ``k >= K`` once
``K >= max_s Emax(s) / pf(s)``.  Proof: write ``g = V - k``; for ``k >= K``
``g(k, s) <= max(0, Emax(s) + (1 - pf(s)) g* - pf(s) k)`` with ``g*`` the supremum of
``g`` over ``k >= K`` (finite), so ``g* > 0`` would give ``pf g* <= Emax - pf K <= 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dicebase.numeric.dice import rolls
from dicebase.rules.ten_thousand import RuleSet, dominated_flags, legal_keeps, roll_states, turn_states
from dicebase.rules.ten_thousand.scoring import bonus_chain_bound
from dicebase.numeric.ten_thousand_turn import Flat, class_sum, flatten, transitions


def expected_max_points(rules: RuleSet) -> np.ndarray:
    """Emax(s): expected points (units) of the best-scoring keep of one roll."""
    out = []
    for tr in transitions(rules):
        e = 0.0
        for g, p in enumerate(tr.group_prob):
            e += p * tr.opt_pts[tr.group_start[g] : tr.group_start[g + 1]].max()
        out.append(e)
    return np.array(out)


def bank_bound(rules: RuleSet) -> int:
    """Smallest K (units) with K >= Emax(s) / pf(s) for every class s, and at least the bank minimum.

    With a no-score bonus (issue 24) the class of all the dice never farkles; the bound is then
    ``(Emax(s) + C) / pf(s)`` over the other classes, C = :func:`bonus_chain_bound` (units;
    docs/farkle.md), and tests raise it to check that no value moves."""
    fl = flatten(transitions(rules))
    live = fl.p_farkle > 0
    extra = bonus_chain_bound(rules) / rules.unit
    K = int(math.ceil(((expected_max_points(rules)[live] + extra) / fl.p_farkle[live]).max()))
    return max(K, bank_minimum_units(rules))


def bank_minimum_units(rules: RuleSet) -> int:
    """The smallest turn total (units, >= 1) that may be banked on every turn."""
    return max(1, -(-rules.bank_minimum // rules.unit))


def bonus_class(rules: RuleSet) -> int | None:
    """Index of the class that never farkles under a no-score bonus (all the dice), else None."""
    return turn_states(rules).index((rules.dice, 0)) if rules.no_score_bonus else None


def bonus_chain(fl: Flat, s6: int, pts_of_group=None) -> float:
    """c = expected points (units) of rolling all the dice once more after every keep that gives all
    the dice back and banking after any other keep (best keep per roll): the fixed point of
    ``c = sum_g p_g max_o (pts_o + c [state_o = s6])``, iterated from 0 (a contraction: the chance
    of getting all the dice back is below 1)."""
    c = 0.0
    g0, g1 = fl.state_group[s6], fl.state_group[s6 + 1]
    for _ in range(10_000):
        vals = fl.opt_pts + np.where(fl.opt_state == s6, c, 0.0)
        gmax = np.maximum.reduceat(vals, fl.group_opt[:-1])[g0:g1]
        new = float((gmax * fl.group_prob[g0:g1]).sum())
        if abs(new - c) <= 1e-13 * max(1.0, new):
            return new
        c = new
    raise ValueError("the no-score bonus chain does not converge")


def _reduce(fl: Flat, values: np.ndarray) -> np.ndarray:
    """sum over groups of prob * max over the group's options, per state."""
    gmax = np.maximum.reduceat(values, fl.group_opt[:-1], axis=-1)
    return class_sum(gmax * fl.group_prob, fl.state_group)


@dataclass(frozen=True)
class Solitaire:
    rules: RuleSet
    bound: int  # K: bank forced (and proved optimal) for k >= K
    value: np.ndarray  # (K + 1, S) expected banked points, in units
    roll_value: np.ndarray  # (K + 1, S)
    roll: np.ndarray  # (K + 1, S) bool, roll is optimal (strictly better than bank)


def solve(rules: RuleSet, bound: int | None = None, farkle_value: float = 0.0) -> Solitaire:
    """Backward induction over k (descending) with bank forced at ``k >= bound``.

    ``farkle_value`` (units, <= 0): what a farkle is worth instead of 0 (the consecutive-farkle
    penalty's average-reward solve, :func:`average_turn`; the bound stays valid since a negative
    farkle value only makes banking better).  Below the bank minimum (issue 24) the player must roll.
    Under a no-score bonus the class of all the dice never farkles and is always rolled: past the
    bound it is worth ``k + c`` (:func:`bonus_chain`) instead of ``k``."""
    fl = flatten(transitions(rules))
    K = bank_bound(rules) if bound is None else bound
    bm = bank_minimum_units(rules)
    if K < bm:
        raise ValueError(f"bound {K} is below the bank minimum ({bm} units)")
    top = K + fl.max_pts + 1
    V = np.empty((top + 1, fl.n_states))
    V[K:] = np.arange(K, top + 1, dtype=float)[:, None]
    s6 = bonus_class(rules)
    if s6 is not None:
        V[K:, s6] += bonus_chain(fl, s6)
    R = np.zeros((K + 1, fl.n_states))
    for k in range(K, -1, -1):
        R[k] = _reduce(fl, V[k + fl.opt_pts, fl.opt_state]) + fl.p_farkle * farkle_value
        if k < K:
            V[k] = np.maximum(R[k], k) if k >= bm else R[k]
    roll = R > np.arange(K + 1)[:, None]
    roll[K] = False
    if s6 is not None:
        roll[K, s6] = True
    roll[:bm] = True  # a turn starts with a roll; below the bank minimum (at least 1) no bank
    V[:bm] = R[:bm]
    return Solitaire(rules, K, V[: K + 1].copy(), R, roll)


@dataclass(frozen=True)
class AverageTurn:
    """The one-turn objective under a consecutive-farkle penalty: the long-run average points per
    turn (gain) of an average-reward problem over the farkle-count states 0..m-1."""

    rules: RuleSet
    gain: float  # points per turn (midpoint of the final Odoni bounds)
    gain_bounds: tuple[float, float]  # proved: the optimal gain lies in [lo, hi]
    relative: np.ndarray  # (m,) relative values h_c in points, h_0 = 0
    farkle_value: np.ndarray  # (m,) what a farkle is worth at count c (points): h_{c+1}, or -P + h_reset
    turns: tuple  # (m,) Solitaire of each count's turn at its farkle value
    iterations: int
    tol: float


def penalty_farkle_values(rules: RuleSet, h: np.ndarray) -> np.ndarray:
    """F_c (points): the relative value after a farkle at count c (h_0 = 0 after a bank)."""
    m = rules.farkle_penalty_after
    F = np.empty(m)
    F[: m - 1] = h[1:]
    F[m - 1] = -rules.farkle_penalty + (h[0] if rules.farkle_count_reset == "after_penalty" else h[m - 1])
    return F


def average_turn(rules: RuleSet, tol: float = 1e-9, bound: int | None = None) -> AverageTurn:
    """Maximise the long-run average points per turn when the ``farkle_penalty_after``-th farkle in a
    row costs ``farkle_penalty`` (issue 24).

    Relative value iteration over the counts c = 0..m-1 (a bank: reward k, back to 0; a farkle: to
    c + 1, or at m - 1 reward -P and back to 0, or to m - 1 again under ``after_bank``):
    ``(T h)_c = max over turn policies E[reward + h(next)]`` is one solitaire solve per count with the
    farkle worth ``F_c`` (:func:`penalty_farkle_values`); then ``h <- T h - (T h)_0``.  The Odoni
    bounds ``min_c ((T h)_c - h_c) <= gain <= max_c ((T h)_c - h_c)`` hold at every step; the loop
    stops when they are within ``tol`` points, so the stored gain is within ``tol`` of the optimum.
    The chain is unichain and aperiodic (a bank returns to count 0 from every count)."""
    m = rules.farkle_penalty_after
    h = np.zeros(m)
    start = 0  # class index of (all dice, no triple): the turn start
    for it in range(1, 10_001):
        F = penalty_farkle_values(rules, h)
        turns = tuple(solve(rules, bound, farkle_value=F[c] / rules.unit) for c in range(m))
        T = np.array([t.value[0, start] for t in turns]) * rules.unit
        diff = T - h
        lo, hi = float(diff.min()), float(diff.max())
        h = T - T[0]
        if hi - lo <= tol:
            F = penalty_farkle_values(rules, h)
            turns = tuple(solve(rules, bound, farkle_value=F[c] / rules.unit) for c in range(m))
            return AverageTurn(rules, (lo + hi) / 2, (lo, hi), h, F, turns, it, tol)
    raise ValueError("average-reward iteration did not converge")


def thresholds(sol: Solitaire) -> list[dict]:
    """Per (dice, standing triple): smallest turn total (points) at which banking is optimal."""
    out = []
    unit = sol.rules.unit
    for s, (n, t) in enumerate(turn_states(sol.rules)):
        bank_k = np.nonzero(~sol.roll[1:, s])[0] + 1
        roll_k = np.nonzero(sol.roll[1:, s])[0] + 1
        first_bank = int(bank_k[0]) if len(bank_k) else None
        last_roll = int(roll_k[-1]) if len(roll_k) else 0
        out.append(
            dict(
                n=n, t=t,
                bank_from=first_bank * unit if first_bank is not None else None,
                last_roll=last_roll * unit,
                single_threshold=(first_bank is not None and last_roll < first_bank),
            )
        )
    return out


def best_keeps(sol: Solitaire) -> dict[str, np.ndarray]:
    """Columns of ten_thousand_solitaire_keep: the best keep of every scoring roll at every
    (turn total, dice, triple).  Ties: the first keep in (most points, most dice) order."""
    rules = sol.rules
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    K = sol.bound
    fl = flatten(transitions(rules))
    top = K + fl.max_pts + 1
    V = np.empty((top + 1, len(states)))
    V[: K + 1] = sol.value
    V[K + 1 :] = np.arange(K + 1, top + 1, dtype=float)[:, None]  # past the bound a turn banks ...
    s6 = bonus_class(rules)
    if s6 is not None:  # ... but the never-farkling class of all the dice rolls on: k + c (as :func:`solve`)
        V[K + 1 :, s6] += bonus_chain(fl, s6)
    cols: dict[str, list] = {k: [] for k in ("turn_total", "dice", "triple", "roll", "keep", "value")}
    ks = np.arange(K + 1)
    for n, t in roll_states(rules):
        table = rolls(n)
        for r in range(len(table)):
            counts = tuple(int(c) for c in table.counts[r])
            every = legal_keeps(rules, counts, n, t)
            keeps = [k for k, d in zip(every, dominated_flags(every)) if not d]
            if not keeps:
                continue
            pts = np.array([k.points // rules.unit for k in keeps])
            st = np.array([index[(k.n_after, k.t_after)] for k in keeps])
            vals = V[ks[:, None] + pts[None, :], st[None, :]]
            best = vals.argmax(axis=1)
            roll = "".join(str(f) * c for f, c in enumerate(counts, start=1))
            names = ["".join(str(f) * c for f, c in enumerate(k.kept, start=1)) for k in keeps]
            cols["turn_total"].append(ks * rules.unit)
            cols["dice"].append(np.full(K + 1, n))
            cols["triple"].append(np.full(K + 1, t))
            cols["roll"].append(np.full(K + 1, roll, dtype=object))
            cols["keep"].append(np.array(names, dtype=object)[best])
            cols["value"].append(vals[ks, best] * rules.unit)
    out = {k: np.concatenate(v) for k, v in cols.items()}
    order = np.lexsort((out["roll"].astype(str), out["triple"], out["dice"], out["turn_total"]))
    out = {k: v[order] for k, v in out.items()}
    out["rules"] = np.full(len(order), rules.name, dtype=object)
    return out
