"""Write the N-player Great Rolled Ones tables (issue 21): one block per (variant, players).

:func:`build_players` solves each number of players of the ``players`` build option with
:func:`.nplayer.solve` (the variant's rules, the turn-total bound raised to
``rules.nplayer_rules``) and writes, in the order of :mod:`dicebase.layout.rolled_ones`:

* ``rolled_ones_players``: the block's caps, tolerance and cycle counts;
* ``rolled_ones_turn_starts``: every turn start's win vector, seat-major, then the score tuple;
* ``rolled_ones_final_turns``: each later seat's final turn above the bar (``Finals.fa``, ``fc``,
  ``froll``), from which the lookups compute every final-round value;
* ``rolled_ones_cycle_tuples`` and ``rolled_ones_mixing``: the tuples whose equilibrium the cycle
  resolution selected, with the randomising seats' decisions and roll probabilities.

The list of cycle tuples also goes to the build metadata (``ctx.note``).
"""

from __future__ import annotations

import numpy as np

from dicebase.builder.nplayer_tables import digits, write_cycles, write_turn_starts
from dicebase.builder.rolled_ones import nplayer
from dicebase.layout import rolled_ones as layout
from dicebase.rules.rolled_ones import (
    MAX_PLAYERS, NPLAYER_RULES_TEXT, Rules, final_totals, nplayer_rules,
)


def build_players(ctx, name: str, rules: Rules, players: tuple[int, ...], policy_players: tuple[int, ...] = (),
                  best_response_players: tuple[int, ...] = ()) -> None:
    """Solve and write the N-player blocks of variant ``name`` for each count in ``players``, and the
    human-policy costs (``rolled_ones_policy_costs``, :mod:`.nplayer_policies`) for each count in
    ``policy_players`` (the others keep the stored equilibrium) and ``best_response_players`` (the others
    best-respond)."""
    for N in players:
        nrules = nplayer_rules(rules, N)
        with ctx.step(f"{name}: {N} players (turn starts, final round, policy cycles)"):
            sol = nplayer.solve(nrules, N, runner=ctx.levels)
        with ctx.step(f"{name}: {N} players, write tables"):
            write(ctx, name, sol)
        stats = sol.stats
        ctx.note(f"{name}.players{N}", {
            "turn_total_bound": nrules.turn_total_bound,
            "score_cap": sol.spec.cap,
            "tie_tolerance": sol.spec.tie_tolerance,
            "equilibrium_tolerance": stats["equilibrium_tolerance"],
            "cycle_tuples": stats["cycle_tuples"],
            "mixed_tuples": stats["mixed_tuples"],
            "cycles": [
                {"scores": rec["scores"], "kind": rec["kind"],
                 "randomising": [{"seat": m + 1, "states": [list(s) for s in states], "p_roll": q}
                                 for m, states, q in rec["randomising"]]}
                for rec in sol.mixed
            ],
            "p_win_seats": [float(x) for x in sol.start_at((0,) * N)[0]],
            "seconds": {"final_round": stats["seconds_final_round"], "levels": stats["seconds_levels"]},
        })
        modes = [m for m, counts in (("equilibrium", policy_players), ("best_response", best_response_players))
                 if N in counts]
        if modes:
            write_policy_costs(ctx, name, sol, modes)


#: What each reading of ``rolled_ones_policy_costs`` takes for N players (the build step's title).
_STEP = {"equilibrium": "against the stored equilibrium (one evaluation pass)",
         "best_response": "against best responses ({solves} solves)"}
_OPPONENTS = {"equilibrium": "the stored equilibrium: each other seat keeps playing its stored strategy (mixing "
                             "included), it does not adapt to the policy (seed 002's measure)",
              "best_response": "best responses: each other seat maximises its own win probability, knowing the policy"}


