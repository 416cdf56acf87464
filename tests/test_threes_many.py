"""Threes with many dice (issue 13): seed 000's open question "Is Threes tractable when the number
of dice is much larger than 5, say 5000?" answered exactly.

Proofs: the many-dice solver equals a plain enumeration of every roll multiset for up to 12 dice
(values and the stored keep rule); raising its two bounds changes nothing; bounds that do not hold
are refused; and the stored rule, played by vectorised Monte Carlo at 100 and 5000 dice, lands
inside the 99.9% confidence interval of the stored expected score.
"""

from __future__ import annotations

import numpy as np
import pytest

import dicebase

from dicebase.builder.threes import _roll_sets, solve_expected
from dicebase.builder.threes_many import Bounds, solve_many
from dicebase.rules.threes import TOL, standard_variants

VARIANTS = ("classic", "reroll")
ENUMERATED = 12  # plain enumeration of every roll multiset up to this many dice


@pytest.fixture(scope="module")
def many():
    return {name: solve_many(standard_variants()[name], 5000) for name in VARIANTS}


@pytest.fixture(scope="module")
def enumerated():
    """E[(d, must_keep_two)] by enumerating every roll of up to 12 dice (the 5-dice solver, grown)."""
    return {name: solve_expected(standard_variants(ENUMERATED)[name]) for name in VARIANTS}


@pytest.fixture(scope="module")
def db(built_db):
    with dicebase.open(f"duckdb:///{built_db()}") as database:
        yield database


# ----------------------------------------------------------------------------- the values
@pytest.mark.parametrize("name", VARIANTS)
def test_equals_plain_enumeration_up_to_12_dice(many, enumerated, name):
    rules = standard_variants(ENUMERATED)[name]
    sol, plain = many[name], enumerated[name]
    states = [(d, f) for d in range(1, ENUMERATED + 1) for f in rules.flags(d)]
    assert len(states) == (12 if name == "classic" else 23)  # both must_keep_two states in reroll
    for d, f in states:
        assert sol.expected_at(d, f) == pytest.approx(plain.expected[(d, f)], abs=1e-12), (d, f)


def test_seed000_open_question_figures(many):
    # seed 000 ("More questions": "Is Threes tractable when the number of dice is much larger than 5,
    # say 5000?"); the figures docs/threes.md and README quote.
    classic, reroll = many["classic"].expected, many["reroll"].expected
    assert classic[5000] == pytest.approx(7.2984786493, abs=1e-10)
    assert reroll[5000] == pytest.approx(6.3380682715, abs=1e-10)
    assert many["reroll"].after_reroll[5000] == pytest.approx(reroll[5000], abs=1e-13)
    # the 5-dice values of seed 000's table (5.6 rolling first) and the issue's 6.2540
    assert classic[5] == pytest.approx(6.2540, abs=5e-5) and reroll[5] == pytest.approx(5.6622, abs=5e-5)
    # how fast E[n] reaches its limit: within 1e-6 from 63 (classic) / 36 (reroll) dice, within
    # 1e-9 from 93 / 52, and equal to it to 1e-13 (double-precision noise) from 135 / 73
    for values, first_1e6, first_1e9, flat in ((classic, 63, 93, 135), (reroll, 36, 52, 73)):
        gap = values[5000] - values
        assert gap[first_1e6] < 1e-6 <= gap[first_1e6 - 1]
        assert gap[first_1e9] < 1e-9 <= gap[first_1e9 - 1]
        assert np.all(np.abs(gap[flat:]) < 1e-13) and abs(gap[flat - 1]) >= 1e-13
    # the gap shrinks geometrically: by a factor of about 0.80 per die (classic), 0.64 (reroll)
    assert (classic[5000] - classic[91]) / (classic[5000] - classic[90]) == pytest.approx(0.80, abs=0.01)
    assert (reroll[5000] - reroll[41]) / (reroll[5000] - reroll[40]) == pytest.approx(0.645, abs=0.01)


