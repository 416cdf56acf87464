"""Great Rolled Ones figures: seed 002's roll/hold maps, the human policies' mistakes, komi.

A state is seed 002's (p, i, j, k, o): player to move, own score, opponent
score, turn total, 1s set aside.  The maps are drawn over (i, j), one panel
per player and number of 1s set aside, as in seed 002's "Optimal Play" figures.
"""

from __future__ import annotations

from dicebase.plots.base import OKABE_ITO, FigureSpec, Option, heat_map
from dicebase.errors import BadInput

GAME = "rolled_ones"

VARIANT = Option("variant", str, "Rule set, as in rolled_ones_variants (default: 'standard', seed 002's rules).", "NAME")
PLAYER = Option("player", int, "Only this player's panels: 1 (moves first each round) or 2 (default: both).")
ONES = Option("ones", int, "Only this number of 1s set aside, 0 .. ones_limit - 1 (default: every one).")

_ONES_WORDS = {0: "no 1s", 1: "one 1", 2: "two 1s"}


def _ones_title(o: int, dice: int) -> str:
    words = _ONES_WORDS.get(o, f"{o} 1s")
    return f"{words} set aside ({dice - o} dice to roll)"


class _Maps(FigureSpec):
    """Shared by the maps over (own score, opponent score): one panel per (player, 1s set aside)."""

    game = GAME

    def resolve(self, db, opts: dict) -> dict:
        v = db.rolled_ones.variant(opts.get("variant"))
        player, ones = opts.get("player"), opts.get("ones")
        if player is not None and player not in (1, 2):
            raise BadInput(f"--player must be 1 or 2, got {player}")
        if ones is not None and not 0 <= ones < v.ones_limit:
            raise BadInput(f"--ones must be 0..{v.ones_limit - 1} (1s set aside; {v.ones_limit} end the turn), got {ones}")
        return {
            **opts,
            "variant": v.name,
            "goal": v.goal,
            "dice": v.dice,
            "players": (player,) if player else (1, 2),
            "ones_values": (ones,) if ones is not None else tuple(range(v.ones_limit)),
        }

    def figure_height(self, opts: dict) -> float:
        rows, cols = len(opts["players"]), len(opts["ones_values"])
        panel = 10.4 / max(cols, 1.6)  # inches per square panel in a 12-inch row (room for the colour bar)
        return round(1.4 + rows * (panel + 0.55), 1)

    def caption_facts(self, opts: dict) -> str:
        return f"variant {opts['variant']} (goal {opts['goal']}, {opts['dice']} dice)"

    def _range_params(self, opts: dict) -> tuple:
        players, ones = opts["players"], opts["ones_values"]
        return (min(players), max(players), min(ones), max(ones))

    def _grids(self, names, rows, opts, value_columns: tuple[str, ...]) -> dict:
        """One (goal x goal) grid per value column and panel, indexed [panel_row, panel_col, j, i]; NaN = no row."""
        import numpy as np

        players, ones, goal = opts["players"], opts["ones_values"], opts["goal"]
        col = {n: names.index(n) for n in ("p", "o", "i", "j", *value_columns)}
        out = {}
        for value in value_columns:
            grid = np.full((len(players), len(ones), goal, goal), np.nan)
            for row in rows:
                v = row[col[value]]
                if v is not None:
                    grid[players.index(row[col["p"]]), ones.index(row[col["o"]]), row[col["j"]], row[col["i"]]] = v
            out[value] = grid
        return out

    def _panels(self, fig, opts):
        players, ones = opts["players"], opts["ones_values"]
        axes = fig.subplots(len(players), len(ones), squeeze=False, sharex=True, sharey=True)
        for r, p in enumerate(players):
            for c, o in enumerate(ones):
                yield axes, r, c, p, o, axes[r, c]


