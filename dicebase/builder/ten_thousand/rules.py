"""10,000 / Farkle scoring rules as data.

A :class:`RuleSet` holds every parameter of a scoring preset; the keep
enumeration in :mod:`.scoring` is generic code driven by it.  All points are
multiples of ``unit`` (50), and the solvers work in those units.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

FACES = 6


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
