"""The built tables through the query layer and the CLI: seed figures, lookahead, views,
DuckDB/SQLite parity, good and bad input."""

from __future__ import annotations

import json

import pytest

import dicebase

GAMES = ("ten_thousand",)


@pytest.fixture(scope="module")
def duck(built_db):
    return built_db(GAMES)


@pytest.fixture(scope="module")
def lite(built_db):
    return built_db(GAMES, kind="sqlite")


def test_odds_from_the_database(duck):
    with dicebase.open(duck) as db:
        rows = db.ten_thousand.odds(6)
        # seed 004: 45,576 scoring outcomes of 46,656 with six dice
        assert sum(r.outcomes for r in rows if r.combination != "Farkle") == 45_576
        rows = {r.combination: r for r in db.ten_thousand.odds(3, triple=2)}
        # seed 004: 3 dice with a standing triple of 2s: 5 + 91 + 96 = 192 scoring outcomes
        assert (rows["3-of-a-kind"].outcomes, rows["Add to 3-of-a-kind"].outcomes, rows["1 or 5"].outcomes) == (5, 91, 96)
        # the rolls table reproduces the odds table by GROUP BY
        agg = dict(db.fetchall(
            "SELECT combination, SUM(ways) FROM ten_thousand_rolls WHERE rules = 'ten-thousand' AND dice = 5 "
            "AND triple = 0 GROUP BY combination"))
        assert agg == {r.combination: r.outcomes for r in db.ten_thousand.odds(5)}


def test_solitaire_best_is_the_stored_best_keep(duck):
    with dicebase.open(duck) as db:
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


def test_duel_lookahead_reproduces_stored_values(duck):
    """p_win of a stored roll state = sum over rolls of the best keep's lookahead value + farkle."""
    with dicebase.open(duck) as db:
        q = db.ten_thousand
        goal = q.goal("ten-thousand")
        for (i, j, k, n, t) in [(0, 0, 0, 6, 0), (500, 900, 300, 3, 0), (950, 950, 150, 2, 0), (600, 200, 250, 4, 0)]:
            st = q.state(i, j, k, n, t)
            assert st.action == "roll"
            rolls = db.fetchall("SELECT roll, probability, farkle FROM ten_thousand_rolls WHERE rules = 'ten-thousand' "
                                "AND dice = ? AND triple = ?", (n, t))
            total = 0.0
            for roll, p, farkle in rolls:
                if farkle:
                    total += p * (1 - q.state(j, i, 0).p_win)
                else:
                    total += p * q.best([int(c) for c in roll], turn_total=k, triple=t, score=i, opponent=j).best.value
            assert total == pytest.approx(st.p_win, abs=1e-12), (i, j, k, n, t)
        assert goal == 1000


def test_last_round_rule_on_hand_built_states(duck):
    with dicebase.open(duck) as db:
        q = db.ten_thousand
        # banking at or above the goal gives the opponent a last turn that must exceed
        st = q.state(950, 0, 600)  # 1550 banked vs 0: the opponent needs more than 1550 in one turn
        pex = db.fetchone("SELECT p_exceed FROM ten_thousand_exceed WHERE rules = 'ten-thousand' AND policy = "
                          "'optimal' AND need = 1600 AND dice = 6 AND triple = 0")[0]
        assert st.p_bank == pytest.approx(1 - pex, abs=1e-15)
        assert st.p_win >= st.p_bank
        # a tie does not win: the last-turn player 50 short needs 100 (need = deficit + 50)
        p50 = db.fetchone("SELECT p_exceed FROM ten_thousand_exceed WHERE rules = 'ten-thousand' AND policy = "
                          "'optimal' AND need = 50 AND dice = 1 AND triple = 0")[0]
        assert p50 == pytest.approx(2 / 6)
        # below the goal, banking hands over a normal turn: 1 - W(opponent, score + turn total)
        st = q.state(300, 400, 100, 1, 0)
        w = q.state(400, 400, 0).p_win
        assert st.p_bank == pytest.approx(1 - w)


def test_dominated_keep_can_be_best_in_the_duel(duck):
    """Reaching the goal hands the opponent a last turn: fewer points can be better."""
    with dicebase.open(duck) as db:
        ans = db.ten_thousand.best([1, 5, 2, 3, 4], turn_total=900, score=0, opponent=0)
        # take the 5 (950, then bank below the goal) rather than the 1 (1000: the opponent's last turn)
        assert [a.keep for a in ans.actions][:2] == [[5], [1]]
        assert ans.best.dominated and ans.best.then == "bank"
        # the solitaire turn never prefers a dominated keep
        sol = db.ten_thousand.best([1, 5, 2, 3, 4], turn_total=900)
        assert not sol.best.dominated


