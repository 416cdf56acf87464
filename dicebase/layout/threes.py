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