class Strategy(_Maps):
    name = "rolled-ones-strategy"
    summary = "Great Rolled Ones: the largest turn total at which optimal play still rolls, over both scores (seed 002)"
    description = (
        "Seed 002's 'Optimal Play' figures as heat maps: for each player and number of 1s set aside, "
        "the largest turn total k at which optimal play rolls, over the mover's score i (x) and the "
        "opponent's score j (y). Below that total optimal play rolls (with few exceptions); at and "
        "above the next reachable total it holds. Hatched regions: optimal play also holds at some "
        "smaller total there (its roll region is not one interval: it holds early, and near the goal "
        "rolls again to reach it). Grey cells: it holds at every reachable turn total."
    )
    options = (PLAYER, ONES, VARIANT)
    examples = ("", "--player 1 --ones 0 --out p1-five-dice.svg")
    gallery = ("",)

    def query(self, opts):
        return (
            "SELECT p, o, i, j,\n"
            "       MAX(CASE WHEN best = 'roll' THEN k END) AS last_roll_k,\n"
            "       MIN(CASE WHEN best = 'hold' THEN k END) AS first_hold_k\n"
            "FROM rolled_ones_states\n"
            "WHERE variant = ? AND p BETWEEN ? AND ? AND o BETWEEN ? AND ?\n"
            "GROUP BY p, o, i, j\n"
            "ORDER BY p, o, i, j",
            (opts["variant"], *self._range_params(opts)),
        )

    def arrays(self, names, rows, opts):
        import numpy as np

        grids = self._grids(names, rows, opts, ("last_roll_k", "first_hold_k"))
        last_roll, first_hold = grids["last_roll_k"], grids["first_hold_k"]
        with np.errstate(invalid="ignore"):
            split = first_hold < last_roll  # NaN compares False: no hold stored means no split
        return {"last_roll_k": last_roll, "split": split}

    def draw(self, fig, data, opts):
        import numpy as np
        from matplotlib.colors import Normalize
        from matplotlib.patches import Patch

        last_roll = data["last_roll_k"]
        top = 5 * np.ceil(np.nanmax(last_roll) / 5)
        norm = Normalize(0, top)
        goal = opts["goal"]
        image = None
        for axes, r, c, p, o, ax in self._panels(fig, opts):
            image = heat_map(
                ax, last_roll[r, c], x0=0, y0=0, step=1, norm=norm,
                title=f"Player {p}, {_ones_title(o, opts['dice'])}",
                xlabel="own score i (points)" if r == last_roll.shape[0] - 1 else "",
                ylabel="opponent score j (points)" if c == 0 else "",
            )
            ax.set_facecolor("#dddddd")
            split = data["split"][r, c]
            if split.any():
                ax.contourf(split.astype(float), levels=[0.5, 1.5], colors="none", hatches=["///"],
                            extent=(0, goal - 1, 0, goal - 1))
                ax.contour(split.astype(float), levels=[0.5], colors="white", linewidths=0.8,
                           extent=(0, goal - 1, 0, goal - 1))
            ax.set_xticks(range(0, goal, 10))
            ax.set_yticks(range(0, goal, 10))
        cbar = fig.colorbar(image, ax=axes, shrink=0.9, pad=0.02)
        cbar.set_label("largest turn total k at which optimal play rolls (points)")
        fig.legend(
            handles=[
                Patch(facecolor="#888888", edgecolor="white", hatch="///",
                      label="hatched: also holds at a smaller total, rolls again nearer the goal"),
                Patch(facecolor="#dddddd", edgecolor="#999999", label="grey: holds at every reachable turn total"),
            ],
            loc="outside lower center", ncols=2,
        )
        fig.suptitle("Great Rolled Ones: how far optimal play pushes its luck (roll up to the colour, then hold)")


