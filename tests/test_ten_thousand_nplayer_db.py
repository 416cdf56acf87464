"""N-player 10,000 in the database (issue 21, phase 4): the tables the build writes, the lookups computed
from them (below the goal and on final turns), the CLI, the HTTP API and the aggregates.

Built for the ten-thousand preset to 250 points with 2 and 3 players (a few seconds; the SQLite store is the
DuckDB build exported, so the game is solved once): its 3-player game has
the two cycle classes of docs/n_players.md ((6, 6, 8) and (7, 7, 9) units at goal 500 are (1, 1, 3) and
(2, 2, 4) at goal 250: the cycle depends on the distances to the goal), in which two seats randomise at a
turn total of 1,200 with one die and a standing triple of 4s."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

import dicebase
from dicebase.builder.ten_thousand import nplayer
from dicebase.query.base import BadInput, NotInDatabase
from dicebase.rules import SizeLimit
from dicebase.rules import ten_thousand as rules_module
from dicebase.rules.ten_thousand import TEN_THOUSAND

GOAL = 250
U = TEN_THOUSAND.unit
OPTIONS = {"ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": GOAL, "players": [2, 3]}}
CYCLE = (50, 50, 150)  # a cycle tuple (points) with its stored mixed equilibrium
MIX_STATE = dict(turn_total=1200, dice=1, triple=4)


@pytest.fixture(scope="module")
def paths(built_db, tmp_path_factory):
    """The DuckDB build and its SQLite export (the build's own bulk writers, the schema and metadata of a SQLite
    build: dicebase/builder/export.py), so the solve runs once."""
    from dicebase.builder.export import export

    duck = built_db(("ten_thousand",), "duckdb", OPTIONS)
    lite = tmp_path_factory.mktemp("nplayer") / "ten_thousand.sqlite"
    with dicebase.open(duck) as db:
        export(db, "sqlite", lite)
    return {"duckdb": duck, "sqlite": lite}


@pytest.fixture(scope="module")
def solution():
    return nplayer.solve(TEN_THOUSAND, 3, GOAL)


def _json(run_cli, *args):
    code, out, err = run_cli(["ten-thousand", *args, "--json"])
    assert code == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------- the rules and options
def test_options_and_constants_live_in_the_rules():
    from dicebase.query.ten_thousand import nplayer as lookups
    from dicebase.schema import ten_thousand as schema

    assert nplayer.TIE_TOLERANCE is rules_module.TIE_TOLERANCE
    assert nplayer.keep_priority is rules_module.keep_priority
    assert schema.NP_MAX_PLAYERS == rules_module.MAX_PLAYERS
    assert rules_module.DEFAULT_OPTIONS["players"] == []  # not in the default build
    assert rules_module.player_counts({"players": [4, 3]}) == (3, 4)
    assert rules_module.player_counts({"players": 3}) == (3,)
    base = {k: v for k, v in rules_module.DEFAULT_OPTIONS.items() if k != "house_rules"}
    rules_module.validate_options({**base, "goal": 1000, "players": [3]})
    for bad in ([5], [3, 3], "3", [True], [3.0]):
        with pytest.raises(ValueError, match="ten-thousand.players"):
            rules_module.validate_options({**base, "goal": 1000, "players": bad})
    with pytest.raises(SizeLimit, match="3 players to 3000 points need 648,000 turn starts"):
        rules_module.validate_options({**base, "goal": 3000, "players": [3]})
    with pytest.raises(ValueError, match="below its opening minimum 500"):
        rules_module.validate_options({**base, "goal": 450, "rules": ["farkle"], "duel_rules": ["farkle"],
                                       "players": [3]})
    # the lookups' roll groups and keep order are the solver's (built from the rules alone, no numpy)
    mv, qm = nplayer.moves(TEN_THOUSAND), lookups.moves(TEN_THOUSAND)
    assert [p for _, gs in qm.groups for p, _ in gs] == mv.gp.tolist()
    assert [p for _, gs in qm.groups for _, o in gs for p, _ in o] == mv.op.tolist()
    assert [c for _, gs in qm.groups for _, o in gs for _, c in o] == mv.ost.tolist()
    assert list(qm.pf) == mv.pf.tolist()


def test_size_refusal_is_one_line(run_cli, tmp_path):
    code, out, err = run_cli(["build", "ten-thousand", "--db", str(tmp_path / "x.duckdb"),
                              "-o", "ten-thousand.goal=3000", "-o", "ten-thousand.players=3"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--force-size" in err and "648,000" in err, err


# --------------------------------------------------------------------------- the tables
def test_two_players_equal_the_two_player_table(paths):
    """N = 2: every stored turn start equals the two-player solve's (ten_thousand_duel_bounds.p_start)."""
    with dicebase.open(paths["duckdb"]) as db:
        rows = db.fetchall(
            "SELECT t.seat, t.p_win1, t.p_win2, t.p_win3, t.p_win4, b.p_start FROM ten_thousand_turn_starts t "
            "JOIN ten_thousand_duel_bounds b ON b.rules = t.rules AND b.goal = t.goal "
            "AND b.score = CASE WHEN t.seat = 1 THEN t.score1 ELSE t.score2 END "
            "AND b.opponent = CASE WHEN t.seat = 1 THEN t.score2 ELSE t.score1 END "
            "WHERE t.rules = 'ten-thousand' AND t.players = 2")
    G = GOAL // U
    assert len(rows) == 2 * G * G
    for seat, w1, w2, w3, w4, p in rows:
        assert abs((w1 if seat == 1 else w2) - p) <= 1e-12 and abs(w1 + w2 - 1.0) <= 1e-12 and w3 == w4 == 0.0


