"""Great Rolled Ones in the database: seed 002's figures as SQL, the CLI, store parity, Monte Carlo."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dicebase

GAME = ("rolled_ones",)
SMALL = {"rolled_ones": {"goal": 20, "turn_total_bound": 50, "komi_max": 5, "players": [2, 3]}}  # N-player tables too
POLICY_NAMES = ("roll_4_or_5_dice", "fixed_hold_at", "simple_ones_cases", "keep_pace_end_race")
SEED = "002_adf76725bcd1fb40.txt"  # seed 002, /work/shared/seeds/002_adf76725bcd1fb40.txt
FIG2 = {"roll_4_or_5_dice": -0.0536, "fixed_hold_at": -0.0268, "simple_ones_cases": -0.0201, "keep_pace_end_race": -0.0100}


@pytest.fixture(scope="module")
def db_path(built_db):
    return built_db(GAME)


@pytest.fixture(scope="module", params=["duckdb", "sqlite"])
def seed_db(request, built_db):
    """The full standard variant in each store: seed 002's figures must hold in both."""
    return built_db(GAME, request.param)


def sql(path, query, params=()):
    with dicebase.open(path) as db:
        return db.fetchall(query, params)


# ---------------------------------------------------------------------------
# seed 002's figures, each one SQL query over the stored tables
# ---------------------------------------------------------------------------
def test_first_player_advantage_view(seed_db):
    # seed 002 (002_adf76725bcd1fb40.txt, "First Player Advantage"): "player 1 and player 2 have win
    # rates of 0.4495 and 0.5505" (truncated; we store 0.449553); in DuckDB and in SQLite
    ((p1, p2, adv),) = sql(seed_db, "SELECT p1_win, p2_win, advantage FROM rolled_ones_first_player_advantage")
    assert abs(p1 - 0.4495) < 1e-4 and abs(p2 - 0.5505) < 1e-4
    assert adv == pytest.approx(p1 - p2)


def test_komi_views(seed_db):
    # seed 002 (002_adf76725bcd1fb40.txt): "player 1 should start with 3 compensation points (komi),
    # bringing player 1's win rate up to 0.4955"; in DuckDB and in SQLite
    rows = sql(seed_db, "SELECT komi, p1_win FROM rolled_ones_komi WHERE variant = 'standard' ORDER BY komi")
    assert [c for c, _ in rows] == list(range(11))
    assert abs(dict(rows)[3] - 0.4955) < 5e-5
    assert sql(seed_db, "SELECT komi FROM rolled_ones_fair_komi WHERE variant = 'standard'") == [(3,)]


def test_policy_gaps_view(seed_db):
    # seed 002 (002_adf76725bcd1fb40.txt) Fig. 2: -0.0536, -0.0268, -0.0201, -0.0100, each within 0.0005;
    # in DuckDB and in SQLite
    rows = sql(seed_db, "SELECT policy, gap, seed_gap FROM rolled_ones_policy_gaps ORDER BY algorithm")
    assert [r[0] for r in rows] == list(POLICY_NAMES)
    assert [r[2] for r in rows] == [FIG2[n] for n in POLICY_NAMES]
    for policy, gap, seed_gap in rows:
        assert abs(gap - seed_gap) <= 5e-4, policy


def test_small_views_agree_across_stores_on_the_standard_variant(built_db):
    # every small table and aggregate view of the full standard build, DuckDB vs SQLite
    duck, lite = built_db(GAME, "duckdb"), built_db(GAME, "sqlite")
    for name in ("rolled_ones_variants", "rolled_ones_p_new1s", "rolled_ones_p_exceed", "rolled_ones_policies",
                 "rolled_ones_seat_win_rates", "rolled_ones_komi", "rolled_ones_fair_komi",
                 "rolled_ones_policy_gaps", "rolled_ones_first_player_advantage"):
        assert _relation_rows(duck, name) == _relation_rows(lite, name), name
    # the large views: per policy the count, an exact integer checksum of the keys, and the costs
    summary = (
        "SELECT policy, count(*), sum(CAST(p AS BIGINT) * 100000000 + CAST(i AS BIGINT) * 1000000 "
        "+ CAST(j AS BIGINT) * 10000 + CAST(k AS BIGINT) * 10 + o), max(cost), sum(cost) "
        "FROM rolled_ones_disagreements GROUP BY policy ORDER BY policy"
    )
    (d_rows, s_rows) = sql(duck, summary), sql(lite, summary)
    assert len(d_rows) == len(s_rows) == 4
    for a, b in zip(d_rows, s_rows):
        assert a[:4] == b[:4]
        assert a[4] == pytest.approx(b[4], rel=1e-12)  # float sums: the order of addition differs


