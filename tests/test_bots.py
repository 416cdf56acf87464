"""Bots, exact tournaments and simulation (issue 23): docs/bots.md.

The exact values are checked against what the build stored (seats of optimal players, the
policies' win rates against optimal play, the final-score distributions) and against simulation;
seed 003's two tournaments are computed exactly and their published counts compared.
"""

from __future__ import annotations

import json
import math

import pytest

import dicebase
from dicebase import bots

Z4 = 4.0  # a simulated rate and the exact value differ by less than 4 standard errors


@pytest.fixture(scope="module")
def threes_db(built_db):
    with dicebase.open(str(built_db(("threes",)))) as db:
        yield db


@pytest.fixture(scope="module")
def six_db(built_db):
    """Seed 003's tournaments seat six players."""
    path = built_db(("threes",), options={"threes": {"max_players": 6, "many_dice": 0, "many_dice_chances": 0}})
    with dicebase.open(str(path)) as db:
        yield db


@pytest.fixture(scope="module")
def threes_sqlite(built_db):
    with dicebase.open(f"sqlite:///{built_db(('threes',), 'sqlite')}") as db:
        yield db


@pytest.fixture(scope="module")
def ro_db(built_db):
    with dicebase.open(str(built_db(("rolled_ones",)))) as db:
        yield db


def _close(sim, n):
    """Every seat's simulated rate within Z4 standard errors of its exact value."""
    for s in sim.seats:
        se = math.sqrt(max(s.exact * (1 - s.exact), 1e-12) / n)
        assert abs(s.rate - s.exact) < Z4 * se, (s, se)


# --------------------------------------------------------------------------- Threes
@pytest.mark.parametrize("players", [2, 3, 5])
def test_threes_exact_round_of_optimal_players_equals_the_stored_seats(threes_db, players):
    """The recursion over the stored policies gives threes_seats: shared ties (every tied player
    wins) for `win` bots, strict (unique lowest) for `win-strict` bots."""
    shared = bots.tournament(threes_db, "threes", ["win"] * players)
    strict = bots.tournament(threes_db, "threes", ["win-strict"] * players)
    for got, ties, field in ((shared, "shared", "p_win"), (strict, "strict", "p_sole")):
        stored = threes_db.threes.seats(players, ties=ties)
        assert [getattr(s, field) for s in got.seats] == pytest.approx([r.p_win for r in stored], abs=1e-12)
    # an optimal player never loses to its copies by more than the seat order: the seats rise with it
    wins = [s.p_win for s in shared.seats]
    assert wins == sorted(wins)


def test_threes_turn_distributions_equal_the_stored_ones(threes_db):
    from dicebase.bots.threes import Threes

    t = Threes(threes_db)
    expected = dict(threes_db.fetchall(
        "SELECT final_score, probability FROM threes_expected_dist WHERE variant = 'classic'"))
    dist = t.final_distribution("expected", 0)[0]
    assert [dist[x] for x in sorted(expected)] == pytest.approx([expected[x] for x in sorted(expected)], abs=1e-12)
    for m, b in ((0, 7), (2, 31), (3, 4)):
        stored = dict(threes_db.fetchall(
            "SELECT final_score, probability FROM threes_win_dist WHERE variant = 'classic' AND ties = 'shared' "
            "AND players_after = ? AND to_beat = ?", (m, b)))
        dist = t.final_distribution("win", m)[b]
        assert [dist[x] for x in sorted(stored)] == pytest.approx([stored[x] for x in sorted(stored)], abs=1e-12)


def test_threes_split_and_sole_counts_add_up(threes_db):
    t = bots.tournament(threes_db, "threes", ["random", "only-3s", "expected", "win"])
    assert sum(s.p_split for s in t.seats) == pytest.approx(1.0, abs=1e-12)
    assert sum(s.p_win for s in t.seats) > 1 > sum(s.p_sole for s in t.seats)
    for s in t.seats:
        assert s.p_sole <= s.p_split <= s.p_win


#: Seed 003, "Keeping only 3's": Game(RandomBot.create(3) + Only3sBot.create(3)).play(num_rounds=1000).
SEED003_FIRST = (1000, ["random"] * 3 + ["only-3s"] * 3, [80, 84, 75, 332, 316, 313])
#: Seed 003, "Putting it all together": Only3sBot and OptimalBot alternating, 10,000 rounds.
SEED003_SECOND = (10_000, ["only-3s", "win"] * 3, [1830, 2299, 1767, 2383, 1909, 2512])


