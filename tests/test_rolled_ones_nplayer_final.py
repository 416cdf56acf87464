"""N-player Great Rolled Ones in the database, the rest of issue 21: final-round states (``best --scores``
with a seat at or above the goal, from ``rolled_ones_final_turns``, checked against the solver's
``nplayer.final_turn_values`` within 1e-12, every legal action's win vector) and seed 002's human policies
against best responses (``rolled_ones_policy_costs``, ``rolled-ones policies``).  Goal 20, 2 and 3 players,
both stores."""

from __future__ import annotations

import random

import numpy as np
import pytest

import dicebase
from dicebase.builder.rolled_ones import nplayer
from dicebase.query.base import BadInput
from dicebase.rules.rolled_ones import Rules, nplayer_rules

GOAL = 20
OPTIONS = {"rolled_ones": {"goal": GOAL, "players": [2, 3], "policy_players": [2, 3]}}


@pytest.fixture(scope="module")
def paths(built_db):
    return {kind: built_db(("rolled_ones",), kind, OPTIONS) for kind in ("duckdb", "sqlite")}


@pytest.fixture(scope="module")
def solutions():
    return {N: nplayer.solve(nplayer_rules(Rules(goal=GOAL), N), N) for N in (2, 3)}


def _reference(sol, scores, p, k, o):
    """Every action's win vector at a final-round state from the solver's final_turn_values and final_start."""
    spec, N = sol.spec, sol.spec.players
    r = spec.rules
    j = p - 1
    bar = max(scores[:j])
    leader = scores[:j].index(bar)
    later = tuple(scores[j + 1:])
    value, roll = nplayer.final_turn_values(spec, sol.finals, j, bar, later)
    top = value.shape[0] - 1
    t = scores[j] + k

    def seats(roles):
        vec = np.zeros(N)
        vec[leader] = roles[0]
        vec[j:] = roles[1:]
        return vec

    nxt = np.array([1.0]) if j == N - 1 else nplayer.final_start(spec, sol.finals, j + 1, bar, later)
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])
    pr = r.p_end[o] * bust
    for prob, gain, o_next in r.outcomes[o]:
        pr = pr + prob * value[min(t + gain, top), o_next]
    hold = None
    if t > bar:
        if j == N - 1:
            hold = np.array([0.0, 1.0])
        else:  # seat j leads with t; the seats after it play against it
            hold = np.concatenate([[0.0], nplayer.final_start(spec, sol.finals, j + 1, t, later)])
    return seats(value[t, o]), bool(roll[t, o]), seats(pr), None if hold is None else seats(hold)


def _states(N, n, seed):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = rng.randrange(2, N + 1)
        j = p - 1
        scores = [rng.randrange(GOAL) for _ in range(N)]
        leader = rng.randrange(j)
        scores[leader] = rng.randrange(GOAL, GOAL + 40)
        for i in range(j):
            if i != leader and scores[i] >= scores[leader]:
                scores[i] = rng.randrange(GOAL)
        o = rng.randrange(3)
        k = rng.choice([0] if o == 0 and rng.random() < 0.2 else [x for x in range(3, 60) if (x, o) in _REACH])
        out.append((tuple(scores), p, k, o))
    return out


_REACH = None


def test_final_round_states_equal_final_turn_values(paths, solutions):
    global _REACH
    from dicebase.rules.rolled_ones import reachable_turns

    _REACH = reachable_turns(Rules(goal=GOAL, turn_total_bound=60))
    db = dicebase.open(paths["duckdb"])
    other = dicebase.open(paths["sqlite"])
    worst = 0.0
    seen_hold = seen_roll = seen_forced = 0
    for N in (2, 3):
        sol = solutions[N]
        states = _states(N, 60, seed=N)
        if N == 3:  # seat 2 just above the bar, where the stored play rolls on (to raise the bar for seat 3)
            R, ti, o = (int(x[0]) for x in np.nonzero(sol.finals.froll[1]))
            t = GOAL + 1 + ti
            k = min(x for x, oo in _REACH if oo == o and 0 <= t - x < GOAL)
            states.append(((t - 1, t - k, R), 2, k, o))
        for scores, p, k, o in states:
            try:
                got = db.rolled_ones.best_n(list(scores), p, k, o)
            except BadInput as exc:  # beyond the stored bars or totals: says so
                assert "final round is stored" in str(exc)
                continue
            value, roll, pr, hold = _reference(sol, scores, p, k, o)
            assert got.as_dict() == other.rolled_ones.best_n(list(scores), p, k, o).as_dict()
            acts = {a.action: np.array(a.p_wins) for a in got.actions}
            worst = max(worst, float(np.max(np.abs(np.array(got.p_wins) - value))),
                        float(np.max(np.abs(acts["roll"] - pr))) if "roll" in acts else 0.0)
            if hold is None:
                assert list(acts) == ["roll"] and got.best == "roll"
                seen_forced += 1
            else:
                worst = max(worst, float(np.max(np.abs(acts["hold"] - hold))))
                assert got.best == ("roll" if roll else "hold")
                seen_hold += got.best == "hold"
                seen_roll += got.best == "roll"
            assert abs(sum(got.p_wins) - 1.0) <= 1e-12
            assert got.source.endswith("rolled_ones_final_turns")
    assert worst <= 1e-12, worst
    assert seen_hold and seen_roll and seen_forced, (seen_hold, seen_roll, seen_forced)


