"""Issue 8 leftover: a build that adds a house rule set (``build --rules FILE``) copies the
unchanged rule sets' rows from the existing file instead of solving them again; its tables
and checksums equal a build from scratch.  A changed package version solves everything."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import dicebase
from dicebase.builder import pipeline
from dicebase.builder.ten_thousand import twoplayer

SMALL = ["-o", "ten-thousand.goal=500", "-o", 'ten-thousand.rules=["ten-thousand"]']


def _house_file(run_cli, tmp_path: Path, goal: int = 300, name: str = "our-table") -> Path:
    code, text, _ = run_cli(["rules", "ten-thousand", "zilch"])
    assert code == 0
    text = (text.replace('name = "zilch"', f'name = "{name}"').replace("straight = 1500", "straight = 1250")
            .replace("two_player = false", "two_player = true").replace("goal = 10000", f"goal = {goal}"))
    path = tmp_path / f"{name}-{goal}.toml"
    path.write_text(text)
    return path


def _tables(path: Path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return dict(con.execute(
            "SELECT table_name, (row_count, checksum) FROM build_tables WHERE game = 'ten_thousand'").fetchall())
    finally:
        con.close()


def _variants(path: Path) -> list:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("SELECT variant, rules_json FROM build_variants WHERE game = 'ten_thousand' "
                           "ORDER BY variant").fetchall()
    finally:
        con.close()


@pytest.fixture(scope="module")
def small_build(tmp_path_factory):
    """``small_build(store, into) -> Path``: a copy at ``into`` of one ``build ten-thousand ... SMALL``
    (the preset's duel to 500), built once per store for this file's tests, which each add to their
    own copy (a file an earlier build wrote: what the keeping reads is in the file, not its path).
    Built before the tests' ``solves`` counter is set up, so the counts start with the added rule set."""
    from conftest import invoke_cli

    built = {}
    for store in ("duckdb", "sqlite"):
        built[store] = tmp_path_factory.mktemp("small") / f"small.{store}"
        code, _, err = invoke_cli(["build", "ten-thousand", "-q", "--db", f"{store}:///{built[store]}", *SMALL])
        assert code == 0, err

    def copy(store: str, into: Path) -> Path:
        shutil.copyfile(built[store], into)
        return into

    return copy


@pytest.fixture
def solves(monkeypatch):
    """The two-player solves run, by rule-set name."""
    names = []
    real = twoplayer.solve

    def counted(rs, *args, **kwargs):
        names.append(rs.name)
        return real(rs, *args, **kwargs)

    monkeypatch.setattr(twoplayer, "solve", counted)
    return names


def test_adding_a_rule_set_keeps_the_others_and_equals_a_fresh_build(run_cli, tmp_path, solves, small_build):
    grown, fresh = small_build("duckdb", tmp_path / "grown.duckdb"), tmp_path / "fresh.duckdb"
    house = _house_file(run_cli, tmp_path)
    before = _tables(grown)

    code, _, err = run_cli(["build", "ten-thousand", "--db", grown, "--rules", house])
    assert code == 0, err
    assert solves == ["our-table"]  # the preset's duel was not solved again
    assert "keeping ten-thousand from the existing file" in err

    code, _, err = run_cli(["build", "ten-thousand", "-q", "--db", fresh, "--rules", house, *SMALL])
    assert code == 0, err
    assert _tables(grown) == _tables(fresh) != before
    assert _variants(grown) == _variants(fresh)
    assert run_cli(["verify", "--db", grown])[0] == 0
    with dicebase.open(grown) as db:
        steps = [s["step"] for s in db.info()["steps"] if s["game"] == "ten_thousand"]
        assert any(s.startswith("ten-thousand: two-player solve") for s in steps)  # kept from the first build
        assert any(s.startswith("our-table: two-player solve") for s in steps)

    # the house rules changed (a new goal): that rule set is solved again, the presets are kept
    code, _, err = run_cli(["build", "ten-thousand", "-q", "--db", grown, "--rules", _house_file(run_cli, tmp_path, 400)])
    assert code == 0, err
    assert solves == ["our-table", "ten-thousand", "our-table", "our-table"]
    fresh2 = tmp_path / "fresh2.duckdb"
    assert run_cli(["build", "ten-thousand", "-q", "--db", fresh2, "--rules", _house_file(run_cli, tmp_path, 400),
                    *SMALL])[0] == 0
    assert _tables(grown) == _tables(fresh2)


def test_sqlite_keeps_the_unchanged_rule_sets_too(run_cli, tmp_path, solves, small_build):
    grown, fresh = small_build("sqlite", tmp_path / "grown.sqlite"), tmp_path / "fresh.sqlite"
    house = _house_file(run_cli, tmp_path)
    assert run_cli(["build", "ten-thousand", "-q", "--db", f"sqlite:///{grown}", "--rules", house])[0] == 0
    assert solves == ["our-table"]
    assert run_cli(["build", "ten-thousand", "-q", "--db", f"sqlite:///{fresh}", "--rules", house, *SMALL])[0] == 0
    with dicebase.open(f"sqlite:///{grown}") as a, dicebase.open(f"sqlite:///{fresh}") as b:
        q = "SELECT table_name, row_count, checksum FROM build_tables WHERE game = 'ten_thousand' ORDER BY 1"
        assert a.fetchall(q) == b.fetchall(q)


def test_another_package_version_solves_everything_again(run_cli, tmp_path, solves, monkeypatch, small_build):
    path = small_build("duckdb", tmp_path / "old.duckdb")
    monkeypatch.setattr(dicebase.version, "__version__", dicebase.__version__ + ".post1")  # what the builder records
    code, _, err = run_cli(["build", "ten-thousand", "--db", path, "--rules", _house_file(run_cli, tmp_path)])
    assert code == 0, err
    assert solves == ["ten-thousand", "our-table"] and "keeping" not in err


def test_a_changed_table_is_not_kept(run_cli, tmp_path, solves, small_build):
    """The same check as a no-op build: a stored value changed by hand means the game is solved again."""
    path = small_build("duckdb", tmp_path / "t.duckdb")
    con = duckdb.connect(str(path))
    con.execute("UPDATE ten_thousand_duel SET p_win = 0.5 WHERE rowid = (SELECT min(rowid) FROM ten_thousand_duel)")
    con.close()
    code, _, err = run_cli(["build", "ten-thousand", "-q", "--db", path, "--rules", _house_file(run_cli, tmp_path)])
    assert code == 0, err
    assert solves == ["ten-thousand", "our-table"]
    assert run_cli(["verify", "--db", path])[0] == 0


def test_kept_rows_are_written_atomically(run_cli, tmp_path, solves, monkeypatch, small_build):
    """A failure after the kept rows were copied leaves the old file as it was."""
    path = small_build("duckdb", tmp_path / "t.duckdb")
    before = _tables(path)

    def fail(*args, **kwargs):
        raise RuntimeError("solver failed on purpose")

    monkeypatch.setattr(twoplayer, "solve", fail)
    with pytest.raises(RuntimeError, match="on purpose"):
        pipeline.build(["ten-thousand"], path, quiet=True, house_rules=[_load(_house_file(run_cli, tmp_path))])
    assert _tables(path) == before and not list(tmp_path.glob("*.tmp-*"))


def _load(path: Path):
    from dicebase.rules.files import load

    return load(path)
