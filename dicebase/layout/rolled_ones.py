"""Great Rolled Ones' storage layout: which states ``rolled_ones_states`` holds and where.

Standard library and :mod:`dicebase.rules` only.  A block is one variant's rows (variants in
name order, each written whole); a row is keyed by seed 002's state ``(p, i, j, k, o)``.  Stored:
``p`` in {1, 2}, ``0 <= i, j < goal``, every ``(k, o)`` a turn can reach (:func:`reachable_turns`),
and for player 2 only the states where holding has not already won
(:meth:`~dicebase.rules.rolled_ones.Rules.holding_wins`; those follow from one stored value).
Rows are in key order, so a state's position follows from the rules (:func:`position`).
Player 2's final turn (``j >= goal``) is ``rolled_ones_p_exceed``, keyed by ``(delta, o)``.

N players (issue 21; docs/n_players.md): ``rolled_ones_turn_starts`` holds every turn start's win
vector, block (variant, players), key (seat to move, score1..score_players), seat-major then the
score tuple in base ``goal`` (:func:`start_position`); ``rolled_ones_final_turns`` the compact final
round (each later seat's values above the bar, :func:`final_position`); mid-turn states are computed
at lookup.
"""

from __future__ import annotations

from functools import lru_cache

from dicebase.layout import Table, start_position, start_rows, tuple_index  # noqa: F401  (this game's, shared)
from dicebase.rules.rolled_ones import MAX_PLAYERS, Rules, final_totals, reachable_turns

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


# --------------------------------------------------------------------------- N players
#: One score column and one win column per seat, for up to MAX_PLAYERS seats (0 beyond ``players``).
SCORES = tuple(f"score{n}" for n in range(1, MAX_PLAYERS + 1))
WINS = tuple(f"p_win{n}" for n in range(1, MAX_PLAYERS + 1))
#: N-player tables: one block per (variant, players), written in variant name order, then players.
TURN_STARTS = "rolled_ones_turn_starts"
FINAL_TURNS = "rolled_ones_final_turns"
PLAYERS = Table("rolled_ones_players", ("variant",), ("players",))


def starts_table(players: int) -> Table:
    """``rolled_ones_turn_starts`` for ``players`` seats: block (variant, players), key (seat to move,
    the scores of seats 1..players).  Seats beyond ``players`` hold 0 and are not part of the key."""
    return Table(TURN_STARTS, ("variant", "players"), ("seat", *SCORES[:players]))


def finals_table(players: int) -> Table:
    """``rolled_ones_final_turns`` for ``players`` seats: block (variant, players), key (seat on its
    final turn, the scores of seats 1..players (0 for that seat and every seat before it: not part of
    what the row depends on), total, ones)."""
    return Table(FINAL_TURNS, ("variant", "players"), ("seat", *SCORES[:players], "total", "ones"))



def final_layout(rules: Rules, players: int, cap: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Where seat ``j``'s final-turn rows lie: (first row of each seat (index 0-based j, 0 for j = 0),
    totals kept per seat (``TT_j``), rows of the block).  Seat ``j + 1``'s rows: for every index ``R``
    of the later seats' scores (seat ``j + 2`` most significant), totals ``goal + 1 .. goal + TT_j``,
    ones ``0 .. ones_limit - 1``."""
    tt = final_totals(rules, players, cap)
    G, L = rules.goal, rules.ones_limit
    first, at = [0], 0
    for j in range(1, players):
        first.append(at)
        at += G ** (players - 1 - j) * tt[j] * L
    return tuple(first), tuple(tt), at


def final_position(rules: Rules, players: int, cap: int, seat: int, *rest: int) -> int | None:
    """Position of a ``rolled_ones_final_turns`` row, key (seat, score1..score_players, total, ones)."""
    if len(rest) != players + 2 or not 2 <= seat <= players:
        return None
    *scores, t, o = rest
    j = seat - 1
    first, tt, _size = final_layout(rules, players, cap)
    G = rules.goal
    if any(scores[:seat]) or not all(0 <= s < G for s in scores) or not G < t <= G + tt[j] or not 0 <= o < rules.ones_limit:
        return None
    return first[j] + (tuple_index(G, scores[seat:]) * tt[j] + (t - G - 1)) * rules.ones_limit + o


# -- Datasette (``dicebase export --format datasette``, :mod:`dicebase.builder.datasette`) -----------------

#: The source documents (seeds) of this game's numbers, as the metadata's ``source`` names them.
SOURCE = "Neller, Nguyen, Pham, Phan & Presser, 'Optimal Play of the Great Rolled Ones Game' (002)"

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


def canned_queries() -> dict[str, dict]:
    """Its Datasette canned queries: name -> title, description, SQL with named parameters, parameters."""
    return {
        "rolled_ones_best_action": {
            "title": "Great Rolled Ones: roll or hold",
            "description": (
                "Both actions at a state with player 1 or 2 to move, best first, with the win probability: "
                "score and opponent = banked points, turn_total = points this turn, ones = 1s set aside "
                "(variant standard). Same rows as: dicebase rolled-ones best --player 1 --score 30 "
                "--opponent 42 --turn-total 12 --ones 1"
            ),
            "sql": ROLLED_ONES_BEST_SQL.strip(),
            "params": ["variant", "player", "score", "opponent", "turn_total", "ones"],
        },
    }
