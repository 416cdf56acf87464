"""Table (a)/(b): seed 004's printed counts, percentages and expected values (seed file
004_ebfe5ef33ddae374.txt), and scoring invariants."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicebase.numeric.dice import rolls
from dicebase.builder.ten_thousand.odds import odds_rows
from dicebase.rules.ten_thousand import FARKLE, TEN_THOUSAND
from dicebase.rules.ten_thousand import classify, dominated_flags, keep_points, legal_keeps

R = TEN_THOUSAND


def table(n, t=0, rules=R):
    return {row["combination"]: row for row in odds_rows(rules, n, t)}


# ---------------------------------------------------------------------------------------------
# Seed file 004_ebfe5ef33ddae374.txt, its tables copied verbatim (Danish number format: "45.576"
# is 45,576 and "97,69 %" is 97.69 %).  The tests parse these lines and compare every printed
# count, percentage and expected value with ours, formatted the same way.
SEED_BASIC = """
6 45.576 97,69 % 2,31 %
5 7.176 92,28 % 7,72 %
4 1.092 84,26 % 15,74 %
3 156 72,22 % 27,78 %
2 20 55,56 % 44,44 %
1 2 33,33 % 66,67 %
"""
SEED_STANDING = """
3 192 88,89 % 11,11 %
2 27 75,00 % 25,00 %
1 3 50,00 % 50,00 %
"""
SEED_COMBOS = {  # "Rolling N dice": Combinations # Successes Success %
    6: """
6-of-a-kind 6 0,01 %
5-of-a-kind 180 0,39 %
Two 3-of-a-kind 300  0,64 %
Straight 720  1,54 %
Three pairs 1.800  3,86 %
4-of-a-kind 2.250  4,82 %
3-of-a-kind 14.400  30,86 %
1 or 5 25.920  55,56 %
""",
    5: """
5-of-a-kind 6 0,08 %
4-of-a-kind 150 1,93 %
3-of-a-kind 1.500 19,29 %
1 or 5 5.520 70,99 %
""",
    4: """
4-of-a-kind 6 0,46 %
3-of-a-kind 120 9,26 %
1 or 5 966 74,54 %
""",
    3: """
3-of-a-kind 6 2,78 %
1 or 5 150 69,44 %
""",
    2: """
1 or 5 20 55,56 %
""",
    1: """
1 or 5 2 33,33 %
""",
}
SEED_STANDING_COMBOS = {  # "Rolling N dice with 3-of-a-kind already rolled"
    3: """
3-of-a-kind 5 2,31 %
Add to 3-of-a-kind 91 42,13 %
1 or 5 96 44,44 %
""",
    2: """
Add to 3-of-a-kind 11 30,56 %
1 or 5 16 44,44 %
""",
    1: """
Add to 3-of-a-kind 1 16,67 %
1 or 5 2 33,33 %
""",
}
SEED_EV = {  # "The Expected Value of a roll": Combinations EV
    6: """
6-of-a-kind 2.000
5-of-a-kind 1.525
Two 3-of-a-kind 1.000
Straight 1.000
Three pairs 750
4-of-a-kind 1.050
3-of-a-kind 575
1 or 5 156
""",
    5: """
5-of-a-kind 1.500
4-of-a-kind 1.025
3-of-a-kind 550
1 or 5 139
""",
    4: """
4-of-a-kind 1.000
3-of-a-kind 525
1 or 5 121
""",
    3: """
3-of-a-kind 500
1 or 5 105
""",
    2: """
1 or 5 90
""",
    1: """
