"""10,000's storage layout: which states are stored, how their keys read, the SQL that reads them.

Standard library and :mod:`dicebase.rules` only (no numpy, no sqlalchemy): the builder and the
query side both import this module, and the CLI's lookup path must not import numpy.

Every table is written once per block, in key order, so a row's key gives its position:

* ``ten_thousand_duel_bounds`` (block ``(rules, goal)``): one row per pair (score, opponent),
  position ``score // unit * G + opponent // unit`` (G = goal // unit), :func:`pair_position`;
* ``ten_thousand_duel`` (block ``(rules, goal)``): the roll-optimal pre-roll states only (a
  bank state follows from turn-start values), pair after pair in the bounds' order; where a
  pair's rows start and how many there are is the bounds row's ``first_row`` and ``row_count``;
  the block itself starts after the rows of every bounds block before its own;
* ``ten_thousand_exceed`` (block ``(rules, policy)``), ``ten_thousand_last_turn`` and
  ``ten_thousand_solitaire`` (block ``rules``): dense grids of (points step, class), the classes of
  a step in a fixed order, :func:`grid_position`; needs start at one unit, turn totals at 0;
* ``ten_thousand_keeps`` and ``ten_thousand_rolls`` (block ``rules``): one run of rows per
  (dice, triple) class.

A held row of ``ten_thousand_duel`` is keyed by :func:`held_key` (turn total, dice, triple in one
integer, increasing in the build's order within a pair).
"""

from __future__ import annotations

import re

from dicebase.layout import Table, start_position, start_rows, tuple_index
from dicebase.rules.ten_thousand import FACES

DUEL = Table("ten_thousand_duel", ("rules", "goal"), ("score", "opponent", "turn_total", "dice", "triple"))
BOUNDS = Table("ten_thousand_duel_bounds", ("rules", "goal"), ("score", "opponent"))
EXCEED = Table("ten_thousand_exceed", ("rules", "policy"), ("need", "dice", "triple"))
#: issue 24: the last turn with shared ties (rule sets with last_round = others_one_turn_ties_shared only)
LAST_TURN = Table("ten_thousand_last_turn", ("rules",), ("need", "dice", "triple"))
#: issue 24: two-player turn starts with both farkle counts (rule sets with a consecutive-farkle penalty only),
#: written per (rules, goal) in key order; read by key (score = the opponent's score of a lookup)
PENALTY_START = Table("ten_thousand_penalty_start", ("rules", "goal"), ("score", "opponent", "count", "opponent_count"))
SOLITAIRE = Table("ten_thousand_solitaire", ("rules",), ("turn_total", "dice", "triple"))
KEEPS = Table("ten_thousand_keeps", ("rules",), ("dice", "triple", "roll", "keep"))
ROLLS = Table("ten_thousand_rolls", ("rules",), ("dice", "triple", "roll"))

#: The points column of each dense grid and the points of its first step, in units
GRID_STEP = {EXCEED.name: ("need", 1), LAST_TURN.name: ("need", 1), SOLITAIRE.name: ("turn_total", 0)}


def pair_position(unit: int, G: int, score: int, opponent: int) -> int | None:
    """Position of pair (score, opponent) in its ``ten_thousand_duel_bounds`` block (G = goal //
    unit); None: not a pair the block holds."""
    if score % unit or opponent % unit or not (0 <= score < G * unit and 0 <= opponent < G * unit):
        return None
    return score // unit * G + opponent // unit


def pair_at(unit: int, G: int, position: int) -> tuple[int, int]:
    """(score, opponent) of the bounds row at ``position``: :func:`pair_position` inverted."""
    return position // G * unit, position % G * unit