def _states(path):
    """The whole rolled_ones_states table of a DuckDB file as numpy columns (cached per file).

    Actions become booleans (roll = True), keys int64, values float64.
    """
    if path not in _STATES:
        with dicebase.open(path) as db:
            assert db.store == "duckdb"
            raw = db.execute("SELECT * EXCLUDE (variant) FROM rolled_ones_states ORDER BY p, i, j, k, o").fetchnumpy()
            v = db.rolled_ones.variant()
        cols = {}
        for name, values in raw.items():
            values = np.asarray(values)
            if name == "best" or name.endswith("_action"):
                cols[name] = values == "roll"
            elif name in ("p", "i", "j", "k", "o"):
                cols[name] = values.astype(np.int64)
            else:
                cols[name] = values.astype(float)
        _STATES[path] = (v, cols)
    return _STATES[path]


_STATES: dict = {}


def test_views_agree_with_tables(db_path):
    from dicebase.numeric.rolled_ones_policies import POLICIES, decide

    (n_states,) = sql(db_path, "SELECT count(*) FROM rolled_ones_states")[0]
    counts = dict(sql(db_path, "SELECT policy, count(*) FROM rolled_ones_policy_actions GROUP BY policy"))
    assert counts == {name: n_states for name in ("optimal", *POLICY_NAMES)}
    v, st = _states(db_path)
    p, i, j, k, o = (st[c] for c in "pijko")
    # the stored optimal action is the better of the stored P_roll and P_hold (ties hold, k = 0 rolls)
    assert np.array_equal(st["best"], (st["p_roll"] > st["p_hold"]) | (k == 0))
    assert np.array_equal(st["p_win"], np.maximum(st["p_roll"], st["p_hold"]))
    # each stored human action is the policy's rule (recomputed here), and the disagreements view lists
    # exactly the states where it differs from the stored optimal action, at cost p_win - chosen value
    rows = sql(db_path, "SELECT policy, p, i, j, k, o, cost, policy_p_win FROM rolled_ones_disagreements")
    for name in POLICY_NAMES:
        rule = decide(POLICIES[name].rule, p, i, j, k, o, v.goal)
        assert np.array_equal(st[f"{name}_action"], rule), name
        differ = rule != st["best"]
        chosen = np.where(rule, st["p_roll"], st["p_hold"])
        want = {(a, b, c, d, e): cost for a, b, c, d, e, cost in
                zip(p[differ], i[differ], j[differ], k[differ], o[differ], (st["p_win"] - chosen)[differ])}
        got = {tuple(r[1:6]): r[6] for r in rows if r[0] == name}
        assert got.keys() == want.keys(), name
        assert all(got[key] == want[key] for key in want), name
    # the policy values at the start state are the seat win rates
    rows = sql(
        db_path,
        "SELECT v.policy, v.p_win_moving, v.p_win_waiting, w1.p_win, w2.p_win FROM rolled_ones_policy_values v "
        "JOIN rolled_ones_seat_win_rates w1 ON w1.policy = v.policy AND w1.seat = 1 AND w1.variant = v.variant "
        "JOIN rolled_ones_seat_win_rates w2 ON w2.policy = v.policy AND w2.seat = 2 AND w2.variant = v.variant "
        "WHERE v.p = 1 AND v.i = 0 AND v.j = 0 AND v.k = 0 AND v.o = 0",
    )
    assert len(rows) == 5
    for _, moving, waiting, seat1, seat2 in rows:
        assert moving == pytest.approx(seat1, abs=1e-15) and waiting == pytest.approx(seat2, abs=1e-15)


