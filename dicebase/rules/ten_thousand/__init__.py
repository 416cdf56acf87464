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

This module is the game's rules as the other layers see them: it re-exports the rule set and the ranges
of its numbers (``ruleset.py``), legality and scoring (``scoring.py``), issue 24's options (``farkle.py``)
and the rules files (``house.py``), and holds the presets, the build options and their checks.
"""

from __future__ import annotations

import reprlib

from dicebase.errors import SizeLimit
from dicebase.rules import files
from dicebase.rules.files import house_rules
from dicebase.rules.ten_thousand.farkle import (  # noqa: F401  (issue 24's options, one import away)
    FARKLE_COUNT_RESET, FARKLE_OPTIONS, LAST_ROUND, check_farkle_options, needs_penalty_state, nplayer_refusal,
    options_text, scoring_text, two_player_refusal,
)
from dicebase.rules.ten_thousand.house import (  # noqa: F401  (the rules files' names, one import away)
    FILE_DEFAULTS, FILE_KEYS, add_house, from_file, from_record, to_file, words,
)
from dicebase.rules.ten_thousand.ruleset import (  # noqa: F401  (the rule set and its ranges, one import away)
    MAX_GOAL, MAX_POINTS, POINT_FIELDS, RuleSet, check_ranges,
)
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

# ---------------------------------------------------------------- issue 24: presets with published results
ZILCH_PLAYR = RuleSet(
    name="zilch-playr",
    description=(
        "Zilch as played at playr.co.uk and analysed by Matt Busche: the zilch scoring (single 1 = 100, single 5 "
        "= 50, three 1s = 1000, three of a kind = 100 x face, every die over three doubles the set, 1-6 straight "
        "1500, three pairs 1500, also four of a kind + pair), 300 points needed to bank, six dice that score nothing 500 points and a free "
        "roll, the third zilch in a row costs 500 points"
    ),
    source=(
        "Matt Busche, 'Maximizing Expected Scores in the Game of Zilch' (2010, "
        "https://www.mattbusche.org/blog/article/zilch/); rules: playr.co.uk, 'Rules of Zilch' "
        "(http://zilch.playr.co.uk/rules.php); readings in docs/farkle.md"
    ),
    extra_dice="double",
    triple_stands=False,
    straight=1500,
    three_pairs=1500,
    three_pairs_with_four=True,
    bank_minimum=300,
    no_score_bonus=500,
    farkle_penalty=500,
    farkle_penalty_after=3,
    lowest_score=-2500,
)

MINIMAL_FARKLE = RuleSet(
    name="minimal-farkle",
    description=(
        "Minimal Farkle of Busche and Neller: single 1 = 100, single 5 = 50, three 1s = 1000, three of a kind = "
        "100 x face and nothing else (four or more of a kind score as a triple plus singles, two triples as two "
        "triples; no straight, no three pairs); hot dice; the first player to bank 10,000 or more wins"
    ),
    source=(
        "Matthew Busche and Todd W. Neller, 'Optimal Play of the Farkle Dice Game', Advances in Computer Games "
        "(ACG 2017), LNCS 10664; readings in docs/farkle.md"
    ),
    extra_dice="fixed",
    kind_values=(0, 0, 0),
    triple_stands=False,
    straight=None,
    three_pairs=None,
    last_round="first_to_goal_wins",
)

FACEBOOK_FARKLE = RuleSet(
    name="facebook-farkle",
    description=(
        "Facebook Farkle as read from Matt Busche's analysis (readings in docs/farkle.md): single 1 = 100, "
        "single 5 = 50, three 1s = 1000, three of a kind = 100 x face, each die over three adds the triple again, "
        "1-6 straight 1500, three pairs 750 (not four of a kind + pair), 300 points needed to bank, the third "
        "farkle in a row costs 500 points, banked scores bounded below at -2500 (the model's bound), the first "
        "player to bank 10,000 or more wins"
    ),
    source=(
        "Matt Busche, 'Maximizing Win Probability in the Game of Farkle' (2016, "
        "https://www.mattbusche.org/blog/article/optimal_farkle/); scoring: Busche's Farkle scoring page "
        "(http://www.mattbusche.org/projects/farkle/scoring.php); 300 to bank and 500 for three farkles: "
        "Facebook's Farkle as described by judebert.com (2009); readings in docs/farkle.md"
    ),
    extra_dice="add_triple",
    triple_stands=False,
    straight=1500,
    three_pairs=750,
    three_pairs_with_four=False,  # the reading that gives Busche's 53.487 % (docs/farkle.md)
    bank_minimum=300,
    last_round="first_to_goal_wins",
    farkle_penalty=500,
    farkle_penalty_after=3,
    lowest_score=-2500,
)

PRESETS: dict[str, RuleSet] = {r.name: r for r in (TEN_THOUSAND, FARKLE, FARKLE_ADDITIVE, ZILCH, ZILCH_PLAYR,
                                                   MINIMAL_FARKLE, FACEBOOK_FARKLE)}


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
    # numbers of players (each in PLAYER_COUNTS) whose N-player tables (ten_thousand_turn_starts ...) are built for every
    # two-player rule set at its goal; not in the default build (docs/n_players.md): -o ten-thousand.players=3
    "players": [],
}
TEST_OPTIONS = {"goal": 1000}


def _house(options: dict) -> dict[str, RuleSet]:
    return {name: rules for name, _, rules in house_rules(options, GAME, from_file, FILE_KEYS, FILE_DEFAULTS)}


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
    for rs in duel:  # issue 24: options the two-player (and N-player) solvers do not model
        why = two_player_refusal(rs) or (player_counts(options) and nplayer_refusal(rs))
        if why:
            raise ValueError(f"ten-thousand {rs.name}: {why}")
    check_players(options, duel, goal)
    for rs in duel:  # issue 24: the two-player game with a penalty solves every (scores, counts, turn total, class)
        states = penalty_states(rs, duel_goal(rs, goal))
        if states > MAX_PENALTY_STATES:
            raise SizeLimit(f"ten-thousand {rs.name}: the two-player solve with the farkle penalty to "
                            f"{duel_goal(rs, goal):,} has {states:,} states (each solved about 15 times), more "
                            f"than the {MAX_PENALTY_STATES:,} a build may solve; lower the goal or raise lowest_score")
    for rs in rule_sets:
        cells, what = size_estimate(rs, duel_goal(rs, goal) if rs in duel else None)
        limit = MAX_DUEL_CELLS if rs in duel else MAX_TURN_CELLS
        if cells > limit:
            size = f"{cells * 20 / 1e9:,.1f} GB" if cells * 20 >= 1e9 else f"{cells * 20 / 1e6:,.0f} MB"
            bank = " or bank_minimum" if rs.bank_minimum > bank_bound_points(rs) else ""
            raise SizeLimit(f"ten-thousand {rs.name}: the solve needs {what} = {cells:,} cells "
                            f"(about {size}), over the limit of {limit:,}; "
                            f"use a larger unit or a smaller goal{bank}")


def duel_goal(rules: RuleSet, options_goal: int) -> int:
    """The two-player goal a rule set is solved to: a preset's is the build option, a house rule set's its own."""
    return options_goal if PRESETS.get(rules.name) == rules else rules.goal


#: default (goal 10,000, unit 50, 24 classes) needs 5.8 million.
MAX_DUEL_CELLS = 20_000_000
#: Largest solitaire table ``bank bound / unit x classes`` without --force-size.
MAX_TURN_CELLS = 2_000_000


#: Most states a two-player solve with a consecutive-farkle penalty may have without --force-size (issue 24):
#: Facebook Farkle to 5,000 (91.9 million) passes, to 10,000 (423,765,000, Busche's count) does not.
MAX_PENALTY_STATES = 100_000_000


def penalty_states(rules: RuleSet, goal: int) -> int:
    """States of the two-player solve with a penalty (0 without one): scores in [lowest_score, goal) both, both
    farkle counts, turn totals 0..max(G - i - 1, bm - 1), every class (builder.ten_thousand.twoplayer's
    penalty_state_count under first_to_goal_wins; a lower estimate with a last round)."""
    if not rules.farkle_penalty:
        return 0
    G, L, u = goal // rules.unit, rules.lowest_score // rules.unit, rules.unit
    bm = max(1, -(-rules.bank_minimum // u))
    totals = sum(max(G - i - 1, bm - 1) + 1 for i in range(L, G))
    return totals * (G - L) * rules.farkle_penalty_after ** 2 * len(turn_states(rules))


def size_estimate(rules: RuleSet, goal: int | None) -> tuple[int, str]:
    """(cells, description) of the largest array a build of ``rules`` needs (goal None: no two-player game)."""
    S = len(turn_states(rules))
    # the solver banks from the proven bound on, and never below the bank minimum (issue 34: a bank minimum
    # of 1e12 points passed the estimate and asked numpy for 3.49 TiB)
    K = max(bank_bound_points(rules) / rules.unit, -(-rules.bank_minimum // rules.unit))
    cells, what = int(min(K, 1e15) + 1) * S, f"a solitaire table of {int(min(K, 1e15)) + 1:,} turn totals x {S} classes"
    if goal is not None:
        G = goal // rules.unit
        duel = G * (2 * G + 801) * S
        if duel > cells:
            cells, what = duel, f"a two-player array of {G:,} scores x {2 * G + 801:,} turn totals x {S} classes"
    return cells, what


# ---------------------------------------------------------------- more than two players (issue 21)
#: Most seats a build may store (``ten_thousand_turn_starts`` has a score and a win column per seat).
MAX_PLAYERS = 4
#: Player counts a build may solve (``-o ten-thousand.players=[3,4]``).
PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
#: N players: the mover rolls only when rolling beats banking by more than this (its own win
#: probability), and among the keeps of a roll takes the first in :func:`keep_priority` order whose value
#: is within it of the best.  With three or more players a tie for the mover changes the others'
#: chances, so it is broken the same way everywhere (docs/n_players.md).
TIE_TOLERANCE = 1e-12
#: The keep tie-break in words (:func:`keep_priority`).
KEEP_PRIORITY_TEXT = ("among keeps within the tie tolerance of the best: more points, then a keep that leaves no "
                      "standing triple, then fewer dice to roll, then the lower triple face")
NPLAYER_RULES_TEXT = (
    "10,000 ({rules}) for {players} players to {goal} points (issue 21; with 2 players the two-player game): seats "
    "1..{players} play in order, a round is one turn each; banking at turn total 0 is not allowed (nor below the "
    "opening minimum of {opening} while a seat is at 0). When a seat banks at or above {goal}, every other seat, in "
    "seat order from the next one round to the one before it, takes one final turn, on which it may bank only when "
    "its score plus turn total exceeds the highest score at that moment. The highest score wins. Each seat maximises "
    "its own win probability; ties for the mover (within {tie}) bank before rolling, and " + KEEP_PRIORITY_TEXT + "."
)
#: Largest N-player solve ``goal_units^N * N`` turn starts a build may make without --force-size: 3 players to
#: 2,000 points (192,000, about 6 CPU-minutes on the 2-core development machine) pass, to 3,000 (648,000,
#: about 20) do not (docs/n_players.md, "Cost").
MAX_NPLAYER_TURN_STARTS = 200_000
#: Turn starts per CPU-second measured at goal 1,000 with 3 players (stored, every rotation): the size message.
NPLAYER_STARTS_PER_CPU_SECOND = 600


def keep_priority(rules: RuleSet, pts: int, state: int) -> tuple:
    """The keep tie-break key of a keep worth ``pts`` (units) leading to class ``state`` (an index into
    :func:`turn_states`), smaller first: more points, then no standing triple after it, then fewer
    dice to roll, then the lower triple face (:data:`KEEP_PRIORITY_TEXT`)."""
    n_after, t_after = turn_states(rules)[state]
    return (-pts, t_after != 0, n_after, t_after)


def player_counts(options: dict) -> tuple[int, ...]:
    """The ``players`` build option as a sorted tuple (ValueError, one line, if bad): a list of distinct
    whole numbers in :data:`PLAYER_COUNTS` (empty: no N-player tables), or one such number."""
    return files.player_counts(options.get("players", DEFAULT_OPTIONS["players"]), "ten-thousand.players", PLAYER_COUNTS,
                               "[3,4]", reprlib.repr)


def nplayer_turn_starts(rules: RuleSet, goal: int, players: int) -> int:
    """Turn starts ``(goal / unit)^players * players`` of an N-player solve."""
    return (goal // rules.unit) ** players * players


def check_players(options: dict, duel: list[RuleSet], goal: int) -> None:
    """The ``players`` option against the two-player rule sets it extends: ValueError (one line) when a
    goal is below a rule set's opening minimum (the solver needs ``goal >= opening_minimum``, so that the
    opening rule never applies on a final turn), :class:`SizeLimit` beyond :data:`MAX_NPLAYER_TURN_STARTS`."""
    players = player_counts(options)
    if not players:
        return
    if not duel:
        raise ValueError("ten-thousand.players needs a two-player rule set (ten-thousand.duel_rules is empty)")
    for rs in duel:
        g = duel_goal(rs, goal)
        if g < rs.opening_minimum:
            raise ValueError(f"ten-thousand.players: rule set {rs.name} has goal {g} below its opening minimum "
                             f"{rs.opening_minimum}; an N-player goal must be at least the opening minimum")
    for rs in duel:  # after every check above: --force-size skips the rest of a SizeLimit's checks
        g = duel_goal(rs, goal)
        for n in players:
            starts = nplayer_turn_starts(rs, g, n)
            if starts > MAX_NPLAYER_TURN_STARTS:
                minutes = starts / NPLAYER_STARTS_PER_CPU_SECOND / 60
                raise SizeLimit(f"ten-thousand {rs.name}: {n} players to {g} points need {starts:,} turn starts "
                                f"(about {minutes:,.0f} CPU-minutes), more than the {MAX_NPLAYER_TURN_STARTS:,} a "
                                f"build may solve; lower ten-thousand.goal or leave {n} out of ten-thousand.players")
