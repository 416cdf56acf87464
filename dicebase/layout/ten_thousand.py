"""10,000's storage layout: which states are stored, how their keys read, the SQL that reads them.

Standard library and :mod:`dicebase.rules` only (no numpy, no sqlalchemy): the builder and the
query side both import this module, and the CLI's lookup path must not import numpy.
"""

from __future__ import annotations

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
