"""Threes solver, called directly (no database): seed figures and a brute-force cross-check."""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from dicebase.builder import threes as T

CLASSIC = T.VARIANTS["classic"]
REROLL = T.VARIANTS["reroll"]


@pytest.fixture(scope="module")
def expected():
    return {name: T.solve_expected(rules) for name, rules in T.VARIANTS.items()}


@lru_cache(maxsize=None)
def win(variant: str, ties: str, max_players: int) -> T.WinSolution:
    return T.solve_win(T.VARIANTS[variant], ties, max_players)


def fresh(sol: T.WinSolution, m: int, to_beat: int, dice: int = 5, must_keep_two: bool = False) -> float:
    """Pre-roll p_win with ``dice`` to roll, score 0."""
    return float(sol.levels[m].value[(dice, must_keep_two)][to_beat, 0])


def ranked(values):
    """(keep, value) pairs -> keep chosen by the documented rule: max value, ties -> fewest dice."""
    top = max(v for _, v in values)
    return min(a for a, v in values if v >= top - T.TOL * abs(top))


# ----------------------------------------------------------------------------- objective (a)
def test_classic_expected_scores(expected):
    # issue 2 acceptance; seed 003 In [8]/[9]: expectation(1) == 3, round(expectation(2), 2) == 4.39,
    # round(expectation(3), 2) == 5.23
    e = expected["classic"].expected
    assert e[(1, False)] == 3
    assert round(e[(2, False)], 4) == 4.3889
    assert round(e[(3, False)], 4) == 5.2338
    assert round(e[(5, False)], 4) == 6.2540


def test_seed003_expectation_roll(expected):
    # seed 003 In [9]: expectation_roll([1, 6]) == 4, expectation_roll([1, 1, 6]) == 5
    sol = expected["classic"]
    assert min(v for _, v in T.action_values_expected(sol, T.sort_roll(CLASSIC, [1, 6]), 0, False)) == 4
    assert min(v for _, v in T.action_values_expected(sol, T.sort_roll(CLASSIC, [1, 1, 6]), 0, False)) == 5


def test_reroll_expected_scores(expected):
    # issue 2 acceptance (seed 000 "rolling first" table: 5.6 / 7 / 4.8 are its rounded simulations)
    e = expected["reroll"].expected
    assert round(e[(5, False)], 4) == 5.6622
    assert round(e[(5, True)], 4) == 7.0321
    assert round(e[(3, False)], 4) == 4.7917


def test_seed000_rolling_first_table(expected):
    # seed 000 "The Value Function" table: simulated, printed with at most one decimal and not consistently
    # rounded (5.662 is printed 5.6 but 4.792 as 4.8), so agreement means within 0.1
    seed = {(1, False): 3, (2, True): 6, (2, False): 4, (3, True): 7, (3, False): 4.8, (4, True): 7,
            (4, False): 5.3, (5, True): 7, (5, False): 5.6}
    e = expected["reroll"].expected
    for key, value in seed.items():
        assert abs(e[key] - value) < 0.1, (key, e[key], value)


def test_more_dice_never_lowers_expected_score(expected):
    for sol in expected.values():
        e = [sol.expected[(d, False)] for d in range(6)]
        assert all(a < b for a, b in zip(e, e[1:]))


def test_expected_distribution_matches_expectation(expected):
    for sol in expected.values():
        dist = sol.final_dist
        assert dist.sum() == pytest.approx(1.0, abs=1e-12)
        assert dist @ np.arange(len(dist)) == pytest.approx(sol.expected[(5, False)], abs=1e-12)


