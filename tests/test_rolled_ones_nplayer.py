"""N-player Great Rolled Ones (issue 21, phase 1): the exact solver of
dicebase.builder.rolled_ones.nplayer checked against the two-player solver, a brute force, a
simulation of its own policy, the tie-break, the policy cycles of ../shared/N-PLAYERS.md, the caps
and the chunking/threading.  Small goals with scaled-down dice keep every test fast."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest

from dicebase.builder.rolled_ones import nplayer
from dicebase.builder.rolled_ones import solver as two_player
from dicebase.numeric.rolled_ones_turn import best_turn
from dicebase.rules.rolled_ones import P_new1s, Rules

#: 3 dice with 4 faces, 2 ones end the turn: every rule of the game, a tiny state space
TINY = dict(dice=3, ones_limit=2, faces=4)
#: a small game whose 3-player solve has a policy cycle (at scores (10, 12, 0))
CYCLING = Rules(goal=16, dice=4, ones_limit=2, faces=6, turn_total_bound=32)


# --------------------------------------------------------------------------- a plain brute force
def brute_force(rules: Rules, N: int, cap: int, tol: float = nplayer.TIE_TOLERANCE):
    """Win vectors of every turn start by the rules alone: full states, value iteration.

    A state is (scores, seat to move, turn total k, 1s set aside o, final round?).  Roll: each number
    of new 1s with its P_new1s chance; ``ones_limit`` 1s end the turn (bust).  Hold (k > 0; on a final
    turn only above the highest score).  A turn ending at or above the goal in the normal phase makes
    the round the last (the last seat: game over).  The game ends after the last seat's final turn;
    the highest score wins.  Caps, as the solver's: below the goal a turn holds beyond
    ``turn_total_bound``; on a final turn above the bar it holds at ``cap``.  The mover rolls only
    when rolling beats holding by more than ``tol`` (its own entry).  The final round has no cycles
    (memoised recursion); the normal phase is iterated level by level (score sum descending) until
    nothing changes by more than 1e-16.
    """
    G, D, L, F, K = rules.goal, rules.dice, rules.ones_limit, rules.faces, rules.turn_total_bound

    def rolls(o):
        d = D - o
        for n in range(d + 1):
            yield P_new1s(d, n, F), o + n, d - n  # prob, 1s after, points added (the non-1s rolled)

    def win(scores):
        best = max(scores)
        return tuple(1.0 if s == best else 0.0 for s in scores)

    @lru_cache(maxsize=None)
    def final(scores, m, k, o):
        """Seat m's final turn (the seats after it still to play)."""
        def after(sc):
            return win(sc) if m == N - 1 else final(sc, m + 1, 0, 0)

        t = scores[m] + k
        can_hold = k > 0 and t > max(scores)
        if can_hold:
            sc = list(scores)
            sc[m] = t
            hold = after(tuple(sc))
            if t >= cap:
                return hold
        roll = [0.0] * N
        for p, o2, g in rolls(o):
            nxt = after(scores) if o2 >= L else final(scores, m, k + g, o2)
            roll = [a + p * b for a, b in zip(roll, nxt)]
        if can_hold and not roll[m] > hold[m] + tol:
            return hold
        return tuple(roll)

    V = {}  # normal phase: (scores, m, k, o) -> vector

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
        if k > K:
            return hold
        roll = [0.0] * N
        for p, o2, g in rolls(o):
            nxt = V.get((scores, (m + 1) % N, 0, 0), (1.0 / N,) * N) if o2 >= L else V[(scores, m, k + g, o2)]
            roll = [a + p * b for a, b in zip(roll, nxt)]
        if hold is not None and not roll[m] > hold[m] + tol:
            return hold
        return tuple(roll)

    tuples = sorted(np.ndindex(*(G,) * N), key=lambda s: -sum(s))
    levels = {}
    for s in tuples:
        levels.setdefault(sum(s), []).append(s)
    for total in sorted(levels, reverse=True):
        states = [(s, m, k, o) for s in levels[total] for m in reversed(range(N))
                  for k in range(K + D, -1, -1) for o in range(L)]
        for _ in range(2000):
            change = 0.0
            for st in states:
                new = update(st)
                old = V.get(st)
                if old is not None:
                    change = max(change, max(abs(a - b) for a, b in zip(new, old)))
                else:
                    change = 1.0
                V[st] = new
            if change <= 1e-16:
                break
        else:  # pragma: no cover
            raise AssertionError(f"level {total} did not settle")
    return V, final


