"""Great Rolled Ones tables and views (see docs/rolled_ones.md for the guide).

Key vocabulary, shared by every table (seed 002's state tuple ``(p, i, j, k, o)``):

- ``variant``: rule set (``rolled_ones_variants``); ``standard`` is seed 002's.
- ``p``: player to move, 1 or 2 (player 1 moves first in every round).
- ``i``: the mover's score, ``j``: the opponent's score, points, before this turn.
- ``k``: turn total, points (non-1s rolled this turn, not yet banked).
- ``o``: 1s set aside this turn, 0 .. ones_limit - 1.
- ``policy``: ``optimal`` or one of seed 002's four human-playable policies
  (``rolled_ones_policies``).

Layout: ``rolled_ones_states`` holds one row per stored state with optimal
play's values and, in columns named after each human policy, that policy's
action and win probabilities; the views ``rolled_ones_policy_actions`` and
``rolled_ones_policy_values`` present them as rows ``(policy, state, ...)``.
One wide row per state instead of a row per (policy, state) keeps the table
at one key per state, and the table is declared ``key_index=False``: the key
stays in the schema (and clusters the SQLite table) but DuckDB builds no ART
index for it (about 50 bytes a row, more than half the file); the builder
writes the rows in key order and unique, and lookups use DuckDB's zone maps.
"""

from __future__ import annotations

from sqlalchemy import Column, Double, Integer, SmallInteger, String, and_, case, func, literal, select, union_all

from dicebase.rules.rolled_ones import MAX_PLAYERS, PLAYER_COUNTS, POLICY_NAMES
from dicebase.schema.base import View, seat_views, table

GAME = "rolled_ones"

#: POLICY_NAMES (dicebase.rules.rolled_ones): seed 002's policies (Algorithms 1-4), column-name prefixes.
_TITLES = {
    "roll_4_or_5_dice": "Algorithm 1, Roll with 4 or 5 Dice",
    "fixed_hold_at": "Algorithm 2, Fixed Hold-At",
    "simple_ones_cases": "Algorithm 3, Simple Player and Ones Cases",
    "keep_pace_end_race": "Algorithm 4, Keep Pace, End Race, by Case",
}

VARIANT = "rule set, see rolled_ones_variants ('standard' = seed 002: 5 dice, goal 50, three 1s end a turn)"
P = "player to move: 1 (moves first each round) or 2"
I = "mover's score before this turn, points (0 .. goal - 1)"
J = "opponent's score, points (0 .. goal - 1)"
K = "turn total: points rolled this turn and not yet banked (0 .. turn_total_bound; only totals a turn can reach)"
O = "rolled 1s set aside this turn (0 .. ones_limit - 1)"
POLICY = "'optimal' or a seed 002 human-playable policy: " + ", ".join(POLICY_NAMES) + " (see rolled_ones_policies)"
PROB = "probability 0-1"
STATE_COMMENTS = {"variant": VARIANT, "p": P, "i": I, "j": J, "k": K, "o": O}


def _key(name, type_, comment):
    return Column(name, type_, primary_key=True, comment=comment)


def _val(name, type_, comment):
    return Column(name, type_, nullable=False, comment=comment)


def _policy_columns(name: str) -> list[Column]:
    title = _TITLES[name]
    return [
        _val(f"{name}_action", String, f"{title}: its action here, 'roll' or 'hold' (a hold at k = 0 is played as a roll)"),
        _val(
            f"{name}_p_win_moving",
            Double,
            f"{title} plays seat p and is to move, the optimal player (not adapting) the other seat: "
            f"the policy's win probability, {PROB}",
        ),
        _val(
            f"{name}_p_win_waiting",
            Double,
            f"the optimal player plays seat p and is to move, {title} seat 3 - p: the policy's win probability, {PROB}",
        ),
    ]


rolled_ones_variants = table(
    "rolled_ones_variants",
    GAME,
    "Great Rolled Ones rule sets: one row per variant with every rule parameter and the stored bounds.",
    _key("variant", String, "variant name"),
    _val("goal", SmallInteger, "goal score, points: ending a turn at or above it makes that round the last (50)"),
    _val("dice", SmallInteger, "dice rolled at the start of a turn (5); rolled 1s are set aside"),
    _val("faces", SmallInteger, "faces per die (6); a 1 has probability 1/faces"),
    _val("ones_limit", SmallInteger, "1s set aside that end the turn with no score change (3)"),
    _val(
        "turn_total_bound",
        SmallInteger,
        "largest stored turn total k, points; the rules do not bound k: beyond it holding is optimal (proven at build), "
        "so the stored values are exact",
    ),
    _val("komi_max", SmallInteger, "largest compensation (komi) for player 1 listed in rolled_ones_komi, points"),
    _val("description", String, "the rules in words and the seed they come from"),
)

