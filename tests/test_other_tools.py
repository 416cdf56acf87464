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
