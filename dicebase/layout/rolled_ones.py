"""Great Rolled Ones' storage layout: which states ``rolled_ones_states`` holds and where.

Standard library and :mod:`dicebase.rules` only.  A block is one variant's rows (variants in
name order, each written whole); a row is keyed by seed 002's state ``(p, i, j, k, o)``.  Stored:
``p`` in {1, 2}, ``0 <= i, j < goal``, every ``(k, o)`` a turn can reach (:func:`reachable_turns`),
and for player 2 only the states where holding has not already won
(:meth:`~dicebase.rules.rolled_ones.Rules.holding_wins`; those follow from one stored value).
Rows are in key order, so a state's position follows from the rules (:func:`position`).
Player 2's final turn (``j >= goal``) is ``rolled_ones_p_exceed``, keyed by ``(delta, o)``.
"""

from __future__ import annotations

from functools import lru_cache

from dicebase.layout import Table
from dicebase.rules.rolled_ones import Rules, reachable_turns

STATES = Table("rolled_ones_states", ("variant",), ("p", "i", "j", "k", "o"))
FINAL = Table("rolled_ones_p_exceed", ("variant",), ("delta", "o"))


def stored(rules: Rules, p: int, i: int, j: int, k: int, o: int) -> bool:
    """Whether state ``(p, i, j, k, o)`` is a row of ``rolled_ones_states``."""
    return (p in (1, 2) and 0 <= i < rules.goal and 0 <= j < rules.goal and (k, o) in reachable_turns(rules)
            and not rules.holding_wins(p, i, k))


@lru_cache(maxsize=16)
def positions(rules: Rules) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], tuple[int, int]], int]:
    """Where each state lies in its variant's block: ((k, o) -> index within a (p, i, j) group,
    (p, i) -> (first row of the group of j = 0, rows per group), rows of the variant).  Within a
    group the turns are in key order, and player 2's group holds the first turns only (those
    where holding has not won: they come first in key order, as k grows)."""
    turns = sorted(reachable_turns(rules))
    order = {turn: n for n, turn in enumerate(turns)}
    starts, at = {}, 0
    for p in (1, 2):
        for i in range(rules.goal):
            per_pair = sum(1 for k, _o in turns if not rules.holding_wins(p, i, k))
            starts[(p, i)] = (at, per_pair)
            at += rules.goal * per_pair
    return order, starts, at


def position(rules: Rules, p: int, i: int, j: int, k: int, o: int) -> int | None:
    """Position of state ``(p, i, j, k, o)`` in its variant's block (None: not a stored state)."""
    order, starts, _size = positions(rules)
    n = order.get((k, o))
    if n is None or p not in (1, 2) or not (0 <= i < rules.goal and 0 <= j < rules.goal):
        return None
    first_row, per_pair = starts[(p, i)]
    if n >= per_pair:  # player 2 past a certain win: not stored
        return None
    return first_row + j * per_pair + n


@lru_cache(maxsize=16)
def position_tables(rules: Rules) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...],
                                           tuple[tuple[int, ...], ...]]:
    """:func:`position` as three tables, for computing it over arrays of keys (``hold()``):
    ``turn[k][o]`` the index of turn (k, o) within a (p, i, j) group (-1: not a reachable turn),
    ``first_row[p - 1][i]`` and ``per_pair[p - 1][i]`` where the group of (p, i, j = 0) starts and
    how many rows a group has.  A state is stored when its turn's index is below ``per_pair``, and
    lies at ``first_row + j * per_pair + index``."""
    order, starts, _size = positions(rules)
    turn = [[-1] * (max(o for _k, o in order) + 1) for _ in range(max(k for k, _o in order) + 1)]
    for (k, o), n in order.items():
        turn[k][o] = n
    first_row = tuple(tuple(starts[(p, i)][0] for i in range(rules.goal)) for p in (1, 2))
    per_pair = tuple(tuple(starts[(p, i)][1] for i in range(rules.goal)) for p in (1, 2))
    return tuple(map(tuple, turn)), first_row, per_pair


def block_start(sizes: dict[str, int], name: str) -> int:
    """First row of variant ``name``'s block: the blocks of the variants before it (name order)."""
    return sum(size for other, size in sizes.items() if other < name)
