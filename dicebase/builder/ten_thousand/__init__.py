"""10,000 (Farkle family): odds, keeps, the optimal solitaire turn, the optimal two-player
game to the goal and seed 004's heuristic (issue 4; guide: docs/ten_thousand.md)."""

from __future__ import annotations

import numpy as np

from dicebase.layout import ten_thousand as layout
from dicebase.rules.ten_thousand import (
    GAME, DEFAULT_OPTIONS, NO_DICE, TEST_OPTIONS, RuleSet, check_options, duel_goal, player_counts, turn_states,
    validate_options,
)

__all__ = ["DEFAULT_OPTIONS", "GAME", "TEST_OPTIONS", "build", "options_for_variants", "validate_options",
           "variant_fingerprints"]


def variant_fingerprints(options: dict) -> dict[str, str]:
    """Per rule set the build options make, what its rows depend on (its rules and its
    two-player goal, if solved as a duel): a build that adds a rule set copies the rows of
    every other rule set whose fingerprint (and package version) is unchanged."""
    import json

    rule_sets, duel_sets, goal_option = check_options(options)
    players = list(player_counts(options))
    return {
        rs.name: json.dumps({"rules": rs.as_dict(), "two_player_goal": duel_goal(rs, goal_option) if rs in duel_sets else None,
                             # N players (issue 21): only when built, so that earlier fingerprints stay as they were
                             **({"players": players} if players and rs in duel_sets else {})},
                            sort_keys=True)
        for rs in rule_sets
    }


def options_for_variants(options: dict, names: list[str]) -> dict:
    """The options that build only the rule sets ``names``, each as ``options`` defines it."""
    rule_sets, duel_sets, _ = check_options(options)
    return {
        **options,
        "rules": [rs.name for rs in rule_sets if rs.name in names],
        "duel_rules": [rs.name for rs in duel_sets if rs.name in names],
        "house_rules": {n: v for n, v in options.get("house_rules", {}).items() if n in names},
    }