rolled_ones_p_new1s = table(
    "rolled_ones_p_new1s",
    GAME,
    "Seed 002's P_new1s(d, o_new): probability that exactly o_new of d rolled dice are 1s (reference table).",
    _key("variant", String, VARIANT),
    _key("d", SmallInteger, "dice rolled (0 .. dice)"),
    _key("o_new", SmallInteger, "of them showing a 1 (0 .. d)"),
    _val("probability", Double, "C(d, o_new) (1/faces)^o_new (1 - 1/faces)^(d - o_new), " + PROB),
)

rolled_ones_p_exceed = table(
    "rolled_ones_p_exceed",
    GAME,
    "Player 2's final turn (player 1 ended at or above the goal): seed 002's P_exceed(delta, o) with both actions. "
    "The state (2, i, j >= goal, k, o) is the row delta = j - (i + k); every policy plays it the same way.",
    _key("variant", String, VARIANT),
    _key(
        "delta",
        SmallInteger,
        "points player 2 still trails, j - (i + k), up to goal - 1 + turn_total_bound; -1 stands for every "
        "delta < 0 (already exceeded)",
    ),
    _key("o", SmallInteger, O),
    _val("p_exceed", Double, "P_exceed(delta, o): player 2's probability of winning, " + PROB),
    _val(
        "p_roll",
        Double,
        "player 2's win probability if it rolls (P_exceed for delta >= 0; for delta < 0 the chance the roll does "
        "not end the turn), " + PROB,
    ),
    _val("p_hold", Double, "player 2's win probability if it holds: 1 if delta < 0 (exceeded) else 0, " + PROB),
    _val("best", String, "optimal action: 'roll' while delta >= 0, then 'hold'"),
)

rolled_ones_states = table(
    "rolled_ones_states",
    GAME,
    "One row per stored non-terminal state (p, i, j, k, o): i, j below the goal, a turn total k <= turn_total_bound "
    "that a turn can reach, and for player 2 i + k <= goal - 1 + dice (beyond, player 2 has already passed a "
    "certain win). Optimal play's P_roll, P_hold, P and action, and each human policy's action and win "
    "probabilities against the optimal player. Player 2's final turn is rolled_ones_p_exceed.",
    _key("variant", String, VARIANT),
    _key("p", SmallInteger, P),
    _key("i", SmallInteger, I),
    _key("j", SmallInteger, J),
    _key("k", SmallInteger, K),
    _key("o", SmallInteger, O),
    _val("p_roll", Double, "P_roll: the mover's win probability if it rolls and both play optimally after, " + PROB),
    _val("p_hold", Double, "P_hold: the mover's win probability if it holds (0 at k = 0: holding then is a loss), " + PROB),
    _val("p_win", Double, "P = max(P_roll, P_hold): the mover's win probability under optimal play, " + PROB),
    _val("best", String, "optimal action, 'roll' or 'hold' (ties hold; never hold at k = 0)"),
    *[c for name in POLICY_NAMES for c in _policy_columns(name)],
    key_index=False,  # written in key order, unique (tests/test_keys.py); see the module docstring
)

rolled_ones_policies = table(
    "rolled_ones_policies",
    GAME,
    "The policies: optimal play and seed 002's four human-playable policies (Algorithms 1-4).",
    _key("variant", String, VARIANT),
    _key("policy", String, "policy name, as in the views and on the command line (column prefix in rolled_ones_states)"),
    _val("title", String, "the seed's name of the policy"),
    _val("algorithm", SmallInteger, "seed 002's algorithm number (0 for optimal play)"),
    Column(
        "seed_gap",
        Double,
        nullable=True,
        comment="seed 002 Fig. 2: win-rate difference to optimal play, summed over both seats (0 for optimal); "
        "NULL for any variant other than 'standard' (the seed solved only that one)",
    ),
    _val("readings", String, "how we read the pseudo-code where its condition and comment disagree"),
)