class PolicyErrors(_Maps):
    name = "rolled-ones-policy-errors"
    summary = "Great Rolled Ones: where a human policy's roll/hold differs from optimal play, and what it costs"
    description = (
        "For one of seed 002's four human-playable policies (Algorithms 1-4), the states where its "
        "action differs from the optimal one, over the mover's score i (x) and the opponent's score j "
        "(y), one panel per player and number of 1s set aside. A cell's colour is the largest win "
        "probability lost there at any turn total (optimal play afterwards), on a log scale; grey "
        "cells: the policy plays optimally at every turn total."
    )
    options = (Option("policy", str, "Human policy: roll_4_or_5_dice, fixed_hold_at, simple_ones_cases or "
                                     "keep_pace_end_race (dashes allowed).", "NAME", required=True),
               PLAYER, ONES, VARIANT)
    examples = ("--policy simple-ones-cases", "--policy fixed-hold-at --player 1 --ones 1")
    gallery = ("--policy simple-ones-cases", "--policy keep-pace-end-race")

    def resolve(self, db, opts):
        from dicebase.query.rolled_ones import policy_name

        return {**super().resolve(db, opts), "policy": policy_name(opts["policy"])}

    def caption_facts(self, opts):
        return f"{super().caption_facts(opts)}, policy {opts['policy']}"

    def query(self, opts):
        return (
            "SELECT d.p, d.o, d.i, d.j, MAX(d.cost) AS max_cost, COUNT(*) AS states, MIN(t.title) AS title\n"
            "FROM rolled_ones_disagreements d\n"
            "JOIN rolled_ones_policies t ON t.variant = d.variant AND t.policy = d.policy\n"
            "WHERE d.variant = ? AND d.policy = ? AND d.p BETWEEN ? AND ? AND d.o BETWEEN ? AND ?\n"
            "GROUP BY d.p, d.o, d.i, d.j\n"
            "ORDER BY d.p, d.o, d.i, d.j",
            (opts["variant"], opts["policy"], *self._range_params(opts)),
        )

    def arrays(self, names, rows, opts):
        return {**self._grids(names, rows, opts, ("max_cost", "states")), "title": rows[0][names.index("title")]}

    def draw(self, fig, data, opts):
        import numpy as np
        from matplotlib.colors import LogNorm
        from matplotlib.patches import Patch

        cost = data["max_cost"]
        floor = 1e-4
        norm = LogNorm(floor, max(float(np.nanmax(cost)), 2 * floor), clip=True)
        goal = opts["goal"]
        image = None
        for axes, r, c, p, o, ax in self._panels(fig, opts):
            ax.set_facecolor("#dddddd")
            image = heat_map(
                ax, cost[r, c], x0=0, y0=0, step=1, norm=norm,
                title=f"Player {p}, {_ones_title(o, opts['dice'])}",
                xlabel="own score i (points)" if r == cost.shape[0] - 1 else "",
                ylabel="opponent score j (points)" if c == 0 else "",
            )
            ax.set_xticks(range(0, goal, 10))
            ax.set_yticks(range(0, goal, 10))
        cbar = fig.colorbar(image, ax=axes, shrink=0.9, pad=0.02, extend="min")
        cbar.set_label("largest win probability lost at one turn total (probability, log scale)")
        fig.legend(handles=[Patch(facecolor="#dddddd", edgecolor="#999999", label="same action as optimal play")],
                   loc="outside lower center")
        fig.suptitle(f"Great Rolled Ones: where seed 002's policy \"{data['title']}\"\n"
                     "departs from optimal play, and what it costs")


class Komi(FigureSpec):
    name = "rolled-ones-komi"
    game = GAME
    summary = "Great Rolled Ones: player 1's optimal win rate against compensation points (komi), fair komi marked"
    description = (
        "Both players' win probability under optimal play when player 1 starts with c compensation "
        "points (komi), c = 0 .. komi_max; the fair komi (player 1's win rate closest to 0.5) is "
        "marked. Seed 002: 0.4495 without komi, 3 points fair (0.4955)."
    )
    options = (VARIANT,)
    examples = ("", "--out komi.svg")
    height_in = 6.0

    def resolve(self, db, opts):
        v = db.rolled_ones.variant(opts.get("variant"))
        return {"variant": v.name, "goal": v.goal, "dice": v.dice}

    def caption_facts(self, opts):
        return f"variant {opts['variant']} (goal {opts['goal']}, {opts['dice']} dice)"

    def query(self, opts):
        return (
            "SELECT komi, p1_win, p2_win,\n"
            "       CASE WHEN komi IN (SELECT komi FROM rolled_ones_fair_komi WHERE variant = ?) THEN 1 ELSE 0 END AS fair\n"
            "FROM rolled_ones_komi\n"
            "WHERE variant = ?\n"
            "ORDER BY komi",
            (opts["variant"], opts["variant"]),
        )

    def arrays(self, names, rows, opts):
        import numpy as np

        cols = list(zip(*rows))
        komi, p1, p2, fair = (np.asarray(cols[names.index(n)]) for n in ("komi", "p1_win", "p2_win", "fair"))
        return {"komi": komi.astype(int), "p1_win": p1.astype(float), "p2_win": p2.astype(float),
                "fair": fair.astype(bool)}

    def draw(self, fig, data, opts):
        from matplotlib.ticker import PercentFormatter

        ax = fig.subplots()
        komi = data["komi"]
        ax.plot(komi, data["p1_win"], "o-", color=OKABE_ITO[0], lw=2, label="player 1 (moves first)")
        ax.plot(komi, data["p2_win"], "s--", color=OKABE_ITO[1], lw=2, label="player 2")
        ax.axhline(0.5, color="#555555", lw=1, ls=":", label="an even game (0.5)")
        fair = data["fair"]
        ax.plot(komi[fair], data["p1_win"][fair], "*", ms=20, color=OKABE_ITO[5], label="fair komi", zorder=5)
        for c, p in zip(komi[fair], data["p1_win"][fair]):
            ax.annotate(f"fair komi {c}: player 1 wins {p:.4f}", (c, p), xytext=(-30, -95), ha="right",
                        textcoords="offset points", fontsize=11, color=OKABE_ITO[5],
                        arrowprops={"arrowstyle": "-", "color": OKABE_ITO[5]})
        ax.set_xticks(komi)
        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        ax.set_xlabel("komi: points player 1 starts with (points)")
        ax.set_ylabel("win probability under optimal play")
        ax.grid(alpha=0.3)
        ax.legend(loc="best")
        fig.suptitle("Great Rolled Ones: compensation points (komi) for player 1 and both players' win rates")


