"""Pig: the rules as data, the presets and the build options (issue 31; docs/pig.md).

Pig (Neller and Presser, "Optimal Play of the Dice Game Pig", The UMAP Journal 25(1), 2004): two or
more players take turns; on a turn a player rolls one die as often as it likes.  The bust face ends the
turn and scores nothing for it; any other face adds its score to the turn total.  Holding banks the turn
total and passes the die.  Holding at turn total 0 is not a move.  A player whose banked score plus turn
total reaches the goal holds at once and wins at once (no last round: Great Rolled Ones' last-round rule
does not apply).  Each player maximises its own probability of winning; ties for the mover hold
("hold before roll", within :data:`TIE_TOLERANCE`).

A rule set is :class:`Rules`: the goal, the number of faces (equally likely), the bust face and the score
of each face.  Presets: ``pig`` (goal 100, a six-sided die, a 1 busts, 2..6 score their pips) and
``piglet`` (Neller and Presser's coin: heads scores 1, tails busts, goal 10).  House rules come from TOML
files (``dicebase rules pig``, ``dicebase build pig --rules FILE.toml``) through :mod:`dicebase.rules.files`.

Standard library only: the command line imports it.  The turn itself, written once for the solver and the
lookups, is :mod:`dicebase.rules.pig_turn`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from dicebase.errors import SizeLimit
from dicebase.rules import files
from dicebase.rules.files import Key, house_rules
from dicebase.rules.pig_turn import HOLD_AT, TURNS

GAME = "pig"

#: Most seats a build may store (``pig_turn_starts`` has a score and a win column per seat).
MAX_PLAYERS = 4
#: Player counts a build may solve (``-o pig.players=[2,3,4]``).
PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
#: The mover rolls only when rolling beats holding by more than this (its own win probability); otherwise
#: it holds ("hold before roll").  With three or more players a tie for the mover changes the others'
#: chances, so it is broken the same way everywhere (as in the other games, docs/n_players.md).
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Rules:
    """One rule set of Pig.

    ``goal``: points that win (banked plus turn total; reaching it wins at once).  ``faces``: faces of
    the die, each equally likely.  ``bust_face``: the face (1..faces) that ends the turn with nothing.
    ``scores``: each face's score, face 1 first (the bust face's entry is 0); every other face scores
    at least 1.
    """

    goal: int = 100
    faces: int = 6
    bust_face: int = 1
    scores: tuple[int, ...] = (0, 2, 3, 4, 5, 6)
    description: str = ""

    def __post_init__(self) -> None:
        bad = _relations({"goal": self.goal, "faces": self.faces, "bust_face": self.bust_face,
                          "scores": list(self.scores)})
        if bad:
            raise ValueError(f"{bad[0]}: {bad[1]}")

    @property
    def gains(self) -> tuple[int, ...]:
        """The scores of the faces that do not bust, in face order (one entry per face)."""
        return tuple(s for f, s in enumerate(self.scores, start=1) if f != self.bust_face)

    @property
    def p_face(self) -> float:
        """The chance of each face."""
        return 1.0 / self.faces

    @property
    def p_bust(self) -> float:
        """The chance that a roll busts."""
        return 1.0 / self.faces


#: Rows the tables may hold: ``players * goal^players`` turn starts per (variant, players) block.
MAX_TUPLE_CELLS = 60_000_000
#: Sane ranges of the rule values (inclusive).
OPTION_RANGES = {"goal": (1, 200), "faces": (2, 20), "bust_face": (1, 20)}
MAX_SCORE = 100


def _relations(values: dict) -> tuple[str, str] | None:
    """(key, what is wrong) for rule values that do not fit together, else None."""
    G, F, B, S = values["goal"], values["faces"], values["bust_face"], values["scores"]
    for key, (lo, hi) in OPTION_RANGES.items():
        v = values[key]
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            return key, f"must be a whole number {lo}..{hi}, got {v!r}"
    if B > F:
        return "bust_face", f"must be one of the faces 1..{F}, got {B}"
    if not isinstance(S, (list, tuple)) or len(S) != F:
        return "scores", f"must list one score per face ({F}), got {S!r}"
    for f, s in enumerate(S, start=1):
        if isinstance(s, bool) or not isinstance(s, int):
            return "scores", f"must be whole numbers, got {s!r}"
        if f == B and s != 0:
            return "scores", f"the bust face {B} scores 0, got {s}"
        if f != B and not 1 <= s <= MAX_SCORE:
            return "scores", f"face {f} must score 1..{MAX_SCORE} (only the bust face {B} scores 0), got {s}"
    return None


PIG = Rules(description="Pig: one six-sided die, a 1 ends the turn with nothing, 2-6 add their pips; first to 100 "
                        "wins (Neller and Presser 2004)")
PIGLET = Rules(goal=10, faces=2, bust_face=2, scores=(1, 0),
               description="Piglet: a coin, heads adds 1, tails ends the turn with nothing; first to 10 wins "
                           "(Neller and Presser 2004)")
PRESETS = {"pig": PIG, "piglet": PIGLET}
#: Face names of the presets in words (a coin's faces: heads, tails); other dice name faces by number.
FACE_NAMES = {2: ("heads", "tails")}


def variant_name(rules: Rules) -> str:
    """The preset's name, or a name spelling out the rule values."""
    for name, preset in PRESETS.items():
        if _values(rules) == _values(preset):
            return name
    return f"goal{rules.goal}-d{rules.faces}-bust{rules.bust_face}-" + "-".join(str(s) for s in rules.scores)


