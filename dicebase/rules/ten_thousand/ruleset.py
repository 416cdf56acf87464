"""10,000's :class:`RuleSet`: every parameter of a scoring preset, and the range of each number.

``dicebase.rules.ten_thousand`` re-exports every name here (its presets are instances); the rules
files (``house.py``) build one from a file.  No numpy: the command line imports it.
"""

from __future__ import annotations

import reprlib
from dataclasses import asdict, dataclass, field

from dicebase.rules.ten_thousand.farkle import FARKLE_OPTIONS, check_farkle_options

#: Largest two-player goal a build accepts, points.
MAX_GOAL = 20_000
#: Largest turn total, score or opponent score a lookup accepts, points.  Far beyond any real
#: game: the chance of scoring 50,000 points in one turn is 3e-19, of 100,000 below 1e-37.
MAX_POINTS = 100_000
#: Every number of a rule set has a range (issue 34): a rules file, a build option's house rules and
#: the Python API refuse a value outside it in one line, before any work.  Points of a scoring combination,
#: the opening and bank minimums, the no-score bonus and the penalty: 0..MAX_POINTS (no turn total a lookup
#: takes is larger); the goal, the unit and the compensation: up to MAX_GOAL (the largest goal a build solves).
#: Within the ranges the build's size checks (:func:`validate_options`) refuse what a machine cannot solve.
POINT_FIELDS = ("single_values", "triple_values", "kind_values", "straight", "three_pairs", "four_and_pair",
                "two_triples", "opening_minimum", "bank_minimum", "no_score_bonus", "farkle_penalty")


@dataclass(frozen=True)
class RuleSet:
    """One scoring preset.

    ``extra_dice`` says what n-of-a-kind (n >= 4) of one face is worth:
    ``"add_triple"`` (each further die adds the triple value again: 4oak = 2x,
    5oak = 3x, 6oak = 4x), ``"double"`` (each further die doubles it) or
    ``"fixed"`` (``kind_values`` gives 4/5/6 of a kind as fixed points).
    ``triple_stands``: a triple kept earlier in the turn stays "standing" and every
    later die of its face scores the triple value again (seed 004); cleared by hot dice
    unless ``hot_dice_clears_triple`` is false.  ``hot_dice``: see the module docstring.
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
    # issue 24 (the Farkle family's options; each default is the behaviour before them, see FARKLE_OPTIONS)
    compensation: int = 0  # points the second seat starts with
    bank_minimum: int = 0  # points a turn needs to be banked, on every turn
    no_score_bonus: int = 0  # a roll of all `dice` dice that scores nothing: these points and a free roll (0 = a farkle)
    farkle_penalty: int = 0  # points lost on the farkle_penalty_after-th farkle in a row (0 = none)
    farkle_penalty_after: int = 3
    farkle_count_reset: str = "after_penalty"  # after_penalty | after_bank
    lowest_score: int = 0  # the lowest banked score (a penalty stops there): the model's bound, points <= 0
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        check_ranges(self)
        if self.extra_dice not in ("add_triple", "double", "fixed"):
            raise ValueError(f"unknown extra_dice rule {self.extra_dice!r}")
        if self.extra_dice == "fixed" and len(self.kind_values) != 3:
            raise ValueError("extra_dice='fixed' needs kind_values for 4, 5 and 6 of a kind")
        values = list(self.single_values) + list(self.triple_values) + list(self.kind_values)
        values += [v for v in (self.straight, self.three_pairs, self.four_and_pair, self.two_triples) if v]
        values.append(self.goal)
        values += [self.compensation, self.bank_minimum, self.no_score_bonus, self.farkle_penalty, self.lowest_score]
        bad = [v for v in values if v % self.unit]
        if bad:
            raise ValueError(f"points {bad} are not multiples of the unit {self.unit}")
        check_farkle_options(self)

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
        """Every parameter; the issue-24 options only where they differ from their defaults, so a rule
        set without them is stored exactly as before they existed."""
        d = asdict(self)
        d.pop("extra")
        for key, default in FARKLE_OPTIONS.items():
            if d[key] == default:
                del d[key]
        return d

    @property
    def farkle_options(self) -> dict:
        """The issue-24 options that differ from their defaults (empty: a rule set as before them)."""
        return {k: getattr(self, k) for k, v in FARKLE_OPTIONS.items() if getattr(self, k) != v}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_ranges(r: RuleSet) -> None:
    """ValueError (one line, naming the rules-file key) for a number outside its documented range
    (:data:`POINT_FIELDS`, :data:`MAX_POINTS`, :data:`MAX_GOAL`)."""
    file_key = {"single_values": "single", "triple_values": "triple"}
    for name in POINT_FIELDS:
        value = getattr(r, name)
        items = value if isinstance(value, (tuple, list)) else [value]
        for v in items:
            if v is None and name in ("straight", "three_pairs", "four_and_pair", "two_triples"):
                continue
            if not _whole(v) or not 0 <= v <= MAX_POINTS:
                raise ValueError(f"{file_key.get(name, name)}: must be a whole number of points >= 0 and <= "
                                 f"{MAX_POINTS} (0 = none), got {reprlib.repr(v)}")
    for name, lo in (("goal", 1), ("unit", 1), ("compensation", 0)):
        v = getattr(r, name)
        if not _whole(v) or not lo <= v <= MAX_GOAL:
            raise ValueError(f"{name}: must be a whole number {lo}..{MAX_GOAL}, got {reprlib.repr(v)}")
