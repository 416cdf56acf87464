"""`dicebase sql` for scripts: named parameters, six formats, --output; db.sql() to pandas/polars/Arrow."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pytest

QUERY = "SELECT seat, p_win, players > 1 AS many, variant FROM threes_seats " \
        "WHERE players = $n AND ties = $ties AND variant = 'classic' ORDER BY seat"
PARAMS = ["-p", "n", "4", "-p", "ties", "shared"]


@pytest.fixture(params=["duckdb", "sqlite"])
def db_url(request, built_db):
    return f"{request.param}:///{built_db(kind=request.param)}"


def rows_of(run_cli, db_url, fmt):
    code, out, err = run_cli(["sql", QUERY, *PARAMS, "--db", db_url, "--format", fmt])
    assert code == 0, err
    return out


def test_named_parameters_bind_values_as_text_in_both_stores(run_cli, db_url):
    data = json.loads(rows_of(run_cli, db_url, "json"))
    # seed 003's question, exactly: four players, seats 1-4 (docs/cli.md shows 0.2988 ... 0.3326)
    assert [r["seat"] for r in data] == [1, 2, 3, 4]
    assert round(data[0]["p_win"], 4) == 0.2988 and round(data[3]["p_win"], 4) == 0.3326
    assert all(r["many"] in (True, 1) for r in data)


def test_every_format_carries_the_same_rows(run_cli, db_url):
    expected = json.loads(rows_of(run_cli, db_url, "json"))
    by_csv = list(csv.DictReader(io.StringIO(rows_of(run_cli, db_url, "csv"))))
    by_tsv = list(csv.DictReader(io.StringIO(rows_of(run_cli, db_url, "tsv")), delimiter="\t"))
    by_jsonl = [json.loads(line) for line in rows_of(run_cli, db_url, "jsonl").splitlines()]
    assert by_jsonl == expected
    for parsed in (by_csv, by_tsv):
        assert [(int(r["seat"]), float(r["p_win"]), r["variant"]) for r in parsed] == [
            (r["seat"], r["p_win"], r["variant"]) for r in expected
        ]
    markdown = rows_of(run_cli, db_url, "markdown").splitlines()
    assert markdown[0].replace(" ", "") == "|seat|p_win|many|variant|"
    assert set(markdown[1]) <= set("|-:") and len(markdown) == 2 + len(expected)
    assert "| classic" in markdown[2]
    table = rows_of(run_cli, db_url, "table")
    assert "0.298813" in table


def test_output_writes_a_file_and_never_the_database(run_cli, built_db, tmp_path):
    db = built_db()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    target = tmp_path / "seats.jsonl"
    code, out, err = run_cli(["sql", QUERY, *PARAMS, "--db", db, "--format", "jsonl", "--output", target])
    assert code == 0 and out == "", err
    assert [json.loads(line)["seat"] for line in target.read_text().splitlines()] == [1, 2, 3, 4]
    code, _, err = run_cli(["sql", QUERY, *PARAMS, "--db", db, "--output", db])
    assert code == 2 and "database being read" in err and err.count("\n") == 1
    code, _, err = run_cli(["sql", QUERY, *PARAMS, "--db", db, "--output", tmp_path / "no" / "such.csv"])
    assert code == 2 and "no directory" in err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seats.jsonl"]  # no temporary left behind


@pytest.mark.parametrize(
    "args, message",
    [
        (["-p", "a-b", "1"], ("is not a name",)),
        (["-p", "n", "4", "-p", "n", "5"], ("given twice",)),
        ([], ("not provided for the following parameters", "bindings supplied")),  # DuckDB's, SQLite's words
    ],
)
def test_bad_parameters_are_one_line_exit_2(run_cli, db_url, args, message):
    code, out, err = run_cli(["sql", QUERY, *args, "--db", db_url])
    assert code == 2 and out == "" and any(m in err for m in message)
    assert err.startswith("Error: ") and err.count("\n") == 1


def test_python_api_hands_results_to_pandas_polars_and_arrow(db_url):
    import dicebase

    with dicebase.open(db_url) as db:
        result = db.sql(QUERY, {"n": "4", "ties": "shared"})
    assert result.columns == ["seat", "p_win", "many", "variant"] and len(result) == 4
    df = result.df()
    assert list(df["seat"]) == [1, 2, 3, 4] and str(df["seat"].dtype) == "int64"
    frame = result.pl()
    assert frame["p_win"].to_list() == [r[1] for r in result.rows]
    table = result.arrow()
    assert table.column_names == result.columns and table.num_rows == 4
    assert str(table.schema.field("variant").type) == "string"
    many = result.dicts()[0]["many"]
    assert many is True if db_url.startswith("duckdb") else many == 1  # SQLite has no boolean type


def test_a_missing_library_is_a_clear_error(built_db, monkeypatch):
    import sys

    import dicebase
    from dicebase.query.base import BadInput

    monkeypatch.setitem(sys.modules, "polars", None)  # as if polars were not installed
    with dicebase.open(built_db()) as db:
        result = db.sql("SELECT 1 AS one")
    with pytest.raises(BadInput, match="pip install polars"):
        result.pl()
