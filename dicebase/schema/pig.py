"""Pig's tables and views (issue 31; docs/pig.md).

Vocabulary: ``variant`` a rule set (``pig_variants``: the presets ``pig`` and ``piglet``, house rules);
``players`` the number of seats N; ``seat`` 1..N (seat 1 moves first); ``score1..score4`` the seats'
banked scores; ``p_win1..p_win4`` the seats' win probabilities.  One storage path for every N: the turn
starts of every (variant, players) block; mid-turn states are computed at lookup.  The aggregates (first
player's advantage, fair compensation, the simple policies' costs) are views.
"""

from __future__ import annotations

from sqlalchemy import Column, Double, Integer, SmallInteger, String, and_, select

from dicebase.rules.pig import MAX_PLAYERS, PLAYER_COUNTS
from dicebase.schema.base import View, seat_views, table

GAME = "pig"

VARIANT = "rule set, see pig_variants ('pig' = goal 100, one die, a 1 busts; 'piglet' = a coin, goal 10)"
PLAYERS = f"number of players N ({PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}): seats 1..N take turns in order"
PROB = "probability 0-1"
SEATS = range(1, MAX_PLAYERS + 1)


def _key(name, type_, comment):
    return Column(name, type_, primary_key=True, comment=comment)


def _val(name, type_, comment):
    return Column(name, type_, nullable=False, comment=comment)


def _absent(n: int) -> str:
    """What a seat column holds in a block of fewer players (seats 1 and 2 are always there)."""
    return f"; 0 when players < {n}" if n > PLAYER_COUNTS[0] else ""


def _score(n: int) -> Column:
    return _key(f"score{n}", SmallInteger, f"seat {n}'s banked score, points (0 .. goal - 1){_absent(n)}")


def _win(n: int, what: str) -> Column:
    return _val(f"p_win{n}", Double, f"seat {n}'s win probability{what}, {PROB}{_absent(n)}")


pig_variants = table(
    "pig_variants",
    GAME,
    "Pig rule sets built: the goal, the die (faces, the bust face, each face's score). Neller and Presser, "
    "'Optimal Play of the Dice Game Pig', The UMAP Journal 25(1), 2004.",
    _key("variant", String, VARIANT),
    _val("goal", SmallInteger, "points that win: banked score plus turn total reaching it wins at once"),
    _val("faces", SmallInteger, "faces of the die, each equally likely"),
    _val("bust_face", SmallInteger, "the face (1..faces) that ends the turn with nothing"),
    _val("scores", String, "each face's score, face 1 first, separated by commas (the bust face scores 0)"),
    _val("description", String, "the rule set in words"),
)

pig_players = table(
    "pig_players",
    GAME,
    "Pig: one row per (variant, number of players) built, with the solver's tolerances and the score tuples "
    "whose equilibrium needed the cycle resolution (../shared/N-PLAYERS.md). Results for three or more players "
    "are new (docs/pig.md).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _val("tie_tolerance", Double, "the mover rolls only when rolling beats holding by more than this, probability "
         "(1e-12; otherwise it holds: hold before roll)"),
    _val("equilibrium_tolerance", Double, "largest gain a seat may have from deviating in a resolved cycle tuple, "
         "probability (1e-12)"),
    _val("score_tuples", Integer, "score tuples stored: goal^players"),
    _val("cycle_tuples", Integer, "score tuples where best responses cycled (pig_cycle_tuples)"),
    _val("mixed_tuples", Integer, "of them, tuples with no pure equilibrium among the cycle's policies (pig_mixing)"),
    _val("seconds", Double, "seconds the solve took on the build machine"),
    _val("description", String, "the N-player rules in words"),
)

pig_turn_starts = table(
    "pig_turn_starts",
    GAME,
    "Pig: the win vector (every seat's win probability, every seat playing optimally) at every turn start: the "
    "seat to move and every score tuple below the goal. Block (variant, players); rows in key order (seat, score1, "
    ".., scoreN). Mid-turn states are computed from these at lookup (dicebase pig best).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _key("seat", SmallInteger, "seat to move, 1..players, at turn total 0"),
    *[_score(n) for n in SEATS],
    *[_win(n, " from this turn start") for n in SEATS],
    key_index=False,  # written in key order, unique
)