class SeatAdvantage(FigureSpec):
    name = "seat-advantage"
    game = GAME
    summary = "Both games: each seat's win probability minus 1/N from the start, by number of players N"
    description = (
        "Each seat's advantage (win probability from the start minus an even share 1/N, every seat playing "
        "optimally) against the number of players, one panel per game: Great Rolled Ones (the variant's N-player "
        "blocks, rolled_ones_seat_wins) and 10,000 (every (rules, goal) block of ten_thousand_seat_wins, when "
        "10,000's N-player tables are built). New, unpublished results (docs/n_players.md)."
    )
    options = (VARIANT,)
    examples = ("", "--out seats.svg")
    height_in = 6.0

    def resolve(self, db, opts):
        from dicebase.query.metadata import has_relation

        v = db.rolled_ones.variant(opts.get("variant"))
        return {"variant": v.name, "goal": v.goal, "ten_thousand": has_relation(db, "ten_thousand_seat_wins")}

    def caption_facts(self, opts):
        return f"Great Rolled Ones variant {opts['variant']} (goal {opts['goal']})"

    def query(self, opts):
        sql = ("SELECT 'Great Rolled Ones' AS game, w.variant AS rules, v.goal AS goal, w.players, w.seat, w.p_win, "
               "w.advantage\n"
               "FROM rolled_ones_seat_wins w JOIN rolled_ones_variants v ON v.variant = w.variant\n"
               "WHERE w.variant = ?")
        if opts["ten_thousand"]:
            sql += ("\nUNION ALL\n"
                    "SELECT '10,000' AS game, rules, goal, players, seat, p_win, advantage\n"
                    "FROM ten_thousand_seat_wins")
        return sql + "\nORDER BY game DESC, rules, goal, players, seat", (opts["variant"],)

    def arrays(self, names, rows, opts):
        """{"blocks": rows (game, rules, goal), and per block the arrays "players", "seat", "advantage"}."""
        import numpy as np

        col = {n: names.index(n) for n in ("game", "rules", "goal", "players", "seat", "advantage")}
        blocks: dict = {}
        for row in rows:
            key = (row[col["game"]], row[col["rules"]], int(row[col["goal"]]))
            blocks.setdefault(key, []).append((row[col["players"]], row[col["seat"]], row[col["advantage"]]))
        return {"blocks": np.array(list(blocks), dtype=object).reshape(-1, 3),
                "players": [np.array([r[0] for r in b], dtype=int) for b in blocks.values()],
                "seat": [np.array([r[1] for r in b], dtype=int) for b in blocks.values()],
                "advantage": [np.array([r[2] for r in b], dtype=float) for b in blocks.values()]}

    def draw(self, fig, data, opts):
        import numpy as np

        blocks = data["blocks"]
        axes = fig.subplots(1, len(blocks), squeeze=False, sharey=True)[0]
        markers = "osD^v"
        for ax, (game, rules, goal), players, seat, adv in zip(axes, blocks, data["players"], data["seat"],
                                                                 data["advantage"]):
            for s in sorted(set(seat.tolist())):  # markers only: seat 2 is the last of 2 but a middle seat of 3
                at = seat == s
                ax.plot(players[at], adv[at], marker=markers[(s - 1) % len(markers)], ms=10, ls="none",
                        color=OKABE_ITO[(s - 1) % len(OKABE_ITO)], label=f"seat {s}")
            first, last = seat == 1, seat == players
            ax.plot(players[first], adv[first], ls="--", lw=1.2, color=OKABE_ITO[0], label="first seat, by N")
            ax.plot(players[last], adv[last], ls="-", lw=1.2, color="#000000", label="last seat, by N")
            ax.axhline(0.0, color="#555555", lw=1, ls=":")
            ax.set_xticks(np.unique(players))
            ax.set_xlabel("number of players N")
            ax.set_title(f"{game} ({rules}, goal {goal:,})", fontsize=12)
            ax.grid(alpha=0.3)
            ax.legend(loc="best")
        axes[0].set_ylabel("win probability - 1/N (probability)")
        fig.suptitle("Seat advantage by number of players, every seat playing optimally (new results)")


FIGURES = (Strategy(), PolicyErrors(), Komi(), SeatAdvantage())