def test_views(duck):
    with dicebase.open(duck) as db:
        thr = {(t.dice, t.triple): t for t in db.ten_thousand.thresholds()}
        assert len(thr) == 24
        assert all(t.last_roll == t.bank_from - 50 for t in thr.values())  # one threshold each
        gaps = {g.policy: g for g in db.ten_thousand.gaps()}
        assert gaps["optimal"].gap == 0
        assert gaps["optimal"].p1_win + gaps["optimal"].p2_win == pytest.approx(1)
        assert gaps["seed004"].gap < 0
        assert gaps["seed004"].expected_turn_points < gaps["optimal"].expected_turn_points


def test_duckdb_sqlite_parity(duck, lite):
    calls = [
        lambda q: [vars(r) for r in q.odds(3, triple=4)],
        lambda q: q.best([1, 1, 5, 2, 3, 4], turn_total=0).as_dict(),
        lambda q: q.best([2, 5, 6], turn_total=350, triple=2).as_dict(),
        lambda q: q.best([1, 5, 5], turn_total=600, score=500, opponent=900).as_dict(),
        lambda q: q.best([1, 5], turn_total=300, score=600, opponent=950).as_dict(),
        lambda q: [vars(t) for t in q.thresholds("farkle")],
        lambda q: [vars(g) for g in q.gaps()],
        lambda q: vars(q.state(950, 0, 600)),
    ]
    with dicebase.open(duck) as a, dicebase.open(lite) as b:
        for call in calls:
            x, y = call(a.ten_thousand), call(b.ten_thousand)
            assert json.dumps(x, sort_keys=True, default=str) == json.dumps(y, sort_keys=True, default=str)
        for table in ("ten_thousand_duel", "ten_thousand_solitaire_keep", "ten_thousand_exceed"):
            sql = f"SELECT COUNT(*), SUM({'p_win' if 'duel' in table else 'value' if 'keep' in table else 'p_exceed'}) FROM {table}"
            (ca, sa), (cb, sb) = a.fetchone(sql), b.fetchone(sql)
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
    for args in (["thresholds"], ["gaps"], ["thresholds", "--rules", "farkle"], ["odds", "--dice", "2", "--triple", "6"],
                 ["best", "2", "2", "3", "--turn-total", "0", "--rules", "farkle"] and ["best", "1", "2", "3", "4", "5", "6", "--turn-total", "0"]):
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
        (["best", "7", "--turn-total", "50"], "faces must be 1-6"),
        (["best", "1", "--turn-total", "55"], "multiple of 50"),
        (["best", "1", "--turn-total", "-50"], "multiple of 50"),
        (["best", "1", "--turn-total", "0"], "turn start"),
        (["best", "1", "1", "1", "1", "1", "1", "1", "--turn-total", "50"], "1-6 rolled dice"),
        (["best", "1", "--turn-total", "50", "--score", "100"], "both --score and --opponent"),
        (["best", "1", "--turn-total", "50", "--score", "1000", "--opponent", "0"], "below the goal"),
        (["best", "1", "--turn-total", "50", "--triple", "2"], "at least 200"),
        (["best", "1", "5"], "--turn-total"),
        (["odds"], "--dice"),
        (["odds", "--dice", "x"], "--dice"),
        (["best", "1", "--turn-total", "50", "--score", "0", "--opponent", "0", "--rules", "farkle"], "not built"),
    ],
)
def test_cli_bad_input(duck, run_cli, args, fragment):
    code, out, err = run_cli(["ten-thousand", *args, "--db", duck])
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dicebase.query.base import BadInput  # noqa: E402


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    faces=st.lists(st.integers(-1, 8), min_size=0, max_size=8),
    turn_total=st.integers(-100, 2000),
    triple=st.integers(-1, 7),
    scores=st.one_of(st.none(), st.tuples(st.integers(-50, 1100), st.integers(-50, 1100))),
)
def test_best_accepts_or_rejects_cleanly(duck, faces, turn_total, triple, scores):
    """Any input gives either a ranked answer or one BadInput line; values are in range."""
    with dicebase.open(duck) as db:
        score, opponent = scores if scores else (None, None)
        try:
            ans = db.ten_thousand.best(faces, turn_total=turn_total, triple=triple, score=score, opponent=opponent)
        except BadInput as exc:
            assert "\n" not in str(exc) and str(exc)
            return
        values = [a.value for a in ans.actions]
        assert values == sorted(values, reverse=True)
        assert ans.farkle == (not ans.actions)
        if ans.objective == "win_probability":
            assert all(-1e-12 <= v <= 1 + 1e-12 for v in values)
        else:
            assert all(v >= turn_total for v in values)  # banking right after is always possible
