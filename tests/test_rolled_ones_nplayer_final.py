"""N-player Great Rolled Ones in the database, the rest of issue 21: final-round states (``best --scores``
with a seat at or above the goal, from ``rolled_ones_final_turns``, checked against the solver's
``nplayer.final_turn_values`` within 1e-12, every legal action's win vector) and seed 002's human policies
(``rolled_ones_policy_costs``, ``rolled-ones policies``) in both readings: the others keep the stored
equilibrium (seed 002's figures with two players, at goal 50 in the default test build) or best-respond.
Goal 20, 2 and 3 players, both stores, in the build of tests/test_rolled_ones_nplayer_db.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

import dicebase
from dicebase.builder.rolled_ones import nplayer
from dicebase.query.base import BadInput
from dicebase.rules.rolled_ones import Rules, nplayer_rules

GOAL = 20
#: the build of tests/test_rolled_ones_nplayer_db.py (shared: one build per store)
OPTIONS = {"rolled_ones": {"goal": GOAL, "players": [2, 3], "policy_players": [2, 3],
                           "policy_best_response_players": [2]}}


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
                got = db.rolled_ones.n.best(list(scores), p, k, o)
            except BadInput as exc:  # beyond the stored bars or totals: says so
                assert "final round is stored" in str(exc)
                continue
            value, roll, pr, hold = _reference(sol, scores, p, k, o)
            assert got.as_dict() == other.rolled_ones.n.best(list(scores), p, k, o).as_dict()
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
#: seed 002 (002_adf76725bcd1fb40.txt) Fig. 2: each policy's win rates against the optimal player minus optimal
#: play's, summed over both seats
FIG2 = {"roll_4_or_5_dice": -0.0536, "fixed_hold_at": -0.0268, "simple_ones_cases": -0.0201,
        "keep_pace_end_race": -0.0100}


def test_policy_costs_two_players_reproduce_seed_002(built_db):
    """Seed 002's measure: the other seat keeps playing its optimal strategy.  With two players the equilibrium
    reading (the default) equals the two-player table (rolled_ones_seat_win_rates, `rolled-ones gaps`) within
    1e-12 in both seats, and its sums over the seats are seed 002's Fig. 2 figures (the real game, goal 50)."""
    db = dicebase.open(built_db(("rolled_ones",)))
    rows = db.rolled_ones.n.policies(2)
    gaps = {g.policy: g for g in db.rolled_ones.gaps()}
    adv = db.rolled_ones.advantage()
    assert len(rows) == 8 and {r.mode for r in rows} == {"equilibrium"}
    for row in rows:
        fixed = gaps[row.policy].p1_win if row.seat == 1 else gaps[row.policy].p2_win
        assert abs(row.p_win - fixed) <= 1e-12, (row, fixed)
        assert abs(row.p_win_optimal - (adv.p1_win if row.seat == 1 else adv.p2_win)) <= 1e-12
        assert row.cycle_tuples == 0
    for name, figure in FIG2.items():
        total = sum(r.cost for r in rows if r.policy == name)
        assert abs(-total - figure) <= 5e-4, (name, -total, figure)
        assert abs(total + gaps[name].gap) <= 1e-12


def test_best_responses_exploit_the_policy_two_players(paths, solutions):
    """The second reading: the other seat best-responds.  It does at least as well against the policy as the
    fixed optimal player (an optimal two-player strategy guarantees its value), so the policy seat wins at
    most as often; the rows equal the fixed-seat solve."""
    from dicebase.builder.rolled_ones import nplayer_policies as npp

    db = dicebase.open(paths["duckdb"])
    eq = {(r.policy, r.seat): r for r in db.rolled_ones.n.policies(2)}
    br = {(r.policy, r.seat): r for r in db.rolled_ones.n.policies(2, mode="best_response")}
    assert len(br) == 8 and {r.mode for r in br.values()} == {"best_response"}
    for key, row in br.items():
        assert row.p_win <= eq[key].p_win + 1e-12 and row.p_win_optimal == eq[key].p_win_optimal
        assert row.cost > 0 and abs(row.cost - (row.p_win_optimal - row.p_win)) <= 1e-15
    assert sum(eq[k].p_win - br[k].p_win for k in br) > 1e-4  # the readings differ
    fixed = npp.solve_fixed(solutions[2].spec.rules, 2, "fixed_hold_at", 1)
    assert abs(br[("fixed_hold_at", 2)].p_win - fixed.p_win) <= 1e-12


def test_policy_costs_three_players_equal_the_evaluation(paths, solutions):
    """Three players, the equilibrium reading: the stored rows equal the policy evaluation, and the same
    evaluation with every seat on the stored play gives back every stored turn start within 1e-12, the cycle
    tuples' mixed equilibria included."""
    from dicebase.builder.rolled_ones import nplayer_policies as npp
    from dicebase.numeric.rolled_ones_policies import POLICIES

    sol = solutions[3]
    assert any(rec["kind"] == "mixed" for rec in sol.mixed)
    ev = npp.against_equilibrium(sol, [(n, m) for n in POLICIES for m in range(3)] + [(None, m) for m in range(3)])
    for m in range(3):
        assert np.abs(ev.start[ev.plays.index((None, m))] - sol.start[:, :, m]).max() <= 1e-12
    db = dicebase.open(paths["duckdb"])
    rows = {(r.policy, r.seat): r for r in db.rolled_ones.n.policies(3)}
    seats = db.rolled_ones.seats(3)
    assert len(rows) == 12
    for (name, seat), row in rows.items():
        assert abs(row.p_win - ev.p_win(name, seat - 1)) <= 1e-12
        assert abs(row.p_win_optimal - seats[seat - 1].p_win) <= 1e-12
        assert row.cost > 0
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
    assert docs[0] == docs[1] and len(docs[0]) == 12 and {d["mode"] for d in docs[0]} == {"equilibrium"}
    code, out, err = run_cli(["rolled-ones", "policies", "--db", str(paths["duckdb"])])
    assert code == 0 and "3 players, simple_ones_cases (equilibrium): mean cost over the seats" in out
    code, out, err = run_cli(["rolled-ones", "policies", "--players", "2", "--mode", "best_response", "--json",
                              "--db", str(paths["sqlite"])])
    assert code == 0 and {d["mode"] for d in json.loads(out)} == {"best_response"}
    code, out, err = run_cli(["rolled-ones", "policies", "--mode", "exploit", "--db", str(paths["duckdb"])])
    assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_policy_modes_agree_across_layers():
    from dicebase.builder.rolled_ones.nplayer_policies import MODES
    from dicebase.cli.rolled_ones import POLICY_MODES as cli_modes
    from dicebase.rules.rolled_ones import POLICY_MODES

    assert MODES == POLICY_MODES == cli_modes == ("equilibrium", "best_response")


def test_policies_not_built_names_the_rebuild(built_db, run_cli):
    """The default test build (goal 50, two players) has the equilibrium reading only."""
    path = built_db(("rolled_ones",))
    code, out, err = run_cli(["rolled-ones", "policies", "--players", "2", "--mode", "best_response", "--db",
                              str(path)])
    assert code != 0 and "policy_best_response_players" in err and len(err.strip().splitlines()) == 1, err
    with dicebase.open(path) as db, pytest.raises(BadInput, match="mode must be one of"):
        db.rolled_ones.n.policies(2, mode="exploit")
