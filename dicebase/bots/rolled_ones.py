"""Great Rolled Ones bots: optimal play and seed 002's four human-playable policies.

Each bot is a roll/hold table over the states ``(p, i, j, k, o)`` read from ``rolled_ones_states``
(``best`` for ``optimal``, ``<policy>_action`` for the others).  Where the table stores no state,
the bot does what the build assumed: optimal play holds (beyond the turn-total bound it is proven
to; below it the state is one no turn reaches, or player 2 holding to a certain win); a human
policy follows its own rule (the algorithm of seed 002, ``dicebase.numeric.rolled_ones_policies``,
the few lines the build itself evaluated).  Player 2's final turn (player 1 ended at the goal) is
played by every bot as the build plays it: roll until ahead, then hold (``rolled_ones_p_exceed``).

Exact: a turn's outcome distribution (held turn total, or 0 for three 1s) is pushed forward over
``(k, o)`` for every score pair at once; the game is then solved level by level of ``i + j``
(holding raises it), the 2-cycle of two busts in a row as a 2x2 system per score pair.  Turns past
``k = turn_total_bound + TAIL`` count as held there: the chance of a turn gaining more than TAIL
points is below 1e-16 (dicebase.builder.rolled_ones.evaluate).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays, load
from dicebase.errors import NotInDatabase
from dicebase.rules.rolled_ones import MAX_PLAYERS

GAME = "rolled-ones"
#: Bot name -> the policy's column prefix in rolled_ones_states ('' = optimal: column best).
COLUMNS = {
    "optimal": "",
    "roll-4-or-5-dice": "roll_4_or_5_dice",
    "fixed-hold-at": "fixed_hold_at",
    "simple-ones-cases": "simple_ones_cases",
    "keep-pace-end-race": "keep_pace_end_race",
}
BOTS = {
    "optimal": "optimal play (rolled_ones_states.best; seed 002)",
    "roll-4-or-5-dice": "seed 002, Algorithm 1: Roll with 4 or 5 Dice",
    "fixed-hold-at": "seed 002, Algorithm 2: Fixed Hold-At",
    "simple-ones-cases": "seed 002, Algorithm 3: Simple Player and Ones Cases",
    "keep-pace-end-race": "seed 002, Algorithm 4: Keep Pace, End Race, by Case",
}
#: Its turn engine for the game loop (:func:`dicebase.bots.play.play`): a module with ``turns(...)``.
PLAY = "dicebase.bots.play_rolled_ones"


def is_bot(name: str) -> bool:
    """Whether ``name`` is one of :data:`BOTS`."""
    return name in BOTS


#: Ways to count a win (``simulate``'s ``count``); the most seats a tournament takes (3 or more: the N-player tables).
COUNTS = ("win",)
MAX_SEATS = MAX_PLAYERS
#: The N-player bots (3 or more seats), named by a string as ``PLAY`` is: that module imports this one.
N_PLAYERS = "dicebase.bots.rolled_ones_n:RolledOnesN"


def engine(db, variant: str | None, players: int):
    """The bots of ``variant`` for ``players`` seats: the two-player tables, or the N-player tables' block."""
    if players > 2:
        return load(N_PLAYERS)(db, variant, players)
    return RolledOnes(db, variant)


#: Turn totals evaluated beyond the stored bound (P(a turn gains more than this) < 1e-16).
TAIL = 240


