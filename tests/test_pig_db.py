"""Pig in the database (issue 31): the published figure from a build, the lookups (mid-turn answers
computed by the one turn function) against an independent brute-force solver, DuckDB and SQLite giving
identical answers, the aggregates, a house-rules file, and one line for every bad input."""

from __future__ import annotations

import itertools
import json
import random

import pytest

import dicebase
from dicebase.rules import pig as rules

from test_pig_solve import brute_force

#: Two players at goal 100 only (a second or two): the published figure.
GOAL100 = {"pig": {"variants": ["pig"], "house_rules": {}, "players": [2], "policy_players": [2]}}


@pytest.fixture(scope="module")
def paths(built_db):
    return {kind: built_db(("pig",), kind) for kind in ("duckdb", "sqlite")}


@pytest.fixture(scope="module")
def pig100(built_db):
    return built_db(("pig",), "duckdb", GOAL100)


def _json(run_cli, *args):
    code, out, err = run_cli(["pig", *args, "--json"])
    assert code == 0, err
    return json.loads(out)


# --------------------------------------------------------------------------- the published figure
def test_the_first_player_wins_0_5306_at_goal_100(pig100, run_cli):
    """Neller and Presser, "Optimal Play of the Dice Game Pig", The UMAP Journal 25(1), 2004: under optimal
    play by both the first player wins 0.5306 (our value 0.5305927252737447, docs/pig.md)."""
    doc = _json(run_cli, "state", "--scores", "0,0", "--player", "1", "--db", str(pig100))
    assert round(doc["p_win"], 4) == 0.5306 and abs(doc["p_win"] - 0.5305927252737447) < 1e-12
    assert doc["best"] == "roll" and [a["action"] for a in doc["actions"]] == ["roll"]
    with dicebase.open(pig100) as db:
        seats = db.pig.seats(2)
        assert [round(s.p_win, 4) for s in seats] == [0.5306, 0.4694]
        assert abs(seats[0].advantage - (0.5305927252737447 - 0.5)) < 1e-12
        costs = {(p.policy, p.seat): p for p in db.pig.policies(2)}
    assert set(costs) == {(name, seat) for name in rules.POLICIES for seat in (1, 2)}
    for p in costs.values():  # a simple policy never beats the equilibrium in its own seat
        assert p.cost > 0 and abs(p.cost - (p.p_win_optimal - p.p_win)) < 1e-12 and abs(sum(p.p_wins) - 1) < 1e-12


# --------------------------------------------------------------------------- lookups against brute force
@pytest.mark.parametrize("players", [2, 3])
def test_every_action_agrees_with_brute_force_and_both_stores_agree(paths, players):
    """pig6 (Pig's die, goal 6): every state's actions (roll and hold vectors) from the database against an
    independent value iteration to 1e-9, and DuckDB and SQLite give identical answers."""
    G = 6
    V = brute_force(G, (0, 2, 3, 4, 5, 6), 1, players)
    states = [(s, m, k) for s in itertools.product(range(G), repeat=players) for m in range(players)
              for k in sorted(rules.reachable(rules.Rules(goal=G), G - 1 - s[m]))]
    random.Random(31).shuffle(states)
    with dicebase.open(paths["duckdb"]) as duck, dicebase.open(paths["sqlite"]) as lite:
        for s, m, k in states[:150]:
            got = duck.pig.best(list(s), m + 1, k, variant="pig6")
            assert got.as_dict() == lite.pig.best(",".join(map(str, s)), m + 1, k, variant="pig6").as_dict()
            assert max(abs(a - b) for a, b in zip(got.p_wins, V[(s, m, k)])) < 1e-9
            for action in got.actions:
                if action.action == "hold":
                    banked = tuple(x + k if n == m else x for n, x in enumerate(s))
                    want = V[(banked, (m + 1) % players, 0)]
                    assert max(abs(a - b) for a, b in zip(action.p_wins, want)) < 1e-9
            assert got.actions[0].p_win >= got.actions[-1].p_win - 1e-12
        assert duck.pig.blocks.located()[("pig_turn_starts", "pig6", players)] is True  # read by position


def test_two_player_shorthand_is_the_same_answer(paths, run_cli):
    db = str(paths["duckdb"])
    long = _json(run_cli, "best", "--scores", "4,3", "--player", "2", "--turn-total", "2", "--rules", "pig6", "--db", db)
    short = _json(run_cli, "best", "--score", "3", "--opponent", "4", "--player", "2", "--turn-total", "2",
                  "--variant", "pig6", "--db", db)
    assert long == short
    assert set(long) == {"variant", "players", "scores", "player", "turn_total", "best", "roll_probability", "p_win",
                         "p_wins", "actions", "cycle_tuple", "cycle", "source", "notes"}
    with dicebase.open(paths["duckdb"]) as db_:
        assert db_.pig.best(2, 3, 4, 2, variant="pig6") == db_.pig.state([4, 3], 2, 2, variant="pig6")