@pytest.mark.parametrize("tournament", [SEED003_FIRST, SEED003_SECOND], ids=["random-vs-only3s", "only3s-vs-optimal"])
def test_seed003_tournaments_exactly_and_their_published_counts(six_db, tournament):
    """Seed 003 counts every player tied for the lowest score as a winner (`p_win`).  Its counts
    lie within 3 standard deviations of the exact expectation (docs/bots.md has the table; seed
    003's OptimalBot is its own calculator, close to but not the stored subgame-perfect `win`)."""
    rounds, seating, counts = tournament
    exact = bots.tournament(six_db, "threes", seating)
    for seat, count in zip(exact.seats, counts):
        sd = math.sqrt(rounds * seat.p_win * (1 - seat.p_win))
        assert abs(count - rounds * seat.p_win) < 3 * sd, (seat, count)
    sim = bots.simulate(six_db, "threes", seating, rounds=rounds, seed=3)
    _close(sim, rounds)
    # the seed's headline: only-3s beats random by far; optimal (win) beats only-3s in every pair
    p = [s.p_win for s in exact.seats]
    if seating[0] == "random":
        assert min(p[3:]) > 4 * max(p[:3])
    else:
        assert all(p[i + 1] > p[i] for i in (0, 2, 4))


def test_threes_exact_equals_simulation(threes_db):
    seating = ["random", "expected", "only-3s", "win-strict"]
    n = 100_000
    for count in ("win", "split", "sole"):
        _close(bots.simulate(threes_db, "threes", seating, rounds=n, seed=11, count=count), n)


def test_threes_reroll_variant_and_sqlite_agree(threes_db, threes_sqlite):
    seating = ["only-3s", "expected", "win"]
    for variant in ("classic", "reroll"):
        a = bots.tournament(threes_db, "threes", seating, variant=variant)
        b = bots.tournament(threes_sqlite, "threes", seating, variant=variant)
        assert [s.p_win for s in a.seats] == pytest.approx([s.p_win for s in b.seats], abs=1e-14)
    n = 50_000
    _close(bots.simulate(threes_db, "threes", seating, rounds=n, seed=5, variant="reroll"), n)


def test_simulation_is_reproducible(threes_db):
    a = bots.simulate(threes_db, "threes", ["random", "win"], rounds=5000, seed=9)
    b = bots.simulate(threes_db, "threes", ["random", "win"], rounds=5000, seed=9)
    c = bots.simulate(threes_db, "threes", ["random", "win"], rounds=5000, seed=10)
    assert a == b
    assert [s.wins for s in a.seats] != [s.wins for s in c.seats]


def test_rotate_averages_every_seating(threes_db):
    r = bots.tournament(threes_db, "threes", ["only-3s", "win", "win"], rotate=True)
    assert r.seatings == 3
    assert r.seats[1].p_win == pytest.approx(r.seats[2].p_win, abs=1e-15)
    seatings = [["only-3s", "win", "win"], ["win", "only-3s", "win"], ["win", "win", "only-3s"]]
    mean = sum(bots.tournament(threes_db, "threes", s).seats[s.index("only-3s")].p_win for s in seatings) / 3
    assert r.seats[0].p_win == pytest.approx(mean, abs=1e-15)


# --------------------------------------------------------------------------- Great Rolled Ones
def test_rolled_ones_two_optimal_players_give_the_stored_start_value(ro_db):
    (start,) = ro_db.fetchone("SELECT p_win FROM rolled_ones_states WHERE p = 1 AND i = 0 AND j = 0 AND k = 0 AND o = 0")
    t = bots.tournament(ro_db, "rolled-ones", ["optimal", "optimal"])
    assert t.seats[0].p_win == pytest.approx(start, abs=1e-12)
    assert t.seats[0].p_win + t.seats[1].p_win == pytest.approx(1.0, abs=1e-15)
    # rotated, an optimal player against itself is even
    rot = bots.tournament(ro_db, "rolled-ones", ["optimal", "optimal"], rotate=True)
    assert [s.p_win for s in rot.seats] == pytest.approx([0.5, 0.5], abs=1e-15)