rolled_ones_seat_win_rates = table(
    "rolled_ones_seat_win_rates",
    GAME,
    "Win rate of each policy from the start of the game in each seat, against the optimal player.",
    _key("variant", String, VARIANT),
    _key("policy", String, POLICY),
    _key("seat", SmallInteger, "seat the policy plays: 1 (moves first) or 2"),
    _val("p_win", Double, "the policy's win probability from the state (1, 0, 0, 0, 0), " + PROB),
)


# ---------------------------------------------------------------------------
# views
# ---------------------------------------------------------------------------
_st = rolled_ones_states
_state_cols = (_st.c.p, _st.c.i, _st.c.j, _st.c.k, _st.c.o)

rolled_ones_policy_actions = View(
    "rolled_ones_policy_actions",
    GAME,
    "What each policy does at each stored state: rows (policy, state, action), optimal play and the four "
    "human-playable policies.",
    union_all(
        select(_st.c.variant, literal("optimal").label("policy"), *_state_cols, _st.c.best.label("action")),
        *(
            select(_st.c.variant, literal(name).label("policy"), *_state_cols, _st.c[f"{name}_action"].label("action"))
            for name in POLICY_NAMES
        ),
    ),
    {**STATE_COMMENTS, "policy": POLICY, "action": "the policy's action, 'roll' or 'hold'"},
)

rolled_ones_policy_values = View(
    "rolled_ones_policy_values",
    GAME,
    "Each policy's win probability against the optimal player from every stored state: when the policy is to "
    "move (it plays seat p) and when the optimal player is (the policy plays seat 3 - p). For 'optimal' these "
    "are p_win and 1 - p_win.",
    union_all(
        select(
            _st.c.variant,
            literal("optimal").label("policy"),
            *_state_cols,
            _st.c.p_win.label("p_win_moving"),
            (literal(1.0) - _st.c.p_win).label("p_win_waiting"),
        ),
        *(
            select(
                _st.c.variant,
                literal(name).label("policy"),
                *_state_cols,
                _st.c[f"{name}_p_win_moving"].label("p_win_moving"),
                _st.c[f"{name}_p_win_waiting"].label("p_win_waiting"),
            )
            for name in POLICY_NAMES
        ),
    ),
    {
        **STATE_COMMENTS,
        "policy": POLICY,
        "p_win_moving": "the policy plays seat p and is to move: its win probability, " + PROB,
        "p_win_waiting": "the optimal player plays seat p and is to move: the policy's (seat 3 - p) win probability, "
        + PROB,
    },
)


def _disagreement(name: str):
    action = _st.c[f"{name}_action"]
    chosen = case((action == "roll", _st.c.p_roll), else_=_st.c.p_hold)
    return select(
        _st.c.variant,
        literal(name).label("policy"),
        *_state_cols,
        action.label("policy_action"),
        _st.c.best.label("optimal_action"),
        _st.c.p_win,
        chosen.label("policy_p_win"),
        (_st.c.p_win - chosen).label("cost"),
    ).where(action != _st.c.best)


rolled_ones_disagreements = View(
    "rolled_ones_disagreements",
    GAME,
    "States where a human policy's action differs from the optimal one, and what it costs there "
    "(win probability lost at that state, optimal play afterwards).",
    union_all(*(_disagreement(name) for name in POLICY_NAMES)),
    {
        **STATE_COMMENTS,
        "policy": "human-playable policy, see rolled_ones_policies",
        "policy_action": "the human policy's action, 'roll' or 'hold'",
        "optimal_action": "the optimal action, 'roll' or 'hold'",
        "p_win": "the mover's win probability with the optimal action, " + PROB,
        "policy_p_win": "the mover's win probability with the policy's action, optimal play after, " + PROB,
        "cost": "p_win - policy_p_win: win probability lost at this state, probability difference (>= 0)",
    },
)


def _komi_select():
    v = rolled_ones_variants
    return (
        select(
            _st.c.variant,
            _st.c.i.label("komi"),
            _st.c.p_win.label("p1_win"),
            (literal(1.0) - _st.c.p_win).label("p2_win"),
        )
        .select_from(_st.join(v, _st.c.variant == v.c.variant))
        .where(_st.c.p == 1, _st.c.j == 0, _st.c.k == 0, _st.c.o == 0, _st.c.i <= v.c.komi_max)
    )


KOMI_COMMENTS = {
    "variant": VARIANT,
    "komi": "compensation points player 1 starts with, points (the state (1, komi, 0, 0, 0))",
    "p1_win": "player 1's win probability under optimal play, " + PROB,
    "p2_win": "player 2's win probability under optimal play, " + PROB,
}