def _compare_brute(N, goal, K):
    rules = Rules(goal=goal, turn_total_bound=K, **TINY)
    sol = nplayer.solve(rules, N)
    assert sol.mixed == []  # this small game has no policy cycle (so the equilibrium is unique here)
    V, final = brute_force(rules, N, sol.spec.cap)
    worst = 0.0
    for s in np.ndindex(*(goal,) * N):
        for m in range(N):
            worst = max(worst, float(np.max(np.abs(sol.start_at(s)[m] - V[(s, m, 0, 0)]))))
    assert worst <= 1e-12, worst
    # every mid-turn state from the stored turn starts (the lookup path) equals the brute force
    worst = 0.0
    for s in list(np.ndindex(*(goal,) * N))[:: max(1, goal ** N // 60)]:
        for m in range(N):
            tv = nplayer.turn_values(s, m, sol.lookup, sol.spec, sol.finals)
            for k in range(K + 1):
                for o in range(rules.ones_limit):
                    worst = max(worst, float(np.max(np.abs(tv["p_win"][k, o] - V[(s, m, k, o)]))))
    assert worst <= 1e-12, worst
    # final turns: seat 1 (0-based) at bar X facing the later seats
    for X in range(goal, goal + 6):
        later = (1,) * (N - 2)
        value, _ = nplayer.final_turn_values(sol.spec, sol.finals, 1, X, later)
        for s1 in range(goal):
            ref = final((X,) + (s1,) + later, 1, 0, 0)
            got = value[s1, 0]  # roles [leader (seat 0), 1, 2, ..]
            assert np.max(np.abs(got - np.array(ref))) <= 1e-12


def test_brute_force_three_players():
    _compare_brute(3, goal=7, K=7)


def test_brute_force_four_players():
    _compare_brute(4, goal=5, K=5)


# --------------------------------------------------------------------------- two players
def test_two_players_reproduce_the_two_player_solver():
    # seed 002's game (goal 50): every turn start of both seats within 1e-12 of dicebase's two-player solver
    rules = Rules()
    ref = two_player.solve(rules)
    sol = nplayer.solve(rules, 2)
    G = rules.goal
    S = sol.start.reshape(G, G, 2, 2)
    assert np.max(np.abs(S[:, :, 0, 0] - ref.turn_start[0, :, :G])) <= 1e-12  # P(1, i, j, 0, 0)
    assert np.max(np.abs(S[:, :, 1, 1] - ref.turn_start[1, :, :G].T)) <= 1e-12  # P(2, j, i, 0, 0)
    assert np.max(np.abs(S.sum(axis=-1) - 1.0)) <= 1e-12
    assert sol.mixed == [] and sol.stats["cycle_tuples"] == 0  # zero-sum: no policy cycles
    # mid-turn states from the stored turn starts: seed 002's P_roll and P_hold
    for i, j in [(0, 0), (31, 44), (49, 12)]:
        tv = nplayer.turn_values((i, j), 0, sol.lookup, sol.spec, sol.finals)
        assert np.max(np.abs(tv["p_roll"][:, :, 0] - ref.p_roll[0, i, j])) <= 1e-12
        assert np.max(np.abs(tv["p_hold"][1:, 0] - ref.p_hold[0, i, j, 1:])) <= 1e-12


# --------------------------------------------------------------------------- simulation
def _simulate(sol, games: int, seed: int) -> np.ndarray:
    """Play the stored policy (normal turns from :func:`turn_values`, final turns from
    :func:`final_turn_values`); return each seat's wins."""
    spec, rules = sol.spec, sol.spec.rules
    N, G, D, L, F, K = spec.players, rules.goal, rules.dice, rules.ones_limit, rules.faces, rules.turn_total_bound
    rng = random.Random(seed)
    normal, finals = {}, {}
    mixing = sol.mixing()

    def new_ones(d):
        return sum(1 for _ in range(d) if rng.randrange(F) == 0)

    wins = np.zeros(N)
    for _ in range(games):
        scores = [0] * N
        m, last = 0, None  # last: the seat that ended the normal phase
        while last is None:
            key = (tuple(scores), m)
            if key not in normal:
                normal[key] = nplayer.turn_values(key[0], m, sol.lookup, spec, sol.finals, mixing.get(key))["roll"]
            roll = normal[key]
            k = o = 0
            while True:
                if k > K or (k > 0 and rng.random() >= roll[k, o]):  # hold
                    scores[m] += k
                    if scores[m] >= G:
                        last = m
                    break
                o += new_ones(D - o)
                if o >= L:
                    break
                k += D - o
            m = (m + 1) % N
        for j in range(last + 1, N):  # final turns
            X = max(scores)
            fk = (j, X, tuple(scores[j + 1:]))
            if fk not in finals:
                finals[fk] = nplayer.final_turn_values(spec, sol.finals, j, X, fk[2])[1]
            froll = finals[fk]
            t, o = scores[j], 0
            while True:
                if t > X and (t >= spec.cap or not froll[t, o]):
                    scores[j] = t
                    break
                o += new_ones(D - o)
                if o >= L:
                    break
                t += D - o
        wins[int(np.argmax(scores))] += 1
    return wins


def test_simulation_three_players():
    rules = Rules(goal=12, turn_total_bound=16, **TINY)
    sol = nplayer.solve(rules, 3)
    games = 30000
    wins = _simulate(sol, games, seed=21)
    p = sol.start_at((0, 0, 0))[0]
    rate = wins / games
    half = 1.96 * np.sqrt(p * (1 - p) / games)  # 95% confidence interval of each seat's win rate
    assert np.all(np.abs(rate - p) <= half), (rate, p, half)


# --------------------------------------------------------------------------- tie-break
def test_tie_break_holds():
    """Roll and hold within 1e-12 for the mover: the solver holds; more than 1e-12 better: it rolls."""
    rules = Rules(goal=10, turn_total_bound=10, **TINY)
    N, K, D, L = 3, rules.turn_total_bound, rules.dice, rules.ones_limit
    out = nplayer.outcomes(rules)
    reach = nplayer.reach_mask(rules)
    v = np.array([0.25, 0.5, 0.25])
    H = np.broadcast_to(v, (N, K + D + 1, N)).copy()  # every hold and the bust are worth v: rolling ties
    A, c = np.zeros((K + D + 1, L, N)), np.zeros((K + D + 1, L))
    dec, ivl = np.zeros((K + 1, L), dtype=bool), np.zeros(2)
    m = 1
    best_turn(m, v[m], N, K, D, L, nplayer.TIE_TOLERANCE, reach, out.p, out.gain, out.o_next, out.n, out.p_end,
              H, A, c, dec, ivl, np.zeros(N), False, dec)
    assert not dec[1:][reach[1:]].any()  # a tie (within 1e-12): hold
    assert dec[0, 0]  # never hold at turn total 0
    # a bust now worth 1e-10 more to the mover: rolling beats holding by more than the tolerance
    best_turn(m, v[m] + 1e-10, N, K, D, L, nplayer.TIE_TOLERANCE, reach, out.p, out.gain, out.o_next, out.n,
              out.p_end, H, A, c, dec, ivl, np.zeros(N), False, dec)
    assert dec[1:K + 1][reach[1:]].all()


# --------------------------------------------------------------------------- policy cycles
@pytest.fixture(scope="module")
def cycling():
    return nplayer.solve(CYCLING, 3), nplayer.solve(CYCLING, 3, selection="cycle-start")


def _check_equilibrium(sol, s):
    """At tuple ``s``: every randomising seat is indifferent at its decision (roll and hold within 1e-12
    for it), the turn values from the stored turn starts reproduce them, and every seat's every decision
    is a best response (its value is at least that of rolling and of holding, within 1e-12)."""
    mixing = sol.mixing()
    N = sol.spec.players
    for m in range(N):
        tv = sol.turn_values(s, m)
        for k, o, q in mixing.get((s, m), []):
            assert 0.0 < q < 1.0 and tv["roll"][k, o] == q
            assert abs(tv["p_roll"][k, o, m] - tv["p_hold"][k, m]) <= 1e-12
        assert np.max(np.abs(tv["p_win"][0, 0] - sol.start_at(s)[m])) <= 1e-12
        hold = np.where(np.arange(len(tv["p_hold"]))[:, None] > 0, np.nan_to_num(tv["p_hold"][:, m], nan=-1.0)[:, None],
                        -1.0)
        best = np.maximum(tv["p_roll"][:, :, m], hold)
        assert np.all(tv["p_win"][:, :, m] >= best - 1e-12)


def test_cycle_is_detected_and_mixed(cycling):
    sol, _ = cycling
    assert [m["scores"] for m in sol.mixed] == [[10, 12, 0]]
    rec = sol.mixed[0]
    assert rec["kind"] == "mixed" and len(rec["randomising"]) == 2  # two seats randomise, one decision each
    assert all(len(states) == 1 for _, states, _ in rec["randomising"])
    assert sol.stats["cycle_tuples"] == 1 and sol.stats["max_indifference_residual"] <= 1e-12
    _check_equilibrium(sol, (10, 12, 0))


def test_four_players_cycles():
    # 4 players, goal 14 (4 dice, two 1s end the turn): policy iteration cycles in 9 tuples; in one three
    # seats randomise, in six two do, in two the search finds a pure equilibrium among the cycle's policies
    rules = Rules(goal=14, dice=4, ones_limit=2, faces=6, turn_total_bound=64)
    sol = nplayer.solve(rules, 4)
    kinds = {tuple(m["scores"]): (m["kind"], len(m["randomising"])) for m in sol.mixed}
    assert sorted(kinds.values()) == [("mixed", 2)] * 6 + [("mixed", 3)] + [("pure", 0)] * 2
    assert kinds[(10, 4, 11, 0)] == ("mixed", 3)
    assert kinds[(7, 8, 11, 0)] == ("pure", 0) and kinds[(7, 8, 13, 6)] == ("pure", 0)
    # each randomising seat's two policies differ at one decision, so its stored roll probability is the
    # lottery between them and replaying it gives the stored values back (_check_equilibrium)
    assert all(len(states) == 1 for m in sol.mixed for _, states, _ in m["randomising"])
    for s in kinds:
        _check_equilibrium(sol, s)


def test_selection_changes_only_what_can_reach_the_cycle(cycling):
    sol, alt = cycling
    G = CYCLING.goal
    affected = np.array([m["scores"] for m in sol.mixed])
    diff = np.abs(sol.start - alt.start).max(axis=(1, 2))
    scores = np.array(np.unravel_index(np.arange(G ** 3), (G,) * 3)).T
    can_reach = np.zeros(len(scores), dtype=bool)
    for a in affected:  # scores only grow: a tuple reaches `a` only if it is at or below it in every seat
        can_reach |= np.all(scores <= a, axis=1)
    assert diff[~can_reach].max() == 0.0  # bit-identical wherever the cycle tuple cannot be reached
    idx = sol.spec.index(tuple(affected[0]))
    assert diff[idx] > 1e-9  # the selection matters in the cycle tuple itself
    # downstream the effect is damped by the chance of reaching the tuple (reported, not zero)
    assert diff[can_reach].max() <= diff[idx]


def test_two_players_have_no_cycles():
    sol = nplayer.solve(CYCLING, 2)
    assert sol.mixed == []


# --------------------------------------------------------------------------- caps
def test_caps_raised_change_nothing():
    # turn totals kept to 2 * goal, final-round scores capped at goal + turn_total_bound: raising both
    # changes no value.  (Too small a turn-total cap does change values: with three players a seat may
    # roll far past the goal to raise the bar, so the cap must be proven, not assumed.)
    rules = Rules(goal=12, turn_total_bound=24, **TINY)
    base = nplayer.solve(rules, 3)
    wide = nplayer.solve(Rules(goal=12, turn_total_bound=48, **TINY), 3, score_cap=100)
    assert base.spec.cap == 36 and wide.spec.cap == 100
    assert np.max(np.abs(base.start - wide.start)) <= 1e-12
    assert base.stats["score_cap"] == 36 and base.stats["turn_total_bound"] == 24
    assert base.stats["tie_tolerance"] == nplayer.TIE_TOLERANCE
    short = nplayer.solve(Rules(goal=12, turn_total_bound=12, **TINY), 3)
    assert np.max(np.abs(short.start - wide.start)) > 1e-6  # the test would see a cap that bites


def test_caps_raised_change_nothing_with_a_cycle(cycling):
    sol, _ = cycling
    wide = nplayer.solve(Rules(goal=16, dice=4, ones_limit=2, faces=6, turn_total_bound=64), 3, score_cap=120)
    assert np.max(np.abs(sol.start - wide.start)) <= 1e-12
    assert [m["scores"] for m in wide.mixed] == [m["scores"] for m in sol.mixed]


# --------------------------------------------------------------------------- chunks and threads
def test_chunks_and_threads_are_bit_identical(cycling):
    sol, _ = cycling
    import numba

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = nplayer.solve(CYCLING, 3, chunk=7, workers=1)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = nplayer.solve(CYCLING, 3, chunk=50, workers=2)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.start, sol.start) and np.array_equal(two.start, sol.start)
    assert one.mixed == sol.mixed == two.mixed
    # one level's tuples in any order and split: each tuple's values depend only on higher levels
    spec = sol.spec
    inputs = nplayer.LevelInputs(spec, sol.finals, sol.start.copy(), nplayer.reach_mask(CYCLING),
                                 nplayer.outcomes(CYCLING))
    level = nplayer.level_tuples(spec)[10]
    whole = nplayer.solve_tuples(inputs, level)
    rev = level[::-1]
    parts = [nplayer.solve_tuples(inputs, rev[i: i + 3], workers=2) for i in range(0, len(rev), 3)]
    again = np.concatenate([p.values for p in parts])[::-1]
    assert np.array_equal(whole.values, again) and np.array_equal(whole.values, sol.start[level])


def test_values_are_probability_vectors(cycling):
    sol, _ = cycling
    assert sol.start.min() >= 0.0 and sol.start.max() <= 1.0
    assert np.max(np.abs(sol.start.sum(axis=-1) - 1.0)) <= 1e-12
    for j in range(1, 3):
        assert np.max(np.abs(sol.finals.phi[j].sum(axis=-1) - 1.0)) <= 1e-12


def test_first_passage_is_p_exceed():
    from dicebase.builder.rolled_ones.rules import P_exceed_table

    rules = Rules()
    Q = nplayer.first_passage(rules, 120)
    pex = P_exceed_table(rules, 120)
    assert np.max(np.abs(Q.sum(axis=(2, 3)) - pex[1:, :3])) <= 1e-14


def test_four_players_need_a_wider_turn_total_bound():
    # seed 002's dice at goal 6: a margin of 30 past the goal bites with 4 players; rules_for's 50 does not
    def solve(margin):
        return nplayer.solve(Rules(goal=6, turn_total_bound=6 + margin), 4).start

    wide = solve(100)
    assert np.max(np.abs(solve(30) - wide)) > 1e-7
    assert np.max(np.abs(nplayer.solve(nplayer.rules_for(4, goal=6), 4).start - wide)) <= 1e-12
    assert nplayer.rules_for(4).turn_total_bound == 100 and nplayer.rules_for(3).turn_total_bound == 80


def test_three_players_goal_50():
    # the standard game with 3 players: ../shared/N-PLAYERS.md reports 4 of 125,000 tuples without a pure
    # stationary equilibrium (an independent solver); we find the same 4, each with a mixed equilibrium in
    # which two seats randomise at one decision each
    sol = nplayer.solve(nplayer.rules_for(3), 3)
    assert sol.spec.rules.turn_total_bound == 80 and sol.spec.cap == 130
    cycles = [tuple(m["scores"]) for m in sol.mixed]
    assert cycles == [(33, 35, 39), (35, 33, 31), (43, 40, 33), (47, 49, 31)]
    assert all(m["kind"] == "mixed" and len(m["randomising"]) == 2 for m in sol.mixed)
    for s in cycles:
        _check_equilibrium(sol, s)
    # regression anchor: each seat's win probability at the start
    assert np.allclose(sol.start_at((0, 0, 0))[0], [0.285868303, 0.328642979, 0.385488718], atol=1e-9)
