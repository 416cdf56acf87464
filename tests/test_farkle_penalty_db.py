"""Issue 24: the two-player game with a consecutive-farkle penalty in the database (docs/farkle.md, "In the
database"): the build's table ten_thousand_penalty_start, and ``ten-thousand state``/``best`` with both farkle
counts, on both stores.

Facebook Farkle's rules (rules/facebook-farkle.toml: 300 to bank, 500 points for the third farkle in a row,
the first to bank the goal wins) to 500 with the bound on banked scores at -350 (a small bound keeps the four
solves short; the test's figures are the solver's own, none published), and a variant whose count
resets only after a bank (the second farkle in a row costs 250 each time); and two rule sets with a last round
(the other player has one more turn after a bank at the goal): Facebook Farkle's rules to 500 where that turn
must exceed, and three dice to 300 (100 to bank, the second farkle in a row costs 150) where a tie is shared.
Every stored turn start against ``twoplayer.solve_penalty`` and every answer against the solver's own rows
(``keep_rows=True``), to 1e-12.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from functools import lru_cache

import pytest

import dicebase
from dicebase.rules.ten_thousand import PRESETS, legal_keeps, penalty_states, roll_multisets, to_file, turn_states

from conftest import invoke_cli

GOAL = 500
FB = replace(PRESETS["facebook-farkle"], name="fb-500", goal=GOAL, lowest_score=-350,
             description="Facebook Farkle's rules to 500, banked scores bounded at -350")
FB_BANK = replace(FB, name="fb-bank", farkle_penalty=250, farkle_penalty_after=2, farkle_count_reset="after_bank",
                  description="Facebook Farkle's scoring to 500: every farkle from the second in a row costs 250 "
                  "until a bank")
#: a last round (issue 24, "Not done" before): the lookups take the opponent's last turn from ten_thousand_exceed
FB_EXCEED = replace(FB, name="fb-exceed", last_round="others_one_turn_must_exceed",
                    description="Facebook Farkle's rules to 500; after a bank at 500 the other player has one turn "
                    "and must exceed")
SMALL_TIES = replace(FB, name="small-ties", dice=3, straight=None, three_pairs=None, three_pairs_with_four=False,
                     goal=300, bank_minimum=100, farkle_penalty=150, farkle_penalty_after=2, lowest_score=-150,
                     last_round="others_one_turn_ties_shared",
                     description="Three dice to 300, 100 to bank, the second farkle in a row costs 150; after a "
                     "bank at 300 the other player has one turn, a tie is shared")
SETS = (FB, FB_BANK)
LAST = (FB_EXCEED, SMALL_TIES)
ALL = SETS + LAST
OPTIONS = {"ten_thousand": {
    "rules": [rs.name for rs in ALL],
    "duel_rules": [],
    "goal": GOAL,
    "house_rules": {rs.name: to_file(rs, two_player=True) for rs in ALL},
}}
STORES = ("duckdb", "sqlite")
TOL = 1e-12


@pytest.fixture(scope="module")
def paths(built_db):
    return {kind: built_db(("ten_thousand",), kind, OPTIONS) for kind in STORES}


def _open(paths, kind):
    return dicebase.open(paths[kind] if kind == "duckdb" else f"sqlite:///{paths[kind]}")


@lru_cache(maxsize=None)
def _solved(name: str):
    """solve_penalty with every state's row: (game, {(i, j, ci, cj, k, n, t) in points: (p_win, rolls)})."""
    from dicebase.builder.ten_thousand import twoplayer

    rs = {r.name: r for r in ALL}[name]
    game = twoplayer.solve_penalty(rs, rs.goal // rs.unit, keep_rows=True)
    states, u, r = turn_states(rs), rs.unit, game.rows
    rows = {}
    for x in range(len(r["p_win"])):
        n, t = states[int(r["s"][x])]
        rows[(int(r["i"][x]) * u, int(r["j"][x]) * u, int(r["ci"][x]), int(r["cj"][x]), int(r["k"][x]) * u, n, t)] = (
            float(r["p_win"][x]), bool(r["roll"][x]))
    return game, rows


@pytest.mark.parametrize("rs", ALL, ids=lambda rs: rs.name)
def test_stored_turn_starts_equal_the_solver(paths, rs):
    """ten_thousand_penalty_start holds W(score, opponent, count, opponent_count) of solve_penalty, every one,
    on both stores; the build record counts them."""
    game, _rows = _solved(rs.name)
    L, u = game.lowest, rs.unit
    for kind in STORES:
        with _open(paths, kind) as db:
            rows = db.fetchall("SELECT score, opponent, count, opponent_count, p_win FROM ten_thousand_penalty_start "
                               "WHERE rules = ? AND goal = ? ORDER BY score, opponent, count, opponent_count",
                               (rs.name, rs.goal))
            assert len(rows) == game.W.size
            worst = max(abs(float(p) - game.start(i // u, j // u, ci, cj)) for i, j, ci, cj, p in rows)
            assert worst <= TOL
            assert min(int(r[0]) for r in rows) == L * u == rs.lowest_score
            solver = next(v["solver"] for v in db.info()["variants"] if v["variant"] == rs.name)["two_player"]
            assert solver["p1_win"] == pytest.approx(game.start(0, 0), abs=TOL)


def _reachable(rs, rows) -> list:
    """The solved states a turn can reach (a turn start rolls all the dice; a class needs its least turn total)."""
    from dicebase.numeric.ten_thousand_turn import min_turn_totals

    low = dict(zip(turn_states(rs), min_turn_totals(rs)))
    return sorted(key for key in rows if (key[4] == 0 and key[5:] == (rs.dice, 0))
                  or (key[4] > 0 and low[key[5:]] is not None and key[4] >= low[key[5:]]))


def _sample_states(rs, rows, count, seed):
    return random.Random(seed).sample(_reachable(rs, rows), count)


@pytest.mark.parametrize("rs", ALL, ids=lambda rs: rs.name)
def test_state_equals_the_solvers_turn_values(paths, rs):
    """``state`` with both farkle counts: every solved state sampled (roll states, turn starts, scores below 0,
    the last count before the penalty; with a last round also turns past the goal that roll on to lead by more)
    equals the solver's row; banking states the bank value; DuckDB and SQLite give the same bits."""
    _game, rows = _solved(rs.name)
    picks = _sample_states(rs, rows, 60, 24)
    m = rs.farkle_penalty_after
    picks += [key for key in rows if key[4] == 0 and key[5:] == (rs.dice, 0) and key[0] < 0 and key[2] == m - 1][:10]
    picks = list(dict.fromkeys(picks))  # a turn start below 0 may be sampled too
    answers = {}
    for kind in STORES:
        with _open(paths, kind) as db:
            for key in picks:
                i, j, ci, cj, k, n, t = key
                st = db.ten_thousand.state(i, j, k, n, triple=t, rules=rs.name, farkles=[ci, cj])
                p, rolls = rows[key]
                assert abs(st.p_win - p) <= TOL, (kind, key, st.p_win, p)
                if rolls and st.bank_value is not None:
                    assert st.roll_value >= st.bank_value - TOL
                if not rolls and st.bank_value is not None:
                    assert abs(st.bank_value - p) <= TOL and st.action == "bank"
                assert st.farkles == [ci, cj]
                answers.setdefault(key, []).append((st.p_win, st.action, st.roll_value, st.bank_value))
    assert all(a == b for a, b in answers.values())


def _bank_value(rs, game, i, j, cj, k2, last):
    """The solver's worth of banking turn total k2 at (i, j): the opponent's turn start below the goal; at or past it
    1 (the first to the goal wins) or 1 - the opponent's last turn ``last[lead]`` (twoplayer.last_turn_values)."""
    u = rs.unit
    if i + k2 < rs.goal:
        return 1 - game.start(j // u, (i + k2) // u, cj, 0)
    return 1.0 if rs.last_round == "first_to_goal_wins" else 1 - float(last[(i + k2 - j) // u])


@pytest.mark.parametrize("rs", ALL, ids=lambda rs: rs.name)
def test_best_ranks_every_keep_by_the_solvers_values(paths, rs):
    """``best`` with both farkle counts: every legal keep of sampled rolls, each worth what the solver's rows
    give the state it leads to (a roll state's row, else banking: with a last round past the solver's turn-total
    bound, 1 - the opponent's last turn), a farkle worth the farkle's target; both stores identical."""
    from dicebase.builder.ten_thousand import twoplayer

    game, rows = _solved(rs.name)
    u, m, L = rs.unit, rs.farkle_penalty_after, rs.lowest_score
    P = rs.farkle_penalty
    last = twoplayer.last_turn_values(rs, game.stats["last_turn_leads"])
    rng = random.Random(7)
    starts = _sample_states(rs, rows, 25, 5)
    for kind in STORES:
        with _open(paths, kind) as db:
            for i, j, ci, cj, k, n, t in starts:
                counts = rng.choice(list(roll_multisets(n)))[0]
                faces = [f for f, c in enumerate(counts, start=1) for _ in range(c)]
                ans = db.ten_thousand.best(faces, turn_total=k, triple=t, score=i, opponent=j, rules=rs.name,
                                           farkles=[ci, cj])
                if ci < m - 1:
                    farkle = 1 - game.start(j // u, i // u, cj, ci + 1)
                else:
                    after = 0 if rs.farkle_count_reset == "after_penalty" else m - 1
                    farkle = 1 - game.start(j // u, max(i - P, L) // u, cj, after)
                assert abs(ans.farkle_value - farkle) <= TOL
                keeps = legal_keeps(rs, counts, n, t)
                assert len(ans.actions) == len(keeps)
                for a in ans.actions:
                    k2 = k + a.points
                    row = rows.get((i, j, ci, cj, k2, a.dice_after, a.triple_after))
                    if a.dice_after == 0:  # no dice left (no hot dice): banked, or lost below the minimum
                        want = _bank_value(rs, game, i, j, cj, k2, last) if k2 >= rs.bank_minimum else farkle
                    elif row is not None:  # a state the solver solved (past the goal too, with a last round)
                        want = row[0]
                    else:  # past the solver's turn-total bound: banking
                        want = _bank_value(rs, game, i, j, cj, k2, last)
                    assert abs(a.value - want) <= TOL, (kind, (i, j, ci, cj, k, n, t), a)
                values = [a.value for a in ans.actions]
                assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("rs", LAST, ids=lambda rs: rs.name)
def test_a_last_round_rolls_on_past_the_goal(paths, rs):
    """With a last round a turn past the goal may roll on to lead by more (under first_to_goal_wins it banks at
    once): the solver has such states, and ``state`` answers each the solver's value and action, both stores."""
    game, rows = _solved(rs.name)
    past = [key for key in _reachable(rs, rows)
            if rows[key][1] and key[0] + key[4] >= rs.goal and key[4] >= rs.bank_minimum]
    assert past, "no roll past the goal: the test would not test the last round"
    picks = random.Random(3).sample(past, min(12, len(past)))
    for kind in STORES:
        with _open(paths, kind) as db:
            for i, j, ci, cj, k, n, t in picks:
                st = db.ten_thousand.state(i, j, k, n, triple=t, rules=rs.name, farkles=[ci, cj])
                assert abs(st.p_win - rows[(i, j, ci, cj, k, n, t)][0]) <= TOL and st.action == "roll"
                assert st.bank_value < st.roll_value


@pytest.mark.parametrize("rs", (FB, FB_EXCEED), ids=lambda rs: rs.name)
def test_cli_state_and_best_with_farkle_counts(paths, rs):
    """The commands with --farkles, on both stores the same JSON; a score below 0 (down to the bound)."""
    _game, rows = _solved(rs.name)
    outs = []
    for kind in STORES:
        db = str(paths[kind]) if kind == "duckdb" else f"sqlite:///{paths[kind]}"
        code, out, err = invoke_cli(["ten-thousand", "state", "--score", "-300", "--opponent", "200", "--farkles",
                                     "2,1", "--turn-total", "0", "--dice", "6", "--rules", rs.name, "--db", db,
                                     "--json"])
        assert code == 0, err
        doc = json.loads(out)
        assert abs(doc["p_win"] - rows[(-300, 200, 2, 1, 0, 6, 0)][0]) <= TOL and doc["farkles"] == [2, 1]
        code, out2, err = invoke_cli(["ten-thousand", "best", "1", "5", "2", "3", "4", "6", "--turn-total", "0",
                                      "--score", "-300", "--opponent", "200", "--farkles", "2,1", "--rules", rs.name,
                                      "--db", db, "--json"])
        assert code == 0, err
        outs.append((out, out2))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("args, words", [
    (["--farkles", "3,0"], "--farkles must be two counts A,B from 0 to 2"),
    (["--farkles", "0"], "--farkles must be two counts A,B from 0 to 2"),
    (["--farkles", "x,0"], "--farkles"),
    ([], "give both players' farkle counts"),
    (["--farkles", "0,0", "--score", "-400"], "--score must be a multiple of 50 from -350"),
    (["--farkles", "0,0", "--opponent", "500"], "to 450 (in fb-500 the first player to bank 500 wins), got 500"),
    (["--farkles", "0,0", "--opponent", "-375"], "--opponent must be a multiple of 50 from -350"),
])
def test_bad_input_is_one_line_exit_2(paths, args, words):
    base = {"--score": "0", "--opponent": "0", "--rules": FB.name}
    for flag in list(base):
        if flag in args:
            base.pop(flag)
    argv = ["ten-thousand", "state", "--turn-total", "0", "--dice", "6", "--db", str(paths["duckdb"]), *args]
    for flag, value in base.items():
        argv += [flag, value]
    code, out, err = invoke_cli(argv)
    assert code == 2, (out, err)
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_full_size_facebook_farkle_is_refused_without_force_size():
    """Facebook Farkle to 10,000 (Busche 2016: 423,765,000 states with the bound at -2,500) is over the size limit:
    one line naming the count; a build with --force-size skips the check (dicebase.rules.SizeLimit)."""
    from dicebase.rules import SizeLimit
    from dicebase.rules.ten_thousand import validate_options

    assert penalty_states(PRESETS["facebook-farkle"], 10_000) == 423_765_000
    with pytest.raises(SizeLimit, match="423,765,000 states"):
        validate_options({"rules": ["facebook-farkle"], "duel_rules": ["facebook-farkle"], "goal": 10_000,
                          "house_rules": {}})
    validate_options({"rules": ["facebook-farkle"], "duel_rules": ["facebook-farkle"], "goal": 1000,
                      "house_rules": {}})
