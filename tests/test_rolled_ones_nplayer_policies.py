"""Seed 002's human policies with N players (issue 21): the fixed-seat solve of
dicebase.builder.rolled_ones.nplayer_policies (one seat plays a human policy, the others best-respond)
checked against a brute force written here from the rules alone, for 2 and 3 players at tiny goals,
and the two-player figures of seed 002 in the database."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from dicebase.builder.rolled_ones import nplayer_policies as npp
from dicebase.builder.rolled_ones.policies import POLICIES, decide
from dicebase.rules.rolled_ones import TIE_TOLERANCE, P_new1s, Rules

TINY = dict(dice=3, ones_limit=2, faces=4)
TAIL = 4


def brute_force(rules: Rules, N: int, seat: int, rule, KH: int, cap: int, tol: float = TIE_TOLERANCE):
    """Win vectors of every turn start, seat ``seat`` (0-based) playing ``rule`` read for N players (the last
    seat plays player 2's cases, the others player 1's; the opponent is the highest other score; on a final
    turn it rolls until above the bar, then holds), the others best-responding.  Full states, value
    iteration by score-sum level until nothing changes by more than 1e-16, the final round by memoised
    recursion.  Caps as the solver's: a best-responding seat holds beyond turn_total_bound (normal turns)
    and at ``cap`` (final turns); the policy seat holds beyond ``KH``."""
    G, D, L, F, K = rules.goal, rules.dice, rules.ones_limit, rules.faces, rules.turn_total_bound
    role = 2 if seat == N - 1 else 1

    outcomes = [[(P_new1s(D - o, n, F), o + n, D - o - n) for n in range(D - o + 1)] for o in range(L)]

    def rolls(o):
        return outcomes[o]

    def win(scores):
        best = max(scores)
        return tuple(1.0 if s == best else 0.0 for s in scores)

    @lru_cache(maxsize=None)
    def final(scores, m, k, o):
        def after(sc):
            return win(sc) if m == N - 1 else final(sc, m + 1, 0, 0)

        t = scores[m] + k
        can_hold = k > 0 and t > max(scores)
        if can_hold:
            sc = list(scores)
            sc[m] = t
            hold = after(tuple(sc))
            if t >= cap or m == seat:  # the policy seat holds as soon as it is above the bar
                return hold
        roll = [0.0] * N
        for p, o2, g in rolls(o):
            nxt = after(scores) if o2 >= L else final(scores, m, k + g, o2)
            roll = [a + p * b for a, b in zip(roll, nxt)]
        if can_hold and not roll[m] > hold[m] + tol:
            return hold
        return tuple(roll)

    V = {}

    def hold_normal(scores, m, k):
        sc = list(scores)
        sc[m] += k
        sc = tuple(sc)
        if sc[m] >= G:
            return win(sc) if m == N - 1 else final(sc, m + 1, 0, 0)
        return V.get((sc, (m + 1) % N, 0, 0))

    def update(state):
        scores, m, k, o = state
        hold = hold_normal(scores, m, k) if k > 0 else None
        if k > (KH if m == seat else K):
            return hold
        roll = [0.0] * N
        for p, o2, g in rolls(o):
            nxt = V.get((scores, (m + 1) % N, 0, 0), (1.0 / N,) * N) if o2 >= L else V[(scores, m, k + g, o2)]
            roll = [a + p * b for a, b in zip(roll, nxt)]
        if m == seat:
            lead = max(s for n, s in enumerate(scores) if n != m)
            return tuple(roll) if bool(decide(rule, role, scores[m], lead, k, o, G)) else hold
        if hold is not None and not roll[m] > hold[m] + tol:
            return hold
        return tuple(roll)

    levels = {}
    for s in np.ndindex(*(G,) * N):
        levels.setdefault(sum(s), []).append(s)
    for total in sorted(levels, reverse=True):
        states = [(s, m, k, o) for s in levels[total] for m in reversed(range(N))
                  for k in range(KH + D, -1, -1) for o in range(L)]
        for _ in range(2000):
            change = 0.0
            for st in states:
                new = update(st)
                old = V.get(st)
                change = 1.0 if old is None else max(change, max(abs(a - b) for a, b in zip(new, old)))
                V[st] = new
            if change <= 1e-16:
                break
        else:  # pragma: no cover
            raise AssertionError(f"level {total} did not settle")
    return V


@pytest.mark.parametrize("N, goal, K, policies", [
    (2, 5, 5, ["simple_ones_cases"]),
    (3, 4, 4, ["fixed_hold_at"]),
])
def test_fixed_seat_solve_equals_a_brute_force(N, goal, K, policies):
    rules = Rules(goal=goal, turn_total_bound=K, **TINY)
    worst = 0.0
    for name in policies:
        for seat in range(N):
            sol = npp.solve_fixed(rules, N, name, seat, tail=TAIL)
            assert sol.mixed == []
            V = brute_force(rules, N, seat, POLICIES[name].rule, K + TAIL, sol.spec.cap)
            for s in np.ndindex(*(goal,) * N):
                for m in range(N):
                    worst = max(worst, float(np.max(np.abs(sol.start_at(s)[m] - V[(s, m, 0, 0)]))))
            assert abs(sol.start[..., :].sum(axis=-1) - 1.0).max() <= 1e-12
    assert worst <= 1e-12, worst


def test_policy_roles_for_n_players():
    assert [npp.policy_role(m, 3) for m in range(3)] == [1, 1, 2]
    assert [npp.policy_role(m, 2) for m in range(2)] == [1, 2]
    # the opponent is the leading other player: Algorithm 3, player 1 with one 1 set aside holds at a lead of 20
    table = npp.human_decisions(POLICIES["simple_ones_cases"].rule, Rules(), 3, 0, 80)
    # seat 1 at 10 with one 1 set aside holds at k >= max(50 - 10, 20 + lead - 10): lead 35 (not 5) -> 45
    assert table[10, 35, 40, 1] and not table[10, 35, 45, 1]
    assert not table[10, 5, 40, 1] and table[10, 5, 35, 1]
    # the last seat plays player 2's cases: it holds when it can reach the goal
    last = npp.human_decisions(POLICIES["simple_ones_cases"].rule, Rules(), 3, 2, 80)
    assert table[40, 0, 10, 0] and not last[40, 0, 10, 0]
