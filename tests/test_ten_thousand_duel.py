"""Table (d): the two-player solver against an independent brute-force value iteration at
goals 300 and 1,000, the turn-total bound, the last-round rule on hand-built states."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from dicebase.numeric.dice import rolls
from dicebase.builder.ten_thousand import twoplayer
from dicebase.rules.ten_thousand import TEN_THOUSAND
from dicebase.rules.ten_thousand import legal_keeps, turn_states

R = TEN_THOUSAND
G = 6  # goal 300 points: every phase (normal turns, past the goal, last turn) at a small size


# ------------------------------------------------------------------ brute force
# An independent check of the solver: plain value iteration over EVERY state (i, j, k, s) of
# the game, Jacobi sweeps over all pairs at once (no score-sum order, no 2-cycles, no affine
# values, no policy iteration, no per-pair bound). Its only shared input is `legal_keeps`; rolls
# with the same set of (points, next class) options are merged by its own few lines (exact: the
# same max over the same options), every legal keep is kept (no dominance).
def brute_tables(rules):
    u = rules.unit
    states = turn_states(rules)
    index = {s: x for x, s in enumerate(states)}
    roll_start, roll_prob, opt_start, opt_pts, opt_next, p_farkle = [0], [], [0], [], [], []
    for n, t in states:
        tab = rolls(n)
        merged, farkle = {}, 0.0
        for r in range(len(tab)):
            keeps = legal_keeps(rules, tuple(int(c) for c in tab.counts[r]), n, t)
            p = tab.ways[r] / tab.total
            if not keeps:
                farkle += p
                continue
            options = frozenset((k.points // u, index[(k.n_after, k.t_after)]) for k in keeps)
            merged[options] = merged.get(options, 0.0) + p
        for options, p in merged.items():
            for pts, nxt in sorted(options):
                opt_pts.append(pts)
                opt_next.append(nxt)
            opt_start.append(len(opt_pts))
            roll_prob.append(p)
        roll_start.append(len(roll_prob))
        p_farkle.append(farkle)
    i64 = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    return i64(roll_start), np.array(roll_prob), i64(opt_start), i64(opt_pts), i64(opt_next), np.array(p_farkle)


@njit(cache=True)
def brute_exceed(M, rs, rp, os_, op, on, maxp):
    """E[m, s]: chance to gain at least m more units this turn (m <= 0: 1), best keeps."""
    S = rs.shape[0] - 1
    E = np.ones((M + 1 + maxp, S))
    for m in range(1, M + 1):
        for s in range(S):
            total = 0.0
            for r in range(rs[s], rs[s + 1]):
                best = 0.0
                for q in range(os_[r], os_[r + 1]):
                    best = max(best, E[maxp + m - op[q], on[q]])
                total += rp[r] * best
            E[maxp + m, s] = total
    return E[maxp:]


@njit(cache=True)
def brute_sweep(G, D, W, Wnew, pex, rs, rp, os_, op, on, pf, maxp, V, store):
    """One Jacobi sweep: every pair's turn, k descending, with the previous sweep's turn-start
    values W; banking is forced once the lead i + k - j exceeds D (exact when
    P_exceed(D) <= pf_min * min W, checked by the test)."""
    S = rs.shape[0] - 1
    Kb = G + D
    loc = np.empty((Kb + 1 + maxp, S))
    for i in range(G):
        for j in range(G):
            for k in range(Kb + 1, Kb + 1 + maxp):
                for s in range(S):
                    loc[k, s] = 1.0 - pex[i + k - j]  # past the goal, far ahead: bank
            farkle = 1.0 - W[j, i]
            for k in range(Kb, -1, -1):
                if i + k < G:
                    bank = 1.0 - W[j, i + k]
                else:
                    bank = 1.0 - pex[i + k - j]  # the opponent's last turn must exceed
                for s in range(S):
                    if i + k - j > D:
                        loc[k, s] = bank
                        continue
                    roll = pf[s] * farkle
                    for r in range(rs[s], rs[s + 1]):
                        best = -1.0
                        for q in range(os_[r], os_[r + 1]):
                            best = max(best, loc[k + op[q], on[q]])
                        roll += rp[r] * best
                    loc[k, s] = roll if (k == 0 or roll > bank) else bank
            Wnew[i, j] = loc[0, 0]
            if store:
                V[i, j] = loc[: Kb + 1]


def brute_force(rules, G, D, tol=1e-14, max_sweeps=1000):
    rs, rp, os_, op, on, pf = brute_tables(rules)
    maxp = int(op.max())
    pex = brute_exceed(2 * G + D + 2 * maxp + 2, rs, rp, os_, op, on, maxp)[1:, 0].copy()  # pex[d]: gain > d
    W = np.full((G, G), 0.5)
    Wnew = np.empty_like(W)
    V = np.empty((G, G, G + D + 1, len(pf)))
    for sweep in range(max_sweeps):
        brute_sweep(G, D, W, Wnew, pex, rs, rp, os_, op, on, pf, maxp, V, False)
        change = np.abs(Wnew - W).max()
        W, Wnew = Wnew, W
        if change < tol:
            break
    brute_sweep(G, D, W, Wnew, pex, rs, rp, os_, op, on, pf, maxp, V, True)
    return V, pex, sweep


# goal (units) -> deficit bound D of the brute force; goal 1000 (20 units, 39 score sums, the
# bound past the goal active for every pair) is where the score-sum order is really exercised
BRUTE = {6: 120, 20: 130}
_cache: dict = {}


def solved_at(goal):
    if ("solved", goal) not in _cache:
        _cache["solved", goal] = twoplayer.solve(R, goal, rows="all")
    return _cache["solved", goal]


@pytest.fixture(scope="module")
def solved():
    return solved_at(G)


@pytest.mark.parametrize("goal", sorted(BRUTE), ids=lambda g: f"goal{g * 50}")
def test_against_brute_force(goal):
    D = BRUTE[goal]
    s = solved_at(goal)
    V, pex, sweeps = brute_force(R, goal, D)
    assert sweeps < 999
    # the brute force's own bound is exact when P_exceed(D) <= pf_min * min W (docs/ten_thousand.md)
    assert pex[D] <= s.stats["pf_min"] * V[:, :, 0, 0].min()
    assert np.abs(V[:, :, 0, 0] - s.W).max() < 1e-11
    inside = s.k <= goal + D  # beyond, the brute force banks (its lead exceeds D)
    assert inside.mean() > 0.9
    brute = np.empty(s.k.size)
    brute[inside] = V[s.i[inside], s.j[inside], s.k[inside], s.s[inside]]
    out = ~inside
    brute[out] = 1 - pex[s.i[out] + s.k[out] - s.j[out]]
    assert np.abs(brute - s.p_win).max() < 1e-11
    # every state past a pair's solved bound banks in the brute force too
    for i in range(goal):
        for j in range(goal):
            k = s.kmax[i, j] + 1
            assert np.allclose(V[i, j, k:, :], (1 - pex[i + np.arange(k, V.shape[2]) - j])[:, None], atol=1e-11)
    # the roll flags agree where the margin is clear
    bank = np.where(s.i + s.k >= goal, 1 - pex[np.clip(s.i + s.k - s.j, 0, None)],
                    1 - V[s.j, np.minimum(s.i + s.k, goal - 1), 0, 0])
    clear = (np.abs(s.p_win - bank) > 1e-9) & (s.k > 0)
    assert np.array_equal(s.roll[clear], (s.p_win > bank + 1e-12)[clear])
    # a state the solver banks is worth exactly the bank value in the brute force
    banks = ~s.roll & (s.k > 0)
    assert banks.any() and np.abs(s.p_win - bank)[banks].max() < 1e-11


def test_bound_is_proved_and_raising_it_changes_nothing(solved):
    G_ = solved.goal
    pexd = solved.exceed[1:, 0]
    for i in range(G_):
        for j in range(G_):
            # banking optimal past the bound: P_exceed(deficit) <= pf_min * W(j, i)
            assert pexd[i + solved.kmax[i, j] + 1 - j] <= solved.stats["pf_min"] * solved.W[j, i]
    wider = twoplayer.solve(R, G_, rows="all", bound_scale=1e-3)
    assert (wider.kmax >= solved.kmax).all() and (wider.kmax > solved.kmax).any()
    a = {(i, j, k, s): v for i, j, k, s, v in zip(solved.i, solved.j, solved.k, solved.s, solved.p_win)}
    diffs = [abs(a[key] - v) for key, v in zip(zip(wider.i, wider.j, wider.k, wider.s), wider.p_win) if key in a]
    assert len(diffs) == len(a) and max(diffs) < 1e-13


def test_values_are_probabilities_and_not_monotone_at_the_goal(solved):
    assert ((solved.p_win >= 0) & (solved.p_win <= 1)).all()
    # banking at the goal hands the opponent a last turn: a turn total just below the goal can
    # be worth more than one at the goal, so the two-player solver must not drop "dominated" keeps
    G_ = solved.goal
    V = {(i, j, k, s): v for i, j, k, s, v in zip(solved.i, solved.j, solved.k, solved.s, solved.p_win)}
    drops = [key for key, v in V.items() if key[2] > 0 and v > V.get((key[0], key[1], key[2] + 1, key[3]), 2.0) + 1e-9]
    assert drops
    assert any(i + k == G_ - 1 for i, j, k, s in drops)


# Hand-derived chances (seed file 004_ebfe5ef33ddae374.txt, "Basic probability": 45.576 of the
# 46.656 rolls of six dice score, 7.176 of 7.776 with five; "3-of-a-kind already rolled": 3 of
# 6 with one die and a standing triple of 2s, 3s, 4s or 6s).
P6, P5 = 45_576 / 46_656, 7_176 / 7_776
# six dice gaining 100 or more: a best keep of >= 100, or a lone 5 as the only scoring die (6
# positions x 600 rolls of the other five dice over 2, 3, 4, 6 with no three alike) and then any
# score from five dice
GAIN100_6 = (45_576 - 3_600) / 46_656 + 3_600 / 46_656 * P5


def test_last_round_rule():
    # the last turn must EXCEED: E(m, s) is the chance to gain at least m more units; the chances
    # below are derived by hand from seed file 004_ebfe5ef33ddae374.txt's counts (P6, P5, 3 of 6)
    E = twoplayer.exceed_table(R, 10)
    one, six = turn_states(R).index((1, 0)), turn_states(R).index((6, 0))
    # one die, no triple, need 50: a 1 or a 5
    assert E[1, one] == pytest.approx(2 / 6, abs=1e-15)
    # one die with a standing triple of 2s: a 1, a 5 or a 2 (seed: 3 of 6, 50,00 %)
    assert E[1, turn_states(R).index((1, 2))] == pytest.approx(3 / 6, abs=1e-15)
    # one die, need 100: a 1 (hot dice, done) or a 5 (a tie: hot dice, six fresh dice must score)
    assert E[2, one] == pytest.approx(1 / 6 + 1 / 6 * P6, abs=1e-15)
    # six dice, need 50: anything that scores; need 100: see GAIN100_6
    assert E[1, six] == pytest.approx(P6, abs=1e-15)
    assert E[2, six] == pytest.approx(GAIN100_6, abs=1e-15)
    # need <= 0 is already won
    assert (E[0] == 1).all()


def test_hand_built_states(solved):
    s = solved
    G_ = s.goal  # 300 points
    pexd = s.exceed[1:, 0]  # pexd[d]: the opponent's last turn from six dice gains more than d units
    # seed file 004_ebfe5ef33ddae374.txt figures: more than 0 = any score, more than 50 = GAIN100_6
    assert pexd[0] == pytest.approx(P6, abs=1e-15) and pexd[1] == pytest.approx(GAIN100_6, abs=1e-15)
    one = turn_states(R).index((1, 0))

    def state(i, j, k, st):
        sel = (s.i == i) & (s.j == j) & (s.k == k) & (s.s == st)
        return float(s.p_win[sel][0]), bool(s.roll[sel][0])

    # 250 vs 250, turn total 50 with five dice: banking reaches the goal (300) and the opponent's
    # last turn must get MORE than 300 - 250 = 50, which it does with GAIN100_6 = 0.97 (a tie
    # would not do): banking wins 0.029, rolling on is far better
    value, roll = state(5, 5, 1, turn_states(R).index((5, 0)))
    assert roll and value > 1 - GAIN100_6 + 0.4
    # 250 vs 0, turn total 250 with one die: banking at 500 leaves the opponent a last turn needing
    # more than 500 (1 - pexd[10] = 0.42); rolling on (2/3 farkle: a normal turn for the opponent
    # from 0 against 250) is better
    value, roll = state(5, 0, 5, one)
    assert roll and value > 1 - pexd[10] + 0.1
    # a far lead with one die: banking is optimal and worth exactly 1 - P_exceed(lead)
    k = s.kmax[G_ - 1, 0]
    value, roll = state(G_ - 1, 0, k, one)
    assert not roll and value == pytest.approx(1 - pexd[G_ - 1 + k], abs=1e-15)