rolled_ones_komi = View(
    "rolled_ones_komi",
    GAME,
    "Komi: player 1's optimal win rate when starting with c = 0 .. komi_max compensation points.",
    _komi_select(),
    KOMI_COMMENTS,
)

_k = _komi_select().subquery("k")
_k2 = _komi_select().subquery("k2")
_distance = func.abs(_k.c.p1_win - literal(0.5), type_=Double)
rolled_ones_fair_komi = View(
    "rolled_ones_fair_komi",
    GAME,
    "The fair komi: the compensation (0 .. komi_max) that brings player 1's win rate closest to 0.5.",
    select(_k.c.variant, _k.c.komi, _k.c.p1_win, _k.c.p2_win, _distance.label("distance")).where(
        _distance
        == select(func.min(func.abs(_k2.c.p1_win - literal(0.5))))
        .where(_k2.c.variant == _k.c.variant)
        .scalar_subquery()
    ),
    {**KOMI_COMMENTS, "distance": "|p1_win - 0.5|, probability difference"},
)

_w = rolled_ones_seat_win_rates
_w1, _w2, _o1, _o2 = (_w.alias(n) for n in ("w1", "w2", "o1", "o2"))
_pol = rolled_ones_policies
rolled_ones_policy_gaps = View(
    "rolled_ones_policy_gaps",
    GAME,
    "Seed 002 Fig. 2: each human policy's win rates against optimal play and its gap "
    "(policy p1 win - optimal p1 win) + (policy p2 win - optimal p2 win).",
    select(
        _w1.c.variant,
        _w1.c.policy,
        _pol.c.algorithm,
        _w1.c.p_win.label("p1_win"),
        _w2.c.p_win.label("p2_win"),
        ((_w1.c.p_win - _o1.c.p_win) + (_w2.c.p_win - _o2.c.p_win)).label("gap"),
        _pol.c.seed_gap,
    )
    .select_from(
        _w1.join(_w2, and_(_w2.c.variant == _w1.c.variant, _w2.c.policy == _w1.c.policy, _w2.c.seat == 2))
        .join(_o1, and_(_o1.c.variant == _w1.c.variant, _o1.c.policy == "optimal", _o1.c.seat == 1))
        .join(_o2, and_(_o2.c.variant == _w1.c.variant, _o2.c.policy == "optimal", _o2.c.seat == 2))
        .join(_pol, and_(_pol.c.variant == _w1.c.variant, _pol.c.policy == _w1.c.policy))
    )
    .where(_w1.c.seat == 1, _w1.c.policy != "optimal"),
    {
        "variant": VARIANT,
        "policy": "human-playable policy, see rolled_ones_policies",
        "algorithm": "seed 002's algorithm number",
        "seed_gap": "seed 002 Fig. 2's gap for this policy, for comparison; NULL for a variant other than 'standard'",
        "p1_win": "the policy's win rate as player 1 against the optimal player 2, " + PROB,
        "p2_win": "the policy's win rate as player 2 against the optimal player 1, " + PROB,
        "gap": "(p1_win - optimal p1 win) + (p2_win - optimal p2 win), probability difference (negative = worse)",
    },
)

rolled_ones_first_player_advantage = View(
    "rolled_ones_first_player_advantage",
    GAME,
    "First-player advantage under optimal play (negative: moving first is a disadvantage in Great Rolled Ones).",
    select(
        _o1.c.variant,
        _o1.c.p_win.label("p1_win"),
        _o2.c.p_win.label("p2_win"),
        (_o1.c.p_win - _o2.c.p_win).label("advantage"),
    )
    .select_from(_o1.join(_o2, and_(_o2.c.variant == _o1.c.variant, _o2.c.policy == "optimal", _o2.c.seat == 2)))
    .where(_o1.c.policy == "optimal", _o1.c.seat == 1),
    {
        "variant": VARIANT,
        "p1_win": "player 1's win probability, both playing optimally, " + PROB,
        "p2_win": "player 2's win probability, both playing optimally, " + PROB,
        "advantage": "p1_win - p2_win, probability difference",
    },
)

# ---------------------------------------------------------------------------
# N players (issue 21; docs/n_players.md)
# ---------------------------------------------------------------------------
PLAYERS = f"number of players N ({PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}): seats 1..N play in order, one turn each per round"
SEATS = range(1, MAX_PLAYERS + 1)