@pytest.mark.parametrize("name", VARIANTS)
def test_expected_score_is_non_decreasing_and_bounded(many, name):
    """The two premises of the argument, on the stored numbers (the solver checks them too)."""
    sol = many[name]
    steps = np.diff(sol.expected)
    assert np.all(steps >= -TOL * sol.expected[1:])
    assert steps.max() == pytest.approx(3.0)  # E[1] - E[0], the step bound Delta
    assert sol.expected.max() < sol.bounds.score


@pytest.mark.parametrize("name", VARIANTS)
def test_raising_the_bounds_changes_nothing(many, name):
    """B = 12 -> 16 (two more candidate keeps) and Delta = 3 -> 4.5 (4s no longer lumped)."""
    rules = standard_variants()[name]
    base = solve_many(rules, 600)
    for bounds in (Bounds(score=16.0, step=3.0), Bounds(score=12.0, step=4.5)):
        raised = solve_many(rules, 600, bounds)
        assert raised.chain_states > base.chain_states
        assert np.max(np.abs(raised.expected - base.expected)) < 1e-12
        if base.after_reroll is not None:
            assert np.nanmax(np.abs(raised.after_reroll - base.after_reroll)) < 1e-12
        assert raised.settled == base.settled
        assert [(k.forced, k.others, k.keep) for k in raised.keeps] == [(k.forced, k.others, k.keep) for k in base.keeps]
    assert np.max(np.abs(base.expected - many[name].expected[:601])) < 1e-13


def test_bounds_that_do_not_hold_are_refused():
    rules = standard_variants()["classic"]
    with pytest.raises(ValueError, match="score bound"):
        solve_many(rules, 50, Bounds(score=6.0, step=3.0))  # E reaches 7.28 with 50 dice
    with pytest.raises(ValueError, match="step bound"):
        solve_many(rules, 50, Bounds(score=12.0, step=2.0))  # E[1] - E[0] = 3


# ----------------------------------------------------------------------------- the stored rule
class Rule:
    """The stored keep rule of one variant, read from the database and applied to many rolls at once.

    A roll is given by its face counts.  Keep every 3 and the forced lowest others; if the other dice
    are listed in threes_many_dice_keeps keep as many as it says, else only the forced ones; in the
    reroll variant re-roll all when that keep's value exceeds E[n, must keep two] by more than TOL.
    """

    def __init__(self, db, variant: str):
        self.variant = db.threes.variant(variant)
        self.faces = np.array(sorted(range(1, 7), key=lambda f: (self.variant.worth(f), f)))  # keep order
        self.worth = np.array([self.variant.worth(f) for f in self.faces], dtype=np.float64)
        rows = db.fetchall(
            "SELECT dice, must_keep_two, expected_score FROM threes_many_dice WHERE variant = ?", (variant,)
        )
        top = max(int(n) for n, _, _ in rows)
        self.E = np.zeros(top + 1)
        self.R = np.full(top + 1, np.inf)
        for n, flag, e in rows:
            (self.R if flag else self.E)[int(n)] = e
        keeps = db.fetchall("SELECT forced, others, roll, keep FROM threes_many_dice_keeps WHERE variant = ?", (variant,))
        self.settled = max(int(m) for _, m, _, _ in keeps)
        self.base = self.settled + 1
        self.table = np.full(3 * self.base**5, -1, dtype=np.int64)
        for forced, _, roll, keep in keeps:
            counts = np.zeros((1, 6), dtype=np.int64)
            for face in map(int, roll.split()):
                counts[0, int(np.flatnonzero(self.faces == face)[0])] += 1
            self.table[self._code(np.array([forced]), counts)[0]] = keep

    def _code(self, forced, counts):
        others = counts[:, 1:]  # keep order: the 3 first, then 1, 2, 4, 5, 6
        code = forced.copy()
        for i in range(5):
            code = code * self.base + others[:, i]
        return code

    def cost(self, counts, j):
        """Worth of the j lowest other dice."""
        total, before = np.zeros(len(j)), np.zeros(len(j), dtype=np.int64)
        for i in range(1, 6):
            take = np.clip(j - before, 0, counts[:, i])
            total += take * self.worth[i]
            before += counts[:, i]
        return total

    def act(self, n, must_keep_two, counts):
        """(dice kept, points added) for each roll; 0 dice kept = a re-roll."""
        threes = counts[:, 0]
        need = np.where(must_keep_two, np.minimum(self.variant.keep_after_reroll, n), 1)
        forced = np.maximum(need - threes, 0)
        others = n - threes
        j = forced.copy()
        small = (others >= 1) & (others <= self.settled)
        if small.any():
            j[small] = self.table[self._code(forced[small], np.minimum(counts[small], self.settled))]
            assert np.all(j[small] >= forced[small])
        points = self.cost(counts, j)
        kept = threes + j
        if self.variant.allow_reroll:
            value = points + self.E[n - kept]
            reroll = ~must_keep_two & (n >= 2) & (value > self.R[n] * (1 + TOL))
            kept = np.where(reroll, 0, kept)
            points = np.where(reroll, 0.0, points)
        return kept, points