def grid_position(unit: int, first: int, classes: tuple, points: int, dice: int, triple: int) -> int | None:
    """Position of (points, dice, triple) in a dense grid whose steps start at ``first`` units and
    hold ``classes`` (their (dice, triple) in order); None: not a key of the grid."""
    if points % unit or (dice, triple) not in classes:
        return None
    return (points // unit - first) * len(classes) + classes.index((dice, triple))


def grid_key(unit: int, first: int, classes: tuple, position: int) -> tuple[int, int, int]:
    """(points, dice, triple) at ``position`` of a dense grid: :func:`grid_position` inverted."""
    step, at = divmod(position, len(classes))
    return ((step + first) * unit, *classes[at])


#: A held row's key: turn_total // unit * KEY_STEP + dice * DIE_SLOTS + triple (dice 0..6 and
#: triple 0..FACES each fit a slot)
DIE_SLOTS = 8
KEY_STEP = DIE_SLOTS * DIE_SLOTS
assert FACES < DIE_SLOTS


def held_key(unit: int, turn_total: int, dice: int, triple: int) -> int:
    """The integer a held two-player row is keyed by (increasing in the build's row order)."""
    return turn_total // unit * KEY_STEP + dice * DIE_SLOTS + triple


def held_key_parts(unit: int, key: int) -> tuple[int, int, int]:
    """(turn_total, dice, triple) of a :func:`held_key`."""
    return key // KEY_STEP * unit, key // DIE_SLOTS % DIE_SLOTS, key % DIE_SLOTS


#: Value of every keep of a roll in the two-player game by one-step lookahead.
#: Named parameters (see :func:`positional`): :k turn total, :i score, :j opponent (< :goal),
#: :goal, :rules, :dice, :triple, :roll, :unit (the scoring unit), :start (dice at a turn start).  A continuation state missing from
#: ten_thousand_duel banks: below the goal its value is 1 - the opponent's turn-start value,
#: at or above it 1 - the opponent's chance to exceed in the last turn (0 past the stored needs).
DUEL_LOOKAHEAD_SQL = """
SELECT kp.keep, kp.points, kp.dice_used, kp.dice_after, kp.triple_after, kp.hot_dice, kp.dominated,
       CASE WHEN d.p_win IS NOT NULL THEN d.p_win
            WHEN :i + :k + kp.points < :goal THEN 1 - w.p_win
            ELSE 1 - COALESCE(e.p_exceed, 0) END AS value,
       CASE WHEN d.p_win IS NOT NULL THEN 'roll' ELSE 'bank' END AS then_action
FROM ten_thousand_keeps kp
LEFT JOIN ten_thousand_duel d
  ON d.rules = :rules AND d.goal = :goal AND d.score = :i AND d.opponent = :j
 AND d.turn_total = :k + kp.points AND d.dice = kp.dice_after AND d.triple = kp.triple_after
LEFT JOIN ten_thousand_duel w
  ON w.rules = :rules AND w.goal = :goal AND w.score = :j AND w.opponent = :i + :k + kp.points
 AND w.turn_total = 0 AND w.dice = :start AND w.triple = 0
LEFT JOIN ten_thousand_exceed e
  ON e.rules = :rules AND e.policy = 'optimal' AND e.need = :i + :k + kp.points - :j + :unit
 AND e.dice = :start AND e.triple = 0
WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple AND kp.roll = :roll
"""

#: Value of every keep of a roll in the LAST turn (the opponent has banked :j >= goal; the
#: player to move must end above it).  :need = :j - :i - :k + :unit is what the turn must still
#: gain before this roll.  A keep that gets ahead banks and wins (1); otherwise the player
#: rolls on, winning with the stored chance to still gain the rest (0 past the stored needs).
LAST_TURN_SQL = """
SELECT kp.keep, kp.points, kp.dice_used, kp.dice_after, kp.triple_after, kp.hot_dice, kp.dominated,
       CASE WHEN kp.points >= :need THEN 1.0 ELSE COALESCE(e.p_exceed, 0) END AS value,
       CASE WHEN kp.points >= :need THEN 'bank' ELSE 'roll' END AS then_action
FROM ten_thousand_keeps kp
LEFT JOIN ten_thousand_exceed e
  ON e.rules = :rules AND e.policy = 'optimal' AND e.need = :need - kp.points
 AND e.dice = kp.dice_after AND e.triple = kp.triple_after
WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple AND kp.roll = :roll
"""

#: Win probability of BANKING at a two-player state (:i score, :j opponent, both < :goal,
#: :k > 0 turn total): below the goal the opponent starts a normal turn at (:j, :i + :k);
#: at or above it the opponent gets the last turn and must gain :i + :k - :j + :unit or more.
BANK_VALUE_SQL = """
SELECT CASE WHEN :i + :k < :goal
       THEN 1 - (SELECT w.p_win FROM ten_thousand_duel w
                 WHERE w.rules = :rules AND w.goal = :goal AND w.score = :j AND w.opponent = :i + :k
                   AND w.turn_total = 0 AND w.dice = :start AND w.triple = 0)
       ELSE 1 - COALESCE((SELECT e.p_exceed FROM ten_thousand_exceed e
                          WHERE e.rules = :rules AND e.policy = 'optimal' AND e.need = :i + :k - :j + :unit
                            AND e.dice = :start AND e.triple = 0), 0) END AS bank_value
"""

#: Win probability of ROLLING at any two-player pre-roll state (then playing optimally), by
#: one-step lookahead over every roll of (:dice, :triple): the best keep's value per roll (as in
#: DUEL_LOOKAHEAD_SQL), weighted by the roll's probability; a farkle is worth :farkle =
#: 1 - the opponent's turn-start value at (:j, :i).  This is how `state` values a bank state's roll.
ROLL_VALUE_SQL = """
WITH kv AS (
  SELECT kp.roll,
         MAX(CASE WHEN d.p_win IS NOT NULL THEN d.p_win
                  WHEN :i + :k + kp.points < :goal THEN 1 - w.p_win
                  ELSE 1 - COALESCE(e.p_exceed, 0) END) AS best
  FROM ten_thousand_keeps kp
  LEFT JOIN ten_thousand_duel d
    ON d.rules = :rules AND d.goal = :goal AND d.score = :i AND d.opponent = :j
   AND d.turn_total = :k + kp.points AND d.dice = kp.dice_after AND d.triple = kp.triple_after
  LEFT JOIN ten_thousand_duel w
    ON w.rules = :rules AND w.goal = :goal AND w.score = :j AND w.opponent = :i + :k + kp.points
   AND w.turn_total = 0 AND w.dice = :start AND w.triple = 0
  LEFT JOIN ten_thousand_exceed e
    ON e.rules = :rules AND e.policy = 'optimal' AND e.need = :i + :k + kp.points - :j + :unit
   AND e.dice = :start AND e.triple = 0
  WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple
  GROUP BY kp.roll
)
SELECT SUM(r.probability * COALESCE(kv.best, :farkle)) AS roll_value
FROM ten_thousand_rolls r LEFT JOIN kv ON kv.roll = r.roll
WHERE r.rules = :rules AND r.dice = :dice AND r.triple = :triple
"""

#: ROLL_VALUE_SQL's terms before the sum: (probability, best keep's value or NULL for a farkle) per roll.
ROLL_PARTS_SQL = ROLL_VALUE_SQL.replace(
    "SELECT SUM(r.probability * COALESCE(kv.best, :farkle)) AS roll_value", "SELECT r.probability, kv.best"
)
assert ROLL_PARTS_SQL != ROLL_VALUE_SQL

#: Value of every keep of a roll in the solitaire turn by one-step lookahead.
#: Named parameters :k, :rules, :dice, :triple, :roll.  Past the stored bound banking is
#: optimal and the value is the turn total itself.
SOLITAIRE_LOOKAHEAD_SQL = """
SELECT kp.keep, kp.points, kp.dice_used, kp.dice_after, kp.triple_after, kp.hot_dice, kp.dominated,
       COALESCE(s.value, :k + kp.points) AS value,
       COALESCE(s.action, 'bank') AS then_action
FROM ten_thousand_keeps kp
LEFT JOIN ten_thousand_solitaire s
  ON s.rules = :rules AND s.turn_total = :k + kp.points AND s.dice = kp.dice_after
 AND s.triple = kp.triple_after
WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple AND kp.roll = :roll
"""


# --------------------------------------------------------------------------- N players (issue 21)
# docs/n_players.md.  One block per (rules, goal, players), written in (rules, goal, players) order.
# Scores, totals and deficits are stored in points (multiples of the rule set's unit); positions are
# computed in units.
#: One score column and one win column per seat, for up to MAX_PLAYERS seats (0 beyond ``players``).
NP_SCORES = ("score1", "score2", "score3", "score4")
NP_WINS = ("p_win1", "p_win2", "p_win3", "p_win4")
#: The final round's roles: the leader (the seat that set the bar) and the seats still to play, in order.
NP_ROLES = ("p_leader", "p_later1", "p_later2", "p_later3")
NP_TURN_STARTS = "ten_thousand_turn_starts"
NP_FINAL_ROUND = "ten_thousand_final_round"
NP_PLAYERS = Table("ten_thousand_players", ("rules", "goal"), ("players",))
NP_BLOCK = ("rules", "goal", "players")


def np_starts_table(players: int) -> Table:
    """``ten_thousand_turn_starts`` for ``players`` seats: block (rules, goal, players), key (seat to move,
    the scores of seats 1..players); score columns beyond ``players`` hold 0 and are not part of the key."""
    return Table(NP_TURN_STARTS, NP_BLOCK, ("seat", *NP_SCORES[:players]))


#: ``ten_thousand_final_round``: block (rules, goal, players), key (later, gap2, gap3, deficit).
NP_FINAL = Table(NP_FINAL_ROUND, NP_BLOCK, ("later", "gap2", "gap3", "deficit"))
#: ``ten_thousand_roll_groups``: block (rules), key (dice, triple, roll_group, keep); read whole by its block, once
#: per connection (a few thousand rows), by the N-player lookups.
NP_ROLL_GROUPS = Table("ten_thousand_roll_groups", ("rules",), ("dice", "triple", "roll_group", "keep"))


#: Rows of a block of ``ten_thousand_turn_starts`` (``G = goal // unit``) and a tuple's index (units): the shared ones.
np_start_rows, np_tuple_index = start_rows, tuple_index


def np_start_position(unit: int, G: int, players: int, seat: int, *scores: int) -> int | None:
    """Position of the turn start (seat to move, scores in points) in its block: seat-major, then the
    tuple index (None: not a stored key)."""
    if any(s % unit for s in scores):
        return None
    return start_position(G, players, seat, *(s // unit for s in scores))


def np_final_sizes(G: int, players: int, deficits: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """(first row of each ``later`` = r, 0-based index r; rows of the block).  ``deficits[r]``: the deficits
    ``0 .. deficits[r] - 1`` (units) kept per gap pattern of ``r`` later seats (r = 1 .. players - 1;
    index 0 unused); ``r`` later seats have ``(2G - 1)^(r - 1)`` gap patterns."""
    B = 2 * G - 1
    first, at = [0], 0
    for r in range(1, players):
        first.append(at)
        at += B ** (r - 1) * deficits[r]
    return tuple(first), at


def np_final_position(unit: int, G: int, players: int, deficits: tuple[int, ...], later: int, gap2: int,
                      gap3: int, deficit: int) -> int | None:
    """Position of a ``ten_thousand_final_round`` row (points): ``later`` seats still to play, ``deficit``
    = bar minus the first later seat's score, ``gap2``/``gap3`` = the second/third later seat's deficit
    minus the first's (0 when there is no such seat).  Rows run gap2, then gap3, then deficit, so the
    bars of one set of later scores are consecutive rows."""
    if not 1 <= later < players or any(x % unit for x in (gap2, gap3, deficit)):
        return None
    g2, g3, d = gap2 // unit, gap3 // unit, deficit // unit
    if not 0 <= d < deficits[later] or (later < 2 and g2) or (later < 3 and g3):
        return None
    if any(not -(G - 1) <= g <= G - 1 for g in (g2, g3)):
        return None
    first, _ = np_final_sizes(G, players, deficits)
    B = 2 * G - 1
    pattern = ((g2 + G - 1) * B + (g3 + G - 1) if later == 3 else g2 + G - 1) if later >= 2 else 0
    return first[later] + pattern * deficits[later] + d


def np_block_start(sizes: dict[tuple, int], block: tuple) -> int:
    """First row of ``block`` (rules, goal, players): the blocks before it in that order."""
    return sum(size for other, size in sizes.items() if other < block)


# -- Datasette (``dicebase export --format datasette``, :mod:`dicebase.builder.datasette`) -----------------

#: The source documents (seeds) of this game's numbers, as the metadata's ``source`` names them.
SOURCE = "'Building an AI' for the dice game 10,000 (004)"


def _ten_thousand_sql(lookahead: str) -> str:
    """A lookahead of this module (as the lookups run it) with friendlier parameter names, best first.

    :dice is the roll's length; :goal the two-player goal the file was built with; :start and :unit the
    rule set's dice at a turn start and scoring unit."""
    renames = {
        "dice": "length(:roll)",
        "goal": "(SELECT MAX(goal) FROM ten_thousand_policy_duel WHERE rules = :rules)",
        "k": ":turn_total",
        "i": ":score",
        "j": ":opponent",
        "start": "(SELECT MAX(dice) FROM ten_thousand_classes WHERE rules = :rules)",
        "unit": "(SELECT CAST(json_extract(rules_json, '$.unit') AS INTEGER) FROM build_variants "
        "WHERE game = 'ten_thousand' AND variant = :rules)",
    }
    body = re.sub(r":([a-z]+)\b", lambda m: renames.get(m.group(1), m.group(0)), lookahead.strip())
    return (
        "SELECT keep, points, dice_after, triple_after, value, then_action, dominated\n"
        f"FROM (\n{body}\n)\nORDER BY value DESC, points DESC, dice_used DESC"
    )


def canned_queries() -> dict[str, dict]:
    """Its Datasette canned queries: name -> title, description, SQL with named parameters, parameters."""
    return {
        "ten_thousand_best_keep": {
            "title": "10,000: best keep for the most points this turn",
            "description": (
                "Every legal keep of a roll (ascending faces, e.g. 112345), best first, with the expected points "
                "banked this turn under optimal play and whether to roll on or bank after it; triple = face of "
                "a standing three of a kind (0 = none), rules = ten-thousand or farkle. Same rows as: "
                "dicebase ten-thousand best 1 1 5 2 3 4 --turn-total 0"
            ),
            "sql": _ten_thousand_sql(SOLITAIRE_LOOKAHEAD_SQL),
            "params": ["rules", "roll", "turn_total", "triple"],
        },
        "ten_thousand_best_keep_to_win": {
            "title": "10,000: best keep to win the two-player game",
            "description": (
                "Every legal keep of a roll, best first, with the chance to win the two-player game to the built "
                "goal: score = your banked points, opponent = theirs (below the goal). Same rows as: "
                "dicebase ten-thousand best 1 5 5 --turn-total 600 --score 9000 --opponent 9500"
            ),
            "sql": _ten_thousand_sql(DUEL_LOOKAHEAD_SQL),
            "params": ["rules", "roll", "turn_total", "triple", "score", "opponent"],
        },
    }
