"""Issue 25, item 2: ``verify`` covers the whole file: every game table, every metadata table,
every view's definition, and the relations themselves, on both stores; a file built before the
metadata had checksums is checked where it can be and says what was not checked."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest

import dicebase
from dicebase.checksum import CHECKSUMS_KEY, METADATA_TABLES, VIEW_KEY
from dicebase.query.verify import failure, unchecked, verify

STORES = ["duckdb", "sqlite"]


@pytest.fixture(scope="module")
def dbs(built_db):
    return {store: built_db(("threes",), kind=store) for store in STORES}


def tampered(dbs, store, tmp_path, *statements):
    """A copy of the store's file with ``statements`` run on it by the engine itself (writable)."""
    copy = tmp_path / f"copy.{store}"
    copy.write_bytes(dbs[store].read_bytes())
    if store == "duckdb":
        import duckdb

        con = duckdb.connect(str(copy))
        for sql in statements:
            con.execute(sql)
    else:
        con = sqlite3.connect(copy)
        for sql in statements:
            con.execute(sql)
        con.commit()
    con.close()
    return copy


def checked(store, path):
    with dicebase.open(f"{store}:///{path}", timeout=None) as db:
        checks = verify(db)
        return checks, failure(db, checks), unchecked(checks)


def run_verify(run_cli, store, path):
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    result = run_cli(["verify", "--db", f"{store}:///{path}"])
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, "verify changed the file"
    return result


@pytest.mark.parametrize("store", STORES)
def test_a_fresh_build_verifies_every_table_view_and_metadata_table(dbs, store, run_cli):
    checks, error, skipped = checked(store, dbs[store])
    kinds = {(c.kind, c.table) for c in checks}
    assert {("table", t) for t in METADATA_TABLES} <= kinds
    assert ("view", "threes_chances") in kinds and ("table", "threes_win") in kinds
    assert all(c.status == "ok" for c in checks) and error is None and skipped is None
    code, out, err = run_verify(run_cli, store, dbs[store])
    assert code == 0 and "MISMATCH" not in out, err


@pytest.mark.parametrize("game", ["rolled_ones", "ten_thousand"])
def test_every_game_verifies_fresh_and_its_view_checksums_agree_across_stores(built_db, game):
    """Great Rolled Ones' views are long UNION ALL chains, which DuckDB writes back re-nested:
    on a fresh build every view's definition still matches its recorded checksum (what verify
    compares; the game tables are verify's older check, tested above), and each view's checksum
    is the same on both stores."""
    from dicebase.checksum import relations_in, view_checksum

    recorded = {}
    for store in STORES:
        with dicebase.open(f"{store}:///{built_db((game,), kind=store)}", timeout=None) as db:
            views = {name: sql for name, (kind, sql) in db.call(lambda con: relations_in(con, store)).items()
                     if kind == "view"}
            recorded[store] = dict(db.fetchall("SELECT key, value FROM build_info WHERE key LIKE ?", (VIEW_KEY + "%",)))
            assert views and {VIEW_KEY + name: view_checksum(sql) for name, sql in views.items()} == recorded[store]
    assert recorded["duckdb"] == recorded["sqlite"]


@pytest.mark.parametrize("store", STORES)
def test_the_recorded_checksums_of_views_and_catalogue_are_the_same_on_both_stores(dbs, store):
    rows = {}
    for each in STORES:
        with dicebase.open(f"{each}:///{dbs[each]}") as db:
            rows[each] = dict(db.fetchall("SELECT key, value FROM build_info WHERE key LIKE 'checksum:%'"))
    for key in rows["duckdb"]:
        if key.startswith(VIEW_KEY) or key in ("checksum:table:schema_tables", "checksum:table:schema_columns"):
            assert rows["duckdb"][key] == rows["sqlite"][key], key


