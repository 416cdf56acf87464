"""10,000 bots (two players): optimal play, seed 004's heuristic and bank-at-threshold players.

``optimal`` reads ``ten_thousand_duel`` (a stored state rolls, any other banks; after a roll the
keep whose next state is worth most), its turn evaluated per score pair a block of scores at a
time (:meth:`TenThousand.optimal`), so it plays any goal, the default 10,000 included.  The
others ignore the banked scores.  They keep what seed 004 keeps ("you'll score the maximum number of dice": the keep using the
most dice, then the most points; ``ten_thousand_keeps.max_dice``) and differ in when they bank:

- ``seed004``: seed 004's rule, roll while the next roll's expected points exceed turn total x
  P(farkle); it banks from ``ten_thousand_seed004_rule.bank_from`` of the dice about to be rolled
  and the standing triple;
- ``bank-T``: bank once the turn total reaches T points, whatever the dice (T a multiple of the
  unit, 50); ``bank-T6-T5-T4-T3-T2-T1``: a threshold per number of dice about to be rolled.

In the last turn (the opponent has banked at or above the goal) every bot rolls until it is
ahead, then banks, as the build plays it (``ten_thousand_exceed``, policy ``seed004``).

Exact: the turn's distribution of banked points is pushed forward over (turn total, dice,
triple): once for a bot that ignores the scores, per score pair for ``optimal``; the game is solved level by level of the score
sum, the cycle of two farkles in a row as a 2x2 system per score pair; both players get a last
turn (rule ``others_one_turn_must_exceed``).  Rule sets with an opening minimum are refused.
"""

from __future__ import annotations

import re
from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays, load
from dicebase.errors import BadInput
from dicebase.rules.ten_thousand import MAX_PLAYERS

GAME = "ten-thousand"
BOTS = {
    "optimal": "optimal play (ten_thousand_duel: stored states roll; keeps by the one-step lookahead)",
    "seed004": "seed 004's heuristic: roll while the next roll's EV exceeds turn total x P(farkle); max-dice keeps",
    "bank-300": "bank at a turn total of 300 or more (any bank-T, T a multiple of 50); max-dice keeps",
    "bank-1000-500-400-350-300-250": "a threshold per number of dice to roll (6, 5, 4, 3, 2, 1); max-dice keeps",
}
#: Its turn engine for the game loop (:func:`dicebase.bots.play.play`): a module with ``turns(...)``.
PLAY = "dicebase.bots.play_ten_thousand"
PATTERN = re.compile(r"^bank-(\d+)(?:-(\d+)-(\d+)-(\d+)-(\d+)-(\d+))?$")
MAX_THRESHOLD = 20_000
#: Ways to count a win (``simulate``'s ``count``); the most seats a tournament takes (3 or more: the N-player tables).
COUNTS = ("win",)
MAX_SEATS = MAX_PLAYERS
#: The N-player bots (3 or more seats), named by a string as ``PLAY`` is: that module imports this one.
N_PLAYERS = "dicebase.bots.ten_thousand_n:TenThousandN"


def is_bot(name: str) -> bool:
    return name in ("optimal", "seed004") or bool(PATTERN.match(str(name)))


