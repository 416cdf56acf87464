"""Table (a)/(b): seed 004's counts and expected values, and scoring invariants."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicebase.builder.dice import rolls
from dicebase.builder.ten_thousand.odds import odds_rows
from dicebase.builder.ten_thousand.rules import FARKLE, TEN_THOUSAND
from dicebase.builder.ten_thousand.scoring import classify, dominated_flags, keep_points, legal_keeps

R = TEN_THOUSAND


def table(n, t=0, rules=R):
    return {row["combination"]: row for row in odds_rows(rules, n, t)}


# seed 004 ("Basic probability"): dice -> (# successes, success %)
BASIC = {6: (45_576, 97.69), 5: (7_176, 92.28), 4: (1_092, 84.26), 3: (156, 72.22), 2: (20, 55.56), 1: (2, 33.33)}
# seed 004 ("3-of-a-kind already rolled", triples of 2s, 3s, 4s or 6s)
STANDING = {3: (192, 88.89), 2: (27, 75.00), 1: (3, 50.00)}


@pytest.mark.parametrize("n", sorted(BASIC))
def test_seed004_basic_probability(n):
    # seed 004: Basic probability table
    rows = table(n)
    scoring = sum(r["outcomes"] for name, r in rows.items() if name != "Farkle")
    assert scoring == BASIC[n][0]
    assert round(100 * scoring / 6**n, 2) == BASIC[n][1]
    assert round(100 * rows["Farkle"]["probability"], 2) == round(100 - BASIC[n][1], 2)


@pytest.mark.parametrize("t", [2, 3, 4, 6])
@pytest.mark.parametrize("n", sorted(STANDING))
def test_seed004_standing_triple_probability(n, t):
    # seed 004: "3-of-a-kind already rolled" table (triples of 2s, 3s, 4s or 6s)
    rows = table(n, t)
    scoring = sum(r["outcomes"] for name, r in rows.items() if name != "Farkle")
    assert scoring == STANDING[n][0]
    assert round(100 * scoring / 6**n, 2) == STANDING[n][1]


@pytest.mark.parametrize("t", [1, 5])
def test_standing_triple_of_ones_or_fives_changes_nothing(t):
    # seed 004: "the odds only change when the 3-of-a-kind is 2's, 3's 4's or 6's"
    for n in (1, 2, 3):
        rows = table(n, t)
        assert sum(r["outcomes"] for name, r in rows.items() if name != "Farkle") == BASIC[n][0]


# seed 004: per-combination "# Successes" and "EV" (points, rounded to whole points)
COMBOS = {
    6: {"6-of-a-kind": (6, 2000), "5-of-a-kind": (180, 1525), "Two 3-of-a-kind": (300, 1000),
        "Straight": (720, 1000), "Three pairs": (1800, 750), "4-of-a-kind": (2250, 1050),
        "3-of-a-kind": (14400, 575), "1 or 5": (25920, 156)},
    5: {"5-of-a-kind": (6, 1500), "4-of-a-kind": (150, 1025), "3-of-a-kind": (1500, 550), "1 or 5": (5520, 139)},
    4: {"4-of-a-kind": (6, 1000), "3-of-a-kind": (120, 525), "1 or 5": (966, 121)},
    3: {"3-of-a-kind": (6, 500), "1 or 5": (150, 105)},
    2: {"1 or 5": (20, 90)},
    1: {"1 or 5": (2, 75)},
}


@pytest.mark.parametrize("n", sorted(COMBOS))
def test_seed004_combinations_without_triple(n):
    # seed 004: "Rolling N dice" count tables and "The Expected Value of a roll" tables
    rows = table(n)
    assert set(rows) - {"Farkle"} == set(COMBOS[n])
    for name, (count, ev) in COMBOS[n].items():
        assert rows[name]["outcomes"] == count, name
        assert round(rows[name]["mean_points"]) == ev, name  # "score the maximum number of dice"
        # seed 004's Success % column
        assert round(100 * rows[name]["probability"], 2) == round(100 * count / 6**n, 2)


@pytest.mark.parametrize("t", [2, 3, 4, 6])
def test_seed004_combinations_with_standing_triple(t):
    # seed 004: "Rolling 3/2/1 dice with 3-of-a-kind already rolled" count tables
    assert {k: v["outcomes"] for k, v in table(3, t).items()} == {
        "3-of-a-kind": 5, "Add to 3-of-a-kind": 91, "1 or 5": 96, "Farkle": 24}
    assert {k: v["outcomes"] for k, v in table(2, t).items()} == {"Add to 3-of-a-kind": 11, "1 or 5": 16, "Farkle": 9}
    assert {k: v["outcomes"] for k, v in table(1, t).items()} == {"Add to 3-of-a-kind": 1, "1 or 5": 2, "Farkle": 3}
    value = R.triple_values[t - 1]
    # seed 004 EV: "3-of-a-kind value * 108/91", "* 12/11", "3-of-a-kind value": the points of the
    # dice added to the triple (mean_combination_points), exactly
    for n, frac in ((3, Fraction(108, 91)), (2, Fraction(12, 11)), (1, Fraction(1))):
        assert table(n, t)["Add to 3-of-a-kind"]["mean_combination_points"] == pytest.approx(float(value * frac), abs=1e-9)
    # seed 004 EV: 2 dice "1 or 5" 94 and 1 die "1 or 5" 75
    assert round(table(2, t)["1 or 5"]["mean_points"]) == 94
    assert table(1, t)["1 or 5"]["mean_points"] == 75


def test_seed004_entries_not_reproducible_as_printed():
    # seed 004, "Rolling 3 dice with 3-of-a-kind already rolled" EV: 3-of-a-kind 500 and
    # 1 or 5 105 are the numbers of the table WITHOUT a standing triple.  With a standing
    # triple t the 5 triples exclude face t (mean 560/540/520/480 for t = 2/3/4/6; 500 only
    # as the mean over all six standing faces) and the 96 "1 or 5" rolls average 112.5.
    for t, mean in ((2, 560), (3, 540), (4, 520), (6, 480)):
        assert table(3, t)["3-of-a-kind"]["mean_points"] == mean
        assert table(3, t)["1 or 5"]["mean_points"] == 112.5
    assert sum(table(3, t)["3-of-a-kind"]["mean_points"] for t in range(1, 7)) / 6 == 500
    assert table(3)["3-of-a-kind"]["mean_points"] == 500 and table(3)["1 or 5"]["mean_points"] == 105


def test_max_points_keep_uses_the_most_dice():
    # seed 004: "the assumption is that you'll score the maximum number of dice" -- for the
    # ten-thousand rules the best-scoring keep always uses the most dice, so both readings agree
    for n in range(1, 7):
        for t in ([0] if n > 3 else range(7)):
            for counts in rolls(n).counts:
                keeps = legal_keeps(R, tuple(int(c) for c in counts), n, t)
                if keeps:
                    assert keeps[0].dice == max(k.dice for k in keeps)


def test_scoring_examples():
    assert keep_points(R, (4, 0, 0, 0, 0, 0), 0) == (2000, 1)  # four 1s: 2 x 1000
    assert keep_points(R, (0, 6, 0, 0, 0, 0), 0) == (800, 2)  # six 2s: 4 x 200
    assert keep_points(R, (1, 1, 1, 1, 1, 1), 0)[0] == 1000  # straight
    assert keep_points(R, (2, 2, 0, 0, 2, 0), 0)[0] == 750  # three pairs
    assert keep_points(R, (0, 4, 2, 0, 0, 0), 0)[0] == -1  # 4 + pair is not three pairs here
    assert keep_points(R, (0, 3, 3, 0, 0, 0), 0)[0] == 500  # two triples score as two triples
    assert keep_points(R, (0, 2, 0, 0, 0, 0), 2) == (400, 0)  # two 2s added to a standing triple
    assert keep_points(FARKLE, (4, 0, 0, 0, 0, 0), 0)[0] == 1000  # four of a kind beats 300 + 100
    assert keep_points(FARKLE, (0, 4, 2, 0, 0, 0), 0)[0] == 1500  # four of a kind + pair
    assert keep_points(FARKLE, (0, 3, 3, 0, 0, 0), 0)[0] == 2500  # two triplets
    # hot dice: all six scored -> six dice again, triple cleared
    keeps = legal_keeps(R, (0, 3, 0, 0, 3, 0), 6, 0)
    assert keeps[0].n_after == 6 and keeps[0].t_after == 0 and keeps[0].points == 700
    # a kept triple stands with the dice left
    assert any(k.kept == (0, 3, 0, 0, 0, 0) and (k.n_after, k.t_after) == (3, 2) for k in keeps)


roll_strategy = st.integers(1, 6).flatmap(lambda n: st.lists(st.integers(1, 6), min_size=n, max_size=n))


@settings(max_examples=300, deadline=None)
@given(faces=roll_strategy, t=st.integers(0, 6))
def test_keep_invariants(faces, t):
    n = len(faces)
    if n > 3:
        t = 0
    counts = tuple(faces.count(f) for f in range(1, 7))
    keeps = legal_keeps(R, counts, n, t)
    name, _ = classify(R, counts, t)
    assert (name == "Farkle") == (not keeps)
    flags = dominated_flags(keeps)
    assert not any(flags[:1])
    for k, dom in zip(keeps, flags):
        assert k.points > 0 and k.points % 50 == 0
        assert all(0 <= a <= b for a, b in zip(k.kept, counts))
        assert k.n_after == (6 if k.dice == n else n - k.dice)
        if dom:  # some earlier keep reaches the same state with at least as many points
            assert any((o.n_after, o.t_after) == (k.n_after, k.t_after) and o.points >= k.points
                       for o in keeps[: keeps.index(k)])
    # every die that can score alone scores: a sub-keep never beats its super-keep on points
    for a in keeps:
        for b in keeps:
            if all(x <= y for x, y in zip(a.kept, b.kept)):
                assert a.points <= b.points
