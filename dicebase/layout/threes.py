"""Threes' storage layout: where ``threes_win`` holds each pre-roll state.

Standard library and :mod:`dicebase.rules` only.  A block is one (variant, ties) pair's rows;
the build writes the blocks in (variant, ties) order and each block level by level
(``players_after``), then per pre-roll class (dice_left, must_keep_two) every (to_beat, reachable
score): a state's position follows from the rules (:func:`win_position`).
"""

from __future__ import annotations

from functools import lru_cache

from dicebase.layout import Table
from dicebase.rules.threes import Rules

WIN = Table("threes_win", ("variant", "ties"), ("players_after", "to_beat", "dice_left", "must_keep_two", "score"))


@lru_cache(maxsize=64)
def win_classes(rules: Rules) -> tuple[tuple[int, bool, tuple[int, ...]], ...]:
    """The pre-roll classes of one level in the order the block holds them: (dice_left,
    must_keep_two, the reachable scores in order).  Within a class come every to_beat
    0..no_target in turn, each with every score of the class: the builder writes this order
    (dicebase/builder/threes.py), :func:`win_position` reads it."""
    return tuple((d, bool(f), tuple(s for s, ok in enumerate(rules.reachable_scores(d)) if ok))
                 for d in range(rules.dice + 1) for f in rules.flags(d))


@lru_cache(maxsize=64)
def win_grid(rules: Rules) -> tuple[dict, dict, int]:
    """((dice_left, must_keep_two) -> (first row within a level, scores per to_beat),
    dice_left -> {score: index among the reachable scores}, rows per level)."""
    nb = rules.no_target + 1
    starts, ranks, at = {}, {}, 0
    for d, f, scores in win_classes(rules):
        ranks[d] = {s: n for n, s in enumerate(scores)}
        starts[(d, f)] = (at, len(scores))
        at += nb * len(scores)
    return starts, ranks, at


def win_position(rules: Rules, players_after: int, to_beat: int, dice_left: int, must_keep_two: bool,
                 score: int) -> int | None:
    """Position of a state in its (variant, ties) block of threes_win (None: not a stored state)."""
    starts, ranks, size = win_grid(rules)
    where, n = starts.get((dice_left, bool(must_keep_two))), ranks.get(dice_left, {}).get(score)
    if where is None or n is None or not 0 <= to_beat <= rules.no_target or players_after < 0:
        return None
    return players_after * size + where[0] + to_beat * where[1] + n


def block_sizes(blocks: list[tuple[str, str, Rules, int]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(variant, ties) -> (first row, rows) of each block, written in (variant, ties) order; each
    entry of ``blocks`` is (variant, ties, rules, players_after levels)."""
    out, at = {}, 0
    for name, ties, rules, levels in sorted(blocks, key=lambda b: b[:2]):
        size = win_grid(rules)[2] * levels
        out[(name, ties)] = (at, size)
        at += size
    return out


# -- Datasette (``dicebase export --format datasette``, :mod:`dicebase.builder.datasette`) -----------------

#: The source documents (seeds) of this game's numbers, as the metadata's ``source`` names them.
SOURCE = "Threes rules and value tables (000, 001, 003)"

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


def canned_queries() -> dict[str, dict]:
    """Its Datasette canned queries: name -> title, description, SQL with named parameters, parameters."""
    return {
        "threes_best_keep": {
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
        },
    }