REDEFINE = {
    "duckdb": ["CREATE OR REPLACE VIEW threes_chances AS SELECT 'classic' AS variant, 'shared' AS ties, 1 AS dice_left, "
               "false AS must_keep_two, 0 AS target, 1.0 AS p_win"],
    "sqlite": ["PRAGMA writable_schema = ON",
               "UPDATE sqlite_master SET sql = 'CREATE VIEW threes_chances AS SELECT ''classic'' AS variant, 1.0 AS p_win' "
               "WHERE name = 'threes_chances'"],
}


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("fault,statements,table,status", [
    ("redefined view", None, "threes_chances", "MISMATCH"),
    ("edited build_games row", ["UPDATE build_games SET options_json = '{}'"], "build_games", "MISMATCH"),
    ("edited build_variants row", ["UPDATE build_variants SET solver_json = '{}' WHERE variant = 'classic'"],
     "build_variants", "MISMATCH"),
    ("edited catalogue", ["UPDATE schema_columns SET description = 'x' WHERE position = 1"], "schema_columns", "MISMATCH"),
    ("edited build fact", ["UPDATE build_info SET value = 'x' WHERE key = 'package_version'"], "build_info", "MISMATCH"),
    ("edited game checksum", ["UPDATE build_tables SET checksum = 'x' WHERE table_name = 'threes_win'"],
     "build_tables", "MISMATCH"),
    ("dropped view", ["DROP VIEW threes_seat_totals"], "threes_seat_totals", "MISSING"),
    ("added table", ["CREATE TABLE stray (a INTEGER)"], "stray", "EXTRA"),
    ("removed checksum row", ["DELETE FROM build_info WHERE key = 'checksum:view:threes_chances'"],
     CHECKSUMS_KEY, "MISMATCH"),
])
def test_each_change_outside_the_game_tables_fails_verify(dbs, store, tmp_path, run_cli, fault, statements, table, status):
    copy = tampered(dbs, store, tmp_path, *(statements or REDEFINE[store]))
    checks, error, _ = checked(store, copy)
    bad = {c.table: c for c in checks if c.status not in ("ok", "not checked")}
    assert table in bad and bad[table].status == status, (fault, [c.line() for c in bad.values()])
    assert error is not None and error.exit_code == 1 and "\n" not in str(error)
    assert "rebuild with: dicebase build threes" in str(error) and "--force" in str(error)
    code, out, err = run_verify(run_cli, store, copy)
    assert code == 1 and len(err.strip().splitlines()) == 1, (fault, err)
    # the command prints each check's own status and names a rebuild of the file's games
    assert any(line.split()[:2] == [status, table] for line in out.splitlines()), (fault, out)
    assert "dicebase build threes" in err and "build core" not in err, err


@pytest.mark.parametrize("store", STORES)
def test_a_file_built_before_the_metadata_checksums_verifies_what_it_can(dbs, store, tmp_path, run_cli):
    copy = tampered(dbs, store, tmp_path, "DELETE FROM build_info WHERE key LIKE 'checksum:%'")
    checks, error, skipped = checked(store, copy)
    assert error is None and skipped and "not checked" in skipped and "rebuild with --force" in skipped
    assert {c.table for c in checks if c.status == "not checked"} >= set(METADATA_TABLES) | {"threes_chances"}
    assert all(c.status == "ok" for c in checks if c.status != "not checked")
    code, out, err = run_verify(run_cli, store, copy)
    assert code == 0 and "not checked" in err, err
    assert any(line.split()[:3] == ["not", "checked", "threes_chances"] for line in out.splitlines()), out
    # its game tables are still checked
    copy = tampered(dbs, store, tmp_path, "DELETE FROM build_info WHERE key LIKE 'checksum:%'",
                    "UPDATE threes_seats SET p_win = p_win + 0.5 WHERE players = 2")
    checks, error, _ = checked(store, copy)
    assert error is not None and [c.table for c in checks if c.status == "MISMATCH"] == ["threes_seats"]


def _damage_duckdb_block(path, table: str) -> None:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    (block,) = con.execute(f"SELECT min(block_id) FROM pragma_storage_info('{table}') WHERE block_id >= 0").fetchone()
    (block_size,) = con.execute("SELECT block_size FROM pragma_database_size()").fetchone()
    con.close()
    with open(path, "r+b") as handle:
        handle.seek(3 * 4096 + block * block_size + 200)  # past the 3 file headers and the block's own checksum
        handle.write(b"\xde\xad\xbe\xef" * 4)


def _damage_sqlite_page(path, table: str) -> None:
    con = sqlite3.connect(path)
    (root,) = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    (page_size,) = con.execute("PRAGMA page_size").fetchone()
    con.close()
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * 16)  # the page header: not a b-tree page any more


@pytest.mark.parametrize("store", STORES)
def test_a_damaged_block_of_a_metadata_table_fails_verify(dbs, store, tmp_path, run_cli):
    copy = tmp_path / f"damaged.{store}"
    copy.write_bytes(dbs[store].read_bytes())
    (_damage_duckdb_block if store == "duckdb" else _damage_sqlite_page)(copy, "schema_tables")
    checks, error, _ = checked(store, copy)
    bad = {c.table: c.status for c in checks if c.status not in ("ok", "not checked")}
    assert bad.get("schema_tables") in ("UNREADABLE", "MISMATCH"), bad
    assert error is not None and error.exit_code == 1
    code, out, err = run_verify(run_cli, store, copy)
    assert code != 0 and len(err.strip().splitlines()) == 1, err
