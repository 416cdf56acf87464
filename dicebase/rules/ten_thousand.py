"""10,000 / Farkle: the rules as data, and what is legal under them.

A :class:`RuleSet` holds every parameter of a scoring preset; the keep enumeration
below (:func:`legal_keeps`, :func:`keep_points`) is generic code driven by it and is
shared by the solvers (``dicebase.builder.ten_thousand``) and the lookups
(``dicebase.query.ten_thousand``).  All points are multiples of ``unit`` (50), and the
solvers work in those units.  No numpy here: the command line imports this module.

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

import reprlib
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from itertools import product

GAME = "ten_thousand"

FACES = 6
NEG = -1  # marks "this multiset does not score"


@dataclass(frozen=True)
class RuleSet:
    """One scoring preset.

    ``extra_dice`` says what n-of-a-kind (n >= 4) of one face is worth:
    ``"add_triple"`` (each further die adds the triple value again: 4oak = 2x,
    5oak = 3x, 6oak = 4x), ``"double"`` (each further die doubles it) or
    ``"fixed"`` (``kind_values`` gives 4/5/6 of a kind as fixed points).
    ``triple_stands``: a triple kept earlier in the turn stays "standing" and every
    later die of its face scores the triple value again (seed 004); cleared by hot dice.
    ``three_pairs_with_four``: whether four of a kind plus a pair also counts as
    three pairs.  ``two_triples`` ``None`` scores two triples as the sum of the two.
    """

    name: str
    description: str
    source: str
    dice: int = 6
    single_values: tuple[int, ...] = (100, 0, 0, 0, 50, 0)  # per face 1..6
    triple_values: tuple[int, ...] = (1000, 200, 300, 400, 500, 600)  # per face 1..6
    extra_dice: str = "add_triple"  # add_triple | double | fixed
    kind_values: tuple[int, ...] = ()  # fixed points for 4, 5, 6 of a kind ("fixed")
    triple_stands: bool = True
    straight: int | None = 1000
    three_pairs: int | None = 750
    three_pairs_with_four: bool = False
    four_and_pair: int | None = None
    two_triples: int | None = None
    hot_dice: bool = True
    hot_dice_clears_triple: bool = True
    opening_minimum: int = 0
    goal: int = 10_000
    last_round: str = "others_one_turn_must_exceed"
    unit: int = 50
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.extra_dice not in ("add_triple", "double", "fixed"):
            raise ValueError(f"unknown extra_dice rule {self.extra_dice!r}")
        if self.extra_dice == "fixed" and len(self.kind_values) != 3:
            raise ValueError("extra_dice='fixed' needs kind_values for 4, 5 and 6 of a kind")
        values = list(self.single_values) + list(self.triple_values) + list(self.kind_values)
        values += [v for v in (self.straight, self.three_pairs, self.four_and_pair, self.two_triples) if v]
        values.append(self.goal)
        bad = [v for v in values if v % self.unit]
        if bad:
            raise ValueError(f"points {bad} are not multiples of the unit {self.unit}")

    def kind_points(self, face: int, count: int) -> int:
        """Points of ``count`` (>= 3) dice of ``face`` scored as one n-of-a-kind."""
        triple = self.triple_values[face - 1]
        if count == 3:
            return triple
        if self.extra_dice == "add_triple":
            return triple * (count - 2)
        if self.extra_dice == "double":
            return triple * 2 ** (count - 3)
        return self.kind_values[count - 4]

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("extra")
        return d


TEN_THOUSAND = RuleSet(
    name="ten-thousand",
    description=(
        "Seed 004's 10,000: single 1 = 100, single 5 = 50, three of a kind = 100 x face "
        "(three 1s = 1000), every further die of the face (same roll or later rolls while the "
        "triple stands) adds the triple value again, 1-6 straight 1000, three pairs 750 "
        "(three different faces), two triples score as two triples, hot dice clears the triple"
    ),
    source="seed 004 (Building an AI for the dice game 10.000, part 2) and issue 4",
)

FARKLE = RuleSet(
    name="farkle",
    description=(
        "Widely played Farkle scoring: single 1 = 100, single 5 = 50, three 1s = 300, three of "
        "a kind = 100 x face, four of a kind 1000, five of a kind 2000, six of a kind 3000, "
        "1-6 straight 1500, three pairs 1500, four of a kind + pair 1500, two triplets 2500; "
        "each roll is scored on its own (no standing triple); 500 in one turn to get on the "
        "board; goal 10,000, then every other player has one last turn"
    ),
    source=(
        "reference.com, 'How does scoring work in Farkle?' "
        "(https://www.reference.com/hobbies-games/scoring-work-farkle-a1a8f6bf502af85); "
        "the same table is the common 'standard scoring' of Farkle rule sheets"
    ),
    triple_values=(300, 200, 300, 400, 500, 600),
    extra_dice="fixed",
    kind_values=(1000, 2000, 3000),
    triple_stands=False,
    straight=1500,
    three_pairs=1500,
    three_pairs_with_four=True,
    four_and_pair=1500,
    two_triples=2500,
    opening_minimum=500,
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (TEN_THOUSAND, FARKLE)}


def get_rules(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r}; known: {', '.join(PRESETS)}") from None


#: Every build option with its default.
DEFAULT_OPTIONS = {
    "rules": ["ten-thousand", "farkle"],  # rule sets for tables (a), (b), (c), (e: turn)
    "duel_rules": ["ten-thousand"],  # rule sets solved as a two-player game, (d) and (e)
    "goal": 10_000,  # two-player goal, points
}
TEST_OPTIONS = {"goal": 1000}
#: Largest two-player goal a build accepts, points.
MAX_GOAL = 20_000


def check_options(options: dict) -> tuple[list[RuleSet], list[RuleSet], int]:
    """(rule sets, two-player rule sets, goal) of build options; ValueError (one line) if bad."""

    def names(key):
        value = options[key]
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if not isinstance(value, list) or not value:
            raise ValueError(
                f"ten-thousand.{key} must be a list of rule sets ({', '.join(PRESETS)}), got {reprlib.repr(value)}"
            )
        if not all(isinstance(v, str) for v in value):
            raise ValueError(
                f"ten-thousand.{key} must be a list of rule-set names ({', '.join(PRESETS)}), got {reprlib.repr(value)}"
            )
        try:
            return [get_rules(v) for v in value]
        except KeyError as exc:
            raise ValueError(f"ten-thousand.{key}: {exc.args[0]}") from None

    rules = names("rules")
    duel = names("duel_rules")
    goal = options["goal"]
    if isinstance(goal, bool) or not isinstance(goal, int) or goal <= 0 or goal % 50 or goal > MAX_GOAL:
        raise ValueError(f"ten-thousand.goal must be a positive multiple of 50 up to {MAX_GOAL}, got {goal!r}")
    for r in duel:
        if r not in rules:
            rules.append(r)
    return rules, duel, goal


# ---------------------------------------------------------------- legality and scoring
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
