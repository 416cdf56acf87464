"""Pig's bots (issue 31): exact tournaments by the game's recursion, equal to the tables' own answers
(pig_seat_wins, pig_policy_wins) where both exist, cross-checked by seeded simulation inside its 95% interval;
hold-at-N for any N; play through the one game loop (the first to reach the goal wins at once)."""

from __future__ import annotations

import json

import pytest

import dicebase
from dicebase import bots
from dicebase.bots.play import play
from dicebase.errors import BadInput

#: Two players at goal 100 only, the build of tests/test_pig_db.py (the same options: one build per session).
GOAL100 = {"pig": {"variants": ["pig"], "house_rules": {}, "players": [2], "policy_players": [2]}}


@pytest.fixture(scope="module")
def pig100(built_db):
    return built_db(("pig",), "duckdb", GOAL100)


@pytest.fixture(scope="module")
def small(built_db):
    """The tests' build (TEST_OPTIONS): piglet and pig6 (Pig's die at goal 6), 2 and 3 players."""
    return built_db(("pig",), "sqlite")


def test_optimal_against_hold_at_20_exact_equals_the_tables_and_simulation(pig100):
    """Optimal play against "hold at 20" at goal 100, exact by the tournament recursion: the optimal seat wins
    0.571498 as the first player and 0.508342 as the second (docs/pig.md), the tables' policy-cost answer
    (pig_policy_wins: the policy in one seat, the stored equilibrium in the other) to 1e-12, and a seeded
    simulation of 20,000 games holds the exact value inside its 95% interval."""
    with dicebase.open(pig100) as db:
        first = bots.tournament(db, "pig", ["optimal", "hold-at-20"])
        second = bots.tournament(db, "pig", ["hold-at-20", "optimal"])
        stored = {(p.policy, p.seat): p.p_wins for p in db.pig.policies(2)}
        assert round(first.seats[0].p_win, 6) == 0.571498 and round(second.seats[1].p_win, 6) == 0.508342
        assert max(abs(s.p_win - w) for s, w in zip(first.seats, stored[("hold_at_20", 2)])) < 1e-12
        assert max(abs(s.p_win - w) for s, w in zip(second.seats, stored[("hold_at_20", 1)])) < 1e-12
        for bot, policy in (("hold-at-25", "hold_at_25"), ("four-turns", "four_turns")):  # every stored policy
            got = bots.tournament(db, "pig", [bot, "optimal"]).seats
            assert max(abs(s.p_win - w) for s, w in zip(got, stored[(policy, 1)])) < 1e-12
        run = bots.simulate(db, "pig", ["optimal", "hold-at-20"], rounds=20_000, seed=1)
    assert run.outside == 0 and run.seats[0].exact == first.seats[0].p_win
    assert run.seats[0].low <= first.seats[0].p_win <= run.seats[0].high
    assert sum(s.wins for s in run.seats) == 20_000


def test_the_stored_policy_against_itself(pig100, run_cli):
    """Optimal against optimal: the recursion gives the stored 0.5305927 (Neller and Presser's 0.5306, the
    turn start pig_seat_wins reads), and 20,000 simulated games hold it inside their 95% interval."""
    with dicebase.open(pig100) as db:
        exact = bots.tournament(db, "pig", ["optimal", "optimal"])
        seats = db.pig.seats(2)
    assert max(abs(s.p_win - w.p_win) for s, w in zip(exact.seats, seats)) < 1e-12
    assert round(exact.seats[0].p_win, 4) == 0.5306
    code, out, err = run_cli(["simulate", "pig", "optimal", "optimal", "--rounds", "20000", "--seed", "5",
                              "--no-progress", "--json", "--db", str(pig100)])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["outside"] == 0 and abs(doc["seats"][0]["exact"] - seats[0].p_win) < 1e-12
    assert doc["seats"][0]["low"] <= seats[0].p_win <= doc["seats"][0]["high"]


