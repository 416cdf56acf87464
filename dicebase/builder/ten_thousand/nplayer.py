"""Optimal (subgame-perfect) play of 10,000 for N players, solved exactly (issue 21, phase 3).

Rules for N players (with N = 2 exactly :mod:`.twoplayer`'s game): seats 1..N play in order;
banking at turn total 0 is not allowed (nor below ``opening_minimum`` while the seat is at 0).
When a seat banks at or above the goal ``G``, every other seat, in seat order from the next one
round to the one before it, takes one final turn.  On a final turn a seat may bank only when its
score plus turn total exceeds the highest score at that moment (the *bar*); once above it may
bank or keep rolling (raising the bar).  The highest score at the end wins (it is unique: every
final turn either fails or ends above the bar).  Each seat maximises its own win probability;
values are win VECTORS, one entry per seat.

Tie-break for the mover (within ``tie_tolerance`` = 1e-12 of its own win probability): bank
before rolling; among keeps, more points first, then a keep that leaves no standing triple, then
fewer dice to roll, then the lower triple face (:func:`moves` lists every roll group's keeps in
that order; the kernels take the first keep within the tolerance of the best).

Notation (0-based seat ``m``; units of ``rules.unit``; ``c`` the pre-roll class (dice, standing
triple); ``P`` a win vector)::

    P(m, s, k, c)      = P_roll or P_bank, whichever is better for seat m (ties bank)
    P_roll(m, s, k, c) = sum_groups p_g  P(m, s, k + pts(o*), c(o*))  + pf(c) P(m+1, s, 0, six)
                         (o* the mover's best keep of the group, ties by the priority above)
    P_bank(m, s, k)    = P(m+1, s + k e_m, 0, six)                  if s_m + k < G
                       = Phi_{N-1}(s_m + k - s_{m+1}, .., s_m + k - s_{m-1})   otherwise (m leads)

The final round ``Phi_r(delta_1, .., delta_r)``: the win vector over roles ``[leader, p1, .., pr]``
when ``r`` seats (in play order) still take a final turn, ``delta_i = X - u_i`` the bar minus their
scores.  It depends only on the deficits (the final round is translation invariant: every rule
there compares totals with the bar, and ``G >= opening_minimum`` is required so the opening rule
never applies above a bar), which is what makes it cheap.  ``Phi_1(d) = [1 - P_exceed(d), P_exceed(d)]``
(the last seat only needs to end above the bar: seed 004's last turn).  For ``r >= 2`` seat p1:

    above the bar (margins m_j = t - u_j over the later seats):  F = FA(c, m) + Fc(c, m) * bust
        FA: bank -> Phi_{r-1}(m_2, .., m_r) with p1 as leader, or roll (p1 decides by its own entry:
        a farkle leaves it 0, so its decisions above the bar do not depend on the bar)
    below the bar (d = X - t >= 0, must roll):  a(d, c) + b(d, c) * bust, a DP over d from 0 up
        (p1's keeps below the bar DO depend on the bar: unlike Great Rolled Ones there are choices)
    bust = [Phi_{r-1}(delta_2..)[leader], 0, Phi_{r-1}(delta_2..)[p2..]]

Solution method (the Great Rolled Ones solver's, :mod:`dicebase.builder.rolled_ones.nplayer`):
levels by descending score sum; the N turn starts of one tuple form a cycle (a farkle passes the
turn, scores unchanged); each seat's turn is affine in what a farkle leaves it
(``A + c * P(m+1, s, 0, six)``) and its best response depends on one number, ``beta_m``; policy
iteration with the exact N-cycle solve, stopped exactly when every ``beta`` keeps its policy;
a repeated profile is a policy cycle, resolved in Python (:func:`_resolve_cycle`: a pure
equilibrium among the cycle's policies, else a mixed stationary one) and reported.

Caps (explicit parameters of :class:`Spec`, each proven harmless at solve time, and by tests
that raise them):

* normal phase: seat ``m`` banks at every total above ``T_m(s)``, the smallest ``T >= G - 1`` with
  ``sum_{j != m} P_exceed(T + 1 - s_j) <= pf_min (1 - beta_m) * bound_scale`` (a roll is worth at most
  ``1 - pf_min (1 - beta_m)`` to the mover, a bank at least ``1 - sum_j P(j exceeds)``: banking is
  optimal there).  ``T_m`` is chosen from a guess of ``beta_m`` (higher levels) and checked against
  the solved one (retry with a 10x safer scale), as the two-player solver does; it is clamped to
  ``G - 1 + margin`` and a tuple where the clamp binds is counted as ``unproven_tuples``;
* final turns: a seat above the bar banks where ``sum_later P_exceed(m_j) <= pf_min * final_scale``
  (a roll is worth at most ``1 - pf_min`` to it).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from dicebase.rules.ten_thousand import RuleSet, turn_states

#: Bank unless rolling beats it by more than this (for the mover); keeps within it go by priority.
TIE_TOLERANCE = 1e-12
#: Policy-iteration rounds per tuple before it is handed to the cycle resolution.
MAX_ITERATIONS = 64
#: A stored mixed equilibrium must make its randomising seats indifferent within this.
EQUILIBRIUM_TOLERANCE = 1e-12
#: The per-tuple forced-bank total is first chosen from a guess with this safety factor.
BOUND_SCALE = 0.25
#: Default clamp of the forced-bank total past the goal: the smallest margin d with
#: (N - 1) P_exceed(d) <= pf_min * MARGIN_LEVEL.
MARGIN_LEVEL = 1e-4


# --------------------------------------------------------------------------- the rule tables
@dataclass(frozen=True)
class Moves:
    """Every pre-roll class's roll groups and keeps, keeps in tie-break priority order (units).

    ``sg[c] .. sg[c + 1]``: groups of class ``c`` (rolls with the same keeps), ``gp[g]`` their
    probability, ``go[g] .. go[g + 1]`` their keeps: points ``op[o]``, next class ``ost[o]``; ``pf[c]``
    the farkle chance (1 for the no-dice class of rules without hot dice)."""

    states: tuple
    pf: np.ndarray
    sg: np.ndarray
    gp: np.ndarray
    go: np.ndarray
    op: np.ndarray
    ost: np.ndarray
    max_pts: int
    max_group: int
    group_class: np.ndarray


def keep_priority(rules: RuleSet, pts: int, state: int) -> tuple:
    """The tie-break key of a keep (smaller first): more points, then no standing triple after it,
    then fewer dice to roll, then the lower triple face."""
    n_after, t_after = turn_states(rules)[state]
    return (-pts, t_after != 0, n_after, t_after)


@lru_cache(maxsize=None)
def moves(rules: RuleSet) -> Moves:
    """:func:`~.scoring.transitions` (every keep: no pruning, as the two-player game) with each
    group's keeps reordered by :func:`keep_priority`."""
    from .scoring import transitions
    from .solitaire import flatten

    fl = flatten(transitions(rules, prune=False))
    op = fl.opt_pts.copy()
    ost = fl.opt_state.copy()
    for g in range(len(fl.group_prob)):
        a, b = int(fl.group_opt[g]), int(fl.group_opt[g + 1])
        order = sorted(range(a, b), key=lambda o: keep_priority(rules, int(fl.opt_pts[o]), int(fl.opt_state[o])))
        op[a:b] = fl.opt_pts[order]
        ost[a:b] = fl.opt_state[order]
    gc = np.repeat(np.arange(fl.n_states), np.diff(fl.state_group))
    return Moves(tuple(turn_states(rules)), fl.p_farkle.astype(float), fl.state_group.astype(np.int64),
                 fl.group_prob.astype(float), fl.group_opt.astype(np.int64), op.astype(np.int64),
                 ost.astype(np.int64), int(fl.max_pts), int(fl.max_group_size), gc.astype(np.int64))


