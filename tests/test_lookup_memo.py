"""The per-connection read memo behind the lookups (issue 12 §2): a remembered lookup gives the
answer of an uncached one, for every variant and rule set, in both stores; close() drops it; a
thread's twin has its own; its size is bounded.  Timings are measured by benchmarks/, not here."""

from __future__ import annotations

import pytest

import dicebase
from dicebase.query.base import DatabaseClosed

STORES = ("duckdb", "sqlite")
SMALL_ROLLED_ONES = {"rolled_ones": {"goal": 20, "turn_total_bound": 50, "komi_max": 5}}


@pytest.fixture(scope="module", params=STORES)
def paths(request, built_db):
    """(store, {game: path}) with the games' TEST_OPTIONS builds (shared with the other test files)."""
    store = request.param
    return store, {
        "threes": built_db(("threes",), kind=store),
        "ten_thousand": built_db(("ten_thousand",), kind=store),
        "rolled_ones": built_db(("rolled_ones",), kind=store, options=SMALL_ROLLED_ONES),
    }


def _count_queries(db, monkeypatch) -> list[str]:
    """Every statement the database runs from now on."""
    seen: list[str] = []
    fetchall = db.fetchall

    def counting(sql, params=()):
        seen.append(sql)
        return fetchall(sql, params)

    monkeypatch.setattr(db, "fetchall", counting)
    return seen


def _threes_lookups():
    for variant in ("classic", "reroll"):
        for ties in ("shared", "strict"):
            yield lambda db, v=variant, t=ties: db.threes.best([4, 3, 1, 1, 2], variant=v, ties=t, to_beat=7,
                                                             players_after=1)
            yield lambda db, v=variant, t=ties: db.threes.chances(variant=v, ties=t)
            yield lambda db, v=variant, t=ties: db.threes.chances(variant=v, ties=t, dice=3)
            yield lambda db, v=variant, t=ties: db.threes.p_win(3, variant=v, ties=t, score=2, to_beat=9)


def _ten_thousand_lookups():
    yield lambda db: db.ten_thousand.best([1, 1, 5, 2, 3, 4], turn_total=0)
    yield lambda db: db.ten_thousand.best([1, 5, 5], turn_total=300)
    for score, opponent, turn_total in ((600, 750, 300), (750, 600, 300), (800, 900, 150), (0, 0, 300)):
        yield lambda db, s=score, o=opponent, k=turn_total: db.ten_thousand.best([1, 5, 5], turn_total=k, score=s,
                                                                                opponent=o)
        yield lambda db, s=score, o=opponent, k=turn_total: db.ten_thousand.state(s, o, k, 3)
    yield lambda db: db.ten_thousand.best([1, 5, 2], turn_total=300, score=600, opponent=1100)  # last turn
    yield lambda db: db.ten_thousand.state(600, 1100, 300, 3)
    yield lambda db: db.ten_thousand.state(900, 950, 150, 3)  # banking reaches the goal: exceed values


def _rolled_ones_lookups():
    for state in ((1, 0, 0, 0, 0), (2, 10, 12, 0, 0), (1, 5, 15, 5, 0), (2, 18, 19, 10, 0)):
        yield lambda db, s=state: db.rolled_ones.best(*s)
        yield lambda db, s=state: db.rolled_ones.policy("keep_pace_end_race", *s)


LOOKUPS = {"threes": _threes_lookups, "ten_thousand": _ten_thousand_lookups, "rolled_ones": _rolled_ones_lookups}


@pytest.mark.parametrize("game", list(LOOKUPS))
def test_a_remembered_lookup_equals_an_uncached_one(paths, game):
    """Every lookup twice on one connection (the second from the memo), interleaved with the
    others (other variants, tie rules, scores), against the same lookup on a fresh connection."""
    _, path = paths
    lookups = list(LOOKUPS[game]())
    with dicebase.open(path[game]) as db:
        first = [fn(db) for fn in lookups]
        again = [fn(db) for fn in reversed(lookups)][::-1]
    for fn, a, b in zip(lookups, first, again):
        with dicebase.open(path[game]) as fresh:
            assert fn(fresh) == a == b


