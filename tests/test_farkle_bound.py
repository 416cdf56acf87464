"""Issue 24: the lowest possible score (``lowest_score``) is an explicit bound of the two-player game with a
consecutive-farkle penalty, and lowering it changes no stored value beyond the solver's tolerance
(docs/farkle.md, "The bound lowest_score").

What "stored value" covers here: the turn-start win probabilities W(score, opponent, count, opponent_count) that
``twoplayer.solve_penalty`` computes and the build writes to ten_thousand_penalty_start, at every pair of scores
both >= 0 and every pair of farkle counts: the values of a game played from its start until a penalty first takes
a score below 0.  The table also holds the scores below 0 down to the bound; those are not covered (near the floor
the bound is the model: a penalty there costs less), and the test checks that they do move, so that a change would
be seen.  A value inside a turn at scores >= 0 follows by one turn's recursion (the lookups, checked against the
solver in tests/test_farkle_penalty_db.py) from these turn starts and, for the farkle that costs the penalty, from
the turn start one penalty lower (the mover's score down to -150): those move at most tenfold more (4.0e-13 here,
``moved_penalty_below``), which the test bounds too.

The rule set is tests/test_farkle_twoplayer.py's small one (three dice, 100 to bank, the second farkle in a row
costs 150, first to 300 wins).  Lowering its bound one penalty at a time, the largest change at scores >= 0
shrinks tenfold a step (measured from -150 down to -2,100 in docs/farkle.md: 5.1e-3, 5.1e-4, ..., 3.0e-13, 3.0e-14,
3.0e-15); at -1,800 lowering it to -1,950 moves no such value by more than the sweeps' stopping tolerance (1e-13).
"""

from __future__ import annotations

from dicebase.builder.ten_thousand import twoplayer

from test_farkle_twoplayer import SMALL

#: the bound (units of 50) at which the test proves the small rule set's values settled: 12 penalties below 0
BOUND = -36


def test_lowering_the_bound_moves_no_value_at_scores_from_0_beyond_the_tolerance():
    """solve_penalty at the bound and one penalty lower: no turn-start value with both scores >= 0 (every farkle
    count) differs by more than the solver's stopping tolerance (``tol``: sweeps end when no value changes by more),
    and not by more than both solves' own error estimates (``error_bound``) either; at the floor values move."""
    P = SMALL.farkle_penalty // SMALL.unit
    (effect,) = twoplayer.penalty_bound_effects(SMALL, SMALL.goal // SMALL.unit, [BOUND, BOUND - P])
    assert effect["tol"] == 1e-13 and max(effect["error_bounds"]) < 1e-12
    assert effect["moved"] <= effect["tol"]
    assert effect["moved"] <= effect["tol"] + sum(effect["error_bounds"])
    assert effect["moved_penalty_below"] <= 10 * effect["tol"]  # scores down to one penalty below 0
    assert effect["moved_anywhere"] > 1e-3  # the floor itself moves: a change would be seen
    assert effect["lowest"] * SMALL.unit == -1800 and effect["lower"] * SMALL.unit == -1950
