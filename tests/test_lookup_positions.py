"""DuckDB lookups read 10,000 rows by position (rowid ranges computed from the key, issue 12):
they must give exactly what the plain key filters give, on SQLite too, with two rule sets and
a small goal in one file, and a file whose rows are not where the build put them must be
answered by key filters (never from the wrong rows)."""

from __future__ import annotations

import random
import shutil

import duckdb
import pytest

import dicebase
from dicebase.query.base import BadInput

GAMES = ("ten_thousand",)
TWO = {"ten_thousand": {"rules": ["ten-thousand", "farkle"], "duel_rules": ["ten-thousand", "farkle"], "goal": 500}}


class _NoLayout(dict):
    """Queries._layouts that knows no block: every read is a key filter (the reference)."""

    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return None


def _by_key_filter(path):
    db = dicebase.open(path)
    db.ten_thousand._layouts = _NoLayout()
    return db


def _cases(q, rules: str, count: int, seed: int):
    """Random lookups of every kind: solitaire and two-player best, last turns, state."""
    rng = random.Random(seed)
    goal = q.goal(rules)
    out = []
    while len(out) < count:
        faces = [rng.randint(1, 6) for _ in range(rng.randint(1, 6))]
        k = rng.choice([0, 50, 100, 300, 350, 600, 1000, 1500, 3000])
        kind = rng.choice(["solitaire", "duel", "duel", "last", "state", "state"])
        i, j = rng.randrange(0, goal, 50), rng.randrange(0, goal, 50)
        if kind == "solitaire":
            out.append(("best", (faces,), dict(turn_total=k, rules=rules)))
        elif kind == "duel":
            out.append(("best", (faces,), dict(turn_total=k, score=i, opponent=j, rules=rules)))
        elif kind == "last":
            out.append(("best", (faces,), dict(turn_total=k, score=i, opponent=goal + rng.randrange(0, 1000, 50),
                                              rules=rules)))
        else:
            n = rng.randint(1, 6)
            out.append(("state", (i, j, 0 if n == 6 and rng.random() < 0.3 else k, n), dict(rules=rules)))
    return out


def _answers(db, cases):
    out = []
    for method, args, kwargs in cases:
        try:
            out.append(getattr(db.ten_thousand, method)(*args, **kwargs))
        except BadInput as exc:  # a turn total the dice left cannot have: both must say so
            out.append(str(exc))
    return out


def _compare(path, rules_list, count=250, sqlite_path=None):
    fast = dicebase.open(path)
    slow = _by_key_filter(path)
    try:
        for seed, rules in enumerate(rules_list):
            cases = _cases(fast.ten_thousand, rules, count, seed)
            got = _answers(fast, cases)
            assert got == _answers(slow, cases)
            assert sum(not isinstance(a, str) for a in got) > count // 2
            if sqlite_path is not None:
                with dicebase.open(f"sqlite:///{sqlite_path}") as sl:
                    assert got == _answers(sl, cases)
        layouts = fast.ten_thousand._layouts
        for rules in rules_list:  # the fast path was taken, for every block
            goal = fast.ten_thousand.goal(rules)
            for key in [("ten_thousand_duel", rules, goal), ("ten_thousand_duel_bounds", rules, goal),
                        ("ten_thousand_exceed", rules, "optimal"), ("ten_thousand_solitaire", rules),
                        ("ten_thousand_keeps", rules)]:
                assert layouts.get(key) is not None, key
        assert fast.ten_thousand.misplaced == []
    finally:
        fast.close()
        slow.close()


def test_positions_give_the_key_filters_answers_duckdb_and_sqlite(built_db):
    """Every lookup kind on hundreds of random states: the rows read by position are the rows the
    key filters find, and SQLite (primary-key seeks) gives the same answers bit for bit."""
    _compare(built_db(GAMES), ["ten-thousand"], sqlite_path=built_db(GAMES, kind="sqlite"))


