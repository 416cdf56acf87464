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
* ``ten_thousand_exceed`` (block ``(rules, policy)``) and ``ten_thousand_solitaire`` (block
  ``rules``): dense grids of (points step, class), the classes of a step in a fixed order,
  :func:`grid_position`; needs start at one unit, turn totals at 0;
* ``ten_thousand_keeps`` and ``ten_thousand_rolls`` (block ``rules``): one run of rows per
  (dice, triple) class.

A held row of ``ten_thousand_duel`` is keyed by :func:`held_key` (turn total, dice, triple in one
integer, increasing in the build's order within a pair).
"""

from __future__ import annotations

from dicebase.layout import Table
from dicebase.rules.ten_thousand import FACES

DUEL = Table("ten_thousand_duel", ("rules", "goal"), ("score", "opponent", "turn_total", "dice", "triple"))
BOUNDS = Table("ten_thousand_duel_bounds", ("rules", "goal"), ("score", "opponent"))
EXCEED = Table("ten_thousand_exceed", ("rules", "policy"), ("need", "dice", "triple"))
SOLITAIRE = Table("ten_thousand_solitaire", ("rules",), ("turn_total", "dice", "triple"))
KEEPS = Table("ten_thousand_keeps", ("rules",), ("dice", "triple", "roll", "keep"))
ROLLS = Table("ten_thousand_rolls", ("rules",), ("dice", "triple", "roll"))

#: The points column of each dense grid and the points of its first step, in units
GRID_STEP = {EXCEED.name: ("need", 1), SOLITAIRE.name: ("turn_total", 0)}


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
