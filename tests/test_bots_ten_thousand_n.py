"""10,000 tournaments and simulations of three and four players (issue 23 item 2): optimal bots playing the stored
N-player equilibrium, alone or mixed with seed004 and bank-T bots (docs/bots.md, "10,000, more than two players").

Reuses the session build of tests/test_ten_thousand_nplayer_db.py (the ten-thousand preset to 250 points,
2 and 3 players; same options, so ``built_db`` builds it once).  Four players (a build of their own, too slow
for the suite) were checked by hand the same way (docs/bots.md)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dicebase
from dicebase import bots
from dicebase.bots.ten_thousand_n import TenThousandN

GOAL = 250
OPTIONS = {"ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": GOAL, "players": [2, 3]}}
THREE = ["optimal"] * 3
MIXED = ["optimal", "seed004", "bank-300"]
Z99 = 2.5758293035489004  # two-sided 99 %


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
        start = db.ten_thousand.n.state([0, 0, 0], 1, 0)
        assert max(abs(a - b) for a, b in zip(start.p_wins, stored)) <= 1e-12
        assert [round(s.p_win, 12) for s in db.ten_thousand.seats(players=3)] == [round(x, 12) for x in got]
        rotated = bots.tournament(db, "ten-thousand", THREE, rotate=True)
        assert all(abs(s.p_win - 1 / 3) <= 1e-12 for s in rotated.seats)


def test_the_recursion_with_every_seat_optimal_gives_back_every_stored_turn_start(db_path):
    """The general recursion (the optimal seat's turn by the kernel, its decisions from its own stored values,
    the cycle tuples' stored mixed decisions applied; the final round by the kernels, the stored rows where
    stored) with three optimal seats equals every stored turn start of every seat."""
    with dicebase.open(db_path) as db:
        engine = TenThousandN(db, "ten-thousand", 3)
        W, _kmax = engine.stored
        V = engine.values(THREE)
        assert engine.mixing, "the goal-250 build has cycle tuples with stored mixed decisions"
        assert np.abs(V - W).max() <= 1e-9
        assert np.abs(V[0, 0] - np.array(_stored_start(db, 3))).max() <= 1e-9
        # the final round of two optimal seats, computed by the final-turn kernel from the stored P_exceed, equals
        # the stored rows (every stored deficit and pattern the scores can make)
        E = engine.extents(tuple(THREE))
        mine = engine.phi(("optimal", "optimal"), E, stored=False)
        st = engine.stored_final[2]
        n = min(len(st), len(mine))
        assert np.abs(mine[1:n] - st[1:n]).max() <= 1e-12
        # P_exceed from the rules (used past the stored rows) equals the stored rows
        p = engine.pexc_to(len(engine.pexc_stored) + 20, stored=False)
        assert np.abs(p[1:len(engine.pexc_stored)] - engine.pexc_stored[1:]).max() <= 1e-12


def test_fixed_bots_final_turn_is_the_two_player_last_turn(db_path):
    """A fixed bot's final turn (max-dice keeps, roll until above the bar): its chance to end above the bar equals
    the two-player module's seed004 last-turn table (ten_thousand_exceed), and its excess distribution sums to it."""
    with dicebase.open(db_path) as db:
        engine = TenThousandN(db, "ten-thousand", 3)
        X, fail = engine.final_excess(60)
        ex = engine.two.exceed("seed004")
        n = min(60, len(ex) - 2)
        assert np.abs((1.0 - fail[1:n + 1]) - ex[2:n + 2]).max() <= 1e-12
        assert (X >= 0).all() and np.abs(X.sum(axis=1) + fail - 1.0).max() <= 1e-12


def test_mixed_lineup_exact_lands_on_simulation(db_path):
    """Exact (the recursion) against simulation (dice; the optimal seat's every decision a lookup, n.state /
    n.best, independent of the recursion's kernels): each seat within its 99 % interval."""
    games = 2000
    with dicebase.open(db_path) as db:
        t = bots.tournament(db, "ten-thousand", MIXED)
        exact = [s.p_win for s in t.seats]
        assert abs(sum(exact) - 1.0) <= 1e-12 and all(0 < p < 1 for p in exact)
        assert exact[0] > 0.5  # the optimal seat against the two heuristics (0.5509 at goal 250)
        sim = bots.simulate(db, "ten-thousand", MIXED, rounds=games, seed=5)
    assert sum(s.wins for s in sim.seats) == games
    for s, p in zip(sim.seats, exact):
        assert s.exact == pytest.approx(p, abs=1e-15)
        assert abs(s.rate - p) <= Z99 * math.sqrt(p * (1 - p) / games), (s, p)


