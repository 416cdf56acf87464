"""Great Rolled Ones bots for N players (2 to 4 seats where the N-player tables exist, docs/n_players.md).

``optimal`` plays the stored equilibrium: its decision at a mid-turn state is the one the lookups
compute (``rolled-ones best --scores``): roll when rolling beats holding by more than the block's
tie tolerance in its own win probability, the values computed from the stored turn starts
(``rolled_ones_turn_starts``) and, for a hold at or above the goal, the final round (the stored
above-the-bar rows ``rolled_ones_final_turns`` and the first-passage chances of the rules); at a
cycle tuple's randomising state it rolls with the stored probability (``rolled_ones_mixing``):
weighted exactly in the recursion, drawn in simulation.  Its final turn follows the stored
``best`` above the bar.  Seed 002's human policies read for N players as the build reads them
(``dicebase.numeric.rolled_ones_policies.human_decisions``: the last seat plays player 2's
cases, the others player 1's, "opponent" is the leading other player); on a final turn they roll
until above the bar, then hold.  With N = 2 this is the two-player game of ``rolled_ones.py`` (a
test checks that both give the same values).

Exact: per level of the score sum (descending), per seat, the turn's outcome distribution (held
turn total, or three 1s) is pushed forward over (turn total, 1s) for every tuple of the level at
once; the N turn starts of a tuple form one cycle (busts pass the turn), solved in closed form.
A hold at or above the goal starts the final round, evaluated for the seating: every later seat
takes one final turn in order, the bar the highest score so far; below the bar it must roll (the
first-passage chances), above it an ``optimal`` seat plays the stored rows for its position and the
later seats' scores (their stored values where every later seat that still chooses is optimal,
else its stored decisions evaluated against the later seats' play), a seed 002 policy holds at once,
and the last seat holds as soon as it is above the bar, whatever its bot (``phi_table``, one table a
seat and seating from the last seat back).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays, solve_cycles
from dicebase.bots.rolled_ones import COLUMNS, TAIL
from dicebase.errors import BadInput, NotInDatabase

MAX_N = 4  # the largest N-player build (rules.rolled_ones.MAX_PLAYERS)


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
        from dicebase.numeric.rolled_ones_turn import outcome_arrays

        return outcome_arrays(self.rules)

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
        chance to first pass the bar at bar + r with o' 1s (:func:`dicebase.rules.rolled_ones_turn.first_passage`)."""
        from dicebase.rules.rolled_ones_turn import first_passage

        Q = first_passage(self.rules, self.G + self.KT + 2 * self.D)
        return np.array(Q.flat()).reshape(Q.shape)

    @cached_property
    def p_exceed(self) -> np.ndarray:
        """P(a turn from 0 ones gets more than d points) for d = 0 .. its top."""
        return self.passage[:, 0].sum(axis=(1, 2))

    def pex(self, d: np.ndarray) -> np.ndarray:
        pe = self.p_exceed
        return np.where(d < 0, 1.0, pe[np.clip(d, 0, len(pe) - 1)] * (d < len(pe)))

    @cached_property
    def finals(self) -> dict[int, dict]:
        """Seat j's (0-based, 1 <= j <= N - 2) stored final turn above the bar, by (index of the later
        seats' scores in base G, seat j + 1 most significant; total - G; ones): ``roll`` (stored best),
        ``bust`` (p_bust), ``fa[..., N - j]`` (the win probabilities of seats j..N-1 from its holding
        outcomes) and ``top`` (the largest stored total - G).  The last seat holds as soon as it is
        above the bar whatever its bot: its rows are not read."""
        N, G, L = self.N, self.G, self.L
        out = {}
        for j in range(1, N - 1):
            later = [f"score{n + 1}" for n in range(j + 1, N)]
            wins = [f"p_win{n + 1}" for n in range(j, N)]
            got = arrays(self.db, f"SELECT {', '.join(later)}, total, ones, best, p_bust, {', '.join(wins)} "
                                  f"FROM rolled_ones_final_turns WHERE variant = ? AND players = ? AND seat = ?",
                         (*self.b.key, j + 1))
            t = got["total"].astype(np.int64) - G
            top = int(t.max()) if len(t) else 0
            R = G ** len(later)
            if not len(t) or len(t) != R * top * L:
                raise NotInDatabase(f"rolled_ones_final_turns lacks seat {j + 1}'s rows of {N} players; rebuild "
                                    f"with: {self.db.rolled_ones.rebuild_command()}")
            at = sum(got[c].astype(np.int64) * G ** (len(later) - 1 - n) for n, c in enumerate(later))
            o = got["ones"].astype(np.int64)
            roll = np.zeros((R, top + 1, L), dtype=bool)
            bust = np.zeros((R, top + 1, L))
            fa = np.zeros((R, top + 1, L, N - j))
            roll[at, t, o] = np.asarray(got["best"]).astype(str) == "roll"
            bust[at, t, o] = got["p_bust"]
            fa[at, t, o] = np.stack([got[w].astype(float) for w in wins], axis=1)
            out[j] = {"roll": roll, "bust": bust, "fa": fa, "top": top}
        return out

    # -- the final round ------------------------------------------------------------------------
    @property
    def bars(self) -> int:
        """Bars X = G .. G + bars - 1 of the final-round tables: a hold reaches at most G - 1 + KT, and
        each final turn raises the bar by at most ``dice`` past where it holds (beyond: clipped, a
        chance below 1e-16)."""
        return self.KT + 1 + self.N * self.D

    def phi_table(self, j: int, optimal: tuple[bool, ...]) -> np.ndarray:
        """P[idx, X - G, roles]: the final round from 0-based seat j's final turn with bar X (X = G ..
        G + bars - 1); ``idx``: the scores of seats j..N-1 in base G (seat j most significant); roles
        [leader, j, .., N-1].  ``optimal[i]``: seat j + i (j + i < N - 1) plays the stored final turns
        (optimal), else it rolls until above the bar and holds (seed 002's policies); the last seat
        holds as soon as it is above the bar.  Every final turn below the bar must roll: the first
        passage above it (``passage``); above it ``above_bar``; the two meet as in the solver
        (:func:`dicebase.numeric.rolled_ones_turn.final_starts`)."""
        cache = self.__dict__.setdefault("_phi", {})
        key = (j, optimal)
        if key not in cache:
            N, G, D = self.N, self.G, self.D
            nb = self.bars
            X = G + np.arange(nb)
            if j == N - 1:
                p = self.pex(X[None, :] - np.arange(G)[:, None])
                cache[key] = np.stack([1 - p, p], axis=-1)
            else:
                from dicebase.numeric.rolled_ones_turn import final_starts

                nxt = self.phi_table(j + 1, optimal[1:])  # [R, nb, N - j]: roles [leader, j + 1, ..]
                A, c = self.above_bar(j, optimal, nxt)
                out = np.empty((G, nxt.shape[0], nb, N - j + 1))
                final_starts(D, self.L, np.ascontiguousarray(self.passage[:, 0]), A, c, nxt, out)
                cache[key] = out.reshape(G * nxt.shape[0], nb, N - j + 1)
        return cache[key]

    def above_bar(self, j: int, optimal: tuple[bool, ...], nxt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(A[R, t - G, o, roles], c[R, t - G, o]) for t - G = 0 .. bars + D - 1: seat j's final turn above
        the bar at total t with o 1s (R: the later seats' scores), its value ``A + c * (the final round
        from seat j + 1 against the old bar)``, roles [j, j + 1, .., N-1].  A seed 002 policy holds at
        once (``A`` = the final round from seat j + 1 with j leading at t, ``c`` = 0).  An optimal seat
        plays the stored ``best``: its stored values where the seats after it that still choose play
        them too, else those decisions evaluated against the later seats' play; beyond the stored
        totals it holds."""
        R, nb, roles = nxt.shape
        D, L = self.D, self.L
        T = nb + D
        A = np.repeat(nxt[:, np.minimum(np.arange(T), nb - 1), None, :], L, axis=2)
        c = np.zeros((R, T, L))
        if optimal[0]:
            f = self.finals[j]
            top = f["top"]
            if all(optimal[1:]):  # the stored continuation: the stored values as they are
                A[:, 1:top + 1] = f["fa"][:, 1:]
                c[:, 1:top + 1] = f["bust"][:, 1:]
            else:  # the stored decisions against the later seats' play: the solver's free_turn, from the top down
                from dicebase.numeric.rolled_ones_turn import free_turn

                hold = np.ascontiguousarray(A[:, :, 0])
                for r in range(R):
                    free_turn(roles, L, 0.0, top, 1, top, 0, hold[r], A[r], c[r], f["roll"][r], True, f["roll"][r],
                              *self.outcomes, np.empty(roles))
        return A, c

    def hold_at_goal(self, m: int, s: np.ndarray, X: np.ndarray, bots) -> np.ndarray:
        """Win vectors [n, x, N] when seat m holds at X[n, x] >= G in tuples s[n]: every seat after m
        takes one final turn in order (Great Rolled Ones gives the seats before the mover none), the
        bar the highest score so far, ``bots[j]`` playing seat j's."""
        N, G = self.N, self.G
        out = np.zeros(X.shape + (N,))
        if m == N - 1:
            out[..., m] = 1.0
            return out
        P = self.phi_table(m + 1, tuple(b == "optimal" for b in bots[m + 1:N - 1]))
        idx = sum(s[:, m + 1 + n].astype(np.int64) * G ** (N - 2 - m - n) for n in range(N - 1 - m))
        got = P[idx[:, None], np.clip(X - G, 0, self.bars - 1)]
        out[..., m] = got[..., 0]
        out[..., m + 1:] = got[..., 1:]
        return out

    def held_at_goal(self, m: int, s: np.ndarray, tot: np.ndarray, bots) -> np.ndarray:
        """Win vectors [n, g, N] where seat m's total tot[n, g] is at or above the goal (0 below)."""
        out = np.zeros(tot.shape + (self.N,))
        r, c = np.nonzero(tot >= self.G)
        if len(r):
            out[r, c] = self.hold_at_goal(m, s[r], tot[r, c, None], bots)[:, 0]
        return out

    def mixed_rows(self, m: int, at: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """(row, q[k, o]) for the tuples ``at`` where seat m randomises (``mixing``)."""
        keys = self.__dict__.setdefault("_mixed_at", {})
        if m not in keys:
            keys[m] = np.array(sorted(a for (mm, a) in self.mixing if mm == m), dtype=np.int64)
        return [(int(r), self.mixing[(m, int(at[r]))]) for r in np.flatnonzero(np.isin(at, keys[m]))]

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
        from dicebase.numeric.rolled_ones_turn import mover_decisions

        mixq = np.full((len(at), K + 1, L), np.nan)
        for r, mq in self.mixed_rows(m, at):
            mixq[r] = mq
        p_end, prob, gain, nxt_o, count = self.outcomes
        return mover_decisions(m, bust, np.ascontiguousarray(hold), mixq, self.tol, p_end, prob, gain, nxt_o, count)

    @cached_property
    def _human(self) -> dict:
        return {}

    def human_roll(self, bot: str, m: int) -> np.ndarray:
        """roll[i, lead, k, o] (k <= K + TAIL) of seed 002's policy ``bot`` in seat m, read for N players."""
        key = (bot, m)
        if key not in self._human:
            from dicebase.numeric.rolled_ones_policies import POLICIES, human_decisions

            self._human[key] = human_decisions(POLICIES[COLUMNS[bot]].rule, self.rules, self.N, m, self.KT)
        return self._human[key]

    def decisions(self, bot: str, m: int, at: np.ndarray) -> np.ndarray:
        """q[n, k, o] for k = 0..KT (``optimal``: k = 0..K + D, it holds beyond K): ``bot``'s roll
        probability in seat m at the tuples ``at``."""
        s = self.scores[at]
        q = np.zeros((len(at), (self.K + self.D if bot == "optimal" else self.KT) + 1, self.L))
        if bot == "optimal":
            q[:, :self.K + 1] = self.optimal_table(m)[at]
            for r, mq in self.mixed_rows(m, at):
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
        N, G = self.N, self.G
        V = np.zeros((N, G ** N, N))
        level = self.scores.sum(axis=1)
        for lv in range(N * (G - 1), -1, -1):
            at = np.flatnonzero(level == lv)
            s = self.scores[at]
            a, b = [], []
            for m in range(N):
                T = self.turn(self.decisions(bots[m], m, at))
                held = np.flatnonzero(T[:, 1:].any(axis=0))  # totals past the last one held add exact zeros
                g = np.arange(1, (held[-1] + 2) if len(held) else 1)
                tot = s[:, m, None] + g[None, :]
                below = tot < G
                nxt = V[(m + 1) % N, np.where(below, at[:, None] + g[None, :] * self.stride[m], 0)]
                nxt = np.where(below[..., None], nxt, 0.0)
                if (~below).any():
                    h = self.held_at_goal(m, s, tot, bots)
                    nxt = np.where(below[..., None], nxt, h)
                a.append((T[:, 1:len(g) + 1, None] * nxt).sum(axis=1))
                b.append(T[:, 0])
            # the cycle of busts: V_m = a_m + b_m V_{m+1}, seats in order, wrapping
            for m, v in enumerate(solve_cycles(a, b)):
                V[m, at] = v
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
            # final turns: roll until above the bar; then an optimal seat before the last follows the stored best
            tot = me + k
            fr = final & (tot <= bar)
            for j, fj in f.items():
                if bots[j] != "optimal":
                    continue
                opt = final & (tot > bar) & (p == j)
                if opt.any():
                    rest = sum(score[opt, nn] * G ** (N - 1 - nn) for nn in range(j + 1, N))
                    tt = tot[opt] - G
                    fr[opt] = fj["roll"][rest, np.minimum(tt, fj["top"]), o[opt]] & (tt <= fj["top"])
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
