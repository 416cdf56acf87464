"""``dicebase threes ...`` end to end, in-process, on good and bad input."""

from __future__ import annotations

import csv
import io
import json
import shlex

import pytest

STORES = ["duckdb", "sqlite"]


@pytest.fixture(scope="module", params=STORES)
def dbarg(request, built_db):
    """Every CLI test runs against both stores."""
    return ["--db", f"{request.param}:///{built_db(kind=request.param)}"]


@pytest.fixture(scope="module")
def small_dbarg(built_db):
    """A build with classic only, shared ties only, rounds of up to 2 players."""
    path = built_db(options={"threes": {"ties": ["shared"], "variants": ["classic"], "max_players": 2}})
    return ["--db", f"duckdb:///{path}"]


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


WIN_STATE = ["objective", "variant", "roll", "score", "must_keep_two", "ties", "to_beat", "players_after"]


def test_best_table_and_csv(run_cli, dbarg):
    out = ok(run_cli, ["threes", "best", "3", "1", "3", "2", "4", "--to-beat", "8", *dbarg])
    assert "win_probability" in out and "3 3 1 2 4" in out
    csv_out = ok(run_cli, ["threes", "best", "3", "1", "3", "2", "4", "--to-beat", "8", "--format", "csv", *dbarg])
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    assert list(rows[0]) == [*WIN_STATE, "rank", "keep", "dice_kept", "value"]
    # seed 003 In [15]: the last player needing 8 or less keeps all five
    assert (rows[0]["rank"], rows[0]["keep"], rows[0]["dice_kept"], rows[0]["value"]) == ("1", "3 3 1 2 4", "5", "1.0")
    assert len(rows) == 5 and [r["rank"] for r in rows] == ["1", "2", "3", "4", "5"]
    # every action row carries the whole state
    for row in rows:
        assert {k: row[k] for k in WIN_STATE} == {
            "objective": "win_probability", "variant": "classic", "roll": "3 3 1 2 4", "score": "0",
            "must_keep_two": row["must_keep_two"], "ties": "shared", "to_beat": "8", "players_after": "0",
        }
        assert row["must_keep_two"].lower() == "false"


def test_best_csv_expected_objective_and_nobody_finished(run_cli, dbarg):
    rows = list(csv.DictReader(io.StringIO(ok(run_cli, [
        "threes", "best", "6", "5", "4", "--variant", "reroll", "--score", "2", "--format", "csv", *dbarg]))))
    assert list(rows[0]) == ["objective", "variant", "roll", "score", "must_keep_two", "rank", "keep", "dice_kept",
                             "value"]
    assert (rows[0]["keep"], rows[0]["dice_kept"], rows[0]["value"]) == ("", "0", "9.0")  # re-roll all three
    assert {r["objective"] for r in rows} == {"expected_final_score"} and {r["score"] for r in rows} == {"2"}
    rows = list(csv.DictReader(io.StringIO(ok(run_cli, [
        "threes", "best", "1", "2", "--score", "4", "--players-after", "3", "--format", "csv", *dbarg]))))
    assert {(r["to_beat"], r["players_after"]) for r in rows} == {("", "3")}  # empty to_beat: nobody finished yet


