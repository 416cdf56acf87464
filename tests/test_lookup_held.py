"""``Queries.hold()`` keeps the two-player 10,000 table and Great Rolled Ones' states in memory
(dicebase/query/held.py, issue 12): the held answers must be the file's answers bit for bit, on
every thread of the database, with no query of the held table; a table not laid out as the build
writes it must not be held (its lookups read the file as before); SQLite holds nothing; and
``dicebase serve``'s warm-up holds them and lets go of the blocks that loading read."""

from __future__ import annotations

import pytest

import dicebase
from dicebase.layout.ten_thousand import DUEL
from dicebase.query.base import BadInput, DatabaseClosed, DicebaseError
from dicebase.query.blocks import held_blocks, held_bytes
from dicebase.web import warm
from test_lookup_positions import (GAMES, TWO, _answers, _cases, _reorder, _rolled_answers, _rolled_cases,
                                   _tampered, rolled_two_variants)

KEY = ("ten_thousand_duel", "ten-thousand")


class _Reads(list):
    """The statements that read one table, run by some connections from now on (see :func:`_duel_reads`)."""

    def all_seen(self) -> bool:
        """Whether every statement the connections ran went through the methods watched: their
        public count of queries (``statistics().queries``) grew by as many as were seen."""
        return sum(db.statistics().queries - before for db, before in self.before) == self.seen


def _duel_reads(monkeypatch, dbs, table: str = "ten_thousand_duel") -> _Reads:
    """Every statement the connections ``dbs`` run from now on that reads ``table`` (the 10,000
    bounds table aside), seen through their public query methods; ``all_seen()`` checks that
    ``statistics().queries`` counts no other statement."""
    reads = _Reads()
    reads.seen = 0
    reads.before = [(db, db.statistics().queries) for db in dbs]
    for db in dbs:
        for name in ("fetchall", "fetchone", "fetch_arrays", "columns"):
            def watched(sql, params=(), _real=getattr(db, name)):
                reads.seen += 1
                if f"{table} " in sql + " " and "ten_thousand_duel_bounds" not in sql:
                    reads.append(sql)
                return _real(sql, params)

            monkeypatch.setattr(db, name, watched)
    return reads


def _held_keys(db) -> set:
    return {key[:2] for key in held_blocks(db)}


def test_held_answers_are_the_files_answers_with_no_query(built_db, monkeypatch):
    """Two rule sets and a small goal in one file: hundreds of random two-player bests, states and
    last turns, held and not held (and on SQLite), equal bit for bit; held, they read no row of
    ten_thousand_duel, on the connection and on another thread's twin."""
    path = built_db(GAMES, options=TWO)
    sqlite_path = built_db(GAMES, kind="sqlite", options=TWO)
    with dicebase.open(path) as plain, dicebase.open(path) as held, dicebase.open(f"sqlite:///{sqlite_path}") as lite:
        assert held.ten_thousand.hold() > 0
        assert _held_keys(held) == {KEY, ("ten_thousand_duel", "farkle")}
        twin = held.for_thread()
        for seed, rules in enumerate(["ten-thousand", "farkle"]):
            cases = _cases(plain.ten_thousand, rules, 200, 20 + seed)
            want = _answers(plain, cases)
            assert sum(not isinstance(a, str) for a in want) > 100
            reads = _duel_reads(monkeypatch, (held, twin))
            assert _answers(held, cases) == want
            assert _answers(twin, cases) == want
            assert reads == [] and reads.all_seen()
            monkeypatch.undo()
            assert _answers(lite, cases) == want
        twin.close()


