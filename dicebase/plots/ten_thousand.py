"""10,000 figures: when to bank (solitaire and two-player), and the win chance over both scores."""

from __future__ import annotations

from dicebase.plots.base import SEQUENTIAL, FigureSpec, Option, heat_map
from dicebase.errors import BadInput

GAME = "ten_thousand"
STEP = 50  # every score and turn total is a multiple of 50 points

VARIANT = Option("variant", str, "Rule set: ten-thousand (seed 004, default) or farkle; --rules is the same option.",
                 "NAME")
GOAL = Option("goal", int, "Goal of the two-player game, points (default: the one built, 10000).")


class _TenThousand(FigureSpec):
    game = GAME

    def resolve(self, db, opts: dict) -> dict:
        rules = opts.get("variant", "ten-thousand")
        db.ten_thousand.thresholds(rules)  # BadInput / NotInDatabase (naming the build command) if not built
        rule = db.ten_thousand.rule_sets()[rules]  # issue 24: the titles say how its game ends, its penalty
        return {**opts, "variant": rules, "goal": self._goal(db, rules, opts.get("goal")),
                "first_wins": rule.get("last_round") == "first_to_goal_wins",
                "penalty": rule.get("farkle_penalty", 0), "bank_minimum": rule.get("bank_minimum", 0)}

    def _goal(self, db, rules: str, goal):
        built = db.ten_thousand.goal(rules)  # NotInDatabase naming the build command when not solved
        if goal is not None and goal != built:
            raise BadInput(f"--goal must be the goal built for {rules}, {built}; got {goal}")
        return built

    def caption_facts(self, opts: dict) -> str:
        goal = f", two-player goal {opts['goal']:,}" if opts.get("goal") else ""
        return f"rules {opts['variant']}{goal}"


def ending(opts: dict) -> str:
    """How the two-player game ends, in a few words (issue 24's last_round)."""
    return "the first to bank it wins" if opts.get("first_wins") else "the other gets a last turn"


def turn_title(opts: dict) -> str:
    """What the solitaire part shows (issue 24: with a farkle penalty, the turn with no farkle in hand)."""
    if opts.get("penalty"):
        return f"Solitaire turn, no farkle in hand, best long-run average ({opts['variant']}): bank from"
    return f"Solitaire turn, most expected points ({opts['variant']}): bank once the turn total reaches"


#: Colour bands of the two-player maps, points: equal-width bands, so a threshold reads off the bar.
BANDS = (0, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000)