@pytest.mark.parametrize("args, text", [
    ("25,3,4 --player 1", "seat 1's score must be 0..19"),
    ("25,23,4 --player 3", "must rise in seat order"),
    ("25,3,24 --player 2", "seat 3's score must be"),
    ("10,25,4 --player 1", "seat 2's score must be 0..19"),
])
def test_bad_final_round_states_are_one_line(paths, run_cli, args, text):
    scores, _, player = args.split()
    code, out, err = run_cli(["rolled-ones", "best", "--scores", scores, "--player", player, "--turn-total", "0",
                              "--ones", "0", "--db", str(paths["duckdb"])])
    assert code == 2 and text in err and len(err.strip().splitlines()) == 1, err


# --------------------------------------------------------------------------- human policies
def test_policy_costs_two_players_against_seed_002s_figures(paths):
    """With two players a best response to the policy does at least as well as the fixed optimal player
    of seed 002's Fig. 2 (rolled_ones_seat_win_rates): the policy seat wins at most as often, and the
    optimal figures are the two-player ones."""
    db = dicebase.open(paths["duckdb"])
    rows = db.rolled_ones.n.policies(2)
    fixed = {(g.policy, 1): g.p1_win for g in db.rolled_ones.gaps()} | {(g.policy, 2): g.p2_win
                                                                        for g in db.rolled_ones.gaps()}
    adv = db.rolled_ones.advantage()
    assert len(rows) == 8
    for row in rows:
        assert row.p_win <= fixed[(row.policy, row.seat)] + 1e-12
        assert abs(row.p_win_optimal - (adv.p1_win if row.seat == 1 else adv.p2_win)) <= 1e-12
        assert row.cost > 0 and abs(row.cost - (row.p_win_optimal - row.p_win)) <= 1e-15


def test_policy_costs_three_players_equal_the_solver(paths, solutions):
    from dicebase.builder.rolled_ones import nplayer_policies as npp

    db = dicebase.open(paths["duckdb"])
    rows = {(r.policy, r.seat): r for r in db.rolled_ones.n.policies(3)}
    assert len(rows) == 12
    optimal = solutions[3].start_at((0, 0, 0))[0]
    seats = db.rolled_ones.seats(3)
    for name, seat in (("keep_pace_end_race", 1), ("roll_4_or_5_dice", 3)):
        sol = npp.solve_fixed(solutions[3].spec.rules, 3, name, seat - 1)
        assert abs(rows[(name, seat)].p_win - sol.p_win) <= 1e-12
        assert abs(rows[(name, seat)].p_win_optimal - optimal[seat - 1]) <= 1e-12
        assert abs(rows[(name, seat)].p_win_optimal - seats[seat - 1].p_win) <= 1e-12
    # the simplest policy costs the most in every seat
    for seat in (1, 2, 3):
        assert rows[("roll_4_or_5_dice", seat)].cost == max(r.cost for (n, s), r in rows.items() if s == seat)


def test_policies_command(paths, run_cli):
    import json

    docs = []
    for kind in ("duckdb", "sqlite"):
        code, out, err = run_cli(["rolled-ones", "policies", "--players", "3", "--json", "--db", str(paths[kind])])
        assert code == 0, err
        docs.append(json.loads(out))
    assert docs[0] == docs[1] and len(docs[0]) == 12
    code, out, err = run_cli(["rolled-ones", "policies", "--db", str(paths["duckdb"])])
    assert code == 0 and "3 players, simple_ones_cases: mean cost over the seats" in out


def test_policies_not_built_names_the_rebuild(built_db, run_cli):
    path = built_db(("rolled_ones",), "duckdb", {"rolled_ones": {"goal": GOAL, "players": [2, 3]}})
    code, out, err = run_cli(["rolled-ones", "policies", "--players", "3", "--db", str(path)])
    assert code != 0 and "policy_players" in err and len(err.strip().splitlines()) == 1, err