def test_build_metadata(db_path):
    with dicebase.open(db_path) as db:
        info = db.info()
    (variant,) = [v for v in info["variants"] if v["game"] == "rolled_ones"]
    # seed 002's rules (002_adf76725bcd1fb40.txt): goal 50; the bound 80 is ours
    assert variant["rules"]["turn_total_bound"] == 80 and variant["rules"]["goal"] == 50
    assert "exact" in variant["solver"]["convergence"]
    assert variant["solver"]["optimal"]["max_bellman_residual"] < 1e-14


# ---------------------------------------------------------------------------
# query layer and CLI
# ---------------------------------------------------------------------------
def test_best_lookup(db_path):
    with dicebase.open(db_path) as db:
        start = db.rolled_ones.best(1, 0, 0, 0, 0)
        assert start.best == "roll" and start.p_hold == 0.0
        assert [a.action for a in start.actions] == ["roll", "hold"]
        final = db.rolled_ones.best(2, 30, 60, 13, 1)  # player 2's last turn, 17 behind
        assert final.best == "roll" and final.source.startswith("rolled_ones_p_exceed")
        won = db.rolled_ones.best(2, 45, 20, 40, 1)  # player 2 could have held and won long ago
        assert won.best == "hold" and won.p_win == 1.0 and won.p_roll < 1.0