# ----------------------------------------------------------------------------- objective (b)
# seed 000 "rolling second": get_pwin(nleft, taketwo, g), gap g = target - score, ties shared (g >= 0 wins or ties).
SEED000_PWIN = {
    (1, False): [0.1667, 0.3334, 0.5001, 0.5001, 0.6668, 0.8335, 1.000],
    (2, True): [0.028, 0.083, 0.166, 0.221, 0.304, 0.414, 0.581, 0.691, 0.774, 0.829, 0.912, 0.967, 0.995],
    (2, False): [0.093, 0.238, 0.398, 0.508, 0.623, 0.724, 0.849, 0.914, 0.950, 0.972, 0.993, 0.999, 0.999],
    (3, True): [0.0162, 0.0582, 0.1297, 0.2077, 0.2954, 0.3857, 0.4987, 0.5955, 0.6814, 0.7531, 0.8300, 0.8882,
                0.9293, 0.9550, 0.9753, 0.9884, 0.9962, 0.9993],
    (3, False): [0.0580, 0.1634, 0.3050, 0.4322, 0.5596, 0.6698, 0.7774, 0.8611, 0.9183, 0.9492, 0.9722, 0.9857,
                 0.9929, 0.9964, 0.9988, 0.9997, 1.0000, 1.0000],
    (4, True): [0.0142, 0.0528, 0.1237, 0.2125, 0.3125, 0.4161, 0.5249, 0.6290, 0.7208, 0.7944, 0.8556, 0.9016,
                0.9357, 0.9587, 0.9752, 0.9859, 0.9928, 0.9964, 0.9983, 0.9993, 0.9998, 1.0000, 1.0000, 1.0000],
    (4, False): [0.0433, 0.1258, 0.2489, 0.3750, 0.4999, 0.6184, 0.7311, 0.8227, 0.8915, 0.9358, 0.9634, 0.9801,
                 0.9898, 0.9948, 0.9975, 0.9988, 0.9995, 0.9998, 0.9999, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000],
    (5, True): [0.0130, 0.0493, 0.1162, 0.2048, 0.3101, 0.4198, 0.5318, 0.6364, 0.7305, 0.8070, 0.8659, 0.9097,
                0.9418, 0.9631, 0.9775, 0.9867, 0.9926, 0.9959, 0.9978, 0.9989, 0.9995, 0.9998, 0.9999, 1.0000,
                1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000],
    (5, False): [0.0356, 0.1059, 0.2144, 0.3359, 0.4604, 0.5793, 0.6940, 0.7910, 0.8659, 0.9190, 0.9535, 0.9746,
                 0.9868, 0.9934, 0.9968, 0.9985, 0.9993, 0.9997, 0.9999, 0.9999, 1.0000, 1.0000, 1.0000, 1.0000,
                 1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000],
}
# Seed 000's (2, True) row for gaps 5..12 is short of the exact values by 0.0023-0.0052 (about 0.5 % relative,
# growing with the gap).  That state keeps both dice, so its value is a plain count, P(two worths sum <= g)
# = n/36, and g = 12 is a certain win (6 + 6 = 12) that the seed lists as 0.995: the row is biased, not noisy.
SEED000_BIASED = {(2, True, g) for g in range(5, 13)}


def test_seed000_rolling_second_tables():
    # seed 000 "Rolling Second" get_pwin tables, within 0.002 (its 300,000-sample simulations)
    sol = win("reroll", "shared", 1)
    for (d, f), row in SEED000_PWIN.items():
        for g, seed_value in enumerate(row):
            ours = fresh(sol, 0, g, d, f)
            if (d, f, g) in SEED000_BIASED:
                continue
            assert abs(ours - seed_value) <= 0.002, (d, f, g, ours, seed_value)


def test_seed000_keep_both_row_is_exact_count():
    # seed 000 (2, True): we hold the exact count; the seed's entries are below it (see SEED000_BIASED)
    sol = win("reroll", "shared", 1)
    worths = [0, 1, 2, 4, 5, 6]
    for g in range(13):
        count = sum(1 for a in worths for b in worths if a + b <= g)
        assert fresh(sol, 0, g, 2, True) == pytest.approx(count / 36, abs=1e-15)
        if (2, True, g) in SEED000_BIASED:
            assert 0.002 < count / 36 - SEED000_PWIN[(2, True)][g] < 0.006