def _score(n: int, what: str) -> Column:
    return _key(f"score{n}", SmallInteger, f"seat {n}'s score, points (0 .. goal - 1); 0 when players < {n}{what}")


def _win(n: int, what: str) -> Column:
    return _val(f"p_win{n}", Double, f"seat {n}'s win probability{what}, {PROB}; 0 when players < {n}")


rolled_ones_players = table(
    "rolled_ones_players",
    GAME,
    "N-player Great Rolled Ones: one row per (variant, number of players) built, with the solver's caps and "
    "tolerance and the number of score tuples whose equilibrium needed the cycle resolution. These are new, "
    "unpublished results (docs/n_players.md).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _val("turn_total_bound", SmallInteger, "largest turn total kept below the goal, points (goal + 30 for 2-3 players, "
         "goal + 50 for 4; beyond it the mover holds; raising it changes no value: tested)"),
    _val("score_cap", SmallInteger, "final-round score cap, points: a seat above the bar on its final turn holds once "
         "its score reaches it (goal + turn_total_bound)"),
    _val("tie_tolerance", Double, "the mover rolls only when rolling beats holding by more than this, probability "
         "(1e-12; otherwise it holds)"),
    _val("score_tuples", Integer, "score tuples stored: goal^players"),
    _val("cycle_tuples", Integer, "score tuples where best responses cycled (rolled_ones_cycle_tuples)"),
    _val("mixed_tuples", Integer, "of them, tuples with no pure equilibrium among the cycle's policies: a mixed one "
         "is stored (rolled_ones_mixing)"),
    _val("description", String, "the N-player rules in words"),
)

rolled_ones_turn_starts = table(
    "rolled_ones_turn_starts",
    GAME,
    "N-player Great Rolled Ones: the win vector (every seat's win probability, optimal play by every seat) at every "
    "turn start: the seat to move and every score tuple below the goal. Block (variant, players); rows in key order "
    "(seat, score1, .., scoreN). Mid-turn states are computed from these at lookup (dicebase rolled-ones best "
    "--scores). New, unpublished results (docs/n_players.md).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _key("seat", SmallInteger, "seat to move, 1..players, at turn total 0 with no 1s set aside"),
    *[_score(n, "") for n in SEATS],
    *[_win(n, " from this turn start") for n in SEATS],
    key_index=False,  # written in key order, unique (tests/test_keys.py)
)

rolled_ones_final_turns = table(
    "rolled_ones_final_turns",
    GAME,
    "N-player Great Rolled Ones, the final round, compactly: a seat (2..N) on its final turn whose total is above the "
    "bar (the highest score): its decision and what follows, per (scores of the seats after it, total, ones). A seat "
    "at or below the bar must roll; the lookups compute every final-round value from these rows and the first-passage "
    "chances (the rules). Block (variant, players), rows in key order.",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _key("seat", SmallInteger, "seat on its final turn, 2..players (another seat reached the goal before it this round)"),
    *[_score(n, "; 0 also for the seat on its final turn and every seat before it (the row does not depend on "
                "them)") for n in SEATS],
    _key("total", SmallInteger, "the seat's score plus turn total, points, above the goal (goal + 1 .. the stored top)"),
    _key("ones", SmallInteger, O),
    _val("best", String, "the seat's action: 'roll' or 'hold' (ties hold; it holds at the score cap)"),
    _val("p_bust", Double, "probability that the seat's turn ends with three 1s from here under its policy (then the "
         "old bar stands and the seats after it play against it), " + PROB),
    *[_win(n, ", counting only the outcomes where this seat's turn ends with a hold (0 for seats before it); the "
              "whole value is this plus p_bust times the seats after it playing against the old bar") for n in SEATS],
    key_index=False,
)

rolled_ones_cycle_tuples = table(
    "rolled_ones_cycle_tuples",
    GAME,
    "N-player score tuples where the seats' best responses cycle (../shared/N-PLAYERS.md): the equilibrium stored "
    "there was selected by the solver's search (a pure one among the cycle's policies, else a mixed one). Lookups in "
    "these tuples say so.",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    *[_score(n, "") for n in SEATS],
    _val("kind", String, "'mixed' (no pure equilibrium among the cycle's policies: seats randomise, rolled_ones_mixing) "
         "or 'pure' (a pure equilibrium found by the search)"),
    _val("randomising_seats", SmallInteger, "seats that randomise in the stored equilibrium (0 for 'pure')"),
    _val("cycle_length", SmallInteger, "policy profiles in the detected best-response cycle"),
    _val("residual", Double, "largest gain a seat could make by deviating from the stored equilibrium, probability "
         "(at most 1e-12)"),
)

