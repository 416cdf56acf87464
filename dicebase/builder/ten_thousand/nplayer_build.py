"""Write the N-player 10,000 tables (issue 21): one block per (rules, goal, players).

:func:`build_players` solves each number of players of the ``players`` build option with
:func:`.nplayer.solve` (one call, :func:`solve_players`) and writes, in the order of
:mod:`dicebase.layout.ten_thousand` (its N-player section):

* ``ten_thousand_players``: the block's caps, tolerances, final-round extents and cycle counts;
* ``ten_thousand_turn_starts``: every turn start's win vector and ``kmax``, seat-major, then the
  score tuple;
* ``ten_thousand_final_round``: ``Phi_r`` by deficits (``Finals.phi``; ``Phi_1`` from ``P_exceed``),
  from which the lookups compute every final-turn state and every bank at or past the goal;
* ``ten_thousand_cycle_tuples`` and ``ten_thousand_mixing``: the tuples (every rotation) whose
  equilibrium the cycle resolution selected, with the randomising seats' decisions;
* ``ten_thousand_roll_groups`` (once per rule set): every class's roll groups and keeps in tie-break
  order, which the lookups read instead of enumerating the rolls.

The caps, tolerances and cycle tuples also go to the build metadata (``ctx.note``, ``ctx.variant``).
"""

from __future__ import annotations

import numpy as np

from dicebase.builder.nplayer_tables import write_turn_starts
from dicebase.layout import ten_thousand as layout
from dicebase.rules.ten_thousand import (
    KEEP_PRIORITY_TEXT, MAX_PLAYERS, NPLAYER_RULES_TEXT, RuleSet, nplayer_turn_starts, turn_states,
)


def solve_players(rules: RuleSet, players: int, goal: int, progress=None, runner=None):
    """The one call of the N-player solver a build makes (a cluster option would be passed here)."""
    from . import nplayer

    return nplayer.solve(rules, players, goal, progress=progress, runner=runner)


def build_players(ctx, rules: RuleSet, goal: int, players: tuple[int, ...]) -> dict:
    """Solve and write the N-player blocks of rule set ``rules`` at ``goal`` for each count in ``players``;
    returns the solver settings of each (``{"players3": {...}}``) for the rule set's build_variants row."""
    settings = {}
    if players:
        write_roll_groups(ctx, rules)
    for N in players:
        label = f"{rules.name}: {N} players to {goal} ({nplayer_turn_starts(rules, goal, N):,} turn starts, final round, "
        with ctx.step(label + "policy cycles)"):
            sol = solve_players(rules, N, goal, progress=None if ctx.quiet else _progress(ctx), runner=ctx.levels)
        with ctx.step(f"{rules.name}: {N} players, write tables"):
            write(ctx, sol)
        st = sol.stats
        record = {
            "goal_points": goal,
            "tie_tolerance": st["tie_tolerance"],
            "keep_tie_break": KEEP_PRIORITY_TEXT,
            "equilibrium_tolerance": st["equilibrium_tolerance"],
            "max_iterations": st["max_iterations"],
            "turn_total_margin_points": st["margin"] * rules.unit,
            "forced_bank_total_cap_points": st["forced_bank_total_cap"] * rules.unit,
            "final_bank_margin_points": st["final_bank_margin"] * rules.unit,
            "bound_scale": st["bound_scale"],
            "final_scale": st["final_scale"],
            "unproven_tuples": st["unproven_tuples"],
            "cycle_tuples": st["cycle_tuples"],
            "cycle_tuples_all_rotations": st["cycle_tuples_all_rotations"],
            "mixed_tuples": st["mixed_tuples"],
            "fixed_point_rechecks": st["fixed_point_rechecks"],
            "max_indifference_residual": st["max_indifference_residual"],
            "turn_evaluations": st["turn_evaluations"],
            "selection": st["selection"],
        }
        settings[f"players{N}"] = record
        ctx.note(f"{rules.name}.players{N}", {
            **record,
            "cycles": [
                {"scores": [int(x) * rules.unit for x in rec["scores"]], "kind": rec["kind"],
                 "cycle_length": rec["cycle_length"],
                 "randomising": [{"seat": m + 1, "decisions": [_decision_note(rules, d) for d in decisions]}
                                 for m, decisions in rec["randomising"]]}
                for rec in sol.mixed if rec["cycle_length"] > 1
            ],
            "p_win_seats": [float(x) for x in sol.start_at((0,) * N)[0]],
            "seconds": {"final_round": st["seconds_final_round"], "levels": st["seconds_levels"],
                        "cpu": st["cpu_seconds"]},
        })
    return settings