@lru_cache(maxsize=None)
def reach_mask(rules: RuleSet, size: int) -> np.ndarray:
    """``reach[k, c]``: a turn can be at turn total ``k`` (units) before a roll from class ``c``
    (from ``(0, six dice)`` by any sequence of keeps; ``k < size``)."""
    mv = moves(rules)
    S = len(mv.states)
    reach = np.zeros((size, S), dtype=bool)
    reach[0, 0] = True
    opt_class = np.repeat(mv.group_class, np.diff(mv.go))
    for k in range(size):
        live = reach[k, opt_class]
        kk = k + mv.op[live]
        ok = kk < size
        reach[kk[ok], mv.ost[live][ok]] = True
    reach.setflags(write=False)
    return reach


@lru_cache(maxsize=None)
def _exceed(rules: RuleSet, need: int) -> np.ndarray:
    from .twoplayer import exceed_table

    return exceed_table(rules, need)[1:, 0].copy()  # pexc[d] = E(d + 1, six dice)


# --------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class Spec:
    """An N-player solve's parameters: the rules, the number of players, the goal (points), the tie
    tolerance, the iteration limit and the caps (see the module docstring)."""

    rules: RuleSet
    players: int
    goal: int
    tie_tolerance: float = TIE_TOLERANCE
    max_iterations: int = MAX_ITERATIONS
    bound_scale: float = BOUND_SCALE
    margin: int | None = None  # units past the goal (clamp of the forced-bank total)
    final_scale: float = 1.0

    def __post_init__(self) -> None:
        r = self.rules
        if not 2 <= self.players <= 6:
            raise ValueError(f"players must be 2..6, got {self.players}")
        if self.goal <= 0 or self.goal % r.unit:
            raise ValueError(f"goal must be a positive multiple of {r.unit}, got {self.goal}")
        if self.goal < r.opening_minimum:
            raise ValueError(f"goal {self.goal} is below the opening minimum {r.opening_minimum}: not supported")
        if not 0.0 < self.bound_scale <= 1.0 or not 0.0 < self.final_scale <= 1.0:
            raise ValueError("bound_scale and final_scale must be in (0, 1]")

    @property
    def G(self) -> int:
        return self.goal // self.rules.unit

    @property
    def om(self) -> int:
        return -(-self.rules.opening_minimum // self.rules.unit)

    @property
    def tuples(self) -> int:
        return self.G**self.players

    def strides(self) -> np.ndarray:
        G, N = self.G, self.players
        return np.array([G ** (N - 1 - m) for m in range(N)], dtype=np.int64)

    def index(self, scores) -> int:
        """Tuple index of ``scores`` (units, seat 1 first), each ``0 <= score < G``."""
        G = self.G
        if len(scores) != self.players or not all(0 <= s < G for s in scores):
            raise ValueError(f"need {self.players} scores in 0..{G - 1} units, got {tuple(scores)}")
        return int(sum(int(s) * int(st) for s, st in zip(scores, self.strides())))

    def scores(self, idx: int) -> tuple[int, ...]:
        return tuple(int(idx // st) % self.G for st in self.strides())

    @property
    def pf_min(self) -> float:
        return float(moves(self.rules).pf.min())

    def sizes(self) -> dict:
        """The table extents: ``margin``, ``tcap`` (largest forced-bank total), ``df`` (final-turn
        margin that forces a bank), ``D[r]`` (deficits of ``Phi_r``), ``M[r]`` (margins of ``FA_r``)."""
        G, N = self.G, self.players
        mv = moves(self.rules)
        maxp = mv.max_pts
        pf_min = self.pf_min
        pexc = _exceed(self.rules, 64)
        need = 64
        while True:
            pexc = _exceed(self.rules, need)
            margin = self.margin
            if margin is None:
                hit = np.flatnonzero((N - 1) * pexc <= pf_min * MARGIN_LEVEL)
                margin = int(hit[0]) if hit.size else None
            df_hit = np.flatnonzero(max(N - 2, 1) * pexc[1:] <= pf_min * self.final_scale)
            if margin is None or not df_hit.size:
                need *= 2
                continue
            df = int(df_hit[0])
            tcap = G - 1 + margin
            D = [0] * N
            M = [0] * N
            D[N - 1] = tcap + maxp
            for r in range(N - 1, 1, -1):
                M[r] = max(D[r] + maxp, df + G + maxp)
                D[r - 1] = M[r] + G
            if D[1] + 2 < len(pexc):
                return {"margin": margin, "tcap": tcap, "df": df, "D": D, "M": M, "pexc": pexc[: D[1] + 2].copy()}
            need = 2 * (D[1] + 2)


# --------------------------------------------------------------------------- the final round
@dataclass
class Finals:
    """The final round: ``phi`` (flat, ``Phi_r`` at ``offsets[r]``, r >= 2; see
    :mod:`.nplayer_kernels`), ``fa[r]``/``fc[r]``/``froll[r]`` (seat p1 above the bar), ``D``/``M`` the
    extents, ``pexc`` (``P_exceed``)."""

    phi: np.ndarray
    offsets: np.ndarray
    D: list
    M: list
    fa: list
    fc: list
    froll: list
    pexc: np.ndarray
    df: int

    @property
    def nbytes(self) -> int:
        return int(self.phi.nbytes + sum(a.nbytes for a in self.fa + self.fc + self.froll if a is not None)
                   + self.pexc.nbytes)


def solve_finals(spec: Spec, workers: int | None = None) -> Finals:
    """``Phi_r`` for r = 2 .. N - 1 (each reads ``Phi_{r-1}``; ``Phi_1`` is ``P_exceed``)."""
    from numba import get_num_threads

    from . import nplayer_kernels as kern

    N, G = spec.players, spec.G
    workers = workers or get_num_threads()
    mv = moves(spec.rules)
    z = spec.sizes()
    D, M, pexc = z["D"], z["M"], z["pexc"]
    B = 2 * G - 1
    offsets = np.zeros(N + 1, dtype=np.int64)
    total = 0
    for r in range(2, N):
        offsets[r] = total
        total += (D[r] + 1) * B ** (r - 1) * (r + 1)
    phi = np.zeros(max(total, 1))
    fa, fc, froll = [None] * N, [None] * N, [None] * N
    S = len(mv.states)
    for r in range(2, N):
        rows = (M[r] + 1) * B ** (r - 2)
        fa[r] = np.zeros((rows, S, r))
        fc[r] = np.zeros((rows, S))
        froll[r] = np.zeros((rows, S), dtype=bool)
        kern.final_free(r, G, M[r], spec.tie_tolerance, spec.final_scale, spec.pf_min, pexc, mv.sg, mv.gp, mv.go,
                        mv.op, mv.ost, mv.pf, phi, offsets, fa[r], fc[r], froll[r], mv.max_group, workers)
        kern.final_phi(r, G, D[r], M[r], spec.tie_tolerance, pexc, mv.sg, mv.gp, mv.go, mv.op, mv.ost, mv.pf,
                       phi, offsets, fa[r], fc[r], mv.max_group, workers)
    return Finals(phi, offsets, D, M, fa, fc, froll, pexc, z["df"])


def final_start(spec: Spec, finals: Finals, X: int, later) -> np.ndarray:
    """``Phi_r`` at bar ``X`` (units, ``>= G``) for the seats ``later`` (scores in play order, all below
    the goal) still to take a final turn: the win vector over ``[leader, later...]``."""
    later = [int(u) for u in later]
    r = len(later)
    deltas = np.array([X - u for u in later], dtype=np.int64)
    if r == 0:
        return np.ones(1)
    if deltas.min() < 1 or (r >= 2 and deltas.max() > finals.D[r]) or deltas.max() >= len(finals.pexc):
        raise ValueError(f"bar {X} with scores {later} is outside the final-round tables")
    if r == 1:
        p = finals.pexc[deltas[0]]
        return np.array([1.0 - p, p])
    B = 2 * spec.G - 1
    ix = int(deltas[0])
    for j in range(1, r):
        ix = ix * B + int(deltas[j] - deltas[0] + spec.G - 1)
    base = int(finals.offsets[r]) + ix * (r + 1)
    return finals.phi[base: base + r + 1].copy()


def final_turn_values(spec: Spec, finals: Finals, X: int, own: int, later) -> dict:
    """A final turn (from the stored tables, as a lookup would): the seat with score ``own`` and bar
    ``X``, the seats ``later`` after it.  Over totals ``t = 0 .. top`` and classes ``c``:
    ``p_win[t, c, role]`` (roles ``[leader, mover, later...]``), ``roll[t, c]`` (must roll at ``t <= X``),
    ``keep[t, g]`` (the option taken in group ``g``); ``p_win[own, 0]`` is ``Phi(X; own, later)``."""
    mv = moves(spec.rules)
    later = [int(u) for u in later]
    r = 1 + len(later)
    tol, pf_min = spec.tie_tolerance, spec.pf_min
    nxt = final_start(spec, finals, X, later)
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])

    def forced(t):
        return not later or sum(finals.pexc[t - u] for u in later) <= pf_min * spec.final_scale

    top = X + 1
    while not forced(top):
        top += 1
    top += mv.max_pts
    S, O = len(mv.states), len(mv.op)
    value = np.zeros((top + 1, S, r + 1))
    roll = np.zeros((top + 1, S), dtype=bool)
    keep = np.zeros((top + 1, len(mv.gp)), dtype=np.int64)
    for t in range(top, -1, -1):
        if t > X:
            h = np.zeros(r + 1)
            h[1:] = final_start(spec, finals, t, later)
        if t > X and (forced(t) or t + mv.max_pts > top):
            value[t] = h
            continue
        vals = value[np.minimum(t + mv.op, top), mv.ost]
        ch = _choose(mv, vals[:, 1], tol)
        keep[t] = ch - mv.go[:-1]
        pr = _class_sum(mv, mv.gp[:, None] * vals[ch]) + mv.pf[:, None] * bust
        for c in range(S):
            no_dice = mv.sg[c] == mv.sg[c + 1]
            if t > X and (no_dice or pr[c, 1] <= h[1] + tol):
                value[t, c] = h
            else:
                value[t, c] = pr[c]
                roll[t, c] = True
    return {"p_win": value, "roll": roll, "keep": keep, "top": top}


def _choose(mv: Moves, mover: np.ndarray, tol: float) -> np.ndarray:
    """Per group the option taken: the first (priority order) within ``tol`` of the group's best."""
    starts = mv.go[:-1]
    gmax = np.maximum.reduceat(mover, starts)
    sizes = np.diff(mv.go)
    ok = mover >= np.repeat(gmax, sizes) - tol
    idx = np.where(ok, np.arange(len(mover)), len(mover))
    return np.minimum.reduceat(idx, starts)


def _class_sum(mv: Moves, per_group: np.ndarray) -> np.ndarray:
    out = np.zeros((len(mv.states),) + per_group.shape[1:])
    np.add.at(out, mv.group_class, per_group)
    return out


# --------------------------------------------------------------------------- the solve
@dataclass
class LevelInputs:
    """What a chunk of one level reads (a Dask task gets these once per worker): the spec, the final
    round, the turn starts of higher levels (``start``) and ``kmax`` (only written for the chunk)."""

    spec: Spec
    finals: Finals
    start: np.ndarray  # [tuple, seat, seat's win]
    selection: str = "mixed"


@dataclass
class ChunkResult:
    """One chunk's values: ``values[t, m, :]``, ``kmax[t, m]`` (largest turn total with a choice),
    ``status[t]`` (0 policy iteration converged, 1 cycle resolved), ``evaluations[t]``, ``proven[t]``
    (the forced-bank totals are proven optimal) and ``mixed`` (a record per resolved cycle tuple)."""

    tuples: np.ndarray
    values: np.ndarray
    kmax: np.ndarray
    status: np.ndarray
    evaluations: np.ndarray
    proven: np.ndarray
    mixed: list


def rotations(spec: Spec, idx) -> np.ndarray:
    """``[n, r]``: the index of ``rot_r(s)`` (seat ``i`` gets the score of seat ``i + r``) for each tuple.

    The rules treat seats alike up to play order, so ``start[rot_r(s), m, e] = start[s, m + r, e + r]``
    (seats mod N): the N turn starts of a tuple's cycle are the turn starts of its rotations."""
    idx = np.asarray(idx, dtype=np.int64)
    G, N = spec.G, spec.players
    st = spec.strides()
    digits = (idx[:, None] // st[None, :]) % G
    out = np.zeros((len(idx), N), dtype=np.int64)
    for r in range(N):
        out[:, r] = (np.roll(digits, -r, axis=1) * st[None, :]).sum(axis=1)
    return out


def canonical(spec: Spec, idx) -> tuple[np.ndarray, np.ndarray]:
    """Each tuple's representative (the smallest index among its rotations) and the ``q`` with
    ``rep = rot_q(s)`` (the smallest such)."""
    rot = rotations(spec, idx)
    q = rot.argmin(axis=1)
    return rot[np.arange(len(rot)), q], q


def solve_tuples(inputs: LevelInputs, tuples: np.ndarray, workers: int | None = None) -> ChunkResult:
    """Solve the tuples ``tuples`` (indices, all of one score-sum level) given the higher levels in
    ``inputs.start``; returns their values (does not write ``inputs.start``).

    Each tuple is solved through its representative (:func:`canonical`; a tuple and its rotations
    share one cycle of turn starts), so a tuple's result depends only on the higher levels:
    bit-identical for any chunking and thread count.  ``mixed`` records name the representative."""
    from numba import get_num_threads

    from . import nplayer_kernels as kern

    spec, f = inputs.spec, inputs.finals
    N = spec.players
    mv = moves(spec.rules)
    z = spec.sizes()
    tuples = np.ascontiguousarray(tuples, dtype=np.int64)
    rep_of, q = canonical(spec, tuples)
    reps, where = np.unique(rep_of, return_inverse=True)
    n = len(reps)
    values = np.zeros((n, N, N))
    kmax = np.zeros((n, N), dtype=np.int64)
    status = np.zeros(n, dtype=np.int64)
    evals = np.zeros(n, dtype=np.int64)
    proven = np.ones(n, dtype=np.bool_)
    if n:
        kern.solve_tuples(reps, N, spec.G, spec.om, spec.tie_tolerance, spec.max_iterations, spec.strides(),
                          reach_mask(spec.rules, z["tcap"] + mv.max_pts + 2),
                          mv.sg, mv.gp, mv.go, mv.op, mv.ost, mv.pf, mv.max_pts, mv.max_group, f.pexc, spec.pf_min,
                          spec.bound_scale, z["tcap"], inputs.start, f.phi, f.offsets, values, kmax, status, evals,
                          proven, workers or get_num_threads())
    mixed = []
    for t in np.flatnonzero(status != kern.CONVERGED):
        record, vals = _resolve_cycle(inputs, int(reps[t]), kmax[t])
        values[t] = vals
        mixed.append(record)
        status[t] = 1
    ar = np.arange(N)
    out_v = np.empty((len(tuples), N, N))
    out_k = np.empty((len(tuples), N), dtype=np.int64)
    for i in range(len(tuples)):
        perm = (ar - q[i]) % N
        out_v[i] = values[where[i]][np.ix_(perm, perm)]
        out_k[i] = kmax[where[i]][perm]
    first = np.zeros(len(tuples), dtype=bool)  # evaluations are counted once per representative
    first[np.unique(where, return_index=True)[1]] = True
    return ChunkResult(tuples, out_v, out_k, status[where], np.where(first, evals[where], 0), proven[where], mixed)


def level_tuples(spec: Spec, representatives: bool = True) -> list[np.ndarray]:
    """Tuple indices of every score-sum level, from the highest sum ``N (G - 1)`` down to 0 (with
    ``representatives``, only each rotation class's representative)."""
    G, N = spec.G, spec.players
    idx = np.arange(spec.tuples, dtype=np.int64)
    total = np.zeros(spec.tuples, dtype=np.int64)
    for st in spec.strides():
        total += (idx // st) % G
    if representatives:
        keep = canonical(spec, idx)[0] == idx
        idx, total = idx[keep], total[keep]
    order = np.argsort(-total, kind="stable")
    bounds = np.searchsorted(-total[order], np.arange(-N * (G - 1), 1), side="left")
    bounds = np.append(bounds, len(idx))
    return [idx[order[bounds[i]: bounds[i + 1]]] for i in range(len(bounds) - 1)]


def expand(spec: Spec, start: np.ndarray, kmax: np.ndarray, tuples: np.ndarray, values: np.ndarray,
           kvals: np.ndarray) -> None:
    """Write the solved ``tuples`` and every rotation of them into ``start`` and ``kmax``."""
    N = spec.players
    rot = rotations(spec, tuples)
    ar = np.arange(N)
    for r in range(N - 1, -1, -1):
        perm = (ar + r) % N
        start[rot[:, r]] = values[:, perm][:, :, perm]
        kmax[rot[:, r]] = kvals[:, perm]


@dataclass
class Solution:
    """An N-player 10,000 solve.  ``start[tuple, m, e]``: seat ``e``'s win probability when seat ``m``
    starts its turn at the tuple (:meth:`Spec.index`, scores in units); ``kmax[tuple, m]`` the largest
    turn total with a choice in that turn; ``finals`` the final round; ``mixed`` the cycle tuples'
    records; ``stats`` timings, counts, tolerances and caps."""

    spec: Spec
    start: np.ndarray
    kmax: np.ndarray
    finals: Finals
    mixed: list
    stats: dict = field(default_factory=dict)

    def start_at(self, scores) -> np.ndarray:
        return self.start[self.spec.index(scores)]

    def lookup(self, scores, seat: int) -> np.ndarray:
        """The start-values lookup :func:`turn_values` takes (``seat`` 0-based)."""
        return self.start[self.spec.index(scores), seat]

    def turn_values(self, scores, seat: int, kmax: int | None = None) -> dict:
        """:func:`turn_values` of this solution (``seat`` 0-based), with its mixing probabilities."""
        scores = tuple(int(x) for x in scores)
        k = int(self.kmax[self.spec.index(scores), seat]) if kmax is None else kmax
        return turn_values(scores, seat, self.lookup, self.spec, self.finals, k, self.mixing().get((scores, seat)))

    def mixing(self) -> dict:
        """``{(scores, seat): [decision, ...]}`` of the randomising seats (see :func:`turn_values`)."""
        out: dict = {}
        N = self.spec.players
        for rec in self.mixed:
            s = tuple(rec["scores"])
            for m, decisions in rec["randomising"]:
                for r in range(N):  # the same cycle seen from every rotation of the tuple
                    out.setdefault((s[r:] + s[:r], (m - r) % N), decisions)
        return out


def solve(rules: RuleSet, players: int, goal: int | None = None, *, tie_tolerance: float = TIE_TOLERANCE,
          margin: int | None = None, bound_scale: float = BOUND_SCALE, final_scale: float = 1.0,
          chunk: int | None = None, workers: int | None = None, selection: str = "mixed",
          progress=None) -> Solution:
    """Solve 10,000 under ``rules`` for ``players`` seats to ``goal`` points (default the rules' goal):
    every score tuple below the goal, every seat to move.  ``chunk``: tuples per :func:`solve_tuples`
    call (default a whole level); ``workers``: threads per chunk (default numba's thread count);
    ``selection``: "mixed" (store an equilibrium in cycle tuples) or "cycle-start" (comparisons)."""
    if selection not in ("mixed", "cycle-start"):
        raise ValueError(f"selection must be 'mixed' or 'cycle-start', got {selection!r}")
    spec = Spec(rules, players, rules.goal if goal is None else goal, tie_tolerance, MAX_ITERATIONS,
                bound_scale, margin, final_scale)
    t0 = time.perf_counter()
    c0 = time.process_time()
    finals = solve_finals(spec, workers)
    t1 = time.perf_counter()
    start = np.zeros((spec.tuples, players, players))
    kmax = np.zeros((spec.tuples, players), dtype=np.int32)
    inputs = LevelInputs(spec, finals, start, selection)
    mixed, evaluations, unproven = [], 0, 0
    levels = level_tuples(spec)
    for li, level in enumerate(levels):
        pieces = [level] if not chunk else [level[i: i + chunk] for i in range(0, len(level), chunk)]
        for piece in pieces:
            res = solve_tuples(inputs, piece, workers)
            expand(spec, start, kmax, res.tuples, res.values, res.kmax)
            mixed.extend(res.mixed)
            evaluations += int(res.evaluations.sum())
            unproven += int((~res.proven).sum())
        if progress:
            progress(li + 1, len(levels))
    t2 = time.perf_counter()
    mixed.sort(key=lambda rec: rec["index"])
    z = spec.sizes()
    stats = {
        "players": players, "goal": spec.goal, "goal_units": spec.G, "rules": rules.name,
        "tuples": spec.tuples, "turn_starts": spec.tuples * players,
        "tie_tolerance": tie_tolerance, "equilibrium_tolerance": EQUILIBRIUM_TOLERANCE,
        "max_iterations": spec.max_iterations, "bound_scale": bound_scale, "final_scale": final_scale,
        "margin": z["margin"], "forced_bank_total_cap": z["tcap"], "final_bank_margin": z["df"],
        "turn_evaluations": evaluations,
        # representatives (rotation classes) whose best responses cycled; "recheck": the kernel's
        # conservative interval test failed but the profile was a fixed point (no cycle)
        "cycle_tuples": sum(1 for m in mixed if m["cycle_length"] > 1),
        "cycle_tuples_all_rotations": len({r for m in mixed if m["cycle_length"] > 1
                                           for r in rotations(spec, [m["index"]])[0]}),
        "mixed_tuples": sum(1 for m in mixed if m["kind"] == "mixed"),
        "fixed_point_rechecks": sum(1 for m in mixed if m["cycle_length"] == 1),
        "unproven_tuples": unproven, "selection": selection,
        "max_indifference_residual": max((m["residual"] for m in mixed if m["kind"] != "cycle-start"), default=0.0),
        "representatives": int(sum(len(level) for level in levels)),
        "mean_kmax": float(kmax.mean()),
        "seconds_final_round": round(t1 - t0, 3), "seconds_levels": round(t2 - t1, 3),
        "seconds": round(t2 - t0, 3), "cpu_seconds": round(time.process_time() - c0, 3),
        "bytes_start": int(start.nbytes + kmax.nbytes), "bytes_finals": finals.nbytes,
    }
    return Solution(spec, start, kmax, finals, mixed, stats)


# --------------------------------------------------------------------------- policy cycles
def _tuple_tools(inputs: LevelInputs, idx: int, kmax):
    """A function evaluating one seat's turn at a ``beta`` (with the tuple's forced-bank totals)."""
    from . import nplayer_kernels as kern

    spec, f = inputs.spec, inputs.finals
    N = spec.players
    mv = moves(spec.rules)
    S = len(mv.states)
    KK = spec.sizes()["tcap"] + mv.max_pts + 2

    def turn(m: int, beta: float):
        A = np.zeros((KK, S, N))
        c = np.zeros((KK, S))
        roll = np.zeros((KK, S), dtype=bool)
        keep = np.zeros((KK, len(mv.gp)), dtype=np.int8)
        ivl = np.zeros(2)
        kern.one_turn(idx, m, beta, N, spec.G, spec.om, spec.tie_tolerance, spec.strides(), reach_mask(spec.rules, KK), mv.sg, mv.gp, mv.go,
                      mv.op, mv.ost, mv.pf, mv.max_pts, int(kmax[m]), inputs.start, f.phi, f.offsets, f.pexc,
                      A, c, roll, keep, ivl)
        K = int(kmax[m]) + 1
        return A[0, 0].copy(), float(c[0, 0]), (roll[:K].copy(), keep[:K].copy()), ivl

    return turn


def _resolve_cycle(inputs: LevelInputs, idx: int, kmax, all_equilibria: bool = False):
    """An equilibrium of one tuple whose policy iteration cycled (the Great Rolled Ones solver's
    search, :func:`dicebase.builder.rolled_ones.nplayer._resolve_cycle`): rerun the best responses
    until a profile repeats; then a pure equilibrium among the policies the cycle spans; then a
    mixed stationary one (seats randomising between two adjacent policies at their indifference
    points, smallest set first).  Returns (record, values[m, :])."""
    from dicebase.builder.rolled_ones.nplayer import _cycle_values, _mixed_candidate, _record

    from . import nplayer_kernels as kern

    spec = inputs.spec
    N = spec.players
    turn = _tuple_tools(inputs, idx, kmax)
    scores = spec.scores(idx)
    beta = np.empty(N)
    kern.initial_beta(idx, N, spec.G, spec.strides(), inputs.start, beta)
    policies: list[list] = [[] for _ in range(N)]

    def policy_id(m, A, c, dec):
        for i, (A2, c2, _) in enumerate(policies[m]):
            if c2 == c and np.array_equal(A2, A):
                return i
        policies[m].append((A, c, dec))
        return len(policies[m]) - 1

    history, betas = [], []
    for _ in range(4 * spec.max_iterations):
        prof = tuple(policy_id(m, *turn(m, beta[m])[:3]) for m in range(N))
        if prof in history:
            first = history.index(prof)
            cycle, cycle_betas = history[first:], betas[first:]
            break
        history.append(prof)
        betas.append(beta)
        SA = np.array([policies[m][prof[m]][0] for m in range(N)])
        Sc = np.array([policies[m][prof[m]][1] for m in range(N)])
        beta = np.array([_cycle_values(N, SA, Sc)[(m + 1) % N, m] for m in range(N)])
    else:  # pragma: no cover
        raise RuntimeError(f"tuple {scores}: best responses neither settle nor cycle")
    if len(cycle) == 1:  # the kernel's iteration stopped on an interval edge: a fixed point after all
        prof = cycle[0]
        SA = np.array([policies[m][prof[m]][0] for m in range(N)])
        Sc = np.array([policies[m][prof[m]][1] for m in range(N)])
        return _record(idx, scores, "pure", [], 0.0, 1), _cycle_values(N, SA, Sc)
    if inputs.selection == "cycle-start":
        prof = cycle[0]
        SA = np.array([policies[m][prof[m]][0] for m in range(N)])
        Sc = np.array([policies[m][prof[m]][1] for m in range(N)])
        return _record(idx, scores, "cycle-start", [], float("nan"), len(cycle)), _cycle_values(N, SA, Sc)
    seen = []
    for m in range(N):
        if len({p[m] for p in cycle}) == 1:
            seen.append([cycle[0][m]])
            continue
        lo_b = min(b[m] for b in cycle_betas)
        hi_b = max(b[m] for b in cycle_betas)
        ids, b = [], lo_b
        for _ in range(1000):
            A, c, dec, ivl = turn(m, b)
            i = policy_id(m, A, c, dec)
            if i not in ids:
                ids.append(i)
            if not ivl[1] < hi_b:
                break
            b = float(ivl[1]) + 1e-13 * max(1.0, abs(float(ivl[1])))
        seen.append(ids)

    def best_value(m, b):
        A, c, _, _ = turn(m, b)
        return A[m] + c * b

    def check(SA, Sc):
        T = _cycle_values(N, SA, Sc)
        b = np.array([T[(m + 1) % N, m] for m in range(N)])
        worst = max(best_value(m, b[m]) - (SA[m, m] + Sc[m] * b[m]) for m in range(N))
        return T, b, worst

    found = []
    for combo in itertools.product(*seen):
        SA = np.array([policies[m][combo[m]][0] for m in range(N)])
        Sc = np.array([policies[m][combo[m]][1] for m in range(N)])
        T, b, worst = check(SA, Sc)
        if worst <= EQUILIBRIUM_TOLERANCE:
            found.append((_record(idx, scores, "pure", [], worst, len(cycle)), T))
            if not all_equilibria:
                return found[0]
    movers = [m for m in range(N) if len(seen[m]) > 1]
    for size in range(1, len(movers) + 1):
        for S in itertools.combinations(movers, size):
            pairs = [[(seen[m][a], seen[m][a + 1]) for a in range(len(seen[m]) - 1)] for m in S]
            rest = [seen[m] if m not in S else [None] for m in range(N)]
            for pair_combo in itertools.product(*pairs):
                for fixed in itertools.product(*rest):
                    cand = _mixed_candidate(N, policies, S, pair_combo, fixed, check)
                    if cand is None:
                        continue
                    T, qs, worst = cand
                    randomising = [(m, _decisions(policies[m][i0][2], policies[m][i1][2], q))
                                   for m, (i0, i1), q in zip(S, pair_combo, qs)]
                    found.append((_record(idx, scores, "mixed", randomising, worst, len(cycle)), T))
                    if not all_equilibria:
                        return found[0]
    if all_equilibria:
        return found
    raise RuntimeError(f"tuple {scores}: no equilibrium found among the policies of its cycle")  # pragma: no cover


def _decisions(dec0, dec1, q: float) -> list:
    """Where two policies of a seat differ (the second played with probability ``q``):
    ``("roll", k, c, p_roll)`` and ``("keep", k, g, option_q, option_1mq, q)`` (options as offsets in group ``g``)."""
    (r0, k0), (r1, k1) = dec0, dec1
    out = []
    for k, c in zip(*np.nonzero(r0 != r1)):
        out.append(("roll", int(k), int(c), float(q if r1[k, c] else 1.0 - q)))
    for k, g in zip(*np.nonzero(k0 != k1)):
        out.append(("keep", int(k), int(g), int(k1[k, g]), int(k0[k, g]), float(q)))
    return out


# --------------------------------------------------------------------------- lookups
def turn_values(scores, seat: int, start_values_lookup, spec: Spec, finals: Finals, kmax: int, mixing=None) -> dict:
    """Every ``(k, c)`` state of seat ``seat``'s (0-based) turn at ``scores`` (units, all below the goal).

    ``start_values_lookup(scores, seat) -> (N,)`` gives a stored turn-start win vector
    (:meth:`Solution.lookup`); ``kmax`` the stored largest turn total with a choice (beyond it the
    mover banks); ``mixing`` the tuple's randomised decisions for this seat, if any
    (:func:`_decisions`).  Returns arrays over ``k = 0 .. kmax``, classes ``c``, seats ``e``:
    ``p_roll[k, c, e]``, ``p_bank[k, e]`` (NaN where banking is not allowed), ``roll[k, c]``
    (probability the mover rolls: 1, 0 or the mixing probability), ``keep[k, g]`` (the option the
    mover takes in roll group ``g``, an index into :func:`moves`' options), ``p_win[k, c, e]``.
    Reads ``kmax + max_pts`` stored turn starts (and the final round), as the two-player ``state``."""
    mv = moves(spec.rules)
    N, G, tol = spec.players, spec.G, spec.tie_tolerance
    scores = tuple(int(s) for s in scores)
    m, sm = seat, scores[seat]
    nxt = (m + 1) % N
    bust = np.asarray(start_values_lookup(scores, nxt), dtype=float)
    KK = kmax + mv.max_pts
    hold = np.full((KK + 1, N), np.nan)
    others = [(m + 1 + j) % N for j in range(N - 1)]
    for k in range(1, KK + 1):
        t = sm + k
        if t < G:
            higher = list(scores)
            higher[m] = t
            hold[k] = start_values_lookup(tuple(higher), nxt)
        else:
            v = final_start(spec, finals, t, [scores[j] for j in others])
            hold[k, m] = v[0]
            hold[k, others] = v[1:]
    roll_mix, keep_mix = {}, {}
    for d in mixing or []:
        if d[0] == "roll":
            roll_mix[(d[1], d[2])] = d[3]
        else:
            keep_mix[(d[1], d[2])] = d[3:]
    S = len(mv.states)
    value = np.zeros((KK + 1, S, N))
    value[kmax + 1:] = hold[kmax + 1:, None, :]
    p_roll = np.zeros((kmax + 1, S, N))
    roll = np.zeros((kmax + 1, S))
    keep = np.zeros((kmax + 1, len(mv.gp)), dtype=np.int64)
    p_bank = hold[: kmax + 1].copy()
    for k in range(kmax, -1, -1):
        vals = value[k + mv.op, mv.ost]
        ch = _choose(mv, vals[:, m], tol)
        keep[k] = ch
        chosen = vals[ch]
        for (kk, g), (o1, o0, q) in keep_mix.items():
            if kk == k:
                chosen[g] = q * vals[mv.go[g] + o1] + (1.0 - q) * vals[mv.go[g] + o0]
        pr = _class_sum(mv, mv.gp[:, None] * chosen) + mv.pf[:, None] * bust
        p_roll[k] = pr
        can_bank = k > 0 and (sm > 0 or k >= spec.om)
        if not can_bank:
            p_bank[k] = np.nan
        for c in range(S):
            if not can_bank:
                q = 1.0
            elif mv.sg[c] == mv.sg[c + 1]:
                q = 0.0
            elif (k, c) in roll_mix:
                q = roll_mix[(k, c)]
            else:
                q = 1.0 if pr[c, m] > hold[k, m] + tol else 0.0
            roll[k, c] = q
            value[k, c] = pr[c] if q == 1.0 else hold[k] if q == 0.0 else q * pr[c] + (1.0 - q) * hold[k]
    return {"p_roll": p_roll, "p_bank": p_bank, "roll": roll, "keep": keep, "p_win": value[: kmax + 1]}


def summary(sol: Solution) -> dict:
    """Seat win probabilities at the start (all scores 0, seat 1 to move) and the cycle findings."""
    N = sol.spec.players
    return {"p_win_seats": [float(x) for x in sol.start_at((0,) * N)[0]],
            **{k: sol.stats[k] for k in ("cycle_tuples", "mixed_tuples", "unproven_tuples")}}


__all__ = [
    "Spec", "Solution", "Finals", "Moves", "LevelInputs", "ChunkResult", "moves", "keep_priority", "solve",
    "solve_finals", "solve_tuples", "level_tuples", "turn_values", "final_turn_values", "final_start", "summary",
    "TIE_TOLERANCE", "EQUILIBRIUM_TOLERANCE",
]