SEED003_FRESH_TURN = {10: "87.64%", 9: "81.16%", 8: "72.45%", 7: "61.89%", 6: "49.93%", 5: "38.23%", 4: "26.71%",
                      3: "16.21%", 2: "7.30%", 1: "2.11%"}


def percentage(p: float) -> str:
    # seed 003's own formatting: "{:.2f}%".format(round(p, 4) * 100)
    return "{:.2f}%".format(round(p, 4) * 100)


def test_seed003_chance_of_beating_with_a_fresh_turn():
    # seed 003 In [12]: p_beat(goal, 5), finishing strictly below the goal = last player, strict ties
    sol = win("classic", "strict", 1)
    for goal, text in SEED003_FRESH_TURN.items():
        assert percentage(fresh(sol, 0, goal)) == text


def test_seed003_p_beat_asserts():
    # seed 003 In [10]/[11]: p_beat(2, 1) == 33.33%, p_beat_with_roll(3, [3, 1, 6]) == 35.65%, p_beat(1, 2) == 7.41%
    sol = win("classic", "strict", 1)
    assert percentage(fresh(sol, 0, 2, dice=1)) == "33.33%"
    values = T.action_values_win(sol, T.sort_roll(CLASSIC, [3, 1, 6]), 0, 3, 0, False)
    assert percentage(max(v for _, v in values)) == "35.65%"
    assert percentage(fresh(sol, 0, 1, dice=2)) == "7.41%"


def test_seed003_take_the_one_or_reroll_both():
    # seed 003 In [11] printed table: "Beating g by taking the 1: x; beating g by rerolling both: y"
    seed = {8: ("100.00%", "86.11%"), 7: ("83.33%", "80.56%"), 6: ("66.67%", "68.06%"), 5: ("50.00%", "56.94%"),
            4: ("50.00%", "45.37%"), 3: ("33.33%", "35.65%"), 2: ("16.67%", "19.91%"), 1: ("0.00%", "7.41%")}
    V = win("classic", "strict", 1).levels[0].value
    for goal, (take_one, reroll_both) in seed.items():
        assert percentage(V[(1, False)][goal, 1]) == take_one  # kept the 1: score 1, one die left
        assert percentage(V[(2, False)][goal, 0]) == reroll_both


@pytest.mark.parametrize(
    "to_beat, players_after, keep",
    [(8, 0, 5), (8, 10, 2), (2, 0, 2)],  # seed 003 In [15], In [16], In [17]
)
def test_seed003_choose_n(to_beat, players_after, keep):
    # seed 003 choose_n(score_to_tie=B, score_so_far=0, current_roll=[3, 1, 3, 2, 4], players_after=m):
    # (5, 7), (2, 0), (2, 0).  Its score_to_tie is tied-counts-as-win, i.e. ties shared.
    sol = win("classic", "shared", 11)
    values = T.action_values_win(sol, T.sort_roll(CLASSIC, [3, 1, 3, 2, 4]), 0, to_beat, players_after, False)
    assert ranked(values) == keep
    level = sol.levels[players_after]
    roll_id = T.roll_set(CLASSIC, 5).keep_order.tolist().index([3, 3, 1, 2, 4])
    assert level.keep[(5, False)][to_beat, 0, roll_id] == keep  # the stored policy agrees


def test_seed001_example():
    # seed 001: optimize_turn(current_points=0, score_to_beat=7, opponents_left=4, dice=[4, 3, 1, 1, 2])
    # -> ([3], 0.1351) by Monte Carlo with approximate opponents.  Exact: keep the 3 as well, p_win 0.2760.
    sol = win("classic", "shared", 5)
    values = dict(T.action_values_win(sol, T.sort_roll(CLASSIC, [4, 3, 1, 1, 2]), 0, 7, 4, False))
    assert ranked(values.items()) == 1
    assert values[1] == pytest.approx(0.276029725545554, abs=1e-12)


