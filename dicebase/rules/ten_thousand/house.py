"""10,000's house-rules files: the keys of a rules file (``dicebase rules ten-thousand``), a rule set
as a file's values and back, and a file added to the build options.

``dicebase.rules.ten_thousand`` re-exports every name here (:mod:`dicebase.rules.files` reads a game's
``FILE_KEYS``, ``to_file``, ``from_file``, ``from_record``, ``add_house`` and ``words`` from it).
"""

from __future__ import annotations

from dicebase.rules.files import Key
from dicebase.rules.ten_thousand.farkle import FARKLE_COUNT_RESET, FARKLE_OPTIONS, LAST_ROUND, options_text, scoring_text
from dicebase.rules.ten_thousand.ruleset import MAX_GOAL, MAX_POINTS, RuleSet
from dicebase.rules.ten_thousand.scoring import class_odds, max_turn_points

FILE_KEYS = (
    Key("description", "str", "What these rules are, in a sentence (stored with the tables)."),
    Key("source", "str", "Where the rules come from (a rule sheet, a web page, 'our kitchen table').",
        required=False),
    Key("dice", "int", "Dice rolled at the start of a turn (straight, three pairs, four of a kind + pair and "
        "two triples need 6).", minimum=1, maximum=6),
    Key("single", "ints", "Points of a single die, per face 1..6 (0 = a lone die of that face does not "
        "score). Seed 004: a 1 is 100, a 5 is 50.", length=6, maximum=MAX_POINTS),
    Key("triple", "ints", "Points of three of a kind, per face 1..6 (0 = three of that face do not score).",
        length=6, maximum=MAX_POINTS),
    Key("extra_dice", "choice", "Four, five and six of a kind: \"add_triple\" = each die over three adds "
        "the triple value again (x2, x3, x4: seed 004), \"double\" = each die over three doubles it (x2, x4, "
        "x8), \"fixed\" = the points in kind_values.", choices=("add_triple", "double", "fixed")),
    Key("kind_values", "ints", "Points of four, five and six of a kind of any face when extra_dice = "
        "\"fixed\"; otherwise [0, 0, 0].", length=3, maximum=MAX_POINTS),
    Key("straight", "int", "Points of a 1-2-3-4-5-6 straight in one roll of six dice (0 = not a "
        "combination).", maximum=MAX_POINTS),
    Key("three_pairs", "int", "Points of three pairs in one roll of six dice (0 = not a combination).",
        maximum=MAX_POINTS),
    Key("three_pairs_with_four", "bool", "Whether four of a kind plus a pair also counts as three pairs."),
    Key("four_and_pair", "int", "Points of four of a kind plus a pair in one roll (0 = not a combination).",
        maximum=MAX_POINTS),
    Key("two_triples", "int", "Points of two triples in one roll (0 = they score as two separate triples).",
        maximum=MAX_POINTS),
    Key("triple_stands", "bool", "Whether a triple kept earlier in the turn stands: every later die of its "
        "face scores the triple value again (seed 004). false = each roll is scored on its own."),
    Key("hot_dice", "bool", "Whether scoring with every die gives all dice back to roll again (hot dice). "
        "false = the turn ends there and its total is banked (nothing, if it is below opening_minimum "
        "while the player is still at 0)."),
    Key("hot_dice_clears_triple", "bool", "Whether hot dice ends a standing triple (only used with "
        "triple_stands and hot_dice). false = the triple (the one just formed, if the last keep formed "
        "one) stands on the fresh dice too."),
    Key("opening_minimum", "int", "Points a turn needs to bank while the player's score is still 0 "
        "(to get on the board); 0 = none.", maximum=MAX_POINTS),
    Key("goal", "int", "Points that end the game: the first player to bank this many makes it the last "
        "round; the two-player game is solved to it.", minimum=1, maximum=MAX_GOAL),
    Key("last_round", "choice", "What happens when a player reaches the goal: "
        "\"others_one_turn_must_exceed\" = the other player has one more turn and must end above; "
        "\"first_to_goal_wins\" = the first to bank at or above the goal wins at once; "
        "\"others_one_turn_ties_shared\" = the other player has one more turn, the higher score wins, a tie "
        "is half a win each.", choices=LAST_ROUND),
    Key("unit", "int", "The scoring unit: every value above is a multiple of it (smaller units make larger "
        "solves).", minimum=1, maximum=MAX_GOAL),
    Key("compensation", "int", "Points the second player starts the game with (0 = none); "
        "dicebase ten-thousand compensation says which value makes the game fairest.", maximum=MAX_GOAL,
        required=False),
    Key("bank_minimum", "int", "Points a turn needs before it may be banked, on every turn (0 = none; "
        "opening_minimum applies on top while the player is at 0).", maximum=MAX_POINTS, required=False),
    Key("no_score_bonus", "int", "Points for a roll of all the dice that scores nothing, which then gives a "
        "free roll of all the dice (0 = such a roll is a farkle, as usual).", maximum=MAX_POINTS, required=False),
    Key("farkle_penalty", "int", "Points lost on the farkle_penalty_after-th farkle in a row (0 = no penalty).",
        maximum=MAX_POINTS, required=False),
    Key("farkle_penalty_after", "int", "How many farkles in a row cost the penalty.", minimum=1, maximum=5,
        required=False),
    Key("farkle_count_reset", "choice", "When the count of farkles in a row starts again (always after a banked "
        "turn): \"after_penalty\" = also after each penalty; \"after_bank\" = only after a banked turn, so every "
        "further farkle costs the penalty again.", choices=FARKLE_COUNT_RESET, required=False),
    Key("lowest_score", "int", "The lowest banked score: a penalty never takes a score below it (0 = scores "
        "never go negative). With a penalty this is the solver's bound on scores (Busche's Facebook Farkle "
        "model: -2500).", minimum=-20_000, maximum=0, required=False),
    Key("two_player", "bool", "Also solve the optimal two-player game to the goal (tables d and e; takes "
        "longer than the one-turn tables).", required=False),
)
FILE_DEFAULTS = {"source": "", "two_player": False, **FARKLE_OPTIONS}


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
        **{k: getattr(rules, k) for k in FARKLE_OPTIONS},
        "two_player": two_player,
    }


