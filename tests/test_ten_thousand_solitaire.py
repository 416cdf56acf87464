"""Table (c) and (e, turn): the solitaire turn, its bound, Monte-Carlo play of the STORED
policy, seed 004's heuristic as a policy."""

from __future__ import annotations

import numpy as np
import pytest

from dicebase.builder.ten_thousand import heuristic, solitaire
from dicebase.rules.ten_thousand import FARKLE, TEN_THOUSAND
from dicebase.numeric.ten_thousand_turn import transitions
from dicebase.rules.ten_thousand import turn_states
from dicebase.builder.ten_thousand.solitaire import expected_max_points, flatten


@pytest.mark.parametrize("rules", [TEN_THOUSAND, FARKLE], ids=lambda r: r.name)
def test_bank_bound_is_proved_and_raising_it_changes_nothing(rules):
    sol = solitaire.solve(rules)
    fl = flatten(transitions(rules))
    # the proof's condition: K >= E[best points] / P(farkle) for every (dice, triple)
    assert (sol.bound >= expected_max_points(rules) / fl.p_farkle).all()
    wider = solitaire.solve(rules, bound=sol.bound + 300)
    assert np.array_equal(wider.value[: sol.bound + 1], sol.value)
    assert not wider.roll[sol.bound :].any()  # banking is optimal everywhere past K
    # and the bound is not loose by much: six dice still roll just below it
    assert sol.roll[sol.bound - 10, 0]


def test_values_are_monotone_and_at_least_the_turn_total():
    sol = solitaire.solve(TEN_THOUSAND)
    k = np.arange(sol.bound + 1)[:, None]
    assert (sol.value[1:] >= k[1:] - 1e-9).all()
    assert (np.diff(sol.value, axis=0) >= -1e-9).all()  # more turn total never hurts (solitaire)
    # but more dice can: one die (a 1 or 5 gives hot dice) beats two dice at small totals
    one, two = turn_states(TEN_THOUSAND).index((1, 0)), turn_states(TEN_THOUSAND).index((2, 0))
    assert sol.value[1, one] > sol.value[1, two]


def test_seed004_worked_example():
    # seed file 004_ebfe5ef33ddae374.txt: one die left after a 1, a 5 and three 2s (turn total 350): the EV of the
    # roll 58.33 is below the opportunity cost 116.67, so the heuristic banks ...
    rules = TEN_THOUSAND
    states = turn_states(rules)
    s = states.index((1, 2))
    rows = {(r["n"], r["t"]): r for r in heuristic.thresholds(rules)}
    ev = rows[(1, 2)]["ev"]
    assert ev == pytest.approx(58.333333, abs=1e-5)
    # seed file 004_ebfe5ef33ddae374.txt prints the opportunity cost as 116.67, i.e. 350 x 1/3; with its own 50% chance
    # of missing it is 350 x 1/2 = 175.  Either way it exceeds the EV, so the rule banks.
    assert rows[(1, 2)]["p_farkle"] == 0.5
    assert 350 * rows[(1, 2)]["p_farkle"] > ev and 350 / 3 > ev
    assert rows[(1, 2)]["bank_from"] <= 350
    # ... while the optimal turn still rolls there (hot dice are worth it)
    sol = solitaire.solve(rules)
    assert sol.roll[7, s]


def test_heuristic_turn_is_worse_than_optimal():
    for rules in (TEN_THOUSAND, FARKLE):
        h = heuristic.solitaire_value(rules)[0, 0]
        v = solitaire.solve(rules).value[0, 0]
        assert h < v


