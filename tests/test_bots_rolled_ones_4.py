"""Great Rolled Ones tournaments of 4 players where the 4-player tables are built (issue 23; docs/bots.md).

One build per session at goal 12 (``-o rolled-ones.players=[4]``, the smallest goal the default
komi range allows): four optimal bots through the engine's recursion give every stored turn start;
the final round of a mixed seating (each later seat optimal or a seed 002 policy) equals a brute
force written from the rules and the stored final-turn decisions; mixed lineups' exact values lie in
the 99 % interval of simulated games; bad input is one line and exit 2.  The 3-player answers are
checked by tests/test_bots.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dicebase
from dicebase import bots
from dicebase.bots.base import wilson
from dicebase.bots.rolled_ones_n import RolledOnesN

GOAL = 12
FOUR = {"rolled_ones": {"goal": GOAL, "players": [4], "policy_players": [], "policy_best_response_players": []}}
Z99 = 2.5758293035489004  # two-sided 99 %


@pytest.fixture(scope="module")
def ro4_path(built_db):
    return built_db(("rolled_ones",), options=FOUR)


@pytest.fixture(scope="module")
def ro4(ro4_path):
    with dicebase.open(str(ro4_path)) as db:
        yield db


@pytest.fixture(scope="module")
def engine(ro4):
    return RolledOnesN(ro4, None, 4)


def test_four_optimal_bots_give_every_stored_turn_start(ro4, engine):
    """The recursion with four optimal seats (its final round from the stored final-turn rows) gives
    the stored win vector at every seat's turn start of every score tuple within 1e-12, and the
    lookups' turn-start values (rolled-ones best --scores ... --turn-total 0) within 1e-9."""
    V = engine.values(["optimal"] * 4)
    assert np.abs(V - engine.starts).max() < 1e-12
    for scores, seat in (((0, 0, 0, 0), 1), ((11, 0, 5, 9), 1), ((3, 10, 11, 2), 3), ((7, 7, 7, 11), 4)):
        idx = sum(s * GOAL ** (3 - n) for n, s in enumerate(scores))
        looked = ro4.rolled_ones.n.best(",".join(map(str, scores)), seat, 0, 0).p_wins
        assert list(V[seat - 1, idx]) == pytest.approx(list(looked), abs=1e-9), scores
    stored = [s.p_win for s in ro4.rolled_ones.seats(4)]
    t = bots.tournament(ro4, "rolled-ones", ["optimal"] * 4)
    assert [s.p_win for s in t.seats] == pytest.approx(stored, abs=1e-12)
    assert sum(stored) == pytest.approx(1.0, abs=1e-12)


def _brute_final(db, N, m, s, bars, lineup):
    """{X: win vector} of the final round after 0-based seat m holds at X, written from the rules:
    each later seat takes one final turn in order and must roll while at or below the bar (the
    highest score so far); above it an optimal seat (not the last) rolls where the stored ``best`` of
    rolled_ones_final_turns says so (holding beyond the stored totals), any other seat holds; a hold
    makes it the leader with the new bar, three 1s leave the bar and the leader as they were."""
    rules = RolledOnesN(db, None, N).rules
    stored = {}

    def rolls(j, t, o):
        if (j,) not in stored:
            where = " AND ".join(f"score{n + 1} = ?" for n in range(N))
            rows = db.fetchall(f"SELECT total, ones, best FROM rolled_ones_final_turns WHERE players = ? AND seat = ? "
                               f"AND {where}", (N, j + 1, *([0] * (j + 1)), *s[j + 1:]))
            stored[(j,)] = {(int(a), int(b)): c == "roll" for a, b, c in rows}
        return stored[(j,)].get((t, o), False)

    memo = {}

    def phi(j, bar, leader):
        if j == N:
            return [1.0 if e == leader else 0.0 for e in range(N)]
        return turn(j, bar, leader, s[j], 0)

    def turn(j, bar, leader, t, o):
        key = (j, bar, leader, t, o)
        if key not in memo:
            if t > bar and (j == N - 1 or lineup[j] != "optimal" or not rolls(j, t, o)):
                v = phi(j + 1, t, j)
            else:
                v = [rules.p_end[o] * x for x in phi(j + 1, bar, leader)]
                for prob, gain, o2 in rules.outcomes[o]:
                    v = [a + prob * b for a, b in zip(v, turn(j, bar, leader, t + gain, o2))]
            memo[key] = v
        return memo[key]

    return {X: phi(m + 1, X, m) for X in bars}