COMMANDS = [
    ["best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "4"],
    ["best", "6", "5", "4", "--variant", "reroll", "--score", "2"],
    ["best", "6", "5", "--variant", "reroll", "--must-keep-two", "--players-after", "2", "--ties", "strict"],
    ["expected", "--variant", "reroll"],
    ["chances", "--ties", "strict"],
    ["chances", "--variant", "reroll", "--dice", "2", "--must-keep-two"],
    ["seats", "--players", "4"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_every_format(run_cli, dbarg, command):
    table = ok(run_cli, ["threes", *command, *dbarg])
    assert table.strip() and not table.lstrip().startswith(("{", "["))
    as_json = json.loads(ok(run_cli, ["threes", *command, "--json", *dbarg]))
    assert json.loads(ok(run_cli, ["threes", *command, "--format", "json", *dbarg])) == as_json
    rows = list(csv.DictReader(io.StringIO(ok(run_cli, ["threes", *command, "--format", "csv", *dbarg]))))
    n = len(as_json["actions"]) if isinstance(as_json, dict) else len(as_json)
    assert len(rows) == n > 0
    assert all(None not in row and all(v is not None for v in row.values()) for row in rows)  # rectangular


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
        (["best", *["1"] * 5001], "1..5000 dice"),
        (["best", "1", "2", "3", "4", "5", "6", "--players-after", "2"], "up to 5 dice"),
        (["expected", "--dice", "5001"], "1..5000"),
        (["chances", "--dice", "51"], "1..50"),
        (["best", "1", "2", "--score", "-3"], ">= 0"),
        (["best", "1", "2", "3", "4", "--score", "3"], "impossible"),
        (["best", "1", "2", "--variant", "fancy"], "unknown variant"),
        (["best", "1", "2", "--must-keep-two"], "re-rolls"),
        (["best", "4", "--variant", "reroll", "--score", "4", "--must-keep-two"], "2 or more dice"),
        (["best", "1", "2", "--players-after", "9"], "players after must be 0..4"),
        (["best", "1", "2", "--players-after", "-1"], "players after must be a whole number 0..4"),
        (["best", "1", "2", "--players-after", "25"], "rounds of up to 20"),
        (["best", "1", "2", "--players-after", "0"], "--players-after 0 needs --to-beat"),
        (["best", "1", "2", "--score", "18", "--to-beat", "2"], "score 18 is already above to-beat 2"),
        (["best", "1", "2", "--score", "4", "--to-beat", "4", "--ties", "strict"], "level with to-beat 4"),
        (["best", "1", "2", "--to-beat", "40"], "to-beat must be 0..30"),
        (["best", "1", "2", "--to-beat", "-1"], "to-beat must be 0..30"),
        (["best", "1", "2", "--score", "19"], "possible: 0..18"),
        (["best", "1", "2", "3", "4", "5", "--score", "1"], "must be 0 with 5 dice"),
        (["best", "1", "2", "--players-after", "1.5"], "is not a whole number"),
        (["best", "1", "2", "--ties", "strict"], "win objective only"),
        (["best", "1", "2", "--ties", "sometimes", "--to-beat", "3"], "sometimes"),
        (["best", "1", "x"], "is not a whole number"),
        (["best"], "Missing argument"),
        (["seats", "--players", "9"], "players must be 2..5"),
        (["seats", "--players", "1"], "players must be a whole number 2..5"),
        (["seats", "--players", "21"], "rounds of up to 20"),
        (["seats"], "--players"),
        (["chances", "--dice", "0"], "dice must be a whole number 1..50"),  # 6..50: the many-dice chances
        (["chances", "--dice", "1", "--variant", "reroll", "--must-keep-two"], "2 or more dice"),
        (["chances", "--ties", "never"], "never"),
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


def one_line_error(run_cli, args):
    code, out, err = run_cli(args)
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    "args, option",
    [
        (["best", "1", "2", "--players-after", "9"], "-o threes.max_players=10"),
        (["seats", "--players", "7"], "-o threes.max_players=7"),
    ],
)
def test_players_beyond_the_build_name_the_build_command(run_cli, dbarg, args, option):
    err = one_line_error(run_cli, ["threes", *args, *dbarg])
    hint = _rebuild_hint(err)
    assert hint[:3] == ["dicebase", "build", "threes"] and hint[-1] == "--force"
    assert _same_database(hint, dbarg) and shlex.split(option)[1] in hint


@pytest.mark.parametrize(
    "args, option",
    [
        (["best", "1", "2", "--variant", "reroll"], """-o 'threes.variants=["classic","reroll"]'"""),
        (["expected", "--variant", "reroll"], """-o 'threes.variants=["classic","reroll"]'"""),
        (["chances", "--ties", "strict"], """-o 'threes.ties=["shared","strict"]'"""),
        (["best", "1", "2", "--to-beat", "3", "--ties", "strict"], """-o 'threes.ties=["shared","strict"]'"""),
        (["seats", "--players", "3"], "-o threes.max_players=3"),
    ],
)
def test_not_built_names_the_build_command(run_cli, small_dbarg, args, option):
    err = one_line_error(run_cli, ["threes", *args, *small_dbarg])
    assert "unknown variant" not in err
    hint = _rebuild_hint(err)
    assert hint[:3] == ["dicebase", "build", "threes"] and hint[-1] == "--force"
    assert _same_database(hint, small_dbarg) and shlex.split(option)[1] in hint
    # the rebuild keeps what was built: the other non-default options are spelled out too
    assert "-o threes.max_players=" in err and "threes.variants=" in err and "threes.ties=" in err


def _rebuild_hint(err: str) -> list[str]:
    """The command after "rebuild with: ", as the shell would split it."""
    assert "rebuild with: " in err, err
    return shlex.split(err.split("rebuild with: ", 1)[1].strip())


def _same_database(hint: list[str], dbarg: list[str]) -> bool:
    """The hint's --db names the file the user gave (as a path or the same URL)."""
    from dicebase.location import resolve

    given = hint[hint.index("--db") + 1]
    return resolve(given) == resolve(dbarg[1])


def test_help_describes_the_rules_and_ranges(run_cli):
    code, out, _ = run_cli(["threes", "best", "--help"])
    flat = " ".join(out.split())
    assert code == 0 and "once" not in flat and "never twice in a row" in flat
    assert "0 = you are last, which needs --to-beat" in flat
    code, out, _ = run_cli(["threes", "seats", "--help"])
    flat = " ".join(out.split())
    assert code == 0 and "12" not in flat and "max_players the database was built with" in flat


def test_missing_database(run_cli, tmp_path):
    code, out, err = run_cli(["threes", "expected", "--db", str(tmp_path / "nothing.duckdb")])
    assert code == 2 and "dicebase build" in err and len(err.strip().splitlines()) == 1


def test_help_has_examples(run_cli):
    for command in ["best", "expected", "chances", "seats"]:
        code, out, _ = run_cli(["threes", command, "--help"])
        assert code == 0 and "Example:" in out
