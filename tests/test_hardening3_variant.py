"""Issue 34 §12: adding one rule set to a built database costs about its own solve and its own
tables, not a read of every kept table and a rewrite of the whole file.

As found: README's ``dicebase build ten-thousand --rules our-table.toml`` on the default database
took 162 s for a 4.97 s solve, checksumming the kept rule sets twice and rewriting the file
(benchmarks/add_variant.py measures it).  Now a file that is still the one its build wrote (its
modification time is that build's stamp, no write-ahead log beside it) keeps the checksums it
records; the build appends inside a copy of the file's bytes and reads back only the tables it
wrote to.  Each test runs ``dicebase`` in its own process on real files, and the result equals a
build of the same rule sets from scratch (every table's row count and checksum, the rule sets,
``verify``, a lookup).  A file changed after its build, or a change a killed process left in a
write-ahead log, is read and checked as before.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from dicebase.checksum import column_chunks, stored_table_checksum, table_checksum

SMALL = ["-o", "ten-thousand.goal=500", "-o", 'ten-thousand.rules=["ten-thousand"]']
STAMPED = "keeping their recorded checksums"
CHECKING = "checking the stored tables of ten_thousand against their checksums"


def dicebase(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dicebase", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=1800)


def url(store: str, path: Path) -> str:
    return str(path) if store == "duckdb" else f"sqlite:///{path}"


def readme_rules(directory: Path) -> Path:
    """README's edit of the farkle preset: name = "our-table", three_pairs = 750."""
    text = dicebase("rules", "ten-thousand", "farkle", cwd=directory).stdout
    assert 'name = "farkle"' in text and "three_pairs = 1500" in text
    path = directory / "our-table.toml"
    path.write_text(text.replace('name = "farkle"', 'name = "our-table"').replace("three_pairs = 1500",
                                                                                 "three_pairs = 750"))
    return path


def duel_rules(directory: Path) -> Path:
    """A rule set with its two-player game (to 300): the build adds rows to the duel's tables too."""
    text = dicebase("rules", "ten-thousand", "zilch", cwd=directory).stdout
    text = (text.replace('name = "zilch"', 'name = "our-duel"').replace("straight = 1500", "straight = 1250")
            .replace("two_player = false", "two_player = true").replace("goal = 10000", "goal = 300"))
    path = directory / "our-duel.toml"
    path.write_text(text)
    return path


def recorded(store: str, path: Path) -> dict:
    """What the file records of ten-thousand: each table's (rows, checksum), each rule set's rules."""
    import sqlite3

    con = duckdb.connect(str(path), read_only=True) if store == "duckdb" else sqlite3.connect(path)
    try:
        tables = con.execute("SELECT table_name, row_count, checksum FROM build_tables "
                             "WHERE game = 'ten_thousand' ORDER BY 1").fetchall()
        variants = con.execute("SELECT variant, rules_json FROM build_variants WHERE game = 'ten_thousand' "
                               "ORDER BY 1").fetchall()
    finally:
        con.close()
    return {"tables": [tuple(row) for row in tables], "variants": [tuple(row) for row in variants]}


