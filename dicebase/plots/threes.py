"""Threes figures: the last player's chances (seed 000), seats (seed 003), a first-roll keep chart."""

from __future__ import annotations

from dicebase.plots.base import OKABE_ITO, SEQUENTIAL, FigureSpec, Option, choose
from dicebase.errors import BadInput, NotInDatabase

GAME = "threes"
TIE_RULES = ("shared", "strict")

VARIANT = Option("variant", str, "Rule variant: classic (seed 003) or reroll (seed 000's take-two). Default classic.",
                 "NAME")
TIES = Option("ties", str, "Who wins a tie for the lowest score: shared (every tied player, default) or strict (nobody).",
              "RULE")


class _Threes(FigureSpec):
    game = GAME

    def resolve(self, db, opts: dict) -> dict:
        v = db.threes.variant(opts.get("variant", "classic"))
        ties = choose(opts.get("ties", "shared"), TIE_RULES, "--ties")
        return {**opts, "variant": v.name, "ties": ties, "dice": v.dice, "no_target": v.no_target,
                "allow_reroll": v.allow_reroll}

    def caption_facts(self, opts: dict) -> str:
        return f"variant {opts['variant']}, ties {opts['ties']}"


class Chances(_Threes):
    name = "threes-chances"
    summary = "Threes: the last player's chance to win against the best score so far, one curve per dice count (seed 000)"
    description = (
        "Seed 000's 'rolling second' tables as curves: the last player's probability of winning "
        "with a fresh turn of 1-5 dice (score 0 so far), against the best final score so far, under "
        "optimal play. Dashed (reroll variant): the roll right after a re-roll, which must keep two."
    )
    options = (VARIANT, TIES)
    examples = ("", "--variant reroll --ties strict --out chances.svg")
    gallery = ("", "--variant reroll")
    height_in = 7.0

    def query(self, opts):
        return (
            "SELECT dice_left, must_keep_two, target, p_win\n"
            "FROM threes_chances\n"
            "WHERE variant = ? AND ties = ?\n"
            "ORDER BY dice_left, must_keep_two, target",
            (opts["variant"], opts["ties"]),
        )

    def arrays(self, names, rows, opts):
        """One curve per (dice_left, must_keep_two): {'curves': [(dice, keep_two, targets, p_win)]}."""
        import numpy as np

        d, m, t, p = (names.index(n) for n in ("dice_left", "must_keep_two", "target", "p_win"))
        curves: dict[tuple[int, bool], list] = {}
        for row in rows:
            curves.setdefault((int(row[d]), bool(row[m])), []).append((row[t], row[p]))
        return {
            "curves": [
                (dice, keep_two, np.array([x for x, _ in pts], dtype=int), np.array([y for _, y in pts], dtype=float))
                for (dice, keep_two), pts in curves.items()
            ]
        }

    def draw(self, fig, data, opts):
        from matplotlib.ticker import MultipleLocator, PercentFormatter

        ax = fig.subplots()
        for dice, keep_two, target, p_win in data["curves"]:
            label = f"{dice} {'die' if dice == 1 else 'dice'}" + (", must keep two (after a re-roll)" if keep_two else "")
            ax.plot(target, p_win, ls="--" if keep_two else "-", marker=None if keep_two else "o", ms=3.5,
                    color=OKABE_ITO[(dice - 1) % len(OKABE_ITO)], lw=1.6 if keep_two else 2.2, label=label)
        ax.set_xlabel("best final score so far, to beat (points)")
        ax.set_ylabel("last player's win probability")
        ax.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        ax.xaxis.set_major_locator(MultipleLocator(2))
        undecided = [t[p < 0.9995] for _, _, t, p in data["curves"]]
        ax.set_xlim(0, max(int(u.max()) if len(u) else 0 for u in undecided) + 2)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        tie_words = "a tie wins" if opts["ties"] == "shared" else "a tie loses"
        ax.legend(title=f"dice to roll, score 0 so far ({tie_words})", loc="lower right",
                  ncols=2 if opts["allow_reroll"] else 1)
        fig.suptitle(f"Threes ({opts['variant']}): the last player's chance to beat the best score so far")