def test_hold_is_what_the_table_holds(built_db):
    """The held arrays are the table: every row's key and p_win, in the table's order."""
    path = built_db(GAMES)
    with dicebase.open(path) as db:
        db.ten_thousand.hold("ten-thousand")
        held = db.ten_thousand.blocks.held(DUEL, ("ten-thousand", db.ten_thousand.goal()))
        rows = db.fetchall("SELECT turn_total, dice, triple, p_win FROM ten_thousand_duel WHERE rules = 'ten-thousand' "
                           "ORDER BY score, opponent, turn_total, dice, triple")
    assert len(rows) == len(held.keys) == len(held.p_win)
    assert [k // 50 * 64 + d * 8 + t for k, d, t, _p in rows] == held.keys.tolist()
    assert [p for *_key, p in rows] == held.p_win.tolist()
    assert held.nbytes >= held.keys.nbytes + held.p_win.nbytes


@pytest.mark.parametrize("sql", [
    _reorder("ten_thousand_duel", "rules, goal, score, opponent, turn_total DESC, dice, triple"),
    _reorder("ten_thousand_duel", "score DESC, opponent, turn_total, dice, triple"),
    ["UPDATE ten_thousand_duel SET p_win = p_win / 2 WHERE score = 300 AND opponent = 450 AND turn_total = 0",
     "CHECKPOINT"],
    ["UPDATE ten_thousand_duel_bounds SET row_count = row_count + 1 WHERE score = 300 AND opponent = 450",
     "CHECKPOINT"],
    ["UPDATE ten_thousand_duel SET opponent = 500 WHERE score = 300 AND opponent = 450 AND turn_total = 100",
     "CHECKPOINT"],
], ids=["reordered-within-pairs", "scores-reversed", "p-start-differs", "a-count-off-by-one", "a-row-of-another-pair"])
def test_a_table_not_as_the_build_wrote_it_is_not_held(built_db, tmp_path, sql):
    """Rows reordered, a pair's first row or count not the bounds', a row of the wrong pair: hold()
    keeps nothing, and the answers are those of the file read as before."""
    src = built_db(GAMES)
    path = _tampered(src, tmp_path, sql)
    with dicebase.open(path) as plain:
        cases = [c for c in _cases(plain.ten_thousand, "ten-thousand", 150, 30) if c[0] == "state" or "score" in c[2]]
        want = _answers(plain, cases)
    with dicebase.open(path) as db:
        assert db.ten_thousand.hold() == 0
        assert held_blocks(db) == set()
        assert _answers(db, cases) == want


def test_sqlite_holds_nothing_a_stopped_hold_holds_nothing_and_close_lets_go(built_db):
    with dicebase.open(f"sqlite:///{built_db(GAMES, kind='sqlite')}") as lite:
        assert lite.ten_thousand.hold() == 0 and held_blocks(lite) == set()
    db = dicebase.open(built_db(GAMES))
    with pytest.raises(BadInput, match="stop must be a function"):
        db.ten_thousand.hold(stop="soon")
    with pytest.raises(DicebaseError):
        db.ten_thousand.hold("no-such-rules")
    assert db.ten_thousand.hold(stop=lambda: True) == 0 and held_blocks(db) == set()
    assert db.ten_thousand.hold() > 0 and _held_keys(db) == {KEY}
    # loading may pass 2 s on a cold file: no DuckDB progress bar drawn on the user's terminal
    assert db.fetchone("SELECT current_setting('enable_progress_bar')")[0] is False
    again = db.ten_thousand.hold()  # already held: nothing read again
    assert again == held_bytes(db)
    db.close()
    assert held_blocks(db) == set()
    with pytest.raises(DatabaseClosed):
        db.ten_thousand.best([1, 5, 2], turn_total=0, score=300, opponent=450)


def test_the_server_warm_up_holds_the_table_and_lets_go_of_its_blocks(built_db, monkeypatch):
    """Warming a DuckDB file with the two-player game holds it; the blocks its loading read leave
    the buffer pool (emptying it works; in a file this small the tables share blocks, so the
    pool ends no larger than a warm-up that scans the table instead), the memory limit is the
    one the file was opened with, and the line counts what is held and what the other tables
    hold in the buffer pool."""
    path = built_db(("ten_thousand",))  # the shared 10,000 test build (other tests read it too)

    def pool(db) -> int:
        return db.fetchone("SELECT memory_usage_bytes FROM duckdb_memory() WHERE tag = 'BASE_TABLE'")[0]

    said: list[str] = []
    with dicebase.open(path, memory_limit="1GB") as db:
        limit = db.fetchone("SELECT current_setting('memory_limit')")[0]
        warm.Warmer(db, say=said.append).run()
        assert _held_keys(db) == {KEY}
        held = held_bytes(db)
        pooled = pool(db)
        assert db.fetchone("SELECT current_setting('memory_limit')")[0] == limit
    assert len(said) == 1 and said[0].startswith(f"dicebase: loaded the tables into memory ({(held + pooled) / 1e6:,.0f} MB")
    monkeypatch.setattr(type(db.ten_thousand), "hold", lambda self, rules=None, stop=None: 0)
    with dicebase.open(path, memory_limit="1GB") as scanned:
        warm.Warmer(scanned, say=said.append).run()
        full = pool(scanned)
        assert held_blocks(scanned) == set() and full >= pooled
        monkeypatch.setattr(warm, "DROP_POOL_LIMIT", "4MB")  # below what this small file's tables hold
        warm.Warmer.drop_buffer_pool(scanned)
        assert pool(scanned) <= 4e6 < full
        assert scanned.fetchone("SELECT current_setting('memory_limit')")[0] == limit


def test_rolled_ones_held_answers_are_the_files_answers_with_no_query(rolled_two_variants, monkeypatch):
    """Two variants in one file: random best and policy lookups, held and not held (and on
    SQLite), equal bit for bit; held, they read no row of rolled_ones_states, on the connection
    and on another thread's twin."""
    path = rolled_two_variants["duckdb"]
    with dicebase.open(path) as plain, dicebase.open(path) as held, \
            dicebase.open(f"sqlite:///{rolled_two_variants['sqlite']}") as lite:
        cases = _rolled_cases(plain.rolled_ones, 5)
        want = _rolled_answers(plain, cases)
        assert sum(not isinstance(a, str) for a in want) > 300
        assert held.rolled_ones.hold() > 0
        assert _held_keys(held) == {("rolled_ones_states", "goal8-dice5-ones3"), ("rolled_ones_states", "quick")}
        twin = held.for_thread()
        twin.rolled_ones.best(1, 0, 0, 0, 0, variant="quick")  # its variants and block ends: read once
        twin.rolled_ones.best(1, 0, 0, 0, 0, variant="goal8-dice5-ones3")
        reads = _duel_reads(monkeypatch, (held, twin), "rolled_ones_states")
        assert _rolled_answers(held, cases) == want
        assert _rolled_answers(twin, cases) == want
        assert reads == [] and reads.all_seen()
        monkeypatch.undo()
        assert _rolled_answers(lite, cases) == want
        assert lite.rolled_ones.hold() == 0 and held_blocks(lite) == set()
        with pytest.raises(BadInput, match="stop must be a function"):
            held.rolled_ones.hold(stop=3)
        with pytest.raises(DicebaseError):
            held.rolled_ones.hold("no-such-variant")
        twin.close()


@pytest.mark.parametrize("order", ["variant, p, i, j DESC, k, o", "variant DESC, p, i, j, k, o"],
                         ids=["reordered-within-a-variant", "variants-reversed"])
def test_rolled_ones_states_not_as_the_build_wrote_them_are_not_held(rolled_two_variants, tmp_path, order):
    src = rolled_two_variants["duckdb"]
    with dicebase.open(src) as plain:
        cases = _rolled_cases(plain.rolled_ones, 6, count=150)
        want = _rolled_answers(plain, cases)
    path = _tampered(src, tmp_path, _reorder("rolled_ones_states", order))
    with dicebase.open(path) as db:
        assert db.rolled_ones.hold() == 0 and held_blocks(db) == set()
        assert _rolled_answers(db, cases) == want
