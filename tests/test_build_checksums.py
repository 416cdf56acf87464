"""Issue 12 §1: the build computes each table's checksum from the rows it appends (no read-back);
the figures must equal the documented formula over what is stored (dicebase/checksum.py)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import dicebase
from dicebase.checksum import AppendedChecksum, encode, stored_table_checksum, table_checksum

COLUMNS = [("variant", "VARCHAR", True), ("n", "INTEGER", True), ("flag", "BOOLEAN", False), ("x", "DOUBLE", False)]


def reference(rows: list[tuple]) -> str:
    """The formula applied to rows sorted by key, straight from the docstring's steps."""
    rows = sorted(rows, key=lambda r: (r[0], r[1]))
    columns = [(name, data_type) for name, data_type, _ in COLUMNS]
    return table_checksum(lambda name: [[r[[c for c, _ in columns].index(name)] for r in rows]], columns)


def chunk(variant, n, flag, x):
    return {"variant": variant, "n": np.asarray(n), "flag": flag, "x": np.asarray(x, dtype=float)}


def test_in_order_chunks_with_constant_columns_match_the_formula():
    check = AppendedChecksum(COLUMNS)
    check.add(chunk("a", [1, 2, 3], True, [0.5, 0.25, 1.0]), 3)
    check.add(chunk("b", [0, 7], False, [2.0, -1.0]), 2)
    rows = [("a", 1, True, 0.5), ("a", 2, True, 0.25), ("a", 3, True, 1.0), ("b", 0, False, 2.0), ("b", 7, False, -1.0)]
    assert check.in_order and check.hexdigest() == reference(rows)


def test_chunks_out_of_key_order_are_sorted_at_the_end():
    check = AppendedChecksum(COLUMNS)
    check.add(chunk("b", [0, 7], False, [2.0, -1.0]), 2)
    check.add(chunk("a", np.array([3, 1, 2]), np.array([True, False, True]), [1.0, 0.5, 0.25]), 3)
    rows = [("b", 0, False, 2.0), ("b", 7, False, -1.0), ("a", 3, True, 1.0), ("a", 1, False, 0.5), ("a", 2, True, 0.25)]
    assert not check.in_order and check.hexdigest() == reference(rows)


@pytest.mark.parametrize("case", ["nan", "no key", "repeated key", "number in a text column", "too large out of order"])
def test_gives_up_where_the_store_may_differ(case, monkeypatch):
    columns = [(n, t, False) for n, t, _ in COLUMNS] if case == "no key" else COLUMNS
    check = AppendedChecksum(columns)
    if case == "too large out of order":
        monkeypatch.setattr(check, "BUFFER_ROWS", 3)
    good = chunk("b", [1, 2], True, [1.0, 2.0])
    bad = {
        "nan": chunk("c", [1], True, [float("nan")]),
        "no key": chunk("c", [1], True, [1.0]),
        "repeated key": chunk("c", [1, 1], True, [1.0, 2.0]),
        "number in a text column": {**chunk("c", [1], True, [1.0]), "variant": np.array([5], dtype=object)},
        "too large out of order": chunk("a", [1, 2], True, [1.0, 2.0]),
    }[case]
    check.add(good, 2)
    check.add(bad, len(bad["n"]))
    assert check.hexdigest() is None


def test_a_constant_column_hashes_like_the_array_it_stands_for():
    for rows in (1, 5, 70_000, 131_072):
        constant, array = AppendedChecksum(COLUMNS), AppendedChecksum(COLUMNS)
        n = np.arange(rows)
        constant.add(chunk("ten-thousand", n, True, n * 0.5), rows)
        array.add({"variant": np.full(rows, "ten-thousand", dtype=object), "n": n,
                   "flag": np.ones(rows, dtype=bool), "x": n * 0.5}, rows)
        assert constant.hexdigest() == array.hexdigest() is not None


def test_text_encoding_joined_in_c_is_the_documented_bytes():
    values = np.array(["", "a", "é", "ten-thousand", "x\x00y"], dtype=object)
    assert encode(values, "text") == b"".join(v.encode() + b"\x00" for v in values)
    assert encode(np.array(["a", None], dtype=object), "text") == b"a\x00\xff"


@pytest.fixture(params=["duckdb", "sqlite"])
def test_builds(built_db, request):
    """(store, {game: path}): each game's test build (its TEST_OPTIONS) in one store: the session's
    shared databases, which other test files read too, instead of a build of this test's own."""
    from dicebase.builder import registry

    return request.param, {game: built_db((game,), request.param) for game in registry.GAMES}


def test_every_table_of_every_game_gets_its_checksum_without_reading_it_back(test_builds):
    """Every table of the test builds: the checksum recorded equals the formula over the stored rows,
    and the build computed it from the appended rows (conftest records every call the build made to
    pipeline.stored_table_checksum: none)."""
    from conftest import read_backs

    store, paths = test_builds
    recorded = {}
    for game, path in paths.items():
        assert read_backs(path) == [], game
        # whole-table reads: no 60 s query limit (a loaded machine passed it in SQLite)
        with dicebase.open(f"{store}:///{path}", timeout=None) as db:
            tables = db.fetchall("SELECT table_name, checksum FROM build_tables ORDER BY table_name")
            assert tables and {g for (g,) in db.fetchall("SELECT game FROM build_tables")} == {game}
            for table, checksum in tables:
                columns = [(n, t, bool(k)) for n, t, k in db.fetchall(
                    "SELECT column_name, data_type, is_key FROM schema_columns WHERE table_name = ? ORDER BY position",
                    (table,))]
                assert db.call(lambda con: stored_table_checksum(con, store, table, columns)) == checksum, table
                recorded[table] = checksum
    assert len(recorded) > 20