def _values(rules: Rules) -> tuple:
    return rules.goal, rules.faces, rules.bust_face, tuple(rules.scores)


@lru_cache(maxsize=64)
def reachable(rules: Rules, up_to: int) -> frozenset[int]:
    """The turn totals ``0 .. up_to`` a turn can reach (each roll adds one non-bust face's score)."""
    seen = [False] * (up_to + 1)
    seen[0] = True
    for k in range(up_to + 1):
        if seen[k]:
            for g in rules.gains:
                if k + g <= up_to:
                    seen[k + g] = True
    return frozenset(k for k in range(up_to + 1) if seen[k])


def tuple_cells(goal: int, players: int) -> int:
    """Turn starts ``players * goal^players`` of one (variant, players) block."""
    return players * goal**players


# --------------------------------------------------------------------------- build options
#: The build's options.  ``variants``: presets built (names of :data:`PRESETS`); ``house_rules``: name ->
#: rules-file values; ``players``: numbers of players built for every variant (:data:`PLAYERS_HELP`);
#: ``policy_players``: the counts whose simple-policy costs are computed (each also in ``players``).
DEFAULT_OPTIONS = {
    "variants": ["pig", "piglet"],
    "house_rules": {},
    "players": [2],
    "policy_players": [2],
}
#: The tests' build: piglet and Pig's die at goal 6 (a house rule set), 2 and 3 players (the goal-100
#: figure is a build of its own, tests/test_pig_db.py).
TEST_OPTIONS = {
    "variants": ["piglet"],
    "house_rules": {"pig6": {"goal": 6, "faces": 6, "bust_face": 1, "scores": [0, 2, 3, 4, 5, 6]}},
    "players": [2, 3],
    "policy_players": [2, 3],
}
#: ``-o pig.players=...``'s help, for the docs and the size message.
PLAYERS_HELP = ("Numbers of players (each 2..4) built for every variant, e.g. [2] (the default), [2,3] (3 players at "
                "goal 100: 3 M turn starts) or [2,3,4] (4 players need a goal of at most 60)")


def player_counts(options: dict, key: str = "players") -> tuple[int, ...]:
    """The ``players`` (or ``policy_players``) option as a sorted tuple; ValueError (one line) if bad.
    ``policy_players`` lists only counts that ``players`` builds (left at its default: those of the default)."""
    if key != "players" and options.get(key, DEFAULT_OPTIONS[key]) == DEFAULT_OPTIONS[key]:
        return tuple(n for n in sorted(DEFAULT_OPTIONS[key]) if n in player_counts(options))
    counts = files.player_counts(options.get(key, DEFAULT_OPTIONS[key]), f"pig.{key}", PLAYER_COUNTS, "[2,3]")
    if key != "players":
        solved = player_counts(options)
        missing = [n for n in counts if n not in solved]
        if missing:
            raise ValueError(f"pig.{key} lists {missing[0]} players, which pig.players does not build "
                             f"({list(solved)})")
    return counts


def variants(options: dict) -> list[tuple[str, Rules]]:
    """(name, rules) of every variant a build writes: the presets named, then each house rule set."""
    names = options.get("variants", DEFAULT_OPTIONS["variants"])
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"pig.variants must be a list of preset names ({', '.join(PRESETS)}), got {names!r}")
    unknown = [n for n in names if n not in PRESETS]
    if unknown:
        raise ValueError(f"pig.variants: unknown preset {unknown[0]!r}; presets: {', '.join(PRESETS)}")
    if len(set(names)) != len(names):
        raise ValueError(f"pig.variants lists a preset twice: {names!r}")
    out = [(n, PRESETS[n]) for n in names]
    for name, _values_, rules in house_rules(options, GAME, from_file, FILE_KEYS, FILE_DEFAULTS):
        if name in dict(out):
            raise ValueError(f"pig house rules {name!r}: a preset of that name is built; rename them")
        out.append((name, rules))
    return sorted(out, key=lambda v: v[0])