def test_aggregates_for_every_n_built(paths, run_cli):
    db = str(paths["sqlite"])
    seats = _json(run_cli, "seats", "--rules", "piglet", "--db", db)
    for n in (2, 3):
        mine = [s for s in seats if s["players"] == n]
        assert [s["seat"] for s in mine] == list(range(1, n + 1)) and abs(sum(s["p_win"] for s in mine) - 1) < 1e-12
        assert mine[0]["advantage"] > 0  # the first player's advantage
    fair = _json(run_cli, "compensation", "--players", "2", "--rules", "pig6", "--db", db)
    assert fair["deviation"] <= fair["uncompensated_deviation"] and fair["scores"][0] == 0 and fair["scores"][1] > 0
    policies = _json(run_cli, "policies", "--players", "3", "--rules", "pig6", "--db", db)
    assert len(policies) == 3 * len(rules.POLICIES)
    with dicebase.open(paths["duckdb"]) as duck:
        assert [p.as_dict() for p in duck.pig.policies(3, variant="pig6")] == policies


def test_a_house_rules_file_at_goal_50(tmp_path, run_cli):
    from dicebase.rules import files

    path = tmp_path / "pig50.toml"
    path.write_text(files.dump("pig", "pig50", {**rules.to_file(rules.PIG), "goal": 50}, "Pig to 50"))
    db = str(tmp_path / "pig50.duckdb")
    code, _out, err = run_cli(["build", "pig", "--db", db, "--rules", str(path), "-o", "pig.variants=[]", "--quiet"])
    assert code == 0, err
    doc = _json(run_cli, "best", "--scores", "0,0", "--player", "1", "--db", db)
    assert doc["variant"] == "pig50" and 0.5 < doc["p_win"] < 0.6
    low = _json(run_cli, "best", "--scores", "40,45", "--player", "1", "--turn-total", "9", "--rules", "pig50", "--db", db)
    assert low["best"] == "roll"  # one roll from the goal with the opponent close: roll (its value says why)
    assert low["actions"][0]["action"] == "roll"


@pytest.mark.parametrize("args, message", [
    (["best", "--scores", "0,0", "--player", "1", "--rules", "pig6", "--turn-total", "6"], "turn total must be 0..5"),
    (["best", "--scores", "0,0", "--player", "1", "--rules", "pig6", "--turn-total", "1"], "cannot occur"),
    (["best", "--scores", "0,7", "--player", "1", "--rules", "pig6"], "seat 2's score must be 0..5"),
    (["best", "--scores", "0,0", "--player", "3", "--rules", "pig6"], "player must be 1..2"),
    (["best", "--scores", "0,0,0,0", "--player", "1", "--rules", "pig6"], "pig.players=[2,3,4]"),
    (["best", "--scores", "0,0,0,0,0", "--player", "1"], "scores must name 2 to 4 seats"),
    (["best", "--scores", "0,x", "--player", "1"], "scores must be whole numbers"),
    (["best", "--scores", "0,0", "--score", "1", "--player", "1"], "not both"),
    (["best", "--player", "1"], "give --score and --opponent"),
    (["best", "--scores", "0,0", "--player", "1", "--rules", "pog"], "unknown rule set 'pog'"),
    (["best", "--scores", "0,0", "--player", "1"], "several rule sets are built"),
    (["compensation", "--players", "4", "--rules", "piglet"], "4 players are not built"),
])
def test_bad_input_is_one_line(paths, run_cli, args, message):
    code, out, err = run_cli(["pig", *args, "--db", str(paths["duckdb"])])
    assert code == 2 and out == ""
    assert err.startswith("Error: ") and err.count("\n") <= 1 and message in err, err