def test_seed003_several_players_after_is_approximate():
    # seed 003 In [13]-[14] models later players by p_beat and gets 6.85% for score_to_tie=1, 4 players after;
    # with every later player playing its own best response the exact value is 6.91%.
    assert percentage(fresh(win("classic", "shared", 5), 4, 1)) == "6.91%"


def test_seed003_turn_order_advantage():
    # seed 003 Summary: "Each spot down in turn order seems to confer an approximately 2% advantage, so the 5th
    # player to take their turn after you has ~10% advantage on you" (10,000 simulated rounds of 6 mixed bots).
    # Exact, 6 perfect players, classic, shared ties (the seed counts every tied winner): seat 1 wins 20.86% and
    # seat 6 23.87%; each seat gains 0.51 to 0.75 percentage points on the one before, and seat 6 is 14.4% better
    # than seat 1 in relative terms (about 2.7% per seat), not 2 points per seat.
    seats = win("classic", "shared", 12).seats[6]
    assert [percentage(p) for p in seats] == ["20.86%", "21.37%", "21.95%", "22.50%", "23.11%", "23.87%"]
    gains = np.diff(seats)
    assert 0.0050 < gains.min() and gains.max() < 0.0076
    assert seats[-1] - seats[0] == pytest.approx(0.030091, abs=1e-6)
    assert seats[-1] / seats[0] == pytest.approx(1.14426, abs=1e-5)


# ----------------------------------------------------------------------------- invariants
@pytest.mark.parametrize("variant", ["classic", "reroll"])
@pytest.mark.parametrize("ties", T.TIE_RULES)
def test_win_invariants(variant, ties):
    sol = win(variant, ties, 12)
    rules = sol.rules
    for m, level in enumerate(sol.levels):
        for key, v in level.value.items():
            assert (v >= 0).all() and (v <= 1 + 1e-12).all()
            if m:
                assert (v <= sol.levels[m - 1].value[key] + 1e-12).all()  # more players after never helps
        assert level.final_dist.sum(axis=1) == pytest.approx(np.ones(rules.no_target + 1), abs=1e-12)
        # p_win of a fresh turn = sum_x P(x) W(x): the forward distribution and backward values agree
        start = level.value[(rules.dice, False)][:, 0]
        assert (level.final_dist * level.terminal).sum(axis=1) == pytest.approx(start, abs=1e-12)
    for n, seats in sol.seats.items():
        total = seats.sum()
        assert total > 1 if ties == "shared" else total < 1


def test_seat_totals_are_expected_winner_counts():
    # shared ties: sum of seats = expected number of winners >= 1; strict: P(some unique lowest) <= 1
    assert win("classic", "shared", 12).seats[2].sum() > 1
    assert win("classic", "strict", 12).seats[2].sum() < 1


# ----------------------------------------------------------------------------- brute force cross-check
TINY = {
    "classic": T.Rules("tiny-classic", dice=3, faces=4, worth=(1, 2, 0, 4)),
    "reroll": T.Rules("tiny-reroll", dice=3, faces=4, worth=(1, 2, 0, 4), allow_reroll=True),
}