def engine(db, variant: str | None, players: int):
    """The bots of rule set ``variant`` for ``players`` seats: the two-player tables, or the N-player tables' block."""
    if players > 2:
        return load(N_PLAYERS)(db, variant, players)
    return TenThousand(db, variant)


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

    # -- the optimal bot ----------------------------------------------------------------------
    @cached_property
    def groups(self) -> dict[str, np.ndarray]:
        """Every roll's legal keeps (the two-player game keeps dominated ones too) as roll groups:
        rolls of one class with the same options (points, class after) share a group.  Options in
        order most points, then most dice (the bot's tie-break).  ``of_roll[g]``: the group of global
        roll g (farkles: the class's farkle group, which has no options)."""
        got = arrays(self.db, "SELECT dice, triple, roll, points, dice_after, triple_after, dice_used "
                              "FROM ten_thousand_keeps WHERE rules = ?", (self.variant_name,))
        roll_text = arrays(self.db, "SELECT dice, triple, roll FROM ten_thousand_rolls WHERE rules = ? "
                                    "ORDER BY dice DESC, triple, roll", (self.variant_name,))
        cls = np.array([self.index[(int(d), int(t))] for d, t in zip(roll_text["dice"], roll_text["triple"])])
        order = np.argsort(cls, kind="stable")
        key = {(int(roll_text["dice"][n]), int(roll_text["triple"][n]), str(roll_text["roll"][n])): g
               for g, n in enumerate(order)}
        per: dict[int, set] = {}
        for d, t, r, pts, da, ta, used in zip(*(got[c] for c in ("dice", "triple", "roll", "points", "dice_after",
                                                                  "triple_after", "dice_used"))):
            per.setdefault(key[(int(d), int(t), str(r))], set()).add(
                (-int(pts), -int(used), int(pts) // self.u, self.index.get((int(da), int(ta)), len(self.classes) - 1)))
        rs = self.rolls
        C = len(self.classes)
        gofs, gprob, gopt, opts, of_roll = [0], [], [0], [], np.zeros(len(rs["prob"]), dtype=np.int64)
        option_id: dict[tuple[int, int], int] = {}
        for c in range(C):
            seen: dict[tuple, int] = {}
            for g in range(rs["offset"][c], rs["offset"][c + 1]):
                opt = tuple((p_, c_) for *_, p_, c_ in sorted(per.get(g, ()))) if not rs["farkle"][g] else ()
                opt = tuple(dict.fromkeys(opt))  # equal (points, class) options are one
                if opt not in seen:
                    seen[opt] = len(gprob)
                    gprob.append(0.0)
                    opts.extend(option_id.setdefault(o, len(option_id)) for o in opt)
                    gopt.append(len(opts))
                gprob[seen[opt]] += rs["prob"][g]
                of_roll[g] = seen[opt]
            gofs.append(len(gprob))
        ids = sorted(option_id, key=option_id.get)
        return {"gofs": np.array(gofs, dtype=np.int64), "gprob": np.array(gprob), "gopt": np.array(gopt, dtype=np.int64),
                "opts": np.array(opts, dtype=np.int64), "opt_pts": np.array([o[0] for o in ids], dtype=np.int64),
                "opt_after": np.array([o[1] for o in ids], dtype=np.int64), "of_roll": of_roll}

    @cached_property
    def starts(self) -> np.ndarray:
        """start[i, j]: the mover's stored win probability at its turn start (ten_thousand_duel_bounds)."""
        got = arrays(self.db, "SELECT score, opponent, p_start FROM ten_thousand_duel_bounds WHERE rules = ? "
                              "AND goal = ?", (self.variant_name, self.goal))
        if len(got["score"]) != self.G * self.G:
            from dicebase.errors import NotInDatabase

            raise NotInDatabase(f"the optimal 10,000 bot needs the two-player tables of {self.variant_name!r} to "
                                f"{self.goal:,}; rebuild with: {self.db.ten_thousand.rebuild_command()}")
        start = np.zeros((self.G, self.G))
        start[got["score"] // self.u, got["opponent"] // self.u] = got["p_start"]
        return start

    def _pair_rows(self, lo: int, hi: int) -> dict[str, np.ndarray]:
        """The stored roll states of mover scores lo..hi - 1 (units), grouped by pair (i * G + j):
        first/count per pair of the block, and per row the turn total (units), class and p_win."""
        got = arrays(self.db, "SELECT score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                              "WHERE rules = ? AND goal = ? AND score BETWEEN ? AND ?",
                     (self.variant_name, self.goal, lo * self.u, (hi - 1) * self.u))
        cidx = np.full((8, 8), len(self.classes) - 1, dtype=np.int64)
        for (d, t), n in self.index.items():
            cidx[d, t] = n
        pair = (got["score"].astype(np.int64) // self.u - lo) * self.G + got["opponent"].astype(np.int64) // self.u
        k = got["turn_total"].astype(np.int64) // self.u
        c = cidx[got["dice"].astype(np.int64), got["triple"].astype(np.int64)]
        order = np.lexsort((c, k, pair))
        pair, k, c, p = pair[order], k[order], c[order], got["p_win"].astype(float)[order]
        n_pairs = (hi - lo) * self.G
        count = np.bincount(pair, minlength=n_pairs)
        first = np.concatenate(([0], np.cumsum(count)[:-1]))
        return {"first": first, "count": count, "k": k, "c": c, "p": p}

    #: Rows of ten_thousand_duel read at a time (a block of mover scores).
    BLOCK_ROWS = 1_000_000

    def blocks(self):
        """(lo, hi) blocks of mover scores of about BLOCK_ROWS stored rows each."""
        got = arrays(self.db, "SELECT score, SUM(row_count) AS n FROM ten_thousand_duel_bounds WHERE rules = ? "
                              "AND goal = ? GROUP BY score ORDER BY score", (self.variant_name, self.goal))
        lo, rows = 0, 0
        for s, n in zip(got["score"].astype(np.int64) // self.u, got["n"].astype(np.int64)):
            if rows and rows + n > self.BLOCK_ROWS:
                yield lo, int(s)
                lo, rows = int(s), 0
            rows += n
        yield lo, self.G

    @cached_property
    def optimal(self) -> dict[str, np.ndarray]:
        """The optimal bot's turn from every score pair: Tb[i, j, g] (g = 0 a farkle, else banked
        below the goal) and fin[i, j, e] (its chance to survive the opponent's last turn after
        banking at or above the goal, e = 0: the opponent plays the optimal last turn, 1: seed
        004's).  ten_thousand_duel is read a block of mover scores at a time (stored roll states:
        the bot rolls there, banks elsewhere), each pair's turn evaluated by a numba kernel
        (``kernels.tt_optimal_turns``); memory: G^2 (G + 2) doubles (66 MB at goal 10,000)."""
        from dicebase.bots.kernels import tt_optimal_turns

        G, C, gr = self.G, len(self.classes), self.groups
        Tb = np.zeros((G, G, G))
        fin = np.zeros((G, G, 2))
        exs = self.exceed_pair
        maxpts = int(gr["opt_pts"].max())
        for lo, hi in self.blocks():
            b = self._pair_rows(lo, hi)
            KT = (int(b["k"].max()) if len(b["k"]) else 0) + maxpts
            pi = np.repeat(np.arange(lo, hi), G)
            pj = np.tile(np.arange(G), hi - lo)
            t, f = tt_optimal_turns(pi, pj, b["first"], b["count"], b["k"], b["c"], b["p"], G, C, KT, self.starts,
                                    exs[0], exs, gr["gofs"], gr["gprob"], gr["gopt"], gr["opts"], gr["opt_pts"],
                                    gr["opt_after"])
            Tb[lo:hi] = t.reshape(hi - lo, G, G)
            fin[lo:hi] = f.reshape(hi - lo, G, 2)
        return {"Tb": Tb, "fin": fin}

    @cached_property
    def exceed_pair(self) -> np.ndarray:
        """exs[e, need]: the optimal (e = 0) and seed 004's (e = 1) last turn's chance to gain at
        least ``need`` units from six dice, padded to one length with 0."""
        a, b = self.exceed("optimal"), self.exceed("seed004")
        out = np.zeros((2, max(len(a), len(b))))
        out[0, :len(a)], out[1, :len(b)] = a, b
        return out

    def turn_parts(self, bot: str, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Tb[n, G], fin[n, 2]) of ``bot`` moving at pairs (i, j): its turn's farkle and banks below
        the goal, and its chance to survive each last-turn table after banking at or above it."""
        if bot == "optimal":
            opt = self.optimal
            return opt["Tb"][i, j], opt["fin"][i, j]
        T = self.turn_distribution(bot)
        g = np.arange(len(T))
        below = i[:, None] + g[None, :] < self.G
        Tb = np.zeros((len(i), self.G))
        w = min(len(T), self.G)
        Tb[:, :w] = np.where(below[:, :w], T[None, :w], 0.0)
        exs = self.exceed_pair
        need = i[:, None] + g[None, :] - j[:, None] + 1
        fin = np.stack([(np.where(below, 0.0, T[None, :]) * (1 - np.where(
            need <= 0, 1.0, ex[np.clip(need, 0, len(ex) - 1)] * (need < len(ex))))).sum(axis=1) for ex in exs], axis=1)
        return Tb, fin

    def start_values(self, bots: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(V1[i, j], V2[i, j]): the mover's win probability at its turn start, seat 1 (``bots[0]``)
        with i against seat 2's j, or seat 2 with i against seat 1's j; level by level of i + j, the
        cycle of two farkles as a 2x2 system per pair."""
        G = self.G
        V1, V2 = np.zeros((G, G)), np.zeros((G, G))
        # the mover's opponent plays the last turn: its own exceed table (0 optimal, 1 seed 004's)
        e1, e2 = (0 if b == "optimal" else 1 for b in bots)
        g = np.arange(G)
        for s in range(2 * G - 2, -1, -1):
            i = np.arange(max(0, s - G + 1), min(G - 1, s) + 1)
            j = s - i
            parts = []
            for bot, me, you, Vo, e in ((bots[0], i, j, V2, e2), (bots[1], j, i, V1, e1)):
                Tb, fin = self.turn_parts(bot, me, you)
                tot = me[:, None] + g[None, 1:]
                after = np.where(tot < G, 1 - Vo[you[:, None], np.minimum(tot, G - 1)], 0.0)
                parts.append(((Tb[:, 1:] * after).sum(axis=1) + fin[:, e], Tb[:, 0]))
            (a1, b1), (a2, b2) = parts
            v1 = (a1 + b1 * (1 - a2 - b2)) / (1 - b1 * b2)
            V1[i, j] = v1
            V2[j, i] = a2 + b2 * (1 - v1)
        return V1, V2

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        V1, _ = self.start_values(bots)
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

    @cached_property
    def held(self) -> dict[str, np.ndarray]:
        """Every stored roll state of the rule set and goal, for simulation: per pair (i * G + j) its
        first row and row count, per row key = turn total * classes + class (sorted within the
        pair) and p_win (12 bytes a row: 360 MB at goal 10,000), read a block of scores at a time."""
        G, C = self.G, len(self.classes)
        (total,) = self.db.fetchone("SELECT SUM(row_count) FROM ten_thousand_duel_bounds WHERE rules = ? AND goal = ?",
                                    (self.variant_name, self.goal))
        first, count = np.zeros(G * G, dtype=np.int64), np.zeros(G * G, dtype=np.int64)
        keys, pwin = np.zeros(int(total), dtype=np.int32), np.zeros(int(total))
        at = 0
        for lo, hi in self.blocks():
            b = self._pair_rows(lo, hi)
            n = len(b["p"])
            first[lo * G:hi * G], count[lo * G:hi * G] = b["first"] + at, b["count"]
            keys[at:at + n], pwin[at:at + n] = b["k"] * C + b["c"], b["p"]
            at += n
        return {"first": first, "count": count, "keys": keys[:at], "pwin": pwin[:at]}

    def _optimal_keep(self, g, k, me, you, final):
        """The option (position in its roll group) the optimal bot keeps after roll g: the best
        next state in a normal turn (``kernels.tt_optimal_keeps``), the best chance to exceed in
        its last turn."""
        from dicebase.bots.kernels import tt_optimal_keeps

        gr, h = self.groups, self.held
        grp = gr["of_roll"][g]
        G = self.G
        normal = ~final
        o = np.zeros(len(g), dtype=np.int64)
        if normal.any():
            o[normal] = tt_optimal_keeps(me[normal], you[normal], k[normal], grp[normal], G, len(self.classes),
                                         h["first"], h["count"], h["keys"], h["pwin"], self.starts,
                                         self.exceed("optimal"), gr["gopt"], gr["opts"], gr["opt_pts"],
                                         gr["opt_after"])
        if final.any():
            E = self.exceed_all
            width = int(np.diff(gr["gopt"]).max())
            a = gr["gopt"][grp[final]][:, None] + np.arange(width)[None, :]
            valid = a < gr["gopt"][grp[final] + 1][:, None]
            o_id = gr["opts"][np.minimum(a, len(gr["opts"]) - 1)]
            need = (you - me - k + 1)[final][:, None] - gr["opt_pts"][o_id]
            val = np.where(need <= 0, 1.0, E[np.clip(need, 0, len(E) - 1), gr["opt_after"][o_id]] * (need < len(E)))
            o[final] = np.where(valid, val, -1.0).argmax(axis=1)
        return o

    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        rs, G = self.rolls, self.G
        C = len(self.classes)
        banks = [self.bank_from(b) if b != "optimal" else np.zeros(C, dtype=np.int64) for b in bots]
        optimal = [b == "optimal" for b in bots]
        any_opt = any(optimal)
        if any_opt:
            from dicebase.bots.kernels import tt_optimal_rolls

            h, gr = self.held, self.groups
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
            sel = is_opt & ~final
            if any_opt and sel.any():
                roll[sel] = tt_optimal_rolls(me[sel], you[sel], k[sel], c[sel], G, C, h["first"], h["count"],
                                             h["keys"])
            roll &= c < C - 1
            roll |= k == 0
            g = np.searchsorted(rs["cdf"], rng.random(n) + c, side="right")
            g = np.minimum(g, rs["offset"][np.minimum(c + 1, C - 1)] - 1)
            farkle = roll & rs["farkle"][g]
            go = roll & ~farkle
            pts, after = rs["pts"][g], rs["after"][g]
            if any_opt and (go & is_opt).any():
                sel = go & is_opt
                o = self._optimal_keep(g[sel], k[sel], me[sel], you[sel], final[sel])
                pts, after = pts.copy(), after.copy()
                o_id = gr["opts"][gr["gopt"][gr["of_roll"][g[sel]]] + o]
                pts[sel] = gr["opt_pts"][o_id]
                after[sel] = gr["opt_after"][o_id]
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