JUNK = [None, True, -1, 10**40, 1.5, float("nan"), "", "x", b"x", "SELECT 1", [], [1, 2], [9, 9, 9], {}, (1, "a"),
        "1,2", "0,0,0", [0, 0], "pig6", "piglet"]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_every_public_method_takes_junk_as_a_dicebase_error(paths, kind):
    """Every public method of db.pig, each parameter given each kind of junk (the others 0 or their default),
    and best/state's positional forms: a DicebaseError or an answer, never another exception."""
    import inspect

    from dicebase.errors import DicebaseError

    failed = []
    with dicebase.open(paths[kind]) as db:
        q = db.pig
        for name in [n for n in dir(q) if not n.startswith("_") and callable(getattr(q, n))]:
            method = getattr(q, name)
            params = [p for p in inspect.signature(method).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            calls = [((), {**{p.name: 0 for p in params if p.default is p.empty}, param.name: junk})
                     for param in params for junk in JUNK]
            if name in ("best", "state"):
                calls += [(args, {"variant": "pig6"}) for a in JUNK for b in JUNK[:8]
                          for args in ((a, b), (a, 1, b), (a, b, 0, 0), (1, a, 2, b))]
            for args, kwargs in calls:
                try:
                    method(*args, **kwargs)
                except DicebaseError:
                    pass
                except Exception as exc:  # noqa: BLE001 - the point of the test
                    failed.append(f"{name}(*{args!r}, **{kwargs!r}) raised {type(exc).__name__}: {exc}")
    assert failed == []


# --------------------------------------------------------------------------- policy cycles (three players)
#: Pig's die at goal 70, three players only: 56 score tuples where best responses cycle, 18 of them with a mixed
#: equilibrium (none below goal 50; goal 50 has 3, all pure: (0, 7, 7) and its rotations; goal 65 the first mixed).
CYCLES = {"pig": {"variants": [], "house_rules": {"pig70": {"goal": 70, "faces": 6, "bust_face": 1,
                                                            "scores": [0, 2, 3, 4, 5, 6]}},
                  "players": [3], "policy_players": []}}


def test_cycle_tuples_are_recorded_said_so_and_their_mixing_gives_the_stored_values(built_db, run_cli):
    """../shared/N-PLAYERS.md: the tuples where best responses cycle are recorded (pig_cycle_tuples, pig_mixing,
    the build metadata) and a lookup there says so.  Each randomising seat rolls with the stored probability at
    one turn total, where it is indifferent; the lookups, playing that mixing, give the stored turn start back."""
    path = built_db(("pig",), "duckdb", CYCLES)
    with dicebase.open(path) as db:
        assert db.fetchall("SELECT cycle_tuples, mixed_tuples FROM pig_players") == [(56, 18)]
        kinds = dict(db.fetchall("SELECT kind, count(*) FROM pig_cycle_tuples GROUP BY kind"))
        assert kinds == {"pure": 38, "mixed": 18}
        assert db.fetchone("SELECT max(residual) FROM pig_cycle_tuples")[0] <= 1e-12
        notes = json.loads(db.fetchone("SELECT notes_json FROM build_games WHERE game = 'pig'")[0])["pig70.players3"]
        assert len(notes["cycles"]) == 56 and notes["mixed_tuples"] == 18
        mixing = db.fetchall("SELECT score1, score2, score3, seat, k, p_roll FROM pig_mixing")
        assert len({row[:4] for row in mixing}) == len(mixing)  # one turn total per randomising seat
        for s1, s2, s3, seat, k, q in mixing:
            start = db.pig.best([s1, s2, s3], seat, 0)
            stored = db.fetchone("SELECT p_win1, p_win2, p_win3 FROM pig_turn_starts WHERE players = 3 AND seat = ? "
                                 "AND score1 = ? AND score2 = ? AND score3 = ?", (seat, s1, s2, s3))
            assert max(abs(a - b) for a, b in zip(start.p_wins, stored)) < 1e-12
            assert start.cycle["kind"] == "mixed" and "cycle" in start.cycle["note"]
            there = db.pig.best([s1, s2, s3], seat, k)
            assert there.best == "mixed" and there.roll_probability == q and 0 < q < 1
            values = {a.action: a.p_win for a in there.actions}
            assert abs(values["roll"] - values["hold"]) < 1e-12  # indifferent where it randomises
    s1, s2, s3, seat, _k, _q = mixing[0]
    doc = _json(run_cli, "best", "--scores", f"{s1},{s2},{s3}", "--player", str(seat), "--db", str(path))
    assert doc["cycle_tuple"] is True and doc["cycle"]["kind"] == "mixed" and doc["cycle"]["randomising"]


def test_the_http_api_is_the_cli(paths, run_cli):
    """The HTTP API is generated from the commands: the same JSON document, errors as one line with 400/404."""
    from starlette.testclient import TestClient

    from dicebase.web.app import create_app

    cli = _json(run_cli, "best", "--scores", "4,3,0", "--player", "2", "--turn-total", "2", "--rules", "pig6",
                "--db", str(paths["duckdb"]))
    with dicebase.open(paths["duckdb"]) as db, TestClient(create_app(db)) as client:
        got = client.get("/api/v1/pig/best?scores=4,3,0&player=2&turn_total=2&rules=pig6")
        assert got.status_code == 200 and got.json() == cli
        bad = client.get("/api/v1/pig/best?scores=4,3&player=2&turn_total=1&rules=pig6")
        assert bad.status_code == 400 and "cannot occur" in bad.json()["error"]
        missing = client.get("/api/v1/pig/seats?players=4&rules=pig6")
        assert missing.status_code == 404 and "pig.players=[2,3,4]" in missing.json()["error"]
