"""10,000 bots that ignore the banked scores: seed 004's heuristic and bank-at-threshold players.

Both keep what seed 004 keeps ("you'll score the maximum number of dice": the keep using the
most dice, then the most points; ``ten_thousand_keeps.max_dice``) and differ in when they bank:

- ``seed004``: seed 004's rule, roll while the next roll's expected points exceed turn total x
  P(farkle); it banks from ``ten_thousand_seed004_rule.bank_from`` of the dice about to be rolled
  and the standing triple;
- ``bank-T``: bank once the turn total reaches T points, whatever the dice (T a multiple of the
  unit, 50); ``bank-T6-T5-T4-T3-T2-T1``: a threshold per number of dice about to be rolled.

In the last turn (the opponent has banked at or above the goal) every bot rolls until it is
ahead, then banks, as the build plays it (``ten_thousand_exceed``, policy ``seed004``).

Exact: the turn's distribution of banked points is pushed forward over (turn total, dice,
triple) once (it does not depend on the scores); the game is solved level by level of the score
sum, the cycle of two farkles in a row as a 2x2 system per score pair; both players get a last
turn (rule ``others_one_turn_must_exceed``).  Rule sets with an opening minimum are refused.
"""

from __future__ import annotations

import re
from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays
from dicebase.errors import BadInput

GAME = "ten-thousand"
BOTS = {
    "optimal": "optimal play (ten_thousand_duel; keeps by the one-step lookahead); small goals only (1,500 at most)",
    "seed004": "seed 004's heuristic: roll while the next roll's EV exceeds turn total x P(farkle); max-dice keeps",
    "bank-300": "bank at a turn total of 300 or more (any bank-T, T a multiple of 50); max-dice keeps",
    "bank-1000-500-400-350-300-250": "a threshold per number of dice to roll (6, 5, 4, 3, 2, 1); max-dice keeps",
}
PATTERN = re.compile(r"^bank-(\d+)(?:-(\d+)-(\d+)-(\d+)-(\d+)-(\d+))?$")
MAX_THRESHOLD = 20_000


#: Largest table of the optimal bot's keep choices (score pairs x turn totals x rolls) held in memory.
MAX_OPTIMAL_CELLS = 120_000_000


def is_bot(name: str) -> bool:
    return name in ("optimal", "seed004") or bool(PATTERN.match(str(name)))


