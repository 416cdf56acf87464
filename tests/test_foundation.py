"""The build pipeline, stores, read-only access and core CLI, tested on a toy game."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dicebase
from dicebase.builder import pipeline
from dicebase.query import BadInput, DatabaseMissing, NotInDatabase, ReadOnlyViolation
from dicebase.query.base import NotADicebaseDatabase

TESTS = Path(__file__).parent


@pytest.fixture
def toy():
    import toy_game

    toy_game.register()
    yield toy_game
    toy_game.unregister()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_toy(path: Path, store: str, **options) -> pipeline.BuildReport:
    return pipeline.build(["toy"], f"{store}:///{path}", quiet=True, options={"toy": options})


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_build_writes_rows_views_and_metadata(toy, tmp_path, store):
    path = tmp_path / f"t.{store}"
    report = build_toy(path, store, rows=1000)
    assert report.built == ["toy"] and path.is_file()
    assert not list(tmp_path.glob("*.tmp-*")), "temporary file left behind"
    with dicebase.open(f"{store}:///{path}") as db:
        assert db.fetchone("SELECT count(*), sum(n) FROM toy_values") == (1000, sum(range(1000)))
        assert db.fetchone("SELECT count(*) FROM toy_even")[0] == 500
        info = db.info()
        assert info["build"]["schema_version"] == str(dicebase.SCHEMA_VERSION)
        assert info["build"]["package_version"] == dicebase.__version__
        assert info["build"]["store"] == store
        (variant,) = [v for v in info["variants"] if v["game"] == "toy"]
        assert variant["rules"] == {"rows": 1000} and variant["solver"]["tolerance"] == 0
        (table,) = [t for t in info["tables"] if t["table"] == "toy_values"]
        assert table["rows"] == 1000 and len(table["checksum"]) == 64
        described = dict(db.fetchall("SELECT column_name, description FROM schema_columns WHERE table_name = 'toy_even'"))
        assert described == {"n": "row number", "root": "square root of n"}


def test_duckdb_and_sqlite_hold_identical_content(toy, tmp_path):
    build_toy(tmp_path / "a.duckdb", "duckdb", rows=777)
    build_toy(tmp_path / "a.sqlite", "sqlite", rows=777)
    with dicebase.open(tmp_path / "a.duckdb") as d, dicebase.open(tmp_path / "a.sqlite") as s:
        q = "SELECT n, root, even, label FROM toy_values ORDER BY n"
        assert [(n, r, bool(e), l) for n, r, e, l in d.fetchall(q)] == [(n, r, bool(e), l) for n, r, e, l in s.fetchall(q)]
        q = "SELECT table_name, row_count, checksum FROM build_tables ORDER BY table_name"
        assert d.fetchall(q) == s.fetchall(q)


def test_failed_build_leaves_previous_database_untouched(toy, tmp_path):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=100)
    before = digest(path)
    with pytest.raises(RuntimeError, match="on purpose"):
        build_toy(path, "duckdb", rows=200, fail_after_first_write=True)
    assert digest(path) == before
    assert not list(tmp_path.glob("*.tmp-*"))
    with dicebase.open(path) as db:
        assert db.fetchone("SELECT count(*) FROM toy_values")[0] == 100


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_killed_build_leaves_previous_database_usable(toy, tmp_path, store):
    path = tmp_path / f"t.{store}"
    build_toy(path, store, rows=100)
    before = digest(path)
    signal_file = tmp_path / "midway"
    script = (
        "import sys; sys.path.insert(0, %r); import toy_game; toy_game.register();"
        "from dicebase.builder import pipeline;"
        "pipeline.build(['toy'], %r, quiet=True, options={'toy': {'rows': 5000, 'stall_signal_file': %r}})"
    ) % (str(TESTS), f"{store}:///{path}", str(signal_file))
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    while not signal_file.exists():
        assert proc.poll() is None, "the build ended before reaching its midpoint"
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert list(tmp_path.glob("*.tmp-*")), "the build should be writing a temporary file"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert digest(path) == before
    with dicebase.open(f"{store}:///{path}") as db:
        assert db.fetchone("SELECT count(*) FROM toy_values")[0] == 100
    build_toy(path, store, rows=300)  # the next build cleans up the dead build's temporary
    assert not list(tmp_path.glob("*.tmp-*"))


def test_up_to_date_games_are_skipped_unless_forced(toy, tmp_path):
    path = tmp_path / "t.duckdb"
    assert build_toy(path, "duckdb", rows=10).built == ["toy"]
    before = digest(path)
    report = build_toy(path, "duckdb", rows=10)
    assert report.built == [] and report.skipped == ["toy"] and digest(path) == before
    assert build_toy(path, "duckdb", rows=10).built == []
    report = pipeline.build(["toy"], f"duckdb:///{path}", quiet=True, force=True, options={"toy": {"rows": 10}})
    assert report.built == ["toy"]
    assert build_toy(path, "duckdb", rows=20).built == ["toy"], "changed options must rebuild"


def test_bad_build_requests(toy, tmp_path):
    with pytest.raises(pipeline.BuildError, match="unknown game"):
        pipeline.build(["chess"], tmp_path / "x.duckdb", quiet=True)
    with pytest.raises(pipeline.BuildError, match="unknown option 'nope'"):
        pipeline.build(["toy"], tmp_path / "x.duckdb", quiet=True, options={"toy": {"nope": 1}})
    assert not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO toy_values VALUES (5000, 1.0, true, 'x')",
        "DELETE FROM toy_values",
        "UPDATE toy_values SET root = 0",
        "DROP TABLE toy_values",
        "CREATE TABLE evil (x INTEGER)",
        "ATTACH 'other.db' AS other",
        "SELECT 1; DELETE FROM toy_values",
        "PRAGMA user_version = 3",
    ],
)
def test_sql_command_refuses_writes(toy, tmp_path, run_cli, store, statement):
    path = tmp_path / f"t.{store}"
    build_toy(path, store, rows=10)
    before = digest(path)
    code, out, err = run_cli(["sql", statement, "--db", f"{store}:///{path}"])
    assert code == 2, (out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert digest(path) == before
    assert not (tmp_path / "other.db").exists()


def test_duckdb_sql_cannot_copy_out(toy, tmp_path, run_cli):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=10)
    code, _, err = run_cli(["sql", f"COPY toy_values TO '{tmp_path / 'leak.csv'}'", "--db", str(path)])
    assert code == 2 and not (tmp_path / "leak.csv").exists()
    code, _, err = run_cli(["sql", f"SELECT * FROM read_csv('{path}')", "--db", str(path)])
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_sql_command_formats(toy, tmp_path, run_cli, store):
    path = tmp_path / f"t.{store}"
    build_toy(path, store, rows=10)
    code, out, _ = run_cli(["sql", "SELECT n, label FROM toy_values WHERE n < 3 ORDER BY n", "--db", f"{store}:///{path}", "--json"])
    assert code == 0 and json.loads(out) == [{"n": 0, "label": "0"}, {"n": 1, "label": "1"}, {"n": 2, "label": "2"}]
    code, out, _ = run_cli(["sql", "SELECT n FROM toy_values WHERE n < 2 ORDER BY n", "--db", f"{store}:///{path}", "--format", "csv"])
    assert out == "n\n0\n1\n"
    code, out, _ = run_cli(["sql", "WITH t AS (SELECT max(n) AS m FROM toy_values) SELECT m FROM t", "--db", f"{store}:///{path}"])
    assert code == 0 and "9" in out


def test_missing_database_names_the_build_command(tmp_path, run_cli):
    code, out, err = run_cli(["info", "--db", str(tmp_path / "none.duckdb")])
    assert code == 2 and out == ""
    assert "dicebase build --db" in err and err.count("\n") == 1
    with pytest.raises(DatabaseMissing):
        dicebase.open(tmp_path / "none.sqlite")
    assert not (tmp_path / "none.duckdb").exists() and not (tmp_path / "none.sqlite").exists()


def test_not_a_dicebase_file(tmp_path, run_cli):
    import sqlite3

    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE x (a INTEGER)").connection.commit()
    with pytest.raises(NotADicebaseDatabase, match="not a dicebase database"):
        dicebase.open(other)


@pytest.mark.parametrize("args", [
    ["info", "--db", "postgres:///x"],
    ["info", "--format", "xml"],
    ["build", "--option", "novalue"],
    ["build", "chess", "--db", "{tmp}/x.duckdb"],
    ["build", "toy", "--option", "toy.nope=1", "--db", "{tmp}/x.duckdb"],
    ["frobnicate"],
])
def test_bad_cli_input_is_one_line_exit_2(toy, tmp_path, run_cli, args):
    code, out, err = run_cli([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2, (out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x.duckdb").exists()


def test_info_command(toy, tmp_path, run_cli):
    path = tmp_path / "t.sqlite"
    build_toy(path, "sqlite", rows=10)
    code, out, _ = run_cli(["info", "--db", str(path), "--json"])
    data = json.loads(out)
    assert code == 0 and data["build"]["store"] == "sqlite"
    assert [g["game"] for g in data["games"]] == ["toy"] and data["games"][0]["options"]["rows"] == 10
    code, out, _ = run_cli(["info", "--db", str(path)])
    assert code == 0 and "toy_values" in out and f"schema_version: {dicebase.SCHEMA_VERSION}" in out


@pytest.mark.parametrize("source_store", ["duckdb", "sqlite"])
@pytest.mark.parametrize("fmt", ["sqlite", "duckdb", "parquet", "csv"])
def test_export(toy, tmp_path, run_cli, source_store, fmt):
    src = tmp_path / f"src.{source_store}"
    build_toy(src, source_store, rows=50)
    out = tmp_path / f"out.{fmt}"
    code, stdout, err = run_cli(["export", "--format", fmt, "--out", str(out), "--db", f"{source_store}:///{src}"])
    assert code == 0, err
    if fmt in ("sqlite", "duckdb"):
        with dicebase.open(f"{fmt}:///{out}") as db, dicebase.open(f"{source_store}:///{src}") as orig:
            q = "SELECT n, root, label FROM toy_values ORDER BY n"
            assert db.fetchall(q) == orig.fetchall(q)
            assert db.fetchone("SELECT count(*) FROM toy_even")[0] == 25
            assert db.info()["tables"] == orig.info()["tables"]
    else:
        import duckdb

        got = duckdb.connect().execute(
            f"SELECT count(*), sum(n) FROM '{out / ('toy_values.' + fmt)}'"
        ).fetchone()
        assert got == (50, sum(range(50)))
    code, _, err = run_cli(["export", "--format", fmt, "--out", str(out), "--db", f"{source_store}:///{src}"])
    assert code == 2 and "exists" in err


def test_schema_command(toy, tmp_path, run_cli):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=10)
    code, out, _ = run_cli(["schema", "toy_values", "--db", str(path), "--json"])
    cols = json.loads(out)
    assert code == 0 and [c["column_name"] for c in cols] == ["n", "root", "even", "label"]
    assert cols[0]["is_key"] is True and cols[1]["is_key"] is False
    code, _, err = run_cli(["schema", "nope", "--db", str(path)])
    assert code == 2 and "dicebase schema" in err


def test_location_parsing(tmp_path):
    from dicebase.location import resolve

    assert resolve("sqlite:///rel/x.db").path == Path("rel/x.db")
    assert resolve("duckdb:////abs/x").path == Path("/abs/x")
    assert resolve("x.sqlite").store == "sqlite" and resolve("x.duckdb").store == "duckdb"
    with pytest.raises(ValueError, match="unknown database scheme"):
        resolve("mysql:///x")


def test_unindexed_key_tables_skip_only_the_duckdb_index(tmp_path):
    from sqlalchemy import Column, Integer, MetaData, Table

    from dicebase.builder.store import Writer
    from dicebase.schema import create_table_sql

    t = Table("k", MetaData(), Column("a", Integer, primary_key=True, comment="a"),
              Column("b", Integer, comment="b"), info={"game": "x", "key_index": False})
    assert "PRIMARY KEY" in create_table_sql(t) and "PRIMARY KEY" not in create_table_sql(t, key_constraint=False)
    for store in ("duckdb", "sqlite"):
        w = Writer(tmp_path / f"k.{store}", store)
        w.create_table(t)
        ddl = w.execute("SELECT sql FROM sqlite_master WHERE name = 'k'")[0][0] if store == "sqlite" else \
            w.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'k'")[0][0]
        assert ("PRIMARY KEY" in ddl.upper()) == (store == "sqlite"), ddl
        w.close()


# -- regressions from the issue-2 review ------------------------------------------------

def one_line_error(code: int, err: str) -> bool:
    return code == 2 and err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_export_never_replaces_its_source_or_foreign_files(toy, tmp_path, run_cli):
    src = tmp_path / "src.duckdb"
    build_toy(src, "duckdb", rows=10)
    before = digest(src)
    code, _, err = run_cli(["export", "--format", "sqlite", "--out", str(src), "--force", "--db", str(src)])
    assert one_line_error(code, err) and "being exported" in err and digest(src) == before
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "notes.txt").write_text("precious")
    for fmt in ("csv", "parquet", "sqlite"):
        code, _, err = run_cli(["export", "--format", fmt, "--out", str(victim), "--force", "--db", str(src)])
        assert one_line_error(code, err), err
    assert (victim / "notes.txt").read_text() == "precious" and (victim / "sub").is_dir()
    note = tmp_path / "note.txt"
    note.write_text("keep me")
    code, _, err = run_cli(["export", "--format", "parquet", "--out", str(note), "--force", "--db", str(src)])
    assert one_line_error(code, err) and note.read_text() == "keep me"
    out = tmp_path / "pq"
    assert run_cli(["export", "--format", "parquet", "--out", str(out), "--db", str(src)])[0] == 0
    assert run_cli(["export", "--format", "parquet", "--out", str(out), "--force", "--db", str(src)])[0] == 0
    assert sorted(p.name for p in out.iterdir())[0].endswith(".parquet")
    assert not list(tmp_path.glob("*.tmp-*")) and not list(tmp_path.glob("*.old-*"))


def test_exported_copy_records_its_own_store(toy, tmp_path):
    src = tmp_path / "src.duckdb"
    build_toy(src, "duckdb", rows=10)
    from dicebase.builder.export import export

    with dicebase.open(src) as db:
        export(db, "sqlite", tmp_path / "copy.sqlite")
    with dicebase.open(tmp_path / "copy.sqlite") as db:
        assert db.info()["build"]["store"] == "sqlite"


@pytest.mark.parametrize("content", [b"notes\n", None])
def test_build_refuses_to_replace_a_foreign_file_without_force(toy, tmp_path, run_cli, content):
    target = tmp_path / "other.sqlite"
    if content is None:
        import sqlite3

        con = sqlite3.connect(target)
        con.execute("CREATE TABLE mine (x INTEGER)")
        con.commit()
        con.close()
    else:
        target.write_bytes(content)
    before = digest(target)
    code, _, err = run_cli(["build", "toy", "--db", str(target), "-o", "toy.rows=5", "-q"])
    assert one_line_error(code, err) and "--force" in err and digest(target) == before
    code, _, err = run_cli(["build", "toy", "--db", str(target), "-o", "toy.rows=5", "-q", "--force"])
    assert code == 0, err
    with dicebase.open(target) as db:
        assert db.fetchone("SELECT count(*) FROM toy_values")[0] == 5


def test_build_into_a_directory_fails_before_solving(toy, tmp_path, run_cli):
    code, _, err = run_cli(["build", "toy", "--db", str(tmp_path), "-q"])
    assert one_line_error(code, err) and "directory" in err
    assert list(tmp_path.iterdir()) == []


def test_opening_bad_files_is_one_line(tmp_path, run_cli):
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all " * 100)
    code, _, err = run_cli(["info", "--db", str(junk)])
    assert one_line_error(code, err) and "not a SQLite database" in err
    code, _, err = run_cli(["info", "--db", f"duckdb:///{junk}"])
    assert one_line_error(code, err)
    code, _, err = run_cli(["info", "--db", str(tmp_path)])
    assert one_line_error(code, err) and "directory" in err


def test_database_of_another_schema_version_asks_for_a_rebuild(toy, tmp_path, run_cli):
    import duckdb

    path = tmp_path / "old.duckdb"
    build_toy(path, "duckdb", rows=10)
    con = duckdb.connect(str(path))
    con.execute("UPDATE build_info SET value = '0' WHERE key = 'schema_version'")
    con.close()
    code, _, err = run_cli(["info", "--db", str(path)])
    assert one_line_error(code, err) and "schema version '0'" in err and "--force" in err
    code, _, err = run_cli(["build", "toy", "--db", str(path), "-q"])
    assert one_line_error(code, err), "an old-version file is replaced only with --force"
    assert run_cli(["build", "toy", "--db", str(path), "-q", "--force"])[0] == 0
    assert run_cli(["info", "--db", str(path)])[0] == 0


def test_sql_json_handles_every_result_type(toy, tmp_path, run_cli):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=10)
    query = "SELECT 1.5 AS x, 'nan'::DOUBLE AS y, DATE '2020-01-02' AS d, X'00ff' AS b, 1 AS a, 2 AS a"
    code, out, err = run_cli(["sql", query, "--db", str(path), "--json"])
    assert code == 0, err
    assert json.loads(out) == [{"x": 1.5, "y": None, "d": "2020-01-02", "b": "00ff", "a": 1, "a_2": 2}]
    code, out, _ = run_cli(["sql", "SELECT n, even FROM toy_values WHERE n < 0", "--db", str(path), "--format", "csv"])
    assert code == 0 and out == "n,even\n"
    code, out, _ = run_cli(["sql", "SELECT even FROM toy_values WHERE n = 0", "--db", str(path), "--format", "csv"])
    assert out == "even\ntrue\n"


def test_sql_refuses_explain_analyze(toy, tmp_path, run_cli):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=10)
    code, _, err = run_cli(["sql", "EXPLAIN ANALYZE SELECT 1", "--db", str(path)])
    assert one_line_error(code, err)
    assert run_cli(["sql", "EXPLAIN SELECT 1", "--db", str(path)])[0] == 0


def test_no_arguments_prints_help(run_cli):
    code, out, err = run_cli([])
    assert code == 0 and "Usage: dicebase" in out and err == ""


def test_checksum_does_not_depend_on_chunking():
    import hashlib

    import numpy as np

    from dicebase.checksum import encode

    for values, kind in ((np.arange(1000, dtype=np.int64), "int"), (np.array([str(i) for i in range(1000)], dtype=object), "text"),
                         (np.ma.masked_array(np.arange(1000.0), mask=np.arange(1000) % 7 == 0), "float")):
        whole, parts = hashlib.sha256(), hashlib.sha256()
        whole.update(encode(values, kind))
        for start in range(0, 1000, 143):
            parts.update(encode(values[start:start + 143], kind))
        assert whole.hexdigest() == parts.hexdigest()


def test_build_steps_keep_their_order(toy, tmp_path):
    path = tmp_path / "t.sqlite"
    build_toy(path, "sqlite", rows=10)
    with dicebase.open(path) as db:
        assert [s["step"] for s in db.info()["steps"]] == ["first half", "second half"]


def test_every_command_has_help_with_an_example(run_cli):
    from dicebase.main import cli

    def walk(group, path):
        for name in group.list_commands(None):
            command = group.get_command(None, name)
            yield path + [name], command
            if hasattr(command, "list_commands"):
                yield from walk(command, path + [name])

    for path, command in walk(cli, []):
        code, out, err = run_cli([*path, "--help"])
        assert code == 0, (path, err)
        assert "Example" in out, f"dicebase {' '.join(path)} --help has no Example block"


def test_cli_lookups_import_neither_sqlalchemy_nor_the_solvers(toy, tmp_path):
    path = tmp_path / "t.duckdb"
    build_toy(path, "duckdb", rows=10)
    probe = (
        "import sys\nfrom dicebase.main import main\n"
        "try:\n    main(['sql', 'SELECT 1', '--db', %r])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('sqlalchemy', 'dicebase.builder', 'dicebase.schema') if m in sys.modules))"
    ) % str(path)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("bad", [True, 2.0, 2.5, "2", None, [2]])
def test_one_whole_number_rule_for_every_game(bad):
    """The read API of every game takes ints (and numpy ints), never bools, floats or strings."""
    import numpy as np

    from dicebase.query.base import whole_number

    assert whole_number(np.int16(3), "x") == 3 and whole_number(7, "x") == 7
    with pytest.raises(BadInput, match="x must be a whole number"):
        whole_number(bad, "x")
    with pytest.raises(BadInput):
        whole_number(np.bool_(True), "x")