def test_two_rule_sets_and_a_small_goal_in_one_file(built_db):
    """Each (rules, goal) block has its own positions: the second rule set's rows start where the
    first's end."""
    path = built_db(GAMES, options=TWO)
    _compare(path, ["ten-thousand", "farkle"], count=150, sqlite_path=built_db(GAMES, kind="sqlite", options=TWO))
    with duckdb.connect(str(path), read_only=True) as con:  # the layout the lookups rely on, stated directly
        for rules in ("ten-thousand", "farkle"):
            first = con.execute("SELECT min(rowid) FROM ten_thousand_duel WHERE rules = ?", [rules]).fetchone()[0]
            bad = con.execute(
                "SELECT count(*) FROM ten_thousand_duel_bounds b JOIN ten_thousand_duel d "
                "ON d.rowid = ? + b.first_row AND b.rules = ? WHERE d.rules <> b.rules OR d.goal <> b.goal "
                "OR d.score <> b.score OR d.opponent <> b.opponent OR d.turn_total <> 0 OR d.p_win <> b.p_start",
                [first, rules]).fetchone()[0]
            assert bad == 0


def _tampered(src, tmp_path, sql: list[str]):
    path = tmp_path / "tampered.duckdb"
    shutil.copyfile(src, path)
    with duckdb.connect(str(path)) as con:
        for statement in sql:
            con.execute(statement)
    return path


def _reorder(table: str, order: str) -> list[str]:
    return [f"CREATE TABLE _copy AS SELECT * FROM {table} ORDER BY {order}", f"DELETE FROM {table}",
            f"INSERT INTO {table} SELECT * FROM _copy", "DROP TABLE _copy", "CHECKPOINT"]


@pytest.mark.parametrize("sql", [
    _reorder("ten_thousand_duel", "score DESC, opponent, turn_total, dice, triple"),
    _reorder("ten_thousand_duel_bounds", "opponent, score"),
    _reorder("ten_thousand_exceed", "rules, policy, dice, triple, need"),
    _reorder("ten_thousand_solitaire", "rules, dice, triple, turn_total"),
    _reorder("ten_thousand_keeps", "keep"),
    # one pair's turn start moved to the end: every later pair's rows shift by one
    ["CREATE TABLE _row AS SELECT * FROM ten_thousand_duel WHERE score = 300 AND opponent = 450 AND turn_total = 0",
     "DELETE FROM ten_thousand_duel WHERE score = 300 AND opponent = 450 AND turn_total = 0",
     "INSERT INTO ten_thousand_duel SELECT * FROM _row", "DROP TABLE _row", "CHECKPOINT"],
], ids=["duel-scores-reversed", "bounds-transposed", "exceed-by-class",
        "solitaire-by-class", "keeps-by-keep", "duel-row-moved"])
def test_rows_not_where_the_build_put_them_are_read_by_key(built_db, tmp_path, sql):
    """A table reordered or edited after the build: every answer is still the key filters' (the
    reads check the keys of the rows they get, and fall back), never a neighbour's row."""
    src = built_db(GAMES)
    with dicebase.open(src) as db:
        cases = _cases(db.ten_thousand, "ten-thousand", 200, 7)
        want = _answers(db, cases)
    path = _tampered(src, tmp_path, sql)
    with dicebase.open(path) as db:
        assert _answers(db, cases) == want
        q = db.ten_thousand  # and the change was noticed: a block read by key filters
        assert q.misplaced or any(v is None or v.blocks and len(v.blocks) < 20 for v in q._layouts.values())
    with _by_key_filter(path) as db:
        assert _answers(db, cases) == want


def test_rows_reordered_within_a_pair_still_give_the_right_answers(built_db, tmp_path):
    """Order within one pair's rows does not matter: the read takes the pair's whole range and
    keeps the rows by their keys."""
    src = built_db(GAMES)
    with dicebase.open(src) as db:
        cases = _cases(db.ten_thousand, "ten-thousand", 200, 8)
        want = _answers(db, cases)
    path = _tampered(src, tmp_path, _reorder("ten_thousand_duel", "rules, goal, score, opponent, turn_total DESC, dice, triple"))
    with dicebase.open(path) as db:
        assert _answers(db, cases) == want


def test_rolls_of_a_class_from_the_rules_equal_the_table(built_db):
    """state takes each roll's chance from the rules (ways / 6^n), not from ten_thousand_rolls:
    they must agree bit for bit, for every class of every rule set."""
    from dicebase.query.ten_thousand import _rolls

    with dicebase.open(built_db(GAMES)) as db:
        stored: dict = {}
        for rules, n, t, roll, p in db.fetchall("SELECT rules, dice, triple, roll, probability FROM ten_thousand_rolls"):
            stored.setdefault((rules, n, t), {})[roll] = p
        assert len(stored) > 40
        for (_rules, n, _t), rolls in stored.items():
            assert dict(_rolls(n)) == rolls
