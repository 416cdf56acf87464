"""Pig's solve (issue 31): the published figure, an independent brute-force solver at tiny goals for
2 and 3 players, the turn defined once (the compiled turn and the plain-Python turn agree), the
tie-break, and the rules (presets, house rules, build options)."""

from __future__ import annotations

import itertools

import pytest

from dicebase.rules import pig as rules
from dicebase.rules import pig_turn


# --------------------------------------------------------------------------- a brute-force solver
def brute_force(goal: int, scores: tuple[int, ...], bust: int, N: int, sweeps: int = 20000) -> dict:
    """Plain value iteration over every state (score tuple, seat to move, turn total), written
    independently of the solver: each sweep updates every state in place from the current values (the
    mover rolls when rolling beats holding by more than 1e-12, always at turn total 0) until no value
    moves by more than 1e-15.  Returns {(scores, seat, k): win vector}."""
    faces = len(scores)
    p = 1.0 / faces
    gains = [s for f, s in enumerate(scores, start=1) if f != bust]
    tuples = list(itertools.product(range(goal), repeat=N))
    states = [(s, m, k) for s in tuples for m in range(N) for k in range(goal - s[m])]
    V = {state: [1.0 / N] * N for state in states}
    for _ in range(sweeps):
        change = 0.0
        for s, m, k in reversed(states):
            nxt = (m + 1) % N
            busted = V[(s, nxt, 0)]
            roll = [p * x for x in busted]
            for g in gains:
                if s[m] + k + g >= goal:
                    roll[m] += p
                else:
                    roll = [a + p * b for a, b in zip(roll, V[(s, m, k + g)])]
            new = roll
            if k > 0:
                banked = tuple(x + k if n == m else x for n, x in enumerate(s))
                hold = V[(banked, nxt, 0)]
                if not roll[m] > hold[m] + 1e-12:
                    new = hold
            change = max(change, max(abs(a - b) for a, b in zip(new, V[(s, m, k)])))
            V[(s, m, k)] = new
        if change < 1e-15:
            return V
    raise AssertionError("value iteration did not settle")


@pytest.mark.parametrize("goal, scores, bust, N", [
    (12, (0, 2, 3, 4, 5, 6), 1, 2),
    (10, (1, 0), 2, 2),  # Piglet
    (6, (0, 2, 3, 4, 5, 6), 1, 3),
    (5, (1, 0), 2, 3),
])
def test_the_solver_agrees_with_brute_force_value_iteration(goal, scores, bust, N):
    from dicebase.builder.pig import solver

    r = rules.Rules(goal=goal, faces=len(scores), bust_face=bust, scores=scores)
    sol = solver.solve(r, N)
    V = brute_force(goal, scores, bust, N)
    worst = 0.0
    for s in itertools.product(range(goal), repeat=N):
        for m in range(N):
            got = sol.start_at(s)[m]
            worst = max(worst, max(abs(a - b) for a, b in zip(got, V[(s, m, 0)])))
            assert abs(sum(got) - 1.0) < 1e-12
    assert worst < 1e-9, worst
    assert sol.stats["cycle_tuples"] == 0


def test_neller_and_presser_first_player_wins_0_5306_at_goal_100():
    """Neller and Presser, "Optimal Play of the Dice Game Pig", The UMAP Journal 25(1), 2004: the first
    player wins 0.5306 of games when both play optimally (the database's figure: tests/test_pig_db.py)."""
    from dicebase.builder.pig import solver

    sol = solver.solve(rules.PIG, 2)
    p1 = float(sol.start_at((0, 0))[0][0])
    assert round(p1, 4) == 0.5306
    assert abs(p1 - 0.5305927252737447) < 1e-12  # our value (docs/pig.md)


def test_the_compiled_turn_and_the_plain_python_turn_are_one_function():
    """The solver runs dicebase.rules.pig_turn.turn compiled; the lookups run it as Python: same answers."""
    import numpy as np

    from dicebase.builder.pig import kernels

    rng = np.random.default_rng(31)
    N, room = 3, 17
    H = rng.random((room, N))
    mix = np.full(room, -1.0)
    mix[5] = 0.25
    out = {}
    for kind, make in (("numba", lambda a: np.array(a, dtype=float)), ("python", lambda a: [list(r) if hasattr(r, "__len__") else r for r in a])):
        A, c, dec, ivl, rv = make(np.zeros((room, N))), make(np.zeros(room)), make(np.zeros(room)), make(np.zeros(2)), make(np.zeros(N))
        f = kernels.turn if kind == "numba" else pig_turn.turn
        Hk = make(H) if kind == "numba" else [list(r) for r in H]
        mk = make(mix) if kind == "numba" else list(mix)
        gains = np.array([2, 3, 4, 5, 6]) if kind == "numba" else (2, 3, 4, 5, 6)
        rc = f(1, N, room, 0, 0.3, 1e-12, 1 / 6, 1 / 6, gains, Hk, mk, rv, A, c, dec, ivl)
        out[kind] = (np.array(A, dtype=float), np.array(c, dtype=float), np.array(dec, dtype=float),
                     tuple(ivl), rc, np.array(rv, dtype=float))
    a, b = out["numba"], out["python"]
    for x, y in zip(a, b):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    assert a[2][5] == 0.25 and a[2][0] == 1.0