def test_cli_best_json(db_path, run_cli):
    # seed 002 (002_adf76725bcd1fb40.txt): player 1's optimal win rate 0.4495 at the start
    code, out, err = run_cli(
        ["rolled-ones", "best", "--player", 1, "--score", 0, "--opponent", 0, "--turn-total", 0, "--ones", 0, "--json", "--db", db_path]
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["best"] == "roll" and doc["p_hold"] == 0.0
    assert abs(doc["p_win"] - 0.4495) < 1e-4 and doc["p_roll"] == doc["p_win"]
    assert [a["action"] for a in doc["actions"]] == ["roll", "hold"]


def test_cli_komi_gaps_policy(db_path, run_cli):
    # seed 002 (002_adf76725bcd1fb40.txt): the fair komi is 3
    code, out, _ = run_cli(["rolled-ones", "komi", "--json", "--db", db_path])
    doc = json.loads(out)
    assert code == 0 and doc["fair_komi"] == 3 and len(doc["rows"]) == 11
    assert {"komi", "p1_win"} <= set(doc["rows"][0])
    code, out, _ = run_cli(["rolled-ones", "gaps", "--json", "--db", db_path])
    rows = json.loads(out)
    assert code == 0 and [r["policy"] for r in rows] == list(POLICY_NAMES)
    assert all({"policy", "p1_win", "p2_win", "gap"} <= set(r) for r in rows)
    code, out, _ = run_cli(
        ["rolled-ones", "policy", "keep-pace-end-race", "--player", 1, "--score", 27, "--opponent", 43,
         "--turn-total", 22, "--ones", 2, "--json", "--db", db_path]
    )
    doc = json.loads(out)
    assert code == 0 and doc["action"] == "hold" and doc["optimal_action"] == "roll"
    assert doc["cost"] == pytest.approx(doc["p_win_optimal"] - doc["p_win_action"]) and doc["cost"] > 0.1
    code, out, _ = run_cli(["rolled-ones", "komi", "--db", db_path])
    assert code == 0 and "fair komi: 3" in out


STATE = ["--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0", "--ones", "0"]


def _with(flag, value, base=STATE):
    out = list(base)
    out[out.index(flag) + 1] = value
    return out


@pytest.mark.parametrize(
    "args, says",
    [
        (["best", *_with("--player", "3")], "player must be 1 or 2"),
        (["best", *_with("--score", "-1")], "score must be 0..49"),
        (["best", *_with("--score", "50")], "score must be 0..49"),
        (["best", *_with("--opponent", "50")], "opponent score must be 0..49"),
        (["best", *_with("--player", "2", _with("--opponent", "130"))], "opponent score must be 0..129"),
        (["best", *_with("--ones", "3")], "ones must be 0..2"),
        (["best", *_with("--ones", "-1")], "ones must be 0..2"),
        (["best", *_with("--turn-total", "81")], "turn total must be 0..80"),
        (["best", *_with("--turn-total", "7")], "cannot occur"),
        (["best", *_with("--turn-total", "2.5")], "is not a whole number"),
        (["best", *_with("--variant", "nope", [*STATE, "--variant", "x"])], "unknown variant"),
        (["policy", "nope", *STATE], "unknown policy"),
        (["disagreements", "fixed-hold-at", "--limit", "0"], "--limit"),
        (["disagreements", "fixed-hold-at", "--limit", "-1"], "--limit"),
        (["disagreements", "fixed-hold-at", "--limit", "9223372036854775808"], "--limit"),
        (["disagreements", "fixed-hold-at", "--limit", "99999999999999999999"], "--limit"),
        (["disagreements", "fixed-hold-at", "--limit", "x"], "--limit"),
        (["best", "--player", "1"], "give --score and --opponent"),
    ],
)
def test_cli_bad_input(db_path, run_cli, args, says):
    # the ranges are seed 002's rules (002_adf76725bcd1fb40.txt: goal 50, three 1s) read from the database
    code, out, err = run_cli(["rolled-ones", *args, "--db", db_path])
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err


def test_build_refuses_a_bound_below_the_last_optimal_roll(tmp_path, run_cli):
    code, out, err = run_cli(
        ["build", "rolled-ones", "-q", "-o", "rolled-ones.turn_total_bound=60", "--db", tmp_path / "x.duckdb"]
    )
    assert code == 2 and "too small" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize(
    "option, says",
    [
        ("goal=20.5", "rolled-ones.goal must be a whole number"),
        ("komi_max=3.7", "rolled-ones.komi_max must be a whole number"),
        ("dice=true", "rolled-ones.dice must be a whole number"),
        ('faces="6"', "rolled-ones.faces must be a whole number"),
        ("goal=0", "rolled-ones.goal must be 1..100"),
        ("komi_max=50", "rolled-ones.komi_max must be 0..49"),
        ("ones_limit=6", "rolled-ones.ones_limit must be at most dice (5)"),
        ("turn_total_bound=40", "rolled-ones.turn_total_bound must be at least the goal (50)"),
        ("turn_total_bound=500", "more than the 5,000,000 a build may use"),
    ],
)
def test_build_refuses_bad_options_before_touching_a_file(tmp_path, run_cli, option, says):
    target = tmp_path / "x.duckdb"
    code, out, err = run_cli(["build", "rolled-ones", "-q", "-o", f"rolled-ones.{option}", "--db", target])
    assert code == 2 and out == "" and says in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "changes, says",
    [
        (dict(goal=20.0), "goal must be a whole number"),
        (dict(goal=True), "goal must be a whole number"),
        (dict(komi_max=False), "komi_max must be a whole number"),
        (dict(turn_total_bound=None), "turn_total_bound must be a whole number"),
        (dict(faces=1), "faces must be 2..20"),
        (dict(dice=11), "dice must be 1..10"),
        (dict(goal=20, komi_max=20), "komi_max must be 0..19"),
        (dict(goal=100, turn_total_bound=150), "lower goal or turn_total_bound"),
    ],
)
def test_validate_options(changes, says):
    from dicebase.builder import rolled_ones

    with pytest.raises(ValueError, match=says) as info:
        rolled_ones.validate_options({**rolled_ones.DEFAULT_OPTIONS, **changes})
    assert "\n" not in str(info.value)
    rolled_ones.validate_options(dict(rolled_ones.DEFAULT_OPTIONS))
    rolled_ones.validate_options({**rolled_ones.DEFAULT_OPTIONS, **SMALL["rolled_ones"]})


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_disagreements_limit_is_bounded_in_the_query_layer(built_db, kind):
    from dicebase.cli import rolled_ones as cli_module
    from dicebase.query.base import BadInput
    from dicebase.query.rolled_ones import LIMIT_MAX

    assert cli_module.LIMIT_MAX == LIMIT_MAX
    with dicebase.open(built_db(GAME, kind, SMALL)) as db:
        for bad in (0, -1, 2**63, 10**20, LIMIT_MAX + 1, "9223372036854775808", 2.5, True):
            with pytest.raises(BadInput, match="limit must be") as info:
                db.rolled_ones.disagreements("fixed_hold_at", limit=bad)
            assert "\n" not in str(info.value)
        (n,) = db.fetchone("SELECT count(*) FROM rolled_ones_disagreements WHERE policy = 'fixed_hold_at'")
        assert len(db.rolled_ones.disagreements("fixed_hold_at", limit=LIMIT_MAX)) == n > 0


