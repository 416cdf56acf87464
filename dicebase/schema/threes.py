"""Threes tables and views (see docs/threes.md for the guide).

Key vocabulary, shared by every table:

- ``variant``: rule variant (``threes_variants``), ``classic`` or ``reroll``.
- ``ties``: tie rule of the win objective: ``shared`` (every player tied for
  the lowest score wins) or ``strict`` (only a unique lowest score wins).
- ``players_after``: players still to play after the player to move, 0 for the
  last player.
- ``to_beat``: best final score of the players who already finished, in
  points; ``threes_variants.no_target`` (max_score + 1, 31 for five six-sided
  dice) means nobody has finished yet.
- ``dice_left``: dice about to be rolled (0 = the turn is over).
- ``must_keep_two``: the previous roll was a re-roll (kept no die), so this
  roll must keep at least ``keep_after_reroll`` dice (re-roll variant only).
- ``score``: points of the dice kept so far (a 3 is worth 0).
- ``roll_id``: a roll of ``dice_left`` dice, see ``threes_rolls``.
- ``keep``: how many dice to keep from a roll; the kept dice are always the
  lowest-worth ones, i.e. the first ``keep`` faces of ``threes_rolls.roll``.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Double, Integer, SmallInteger, String, cast, func, select

from dicebase.schema.base import View, table

GAME = "threes"


def _key(name, type_, comment):
    return Column(name, type_, primary_key=True, comment=comment)


def _val(name, type_, comment):
    return Column(name, type_, nullable=False, comment=comment)


VARIANT = "rule variant, see threes_variants (classic or reroll)"
TIES = "tie rule: 'shared' (all players tied for the lowest score win) or 'strict' (only a unique lowest score wins)"
PLAYERS_AFTER = "players still to play after the player to move (0 = last player)"
TO_BEAT = (
    "best final score of the players who already finished, points; "
    "threes_variants.no_target (31 with 5 six-sided dice) = nobody has finished yet"
)
DICE_LEFT = "dice about to be rolled (0 = turn over)"
MUST_KEEP_TWO = "true after a re-roll: this roll must keep at least keep_after_reroll dice (reroll variant only)"
SCORE = "points of the dice kept so far (a 3 is worth 0)"
ROLL_ID = "roll of dice_left dice, see threes_rolls (variant, dice, roll_id)"
KEEP = "dice to keep: the lowest-worth ones, i.e. the first `keep` faces of threes_rolls.roll (0 = re-roll all)"

threes_variants = table(
    "threes_variants",
    GAME,
    "Threes rule variants: one row per variant with every rule parameter.",
    _key("variant", String, "variant name"),
    _val("dice", SmallInteger, "dice rolled at the start of a turn"),
    _val("faces", SmallInteger, "faces per die, numbered 1..faces"),
    _val("worths", String, "points of faces 1..faces, comma-separated (3 is worth 0: '1,2,0,4,5,6')"),
    _val("min_keep", SmallInteger, "fewest dice that must be kept after an ordinary roll"),
    _val("allow_reroll", Boolean, "true when a roll may keep no die (not with one die left, not twice in a row)"),
    _val("keep_after_reroll", SmallInteger, "dice that must be kept on the roll after a re-roll"),
    _val("max_score", SmallInteger, "highest possible final score, points"),
    _val("no_target", SmallInteger, "to_beat value meaning nobody has finished yet (max_score + 1)"),
    _val("description", String, "the rules in words and the seed they come from"),
)

threes_rolls = table(
    "threes_rolls",
    GAME,
    "Every roll of 1..dice dice as a multiset, with its faces in keep order and exact probability.",
    _key("variant", String, VARIANT),
    _key("dice", SmallInteger, "number of dice rolled"),
    _key("roll_id", SmallInteger, "roll number: lexicographic order of the ascending faces"),
    _val("roll", String, "faces in keep order, lowest worth first, space-separated; a 3 is written 3 ('3 3 1 2 4')"),
    _val("ways", Integer, "ordered outcomes (of faces^dice) giving this multiset"),
    _val("probability", Double, "probability of the roll, 0-1 (ways / faces^dice)"),
)

threes_expected_scores = table(
    "threes_expected_scores",
    GAME,
    "Objective (a), minimise the expected final score: expected points still to come per pre-roll state.",
    _key("variant", String, VARIANT),
    _key("dice_left", SmallInteger, DICE_LEFT),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _val(
        "expected_score",
        Double,
        "expected points the dice still to roll will add under optimal play (add the score so far for the final score)",
    ),
)

threes_expected_policy = table(
    "threes_expected_policy",
    GAME,
    "Objective (a): the optimal keep for every roll (ties broken by keeping the fewest dice).",
    _key("variant", String, VARIANT),
    _key("dice_left", SmallInteger, "dice just rolled"),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _key("roll_id", SmallInteger, ROLL_ID),
    _val("keep", SmallInteger, KEEP),
    _val(
        "expected_score",
        Double,
        "expected points added from this roll on (kept dice plus the rest) under optimal play",
    ),
)

threes_expected_dist = table(
    "threes_expected_dist",
    GAME,
    "Objective (a): distribution of the final score of a fresh turn played to minimise the expected score.",
    _key("variant", String, VARIANT),
    _key("final_score", SmallInteger, "final score, points"),
    _val("probability", Double, "probability of that final score, 0-1"),
)

threes_win = table(
    "threes_win",
    GAME,
    "Objectives (b)+(c), win probability with subgame-perfect play: p_win for every pre-roll state "
    "(dice_left = 0 rows hold the value of finishing on `score`).",
    _key("variant", String, VARIANT),
    _key("ties", String, TIES),
    _key("players_after", SmallInteger, PLAYERS_AFTER),
    _key("to_beat", SmallInteger, TO_BEAT),
    _key("dice_left", SmallInteger, DICE_LEFT),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _key("score", SmallInteger, SCORE),
    _val("p_win", Double, "probability the player to move wins the round under optimal play by everyone, 0-1"),
)

threes_win_policy = table(
    "threes_win_policy",
    GAME,
    "Objectives (b)+(c): the optimal keep for every decision state, packed one row per pre-roll state "
    "(ties broken by keeping the fewest dice). Read it unpacked, one row per roll, from the view "
    "threes_win_decisions.",
    _key("variant", String, VARIANT),
    _key("ties", String, TIES),
    _key("players_after", SmallInteger, PLAYERS_AFTER),
    _key("to_beat", SmallInteger, TO_BEAT),
    _key("dice_left", SmallInteger, "dice about to be rolled, 1..dice"),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _key("score", SmallInteger, SCORE),
    _val(
        "keeps",
        String,
        "optimal keep for every roll: character roll_id + 1 is the number of dice to keep (a decimal digit) "
        "after roll roll_id of threes_rolls (variant, dice = dice_left); "
        "e.g. CAST(substr(keeps, roll_id + 1, 1) AS INTEGER)",
    ),
)

threes_win_dist = table(
    "threes_win_dist",
    GAME,
    "Objectives (b)+(c): distribution of the final score of a fresh turn played by the optimal policy "
    "for (ties, players_after, to_beat).",
    _key("variant", String, VARIANT),
    _key("ties", String, TIES),
    _key("players_after", SmallInteger, PLAYERS_AFTER),
    _key("to_beat", SmallInteger, TO_BEAT),
    _key("final_score", SmallInteger, "final score, points"),
    _val("probability", Double, "probability of that final score, 0-1"),
)

threes_seats = table(
    "threes_seats",
    GAME,
    "Objective (d): win probability of every seat of an N-player round, all players optimal. "
    "Under 'shared' ties co-winners all count, so a round's seats sum to more than 1; under 'strict' "
    "a round with a tie for the lowest score has no winner, so they sum to less than 1.",
    _key("variant", String, VARIANT),
    _key("ties", String, TIES),
    _key("players", SmallInteger, "players in the round, N"),
    _key("seat", SmallInteger, "seat in turn order, 1 = plays first"),
    _val("p_win", Double, "probability this seat wins (or, under 'shared', shares the win), 0-1"),
)


# ------------------------------------------------------------------------- views
_w = threes_win.c
_v = threes_variants.c
threes_chances = View(
    "threes_chances",
    GAME,
    "Objective (b): the last player's chance to win facing a target with a fresh turn of dice_left dice "
    "(score 0). Under 'strict' ties this is the chance to finish strictly below the target.",
    select(_w.variant, _w.ties, _w.dice_left, _w.must_keep_two, _w.to_beat.label("target"), _w.p_win)
    .select_from(threes_win.join(threes_variants, _w.variant == _v.variant))
    .where(_w.players_after == 0, _w.score == 0, _w.dice_left > 0, _w.to_beat < _v.no_target),
    column_comments={
        "target": "best final score so far that the last player must beat (or tie, under 'shared'), points",
        "p_win": "probability the last player wins, 0-1",
    },
)

_s = threes_seats.c
threes_seat_totals = View(
    "threes_seat_totals",
    GAME,
    "Objective (d): sum of the seats' win probabilities per round size: above 1 under 'shared' "
    "(co-winners), below 1 under 'strict' (no winner on a tie).",
    select(_s.variant, _s.ties, _s.players, func.sum(_s.p_win).label("total_p_win"), func.min(_s.p_win).label(
        "worst_seat_p_win"), func.max(_s.p_win).label("best_seat_p_win"))
    .group_by(_s.variant, _s.ties, _s.players),
    column_comments={
        "total_p_win": "sum over seats of p_win: expected number of winners per round",
        "worst_seat_p_win": "lowest seat win probability, 0-1",
        "best_seat_p_win": "highest seat win probability, 0-1",
    },
)

_p = threes_win_policy.c
_r = threes_rolls.c
threes_win_decisions = View(
    "threes_win_decisions",
    GAME,
    "threes_win_policy unpacked: one row per decision state (pre-roll state and roll) with the roll "
    "spelled out and the optimal number of dice to keep.",
    select(
        _p.variant, _p.ties, _p.players_after, _p.to_beat, _p.dice_left, _p.must_keep_two, _p.score,
        _r.roll_id, _r.roll, cast(func.substr(_p.keeps, _r.roll_id + 1, 1), Integer).label("keep"),
    ).select_from(
        threes_win_policy.join(threes_rolls, (_p.variant == _r.variant) & (_p.dice_left == _r.dice))
    ),
    column_comments={"keep": KEEP},
)

_e = threes_expected_policy.c
threes_expected_decisions = View(
    "threes_expected_decisions",
    GAME,
    "threes_expected_policy with each roll spelled out: what to keep to minimise the expected final score.",
    select(_e.variant, _e.dice_left, _e.must_keep_two, _r.roll, _e.keep, _e.expected_score).select_from(
        threes_expected_policy.join(
            threes_rolls, (_e.variant == _r.variant) & (_e.dice_left == _r.dice) & (_e.roll_id == _r.roll_id)
        )
    ),
)

VIEWS = [threes_chances, threes_seat_totals, threes_win_decisions, threes_expected_decisions]

__all__ = [
    "threes_variants",
    "threes_rolls",
    "threes_expected_scores",
    "threes_expected_policy",
    "threes_expected_dist",
    "threes_win",
    "threes_win_policy",
    "threes_win_dist",
    "threes_seats",
    "threes_many_dice",
    "threes_many_dice_keeps",
    "threes_many_dice_chances",
    "VIEWS",
]


# ------------------------------------------------------------------- many dice (issue 13)
threes_many_dice = table(
    "threes_many_dice",
    GAME,
    "Objective (a) with many dice: the minimum expected final score of a turn of 1..many_dice dice "
    "(seed 000's open question), exact up to floating point, computed without enumerating rolls.",
    _key("variant", String, VARIANT),
    _key("dice", SmallInteger, "dice about to be rolled (nothing kept yet, or the score so far is added)"),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _val("expected_score", Double, "expected points these dice will add under optimal play, points"),
)

threes_many_dice_keeps = table(
    "threes_many_dice_keeps",
    GAME,
    "Objective (a) with many dice, the optimal keep as a rule: keep every 3 and the `forced` lowest other "
    "dice; a roll whose other dice are listed here (every roll with at most max(others) of them, 7 for six "
    "faces) keeps `keep` of them, any other roll only the forced ones; in the reroll variant, re-roll all "
    "instead when `value` exceeds threes_many_dice.expected_score (same dice, must_keep_two = true) by more "
    "than 1e-12 relative.",
    _key("variant", String, VARIANT),
    _key("forced", SmallInteger, "other dice the rules force you to keep: 1 when the roll has no 3 (2 after a "
         "re-roll), 1 after a re-roll with one 3, else 0"),
    _key("others", SmallInteger, "dice in the roll that are not 3s"),
    _key("roll", String, "the dice that are not 3s, in keep order (lowest worth first), space-separated"),
    _val("keep", SmallInteger, "how many of those dice to keep after the 3s, the lowest ones (>= forced)"),
    _val("value", Double, "points of the kept other dice plus the expected points of the dice left, points"),
)

threes_many_dice_chances = table(
    "threes_many_dice_chances",
    GAME,
    "Objective (b) with many dice: the last player's chance to finish at or below a target with a fresh "
    "turn of 1..many_dice_chances dice, playing to maximise it (exact up to floating point). Under "
    "'strict' ties the chance to beat target t is the row for target t - 1.",
    _key("variant", String, VARIANT),
    _key("dice", SmallInteger, "dice about to be rolled, nothing kept yet"),
    _key("must_keep_two", Boolean, MUST_KEEP_TWO),
    _key("target", SmallInteger, "highest final score that still wins (the best score so far, shared ties), points"),
    _val("p_win", Double, "probability of finishing at or below target under the play that maximises it, 0-1"),
)
