"""10,000 (Farkle family) tables and views (guide: docs/ten_thousand.md).

Key vocabulary, shared by every table:

- ``rules``: rule set (preset) name, ``ten-thousand`` (seed 004) or ``farkle``; every
  parameter is in ``build_variants`` (game ``ten_thousand``).
- ``dice``: dice about to be rolled (1-6); ``triple``: face of the standing three of a
  kind whose face scores again on later rolls (0 = none; only with 3 or fewer dice unless
  the rule set keeps it past hot dice).  ``dice_after`` 0: no hot dice, the turn ends.
- ``roll`` / ``keep``: dice as ascending faces without separators ('112556').
- points are plain points (multiples of 50); ``turn_total`` is the unbanked total.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Column, Double, Integer, SmallInteger, String, case, func, literal, select

from dicebase.schema.base import View, seat_views, table

GAME = "ten_thousand"

RULES = "rule set name (ten-thousand = seed 004, farkle); parameters in build_variants"
DICE = "dice about to be rolled, 1-6"
TRIPLE = "face of the standing three of a kind (its face scores the triple value again), 0 = none"
ROLL = "the roll as ascending faces, e.g. '112556'"
GOAL = "goal of the game, points"


def _key(name, type_, comment):
    return Column(name, type_, primary_key=True, comment=comment)


def _val(name, type_, comment, nullable=False):
    return Column(name, type_, nullable=nullable, comment=comment)


ten_thousand_odds = table(
    "ten_thousand_odds",
    GAME,
    "Objective (a), seed 004's tables: for each rule set, dice count and standing triple, every "
    "combination class of a roll with its outcomes, probability and mean points.",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("combination", String, "combination class (seed 004's names, rarest first; 'Farkle' = nothing scores; 'No-score bonus' = all the "
         "dice score nothing under a no-score bonus, worth its points and a free roll)"),
    _val("position", SmallInteger, "display order within (rules, dice, triple), rarest first"),
    _val("outcomes", Integer, "ordered outcomes of the 6^dice in this class (seed 004's '# Successes')"),
    _val("probability", Double, "probability of the class, 0-1 (outcomes / 6^dice)"),
    _val("mean_points", Double, "mean points of the best keep (every scoring die kept), points"),
    _val(
        "mean_combination_points",
        Double,
        "mean points of only the dice that form the named combination (loose 1s/5s left out), points; "
        "seed 004's 'Add to 3-of-a-kind' EV is this (triple value x 108/91 with 3 dice)",
    ),
)

ten_thousand_rolls = table(
    "ten_thousand_rolls",
    GAME,
    "Objective (b): every roll outcome as a multiset for each (dice, standing triple), with its "
    "probability, combination class and best points.",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("roll", String, ROLL),
    _val("ways", Integer, "ordered outcomes (of 6^dice) giving this multiset"),
    _val("probability", Double, "probability of the roll, 0-1"),
    _val("combination", String, "combination class, as in ten_thousand_odds"),
    _val("best_points", Integer, "points of the best keep (0 = farkle), points"),
    _val("farkle", Boolean, "true when no die scores: the turn total is lost"),
)

ten_thousand_keeps = table(
    "ten_thousand_keeps",
    GAME,
    "Objective (b): every legal keep of every roll (every kept die scores), with its points and "
    "the turn state it leads to; dominated keeps marked.",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("roll", String, ROLL),
    _key("keep", String, "the kept dice as ascending faces, e.g. '1155'"),
    _val("points", Integer, "points the keep scores (best split into combinations), points"),
    _val("dice_used", SmallInteger, "dice kept"),
    _val("dice_after", SmallInteger, "dice to roll next: dice - dice_used, or 6 after hot dice (0 = the "
         "rule set has no hot dice: the turn ends, its total is banked)"),
    _val("triple_after", SmallInteger, "standing triple face afterwards (0 = none; hot dice clears it unless "
         "the rule set keeps it)"),
    _val("hot_dice", Boolean, "true when every die has scored and the rule set has hot dice: all six are "
         "rolled again"),
    _val(
        "dominated",
        Boolean,
        "true when another keep of the roll reaches the same (dice_after, triple_after) with at least "
        "as many points (more, or equal and ranked first); the solitaire solver and the last-turn table "
        "skip them (their values never fall with the turn total), the two-player solver does not (banking "
        "at the goal hands the opponent a last turn, so fewer points can be better)",
    ),
    _val("max_dice", Boolean, "true for the keep seed 004's heuristic takes: most dice, then most points"),
)

ten_thousand_classes = table(
    "ten_thousand_classes",
    GAME,
    "Every pre-roll class (dice left, standing triple) of a rule set: its farkle chance and the "
    "smallest turn total with which a turn can reach it (states below it are unreachable).",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("p_farkle", Double, "probability that a roll of these dice scores nothing, 0-1"),
    _val(
        "min_turn_total",
        Integer,
        "smallest positive turn total with which a turn reaches this class (shortest path over every legal "
        "keep from the turn start: 250 for one die, 1000 + 2 x 50 for one die with a standing triple of 1s, "
        "300 for six dice after hot dice), points",
        nullable=True,
    ),
)

ten_thousand_solitaire = table(
    "ten_thousand_solitaire",
    GAME,
    "Objective (c): the solitaire turn maximising expected banked points: value and roll/bank of "
    "every pre-roll state up to the proved bank bound (banking is optimal at every larger total).",
    _key("rules", String, RULES),
    _key("turn_total", Integer, "unbanked points of this turn, points"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("value", Double, "expected banked points of the turn from here under optimal play, points"),
    _val("roll_value", Double, "expected banked points if rolling now (then playing optimally), points"),
    _val("action", String, "'roll' or 'bank' (a turn total of 0 must roll; ties bank)"),
)

ten_thousand_solitaire_keep = table(
    "ten_thousand_solitaire_keep",
    GAME,
    "Objective (c): for every solitaire pre-roll state and every scoring roll, the best keep.",
    _key("rules", String, RULES),
    _key("turn_total", Integer, "unbanked points before the roll, points"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("roll", String, ROLL),
    _val("keep", String, "best keep (ties: most points, then most dice)"),
    _val("value", Double, "expected banked points after taking it and playing optimally, points"),
)

ten_thousand_duel = table(
    "ten_thousand_duel",
    GAME,
    "Objective (d): two players, first to the goal with a last turn for the other, maximising the "
    "win probability. One row per pre-roll state where ROLLING is optimal (every turn start "
    "included); any other state with score, opponent < goal banks, and its value is "
    "1 - p_win(opponent, score + turn_total, 0, 6, 0) below the goal or "
    "1 - ten_thousand_exceed.p_exceed(need = score + turn_total - opponent + 50, 6, 0) at or above it "
    "(see docs/ten_thousand.md). A rule set without hot dice also has rows with dice = 0: every die has "
    "scored while the player is at 0 below the opening minimum, so the turn is lost (p_win = "
    "1 - p_win(opponent, score, 0, 6, 0)).",
    _key("rules", String, RULES),
    _key("goal", Integer, GOAL),
    _key("score", Integer, "banked points of the player to move, points (< goal)"),
    _key("opponent", Integer, "banked points of the opponent, points (< goal)"),
    _key("turn_total", Integer, "unbanked points of this turn, points (0 = turn start, six dice)"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("p_win", Double, "probability that the player to move wins under optimal play by both, 0-1"),
    key_index=False,  # 30 million rows at goal 10,000: DuckDB serves lookups from zone maps
)

ten_thousand_exceed = table(
    "ten_thousand_exceed",
    GAME,
    "Objective (d), the last turn (the opponent has reached the goal; last-turn flag set): the chance "
    "to still gain at least `need` points this turn from a pre-roll state, rolling until it is reached. "
    "A last-turn state (score, opponent, turn_total, dice, triple) wins with "
    "p_exceed(opponent - score - turn_total + 50, dice, triple) (1 when that need is <= 0: bank).",
    _key("rules", String, RULES),
    _key("policy", String, "'optimal' (best keep) or 'seed004' (seed 004's keep: most dice)"),
    _key("need", Integer, "points still needed, points (> 0)"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("p_exceed", Double, "probability of gaining at least `need` more points this turn, 0-1"),
)

ten_thousand_last_turn = table(
    "ten_thousand_last_turn",
    GAME,
    "Objective (d), the last turn when ties are shared (issue 24; only rule sets with last_round = "
    "'others_one_turn_ties_shared'): the last-turn player's value (a win 1, a tie 1/2) from a pre-roll state that "
    "must still gain `need` points to pass the leader (need - 50 ties), playing optimally for that value. It holds "
    "where the deficit at the turn's start (opponent - score) is at least the bank minimum (a tie can be banked); "
    "below it the turn must reach the bank minimum, which passes the leader, and ten_thousand_exceed gives the "
    "chance (need = bank_minimum - turn_total). A last-turn state (score, opponent, turn_total, dice, triple) is "
    "worth p_win(opponent - score - turn_total + 50, dice, triple), 1 when that need is <= 0 (bank and win); at "
    "need = 50 (tied) p_win = max(1/2, 1 - p_farkle): bank the tie unless rolling wins more often.",
    _key("rules", String, RULES),
    _key("need", Integer, "points still needed to pass the leader, points (> 0; need - 50 ties)"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("p_win", Double, "the last-turn player's win probability, a shared tie counted as 1/2, under optimal play, "
         "0-1"),
)

ten_thousand_penalty_start = table(
    "ten_thousand_penalty_start",
    GAME,
    "Objective (d) with a consecutive-farkle penalty (issue 24; only two-player rule sets with farkle_penalty > 0): "
    "the turn-start win probability of the player to move per score pair and both players' farkle counts, as "
    "twoplayer.solve_penalty solved it (docs/farkle.md, 'The two-player game with a penalty'). Scores run from the "
    "rule set's lowest_score (the model's bound) to goal - 50. A state inside a turn follows from these by one turn's "
    "recursion: a bank of T moves to the opponent's turn start (opponent, score + T, opponent_count, 0) or wins at "
    "the goal; a farkle to (opponent, score, opponent_count, count + 1), or on the farkle_penalty_after-th in a row "
    "to (opponent, max(score - penalty, lowest_score), opponent_count, 0 or farkle_penalty_after - 1).",
    _key("rules", String, RULES),
    _key("goal", Integer, GOAL),
    _key("score", Integer, "banked points of the player to move, points (lowest_score .. goal - 50; may be < 0)"),
    _key("opponent", Integer, "banked points of the opponent, points (lowest_score .. goal - 50)"),
    _key("count", SmallInteger, "consecutive farkles of the player to move, 0 .. farkle_penalty_after - 1"),
    _key("opponent_count", SmallInteger, "consecutive farkles of the opponent, 0 .. farkle_penalty_after - 1"),
    _val("p_win", Double, "win probability of the player to move at the start of the turn under optimal play by "
         "both, 0-1 (fixed-point sweeps to build_variants.solver_json two_player.sweep_tolerance)"),
)

ten_thousand_duel_bounds = table(
    "ten_thousand_duel_bounds",
    GAME,
    "Objective (d), per (score, opponent): the turn-total bound of the solve (banking is proved "
    "optimal beyond it), the largest stored (roll-optimal) turn total, where the pair's rows lie in "
    "ten_thousand_duel and its turn-start win probability.",
    _key("rules", String, RULES),
    _key("goal", Integer, GOAL),
    _key("score", Integer, "banked points of the player to move, points"),
    _key("opponent", Integer, "banked points of the opponent, points"),
    _val("solved_to", Integer, "largest turn total solved; banking is optimal at every larger one, points"),
    _val("last_roll", Integer, "largest turn total at which rolling is optimal for some (dice, triple), points"),
    _val("first_row", BigInteger, "position of the pair's first row in ten_thousand_duel among the rows of its "
         "(rules, goal), from 0: the table is written in key order, so the pair's rows are positions first_row to "
         "first_row + row_count - 1 of its (rules, goal) block (DuckDB lookups read them by rowid)"),
    _val("row_count", Integer, "rows of the pair in ten_thousand_duel (its stored roll states)"),
    _val("p_start", Double, "win probability of the player to move at the turn start (turn total 0, all dice, "
         "no triple): ten_thousand_duel.p_win of the pair's first row, repeated here so that one score's turn "
         "starts against every opponent are one range of rows"),
)

ten_thousand_seed004_rule = table(
    "ten_thousand_seed004_rule",
    GAME,
    "Objective (e): seed 004's roll-or-bank rule per (dice, triple): roll while the expected points "
    "of the next roll exceed turn total x P(farkle); keeps use the most dice.",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _val("ev_next_roll", Double, "expected points of the next roll with the max-dice keep (farkle = 0), points"),
    _val("p_farkle", Double, "probability that the roll scores nothing, 0-1"),
    _val("bank_from", Integer, "smallest positive turn total at which the rule banks, points"),
    _val("optimal_bank_from", Integer, "smallest positive turn total at which the optimal solitaire turn banks, points", nullable=True),
)

ten_thousand_policy_turn = table(
    "ten_thousand_policy_turn",
    GAME,
    "Objective (e): expected banked points of a fresh turn (six dice) under each policy.",
    _key("rules", String, RULES),
    _key("policy", String, "'optimal' or 'seed004'"),
    _val("expected_points", Double, "expected banked points of one turn from six dice, points"),
)

ten_thousand_policy_duel = table(
    "ten_thousand_policy_duel",
    GAME,
    "Objective (e): win probability of each policy against the optimal opponent (which keeps the "
    "optimal policy; it does not adapt), in each seat.",
    _key("rules", String, RULES),
    _key("goal", Integer, GOAL),
    _key("policy", String, "'optimal' or 'seed004'"),
    _key("seat", SmallInteger, "1 = moves first, 2 = moves second"),
    _val("p_win", Double, "probability that the policy's player wins, 0-1"),
)

# ------------------------------------------------------------------- views
_s = ten_thousand_solitaire.c
_c = ten_thousand_classes.c
ten_thousand_thresholds = View(
    "ten_thousand_thresholds",
    GAME,
    "Objective (c), seed 004's decision tree: per (dice, triple) the smallest reachable turn total at "
    "which the optimal solitaire turn banks (it rolls below it); turn totals below the class's "
    "min_turn_total cannot occur and are left out.",
    select(
        _s.rules,
        _s.dice,
        _s.triple,
        func.min(_c.min_turn_total).label("min_turn_total"),
        func.min(case((_s.action == "bank", _s.turn_total), else_=None)).label("bank_from"),
        func.max(case((_s.action == "roll", _s.turn_total), else_=None)).label("last_roll"),
    )
    .select_from(
        ten_thousand_solitaire.join(
            ten_thousand_classes, (_c.rules == _s.rules) & (_c.dice == _s.dice) & (_c.triple == _s.triple)
        )
    )
    .where((_s.turn_total > 0) & (_s.turn_total >= _c.min_turn_total))
    .group_by(_s.rules, _s.dice, _s.triple),
    {
        "min_turn_total": "smallest turn total with which a turn reaches this (dice, triple), points",
        "bank_from": "smallest reachable turn total at which banking is optimal, points (equal to "
        "min_turn_total when the class banks whenever it occurs)",
        "last_roll": "largest reachable turn total at which rolling is optimal, points (= bank_from - 50: one "
        "threshold; NULL when the class always banks)",
    },
)

_d = ten_thousand_policy_duel.c
_o = ten_thousand_policy_duel.alias("opt")
_p1 = func.max(case((_d.seat == 1, _d.p_win), else_=None))
_p2 = func.max(case((_d.seat == 2, _d.p_win), else_=None))
_o1 = func.max(case((_o.c.seat == 1, _o.c.p_win), else_=None))
_o2 = func.max(case((_o.c.seat == 2, _o.c.p_win), else_=None))
ten_thousand_gaps = View(
    "ten_thousand_gaps",
    GAME,
    "Objective (e): each policy's win rate against the optimal opponent in both seats and its gap "
    "= (p1_win - optimal p1_win) + (p2_win - optimal p2_win), as in the Great Rolled Ones issue.",
    select(
        _d.rules,
        _d.goal,
        _d.policy,
        _p1.label("p1_win"),
        _p2.label("p2_win"),
        ((_p1 - _o1) + (_p2 - _o2)).label("gap"),
    )
    .select_from(
        ten_thousand_policy_duel.join(
            _o, (_o.c.rules == _d.rules) & (_o.c.goal == _d.goal) & (_o.c.policy == literal("optimal"))
        )
    )
    .group_by(_d.rules, _d.goal, _d.policy),
    {
        "p1_win": "win probability when the policy moves first, 0-1",
        "p2_win": "win probability when the policy moves second, 0-1",
        "gap": "(p1_win - optimal p1_win) + (p2_win - optimal p2_win); 0 for optimal play",
    },
)

_w = ten_thousand_duel.c
ten_thousand_duel_start = View(
    "ten_thousand_duel_start",
    GAME,
    "Objective (d): win probability of the player about to start a turn, for every pair of banked scores.",
    select(_w.rules, _w.goal, _w.score, _w.opponent, _w.p_win).where(_w.turn_total == 0),
    {},
)

VIEWS = [ten_thousand_thresholds, ten_thousand_gaps, ten_thousand_duel_start]

# issue 24 (docs/farkle.md): the fair compensation of every two-player rule set, from its stored turn starts
_b = ten_thousand_duel_bounds.c
DUEL_COMPENSATION_COMMENTS = {
    "rules": RULES, "goal": GOAL,
    "score1": "the first player's starting points (0 unless the first player is the one compensated), points",
    "score2": "the second player's starting points (the compensation), points",
    "p_win1": "the first player's win probability from these starting scores, the first player to move, both "
              "playing optimally, probability 0-1",
    "p_win2": "the second player's win probability, 1 - p_win1, probability 0-1",
    "deviation": "|p_win1 - 1/2|: how far the start is from a fair game, probability difference",
}
_duel_comp = select(
    _b.rules, _b.goal, _b.score.label("score1"), _b.opponent.label("score2"), _b.p_start.label("p_win1"),
    (literal(1.0) - _b.p_start).label("p_win2"), func.abs(_b.p_start - literal(0.5), type_=Double).label("deviation"),
).where((_b.score == 0) | (_b.opponent == 0))
ten_thousand_duel_compensation = View(
    "ten_thousand_duel_compensation",
    GAME,
    "Two-player 10,000 (every rule set solved for two players): every start with compensation, one player at 0 and "
    "the other at a stored score below the goal, the first player to move (ten_thousand_duel_bounds.p_start), and "
    "how far it is from fair.",
    _duel_comp,
    DUEL_COMPENSATION_COMMENTS,
)
_dc = _duel_comp.subquery("c")
_dm = select(_dc.c.rules, _dc.c.goal, func.min(_dc.c.deviation).label("least")).group_by(
    _dc.c.rules, _dc.c.goal).subquery("m")
ten_thousand_duel_fair_compensation = View(
    "ten_thousand_duel_fair_compensation",
    GAME,
    "Two-player 10,000: the fair compensation of each rule set and goal, the start of ten_thousand_duel_compensation "
    "whose first-player win probability is closest to 1/2 (several rows only on an exact tie).",
    select(_dc).select_from(_dc.join(_dm, (_dm.c.rules == _dc.c.rules) & (_dm.c.goal == _dc.c.goal)
                                     & (_dm.c.least == _dc.c.deviation))),
    DUEL_COMPENSATION_COMMENTS,
)
VIEWS += [ten_thousand_duel_compensation, ten_thousand_duel_fair_compensation]


# ---------------------------------------------------------------------------
# N players (issue 21; docs/n_players.md): one block per (rules, goal, players)
# ---------------------------------------------------------------------------
from dicebase.rules.ten_thousand import MAX_PLAYERS as NP_MAX_PLAYERS, PLAYER_COUNTS  # noqa: E402  (the rules' own)

NP_SEATS = range(1, NP_MAX_PLAYERS + 1)
PLAYERS = f"number of players N ({PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}): seats 1..N play in order, one turn each per round"
NP_GOAL = "goal of the N-player game, points (the build option ten-thousand.goal)"
PROB = "probability 0-1"
NP_NEW = " New, unpublished results (docs/n_players.md)."


def _np_score(n: int, what: str = "") -> Column:
    return _key(f"score{n}", Integer, f"seat {n}'s banked score, points (0 .. goal - 50); 0 when players < {n}{what}")


def _np_win(n: int, what: str) -> Column:
    return _val(f"p_win{n}", Double, f"seat {n}'s win probability{what}, {PROB}; 0 when players < {n}")


ten_thousand_players = table(
    "ten_thousand_players",
    GAME,
    "N-player 10,000: one row per (rules, goal, number of players) built, with the solver's caps and tolerances, "
    "the final-round table's extents and the number of score tuples whose equilibrium needed the cycle "
    "resolution." + NP_NEW,
    _key("rules", String, RULES),
    _key("goal", Integer, NP_GOAL),
    _key("players", SmallInteger, PLAYERS),
    _val("unit", SmallInteger, "the rule set's scoring unit, points: every score, total and deficit is a multiple"),
    _val("tie_tolerance", Double, "the mover rolls only when rolling beats banking by more than this, and takes the "
         "first keep (priority order, see description) within it of the best, probability (1e-12)"),
    _val("equilibrium_tolerance", Double, "a mixed equilibrium is accepted when every seat's value is its best "
         "response's within this, probability"),
    _val("turn_total_margin", Integer, "clamp of the normal-turn forced bank: a seat banks once its score plus turn "
         "total passes goal - unit + this margin, points (earlier where banking is proven optimal, see kmax); where "
         "the clamp binds the tuple counts in unproven_tuples"),
    _val("final_bank_margin", Integer, "on a final turn a seat above the bar banks once its margin over the later "
         "seats makes their chance to pass it small enough (see docs/n_players.md), points"),
    _val("final_scale", Double, "safety factor of the final-turn forced bank (1 = the proven bound; smaller is safer)"),
    _val("deficits1", Integer, "rows per gap pattern of the final round with 1 seat still to play: deficits 0 .. "
         "deficits1 - 1 units (the last seat's chance to pass the bar, P_exceed)"),
    _val("deficits2", Integer, "rows per gap pattern with 2 seats still to play (0 when players < 3)"),
    _val("deficits3", Integer, "rows per gap pattern with 3 seats still to play (0 when players < 4)"),
    _val("score_tuples", Integer, "score tuples stored: (goal / unit)^players"),
    _val("cycle_tuples", Integer, "score tuples (every rotation) where best responses cycled (ten_thousand_cycle_tuples)"),
    _val("mixed_tuples", Integer, "of them, tuples where no pure equilibrium exists among the cycle's policies: a "
         "mixed one is stored (ten_thousand_mixing)"),
    _val("unproven_tuples", Integer, "score tuples where the turn-total clamp bound (0: every forced bank proven)"),
    _val("description", String, "the N-player rules in words, with the tie-break"),
)

ten_thousand_turn_starts = table(
    "ten_thousand_turn_starts",
    GAME,
    "N-player 10,000: the win vector (every seat's win probability, every seat playing optimally: a subgame-perfect "
    "equilibrium) at every turn start: the seat to move (turn total 0, all dice, no triple) and every score tuple "
    "below the goal. Block (rules, goal, players); rows in key order (seat, score1, .., scoreN). Mid-turn states are "
    "computed from these at lookup (dicebase ten-thousand state --scores)." + NP_NEW,
    _key("rules", String, RULES),
    _key("goal", Integer, NP_GOAL),
    _key("players", SmallInteger, PLAYERS),
    _key("seat", SmallInteger, "seat to move, 1..players, at its turn start"),
    *[_np_score(n) for n in NP_SEATS],
    *[_np_win(n, " from this turn start") for n in NP_SEATS],
    _val("kmax", Integer, "the largest turn total at which the mover may still choose to roll in this turn, points: "
         "beyond it the mover banks (proven optimal); a lookup computes the turn's states from kmax down"),
    key_index=False,  # written in key order, unique (tests/test_keys.py)
)

ten_thousand_final_round = table(
    "ten_thousand_final_round",
    GAME,
    "N-player 10,000, the final round (a seat has banked at or above the goal; each seat still to play takes one "
    "final turn and must end above the bar, the highest score): the win vector over the roles [leader, the later "
    "seats in play order] when `later` seats are still to play, by their deficits to the bar. It depends only on the "
    "deficits (every final-round rule compares totals with the bar). Block (rules, goal, players); rows in key order "
    "(later, gap2, gap3, deficit), so the bars of one set of later scores are consecutive. Rows whose deficits are "
    "not all positive are no state of the game and hold 0 (kept so that a row's position follows from its key)."
    + NP_NEW,
    _key("rules", String, RULES),
    _key("goal", Integer, NP_GOAL),
    _key("players", SmallInteger, PLAYERS),
    _key("later", SmallInteger, "seats still to take a final turn, 1..players - 1"),
    _key("gap2", Integer, "the second later seat's deficit minus the first's, points (0 when later < 2)"),
    _key("gap3", Integer, "the third later seat's deficit minus the first's, points (0 when later < 3)"),
    _key("deficit", Integer, "the bar minus the first later seat's score, points"),
    *[_val(name, Double, f"{what}'s win probability, {PROB}; 0 beyond `later`")
      for name, what in (("p_leader", "the leader (the seat that set the bar)"), ("p_later1", "the first later seat"),
                         ("p_later2", "the second later seat"), ("p_later3", "the third later seat"))],
    key_index=False,
)

ten_thousand_cycle_tuples = table(
    "ten_thousand_cycle_tuples",
    GAME,
    "N-player 10,000: score tuples (every rotation) where the seats' best responses cycle (../shared/N-PLAYERS.md): "
    "the equilibrium stored there was selected by the solver's search (a pure one among the cycle's policies, else "
    "a mixed one). Lookups in these tuples say so.",
    _key("rules", String, RULES),
    _key("goal", Integer, NP_GOAL),
    _key("players", SmallInteger, PLAYERS),
    *[_np_score(n) for n in NP_SEATS],
    _val("kind", String, "'mixed' (no pure equilibrium among the cycle's policies: seats randomise, "
         "ten_thousand_mixing) or 'pure' (a pure equilibrium found by the search)"),
    _val("randomising_seats", SmallInteger, "seats that randomise in the stored equilibrium (0 for 'pure')"),
    _val("cycle_length", SmallInteger, "policy profiles in the detected best-response cycle"),
    _val("residual", Double, "largest gain a seat could make by deviating from the stored equilibrium, probability"),
)

ten_thousand_mixing = table(
    "ten_thousand_mixing",
    GAME,
    "Mixed equilibria of the N-player cycle tuples: each randomising seat's decision and its probabilities (the seat "
    "is indifferent there). A 'roll' decision: roll with `probability`, bank otherwise. A 'keep' decision: in roll "
    "group `roll_group` of the class, take keep `keep_first` with `probability`, else `keep_second` (keeps numbered "
    "from 0 in the tie-break order of the group; the lookups name them).",
    _key("rules", String, RULES),
    _key("goal", Integer, NP_GOAL),
    _key("players", SmallInteger, PLAYERS),
    *[_np_score(n) for n in NP_SEATS],
    _key("seat", SmallInteger, "the randomising seat, 1..players (its turn at this score tuple)"),
    _key("turn_total", Integer, "turn total of the decision, points"),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("decision", String, "'roll' (roll or bank) or 'keep' (which keep of a roll)"),
    _key("roll_group", SmallInteger, "'keep': the roll group (rolls with the same keeps), numbered from 0 within the "
         "class in the rules' order; 0 for 'roll'"),
    _val("keep_first", SmallInteger, "'keep': the keep taken with `probability`; 0 for 'roll'"),
    _val("keep_second", SmallInteger, "'keep': the keep taken otherwise; 0 for 'roll'"),
    _val("probability", Double, "probability of rolling ('roll') or of taking keep_first ('keep'), " + PROB),
)

ten_thousand_roll_groups = table(
    "ten_thousand_roll_groups",
    GAME,
    "The rolls of every pre-roll class grouped by their legal keeps (rules data, written with the N-player tables "
    "for their lookups, which read it once instead of enumerating the rolls): per roll group, its probability and "
    "every keep in the tie-break order (more points, then no standing triple after it, then fewer dice, then the "
    "lower triple face). Roll group -1 is the farkle (nothing scores). Groups and keeps are numbered as in "
    "ten_thousand_mixing.",
    _key("rules", String, RULES),
    _key("dice", SmallInteger, DICE),
    _key("triple", SmallInteger, TRIPLE),
    _key("roll_group", SmallInteger, "the roll group: rolls with the same set of legal keeps, numbered from 0 within "
         "the class in the order of their keep sets; -1 for the farkle"),
    _key("keep", SmallInteger, "the keep, numbered from 0 in the group's tie-break order (0 for the farkle)"),
    _val("probability", Double, "probability that a roll of the class falls in this group (the farkle chance for "
         "group -1), " + PROB),
    _val("points", Integer, "points the keep scores (0 for the farkle), points"),
    _val("dice_after", SmallInteger, "dice to roll after the keep (0 for the farkle)"),
    _val("triple_after", SmallInteger, "standing triple face after the keep, 0 = none"),
)

ten_thousand_seat_wins, ten_thousand_compensation, ten_thousand_fair_compensation = seat_views(
    GAME, "N-player 10,000", ten_thousand_turn_starts, {"rules": RULES, "goal": NP_GOAL}, NP_SEATS, PLAYERS, NP_NEW)
VIEWS += [ten_thousand_seat_wins, ten_thousand_compensation, ten_thousand_fair_compensation]
