"""Database.prepared (issue 12): DuckDB point reads planned once per connection, each SQL text
under its own name.  The values are written into the EXECUTE text, so only integers pass; each
connection (and each thread's twin) prepares its own statements; the rows are those of the same
query with bound parameters."""

from __future__ import annotations

import pytest

import dicebase
from dicebase.query.base import BadInput

SQL = "SELECT rowid, score, opponent, p_start FROM ten_thousand_duel_bounds WHERE rowid BETWEEN $1 AND $2"


@pytest.fixture(scope="module")
def path(built_db):
    return built_db(("ten_thousand",))


def test_the_rows_are_the_bound_querys(path):
    with dicebase.open(path) as db:
        for lo, hi in [(0, 0), (5, 40), (100, 99), (390, 420)]:
            text = db.prepared(SQL, lo, hi)
            assert text == f"EXECUTE dicebase_0({lo}, {hi})"
            assert db.read(text) == db.fetchall(SQL.replace("$1", "?").replace("$2", "?"), (lo, hi))
        assert dict(db.statistics().prepared) == {SQL: "dicebase_0"}  # prepared once
        other = SQL.replace("p_start", "row_count")  # another statement gets its own name
        assert db.read(db.prepared(other, 3, 9)) == db.fetchall(other.replace("$1", "?").replace("$2", "?"), (3, 9))
        assert db.prepared(SQL, 1, 2) == "EXECUTE dicebase_0(1, 2)"


@pytest.mark.parametrize("values", [("1; DROP TABLE x",), (1.5,), (True,), (None,), ("7",)])
def test_only_integers_are_written_into_the_text(path, values):
    with dicebase.open(path) as db:
        with pytest.raises(BadInput):
            db.prepared(SQL, *values)
        assert not db.statistics().prepared


@pytest.mark.parametrize("sql", [None, 7, b"SELECT 1"])
def test_the_sql_is_text(path, sql):
    with dicebase.open(path) as db, pytest.raises(BadInput):
        db.prepared(sql, 1, 2)


def test_each_threads_twin_prepares_its_own(path):
    with dicebase.open(path) as db:
        text = db.prepared(SQL, 3, 9)
        want = db.read(text)
        twin = db.for_thread()
        try:
            assert not twin.statistics().prepared
            assert twin.read(twin.prepared(SQL, 3, 9)) == want
        finally:
            twin.close()


def test_sqlite_has_none(built_db):
    with dicebase.open(f"sqlite:///{built_db(('ten_thousand',), kind='sqlite')}") as db, pytest.raises(BadInput):
        db.prepared(SQL, 1, 2)
