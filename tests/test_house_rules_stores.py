"""Variants built from rules files give the same answers from DuckDB and SQLite (issue 8 §2 with the
project's "SQLite first-class, same answers" rule): a 10,000 rule set whose scoring unit is 25, not 50
(a single 5 scores 25), and one without hot dice and with an opening minimum (so some keeps lose the
turn).  Each store's lookups also equal the documented SQL run with the variant's own unit."""

from __future__ import annotations

import json

import pytest

import dicebase
from dicebase.query import ten_thousand as Q
from dicebase.query.base import BadInput


def _file(run_cli, name: str, **changes) -> str:
    code, text, _ = run_cli(["rules", "ten-thousand"])
    assert code == 0
    text = text.replace('name = "ten-thousand"', f'name = "{name}"').replace("two_player = false", "two_player = true")
    for key, value in changes.items():
        lines = text.splitlines()
        (at,) = [i for i, line in enumerate(lines) if line.startswith(f"{key} = ")]
        lines[at] = f"{key} = {value}"
        text = "\n".join(lines) + "\n"
    return text


#: Small goals (12 and 8 units, were 20 and 12): the builds' two-player solves shrink with them, and what
#: is compared (every lookup at scores relative to the goal, the tables' sums) does not depend on the goal.
FILES = {
    "quarter": dict(unit=25, single="[100, 0, 0, 0, 25, 0]", goal=300),
    "no-hot-dice": dict(hot_dice="false", opening_minimum=300, goal=400),
}


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    from conftest import invoke_cli

    root = tmp_path_factory.mktemp("stores")
    args = []
    for name, changes in FILES.items():
        (root / f"{name}.toml").write_text(_file(invoke_cli, name, **changes))
        args += ["--rules", root / f"{name}.toml"]
    out = {}
    for kind in ("duckdb", "sqlite"):
        path = root / f"house.{kind}"
        code, _, err = invoke_cli(["build", "-q", "--db", f"{kind}:///{path}", *args, "-o", "ten-thousand.rules=[]",
                                   "-o", "ten-thousand.duel_rules=[]"])
        assert code == 0, err
        out[kind] = path
    dd, sl = dicebase.open(str(out["duckdb"])), dicebase.open(f"sqlite:///{out['sqlite']}")
    yield dd, sl
    dd.close()
    sl.close()


ROLLS = [[1, 5, 5], [5], [1, 1, 5, 2, 3, 4], [2, 3], [1, 5, 2, 3, 6], [2, 2, 2, 4, 6, 6], [5, 5]]


def _cases(rules: str, unit: int, goal: int):
    scores = [(None, None), (0, 0), (0, goal // 2), (goal // 2, goal - unit), (goal - 2 * unit, goal // 4),
              (goal // 4, goal), (unit, goal + 3 * unit)]
    for faces in ROLLS:
        for k in (0, unit, 3 * unit, 250, 400):
            for i, j in scores:
                yield faces, k, i, j


def _documented(db, rules, goal, unit, faces, k, i, j):
    roll = "".join(str(f) for f in sorted(faces))
    n = len(faces)
    if i is None:
        sql, values = Q.SOLITAIRE_LOOKAHEAD_SQL, dict(k=k, rules=rules, dice=n, triple=0, roll=roll)
    elif j >= goal:
        sql, values = Q.LAST_TURN_SQL, dict(need=j - i - k + unit, rules=rules, dice=n, triple=0, roll=roll)
    else:
        sql, values = Q.DUEL_LOOKAHEAD_SQL, dict(k=k, i=i, j=j, goal=goal, rules=rules, dice=n, triple=0, roll=roll,
                                                 unit=unit, start=6)
    return sorted((keep, float(v)) for keep, _p, _u, _da, _ta, _hd, _dom, v, _then
                  in db.fetchall(*Q.positional(sql, values)))


@pytest.mark.parametrize("rules, unit", [("quarter", 25), ("no-hot-dice", 50)])
def test_duckdb_and_sqlite_give_the_same_answers_for_a_file_variant(stores, rules, unit):
    dd, sl = stores
    goal = dd.ten_thousand.goal(rules)
    assert goal == sl.ten_thousand.goal(rules) == FILES[rules]["goal"]
    compared = bad = 0
    for faces, k, i, j in _cases(rules, unit, goal):
        answers = []
        for db in (dd, sl):
            try:
                answers.append(db.ten_thousand.best(faces, turn_total=k, score=i, opponent=j, variant=rules))
            except BadInput as exc:  # a turn total the dice left cannot have: both stores must say so
                answers.append(str(exc))
        a, b = answers
        if isinstance(a, str):
            assert a == b
            bad += 1
            continue
        assert json.dumps(a.as_dict(), sort_keys=True) == json.dumps(b.as_dict(), sort_keys=True), (faces, k, i, j)
        for db in (dd, sl):  # and the documented SQL, with this variant's unit
            assert sorted(("".join(map(str, x.keep)), x.value) for x in a.actions) == \
                _documented(db, rules, goal, unit, faces, k, i, j), (faces, k, i, j)
        compared += bool(a.actions)
    assert compared > 100 and bad > 0
    for args in [(0, 0, 0, 6), (goal // 2, goal - unit, 3 * unit, 3), (unit, goal // 4, 350, 2),
                 (goal - unit, 0, 400, 1), (goal // 4, goal + unit, 3 * unit, 4)]:
        if args[2] % unit:
            continue
        x, y = (vars(db.ten_thousand.state(*args, variant=rules)) for db in (dd, sl))
        assert x == y, args
    for call in (lambda q: q.thresholds(variant=rules), lambda q: q.odds(6, variant=rules),
                 lambda q: q.odds(2, variant=rules), lambda q: q.classes(variant=rules)):
        assert call(dd.ten_thousand) == call(sl.ten_thousand)
    for table, column in (("ten_thousand_duel", "p_win"), ("ten_thousand_solitaire_keep", "value"),
                          ("ten_thousand_exceed", "p_exceed"), ("ten_thousand_solitaire", "value")):
        sql = f"SELECT COUNT(*), SUM({column}) FROM {table} WHERE rules = ?"
        (ca, sa), (cb, sb) = dd.fetchone(sql, (rules,)), sl.fetchone(sql, (rules,))
        assert ca == cb > 0 and sa == pytest.approx(sb, rel=1e-12), table


def test_a_unit_of_25_is_used_by_the_lookups(stores, run_cli):
    """Turn totals, scores and points in steps of 25 are accepted, other steps refused with one line."""
    dd, sl = stores
    for db in (dd, sl):
        best = db.ten_thousand.best([5], turn_total=150, variant="quarter")
        assert [(a.keep, a.points) for a in best.actions] == [([5], 25)]
        with pytest.raises(BadInput, match="multiple of 25"):
            db.ten_thousand.best([5], turn_total=160, variant="quarter")
    state = dd.ten_thousand.state(275, 250, 25, 5, variant="quarter")
    assert 0 < state.p_win < 1 and state.p_win == sl.ten_thousand.state(275, 250, 25, 5, variant="quarter").p_win