def test_seed_gap_is_null_outside_the_seeds_variant(db_path, built_db):
    # seed 002 (002_adf76725bcd1fb40.txt) Fig. 2 is stored for its own rules only
    with dicebase.open(db_path) as db:
        assert [g.seed_gap for g in db.rolled_ones.gaps()] == [FIG2[n] for n in POLICY_NAMES]
    small = built_db(GAME, "duckdb", SMALL)
    assert sql(small, "SELECT DISTINCT variant FROM rolled_ones_policies") == [("goal20-dice5-ones3",)]
    assert sql(small, "SELECT count(*), count(seed_gap) FROM rolled_ones_policies") == [(5, 0)]
    assert sql(small, "SELECT count(*), count(seed_gap) FROM rolled_ones_policy_gaps") == [(4, 0)]
    with dicebase.open(small) as db:
        assert [g.seed_gap for g in db.rolled_ones.gaps()] == [None] * 4


def test_csv_rows_carry_the_answer(db_path, run_cli):
    # seed 002 (002_adf76725bcd1fb40.txt): optimal p1 win 0.4495 at the start, fair komi 3
    import csv
    import io

    code, out, err = run_cli(["rolled-ones", "best", *STATE, "--format", "csv", "--db", db_path])
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["action"] for r in rows] == ["roll", "hold"]
    for r in rows:  # every row carries the document's answer; the action's own value is action_p_win
        assert r["best"] == "roll" and abs(float(r["p_win"]) - 0.4495) < 1e-4
    assert float(rows[0]["action_p_win"]) == float(rows[0]["p_win"]) and float(rows[1]["action_p_win"]) == 0.0
    code, out, err = run_cli(["rolled-ones", "komi", "--format", "csv", "--db", db_path])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 11 and {r["fair_komi"] for r in rows} == {"3"}


def test_help_does_not_hard_code_build_options(run_cli):
    for command in ("best", "komi", "policy", "disagreements"):
        code, out, _ = run_cli(["rolled-ones", command, "--help"])
        assert code == 0
        for fixed in ("0..10", "0-2", "0..2", "(0-2"):
            assert fixed not in out, (command, fixed)


def test_cli_missing_database(tmp_path, run_cli):
    code, _, err = run_cli(["rolled-ones", "komi", "--db", tmp_path / "none.duckdb"])
    assert code == 2 and "dicebase build" in err


# ---------------------------------------------------------------------------
# DuckDB / SQLite parity (a small variant, goal 20)
# ---------------------------------------------------------------------------
def _relation_rows(path, name):
    with dicebase.open(path) as db:
        names, _ = db.columns(f"SELECT * FROM {name} LIMIT 0")
        order = ", ".join(f'"{n}"' for n in names)
        _, rows = db.columns(f"SELECT * FROM {name} ORDER BY {order}")
    return names, rows


def test_duckdb_sqlite_parity(built_db):
    duck = built_db(GAME, "duckdb", SMALL)
    lite = built_db(GAME, "sqlite", SMALL)
    with dicebase.open(duck) as db:
        relations = [n for n, _ in db.fetchall("SELECT name, game FROM schema_tables WHERE game = 'rolled_ones'")]
    assert len(relations) == 23  # 12 tables (6 of them N players), 11 views (4 N players)
    for name in relations:
        names_d, rows_d = _relation_rows(duck, name)
        names_s, rows_s = _relation_rows(lite, name)
        assert names_d == names_s, name
        assert len(rows_d) == len(rows_s) > 0, name
        if rows_d == rows_s:  # the usual case: identical doubles
            continue
        for a, b in zip(rows_d, rows_s):  # else only last-bit differences of view arithmetic are allowed
            for x, y in zip(a, b):
                if isinstance(x, float) or isinstance(y, float):
                    assert x == pytest.approx(y, abs=1e-15), name
                else:
                    assert x == y, name
    with dicebase.open(duck) as d, dicebase.open(lite) as s:
        for state in [(1, 0, 0, 0, 0), (2, 7, 19, 9, 1), (2, 3, 25, 10, 2), (1, 19, 19, 13, 2)]:
            assert d.rolled_ones.best(*state) == s.rolled_ones.best(*state)
            assert d.rolled_ones.policy("simple_ones_cases", *state) == s.rolled_ones.policy("simple_ones_cases", *state)
        assert d.rolled_ones.komi() == s.rolled_ones.komi() and d.rolled_ones.gaps() == s.rolled_ones.gaps()