def test_rolled_ones_policies_against_optimal_equal_the_stored_win_rates(ro_db):
    """Seed 002's four policies: the recursion reproduces rolled_ones_seat_win_rates in both seats,
    and optimal play beats each of them over both seatings (it never loses more than the seat gives)."""
    stored = {(p, s): w for p, s, w in ro_db.fetchall("SELECT policy, seat, p_win FROM rolled_ones_seat_win_rates")}
    for bot, col in (("roll-4-or-5-dice", "roll_4_or_5_dice"), ("fixed-hold-at", "fixed_hold_at"),
                     ("simple-ones-cases", "simple_ones_cases"), ("keep-pace-end-race", "keep_pace_end_race")):
        first = bots.tournament(ro_db, "rolled-ones", [bot, "optimal"]).seats[0].p_win
        second = bots.tournament(ro_db, "rolled-ones", ["optimal", bot]).seats[1].p_win
        assert first == pytest.approx(stored[(col, 1)], abs=1e-12)
        assert second == pytest.approx(stored[(col, 2)], abs=1e-12)
        rot = bots.tournament(ro_db, "rolled-ones", ["optimal", bot], rotate=True)
        assert rot.seats[0].p_win > 0.5


def test_rolled_ones_exact_equals_simulation(ro_db):
    n = 40_000
    for seating in (["optimal", "fixed-hold-at"], ["roll-4-or-5-dice", "keep-pace-end-race"]):
        _close(bots.simulate(ro_db, "rolled-ones", seating, rounds=n, seed=2), n)


# --------------------------------------------------------------------------- Great Rolled Ones, 3 players
#: the build of tests/test_rolled_ones_nplayer_db.py (goal 20, 2 and 3 players; one build per session)
NPLAYER_OPTIONS = {"rolled_ones": {"goal": 20, "players": [2, 3], "policy_players": [2, 3],
                                   "policy_best_response_players": [2]}}


@pytest.fixture(scope="module")
def nro_db(built_db):
    with dicebase.open(str(built_db(("rolled_ones",), options=NPLAYER_OPTIONS))) as db:
        yield db


def test_rolled_ones_three_optimal_players_give_every_stored_turn_start(nro_db):
    """Three optimal bots play the stored equilibrium (its mixed decisions at the cycle tuples weighted
    exactly): the recursion gives the stored win vector at every seat's turn start of every score
    tuple within 1e-12, the start among them; rotated, each is even."""
    import numpy as np

    from dicebase.bots.rolled_ones_n import RolledOnesN

    engine = RolledOnesN(nro_db, None, 3)
    assert engine.mixing  # the goal-20 build has mixed cycle tuples
    V = engine.values(["optimal"] * 3)
    assert np.abs(V - engine.starts).max() < 1e-12
    stored = [s.p_win for s in nro_db.rolled_ones.seats(3)]
    t = bots.tournament(nro_db, "rolled-ones", ["optimal"] * 3)
    assert [s.p_win for s in t.seats] == pytest.approx(stored, abs=1e-12)
    rot = bots.tournament(nro_db, "rolled-ones", ["optimal"] * 3, rotate=True)
    assert [s.p_win for s in rot.seats] == pytest.approx([1 / 3] * 3, abs=1e-15)


def test_rolled_ones_n_player_engine_with_two_seats_is_the_two_player_game(nro_db):
    """The N-player engine on the 2-player block equals the two-player engine, human policies included."""
    from dicebase.bots.rolled_ones_n import RolledOnesN

    two = RolledOnesN(nro_db, None, 2)
    for seating in (["optimal", "fixed-hold-at"], ["keep-pace-end-race", "roll-4-or-5-dice"]):
        assert list(two.exact(seating)["win"]) == pytest.approx(
            [s.p_win for s in bots.tournament(nro_db, "rolled-ones", seating).seats], abs=1e-12)