rolled_ones_mixing = table(
    "rolled_ones_mixing",
    GAME,
    "Mixed equilibria of the N-player cycle tuples: each randomising seat's decision state and its probability of "
    "rolling there (the seat is indifferent between rolling and holding).",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    *[_score(n, "") for n in SEATS],
    _key("seat", SmallInteger, "the randomising seat, 1..players (its turn at this score tuple)"),
    _key("k", SmallInteger, K),
    _key("o", SmallInteger, O),
    _val("p_roll", Double, "probability that the seat rolls at this state (it holds otherwise), " + PROB),
)

rolled_ones_policy_costs = table(
    "rolled_ones_policy_costs",
    GAME,
    "N players: what each of seed 002's human policies costs the seat that uses it when the other seats play "
    "optimally, in two readings (mode): 'equilibrium', the other seats keep playing the stored equilibrium (they do "
    "not adapt to the policy; with two players seed 002's Fig. 2 measure, equal to rolled_ones_seat_win_rates), "
    "and 'best_response', each other seat best-responds, knowing the policy (it exploits the policy). The seat's "
    "win probability from the start with the policy, against its win probability when every seat plays the "
    "equilibrium. Read for N players: the last seat plays the policy's player 2 cases, the others its player 1 "
    "cases, 'opponent' is the leading other player, and a final turn rolls until above the bar, then holds "
    "(docs/n_players.md). New, unpublished results for three or more players.",
    _key("variant", String, VARIANT),
    _key("players", SmallInteger, PLAYERS),
    _key("mode", String, "how the other seats play: 'equilibrium' (they keep the stored equilibrium, do not adapt) "
         "or 'best_response' (they exploit the policy)"),
    _key("policy", String, "seed 002's human-playable policy, see rolled_ones_policies"),
    _key("seat", SmallInteger, "the seat that plays the policy, 1..players (seat 1 moves first)"),
    _val("p_win", Double, "the policy seat's win probability from the start (every score 0), the other seats "
         "playing as mode says, " + PROB),
    _val("p_win_optimal", Double, "the seat's win probability from the start when every seat plays the stored "
         "equilibrium (rolled_ones_seat_wins), " + PROB),
    _val("cost", Double, "p_win_optimal - p_win: the win probability the policy costs its seat, probability "
         "difference (positive = a loss)"),
    _val("cycle_tuples", Integer, "best_response: score tuples where the best-responding seats' policies cycled (an "
         "equilibrium among them selected as in rolled_ones_cycle_tuples); equilibrium: 0 (nothing is searched)"),
)

_pc = rolled_ones_policy_costs
rolled_ones_policy_cost_means = View(
    "rolled_ones_policy_cost_means",
    GAME,
    "N players: each human policy's cost averaged over the seats (a player who does not know its seat), and the sum "
    "over the seats (with two players and mode 'equilibrium' seed 002 Fig. 2's measure, with the sign reversed), "
    "in each reading (mode).",
    select(_pc.c.variant, _pc.c.players, _pc.c.mode, _pc.c.policy,
           func.avg(_pc.c.cost, type_=Double).label("mean_cost"),
           func.sum(_pc.c.cost, type_=Double).label("total_cost"))
    .group_by(_pc.c.variant, _pc.c.players, _pc.c.mode, _pc.c.policy),
    {"variant": VARIANT, "players": PLAYERS, "mode": "how the other seats play (see rolled_ones_policy_costs)",
     "policy": "seed 002's human-playable policy",
     "mean_cost": "the mean over the seats of p_win_optimal - p_win, probability difference",
     "total_cost": "the sum over the seats of p_win_optimal - p_win, probability difference"},
)

rolled_ones_seat_wins, rolled_ones_compensation, rolled_ones_fair_compensation = seat_views(
    GAME, "N players", rolled_ones_turn_starts, {"variant": VARIANT}, SEATS, PLAYERS, " New, unpublished results.")

VIEWS = [
    rolled_ones_policy_cost_means,
    rolled_ones_seat_wins,
    rolled_ones_compensation,
    rolled_ones_fair_compensation,
    rolled_ones_policy_actions,
    rolled_ones_policy_values,
    rolled_ones_disagreements,
    rolled_ones_komi,
    rolled_ones_fair_komi,
    rolled_ones_policy_gaps,
    rolled_ones_first_player_advantage,
]