class TenThousand:
    """The 10,000 bots of one rule set of an open database (two players)."""

    def __init__(self, db, rules: str | None = None):
        self.db = db
        sets = db.ten_thousand.rule_sets()
        name = rules if rules is not None else ("ten-thousand" if "ten-thousand" in sets else next(iter(sets)))
        if name not in sets:
            raise BadInput(f"unknown rule set {name!r}; this database has: {', '.join(sets)}")
        self.rule = sets[name]
        self.variant_name = name
        self.unit = "game"
        if self.rule.get("opening_minimum", 0) or any(
                self.rule.get(k) for k in ("farkle_penalty", "penalty", "three_farkles")):
            raise BadInput(f"the 10,000 bots play rule sets without an opening minimum or farkle penalty; "
                           f"{name!r} has one")
        self.goal = db.ten_thousand.goal(name)
        self.u = int(self.rule["unit"])
        self.G = self.goal // self.u
        self.start = int(self.rule["dice"])

    @cached_property
    def classes(self) -> list[tuple[int, int]]:
        rows = self.db.fetchall("SELECT dice, triple FROM ten_thousand_classes WHERE rules = ? ORDER BY dice DESC, "
                                "triple", (self.variant_name,))
        return [(int(d), int(t)) for d, t in rows] + [(0, 0)]  # (0, 0): every die scored, no hot dice: bank

    @cached_property
    def index(self) -> dict[tuple[int, int], int]:
        return {c: n for n, c in enumerate(self.classes)}

    @cached_property
    def rolls(self) -> dict[str, np.ndarray]:
        """Every roll of every class, concatenated by class: probability, farkle, and the max-dice
        keep's points (units) and class after."""
        got = arrays(self.db, "SELECT r.dice, r.triple, r.probability, r.farkle, k.points, k.dice_after, "
                              "k.triple_after FROM ten_thousand_rolls r LEFT JOIN ten_thousand_keeps k "
                              "ON k.rules = r.rules AND k.dice = r.dice AND k.triple = r.triple AND k.roll = r.roll "
                              "AND k.max_dice WHERE r.rules = ? ORDER BY r.dice DESC, r.triple, r.roll",
                     (self.variant_name,))
        cls = np.array([self.index[(int(d), int(t))] for d, t in zip(got["dice"], got["triple"])], dtype=np.int64)
        order = np.argsort(cls, kind="stable")
        farkle = got["farkle"].astype(bool)[order]
        pts = np.where(farkle, 0, np.nan_to_num(np.asarray(got["points"], dtype=float))).astype(np.int64)[order]
        da = np.nan_to_num(np.asarray(got["dice_after"], dtype=float)).astype(np.int64)[order]
        ta = np.nan_to_num(np.asarray(got["triple_after"], dtype=float)).astype(np.int64)[order]
        cls, prob = cls[order], got["probability"].astype(float)[order]
        after = np.array([self.index.get((int(d), int(t)), -1) if not f else -1 for d, t, f in zip(da, ta, farkle)])
        offset = np.searchsorted(cls, np.arange(len(self.classes) + 1))
        cdf = np.empty_like(prob)
        for c in range(len(self.classes) - 1):
            a, b = offset[c], offset[c + 1]
            run = np.cumsum(prob[a:b])
            run[-1] = 1.0
            cdf[a:b] = c + run
        return {"cls": cls, "prob": prob, "farkle": farkle, "pts": pts // self.u, "after": after,
                "offset": offset, "cdf": cdf}

    def bank_from(self, bot: str) -> np.ndarray:
        """Per class: the turn total (units) from which ``bot`` banks (class (0, 0): 0, it must)."""
        if bot == "seed004":
            rows = dict(((int(d), int(t)), b) for d, t, b in self.db.fetchall(
                "SELECT dice, triple, bank_from FROM ten_thousand_seed004_rule WHERE rules = ?", (self.variant_name,)))
            out = [rows.get(c) for c in self.classes[:-1]]
            return np.array([(-(-b // self.u) if b is not None else 10**9) for b in out] + [0], dtype=np.int64)
        m = PATTERN.match(bot)
        values = [int(x) for x in m.groups() if x is not None]
        for v in values:
            if v % self.u or not 0 < v <= MAX_THRESHOLD:
                raise BadInput(f"a bank-T threshold must be a multiple of {self.u} in {self.u}..{MAX_THRESHOLD}, "
                               f"got {v}")
        per_dice = values * 6 if len(values) == 1 else values  # dice 6, 5, ..., 1
        return np.array([per_dice[6 - d] // self.u if 1 <= d <= 6 else values[0] // self.u
                         for d, _ in self.classes[:-1]] + [0], dtype=np.int64)

    def exceed(self, policy: str = "seed004") -> np.ndarray:
        """P(a last turn from six dice gains at least ``need`` units), need = 0..top (beyond: 0)."""
        cache = self.__dict__.setdefault("_exceed", {})
        if policy in cache:
            return cache[policy]
        got = arrays(self.db, "SELECT need, p_exceed FROM ten_thousand_exceed WHERE rules = ? AND policy = ? "
                              "AND dice = ? AND triple = 0 ORDER BY need", (self.variant_name, policy, self.start))
        need = got["need"].astype(np.int64) // self.u
        out = np.zeros(need.max() + 2)
        out[0] = 1.0
        out[need] = got["p_exceed"]
        cache[policy] = out
        return out

    # -- exact ---------------------------------------------------------------------------
    def turn_distribution(self, bot: str) -> np.ndarray:
        """T[g]: probability that a turn banks g units (g = 0: a farkle)."""
        cache = self.__dict__.setdefault("_turns", {})
        if bot in cache:
            return cache[bot]
        rs, bank = self.rolls, self.bank_from(bot)
        C = len(self.classes)
        top = int(min(bank[bank < 10**9].max(), MAX_THRESHOLD // self.u)) + int(rs["pts"].max()) + 2
        mass = np.zeros((top + 1, C))
        mass[0, 0] = 1.0
        T = np.zeros(top + 1)
        for k in range(top + 1):
            row = mass[k]
            if not row.any():
                continue
            banks = (bank <= k) & (k > 0) | (k == top)
            T[k] += row[banks].sum()
            for c in np.flatnonzero(row * ~banks):
                a, b = rs["offset"][c], rs["offset"][c + 1]
                p = row[c] * rs["prob"][a:b]
                f = rs["farkle"][a:b]
                T[0] += p[f].sum()
                k2 = np.minimum(k + rs["pts"][a:b][~f], top)
                np.add.at(mass, (k2, rs["after"][a:b][~f]), p[~f])
        cache[bot] = T
        return T

    # -- the optimal bot (small goals) ------------------------------------------------------
    @cached_property
    def options(self) -> dict[str, np.ndarray]:
        """Every legal keep of every roll (the two-player game keeps dominated ones too), padded per
        global roll: pts[g, o] (units), after[g, o] (class), valid[g, o]; best points first."""
        got = arrays(self.db, "SELECT dice, triple, roll, points, dice_after, triple_after, dice_used "
                              "FROM ten_thousand_keeps WHERE rules = ?", (self.variant_name,))
        rs = self.rolls
        key = {}
        roll_text = arrays(self.db, "SELECT dice, triple, roll FROM ten_thousand_rolls WHERE rules = ? "
                                    "ORDER BY dice DESC, triple, roll", (self.variant_name,))
        cls = np.array([self.index[(int(d), int(t))] for d, t in zip(roll_text["dice"], roll_text["triple"])])
        order = np.argsort(cls, kind="stable")
        for g, n in enumerate(order):
            key[(int(roll_text["dice"][n]), int(roll_text["triple"][n]), str(roll_text["roll"][n]))] = g
        per: dict[int, list] = {}
        for d, t, r, pts, da, ta, used in zip(*(got[c] for c in ("dice", "triple", "roll", "points", "dice_after",
                                                                  "triple_after", "dice_used"))):
            g = key[(int(d), int(t), str(r))]
            per.setdefault(g, []).append((-int(pts), -int(used), int(pts) // self.u,
                                          self.index.get((int(da), int(ta)), len(self.classes) - 1)))
        width = max(len(v) for v in per.values())
        n = len(rs["prob"])
        pts = np.zeros((n, width), dtype=np.int64)
        after = np.zeros((n, width), dtype=np.int64)
        valid = np.zeros((n, width), dtype=bool)
        for g, opts in per.items():
            opts.sort()
            for o, (_, _, p_, c_) in enumerate(opts):
                pts[g, o], after[g, o], valid[g, o] = p_, c_, True
        return {"pts": pts, "after": after, "valid": valid}

    @cached_property
    def optimal(self) -> dict[str, np.ndarray]:
        """The optimal bot: T[i, j, g] (its turn's banked units from scores (i, j)), roll[i, j, k, c]
        and choice[i, j, k, g] (the option it keeps after roll g), read from ten_thousand_duel: a
        stored state rolls, any other banks; a keep is the best value of the state it leads to."""
        G, C, rs, op = self.G, len(self.classes), self.rolls, self.options
        got = arrays(self.db, "SELECT score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                              "WHERE rules = ? AND goal = ?", (self.variant_name, self.goal))
        K = int(got["turn_total"].max()) // self.u + int(op["pts"].max()) + 1
        if G * G * (K + 1) * len(rs["prob"]) > MAX_OPTIMAL_CELLS:
            raise BadInput(f"the optimal 10,000 bot plays goals up to about 1,500 in this version (its keep choices for "
                           f"every score pair are held in memory); this database's goal is {self.goal:,}")
        stored = np.full((G, G, K + 1, C), np.nan)
        c_of = np.array([self.index.get((int(d), int(t)), C - 1) for d, t in zip(got["dice"], got["triple"])])
        stored[got["score"] // self.u, got["opponent"] // self.u, got["turn_total"] // self.u, c_of] = got["p_win"]
        start = stored[:, :, 0, 0]
        ex = self.exceed("optimal")
        i = np.arange(G)[:, None, None]
        j = np.arange(G)[None, :, None]
        k = np.arange(K + 1)[None, None, :]
        need = i + k - j + 1
        bank = np.where(i + k < G, 1 - start[j, np.minimum(i + k, G - 1)],
                        1 - np.where(need <= 0, 1.0, ex[np.clip(need, 0, len(ex) - 1)] * (need < len(ex))))
        roll = ~np.isnan(stored)
        V = np.where(roll, stored, bank[..., None])
        mass = np.zeros((G, G, K + 1, C))
        mass[:, :, 0, 0] = 1.0
        T = np.zeros((G, G, K + 1))
        choice = np.full((G, G, K + 1, len(rs["prob"])), -1, dtype=np.int8)
        ii, jj = np.meshgrid(np.arange(G), np.arange(G), indexing="ij")
        for kk in range(K + 1):
            for c in range(C):
                m = mass[:, :, kk, c]
                if not m.any():
                    continue
                r = roll[:, :, kk, c] & (c < C - 1) | (kk == 0)
                T[:, :, kk] += np.where(r, 0.0, m)
                mr = np.where(r, m, 0.0)
                if not mr.any():
                    continue
                a, b = rs["offset"][c], rs["offset"][c + 1]
                far = rs["farkle"][a:b]
                T[:, :, 0] += mr * (rs["prob"][a:b] * far).sum()
                live = np.flatnonzero(~far) + a
                k2 = np.minimum(kk + op["pts"][live], K)  # (R, O)
                vals = V[:, :, k2, op["after"][live]]  # (G, G, R, O)
                vals = np.where(op["valid"][live][None, None], vals, -1.0)
                best = vals.argmax(axis=3)  # first of the best: most points, then most dice
                choice[:, :, kk, live] = best
                w = mr[:, :, None] * rs["prob"][live][None, None, :]
                tk = np.take_along_axis(np.broadcast_to(k2, (G, G) + k2.shape), best[..., None], 3)[..., 0]
                tc = np.take_along_axis(np.broadcast_to(op["after"][live], (G, G) + k2.shape), best[..., None], 3)[..., 0]
                np.add.at(mass, (np.broadcast_to(ii[..., None], tk.shape), np.broadcast_to(jj[..., None], tk.shape),
                                 tk, tc), w)
        return {"T": T, "roll": roll, "choice": choice, "K": K}

    def turn_table(self, bot: str) -> np.ndarray:
        """T[i, j, g] of ``bot`` (broadcast over the scores for a bot that ignores them)."""
        if bot == "optimal":
            return self.optimal["T"]
        T = self.turn_distribution(bot)
        return np.broadcast_to(T, (self.G, self.G, len(T)))

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        G = self.G
        T1, T2 = self.turn_table(bots[0]), self.turn_table(bots[1])
        ex1, ex2 = (self.exceed("optimal" if b == "optimal" else "seed004") for b in bots)
        V1, V2 = np.zeros((G, G)), np.zeros((G, G))

        def ex_of(ex, need):
            return np.where(need <= 0, 1.0, ex[np.clip(need, 0, len(ex) - 1)] * (need < len(ex)))

        for s in range(2 * G - 2, -1, -1):
            i = np.arange(max(0, s - G + 1), min(G - 1, s) + 1)
            j = s - i
            parts = []
            # the mover's opponent plays the last turn: its own exceed table
            for T, me, you, Vo, ex in ((T1, i, j, V2, ex2), (T2, j, i, V1, ex1)):
                Tm = T[me, you]
                g = np.arange(1, Tm.shape[1])
                tot = me[:, None] + g[None, :]
                after = np.where(tot >= G, 1 - ex_of(ex, tot - you[:, None] + 1),
                                 1 - Vo[you[:, None], np.minimum(tot, G - 1)])
                parts.append(((Tm[:, 1:] * after).sum(axis=1), Tm[:, 0]))
            (a1, b1), (a2, b2) = parts
            v1 = (a1 + b1 * (1 - a2 - b2)) / (1 - b1 * b2)
            V1[i, j] = v1
            V2[j, i] = a2 + b2 * (1 - v1)
        return {"win": np.array([V1[0, 0], 1 - V1[0, 0]])}

    # -- simulation -----------------------------------------------------------------------
    @cached_property
    def exceed_all(self) -> np.ndarray:
        """E[need, c]: the optimal last turn's chance to gain at least ``need`` units from class c."""
        got = arrays(self.db, "SELECT need, dice, triple, p_exceed FROM ten_thousand_exceed WHERE rules = ? "
                              "AND policy = 'optimal'", (self.variant_name,))
        need = got["need"].astype(np.int64) // self.u
        c = np.array([self.index.get((int(d), int(t)), len(self.classes) - 1)
                      for d, t in zip(got["dice"], got["triple"])], dtype=np.int64)
        out = np.zeros((need.max() + 2, len(self.classes)))
        out[0] = 1.0
        out[need, c] = got["p_exceed"]
        return out

    def _optimal_keep(self, g, k, c, me, you, final):
        """The option the optimal bot keeps after roll g: its stored choice in a normal turn, the
        best chance to exceed in its last turn."""
        op = self.options
        opt = self.optimal
        K = opt["K"]
        o = opt["choice"][np.minimum(me, self.G - 1), np.minimum(you, self.G - 1), np.minimum(k, K), g].astype(np.int64)
        if final.any():
            E = self.exceed_all
            need = (you - me - k + 1)[:, None] - op["pts"][g]
            val = np.where(need <= 0, 1.0, E[np.clip(need, 0, len(E) - 1), op["after"][g]] * (need < len(E)))
            val = np.where(op["valid"][g], val, -1.0)
            o = np.where(final, val.argmax(axis=1), o)
        return np.maximum(o, 0)

    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        rs, G = self.rolls, self.G
        C = len(self.classes)
        banks = [self.bank_from(b) if b != "optimal" else np.zeros(C, dtype=np.int64) for b in bots]
        optimal = [b == "optimal" for b in bots]
        opt = self.optimal if any(optimal) else None
        op = self.options if any(optimal) else None
        n = games
        score = np.zeros((n, 2), dtype=np.int64)
        p = np.zeros(n, dtype=np.int64)  # seat - 1 to move
        k = np.zeros(n, dtype=np.int64)
        c = np.zeros(n, dtype=np.int64)
        final = np.zeros(n, dtype=bool)
        wins = np.zeros(2)
        rows = np.arange(n)
        while n:
            me, you = score[rows, p], score[rows, 1 - p]
            bank_at = np.where(p == 0, banks[0][c], banks[1][c])
            roll = np.where(final, me + k <= you, k < bank_at)
            is_opt = np.where(p == 0, optimal[0], optimal[1])
            if opt is not None:
                stored = opt["roll"][np.minimum(me, G - 1), np.minimum(you, G - 1), np.minimum(k, opt["K"]), c]
                roll = np.where(is_opt & ~final, stored, roll)
            roll &= c < C - 1
            roll |= k == 0
            g = np.searchsorted(rs["cdf"], rng.random(n) + c, side="right")
            g = np.minimum(g, rs["offset"][np.minimum(c + 1, C - 1)] - 1)
            farkle = roll & rs["farkle"][g]
            go = roll & ~farkle
            pts, after = rs["pts"][g], rs["after"][g]
            if opt is not None and (go & is_opt).any():
                sel = go & is_opt
                o = self._optimal_keep(g[sel], k[sel], c[sel], me[sel], you[sel], final[sel])
                pts, after = pts.copy(), after.copy()
                pts[sel] = op["pts"][g[sel], o]
                after[sel] = op["after"][g[sel], o]
            k = np.where(go, k + pts, k)
            c = np.where(go, after, c)
            ended = ~go
            total = me + np.where(farkle, 0, k)
            fin = ended & final
            done = fin
            mover_won = fin & (total > you)
            if done.any():
                seat_won = np.where(mover_won, p, 1 - p)[done]
                wins += np.bincount(seat_won, minlength=2)
            score[rows, p] = np.where(ended, total, me)
            reached = ended & ~final & (total >= G)
            final = final | reached
            p = np.where(ended, 1 - p, p)
            k = np.where(ended, 0, k)
            c = np.where(ended, 0, c)
            live = ~done
            score, p, k, c, final = score[live], p[live], k[live], c[live], final[live]
            n = len(p)
            rows = np.arange(n)
        return {"win": wins}