def from_file(name: str, values: dict) -> RuleSet:
    """A :class:`RuleSet` from checked rules-file values; ValueError ``"key: what is wrong"``."""
    v = {**FARKLE_OPTIONS, **values}  # a file written before issue 24's options: their defaults
    fixed = v["extra_dice"] == "fixed"
    if not fixed and any(v["kind_values"]):
        raise ValueError('kind_values: only used with extra_dice = "fixed"; set it to [0, 0, 0]')
    if v["dice"] < 6:
        for key in ("straight", "three_pairs", "four_and_pair", "two_triples"):
            if v[key]:
                raise ValueError(f"{key}: needs six dice (dice = {v['dice']}); set it to 0")
    unit = v["unit"]
    for key in ("single", "triple", "kind_values", "straight", "three_pairs", "four_and_pair", "two_triples",
                "opening_minimum", "goal", "compensation", "bank_minimum", "no_score_bonus", "farkle_penalty",
                "lowest_score"):
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
        **{k: v.get(k, d) for k, d in FARKLE_OPTIONS.items()},
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
        if pf == 0.0 and not (rules.no_score_bonus and (n, t) == (rules.dice, 0)):
            what = f"{n} dice" + (f" with a standing triple of {t}s" if t else "")
            raise ValueError(f"single: every roll of {what} scores, so a turn would never have to end; "
                             "the solver needs a chance to farkle in every state")
    return rules


def words(rules: RuleSet) -> list[str]:
    """The rule set in words generated from its values, one sentence each: the scoring, then how the game ends
    and the Farkle family's options it uses (:func:`dicebase.rules.files.in_words` adds the description)."""
    return [scoring_text(rules), *options_text(rules)]


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