def test_three_players_equal_the_solver(paths, solution):
    G = GOAL // U
    for kind, path in paths.items():
        with dicebase.open(path) as db:
            rows = db.fetchall("SELECT seat, score1, score2, score3, p_win1, p_win2, p_win3, kmax FROM "
                               "ten_thousand_turn_starts WHERE players = 3 ORDER BY seat, score1, score2, score3")
            assert len(rows) == 3 * G**3
            assert np.array_equal(np.array([r[4:7] for r in rows]), solution.start.transpose(1, 0, 2).reshape(-1, 3))
            assert np.array_equal(np.array([r[7] for r in rows]), solution.kmax.T.reshape(-1) * U)
            final = db.fetchall("SELECT later, gap2, deficit, p_leader, p_later1, p_later2 FROM ten_thousand_final_round "
                                "WHERE players = 3 AND later = 2 AND deficit > 0 AND deficit + gap2 > 0")
            for later, gap2, d, *phi in final[::97]:
                assert np.array_equal(phi, nplayer.final_start(solution.spec, solution.finals, G + 400,
                                                               [G + 400 - d // U, G + 400 - (d + gap2) // U]))
            meta = db.fetchone("SELECT tie_tolerance, cycle_tuples, mixed_tuples, unproven_tuples, deficits1 "
                               "FROM ten_thousand_players WHERE players = 3")
            assert meta == (1e-12, 6, 6, 0, len(solution.finals.pexc))
            cycles = db.fetchall("SELECT score1, score2, score3, kind, randomising_seats FROM ten_thousand_cycle_tuples "
                                 "WHERE players = 3 ORDER BY score1, score2, score3")
            rotations = sorted({tuple(x * U for x in r["scores"][i:] + r["scores"][:i])
                                for r in solution.mixed for i in range(3)})
            assert [tuple(c[:3]) for c in cycles] == rotations and {c[3:] for c in cycles} == {("mixed", 2)}
            mix = db.fetchall("SELECT seat, turn_total, dice, triple, decision, probability FROM ten_thousand_mixing "
                              "WHERE players = 3 AND score1 = ? AND score2 = ? AND score3 = ?", CYCLE)
            assert sorted((s, k, n, t, d) for s, k, n, t, d, _ in mix) == [(1, 1200, 1, 4, "roll"), (2, 1200, 1, 4, "roll")]
            assert all(0.0 < p < 1.0 for *_, p in mix)  # both seats mix: no pure equilibrium


def test_build_metadata_lists_the_cycles_and_caps(paths):
    with dicebase.open(paths["duckdb"]) as db:
        notes = next(g for g in db.info()["games"] if g["game"] == "ten_thousand")["notes"]
    three = notes["ten-thousand.players3"]
    assert three["cycle_tuples"] == 2 and three["mixed_tuples"] == 2 and three["unproven_tuples"] == 0
    assert three["tie_tolerance"] == 1e-12 and three["turn_total_margin_points"] > 0
    assert three["final_bank_margin_points"] > 0 and "more points" in three["keep_tie_break"]
    assert [50, 50, 150] in [c["scores"] for c in three["cycles"]]
    assert notes["ten-thousand.players2"]["cycle_tuples"] == 0


def test_roll_groups_are_the_rules(paths, tmp_path):
    """ten_thousand_roll_groups (written with the N-player tables, read by the lookups once per connection) holds
    the rules' roll groups and keeps in tie-break order; a file without it answers the same from the rules."""
    import shutil
    import sqlite3

    from dicebase.query.ten_thousand import nplayer as lookups

    for path in paths.values():
        with dicebase.open(path) as db:
            rows = db.fetchall("SELECT dice, triple, roll_group, keep, probability, points, dice_after, triple_after "
                               "FROM ten_thousand_roll_groups WHERE rules = 'ten-thousand' "
                               "ORDER BY dice, triple, roll_group, keep")
            assert lookups.moves_from_rows(TEN_THOUSAND, rows) == lookups.moves(TEN_THOUSAND)
            assert db.ten_thousand.n.moves(TEN_THOUSAND) == lookups.moves(TEN_THOUSAND)
            assert sum(1 for r in rows if r[2] == -1) == len(lookups.moves(TEN_THOUSAND).states)  # a farkle row each
    older = tmp_path / "older.sqlite"
    shutil.copy(paths["sqlite"], older)
    with sqlite3.connect(older) as con:
        con.execute("DROP TABLE ten_thousand_roll_groups")
    args = ([300, 50, 150], 2, 300, 3, 0)
    with dicebase.open(paths["sqlite"]) as db, dicebase.open(older) as old:
        assert old.ten_thousand.n.state(*args).as_dict() == db.ten_thousand.n.state(*args).as_dict()
        assert (old.ten_thousand.n.best([1, 5, 5, 2, 3, 4], [300, 50, 150], 2, 0).as_dict()
                == db.ten_thousand.n.best([1, 5, 5, 2, 3, 4], [300, 50, 150], 2, 0).as_dict())


def test_a_turn_remembered_answers_as_a_new_one(paths):
    """A connection remembers the turns it computed: the states of a turn asked in any order (a later total
    first, then the turn extended down to an earlier one; keeps and pre-roll states) equal a fresh connection's
    answers, bit for bit, and the cycle tuple's mixed turn too."""
    asks = [("state", ([100, 50, 0], 3, 600, 2, 0)), ("best", ([1, 5, 2, 2, 3, 6], [100, 50, 0], 3, 300)),
            ("state", ([100, 50, 0], 3, 0, 6, 0)), ("state", ([100, 50, 0], 3, 300, 3, 0)),
            ("state", (list(CYCLE), 1, 1200, 1, 4)), ("state", (list(CYCLE), 1, 0, 6, 0)),
            ("best", ([1, 5, 5, 2, 3, 3], list(CYCLE), 1, 1100)),
            ("state", ([300, 100, 50], 2, 600, 4, 0)), ("state", ([300, 100, 50], 2, 0, 6, 0))]  # a final turn

    def answer(db, verb, args):
        return (db.ten_thousand.n.state(*args) if verb == "state" else db.ten_thousand.n.best(*args)).as_dict()

    with dicebase.open(paths["duckdb"]) as db:
        remembered = [answer(db, verb, args) for verb, args in asks]
        again = [answer(db, verb, args) for verb, args in reversed(asks)][::-1]
    fresh = []
    for verb, args in asks:
        with dicebase.open(paths["duckdb"]) as db:
            fresh.append(answer(db, verb, args))
    assert remembered == fresh == again


# --------------------------------------------------------------------------- lookups
def _mid_turn_states(n: int, seed: int = 21):
    mv = nplayer.moves(TEN_THOUSAND)
    reach = nplayer.reach_mask(TEN_THOUSAND, 200)
    rnd = random.Random(seed)
    G = GOAL // U
    states = [((1, 1, 3), 0, 24, mv.states.index((1, 4))), ((1, 1, 3), 1, 24, mv.states.index((1, 4))),
              ((0, 0, 0), 0, 0, 0), ((4, 4, 4), 2, 0, 0), ((2, 0, 3), 1, 6, mv.states.index((3, 0)))]
    while len(states) < n:
        units, m = tuple(rnd.randrange(G) for _ in range(3)), rnd.randrange(3)
        k, c = rnd.choice([(k, c) for k, c in zip(*np.nonzero(reach[:60])) if mv.states[c][0] > 0])
        states.append((units, m, int(k), int(c)))
    return states


def test_mid_turn_lookups_equal_the_solvers_turn_values(paths, solution):
    mv = nplayer.moves(TEN_THOUSAND)
    with dicebase.open(paths["duckdb"]) as db:
        for units, m, k, c in _mid_turn_states(11):
            tv = solution.turn_values(units, m)
            if k >= tv["roll"].shape[0]:
                continue  # past the turn's kmax: banking is proven optimal there
            n, t = mv.states[c]
            got = db.ten_thousand.n.state([x * U for x in units], m + 1, k * U, n, t)
            assert np.max(np.abs(np.array(got.p_wins) - tv["p_win"][k, c])) <= 1e-12, (units, m, k, c)
            roll = next(a for a in got.actions if a.action == "roll")
            assert np.max(np.abs(np.array(roll.p_wins) - tv["p_roll"][k, c])) <= 1e-12
            assert got.roll_probability == tv["roll"][k, c]
            if k:
                bank = next(a for a in got.actions if a.action == "bank")
                assert np.max(np.abs(np.array(bank.p_wins) - tv["p_bank"][k])) <= 1e-12
            else:
                assert [a.action for a in got.actions] == ["roll"]  # banking at 0 is not allowed
            assert abs(sum(got.p_wins) - 1.0) <= 1e-12
        # a roll's keeps: each keep's win vector is the pre-roll value it leads to
        tv = solution.turn_values((1, 1, 3), 0)
        best = db.ten_thousand.n.best([1, 5, 5, 2, 3, 3], list(CYCLE), 1, 1100)
        for a in best.actions:
            c2 = mv.states.index((a.dice_after, a.triple_after))
            assert np.max(np.abs(np.array(a.p_wins) - tv["p_win"][22 + a.points // U, c2])) <= 1e-12
        assert best.actions[0].probability == 1.0 and best.p_win == max(a.p_win for a in best.actions)
        assert all(db.ten_thousand.blocks.located().values())  # read by position, every key checked
        assert db.ten_thousand.misplaced == []


FINAL_CASES = [((6, 2, 1), 1), ((6, 2, 1), 2), ((2, 9, 1), 0), ((2, 9, 1), 2), ((12, 3, 4), 1), ((3, 4, 7), 1)]


def test_final_turn_lookups_equal_the_solvers_final_turn_values(paths, solution):
    mv = nplayer.moves(TEN_THOUSAND)
    G = GOAL // U
    with dicebase.open(paths["duckdb"]) as db:
        for units, m in FINAL_CASES:
            X = max(units)
            later = []
            for j in range(1, 3):
                if units[(m + j) % 3] >= G:
                    break
                later.append(units[(m + j) % 3])
            ftv = nplayer.final_turn_values(solution.spec, solution.finals, X, units[m], later)
            # a turn start, the bar itself (must roll), above the bar (a turn reaches one die and a triple of 4s
            # with 500 or more)
            for k, c in ((0, 0), (X - units[m], mv.states.index((3, 0))),
                         (max(X - units[m] + 2, 10), mv.states.index((1, 4)))):
                n, t = mv.states[c]
                got = db.ten_thousand.n.state([x * U for x in units], m + 1, k * U, n, t)
                roles = ftv["p_win"][units[m] + k, c]
                expected = [0.0] * 3
                expected[units.index(X)] = roles[0]
                expected[m] = roles[1]
                for j, x in enumerate(roles[2:], start=1):
                    expected[(m + j) % 3] = x
                assert got.final_turn and got.bar == X * U
                assert np.max(np.abs(np.array(got.p_wins) - expected)) <= 1e-12, (units, m, k, c)
                assert (got.best == "roll") == bool(ftv["roll"][units[m] + k, c])
                assert [a.action for a in got.actions] == (["roll"] if k <= X - units[m] else
                                                           [got.best, ({"roll", "bank"} - {got.best}).pop()])


def test_duckdb_and_sqlite_answer_alike(paths):
    with dicebase.open(paths["duckdb"]) as duck, dicebase.open(paths["sqlite"]) as lite:
        for units, m, k, c in _mid_turn_states(4, seed=5):
            n, t = nplayer.moves(TEN_THOUSAND).states[c]
            args = ([x * U for x in units], m + 1, k * U, n, t)
            assert duck.ten_thousand.n.state(*args).as_dict() == lite.ten_thousand.n.state(*args).as_dict(), args
        args = ([1, 5, 5, 2, 3, 3], [300, 50, 150], 2, 300)
        assert duck.ten_thousand.n.best(*args).as_dict() == lite.ten_thousand.n.best(*args).as_dict()
        assert [s.as_dict() for s in duck.ten_thousand.seats()] == [s.as_dict() for s in lite.ten_thousand.seats()]
        assert duck.ten_thousand.compensation(3).as_dict() == lite.ten_thousand.compensation(3).as_dict()
        # a two-player state answers the same through either table
        two = duck.ten_thousand.n.state([100, 50], 2, 0, 6)
        assert abs(two.p_win - duck.ten_thousand.state(50, 100, 0, 6).p_win) <= 1e-12


def test_the_cycle_flag_shows(paths, run_cli):
    db = str(paths["duckdb"])
    doc = _json(run_cli, "state", "--scores", "50,50,150", "--player", "1", "--turn-total", "1200", "--dice", "1",
                "--triple", "4", "--db", db)
    assert doc["cycle_tuple"] is True and doc["best"] == "mixed"
    assert abs(doc["roll_probability"] - 0.8510) < 1e-4  # docs/n_players.md: 0.851 and 0.113
    assert {(r["seat"], r["turn_total"]) for r in doc["cycle"]["randomising"]} == {(1, 1200), (2, 1200)}
    assert len(doc["p_wins"]) == 3 and [a["action"] for a in doc["actions"]] == ["roll", "bank"]
    assert abs(doc["actions"][0]["p_win"] - doc["actions"][1]["p_win"]) <= 1e-12  # indifferent where it mixes
    code, out, _ = run_cli(["ten-thousand", "state", "--scores", "50,50,150", "--player", "3", "--turn-total", "0",
                            "--dice", "6", "--db", db])
    assert code == 0 and "cycle tuple: best responses cycle" in out and "seat 2 rolls at (1200" in out
    plain = _json(run_cli, "state", "--scores", "50,100,150", "--player", "1", "--turn-total", "1200", "--dice", "1",
                  "--triple", "4", "--db", db)
    assert plain["cycle_tuple"] is False and plain["best"] in ("roll", "bank")


@pytest.mark.parametrize("args, text", [
    (["state", "--scores", "50,x,0", "--player", "1"], "scores must be whole numbers"),
    (["state", "--scores", "50", "--player", "1"], "scores must name 2 to 4 seats"),
    (["state", "--scores", "50,60,0", "--player", "1"], "seat 2's score must be a multiple of 50"),
    (["state", "--scores", "50,50,150", "--player", "4"], "player must be 1..3"),
    (["state", "--scores", "50,50,150", "--player", "1", "--score", "50"], "not both"),
    (["state", "--scores", "50,50,150"], "give --player K"),
    (["state", "--player", "1"], "--player goes with --scores"),
    (["state"], "give --score and --opponent"),
    (["state", "--scores", "50,50,150,0", "--player", "1"], "4 players are not built"),
    (["state", "--scores", "300,50,150", "--player", "1"], "the seat to move (seat 1) must be below the goal"),
    (["state", "--scores", "300,300,0", "--player", "3"], "the highest score is one seat's"),
    (["best", "1", "5", "--scores", "50,50,150", "--player", "0"], "player must be 1..3"),
])
def test_bad_input_is_one_line_exit_2(paths, run_cli, args, text):
    extra = ["--turn-total", "0"] + (["--dice", "6"] if args[0] == "state" else [])
    code, out, err = run_cli(["ten-thousand", *args, *extra, "--db", str(paths["duckdb"])])
    assert code == 2 and out == "" and text in err and len(err.strip().splitlines()) == 1, err
    if "not built" in text:
        assert "dicebase build ten-thousand" in err and "ten-thousand.players=[2,3,4]" in err


def test_bad_input_in_the_python_api(paths):
    with dicebase.open(paths["duckdb"]) as db:
        q = db.ten_thousand
        for call in (lambda: q.n.state("1,2,3", 1), lambda: q.n.state([0, 0, 0], 1, 70, 6),
                     lambda: q.n.state([0, 0, 0], 1, 0, 7), lambda: q.n.state(None, 1), lambda: q.n.state([0, 2.5], 1),
                     lambda: q.n.best("15", [0, 0, 0], 1), lambda: q.n.best([1, 9], [0, 0, 0], 1),
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
    state = _json(run_cli, "state", "--scores", "50,50,150", "--player", "2", "--turn-total", "1200", "--dice", "1",
                  "--triple", "4", "--db", db)
    best = _json(run_cli, "best", "1", "5", "5", "2", "3", "4", "--scores", "300,50,150", "--player", "2",
                 "--turn-total", "0", "--db", db)
    comp = _json(run_cli, "compensation", "--players", "3", "--db", db)
    with TestClient(create_app(dicebase.open(paths["duckdb"]))) as client:
        got = client.get("/api/v1/ten-thousand/state?scores=50,50,150&player=2&turn_total=1200&dice=1&triple=4")
        assert got.status_code == 200, got.text
        assert got.json() == state
        assert client.get("/api/v1/ten-thousand/best?dice=1,5,5,2,3,4&scores=300,50,150&player=2&turn_total=0").json() == best
        assert client.get("/api/v1/ten-thousand/compensation?players=3").json() == comp
        assert client.get("/api/v1/ten-thousand/state?scores=50,50,150&player=5&turn_total=0&dice=6").status_code == 400


# --------------------------------------------------------------------------- aggregates
def test_seats_and_compensation(paths, run_cli, solution):
    db = str(paths["duckdb"])
    three = [r for r in _json(run_cli, "seats", "--db", db) if r["players"] == 3]
    assert [r["p_win"] for r in three] == [float(x) for x in solution.start_at((0, 0, 0))[0]]
    assert abs(sum(r["p_win"] for r in three) - 1.0) <= 1e-12
    comp = _json(run_cli, "compensation", "--players", "3", "--db", db)
    assert min(comp["scores"]) == 0 and comp["deviation"] < comp["uncompensated_deviation"]
    # the view's answer is the least largest deviation over every compensated start, seat 1 to move
    G = GOAL // U
    best = min(max(abs(x - 1 / 3) for x in solution.start_at(s)[0]) for s in np.ndindex(G, G, G) if min(s) == 0)
    assert abs(comp["deviation"] - best) <= 1e-15
    assert np.allclose(solution.start_at(tuple(x // U for x in comp["scores"]))[0], comp["p_wins"], atol=1e-15, rtol=0)


def test_the_n_player_lookup_loads_no_numpy(paths):
    probe = ("import sys\nfrom dicebase.main import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "print('HEAVY', sorted(m for m in sys.modules if m == 'numpy' or m.startswith('dicebase.builder')))\n")
    out = subprocess.run([sys.executable, "-c", probe, "ten-thousand", "state", "--scores", "50,50,150", "--player",
                          "1", "--turn-total", "1200", "--dice", "1", "--triple", "4", "--db", str(paths["duckdb"])],
                         capture_output=True, text=True, check=True).stdout
    assert "HEAVY []" in out and "mixed" in out
