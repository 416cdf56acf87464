"""Seed 002's four human-playable policies (Algorithms 1-4), as code, shared by the builder and the bots
(numpy: the command line's lookups never import this module).

Each policy answers "roll?" for a state ``(p, i, j, k, o)``.  The functions
take numpy arrays (or scalars) and evaluate every state at once; each
``_first(...)`` chain is the algorithm's ``if / else if / else`` in order
(the first true condition decides, exactly like the pseudo-code), and each
line carries the seed's line number and comment.  The goal score (50 in
the seed) is the ``goal`` argument; the other constants are the seed's.

Readings (docs/rolled_ones.md, "Readings"), chosen by the ``reading`` arguments:

* All policies: holding at ``k = 0`` is a loss in the equations, so a hold at
  ``k = 0`` is played as a roll (:func:`decide`).  No algorithm asks for it
  in a reachable state; Algorithm 1 does for ``o = 2, k = 0`` and Algorithm 4
  for player 2 far ahead with ``o = 1, k = 0``, both unreachable (rolling a 1
  always comes with at least 3 non-1s).
* Algorithm 2, line 3 ``else if i + k >= 50 then return false`` with comment
  "player 2 holds and wins": the comment names player 2, so only player 2
  holds there (``line3="comment"``, the default); player 1 at the goal goes
  on to lines 5-10 like any other player 1 (rolls on with five dice, holds at
  24 with four, at 4 with three).  ``line3="condition"`` makes player 1 hold
  at the goal too.  Seed 002's Fig. 2 (-0.0268) confirms the comment:
  it gives -0.0268, the condition -0.0433.
* Algorithm 4, line 28 ``return k < 18 + delta`` with comment "else hold with
  >= 28 lead": here we follow the CONDITION (``line28="condition"``, lead 18),
  against the general rule, because seed 002's Fig. 2 (-0.0100) matches it
  (-0.0100) and not the comment (-0.0118); the condition also fits line 24's
  threshold (for ``j < 32``, ``18 + j < 50``: the hold comes before the goal).
  ``line28="comment"`` gives the lead of 28.
* Algorithm 4, line 24 ``if i >= 20 or j >= 32`` with comment "if player 1 / 2
  has scored 20 / 32, resp.": in player 2's branch ``i`` is player 2's own
  score and ``j`` player 1's, so the comment means ``j >= 20 or i >= 32``.
  Here too we follow the CONDITION (``line24="condition"``, the default):
  with it the gap is -0.0100 as in Fig. 2; the comment's reading gives
  -0.0117 (and -0.0114 with line 28's comment as well), both missing Fig. 2's
  -0.0100 by more than 0.0005.  ``line24="comment"`` gives the comment's test.
* Algorithm 4, player 2 (lines 21-34) never tests ``i + k >= 50``: line 22
  keeps rolling with five dice past the goal (and line 28 read with the
  comment's 28 rolls past it with four dice when ``22 <= j < 32``).  A player 2
  who can hold and win does so (the issue's rule): ``hold_to_win=True``
  (default) puts that test right after line 20.  Without it: -0.0113.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from dicebase.rules.rolled_ones import Rules


def _first(*cases, otherwise):
    """``if c1 then v1 else if c2 then v2 ... else otherwise``, element-wise."""
    conds = [np.asarray(c, dtype=bool) for c, _ in cases]
    values = [np.asarray(v, dtype=bool) for _, v in cases]
    shape = np.broadcast_shapes(*(c.shape for c in conds), *(v.shape for v in values), np.shape(otherwise))
    return np.select(
        [np.broadcast_to(c, shape) for c in conds],
        [np.broadcast_to(v, shape) for v in values],
        default=np.broadcast_to(np.asarray(otherwise, dtype=bool), shape),
    )


def roll_with_4_or_5_dice(p, i, j, k, o, goal=50):
    """Algorithm 1: Roll with 4 or 5 dice."""
    return _first(
        ((p == 2) & (j >= goal) & (i + k <= j), True),  # 1-2: player 2 must exceed player 1
        ((p == 2) & (i + k >= goal), False),  # 3-4: player 2 must hold at goal score
        otherwise=o < 2,  # 5-6: roll with 4 or 5 dice
    )


def fixed_hold_at(p, i, j, k, o, goal=50, line3="comment"):
    """Algorithm 2: Fixed hold-at."""
    at_goal = i + k >= goal
    if line3 == "comment":  # line 3's comment: "player 2 holds and wins"
        at_goal = (p == 2) & at_goal
    elif line3 != "condition":
        raise ValueError(f"unknown reading {line3!r}")
    return _first(
        ((p == 2) & (j >= goal) & (i + k <= j), True),  # 1-2: player 2 must exceed player 1
        (at_goal, False),  # 3-4: player 2 holds and wins
        (o == 0, True),  # 5-6: keep rolling with 5 dice
        (o == 1, k < 24),  # 7-8: hold at 24 with 4 dice
        otherwise=k < 4,  # 9-10: hold at 4 with 3 dice
    )


def simple_player_and_ones_cases(p, i, j, k, o, goal=50):
    """Algorithm 3: Simple player and ones cases."""
    player1 = _first(  # 1: player 1 cases
        (o == 0, True),  # 2-3: keep rolling with 5 dice
        (o == 1, k < np.maximum(goal - i, 20 + j - i)),  # 4-5: hold at goal with >= 20 lead with 4 dice
        otherwise=k < np.minimum(goal - i, 5),  # 6-7: hold at 5 or goal with 3 dice
    )
    player2 = _first(  # 9: player 2 cases
        (j >= goal, i + k <= j),  # 10-11: player 2 must exceed player 1
        (i + k >= goal, False),  # 12-13: hold at goal score
        (o < 2, True),  # 14-15: roll with 4 or 5 dice
        otherwise=k < np.minimum(goal - i, 5),  # 16-17: hold at 5 or goal with 3 dice
    )
    return np.where(p == 1, player1, player2)


def keep_pace_end_race_by_case(p, i, j, k, o, goal=50, line28="condition", hold_to_win=True, line24="condition"):
    """Algorithm 4: Keep pace, end race, by case."""
    for reading in (line24, line28):
        if reading not in ("comment", "condition"):
            raise ValueError(f"unknown reading {reading!r}")
    delta = j - i  # 1
    # 6-10: h <- 22 + delta (hold with a >= 22 lead with 4 dice); if player 1 / 2 has
    # scored 10 / 23, resp. (i >= 10 or j >= 23), h <- max(50 - i, h): at least roll for the goal
    h = np.where((i >= 10) | (j >= 23), np.maximum(goal - i, 22 + delta), 22 + delta)
    player1 = _first(  # 2: player 1 cases
        (o == 0, k < np.maximum(goal - i, 38 + delta)),  # 3-4: hold at goal with >= 38 lead with 5 dice
        (o == 1, k < h),  # 5-11
        (i + j >= 71, k < goal - i),  # 12-14: reach the goal when the player score sum reaches 71
        otherwise=k < np.minimum(goal - i, 5),  # 15-16: hold at 5 or goal with 3 dice
    )
    lead = 28 if line28 == "comment" else 18  # 27-28: "else hold with >= 28 lead" / k < 18 + delta
    # 24-25: condition i >= 20 or j >= 32; comment "if player 1 / 2 has scored 20 / 32, resp.", and for
    # player 2 (the mover here) player 1's score is j and player 2's is i: j >= 20 or i >= 32
    scored = (i >= 20) | (j >= 32) if line24 == "condition" else (j >= 20) | (i >= 32)
    player2 = _first(  # 18: player 2 cases
        (j >= goal, k <= delta),  # 19-20: player 2 must exceed player 1
        (hold_to_win & (i + k >= goal), False),  # (the rule: player 2 who can hold and win does so)
        (o == 0, True),  # 21-22: keep rolling with 5 dice
        ((o == 1) & scored, k < goal - i),  # 23-26: if player 1 / 2 has scored 20 / 32, roll for the goal
        (o == 1, k < lead + delta),  # 27-28: else hold with >= 28 lead
        (i + j >= 84, k < goal - i),  # 30-32: reach the goal when the player score sum reaches 84
        otherwise=k < np.minimum(goal - i, 5),  # 33-34: hold at 5 or goal with 3 dice
    )
    return np.where(p == 1, player1, player2)


@dataclass(frozen=True)
class Policy:
    name: str  # stored in the database and typed on the command line
    title: str  # the seed's name
    algorithm: int  # seed 002's algorithm number
    rule: Callable  # (p, i, j, k, o, goal) -> roll?
    seed_gap: float  # seed 002 Fig. 2: win-rate difference to optimal play
    readings: str  # where condition and comment disagree, what we do


_K0 = "a hold at k = 0 (a loss in the equations) is played as a roll"


def _with(func, **kwargs):
    """``func`` with its reading arguments fixed (``rule(p, i, j, k, o, goal)``)."""
    def rule(p, i, j, k, o, goal=50):
        return func(p, i, j, k, o, goal=goal, **kwargs)

    rule.__name__ = func.__name__
    rule.__doc__ = func.__doc__
    return rule


#: The four policies with the readings we follow, in the seed's order.
POLICIES: dict[str, Policy] = {
    p.name: p
    for p in (
        Policy(
            "roll_4_or_5_dice",
            "Roll with 4 or 5 Dice",
            1,
            roll_with_4_or_5_dice,
            -0.0536,
            "as written (conditions and comments agree); " + _K0,
        ),
        Policy(
            "fixed_hold_at",
            "Fixed Hold-At",
            2,
            _with(fixed_hold_at),
            -0.0268,
            "line 3 'i + k >= 50' follows its comment 'player 2 holds and wins': only player 2 holds at the goal, "
            "player 1 goes on to lines 5-10; " + _K0,
        ),
        Policy(
            "simple_ones_cases",
            "Simple Player and Ones Cases",
            3,
            simple_player_and_ones_cases,
            -0.0201,
            "as written (conditions and comments agree); " + _K0,
        ),
        Policy(
            "keep_pace_end_race",
            "Keep Pace, End Race, by Case",
            4,
            _with(keep_pace_end_race_by_case),
            -0.0100,
            "line 24 follows its condition i >= 20 or j >= 32, not its comment 'if player 1 / 2 has scored 20 / 32' "
            "(for player 2, j >= 20 or i >= 32): Fig. 2's -0.0100 matches the condition (-0.0100), not the comment "
            "(-0.0117; -0.0114 with line 28's comment too); "
            "line 28 follows its condition k < 18 + delta (lead 18), not its comment (lead 28): Fig. 2's -0.0100 "
            "matches the condition (-0.0100) and not the comment (-0.0118); player 2 with i + k >= 50 holds and "
            "wins (lines 21-34 never test it); " + _K0,
        ),
    )
}

#: Alternative readings, for the investigation test and docs (not stored).
ALTERNATIVES: dict[str, Callable] = {
    "fixed_hold_at/line3=condition": _with(fixed_hold_at, line3="condition"),
    "keep_pace_end_race/line24=comment": _with(keep_pace_end_race_by_case, line24="comment"),
    "keep_pace_end_race/line28=comment": _with(keep_pace_end_race_by_case, line28="comment"),
    "keep_pace_end_race/line24=comment,line28=comment": _with(
        keep_pace_end_race_by_case, line24="comment", line28="comment"
    ),
    "keep_pace_end_race/no_hold_to_win": _with(keep_pace_end_race_by_case, hold_to_win=False),
}


def decide(rule: Callable, p, i, j, k, o, goal=50) -> np.ndarray:
    """A policy's roll decision with the universal rule "never hold at ``k = 0``"."""
    return np.asarray(rule(p, i, j, k, o, goal)) | (np.asarray(k) == 0)


def policy_role(seat: int, players: int) -> int:
    """Seed 002's player number (1 or 2) whose cases seat ``seat`` (0-based) plays: 2 for the last seat."""
    return 2 if seat == players - 1 else 1


def human_decisions(rule: Callable, rules: Rules, players: int, seat: int, top: int) -> np.ndarray:
    """``roll[i, lead, k, o]``: the policy's decision for 0-based seat ``seat`` with own score ``i``, the
    highest other score ``lead`` (both below the goal), turn total ``k <= top``, ``o`` 1s set aside."""
    G, L = rules.goal, rules.ones_limit
    i = np.arange(G).reshape(G, 1, 1, 1)
    j = np.arange(G).reshape(1, G, 1, 1)
    k = np.arange(top + 1).reshape(1, 1, -1, 1)
    o = np.arange(L).reshape(1, 1, 1, L)
    out = decide(rule, policy_role(seat, players), i, j, k, o, G)
    return np.ascontiguousarray(np.broadcast_to(out, (G, G, top + 1, L)))