def _progress(ctx):
    """The levels' progress on the build's display (``ctx.progress`` over the levels as they finish)."""
    bar = {"it": None, "done": 0}

    def tick(done, total):
        if bar["it"] is None:
            bar["it"] = iter(ctx.progress(range(total), "score-sum levels"))
        while bar["done"] < done:
            next(bar["it"], None)
            bar["done"] += 1
        if done == total:
            next(bar["it"], None)

    return tick


def _decision_note(rules: RuleSet, d: tuple) -> dict:
    """A randomised decision in points and classes: ``("roll", k, class, p)`` or ``("keep", k, group, a, b, p)``
    (``group`` the solver's global roll-group index; the note gives it within its class, as ten_thousand_mixing)."""
    if d[0] == "roll":
        n, t = turn_states(rules)[d[2]]
        return {"decision": "roll", "turn_total": d[1] * rules.unit, "dice": n, "triple": t, "p_roll": d[3]}
    from .nplayer import moves

    mv = moves(rules)
    c = int(mv.group_class[d[2]])
    n, t = turn_states(rules)[c]
    return {"decision": "keep", "turn_total": d[1] * rules.unit, "dice": n, "triple": t,
            "roll_group": d[2] - int(mv.sg[c]), "keep_first": d[3], "keep_second": d[4], "p_first": d[5]}


def final_round_rows(sol) -> tuple[dict, tuple[int, ...]]:
    """``ten_thousand_final_round``'s columns of a solution (units; the layout's order) and the deficits kept
    per gap pattern of each ``later`` (index 0 unused)."""
    spec, f = sol.spec, sol.finals
    G, N = spec.G, spec.players
    B = 2 * G - 1
    deficits = [0] + [len(f.pexc)] + [f.D[r] + 1 for r in range(2, N)]
    cols = {k: [] for k in ("later", "gap2", "gap3", "deficit", *layout.NP_ROLES)}
    # r = 1: the last seat's chance to pass the bar, P_exceed(deficit)
    d = np.arange(len(f.pexc))
    parts = [(np.ones_like(d), np.zeros_like(d), np.zeros_like(d), d,
              np.stack([1.0 - f.pexc, f.pexc], axis=1))]
    for r in range(2, N):
        a = int(f.offsets[r])
        size = (f.D[r] + 1) * B ** (r - 1) * (r + 1)
        phi = f.phi[a: a + size].reshape((f.D[r] + 1,) + (B,) * (r - 1) + (r + 1,))
        phi = np.moveaxis(phi, 0, r - 1)  # gaps first, then the deficit: the layout's order
        grids = np.meshgrid(*([np.arange(B)] * (r - 1)), np.arange(f.D[r] + 1), indexing="ij")
        gaps = [g.ravel() - (G - 1) for g in grids[:-1]]
        dd = grids[-1].ravel()
        vals = phi.reshape(-1, r + 1).copy()
        ok = dd >= 1
        for g in gaps:
            ok &= dd + g >= 1
        vals[~ok] = 0.0  # no state of the game: a deficit below 1
        g2 = gaps[0]
        g3 = gaps[1] if r >= 3 else np.zeros_like(dd)
        parts.append((np.full_like(dd, r), g2, g3, dd, vals))
    for later, g2, g3, dd, vals in parts:
        cols["later"].append(later)
        cols["gap2"].append(g2)
        cols["gap3"].append(g3)
        cols["deficit"].append(dd)
        for i, role in enumerate(layout.NP_ROLES):
            cols[role].append(vals[:, i] if i < vals.shape[1] else np.zeros(len(dd)))
    return {k: np.concatenate(v) for k, v in cols.items()}, tuple(deficits + [0] * (MAX_PLAYERS - len(deficits)))


def roll_group_rows(rules: RuleSet) -> dict:
    """``ten_thousand_roll_groups``'s columns (the layout's key order): every class's farkle (group -1) and roll
    groups with their keeps in tie-break order, as the solver uses them (:func:`.nplayer.moves`)."""
    from .nplayer import moves

    mv = moves(rules)
    rows = []
    for c, (n, t) in enumerate(mv.states):
        rows.append((n, t, -1, 0, float(mv.pf[c]), 0, 0, 0))
        for g in range(int(mv.sg[c]), int(mv.sg[c + 1])):
            for o in range(int(mv.go[g]), int(mv.go[g + 1])):
                n2, t2 = mv.states[int(mv.ost[o])]
                rows.append((n, t, g - int(mv.sg[c]), o - int(mv.go[g]), float(mv.gp[g]), int(mv.op[o]) * rules.unit,
                             n2, t2))
    rows.sort()
    names = ("dice", "triple", "roll_group", "keep", "probability", "points", "dice_after", "triple_after")
    cols = {"rules": rules.name}
    for i, name in enumerate(names):
        cols[name] = np.array([row[i] for row in rows], dtype=float if name == "probability" else np.int64)
    return cols


