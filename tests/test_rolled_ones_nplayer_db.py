"""N-player Great Rolled Ones in the database (issue 21, phase 2): the tables the build writes, the
lookups computed from them, the CLI, the HTTP API and the aggregates.

Built at goal 20 with seed 002's dice (a few seconds): its 3-player game has the same four cycle
tuples as goal 50, shifted by 30 ((3, 5, 9) at goal 20 is (33, 35, 39) at goal 50)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

import dicebase
from dicebase.builder.rolled_ones import nplayer
from dicebase.query.base import BadInput, NotInDatabase
from dicebase.rules import rolled_ones as rules_module
from dicebase.rules.rolled_ones import Rules, nplayer_rules, reachable_turns

GOAL = 20
#: shared with tests/test_rolled_ones_nplayer_final.py (one build per store): the human policies against the stored
#: equilibrium for 2 and 3 players, against best responses for 2
OPTIONS = {"rolled_ones": {"goal": GOAL, "players": [2, 3], "policy_players": [2, 3],
                           "policy_best_response_players": [2]}}
VARIANT = f"goal{GOAL}-dice5-ones3"
#: a cycle tuple at goal 20 and its stored mixed equilibrium (docs/n_players.md: (33, 35, 39) at goal 50)
CYCLE = (3, 5, 9)


@pytest.fixture(scope="module")
def paths(built_db):
    return {kind: built_db(("rolled_ones",), kind, OPTIONS) for kind in ("duckdb", "sqlite")}


@pytest.fixture(scope="module")
def solution():
    return nplayer.solve(nplayer_rules(Rules(goal=GOAL), 3), 3)


def _json(run_cli, *args):
    code, out, err = run_cli(["rolled-ones", *args, "--json"])
    assert code == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------- the rules and options
def test_options_and_constants_live_in_the_rules():
    assert nplayer.TIE_TOLERANCE is rules_module.TIE_TOLERANCE
    assert nplayer.rules_for is rules_module.rules_for
    assert rules_module.DEFAULT_OPTIONS["players"] == [2, 3]
    assert rules_module.player_counts({"players": [3, 2]}) == (2, 3)
    assert rules_module.player_counts({"players": 3}) == (3,)
    assert nplayer_rules(Rules(), 3).turn_total_bound == 80 and nplayer_rules(Rules(), 4).turn_total_bound == 100
    base = {k: v for k, v in rules_module.DEFAULT_OPTIONS.items()}
    rules_module.validate_options({**base, "players": [2, 3, 4]})  # 4 players at goal 50 may be built
    for bad in ([5], [2, 2], "3", [True], [2.0]):
        with pytest.raises(ValueError, match="rolled-ones.players"):
            rules_module.validate_options({**base, "players": bad})
    with pytest.raises(rules_module.SizeLimit if hasattr(rules_module, "SizeLimit") else ValueError, match="4 players"):
        rules_module.validate_options({**base, "goal": 60, "turn_total_bound": 90, "players": [4]})
    # the human-policy costs: against the stored equilibrium for 2 and 3 players, against best responses for 2;
    # left at their defaults they follow players, set they must be built
    assert rules_module.policy_player_counts(base) == (2, 3)
    assert rules_module.policy_player_counts(base, "best_response") == (2,)
    assert rules_module.policy_player_counts({**base, "players": [2]}) == (2,)
    assert rules_module.policy_player_counts({**base, "players": [4]}, "best_response") == ()
    with pytest.raises(ValueError, match="policy_best_response_players lists 3 players"):
        rules_module.validate_options({**base, "players": [2], "policy_best_response_players": [3]})
    with pytest.raises(ValueError, match="at most 3 players"):
        rules_module.validate_options({**base, "players": [2, 3, 4], "policy_players": [2, 4]})


# --------------------------------------------------------------------------- the tables
def test_two_players_equal_the_two_player_table(paths):
    """N = 2: every stored turn start equals today's rolled_ones_states (within 1e-12), both seats."""
    with dicebase.open(paths["duckdb"]) as db:
        rows = db.fetchall(
            "SELECT t.seat, t.p_win1, t.p_win2, t.p_win3, t.p_win4, s.p_win FROM rolled_ones_turn_starts t "
            "JOIN rolled_ones_states s ON s.variant = t.variant AND s.p = t.seat AND s.k = 0 AND s.o = 0 "
            "AND s.i = CASE WHEN t.seat = 1 THEN t.score1 ELSE t.score2 END "
            "AND s.j = CASE WHEN t.seat = 1 THEN t.score2 ELSE t.score1 END "
            "WHERE t.variant = ? AND t.players = 2", (VARIANT,))
    assert len(rows) == 2 * GOAL * GOAL
    for seat, w1, w2, w3, w4, p in rows:
        mover = w1 if seat == 1 else w2
        assert abs(mover - p) <= 1e-12 and abs(w1 + w2 - 1.0) <= 1e-12 and w3 == w4 == 0.0


