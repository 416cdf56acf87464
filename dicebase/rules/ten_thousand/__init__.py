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

Hot dice (a keep that uses every rolled die):

- ``hot_dice = True`` (every preset): the player may roll all the dice again, turn total
  kept.  With ``hot_dice_clears_triple = True`` (every preset, seed 004) the standing
  triple ends there; with ``False`` it stands on the fresh dice too (the triple just
  formed, if the keep formed one, else the one standing before).
- ``hot_dice = False``: the player may not roll again; the turn ends and its total is
  banked (the standard "no hot dice" rule).  If the total may not be banked yet (a
  player still at 0 below ``opening_minimum``) the turn scores nothing, as a farkle.
  ``hot_dice_clears_triple`` is then irrelevant.  Such a keep leads to the class
  ``(0, 0)``: no dice to roll, bank forced (:data:`NO_DICE`).

Turn state before a roll: ``(n, t)`` = dice to roll, standing triple face.  A triple
can only stand with n <= 3 unless hot dice keeps it standing, so there are
3 + 3 * 7 = 24 pre-roll ``(n, t)`` classes (with ``triple_stands=False`` only the 6
classes ``t = 0``; 6 + 6 * 6 = 42 when hot dice keeps the triple; plus ``(0, 0)``
without hot dice).
"""

from __future__ import annotations

import reprlib
from dataclasses import asdict, dataclass, field

from dicebase.rules import SizeLimit
from dicebase.rules.files import Key
from dicebase.rules.ten_thousand.scoring import (  # noqa: F401  (the rules' public names, one import away)
    CLASS_ORDER,
    FACES,
    NEG,
    NO_DICE,
    Keep,
    bank_bound_points,
    class_odds,
    classify,
    dominated_flags,
    face_points,
    keep_points,
    legal_keeps,
    max_turn_points,
    roll_multisets,
    roll_states,
    turn_states,
)

GAME = "ten_thousand"


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

FARKLE_ADDITIVE = RuleSet(
    name="farkle-additive",
    description=(
        "Matt Busche's Farkle scoring: single 1 = 100, single 5 = 50, three 1s = 1000, three of a kind "
        "= 100 x face, each further die of the set adds the triple value again (four 3s 600, five 900, six "
        "1200), 1-6 straight 1500, three pairs 750 (four of a kind + pair counts as three pairs), two triples "
        "score as two triples; each roll is scored on its own (no standing triple)"
    ),
    source=(
        "Matt Busche, 'Farkle Scoring' (http://www.mattbusche.org/projects/farkle/scoring.php), the point "
        "values it calls typical; its optional six-dice-farkle bonus is not part of this preset"
    ),
    triple_stands=False,
    straight=1500,
    three_pairs=750,
    three_pairs_with_four=True,
)

ZILCH = RuleSet(
    name="zilch",
    description=(
        "Zilch: single 1 = 100, single 5 = 50, three 1s = 1000, three of a kind = 100 x face, every die "
        "over three doubles the set (four 2s 400, five 800, six 1600), 1-6 straight 1500, three pairs 1500, "
        "scoring all six dice gives a free roll of six; each roll is scored on its own"
    ),
    source=(
        "playr.co.uk, 'Rules of Zilch' (http://zilch.playr.co.uk/rules.php); not modelled: its 500 points for "
        "six dice with no score, the 300 points needed to bank and the 500-point penalty for a third zilch "
        "in a row"
    ),
    extra_dice="double",
    triple_stands=False,
    straight=1500,
    three_pairs=1500,
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (TEN_THOUSAND, FARKLE, FARKLE_ADDITIVE, ZILCH)}


def get_rules(name: str) -> RuleSet:
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown rule set {name!r}; known: {', '.join(PRESETS)}") from None


#: Every build option with its default.
DEFAULT_OPTIONS = {
    "rules": ["ten-thousand", "farkle", "farkle-additive", "zilch"],  # rule sets for (a), (b), (c), (e: turn)
    "duel_rules": ["ten-thousand"],  # rule sets solved as a two-player game, (d) and (e)
    "goal": 10_000,  # two-player goal of the presets, points (a house rule set's own goal is in its file)
    "house_rules": {},  # name -> values of a rules file (dicebase build ten-thousand --rules FILE.toml)
}
TEST_OPTIONS = {"goal": 1000}
#: Largest two-player goal a build accepts, points.
MAX_GOAL = 20_000
#: Largest turn total, score or opponent score a lookup accepts, points.  Far beyond any real
#: game: the chance of scoring 50,000 points in one turn is 3e-19, of 100,000 below 1e-37.
MAX_POINTS = 100_000


def _house(options: dict) -> dict[str, RuleSet]:
    house = options.get("house_rules", {})
    if not isinstance(house, dict):
        raise ValueError(f"ten-thousand.house_rules must map names to rules-file values, got {house!r}")
    out = {}
    for name, values in house.items():
        try:
            out[name] = from_file(name, values)
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"ten-thousand.house_rules[{name!r}]: {exc}") from None
    return out


def check_options(options: dict) -> tuple[list[RuleSet], list[RuleSet], int]:
    """(rule sets, two-player rule sets, goal) of build options; ValueError (one line) if bad.

    A house rule set (``house_rules``) named like a preset must equal it; it then takes the
    preset's place (built from the file's values)."""
    house = _house(options)
    for name, rs in house.items():
        if name in PRESETS and rs != PRESETS[name]:
            raise ValueError(f"house rules {name!r} differ from the preset of that name; rename them")
    known = {**PRESETS, **house}

    def names(key, allow_empty=False):
        value = options[key]
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if not isinstance(value, list) or not (value or allow_empty):
            raise ValueError(
                f"ten-thousand.{key} must be a list of rule sets ({', '.join(known)}), got {reprlib.repr(value)}"
            )
        if not all(isinstance(v, str) for v in value):
            raise ValueError(
                f"ten-thousand.{key} must be a list of rule-set names ({', '.join(known)}), got {reprlib.repr(value)}"
            )
        unknown = [v for v in value if v not in known]
        if unknown:
            raise ValueError(f"ten-thousand.{key}: unknown rule set {unknown[0]!r}; known: {', '.join(known)}")
        return [known[v] for v in dict.fromkeys(value)]

    rules = names("rules", allow_empty=bool(house))
    duel = names("duel_rules", allow_empty=True)
    goal = options["goal"]
    if isinstance(goal, bool) or not isinstance(goal, int) or goal <= 0 or goal % 50 or goal > MAX_GOAL:
        raise ValueError(f"ten-thousand.goal must be a positive multiple of 50 up to {MAX_GOAL}, got {goal!r}")
    duel += [rs for name, rs in house.items() if house_values(options, name).get("two_player") and rs not in duel]
    for r in duel:
        if r not in rules:
            rules.append(r)
    if not rules:
        raise ValueError("ten-thousand: no rule set to build (ten-thousand.rules is empty)")
    return rules, duel, goal


def house_values(options: dict, name: str) -> dict:
    return options.get("house_rules", {}).get(name, {})


def validate_options(options: dict) -> None:
    """ValueError (one line) for bad build options, :class:`SizeLimit` for a solve too large for
    the machine; called before any file is touched."""
    rule_sets, duel, goal = check_options(options)
    for rs in rule_sets:
        cells, what = size_estimate(rs, duel_goal(rs, goal) if rs in duel else None)
        limit = MAX_DUEL_CELLS if rs in duel else MAX_TURN_CELLS
        if cells > limit:
            raise SizeLimit(f"ten-thousand {rs.name}: the solve needs {what} = {cells:,} cells "
                            f"(about {cells * 20 / 1e9:.1f} GB), over the limit of {limit:,}; "
                            "use a larger unit or a smaller goal")


def duel_goal(rules: RuleSet, options_goal: int) -> int:
    """The two-player goal a rule set is solved to: a preset's is the build option, a house rule set's its own."""
    return options_goal if PRESETS.get(rules.name) == rules else rules.goal


#: default (goal 10,000, unit 50, 24 classes) needs 5.8 million.
MAX_DUEL_CELLS = 20_000_000
#: Largest solitaire table ``bank bound / unit x classes`` without --force-size.
MAX_TURN_CELLS = 2_000_000


def size_estimate(rules: RuleSet, goal: int | None) -> tuple[int, str]:
    """(cells, description) of the largest array a build of ``rules`` needs (goal None: no two-player game)."""
    S = len(turn_states(rules))
    K = bank_bound_points(rules) / rules.unit
    cells, what = int(min(K, 1e15) + 1) * S, f"a solitaire table of {int(min(K, 1e15)) + 1:,} turn totals x {S} classes"
    if goal is not None:
        G = goal // rules.unit
        duel = G * (2 * G + 801) * S
        if duel > cells:
            cells, what = duel, f"a two-player array of {G:,} scores x {2 * G + 801:,} turn totals x {S} classes"
    return cells, what


# ---------------------------------------------------------------- rules files

LAST_ROUND = ("others_one_turn_must_exceed",)

FILE_KEYS = (
    Key("description", "str", "What these rules are, in a sentence (stored with the tables)."),
    Key("source", "str", "Where the rules come from (a rule sheet, a web page, 'our kitchen table').",
        required=False),
    Key("dice", "int", "Dice rolled at the start of a turn (straight, three pairs, four of a kind + pair and "
        "two triples need 6).", minimum=1, maximum=6),
    Key("single", "ints", "Points of a single die, per face 1..6 (0 = a lone die of that face does not "
        "score). Seed 004: a 1 is 100, a 5 is 50.", length=6),
    Key("triple", "ints", "Points of three of a kind, per face 1..6 (0 = three of that face do not score).",
        length=6),
    Key("extra_dice", "choice", "Four, five and six of a kind: \"add_triple\" = each die over three adds "
        "the triple value again (x2, x3, x4: seed 004), \"double\" = each die over three doubles it (x2, x4, "
        "x8), \"fixed\" = the points in kind_values.", choices=("add_triple", "double", "fixed")),
    Key("kind_values", "ints", "Points of four, five and six of a kind of any face when extra_dice = "
        "\"fixed\"; otherwise [0, 0, 0].", length=3),
    Key("straight", "int", "Points of a 1-2-3-4-5-6 straight in one roll of six dice (0 = not a "
        "combination)."),
    Key("three_pairs", "int", "Points of three pairs in one roll of six dice (0 = not a combination)."),
    Key("three_pairs_with_four", "bool", "Whether four of a kind plus a pair also counts as three pairs."),
    Key("four_and_pair", "int", "Points of four of a kind plus a pair in one roll (0 = not a combination)."),
    Key("two_triples", "int", "Points of two triples in one roll (0 = they score as two separate triples)."),
    Key("triple_stands", "bool", "Whether a triple kept earlier in the turn stands: every later die of its "
        "face scores the triple value again (seed 004). false = each roll is scored on its own."),
    Key("hot_dice", "bool", "Whether scoring with every die gives all dice back to roll again (hot dice). "
        "false = the turn ends there and its total is banked (nothing, if it is below opening_minimum "
        "while the player is still at 0)."),
    Key("hot_dice_clears_triple", "bool", "Whether hot dice ends a standing triple (only used with "
        "triple_stands and hot_dice). false = the triple (the one just formed, if the last keep formed "
        "one) stands on the fresh dice too."),
    Key("opening_minimum", "int", "Points a turn needs to bank while the player's score is still 0 "
        "(to get on the board); 0 = none."),
    Key("goal", "int", "Points that end the game: the first player to bank this many makes it the last "
        "round; the two-player game is solved to it.", minimum=1),
    Key("last_round", "choice", "What happens when a player reaches the goal: "
        "\"others_one_turn_must_exceed\" = the other player has one more turn and must end above.",
        choices=LAST_ROUND),
    Key("unit", "int", "The scoring unit: every value above is a multiple of it (smaller units make larger "
        "solves).", minimum=1),
    Key("two_player", "bool", "Also solve the optimal two-player game to the goal (tables d and e; takes "
        "longer than the one-turn tables).", required=False),
)
FILE_DEFAULTS = {"source": "", "two_player": False}


def to_file(rules: RuleSet, two_player: bool = False) -> dict:
    """The rules-file values of a rule set (what :func:`from_file` reads back)."""
    return {
        "description": rules.description,
        "source": rules.source,
        "dice": rules.dice,
        "single": list(rules.single_values),
        "triple": list(rules.triple_values),
        "extra_dice": rules.extra_dice,
        "kind_values": list(rules.kind_values) if rules.extra_dice == "fixed" else [0, 0, 0],
        "straight": rules.straight or 0,
        "three_pairs": rules.three_pairs or 0,
        "three_pairs_with_four": rules.three_pairs_with_four,
        "four_and_pair": rules.four_and_pair or 0,
        "two_triples": rules.two_triples or 0,
        "triple_stands": rules.triple_stands,
        "hot_dice": rules.hot_dice,
        "hot_dice_clears_triple": rules.hot_dice_clears_triple,
        "opening_minimum": rules.opening_minimum,
        "goal": rules.goal,
        "last_round": rules.last_round,
        "unit": rules.unit,
        "two_player": two_player,
    }


def from_file(name: str, values: dict) -> RuleSet:
    """A :class:`RuleSet` from checked rules-file values; ValueError ``"key: what is wrong"``."""
    v = values
    fixed = v["extra_dice"] == "fixed"
    if not fixed and any(v["kind_values"]):
        raise ValueError('kind_values: only used with extra_dice = "fixed"; set it to [0, 0, 0]')
    if v["dice"] < 6:
        for key in ("straight", "three_pairs", "four_and_pair", "two_triples"):
            if v[key]:
                raise ValueError(f"{key}: needs six dice (dice = {v['dice']}); set it to 0")
    unit = v["unit"]
    for key in ("single", "triple", "kind_values", "straight", "three_pairs", "four_and_pair", "two_triples",
                "opening_minimum", "goal"):
        items = v[key] if isinstance(v[key], list) else [v[key]]
        bad = [x for x in items if x % unit]
        if bad:
            raise ValueError(f"{key}: {bad[0]} is not a multiple of the unit {unit}; every score must be")
    rules = RuleSet(
        name=name,
        description=v["description"],
        source=v["source"],
        dice=v["dice"],
        single_values=tuple(v["single"]),
        triple_values=tuple(v["triple"]),
        extra_dice=v["extra_dice"],
        kind_values=tuple(v["kind_values"]) if fixed else (),
        triple_stands=v["triple_stands"],
        straight=v["straight"] or None,
        three_pairs=v["three_pairs"] or None,
        three_pairs_with_four=v["three_pairs_with_four"],
        four_and_pair=v["four_and_pair"] or None,
        two_triples=v["two_triples"] or None,
        hot_dice=v["hot_dice"],
        hot_dice_clears_triple=v["hot_dice_clears_triple"],
        opening_minimum=v["opening_minimum"],
        goal=v["goal"],
        last_round=v["last_round"],
        unit=unit,
    )
    odds = class_odds(rules)
    most = max_turn_points(rules)
    if most is not None and rules.opening_minimum > most:
        raise ValueError(f"opening_minimum: {rules.opening_minimum} is more than one turn can score without hot dice "
                         f"({most}), so no player could get on the board; allowed: 0..{most}")
    if odds[0][1] == 1.0:  # the turn start: (dice, no standing triple)
        raise ValueError("single: no roll ever scores (every single, triple and combination is 0)")
    for (n, t), pf, _ in odds:
        if pf == 1.0:
            what = f"{n} dice" + (f" with a standing triple of {t}s" if t else "")
            raise ValueError(f"single: no roll of {what} scores; the solvers need every number of dice "
                             "to be able to score (give a single die some points)")
        if pf == 0.0:
            what = f"{n} dice" + (f" with a standing triple of {t}s" if t else "")
            raise ValueError(f"single: every roll of {what} scores, so a turn would never have to end; "
                             "the solver needs a chance to farkle in every state")
    return rules


def from_record(record: dict, solver: dict | None = None) -> dict:
    """Rules-file values of a rule set as stored in build_variants (rules_json, solver_json)."""
    fields = {k: (tuple(x) if isinstance(x, list) else x) for k, x in record.items()}
    return to_file(RuleSet(**fields), two_player="two_player" in (solver or {}))


def add_house(options: dict, name: str, values: dict) -> dict:
    """Build options that also build the rules file ``values`` as rule set ``name``."""
    rules = options["rules"]
    rules = [v for v in rules.split(",") if v] if isinstance(rules, str) else list(rules)
    return {**options, "house_rules": {**options.get("house_rules", {}), name: values},
            "rules": rules + ([name] if name not in rules else [])}
