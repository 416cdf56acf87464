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


def _by_key_filter(path):
    """A database whose 10,000 block reader knows no block: every read is a key filter (the reference)."""
    db = dicebase.open(path)
    db.ten_thousand.blocks.locate_with = lambda table, block: None
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
                    assert sl.ten_thousand.bounds_in_memory(rules) is not None
        located = fast.ten_thousand.blocks.located()
        for rules in rules_list:  # the fast path was taken, for every block
            goal = fast.ten_thousand.goal(rules)
            for key in [("ten_thousand_duel", rules, goal), ("ten_thousand_duel_bounds", rules, goal),
                        ("ten_thousand_exceed", rules, "optimal"), ("ten_thousand_solitaire", rules),
                        ("ten_thousand_keeps", rules)]:
                assert located.get(key), key
            # and the bounds block was read whole, once, and answered the later lookups
            assert fast.ten_thousand.bounds_in_memory(rules) is not None
            assert fast.ten_thousand.holds_solitaire(rules)  # and the solitaire block
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


def test_the_bounds_block_is_read_whole_from_the_second_two_player_lookup(built_db):
    """A one-shot lookup (the CLI's) reads only the bounds rows it needs; a connection that asks
    again reads its (rules, goal) block once, and both give the key filters' answers."""
    path = built_db(GAMES)
    with dicebase.open(path) as db, _by_key_filter(path) as slow:
        q = db.ten_thousand
        first_ask = q.best([1, 5, 2, 3, 4, 6], turn_total=0, score=300, opponent=450)
        assert q.bounds_in_memory("ten-thousand") is None
        reads = []
        db.fetchone = lambda sql, params=(), _one=db.fetchone: reads.append(sql) or _one(sql, params)
        second = q.state(300, 450, 350, 3)
        assert sum("list(first_row" in sql for sql in reads) == 1
        first_rows, counts, p_starts = q.bounds_in_memory("ten-thousand")
        assert len(first_rows) == len(counts) == len(p_starts) == (q.goal("ten-thousand") // 50) ** 2
        assert first_ask == slow.ten_thousand.best([1, 5, 2, 3, 4, 6], turn_total=0, score=300, opponent=450)
        assert second == slow.ten_thousand.state(300, 450, 350, 3)
        assert q.best([5, 5, 1], turn_total=250, score=0, opponent=900) == slow.ten_thousand.best(
            [5, 5, 1], turn_total=250, score=0, opponent=900)


def test_sqlite_one_shot_lookups_equal_a_connection_that_holds_the_bounds_block(built_db):
    """SQLite: a one-shot lookup (the CLI's) runs the documented queries (ROLL_VALUE_SQL for a bank
    state); a connection that asks again answers from the bounds block and the pair's rows by the
    same equations in Python.  Both give the same bits, stored roll states and bank states alike."""
    path = f"sqlite:///{built_db(GAMES, kind='sqlite')}"
    with dicebase.open(path) as db:
        cases = [c for c in _cases(db.ten_thousand, "ten-thousand", 300, 10) if c[0] == "state" or "score" in c[2]]
        held = _answers(db, cases)
        assert db.ten_thousand.bounds_in_memory("ten-thousand") is not None
    actions = set()
    for case, want in zip(cases, held):
        with dicebase.open(path) as one:
            assert _answers(one, [case]) == [want]
            assert one.ten_thousand.bounds_in_memory("ten-thousand") is None  # the file's only rule set
        actions.add(getattr(want, "action", None))
    assert {"roll", "bank"} <= actions


def test_a_bounds_block_with_a_wrong_key_is_not_kept(built_db, tmp_path):
    """One bounds row's key changed: the whole-block read refuses the block, the per-row reads
    notice the row, and every answer is the key filters'."""
    src = built_db(GAMES)
    with dicebase.open(src) as db:
        cases = [c for c in _cases(db.ten_thousand, "ten-thousand", 200, 9) if "score" in c[2] or c[0] == "state"]
        want = _answers(db, cases)
    path = _tampered(src, tmp_path, ["UPDATE ten_thousand_duel_bounds SET opponent = opponent + 1 "
                                     "WHERE score = 300 AND opponent = 450", "CHECKPOINT"])
    with dicebase.open(path) as db:
        assert _answers(db, cases) == want
        q = db.ten_thousand
        assert q.bounds_in_memory("ten-thousand") is None


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
        assert q.misplaced or not all(q.blocks.located().values())
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
    from dicebase.query.ten_thousand import rolls

    with dicebase.open(built_db(GAMES)) as db:
        stored: dict = {}
        for rules, n, t, roll, p in db.fetchall("SELECT rules, dice, triple, roll, probability FROM ten_thousand_rolls"):
            stored.setdefault((rules, n, t), {})[roll] = p
        assert len(stored) > 40
        for (_rules, n, _t), stored_rolls in stored.items():
            assert dict(rolls(n)) == stored_rolls


# ---------------------------------------------------------------------------------------------
# Great Rolled Ones: one state, one rowid computed from the rules (which states are stored)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rolled_two_variants(tmp_path_factory):
    """A small preset variant and a house rule set (four dice, two 1s end the turn, goal 12) in one
    file, DuckDB and SQLite."""
    from conftest import invoke_cli

    root = tmp_path_factory.mktemp("rolled")
    code, text, _ = invoke_cli(["rules", "rolled-ones"])
    assert code == 0
    (root / "quick.toml").write_text(
        text.replace('name = "standard"', 'name = "quick"').replace("dice = 5", "dice = 4")
        .replace("ones_limit = 3", "ones_limit = 2").replace("goal = 50", "goal = 12")
        .replace("turn_total_bound = 80", "turn_total_bound = 60").replace("komi_max = 10", "komi_max = 3"))
    own = ["-o", "rolled-ones.goal=8", "-o", "rolled-ones.turn_total_bound=60", "-o", "rolled-ones.komi_max=2"]
    paths = {}
    for store in ("duckdb", "sqlite"):
        paths[store] = root / f"r.{store}"
        code, _, err = invoke_cli(["build", "-q", "--db", f"{store}:///{paths[store]}", "--rules", root / "quick.toml", *own])
        assert code == 0, err
    return paths


def _rolled_cases(q, seed: int, count: int = 400):
    rng = random.Random(seed)
    out = []
    for v in q.variants():
        for _ in range(count):
            out.append((rng.randint(1, 2), rng.randrange(v.goal),
                        rng.randrange(v.goal + (v.turn_total_bound if rng.random() < 0.2 else 0)),
                        rng.randrange(v.turn_total_bound + 1), rng.randrange(v.ones_limit), v.name))
    return out


def _rolled_answers(db, cases):
    out = []
    for p, i, j, k, o, name in cases:
        try:
            out.append((db.rolled_ones.best(p, i, j, k, o, variant=name),
                        db.rolled_ones.policy("keep-pace-end-race", p, i, j, k, o, variant=name)))
        except BadInput as exc:
            out.append(str(exc))
    return out


def test_rolled_ones_positions_are_the_rows_the_build_wrote(rolled_two_variants):
    """Every stored state of both variants is at the rowid the query layer computes for it, and the
    answers equal the key filter's and SQLite's."""
    path = rolled_two_variants["duckdb"]
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute("SELECT rowid, variant, p, i, j, k, o FROM rolled_ones_states").fetchall()
    from dicebase.layout import rolled_ones as layout

    with dicebase.open(path) as db:
        q = db.rolled_ones
        variants = {v.name: v for v in q.variants()}
        assert sorted(variants) == ["goal8-dice5-ones3", "quick"]
        sizes = {name: layout.positions(v.rules)[2] for name, v in variants.items()}
        # the layout the build writes and the lookups read (dicebase/layout/rolled_ones.py)
        assert all(layout.block_start(sizes, name) + layout.position(variants[name].rules, *key) == rowid
                   for rowid, name, *key in rows)
        for v in variants.values():  # player 2 more than one roll past the goal: not stored, no position
            assert layout.position(v.rules, 2, v.goal - 1, 0, v.turn_total_bound, 0) is None
        # hold()'s positions over arrays of keys (dicebase/query/rolled_ones.py, from the layout's tables) are the
        # layout's, for every stored state and for keys it does not store (-1)
        import numpy as np

        from dicebase.query.rolled_ones import held_positions as rolled_ones_positions

        for name, v in variants.items():
            keys = [tuple(key) for _rowid, n, *key in rows if n == name]
            keys += [(2, v.goal - 1, 0, v.turn_total_bound, 0), (3, 0, 0, 0, 0), (1, v.goal, 0, 0, 0), (1, 0, 0, 1, 0),
                     (1, 0, 0, v.turn_total_bound + 99, 0), (1, 0, -1, 0, 0)]
            want = [layout.position(v.rules, *key) for key in keys]
            got = rolled_ones_positions(v.rules)(*np.array(keys, dtype=np.int64).T).tolist()
            assert got == [-1 if at is None else at for at in want]
        cases = _rolled_cases(q, 3)
        got = _rolled_answers(db, cases)
        assert sum(not isinstance(a, str) for a in got) > 300
        assert q.misplaced == []
        assert all(q.blocks.located()[("rolled_ones_states", name)] for name in variants)  # read by position
    with dicebase.open(path) as db:
        db.rolled_ones.blocks.locate_with = lambda table, block: None  # key filters only
        assert _rolled_answers(db, cases) == got
    with dicebase.open(f"sqlite:///{rolled_two_variants['sqlite']}") as db:
        assert _rolled_answers(db, cases) == got


def test_rolled_ones_rows_not_where_the_build_put_them_are_read_by_key(rolled_two_variants, tmp_path):
    """Variants stored in the other order: the rowid computed lands on another variant's row, which
    the read notices (its key differs) and answers by key filter."""
    src = rolled_two_variants["duckdb"]
    with dicebase.open(src) as db:
        cases = _rolled_cases(db.rolled_ones, 4)
        want = _rolled_answers(db, cases)
    path = _tampered(src, tmp_path, _reorder("rolled_ones_states", "variant DESC, p, i, j, k, o"))
    with dicebase.open(path) as db:
        assert _rolled_answers(db, cases) == want
        assert db.rolled_ones.misplaced


# ---------------------------------------------------------------------------------------------
# Threes: threes_win by position (chances, p_win)
# ---------------------------------------------------------------------------------------------
def _threes_answers(db):
    q = db.threes
    out = []
    for v in q.variants():
        for ties in q.built(v.name).ties:
            for dice in range(1, v.dice + 1):
                for flag in (False, True):
                    try:
                        out.append(q.chances(v.name, dice, ties=ties, must_keep_two=flag))
                    except BadInput as exc:
                        out.append(str(exc))
            rng = random.Random(len(out))
            for _ in range(150):
                kw = dict(variant=v.name, score=rng.randint(0, 15), ties=ties,
                          players_after=rng.randint(0, q.built(v.name).max_players_after),
                          must_keep_two=rng.random() < 0.3)
                if rng.random() < 0.7:
                    kw["to_beat"] = rng.randint(0, 20)
                try:
                    out.append(q.p_win(rng.randint(0, v.dice), **kw))
                except (BadInput, dicebase.NotInDatabase) as exc:
                    out.append(str(exc))
    return out


def test_threes_positions_are_the_rows_the_build_wrote(built_db):
    """Every threes_win row is at the rowid the query layer computes for it; chances and p_win
    equal the key filter's and SQLite's."""
    path = built_db(("threes",))
    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.execute("SELECT rowid, variant, ties, players_after, to_beat, dice_left, must_keep_two, score "
                           "FROM threes_win").fetchall()
    from dicebase.layout import threes as layout

    with dicebase.open(path) as db:
        q = db.threes
        # the layout the build writes and the lookups read (dicebase/layout/threes.py)
        starts = layout.block_sizes([(v.name, t, v.rules, q.built(v.name).max_players_after + 1)
                                     for v in q.variants() for t in q.built(v.name).ties])
        for rowid, name, ties, m, b, d, f, s in rows:
            assert starts[(name, ties)][0] + layout.win_position(q.variant(name).rules, m, b, d, f, s) == rowid
        got = _threes_answers(db)
        assert sum(not isinstance(a, str) for a in got) > 200
        assert q.misplaced == []
        assert q.blocks.located() and all(q.blocks.located().values())  # read by position
    with dicebase.open(path) as db:
        db.threes.blocks.locate_with = lambda table, block: None  # no block known: key filters
        assert _threes_answers(db) == got
    with dicebase.open(f"sqlite:///{built_db(('threes',), kind='sqlite')}") as db:
        assert _threes_answers(db) == got


@pytest.mark.parametrize("order", ["variant DESC, ties, players_after, to_beat, dice_left, must_keep_two, score",
                                   "variant, ties, players_after, to_beat, dice_left, must_keep_two, score"])
def test_threes_rows_not_where_the_build_put_them_are_read_by_key(built_db, tmp_path, order):
    """Blocks in another order (found again by one scan) or rows in key order (not the build's
    order): the same answers, and the reads notice."""
    src = built_db(("threes",))
    with dicebase.open(src) as db:
        want = _threes_answers(db)
    path = _tampered(src, tmp_path, _reorder("threes_win", order))
    with dicebase.open(path) as db:
        assert _threes_answers(db) == want
        assert db.threes.misplaced