def validate_options(options: dict) -> None:
    """ValueError (one line) for bad build options, :class:`SizeLimit` for a solve too large; the pipeline
    calls it before touching any file."""
    unknown = [k for k in options if k not in DEFAULT_OPTIONS]
    if unknown:
        raise ValueError(f"pig: unknown option {unknown[0]!r}; options: {', '.join(DEFAULT_OPTIONS)}")
    players = player_counts(options)
    player_counts(options, "policy_players")
    for name, rules in variants(options):
        for n in players:
            cells = tuple_cells(rules.goal, n)
            if cells > MAX_TUPLE_CELLS:
                raise SizeLimit(f"pig {name}: {n} players at goal {rules.goal} need {cells:,} turn starts (about "
                                f"{cells * n * 8 / 1e9:.1f} GB), more than the {MAX_TUPLE_CELLS:,} a build may use; "
                                f"lower the goal or leave {n} out of pig.players")



# --------------------------------------------------------------------------- rules files
_HELP = {
    "goal": "Points that win: a player whose banked score plus turn total reaches this holds and wins at once "
            "(Pig: 100; Piglet: 10).",
    "faces": "Faces of the die, each equally likely (Pig: 6; Piglet's coin: 2).",
    "bust_face": "The face that ends the turn with nothing (Pig: 1; Piglet: 2, tails).",
    "scores": "Each face's score, face 1 first; the bust face scores 0, every other face 1..100 "
              "(Pig: [0, 2, 3, 4, 5, 6]; Piglet: [1, 0]).",
}
FILE_KEYS = (
    Key("goal", "int", _HELP["goal"], minimum=1, maximum=OPTION_RANGES["goal"][1]),
    Key("faces", "int", _HELP["faces"], minimum=2, maximum=OPTION_RANGES["faces"][1]),
    Key("bust_face", "int", _HELP["bust_face"], minimum=1, maximum=OPTION_RANGES["bust_face"][1]),
    Key("scores", "ints", _HELP["scores"], minimum=0, maximum=MAX_SCORE, length="faces"),
)
FILE_DEFAULTS: dict = {}


def to_file(rules: Rules) -> dict:
    return {"goal": rules.goal, "faces": rules.faces, "bust_face": rules.bust_face, "scores": list(rules.scores)}


def from_file(name: str, values: dict) -> Rules:
    """:class:`Rules` from checked rules-file values; ValueError ``"key: what is wrong"``."""
    bad = _relations(values)
    if bad:
        raise ValueError(f"{bad[0]}: {bad[1]}")
    return Rules(goal=values["goal"], faces=values["faces"], bust_face=values["bust_face"],
                 scores=tuple(values["scores"]))


def from_record(record: dict, solver: dict | None = None) -> dict:
    """Rules-file values of a variant as stored in build_variants.rules_json."""
    return {"goal": record["goal"], "faces": record["faces"], "bust_face": record["bust_face"],
            "scores": list(record["scores"])}


def add_house(options: dict, name: str, values: dict) -> dict:
    """Build options that also build the rules file ``values`` as variant ``name``."""
    return {**options, "house_rules": {**options.get("house_rules", {}), name: values}}


def face_name(rules: Rules, face: int) -> str:
    names = FACE_NAMES.get(rules.faces)
    return names[face - 1] if names else f"a {face}"


def words(rules: Rules) -> list[str]:
    """The rule set in words, generated from its values."""
    others = ", ".join(f"{face_name(rules, f)} adds {s}" for f, s in enumerate(rules.scores, start=1)
                       if f != rules.bust_face)
    return [f"A die of {rules.faces} equally likely faces: {face_name(rules, rules.bust_face)} ends the turn with "
            f"nothing, {others}. Holding banks the turn total (never at 0). The first whose banked score plus turn "
            f"total reaches {rules.goal} wins at once."]


RULES_TEXT = (
    "Pig for {players} players: seats 1..{players} take turns; {words} Each seat maximises its own win "
    "probability; ties for the mover (within {tie}) hold."
)


# --------------------------------------------------------------------------- simple policies
@dataclass(frozen=True)
class Policy:
    """A simple policy (:func:`dicebase.rules.pig_turn.policy_rolls` with ``kind`` and ``param``)."""

    title: str
    kind: int
    param: int
    definition: str


#: The simple policies whose cost against optimal play a build stores (pig_policy_wins), by name.
POLICIES = {
    "hold_at_20": Policy("Hold at 20", HOLD_AT, 20, "roll while the turn total is below 20, then hold (a turn that "
                                              "reaches the goal wins at once)"),
    "hold_at_25": Policy("Hold at 25", HOLD_AT, 25, "roll while the turn total is below 25, then hold"),
    "four_turns": Policy("Four turns", TURNS, 4, "plan to reach the goal in t = ceil(4 (goal - score) / goal) more turns "
                                             "(at least 1) and roll while the turn total is below "
                                             "ceil((goal - score) / t); stateless: at 0 of 100 hold at 25, at 30 at "
                                             "24, from 75 on roll to the goal"),
}
