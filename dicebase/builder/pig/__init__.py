"""Pig (issue 31): every state's win probabilities and optimal action for any number of players, and the
simple policies' costs.  :mod:`.solver` solves (the shared level loop and equilibrium engine with Pig's
turn, :mod:`dicebase.rules.pig_turn`, compiled in :mod:`.kernels`); ``build`` writes the tables of
:mod:`dicebase.schema.pig` in the order of :mod:`dicebase.layout.pig`.  docs/pig.md is the guide.
"""

from __future__ import annotations

import numpy as np

from dicebase.builder.nplayer_tables import write_cycles, write_turn_starts
from dicebase.builder.pig import solver
from dicebase.layout import pig as layout
from dicebase.rules.pig import (  # noqa: F401  (DEFAULT/TEST_OPTIONS, validate_options: the builder contract)
    DEFAULT_OPTIONS, MAX_PLAYERS, POLICIES, RULES_TEXT, TEST_OPTIONS, Rules, player_counts, validate_options,
    variants, words,
)


def build(ctx, options: dict) -> None:
    """Solve every variant for every number of players built, in (variant, players) order (key order)."""
    players = player_counts(options)
    policy_players = player_counts(options, "policy_players")
    names = sorted(POLICIES)  # key order
    ctx.write("pig_policies", {
        "policy": np.array(names, dtype=object),
        "title": np.array([POLICIES[p].title for p in names], dtype=object),
        "definition": np.array([POLICIES[p].definition for p in names], dtype=object),
    })
    for name, rules in variants(options):
        ctx.variant(name, rules={"goal": rules.goal, "faces": rules.faces, "bust_face": rules.bust_face,
                                 "scores": list(rules.scores), "players": list(players)},
                    solver={"tie_tolerance": solver.TIE_TOLERANCE, "equilibrium_tolerance": solver.EQUILIBRIUM_TOLERANCE,
                            "ties": "hold when rolling does not beat holding by more than tie_tolerance "
                                    "(hold before roll); never hold at turn total 0",
                            "convergence": "exact: policy iteration stops when every seat's policy is kept"})
        ctx.write("pig_variants", {
            "variant": np.array([name], dtype=object), "goal": np.array([rules.goal]),
            "faces": np.array([rules.faces]), "bust_face": np.array([rules.bust_face]),
            "scores": np.array([",".join(str(s) for s in rules.scores)], dtype=object),
            "description": np.array([" ".join(words(rules))], dtype=object),
        })
        for N in players:
            with ctx.step(f"pig {name}: {N} players at goal {rules.goal} (turn starts, policy cycles)"):
                sol = solver.solve(rules, N, runner=ctx.levels)
            with ctx.step(f"pig {name}: {N} players, write tables"):
                write(ctx, name, sol)
            ctx.note(f"{name}.players{N}", {
                "tie_tolerance": sol.stats["tie_tolerance"],
                "equilibrium_tolerance": sol.stats["equilibrium_tolerance"],
                "cycle_tuples": sol.stats["cycle_tuples"], "mixed_tuples": sol.stats["mixed_tuples"],
                "one_decision_tuples": sol.stats["one_decision_tuples"],
                "max_indifference_residual": sol.stats["max_indifference_residual"],
                "cycles": [{"scores": rec["scores"], "kind": rec["kind"], "one_decision": rec.get("one_decision", False),
                            "randomising": [{"seat": m + 1, "turn_totals": states, "p_roll": q}
                                            for m, states, q in rec["randomising"]]} for rec in sol.mixed],
                "p_win_seats": [float(x) for x in sol.start_at((0,) * N)[0]],
                "seconds": sol.stats["seconds"], "bytes_start": sol.stats["bytes_start"],
            })
            if N in policy_players:
                with ctx.step(f"pig {name}: {N} players, simple policies against the equilibrium"):
                    write_policies(ctx, name, sol)


def write(ctx, name: str, sol: solver.Solution) -> None:
    """The (variant, players) block of ``pig_players``, ``pig_turn_starts`` (seat-major, then the tuple
    index: :func:`dicebase.layout.pig.start_position`), the cycle tuples and their mixing."""
    G, N = sol.rules.goal, sol.players
    st = sol.stats
    ctx.write("pig_players", {
        "variant": np.array([name], dtype=object), "players": np.array([N]),
        "tie_tolerance": np.array([st["tie_tolerance"]]), "equilibrium_tolerance": np.array([st["equilibrium_tolerance"]]),
        "score_tuples": np.array([st["tuples"]]), "cycle_tuples": np.array([st["cycle_tuples"]]),
        "mixed_tuples": np.array([st["mixed_tuples"]]), "seconds": np.array([float(st["seconds"])]),
        "description": np.array([RULES_TEXT.format(players=N, words=" ".join(words(sol.rules)),
                                                   tie=f"{st['tie_tolerance']:g}")], dtype=object),
    })
    block = {"variant": name, "players": N}
    rows = write_turn_starts(ctx, layout.TURN_STARTS, block, sol.start, G, layout.SCORES, layout.WINS)
    assert rows == layout.start_rows(G, N), (name, N, rows)
    write_cycles(ctx, "pig_cycle_tuples", "pig_mixing", block, N, sol.mixed, layout.SCORES, ("k",))


def write_policies(ctx, name: str, sol: solver.Solution) -> None:
    """``pig_policy_wins``: each simple policy in each seat, the others playing the stored equilibrium."""
    N = sol.players
    names = [(pname, seat) for pname in sorted(POLICIES) for seat in range(N)]
    starts = solver.evaluate_policies(sol, [(seat, POLICIES[p].kind, POLICIES[p].param) for p, seat in names])
    rows = [(pname, seat + 1, starts[i, 0, 0]) for i, (pname, seat) in enumerate(names)]
    cols = {"variant": name, "players": N,
            "policy": np.array([r[0] for r in rows], dtype=object),
            "seat": np.array([r[1] for r in rows]),
            "p_win": np.array([r[2][r[1] - 1] for r in rows])}
    for n in range(MAX_PLAYERS):
        cols[layout.WINS[n]] = np.array([r[2][n] if n < N else 0.0 for r in rows])
    ctx.write("pig_policy_wins", cols)


__all__ = ["build", "write", "write_policies", "DEFAULT_OPTIONS", "TEST_OPTIONS", "validate_options"]
