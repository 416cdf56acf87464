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
from dicebase.numeric.ten_thousand_turn import Flat, class_sum, max_dice_flat

from .solitaire import bank_minimum_units, bonus_chain, bonus_class


def expected_next_roll(fl: Flat) -> np.ndarray:
    """EV(s) in units: expected points of the next roll under the max-dice keep."""
    per_group = fl.group_prob * fl.opt_pts[fl.group_opt[:-1]]
    return class_sum(per_group, fl.state_group)


def roll_table(rules: RuleSet) -> tuple[np.ndarray, int]:
    """(roll[k, s] for k = 0..K, K) with K the first turn total where every class that can farkle banks.

    Issue 24: below the bank minimum the rule must roll; a class that never farkles (all the dice
    under a no-score bonus) has no opportunity cost, so the rule always rolls it."""
    fl = max_dice_flat(rules)
    ev = expected_next_roll(fl)
    live = fl.p_farkle > 0
    K = max(int(math.floor((ev[live] / fl.p_farkle[live]).max())) + 1, bank_minimum_units(rules))
    k = np.arange(K + 1)[:, None]
    roll = ev[None, :] > k * fl.p_farkle[None, :]
    roll[: bank_minimum_units(rules)] = True
    return roll, K


def thresholds(rules: RuleSet) -> list[dict]:
    """Per class: EV of the next roll, farkle chance and the turn total from which it banks."""
    fl = max_dice_flat(rules)
    ev = expected_next_roll(fl)
    out = []
    for s, (n, t) in enumerate(turn_states(rules)):
        # bank iff k * pf >= ev  ->  smallest k >= ev / pf (units), and not below the bank minimum
        if fl.p_farkle[s] > 0 or ev[s] <= 0:
            kb = max(bank_minimum_units(rules), math.ceil(ev[s] / fl.p_farkle[s] - 1e-12) if ev[s] > 0 else 1)
            bank_from = kb * rules.unit
        else:
            bank_from = None  # never farkles (no-score bonus): always rolls
        out.append(dict(n=n, t=t, ev=ev[s] * rules.unit, p_farkle=float(fl.p_farkle[s]), bank_from=bank_from))
    return out


def solitaire_value(rules: RuleSet, farkle_value: float = 0.0) -> np.ndarray:
    """H[k, s]: expected banked points (units) of the heuristic from (k, s); a farkle is worth
    ``farkle_value`` units (0, or -1 to read off the chance that a turn farkles: H(0) - H(-1))."""
    fl = max_dice_flat(rules)
    roll, K = roll_table(rules)
    top = K + fl.max_pts + 1
    H = np.zeros((top + 1, fl.n_states))
    H[K + 1 :] = np.arange(K + 1, top + 1, dtype=float)[:, None]
    s6 = bonus_class(rules)
    if s6 is not None:  # always rolled: past K worth k + c, c = fixed point of its max-dice chain
        H[K + 1 :, s6] += bonus_chain(fl, s6)
    for k in range(K, -1, -1):
        vals = H[k + fl.opt_pts, fl.opt_state] * fl.group_prob
        r = class_sum(vals, fl.state_group) + fl.p_farkle * farkle_value
        H[k] = np.where(roll[k], r, k)
    return H[: K + 1]


def penalty_average(rules: RuleSet) -> float:
    """The rule's long-run average points per turn under a consecutive-farkle penalty (units): it
    ignores the count, so each turn farkles with the same chance q and banks E points on average;
    the count is a Markov chain and the penalty falls on a share ``pi_{m-1} q`` of turns
    (after_penalty: pi_c ~ q^c, c < m; after_bank: the chain stays at m - 1 until a bank)."""
    E = float(solitaire_value(rules)[0, 0])
    q = E - float(solitaire_value(rules, farkle_value=-1.0)[0, 0])
    m = rules.farkle_penalty_after
    if rules.farkle_count_reset == "after_penalty":
        weights = q ** np.arange(m)
    else:  # counts 0..m-2 as above, m-1 absorbs further farkles until a bank
        weights = np.append(q ** np.arange(m - 1), q ** (m - 1) / (1.0 - q))
    pi_last = weights[-1] / weights.sum()
    return E - pi_last * q * rules.farkle_penalty / rules.unit