pig_cycle_tuples = table(
    "pig_cycle_tuples",
    GAME,
    "Pig score tuples where the seats' best responses cycle (../shared/N-PLAYERS.md): the equilibrium stored there "
    "was selected by the solver's search (a pure one among the cycle's policies, else a mixed one).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    *[_score(n) for n in SEATS],
    _val("kind", String, "'mixed' (seats randomise, pig_mixing) or 'pure' (a pure equilibrium found by the search)"),
    _val("randomising_seats", SmallInteger, "seats that randomise in the stored equilibrium (0 for 'pure')"),
    _val("cycle_length", SmallInteger, "policy profiles in the detected best-response cycle"),
    _val("residual", Double, "largest gain a seat could make by deviating from the stored equilibrium, probability"),
)

pig_mixing = table(
    "pig_mixing",
    GAME,
    "Mixed equilibria of the Pig cycle tuples: each randomising seat's turn total and its probability of rolling "
    "there (the seat is indifferent between rolling and holding).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    *[_score(n) for n in SEATS],
    _key("seat", SmallInteger, "the randomising seat, 1..players"),
    _key("k", SmallInteger, "turn total, points"),
    _val("p_roll", Double, "probability that the seat rolls at this turn total (it holds otherwise), " + PROB),
)

POLICY = "a simple policy, see pig_policies ('hold_at_20', 'hold_at_25', 'four_turns')"
pig_policies = table(
    "pig_policies",
    GAME,
    "The simple policies whose cost against optimal play is stored (pig_policy_wins), each defined exactly.",
    _key("policy", String, POLICY),
    _val("title", String, "the policy's name in words"),
    _val("definition", String, "when the policy rolls, exactly"),
)

pig_policy_wins = table(
    "pig_policy_wins",
    GAME,
    "Pig: a simple policy in one seat, every other seat playing the stored equilibrium (it does not adapt to the "
    "policy): the policy seat's and every seat's win probability from the start. Through the same score-sum "
    "levels as the solve, a fixed profile instead of a best response.",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _key("policy", String, POLICY),
    _key("seat", SmallInteger, "the seat that plays the policy, 1..players (seat 1 moves first)"),
    _val("p_win", Double, "the policy seat's win probability from the start (every score 0, seat 1 to move), " + PROB),
    *[_win(n, " from the start with this seat playing the policy") for n in SEATS],
)

pig_seat_wins, pig_compensation, pig_fair_compensation = seat_views(
    GAME, "Pig", pig_turn_starts, {"variant": VARIANT}, SEATS, PLAYERS, "", always=PLAYER_COUNTS[0], own={
        "pig_seat_wins": "Pig: each seat's win probability from the start (every score 0, seat 1 to move), every seat "
                         "playing optimally; with two players seat 1's is Neller and Presser's 0.5306. The first "
                         "player's advantage.",
        "pig_fair_compensation": "Pig: the fair compensation (komi), the starting scores (at least one seat at 0) that "
                                 "bring every seat closest to 1/players (least largest |p_win - 1/players|), searched "
                                 "over the stored turn starts, for every N built."})

_pw = pig_policy_wins
_sw = pig_seat_wins.select.subquery("sw")
pig_policy_costs = View(
    "pig_policy_costs",
    GAME,
    "Pig: what each simple policy costs the seat that plays it, the other seats playing the stored equilibrium: "
    "its win probability with the policy against its win probability when it plays optimally too.",
    select(_pw.c.variant, _pw.c.players, _pw.c.policy, _pw.c.seat, _pw.c.p_win,
           _sw.c.p_win.label("p_win_optimal"), (_sw.c.p_win - _pw.c.p_win).label("cost"))
    .select_from(_pw.join(_sw, and_(_sw.c.variant == _pw.c.variant, _sw.c.players == _pw.c.players,
                                    _sw.c.seat == _pw.c.seat))),
    {"variant": VARIANT, "players": PLAYERS, "policy": POLICY,
     "seat": "the seat that plays the policy, 1..players",
     "p_win": "the policy seat's win probability from the start, " + PROB,
     "p_win_optimal": "the seat's win probability when it plays optimally too (pig_seat_wins), " + PROB,
     "cost": "p_win_optimal - p_win: the win probability the policy costs its seat, probability difference"},
)

VIEWS = [pig_seat_wins, pig_compensation, pig_fair_compensation, pig_policy_costs]