def simulate_stored_policy(db, rules: str, turns: int, seed: int) -> np.ndarray:
    """Play `turns` solitaire turns with the policy read from the database (vectorised)."""
    from dicebase.numeric.dice import roll_index

    states = [(int(n), int(t)) for n, t in db.fetchall(
        "SELECT DISTINCT dice, triple FROM ten_thousand_solitaire WHERE rules = ? ORDER BY triple, dice DESC", (rules,))]
    sidx = {s: x for x, s in enumerate(states)}
    K = db.fetchone("SELECT MAX(turn_total) FROM ten_thousand_solitaire WHERE rules = ?", (rules,))[0] // 50
    act = np.zeros((K + 1, len(states)), dtype=bool)
    for k, n, t, a in db.fetchall("SELECT turn_total, dice, triple, action FROM ten_thousand_solitaire WHERE rules = ?", (rules,)):
        act[k // 50, sidx[(n, t)]] = a == "roll"
    # roll code: counts per face in base 7
    base = 7 ** np.arange(6)
    codes = {}
    for n in range(1, 7):
        for faces in roll_index(n):
            codes[n, sum(base[f - 1] for f in faces)] = "".join(map(str, faces))
    code_id = {key: x for x, key in enumerate(codes)}
    lut = -np.ones((7, 7 ** 6), dtype=np.int64)
    for (n, c), x in code_id.items():
        lut[n, c] = x
    rid = {v: code_id[key] for key, v in codes.items()}
    best_pts = np.zeros((K + 1, len(states), len(code_id)), dtype=np.int64)
    best_next = -np.ones((K + 1, len(states), len(code_id)), dtype=np.int64)
    keeps = {}
    for n, t, roll, keep, dice_after, triple_after, pts in db.fetchall(
        "SELECT dice, triple, roll, keep, dice_after, triple_after, points FROM ten_thousand_keeps WHERE rules = ?", (rules,)):
        keeps[(n, t, roll, keep)] = (pts // 50, sidx[(dice_after, triple_after)])
    for k, n, t, roll, keep in db.fetchall(
        "SELECT turn_total, dice, triple, roll, keep FROM ten_thousand_solitaire_keep WHERE rules = ?", (rules,)):
        p, nxt = keeps[(n, t, roll, keep)]
        best_pts[k // 50, sidx[(n, t)], rid[roll]] = p
        best_next[k // 50, sidx[(n, t)], rid[roll]] = nxt
    dice_of = np.array([n for n, _ in states])
    rng = np.random.default_rng(seed)
    k = np.zeros(turns, dtype=np.int64)
    s = np.zeros(turns, dtype=np.int64)
    result = np.full(turns, -1, dtype=np.int64)
    live = np.arange(turns)
    while live.size:
        kk, ss = k[live], s[live]
        beyond = kk > K
        bank = beyond | ~act[np.minimum(kk, K), ss]
        result[live[bank]] = kk[bank]
        live, kk, ss = live[~bank], kk[~bank], ss[~bank]
        n = dice_of[ss]
        faces = rng.integers(1, 7, size=(live.size, 6))
        used = np.arange(6)[None, :] < n[:, None]
        code = (np.where(used, base[faces - 1], 0)).sum(axis=1)
        r = lut[n, code]
        p = best_pts[kk, ss, r]
        nxt = best_next[kk, ss, r]
        farkle = nxt < 0
        result[live[farkle]] = 0
        keep = ~farkle
        k[live[keep]] = kk[keep] + p[keep]
        s[live[keep]] = nxt[keep]
        live = live[keep]
    return result * 50


@pytest.mark.parametrize("rules", ["ten-thousand", "farkle"])
def test_monte_carlo_of_stored_policy(built_db, rules):
    import dicebase

    with dicebase.open(built_db(("ten_thousand",))) as db:
        stored = db.fetchone(
            "SELECT value FROM ten_thousand_solitaire WHERE rules = ? AND turn_total = 0 AND dice = 6 AND triple = 0",
            (rules,))[0]
        points = simulate_stored_policy(db, rules, 200_000, seed=4)
    mean = points.mean()
    half = 3.2905 * points.std(ddof=1) / np.sqrt(points.size)  # 99.9% confidence interval
    assert abs(mean - stored) <= half, (mean, stored, half)
