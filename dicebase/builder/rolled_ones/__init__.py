"""Great Rolled Ones (seed 002): optimal play, komi and human-policy gaps.

Modules: :mod:`.rules` (rule parameters, ``P_new1s``, ``P_exceed``),
:mod:`.solver` (``P_roll``, ``P_hold``, ``P`` solved exactly by score-sum
levels), :mod:`dicebase.numeric.rolled_ones_policies` (seed 002's Algorithms 1-4), :mod:`.evaluate`
(each policy against the optimal player, both seats), :mod:`.nplayer` (N players, issue 21)
and :mod:`.nplayer_build` (its tables).  ``build`` writes the
tables of :mod:`dicebase.schema.rolled_ones`; docs/rolled_ones.md is the guide.
"""

from __future__ import annotations

import numpy as np

from dicebase.builder.rolled_ones.evaluate import evaluate as evaluate_policies
from dicebase.builder.rolled_ones.evaluate import final_turn_agrees
from dicebase.numeric.rolled_ones_policies import POLICIES
from dicebase.builder.rolled_ones.rules import P_new1s_table, reachable_turns
from dicebase.builder.rolled_ones.solver import Solution, solve
from dicebase.layout import rolled_ones as layout
from dicebase.rules.rolled_ones import (  # noqa: F401  (validate_options, DEFAULT/TEST_OPTIONS: the builder contract)
    DEFAULT_OPTIONS, GAME, POLICY_NAMES, TEST_OPTIONS, Rules, player_counts, policy_player_counts, rules_from_options, validate_options,
    variant_name, variants,
)


def stored_mask(rules: Rules) -> np.ndarray:
    """``mask[p - 1, i, j, k, o]``: the states written to ``rolled_ones_states``, as
    :mod:`dicebase.layout.rolled_ones` defines them (``layout.stored``, in key order).

    ``i, j < G``; ``(k, o)`` reachable by a turn (:func:`reachable_turns`);
    for player 2 also not past a certain win (``Rules.holding_wins``: one roll
    past the last state below the goal); those states' values follow from one
    stored value (the query layer computes them: ``P_hold = 1``,
    ``P_roll = 1 - P_end(o) P(1, j, i, 0, 0)``).
    """
    G, K = rules.goal, rules.turn_total_bound
    reach = reachable_turns(rules)
    won = np.array([[rules.holding_wins(2, i, k) for k in range(K + 1)] for i in range(G)])
    p1 = np.broadcast_to(reach, (G, G) + reach.shape)
    p2 = p1 & ~won[:, None, :, None]
    return np.stack([p1, p2])


def stored_states(rules: Rules) -> tuple[np.ndarray, ...]:
    """Index arrays ``(p - 1, i, j, k, o)`` of the stored states, in key order."""
    return np.nonzero(stored_mask(rules))


def _action(roll: np.ndarray) -> np.ndarray:
    return np.where(roll, "roll", "hold").astype(object)


def build(ctx, options: dict) -> None:
    """Solve every variant (the options' own and each house rule set), in name order (key order)."""
    players = player_counts(options)
    policy_players = policy_player_counts(options)
    best_response_players = policy_player_counts(options, "best_response")
    for name, rules, komi_max in sorted(variants(options), key=lambda v: v[0]):
        build_variant(ctx, name, rules, komi_max)
        if players:  # N players (issue 21): rolled_ones_turn_starts ... (dicebase.builder.rolled_ones.nplayer_build)
            from dicebase.builder.rolled_ones.nplayer_build import build_players

            build_players(ctx, name, rules, players, policy_players, best_response_players)


def build_variant(ctx, name: str, rules: Rules, komi_max: int) -> None:
    K = rules.turn_total_bound

    with ctx.step(f"{name}: optimal play (P_exceed, P_roll, P_hold)"):
        sol = solve(rules)
    with ctx.step(f"{name}: four human policies vs optimal, both seats"):
        assert tuple(POLICIES) == POLICY_NAMES, "schema columns and policies out of step"
        rule_by_name = {n: p.rule for n, p in POLICIES.items()}
        for n, rule in rule_by_name.items():
            if not final_turn_agrees(rules, rule):  # pragma: no cover - guards future policies
                raise AssertionError(f"{n} plays player 2's final turn differently from P_exceed")
        evaluation = evaluate_policies(sol, rule_by_name, progress=ctx.progress)
    values, ev_stats = evaluation.policies, evaluation.stats
    ctx.variant(
        name,
        rules={**rules.as_dict(), "players": 2, "komi_max": komi_max},
        solver={
            "optimal": {k: v for k, v in sol.stats.items() if k != "seconds"},
            "policy_evaluation": {k: v for k, v in ev_stats.items() if k != "seconds"},
            "convergence": "exact: no tolerance (the seed's 1e-14 max-change criterion is not needed)",
            "turn_total_bound": K,
            "stored_states": "p in {1,2}; 0 <= i, j < goal; reachable (k, o) with k <= turn_total_bound; "
            "for player 2 also i + k <= goal - 1 + dice; player 2's final turn (j >= goal) in rolled_ones_p_exceed",
            "ties": "hold when P_roll = P_hold exactly (never at k = 0)",
        },
    )
    ctx.note(
        f"{name}.seconds",
        {"optimal_solve": sol.stats["seconds"], "policy_evaluations": ev_stats["seconds"]},
    )

    with ctx.step(f"{name}: write tables"):
        _write(ctx, name, rules, komi_max, sol, values)


