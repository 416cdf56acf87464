"""Seed 004's heuristic as a policy.

Seed 004: "If EV > Opportunity cost, then roll. Otherwise bank the points", where EV is
the expected points of the next roll and the opportunity cost is the turn total times
the chance that the roll scores nothing; "the assumption is that you'll score the
maximum number of dice"; in the last round "if banked + unbanked points <= opponent's
score, then roll. Otherwise bank".

As a policy (``seed004``):
- keep: the legal keep using the most dice, ties broken by the most points;
- roll/bank: at turn total ``k`` with ``n`` dice and standing triple ``t``, roll iff
  ``k == 0`` or ``EV(n, t) > k * P(farkle | n, t)``, with ``EV(n, t) = sum_r P(r) *
  points of that keep`` (farkles count 0);
- last turn (the opponent has reached the goal): roll until the total exceeds the
  opponent's score, then bank (a tie does not win, so "ahead" means strictly more).
The rule ignores both banked scores otherwise (seed 004 uses it for every normal turn).
"""

from __future__ import annotations

import math

import numpy as np

from dicebase.rules.ten_thousand import RuleSet, turn_states

from .solitaire import Flat, class_sum, max_dice_flat


def expected_next_roll(fl: Flat) -> np.ndarray:
    """EV(s) in units: expected points of the next roll under the max-dice keep."""
    per_group = fl.group_prob * fl.opt_pts[fl.group_opt[:-1]]
    return class_sum(per_group, fl.state_group)


def roll_table(rules: RuleSet) -> tuple[np.ndarray, int]:
    """(roll[k, s] for k = 0..K, K) with K the first turn total where every class banks."""
    fl = max_dice_flat(rules)
    ev = expected_next_roll(fl)
    K = int(math.floor((ev / fl.p_farkle).max())) + 1
    k = np.arange(K + 1)[:, None]
    roll = ev[None, :] > k * fl.p_farkle[None, :]
    roll[0] = True
    return roll, K


def thresholds(rules: RuleSet) -> list[dict]:
    """Per class: EV of the next roll, farkle chance and the turn total from which it banks."""
    fl = max_dice_flat(rules)
    ev = expected_next_roll(fl)
    out = []
    for s, (n, t) in enumerate(turn_states(rules)):
        # bank iff k * pf >= ev  ->  smallest k >= ev / pf (units)
        kb = max(1, math.ceil(ev[s] / fl.p_farkle[s] - 1e-12))
        out.append(dict(n=n, t=t, ev=ev[s] * rules.unit, p_farkle=float(fl.p_farkle[s]),
                        bank_from=kb * rules.unit))
    return out


def solitaire_value(rules: RuleSet) -> np.ndarray:
    """H[k, s]: expected banked points (units) of the heuristic from (k, s)."""
    fl = max_dice_flat(rules)
    roll, K = roll_table(rules)
    top = K + fl.max_pts + 1
    H = np.zeros((top + 1, fl.n_states))
    H[K + 1 :] = np.arange(K + 1, top + 1, dtype=float)[:, None]
    for k in range(K, -1, -1):
        vals = H[k + fl.opt_pts, fl.opt_state] * fl.group_prob
        r = class_sum(vals, fl.state_group)
        H[k] = np.where(roll[k], r, k)
    return H[: K + 1]