def lookup(store: str, path: Path, cwd: Path) -> dict:
    done = dicebase("ten-thousand", "best", "2", "2", "4", "4", "6", "6", "--turn-total", "0", "--variant",
                    "our-table", "--json", "--db", url(store, path), cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """``builds(store, name) -> Path``, each built once for this file by ``dicebase build`` (never
    copied, so its modification time is its build's stamp): ``base`` is ten-thousand to 500 with
    its duel; ``fresh`` the same with README's rule set; ``fresh2`` with README's and our-duel."""
    root = tmp_path_factory.mktemp("variant")
    made: dict = {}

    def get(store: str, name: str) -> Path:
        if (store, name) not in made:
            path = root / f"{name}.{store}"
            rules = {"base": [], "fresh": [readme_rules(root)], "fresh2": [readme_rules(root), duel_rules(root)]}[name]
            done = dicebase("build", "ten-thousand", "-q", "--db", url(store, path), *SMALL,
                            *(a for r in rules for a in ("--rules", r)), cwd=root)
            assert done.returncode == 0, done.stderr
            made[store, name] = path
        return made[store, name]

    return get


def grown_copy(builds, store: str, into: Path) -> Path:
    """The base file as its build left it: a copy with the same bytes and modification time."""
    base = builds(store, "base")
    path = into / f"grown.{store}"
    shutil.copy2(base, path)
    assert os.stat(path).st_mtime_ns == os.stat(base).st_mtime_ns
    return path


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_readme_rule_set_is_added_without_reading_the_kept_tables(builds, tmp_path, store):
    grown = grown_copy(builds, store, tmp_path)
    done = dicebase("build", "ten-thousand", "--db", url(store, grown), "--rules", readme_rules(tmp_path),
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert STAMPED in done.stderr and CHECKING not in done.stderr
    assert "keeping ten-thousand from the existing file" in done.stderr
    assert "ten-thousand: two-player solve" not in done.stderr  # the kept duel is not solved again

    fresh = builds(store, "fresh")
    assert recorded(store, grown) == recorded(store, fresh)
    assert dicebase("verify", "--db", url(store, grown), cwd=tmp_path).returncode == 0
    assert lookup(store, grown, tmp_path) == lookup(store, fresh, tmp_path)

    # the next rule set, with its two-player game, finds the file that build wrote: stamped again
    done = dicebase("build", "ten-thousand", "--db", url(store, grown), "--rules", duel_rules(tmp_path),
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert STAMPED in done.stderr and CHECKING not in done.stderr
    assert "keeping ten-thousand, our-table from the existing file" in done.stderr
    assert recorded(store, grown) == recorded(store, builds(store, "fresh2"))
    assert dicebase("verify", "--db", url(store, grown), cwd=tmp_path).returncode == 0


def _change_a_value(store: str, path: Path, then_kill: bool = False) -> None:
    """In another process, as a user would: change one stored probability of the kept duel."""
    key = ["rules", "goal", "score", "opponent", "turn_total", "dice", "triple"]
    engine = ("import duckdb; con = duckdb.connect(PATH)" if store == "duckdb" else
              "import sqlite3; con = sqlite3.connect(PATH, isolation_level=None)")
    end = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)" if then_kill else "con.close()"
    script = "\n".join([
        f"PATH = {str(path)!r}", engine,
        f"row = con.execute('SELECT {', '.join(key)} FROM ten_thousand_duel ORDER BY {', '.join(key)} LIMIT 1').fetchone()",
        f"con.execute('UPDATE ten_thousand_duel SET p_win = 0.123456789 WHERE {' AND '.join(k + ' = ?' for k in key)}', "
        "list(row))",
        "assert con.execute('SELECT count(*) FROM ten_thousand_duel WHERE p_win = 0.123456789').fetchone()[0] == 1",
        end, ""])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == (-9 if then_kill else 0), done.stderr


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_file_changed_after_its_build_is_read_and_the_change_not_kept(builds, tmp_path, store):
    grown = grown_copy(builds, store, tmp_path)
    stamp = os.stat(grown).st_mtime_ns
    _change_a_value(store, grown)
    assert os.stat(grown).st_mtime_ns != stamp
    done = dicebase("build", "ten-thousand", "--db", url(store, grown), "--rules", readme_rules(tmp_path),
                    cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert CHECKING in done.stderr and STAMPED not in done.stderr
    assert "ten-thousand: two-player solve" in done.stderr  # the changed rule set is solved again
    assert recorded(store, grown) == recorded(store, builds(store, "fresh"))
    assert dicebase("verify", "--db", url(store, grown), cwd=tmp_path).returncode == 0


def test_a_change_a_killed_process_left_in_the_log_is_read_and_the_log_removed(builds, tmp_path):
    """DuckDB keeps a killed writer's committed change in ``FILE.wal``: the file's bytes and time are
    as its build left them, but the engine reads the change.  The build reads it too (not trusting
    the stamp), does not keep it, and leaves no log beside the new file (it would not open)."""
    grown = grown_copy(builds, "duckdb", tmp_path)
    stamp = os.stat(grown).st_mtime_ns
    _change_a_value("duckdb", grown, then_kill=True)
    log = grown.with_name(grown.name + ".wal")
    assert log.exists() and os.stat(grown).st_mtime_ns == stamp
    done = dicebase("build", "ten-thousand", "--db", grown, "--rules", readme_rules(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert CHECKING in done.stderr and STAMPED not in done.stderr
    assert "ten-thousand: two-player solve" in done.stderr
    assert not log.exists()
    assert recorded("duckdb", grown) == recorded("duckdb", builds("duckdb", "fresh"))
    assert dicebase("verify", "--db", grown, cwd=tmp_path).returncode == 0
    assert lookup("duckdb", grown, tmp_path) == lookup("duckdb", builds("duckdb", "fresh"), tmp_path)


def test_the_stamp_is_what_the_build_trusts_and_verify_still_reads_everything(builds, tmp_path):
    """The kept tables are not read: a value changed by hand with the file's time set back to the
    stamp is carried over (as a matching checksum written by hand would be), and ``verify``, which
    reads every table, names the table."""
    grown = grown_copy(builds, "duckdb", tmp_path)
    stamp = os.stat(grown).st_mtime_ns
    _change_a_value("duckdb", grown)
    os.utime(grown, ns=(stamp, stamp))
    done = dicebase("build", "ten-thousand", "--db", grown, "--rules", readme_rules(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert STAMPED in done.stderr and "ten-thousand: two-player solve" not in done.stderr
    checked = dicebase("verify", "--db", grown, cwd=tmp_path)
    assert checked.returncode != 0 and "ten_thousand_duel" in checked.stdout + checked.stderr


@pytest.mark.parametrize("order", ["in key order", "rule sets in build order", "shuffled", "with deleted rows"])
def test_the_checksum_read_in_stored_order_is_the_formula(tmp_path, order):
    """The checksum of a DuckDB table read in its stored order, where that is the key order
    within each rule set, equals the formula's sorted read, whatever order the rows are in."""
    import numpy as np

    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE t (rules VARCHAR, score INTEGER, dice SMALLINT, name VARCHAR, p DOUBLE, "
                "PRIMARY KEY (rules, score, dice))")
    rng = np.random.default_rng(34)
    frames = []
    for rules in (["zilch", "farkle", "ten-thousand"] if order != "in key order" else ["farkle", "ten-thousand"]):
        score, dice = np.divmod(np.arange(60_000), 6)
        frames.append((rules, score, dice + 1, np.where(score % 7 == 0, "x", "y"), rng.random(60_000)))
    for rules, score, dice, name, p in frames:
        index = rng.permutation(len(score)) if order == "shuffled" else np.arange(len(score))
        frame = {"score": score[index], "dice": dice[index], "name": name[index].astype(object), "p": p[index]}
        con.register("frame", frame)
        con.execute("INSERT INTO t SELECT ?, score, dice, name, p FROM frame", [rules])
        con.unregister("frame")
    if order == "with deleted rows":
        con.execute("DELETE FROM t WHERE score % 5 = 0")
    columns = [("rules", "VARCHAR", True), ("score", "INTEGER", True), ("dice", "SMALLINT", True),
               ("name", "VARCHAR", False), ("p", "DOUBLE", False)]
    formula = table_checksum(column_chunks(con, "duckdb", "t", ["rules", "score", "dice"]),
                             [(n, t) for n, t, _ in columns])
    assert stored_table_checksum(con, "duckdb", "t", columns) == formula
    con.close()