class Seats(_Threes):
    name = "threes-seats"
    summary = "Threes: each seat's win chance in rounds of 2-12 players, all playing optimally (seed 003's ~2% a spot)"
    description = (
        "Left: every seat's probability of winning a round of N players when everyone plays "
        "optimally. Right: the same as an edge over the first seat, p_win(seat) / p_win(seat 1) - 1; "
        "seed 003 observed that each spot later in turn order is worth about 2%."
    )
    options = (VARIANT, TIES)
    examples = ("", "--variant reroll --ties strict")
    gallery = ("", "--ties strict")
    height_in = 6.5

    def query(self, opts):
        return (
            "SELECT s.players, s.seat, s.p_win, s.p_win / f.p_win - 1 AS edge_over_seat_1\n"
            "FROM threes_seats s\n"
            "JOIN threes_seats f ON f.variant = s.variant AND f.ties = s.ties AND f.players = s.players AND f.seat = 1\n"
            "WHERE s.variant = ? AND s.ties = ?\n"
            "ORDER BY s.players, s.seat",
            (opts["variant"], opts["ties"]),
        )

    def arrays(self, names, rows, opts):
        """One line per round size: {'lines': [(players, seats, p_win, edge)]}."""
        import numpy as np

        n, s, p, e = (names.index(c) for c in ("players", "seat", "p_win", "edge_over_seat_1"))
        lines: dict[int, list] = {}
        for row in rows:
            lines.setdefault(int(row[n]), []).append((row[s], row[p], row[e]))
        return {
            "lines": [
                (players, np.array([r[0] for r in pts], dtype=int), np.array([r[1] for r in pts], dtype=float),
                 np.array([r[2] for r in pts], dtype=float))
                for players, pts in lines.items()
            ]
        }

    def draw(self, fig, data, opts):
        import matplotlib
        from matplotlib.colors import Normalize
        from matplotlib.ticker import MaxNLocator, MultipleLocator, PercentFormatter

        left, right = fig.subplots(1, 2)
        sizes = [players for players, *_ in data["lines"]]
        norm = Normalize(min(sizes), max(sizes))
        cmap = matplotlib.colormaps[SEQUENTIAL]
        for players, seats, p_win, edge in data["lines"]:
            colour = cmap(0.92 * norm(players))
            left.plot(seats, p_win, "o-", ms=3.5, color=colour, lw=1.8)
            left.annotate(f"{players}", (seats[-1], p_win[-1]), xytext=(4, 0), textcoords="offset points",
                          va="center", fontsize=9, color=colour)
            right.plot(seats, edge, "o-", ms=3.5, color=colour, lw=1.8)
            right.annotate(f"{players}", (seats[-1], edge[-1]), xytext=(4, 0), textcoords="offset points",
                           va="center", fontsize=9, color=colour)
        for ax in (left, right):
            ax.set_xlim(0.5, max(sizes) + 0.9)
            ax.set_xlabel("seat in turn order (1 = plays first)")
            ax.xaxis.set_major_locator(MultipleLocator(1))
            ax.grid(alpha=0.3)
        left.set_ylabel("win probability of the seat")
        left.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        left.set_title("Win chance by seat (line label: players in the round)")
        right.set_ylabel("edge over seat 1, p_win(seat) / p_win(seat 1) - 1")
        right.yaxis.set_major_locator(MaxNLocator(steps=[1, 2, 5, 10]))  # whole percents: 2%, 4%, ...
        right.yaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
        right.set_title("Relative edge of playing later")
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=matplotlib.colors.ListedColormap(
            [cmap(0.92 * norm(n)) for n in range(min(sizes), max(sizes) + 1)]))
        sm.set_clim(min(sizes) - 0.5, max(sizes) + 0.5)
        cbar = fig.colorbar(sm, ax=[left, right], pad=0.01, ticks=range(min(sizes), max(sizes) + 1))
        cbar.set_label("players in the round, N")
        fig.suptitle(f"Threes ({opts['variant']}, ties {opts['ties']}): win chance by seat, rounds of 2 to "
                     f"{max(sizes)} players, everyone optimal")


#: Cell colours by dice kept, light enough for black text: a pale grey for the common single keep,
#: then Okabe & Ito hues (colour-blind safe), lightened.
KEEP_COLOURS = ("#F5E96B", "#EEEEEE", "#8CCBF0", "#5CC7A6", "#F0BE52", "#DDA3C4")