def test_three_players_equal_the_solver(paths, solution):
    for kind, path in paths.items():
        with dicebase.open(path) as db:
            rows = db.fetchall("SELECT seat, score1, score2, score3, p_win1, p_win2, p_win3 FROM rolled_ones_turn_starts "
                               "WHERE variant = ? AND players = 3 ORDER BY seat, score1, score2, score3", (VARIANT,))
            stored = np.array([r[4:] for r in rows])
            keys = np.array([r[:4] for r in rows])
            assert len(rows) == 3 * GOAL**3
            expected = solution.start.transpose(1, 0, 2).reshape(-1, 3)
            assert np.array_equal(stored, expected), kind
            assert keys[GOAL**3][0] == 2 and tuple(keys[GOAL**3 + 1][1:]) == (0, 0, 1)
            meta = db.fetchone("SELECT turn_total_bound, score_cap, tie_tolerance, cycle_tuples, mixed_tuples "
                               "FROM rolled_ones_players WHERE variant = ? AND players = 3", (VARIANT,))
            assert meta == (80, 100, 1e-12, 4, 4)
            cycles = db.fetchall("SELECT score1, score2, score3, kind FROM rolled_ones_cycle_tuples WHERE variant = ? "
                                 "AND players = 3 ORDER BY score1, score2, score3", (VARIANT,))
            assert [tuple(c[:3]) for c in cycles] == sorted(tuple(r["scores"]) for r in solution.mixed)
            assert {c[3] for c in cycles} == {"mixed"}
            assert db.fetchone("SELECT count(*) FROM rolled_ones_mixing WHERE variant = ? AND players = 3",
                               (VARIANT,))[0] == 8  # two seats randomise at one decision each, in each tuple


def test_build_metadata_lists_the_cycle_tuples(paths):
    with dicebase.open(paths["duckdb"]) as db:
        notes = next(g for g in db.info()["games"] if g["game"] == "rolled_ones")["notes"]
    three = notes[f"{VARIANT}.players3"]
    assert three["cycle_tuples"] == 4 and len(three["cycles"]) == 4
    assert [3, 5, 9] in [c["scores"] for c in three["cycles"]]
    assert notes[f"{VARIANT}.players2"]["cycle_tuples"] == 0


# --------------------------------------------------------------------------- lookups
def _sample_states(n: int, seed: int = 21):
    rnd = random.Random(seed)
    turns = sorted(reachable_turns(nplayer_rules(Rules(goal=GOAL), 3)))
    states = [(CYCLE, 0, 7, 2), (CYCLE, 1, 7, 2), (CYCLE, 2, 0, 0), ((17, 19, 1), 1, 4, 1), ((19, 19, 19), 2, 80, 2),
              ((0, 0, 0), 0, 0, 0), ((18, 2, 5), 0, 35, 1)]
    while len(states) < n:
        states.append((tuple(rnd.randrange(GOAL) for _ in range(3)), rnd.randrange(3), *rnd.choice(turns)))
    return states


