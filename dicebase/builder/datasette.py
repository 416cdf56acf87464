"""Datasette metadata for an exported SQLite file: descriptions and canned lookups.

``dicebase export --format datasette --out DIR`` writes ``DIR/dicebase.sqlite``
and ``DIR/metadata.json``; ``datasette serve DIR/dicebase.sqlite -m
DIR/metadata.json`` is then a browsable site and JSON API.  The metadata
carries every table's, view's and column's description (units are part of
each description: "points", "probability 0-1"), and canned queries with
named parameters for the main lookups, each returning the rows the CLI
prints (best first).  Datasette passes every parameter as text; the SQL
compares them with typed columns (SQLite converts) or casts them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from dicebase.version import __version__

DATABASE = "dicebase"  # the file is DIR/dicebase.sqlite, so Datasette names the database "dicebase"

SOURCE = (
    "dicebase's source documents (seeds): Threes rules and value tables (000, 001, 003), "
    "Neller, Nguyen, Pham, Phan & Presser, 'Optimal Play of the Great Rolled Ones Game' (002), "
    "'Building an AI' for the dice game 10,000 (004)"
)

#: Threes, seed 001's question: every legal keep of a roll ranked by the win probability with
#: :players_after players still to play and :to_beat the best final score so far (as
#: `dicebase threes best ROLL --to-beat T --players-after M`).  The roll is faces in any order,
#: space-separated; keeps are the lowest-worth dice first, legal per threes_variants.
THREES_BEST_KEEP_SQL = """
WITH RECURSIVE
rules AS (
  SELECT variant, min_keep, allow_reroll, keep_after_reroll, worths || ',' AS worths
  FROM threes_variants WHERE variant = :variant
),
worth(face, rest, points) AS (  -- each face's worth, from threes_variants.worths
  SELECT 0, worths, NULL FROM rules
  UNION ALL
  SELECT face + 1, substr(rest, instr(rest, ',') + 1), CAST(substr(rest, 1, instr(rest, ',') - 1) AS INTEGER)
  FROM worth WHERE rest <> ''
),
rolled(n, rest, face) AS (  -- the faces of :roll
  SELECT 0, trim(:roll) || ' ', NULL
  UNION ALL
  SELECT n + 1, ltrim(substr(rest, instr(rest, ' ') + 1)), CAST(substr(rest, 1, instr(rest, ' ') - 1) AS INTEGER)
  FROM rolled WHERE rest <> ''
),
ordered AS (  -- keep order: lowest worth first
  SELECT r.face, w.points, ROW_NUMBER() OVER (ORDER BY w.points, r.face) AS kept
  FROM rolled r JOIN worth w ON w.face = r.face WHERE r.n > 0
),
keeps AS (  -- keeping the first `kept` dice: their faces and points
  SELECT 0 AS kept, '' AS keep, 0 AS points
  UNION ALL
  SELECT kept, group_concat(face, ' ') OVER upto, SUM(points) OVER upto
  FROM ordered WINDOW upto AS (ORDER BY kept ROWS UNBOUNDED PRECEDING)
),
roll AS (SELECT count(*) AS dice FROM ordered)
SELECT k.keep, w.p_win
FROM keeps k CROSS JOIN rules r CROSS JOIN roll
JOIN threes_win w
  ON w.variant = r.variant AND w.ties = :ties AND w.players_after = :players_after AND w.to_beat = :to_beat
 AND w.dice_left = roll.dice - k.kept AND w.must_keep_two = (k.kept = 0) AND w.score = :score + k.points
WHERE k.kept >= CASE
    WHEN lower(:must_keep_two) IN ('1', 'true', 'yes') THEN min(r.keep_after_reroll, roll.dice)
    WHEN r.allow_reroll AND roll.dice > 1 THEN 0
    ELSE min(r.min_keep, roll.dice) END
