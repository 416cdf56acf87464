"""``dicebase threes ...`` end to end, in-process, on good and bad input."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def dbarg(built_db):
    return ["--db", f"duckdb:///{built_db()}"]


def ok(run_cli, args):
    code, out, err = run_cli(args)
    assert code == 0, err
    return out


def test_seed001_example_json(run_cli, dbarg):
    # seed 001: `4 3 1 1 2`, 0 points, score to beat 7, four players after -> keep [3] (seed: 0.1351 by Monte
    # Carlo; exact: 0.2760)
    out = ok(run_cli, ["threes", "best", "4", "3", "1", "1", "2", "--score", "0", "--to-beat", "7",
                       "--players-after", "4", "--json", *dbarg])
    doc = json.loads(out)
    assert doc["objective"] == "win_probability"
    assert [a["keep"] for a in doc["actions"]] == [[3], [3, 1], [3, 1, 1], [3, 1, 1, 2], [3, 1, 1, 2, 4]]
    assert doc["actions"][0]["value"] == pytest.approx(0.2760297255455543, abs=1e-12)
    assert doc["best"] == doc["actions"][0]
    assert all(set(a) == {"keep", "value"} for a in doc["actions"])


def test_best_expected_objective_json(run_cli, dbarg):
    doc = json.loads(ok(run_cli, ["threes", "best", "6", "5", "4", "--variant", "reroll", "--score", "2", "--json",
                                  *dbarg]))
    assert doc["objective"] == "expected_final_score"
    assert doc["actions"][0] == {"keep": [], "value": 9.0}
    values = [a["value"] for a in doc["actions"]]
    assert values == sorted(values)


def test_best_table_and_csv(run_cli, dbarg):
    out = ok(run_cli, ["threes", "best", "3", "1", "3", "2", "4", "--to-beat", "8", *dbarg])
    assert "win_probability" in out and "3 3 1 2 4" in out
    csv_out = ok(run_cli, ["threes", "best", "3", "1", "3", "2", "4", "--to-beat", "8", "--format", "csv", *dbarg])
    lines = csv_out.splitlines()
    assert lines[0] == "keep,value" and lines[1] == "3 3 1 2 4,1.0"  # seed 003 In [15]: keep all five
    assert len(lines) == 6


def test_expected_json(run_cli, dbarg):
    # issue 2 acceptance, seed 000 rolling first
    rows = json.loads(ok(run_cli, ["threes", "expected", "--variant", "reroll", "--json", *dbarg]))
    assert rows[0] == {"dice": 1, "must_keep_two": False, "expected_score": 3.0}
    by = {(r["dice"], r["must_keep_two"]): r["expected_score"] for r in rows}
    assert round(by[(5, False)], 4) == 5.6622 and round(by[(5, True)], 4) == 7.0321


def test_chances_json(run_cli, dbarg):
    # seed 003 In [12]: 87.64% for 10, 2.11% for 1 (strict: finishing strictly below)
    rows = json.loads(ok(run_cli, ["threes", "chances", "--ties", "strict", "--json", *dbarg]))
    assert [r["target"] for r in rows] == list(range(31))
    assert round(rows[10]["p_win"], 4) == 0.8764 and round(rows[1]["p_win"], 4) == 0.0211
    assert set(rows[0]) == {"target", "p_win"}


def test_seats_json(run_cli, dbarg):
    rows = json.loads(ok(run_cli, ["threes", "seats", "--players", "3", "--json", *dbarg]))
    assert [r["seat"] for r in rows] == [1, 2, 3]
    assert sum(r["p_win"] for r in rows) > 1  # shared ties: co-winners


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["best", "3", "1", "7"], "faces must be 1..6"),
        (["best", "1", "2", "3", "4", "5", "6"], "1..5 dice"),
        (["best", "1", "2", "--score", "-3"], ">= 0"),
        (["best", "1", "2", "3", "4", "--score", "3"], "impossible"),
        (["best", "1", "2", "--variant", "fancy"], "unknown variant"),
        (["best", "1", "2", "--must-keep-two"], "re-rolls"),
        (["best", "4", "--variant", "reroll", "--score", "4", "--must-keep-two"], "2 or more dice"),
        (["best", "1", "2", "--players-after", "9"], "players after must be 0..4"),
        (["best", "1", "2", "--to-beat", "40"], "to-beat must be 0..30"),
        (["best", "1", "2", "--ties", "strict"], "win objective only"),
        (["best", "1", "2", "--ties", "sometimes", "--to-beat", "3"], "sometimes"),
        (["best", "1", "x"], "not a valid integer"),
        (["best"], "Missing argument"),
        (["seats", "--players", "9"], "players must be 2..5"),
        (["seats"], "--players"),
        (["chances", "--dice", "6"], "dice must be 1..5"),
        (["expected", "--variant", "fancy"], "unknown variant"),
    ],
)
def test_bad_input_one_line_exit_2(run_cli, dbarg, args, fragment):
    code, out, err = run_cli(["threes", *args, *dbarg])
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert fragment in err


def test_missing_database(run_cli, tmp_path):
    code, out, err = run_cli(["threes", "expected", "--db", str(tmp_path / "nothing.duckdb")])
    assert code == 2 and "dicebase build" in err and len(err.strip().splitlines()) == 1


def test_help_has_examples(run_cli):
    for command in ["best", "expected", "chances", "seats"]:
        code, out, _ = run_cli(["threes", command, "--help"])
        assert code == 0 and "Example:" in out