def test_raising_the_bound_changes_no_value_read_back_from_the_database(built_db):
    # Two builds of the goal-20 variant, turn_total_bound 50 and 90 (the full-goal 80 vs 120 comparison
    # of the solver arrays is tests/test_rolled_ones_solver.py::test_raising_the_turn_total_bound_changes_nothing):
    # every state of the smaller build is in the larger one with the same values within 1e-12.
    low = built_db(GAME, "duckdb", SMALL)
    high = built_db(GAME, "duckdb", {"rolled_ones": {**SMALL["rolled_ones"], "turn_total_bound": 90}})
    value_columns = ["p_roll", "p_hold", "p_win"] + [
        f"{n}_p_win_{kind}" for n in POLICY_NAMES for kind in ("moving", "waiting")
    ]
    action_columns = ["best"] + [f"{n}_action" for n in POLICY_NAMES]
    query = f"SELECT p, i, j, k, o, {', '.join(value_columns + action_columns)} FROM rolled_ones_states"
    a = {r[:5]: r[5:] for r in sql(low, query)}
    b = {r[:5]: r[5:] for r in sql(high, query)}
    assert sql(low, "SELECT turn_total_bound FROM rolled_ones_variants") == [(50,)]
    assert sql(high, "SELECT turn_total_bound FROM rolled_ones_variants") == [(90,)]
    assert a.keys() <= b.keys() and all(key[3] > 50 for key in b.keys() - a.keys()) and len(b) > len(a)
    nv = len(value_columns)
    worst = max(abs(x - y) for key in a for x, y in zip(a[key][:nv], b[key][:nv]))
    assert worst <= 1e-12
    assert all(a[key][nv:] == b[key][nv:] for key in a)
    for table in ("rolled_ones_seat_win_rates", "rolled_ones_komi", "rolled_ones_p_exceed"):
        names, rows_a = _relation_rows(low, table)
        _, rows_b = _relation_rows(high, table)
        keyed_b = {tuple(x for x in r if not isinstance(x, float)): r for r in rows_b}
        for r in rows_a:
            other = keyed_b[tuple(x for x in r if not isinstance(x, float))]
            for x, y in zip(r, other):
                assert x == pytest.approx(y, abs=1e-12), (table, r)


# ---------------------------------------------------------------------------
# Monte Carlo: stored policies play each other
# ---------------------------------------------------------------------------
def _load_actions(path):
    """Dense roll decisions [policy, p - 1, i, j, k, o] from the stored tables (-1 = not stored).

    Policy 0 is the stored optimal action (``best``), 1-4 the human policies' action columns.
    """
    v, st = _states(path)
    with dicebase.open(path) as db:
        final = np.array(db.fetchall("SELECT delta, o, best FROM rolled_ones_p_exceed WHERE variant = ? ORDER BY delta, o", (v.name,)), dtype=object)
        seat = db.fetchall("SELECT policy, seat, p_win FROM rolled_ones_seat_win_rates WHERE variant = ?", (v.name,))
    G, K, L = v.goal, v.turn_total_bound, v.ones_limit
    acts = np.full((1 + len(POLICY_NAMES), 2, G, G, K + 1, L), -1, dtype=np.int8)
    p, i, j, k, o = (st[c] for c in "pijko")
    for q, column in enumerate(("best", *(f"{n}_action" for n in POLICY_NAMES))):
        acts[q, p - 1, i, j, k, o] = st[column]
    fin = np.zeros((G + K + 1, L), dtype=bool)  # [delta + 1, o]
    for delta, oo, best in final:
        fin[int(delta) + 1, int(oo)] = best == "roll"
    return v, acts, fin, {(pol, s): w for pol, s, w in seat}


