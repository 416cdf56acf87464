"""Roll -> keep transitions of every pre-roll class, as arrays for the solvers.

The rules, the keep enumeration and its scoring live in :mod:`dicebase.rules.ten_thousand`
(shared with the lookups); this module groups every roll of a class by its keep options.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicebase.builder.dice import rolls
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