def test_mid_turn_lookups_equal_the_solvers_turn_values(paths, solution):
    with dicebase.open(paths["duckdb"]) as db:
        for scores, m, k, o in _sample_states(80):
            tv = solution.turn_values(scores, m)
            got = db.rolled_ones.n.best(list(scores), m + 1, k, o)
            assert np.max(np.abs(np.array(got.p_wins) - tv["p_win"][k, o])) <= 1e-12, (scores, m, k, o)
            roll = next(a for a in got.actions if a.action == "roll")
            assert np.max(np.abs(np.array(roll.p_wins) - tv["p_roll"][k, o])) <= 1e-12
            assert got.roll_probability == tv["roll"][k, o]
            if k:
                hold = next(a for a in got.actions if a.action == "hold")
                assert np.max(np.abs(np.array(hold.p_wins) - tv["p_hold"][k])) <= 1e-12
            else:
                assert [a.action for a in got.actions] == ["roll"]  # holding at 0 is not allowed
            assert abs(sum(got.p_wins) - 1.0) <= 1e-12
        assert all(db.rolled_ones.blocks.located().values())  # read by position, every key checked
        assert db.rolled_ones.misplaced == []


def test_duckdb_and_sqlite_answer_alike(paths):
    with dicebase.open(paths["duckdb"]) as duck, dicebase.open(paths["sqlite"]) as lite:
        for scores, m, k, o in _sample_states(25, seed=5):
            a = duck.rolled_ones.n.best(list(scores), m + 1, k, o).as_dict()
            b = lite.rolled_ones.n.best(list(scores), m + 1, k, o).as_dict()
            assert a == b, (scores, m, k, o)
        assert [s.as_dict() for s in duck.rolled_ones.seats()] == [s.as_dict() for s in lite.rolled_ones.seats()]
        assert duck.rolled_ones.compensation(3).as_dict() == lite.rolled_ones.compensation(3).as_dict()
        # a two-player state answers the same through either table
        two = duck.rolled_ones.n.best([12, 7], 2, 9, 1)
        assert abs(two.p_win - duck.rolled_ones.best(2, 7, 12, 9, 1).p_win) <= 1e-12


def test_the_cycle_flag_shows(paths, run_cli):
    db = str(paths["duckdb"])
    doc = _json(run_cli, "best", "--scores", "3,5,9", "--player", "1", "--turn-total", "7", "--ones", "2", "--db", db)
    assert doc["cycle_tuple"] is True and doc["best"] == "mixed"
    assert abs(doc["roll_probability"] - 0.9613) < 1e-4
    assert {(r["seat"], r["turn_total"], r["ones"]) for r in doc["cycle"]["randomising"]} == {(1, 7, 2), (2, 7, 2)}
    assert len(doc["p_wins"]) == 3 and {a["action"] for a in doc["actions"]} == {"roll", "hold"}
    # the mover is indifferent where it randomises
    assert abs(doc["actions"][0]["p_win"] - doc["actions"][1]["p_win"]) <= 1e-12
    code, out, _ = run_cli(["rolled-ones", "best", "--scores", "3,5,9", "--player", "3", "--turn-total", "0",
                            "--ones", "0", "--db", db])
    assert code == 0 and "cycle tuple: best responses cycle" in out and "seat 2 rolls at (7, 2)" in out
    plain = _json(run_cli, "best", "--scores", "3,5,8", "--player", "1", "--turn-total", "7", "--ones", "2", "--db", db)
    assert plain["cycle_tuple"] is False and plain["cycle"] is None and plain["best"] in ("roll", "hold")


