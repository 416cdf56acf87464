"""10,000 tournaments and simulations of three players (issue 23 item 2): optimal bots playing the stored
N-player equilibrium (docs/bots.md, "10,000, more than two players").

Reuses the session build of tests/test_ten_thousand_nplayer_db.py (the ten-thousand preset to 250 points,
2 and 3 players; same options, so ``built_db`` builds it once)."""

from __future__ import annotations

import json
import math

import pytest

import dicebase
from dicebase import bots

GOAL = 250
OPTIONS = {"ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": GOAL, "players": [2, 3]}}
THREE = ["optimal"] * 3


@pytest.fixture(scope="module")
def db_path(built_db):
    return built_db(("ten_thousand",), "duckdb", OPTIONS)


def _stored_start(db, players: int) -> list[float]:
    cols = ", ".join(f"p_win{n}" for n in range(1, players + 1))
    zeros = " AND ".join(f"score{n} = 0" for n in range(1, players + 1))
    (row,) = db.fetchall(f"SELECT {cols} FROM ten_thousand_turn_starts WHERE rules = 'ten-thousand' AND players = ? "
                         f"AND seat = 1 AND {zeros}", (players,))
    return [float(x) for x in row]


def test_three_optimal_bots_give_the_stored_start_vector(db_path):
    with dicebase.open(db_path) as db:
        t = bots.tournament(db, "ten-thousand", THREE)
        stored = _stored_start(db, 3)
        got = [s.p_win for s in t.seats]
        assert t.unit == "game" and t.variant == "ten-thousand" and [s.seat for s in t.seats] == [1, 2, 3]
        assert max(abs(a - b) for a, b in zip(got, stored)) <= 1e-12
        assert abs(sum(got) - 1.0) <= 1e-12
        assert got[0] > got[1] > got[2]  # the first seat's head start at a short goal (docs/n_players.md)
        # the recursion one turn deep: seat 1's turn from the stored turn starts it reaches gives the same vector
        start = db.ten_thousand.state_n([0, 0, 0], 1, 0)
        assert max(abs(a - b) for a, b in zip(start.p_wins, stored)) <= 1e-12
        assert [round(s.p_win, 12) for s in db.ten_thousand.seats(players=3)] == [round(x, 12) for x in got]
        rotated = bots.tournament(db, "ten-thousand", THREE, rotate=True)
        assert all(abs(s.p_win - 1 / 3) <= 1e-12 for s in rotated.seats)


def test_simulation_of_three_optimal_bots_lands_on_the_exact_values(db_path):
    rounds = 1000  # about 6 ms a game: plain Python per roll, every decision a lookup (docs/bots.md)
    with dicebase.open(db_path) as db:
        sim = bots.simulate(db, "ten-thousand", THREE, rounds=rounds, seed=7)
        stored = _stored_start(db, 3)
    with dicebase.open(db_path) as db:  # a fresh connection: nothing remembered
        first = bots.simulate(db, "ten-thousand", THREE, rounds=200, seed=11)
        again = bots.simulate(db, "ten-thousand", THREE, rounds=200, seed=11)
    assert sum(s.wins for s in sim.seats) == rounds  # one winner a game
    assert [s.wins for s in again.seats] == [s.wins for s in first.seats]  # seeded: reproducible
    for s, p in zip(sim.seats, stored):
        assert s.exact == pytest.approx(p, abs=1e-12)
        assert abs(s.rate - p) <= 4 * math.sqrt(p * (1 - p) / rounds), (s, p)
        assert s.low <= s.rate <= s.high


def test_cli_three_optimal_bots(db_path, run_cli):
    code, out, err = run_cli(["tournament", "ten-thousand", *THREE, "--db", db_path, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    with dicebase.open(db_path) as db:
        stored = _stored_start(db, 3)
    assert [s["p_win"] for s in doc["seats"]] == pytest.approx(stored, abs=1e-12)
    code, out, err = run_cli(["simulate", "ten-thousand", *THREE, "--rounds", "200", "--seed", "1", "--db", db_path,
                              "--json"])
    assert code == 0, err
    assert sum(s["wins"] for s in json.loads(out)["seats"]) == 200


@pytest.mark.parametrize("args, words", [
    (["tournament", "ten-thousand", "optimal", "seed004", "optimal"], "mixed lineups of more players are not done"),
    (["tournament", "ten-thousand", "optimal", "optimal", "bank-350"], "takes two players in this version"),
    (["simulate", "ten-thousand", *THREE, "--rounds", "0"], "rounds must be a whole number 1.."),
    (["tournament", "ten-thousand", *["optimal"] * 5], "takes 2 to 4 players"),
    (["tournament", "ten-thousand", *THREE, "--variant", "nosuch"], "nosuch"),
])
def test_bad_input_is_one_line_exit_2(db_path, run_cli, args, words):
    code, out, err = run_cli([*args, "--db", db_path])
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_four_players_not_built_is_one_line(db_path, run_cli):
    code, out, err = run_cli(["tournament", "ten-thousand", *["optimal"] * 4, "--db", db_path])
    assert code != 0 and len(err.strip().splitlines()) == 1 and "4 players are not built" in err, err