1 or 5 75
""",
}


def pct(p):
    """A probability as the seed prints it: '97,69 %'."""
    return f"{100 * p:.2f}".replace(".", ",") + " %"


def count(n):
    """A count or whole number of points as the seed prints it: '45.576'."""
    return f"{n:,}".replace(",", ".")


def parse(block, fields):
    """Seed table lines -> (name, [fields]) with the name being everything before the fields."""
    out = []
    for line in block.strip().splitlines():
        parts = line.replace(" %", "%").split()
        name, values = " ".join(parts[:-fields]), parts[-fields:]
        out.append((name, [v.replace("%", " %") for v in values]))
    return out


def scoring_outcomes(rows):
    return sum(r["outcomes"] for name, r in rows.items() if name != "Farkle")


@pytest.mark.parametrize("line", SEED_BASIC.strip().splitlines())
def test_seed004_basic_probability(line):
    # seed file 004_ebfe5ef33ddae374.txt, "Basic probability": Dice # Successes Success % Failure %
    ((n, (successes, success, failure)),) = parse(line, 3)
    rows = table(int(n))
    assert count(scoring_outcomes(rows)) == successes
    assert pct(scoring_outcomes(rows) / 6 ** int(n)) == success
    assert pct(rows["Farkle"]["probability"]) == failure


@pytest.mark.parametrize("t", [2, 3, 4, 6])
@pytest.mark.parametrize("line", SEED_STANDING.strip().splitlines())
def test_seed004_standing_triple_probability(line, t):
    # seed file 004_ebfe5ef33ddae374.txt, "3-of-a-kind already rolled" (triples of 2s, 3s, 4s or 6s):
    # Dice # Successes Success % Failure %, e.g. 3 dice: 192, 88,89 %, 11,11 %
    ((n, (successes, success, failure)),) = parse(line, 3)
    rows = table(int(n), t)
    assert count(scoring_outcomes(rows)) == successes
    assert pct(scoring_outcomes(rows) / 6 ** int(n)) == success
    assert pct(rows["Farkle"]["probability"]) == failure


@pytest.mark.parametrize("t", [1, 5])
def test_standing_triple_of_ones_or_fives_changes_nothing(t):
    # seed file 004_ebfe5ef33ddae374.txt: "the odds only change when the 3-of-a-kind is 2's, 3's 4's or 6's"
    basic = {int(n): v for n, v in parse(SEED_BASIC, 3)}
    for n in (1, 2, 3):
        rows = table(n, t)
        assert count(scoring_outcomes(rows)) == basic[n][0]
        assert pct(rows["Farkle"]["probability"]) == basic[n][2]


@pytest.mark.parametrize("n", sorted(SEED_COMBOS))
def test_seed004_combinations_without_triple(n):
    # seed file 004_ebfe5ef33ddae374.txt, "Rolling N dice" (# Successes, Success %) and "The Expected
    # Value of a roll" (EV: "the assumption is that you'll score the maximum number of dice")
    rows = table(n)
    printed = parse(SEED_COMBOS[n], 2)
    assert [name for name, _ in printed] == [name for name in rows if name != "Farkle"]  # the seed's order
    for name, (successes, success) in printed:
        assert count(rows[name]["outcomes"]) == successes, name
        assert pct(rows[name]["probability"]) == success, name
    for name, (ev,) in parse(SEED_EV[n], 1):
        assert count(round(rows[name]["mean_points"])) == ev, name


@pytest.mark.parametrize("t", [2, 3, 4, 6])
def test_seed004_combinations_with_standing_triple(t):
    # seed file 004_ebfe5ef33ddae374.txt, "Rolling 3/2/1 dice with 3-of-a-kind already rolled":
    # # Successes and Success % (2,31 / 42,13 / 44,44, then 30,56 / 44,44, then 16,67 / 33,33)
    for n, block in SEED_STANDING_COMBOS.items():
        rows = table(n, t)
        printed = parse(block, 2)
        assert [name for name, _ in printed] == [name for name in rows if name != "Farkle"]
        for name, (successes, success) in printed:
            assert count(rows[name]["outcomes"]) == successes, (n, name)
            assert pct(rows[name]["probability"]) == success, (n, name)
    value = R.triple_values[t - 1]
    # seed file 004_ebfe5ef33ddae374.txt, EV: "3-of-a-kind value * 108/91", "* 12/11", "3-of-a-kind
    # value": the points of the dice added to the triple (mean_combination_points), exactly
    for n, frac in ((3, Fraction(108, 91)), (2, Fraction(12, 11)), (1, Fraction(1))):
        assert table(n, t)["Add to 3-of-a-kind"]["mean_combination_points"] == pytest.approx(float(value * frac), abs=1e-9)
    # seed file 004_ebfe5ef33ddae374.txt, EV: 2 dice "1 or 5 94" and 1 die "1 or 5 75"
    assert count(round(table(2, t)["1 or 5"]["mean_points"])) == "94"
    assert count(round(table(1, t)["1 or 5"]["mean_points"])) == "75"


def test_seed004_entries_not_reproducible_as_printed():
    # seed file 004_ebfe5ef33ddae374.txt, "Rolling 3 dice with 3-of-a-kind already rolled" EV: 3-of-a-kind 500 and
    # 1 or 5 105 are the numbers of the table WITHOUT a standing triple.  With a standing
    # triple t the 5 triples exclude face t (mean 560/540/520/480 for t = 2/3/4/6; 500 only
    # as the mean over all six standing faces) and the 96 "1 or 5" rolls average 112.5.
    for t, mean in ((2, 560), (3, 540), (4, 520), (6, 480)):
        assert table(3, t)["3-of-a-kind"]["mean_points"] == mean
        assert table(3, t)["1 or 5"]["mean_points"] == 112.5
    assert sum(table(3, t)["3-of-a-kind"]["mean_points"] for t in range(1, 7)) / 6 == 500
    assert table(3)["3-of-a-kind"]["mean_points"] == 500 and table(3)["1 or 5"]["mean_points"] == 105


def test_max_points_keep_uses_the_most_dice():
    # seed file 004_ebfe5ef33ddae374.txt: "the assumption is that you'll score the maximum number of dice" -- for the
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
