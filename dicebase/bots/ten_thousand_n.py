"""10,000 bots for N players (3 or 4 seats; the N-player tables of docs/n_players.md), mixed lineups included.

``optimal`` plays the stored equilibrium (``ten_thousand_turn_starts``, ``ten_thousand_final_round``,
``ten_thousand_mixing``) with the lookups' own decisions (``db.ten_thousand.n.state`` / ``n.best``): roll or bank by
its own stored values with the tie-break, after a roll the keep ``n.best`` ranks first, the stored roll and keep
probabilities of a cycle tuple, and a final turn (a seat has banked at or above the goal, every other seat takes
one) as the lookups play it.  It does not adapt to the other seats' bots: they may be ``seed004`` or ``bank-T``,
which play as in the two-player game (:mod:`dicebase.bots.ten_thousand`: the most dice, then the most points;
bank from their threshold, whatever the scores; on a final turn roll until above the bar, then bank).

Exact (:meth:`TenThousandN.values`): per level of the score sum, descending, each seat's turn at every tuple of
the level: a fixed bot's turn distribution of banked points (``TenThousand.turn_distribution``, the same at every
tuple) weighted with what each bank leads to; the optimal seat's turn computed per tuple by a numba kernel
(:func:`dicebase.bots.ten_thousand_n_kernels.tt_n_turns`) that walks the turn from its stored ``kmax`` down, its
decisions from its own stored values, its win vector for the lineup under them.  Each turn is affine in what a
farkle leaves (``A + B * next seat's start``), so the N turn starts of a tuple (a cycle through farkles) are solved
in closed form.  A bank at or above the goal starts the final round, evaluated for the seating: the seats after
the leader in order, each by its own bot (the optimal one by :func:`~dicebase.bots.ten_thousand_n_kernels.tt_n_final`
over its own stored values, the last one by ``P_exceed``; a fixed bot by its distribution of the points it ends
above the bar, from the max-dice keeps).  Where a fixed bot banks further above the others than the stored final
round reaches (``deficits`` of ``ten_thousand_players``), the optimal seat's values there are extended by the same
equations: ``P_exceed`` from the rules (:func:`dicebase.numeric.ten_thousand_turn.exceed_table`, equal to the
stored rows where both exist) and, for 4 players, ``Phi_2`` of two optimal seats recomputed by the final-turn
kernel; its final turn there banks as soon as it is above the bar, as the lookups' "forced" rule says past the
stored deficits.  With every seat ``optimal`` :meth:`exact` is the stored turn start of seat 1 at scores 0, and
the recursion gives it back (tests/test_bots_ten_thousand_n.py).

Its decisions and simulation with dice: :class:`dicebase.bots.ten_thousand_n_play.Play`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays, solve_cycles
from dicebase.bots.ten_thousand_n_play import Play
from dicebase.errors import BadInput, NotInDatabase
from dicebase.rules.ten_thousand import RuleSet


class TenThousandN(Play):
    """The 10,000 bots of one (rule set, players) N-player block of an open database."""

    def __init__(self, db, rules: str | None, players: int):
        self.db = db
        sets = db.ten_thousand.rule_sets()
        name = rules if rules is not None else ("ten-thousand" if "ten-thousand" in sets else next(iter(sets)))
        if name not in sets:
            raise BadInput(f"unknown rule set {name!r}; this database has: {', '.join(sets)}")
        self.variant_name = name
        self.unit = "game"
        self.N = int(players)
        self.block = db.ten_thousand.n.block(self.N, name)  # NotInDatabase (with the rebuild command) if not built
        self.goal = int(self.block.goal)
        self.dice = int(sets[name]["dice"])
        self._roll: dict = {}
        self._keep: dict = {}
        self._options: dict = {}
        stored = sets[name]
        self.rules = RuleSet(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored.items()})

    @staticmethod
    def check(bots: list[str]) -> None:
        """Every lineup of 3 or 4 known bots plays (the names are checked by ``bots._check_bots``; a rule set the
        fixed bots cannot play, or a bad threshold, is refused in one line when the engine reads them)."""
        return None

    # -- exact ------------------------------------------------------------------------------------
    def start_vector(self) -> np.ndarray:
        """The stored win vector at seat 1's turn start, every score 0."""
        N = self.N
        cols = ", ".join(f"p_win{n}" for n in range(1, N + 1))
        zeros = " AND ".join(f"score{n} = 0" for n in range(1, N + 1))
        row = self.db.fetchall(f"SELECT {cols} FROM ten_thousand_turn_starts WHERE rules = ? AND goal = ? AND "
                               f"players = ? AND seat = 1 AND {zeros}", (self.variant_name, self.goal, N))
        if not row:
            raise NotInDatabase(f"ten_thousand_turn_starts lacks the start of {N} players to {self.goal}")
        return np.array([float(x) for x in row[0]])

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        """Each seat's win probability from the start: the stored vector when every seat is optimal, else the
        recursion (:meth:`values`), kept per seating while the file is open."""
        bots = list(bots)
        if all(b == "optimal" for b in bots):
            return {"win": self.start_vector()}
        cache = self.__dict__.setdefault("_exact", {})
        if tuple(bots) not in cache:
            cache[tuple(bots)] = {"win": self.values(bots)[0, 0].copy()}
        return cache[tuple(bots)]

    # -- what the recursion reads ------------------------------------------------------------------
    @cached_property
    def u(self) -> int:
        return int(self.block.unit)

    @cached_property
    def G(self) -> int:
        return self.goal // self.u

    @cached_property
    def stride(self) -> np.ndarray:
        return np.array([self.G ** (self.N - 1 - n) for n in range(self.N)], dtype=np.int64)

    @cached_property
    def scores(self) -> np.ndarray:
        """scores[tuple, seat] (units) of every tuple index (base G, seat 1 the most significant digit)."""
        idx = np.arange(self.G ** self.N, dtype=np.int64)
        return np.stack([(idx // st) % self.G for st in self.stride], axis=1)

    @cached_property
    def mv(self) -> dict:
        """The lookups' moves (``db.ten_thousand.n.moves``: roll groups and keeps in tie-break order) as the flat
        arrays of their layout (``db.ten_thousand.n.layout``), in units."""
        m = self.db.ten_thousand.n.moves(self.rules)
        lay = self.db.ten_thousand.n.layout(self.rules)
        i64 = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
        return {"sg": i64(lay.sg), "gp": np.array(lay.gp, dtype=float), "go": i64(lay.go), "op": i64(lay.op),
                "ost": i64(lay.ost), "pf": np.array(lay.pf, dtype=float), "maxp": int(m.max_pts),
                "pf_min": float(min(m.pf)), "c0": m.states.index((self.dice, 0)), "states": m.states}

    def _kernel_moves(self) -> tuple:
        mv = self.mv
        return mv["sg"], mv["gp"], mv["go"], mv["op"], mv["ost"], mv["pf"]

    @cached_property
    def stored(self) -> tuple[np.ndarray, np.ndarray]:
        """(W[m, tuple, e], kmax[m, tuple]): every stored turn start (kmax in units)."""
        N, u = self.N, self.u
        sc = ", ".join(f"score{n}" for n in range(1, N + 1))
        wins = ", ".join(f"p_win{n}" for n in range(1, N + 1))
        got = arrays(self.db, f"SELECT seat, {sc}, {wins}, kmax FROM ten_thousand_turn_starts WHERE rules = ? AND "
                              f"goal = ? AND players = ?", self.block.key)
        if len(got["seat"]) != N * self.G ** N:
            raise NotInDatabase(f"ten_thousand_turn_starts lacks rows of {N} players to {self.goal}; rebuild with: "
                                f"{self.db.ten_thousand.rebuild_command()}")
        at = sum((got[f"score{n + 1}"].astype(np.int64) // u) * self.stride[n] for n in range(N))
        seat = got["seat"].astype(np.int64) - 1
        W = np.zeros((N, self.G ** N, N))
        K = np.zeros((N, self.G ** N), dtype=np.int64)
        W[seat, at] = np.stack([got[f"p_win{n + 1}"].astype(float) for n in range(N)], axis=1)
        K[seat, at] = got["kmax"].astype(np.int64) // u
        return W, K

    @cached_property
    def mixing(self) -> dict:
        """(seat m, tuple) -> (rolls [(total, class, p_roll)], keeps [(total, global group, first, second,
        p_first)]): the stored mixed decisions of the cycle tuples (units)."""
        N, u, mv = self.N, self.u, self.mv
        sc = ", ".join(f"score{n}" for n in range(1, N + 1))
        rows = self.db.fetchall(f"SELECT seat, {sc}, turn_total, dice, triple, decision, roll_group, keep_first, "
                                f"keep_second, probability FROM ten_thousand_mixing WHERE rules = ? AND goal = ? AND "
                                f"players = ?", self.block.key)
        out: dict = {}
        for seat, *rest in rows:
            scores, (k, n, t, decision, g, a, z, p) = rest[:N], rest[N:]
            at = int(sum((int(x) // u) * int(st) for x, st in zip(scores, self.stride)))
            c = mv["states"].index((int(n), int(t)))
            rolls, keeps = out.setdefault((int(seat) - 1, at), ([], []))
            if decision == "roll":
                rolls.append((int(k) // u, c, float(p)))
            else:
                keeps.append((int(k) // u, int(mv["sg"][c]) + int(g), int(a), int(z), float(p)))
        return out

    @cached_property
    def stored_final(self) -> dict[int, np.ndarray]:
        """r -> Phi_r[deficit, pattern, role] of the stored final round (every seat optimal): ``r`` seats still to
        take a final turn, ``deficit`` the bar minus the first one's score (units), ``pattern`` the others'
        deficits minus the first's (each + G - 1, in base 2G - 1), roles [leader, later...]."""
        N, G, u = self.N, self.G, self.u
        B = 2 * G - 1
        roles = ", ".join(("p_leader", "p_later1", "p_later2", "p_later3")[:N])
        got = arrays(self.db, f"SELECT later, gap2, gap3, deficit, {roles} FROM ten_thousand_final_round WHERE "
                              f"rules = ? AND goal = ? AND players = ?", self.block.key)
        later = got["later"].astype(np.int64)
        g2 = got["gap2"].astype(np.int64) // u + G - 1
        g3 = got["gap3"].astype(np.int64) // u + G - 1
        d = got["deficit"].astype(np.int64) // u
        names = ("p_leader", "p_later1", "p_later2", "p_later3")
        out = {}
        for r in range(1, N):
            sel = later == r
            rows = self.block.deficits[r]
            if int(sel.sum()) != rows * B ** (r - 1):
                raise NotInDatabase(f"ten_thousand_final_round lacks rows of {N} players to {self.goal}; rebuild "
                                    f"with: {self.db.ten_thousand.rebuild_command()}")
            pattern = (g2[sel] * B + g3[sel]) if r == 3 else g2[sel] if r == 2 else np.zeros(int(sel.sum()), int)
            phi = np.zeros((rows, B ** (r - 1), r + 1))
            phi[d[sel], pattern] = np.stack([got[names[j]].astype(float)[sel] for j in range(r + 1)], axis=1)
            out[r] = phi
        return out

    @cached_property
    def pexc_stored(self) -> np.ndarray:
        """The lookups' ``P_exceed`` list: 0 at deficit 0, then the stored ``Phi_1`` (``NPlayers.pexc``)."""
        p = self.stored_final[1][:, 0, 1].copy()
        p[0] = 0.0
        return p

    def pexc_to(self, top: int, stored: bool = True) -> np.ndarray:
        """P_exceed(d) for d = 0 .. top: the stored rows, extended past them by the rules' exceed table (``stored``
        False: the rules' table throughout)."""
        have = self.pexc_stored
        if stored and top < len(have):
            return have[: top + 1].copy()
        from dicebase.numeric.ten_thousand_turn import exceed_table

        E = exceed_table(self.rules, top + 1)  # E[need, class]: gain at least need units
        out = E[1: top + 2, self.mv["c0"]].astype(float)
        if stored:
            out[: len(have)] = have
        return out

    # -- the fixed bots (two-player module) ----------------------------------------------------------
    @cached_property
    def two(self):
        """The two-player bots of the rule set (:class:`dicebase.bots.ten_thousand.TenThousand`): the fixed
        bots' thresholds, rolls and turn distributions (BadInput for a rule set they do not play)."""
        from dicebase.bots.ten_thousand import TenThousand

        return TenThousand(self.db, self.variant_name)

    def turn_distribution(self, bot: str) -> np.ndarray:
        """T[g]: a fixed bot's chance to bank g units in a turn (g = 0: a farkle), whatever the scores."""
        return self.two.turn_distribution(bot)

    @cached_property
    def _max_dice(self):
        from dicebase.numeric.ten_thousand_turn import max_dice_flat

        return max_dice_flat(self.rules)

    def final_excess(self, top: int) -> tuple[np.ndarray, np.ndarray]:
        """(X[d, e], fail[d]) of a fixed bot's final turn from ``d`` units below the bar (d = 0 .. top): the
        chance it ends ``e`` units above the bar (rolling until above it with the max-dice keep, then banking),
        and the chance it fails (a farkle, or every die scored without hot dice below the bar)."""
        cache = self.__dict__.setdefault("_excess", {})
        if cache.get("top", -1) >= top:
            X, fail = cache["X"], cache["fail"]
            return X[: top + 1], fail[: top + 1]
        fl = self._max_dice
        S = int(fl.n_states)
        gc = np.repeat(np.arange(S), np.diff(fl.state_group))
        pts = fl.opt_pts[fl.group_opt[:-1]].astype(np.int64)
        nxt = fl.opt_state[fl.group_opt[:-1]].astype(np.int64)
        gp = fl.group_prob.astype(float)
        P = int(fl.max_pts)
        E = np.zeros((top + 1, S, P + 1))  # E[d, c, e]: from d below the bar in class c, end e above it
        for d in range(top + 1):
            over = pts > d
            np.add.at(E[d], (gc[over], pts[over] - d), gp[over])
            on = ~over
            if on.any():
                np.add.at(E[d], gc[on], gp[on, None] * E[d - pts[on], nxt[on]])
        c0 = self.mv["c0"]
        X = E[:, c0, :]
        fail = 1.0 - X.sum(axis=1)
        cache.update(top=top, X=X, fail=fail)
        return X, fail

    # -- the final round for a seating ---------------------------------------------------------------
    @cached_property
    def bank_excess(self) -> int:
        """The most units an optimal seat's final turn (not the last) ends above the bar: the stored final round
        makes it bank from the first total where the seats after it can hardly pass it (the lookups' ``forced``:
        at worst every later seat 1 unit below the bar), and a roll there adds at most ``maxp``."""
        pex, limit = self.pexc_stored, self.mv["pf_min"] * self.block.final_scale
        e = 1
        while 1 + e < len(pex) and max(self.N - 2, 1) * pex[1 + e] > limit:
            e += 1
        return e + self.mv["maxp"]

    def extents(self, bots: tuple) -> list[int]:
        """E[r]: the largest deficit (units) of the first of ``r`` seats still to play that the lineup reaches."""
        N, G, mv = self.N, self.G, self.mv
        _W, K = self.stored
        top = 0
        for b in set(bots):  # the highest bank: the optimal seat's past kmax, a fixed bot's longest turn
            reach = int(K.max()) + mv["maxp"] if b == "optimal" else len(self.turn_distribution(b)) - 1
            top = max(top, G - 1 + reach)
        E = [0] * N
        E[N - 1] = top
        for r in range(N - 1, 1, -1):
            E[r - 1] = E[r] + G - 1 + max(self.bank_excess, mv["maxp"])
        return E

    @cached_property
    def own_extents(self) -> list[int]:
        """The extents of the final round that the optimal seat's own stored values need (its banks)."""
        return self.extents(("optimal",))

    def phi(self, bots: tuple, E: list[int], stored: bool = True) -> np.ndarray:
        """Phi[deficit, pattern, role] of the final round when the seats ``bots`` (their bots, in play order) still
        take a final turn: roles [leader, later...], deficits 0 .. E[len(bots)] (rows below 1 unused).  Every seat
        optimal: the stored rows where stored (``stored=False``: computed, to check the kernels against them), the
        same equations past them."""
        cache = self.__dict__.setdefault("_phi", {})
        bots = tuple(bots)
        stored = stored and all(b == "optimal" for b in bots)
        key = (bots, tuple(E), stored)
        if key in cache:
            return cache[key]
        r, G = len(bots), self.G
        if stored and r >= 2 and E[r] < len(self.stored_final[r]):  # the stored rows reach: nothing to compute
            cache[key] = self.stored_final[r][: E[r] + 1]
            return cache[key]
        B = 2 * G - 1
        D = E[r]
        if r == 1:
            if bots[0] == "optimal":
                P = self.pexc_to(D, stored)
            else:
                X, _fail = self.final_excess(D)
                P = X.sum(axis=1)
            out = np.stack([1.0 - P, P], axis=1)[:, None, :]
        else:
            sub = self.phi(bots[1:], E)
            out = np.zeros((D + 1, B ** (r - 1), r + 1))
            gaps = self._gaps(r)  # [pattern, r - 1]: the later seats' deficits minus the first's (units)
            if bots[0] == "optimal":
                self._phi_optimal(out, sub, gaps, E, r)
            else:
                X, fail = self.final_excess(D)
                e = np.arange(1, X.shape[1])
                d1 = np.arange(D + 1)
                for p, gp in enumerate(gaps):
                    sp = self._sub_pattern(gp)
                    if sp is None:
                        continue
                    d2 = d1 + gp[0]
                    ok = (d2 >= 1) & (d1 >= 1)
                    d2 = np.where(ok, d2, 1)
                    bust = sub[d2, sp]  # [d1, r]
                    bank = sub[d2[:, None] + e[None, :], sp]  # [d1, e, r]
                    v = np.zeros((D + 1, r + 1))
                    v[:, 0] = fail * bust[:, 0]
                    v[:, 2:] = fail[:, None] * bust[:, 1:]
                    v[:, 1:] += np.einsum("de,der->dr", X[:, 1:], bank)
                    out[:, p] = np.where(ok[:, None], v, 0.0)
        if stored:
            st = self.stored_final[r]
            n = min(len(st), D + 1)
            out[1:n] = st[1:n]
        cache[key] = out
        return out

    def _gaps(self, r: int) -> np.ndarray:
        """Per pattern of r later seats, the deficits of seats 2..r minus the first's (units)."""
        G = self.G
        B = 2 * G - 1
        if r == 1:
            return np.zeros((1, 0), dtype=np.int64)
        if r == 2:
            return (np.arange(B) - (G - 1))[:, None]
        p = np.arange(B * B)
        return np.stack([p // B - (G - 1), p % B - (G - 1)], axis=1)

    def _sub_pattern(self, gp) -> int | None:
        """The pattern of seats 2..r (relative to seat 2) of a pattern's gaps ``gp`` (None: no such scores)."""
        G = self.G
        if len(gp) == 1:
            return 0
        x = int(gp[1] - gp[0])
        return x + G - 1 if abs(x) <= G - 1 else None

    def _phi_optimal(self, out, sub, gaps, E, r) -> None:
        """``out`` of an optimal first seat: its final turn per pattern of the seats after it (their deficits d2,
        ...), every starting deficit at once (:func:`tt_n_final`), scattered to (deficit, pattern)."""
        from dicebase.bots.ten_thousand_n_kernels import tt_n_final

        G, D = self.G, E[r]
        own_phi = self.phi(("optimal",) * (r - 1), E)  # what the stored final round makes of its banks
        pex, limit = self.pexc_stored, self.mv["pf_min"] * self.block.final_scale
        EB = max(self.bank_excess, self.mv["maxp"]) + 1
        y = np.arange(EB)
        later_patterns = self._gaps(r - 1)  # gaps of seats 3..r relative to seat 2
        rows_own, rows_mix, rows_bust, tops, where = [], [], [], [], []
        for sp, lg in enumerate(later_patterns):
            if r - 1 >= 2 and abs(int(lg[0])) > G - 1:
                continue
            for d2 in range(1, D + G):
                ds = np.concatenate(([d2], d2 + lg))  # the later seats' deficits
                if ds.min() < 1:
                    continue
                at = d2 + y
                if at[-1] >= len(own_phi) or at[-1] >= len(sub):
                    raise NotInDatabase(f"the final round of {self.N} players to {self.goal} is not reached this far "
                                        f"(internal extent {len(sub) - 1} units)")
                m = ds[None, :] + y[1:, None]  # [y - 1, later]: margins over the later seats
                forced = (m >= len(pex)).any(axis=1) | (pex[np.minimum(m, len(pex) - 1)].sum(axis=1) <= limit)
                tops.append(int(np.argmax(forced)) + 1 if forced.any() else EB - self.mv["maxp"])
                rows_own.append(own_phi[at, sp, 0])
                mix = np.zeros((EB, r + 1))
                mix[:, 1:] = sub[at, sp]
                rows_mix.append(mix)
                b = sub[d2, sp]
                rows_bust.append(np.concatenate(([b[0], 0.0], b[1:])))
                where.append((d2, lg))
        if not where:
            return
        depth = np.array([min(D, d2 + G - 1) for d2, _lg in where], dtype=np.int64)  # the first seat's deficits
        res = tt_n_final(np.array(rows_own), np.array(rows_mix), np.array(rows_bust), np.array(tops, dtype=np.int64),
                         depth, D, float(self.block.tie_tolerance), self.mv["c0"], *self._kernel_moves())
        B = 2 * G - 1
        for (d2, lg), v in zip(where, res):
            lo, hi = max(1, d2 - (G - 1)), min(D, d2 + G - 1)
            d1 = np.arange(lo, hi + 1)
            gap2 = d2 - d1
            if r == 2:
                pat = gap2 + G - 1
            else:
                gap3 = gap2 + int(lg[0])
                ok = np.abs(gap3) <= G - 1
                d1, gap2, gap3 = d1[ok], gap2[ok], gap3[ok]
                pat = (gap2 + G - 1) * B + gap3 + G - 1
            out[d1, pat] = v[d1]

    def final_vectors(self, m: int, X: np.ndarray, s: np.ndarray, bots: tuple, E: list[int],
                      own: bool = False) -> np.ndarray:
        """Win vectors [n, x, N] when seat m banks to X[n, x] (units, at or above the goal; other entries are
        ignored) at tuples with scores s[n]: the final round of the other seats in order, each by its bot
        (``own``: every seat optimal, the stored final round)."""
        N, G = self.N, self.G
        later = [(m + 1 + j) % N for j in range(N - 1)]
        phi = self.phi(("optimal",) * (N - 1), self.own_extents) if own else self.phi(tuple(bots[j] for j in later), E)
        d1 = np.clip(X - s[:, later[0], None], 0, len(phi) - 1)
        B = 2 * G - 1
        p = np.zeros(len(s), dtype=np.int64)
        for j in later[1:]:
            p = p * B + (s[:, later[0]] - s[:, j] + G - 1)
        v = phi[d1, p[:, None]]  # [n, x, N]
        out = np.zeros(X.shape + (N,))
        out[..., m] = v[..., 0]
        for i, j in enumerate(later):
            out[..., j] = v[..., i + 1]
        return out

    # -- the recursion ------------------------------------------------------------------------------
    def values(self, bots: list[str]) -> np.ndarray:
        """V[m, tuple, e]: every seat's win probability at seat m's turn start (0-based), the seats played by
        ``bots``; level by level of the score sum, descending, the cycle of farkles in closed form."""
        bots = tuple(bots)
        for b in set(bots) - {"optimal"}:
            self.turn_distribution(b)  # BadInput first: a rule set or threshold the fixed bots do not play
        N, G = self.N, self.G
        E = self.extents(bots)
        V = np.zeros((N, G ** N, N))
        level = self.scores.sum(axis=1)
        for lv in range(N * (G - 1), -1, -1):
            at = np.flatnonzero(level == lv)
            s = self.scores[at]
            a, b = [], []
            for m in range(N):
                A, Bf = (self._optimal_turn if bots[m] == "optimal" else self._fixed_turn)(bots, m, at, s, V, E)
                a.append(A)
                b.append(Bf)
            for m, v in enumerate(solve_cycles(a, b)):
                V[m, at] = v
        return V

    def _next(self, bots, m, at, s, V, E, k) -> np.ndarray:
        """[n, k, N]: the lineup's win vector after seat m banks k[...] units at the tuples ``at``."""
        G, N = self.G, self.N
        tot = s[:, m, None] + k[None, :]
        below = tot < G
        pos = np.where(below, at[:, None] + k[None, :] * self.stride[m], 0)
        out = V[(m + 1) % N, pos]
        if (~below).any():
            out = np.where(below[..., None], out, self.final_vectors(m, tot, s, bots, E))
        return out

    def _fixed_turn(self, bots, m, at, s, V, E):
        T = self.turn_distribution(bots[m])
        g = np.arange(1, len(T))
        nxt = self._next(bots, m, at, s, V, E, g)
        return np.einsum("g,nge->ne", T[1:], nxt), np.full(len(at), T[0])

    def _optimal_turn(self, bots, m, at, s, V, E):
        from dicebase.bots.ten_thousand_n_kernels import tt_n_turns

        N, G = self.N, self.G
        W, K = self.stored
        kmax = K[m, at]
        k = np.arange(int(kmax.max()) + self.mv["maxp"] + 1)
        tot = s[:, m, None] + k[None, :]
        below = tot < G
        pos = np.where(below, at[:, None] + k[None, :] * self.stride[m], 0)
        nx = (m + 1) % N
        hold_own = W[nx, pos, m]
        if (~below).any():
            hold_own = np.where(below, hold_own, self.final_vectors(m, tot, s, bots, E, own=True)[..., m])
        hold_mix = self._next(bots, m, at, s, V, E, k)
        rm_first, rm, km_first, km = [0], [], [0], []
        for a in at:
            rolls, keeps = self.mixing.get((m, int(a)), ((), ()))
            rm.extend(rolls)
            km.extend(keeps)
            rm_first.append(len(rm))
            km_first.append(len(km))
        rm_a = np.array(rm, dtype=float).reshape(-1, 3)
        km_a = np.array(km, dtype=float).reshape(-1, 5)
        i64 = lambda x: np.ascontiguousarray(x, dtype=np.int64)  # noqa: E731
        return tt_n_turns(np.ascontiguousarray(hold_own), np.ascontiguousarray(hold_mix), W[nx, at, m].copy(),
                          i64(kmax), s[:, m] > 0, -(-self.rules.opening_minimum // self.u),
                          float(self.block.tie_tolerance), self.mv["c0"], *self._kernel_moves(),
                          i64(rm_first), i64(rm_a[:, 0]), i64(rm_a[:, 1]), rm_a[:, 2].copy(),
                          i64(km_first), i64(km_a[:, 0]), i64(km_a[:, 1]), i64(km_a[:, 2]), i64(km_a[:, 3]),
                          km_a[:, 4].copy())