class KeepChart(_Threes):
    name = "threes-keep-chart"
    summary = "Threes: the best keep for every first roll of five dice, as a chart to print"
    description = (
        "Every roll of a fresh turn (all five dice) with the optimal keep: the dice left of the bar "
        "are kept (always the lowest-worth ones; a 3 counts zero), the rest are re-rolled. Without "
        "--players-after the keep minimises the expected final score (seed 000's 'rolling first'); "
        "with it, it maximises the chance to win when M players follow and nobody has finished."
    )
    options = (VARIANT, Option("players_after", int, "Play to win with M players still to play after you "
                                                      "(default: minimise the expected score).", "M"), TIES)
    examples = ("", "--players-after 3 --out keep-chart-4-players.pdf")
    gallery = ("", "--players-after 3")
    height_in = 12.0

    def resolve(self, db, opts):
        opts = super().resolve(db, opts)
        m = opts.get("players_after")
        if m is None:
            return {**opts, "players_after": None}
        (top,) = db.fetchone(
            "SELECT MAX(players_after) FROM threes_win_policy WHERE variant = ? AND ties = ?",
            (opts["variant"], opts["ties"]),
        )
        if top is None:
            raise NotInDatabase(f"no win tables for variant {opts['variant']}, ties {opts['ties']}; "
                                f"see what the database holds with: dicebase info")
        if not 1 <= m <= top:
            raise BadInput(f"--players-after must be 1..{top} (this database holds rounds of up to {top + 1} "
                           f"players; the first roll of the last player needs a score to beat), got {m}")
        return opts

    def caption_facts(self, opts):
        base = f"variant {opts['variant']}"
        return base if opts["players_after"] is None else f"{base}, ties {opts['ties']}"

    def query(self, opts):
        order = "ORDER BY replace(d.roll, '3', '0')"  # keep order: a 3 (worth 0) sorts first
        if opts["players_after"] is None:
            return (
                "SELECT d.roll, d.keep\n"
                "FROM threes_expected_decisions d\n"
                "JOIN threes_variants v ON v.variant = d.variant\n"
                "WHERE d.variant = ? AND d.dice_left = v.dice AND NOT d.must_keep_two\n" + order,
                (opts["variant"],),
            )
        return (
            "SELECT d.roll, d.keep\n"
            "FROM threes_win_decisions d\n"
            "JOIN threes_variants v ON v.variant = d.variant\n"
            "WHERE d.variant = ? AND d.ties = ? AND d.players_after = ? AND d.to_beat = v.no_target\n"
            "  AND d.dice_left = v.dice AND NOT d.must_keep_two AND d.score = 0\n" + order,
            (opts["variant"], opts["ties"], opts["players_after"]),
        )

    def arrays(self, names, rows, opts):
        """{'rolls': faces in keep order as text, 'keep': dice to keep}, in chart order."""
        import numpy as np

        r, k = names.index("roll"), names.index("keep")
        return {"rolls": np.array([row[r] for row in rows]), "keep": np.array([row[k] for row in rows], dtype=int)}

    COLUMNS = 12

    def draw(self, fig, data, opts):
        import math

        from matplotlib.patches import Patch, Rectangle

        rolls, keep = data["rolls"], data["keep"]
        rows_per_column = math.ceil(len(rolls) / self.COLUMNS)
        ax = fig.subplots()
        ax.set_xlim(0, self.COLUMNS)
        ax.set_ylim(rows_per_column, 0)
        ax.axis("off")
        dice = opts["dice"]
        shade = {n: KEEP_COLOURS[min(n, len(KEEP_COLOURS) - 1)] for n in range(dice + 1)}
        for index, (roll, n) in enumerate(zip(rolls, keep)):
            col, row = divmod(index, rows_per_column)
            ax.add_patch(Rectangle((col + 0.03, row + 0.06), 0.94, 0.88, facecolor=shade[n], edgecolor="white"))
            faces = roll.split()
            text = " ".join(faces[:n]) + " | " + " ".join(faces[n:]) if n < len(faces) else " ".join(faces)
            if n == 0:
                text = "| " + " ".join(faces)
            ax.text(col + 0.5, row + 0.5, text.strip(), ha="center", va="center", fontsize=10,
                    family="monospace", color="black")
        names = {0: "re-roll all five", dice: f"keep all {dice}"}
        handles = [Patch(facecolor=shade[n], label=names.get(n, f"keep {n}"))
                   for n in sorted(set(int(x) for x in keep))]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), title="dice kept (left of the bar)")
        if opts["players_after"] is None:
            goal = "lowest expected final score"
        else:
            m = opts["players_after"]
            goal = f"best chance to win, {m} player{'s' if m != 1 else ''} after you, ties {opts['ties']}"
        fig.suptitle(f"Threes ({opts['variant']}): what to keep from your first roll ({goal})\n"
                     f"faces in keep order, a 3 counts zero; keep the dice left of the bar, re-roll the rest",
                     fontsize=14)


FIGURES = (Chances(), Seats(), KeepChart())