class Thresholds(_TenThousand):
    name = "ten-thousand-thresholds"
    summary = "10,000: when to bank, solitaire by dice left and standing triple, and two-player over both scores"
    description = (
        "Top: the optimal solitaire turn (most expected points) banks from this turn total on, by dice "
        "about to be rolled and standing three of a kind (seed 004's decision tree; with a consecutive-farkle "
        "penalty the turn with no farkle in hand, maximising the long-run average; below a bank minimum it "
        "always rolls). Below: in the two-player race to the goal (a last turn for the other player, or the "
        "first to bank the goal wins, as the rules say), the largest turn total at "
        "which optimal play still rolls, over own and opponent score, for six dice (turn start or hot "
        "dice) and for each smaller number of dice, without a standing triple. Only reachable turn "
        "totals count. A rule set without a two-player solve shows the solitaire part alone."
    )
    options = (VARIANT, GOAL)
    examples = ("", "--variant farkle")
    gallery = ("",)

    def _goal(self, db, rules, goal):
        from dicebase.query.base import NotInDatabase

        try:
            return super()._goal(db, rules, goal)
        except NotInDatabase:
            if goal is not None:
                raise
            return 0  # no two-player solve: the query's second part returns no rows

    def figure_height(self, opts):
        return 12.5 if opts["goal"] else 4.6

    def query(self, opts):
        return (
            "WITH rolled AS (\n"
            "  SELECT rules, dice, triple, score, opponent, MAX(turn_total) AS top, MIN(turn_total) AS bottom\n"
            "  FROM ten_thousand_duel\n"
            "  WHERE rules = ? AND goal = ? AND triple = 0\n"
            "  GROUP BY rules, dice, triple, score, opponent\n"
            ")\n"
            "SELECT 'solitaire' AS part, dice, triple, NULL AS score, NULL AS opponent, bank_from AS turn_total\n"
            "FROM ten_thousand_thresholds\n"
            "WHERE rules = ?\n"
            "UNION ALL\n"
            "-- the largest stored (roll-optimal) turn total if a turn can reach it, else 0 for a turn start\n"
            "-- (six dice, turn total 0), else NULL: the player banks at every reachable total\n"
            "SELECT 'duel' AS part, r.dice, r.triple, r.score, r.opponent,\n"
            "       CASE WHEN r.top >= c.min_turn_total THEN r.top WHEN r.bottom = 0 THEN 0 END AS turn_total\n"
            "FROM rolled r\n"
            "JOIN ten_thousand_classes c ON c.rules = r.rules AND c.dice = r.dice AND c.triple = r.triple\n"
            "ORDER BY part DESC, dice, triple, score, opponent",
            (opts["variant"], opts["goal"], opts["variant"]),
        )

    def arrays(self, names, rows, opts):
        """'bank_from'[dice - 1, triple] (solitaire) and 'last_roll'[6 - dice, opponent / 50, score / 50] (duel)."""
        import numpy as np

        c = {n: names.index(n) for n in names}
        bank_from = np.full((6, 7), np.nan)
        never = np.zeros((6, 7), dtype=bool)  # a class that never banks (a no-score bonus's six dice, issue 24)
        cells = max(opts["goal"] // STEP, 1)
        last_roll = np.full((6, cells, cells), np.nan)
        for row in rows:
            dice, triple, total = row[c["dice"]], row[c["triple"]], row[c["turn_total"]]
            if row[c["part"]] == "solitaire":
                bank_from[dice - 1, triple] = np.nan if total is None else total
                never[dice - 1, triple] = total is None
            elif total is not None:
                last_roll[6 - dice, row[c["opponent"]] // STEP, row[c["score"]] // STEP] = total
        return {"bank_from": bank_from, "never": never, "last_roll": last_roll, "duel": np.array(opts["goal"] > 0)}

    def draw(self, fig, data, opts):
        import numpy as np
        from matplotlib.colors import BoundaryNorm, LogNorm

        has_duel = bool(data["duel"]) and not np.isnan(data["last_roll"]).all()
        if has_duel:
            top, bottom = fig.subfigures(2, 1, height_ratios=[3.3, 8.4])
        else:
            top, bottom = fig, None
        triples = [t for t in range(7) if not np.isnan(data["bank_from"][:, t]).all()]  # farkle: no triples
        bank_from = data["bank_from"][:, triples]
        never = data["never"][:, triples]
        ax = top.subplots()
        norm = LogNorm(np.nanmin(bank_from), np.nanmax(bank_from))
        ax.set_facecolor("#eeeeee")
        image = ax.imshow(bank_from, cmap=SEQUENTIAL, norm=norm, aspect="auto", interpolation="nearest")
        for (d, t), value in np.ndenumerate(bank_from):
            if not np.isnan(value):
                light = norm(value) > 0.55
                ax.text(t, d, f"{int(value):,}", ha="center", va="center", fontsize=10,
                        color="black" if light else "white")
            elif never[d, t]:
                ax.text(t, d, "never banks", ha="center", va="center", fontsize=10, color="black")
        ax.set_xticks(range(len(triples)), [f"{t}s" if t else "none" for t in triples])
        ax.set_yticks(range(6), [str(d) for d in range(1, 7)])
        ax.set_xlabel("standing three of a kind (its face scores again); grey: not possible")
        ax.set_ylabel("dice about to be rolled")
        ax.set_title(turn_title(opts))
        cbar = top.colorbar(image, ax=ax, pad=0.01)
        cbar.set_label("bank from (points)")
        if bottom is None:
            fig.suptitle(f"10,000 ({opts['variant']}): when to bank (no two-player game built for these rules)")
            return
        last_roll = data["last_roll"]
        axes = bottom.subplots(2, 3, sharex=True, sharey=True)
        top_band = max(float(np.nanmax(last_roll)), BANDS[-1]) + STEP
        norm = BoundaryNorm([*BANDS, top_band], ncolors=256)
        goal = opts["goal"]
        for index, ax in enumerate(axes.flat):
            dice = 6 - index
            ax.set_facecolor("#dddddd")
            what = "six dice: turn start or hot dice" if dice == 6 else f"{dice} {'die' if dice == 1 else 'dice'} left"
            image = heat_map(
                ax, last_roll[index], x0=0, y0=0, step=STEP, norm=norm, title=what,
                xlabel="own score (points)" if index >= 3 else "",
                ylabel="opponent score (points)" if index % 3 == 0 else "",
            )
            ticks = np.linspace(0, goal, 5)
            ax.set_xticks(ticks, [f"{int(t):,}" for t in ticks])
            ax.set_yticks(ticks, [f"{int(t):,}" for t in ticks])
        cbar = bottom.colorbar(image, ax=axes, pad=0.01, spacing="uniform", ticks=BANDS)
        cbar.ax.set_yticklabels([f"{b:,}" for b in BANDS])
        cbar.set_label("largest turn total at which optimal play rolls (points; grey: always bank)")
        bottom.suptitle(f"Two players, first to {goal:,} ({ending(opts)}), no standing triple:"
                        " roll up to the colour, then bank", fontsize=12)
        fig.suptitle(f"10,000 ({opts['variant']}): when to bank")


class Win(_TenThousand):
    name = "ten-thousand-win"
    summary = "10,000: the win chance at the start of a turn over both players' scores, optimal play by both"
    description = (
        "The probability that the player about to start a turn (six dice, turn total 0) wins the "
        "two-player race to the goal (the other getting a last turn, or the first to bank the goal winning, as "
        "the rules say) when both play optimally; over "
        "own score (x) and opponent score (y). White lines: 10%, 25%, 50% (an even game, thick), 75% and 90%."
    )
    options = (VARIANT, GOAL)
    examples = ("", "--out win.svg")
    gallery = ("",)
    height_in = 9.0

    def query(self, opts):
        return (
            "SELECT score, opponent, p_win\n"
            "FROM ten_thousand_duel_start\n"
            "WHERE rules = ? AND goal = ?\n"
            "ORDER BY score, opponent",
            (opts["variant"], opts["goal"]),
        )

    def arrays(self, names, rows, opts):
        """'p_win'[opponent / 50, score / 50]."""
        import numpy as np

        s, o, p = (names.index(n) for n in ("score", "opponent", "p_win"))
        cells = opts["goal"] // STEP
        grid = np.full((cells, cells), np.nan)
        for row in rows:
            grid[row[o] // STEP, row[s] // STEP] = row[p]
        return {"p_win": grid}

    def draw(self, fig, data, opts):
        import numpy as np
        from matplotlib.colors import Normalize

        grid, goal = data["p_win"], opts["goal"]
        ax = fig.subplots()
        image = heat_map(ax, grid, x0=0, y0=0, step=STEP, norm=Normalize(0, 1),
                         title="", xlabel="own score (points), about to start a turn", ylabel="opponent score (points)")
        ax.set_aspect("equal")
        axis = np.arange(grid.shape[0]) * STEP
        contour = ax.contour(axis, axis, grid, levels=[0.1, 0.25, 0.5, 0.75, 0.9], colors="white",
                             linewidths=[0.7, 0.7, 1.8, 0.7, 0.7])
        ax.clabel(contour, fmt=lambda v: f"{v:.0%}", fontsize=10)
        ticks = np.linspace(0, goal, 6)
        ax.set_xticks(ticks, [f"{int(t):,}" for t in ticks])
        ax.set_yticks(ticks, [f"{int(t):,}" for t in ticks])
        cbar = fig.colorbar(image, ax=ax, pad=0.02, format=lambda v, _: f"{v:.0%}")
        cbar.set_label("win probability of the player to move (both optimal)")
        fig.suptitle(f"10,000 ({opts['variant']}, first to {goal:,}, {ending(opts)}): who is winning at the start "
                     "of a turn")


FIGURES = (Thresholds(), Win())