def _write(ctx, name: str, rules: Rules, komi_max: int, sol: Solution, values) -> None:
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    one = lambda v: np.array([v])  # noqa: E731
    ctx.write(
        "rolled_ones_variants",
        {
            "variant": one(name),
            "goal": one(G),
            "dice": one(D),
            "faces": one(rules.faces),
            "ones_limit": one(L),
            "turn_total_bound": one(K),
            "komi_max": one(komi_max),
            "description": one(
                f"Great Rolled Ones, 2 players, {D} dice with {rules.faces} faces, goal {G}: rolled 1s are set aside, "
                f"{L} or more 1s end the turn with no score, holding banks the non-1s rolled; player 2 must exceed "
                f"a player 1 score >= {G} in the last round (seed 002)"
            ),
        },
    )

    table = P_new1s_table(rules)
    d, n = np.nonzero(np.tri(D + 1, dtype=bool))
    ctx.write(
        "rolled_ones_p_new1s",
        {"variant": name, "d": d, "o_new": n, "probability": table[d, n]},
    )

    # player 2's final turn: Delta = -1 (standing for every Delta < 0) .. G - 1 + K
    dmax = G - 1 + K
    delta, o = np.meshgrid(np.arange(-1, dmax + 1), np.arange(L), indexing="ij")
    delta, o = delta.ravel(), o.ravel()
    pex = sol.p_exceed[delta + 1, o]
    ahead = delta < 0
    p_roll = np.where(ahead, 1.0 - np.asarray(rules.p_end)[o], pex)
    p_hold = ahead.astype(float)
    ctx.write(
        layout.FINAL.name,
        {
            "variant": name,
            "delta": delta,
            "o": o,
            "p_exceed": pex,
            "p_roll": p_roll,
            "p_hold": p_hold,
            "best": _action(~ahead),
        },
    )

    idx = stored_states(rules)
    pp, i, j, k, o = idx
    rows = len(pp)
    # the lookups read these rows by position (dicebase/layout/rolled_ones.py): one per stored state
    assert rows == layout.positions(rules)[2], (name, rows)
    p_hold = sol.p_hold[pp, i, j, k]
    p_roll = sol.p_roll[idx]
    columns = {
        "variant": name,
        "p": pp + 1,
        "i": i,
        "j": j,
        "k": k,
        "o": o,
        "p_roll": p_roll,
        "p_hold": p_hold,
        "p_win": np.maximum(p_roll, p_hold),
        "best": _action(sol.roll[idx]),
    }
    for pname, v in values.items():
        columns[f"{pname}_action"] = _action(v.roll[idx])
        columns[f"{pname}_p_win_moving"] = v.moving[idx]
        columns[f"{pname}_p_win_waiting"] = v.waiting[idx]
    ctx.write(layout.STATES.name, columns)

    p1 = float(sol.P(1, 0, 0, 0, 0))
    pol = ["optimal", "optimal"] + [n for n in values for _ in (1, 2)]
    seat = [1, 2] * (1 + len(values))
    win = [p1, 1.0 - p1] + [w for v in values.values() for w in v.seat_win]
    ctx.write(
        "rolled_ones_seat_win_rates",
        {"variant": name, "policy": np.array(pol, dtype=object), "seat": np.array(seat), "p_win": np.array(win)},
    )

    names = ["optimal", *values]
    meta = [("Optimal play", 0, 0.0, "seed 002's equations; see docs/rolled_ones.md for the notation readings")] + [
        (POLICIES[n].title, POLICIES[n].algorithm, POLICIES[n].seed_gap, POLICIES[n].readings) for n in values
    ]
    ctx.write(
        "rolled_ones_policies",
        {
            "variant": name,
            "policy": np.array(names, dtype=object),
            "title": np.array([m[0] for m in meta], dtype=object),
            "algorithm": np.array([m[1] for m in meta]),
            # seed 002's Fig. 2 is about its own rules only: NULL for any other variant
            "seed_gap": np.array([m[2] if name == "standard" else None for m in meta], dtype=object),
            "readings": np.array([m[3] for m in meta], dtype=object),
        },
    )
