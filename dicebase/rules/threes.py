"""Threes: the rules as data, and what is legal under them.

Rules (seeds 000 and 003): roll ``dice`` dice with ``faces`` faces; each face
is worth its number except 3, worth zero; after every roll keep some of the
dice and re-roll the rest until every die is kept; the lowest total wins.
Since a kept die only adds its worth, a player always keeps the *lowest-worth*
dice (:func:`sort_roll`), so an action is just how many of the sorted dice to keep.

Variants (all parameters live in :class:`Rules`, nothing assumes 5 or 6):

- ``classic`` (seed 003): keep at least one die after every roll.
- ``reroll`` (seed 000): as classic, but you may keep none (re-roll them all)
  unless only one die is left; the roll after a re-roll must keep at least
  ``keep_after_reroll`` (2) dice, so re-rolls never come twice in a row.

Shared by the solver (``dicebase.builder.threes``) and the lookups
(``dicebase.query.threes``); no numpy here, the command line imports it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property

from dicebase.errors import SizeLimit
from dicebase.rules.files import Key, house_rules

GAME = "threes"
#: How a tie with the best score so far counts: "shared" survives it, "strict" does not.
TIE_RULES = ("shared", "strict")
#: Tie tolerance of the keep choice (relative): keeps within it of the best value are equal,
#: and the fewest dice kept wins (seed 003's ``choose_n``).
TOL = 1e-12
DEFAULT_OPTIONS = {
    "max_players": 12,
    "variants": ["classic", "reroll"],
    "ties": ["shared", "strict"],
    "dice": 5,
    "faces": 6,
    "house_rules": {},  # name -> values of a rules file (dicebase build threes --rules FILE.toml)
    "many_dice": 5000,  # threes_many_dice: expected score for 1..many_dice dice (0 = not built)
    "many_dice_chances": 50,  # threes_many_dice_chances: the last player, 1..many_dice_chances dice (0 = not built)
}
TEST_OPTIONS = {"max_players": 5}  # seed 001 example needs 4 players after
MAX_PLAYERS = 20  # upper bound of threes.max_players
MAX_DICE = 8  # the packed policy stores one decimal digit per keep (<= 9)
FACES = (3, 12)  # allowed numbers of faces: a face 3 (worth 0) must exist
MAX_DECISION_STATES = 40_000_000  # whole build; the default build has 5,149,440 (12 players)
MAX_MANY_DICE = 10_000  # upper bound of threes.many_dice (its solve is linear in it)
MAX_MANY_DICE_CHANCES = 100  # upper bound of threes.many_dice_chances (its solve is quadratic in it)


def legal_keeps(rules, dice_left: int, must_keep_two: bool) -> range:
    """Legal numbers of dice to keep after rolling ``dice_left`` dice: the one
    statement of the rule, shared by the solver and the lookups.

    After a re-roll at least ``keep_after_reroll`` must be kept; otherwise a
    variant that allows re-rolls may keep none unless one die is left; else at
    least ``min_keep``.
    """
    if must_keep_two:
        low = min(rules.keep_after_reroll, dice_left)
    elif rules.allow_reroll and dice_left > 1:
        low = 0
    else:
        low = min(rules.min_keep, dice_left)
    return range(low, dice_left + 1)


def kept_sums(worths, dice: int) -> list[frozenset[int]]:
    """``out[k]``: every score ``k`` kept dice can be worth, k = 0 .. dice."""
    out = [frozenset({0})]
    for _ in range(dice):
        out.append(frozenset(s + w for s in out[-1] for w in worths))
    return out


@dataclass(frozen=True)
class Rules:
    """Every rule parameter of a Threes variant."""

    variant: str
    dice: int = 5
    faces: int = 6
    worth: tuple[int, ...] = (1, 2, 0, 4, 5, 6)  # worth[f - 1] = points of face f
    min_keep: int = 1  # fewest dice kept after a roll without re-roll
    allow_reroll: bool = False  # may keep 0 dice (not with one die left, not twice in a row)
    keep_after_reroll: int = 2  # dice that must be kept on the roll after a re-roll
    description: str = ""

    def __post_init__(self):
        if self.dice < 1 or self.faces < 1 or len(self.worth) != self.faces:
            raise ValueError(f"threes {self.variant}: need dice >= 1, faces >= 1 and one worth per face")
        if min(self.worth) < 0:
            raise ValueError(f"threes {self.variant}: worths must be >= 0")

    @property
    def max_worth(self) -> int:
        return max(self.worth)

    @property
    def max_score(self) -> int:
        return self.dice * self.max_worth

    @property
    def no_target(self) -> int:
        """The ``to_beat`` value meaning "nobody has finished yet" (beaten by every score)."""
        return self.max_score + 1

    def score_range(self, dice_left: int) -> int:
        """Number of score columns 0..max for a state with ``dice_left`` dice to roll."""
        return self.max_worth * (self.dice - dice_left) + 1

    def flags(self, dice_left: int) -> tuple[bool, ...]:
        """Values the must-keep-two flag can take with ``dice_left`` dice to roll."""
        if self.allow_reroll and 2 <= dice_left <= self.dice:
            return (False, True)
        return (False,)

    def legal_keeps(self, dice_left: int, must_keep_two: bool) -> range:
        """Legal numbers of dice to keep after rolling ``dice_left`` dice."""
        return legal_keeps(self, dice_left, must_keep_two)

    @cached_property
    def reachable(self) -> tuple[tuple[bool, ...], ...]:
        """``reachable[k][s]``: can ``k`` kept dice be worth exactly ``s`` points (s = 0 .. k * max_worth)?"""
        return tuple(
            tuple(s in sums for s in range(k * self.max_worth + 1))
            for k, sums in enumerate(kept_sums(self.worth, self.dice))
        )

    def reachable_scores(self, dice_left: int) -> tuple[bool, ...]:
        """Mask over scores 0 .. score_range(dice_left) - 1: reachable with ``dice_left`` dice still to roll."""
        return self.reachable[self.dice - dice_left]

    def record(self) -> dict:
        rec = asdict(self)
        rec["worth"] = list(self.worth)
        rec["max_score"] = self.max_score
        rec["no_target"] = self.no_target
        return rec


def standard_variants(dice: int = 5, faces: int = 6) -> dict[str, Rules]:
    """The two published variants (``classic``, ``reroll``) with ``dice`` dice of ``faces`` faces."""
    worth = tuple(0 if f == 3 else f for f in range(1, faces + 1))
    return {
        "classic": Rules(
            "classic",
            dice,
            faces,
            worth,
            description="seed 003: keep at least one die after every roll",
        ),
        "reroll": Rules(
            "reroll",
            dice,
            faces,
            worth,
            allow_reroll=True,
            description=(
                "seed 000: may keep no die and re-roll all (not with one die left); "
                "the next roll must keep at least two"
            ),
        ),
    }


VARIANTS = standard_variants()


# --------------------------------------------------------------------------- build options


def _int_option(options: dict, key: str) -> int:
    value = options[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"threes.{key} must be a whole number, got {value!r}")
    return value


def _names_option(options: dict, key: str, allowed) -> list[str]:
    """A name or a list of names drawn from ``allowed``: duplicates dropped, order kept."""
    value = options[key]
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"threes.{key} must be a non-empty list drawn from {list(allowed)}, got {value!r}")
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise ValueError(f"threes.{key}: unknown {unknown}; allowed: {list(allowed)}")
    return list(dict.fromkeys(names))


def check_options(options: dict, check_size: bool = True) -> tuple[int, dict[str, Rules], list[str]]:
    """Check every build option; ValueError with one line naming the option and what is allowed
    (:class:`SizeLimit` for a build over :data:`MAX_DECISION_STATES`, unless not ``check_size``)."""
    max_players = _int_option(options, "max_players")
    if not 2 <= max_players <= MAX_PLAYERS:
        raise ValueError(
            f"threes.max_players must be 2..{MAX_PLAYERS} (rounds of 2 to {MAX_PLAYERS} players), got {max_players}"
        )
    dice, faces = _int_option(options, "dice"), _int_option(options, "faces")
    if not (1 <= dice <= MAX_DICE and FACES[0] <= faces <= FACES[1]):
        raise ValueError(
            f"threes.dice must be 1..{MAX_DICE} and threes.faces {FACES[0]}..{FACES[1]}, got {dice}, {faces}"
        )
    many = _int_option(options, "many_dice")
    if not 0 <= many <= MAX_MANY_DICE:
        raise ValueError(f"threes.many_dice must be 0..{MAX_MANY_DICE} (0 = no many-dice table), got {many}")
    chances = _int_option(options, "many_dice_chances")
    if not 0 <= chances <= MAX_MANY_DICE_CHANCES:
        raise ValueError(
            f"threes.many_dice_chances must be 0..{MAX_MANY_DICE_CHANCES} (0 = no many-dice chances), got {chances}"
        )
    known = standard_variants(dice, faces)
    for name, _, rules in house_rules(options, GAME, from_file, FILE_KEYS, FILE_DEFAULTS):
        if name in known and rules != known[name]:
            raise ValueError(f"threes house rules {name!r} differ from the standard variant of that name; rename them")
        known[name] = rules
    names = _names_option(options, "variants", list(known))
    ties = _names_option(options, "ties", TIE_RULES)
    variants = {n: known[n] for n in names}
    size = decision_states(variants.values(), max_players, len(ties))
    if check_size and size > MAX_DECISION_STATES:
        raise SizeLimit(
            f"threes: {dice} dice, {faces} faces, {max_players} players, {len(names)} variant(s) and "
            f"{len(ties)} tie rule(s) make {size / 1e6:.1f} million decision states, over the limit of "
            f"{MAX_DECISION_STATES // 1_000_000} million (the default build has 5.1); lower dice, faces or max_players"
        )
    return max_players, variants, ties


def decision_states(variants, max_players: int, n_ties: int) -> int:
    """Decision states of a build (rows of threes_win_decisions): per variant and tie rule,
    players_after x to_beat x every (dice_left, must_keep_two, reachable score, roll)."""
    from math import comb

    total = 0
    for rules in variants:
        per_target = sum(
            len(rules.flags(d)) * sum(rules.reachable_scores(d)) * comb(rules.faces + d - 1, d)
            for d in range(1, rules.dice + 1)
        )
        total += per_target * (rules.no_target + 1) * max_players * n_ties
    return total


def validate_options(options: dict) -> None:
    """Called by the pipeline before it touches any file: ValueError (one line) for bad options."""
    check_options(options)


def rank(actions: list, maximize: bool) -> tuple:
    """Keeps (objects with ``value`` and ``dice_kept``) best first: the solver's tie-break.  The best is the fewest-dice keep among those within TOL of the top
    value (the solver's tie-break); the rest follow by value, then fewer dice."""
    sign = -1.0 if maximize else 1.0
    top = min(sign * a.value for a in actions)
    best = min((a for a in actions if sign * a.value <= top + TOL * abs(top)), key=lambda a: a.dice_kept)
    rest = sorted((a for a in actions if a is not best), key=lambda a: (sign * a.value, a.dice_kept))
    return (best, *rest)


def rank_many(actions: list, threes: int) -> tuple:
    """Best first under the many-dice tie rule (expected score, lower is better).

    With thousands of dice many keeps are worth the same to double precision (E[n] has reached its
    limit), so the best is chosen among the keeps within TOL of the lowest value by preferring one
    that keeps every 3 and at least one die, then the fewest dice: the rule the stored
    threes_many_dice_keeps spells out.  For rolls of up to 12 dice this is the same keep as `rank`.
    """
    top = min(a.value for a in actions)
    near = [a for a in actions if a.value <= top + TOL * abs(top)]
    best = min(near, key=lambda a: (a.dice_kept < max(threes, 1), a.dice_kept))
    rest = sorted((a for a in actions if a is not best), key=lambda a: (a.value, a.dice_kept))
    return (best, *rest)


def sort_roll(rules: Rules, faces) -> list[int]:
    """Faces in keep order: lowest worth first, ties by face."""
    return sorted(faces, key=lambda f: (rules.worth[f - 1], f))


# --------------------------------------------------------------------------- rules files
PRESETS = VARIANTS
MAX_WORTH = 100

FILE_KEYS = (
    Key("description", "str", "What these rules are, in a sentence (stored with the tables).", required=False),
    Key("dice", "int", "Dice rolled at the start of a turn.", minimum=1, maximum=MAX_DICE),
    Key("faces", "int", "Faces per die.", minimum=2, maximum=FACES[1]),
    Key("worth", "ints", "Points of each face 1..faces; the lowest total wins (seeds 000 and 003: a 3 counts "
        "zero, every other face its number).", length="faces", maximum=MAX_WORTH),
    Key("min_keep", "int", "Fewest dice kept after a roll (seed 003: 1).", minimum=1, maximum=MAX_DICE),
    Key("allow_reroll", "bool", "The re-roll rule (seed 000): after a roll you may keep no die and re-roll "
        "them all (not with one die left); the next roll must then keep keep_after_reroll dice."),
    Key("keep_after_reroll", "int", "Dice that must be kept on the roll after a re-roll (seed 000: 2; only "
        "used with allow_reroll).", minimum=1, maximum=MAX_DICE),
)
FILE_DEFAULTS = {"description": ""}


def to_file(rules: Rules) -> dict:
    return {
        "description": rules.description, "dice": rules.dice, "faces": rules.faces, "worth": list(rules.worth),
        "min_keep": rules.min_keep, "allow_reroll": rules.allow_reroll, "keep_after_reroll": rules.keep_after_reroll,
    }


def from_file(name: str, values: dict) -> Rules:
    """A :class:`Rules` from checked rules-file values; ValueError ``"key: what is wrong"``."""
    v = values
    for key in ("min_keep", "keep_after_reroll"):
        if v[key] > v["dice"]:
            raise ValueError(f"{key}: at most dice ({v['dice']}), got {v[key]}")
    if len(v["worth"]) != v["faces"]:
        raise ValueError(f"worth: one value per face 1..{v['faces']}, got {len(v['worth'])}")
    return Rules(name, v["dice"], v["faces"], tuple(v["worth"]), v["min_keep"], v["allow_reroll"],
                 v["keep_after_reroll"], v["description"])


def words(rules: Rules) -> list[str]:
    """The variant in words generated from its values (:func:`dicebase.rules.files.in_words`)."""
    worth = ", ".join(f"{f}: {w}" for f, w in enumerate(rules.worth, 1))
    keep = f"keep at least {rules.min_keep} {'die' if rules.min_keep == 1 else 'dice'} after every roll"
    if rules.allow_reroll:
        keep += (f", or keep none and re-roll them all (not with one die left); the roll after a re-roll must keep "
                 f"at least {rules.keep_after_reroll}")
    return [f"{rules.dice} dice with {rules.faces} faces, each face worth (face: points) {worth}; {keep}; every die "
            "is kept in the end and the lowest total wins."]


def from_record(record: dict, solver: dict | None = None) -> dict:
    """Rules-file values of a variant as stored in build_variants.rules_json."""
    return {
        "description": record["description"], "dice": record["dice"], "faces": record["faces"],
        "worth": list(record["worth"]), "min_keep": record["min_keep"], "allow_reroll": record["allow_reroll"],
        "keep_after_reroll": record["keep_after_reroll"],
    }


def add_house(options: dict, name: str, values: dict) -> dict:
    """Build options that also build the rules file ``values`` as variant ``name``."""
    names = options["variants"]
    names = [names] if isinstance(names, str) else list(names)
    return {**options, "house_rules": {**options.get("house_rules", {}), name: values},
            "variants": names + ([name] if name not in names else [])}
