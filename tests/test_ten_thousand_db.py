"""The built tables through the query layer and the CLI: seed figures, lookahead, the last
turn on hand-built states, views, DuckDB/SQLite parity, good and bad input.

The fixture databases hold the two-player game to 1,000 (TEST_OPTIONS)."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from itertools import product
from pathlib import Path

import pytest

import dicebase
from dicebase.rules.ten_thousand import TEN_THOUSAND
from dicebase.rules.ten_thousand import legal_keeps
from dicebase.query.base import BadInput
from dicebase.query import ten_thousand as Q

GAMES = ("ten_thousand",)
GOAL = 1000

# Hand-derived chances (seed file 004_ebfe5ef33ddae374.txt, "Basic probability": 45.576 of the
# 46.656 rolls of six dice score, 7.176 of 7.776 with five, 1.092 of 1.296 with four, 156 of 216
# with three).
P6, P5, P4, P3 = 45_576 / 46_656, 7_176 / 7_776, 1_092 / 1_296, 156 / 216
# Gaining 100 or more in one go: every roll whose best keep scores >= 100, or a lone 5 (the only
# scoring die; the other dice from 2, 3, 4, 6 with no three alike: for six dice 6 positions x 600
# = 3,600 rolls, for four dice 4 x (64 - 4) = 240) and then any score from the dice left.
GAIN100_6 = (45_576 - 3_600) / 46_656 + 3_600 / 46_656 * P5
GAIN100_4 = (1_092 - 240) / 1_296 + 240 / 1_296 * P3


@pytest.fixture(scope="module")
def duck(built_db):
    return built_db(GAMES)


@pytest.fixture(scope="module")
def lite(built_db):
    return built_db(GAMES, kind="sqlite")


@pytest.fixture(scope="module")
def dd(duck):
    with dicebase.open(duck) as db:
        yield db


@pytest.fixture(scope="module")
def sl(lite):
    """SQLite: point lookups in ~0.2 ms (DuckDB ~10 ms), for the tests that loop over rolls."""
    with dicebase.open(lite) as db:
        yield db


def test_odds_from_the_database(dd):
    db = dd
    rows = db.ten_thousand.odds(6)
    # seed file 004_ebfe5ef33ddae374.txt: 45,576 scoring outcomes of 46,656 with six dice
    assert sum(r.outcomes for r in rows if r.combination != "Farkle") == 45_576
    rows = {r.combination: r for r in db.ten_thousand.odds(3, triple=2)}
    # seed file 004_ebfe5ef33ddae374.txt: 3 dice with a standing triple of 2s: 5 + 91 + 96 = 192 scoring outcomes
    assert (rows["3-of-a-kind"].outcomes, rows["Add to 3-of-a-kind"].outcomes, rows["1 or 5"].outcomes) == (5, 91, 96)
    # the rolls table reproduces the odds table by GROUP BY
    agg = dict(db.fetchall(
        "SELECT combination, SUM(ways) FROM ten_thousand_rolls WHERE rules = 'ten-thousand' AND dice = 5 "
        "AND triple = 0 GROUP BY combination"))
    assert agg == {r.combination: r.outcomes for r in db.ten_thousand.odds(5)}


def test_solitaire_best_is_the_stored_best_keep(dd):
    db = dd
    ans = db.ten_thousand.best([1, 1, 5, 2, 3, 4], turn_total=0)
    stored = db.fetchone(
        "SELECT keep, value FROM ten_thousand_solitaire_keep WHERE rules = 'ten-thousand' AND turn_total = 0 "
        "AND dice = 6 AND triple = 0 AND roll = '112345'")
    assert "".join(map(str, ans.best.keep)) == stored[0]
    assert ans.best.value == pytest.approx(stored[1], abs=1e-9)
    values = [a.value for a in ans.actions]
    assert values == sorted(values, reverse=True)
    # the value of a fresh turn is the probability-weighted best keep of every roll
    total = db.fetchone(
        "SELECT SUM(r.probability * COALESCE(k.value, 0)) FROM ten_thousand_rolls r LEFT JOIN "
        "ten_thousand_solitaire_keep k ON k.rules = r.rules AND k.turn_total = 0 AND k.dice = r.dice "
        "AND k.triple = r.triple AND k.roll = r.roll WHERE r.rules = 'ten-thousand' AND r.dice = 6 AND r.triple = 0")[0]
    v0 = db.fetchone("SELECT value FROM ten_thousand_solitaire WHERE rules = 'ten-thousand' AND turn_total = 0 "
                     "AND dice = 6 AND triple = 0")[0]
    assert total == pytest.approx(v0, abs=1e-9)


def lookahead(db, i, j, k, n, t):
    """Roll value by `best` over every roll (farkles through Best.value = farkle_value)."""
    q = db.ten_thousand
    total = 0.0
    for roll, p, farkle in db.fetchall("SELECT roll, probability, farkle FROM ten_thousand_rolls WHERE "
                                       "rules = 'ten-thousand' AND dice = ? AND triple = ?", (n, t)):
        ans = q.best([int(c) for c in roll], turn_total=k, triple=t, score=i, opponent=j)
        assert ans.farkle == bool(farkle)
        if farkle:  # a farkle hands the opponent a turn start at (j, i), or loses the last turn
            assert ans.value == (0.0 if j >= GOAL else pytest.approx(1 - q.state(j, i, 0).p_win, abs=1e-15))
        total += p * ans.value
    return total


@pytest.mark.parametrize(
    "i, j, k, n, t, source",
    [
        (0, 0, 0, 6, 0, "stored"),  # turn start
        (500, 900, 300, 3, 0, "stored"),
        (950, 900, 200, 2, 0, "stored"),
        (600, 200, 450, 3, 3, "stored"),  # standing triple of 3s
        (300, 400, 500, 2, 0, "bank state"),  # not stored: banking is optimal
        (900, 0, 2000, 1, 0, "bank state"),  # far past the goal
        (900, 1000, 50, 5, 0, "last turn"),
        (700, 1150, 400, 4, 0, "last turn"),
    ],
)
def test_state_values_by_lookahead(sl, i, j, k, n, t, source):
    """state() answers stored roll states, unstored bank states and last-turn states; its roll
    value is the best keep of every roll weighted by probability (via `best`), its p_win the
    larger of the roll and bank values."""
    st = sl.ten_thousand.state(i, j, k, n, t)
    assert st.source.startswith(source)
    assert st.last_turn == (j >= GOAL)
    assert lookahead(sl, i, j, k, n, t) == pytest.approx(st.roll_value, abs=1e-12)
    if k == 0:
        assert st.bank_value is None and st.action == "roll"
    else:
        assert st.p_win == max(st.roll_value, st.bank_value)
        assert st.action == ("roll" if st.roll_value > st.bank_value else "bank")
    assert st.action == ("bank" if source == "bank state" else "roll")


def test_last_turn_hand_built_states(dd):
    """The last turn (opponent at or above the goal) must EXCEED; answers derived by hand from
    seed file 004_ebfe5ef33ddae374.txt's counts (P6, P5, P4, P3 above)."""
    q = dd.ten_thousand
    # opponent exactly at the goal, you 50 short with turn total 50 and five dice: banking ties,
    # and a tie does not win; any scoring roll of the five dice gets ahead
    st = q.state(950, 1000, 50, 5)
    assert st.last_turn and st.bank_value == 0.0 and st.action == "roll"
    assert st.p_win == pytest.approx(P5, abs=1e-15)
    ans = q.best([5, 2, 3, 4, 6], turn_total=50, score=950, opponent=1000)
    assert ans.last_turn and [(a.keep, a.value, a.then) for a in ans.actions] == [([5], 1.0, "bank")]
    ans = q.best([2, 2, 3, 4, 6], turn_total=50, score=950, opponent=1000)
    assert ans.farkle and ans.value == 0.0
    # one die, 100 short of exceeding: a 1 gets ahead (hot dice: bank), a 5 only ties and the
    # six fresh dice must score again
    st = q.state(700, 1000, 250, 1)
    assert st.p_win == pytest.approx(1 / 6 + 1 / 6 * P6, abs=1e-15)
    assert q.best([5], turn_total=250, score=700, opponent=1000).actions[0].value == pytest.approx(P6, abs=1e-15)
    assert q.best([5], turn_total=250, score=700, opponent=1000).actions[0].then == "roll"
    assert q.best([1], turn_total=250, score=700, opponent=1000).actions[0].value == 1.0
    assert q.best([3], turn_total=250, score=700, opponent=1000).value == 0.0
    # 150 to gain with five dice (850 + 50 must end above 1000), roll 1 5 2 3 6: keep both (ahead:
    # bank), the 1 (then 50 more from four dice) or the 5 (then 100 more from four dice)
    ans = q.best([1, 5, 2, 3, 6], turn_total=50, score=850, opponent=1000)
    assert [(a.keep, a.then) for a in ans.actions] == [([1, 5], "bank"), ([1], "roll"), ([5], "roll")]
    assert [a.value for a in ans.actions] == pytest.approx([1.0, P4, GAIN100_4], abs=1e-15)
    # already ahead: bank and win; rolling would win only if the four dice score
    st = q.state(900, 1000, 200, 4)
    assert (st.p_win, st.action, st.bank_value) == (1.0, "bank", 1.0)
    assert st.roll_value == pytest.approx(P4, abs=1e-15)


