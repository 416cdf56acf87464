"""The N-player 10,000 solver (dicebase.builder.ten_thousand.nplayer; issue 21, phase 3).

Small goals and a three-dice house rule set (seed 004's scoring with three dice: no straight,
no three pairs) keep every test fast; the two-player parity, caps and cycles use the real
ten-thousand preset at goal 500.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

import numpy as np
import pytest

from dicebase.rules.ten_thousand import PRESETS, legal_keeps, roll_multisets, turn_states

nplayer = pytest.importorskip("dicebase.builder.ten_thousand.nplayer")

TOL = 1e-12
TEN = PRESETS["ten-thousand"]
#: seed 004's scoring played with three dice (a house rule set built from the preset, not a new rule)
THREE = dataclasses.replace(TEN, name="three-dice", dice=3, straight=None, three_pairs=None)


@lru_cache(maxsize=None)
def solved(rules_name: str, players: int, goal: int, **kw):
    rules = THREE if rules_name == "three-dice" else PRESETS[rules_name]
    return nplayer.solve(rules, players, goal, **kw)


# --------------------------------------------------------------------------- a plain brute force
class Brute:
    """The game from the rules alone: every roll of every class through ``legal_keeps``, turns as
    plain DPs over the total, the final round by memoised recursion over (bar, later scores), the
    normal phase by value iteration per tuple (levels by descending score sum).  Simple caps far
    beyond where banking is optimal: bank at turn totals above ``goal + cap`` and on a final turn at
    totals above ``bar + cap``.  The tie-break of the issue: bank within 1e-12, keeps by priority."""

    def __init__(self, rules, players: int, G: int, cap: int = 60):
        self.rules, self.N, self.G, self.cap = rules, players, G, cap
        states = turn_states(rules)
        index = {s: i for i, s in enumerate(states)}
        u = rules.unit
        self.S = len(states)
        pts, nxt, grp_class, gprob, gstart = [], [], [], [], [0]
        self.pf = np.zeros(self.S)
        for c, (n, t) in enumerate(states):
            for counts, ways in roll_multisets(n):
                keeps = legal_keeps(rules, counts, n, t)
                p = ways / 6**n
                if not keeps:
                    self.pf[c] += p
                    continue
                opts = sorted({(k.points // u, k.n_after, k.t_after) for k in keeps},
                              key=lambda o: (-o[0], o[2] != 0, o[1], o[2]))
                for o in opts:
                    pts.append(o[0])
                    nxt.append(index[(o[1], o[2])])
                grp_class.append(c)
                gprob.append(p)
                gstart.append(len(pts))
        self.op, self.ost = np.array(pts), np.array(nxt)
        self.gc, self.gp, self.go = np.array(grp_class), np.array(gprob), np.array(gstart)
        self.maxp = int(self.op.max())
        self.csum = np.zeros((self.S, len(self.gp)))  # class sums of probability-weighted groups
        self.csum[self.gc, np.arange(len(self.gp))] = self.gp
        self.starts, self.options = self.go[:-1], np.arange(len(self.op))
        self.group_of = np.repeat(np.arange(len(self.gp)), np.diff(self.go))  # each option's group
        self.at = self.op * self.S + self.ost  # an option's row in a turn's table, from the total's first row
        self.final_tables = {}

    def turn(self, top, t0, bank, farkle, mover, width):
        """Values ``V[t, c, :]`` of a turn for totals ``t0 .. top`` (bank forced above ``top``)."""
        S, hi = self.S, top + self.maxp
        V = np.zeros(((hi + 1) * S, width))  # row t * S + c
        for t in range(top + 1, hi + 1):
            V[t * S:(t + 1) * S] = bank(t)
        starts, lost = self.starts, self.pf[:, None] * farkle
        for t in range(top, t0 - 1, -1):
            vals = V[t * S + self.at]
            mv = vals[:, mover]
            ok = mv >= np.maximum.reduceat(mv, starts)[self.group_of] - TOL
            ch = np.minimum.reduceat(np.where(ok, self.options, len(mv)), starts)
            roll = self.csum @ vals[ch] + lost
            b = bank(t)
            V[t * S:(t + 1) * S] = roll if b is None else np.where((roll[:, mover] > b[mover] + TOL)[:, None], roll, b)
        return V.reshape(hi + 1, S, width)

    def final_table(self, X, later):
        """The final turn of a seat with bar ``X`` and ``later`` seats after it: ``V[t, c, roles]``,
        roles ``[leader, mover, later...]``."""
        key = (X, later)
        if key not in self.final_tables:
            w = 2 + len(later)
            nxt = self.final_value(X, later)  # [leader, later...]
            farkle = np.concatenate([[nxt[0], 0.0], nxt[1:]])

            def bank(t):
                if t <= X:
                    return None
                return np.concatenate([[0.0], self.final_value(t, later)])

            self.final_tables[key] = self.turn(X + self.cap, 0, bank, farkle, 1, w)
        return self.final_tables[key]

    @lru_cache(maxsize=None)
    def final_value(self, X, later):
        """Roles ``[leader, later...]`` when the seats ``later`` still take a final turn at bar ``X``."""
        if not later:
            return np.ones(1)
        return self.final_table(X, later[1:])[later[0], 0].copy()

    def solve(self, iterations=400):
        N, G = self.N, self.G
        W = {}
        tuples = sorted(np.ndindex(*(G,) * N), key=lambda s: -sum(s))
        for s in tuples:
            cur = np.full((N, N), 1.0 / N)
            banks = []  # each seat's bank values: the higher tuples' (solved) and the final round's, not cur's
            for m in range(N):
                nxt = (m + 1) % N
                others = [(m + 1 + j) % N for j in range(N - 1)]

                def bank(k, m=m, nxt=nxt, others=others):
                    if k == 0:
                        return None
                    t = s[m] + k
                    if t < G:
                        h = list(s)
                        h[m] = t
                        return W[tuple(h)][nxt]
                    v = self.final_value(t, tuple(s[j] for j in others))
                    out = np.zeros(N)
                    out[m] = v[0]
                    out[others] = v[1:]
                    return out

                banks.append([bank(k) for k in range(G + self.cap - s[m] + self.maxp + 1)])
            sweeps = []
            for it in range(iterations):
                old = cur.copy()
                for m in range(N):
                    V = self.turn(G + self.cap - s[m], 0, banks[m].__getitem__, cur[(m + 1) % N], m, N)
                    cur[m] = V[0, 0]
                if np.abs(cur - old).max() <= 1e-15:  # contraction ~0.3 a sweep: the rest is below 1e-15
                    break
                sweeps.append(cur.copy())
                # best responses that cycle (4 players) repeat sweeps: end where all the sweeps would have
                period = next((p for p in range(2, 13) if it >= p and np.abs(cur - sweeps[it - p]).max() <= 1e-15),
                              None)
                if period is not None:
                    cur = sweeps[it - period + (iterations - 1 - it + period) % period].copy()
                    break
            W[s] = cur
        return W


#: the brute force's cap, units past the goal (final turn: past the bar): 1,000 points, far beyond where banking
#: is optimal with three dice (measured: caps of 12, 20 and 40 give the same values to 1e-15)
CAP = 20


def test_brute_force_three_players():
    sol = solved("three-dice", 3, 150)
    assert sol.stats["cycle_tuples"] == 0 and sol.stats["unproven_tuples"] == 0
    b = Brute(THREE, 3, 3, cap=CAP)
    W = b.solve()
    worst = max(np.abs(sol.start_at(s) - v).max() for s, v in W.items())
    assert worst < TOL, worst
    # mid-turn states from the stored turn starts equal the brute force's turn
    for s in [(0, 0, 0), (1, 2, 0), (2, 2, 2)]:
        tv = sol.turn_values(s, 1)
        assert np.allclose(tv["p_win"][0, 0], sol.start_at(s)[1], atol=TOL, rtol=0)
    # final turns: the stored Phi equals the brute force's recursion
    for X, later in [(3, (0, 2)), (5, (1, 1)), (12, (2, 0))]:
        v = nplayer.final_start(sol.spec, sol.finals, X, later)
        assert np.abs(v - b.final_value(X, later)).max() < TOL


def test_brute_force_four_players():
    sol = solved("three-dice", 4, 100)
    assert sol.stats["unproven_tuples"] == 0
    W = Brute(THREE, 4, 2, cap=CAP).solve()
    cyc = {tuple(rec["scores"][r:] + rec["scores"][:r]) for rec in sol.mixed for r in range(4)}
    worst = max(np.abs(sol.start_at(s) - v).max() for s, v in W.items() if s not in cyc)
    assert worst < TOL, worst


# --------------------------------------------------------------------------- two players
@pytest.mark.parametrize("name", ["ten-thousand", "farkle"])
def test_two_players_equal_the_two_player_solver(name):
    from dicebase.builder.ten_thousand import twoplayer

    rules = PRESETS[name]
    goal = 500
    G = goal // rules.unit
    sol = solved(name, 2, goal)
    tp = twoplayer.solve(rules, G, heuristic=False, rows="all")
    st = sol.start.reshape(G, G, 2, 2)
    assert np.abs(st[:, :, 0, 0] - tp.W).max() < TOL
    assert np.abs(st[:, :, 1, 1] - tp.W.T).max() < TOL
    assert np.abs(st.sum(axis=-1) - 1).max() < TOL
    assert sol.stats["cycle_tuples"] == 0  # zero-sum: no policy cycles
    # mid-turn states (computed from the stored turn starts) equal the two-player tables
    for i, j in [(0, 0), (3, 7), (9, 2)]:
        tv = sol.turn_values((i, j), 0)
        rows = np.flatnonzero((tp.i == i) & (tp.j == j))
        k, s = tp.k[rows].astype(int), tp.s[rows].astype(int)
        inside = k <= tv["p_win"].shape[0] - 1
        assert inside.sum() > 100
        assert np.abs(tv["p_win"][k[inside], s[inside], 0] - tp.p_win[rows][inside]).max() < TOL


# --------------------------------------------------------------------------- simulation
def test_simulation_three_players():
    sol = solved("three-dice", 3, 250)
    spec, mv = sol.spec, nplayer.moves(THREE)
    N, G = 3, spec.G
    rng = np.random.default_rng(21)
    turns, finals = {}, {}

    def play_turn(scores, m, bar=None, later=()):
        """One turn; returns the total banked (None: farkle / failed final turn)."""
        if bar is None:
            key = (scores, m)
            if key not in turns:
                turns[key] = sol.turn_values(scores, m)
            tv, t, kmax = turns[key], 0, int(sol.kmax[spec.index(scores), m])
        else:
            key = (bar, scores[m], later)
            if key not in finals:
                finals[key] = nplayer.final_turn_values(spec, sol.finals, bar, scores[m], later)
            tv, t = finals[key], scores[m]
        c = 0
        while True:
            if bar is None:
                k = t
                if k > kmax:
                    return k
                if k > 0 and rng.random() >= tv["roll"][k, c]:
                    return k
            else:
                if t > bar and not tv["roll"][t, c]:
                    return t
            if mv.sg[c] == mv.sg[c + 1]:
                return t if (bar is None or t > bar) else None
            x = rng.random()
            if x < mv.pf[c]:
                return None
            gs = np.arange(mv.sg[c], mv.sg[c + 1])
            g = gs[min(np.searchsorted(np.cumsum(mv.gp[gs]), x - mv.pf[c], side="right"), len(gs) - 1)]
            o = int(tv["keep"][t, g]) if bar is not None else int(tv["keep"][t, g])
            if bar is not None:
                o += mv.go[g]
            t, c = t + int(mv.op[o]), int(mv.ost[o])

    wins = np.zeros(N)
    games = 6000
    for _ in range(games):
        scores, m = [0] * N, 0
        while True:
            k = play_turn(tuple(scores), m)
            if k is not None:
                scores[m] += k
                if scores[m] >= G:
                    break
            m = (m + 1) % N
        leader, bar = m, scores[m]
        for j in range(1, N):
            p = (m + j) % N
            later = tuple(scores[(m + i) % N] for i in range(j + 1, N))
            t = play_turn(tuple(scores), p, bar, later)
            if t is not None:
                leader, bar = p, t
                scores[p] = t
        wins[leader] += 1
    v = sol.start_at((0, 0, 0))[0]
    rate = wins / games
    half = 1.96 * np.sqrt(v * (1 - v) / games)
    assert np.all(np.abs(rate - v) <= half), (rate, v, half)


# --------------------------------------------------------------------------- tie-break
def test_tie_break_bank_before_roll_and_keep_priority():
    from dicebase.builder.ten_thousand import nplayer_kernels as kern
    from dicebase.rules.ten_thousand import turn

    mv = nplayer.moves(TEN)
    N, S, kmax = 3, len(mv.states), 40
    KK = kmax + mv.max_pts + 2
    v = np.array([0.3, 0.5, 0.2])
    H = np.zeros((N, KK, N + 1))  # banking: every seat's value, then the farkle coefficient 0
    H[:, :, :N] = v
    reach = nplayer.reach_mask(TEN, KK)

    def run(beta):
        V = np.zeros((KK, S, N + 1))
        roll = np.zeros((KK, S), dtype=bool)
        keep = np.full((KK, len(mv.gp)), -1, dtype=np.int8)
        place = turn.places(mv.op, mv.ost, S, N + 1, np.empty(len(mv.op), dtype=np.int64))
        kern.turn_dp(1, beta, 5, N, kmax, mv.max_pts, 0, TOL, ~reach, mv.sg, mv.gp, mv.go, place, mv.pf,
                     H, V, roll, keep, np.zeros(2))
        return roll, keep

    # every bank, every roll and every keep ties (all lead to v): bank wherever allowed, first keep
    roll, keep = run(v[1])
    live = reach[1: kmax + 1]
    assert not roll[1: kmax + 1][live].any() and roll[0, 0]
    assert (keep[0, mv.sg[0]: mv.sg[1]] == 0).all()
    # a farkle worth 1e-10 more than banking: roll everywhere
    roll, _ = run(v[1] + 1e-10)
    assert roll[: kmax + 1][reach[: kmax + 1]].all()
    # the priority order: more points, then no standing triple, then fewer dice, then the lower face
    for g in range(len(mv.gp)):
        keys = [nplayer.keep_priority(TEN, int(mv.op[o]), int(mv.ost[o])) for o in range(mv.go[g], mv.go[g + 1])]
        assert keys == sorted(keys)


def test_tie_break_applied_on_a_final_turn():
    """The last seat's final turn: every keep that ends above the bar wins for sure (a tie at 1.0):
    the keep taken is the one with the most points."""
    sol = solved("ten-thousand", 3, 500)
    mv = nplayer.moves(TEN)
    X, own = 12, 9
    tv = nplayer.final_turn_values(sol.spec, sol.finals, X, own, ())
    t = own + 1
    checked = 0
    for g in range(mv.sg[0], mv.sg[1]):  # six dice, no triple
        opts = np.arange(mv.go[g], mv.go[g + 1])
        above = opts[t + mv.op[opts] > X]
        if len(above) >= 2:
            chosen = mv.go[g] + tv["keep"][t, g]
            assert chosen == above[np.argmax(mv.op[above])]  # most points
            checked += 1
    assert checked > 5


# --------------------------------------------------------------------------- caps
def test_caps_raised_change_nothing():
    base = solved("ten-thousand", 3, 300)
    raised = nplayer.solve(TEN, 3, 300, margin=base.stats["margin"] + 60, bound_scale=0.01, final_scale=0.01)
    assert raised.stats["mean_kmax"] > base.stats["mean_kmax"] + 5
    assert raised.stats["final_bank_margin"] > base.stats["final_bank_margin"]
    assert np.abs(raised.start - base.start).max() < TOL
    assert base.stats["unproven_tuples"] == 0


# --------------------------------------------------------------------------- chunks and threads
def test_chunks_and_threads_bit_identical():
    import numba

    spec = nplayer.Spec(TEN, 3, 300)
    ref = solved("ten-thousand", 3, 300)
    inputs = nplayer.LevelInputs(spec, ref.finals, ref.start.copy())
    before = numba.get_num_threads()
    try:
        for level in nplayer.level_tuples(spec, representatives=False)[::5]:
            numba.set_num_threads(1)
            whole = nplayer.solve_tuples(inputs, level)
            numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
            parts = [nplayer.solve_tuples(inputs, level[i: i + 3]) for i in range(0, len(level), 3)][::-1]
            vals = np.concatenate([p.values for p in parts[::-1]])
            assert np.array_equal(whole.values, vals)
            assert np.array_equal(whole.values, ref.start[level])
    finally:
        numba.set_num_threads(before)
    numba.set_num_threads(1)
    try:
        one = nplayer.solve(TEN, 3, 300, chunk=7)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one.start, ref.start)


# --------------------------------------------------------------------------- policy cycles
def test_policy_cycles_reported_and_mixed_equilibrium_indifferent():
    sol = solved("ten-thousand", 3, 500)
    assert sol.stats["cycle_tuples"] == 2 and sol.stats["mixed_tuples"] == 2  # 2 classes = 6 of 1,000 tuples
    assert sol.stats["max_indifference_residual"] <= nplayer.EQUILIBRIUM_TOLERANCE
    mixing = sol.mixing()
    assert len(mixing) == 2 * 2 * 3  # two seats randomise in each, seen from three rotations
    for rec in sol.mixed:
        s = tuple(rec["scores"])
        assert rec["kind"] == "mixed"
        for m, decisions in rec["randomising"]:
            tv = sol.turn_values(s, m)
            assert len(decisions) == 1  # at one decision: the stored probability is the lottery of the two policies
            for d in decisions:
                assert d[0] == "roll" and 0 < d[3] < 1
                _, k, c, _ = d
                # the randomising seat is indifferent between rolling and banking
                assert abs(tv["p_roll"][k, c, m] - tv["p_bank"][k, m]) < 1e-12
        # every seat's turn, replayed from the stored values (greedy, the mixing where stored), is the stored
        # one: the seats that do not randomise too (a seat within 1e-12 of its best but not greedy would miss)
        for r in range(3):
            rot = s[r:] + s[:r]
            for m in range(3):
                assert np.abs(sol.turn_values(rot, m)["p_win"][0, 0] - sol.start_at(rot)[m]).max() < 1e-12
    # a stored tuple that is no cycle is computed by the pure best responses
    s = (3, 4, 5)
    tv = sol.turn_values(s, 0)
    assert set(np.unique(tv["roll"])) <= {0.0, 1.0}
    assert np.abs(tv["p_win"][0, 0] - sol.start_at(s)[0]).max() < 1e-12
