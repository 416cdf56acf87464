"""The Farkle family's rule options (issue 24; guide: docs/farkle.md): how the game ends, compensation
points for the second seat, a minimum to bank on every turn, a bonus for a roll of every die that scores
nothing, and a penalty for consecutive farkles.  Every default is the behaviour before these options
existed, so a rule set without them is built and stored exactly as before.  No numpy here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dicebase.rules.ten_thousand import RuleSet

#: How the game ends when a player banks at or above the goal.
LAST_ROUND = ("others_one_turn_must_exceed", "first_to_goal_wins", "others_one_turn_ties_shared")
LAST_ROUND_TEXT = {
    "others_one_turn_must_exceed": "the other player has one more turn and must end it above the leader's score",
    "first_to_goal_wins": "the first player to bank at or above the goal wins at once (no last round)",
    "others_one_turn_ties_shared": "the other player has one more turn; the higher score wins, a tie is shared "
                                   "(half a win each)",
}
#: When the consecutive-farkle count goes back to 0 (it always does on a banked turn).
FARKLE_COUNT_RESET = ("after_penalty", "after_bank")
FARKLE_COUNT_RESET_TEXT = {
    "after_penalty": "the count starts again after each penalty and after a banked turn",
    "after_bank": "only a banked turn resets the count, so every farkle from then on costs the penalty again",
}
#: The options and their defaults (the behaviour before issue 24).
FARKLE_OPTIONS = {
    "compensation": 0,
    "bank_minimum": 0,
    "no_score_bonus": 0,
    "farkle_penalty": 0,
    "farkle_penalty_after": 3,
    "farkle_count_reset": "after_penalty",
    "lowest_score": 0,
}
#: Largest number of farkles in a row a penalty may wait for (the count is a state dimension).
MAX_PENALTY_AFTER = 5
#: Lowest ``lowest_score`` a rule set may ask for, points.
MIN_LOWEST_SCORE = -20_000


def check_farkle_options(r: RuleSet) -> None:
    """ValueError (one line, naming the rules-file key) for option values no solver can take."""
    if r.last_round not in LAST_ROUND:
        raise ValueError(f"last_round: unknown rule {r.last_round!r}; allowed: {', '.join(LAST_ROUND)}")
    if r.farkle_count_reset not in FARKLE_COUNT_RESET:
        raise ValueError(f"farkle_count_reset: unknown rule {r.farkle_count_reset!r}; allowed: "
                         f"{', '.join(FARKLE_COUNT_RESET)}")
    for key in ("compensation", "bank_minimum", "no_score_bonus", "farkle_penalty"):
        value = getattr(r, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key}: must be a whole number of points >= 0, got {value!r}")
    if not 1 <= r.farkle_penalty_after <= MAX_PENALTY_AFTER:
        raise ValueError(f"farkle_penalty_after: must be 1..{MAX_PENALTY_AFTER} farkles in a row, got "
                         f"{r.farkle_penalty_after!r}")
    if not MIN_LOWEST_SCORE <= r.lowest_score <= 0:
        raise ValueError(f"lowest_score: must be {MIN_LOWEST_SCORE}..0 points, got {r.lowest_score!r}")
    if r.compensation >= r.goal:
        raise ValueError(f"compensation: {r.compensation} would put the second player at the goal ({r.goal}); "
                         f"allowed: 0..{r.goal - r.unit}")
    if r.no_score_bonus and r.triple_stands and r.hot_dice and not r.hot_dice_clears_triple:
        raise ValueError("no_score_bonus: not supported together with a triple that stands past hot dice "
                         "(hot_dice_clears_triple = false)")
    if r.no_score_bonus and not r.hot_dice:
        raise ValueError("no_score_bonus: its free roll needs hot_dice = true")


def needs_penalty_state(r: RuleSet) -> bool:
    """Whether the consecutive-farkle count is part of the state."""
    return r.farkle_penalty > 0


def options_text(r: RuleSet) -> list[str]:
    """The rule set's game-end and issue-24 options in words, one sentence each (a preset's page)."""
    out = [f"Goal {r.goal:,}: {LAST_ROUND_TEXT[r.last_round]}."]
    if r.opening_minimum:
        out.append(f"A player still at 0 needs {r.opening_minimum:,} points in one turn to get on the board.")
    if r.bank_minimum:
        out.append(f"A turn may be banked only with at least {r.bank_minimum:,} points.")
    if r.no_score_bonus:
        out.append(f"A roll of all {r.dice} dice that scores nothing is worth {r.no_score_bonus:,} points and a "
                   "free roll of all the dice (instead of a farkle).")
    if r.farkle_penalty:
        out.append(f"The {_nth(r.farkle_penalty_after)} farkle in a row costs {r.farkle_penalty:,} points; "
                   f"{FARKLE_COUNT_RESET_TEXT[r.farkle_count_reset]}. Scores never go below "
                   f"{r.lowest_score:,} (the model's bound).")
    if r.compensation:
        out.append(f"The second player starts with {r.compensation:,} points.")
    return out


def scoring_text(r: RuleSet) -> str:
    """The scoring of ``r`` in words, generated from its values (issue 34: a description copied from a preset
    and left unedited said "three pairs 1500" of a rule set that scores them 750)."""
    faces = range(1, 7)
    singles = [f"single {f} = {r.single_values[f - 1]:,}" for f in faces if r.single_values[f - 1]]
    parts = [", ".join(singles) if singles else "no single die scores"]
    if r.dice >= 3:
        triples = r.triple_values
        if all(triples[f - 1] == 100 * f for f in range(2, 7)):
            parts.append(f"three of a kind = 100 x face{'' if triples[0] == 100 else f', three 1s = {triples[0]:,}'}")
        else:
            parts.append(", ".join(f"three {f}s = {t:,}" if t else f"three {f}s do not score"
                                   for f, t in zip(faces, triples)))
    if r.dice >= 4:
        more = ("four", "five", "six")[: r.dice - 3]
        if r.extra_dice == "add_triple":
            parts.append("each die over three adds the triple value again (" +
                         ", ".join(f"{w} of a kind {n}x" for w, n in zip(more, (2, 3, 4))) + ")")
        elif r.extra_dice == "double":
            parts.append("each die over three doubles the set (" +
                         ", ".join(f"{w} of a kind {n}x" for w, n in zip(more, (2, 4, 8))) + ")")
        elif not any(r.kind_values[: len(more)]):
            parts.append("four or more of a kind score as a triple plus singles")
        else:
            parts.append(", ".join(f"{w} of a kind {v:,}" if v else f"{w} of a kind scores as a triple plus singles"
                                   for w, v in zip(more, r.kind_values)))
    if r.dice == 6:
        parts.append(f"1-6 straight {r.straight:,}" if r.straight else "no straight")
        if r.three_pairs:
            parts.append(f"three pairs {r.three_pairs:,}" +
                         (" (four of a kind + a pair counts as three pairs)" if r.three_pairs_with_four else ""))
        else:
            parts.append("no three pairs")
        if r.four_and_pair:
            parts.append(f"four of a kind + a pair {r.four_and_pair:,}")
        parts.append(f"two triples {r.two_triples:,}" if r.two_triples else "two triples score as two triples")
    if r.triple_stands:
        parts.append("a triple kept earlier in the turn stands: every later die of its face adds the triple value "
                     "again" + ("" if r.hot_dice and not r.hot_dice_clears_triple else
                                " (hot dice clears it)" if r.hot_dice else ""))
    else:
        parts.append("each roll is scored on its own (no standing triple)")
    parts.append(f"hot dice: scoring with all {r.dice} dice gives them all back to roll" +
                 (", the standing triple too" if r.triple_stands and not r.hot_dice_clears_triple else "")
                 if r.hot_dice else "no hot dice: scoring with every die ends the turn, its total banked")
    unit = f"; every score is a multiple of {r.unit}" if r.unit != 50 else ""
    return f"{r.dice} dice: " + "; ".join(parts) + unit + "."


def _nth(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def two_player_refusal(r: RuleSet) -> str | None:
    """Why the two-player solver cannot solve ``r`` (one line), or None."""
    if r.no_score_bonus and r.last_round != "first_to_goal_wins":
        return ("the two-player solve models a no-score bonus only with last_round = \"first_to_goal_wins\" (a last "
                "round needs a bound on turn totals, and the class of all the dice never farkles)")
    if r.farkle_penalty and r.opening_minimum:
        return ("the two-player solve with a consecutive-farkle penalty does not model an opening minimum (a "
                "penalty can take a score below 0, where being on the board is not defined)")
    return None


def nplayer_refusal(r: RuleSet) -> str | None:
    """Why the N-player solver cannot solve ``r`` (one line), or None: it knows none of issue 24's options."""
    changed = sorted(r.farkle_options) + (["last_round"] if r.last_round != LAST_ROUND[0] else [])
    if changed:
        return f"the N-player solve does not support {', '.join(changed)}; solve it for two players"
    return None