def test_rolled_ones_three_players_exact_equals_simulation(nro_db):
    """Seed 002's policies read for three players (the last seat player 2's cases, "opponent" the
    leading other player) beside optimal bots: exact equals 20,000 simulated games (a randomising
    optimal seat draws its stored probability)."""
    n = 20_000
    for seating in (["optimal", "fixed-hold-at", "keep-pace-end-race"], ["roll-4-or-5-dice", "optimal", "optimal"],
                    ["simple-ones-cases", "keep-pace-end-race", "optimal"]):
        sim = bots.simulate(nro_db, "rolled-ones", seating, rounds=n, seed=5)
        assert sum(s.exact for s in sim.seats) == pytest.approx(1.0, abs=1e-12)
        _close(sim, n)


# --------------------------------------------------------------------------- 10,000
@pytest.fixture(scope="module")
def tt_db(built_db):
    with dicebase.open(str(built_db(("ten_thousand",)))) as db:
        yield db


def test_ten_thousand_seed004_turn_equals_the_stored_expected_points(tt_db):
    """The seed 004 bot's turn distribution, read from the stored rule and keeps, banks on average
    exactly ten_thousand_policy_turn's expected points (seed 004's heuristic)."""
    import numpy as np

    from dicebase.bots.ten_thousand import TenThousand

    t = TenThousand(tt_db)
    dist = t.turn_distribution("seed004")
    (stored,) = tt_db.fetchone("SELECT expected_points FROM ten_thousand_policy_turn WHERE rules = 'ten-thousand' "
                               "AND policy = 'seed004'")
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)
    assert float((dist * np.arange(len(dist))).sum() * 50) == pytest.approx(stored, abs=1e-9)


def test_ten_thousand_two_optimal_players_and_seed004_give_the_stored_values(tt_db):
    """The optimal bot (ten_thousand_duel and its lookahead keeps) against itself gives the stored
    start value, and seed 004's heuristic against it ten_thousand_policy_duel, in both seats."""
    (start,) = tt_db.fetchone("SELECT p_win FROM ten_thousand_duel WHERE rules = 'ten-thousand' AND goal = 1000 "
                              "AND score = 0 AND opponent = 0 AND turn_total = 0 AND dice = 6 AND triple = 0")
    stored = {(p, s): w for p, s, w in tt_db.fetchall(
        "SELECT policy, seat, p_win FROM ten_thousand_policy_duel WHERE rules = 'ten-thousand' AND goal = 1000")}
    assert stored[("optimal", 1)] == pytest.approx(start, abs=1e-12)
    t = bots.tournament(tt_db, "ten-thousand", ["optimal", "optimal"])
    assert t.seats[0].p_win == pytest.approx(start, abs=1e-12)
    first = bots.tournament(tt_db, "ten-thousand", ["seed004", "optimal"]).seats[0].p_win
    second = bots.tournament(tt_db, "ten-thousand", ["optimal", "seed004"]).seats[1].p_win
    assert first == pytest.approx(stored[("seed004", 1)], abs=1e-12)
    assert second == pytest.approx(stored[("seed004", 2)], abs=1e-12)
    n = 20_000
    _close(bots.simulate(tt_db, "ten-thousand", ["optimal", "bank-1000-500-400-350-300-250"], rounds=n, seed=6), n)