def test_variants_do_not_share_remembered_answers(paths):
    """classic and reroll (and shared and strict ties) are different keys of the memo."""
    _, path = paths
    with dicebase.open(path["threes"]) as db:
        answers = {(v, t): db.threes.chances(variant=v, ties=t) for v in ("classic", "reroll") for t in ("shared", "strict")}
        assert len({tuple(a) for a in answers.values()}) == 4
        assert {(v, t): db.threes.chances(variant=v, ties=t)
                for v in ("classic", "reroll") for t in ("shared", "strict")} == answers


def test_a_remembered_lookup_runs_no_query(paths, monkeypatch):
    """Once the connection holds what it keeps whole (the bounds block, read at its second
    two-player lookup), a repeated lookup runs no query."""
    _, path = paths
    with dicebase.open(path["ten_thousand"]) as db:
        lookup = lambda: db.ten_thousand.state(600, 750, 300, 3)  # noqa: E731
        expected = lookup()
        assert db.ten_thousand.bounds_in_memory() is None
        before = db.statistics().queries
        assert lookup() == expected  # the second: reads the bounds block once
        assert db.statistics().queries > before, "the second lookup reads the bounds block"
        assert db.ten_thousand.bounds_in_memory() is not None, "the bounds block is held in memory"
        seen = _count_queries(db, monkeypatch)
        assert lookup() == expected
        assert seen == []
        db.forget_reads()
        assert lookup() == expected
        assert seen, "forget_reads() makes the lookup read again"


def test_close_drops_the_memo(paths):
    """A lookup after close() fails with DatabaseClosed, also when its answer was remembered."""
    _, path = paths
    for game, lookups in LOOKUPS.items():
        db = dicebase.open(path[game])
        fn = next(lookups())
        fn(db)
        fn(db)
        db.close()
        with pytest.raises(DatabaseClosed):
            fn(db)
        with pytest.raises(DatabaseClosed):
            db.read("SELECT 1")
        assert db.statistics().remembered_reads == 0


def test_a_threads_twin_remembers_its_own_reads(paths):
    _, path = paths
    with dicebase.open(path["threes"]) as db:
        expected = db.threes.chances(ties="strict")
        remembered = db.statistics().remembered_reads
        twin = db.for_thread()
        try:
            assert twin.statistics().remembered_reads == 0
            assert twin.threes.chances(ties="strict") == expected
            assert twin.statistics().remembered_reads > 0  # its own memo: what it read
            assert db.statistics().remembered_reads == remembered  # is not in this connection's
        finally:
            twin.close()
        assert db.threes.chances(ties="strict") == expected  # closing the twin leaves this connection open


def test_read_memo_is_bounded(paths):
    _, path = paths
    with dicebase.open(path["threes"]) as db:
        db.read_memo_rows = 5
        sql = "SELECT to_beat FROM threes_win WHERE variant = 'classic' AND ties = 'shared' AND players_after = 0 " \
              "AND dice_left = 5 AND must_keep_two = ? AND score = 0 AND to_beat < ? ORDER BY to_beat"
        assert len(db.read(sql, (False, 4))) == 4
        assert db.statistics().remembered_rows == 4
        assert len(db.read(sql, (False, 3))) == 3  # 7 rows would pass the bound: the memo starts again
        stats = db.statistics()
        assert stats.remembered_rows == 3 and stats.remembered_reads == 1
        into = lambda rows: [r[0] for r in rows]  # noqa: E731
        assert db.read(sql, (False, 2), into) == [0, 1]
        assert db.read(sql, (False, 2), into) is db.read(sql, (False, 2), into)


def test_read_takes_what_fetchall_takes(paths):
    """Named parameters (a dict) and parameters that cannot be a memo key still read; junk is BadInput."""
    from dicebase.query.base import BadInput

    _, path = paths
    with dicebase.open(path["threes"]) as db:
        named = "SELECT count(*) FROM threes_win WHERE variant = $v"
        assert db.read(named, {"v": "classic"}) == db.fetchall(named, {"v": "classic"})
        assert db.read(named, {"v": "classic"}) is db.read(named, {"v": "classic"})
        try:  # a list parameter cannot be a memo key: read as fetchall does (SQLite cannot bind it)
            expected = db.fetchall("SELECT ?", [[1, 2]])
        except BadInput:
            with pytest.raises(BadInput):
                db.read("SELECT ?", [[1, 2]])
        else:
            assert db.read("SELECT ?", [[1, 2]]) == expected
        for sql, params, into in (([], (), None), (None, None, None), ("SELECT 1", (), True)):
            with pytest.raises(BadInput):
                db.read(sql, params, into)