def test_optimal_seats_against_fixed_bots_and_rotation(db_path):
    with dicebase.open(db_path) as db:
        t = bots.tournament(db, "ten-thousand", ["seed004", "optimal", "seed004"])
        two = bots.tournament(db, "ten-thousand", ["bank-300", "optimal", "optimal"])
        r = bots.tournament(db, "ten-thousand", ["optimal", "bank-300", "bank-300"], rotate=True)
        alone = bots.tournament(db, "ten-thousand", ["seed004", "bank-300", "bank-500"])
    # the optimal seat in the middle does better than it does among optimal seats (0.3230 at goal 250)
    assert t.seats[1].p_win > 0.3230
    for x in (t, two, r, alone):
        assert abs(sum(s.p_win for s in x.seats) - 1.0) <= 1e-12
    assert r.seatings == 3 and r.seats[0].p_win > 1 / 3 > r.seats[1].p_win
    assert r.seats[1].p_win == pytest.approx(r.seats[2].p_win, abs=1e-15)  # the same bot, averaged alike


def test_two_players_the_general_recursion_is_the_two_player_module(db_path):
    """With N = 2 (the build's 2-player N-player block) the general recursion, mixed lineups included, equals the
    two-player bots' own recursion (dicebase.bots.ten_thousand, independent code: ten_thousand_duel's decisions,
    its 2x2 farkle cycle, ten_thousand_exceed's last turns) within 1e-12."""
    from dicebase.bots.ten_thousand import TenThousand

    with dicebase.open(db_path) as db:
        engine = TenThousandN(db, "ten-thousand", 2)
        two = TenThousand(db, "ten-thousand")
        W, _ = engine.stored
        assert np.abs(engine.values(["optimal", "optimal"]) - W).max() <= 1e-12
        for lineup in (["optimal", "seed004"], ["seed004", "optimal"], ["optimal", "bank-300"], ["bank-300", "seed004"]):
            mine = engine.values(lineup)[0, 0]
            assert np.abs(mine - two.exact(lineup)["win"]).max() <= 1e-12, lineup


def test_duckdb_and_sqlite_give_the_same_mixed_tournament(db_path, tmp_path_factory):
    """The recursion reads every table it needs (turn starts, mixings, the final round) alike from both stores."""
    from dicebase.builder.export import export

    lite = tmp_path_factory.mktemp("bots_n") / "ten_thousand.sqlite"
    with dicebase.open(db_path) as db:
        export(db, "sqlite", lite)
    lineup = ["bank-300", "optimal", "optimal"]
    got = []
    for path in (db_path, lite):
        with dicebase.open(path) as db:
            got.append([s.p_win for s in bots.tournament(db, "ten-thousand", lineup).seats])
    assert got[0] == pytest.approx(got[1], abs=1e-15)
    assert abs(sum(got[0]) - 1.0) <= 1e-12


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


def test_cli_three_bots(db_path, run_cli):
    code, out, err = run_cli(["tournament", "ten-thousand", *THREE, "--db", db_path, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    fixed = ["seed004", "bank-300", "bank-500"]  # no optimal seat: no kernel to run, a quick recursion
    with dicebase.open(db_path) as db:
        stored = _stored_start(db, 3)
        mixed = [s.p_win for s in bots.tournament(db, "ten-thousand", fixed).seats]
    assert [s["p_win"] for s in doc["seats"]] == pytest.approx(stored, abs=1e-12)
    code, out, err = run_cli(["tournament", "ten-thousand", *fixed, "--db", db_path, "--json"])
    assert code == 0, err
    assert [s["p_win"] for s in json.loads(out)["seats"]] == pytest.approx(mixed, abs=1e-15)
    code, out, err = run_cli(["simulate", "ten-thousand", *fixed, "--rounds", "200", "--seed", "1", "--db", db_path,
                              "--json"])
    assert code == 0, err
    assert sum(s["wins"] for s in json.loads(out)["seats"]) == 200


@pytest.mark.parametrize("args, words", [
    (["tournament", "ten-thousand", "optimal", "bank-333", "optimal"], "multiple of 50"),
    (["simulate", "ten-thousand", *THREE, "--rounds", "0"], "rounds must be a whole number 1.."),
    (["tournament", "ten-thousand", *["optimal"] * 5], "takes 2 to 4 players"),
    (["tournament", "ten-thousand", *THREE, "--variant", "nosuch"], "nosuch"),
])
def test_bad_input_is_one_line_exit_2(db_path, run_cli, args, words):
    code, out, err = run_cli([*args, "--db", db_path])
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_four_players_not_built_is_one_line(db_path, run_cli):
    code, out, err = run_cli(["tournament", "ten-thousand", "optimal", "seed004", "optimal", "optimal",
                              "--db", db_path])
    assert code != 0 and len(err.strip().splitlines()) == 1 and "4 players are not built" in err, err
