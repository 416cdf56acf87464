"""Table (d): the two-player solver against an independent brute-force value iteration,
the turn-total bound, the last-round rule on hand-built states."""

from __future__ import annotations

import numpy as np
import pytest

from dicebase.builder.dice import rolls
from dicebase.builder.ten_thousand import twoplayer
from dicebase.builder.ten_thousand.rules import TEN_THOUSAND
from dicebase.builder.ten_thousand.scoring import legal_keeps, turn_states

R = TEN_THOUSAND
G = 6  # goal 300 points: every phase (normal turns, past the goal, last turn) at a small size


def brute_force(rules, G, D=200, tol=1e-14, max_sweeps=500):
    """Value iteration over every state (i, j, k, s), k = 0..G + D, with every legal keep
    (no dominance, no grouping): each sweep runs k downwards over all pairs at once with the
    turn-start values of the previous sweep; banking is forced once the deficit exceeds D."""
    u = rules.unit
    states = turn_states(rules)
    index = {s: x for x, s in enumerate(states)}
    S = len(states)
    per_state = []  # (roll probs, option pts, option state, option roll id, farkle prob)
    for n, t in states:
        tab = rolls(n)
        probs, pts, nxt, rid, far = [], [], [], [], 0.0
        for r in range(len(tab)):
            keeps = legal_keeps(rules, tuple(int(c) for c in tab.counts[r]), n, t)
            p = tab.ways[r] / tab.total
            if not keeps:
                far += p
                continue
            for k in keeps:
                pts.append(k.points // u)
                nxt.append(index[(k.n_after, k.t_after)])
                rid.append(len(probs))
            probs.append(p)
        per_state.append((np.array(probs), np.array(pts), np.array(nxt), np.array(rid), far))
    maxp = max(int(x[1].max()) for x in per_state)
    # last turn: E[m, s], chance to gain >= m units, m up to the largest deficit
    M = 2 * G + D + 2 * maxp + 2
    E = np.ones((M + 1 + maxp, S))
    starts = [np.flatnonzero(np.r_[True, x[3][1:] != x[3][:-1]]) for x in per_state]
    for m in range(1, M + 1):
        for s, (probs, pts, nxt, rid, far) in enumerate(per_state):
            best = np.maximum.reduceat(E[maxp + m - pts, nxt], starts[s])
            E[maxp + m, s] = best @ probs
    pex = E[maxp + 1 :, 0]  # pex[d] = chance to gain > d units
    Kb = G + D
    V = np.zeros((G, G, Kb + 1 + maxp, S))
    i_ = np.arange(G)[:, None]
    j_ = np.arange(G)[None, :]
    for k in range(Kb + 1, Kb + 1 + maxp):  # beyond the bound: bank (past the goal)
        V[:, :, k, :] = (1 - pex[i_ + k - j_])[:, :, None]
    for sweep in range(max_sweeps):
        W = V[:, :, 0, 0].copy()
        old = V.copy()
        for k in range(Kb, -1, -1):
            bank = np.empty((G, G))
            for i in range(G):
                if i + k < G:
                    bank[i, :] = 1 - W[:, i + k]  # 1 - W(j, i + k)
                else:
                    bank[i, :] = 1 - pex[i + k - np.arange(G)]  # opponent's last turn
            forced = (i_ + k - j_) > D
            for s, (probs, pts, nxt, rid, far) in enumerate(per_state):
                best = np.maximum.reduceat(V[:, :, k + pts, nxt], starts[s], axis=2)
                roll = best @ probs + far * (1 - W.T)  # farkle: 1 - W(j, i)
                val = roll if k == 0 else np.maximum(roll, bank)
                V[:, :, k, s] = np.where(forced, bank, val)
        change = np.abs(V - old).max()
        if change < tol:
            break
    return V[:, :, : Kb + 1], pex, sweep


@pytest.fixture(scope="module")
def solved():
    return twoplayer.solve(R, G, rows="all")


@pytest.fixture(scope="module")
def brute():
    return brute_force(R, G)


def test_against_brute_force(solved, brute):
    V, pex, sweeps = brute
    # the brute force's own bound is exact when P_exceed(D) <= pf_min * min W (docs/ten_thousand.md)
    assert pex[200] <= solved.stats["pf_min"] * V[:, :, 0, 0].min()
    assert np.abs(V[:, :, 0, 0] - solved.W).max() < 1e-11
    stored = V[solved.i, solved.j, solved.k, solved.s]
    assert np.abs(stored - solved.p_win).max() < 1e-11
    # every state past a pair's solved bound banks in the brute force too
    for i in range(G):
        for j in range(G):
            k = solved.kmax[i, j] + 1
            assert np.allclose(V[i, j, k:, :], (1 - pex[i + np.arange(k, V.shape[2]) - j])[:, None], atol=1e-11)
    # the heuristic-free roll flags agree where the margin is clear
    s = solved
    bank = np.where(s.i + s.k >= G, 1 - pex[np.clip(s.i + s.k - s.j, 0, None)],
                    1 - V[s.j, np.minimum(s.i + s.k, G - 1), 0, 0])
    clear = (np.abs(s.p_win - bank) > 1e-9) & (s.k > 0)
    assert np.array_equal(s.roll[clear], (s.p_win > bank + 1e-12)[clear])


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


def test_last_round_rule():
    # the last turn must EXCEED: E(m, s) is the chance to gain at least m more units
    E = twoplayer.exceed_table(R, 10)
    # one die, no triple, need 50: a 1 or a 5
    assert E[1, 5] == pytest.approx(2 / 6)
    # one die, need 100: a 1 (hot dice, done) or a 5 then >= 50 more from six fresh dice
    assert E[2, 5] == pytest.approx(1 / 6 + 1 / 6 * E[1, 0])
    # six dice, need 50: anything that scores
    assert E[1, 0] == pytest.approx(45_576 / 46_656)
    # need <= 0 is already won
    assert (E[0] == 1).all()


def test_hand_built_states(solved):
    s = solved
    G_ = s.goal
    pexd = s.exceed[1:, 0]

    def value(i, j, k, st):
        sel = (s.i == i) & (s.j == j) & (s.k == k) & (s.s == st)
        return float(s.p_win[sel][0])

    # banking at the goal gives the opponent a last turn that must exceed: deficit d -> P_exceed(d)
    # score 250, opponent 0, turn total 50 with one die left: bank = 1 - P(opponent gains > 300)
    bank = 1 - pexd[G_ - 0]
    assert pexd[G_] == pytest.approx(solved.exceed[G_ + 1, 0])
    assert value(G_ - 1, 0, 1, 5) >= bank - 1e-15
    # ... yet even with one die (2/3 farkle) rolling is better: a farkle leaves the opponent a
    # normal turn from 0 against 250, banking gives it a last turn needing just over 300
    sel = (s.i == G_ - 1) & (s.j == 0) & (s.k == 1) & (s.s == 5)
    assert s.roll[sel][0] and value(G_ - 1, 0, 1, 5) > bank + 1e-3
    # a far lead with one die: banking is optimal and worth exactly 1 - P_exceed
    k = s.kmax[G_ - 1, 0]
    assert value(G_ - 1, 0, k, 5) == pytest.approx(1 - pexd[G_ - 1 + k], abs=1e-15)
    # opponent at the goal minus 50, you reach exactly the goal: rolling on beats handing over a
    # last turn needing only > 50 + 0... (opponent would need 100 points)
    i, j = G_ - 2, G_ - 1
    sel = (s.i == i) & (s.j == j) & (s.k == 2) & (s.s == 0)
    assert s.roll[sel][0]  # six dice: keep rolling