@pytest.mark.parametrize("name", VARIANTS)
def test_stored_rule_is_the_enumerated_optimum_up_to_10_dice(db, name):
    """Every roll of 1..10 dice in every state: the stored rule picks the enumeration's keep
    (the fewest dice among those within TOL of the best: no tie involves a 3 or a re-roll here)."""
    rules = standard_variants(10)[name]
    rule = Rule(db, name)
    rolls = _roll_sets(rules)
    E = {(0, False): 0.0}
    checked = 0
    for d in range(1, 11):
        for f in sorted(rules.flags(d), reverse=True):
            r = rolls[d]
            vals = np.full((len(r.prob), d + 1), np.inf)
            for a in rules.legal_keeps(d, f):
                vals[:, a] = r.cost[:, a] + E[(d - a, a == 0)]
            best = vals.min(axis=1)
            enumerated_keep = (vals <= best[:, None] + TOL * best[:, None]).argmax(axis=1)
            E[(d, f)] = float(r.average(best))
            counts = np.stack([(r.keep_order == face).sum(axis=1) for face in rule.faces], axis=1)
            kept, _ = rule.act(np.full(len(counts), d), np.full(len(counts), f), counts)
            assert np.array_equal(kept, enumerated_keep), (d, f)
            checked += len(counts)
    assert checked == (8007 if name == "classic" else 8007 + 8001)


def test_no_single_threshold_rule(db):
    """'Keep every die worth less than t' does not hold: after the 3s, with two other dice left,
    2 2 keeps both (4 < E[2] = 4.39) but 2 4 keeps neither (2 + E[1] = 5, 6 > 4.39)."""
    rows = dict(
        db.fetchall(
            "SELECT roll, keep FROM threes_many_dice_keeps WHERE variant = 'classic' AND forced = 0 AND others = 2"
        )
    )
    assert rows["2 2"] == 2 and rows["2 4"] == 0 and rows["1 4"] == 1
    (settled,) = db.fetchone("SELECT max(others) FROM threes_many_dice_keeps WHERE variant = 'classic'")
    assert settled == 7  # with 8 or more other dice keep only the forced ones


# ----------------------------------------------------------------------------- Monte Carlo
def play(rule: Rule, dice: int, games: int, seed: int) -> np.ndarray:
    """Final scores of ``games`` turns of ``dice`` dice played by the stored rule, all at once."""
    rng = np.random.default_rng(seed)
    p_face = np.full(6, 1 / 6)
    n = np.full(games, dice, dtype=np.int64)
    must_keep_two = np.zeros(games, dtype=bool)
    score = np.zeros(games)
    while (live := np.flatnonzero(n > 0)).size:
        counts = rng.multinomial(n[live], p_face)  # faces in keep order: 3, 1, 2, 4, 5, 6
        kept, points = rule.act(n[live], must_keep_two[live], counts)
        score[live] += points
        must_keep_two[live] = kept == 0
        n[live] -= kept
    return score


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("dice", [100, 5000])
def test_monte_carlo_of_the_stored_rule(db, name, dice):
    rule = Rule(db, name)
    scores = play(rule, dice, games=40_000, seed=dice + len(name))
    half = 3.2905 * scores.std(ddof=1) / np.sqrt(len(scores))  # 99.9% confidence interval
    assert abs(scores.mean() - rule.E[dice]) < half, (scores.mean(), rule.E[dice], half)


