"""Issue 24: the two-player game with a consecutive-farkle penalty (twoplayer.solve_penalty), the bound on
banked scores, and Facebook Farkle (Busche 2016; readings in docs/farkle.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dicebase.builder.ten_thousand import twoplayer
from dicebase.rules.ten_thousand import PRESETS, legal_keeps, roll_multisets

FACEBOOK = PRESETS["facebook-farkle"]
#: a small rule set: three dice, singles and triples, 100 to bank, the second farkle in a row costs 150
#: points, scores down to -150, first to 300 wins
SMALL = replace(FACEBOOK, name="small-penalty", dice=3, straight=None, three_pairs=None, three_pairs_with_four=False,
                goal=300, bank_minimum=100, farkle_penalty=150, farkle_penalty_after=2, lowest_score=-150)
#: smaller still for the brute force (first to 200, scores down to -100: a penalty from 0 stops at the floor)
TINY = replace(SMALL, goal=200, lowest_score=-100)


def brute_force(rs, sweeps=500):
    """Independent value iteration over every state (i, j, ci, cj, k, dice): Jacobi sweeps on the turn-start
    values, each turn by plain recursion over every roll and every legal keep; shares only legal_keeps."""
    u = rs.unit
    G, L, m, P, bm = rs.goal // u, rs.lowest_score // u, rs.farkle_penalty_after, rs.farkle_penalty // u, \
        -(-rs.bank_minimum // u)
    rolls = {n: [(ways / 6**n, [(kp.points // u, kp.n_after) for kp in legal_keeps(rs, c, n, 0)])
                 for c, ways in roll_multisets(n)] for n in range(1, rs.dice + 1)}
    scores = range(L, G)
    W = {(i, j, a, b): 0.5 for i in scores for j in scores for a in range(m) for b in range(m)}
    for _ in range(sweeps):
        change = 0.0
        for (i, j, ci, cj) in list(W):  # Gauss-Seidel: each turn start updated in place
            if ci + 1 < m:
                far = 1 - W[j, i, cj, ci + 1]
            else:
                far = 1 - W[j, max(i - P, L), cj, 0 if rs.farkle_count_reset == "after_penalty" else m - 1]
            memo = {}

            def p(k, n):
                if k >= bm and i + k >= G:
                    return 1.0
                if (k, n) not in memo:
                    v = sum(pr * (max(p(k + a, b) for a, b in opts) if opts else far) for pr, opts in rolls[n])
                    if k >= bm:
                        v = max(v, 1 - W[j, i + k, cj, 0])
                    memo[k, n] = v
                return memo[k, n]

            v = p(0, rs.dice)
            change = max(change, abs(v - W[i, j, ci, cj]))
            W[i, j, ci, cj] = v
        if change < 1e-15:
            return W
    raise AssertionError("brute force did not converge")


@pytest.mark.parametrize("reset", ["after_penalty", "after_bank"])
def test_penalty_two_player_against_brute_force(reset):
    """Every turn-start value (scores down to the bound, both farkle counts) against the brute force."""
    rs = replace(TINY, farkle_count_reset=reset)
    d = twoplayer.solve_penalty(rs, rs.goal // rs.unit)
    ref = brute_force(rs)
    L = rs.lowest_score // rs.unit
    ours = {(i, j, a, b): d.start(i, j, a, b) for (i, j, a, b) in ref}
    assert max(abs(ours[s] - ref[s]) for s in ref) < 1e-12
    assert d.stats["last_change"] <= d.stats["tol"]
    assert 0.5 < d.start(0, 0) < 1
    # the penalty matters: the same game without it (counts ignored) is different
    assert abs(d.start(0, 0, 0, 0) - d.start(0, 0, 1, 0)) > 1e-3
    assert d.W.shape == (rs.goal // rs.unit - L,) * 2 + (2, 2)


def test_penalty_rows_agree_with_turn_starts():
    """keep_rows: every solved state; its turn starts are the W table, bank states are worth what banking gives."""
    rs = SMALL
    d = twoplayer.solve_penalty(rs, rs.goal // rs.unit, keep_rows=True)
    r = d.rows
    start = (r["k"] == 0) & (r["s"] == 0)
    L = d.lowest
    assert np.allclose(r["p_win"][start], d.W[r["i"][start] - L, r["j"][start] - L, r["ci"][start], r["cj"][start]],
                       atol=1e-13, rtol=0)
    bank = ~r["roll"] & (r["i"] + r["k"] < d.goal)
    want = 1 - d.W[r["j"][bank] - L, r["i"][bank] + r["k"][bank] - L, r["cj"][bank], 0]
    assert np.array_equal(r["p_win"][bank], want)
    assert r["p_win"].size == d.stats["states"]


def test_facebook_state_count_busche_2016():
    """Busche, 'Maximizing Win Probability in the Game of Farkle' (2016): 'With a lower bound of -2500 points
    for banked scores, there are 423,765,000 distinct game states'.  Our model of Facebook Farkle (scores
    -2,500..9,950 for both players, both farkle counts 0..2, turn totals up to the first that can bank at the
    goal, 6 dice classes) has exactly that many: the bank minimum of 300 adds the 15 turn totals of scores
    9,750..9,950 that reach the goal but cannot be banked yet (docs/farkle.md)."""
    assert twoplayer.penalty_state_count(FACEBOOK, FACEBOOK.goal // FACEBOOK.unit) == 423_765_000


def test_lowering_the_bound_decays_exponentially():
    """lowest_score is the model's bound (Busche 2016: 'The calculated strategy is shown to converge
    exponentially to the optimal strategy as this bound on banked scores is lowered').  Lowering it by one
    penalty at a time, the largest change of a turn-start value at scores >= 0 (both players) shrinks by
    a factor of about 10 per step; values near the floor itself are the model's artefact and do move."""
    solved = [twoplayer.solve_penalty(replace(SMALL, lowest_score=low), 6) for low in (-150, -300, -450)]
    moved = []
    for a, b in zip(solved, solved[1:]):
        shift = a.lowest - b.lowest
        diff = np.abs(b.W[shift:, shift:] - a.W)
        moved.append(diff[-a.lowest:, -a.lowest:].max())
        assert diff.max() > moved[-1]  # at the floor the bound changes the game
        assert a.stats["states"] < b.stats["states"]
    assert moved[1] < 0.2 * moved[0]
    assert moved[1] < 1e-3
