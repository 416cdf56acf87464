"""Pig figures (issue 31): the optimal roll/hold boundary of two players.

Neller and Presser ("Optimal Play of the Dice Game Pig", 2004) draw it as a surface over (own score, opponent
score, turn total).  Here it reads on a phone as a heat map over (own score, opponent score) of the turn total at
which optimal play holds, beside slices of that surface: the hold-at total over the own score for a few opponent
scores.

Pig stores only its turn starts (``pig_turn_starts``); a mid-turn decision is computed from them by the one
definition of Pig's turn, :func:`dicebase.rules.pig_turn.turn`, as every ``dicebase pig best`` answer is.  So
this figure's query reads the turn starts, and its arrays step runs that turn function on them (the lookups' own
arithmetic, no second definition) before placing the decisions.
"""

from __future__ import annotations

from dicebase.plots.base import OKABE_ITO, FigureSpec, Option, heat_map

GAME = "pig"

VARIANT = Option("variant", str, "Rule set, as in pig_variants (default: 'pig' when built, else the first built for "
                 "two players).", "NAME")


class Boundary(FigureSpec):
    name = "pig-boundary"
    game = GAME
    summary = "Pig: the turn total at which optimal play holds, over both scores (Neller and Presser 2004)"
    description = (
        "Two players, the mover's view (both seats play the same way): left, over the mover's score i (x) and the "
        "opponent's score j (y), the smallest turn total at which optimal play holds; it rolls below it. Grey: it "
        "never holds (it rolls on until it reaches the goal or busts). Hatched: past that total it would roll again "
        "at some larger one, nearer the goal (the roll region is not one interval; its own play never gets there). Right: slices of that surface, the hold-at total over "
        "the mover's score for a few opponent scores. Decisions are computed from the stored turn starts by the "
        "lookups' turn function (dicebase pig best)."
    )
    options = (VARIANT,)
    examples = ("", "--variant piglet")
    gallery = ("",)
    height_in = 6.4

    def resolve(self, db, opts: dict) -> dict:
        q = db.pig
        name = opts.get("variant")
        two = [v for v, n in q.built if n == 2]
        if name is None and two:  # 'pig' when built, else the first rule set built for two players
            name = "pig" if "pig" in two else two[0]
        v = q.variant(name)
        q.seats(2, v.name)  # NotInDatabase, with the command that adds them, where two players are not built
        return {**opts, "variant": v.name, "goal": v.goal, "rules": v.rules,
                "tie_tolerance": q.built[(v.name, 2)].tie_tolerance}

    def caption_facts(self, opts: dict) -> str:
        return f"variant {opts['variant']} (goal {opts['goal']}), 2 players"

    def query(self, opts: dict) -> tuple[str, tuple]:
        return (
            "SELECT score1, score2, p_win1\n"
            "FROM pig_turn_starts\n"
            "WHERE variant = ? AND players = 2 AND seat = 2\n"
            "ORDER BY score1, score2",
            (opts["variant"],),
        )

    def arrays(self, names: list[str], rows: list[tuple], opts: dict) -> dict:
        """``hold_at[j, i]`` (NaN: never holds), ``split[j, i]``: from seat 1's decisions at (i, j), every turn
        total, by :func:`dicebase.rules.pig_turn.turn` over seat 2's stored turn starts (seat 1's chance there:
        what a bust leaves, and every hold)."""
        import numpy as np

        from dicebase.rules.pig import reachable
        from dicebase.rules.pig_turn import turn

        r, G, tol = opts["rules"], opts["goal"], opts["tie_tolerance"]
        after = np.zeros((G, G))  # after[i, j]: seat 1's chance at seat 2's turn start, seat 1 with i, seat 2 with j
        for i, j, p in rows:
            after[i, j] = p
        hold_at = np.full((G, G), np.nan)
        split = np.zeros((G, G), dtype=bool)
        A, c, dec, rv, ivl, mix = [[0.0, 0.0] for _ in range(G)], [0.0] * G, [0.0] * G, [0.0, 0.0], [0.0, 0.0], [-1.0] * G
        for i in range(G):
            room = G - i
            totals = sorted(reachable(r, room - 1) - {0})
            for j in range(G):
                H = [[0.0, 0.0]] + [[after[i + k, j], 1.0 - after[i + k, j]] for k in range(1, room)]
                turn(0, 2, room, 1, after[i, j], tol, r.p_face, r.p_bust, r.gains, H, mix, rv, A, c, dec, ivl)
                holds = [k for k in totals if dec[k] == 0.0]
                if holds:
                    hold_at[j, i] = holds[0]
                    split[j, i] = any(dec[k] == 1.0 for k in totals if k > holds[0])
        return {"hold_at": hold_at, "split": split}

    def draw(self, fig, data: dict, opts: dict) -> None:
        import numpy as np
        from matplotlib.colors import Normalize
        from matplotlib.patches import Patch

        G, hold_at = opts["goal"], data["hold_at"]
        left, right = fig.subplots(1, 2, width_ratios=(1.15, 1))
        top = max(1.0, float(np.nanmax(hold_at)) if np.isfinite(hold_at).any() else 1.0)
        image = heat_map(left, hold_at, x0=0, y0=0, step=1, norm=Normalize(0, top),
                         title="Turn total at which optimal play holds", xlabel="own score i (points)",
                         ylabel="opponent score j (points)")
        left.set_facecolor("#dddddd")
        if data["split"].any():
            left.contourf(data["split"].astype(float), levels=[0.5, 1.5], colors="none", hatches=["///"],
                          extent=(0, G - 1, 0, G - 1))
        fig.colorbar(image, ax=left, shrink=0.9, pad=0.02).set_label("hold at this turn total (points)")
        picks = sorted({min(G - 1, round(G * f)) for f in (0, 0.25, 0.5, 0.75, 0.9)})
        own = np.arange(G)
        for n, j in enumerate(picks):
            never = not np.isfinite(hold_at[j]).any()
            right.step(own, hold_at[j], where="mid", color=OKABE_ITO[n % len(OKABE_ITO)],
                       label=f"opponent at {j}" + (": never holds" if never else ""))
        right.plot(own, G - own, color="#999999", linestyle=":", label="the goal (i + k = goal)")
        right.set_xlim(0, G - 1)
        right.set_ylim(0, max(top, 1.0) * 1.05)
        right.set_title("Slices: hold-at total over own score")
        right.set_xlabel("own score i (points)")
        right.set_ylabel("hold at turn total (points)")
        right.grid(alpha=0.3)
        right.legend(loc="upper right")
        fig.legend(handles=[
            Patch(facecolor="#dddddd", edgecolor="#999999", label="grey: never holds (rolls to the goal)"),
            Patch(facecolor="#888888", edgecolor="white", hatch="///",
                  label="hatched: past that total it would roll again nearer the goal (its own play never gets there)"),
        ], loc="outside lower center", ncols=2)
        fig.suptitle(f"Pig (goal {G}): roll below the colour, then hold (Neller and Presser 2004)")


FIGURES = (Boundary(),)