def write_roll_groups(ctx, rules: RuleSet) -> None:
    """The rule set's roll groups (``ten_thousand_roll_groups``), once per rule set with N-player tables."""
    ctx.write(layout.NP_ROLL_GROUPS.name, roll_group_rows(rules))


def write(ctx, sol) -> None:
    spec = sol.spec
    rs, N, G, u = spec.rules, spec.players, spec.G, spec.rules.unit
    block = {"rules": rs.name, "goal": spec.goal, "players": N}
    final, deficits = final_round_rows(sol)
    cycles = [rec for rec in sol.mixed if rec["cycle_length"] > 1]
    mixing = sol.mixing()
    cycle_rows = sorted({(tuple(rec["scores"][r:] + rec["scores"][:r]), rec["kind"], len(rec["randomising"]),
                          rec["cycle_length"], rec["residual"]) for rec in cycles for r in range(N)})
    st = sol.stats
    desc = NPLAYER_RULES_TEXT.format(rules=rs.name, players=N, goal=spec.goal, opening=rs.opening_minimum,
                                     tie=f"{spec.tie_tolerance:g}")
    ctx.write(layout.NP_PLAYERS.name, {
        **{k: np.array([v]) for k, v in block.items()}, "unit": u, "tie_tolerance": spec.tie_tolerance,
        "equilibrium_tolerance": st["equilibrium_tolerance"], "turn_total_margin": st["margin"] * u,
        "final_bank_margin": st["final_bank_margin"] * u, "final_scale": spec.final_scale,
        "deficits1": deficits[1], "deficits2": deficits[2], "deficits3": deficits[3], "score_tuples": spec.tuples,
        "cycle_tuples": len(cycle_rows), "mixed_tuples": sum(1 for row in cycle_rows if row[1] == "mixed"),
        "unproven_tuples": st["unproven_tuples"], "description": desc,
    })

    rows = write_turn_starts(ctx, layout.NP_TURN_STARTS, block, sol.start, G, layout.NP_SCORES, layout.NP_WINS, unit=u,
                             more=lambda idx, m: {"kmax": sol.kmax[idx, m].astype(np.int64) * u})
    assert rows == layout.np_start_rows(G, N), (rs.name, N, rows)

    # the final round by deficits (layout.np_final_position)
    n_final = len(final["deficit"])
    assert n_final == layout.np_final_sizes(G, N, deficits)[1], (rs.name, N, n_final)
    ctx.write(layout.NP_FINAL_ROUND, {**block, **{k: (v * u if k in ("gap2", "gap3", "deficit") else v)
                                                  for k, v in final.items()}})

    # cycle tuples (every rotation) and their decisions, in key order
    if cycle_rows:
        cols = {**block, "kind": np.array([row[1] for row in cycle_rows], dtype=object),
                "randomising_seats": np.array([row[2] for row in cycle_rows]),
                "cycle_length": np.array([row[3] for row in cycle_rows]),
                "residual": np.array([row[4] for row in cycle_rows], dtype=float)}
        for n in range(MAX_PLAYERS):
            cols[layout.NP_SCORES[n]] = np.array([row[0][n] * u if n < N else 0 for row in cycle_rows])
        ctx.write("ten_thousand_cycle_tuples", cols)
    states = turn_states(rs)
    mix = []
    for (scores, m), decisions in mixing.items():
        for d in decisions:
            if d[0] == "roll":
                k, c, extra = d[1], d[2], (0, 0, 0, float(d[3]))
            else:
                from .nplayer import moves

                mv = moves(rs)
                c = int(mv.group_class[d[2]])
                extra = (d[2] - int(mv.sg[c]), d[3], d[4], float(d[5]))
                k = d[1]
            n, t = states[c]
            mix.append((*(s * u for s in scores), *([0] * (MAX_PLAYERS - N)), m + 1, k * u, n, t, d[0], *extra))
    mix.sort()
    if mix:
        names = (*layout.NP_SCORES, "seat", "turn_total", "dice", "triple", "decision", "roll_group", "keep_first",
                 "keep_second", "probability")
        cols = dict(block)
        for i, name in enumerate(names):
            values = [row[i] for row in mix]
            cols[name] = np.array(values, dtype=object if name == "decision" else float if name == "probability"
                                  else np.int64)
        ctx.write("ten_thousand_mixing", cols)


__all__ = ["build_players", "final_round_rows", "roll_group_rows", "solve_players", "write", "write_roll_groups"]