# ----------------------------------------------------------------------------- the database
def test_many_dice_tables(db):
    counts = dict(db.fetchall("SELECT table_name, row_count FROM build_tables WHERE game = 'threes'"))
    assert counts["threes_many_dice"] == 5000 + 5000 + 4999
    assert counts["threes_many_dice_chances"] == (50 + 50 + 49) * 31
    five = db.fetchall(
        "SELECT e.variant, e.dice_left, e.must_keep_two, e.expected_score, m.expected_score "
        "FROM threes_expected_scores e JOIN threes_many_dice m "
        "ON m.variant = e.variant AND m.dice = e.dice_left AND m.must_keep_two = e.must_keep_two"
    )
    assert len(five) == 5 + 9
    for *_, small, big in five:
        assert big == pytest.approx(small, abs=1e-12)


def test_best_with_many_dice(db):
    roll = [3] * 800 + [1] * 700 + [2] * 700 + [4, 5, 6] * 600 + [6] * 1000
    answer = db.threes.best(roll)
    assert len(answer.actions) == 5000
    assert answer.best.keep == (3,) * 800  # every 3 (keeping fewer is worth the same to 1e-12)
    assert answer.best.value == pytest.approx(db.threes.expected("classic", dice=4200)[0].expected_score)
    eight = db.threes.best([3, 1, 1, 2, 4, 5, 6, 6], variant="reroll")
    assert eight.best.keep == (3,) and len(eight.actions) == 9  # a re-roll and keeps of 1..8 dice
    after = {r.must_keep_two: r.expected_score for r in db.threes.expected("reroll", dice=8)}
    values = {a.dice_kept: a.value for a in eight.actions}
    assert values[0] == after[True] and values[1] == db.threes.expected("reroll", dice=7)[0].expected_score


def test_when_the_reroll_variant_rerolls(many):
    """docs/threes.md: from 8 dice on, re-roll exactly when the roll has no 3; with 2..7 dice a roll
    without a 3 is kept when its lowest die is a 1, or a 2 with up to 4 dice."""
    sol = many["reroll"]
    F, G = sol.expected, sol.after_reroll
    for n in range(2, 5001):
        # a roll with k >= 1 threes keeps them and is worth at most F(n - k) <= F(n - 1)
        assert F[n - 1] <= G[n] * (1 + TOL), n
        j = np.arange(1, n + 1)
        lowest_one = (j + F[n - j]).min()  # a roll without a 3: its keeps cost at least j (all dice >= 1)
        lowest_two = (2 * j + F[n - j]).min()  # ... at least 2j when its lowest die is a 2
        if n >= 8:
            assert lowest_one > G[n] * (1 + TOL), n
        else:
            assert 1 + F[n - 1] < G[n]  # keeping the 1 beats the re-roll
            assert (2 + F[n - 1] < G[n]) == (n <= 4) and (lowest_two > G[n]) == (n > 4), n
        assert 4 + F[n - 1] > G[n]  # a lowest die of 4 or more: re-roll


# ----------------------------------------------------------------------------- the last player (issue 13, section 4)
@pytest.fixture(scope="module")
def chances():
    from dicebase.builder.threes_many import solve_many_chances

    return {name: solve_many_chances(standard_variants()[name], 50) for name in VARIANTS}