class RolledOnes:
    """The Great Rolled Ones bots of an open database (two players)."""

    def __init__(self, db, variant: str | None = None):
        self.db = db
        self.v = db.rolled_ones.variant(variant)
        self.rules = self.v.rules
        self.variant_name = self.v.name
        self.unit = "game"
        self.G = self.rules.goal
        self.K = self.rules.turn_total_bound
        self.KT = self.K + TAIL
        self.L = self.rules.ones_limit

    @cached_property
    def _stored(self) -> dict[str, np.ndarray]:
        cols = ", ".join(["best"] + [f"{c}_action" for c in COLUMNS.values() if c])
        return arrays(self.db, f"SELECT p, i, j, k, o, {cols} FROM rolled_ones_states WHERE variant = ?",
                      (self.v.name,))

    def roll_table(self, bot: str) -> np.ndarray:
        """roll[p - 1, i, j, k, o] (i, j < goal, k <= bound + TAIL) of ``bot``."""
        cache = self.__dict__.setdefault("_tables", {})
        if bot in cache:
            return cache[bot]
        G, KT, L = self.G, self.KT, self.L
        col = COLUMNS[bot]
        if col:
            from dicebase.numeric.rolled_ones_policies import POLICIES, decide

            p = np.arange(1, 3).reshape(2, 1, 1, 1, 1)
            i = np.arange(G).reshape(1, G, 1, 1, 1)
            j = np.arange(G).reshape(1, 1, G, 1, 1)
            k = np.arange(KT + 1).reshape(1, 1, 1, -1, 1)
            o = np.arange(L).reshape(1, 1, 1, 1, L)
            table = np.broadcast_to(decide(POLICIES[col].rule, p, i, j, k, o, G), (2, G, G, KT + 1, L)).copy()
        else:
            table = np.zeros((2, G, G, KT + 1, L), dtype=bool)
            table[:, :, :, 0, 0] = True  # a turn starts with a roll
        st = self._stored
        action = st["best"] if not col else st[f"{col}_action"]
        p, i, j, k, o = (st[c].astype(np.int64) for c in "pijko")
        table[p - 1, i, j, k, o] = action == "roll"
        cache[bot] = table
        return table

    @cached_property
    def p_exceed(self) -> np.ndarray:
        """P_exceed(delta, 0) for delta = 0 .. its stored top (beyond: 0); delta < 0 is 1."""
        got = arrays(self.db, "SELECT delta, p_exceed FROM rolled_ones_p_exceed WHERE variant = ? AND o = 0",
                     (self.v.name,))
        if not len(got["delta"]):
            raise NotInDatabase("rolled_ones_p_exceed is empty; rebuild with: "
                                f"{self.db.rolled_ones.rebuild_command()}")
        d = got["delta"].astype(np.int64)
        out = np.zeros(d.max() + 1)
        keep = d >= 0
        out[d[keep]] = got["p_exceed"][keep]
        return out

    # -- exact ---------------------------------------------------------------------------
    def turn_distribution(self, bot: str, p: int) -> np.ndarray:
        """T[i, j, g]: probability that the mover (seat ``p``, playing ``bot``) ends its turn holding
        ``g`` points (g = 0: three 1s), from its turn start at scores (i, j)."""
        cache = self.__dict__.setdefault("_turns", {})
        if (bot, p) in cache:
            return cache[(bot, p)]
        G, KT, L = self.G, self.KT, self.L
        roll = self.roll_table(bot)[p - 1]
        outcomes, p_end = self.rules.outcomes, self.rules.p_end
        mass = np.zeros((G, G, KT + 1, L))
        mass[:, :, 0, 0] = 1.0
        T = np.zeros((G, G, KT + 1))
        for k in range(KT + 1):
            for o in range(L):
                m = mass[:, :, k, o]
                if not m.any():
                    continue
                r = roll[:, :, k, o] if k < KT else np.zeros_like(roll[:, :, k, o])
                T[:, :, k] += np.where(r, 0.0, m)
                mr = np.where(r, m, 0.0)
                T[:, :, 0] += mr * p_end[o]
                for prob, gain, o2 in outcomes[o]:
                    mass[:, :, min(k + gain, KT), o2] += mr * prob
        cache[(bot, p)] = T
        return T

    def start_values(self, bot1: str, bot2: str) -> tuple[np.ndarray, np.ndarray]:
        """(V1[i, j], V2[i, j]): the mover's win probability at a turn start, seat 1 (``bot1``) to
        move with i against j, or seat 2 (``bot2``) to move with i against seat 1's j."""
        G, KT = self.G, self.KT
        T1, T2 = self.turn_distribution(bot1, 1), self.turn_distribution(bot2, 2)
        pex = self.p_exceed
        V1, V2 = np.zeros((G, G)), np.zeros((G, G))
        g = np.arange(KT + 1)
        for s in range(2 * G - 2, -1, -1):
            i = np.arange(max(0, s - G + 1), min(G - 1, s) + 1)
            j = s - i
            tot = i[:, None] + g[None, 1:]  # mover's total after holding g >= 1
            # seat 1 at (i, j): holding to the goal leaves seat 2 a final turn to exceed
            delta = tot - j[:, None]
            ex = np.where(delta < len(pex), pex[np.minimum(delta, len(pex) - 1)], 0.0)
            after1 = np.where(tot >= G, 1 - ex, 1 - V2[j[:, None], np.minimum(tot, G - 1)])
            a1 = (T1[i, j, 1:] * after1).sum(axis=1)
            b1 = T1[i, j, 0]
            # seat 2 at (j, i): holding to the goal wins (seat 1 is below it)
            tot2 = j[:, None] + g[None, 1:]
            after2 = np.where(tot2 >= G, 1.0, 1 - V1[i[:, None], np.minimum(tot2, G - 1)])
            a2 = (T2[j, i, 1:] * after2).sum(axis=1)
            b2 = T2[j, i, 0]
            v1 = (a1 + b1 * (1 - a2 - b2)) / (1 - b1 * b2)
            V1[i, j] = v1
            V2[j, i] = a2 + b2 * (1 - v1)
        return V1, V2

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        V1, _ = self.start_values(bots[0], bots[1])
        return {"win": np.array([V1[0, 0], 1 - V1[0, 0]])}

    # -- simulation -----------------------------------------------------------------------
    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Wins of each seat over ``games`` games played with dice (each roll's 1s drawn binomially)."""
        G, KT, L, D = self.G, self.KT, self.L, self.rules.dice
        q = 1.0 / self.rules.faces
        tables = [self.roll_table(b) for b in bots]
        n = games
        idx = np.arange(n)
        score = np.zeros((n, 2), dtype=np.int64)  # seat 1, seat 2
        p = np.ones(n, dtype=np.int64)
        k = np.zeros(n, dtype=np.int64)
        o = np.zeros(n, dtype=np.int64)
        final = np.zeros(n, dtype=bool)  # seat 2's final turn (seat 1 ended at the goal)
        wins = np.zeros(2)
        while len(idx):
            me, you = score[np.arange(len(idx)), p - 1], score[np.arange(len(idx)), 2 - p]
            i_c, j_c = np.minimum(me, G - 1), np.minimum(you, G - 1)
            kc = np.minimum(k, KT)
            r1 = tables[0][0, i_c, j_c, kc, o]
            r2 = tables[1][1, i_c, j_c, kc, o]
            roll = np.where(p == 1, r1, r2) & (k < KT)
            roll = np.where(final, me + k <= you, roll) | (k == 0)
            ones = rng.binomial(D - o, q)
            bust = roll & (o + ones >= L)
            gained = roll & ~bust
            k = np.where(gained, k + (D - o - ones), k)
            o = np.where(gained, o + ones, o)
            ended = ~gained  # a hold or three 1s: the turn ends
            total = me + np.where(bust, 0, k)
            rows = np.arange(len(idx))
            # outcomes of ended turns
            s1_goal = ended & (p == 1) & (total >= G)
            s2_goal = ended & (p == 2) & ~final & (total >= G)
            fin_end = ended & final
            done = s2_goal | fin_end
            seat2_won = s2_goal | (fin_end & (total > you))
            if done.any():
                wins[1] += seat2_won[done].sum()
                wins[0] += (~seat2_won[done]).sum()
            # continue: bank and pass the turn
            score[rows, p - 1] = np.where(ended, total, me)
            final = final | s1_goal
            p = np.where(ended, 3 - p, p)
            k = np.where(ended, 0, k)
            o = np.where(ended, 0, o)
            live = ~done
            idx, score, p, k, o, final = idx[live], score[live], p[live], k[live], o[live], final[live]
        return {"win": wins}