def brute_force(rules: T.Rules, ties: str, players: int):
    """Scalar recursion over ORDERED rolls with wins judged from the definition (no product formula)."""
    shared = ties == "shared"
    n, worth = rules.dice, rules.worth

    def keep_costs(roll):
        w = sorted(worth[f - 1] for f in roll)
        return [sum(w[:a]) for a in range(len(roll) + 1)]

    @lru_cache(maxsize=None)
    def survive_later(x: int, b: int, k: int) -> float:
        """P(each of the next k players, the first facing best b, finishes not below x (shared) / above x)."""
        if k == 0:
            return 1.0
        total = 0.0
        for y, p in dist(b, k - 1).items():
            if (y >= x) if shared else (y > x):
                total += p * survive_later(x, min(b, y), k - 1)
        return total

    @lru_cache(maxsize=None)
    def reward(x: int, B: int, m: int) -> float:
        if not ((x <= B) if shared else (x < B)):
            return 0.0
        return survive_later(x, min(B, x), m)

    @lru_cache(maxsize=None)
    def choice(d, f, s, B, m, roll):
        costs = keep_costs(roll)
        vals = [(a, value(d - a, a == 0, s + costs[a], B, m)) for a in rules.legal_keeps(d, f)]
        return ranked(vals), max(v for _, v in vals)

    @lru_cache(maxsize=None)
    def value(d, f, s, B, m):
        if d == 0:
            return reward(s, B, m)
        rolls_ = list(product(range(1, rules.faces + 1), repeat=d))
        return sum(choice(d, f, s, B, m, tuple(sorted(r)))[1] for r in rolls_) / len(rolls_)

    @lru_cache(maxsize=None)
    def dist_from(d, f, s, B, m):
        if d == 0:
            return {s: 1.0}
        out: dict[int, float] = {}
        rolls_ = list(product(range(1, rules.faces + 1), repeat=d))
        for r in rolls_:
            a, _ = choice(d, f, s, B, m, tuple(sorted(r)))
            for x, p in dist_from(d - a, a == 0, s + keep_costs(r)[a], B, m).items():
                out[x] = out.get(x, 0.0) + p / len(rolls_)
        return out

    def dist(B, m):
        return dist_from(n, False, 0, B, m)

    def seats():
        """Enumerate every combination of final scores, judge the winners by the definition."""
        wins = np.zeros(players)

        def rec(seat, best, scores, p):
            if seat == players:
                low = min(scores)
                tied = [i for i, x in enumerate(scores) if x == low]
                if shared or len(tied) == 1:
                    for i in tied:
                        wins[i] += p
                return
            for x, q in dist(best, players - 1 - seat).items():
                rec(seat + 1, min(best, x), scores + [x], p * q)

        rec(0, rules.no_target, [], 1.0)
        return wins

    return value, choice, seats


@pytest.mark.parametrize("variant", ["classic", "reroll"])
@pytest.mark.parametrize("ties", T.TIE_RULES)
def test_solver_matches_brute_force(variant, ties):
    rules, players = TINY[variant], 3
    sol = T.solve_win(rules, ties, players)
    value, choice, seats = brute_force(rules, ties, players)
    for m, level in enumerate(sol.levels):
        for (d, f), V in level.value.items():
            reach = rules.reachable_scores(d)
            for B in range(rules.no_target + 1):
                for s in np.nonzero(reach)[0]:
                    assert V[B, s] == pytest.approx(value(d, f, int(s), B, m), abs=1e-12)
                    if d:
                        rs = T.roll_set(rules, d)
                        for r, faces in enumerate(rs.keep_order.tolist()):
                            assert level.keep[(d, f)][B, s, r] == choice(d, f, int(s), B, m, tuple(sorted(faces)))[0]
    assert sol.seats[players] == pytest.approx(seats(), abs=1e-12)


def test_legal_keeps():
    assert list(CLASSIC.legal_keeps(5, False)) == [1, 2, 3, 4, 5]
    assert list(REROLL.legal_keeps(5, False)) == [0, 1, 2, 3, 4, 5]
    assert list(REROLL.legal_keeps(5, True)) == [2, 3, 4, 5]
    assert list(REROLL.legal_keeps(1, False)) == [1]  # the last die cannot be re-rolled
    assert REROLL.flags(1) == (False,) and REROLL.flags(2) == (False, True)


def test_roll_order_and_costs():
    rs = T.roll_set(CLASSIC, 5)
    assert len(rs.prob) == 252 and rs.prob.sum() == pytest.approx(1.0)
    i = rs.keep_order.tolist().index([3, 3, 1, 2, 4])
    assert rs.cost[i].tolist() == [0, 0, 0, 1, 3, 7]


def test_pack_roundtrip():
    keep = np.array([[[0, 1, 2], [5, 4, 3]]], dtype=np.int8)
    packed = T.pack_keeps(keep)
    assert packed.tolist() == [["012", "543"]]
    assert T.unpack_keeps(packed.ravel()).tolist() == keep.reshape(2, 3).tolist()