@pytest.mark.parametrize("m, later", [(0, later) for later in itertools.product(["optimal", "fixed-hold-at"], repeat=2)]
                         + [(1, ("optimal",)), (1, ("keep-pace-end-race",))])
def test_final_round_of_a_mixed_seating_equals_a_brute_force(ro4, engine, m, later):
    """Seat m + 1 holds at the goal or above; the later seats' final turns (an optimal seat on the
    stored rows, evaluated against a later policy seat where there is one) equal the brute force
    within 1e-12 for several bars."""
    lineup = ["optimal"] * (m + 1) + list(later) + ["optimal"] * (3 - m - len(later))
    s = np.array([[5, 9, 2, 7]])
    bars = (GOAL, GOAL + 4, GOAL + 17)
    got = engine.hold_at_goal(m, s, np.array([bars]), lineup)[0]
    brute = _brute_final(ro4, 4, m, [5, 9, 2, 7], bars, lineup)
    for x, X in enumerate(bars):
        assert list(got[x]) == pytest.approx(brute[X], abs=1e-12), (X, lineup)
        assert got[x].sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("lineup", [["optimal", "optimal", "fixed-hold-at", "optimal"],
                                    ["keep-pace-end-race", "optimal", "optimal", "roll-4-or-5-dice"]])
def test_mixed_lineup_exact_lies_in_the_simulated_interval(ro4, lineup):
    """Optimal bots beside seed 002's policies: every seat's exact win probability lies in the 99 %
    Wilson interval of 3,000 games played with dice, and the exact vector sums to 1."""
    n = 3000
    sim = bots.simulate(ro4, "rolled-ones", lineup, rounds=n, seed=5)
    assert sum(s.exact for s in sim.seats) == pytest.approx(1.0, abs=1e-12)
    assert sum(s.wins for s in sim.seats) == n
    for s in sim.seats:
        low, high = wilson(s.wins, n, Z99)
        assert low <= s.exact <= high, s


def test_bad_input_is_one_line_exit_2(built_db, ro4_path, run_cli):
    """Five seats are refused; four on a database without the 4-player tables name the rebuild."""
    cases = [(["tournament", "rolled-ones", *["optimal"] * 5, "--db", ro4_path], "takes 2 to 4 players"),
             (["tournament", "rolled-ones", *["optimal"] * 4, "--db", built_db(("rolled_ones",))],
              "4 players are not built")]
    for args, words in cases:
        code, out, err = run_cli(args)
        assert code == 2, (out, err)
        assert len(err.strip().splitlines()) == 1 and words in err, err


def test_sqlite_reads_the_same_tables(built_db, engine):
    """The same build in SQLite: the engine reads identical turn starts and final-turn rows, and gives
    the same final round of a mixed seating bit for bit."""
    with dicebase.open(f"sqlite:///{built_db(('rolled_ones',), 'sqlite', options=FOUR)}") as lite:
        other = RolledOnesN(lite, None, 4)
        assert np.array_equal(other.starts, engine.starts)
        for j, f in engine.finals.items():
            assert all(np.array_equal(f[k], other.finals[j][k]) for k in ("roll", "bust", "fa")) and f["top"] > 0
        s, X = np.array([[0, 11, 4, 8]]), np.array([[GOAL, GOAL + 9]])
        lineup = ["optimal", "optimal", "simple-ones-cases", "optimal"]
        assert np.array_equal(other.hold_at_goal(0, s, X, lineup), engine.hold_at_goal(0, s, X, lineup))
