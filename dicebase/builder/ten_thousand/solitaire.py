"""Solitaire turn: maximise the expected banked points of one turn.

All turn totals are in units of ``rules.unit`` (50 points).  State before a roll:
``(k, s)`` with ``k`` the turn total and ``s`` an index into
:func:`~.scoring.turn_states` (dice left, standing triple).

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

from dicebase.builder.dice import rolls
from dicebase.rules.ten_thousand import RuleSet, dominated_flags, legal_keeps, roll_states, turn_states

from .scoring import Transitions, transitions


@dataclass(frozen=True)
class Flat:
    """All 24 (or 6) pre-roll classes' transitions in flat arrays."""

    n_states: int
    p_farkle: np.ndarray  # (S,)
    state_group: np.ndarray  # (S + 1,) group offsets per state
    group_prob: np.ndarray  # (Gr,)
    group_opt: np.ndarray  # (Gr + 1,) option offsets per group
    opt_pts: np.ndarray  # (O,) units
    opt_state: np.ndarray  # (O,)
    max_pts: int
    max_group_size: int


def flatten(trs: tuple[Transitions, ...]) -> Flat:
    sg, gp, go, pts, st = [0], [], [0], [], []
    for tr in trs:
        base = len(pts)
        for g in range(len(tr.group_prob)):
            gp.append(tr.group_prob[g])
            go.append(base + int(tr.group_start[g + 1]))
        pts.extend(tr.opt_pts.tolist())
        st.extend(tr.opt_state.tolist())
        sg.append(len(gp))
    go_arr = np.array(go, dtype=np.int64)
    return Flat(
        len(trs),
        np.array([t.p_farkle for t in trs]),
        np.array(sg, dtype=np.int64),
        np.array(gp),
        go_arr,
        np.array(pts, dtype=np.int64),
        np.array(st, dtype=np.int64),
        max(t.max_pts for t in trs),
        int(np.diff(go_arr).max()),
    )


def max_dice_flat(rules: RuleSet) -> Flat:
    """Transitions where every roll has exactly one option: the keep with the most dice."""
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    sg, gp, go, pts, st, pf = [0], [], [0], [], [], []
    for n, t in states:
        table = rolls(n)
        acc: dict[tuple[int, int], int] = {}
        far = 0
        for r in range(len(table)):
            keeps = legal_keeps(rules, tuple(int(c) for c in table.counts[r]), n, t)
            if not keeps:
                far += int(table.ways[r])
                continue
            k = max(keeps, key=lambda k: (k.dice, k.points))
            key = (k.points // rules.unit, index[(k.n_after, k.t_after)])
            acc[key] = acc.get(key, 0) + int(table.ways[r])
        for (p, s2), w in sorted(acc.items()):
            gp.append(w / table.total)
            pts.append(p)
            st.append(s2)
            go.append(len(pts))
        sg.append(len(gp))
        pf.append(far / table.total)
    return Flat(
        len(states), np.array(pf), np.array(sg, dtype=np.int64), np.array(gp),
        np.array(go, dtype=np.int64), np.array(pts, dtype=np.int64),
        np.array(st, dtype=np.int64), max(pts), 1,
    )


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
    """Smallest K (units) with K >= Emax(s) / pf(s) for every class s."""
    fl = flatten(transitions(rules))
    return int(math.ceil((expected_max_points(rules) / fl.p_farkle).max()))


def class_sum(per_group: np.ndarray, state_group: np.ndarray) -> np.ndarray:
    """Sum of ``per_group`` (last axis: groups) over each class's groups; 0 for a class without
    groups (:data:`~dicebase.rules.ten_thousand.NO_DICE`, where ``np.add.reduceat`` would not give 0)."""
    live = state_group[1:] > state_group[:-1]
    if live.all():
        return np.add.reduceat(per_group, state_group[:-1], axis=-1)
    out = np.zeros(per_group.shape[:-1] + live.shape)
    out[..., live] = np.add.reduceat(per_group, state_group[:-1][live], axis=-1)
    return out


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


def solve(rules: RuleSet, bound: int | None = None) -> Solitaire:
    """Backward induction over k (descending) with bank forced at ``k >= bound``."""
    fl = flatten(transitions(rules))
    K = bank_bound(rules) if bound is None else bound
    top = K + fl.max_pts + 1
    V = np.empty((top + 1, fl.n_states))
    V[K:] = np.arange(K, top + 1, dtype=float)[:, None]
    R = np.zeros((K + 1, fl.n_states))
    for k in range(K, -1, -1):
        R[k] = _reduce(fl, V[k + fl.opt_pts, fl.opt_state])
        if k < K:
            V[k] = np.maximum(R[k], k)
    roll = R > np.arange(K + 1)[:, None]
    roll[K] = False
    roll[0] = True  # a turn starts with a roll; k = 0 cannot be banked
    V[0] = R[0]
    return Solitaire(rules, K, V[: K + 1].copy(), R, roll)


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
    V[K + 1 :] = np.arange(K + 1, top + 1, dtype=float)[:, None]
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
