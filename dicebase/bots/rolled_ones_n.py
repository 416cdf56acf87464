"""Great Rolled Ones bots for N players (2 or 3 seats; the N-player tables, docs/n_players.md).

``optimal`` plays the stored equilibrium: its decision at a mid-turn state is the one the lookups
compute (``rolled-ones best --scores``): roll when rolling beats holding by more than the block's
tie tolerance in its own win probability, the values computed from the stored turn starts
(``rolled_ones_turn_starts``) and, for a hold at or above the goal, the final round (the stored
above-the-bar rows ``rolled_ones_final_turns`` and the first-passage chances of the rules); at a
cycle tuple's randomising state it rolls with the stored probability (``rolled_ones_mixing``):
weighted exactly in the recursion, drawn in simulation.  Its final turn follows the stored
``best`` above the bar.  Seed 002's human policies read for N players as the build reads them
(``dicebase.builder.rolled_ones.nplayer_policies.human_decisions``: the last seat plays player 2's
cases, the others player 1's, "opponent" is the leading other player); on a final turn they roll
until above the bar, then hold.  With N = 2 this is the two-player game of ``rolled_ones.py`` (a
test checks that both give the same values).

Exact: per level of the score sum (descending), per seat, the turn's outcome distribution (held
turn total, or three 1s) is pushed forward over (turn total, 1s) for every tuple of the level at
once; the N turn starts of a tuple form one cycle (busts pass the turn), solved in closed form.
A hold at or above the goal starts the final round, evaluated for the seating: with 3 players the
seat after the mover takes a final turn (its own policy, or the stored rows for ``optimal``), then
the last seat, who holds as soon as it is above the bar, whatever its bot.  Four or more players
are refused (the final round of mixed seatings is not implemented).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays
from dicebase.bots.rolled_ones import COLUMNS, TAIL
from dicebase.errors import BadInput, NotInDatabase

MAX_N = 3


class RolledOnesN:
    """The Great Rolled Ones bots of one (variant, players) block of an open database."""

    def __init__(self, db, variant: str | None, players: int):
        if not 2 <= players <= MAX_N:
            raise BadInput(f"Great Rolled Ones tournaments take 2 to {MAX_N} players, got {players}")
        self.db = db
        self.b = db.rolled_ones.n.block(players, variant)
        self.variant_name = self.b.variant
        self.unit = "game"
        self.N = players
        self.rules = self.b.rules
        self.G, self.K = self.b.goal, self.b.turn_total_bound
        self.L, self.D = self.rules.ones_limit, self.rules.dice
        self.KT = self.K + TAIL  # human policies' turns run this far (P(a turn gains more than TAIL) < 1e-16)
        self.tol = self.b.tie_tolerance
        G, N = self.G, self.N
        idx = np.arange(G ** N)
        self.scores = np.stack([(idx // G ** (N - 1 - n)) % G for n in range(N)], axis=1)  # tuple index -> scores
        self.stride = np.array([G ** (N - 1 - n) for n in range(N)])

    @cached_property
    def outcomes(self) -> tuple[np.ndarray, ...]:
        """The rules' roll outcomes as padded arrays for the kernels: (p_end, prob, gain, next, count)."""
        oc = self.rules.outcomes
        width = max(len(x) for x in oc)
        prob, gain, nxt = (np.zeros((self.L, width)) for _ in range(3))
        for o in range(self.L):
            for x, (p, g, o2) in enumerate(oc[o]):
                prob[o, x], gain[o, x], nxt[o, x] = p, g, o2
        return (np.asarray(self.rules.p_end, dtype=float), prob, gain.astype(np.int64), nxt.astype(np.int64),
                np.array([len(x) for x in oc], dtype=np.int64))

    # -- stored values ------------------------------------------------------------------------
    @cached_property
    def starts(self) -> np.ndarray:
        """W[m, tuple, e]: the stored equilibrium win vector at seat m's turn start (0-based)."""
        N, G = self.N, self.G
        cols = ", ".join(f"score{n}" for n in range(1, N + 1))
        wins = ", ".join(f"p_win{n}" for n in range(1, N + 1))
        got = arrays(self.db, f"SELECT seat, {cols}, {wins} FROM rolled_ones_turn_starts WHERE variant = ? "
                              f"AND players = ?", self.b.key)
        if len(got["seat"]) != N * G ** N:
            raise NotInDatabase(f"rolled_ones_turn_starts lacks rows of {N} players; rebuild with: "
                                f"{self.db.rolled_ones.rebuild_command()}")
        at = sum(got[f"score{n + 1}"].astype(np.int64) * self.stride[n] for n in range(N))
        W = np.zeros((N, G ** N, N))
        W[got["seat"].astype(np.int64) - 1, at] = np.stack([got[f"p_win{n + 1}"].astype(float) for n in range(N)], 1)
        return W

    @cached_property
    def mixing(self) -> dict[tuple[int, int], np.ndarray]:
        """(seat m, tuple) -> q[k, o]: roll probabilities of a randomising seat (NaN: not mixed)."""
        N = self.N
        cols = ", ".join(f"score{n}" for n in range(1, N + 1))
        rows = self.db.fetchall(f"SELECT seat, {cols}, k, o, p_roll FROM rolled_ones_mixing WHERE variant = ? "
                                f"AND players = ?", self.b.key)
        out: dict[tuple[int, int], np.ndarray] = {}
        for seat, *rest in rows:
            scores, k, o, p = rest[:N], rest[N], rest[N + 1], rest[N + 2]
            at = int(sum(int(s) * int(st) for s, st in zip(scores, self.stride)))
            q = out.setdefault((int(seat) - 1, at), np.full((self.K + 1, self.L), np.nan))
            q[int(k), int(o)] = float(p)
        return out

    @cached_property
    def passage(self) -> np.ndarray:
        """fp[d, o, r - 1, o']: from d at or below the bar with o 1s set aside, always rolling, the
        chance to first pass the bar at bar + r with o' 1s (the lookups' ``first_passage``)."""
        from dicebase.query.rolled_ones_n import first_passage

        return np.asarray(first_passage(self.rules, self.G + self.KT + 2 * self.D), dtype=float)

    @cached_property
    def p_exceed(self) -> np.ndarray:
        """P(a turn from 0 ones gets more than d points) for d = 0 .. its top."""
        return self.passage[:, 0].sum(axis=(1, 2))

    def pex(self, d: np.ndarray) -> np.ndarray:
        pe = self.p_exceed
        return np.where(d < 0, 1.0, pe[np.clip(d, 0, len(pe) - 1)] * (d < len(pe)))

    @cached_property
    def finals(self) -> dict[str, np.ndarray] | None:
        """Seat 2's (0-based 1) final turn above the bar with 3 players, by (seat 3's score, total - G,
        ones): roll (stored best), p_bust, FA of seats 2 and 3; ``top``: the largest stored total."""
        if self.N != 3:
            return None
        G, L = self.G, self.L
        got = arrays(self.db, "SELECT score3, total, ones, best, p_bust, p_win2, p_win3 FROM rolled_ones_final_turns "
                              "WHERE variant = ? AND players = ? AND seat = 2", self.b.key)
        if not len(got["total"]):
            raise NotInDatabase(f"rolled_ones_final_turns lacks seat 2's rows of 3 players; rebuild with: "
                                f"{self.db.rolled_ones.rebuild_command()}")
        t = got["total"].astype(np.int64) - G
        top = int(t.max())
        s3 = got["score3"].astype(np.int64)
        o = got["ones"].astype(np.int64)
        shape = (G, top + 1, L)
        roll = np.zeros(shape, dtype=bool)
        stored = np.zeros(shape, dtype=bool)
        bust, fa2, fa3 = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        roll[s3, t, o] = np.asarray(got["best"]).astype(str) == "roll"
        stored[s3, t, o] = True
        bust[s3, t, o], fa2[s3, t, o], fa3[s3, t, o] = got["p_bust"], got["p_win2"], got["p_win3"]
        return {"roll": roll, "stored": stored, "bust": bust, "fa2": fa2, "fa3": fa3, "top": top}

    # -- the final round ------------------------------------------------------------------------
    def hold_at_goal(self, m: int, s: np.ndarray, X: np.ndarray, final_bots) -> np.ndarray:
        """Win vectors [n, x, N] when seat m holds at X[n, x] >= G in tuples s[n]: the final round
        with ``final_bots[j]`` playing seat j's final turn (seats after m; Great Rolled Ones gives
        the seats before the mover none)."""
        N = self.N
        out = np.zeros(X.shape + (N,))
        if m == N - 1:
            out[..., m] = 1.0
            return out
        if m == N - 2:  # one final turn: the last seat holds as soon as it is above the bar
            p = self.pex(X - s[:, N - 1, None])
            out[..., m], out[..., N - 1] = 1 - p, p
            return out
        # N = 3, m = 0: seat 2's final turn, then seat 3's
        fp = self.passage
        s2, s3 = s[:, 1, None], s[:, 2, None]
        Q = fp[np.minimum(X - s2, len(fp) - 1), 0]  # [n, x, r - 1, o']
        passed = Q.sum(axis=(2, 3))
        stay = self.pex(X - s3)  # seat 3 against the old bar X
        cc = 1.0 - passed
        for r in range(1, self.D + 1):
            t = X + r
            p_hold3 = self.pex(t - s3)
            for o2 in range(self.L):
                qq = Q[..., r - 1, o2]
                if final_bots[1] == "optimal":
                    f = self.finals
                    tt = np.minimum(t - self.G, f["top"])
                    ok = f["stored"][np.broadcast_to(s3, tt.shape), tt, o2] & (t - self.G <= f["top"])
                    sel = np.broadcast_to(s3, tt.shape)
                    fa2 = np.where(ok, f["fa2"][sel, tt, o2], 1 - p_hold3)
                    fa3 = np.where(ok, f["fa3"][sel, tt, o2], p_hold3)
                    cc = cc + qq * np.where(ok, f["bust"][sel, tt, o2], 0.0)
                else:  # it holds at once above the bar
                    fa2, fa3 = 1 - p_hold3, p_hold3
                out[..., 1] += qq * fa2
                out[..., 2] += qq * fa3
        out[..., 0] += cc * (1 - stay)
        out[..., 2] += cc * stay
        return out

    def final_table(self, m: int, final_bot: str) -> np.ndarray:
        """H[later, X - G, e]: :meth:`hold_at_goal` of seat m for every score tuple of the seats after
        it (``later``: their index in base G) and every bar X = G .. G + KT; ``final_bot``: the
        bot of seat m + 1 (it matters only for a final turn that is not the last)."""
        cache = self.__dict__.setdefault("_finals", {})
        key = (m, final_bot if m < self.N - 2 else "")
        if key not in cache:
            N, G = self.N, self.G
            later = N - 1 - m
            idx = np.arange(G ** later)
            s = np.zeros((len(idx), N), dtype=np.int64)
            for n in range(later):
                s[:, m + 1 + n] = (idx // G ** (later - 1 - n)) % G
            X = G + np.arange(self.KT + 1)  # a hold reaches at most G - 1 + KT
            bots = ["optimal"] * N
            bots[(m + 1) % N] = final_bot
            cache[key] = self.hold_at_goal(m, s, np.broadcast_to(X, (len(idx), len(X))), bots)
        return cache[key]

    def held_at_goal(self, m: int, s: np.ndarray, tot: np.ndarray, bots) -> np.ndarray:
        """Win vectors [n, g, N] where seat m's total tot[n, g] is at or above the goal (0 below)."""
        N, G = self.N, self.G
        H = self.final_table(m, bots[(m + 1) % N])
        later = sum(s[:, m + 1 + n] * G ** (N - 2 - m - n) for n in range(N - 1 - m)) if m < N - 1 else \
            np.zeros(len(s), dtype=np.int64)
        x = np.clip(tot - G, 0, H.shape[1] - 1)
        return np.where((tot >= G)[..., None], H[later[:, None], x], 0.0)

    # -- decisions ------------------------------------------------------------------------------
    def optimal_q(self, m: int, at: np.ndarray) -> np.ndarray:
        """q[n, k, o]: the optimal (stored-equilibrium) roll probability of seat m at the tuples
        ``at`` (k = 0..K; beyond K it holds), from the stored turn starts and the final round."""
        N, G, K, L, D = self.N, self.G, self.K, self.L, self.D
        W = self.starts
        s = self.scores[at]
        nxt = (m + 1) % N
        bust = W[nxt, at, m]
        k = np.arange(K + D + 1)
        tot = s[:, m, None] + k[None, :]
        below = tot < G
        hold = np.where(below, W[nxt, np.where(below, at[:, None] + k[None, :] * self.stride[m], 0), m], 0.0)
        if (~below).any():
            heq = self.held_at_goal(m, s, tot, ["optimal"] * N)[..., m]
            hold = np.where(below, hold, heq)
        from dicebase.bots.kernels import ro_optimal_q

        mixq = np.full((len(at), K + 1, L), np.nan)
        for r, a in enumerate(at):
            if (m, int(a)) in self.mixing:
                mixq[r] = self.mixing[(m, int(a))]
        q = ro_optimal_q(bust, hold, mixq, self.tol, *self.outcomes)
        return q

    @cached_property
    def _human(self) -> dict:
        return {}

    def human_roll(self, bot: str, m: int) -> np.ndarray:
        """roll[i, lead, k, o] (k <= K + TAIL) of seed 002's policy ``bot`` in seat m, read for N players."""
        key = (bot, m)
        if key not in self._human:
            from dicebase.builder.rolled_ones.nplayer_policies import human_decisions
            from dicebase.builder.rolled_ones.policies import POLICIES

            self._human[key] = human_decisions(POLICIES[COLUMNS[bot]].rule, self.rules, self.N, m, self.KT)
        return self._human[key]

    def decisions(self, bot: str, m: int, at: np.ndarray) -> np.ndarray:
        """q[n, k, o] for k = 0..KT: ``bot``'s roll probability in seat m at the tuples ``at``."""
        s = self.scores[at]
        q = np.zeros((len(at), self.KT + 1, self.L))
        if bot == "optimal":
            q[:, :self.K + 1] = self.optimal_table(m)[at]
            for r, a in enumerate(at):
                mq = self.mixing.get((m, int(a)))
                if mq is not None:
                    q[r, :self.K + 1] = np.where(np.isnan(mq), q[r, :self.K + 1], mq)
        else:
            lead = np.delete(s, m, axis=1).max(axis=1)
            q[:] = self.human_roll(bot, m)[s[:, m], lead]
        q[:, 0, 0] = 1.0
        return q

    # -- exact ----------------------------------------------------------------------------------
    def turn(self, q: np.ndarray) -> np.ndarray:
        """T[n, g]: the turn's chance to hold g points (g = 0: three 1s) under roll probabilities q."""
        from dicebase.bots.kernels import ro_turns

        T = ro_turns(np.ascontiguousarray(q), *self.outcomes)
        return T

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        """Each seat's win probability from the start (kept per seating while the file is open)."""
        cache = self.__dict__.setdefault("_exact", {})
        if tuple(bots) not in cache:
            cache[tuple(bots)] = {"win": self.values(bots)[0, 0]}
        return cache[tuple(bots)]

    def values(self, bots: list[str]) -> np.ndarray:
        """V[m, tuple, e]: every seat's win probability at seat m's turn start, the seats played by ``bots``."""
        N, G, KT = self.N, self.G, self.KT
        V = np.zeros((N, G ** N, N))
        level = self.scores.sum(axis=1)
        g = np.arange(1, KT + 1)
        for lv in range(N * (G - 1), -1, -1):
            at = np.flatnonzero(level == lv)
            s = self.scores[at]
            a, b = [], []
            for m in range(N):
                T = self.turn(self.decisions(bots[m], m, at))
                tot = s[:, m, None] + g[None, :]
                below = tot < G
                nxt = V[(m + 1) % N, np.where(below, at[:, None] + g[None, :] * self.stride[m], 0)]
                nxt = np.where(below[..., None], nxt, 0.0)
                if (~below).any():
                    h = self.held_at_goal(m, s, tot, bots)
                    nxt = np.where(below[..., None], nxt, h)
                a.append((T[:, 1:, None] * nxt).sum(axis=1))
                b.append(T[:, 0])
            # the cycle of busts: V_m = a_m + b_m V_{m+1}, seats in order, wrapping
            acc, prod = np.zeros_like(a[0]), np.ones(len(at))
            for m in range(N):
                acc += prod[:, None] * a[m]
                prod = prod * b[m]
            V[0, at] = acc / (1 - prod)[:, None]
            for m in range(N - 1, 0, -1):
                V[m, at] = a[m] + b[m][:, None] * V[(m + 1) % N, at]
        return V

    # -- simulation -------------------------------------------------------------------------------
    def optimal_table(self, m: int) -> np.ndarray:
        """roll[tuple, k, o] of the optimal bot in seat m, every tuple, computed level by level
        (``optimal_q``; a randomising state reads ``mixing`` instead: weighted in the recursion,
        drawn in simulation).  One bool a state: 30 MB a seat at goal 50."""
        cache = self.__dict__.setdefault("_optimal_tables", {})
        if m not in cache:
            G, N = self.G, self.N
            table = np.zeros((G ** N, self.K + 1, self.L), dtype=bool)
            level = self.scores.sum(axis=1)
            for lv in range(N * (G - 1) + 1):
                at = np.flatnonzero(level == lv)
                table[at] = self.optimal_q(m, at) >= 0.5
            cache[m] = table
        return cache[m]

    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Wins of each seat over ``games`` games played with dice (each roll's 1s drawn binomially;
        a randomising optimal seat draws its stored roll probability)."""
        N, G, K, KT, L, D = self.N, self.G, self.K, self.KT, self.L, self.D
        q1 = 1.0 / self.rules.faces
        tables = [self.optimal_table(m) if b == "optimal" else self.human_roll(b, m) for m, b in enumerate(bots)]
        mix = {(m, a): q for (m, a), q in self.mixing.items() if bots[m] == "optimal"}
        mix_at = {m: np.array([a for (mm, a) in mix if mm == m]) for m in {mm for mm, _ in mix}}
        f = self.finals
        n = games
        score = np.zeros((n, N), dtype=np.int64)
        p = np.zeros(n, dtype=np.int64)
        k = np.zeros(n, dtype=np.int64)
        o = np.zeros(n, dtype=np.int64)
        final = np.zeros(n, dtype=bool)  # the final round: seats after the one that reached the goal
        bar = np.zeros(n, dtype=np.int64)
        leader = np.zeros(n, dtype=np.int64)
        wins = np.zeros(N)
        while n:
            rows = np.arange(n)
            me = score[rows, p]
            at = (np.minimum(score, G - 1) * self.stride).sum(axis=1)
            roll = np.zeros(n, dtype=bool)
            for m, b in enumerate(bots):
                sel = (p == m) & ~final
                if not sel.any():
                    continue
                if b == "optimal":
                    r = tables[m][at[sel], np.minimum(k[sel], K), o[sel]] & (k[sel] <= K)
                    mixed_at = mix_at.get(m)
                    if mixed_at is not None:
                        games_m = np.flatnonzero(sel)
                        for x in np.flatnonzero(np.isin(at[sel], mixed_at) & (k[sel] <= K)):
                            t = games_m[x]
                            q = mix[(m, int(at[t]))][k[t], o[t]]
                            if not np.isnan(q):
                                r[x] = rng.random() < q
                else:
                    lead = np.delete(score[sel], m, axis=1).max(axis=1)
                    r = tables[m][me[sel], lead, np.minimum(k[sel], KT), o[sel]] & (k[sel] < KT)
                roll[sel] = r
            # final turns: roll until above the bar; then the optimal seat 2 of 3 follows the stored best
            tot = me + k
            fr = final & (tot <= bar)
            if f is not None:
                opt2 = final & (tot > bar) & (p == 1) & (bots[1] == "optimal")
                if opt2.any():
                    tt = np.minimum(tot[opt2] - G, f["top"])
                    s3 = score[opt2, 2]
                    fr[opt2] = f["roll"][s3, tt, o[opt2]] & f["stored"][s3, tt, o[opt2]] & (tot[opt2] - G <= f["top"])
            roll = np.where(final, fr, roll) | (k == 0)
            ones = rng.binomial(D - o, q1)
            bust = roll & (o + ones >= L)
            gained = roll & ~bust
            k = np.where(gained, k + (D - o - ones), k)
            o = np.where(gained, o + ones, o)
            ended = ~gained
            total = me + np.where(bust, 0, k)
            held = ended & ~bust
            score[rows, p] = np.where(held, total, me)
            # a final turn that holds takes the lead; the normal turn that reaches the goal starts the round
            take = held & final
            bar = np.where(take, total, bar)
            leader = np.where(take, p, leader)
            start = held & ~final & (total >= G)
            bar = np.where(start, total, bar)
            leader = np.where(start, p, leader)
            final = final | start
            nxt = np.where(ended, p + 1, p)
            done = final & ended & (nxt >= N)  # the last seat's turn ended in the final round
            if done.any():
                wins += np.bincount(leader[done], minlength=N)
            p = np.where(ended, nxt % N, p)
            k = np.where(ended, 0, k)
            o = np.where(ended, 0, o)
            live = ~done
            score, p, k, o, final, bar, leader = (x[live] for x in (score, p, k, o, final, bar, leader))
            n = len(p)
        return {"win": wins}
