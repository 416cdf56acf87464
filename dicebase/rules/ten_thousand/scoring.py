"""10,000 / Farkle: legality and scoring of keeps, roll classification and roll multisets.

Generic code driven by a :class:`~dicebase.rules.ten_thousand.RuleSet`: what a keep is worth,
which keeps are legal, the pre-roll classes (dice, standing triple) and every roll of n dice
as a multiset with its ordered ways.  Shared by the solvers and the lookups; no numpy here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import factorial, prod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dicebase.rules.ten_thousand import RuleSet

#: Faces of a die (every rule set plays six-sided dice)
FACES = 6
NEG = -1  # marks "this multiset does not score"


# ---------------------------------------------------------------- legality and scoring
#: The class a keep of every die leads to without hot dice: no dice to roll, the turn ends
#: (its total is banked; lost below the opening minimum).  Last in :func:`turn_states`.
NO_DICE = (0, 0)


def turn_states(rules: RuleSet) -> list[tuple[int, int]]:
    """All pre-roll (dice, standing triple) classes, in a fixed order; :data:`NO_DICE` last
    when the rules have no hot dice."""
    out = [(n, 0) for n in range(rules.dice, 0, -1)]
    if rules.triple_stands:
        carried = rules.hot_dice and not rules.hot_dice_clears_triple  # a triple stands on fresh dice
        ns = sorted({3, 2, 1} | (set(range(1, rules.dice + 1)) if carried else set()), reverse=True)
        out += [(n, t) for n in ns for t in range(1, FACES + 1)]
    if not rules.hot_dice:
        out.append(NO_DICE)
    return out


def roll_states(rules: RuleSet) -> list[tuple[int, int]]:
    """The classes a player can roll from: :func:`turn_states` without :data:`NO_DICE`."""
    return [s for s in turn_states(rules) if s != NO_DICE]


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
    if rules.triple_stands and standing == face and triple > 0:
        return m * triple, False
    single = rules.single_values[face - 1]
    best, best_triple = NEG, False
    for parts in _face_partitions(m):
        if 1 in parts and single <= 0:
            continue
        if any(p >= 3 and rules.kind_points(face, p) <= 0 for p in parts):
            continue  # an n-of-a-kind worth 0 does not score (house rules)
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
    n_after: int  # dice to roll next (6 after hot dice; 0 = the turn ends: no hot dice)
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
            n_after = rules.dice
            t_after = (kind or t) if rules.triple_stands and not rules.hot_dice_clears_triple else 0
        elif left == 0:  # no hot dice: the turn ends, its total is banked (module docstring)
            n_after, t_after = NO_DICE
        else:
            n_after = left
            t_after = (kind or t) if rules.triple_stands and left > 0 else 0
        out.append(Keep(tuple(kept), pts, used, n_after, t_after))
    if not out and rules.no_score_bonus and n == rules.dice and sum(counts) == n:
        # issue 24: a roll of every die that scores nothing earns the bonus and a free roll of all the dice
        return [Keep(tuple(counts), rules.no_score_bonus, n, rules.dice, 0)]
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
    if rules.no_score_bonus and n == rules.dice and legal_keeps(rules, whole, n, t):
        return NO_SCORE_BONUS, whole  # issue 24: all the dice scoring nothing earn the bonus, not a farkle
    return "Farkle", (0,) * FACES


#: The combination class of a roll of all the dice that scores nothing under a no-score bonus (issue 24)
NO_SCORE_BONUS = "No-score bonus"


CLASS_ORDER = [
    "6-of-a-kind", "5-of-a-kind", "Two 3-of-a-kind", "Straight", "4-of-a-kind + pair",
    "Three pairs", "4-of-a-kind", "3-of-a-kind", "Add to 3-of-a-kind", "1 or 5", NO_SCORE_BONUS, "Farkle",
]


# ---------------------------------------------------------------- rolls (numpy-free, for checks)
@lru_cache(maxsize=None)
def roll_multisets(n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every roll of ``n`` six-sided dice as (dice counts per face, ordered ways); ways sum to 6**n."""
    out = []
    for faces in combinations_with_replacement(range(1, FACES + 1), n):
        counts = tuple(faces.count(f) for f in range(1, FACES + 1))
        out.append((counts, factorial(n) // prod(factorial(c) for c in counts)))
    return tuple(out)


def class_odds(rules: RuleSet) -> list[tuple[tuple[int, int], float, float]]:
    """Per class a player can roll from (order of :func:`roll_states`): (class, farkle chance, expected
    points of the best-scoring keep of one roll)."""
    out = []
    for n, t in roll_states(rules):
        farkle = best = 0
        for counts, ways in roll_multisets(n):
            keeps = legal_keeps(rules, counts, n, t)
            if keeps:
                best += ways * keeps[0].points
            else:
                farkle += ways
        out.append(((n, t), farkle / 6**n, best / 6**n))
    return out


def max_turn_points(rules: RuleSet) -> int | None:
    """Most points one turn can score without hot dice (every keep leaves fewer dice, so a turn
    scores at most ``dice`` dice); None with hot dice (no limit)."""
    if rules.hot_dice:
        return None

    @lru_cache(maxsize=None)
    def most(n: int, t: int) -> int:
        if n == 0:
            return 0
        return max((k.points + most(k.n_after, k.t_after) for counts, _ in roll_multisets(n)
                    for k in legal_keeps(rules, counts, n, t)), default=0)

    return most(rules.dice, 0)


def bank_bound_points(rules: RuleSet) -> float:
    """A turn total from which banking is optimal in every class: max over classes of
    E[best points of a roll] / P(farkle) (docs/ten_thousand.md); inf if some class never farkles.

    With a no-score bonus (issue 24) the turn-start class never farkles: a roll there is always
    worth taking, and the bound is over the other classes with C, an upper bound on what rolling
    on from all the dice adds, added to each class's expected points (docs/farkle.md)."""
    odds = class_odds(rules)
    extra = bonus_chain_bound(rules, odds)
    return max((e + extra) / pf if pf > 0 else (0.0 if _bonus_class(rules, s) else float("inf"))
               for s, pf, e in odds)


def _bonus_class(rules: RuleSet, state: tuple[int, int]) -> bool:
    return bool(rules.no_score_bonus) and state == (rules.dice, 0)


def bonus_chain_bound(rules: RuleSet, odds=None) -> float:
    """C = Emax(all dice) / (1 - P(a roll of all dice can give all dice back)): at least the expected
    points of rolling all the dice again as long as a keep gives them back; 0 without a no-score bonus."""
    if not rules.no_score_bonus:
        return 0.0
    n = rules.dice
    back = sum(ways for counts, ways in roll_multisets(n)
               if any(k.n_after == n for k in legal_keeps(rules, counts, n, 0))) / 6**n
    emax = next(e for s, _, e in (odds or class_odds(rules)) if s == (n, 0))
    return emax / (1.0 - back)


#: Largest two-player state array ``G * (2 G + 801) * classes`` (G = goal / unit) a build may
#: use without --force-size: about 20 bytes a cell (values, actions, stored rows).  The