def test_banking_at_the_goal_hands_over_a_last_turn_that_must_exceed(dd):
    # hand-derived from seed file 004_ebfe5ef33ddae374.txt's counts (P6, P5 above)
    q = dd.ten_thousand
    # 950 + 50 = 1000 against 950: the opponent's last turn needs more than 50, i.e. 100 or more
    assert q.state(950, 950, 50, 5).bank_value == pytest.approx(1 - GAIN100_6, abs=1e-15)
    assert q.state(900, 950, 100, 4).bank_value == pytest.approx(1 - GAIN100_6, abs=1e-15)
    # if a tie won, it would be 1 - P(six dice score)
    assert q.state(950, 950, 50, 5).bank_value != pytest.approx(1 - P6, abs=1e-3)
    # 1000 against 950 after a farkle-free turn: the same 100 needed from a turn start
    assert q.state(950, 1000, 0, 6).p_win == pytest.approx(GAIN100_6, abs=1e-15)


@lru_cache(maxsize=None)
def _multisets(n):
    """Multisets of n dice (counts per face) with their numbers of ordered outcomes."""
    return tuple(Counter(tuple(f.count(x) for x in range(1, 7)) for f in product(range(1, 7), repeat=n)).items())


@lru_cache(maxsize=None)
def _keeps(counts, n, t):
    return tuple((k.points // 50, k.n_after, k.t_after) for k in legal_keeps(TEN_THOUSAND, counts, n, t))


@lru_cache(maxsize=None)
def p_gain(m, n, t):
    """Independent enumeration: chance to gain at least m more units this turn from (n dice,
    triple t), rolling on until it is reached and keeping the best keep (every legal keep)."""
    if m <= 0:
        return 1.0
    total = 0
    for counts, ways in _multisets(n):
        keeps = _keeps(counts, n, t)
        if keeps:
            total += ways * max(p_gain(m - pts, n2, t2) for pts, n2, t2 in keeps)
    return total / 6**n


def test_must_exceed_by_independent_enumeration(dd):
    stored = dd.fetchall("SELECT need, dice, triple, p_exceed FROM ten_thousand_exceed WHERE rules = 'ten-thousand' "
                         "AND policy = 'optimal' AND need <= 250")
    assert len(stored) == 5 * 24
    # seed file 004_ebfe5ef33ddae374.txt's counts give the hand-derived P6, GAIN100_6, GAIN100_4
    for need, n, t, p in stored:
        assert p == pytest.approx(p_gain(need // 50, n, t), abs=1e-14), (need, n, t)
    assert p_gain(1, 6, 0) == pytest.approx(P6) and p_gain(2, 6, 0) == pytest.approx(GAIN100_6)
    assert p_gain(2, 4, 0) == pytest.approx(GAIN100_4)
    # banking at or past the goal: the opponent must gain MORE than the deficit
    q = dd.ten_thousand
    for i, j, k, n in [(950, 800, 100, 4), (800, 850, 300, 1), (600, 750, 500, 2)]:
        need = (i + k - j) // 50 + 1
        assert q.state(i, j, k, n).bank_value == pytest.approx(1 - p_gain(need, 6, 0), abs=1e-14)
        # and in the last turn the player to move needs more than the opponent
        st = q.state(i - 500, i + k, k, n)
        assert st.p_win == pytest.approx(p_gain((i + k) // 50 + 1 - (i - 500 + k) // 50, n, 0), abs=1e-14)


def test_dominated_keep_can_be_best_in_the_duel(dd):
    """Reaching the goal hands the opponent a last turn: fewer points can be better."""
    ans = dd.ten_thousand.best([1, 5, 2, 3, 4], turn_total=900, score=0, opponent=0)
    # take the 5 (950, then bank below the goal) rather than the 1 (1000: the opponent's last turn)
    assert [a.keep for a in ans.actions][:2] == [[5], [1]]
    assert ans.best.dominated and ans.best.then == "bank"
    # the solitaire turn never prefers a dominated keep
    sol = dd.ten_thousand.best([1, 5, 2, 3, 4], turn_total=900)
    assert not sol.best.dominated


def test_views(dd):
    db = dd
    thr = {(t.dice, t.triple): t for t in db.ten_thousand.thresholds()}
    assert len(thr) == 24
    # one die with a standing triple of 1s needs five scored dice including three 1s: >= 1100;
    # it banks whenever it occurs (the unreachable totals below 1100 are not shown)
    assert (thr[1, 1].min_turn_total, thr[1, 1].bank_from, thr[1, 1].last_roll) == (1100, 1100, None)
    assert thr[1, 0].min_turn_total == 250 and thr[6, 0].min_turn_total == 300 and thr[5, 0].min_turn_total == 50
    action = {(k, n, t): a for k, n, t, a in db.fetchall(
        "SELECT turn_total, dice, triple, action FROM ten_thousand_solitaire WHERE rules = 'ten-thousand'")}
    for (n, t), r in thr.items():
        assert r.bank_from >= r.min_turn_total and r.seed004_bank_from >= r.min_turn_total
        assert r.last_roll is None or r.last_roll == r.bank_from - 50  # one threshold each
        assert all(action[k, n, t] == "roll" for k in range(r.min_turn_total, r.bank_from, 50))
        assert action[r.bank_from, n, t] == "bank"
    gaps = {g.policy: g for g in db.ten_thousand.gaps()}
    assert gaps["optimal"].gap == 0
    assert gaps["optimal"].p1_win + gaps["optimal"].p2_win == pytest.approx(1)
    assert gaps["seed004"].gap < 0
    assert gaps["seed004"].expected_turn_points < gaps["optimal"].expected_turn_points


def test_docs_show_the_exact_sql():
    """docs/ten_thousand.md prints the query layer's SQL verbatim (bank value, roll value by
    lookahead, last-turn keeps, duel and solitaire keeps)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "ten_thousand.md").read_text()
    for sql in (Q.DUEL_LOOKAHEAD_SQL, Q.LAST_TURN_SQL, Q.BANK_VALUE_SQL, Q.ROLL_VALUE_SQL, Q.SOLITAIRE_LOOKAHEAD_SQL):
        assert sql.strip() in text


def test_duckdb_sqlite_parity(dd, sl):
    calls = [
        lambda q: [vars(r) for r in q.odds(3, triple=4)],
        lambda q: q.best([1, 1, 5, 2, 3, 4], turn_total=0).as_dict(),
        lambda q: q.best([2, 5, 6], turn_total=350, triple=2).as_dict(),
        lambda q: q.best([1, 5, 5], turn_total=600, score=500, opponent=900).as_dict(),
        lambda q: q.best([1, 5], turn_total=300, score=600, opponent=950).as_dict(),
        lambda q: q.best([1, 5, 2, 3, 6], turn_total=50, score=850, opponent=1000).as_dict(),
        lambda q: q.best([2, 3], turn_total=500, score=300, opponent=400).as_dict(),
        lambda q: [vars(t) for t in q.thresholds("farkle")],
        lambda q: [vars(t) for t in q.thresholds()],
        lambda q: [vars(g) for g in q.gaps()],
        lambda q: vars(q.state(950, 0, 600, 2)),
        lambda q: vars(q.state(300, 400, 500, 2)),
        lambda q: vars(q.state(700, 1150, 400, 4)),
    ]
    for call in calls:
        x, y = call(dd.ten_thousand), call(sl.ten_thousand)
        assert json.dumps(x, sort_keys=True, default=str) == json.dumps(y, sort_keys=True, default=str)
    for table in ("ten_thousand_duel", "ten_thousand_solitaire_keep", "ten_thousand_exceed"):
        sql = f"SELECT COUNT(*), SUM({'p_win' if 'duel' in table else 'value' if 'keep' in table else 'p_exceed'}) FROM {table}"
        (ca, sa), (cb, sb) = dd.fetchone(sql), sl.fetchone(sql)
        assert ca == cb and sa == pytest.approx(sb, rel=1e-12)


def test_cli_good_input(duck, run_cli):
    code, out, err = run_cli(["ten-thousand", "odds", "--dice", "6", "--json", "--db", duck])
    assert code == 0, err
    rows = json.loads(out)
    assert rows[0] == {"combination": "6-of-a-kind", "outcomes": 6, "probability": pytest.approx(6 / 46656),
                       "mean_points": 2000.0, "mean_combination_points": 2000.0}
    code, out, err = run_cli(["ten-thousand", "best", "1", "5", "5", "--turn-total", "600", "--score", "500",
                              "--opponent", "900", "--json", "--db", duck])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["objective"] == "win_probability" and doc["best"] == doc["actions"][0]
    assert {a["then"] for a in doc["actions"]} <= {"roll", "bank"}
    # a farkle in the two-player game reports its value: 1 - the opponent's turn start at (400, 300)
    code, out, err = run_cli(["ten-thousand", "best", "2", "3", "--turn-total", "500", "--score", "300",
                              "--opponent", "400", "--json", "--db", duck])
    doc = json.loads(out)
    assert code == 0 and doc["farkle"] and doc["actions"] == []
    code, out2, err = run_cli(["ten-thousand", "state", "--score", "400", "--opponent", "300", "--turn-total", "0",
                               "--dice", "6", "--json", "--db", duck])
    assert code == 0, err
    assert doc["value"] == doc["farkle_value"] == pytest.approx(1 - json.loads(out2)["p_win"], abs=1e-15)
    code, out, err = run_cli(["ten-thousand", "best", "2", "3", "--turn-total", "500", "--score", "300",
                              "--opponent", "400", "--db", duck])
    assert code == 0 and "farkle_value: 0.41" in out
    # the state command: a stored roll state, a bank state, a last-turn state
    for args, action, source in [
        (["--score", "0", "--opponent", "0", "--turn-total", "0", "--dice", "6"], "roll", "stored"),
        (["--score", "300", "--opponent", "400", "--turn-total", "500", "--dice", "2"], "bank", "bank state"),
        (["--score", "950", "--opponent", "1000", "--turn-total", "50", "--dice", "5"], "roll", "last turn"),
    ]:
        code, out, err = run_cli(["ten-thousand", "state", *args, "--json", "--db", duck])
        assert code == 0, err
        doc = json.loads(out)
        assert doc["action"] == action and doc["source"].startswith(source)
        assert set(doc) >= {"p_win", "roll_value", "bank_value", "last_turn"}
    for args in (["thresholds"], ["gaps"], ["thresholds", "--rules", "farkle"], ["odds", "--dice", "2", "--triple", "6"],
                 ["best", "2", "2", "3", "4", "6", "6", "--turn-total", "0", "--rules", "farkle"],  # a farkle
                 ["best", "2", "2", "2", "3", "4", "6", "--turn-total", "0", "--rules", "farkle"],
                 ["best", "1", "2", "3", "4", "5", "6", "--turn-total", "0"],
                 ["best", "5", "--turn-total", "250", "--score", "700", "--opponent", "1000"],
                 ["state", "--score", "0", "--opponent", "0", "--turn-total", "3000", "--dice", "6", "--format", "csv"]):
        code, out, err = run_cli(["ten-thousand", *args, "--db", duck])
        assert code == 0, (args, err)
        assert out.strip()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["odds", "--dice", "7"], "--dice must be 1-6"),
        (["odds", "--dice", "4", "--triple", "2"], "at most 3 dice"),
        (["odds", "--dice", "3", "--triple", "9"], "--triple must be a face"),
        (["odds", "--dice", "3", "--triple", "2", "--rules", "farkle"], "no standing triple"),
        (["odds", "--dice", "3", "--rules", "nope"], "unknown rule set"),
        (["best", "7", "--turn-total", "250"], "faces must be 1-6"),
        (["best", "1", "--turn-total", "255"], "multiple of 50"),
        (["best", "1", "--turn-total", "-50"], "0<=x<=100000"),
        (["best", "1", "--turn-total", "9223372036854775800"], "0<=x<=100000"),
        (["best", "1", "--turn-total", "100000000000000000000000"], "0<=x<=100000"),
        (["best", "1", "--turn-total", "0"], "turn start"),
        (["best", "1", "--turn-total", "50"], "at least 250"),
        (["best", "1", "1", "1", "1", "1", "1", "1", "--turn-total", "50"], "1-6 rolled dice"),
        (["best", "1", "--turn-total", "250", "--score", "100"], "both --score and --opponent"),
        (["best", "1", "--turn-total", "250", "--score", "1000", "--opponent", "0"], "from 0 to 950"),
        (["best", "1", "--turn-total", "250", "--score", "0", "--opponent", "100050"], "0<=x<=100000"),
        (["best", "1", "--turn-total", "250", "--score", "0", "--opponent", "99999"], "multiple of 50"),
        (["best", "1", "--turn-total", "250", "--triple", "2"], "at least 300"),
        (["best", "1", "--turn-total", "450", "--triple", "1"], "at least 1100"),
        (["best", "1", "5"], "--turn-total"),
        (["odds"], "--dice"),
        (["odds", "--dice", "x"], "--dice"),
        (["best", "1", "--turn-total", "250", "--score", "0", "--opponent", "0", "--rules", "farkle"], "not built"),
        (["state", "--score", "0", "--opponent", "0", "--turn-total", "0", "--dice", "3"], "turn start"),
        (["state", "--score", "0", "--opponent", "0", "--turn-total", "100", "--dice", "2", "--triple", "4"],
         "at least 450"),
        (["state", "--score", "0", "--opponent", "0", "--turn-total", "500", "--dice", "4", "--triple", "4"],
         "at most 3 dice"),
        (["state", "--score", "1000", "--opponent", "0", "--turn-total", "0", "--dice", "6"], "below the goal"),
        (["state", "--score", "0", "--opponent", "0", "--turn-total", "10000000000000000000000", "--dice", "6"],
         "0<=x<=100000"),
        (["state", "--score", "0", "--opponent", "0", "--dice", "6"], "--turn-total"),
    ],
)
def test_cli_bad_input(duck, lite, run_cli, args, fragment):
    for path in (duck, lite):
        code, out, err = run_cli(["ten-thousand", *args, "--db", path])
        assert code == 2
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and fragment in lines[0], err


def test_query_layer_bounds(sl):
    """The query layer itself refuses out-of-range points with one line (no SQL overflow)."""
    q = sl.ten_thousand
    for call in (lambda: q.best([1], turn_total=10**23),
                 lambda: q.best([1], turn_total=9_223_372_036_854_775_800, score=0, opponent=0),
                 lambda: q.best([1], turn_total=250, score=0, opponent=10**23),
                 lambda: q.state(10**23, 0, 0),
                 lambda: q.state(0, 0, 2**63 - 50)):
        with pytest.raises(BadInput, match="from 0 to") as info:
            call()
        assert "\n" not in str(info.value)
    # the largest accepted values answer
    assert q.best([1], turn_total=Q.MAX_POINTS).best.value == Q.MAX_POINTS + 100
    assert q.best([1], turn_total=Q.MAX_POINTS, score=950, opponent=0).best.value == 1.0
    assert q.state(950, Q.MAX_POINTS, 0).p_win == 0.0


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    faces=st.lists(st.integers(-1, 8), min_size=0, max_size=8),
    turn_total=st.one_of(st.integers(-100, 2500), st.integers(-(2**70), 2**70)),
    triple=st.integers(-1, 7),
    scores=st.one_of(st.none(), st.tuples(st.integers(-50, 1100), st.integers(-50, 2600))),
)
def test_best_accepts_or_rejects_cleanly(sl, faces, turn_total, triple, scores):
    """Any input gives either a ranked answer or one BadInput line; values are in range."""
    score, opponent = scores if scores else (None, None)
    try:
        ans = sl.ten_thousand.best(faces, turn_total=turn_total, triple=triple, score=score, opponent=opponent)
    except BadInput as exc:
        assert "\n" not in str(exc) and str(exc)
        return
    values = [a.value for a in ans.actions]
    assert values == sorted(values, reverse=True)
    assert ans.farkle == (not ans.actions)
    if ans.objective == "win_probability":
        assert all(-1e-12 <= v <= 1 + 1e-12 for v in values + [ans.farkle_value])
        assert ans.last_turn == (opponent >= GOAL)
    else:
        assert all(v >= turn_total for v in values)  # banking right after is always possible


def _documented_best(db, rules, goal, faces, k, t, i, j):
    """Keep values from the documented SQL (what the fast path in Queries must reproduce)."""
    roll = "".join(str(f) for f in sorted(faces))
    n = len(faces)
    if i is None:
        sql, values = Q.SOLITAIRE_LOOKAHEAD_SQL, dict(k=k, rules=rules, dice=n, triple=t, roll=roll)
    elif j >= goal:
        sql, values = Q.LAST_TURN_SQL, dict(need=j - i - k + 50, rules=rules, dice=n, triple=t, roll=roll)
    else:
        sql, values = Q.DUEL_LOOKAHEAD_SQL, dict(k=k, i=i, j=j, goal=goal, rules=rules, dice=n, triple=t, roll=roll,
                                                 unit=50, start=6)
    return sorted((keep, float(v), then) for keep, _p, _u, _da, _ta, _hd, _dom, v, then
                  in db.fetchall(*Q.positional(sql, values)))


@pytest.mark.parametrize("store", ["dd", "sl"])
def test_lookups_equal_the_documented_sql(store, request):
    """best and state read a few key ranges and do the lookahead in Python (DuckDB runs the
    documented joins in 10-30 ms, issue 12); every value must equal the documented SQL's."""
    db = request.getfixturevalue(store)
    q = db.ten_thousand
    goal = q.goal("ten-thousand")
    rolls = [[1, 5, 5], [1, 1, 5, 2, 3, 4], [2, 3], [5], [1, 5, 2, 3, 6], [2, 2, 2, 4, 6, 6], [3, 4, 6]]
    cases = [(faces, k, i, j) for faces in rolls for k in (50, 300, 600) for i, j in
             [(0, 0), (500, 900), (900, 950), (950, 600), (300, 1000), (600, 1450), (None, None)]]
    cases += [([1, 2, 3, 4, 5, 6], 0, i, j) for i, j in [(0, 0), (900, 950), (None, None), (400, 1200)]]
    checked = 0
    for faces, k, i, j in cases:
        try:
            got = q.best(faces, turn_total=k, score=i, opponent=j)
        except BadInput:  # a turn total the dice left cannot have
            continue
        want = _documented_best(db, "ten-thousand", goal, faces, k, 0, i, j)
        assert sorted(("".join(map(str, a.keep)), a.value, a.then) for a in got.actions) == want
        checked += bool(want)
    assert checked > 60
    for i, j, k, n in [(950, 0, 600, 2), (300, 400, 500, 2), (700, 950, 400, 4), (900, 950, 1500, 3),
                       (600, 300, 250, 1), (0, 900, 1000, 6)]:
        st = q.state(i, j, k, n)
        bank, = db.fetchone(*Q.positional(Q.BANK_VALUE_SQL, dict(i=i, j=j, k=k, goal=goal, rules="ten-thousand",
                                                                unit=50, start=6)))
        assert st.bank_value == float(bank)
        if st.action == "bank":  # not stored: the roll value comes from the lookahead
            farkle = 1 - q.state(j, i, 0, 6).p_win
            roll, = db.fetchone(*Q.positional(Q.ROLL_VALUE_SQL, dict(
                i=i, j=j, k=k, goal=goal, rules="ten-thousand", dice=n, triple=0, farkle=farkle, unit=50, start=6)))
            assert st.roll_value == pytest.approx(float(roll), abs=1e-15)


@pytest.mark.parametrize("rules", ["ten-thousand", "farkle"])
def test_keeps_of_a_roll_from_the_rules_equal_the_table(dd, rules):
    """best reads one roll's keeps from the rules, not from ten_thousand_keeps (on DuckDB): they
    must agree row for row, for every roll of every class."""
    q = dd.ten_thousand
    stored: dict = {}
    for row in dd.fetchall("SELECT dice, triple, roll, keep, points, dice_used, dice_after, triple_after, hot_dice, "
                           "dominated FROM ten_thousand_keeps WHERE rules = ? ORDER BY roll, keep", (rules,)):
        stored.setdefault(row[:3], []).append(tuple(row[2:]))
    assert len(stored) > 800  # every scoring roll (no standing triple in farkle)
    unit, low = q.rule_sets()[rules]["unit"], {c: m for c, (_p, m) in q.classes(rules).items()}
    for (n, t, roll), rows in stored.items():
        k = 0 if (n, t) == (6, 0) else low.get((n, t)) or unit  # a turn total at which the roll can come
        actions = dd.ten_thousand.best([int(f) for f in roll], turn_total=k, triple=t, rules=rules).actions
        got = [(roll, "".join(map(str, a.keep)), a.points, len(a.keep), a.dice_after, a.triple_after, a.hot_dice,
                a.dominated) for a in actions]
        assert sorted(got) == sorted(tuple(r[:6]) + (bool(r[6]), bool(r[7])) for r in rows), (n, t, roll)