@pytest.mark.parametrize("variant", ["pig6", "piglet"])
def test_three_players_equal_the_tables(small, variant):
    """Three seats: optimal everywhere is each seat's stored chance (pig_seat_wins); "four turns" in each seat
    against two optimal seats is the tables' pig_policy_wins row; a simulation holds them in its intervals."""
    with dicebase.open(small) as db:
        got = bots.tournament(db, "pig", ["optimal"] * 3, variant=variant)
        want = [s.p_win for s in db.pig.seats(3, variant)]
        assert max(abs(s.p_win - w) for s, w in zip(got.seats, want)) < 1e-12
        stored = {(p.policy, p.seat): p.p_wins for p in db.pig.policies(3, variant)}
        for seat in (1, 2, 3):
            lineup = ["optimal"] * 3
            lineup[seat - 1] = "four-turns"
            seats = bots.tournament(db, "pig", lineup, variant=variant).seats
            assert max(abs(s.p_win - w) for s, w in zip(seats, stored[("four_turns", seat)])) < 1e-12
        run = bots.simulate(db, "pig", ["optimal", "hold-at-3", "four-turns"], rounds=20_000, seed=4, variant=variant)
    assert run.outside == 0 and abs(sum(s.exact for s in run.seats) - 1) < 1e-12


def test_hold_at_n_for_any_n(small):
    """hold-at-N for any N: at piglet's goal 10 holding at 1 is the most timid, hold-at-10 rolls to the goal, and
    every N past the goal plays as hold-at-10 (the turn that reaches the goal wins at once)."""
    with dicebase.open(small) as db:
        win = {n: bots.tournament(db, "pig", ["optimal", f"hold-at-{n}"], variant="piglet").seats[1].p_win
               for n in (1, 2, 10, 11, 1000)}
    assert win[10] == win[11] == win[1000] and 0 < win[1] < 1 and win[1] != win[2]
    assert all(bots.is_bot("pig", n) for n in ("hold-at-1", "hold-at-37", "four-turns", "optimal"))
    assert not any(bots.is_bot("pig", n) for n in ("hold-at-0", "hold-at-1001", "hold-at-020", "hold-at-x", "hold"))


@pytest.mark.parametrize("args, message", [
    (["tournament", "pig", "optimal", "hold-at-0"], "unknown pig bot 'hold-at-0'"),
    (["tournament", "pig", "optimal", "only-3s"], "(it is a threes bot)"),
    (["tournament", "pig"] + ["optimal"] * 5, "takes 2 to 4 players"),
    (["tournament", "pig", "optimal", "optimal", "--variant", "nope"], "rule set"),
    (["play", "pig", "--bots", "optimal,optimal,optimal", "--variant", "pig6"], "4 players are not built"),
])
def test_bad_bots_are_one_line(small, run_cli, args, message):
    code, out, err = run_cli([*args, "--db", str(small)])
    assert code == 2 and message in err and err.count("\n") == 1 and err.startswith("Error: "), err


def test_play_ends_when_a_seat_reaches_the_goal(small):
    """You against two bots at Piglet (goal 10): the game loop ends at once when a seat reaches the goal (no final
    round), your decisions are reviewed by `pig best` (every seat's chance), and the same seed plays the same game."""
    def game(answers: str):
        lines: list[str] = []
        feed = iter(answers * 400)
        with dicebase.open(small) as db:
            review = play(db, "pig", ["optimal", "hold-at-2"], 2, lambda prompt: next(feed), lines.append, seed=2,
                          variant="piglet")
        return review, lines

    review, lines = game("rh")
    assert review == game("rh")[0]
    scores = [int(x) for x in review.result.split(":")[0].replace(",", " ").split() if x.isdigit()][1::2]
    assert max(scores) >= 10 and sorted(scores)[-2] < 10  # one seat reached the goal, the game stopped there
    last = max(i for i, line in enumerate(lines) if line.startswith("-- "))
    assert any("reaches 10" in line for line in lines[last:]) and lines[-1] == review.result
    assert len(review.decisions) > 3 and review.total_cost > 0 and all(d.lookup["lookup"] == "pig best" and d.cost >= 0 for d in review.decisions)
    for d in review.decisions:
        with dicebase.open(small) as db:
            again = db.pig.best(d.lookup["scores"], d.lookup["player"], d.lookup["turn_total"], variant="piglet")
        assert d.p_best == again.p_win and d.best == again.best


def test_play_pig_in_the_terminal(pig100, run_cli, monkeypatch):
    """`dicebase play pig` (you against optimal, answers read from standard input) and its review as JSON."""
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("r\nh\n" * 400))
    code, out, err = run_cli(["play", "pig", "--seed", "3", "--json", "--db", str(pig100)])
    assert code == 0, err
    doc = json.loads(out[out.index("{"):])
    assert doc["game"] == "pig" and "wins; you" in doc["result"]
    with dicebase.open(pig100) as db:
        for seat in (3, 0, "x", 1.5, True):  # the Python API: one line, never a TypeError
            with pytest.raises(BadInput, match="seat must be 1..2"):
                play(db, "pig", ["optimal"], seat, lambda p: "r", lambda t: None)
