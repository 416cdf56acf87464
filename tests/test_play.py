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