ORDER BY w.p_win DESC, k.kept
"""

#: Great Rolled Ones: roll or hold at state (:player, :score, :opponent, :turn_total, :ones), both
#: actions with their win probability, the optimal first (as `dicebase rolled-ones best`).  Stored
#: states and player 2's final turn (player 1 at or above the goal, rolled_ones_p_exceed).
ROLLED_ONES_BEST_SQL = """
WITH v AS (SELECT variant, goal FROM rolled_ones_variants WHERE variant = :variant),
found AS (
  SELECT s.p_roll, s.p_hold, s.best
  FROM rolled_ones_states s JOIN v ON s.variant = v.variant
  WHERE s.p = :player AND s.i = :score AND s.j = :opponent AND s.k = :turn_total AND s.o = :ones
  UNION ALL
  SELECT e.p_roll, e.p_hold, e.best
  FROM rolled_ones_p_exceed e JOIN v ON e.variant = v.variant
  WHERE CAST(:player AS INTEGER) = 2 AND CAST(:opponent AS INTEGER) >= v.goal
    AND e.delta = max(:opponent - :score - :turn_total, -1) AND e.o = :ones
)
SELECT action, p_win FROM (
  SELECT 'roll' AS action, p_roll AS p_win, best FROM found
  UNION ALL
  SELECT 'hold', p_hold, best FROM found
)
ORDER BY action <> best, action = 'hold'
"""


def _ten_thousand_sql(lookahead: str) -> str:
    """A 10,000 lookahead of dicebase.query.ten_thousand with friendlier parameter names, best first.

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


def canned_queries(games: list[str]) -> dict[str, dict]:
    """Datasette canned queries for the games in the file."""
    queries: dict[str, dict] = {}
    if "threes" in games:
        queries["threes_best_keep"] = {
            "title": "Threes: best keep to win",
            "description": (
                "Every legal keep of a roll (faces, any order, e.g. 4 3 1 1 2), best first, with the win "
                "probability when everyone plays to win: to_beat = best final score so far (31 = nobody has "
                "finished), players_after = players still to play after you, score = points kept so far, "
                "ties = shared or strict, must_keep_two = true after a re-roll. "
                "Same rows as: dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 4"
            ),
            "sql": THREES_BEST_KEEP_SQL.strip(),
            "params": ["variant", "roll", "score", "to_beat", "players_after", "ties", "must_keep_two"],
        }
    if "rolled_ones" in games:
        queries["rolled_ones_best_action"] = {
            "title": "Great Rolled Ones: roll or hold",
            "description": (
                "Both actions at a state with player 1 or 2 to move, best first, with the win probability: "
                "score and opponent = banked points, turn_total = points this turn, ones = 1s set aside "
                "(variant standard). Same rows as: dicebase rolled-ones best --player 1 --score 30 "
                "--opponent 42 --turn-total 12 --ones 1"
            ),
            "sql": ROLLED_ONES_BEST_SQL.strip(),
            "params": ["variant", "player", "score", "opponent", "turn_total", "ones"],
        }
    if "ten_thousand" in games:
        from dicebase.layout.ten_thousand import DUEL_LOOKAHEAD_SQL, SOLITAIRE_LOOKAHEAD_SQL

        queries["ten_thousand_best_keep"] = {
            "title": "10,000: best keep for the most points this turn",
            "description": (
                "Every legal keep of a roll (ascending faces, e.g. 112345), best first, with the expected points "
                "banked this turn under optimal play and whether to roll on or bank after it; triple = face of "
                "a standing three of a kind (0 = none), rules = ten-thousand or farkle. Same rows as: "
                "dicebase ten-thousand best 1 1 5 2 3 4 --turn-total 0"
            ),
            "sql": _ten_thousand_sql(SOLITAIRE_LOOKAHEAD_SQL),
            "params": ["rules", "roll", "turn_total", "triple"],
        }
        queries["ten_thousand_best_keep_to_win"] = {
            "title": "10,000: best keep to win the two-player game",
            "description": (
                "Every legal keep of a roll, best first, with the chance to win the two-player game to the built "
                "goal: score = your banked points, opponent = theirs (below the goal). Same rows as: "
                "dicebase ten-thousand best 1 5 5 --turn-total 600 --score 9000 --opponent 9500"
            ),
            "sql": _ten_thousand_sql(DUEL_LOOKAHEAD_SQL),
            "params": ["rules", "roll", "turn_total", "triple", "score", "opponent"],
        }
    return queries


def metadata(relations: list, games: list[str]) -> dict:
    """Datasette's metadata.json: title, description, source, every table's and column's description,
    and the canned queries."""
    tables = {
        rel.name: {
            "description": rel.description,
            "columns": {name: text for name, _type, text, _key, _required in rel.columns},
        }
        for rel in relations
    }
    return {
        "title": "dicebase",
        "description": (
            f"dicebase {__version__}: solved push-your-luck dice games (Threes, Great Rolled Ones, "
            "10,000). Every table and view is described, and so is every column, with its unit. "
            "The canned queries answer the main lookups exactly as the dicebase command line does."
        ),
        "source": SOURCE,
        "databases": {DATABASE: {"tables": tables, "queries": canned_queries(games)}},
    }


def write_metadata(path: Path, relations: list, games: list[str]) -> None:
    Path(path).write_text(json.dumps(metadata(relations, games), indent=2) + "\n")
