"""Tables (a) and (b): combination odds per (dice, standing triple), every roll and keep."""

from __future__ import annotations

import numpy as np

from dicebase.numeric.dice import rolls
from dicebase.layout.ten_thousand import KEEPS, ROLLS
from dicebase.rules.ten_thousand.scoring import NO_SCORE_BONUS
from dicebase.rules.ten_thousand import (
    CLASS_ORDER, RuleSet, classify, dominated_flags, keep_points, legal_keeps, roll_states,
)


def _faces(counts) -> str:
    return "".join(str(f) * int(c) for f, c in enumerate(counts, start=1))


def odds_rows(rules: RuleSet, n: int, t: int) -> list[dict]:
    """Seed 004's table for ``n`` dice with standing triple ``t``: one row per class."""
    table = rolls(n)
    acc: dict[str, list] = {}
    for r in range(len(table)):
        counts = tuple(int(c) for c in table.counts[r])
        w = int(table.ways[r])
        name, combo = classify(rules, counts, t)
        keeps = legal_keeps(rules, counts, n, t)
        best = keeps[0].points if keeps else 0
        if name == NO_SCORE_BONUS:  # issue 24: the bonus is the combination's points (no die scores on its own)
            combo_pts = rules.no_score_bonus
        else:
            combo_pts = keep_points(rules, combo, t if rules.triple_stands else 0)[0] if keeps else 0
        a = acc.setdefault(name, [0, 0, 0])
        a[0] += w
        a[1] += w * best
        a[2] += w * combo_pts
    out = []
    for name in sorted(acc, key=CLASS_ORDER.index):
        ways, pts, cpts = acc[name]
        out.append(dict(combination=name, outcomes=ways, probability=ways / table.total,
                        mean_points=pts / ways, mean_combination_points=cpts / ways))
    return out


def tables(rules: RuleSet) -> dict[str, dict[str, np.ndarray]]:
    """Columns of ten_thousand_odds, ten_thousand_rolls and ten_thousand_keeps."""
    odds = {k: [] for k in ("dice", "triple", "combination", "position", "outcomes", "probability",
                            "mean_points", "mean_combination_points")}
    rl = {k: [] for k in ("dice", "triple", "roll", "ways", "probability", "combination", "best_points", "farkle")}
    kp = {k: [] for k in ("dice", "triple", "roll", "keep", "points", "dice_used", "dice_after",
                          "triple_after", "hot_dice", "dominated", "max_dice")}
    for n, t in roll_states(rules):
        for pos, row in enumerate(odds_rows(rules, n, t)):
            odds["dice"].append(n)
            odds["triple"].append(t)
            odds["position"].append(pos)
            for key in ("combination", "outcomes", "probability", "mean_points", "mean_combination_points"):
                odds[key].append(row[key])
        table = rolls(n)
        for r in range(len(table)):
            counts = tuple(int(c) for c in table.counts[r])
            roll = _faces(counts)
            keeps = legal_keeps(rules, counts, n, t)
            rl["dice"].append(n)
            rl["triple"].append(t)
            rl["roll"].append(roll)
            rl["ways"].append(int(table.ways[r]))
            rl["probability"].append(int(table.ways[r]) / table.total)
            rl["combination"].append(classify(rules, counts, t)[0])
            rl["best_points"].append(keeps[0].points if keeps else 0)
            rl["farkle"].append(not keeps)
            if not keeps:
                continue
            md = max(keeps, key=lambda k: (k.dice, k.points))
            for k, dom in zip(keeps, dominated_flags(keeps)):
                kp["dice"].append(n)
                kp["triple"].append(t)
                kp["roll"].append(roll)
                kp["keep"].append(_faces(k.kept))
                kp["points"].append(k.points)
                kp["dice_used"].append(k.dice)
                kp["dice_after"].append(k.n_after)
                kp["triple_after"].append(k.t_after)
                kp["hot_dice"].append(k.dice == n and rules.hot_dice)
                kp["dominated"].append(dom)
                kp["max_dice"].append(k is md)

    def cols(d):
        out = {}
        for key, values in d.items():
            if values and isinstance(values[0], str):
                out[key] = np.array(values, dtype=object)
            elif values and isinstance(values[0], bool):
                out[key] = np.array(values, dtype=bool)
            else:
                out[key] = np.array(values)
        size = len(next(iter(d.values())))
        out["rules"] = np.full(size, rules.name, dtype=object)
        return out

    # ten_thousand_rolls and ten_thousand_keeps: one run of rows per (dice, triple) class (dicebase/layout/ten_thousand.py)
    return {"ten_thousand_odds": cols(odds), ROLLS.name: cols(rl), KEEPS.name: cols(kp)}