def build(ctx, options: dict) -> None:
    from . import heuristic, odds, solitaire, twoplayer
    from dicebase.numeric.ten_thousand_turn import min_turn_totals, transitions

    rule_sets, duel_sets, goal_option = check_options(options)
    for rs in rule_sets:
        name = rs.name
        states = turn_states(rs)
        dice_of = np.array([n for n, _ in states], dtype=np.int64)
        triple_of = np.array([t for _, t in states], dtype=np.int64)
        # the classes a player rolls from: every class but NO_DICE (no hot dice: the turn ended)
        live = np.flatnonzero([s != NO_DICE for s in states])
        with ctx.step(f"{name}: odds, rolls and keeps"):
            tables = odds.tables(rs)
        with ctx.step(f"{name}: solitaire turn"):
            average = solitaire.average_turn(rs) if rs.farkle_penalty else None  # issue 24 (docs/farkle.md)
            sol = average.turns[0] if average else solitaire.solve(rs)
            sol_keep = solitaire.best_keeps(sol)
            heur_value = heuristic.solitaire_value(rs)
            h_rule = [r for r in heuristic.thresholds(rs) if r["bank_from"] is not None]  # never banks: no row
        solver = {
            "solitaire": {
                "objective": "expected banked points of one turn",
                "method": "backward induction over the turn total (descending), exact",
                "bank_bound_points": sol.bound * rs.unit,
                "bank_bound_proof": "K >= max over (dice, triple) of E[best points of a roll] / P(farkle): "
                "banking is optimal at every turn total >= K (docs/ten_thousand.md)",
                "dominated_keeps": "skipped (same dice_after and triple_after with fewer points)",
            },
            "seed004_heuristic": heuristic.__doc__.strip().split("\n\n", 1)[1],
        }
        if average is not None:
            solver["solitaire"].update(_average_metadata(rs, average))
            heur_value = np.full((1, 1), heuristic.penalty_average(rs))
            sol_start = average.gain / rs.unit
        else:
            sol_start = sol.value[0, 0]
        duel = None
        pen = None
        if rs in duel_sets and rs.farkle_penalty:  # issue 24: the farkle counts in the state (docs/farkle.md)
            goal = duel_goal(rs, goal_option)
            with ctx.step(f"{name}: two-player solve to {goal} with the consecutive-farkle penalty"):
                pen = twoplayer.solve_penalty(rs, goal // rs.unit)
            solver["two_player"] = {
                "goal_points": goal,
                "objective": _duel_objective(rs),
                "method": "score sums descending, farkle-count sums descending (every turn once, its farkle "
                "value known); the penalty's target (a lower score sum) from the previous sweep: fixed-point "
                "sweeps until no turn-start value changes by more than the tolerance",
                "lowest_score_points": pen.lowest * rs.unit,
                "lowest_score_effect": "not re-solved in the build (lowering the bound one penalty is a solve with "
                "more states than this one): lowering it shrinks the change of every turn-start value at scores >= 0 "
                "as measured in docs/farkle.md, 'The bound lowest_score' (a small rule set: tenfold a penalty; Facebook "
                "Farkle to 500: 1.3e-6 from -1,000 to -1,500); tests/test_farkle_bound.py",
                "sweep_tolerance": pen.stats["tol"],
                "sweeps": pen.stats["sweeps"],
                "last_change": pen.stats["last_change"],
                "contraction": pen.stats["contraction"],
                "error_bound": pen.stats["error_bound"],
                "states": pen.stats["states"],
                "p1_win": pen.start(0, rs.compensation // rs.unit),
                "stored_states": "turn starts per (score, opponent, count, opponent_count) in "
                "ten_thousand_penalty_start; a state inside a turn follows from them by one turn's recursion",
                "seconds": round(pen.stats["seconds"], 3),
                "threads": pen.stats["threads"],
            }
        elif rs in duel_sets:
            goal = duel_goal(rs, goal_option)
            G = goal // rs.unit
            with ctx.step(f"{name}: two-player solve to {goal} (optimal, then seed004 vs optimal)"):
                duel = twoplayer.solve(rs, G, progress=None if ctx.quiet else ctx.progress)
            solver["two_player"] = {
                "goal_points": goal,
                "objective": _duel_objective(rs),
                "method": "score sums descending; per 2-cycle (i, j), (j, i): affine values A + B*F in the "
                "farkle value F, policy iteration (Newton) until every argmax is proved stable on an "
                "interval containing the solved F",
                "policy_slack_tolerance": duel.stats["tol"],
                "max_policy_slack_used": duel.stats["max_policy_slack"],
                "turn_evaluations": duel.stats["evaluations"],
                "turn_total_bound": "per (score, opponent): turn totals with P_exceed(deficit) <= "
                "pf_min * W(opponent, score) bank (proved optimal); solved_to in ten_thousand_duel_bounds",
                "pf_min": duel.stats["pf_min"],
                "bound_retries": duel.stats["bound_retries"],
                "stored_states": "roll-optimal pre-roll states only; bank states follow from turn-start values",
                "kernel": "numba (see docs/ten_thousand.md for the numpy measurement)",
                "seconds": round(duel.stats["seconds"], 3),
                "threads": duel.stats["threads"],
                "seed004_vs_optimal_seconds": round(duel.stats["heuristic_seconds"], 3),
            }
        ctx.variant(name, rules=rs.as_dict(), solver=solver)

        with ctx.step(f"{name}: write tables (a)-(c), (e)"):
            for tname, cols in tables.items():
                ctx.write(tname, cols)
            ctx.write("ten_thousand_classes", {
                "rules": name,
                "dice": dice_of[live],
                "triple": triple_of[live],
                "p_farkle": np.array([tr.p_farkle for tr in transitions(rs)])[live],
                "min_turn_total": np.array(min_turn_totals(rs), dtype=object)[live],
            })
            # a dense grid (dicebase/layout/ten_thousand.py): turn totals from the grid's first step, by class
            K1 = sol.bound + 1
            first = layout.GRID_STEP[layout.SOLITAIRE.name][1]
            kk, ss = np.divmod(np.arange(first * live.size, (first + K1) * live.size), live.size)
            ss = live[ss]
            action = np.where(sol.roll[:K1][:, live].ravel(), "roll", "bank").astype(object)
            ctx.write(layout.SOLITAIRE.name, {
                "rules": name,
                "turn_total": kk * rs.unit,
                "dice": dice_of[ss],
                "triple": triple_of[ss],
                "value": sol.value[:K1][:, live].ravel() * rs.unit,
                "roll_value": sol.roll_value[:K1][:, live].ravel() * rs.unit,
                "action": action,
            })
            ctx.write("ten_thousand_solitaire_keep", sol_keep)
            thr = {(r["n"], r["t"]): r for r in solitaire.thresholds(sol)}
            h_rule = [r for r in h_rule if (r["n"], r["t"]) != NO_DICE]
            ctx.write("ten_thousand_seed004_rule", {
                "rules": name,
                "dice": np.array([r["n"] for r in h_rule]),
                "triple": np.array([r["t"] for r in h_rule]),
                "ev_next_roll": np.array([r["ev"] for r in h_rule], dtype=float),
                "p_farkle": np.array([r["p_farkle"] for r in h_rule]),
                "bank_from": np.array([r["bank_from"] for r in h_rule]),
                "optimal_bank_from": np.array([thr[(r["n"], r["t"])]["bank_from"] for r in h_rule], dtype=object),
            })
            ctx.write("ten_thousand_policy_turn", {
                "rules": np.array([name, name], dtype=object),
                "policy": np.array(["optimal", "seed004"], dtype=object),
                "expected_points": np.array([sol_start, heur_value[0, 0]]) * rs.unit,
            })
        if duel is not None:
            with ctx.step(f"{name}: write two-player tables (d), (e)"):
                _write_duel(ctx, rs, duel, goal, dice_of, triple_of)
        if pen is not None:  # issue 24: the turn starts with both farkle counts, in key order
            with ctx.step(f"{name}: write the two-player turn starts with farkle counts"):
                _write_penalty(ctx, rs, pen, duel_goal(rs, goal_option))
                if rs.last_round != "first_to_goal_wins":  # the last turn a bank at the goal leaves, every lead
                    E = twoplayer.exceed_table(rs, pen.stats["last_turn_leads"] + 1 + pen.stats["bank_minimum_units"])
                    _write_last_turn(ctx, rs, E, dice_of, triple_of)  # the solve used (lookups read it)
        ctx.note(f"{name}", {
            "solitaire_expected_turn_points": float(sol_start * rs.unit),
            **({"two_player_p1_win": float(duel.W[0, rs.compensation // rs.unit]),
                "two_player_stored_states": int(duel.stats.get("stored_rows", 0))} if duel else {}),
            **({"two_player_p1_win": pen.start(0, rs.compensation // rs.unit),
                "two_player_stored_states": int(pen.W.size)}
               if pen else {}),
        })
    players = player_counts(options)
    if players:  # N players (issue 21): every two-player rule set, blocks in (rules, goal, players) order
        from .nplayer_build import build_players

        for rs in sorted(duel_sets, key=lambda r: r.name):
            build_players(ctx, rs, duel_goal(rs, goal_option), players)


CHUNK = 4_000_000


def _write_penalty(ctx, rs: RuleSet, pen, goal: int) -> None:
    """ten_thousand_penalty_start (issue 24): W[i - L, j - L, ci, cj] of solve_penalty, one row per (score,
    opponent, count, opponent_count) in key order (C order of W)."""
    nS, m = pen.W.shape[0], pen.W.shape[2]
    i, j, ci, cj = np.meshgrid(np.arange(nS), np.arange(nS), np.arange(m), np.arange(m), indexing="ij")
    ctx.write(layout.PENALTY_START.name, {
        "rules": rs.name,
        "goal": np.full(pen.W.size, goal, dtype=np.int64),
        "score": ((i.ravel() + pen.lowest) * rs.unit).astype(np.int64),
        "opponent": ((j.ravel() + pen.lowest) * rs.unit).astype(np.int64),
        "count": ci.ravel().astype(np.int64),
        "opponent_count": cj.ravel().astype(np.int64),
        "p_win": pen.W.ravel().astype(float),
    })


def _write_last_turn(ctx, rs: RuleSet, E, dice_of, triple_of) -> None:
    """ten_thousand_exceed (both policies, from the optimal table ``E`` of the solve) and, where last-turn ties are
    shared, ten_thousand_last_turn: what a bank at or past the goal leaves the opponent (issue 24: also written
    for a penalty rule set with a last round, whose lookups take the last turn from them)."""
    from .twoplayer import exceed_table

    u, name = rs.unit, rs.name
    live = np.flatnonzero(dice_of > 0)  # not NO_DICE: nothing more can be gained there
    S = live.size
    for policy, table in (("optimal", E), ("seed004", exceed_table(rs, E.shape[0] - 1, keep="max_dice"))):
        first = layout.GRID_STEP[layout.EXCEED.name][1]  # a dense grid from its first need, by class
        m, ss = np.divmod(np.arange(first * S, table.shape[0] * S), S)
        ss = live[ss]
        ctx.write(layout.EXCEED.name, {
            "rules": name,
            "policy": policy,
            "need": m * u,
            "dice": dice_of[ss],
            "triple": triple_of[ss],
            "p_exceed": table[first:][:, live].ravel(),
        })
    if rs.last_round == "others_one_turn_ties_shared":  # issue 24: the last turn's tie-aware values
        from .twoplayer import tie_table

        Q = tie_table(rs, E.shape[0] - 1)  # the needs of the exceed table, 0..M units
        first = layout.GRID_STEP[layout.LAST_TURN.name][1]
        m, ss = np.divmod(np.arange(first * S, Q.shape[0] * S), S)
        ss = live[ss]
        ctx.write(layout.LAST_TURN.name, {  # need m units: more than m - 1 to pass, m - 1 ties: Q(m - 1)
            "rules": name,
            "need": m * u,
            "dice": dice_of[ss],
            "triple": triple_of[ss],
            "p_win": Q[m - 1, ss],
        })


def _duel_objective(rs: RuleSet) -> str:
    """The two-player objective in words, as the rule set ends its game (issue 24)."""
    from dicebase.rules.ten_thousand.farkle import LAST_ROUND_TEXT

    start = f"; the second player starts with {rs.compensation} points" if rs.compensation else ""
    if rs.last_round == "others_one_turn_must_exceed":  # the text of every build before issue 24
        return "win probability, the other player gets one last turn and must exceed" + start
    return f"win probability; {LAST_ROUND_TEXT[rs.last_round]}{start}"


def _average_metadata(rs: RuleSet, average) -> dict:
    """Solver metadata of a rule set with a consecutive-farkle penalty (issue 24, docs/farkle.md)."""
    from . import solitaire

    return {
        "objective": "long-run average points per turn over the farkle-count states 0.."
                     f"{rs.farkle_penalty_after - 1} (average-reward problem)",
        "method": "relative value iteration; each step one solitaire turn per count with a farkle worth the "
                  "relative value of the next count (or minus the penalty); stopped when the Odoni bounds on the "
                  "gain are within the tolerance",
        "gain_points_per_turn": average.gain,
        "gain_bounds": list(average.gain_bounds),
        "tolerance_points": average.tol,
        "iterations": average.iterations,
        "relative_values_points": average.relative.tolist(),
        "farkle_values_points": average.farkle_value.tolist(),
        "stored_turn": "ten_thousand_solitaire* hold the count-0 turn; its values are expected banked points "
                       "plus the relative value after a farkle",
        "bank_from_by_farkle_count": [
            {f"{r['n']}/{r['t']}": r["bank_from"] for r in solitaire.thresholds(t)} for t in average.turns
        ],
    }


def _write_duel(ctx, rs: RuleSet, duel, goal: int, dice_of, triple_of) -> None:
    u = rs.unit
    name = rs.name
    keep = duel.roll & ~((duel.k == 0) & (duel.s != 0))
    rows = np.flatnonzero(keep)
    duel.stats["stored_rows"] = int(rows.size)
    # the layout's order (dicebase/layout/ten_thousand.py): pair after pair, each pair's rows by
    # their held key (turn total, dice, triple), which the solver emits (checked)
    G = duel.goal
    top = (int(duel.k[rows].max(initial=0)) + 1) * layout.KEY_STEP  # above every held key
    key = ((duel.i[rows].astype(np.int64) * G + duel.j[rows]) * top
           + layout.held_key(1, duel.k[rows].astype(np.int64), dice_of[duel.s[rows]], triple_of[duel.s[rows]]))
    if not (key[1:] > key[:-1]).all():  # the solver emits key order (a 30M-row sort otherwise)
        rows = rows[np.argsort(key, kind="stable")]
    del key
    for start in range(0, rows.size, CHUNK):
        sel = rows[start : start + CHUNK]
        s = duel.s[sel].astype(np.int64)
        ctx.write(layout.DUEL.name, {
            "rules": name,
            "goal": goal,
            "score": duel.i[sel].astype(np.int64) * u,
            "opponent": duel.j[sel].astype(np.int64) * u,
            "turn_total": duel.k[sel].astype(np.int64) * u,
            "dice": dice_of[s],
            "triple": triple_of[s],
            "p_win": duel.p_win[sel],
        })
    last = np.zeros((G, G), dtype=np.int64)
    rolled = rows[dice_of[duel.s[rows]] > 0]  # not the lost turns of NO_DICE (no hot dice, below the minimum)
    np.maximum.at(last, (duel.i[rolled], duel.j[rolled]), duel.k[rolled].astype(np.int64))
    score, opponent = layout.pair_at(u, G, np.arange(G * G))  # the bounds row at each pair position
    # where each pair's rows lie in this (rules, goal)'s block of ten_thousand_duel (written in pair
    # order just above), and its turn-start value: lookups read rows by position (issue 12)
    pair = duel.i[rows].astype(np.int64) * G + duel.j[rows]
    row_count = np.bincount(pair, minlength=G * G)
    first_row = np.cumsum(row_count) - row_count
    start = rows[duel.k[rows] == 0]  # one per pair: every turn start is stored, and only (all dice, no triple)
    p_start = np.full(G * G, np.nan)
    p_start[duel.i[start].astype(np.int64) * G + duel.j[start]] = duel.p_win[start]
    if start.size != G * G or np.isnan(p_start).any():
        raise AssertionError("ten_thousand_duel: every pair must store exactly one turn start")
    ctx.write(layout.BOUNDS.name, {
        "rules": name,
        "goal": goal,
        "score": score,
        "opponent": opponent,
        "solved_to": duel.kmax.ravel() * u,
        "last_roll": last.ravel() * u,
        "first_row": first_row,
        "row_count": row_count,
        "p_start": p_start,
    })
    _write_last_turn(ctx, rs, duel.exceed, dice_of, triple_of)
    # the start of the rule set: the first player at 0, the second at its compensation (issue 24); H is seed
    # 004's player: heur_h has H to move (seat 1), heur_o the optimal player to move with H second (seat 2)
    c = rs.compensation // u
    W00 = float(duel.W[0, c])
    ctx.write("ten_thousand_policy_duel", {
        "rules": name,
        "goal": np.full(4, goal, dtype=np.int64),
        "policy": np.array(["optimal", "optimal", "seed004", "seed004"], dtype=object),
        "seat": np.array([1, 2, 1, 2]),
        "p_win": np.array([W00, 1.0 - W00, float(duel.heur_h[0, c]), float(duel.heur_o[0, c])]),
    })
