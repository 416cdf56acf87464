"""Roll -> keep transitions of every pre-roll class, as arrays for the solvers and the bots (numpy: the
command line's lookups never import this module): the flat arrays (:class:`Flat`), the max-dice keep
(:func:`max_dice_flat`) and the chance to gain at least ``m`` more units in a turn (:func:`exceed_table`).

The rules, the keep enumeration and its scoring live in :mod:`dicebase.rules.ten_thousand`
(shared with the lookups); this module groups every roll of a class by its keep options.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicebase.numeric.dice import rolls
from dicebase.rules.ten_thousand import RuleSet, dominated_flags, legal_keeps, turn_states


# ---------------------------------------------------------------- transitions
@dataclass(frozen=True)
class Transitions:
    """Roll -> keep options for one pre-roll class (n, t), in 50-point units.

    Rolls with the same set of non-dominated options are merged into one *group*
    (their probabilities add), so a solver evaluates
    ``sum_g prob[g] * max_{o in g} V(k + pts[o], state[o])``.
    ``state[o]`` indexes :func:`turn_states`.
    """

    n: int
    t: int
    p_farkle: float
    group_prob: np.ndarray  # (G,) float64
    group_start: np.ndarray  # (G + 1,) int32 offsets into options
    opt_pts: np.ndarray  # (O,) int32 points in units
    opt_state: np.ndarray  # (O,) int32 index into turn_states
    max_pts: int  # largest option points, units


@lru_cache(maxsize=None)
def transitions(rules: RuleSet, prune: bool = True) -> tuple[Transitions, ...]:
    """Per pre-roll class: rolls grouped by their keep options (units, next class).

    ``prune=True`` drops dominated keeps (same next class, fewer points): exact when the
    value never decreases with the turn total (solitaire turn, last turn).  The two-player
    game needs ``prune=False``: banking at the goal hands the opponent a last turn, so a
    turn total just below the goal can be worth more than one at the goal.
    """
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    out = []
    for n, t in states:
        table = rolls(n)
        groups: dict[tuple, int] = {}
        farkle_ways = 0
        for r in range(len(table)):
            counts = tuple(int(c) for c in table.counts[r])
            keeps = legal_keeps(rules, counts, n, t)
            opts = sorted(
                {(k.points // rules.unit, index[(k.n_after, k.t_after)])
                 for k, d in zip(keeps, dominated_flags(keeps)) if not (d and prune)}
            )
            if not opts:
                farkle_ways += int(table.ways[r])
                continue
            groups[tuple(opts)] = groups.get(tuple(opts), 0) + int(table.ways[r])
        keys = sorted(groups)
        start = np.zeros(len(keys) + 1, dtype=np.int32)
        pts, st = [], []
        for g, key in enumerate(keys):
            for p, s in key:
                pts.append(p)
                st.append(s)
            start[g + 1] = len(pts)
        out.append(
            Transitions(
                n, t, farkle_ways / table.total,
                np.array([groups[k] / table.total for k in keys]), start,
                np.array(pts, dtype=np.int32), np.array(st, dtype=np.int32),
                max(pts) if pts else 0,
            )
        )
    return tuple(out)


def min_turn_totals(rules: RuleSet) -> list[int | None]:
    """Per pre-roll class (order of :func:`turn_states`): the smallest positive turn total
    (points) with which the class can be reached in a turn (None = unreachable).

    Shortest paths from the turn start (six dice, turn total 0) over every legal keep:
    e.g. one die left needs five scored dice (250 with ten-thousand rules), a standing
    triple of 1s with one die left 1000 + 2 x 50, six dice again after hot dice 300.
    """
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    S = len(states)
    edge = np.full((S, S), np.iinfo(np.int64).max // 4, dtype=np.int64)  # cheapest keep s -> s'
    for s, (n, t) in enumerate(states):
        table = rolls(n)
        for r in range(len(table)):
            for k in legal_keeps(rules, tuple(int(c) for c in table.counts[r]), n, t):
                s2 = index[(k.n_after, k.t_after)]
                edge[s, s2] = min(edge[s, s2], k.points)
    inf = np.iinfo(np.int64).max // 4
    dist = edge[index[(rules.dice, 0)]].copy()  # after the first scoring roll
    for _ in range(S):
        new = np.minimum(dist, (dist[:, None] + edge).min(axis=0))
        if np.array_equal(new, dist):
            break
        dist = new
    return [int(d) if d < inf else None for d in dist]


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


def class_sum(per_group: np.ndarray, state_group: np.ndarray) -> np.ndarray:
    """Sum of ``per_group`` (last axis: groups) over each class's groups; 0 for a class without
    groups (:data:`~dicebase.rules.ten_thousand.NO_DICE`, where ``np.add.reduceat`` would not give 0)."""
    live = state_group[1:] > state_group[:-1]
    if live.all():
        return np.add.reduceat(per_group, state_group[:-1], axis=-1)
    out = np.zeros(per_group.shape[:-1] + live.shape)
    out[..., live] = np.add.reduceat(per_group, state_group[:-1][live], axis=-1)
    return out


def exceed_table(rules: RuleSet, max_need: int, keep: str = "optimal") -> np.ndarray:
    """E[m, s] for m = 0..max_need units: chance to gain at least m more units this turn.

    ``E(m <= 0, s) = 1``; ``E(m, s) = sum_r P(r) max_keep E(m - pts, s')``; farkle -> 0.
    ``keep="max_dice"`` scores the keep using the most dice (then most points) instead of
    the best one: seed 004's "keep rolling until ahead" last-round policy.
    """
    fl = flatten(transitions(rules)) if keep == "optimal" else max_dice_flat(rules)
    off = fl.max_pts
    E = np.ones((max_need + 1 + off, fl.n_states))
    for m in range(1, max_need + 1):
        vals = E[off + m - fl.opt_pts, fl.opt_state]
        gmax = np.maximum.reduceat(vals, fl.group_opt[:-1], axis=-1)
        E[off + m] = class_sum(gmax * fl.group_prob, fl.state_group)
    return E[off:].copy()