def test_ties_hold_before_roll():
    """At a tie for the mover (rolling does not beat holding by more than 1e-12) the turn holds."""
    N, room = 2, 3
    # holding at 1 or 2 is worth exactly what rolling is worth to seat 0 when a bust leaves it 0.5
    gains = (1,)
    H = [[0.0, 0.0], [0.75, 0.25], [0.75, 0.25]]
    A, c, dec, ivl, rv = [[0.0] * N for _ in range(room)], [0.0] * room, [0.0] * room, [0.0, 0.0], [0.0] * N
    pig_turn.turn(0, N, room, 0, 0.5, 1e-12, 0.5, 0.5, gains, H, [-1.0] * room, rv, A, c, dec, ivl)
    # at k = 2: roll = 0.5 (wins) + 0.5 * beta = 0.75 = hold
    assert dec[2] == 0.0 and A[2] == [0.75, 0.25]
    pig_turn.turn(0, N, room, 0, 0.5 + 1e-9, 1e-12, 0.5, 0.5, gains, H, [-1.0] * room, rv, A, c, dec, ivl)
    assert dec[2] == 1.0


def test_simple_policies_are_defined_exactly():
    rolls = pig_turn.policy_rolls
    assert rolls(pig_turn.HOLD_AT, 20, 100, 0, 19) and not rolls(pig_turn.HOLD_AT, 20, 100, 0, 20)
    four = lambda score, k: rolls(pig_turn.TURNS, 4, 100, score, k)  # noqa: E731
    assert four(0, 24) and not four(0, 25)       # 4 turns left: hold at 25
    assert four(30, 23) and not four(30, 24)     # ceil(2.8) = 3 turns: hold at ceil(70 / 3) = 24
    assert four(80, 19) and not four(80, 20)     # 1 turn left: roll to the goal


def test_presets_and_house_rules():
    from dicebase.rules import files

    assert rules.PRESETS["pig"].gains == (2, 3, 4, 5, 6) and rules.PRESETS["pig"].goal == 100
    assert rules.PRESETS["piglet"].gains == (1,) and rules.PRESETS["piglet"].goal == 10
    assert rules.variant_name(rules.Rules()) == "pig"
    text = files.dump("pig", "pig50", {**rules.to_file(rules.PIG), "goal": 50}, "Pig to 50")
    house = files.parse(text, "pig50.toml")
    assert house.game == "pig" and house.rules().goal == 50 and house.rules().gains == (2, 3, 4, 5, 6)
    with pytest.raises(files.RulesFileError, match="scores"):
        files.parse(text.replace("scores = [0, 2, 3, 4, 5, 6]", "scores = [1, 2, 3, 4, 5, 6]"), "bad.toml")
    with pytest.raises(files.RulesFileError, match="scores"):
        files.parse(text.replace("scores = [0, 2, 3, 4, 5, 6]", "scores = [0, 2, 3]"), "bad.toml")


@pytest.mark.parametrize("options, message", [
    ({"players": [5]}, "pig.players must be 2..4"),
    ({"variants": ["pog"]}, "unknown preset 'pog'"),
    ({"players": [2], "policy_players": [3]}, "pig.policy_players lists 3 players"),
    ({"colour": 1}, "unknown option 'colour'"),
    ({"house_rules": {"x": {"goal": 0, "faces": 6, "bust_face": 1, "scores": [0, 2, 3, 4, 5, 6]}}}, "goal"),
])
def test_bad_build_options_are_one_line(options, message):
    with pytest.raises(ValueError, match=message) as exc:
        rules.validate_options({**rules.DEFAULT_OPTIONS, **options})
    assert "\n" not in str(exc.value)


def test_a_solve_too_large_is_refused_with_its_size():
    from dicebase.errors import SizeLimit

    with pytest.raises(SizeLimit, match="4 players at goal 100"):
        rules.validate_options({**rules.DEFAULT_OPTIONS, "players": [2, 3, 4]})


@pytest.mark.parametrize("goal, N", [(12, 2), (10, 3)])
def test_the_policy_evaluation_of_the_equilibrium_is_the_equilibrium(goal, N):
    """The simple policies' evaluation (one seat fixed, the others' stored decisions, every tuple's cycle
    solved once) with no seat on a policy gives back the solve's turn starts, and a policy seat never does
    better than the equilibrium gives it."""
    import numpy as np

    from dicebase.builder.pig import solver

    sol = solver.solve(rules.Rules(goal=goal), N)
    got = solver.evaluate_policies(sol, [(-1, pig_turn.HOLD_AT, 0)] + [(seat, pig_turn.HOLD_AT, 3) for seat in range(N)])
    assert np.max(np.abs(got[0] - sol.start)) < 1e-12
    for seat in range(N):
        assert got[1 + seat, 0, 0, seat] <= sol.start[0, 0, seat] + 1e-12
        assert np.allclose(got[1 + seat].sum(axis=2), 1.0, atol=1e-12)


def test_mixed_equilibria_randomise_at_one_turn_total_and_give_their_values_back():
    """Three players at goal 70 (the smallest goal where it happens): the shared search finds some mixed
    equilibria as a lottery between two policies that differ at several turn totals, which per-total roll
    probabilities do not reproduce; Pig re-solves them so each randomising seat randomises at one turn total.
    Then playing the stored strategies (the roll probabilities at their totals, as the lookups and the policy
    evaluation play them) gives every stored turn start back."""
    import numpy as np

    from dicebase.builder.pig import solver

    sol = solver.solve(rules.Rules(goal=70), 3)
    assert sol.stats["mixed_tuples"] > 0 and sol.stats["one_decision_tuples"] > 0
    assert sol.stats["several_decision_tuples"] == 0
    assert all(len(states) == 1 for rec in sol.mixed for _m, states, _q in rec["randomising"])
    assert max(rec["residual"] for rec in sol.mixed) <= 1e-12
    again = solver.evaluate_policies(sol, [(-1, pig_turn.HOLD_AT, 0)])[0]
    assert np.max(np.abs(again - sol.start)) < 1e-12
