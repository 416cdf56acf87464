"""Scoring and keep enumeration, driven by a :class:`~.rules.RuleSet`.

A *keep* is a non-empty sub-multiset of the rolled dice in which every die scores.
Its points are the best way to split it into scoring combinations (singles,
n-of-a-kind, dice added to a standing triple, and the six-dice combinations).
After a keep the turn goes on with ``n_after`` dice (six again on hot dice) and
the standing triple ``t_after`` (0 = none).

Turn state before a roll: ``(n, t)`` = dice to roll, standing triple face.  A triple
can only stand with n <= 3, so there are 3 + 3 * 7 = 24 pre-roll ``(n, t)`` classes
(with ``triple_stands=False`` only the 6 classes ``t = 0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product

import numpy as np

from dicebase.builder.dice import rolls

from .rules import FACES, RuleSet

NEG = -1  # marks "this multiset does not score"


def turn_states(rules: RuleSet) -> list[tuple[int, int]]:
    """All pre-roll (dice, standing triple) classes, in a fixed order."""
    out = [(n, 0) for n in range(rules.dice, 0, -1)]
    if rules.triple_stands:
        out += [(n, t) for n in (3, 2, 1) for t in range(1, FACES + 1)]
    return out


def _face_partitions(m: int) -> list[tuple[int, ...]]:
    """Partitions of m into parts of size 1 (singles) or >= 3 (n-of-a-kind)."""
    if m == 0:
        return [()]
    out = []
    for part in [1] + list(range(3, m + 1)):
        for rest in _face_partitions(m - part):
            if not rest or part >= rest[0]:
                out.append((part,) + rest)
    return out


@lru_cache(maxsize=None)
def face_points(rules: RuleSet, face: int, m: int, standing: int) -> tuple[int, bool]:
    """Best points for ``m`` kept dice of ``face``; (NEG, False) if they cannot all score.

    Returns (points, forms_triple).  With a standing triple of this face every die
    scores the triple value again (``triple_stands`` rules).
    """
    if m == 0:
        return 0, False
    triple = rules.triple_values[face - 1]
    if rules.triple_stands and standing == face:
        return m * triple, False
    single = rules.single_values[face - 1]
    best, best_triple = NEG, False
    for parts in _face_partitions(m):
        if 1 in parts and single <= 0:
            continue
        pts = sum(single if p == 1 else rules.kind_points(face, p) for p in parts)
        has_kind = any(p >= 3 for p in parts)
        if pts > best or (pts == best and has_kind and not best_triple):
            best, best_triple = pts, has_kind
    return best, best_triple


@lru_cache(maxsize=None)
def keep_points(rules: RuleSet, kept: tuple[int, ...], standing: int) -> tuple[int, int]:
    """Points of kept dice counts (per face) and the triple face formed (0 = none).

    ``(NEG, 0)`` when some kept die does not score.
    """
    total, triple_face = 0, 0
    for f in range(1, FACES + 1):
        pts, kind = face_points(rules, f, kept[f - 1], standing)
        if pts == NEG:
            total = NEG
            break
        total += pts
        if kind:
            triple_face = f
    if sum(kept) == 6:
        shape = sorted((c for c in kept if c), reverse=True)
        special = NEG
        if rules.straight is not None and shape == [1] * 6:
            special = max(special, rules.straight)
        if rules.three_pairs is not None and (
            shape == [2, 2, 2] or (rules.three_pairs_with_four and shape == [4, 2])
        ):
            special = max(special, rules.three_pairs)
        if rules.four_and_pair is not None and shape == [4, 2]:
            special = max(special, rules.four_and_pair)
        if rules.two_triples is not None and shape == [3, 3]:
            special = max(special, rules.two_triples)
        if special > total:
            total, triple_face = special, 0
    return total, (triple_face if total != NEG else 0)


@dataclass(frozen=True)
class Keep:
    kept: tuple[int, ...]  # dice kept per face 1..6
    points: int  # points (not units)
    dice: int  # dice used
    n_after: int  # dice to roll next (6 after hot dice)
    t_after: int  # standing triple face afterwards (0 = none)


def legal_keeps(rules: RuleSet, counts: tuple[int, ...], n: int, t: int) -> list[Keep]:
    """Every legal keep of a roll (dice counts per face) in state (n dice, triple t)."""
    out = []
    for kept in product(*(range(c + 1) for c in counts)):
        used = sum(kept)
        if used == 0:
            continue
        pts, kind = keep_points(rules, kept, t if rules.triple_stands else 0)
        if pts == NEG:
            continue
        left = n - used
        if left == 0 and rules.hot_dice:
            n_after, t_after = rules.dice, (0 if rules.hot_dice_clears_triple else t)
        else:
            n_after = left
            t_after = (kind or t) if rules.triple_stands and left > 0 else 0
        out.append(Keep(tuple(kept), pts, used, n_after, t_after))
    # best points first, then most dice
    out.sort(key=lambda k: (-k.points, -k.dice, k.kept))
    return out


def dominated_flags(keeps: list[Keep]) -> list[bool]:
    """A keep is dominated when another keep reaches the same (n_after, t_after) with
    at least as many points (strictly more, or equal and listed earlier)."""
    seen: dict[tuple[int, int], int] = {}
    flags = []
    for k in keeps:  # sorted by points descending
        key = (k.n_after, k.t_after)
        flags.append(key in seen)
        seen.setdefault(key, k.points)
    return flags


# ---------------------------------------------------------------- classification
def classify(rules: RuleSet, counts: tuple[int, ...], t: int) -> tuple[str, tuple[int, ...]]:
    """Seed 004's combination class of a roll and the dice that form it.

    Precedence (rarest first): 6-, 5-of-a-kind, two 3-of-a-kind, straight, 4-of-a-kind
    + pair (when the rules score it), three pairs, add to a standing 3-of-a-kind,
    4-, 3-of-a-kind, 1 or 5, farkle.
    """
    shape = sorted((c for c in counts if c), reverse=True)
    n = sum(counts)
    whole = tuple(counts)

    def of_face(m: int) -> tuple[int, ...]:
        f = max(range(FACES), key=lambda i: (counts[i] == m, i))
        return tuple(counts[i] if i == f else 0 for i in range(FACES))

    if 6 in shape:
        return "6-of-a-kind", whole
    if 5 in shape:
        return "5-of-a-kind", of_face(5)
    if shape == [3, 3]:
        return "Two 3-of-a-kind", whole
    if rules.straight is not None and n == 6 and shape == [1] * 6:
        return "Straight", whole
    if shape == [4, 2] and rules.four_and_pair is not None:
        return "4-of-a-kind + pair", whole
    if rules.three_pairs is not None and (
        shape == [2, 2, 2] or (shape == [4, 2] and rules.three_pairs_with_four)
    ):
        return "Three pairs", whole
    if rules.triple_stands and t and counts[t - 1]:
        return "Add to 3-of-a-kind", tuple(counts[i] if i == t - 1 else 0 for i in range(FACES))
    if 4 in shape:
        return "4-of-a-kind", of_face(4)
    if 3 in shape:
        return "3-of-a-kind", of_face(3)
    singles = tuple(counts[i] if rules.single_values[i] > 0 else 0 for i in range(FACES))
    if any(singles):
        return "1 or 5", singles
    return "Farkle", (0,) * FACES


CLASS_ORDER = [
    "6-of-a-kind", "5-of-a-kind", "Two 3-of-a-kind", "Straight", "4-of-a-kind + pair",
    "Three pairs", "4-of-a-kind", "3-of-a-kind", "Add to 3-of-a-kind", "1 or 5", "Farkle",
]


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