@pytest.mark.parametrize("name", VARIANTS)
def test_last_player_equals_enumeration_up_to_8_dice(chances, name):
    """The many-dice chances equal the enumerating solver (objective b, m = 0) grown to 8 dice, for
    every target 0..30, both must-keep-two states, to 1e-12."""
    from dicebase.builder.threes import solve_win

    rules = standard_variants(8)[name]
    level = solve_win(rules, "shared", max_players=1).levels[0]
    sol = chances[name]
    for d in range(1, 9):
        for f in rules.flags(d):
            ours = sol.after_reroll[d] if f else sol.p_win[d]
            np.testing.assert_allclose(ours, level.value[(d, f)][:31, 0], rtol=0, atol=1e-12)


def test_last_player_figures(chances):
    """docs/threes.md: with 50 dice the last player needing 7 or less wins 60.98% (classic) / 72.09%
    (reroll), against 72.45% / 79.11% with 5 dice; and the re-roll variant's W is not monotone in
    the dice: two dice beat one at target 3."""
    classic, reroll = chances["classic"].p_win, chances["reroll"].p_win
    assert classic[50, 7] == pytest.approx(0.6098, abs=5e-5) and reroll[50, 7] == pytest.approx(0.7209, abs=5e-5)
    assert classic[5, 7] == pytest.approx(0.7245, abs=5e-5) and reroll[5, 7] == pytest.approx(0.7911, abs=5e-5)
    assert reroll[2, 3] > reroll[1, 3] == pytest.approx(0.5)
    assert np.all(np.diff(classic, axis=0) <= 1e-12)  # classic: more dice never help
    assert np.all((classic >= 0) & (classic <= 1 + 1e-12)) and np.all(np.diff(classic, axis=1) >= -1e-12)
    # seed 003 In [12]: "Chance of beating 7 with a fresh turn: 61.89%" (5 dice, strictly below 7)
    assert f"{classic[5, 6]:.2%}" == "61.89%"


def test_chances_lookup_with_many_dice(db):
    shared = db.threes.chances("classic", dice=50)
    strict = db.threes.chances("classic", dice=50, ties="strict")
    assert [r.target for r in shared] == list(range(31)) == [r.target for r in strict]
    assert strict[0].p_win == 0.0 and [r.p_win for r in strict[1:]] == [r.p_win for r in shared[:-1]]
    five = db.threes.chances("classic", dice=5, ties="strict")  # the 5-dice tables, strict ties
    rows = db.fetchall(
        "SELECT target, p_win FROM threes_many_dice_chances WHERE variant = 'classic' AND dice = 5 "
        "AND NOT must_keep_two ORDER BY target"
    )
    for r in five[1:31]:
        assert r.p_win == pytest.approx(rows[r.target - 1][1], abs=1e-12)


# ----------------------------------------------------------------------------- the command line
def test_cli_many_dice(built_db, run_cli):
    import json

    path = str(built_db())
    code, out, err = run_cli(["threes", "expected", "--dice", "5000", "--json", "--db", path])
    assert code == 0 and err == ""
    (row,) = json.loads(out)
    assert row["dice"] == 5000 and row["expected_score"] == pytest.approx(7.2984786493, abs=1e-10)
    code, out, _ = run_cli(["threes", "best", *"3 3 1 2 4 6 6 5".split(), "--json", "--db", path])
    doc = json.loads(out)
    assert code == 0 and doc["best"]["keep"] == [3, 3] and len(doc["actions"]) == 8
    code, out, err = run_cli(["threes", "best", *"3 1 2 4 5 6".split(), "--to-beat", "7", "--db", path])
    assert code == 2 and out == "" and err.count("\n") == 1 and "up to 5 dice" in err
    code, out, _ = run_cli(["threes", "chances", "--dice", "50", "--json", "--db", path])
    assert code == 0 and len(json.loads(out)) == 31
    code, out, _ = run_cli(["threes", "best", "--help"])
    flat = " ".join(out.split())
    assert "the win objective (the N-player tables) covers rolls of up to the built dice (5)" in flat
    assert "rounds of up to the built max_players" in flat and "many_dice (5000 by default)" in flat
