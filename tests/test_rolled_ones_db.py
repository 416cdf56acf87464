"""Great Rolled Ones in the database: seed 002's figures as SQL, the CLI, store parity, Monte Carlo."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dicebase

GAME = ("rolled_ones",)
SMALL = {"rolled_ones": {"goal": 20, "turn_total_bound": 50, "komi_max": 5}}
POLICY_NAMES = ("roll_4_or_5_dice", "fixed_hold_at", "simple_ones_cases", "keep_pace_end_race")


@pytest.fixture(scope="module")
def db_path(built_db):
    return built_db(GAME)


def sql(path, query, params=()):
    with dicebase.open(path) as db:
        return db.fetchall(query, params)


# ---------------------------------------------------------------------------
# seed 002's figures, each one SQL query over the stored tables
# ---------------------------------------------------------------------------
def test_first_player_advantage_view(db_path):
    # seed 002: "player 1 and player 2 have win rates of 0.4495 and 0.5505" (truncated; we store 0.449553)
    ((p1, p2, adv),) = sql(db_path, "SELECT p1_win, p2_win, advantage FROM rolled_ones_first_player_advantage")
    assert abs(p1 - 0.4495) < 1e-4 and abs(p2 - 0.5505) < 1e-4
    assert adv == pytest.approx(p1 - p2)


def test_komi_views(db_path):
    # seed 002: komi 3 brings player 1 to 0.4955 and is the fairest.
    rows = sql(db_path, "SELECT komi, p1_win FROM rolled_ones_komi WHERE variant = 'standard' ORDER BY komi")
    assert [c for c, _ in rows] == list(range(11))
    assert abs(dict(rows)[3] - 0.4955) < 5e-5
    assert sql(db_path, "SELECT komi FROM rolled_ones_fair_komi WHERE variant = 'standard'") == [(3,)]


def test_policy_gaps_view(db_path):
    # seed 002 Fig. 2: -0.0536, -0.0268, -0.0201, -0.0100, each within 0.0005.
    rows = sql(db_path, "SELECT policy, gap, seed_gap FROM rolled_ones_policy_gaps ORDER BY algorithm")
    assert [r[0] for r in rows] == list(POLICY_NAMES)
    assert [r[2] for r in rows] == [-0.0536, -0.0268, -0.0201, -0.0100]
    for policy, gap, seed_gap in rows:
        assert abs(gap - seed_gap) <= 5e-4, policy


def test_views_agree_with_tables(db_path):
    (n_states,) = sql(db_path, "SELECT count(*) FROM rolled_ones_states")[0]
    counts = dict(sql(db_path, "SELECT policy, count(*) FROM rolled_ones_policy_actions GROUP BY policy"))
    assert counts == {name: n_states for name in ("optimal", *POLICY_NAMES)}
    # a disagreement costs what P_roll and P_hold say, and never less than 0
    (bad,) = sql(db_path, "SELECT count(*) FROM rolled_ones_disagreements WHERE cost < 0 OR policy_action = optimal_action")[0]
    assert bad == 0
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
    code, out, err = run_cli(
        ["rolled-ones", "best", "--player", 1, "--score", 0, "--opponent", 0, "--turn-total", 0, "--ones", 0, "--json", "--db", db_path]
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["best"] == "roll" and doc["p_hold"] == 0.0
    assert abs(doc["p_win"] - 0.4495) < 1e-4 and doc["p_roll"] == doc["p_win"]
    assert [a["action"] for a in doc["actions"]] == ["roll", "hold"]


def test_cli_komi_gaps_policy(db_path, run_cli):
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
        (["best", *_with("--turn-total", "2.5")], "whole number"),
        (["best", *_with("--variant", "nope", [*STATE, "--variant", "x"])], "unknown variant"),
        (["policy", "nope", *STATE], "unknown policy"),
        (["disagreements", "fixed-hold-at", "--limit", "0"], "limit must be at least 1"),
        (["best", "--player", "1"], "Missing option"),
    ],
)
def test_cli_bad_input(db_path, run_cli, args, says):
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
    assert len(relations) == 13  # 6 tables, 7 views
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


# ---------------------------------------------------------------------------
# Monte Carlo: stored policies play each other
# ---------------------------------------------------------------------------
def _load_actions(path):
    """Dense roll decisions [policy, p - 1, i, j, k, o] from the stored tables (-1 = not stored)."""
    with dicebase.open(path) as db:
        v = db.rolled_ones.variant()
        names = ("best", *(f"{n}_action" for n in POLICY_NAMES))
        cols = ", ".join(f"CASE WHEN {c} = 'roll' THEN 1 ELSE 0 END" for c in names)
        rows = np.array(db.fetchall(f"SELECT p, i, j, k, o, {cols} FROM rolled_ones_states WHERE variant = ?", (v.name,)))
        final = np.array(db.fetchall("SELECT delta, o, best FROM rolled_ones_p_exceed WHERE variant = ? ORDER BY delta, o", (v.name,)), dtype=object)
        seat = db.fetchall("SELECT policy, seat, p_win FROM rolled_ones_seat_win_rates WHERE variant = ?", (v.name,))
    G, K, L = v.goal, v.turn_total_bound, v.ones_limit
    acts = np.full((1 + len(POLICY_NAMES), 2, G, G, K + 1, L), -1, dtype=np.int8)
    p, i, j, k, o = (rows[:, c].astype(int) for c in range(5))
    for q in range(1 + len(POLICY_NAMES)):
        acts[q, p - 1, i, j, k, o] = rows[:, 5 + q]
    fin = np.zeros((G + K + 1, L), dtype=bool)  # [delta + 1, o]
    for delta, oo, best in final:
        fin[int(delta) + 1, int(oo)] = best == "roll"
    return v, acts, fin, {(pol, s): w for pol, s, w in seat}


def _play(v, acts, fin, seat_policy, rng):
    """Play games to the end; ``seat_policy[g, s]`` is the policy index of seat s + 1. Returns the winning seat."""
    from dicebase.builder.rolled_ones.policies import POLICIES, decide

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