@pytest.mark.parametrize("args, text", [
    (["--scores", "3,5,x", "--player", "1"], "scores must be whole numbers"),
    (["--scores", "3", "--player", "1"], "scores must name 2 to 4 seats"),
    (["--scores", "3,5,9,1,2", "--player", "1"], "scores must name 2 to 4 seats"),
    (["--scores", "3,5,9", "--player", "4"], "player must be 1..3"),
    (["--scores", "3,5,9", "--player", "0"], "player must be 1..3"),
    (["--scores", "3,5,20", "--player", "1"], "seat 3's score must be 0..19"),
    (["--scores", "3,5,9,1", "--player", "1"], "4 players are not built"),
    (["--scores", "3,5,9", "--score", "3", "--player", "1"], "not both"),
    (["--player", "1"], "give --score and --opponent"),
])
def test_bad_input_is_one_line_exit_2(paths, run_cli, args, text):
    code, out, err = run_cli(["rolled-ones", "best", *args, "--turn-total", "0", "--ones", "0",
                              "--db", str(paths["duckdb"])])
    assert code == 2 and out == "" and text in err and len(err.strip().splitlines()) == 1, err
    if "not built" in text:
        assert "dicebase build rolled-ones" in err and "rolled-ones.players=[2,3,4]" in err and "--force" in err


def test_bad_input_in_the_python_api(paths):
    with dicebase.open(paths["duckdb"]) as db:
        q = db.rolled_ones
        for call in (lambda: q.best("1,2,3", 1, 3, 0), lambda: q.best([1, 2, 3], 1, 999, 0),
                     lambda: q.best([1, 2, 3], 1, 0, 3), lambda: q.best(None, 1), lambda: q.best([1, 2.5], 1),
                     lambda: q.seats(7), lambda: q.compensation("3")):
            with pytest.raises(BadInput):
                call()
        with pytest.raises(NotInDatabase, match="rebuild with"):
            q.compensation(4)


def test_http_equals_the_cli(paths, run_cli):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from dicebase.web.app import create_app

    db = str(paths["duckdb"])
    cli = _json(run_cli, "best", "--scores", "3,5,9", "--player", "2", "--turn-total", "7", "--ones", "2", "--db", db)
    seats = _json(run_cli, "seats", "--players", "3", "--db", db)
    with TestClient(create_app(dicebase.open(paths["duckdb"]))) as client:
        got = client.get("/api/v1/rolled-ones/best?scores=3,5,9&player=2&turn_total=7&ones=2")
        assert got.status_code == 200, got.text
        assert got.json() == cli
        assert client.get("/api/v1/rolled-ones/seats?players=3").json() == seats
        bad = client.get("/api/v1/rolled-ones/best?scores=3,5,9&player=5&turn_total=7&ones=2")
        assert bad.status_code == 400


# --------------------------------------------------------------------------- aggregates
def test_seats_and_compensation(paths, run_cli, solution):
    db = str(paths["duckdb"])
    seats = _json(run_cli, "seats", "--db", db)
    three = [r for r in seats if r["players"] == 3]
    assert [r["p_win"] for r in three] == [float(x) for x in solution.start_at((0, 0, 0))[0]]
    assert abs(sum(r["p_win"] for r in three) - 1.0) <= 1e-12
    assert three[0]["p_win"] < three[1]["p_win"] < three[2]["p_win"]  # the last seat's advantage
    comp = _json(run_cli, "compensation", "--players", "3", "--db", db)
    assert min(comp["scores"]) == 0 and comp["deviation"] < comp["uncompensated_deviation"]
    # the view's answer is the least largest deviation over every compensated start, seat 1 to move
    n = 3
    best = min(
        max(abs(x - 1 / n) for x in solution.start_at(s)[0])
        for s in np.ndindex(GOAL, GOAL, GOAL) if min(s) == 0
    )
    assert abs(comp["deviation"] - best) <= 1e-15
    assert np.allclose(solution.start_at(tuple(comp["scores"]))[0], comp["p_wins"], atol=1e-15, rtol=0)


def test_the_n_player_lookup_loads_no_numpy(paths, tmp_path):
    probe = ("import sys\nfrom dicebase.main import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('HEAVY', sorted(m for m in sys.modules if m == 'numpy' or m.startswith('dicebase.builder')))\n")
    out = subprocess.run([sys.executable, "-c", probe, "rolled-ones", "best", "--scores", "3,5,9", "--player", "1",
                          "--turn-total", "7", "--ones", "2", "--db", str(paths["duckdb"])],
                         capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out and "mixed" in out
