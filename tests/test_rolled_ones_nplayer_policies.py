"""Seed 002's human policies with N players (issue 21), dicebase.builder.rolled_ones.nplayer_policies in both
readings, checked against a brute force written here from the rules alone (tiny goals, 2 and 3 players): the
fixed-seat solve (one seat plays a human policy, the others best-respond) and the policy evaluation (the others
keep the stored equilibrium); with two players the evaluation equals seed 002's two-player evaluation at every
turn start.  Seed 002's figures in the database: tests/test_rolled_ones_nplayer_final.py."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from dicebase.builder.rolled_ones import nplayer, nplayer_policies as npp
from dicebase.numeric.rolled_ones_policies import POLICIES, decide
from dicebase.rules.rolled_ones import TIE_TOLERANCE, P_new1s, Rules

TINY = dict(dice=3, ones_limit=2, faces=4)
TAIL = 4


def brute_force(rules: Rules, N: int, seat: int, rule, KH: int, cap: int, tol: float = TIE_TOLERANCE,
                stored=None):
    """Win vectors of every turn start, seat ``seat`` (0-based) playing ``rule`` read for N players (the last
    seat plays player 2's cases, the others player 1's; the opponent is the highest other score; on a final
    turn it rolls until above the bar, then holds), the others best-responding, or with ``stored`` (a solver's
    equilibrium, :class:`nplayer.Solution`) playing its stored play: the lookups' roll probabilities
    (``Solution.turn_values``, mixing included) and final turns (``nplayer.final_turn_values``).  Full states,
    value iteration by score-sum level until nothing changes by more than 1e-16, the final round by memoised
    recursion.  Caps as the solver's: a best-responding seat holds beyond turn_total_bound (normal turns)
    and at ``cap`` (final turns; a stored seat at the stored cap); the policy seat holds beyond ``KH``."""
    G, D, L, F, K = rules.goal, rules.dice, rules.ones_limit, rules.faces, rules.turn_total_bound
    role = 2 if seat == N - 1 else 1

    outcomes = [[(P_new1s(D - o, n, F), o + n, D - o - n) for n in range(D - o + 1)] for o in range(L)]

    def rolls(o):
        return outcomes[o]

    @lru_cache(maxsize=None)
    def policy_rolls(i, lead, k, o):
        return bool(decide(rule, role, i, lead, k, o, G))

    @lru_cache(maxsize=None)
    def stored_turn(scores, m):
        return stored.turn_values(scores, m)["roll"]

    @lru_cache(maxsize=None)
    def stored_final(scores, m):
        bar = max(scores[:m])
        return nplayer.final_turn_values(stored.spec, stored.finals, m, bar, tuple(scores[m + 1:]))[1]

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
            if m == seat:  # the policy seat holds as soon as it is above the bar
                return hold
            if stored is not None and m != seat:
                if t >= stored.spec.cap or not stored_final(scores, m)[t, o]:
                    return hold
            elif t >= cap:
                return hold
        roll = [0.0] * N
        for p, o2, g in rolls(o):
            nxt = after(scores) if o2 >= L else final(scores, m, k + g, o2)
            roll = [a + p * b for a, b in zip(roll, nxt)]
        if can_hold and stored is None and not roll[m] > hold[m] + tol:
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
            return tuple(roll) if policy_rolls(scores[m], lead, k, o) else hold
        if stored is not None:
            q = 1.0 if k == 0 else float(stored_turn(scores, m)[k, o])
            return tuple(roll) if q == 1.0 else hold if q == 0.0 else tuple(
                q * a + (1.0 - q) * b for a, b in zip(roll, hold))
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


def test_against_the_stored_equilibrium_equals_a_brute_force():
    """The equilibrium reading (the others keep the stored equilibrium: the lookups' play, final turns
    included) against the brute force with the stored play, every turn start of every seat, 3 players."""
    N, goal = 3, 4
    rules = Rules(goal=goal, turn_total_bound=goal, **TINY)
    sol = nplayer.solve(rules, N)
    name = "keep_pace_end_race"
    ev = npp.against_equilibrium(sol, [(name, m) for m in range(N)], tail=TAIL)
    worst = 0.0
    for seat in range(N):
        V = brute_force(rules, N, seat, POLICIES[name].rule, goal + TAIL, ev.spec.cap, stored=sol)
        for s in np.ndindex(*(goal,) * N):
            got = ev.start_at(name, seat, s)
            for m in range(N):
                worst = max(worst, abs(float(got[m]) - V[(s, m, 0, 0)][seat]))
    assert worst <= 1e-12, worst
    # the stored play rolls on above the bar on some final turn (seat 2 raising the bar for seat 3)
    assert sol.finals.froll[1].any()
    # not the other reading: best responses exploit the policy in seat 2
    fixed = npp.solve_fixed(rules, N, name, 1, tail=TAIL)
    assert fixed.p_win < ev.p_win(name, 1) - 1e-3


def test_two_players_equal_the_two_player_evaluation_at_every_turn_start():
    """N = 2, the others keeping the stored equilibrium: every turn start of every policy in both seats equals
    the two-player evaluation of seed 002's Fig. 2 (dicebase.builder.rolled_ones.evaluate) within 1e-12."""
    from dicebase.builder.rolled_ones import evaluate_policies, solve
    from dicebase.rules.rolled_ones import nplayer_rules

    rules = Rules(goal=12)
    two = evaluate_policies(solve(rules), {n: p.rule for n, p in POLICIES.items()}).policies
    ev = npp.against_equilibrium(nplayer.solve(nplayer_rules(rules, 2), 2), [(n, h) for n in POLICIES for h in (0, 1)])
    G = rules.goal
    i, j = np.meshgrid(np.arange(G), np.arange(G), indexing="ij")
    worst = 0.0
    for name in POLICIES:
        for h in (0, 1):
            Tm = two[name].turn_start[h]  # [p - 1, own score, opponent]: the mover's win probability
            got = ev.start[ev.plays.index((name, h))].reshape(G, G, 2)  # [seat 1's score, seat 2's, mover]
            mover1 = Tm[0, :G, :G][i, j]  # seat 1 to move at (i, j)
            mover2 = Tm[1, :G, :G][j, i]  # seat 2 to move, own score j
            want1 = mover1 if h == 0 else 1.0 - mover1
            want2 = mover2 if h == 1 else 1.0 - mover2
            worst = max(worst, np.abs(got[..., 0] - want1).max(), np.abs(got[..., 1] - want2).max())
    assert worst <= 1e-12, worst


def test_the_evaluation_is_bit_identical_for_any_thread_count():
    rules = Rules(goal=6, turn_total_bound=6, **TINY)
    sol = nplayer.solve(rules, 3)
    plays = [(n, m) for n in ("fixed_hold_at", "roll_4_or_5_dice") for m in range(3)] + [(None, 1)]
    one = npp.against_equilibrium(sol, plays, workers=1, tail=TAIL)
    two = npp.against_equilibrium(sol, plays, workers=2, tail=TAIL)
    split = npp.against_equilibrium(sol, plays, workers=2, tail=TAIL, max_bytes=sol.spec.tuples * 3 * 8 * 2)
    assert np.array_equal(one.start, two.start) and np.array_equal(one.start, split.start)
    assert split.stats["passes"] == 4