def write_policy_costs(ctx, name: str, sol: nplayer.Solution, modes) -> None:
    """Each seed 002 human policy in each seat of ``sol``'s game, in each reading of ``modes``
    (``rolled_ones_policy_costs``; :data:`.nplayer_policies.MODES`)."""
    from dicebase.builder.rolled_ones.nplayer_policies import policy_costs
    from dicebase.numeric.rolled_ones_policies import POLICIES

    N = sol.spec.players
    rows = []
    for mode in modes:
        title = _STEP[mode].format(solves=len(POLICIES) * N)
        with ctx.step(f"{name}: {N} players, seed 002's human policies {title}"):
            got, stats = policy_costs(sol.spec.rules, N, mode=mode, solution=sol)
        rows += got
        first = stats["solves"][0]
        ctx.note(f"{name}.players{N}.policy_costs.{mode}", {
            "opponents": _OPPONENTS[mode],
            "policy_turn_total_bound": first["policy_turn_total_bound"],
            "tail_error_bound": first["tail_error_bound"],
            "score_cap": first["score_cap"],
            "cycle_tuples": sum(s.get("cycle_tuples", 0) for s in stats["solves"]),
            "seconds": round(sum(s["seconds"] for s in stats["solves"]), 3),
        })
    rows.sort(key=lambda row: (row.mode, row.policy, row.seat))
    ctx.write("rolled_ones_policy_costs", {
        "variant": name, "players": N,
        "mode": np.array([row.mode for row in rows], dtype=object),
        "policy": np.array([row.policy for row in rows], dtype=object),
        "seat": np.array([row.seat for row in rows]),
        "p_win": np.array([row.p_win for row in rows]),
        "p_win_optimal": np.array([row.p_win_optimal for row in rows]),
        "cost": np.array([row.cost for row in rows]),
        "cycle_tuples": np.array([row.cycle_tuples for row in rows]),
    })


def write(ctx, name: str, sol: nplayer.Solution) -> None:
    spec = sol.spec
    r, N = spec.rules, spec.players
    G, L = r.goal, r.ones_limit
    desc = NPLAYER_RULES_TEXT.format(players=N, dice=r.dice, faces=r.faces, ones_limit=r.ones_limit, goal=G,
                                     tie=f"{spec.tie_tolerance:g}")
    ctx.write(layout.PLAYERS.name, {
        "variant": name, "players": np.array([N]), "turn_total_bound": r.turn_total_bound, "score_cap": spec.cap,
        "tie_tolerance": spec.tie_tolerance, "score_tuples": spec.tuples, "cycle_tuples": sol.stats["cycle_tuples"],
        "mixed_tuples": sol.stats["mixed_tuples"], "description": desc,
    })

    block = {"variant": name, "players": N}
    rows = write_turn_starts(ctx, layout.TURN_STARTS, block, sol.start, G, layout.SCORES, layout.WINS)
    assert rows == layout.start_rows(G, N), (name, N, rows)

    # the final round, compactly: seat j's values above the bar (layout.final_position)
    f = sol.finals
    tt = final_totals(r, N, spec.cap)
    rows = 0
    for j in range(1, N):
        nR, TT = f.fa[j].shape[:2]
        assert TT == tt[j], (TT, tt[j])
        R, ti, o = (x.ravel() for x in np.meshgrid(np.arange(nR), np.arange(TT), np.arange(L), indexing="ij"))
        later = digits(R, G, N - 1 - j)
        cols = {"variant": name, "players": N, "seat": np.full(len(R), j + 1, dtype=np.int64),
                "total": G + 1 + ti, "ones": o,
                "best": np.where(f.froll[j][R, ti, o], "roll", "hold").astype(object),
                "p_bust": f.fc[j][R, ti, o]}
        for n in range(MAX_PLAYERS):
            cols[layout.SCORES[n]] = later[n - j - 1] if j < n < N else 0
            cols[layout.WINS[n]] = f.fa[j][R, ti, o, n - j] if j <= n < N else 0.0
        ctx.write(layout.FINAL_TURNS, cols)
        rows += len(R)
    assert rows == layout.final_layout(r, N, spec.cap)[2], (name, N, rows)

    write_cycles(ctx, "rolled_ones_cycle_tuples", "rolled_ones_mixing", block, N, sol.mixed, layout.SCORES, ("k", "o"))


__all__ = ["build_players", "write"]
