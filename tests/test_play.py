"""``dicebase play``: a scripted game against the bots (issue 23, item 5), driven through stdin."""

from __future__ import annotations

import io
import json
import sys

import pytest

from conftest import invoke_cli


def _play(args, lines):
    """The real ``dicebase play`` with ``lines`` on its standard input: (exit code, stdout + stderr)."""
    saved = sys.stdin
    sys.stdin = io.StringIO("".join(f"{x}\n" for x in lines))
    try:
        code, out, err = invoke_cli(["play", *map(str, args)])
    finally:
        sys.stdin = saved
    return code, out + err if code == 0 else err


def test_threes_game_with_advice_and_review(built_db):
    db = built_db(("threes",))
    code, out = _play(["threes", "--bots", "only-3s,win", "--seat", "2", "--seed", "4", "--db", db],
                      ["?", "1", "1", "1", "1", "1"])
    assert code == 0, out
    assert "keep 2: p_win" in out  # the advice: every keep with its chance
    assert "Review: 5 decisions" in out and "cost" in out
    # the same seed and answers replay the same game
    assert _play(["threes", "--bots", "only-3s,win", "--seat", "2", "--seed", "4", "--db", db],
                 ["?", "1", "1", "1", "1", "1"])[1] == out


def test_threes_review_costs_are_the_stored_values(built_db):
    """The review's cost of each decision is the best keep's stored value minus the chosen one's."""
    import dicebase

    db = built_db(("threes",))
    code, out = _play(["threes", "--bots", "win", "--seat", "1", "--seed", "2", "--db", db, "--json"], ["1"] * 5)
    assert code == 0, out
    review = json.loads(out)
    assert review["decisions"]
    with dicebase.open(str(db)) as con:
        first = review["decisions"][0]
        roll = [int(x) for x in first["state"].split(" at ")[0].split()[1:]]
        best = con.threes.best(roll, score=0, players_after=1)
        assert first["p_best"] == pytest.approx(best.actions[0].value)
        chosen = {len(a.keep): a.value for a in best.actions}[1]
        assert first["cost"] == pytest.approx(best.actions[0].value - chosen)
    assert review["total_cost"] == pytest.approx(sum(d["cost"] for d in review["decisions"]))


def test_threes_real_dice_entered_by_hand(built_db):
    db = built_db(("threes",))
    code, out = _play(["threes", "--bots", "only-3s", "--seat", "1", "--real-dice", "--seed", "1", "--db", db],
                      ["3 3 3 3 3", "5"])
    assert code == 0, out
    assert "scores you 0" in out and "you win" in out


def test_rolled_ones_game_to_the_end(built_db):
    db = built_db(("rolled_ones",))
    code, out = _play(["rolled-ones", "--bots", "fixed-hold-at", "--seed", "3", "--db", db, "--json"],
                      ["r", "h"] * 200)
    assert code == 0, out
    review = json.loads(out)
    assert review["game"] == "rolled-ones" and "wins" in review["result"]
    assert all(d["cost"] >= 0 for d in review["decisions"])


def test_input_that_ends_too_early_is_one_line(built_db):
    db = built_db(("threes",))
    code, out = _play(["threes", "--bots", "win", "--seed", "1", "--db", db], [])
    assert code == 2
    assert out.strip().splitlines() == ["Error: the input ended before the game did"]


def test_ten_thousand_game_with_advice_and_review_costs_the_stored_values(built_db):
    """10,000 against the optimal bot (test goal 1,000): a keep's advice and cost come from
    `ten-thousand best` (the state it leads to), roll or bank from `ten-thousand state`."""
    import dicebase

    db = built_db(("ten_thousand",))
    answers = ["?", "1", "?", "b"] + ["1", "r", "1", "b"] * 60
    code, out = _play(["ten-thousand", "--seat", "1", "--seed", "5", "--db", db], answers)
    assert code == 0, out
    assert "option 1, keep" in out and "p_win" in out  # every keep with its chance
    assert "roll: p_win" in out and "bank: p_win" in out
    assert "Review:" in out and ("player 1 wins" in out or "player 2 wins" in out)
    assert _play(["ten-thousand", "--seat", "1", "--seed", "5", "--db", db], answers)[1] == out  # replays
    code, doc = _play(["ten-thousand", "--seat", "1", "--seed", "5", "--db", db, "--json"], answers)
    review = json.loads(doc)
    assert review["game"] == "ten-thousand" and review["seed"] == 5
    first, second = review["decisions"][:2]
    with dicebase.open(str(db)) as con:
        roll = [int(x) for x in first["state"].split(" at ")[0].split()[1:]]
        best = con.ten_thousand.best(roll, score=0, opponent=0)
        assert first["p_best"] == pytest.approx(best.actions[0].value, abs=1e-15)
        shown = sorted(best.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
        assert first["p_chose"] == pytest.approx(shown[0].value, abs=1e-15)  # answer 1: the first keep shown
        kept = shown[0]
        state = con.ten_thousand.state(0, 0, kept.points, 6 if kept.hot_dice else kept.dice_after, kept.triple_after)
        assert second["chose"] == "bank" and second["p_chose"] == pytest.approx(state.bank_value, abs=1e-15)
        assert second["p_best"] == pytest.approx(state.p_win, abs=1e-15)
    assert all(d["cost"] >= 0 for d in review["decisions"])


def test_ten_thousand_real_dice_and_a_bot_of_another_game(built_db):
    db = built_db(("ten_thousand",))
    code, out = _play(["ten-thousand", "--bots", "bank-300", "--real-dice", "--seed", "1", "--db", db],
                      ["2 2 3 3 4 6"] + ["1 1 1 1 1 1", "1", "b"] * 20)
    assert code == 0, out
    assert "rolled 2 2 3 3 4 6: farkle" in out
    code, err = _play(["ten-thousand", "--bots", "only-3s", "--db", db], [])
    assert code == 2 and "(it is a threes bot)" in err