def test_stored_actions_reproduce_the_stored_win_rates_exactly(db_path):
    """Re-evaluate every policy FROM ITS STORED ACTIONS (and the optimal opponent from the stored best
    actions) with the exact evaluator: the stored seat win rates, the stored per-state policy values
    and seed 002's Fig. 2 follow.  Unlike the Monte Carlo this pins the stored actions to 1e-9, so a
    different reading of the pseudo-code in the table (Fig. 2 misses by > 0.0005) would fail here."""
    from types import SimpleNamespace

    from dicebase.builder.rolled_ones.evaluate import evaluate
    from dicebase.numeric.rolled_ones_policies import POLICIES
    from dicebase.rules.rolled_ones import Rules

    v, acts, _, stored = _load_actions(db_path)
    G, K = v.goal, v.turn_total_bound
    rules = Rules(goal=G, dice=v.dice, ones_limit=v.ones_limit, faces=v.faces, turn_total_bound=K)
    # not stored inside the box: unreachable (k, o) (never played) and player 2 past a certain win (every
    # policy holds there, as the query layer answers): hold
    table = acts == 1

    def from_table(q, name):
        code = POLICIES[name].rule if name else None

        def rule(p, i, j, k, o, goal=G):
            p, i, j, k, o = np.broadcast_arrays(p, i, j, k, o)
            inside = (k <= K) & (j < G)
            got = table[q][p - 1, i, np.minimum(j, G - 1), np.minimum(k, K), o]
            # beyond the stored bound the table has no rows: a human policy follows its rule there
            # (Algorithm 1 rolls on), the optimal player holds (the evaluator does that for it)
            beyond = code(p, i, j, k, o, goal) if code else (p == 2) & (j >= G) & (i + k <= j)
            return np.where(inside, got, beyond)

        return rule

    optimal = SimpleNamespace(rules=rules, roll=table[0])  # the opponent: the stored optimal actions
    rules_by_name = {"optimal": from_table(0, None), **{n: from_table(q + 1, n) for q, n in enumerate(POLICY_NAMES)}}
    evaluation = evaluate(optimal, rules_by_name).policies
    p1_opt = evaluation["optimal"].seat_win[0]
    assert p1_opt == pytest.approx(stored[("optimal", 1)], abs=1e-9)
    _, st = _states(db_path)
    p, i, j, k, o = (st[c] for c in "pijko")
    for name in POLICY_NAMES:
        w1, w2 = evaluation[name].seat_win
        assert w1 == pytest.approx(stored[(name, 1)], abs=1e-9) and w2 == pytest.approx(stored[(name, 2)], abs=1e-9)
        # seed 002 (002_adf76725bcd1fb40.txt) Fig. 2, from the stored actions alone
        assert abs((w1 - p1_opt) + (w2 - (1 - p1_opt)) - FIG2[name]) <= 5e-4, name
        for kind in ("moving", "waiting"):
            got = getattr(evaluation[name], kind)[p - 1, i, j, k, o]
            assert np.max(np.abs(got - st[f"{name}_p_win_{kind}"])) <= 1e-9, (name, kind)