def test_ten_thousand_optimal_bot_read_by_blocks_gives_every_stored_turn_start(tt_db):
    """The optimal bot's turns are evaluated a block of mover scores at a time (how it plays the
    default goal 10,000; BENCHMARKS.md): with blocks of a few scores, two optimal players' recursion
    gives the stored turn start of every score pair (ten_thousand_duel_bounds.p_start) within 1e-12."""
    import numpy as np

    from dicebase.bots.ten_thousand import TenThousand

    t = TenThousand(tt_db)
    t.BLOCK_ROWS = 20_000  # many blocks at goal 1,000 (227,041 rows in all)
    assert len(list(t.blocks())) > 5
    V1, V2 = t.start_values(["optimal", "optimal"])
    stored = np.zeros_like(V1)
    for i, j, p in tt_db.fetchall("SELECT score, opponent, p_start FROM ten_thousand_duel_bounds "
                                  "WHERE rules = 'ten-thousand' AND goal = 1000"):
        stored[i // 50, j // 50] = p
    assert np.abs(V1 - stored).max() < 1e-12 and np.abs(V2 - stored).max() < 1e-12


def test_ten_thousand_exact_equals_simulation(tt_db):
    rot = bots.tournament(tt_db, "ten-thousand", ["seed004", "seed004"], rotate=True)
    assert [s.p_win for s in rot.seats] == pytest.approx([0.5, 0.5], abs=1e-15)
    n = 40_000
    for seating in (["seed004", "bank-300"], ["bank-1000-500-400-350-300-250", "seed004"]):
        _close(bots.simulate(tt_db, "ten-thousand", seating, rounds=n, seed=4), n)


# --------------------------------------------------------------------------- CLI, HTTP, bad input
def test_cli_tournament_outputs(built_db, run_cli):
    db = built_db(("threes",))
    code, out, err = run_cli(["tournament", "threes", "random", "only-3s", "--db", db, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert [s["player"] for s in doc["seats"]] == ["random", "only-3s"]
    code, out, _ = run_cli(["tournament", "threes", "random", "only-3s", "--db", db, "--format", "csv"])
    assert out.splitlines()[0] == "game,variant,rotate,seat,bot,player,p_win,p_split,p_sole"
    code, out, _ = run_cli(["tournament", "threes", "random", "random", "only-3s", "--db", db])
    assert "random 2" in out and code == 0
    code, out, _ = run_cli(["simulate", "threes", "random", "only-3s", "--rounds", "2000", "--seed", "1", "--db", db])
    assert code == 0 and "exact values outside their 95% interval" in out


def test_http_tournament_is_the_cli_json(built_db, run_cli):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from dicebase.web.app import create_app

    db = built_db(("threes",))
    with TestClient(create_app(dicebase.open(str(db)))) as client:
        got = client.get("/api/v1/tournament", params={"game": "threes", "bots": "random,only-3s,win"})
        bad = client.get("/api/v1/tournament", params={"game": "threes", "bots": "random,optimal"})
    _, out, _ = run_cli(["tournament", "threes", "random", "only-3s", "win", "--db", db, "--json"])
    assert got.status_code == 200 and got.json() == json.loads(out)
    assert bad.status_code == 400 and "rolled-ones bot" in bad.json()["error"]


@pytest.mark.parametrize("args, words", [
    (["tournament", "threes", "random", "nobot"], "unknown threes bot 'nobot'"),
    (["tournament", "threes", "random", "optimal"], "(it is a rolled-ones bot)"),
    (["tournament", "rolled-ones", "optimal", "win"], "(it is a threes bot)"),
    (["tournament", "threes", "random"], "at least 2 bots"),
    (["simulate", "threes", "random", "win", "--rounds", "0"], "rounds must be a whole number 1.."),
    (["simulate", "threes", "random", "win", "--seed", "-1"], "seed must be a whole number >= 0"),
    (["tournament", "rolled-ones", *["optimal"] * 5], "takes 2 to 4 players"),
    (["tournament", "rolled-ones", "optimal", "optimal", "optimal"], "3 players are not built"),
    (["tournament", "ten-thousand", "optimal", "seed004", "seed004"], "3 players are not built"),
    (["play", "rolled-ones", "--bots", "optimal,optimal"], "3 players are not built"),
    (["tournament", "threes", *["win"] * 6], "rounds of up to 5 players"),
    (["play", "threes", "--bots", "win", "--seat", "3"], "seat must be 1..2"),
    (["tournament", "ten-thousand", "seed004", "bank-30"], "a bank-T threshold must be a multiple of 50"),
    (["tournament", "ten-thousand", "seed004", "only-3s"], "(it is a threes bot)"),
])
def test_bad_input_is_one_line_exit_2(built_db, run_cli, args, words):
    db = (built_db(("rolled_ones",)) if "rolled-ones" in args else built_db(("ten_thousand",))
          if "ten-thousand" in args else built_db(("threes",)))
    code, out, err = run_cli([*args, "--db", db])
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and words in err, err


@pytest.mark.parametrize("variant", [["x"], 3, b"classic"])
def test_a_variant_that_is_not_a_name_is_bad_input(threes_db, variant):
    """Found by Pig's junk sweep (issue 31): a list as the rule set raised TypeError (an unhashable cache key)."""
    from dicebase.errors import BadInput

    with pytest.raises(BadInput, match="variant must be a rule set's name"):
        bots.tournament(threes_db, "threes", ["random", "win"], variant=variant)
