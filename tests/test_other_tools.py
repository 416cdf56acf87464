"""The database opens in other tools unchanged, with its descriptions (issue 11).

An older DuckDB (1.1.x, in its own virtual environment) opens a fresh build;
COMMENT ON reaches every table, view and column.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

OLD_DUCKDB = "1.1.3"
ALL_GAMES = ("threes", "rolled_ones", "ten_thousand")
SMALL_ALL = {
    "threes": {"max_players": 2, "variants": ["classic"]},
    "rolled_ones": {"goal": 20, "turn_total_bound": 50, "komi_max": 5},
    "ten_thousand": {"goal": 500, "rules": ["ten-thousand"]},
}


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dicebase-tests"


def _works(python: Path) -> bool:
    if not python.is_file():
        return False
    probe = subprocess.run(
        [str(python), "-c", f"import duckdb; assert duckdb.__version__ == {OLD_DUCKDB!r}"],
        capture_output=True,
        timeout=120,
    )
    return probe.returncode == 0


@pytest.fixture(scope="session")
def old_duckdb() -> Path:
    """A Python with duckdb 1.1.3, in a virtual environment cached between runs.

    Made once per machine (about 20 s: python -m venv, then pip install from
    PyPI or pip's own wheel cache) under ~/.cache/dicebase-tests.  Outside CI,
    a machine that cannot reach PyPI skips the test with the reason; under
    CI=true it fails instead, so CI always runs it.
    """
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    venv = _cache_dir() / f"duckdb-{OLD_DUCKDB}-{tag}"
    python = venv / "bin" / "python"
    if _works(python):
        return python
    venv.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{venv.name}.tmp-", dir=venv.parent))
    try:
        subprocess.run([sys.executable, "-m", "venv", str(staging)], check=True, capture_output=True, timeout=300)
        install = subprocess.run(
            [str(staging / "bin" / "python"), "-m", "pip", "install", "--quiet", f"duckdb=={OLD_DUCKDB}"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if install.returncode != 0:
            reason = f"could not install duckdb=={OLD_DUCKDB} from PyPI: {install.stderr.strip().splitlines()[-1:]}"
            if os.environ.get("CI") == "true":
                pytest.fail(reason)
            pytest.skip(reason)
        shutil.rmtree(venv, ignore_errors=True)
        staging.rename(venv)  # a venv is relocatable enough for `bin/python -c`; pip is not used again
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    python = venv / "bin" / "python"
    assert _works(python)
    return python


def run_old(python: Path, script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-c", script, *args], capture_output=True, text=True, timeout=120)


READ_LOOKUP = """
import duckdb, json, sys
con = duckdb.connect(sys.argv[1], read_only=True)
rows = con.execute(sys.argv[2]).fetchall()
comments = con.execute(
    "SELECT comment FROM duckdb_tables() WHERE table_name = 'threes_win'"
).fetchall()
print(json.dumps({"version": duckdb.__version__, "rows": rows, "comment": comments[0][0]}))
"""

# The rows `dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 4` reads (query/threes.py).
LOOKUP = (
    "SELECT dice_left, must_keep_two, score, p_win FROM threes_win "
    "WHERE variant = 'classic' AND ties = 'shared' AND players_after = 4 AND to_beat = 7 ORDER BY ALL"
)


@pytest.fixture(scope="session")
def all_games_db(built_db):
    """All three games, small, in one DuckDB file."""
    return built_db(ALL_GAMES, "duckdb", SMALL_ALL)


def test_a_fresh_build_opens_in_duckdb_1_1(built_db, old_duckdb):
    import duckdb

    import dicebase

    path = built_db()
    result = run_old(old_duckdb, READ_LOOKUP, str(path), LOOKUP)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["version"] == OLD_DUCKDB
    with duckdb.connect(str(path), read_only=True) as con:
        expected = con.execute(LOOKUP).fetchall()
        (comment,) = con.execute("SELECT comment FROM duckdb_tables() WHERE table_name = 'threes_win'").fetchone()
    old_rows = {(d, f, s): p for d, f, s, p in answer["rows"]}
    assert old_rows == {(d, f, s): p for d, f, s, p in expected} and len(old_rows) > 10
    with dicebase.open(path) as db:
        best = db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=4).actions[0]
    assert best.keep == (3,) and old_rows[(4, False, 0)] == best.value  # keep the 3, roll four dice
    assert answer["comment"] == comment and comment


def test_the_newest_storage_format_is_what_duckdb_1_1_refuses(tmp_path, old_duckdb):
    """The control: without the storage version, 1.1 cannot read the file (so the test above means something)."""
    from dicebase.builder.pipeline import build

    path = tmp_path / "latest.duckdb"
    build(["threes"], path, quiet=True, options={"threes": SMALL_ALL["threes"]}, storage_version="latest")
    result = run_old(old_duckdb, READ_LOOKUP, str(path), LOOKUP)
    assert result.returncode != 0
    assert "version" in result.stderr


def test_storage_version_is_recorded_and_chosen(tmp_path, run_cli):
    from dicebase.builder.store import DUCKDB_STORAGE_VERSION

    path = tmp_path / "v12.duckdb"
    args = ["build", "threes", "-q", "-o", "threes.max_players=2", "-o", 'threes.variants=["classic"]', "--db", path]
    assert run_cli([*args, "--storage-version", "v1.2.0"])[0] == 0
    code, out, _ = run_cli(["sql", "SELECT value FROM build_info WHERE key = 'duckdb_storage_version'", "--db", path,
                            "--format", "csv"])
    assert code == 0 and out.splitlines() == ["value", "v1.2.0"]
    # nothing to build, but the file is rewritten in the default format
    code, out, _ = run_cli(args)
    assert code == 0 and f"storage version {DUCKDB_STORAGE_VERSION}" in out
    code, out, _ = run_cli(["info", "--db", path, "--json"])
    assert json.loads(out)["build"]["duckdb_storage_version"] == DUCKDB_STORAGE_VERSION


@pytest.mark.parametrize(
    "args, message",
    [
        (["--storage-version", "v9.9"], "unknown DuckDB storage version"),
        (["--storage-version", "v1.2.0", "--db", "sqlite:///{tmp}/x.sqlite"], "DuckDB files only"),
    ],
)
def test_bad_storage_version_is_one_line_and_touches_nothing(tmp_path, run_cli, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--db" not in args:
        args += ["--db", str(tmp_path / "x.duckdb")]
    code, out, err = run_cli(["build", "threes", *args])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_duckdb_comments_describe_every_table_view_and_column(all_games_db):
    """COMMENT ON at build time: duckdb_tables(), duckdb_views(), duckdb_columns() carry the descriptions."""
    import duckdb

    from dicebase.schema import catalogue

    table_rows, column_rows = catalogue(list(ALL_GAMES))
    with duckdb.connect(str(all_games_db), read_only=True) as con:
        tables = dict(con.execute("SELECT table_name, comment FROM duckdb_tables()").fetchall())
        views = dict(con.execute("SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall())
        columns = {
            (t, c): comment
            for t, c, comment in con.execute(
                "SELECT table_name, column_name, comment FROM duckdb_columns() WHERE NOT internal"
            ).fetchall()
        }
    expected_tables = {name: text for name, kind, _game, text in table_rows if kind == "table"}
    expected_views = {name: text for name, kind, _game, text in table_rows if kind == "view"}
    assert tables == expected_tables
    assert views == expected_views and len(views) >= 14
    assert columns == {(t, c): text for t, _pos, c, _type, _key, text in column_rows}
    assert "build_info" in tables and all(tables.values())


# -- exports: every table and view, read back by pandas and polars at the declared types -------------

PANDAS_DTYPES = {"VARCHAR": "string", "SMALLINT": "Int16", "INTEGER": "Int32", "BIGINT": "Int64",
                 "DOUBLE": "Float64", "BOOLEAN": "boolean"}
CSVW_TO_PANDAS = {"string": "string", "short": "Int16", "int": "Int32", "long": "Int64", "double": "Float64",
                  "boolean": "boolean"}


def polars_types():
    import polars as pl

    return {"VARCHAR": pl.String, "SMALLINT": pl.Int16, "INTEGER": pl.Int32, "BIGINT": pl.Int64,
            "DOUBLE": pl.Float64, "BOOLEAN": pl.Boolean}


@pytest.fixture(scope="session")
def exported(all_games_db, tmp_path_factory):
    """The all-games database exported to Parquet and to CSV: {fmt: directory}."""
    import dicebase
    from dicebase.builder.export import export

    out = tmp_path_factory.mktemp("exports")
    with dicebase.open(all_games_db) as db:
        for fmt in ("parquet", "csv"):
            export(db, fmt, out / fmt)
    return {"parquet": out / "parquet", "csv": out / "csv"}


def test_every_table_and_view_is_exported(all_games_db, exported):
    from dicebase.schema import catalogue

    table_rows, _ = catalogue(list(ALL_GAMES))
    names = {name for name, *_ in table_rows}
    assert {"ten_thousand_thresholds", "rolled_ones_fair_komi", "threes_chances"} <= names
    assert {p.stem for p in exported["parquet"].glob("*.parquet")} == names
    assert {p.stem for p in exported["csv"].glob("*.csv")} == names


def test_exports_read_back_at_the_declared_types_with_the_same_rows(all_games_db, exported):
    """Text stays text ('111111' rolls, '1155' keeps), booleans are booleans, integers keep their width."""
    import duckdb
    import pandas as pd
    import polars as pl

    from dicebase.builder.export import CSV_METADATA, relations

    csvw = {t["url"]: t for t in json.loads((exported["csv"] / CSV_METADATA).read_text())["tables"]}
    pl_types = polars_types()
    with duckdb.connect(str(all_games_db), read_only=True) as con:
        for rel in relations(list(ALL_GAMES)):
            declared = {name: data_type for name, data_type, *_ in rel.columns}
            parquet = exported["parquet"] / f"{rel.name}.parquet"
            csv = exported["csv"] / f"{rel.name}.csv"
            csv_columns = csvw[csv.name]["tableSchema"]["columns"]
            assert [c["name"] for c in csv_columns] == list(declared)

            frames = {
                "pandas parquet": pd.read_parquet(parquet, dtype_backend="numpy_nullable"),
                "pandas csv": pd.read_csv(
                    csv, dtype={c["name"]: CSVW_TO_PANDAS[c["datatype"]] for c in csv_columns}, keep_default_na=False,
                    na_values=[""],
                ),
            }
            for label, df in frames.items():
                assert {c: str(t) for c, t in df.dtypes.items()} == {
                    c: PANDAS_DTYPES[t] for c, t in declared.items()
                }, (label, rel.name)
            pl_parquet = pl.read_parquet(parquet)
            pl_csv = pl.read_csv(csv, schema={c: pl_types[t] for c, t in declared.items()})
            assert dict(pl_parquet.schema) == {c: pl_types[t] for c, t in declared.items()}, rel.name
            assert pl_csv.equals(pl_parquet), rel.name  # CSV loses nothing, doubles included

            (count,) = con.execute(f"SELECT count(*) FROM {rel.name}").fetchone()
            assert len(pl_parquet) == count
            text_columns = [c for c, t in declared.items() if t == "VARCHAR"]
            if text_columns and count:
                order = " ORDER BY ALL" if rel.kind == "view" else ""  # views are exported sorted
                row = dict(zip(declared, con.execute(f"SELECT * FROM {rel.name}{order} LIMIT 1").fetchone()))
                first = tuple(row[c] for c in text_columns)
                assert tuple(frames["pandas csv"][text_columns].iloc[0]) == first, rel.name

    rolls = pl.read_csv(exported["csv"] / "ten_thousand_rolls.csv",
                        schema_overrides={"roll": pl.String})["roll"]
    assert "111111" in rolls.to_list()


def test_parquet_files_carry_the_descriptions(exported):
    import pyarrow.parquet as pq

    from dicebase.builder.export import relations

    for rel in relations(list(ALL_GAMES)):
        meta = pq.read_schema(exported["parquet"] / f"{rel.name}.parquet").metadata
        assert meta[b"description"].decode() == rel.description
        columns = json.loads(meta[b"dicebase.columns"])
        assert [(c["name"], c["description"]) for c in columns] == [(n, d) for n, _t, d, _k, _r in rel.columns]


def test_csvw_metadata_describes_every_column(exported):
    from dicebase.builder.export import CSV_METADATA

    meta = json.loads((exported["csv"] / CSV_METADATA).read_text())
    assert meta["@context"] == "http://www.w3.org/ns/csvw"
    threes_win = next(t for t in meta["tables"] if t["url"] == "threes_win.csv")
    assert threes_win["tableSchema"]["primaryKey"] == [
        "variant", "ties", "players_after", "to_beat", "dice_left", "must_keep_two", "score"
    ]
    p_win = threes_win["tableSchema"]["columns"][-1]
    assert p_win["name"] == "p_win" and p_win["datatype"] == "double" and "probability" in p_win["dc:description"]


def test_duckdb_export_picks_its_storage_version_and_old_duckdb_opens_the_default(built_db, tmp_path, old_duckdb,
                                                                                    run_cli):
    sqlite_db = built_db(kind="sqlite")
    out = tmp_path / "from-sqlite.duckdb"
    code, _, err = run_cli(["export", "-q", "--format", "duckdb", "--out", out, "--db", f"sqlite:///{sqlite_db}"])
    assert code == 0, err
    result = run_old(old_duckdb, READ_LOOKUP, str(out), LOOKUP)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["comment"]  # comments written on export from SQLite too
    latest = tmp_path / "latest.duckdb"
    code, _, err = run_cli(["export", "-q", "--format", "duckdb", "--out", latest, "--storage-version", "latest",
                            "--db", f"sqlite:///{sqlite_db}"])
    assert code == 0, err
    code, out_text, _ = run_cli(["info", "--json", "--db", latest])
    assert json.loads(out_text)["build"]["duckdb_storage_version"] == "latest"
    code, _, err = run_cli(["export", "--format", "csv", "--out", tmp_path / "c", "--storage-version", "v1.2.0",
                            "--db", f"sqlite:///{sqlite_db}"])
    assert code == 2 and "--format duckdb only" in err