def _play(v, acts, fin, seat_policy, rng):
    """Play games to the end; ``seat_policy[g, s]`` is the policy index of seat s + 1. Returns the winning seat."""
    from dicebase.numeric.rolled_ones_policies import POLICIES, decide

    G, K, D, L = v.goal, v.turn_total_bound, v.dice, v.ones_limit
    n = len(seat_policy)
    score = np.zeros((n, 2), dtype=np.int64)
    mover = np.zeros(n, dtype=np.int64)  # 0 = player 1
    k = np.zeros(n, dtype=np.int64)
    o = np.zeros(n, dtype=np.int64)
    winner = np.zeros(n, dtype=np.int64)
    live = np.arange(n)
    rules = [None, *(POLICIES[name].rule for name in POLICY_NAMES)]
    while live.size:
        m, kk, oo = mover[live], k[live], o[live]
        i, j = score[live, m], score[live, 1 - m]
        q = seat_policy[live, m]
        final = (m == 1) & (j >= G)
        inside = ~final & (kk <= K)
        roll = np.zeros(live.size, dtype=bool)
        roll[final] = fin[np.maximum(j - i - kk, -1)[final] + 1, oo[final]]
        a = acts[q[inside], m[inside], i[inside], j[inside], kk[inside], oo[inside]]
        assert np.all(a >= 0), "a game reached a state that is not stored"
        roll[inside] = a == 1
        beyond = ~final & ~inside  # k > bound: optimal play holds (proven); a human policy follows its rule
        for pq in np.unique(q[beyond]):
            sel = beyond & (q == pq)
            if pq > 0:
                roll[sel] = decide(rules[pq], m[sel] + 1, i[sel], j[sel], kk[sel], oo[sel], G)
        new_ones = rng.binomial(D - oo, 1.0 / v.faces)
        ends = ~roll | (oo + new_ones >= L)
        cont = live[~ends]
        k[cont] += (D - oo - new_ones)[~ends]
        o[cont] += new_ones[~ends]
        done_turn = live[ends]
        held = ~roll[ends]
        score[done_turn[held], mover[done_turn[held]]] += k[done_turn[held]]
        k[done_turn] = 0
        o[done_turn] = 0
        p2_ended = mover[done_turn] == 1
        over = p2_ended & ((score[done_turn, 0] >= G) | (score[done_turn, 1] >= G))
        finished = done_turn[over]
        winner[finished] = np.where(score[finished, 1] > score[finished, 0], 2, 1)
        mover[done_turn] = 1 - mover[done_turn]
        live = np.setdiff1d(live, finished, assume_unique=True)
    return winner


def test_monte_carlo_games_match_stored_win_rates(db_path):
    # 200,000 games per human policy (100,000 in each seat) and 100,000 optimal vs optimal games.
    v, acts, fin, stored = _load_actions(db_path)
    per_seat = 100_000
    matchups = [("optimal", 1, 0)] + [(name, seat, q + 1) for q, name in enumerate(POLICY_NAMES) for seat in (1, 2)]
    seat_policy = np.zeros((per_seat * len(matchups), 2), dtype=np.int64)
    for m, (_, seat, q) in enumerate(matchups):
        seat_policy[m * per_seat : (m + 1) * per_seat, seat - 1] = q
    winner = _play(v, acts, fin, seat_policy, np.random.default_rng(20250602))
    z = 3.2905  # two-sided 99.9%
    for m, (name, seat, _) in enumerate(matchups):
        wins = winner[m * per_seat : (m + 1) * per_seat] == seat
        p = stored[(name, seat)]
        half = z * math.sqrt(p * (1 - p) / per_seat)
        assert abs(wins.mean() - p) <= half, (name, seat, wins.mean(), p)


def test_docs_schema_section_is_generated():
    # docs/rolled_ones.md pastes the generated schema of the game: it must be current
    from pathlib import Path

    from dicebase.schema.__main__ import markdown

    docs = (Path(__file__).resolve().parent.parent / "docs" / "rolled_ones.md").read_text()
    pasted = docs.split("<!-- rolled_ones schema:begin -->", 1)[1].split("<!-- rolled_ones schema:end -->", 1)[0]
    generated = markdown().split("#### Great Rolled Ones\n", 1)[1].split("\n#### ", 1)[0]
    assert pasted.strip() == generated.strip()
    assert "| NULL |" not in pasted


def test_states_table_has_no_duckdb_key_index(db_path):
    # key_index=False (docs/DESIGN.md): the key stays in the schema, DuckDB builds no ART index for it
    from dicebase.schema.rolled_ones import rolled_ones_states

    assert rolled_ones_states.info["key_index"] is False
    assert [c.name for c in rolled_ones_states.primary_key.columns] == ["variant", "p", "i", "j", "k", "o"]
    kinds = {
        name: {kind for t, kind in sql(db_path, "SELECT table_name, constraint_type FROM duckdb_constraints()") if t == name}
        for name in ("rolled_ones_states", "rolled_ones_p_exceed")
    }
    assert "PRIMARY KEY" not in kinds["rolled_ones_states"] and "PRIMARY KEY" in kinds["rolled_ones_p_exceed"]
    with dicebase.open(db_path) as db:  # lookups still answer from the unindexed table
        assert db.rolled_ones.best(2, 30, 41, 13, 1).source == "rolled_ones_states"
