"""Optimal (subgame-perfect) play of Great Rolled Ones for N players, solved exactly.

Rules for N players (issue 21; with N = 2 exactly seed 002's game and :mod:`.solver`):
seats 1..N play in order, holding at turn total 0 is not allowed, rolled 1s are set aside
and ``ones_limit`` of them end the turn with no score (a *bust*).  A seat whose turn ends at
or above the goal ``G`` makes the current round the last: every seat after it in that round
takes one final turn (if it sits in the last seat the game ends at once).  On a final turn
a seat may hold only when its score plus turn total exceeds the highest score at that
moment.  The highest score at the end wins (it is unique: each final turn either busts or
ends above the bar).  Each seat maximises its own probability of winning; values are win
VECTORS, one entry per seat.  Tie-break for the mover: roll only when ``P_roll`` exceeds
``P_hold`` by more than ``tie_tolerance`` (1e-12), i.e. hold before roll within it.

Notation (0-based seat ``m`` in code, seat ``m + 1`` in words; ``s`` the score tuple, all
below ``G`` until someone reaches the goal; ``P`` a win vector; ``e_m`` seat ``m`` wins)::

    P(m, s, k, o)       = max_m(P_roll, P_hold)          (the mover's entry decides; ties hold)
    P_roll(m, s, k, o)  = sum_{n=0}^{L-1-o} P_new1s(D-o, n) P(m, s, k + D - o', o')
                          + P_end(o) P(m+1, s, 0, 0)                               o' = o + n
    P_hold(m, s, k)     = not allowed                      if k = 0
                        = P(m+1, s + k e_m, 0, 0)          if s_m + k < G
                        = e_m                              if s_m + k >= G and m = N-1
                        = Phi_{m+1}(s_m + k; s_{m+1..N-1}) if s_m + k >= G and m < N-1
                                                             (leader role: seat m)

``m + 1`` wraps to seat 0 (a new round).  The final round: ``Phi_j(X; s_j..s_{N-1})`` is the
win vector over the roles ``[leader, j, .., N-1]`` when seat ``j`` starts its final turn with
bar ``X`` (the highest score).  Seat ``j`` at total ``t = s_j + k``::

    t <= X:  must roll:  F(t, o) = sum_n P_new1s F(t + D - o', o') + P_end(o) Phi_{j+1}(X)  (j busts: 0)
    t >  X:  F(t, o)     = max_j(roll, Phi_{j+1}(t) with j the leader)       (hold at t >= score_cap)
    Phi_N(X)             = [1]   (the leader wins)

Seat ``j``'s decisions above the bar do not depend on the bar (a bust gives it 0), so its
values there are ``FA(t, o) + Fc(t, o) Phi_{j+1}(X)``; below the bar the turn is a chance
process whose first passage above ``X`` depends only on ``d = X - t``: ``Q[d, o, r, o']``,
the chance to first exceed the bar at ``X + r`` with ``o'`` 1s (``sum Q = P_exceed(d, o)``,
seed 002).  So ``Phi_j(X; s_j, R) = sum_{r,o'} Q[X - s_j, 0, r, o'] (FA + Fc Phi_{j+1}(X))
+ (1 - sum Q) Phi_{j+1}(X)``, all ``s_j`` at once.  For the last seat this is seed 002's
``P_exceed``.

Solution method.  A hold raises the score sum; a bust keeps the tuple and passes the turn,
so the N turn starts of one tuple form a cycle and the tuples of one score-sum level depend
only on higher levels.  Levels are solved from ``N (G - 1)`` down to 0 by
:func:`solve_tuples` (one chunk of a level; chunks are independent and the result does not
depend on how a level is chunked or threaded).  Within a tuple every seat's turn is affine
in its bust continuation: ``P(m, s, k, o) = A + c P(m+1, s, 0, 0)``, and its greedy policy
depends on one scalar, the mover's own entry ``beta_m`` of ``P(m+1, s, 0, 0)``.  Policy
iteration: policies at the current ``beta``, the exact solve of the N-cycle, new ``beta``;
stop when every ``beta`` stays in its policy's interval (no tolerance).  With three or more
players best responses can cycle (``../shared/N-PLAYERS.md``): a profile of policies seen
before stops the iteration and :func:`_resolve_cycle` searches, in a fixed order, a pure
equilibrium among the policies of the cycle and then a mixed stationary equilibrium in which
one or more seats randomise between the two policies of the cycle at their indifference
point (see ``docs/n_players.md``); the affected tuples and mixing probabilities are returned.

Caps (explicit, proven harmless by tests that raise them): the turn total ``k`` of a turn
below the goal is kept up to ``rules.turn_total_bound`` (``K``; beyond it the mover holds, as
in :mod:`.solver`), and in the final round a seat above the bar holds once its score reaches
``score_cap`` (``C >= G + K``).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.rules.rolled_ones import (  # noqa: F401  (re-exported: the N-player rules live in the rules layer)
    TIE_TOLERANCE, TURN_TOTAL_MARGIN, TURN_TOTAL_MARGIN_MANY, Rules, bar_ranges, rules_for, score_cap,
)

#: Policy-iteration rounds per tuple before it is handed to the cycle resolution.
MAX_ITERATIONS = 64
#: A stored mixed equilibrium must make its randomising seats indifferent within this.
EQUILIBRIUM_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Spec:
    """What an N-player solve needs besides the rules: the number of players, the final-round
    score cap (default ``goal + turn_total_bound``), the tie tolerance and the iteration limit."""

    rules: Rules
    players: int
    score_cap: int | None = None
    tie_tolerance: float = TIE_TOLERANCE
    max_iterations: int = MAX_ITERATIONS

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 8:
            raise ValueError(f"players must be 2..8, got {self.players}")
        if self.cap < self.rules.goal + self.rules.turn_total_bound:
            raise ValueError(
                f"score_cap must be at least goal + turn_total_bound "
                f"({self.rules.goal + self.rules.turn_total_bound}), got {self.cap}"
            )

    @property
    def cap(self) -> int:
        return score_cap(self.rules) if self.score_cap is None else self.score_cap

    @property
    def tuples(self) -> int:
        return self.rules.goal**self.players

    def strides(self) -> np.ndarray:
        G, N = self.rules.goal, self.players
        return np.array([G ** (N - 1 - m) for m in range(N)], dtype=np.int64)

    def index(self, scores) -> int:
        """Tuple index of ``scores`` (seat 1 first), each ``0 <= score < goal``."""
        G = self.rules.goal
        if len(scores) != self.players or not all(0 <= s < G for s in scores):
            raise ValueError(f"need {self.players} scores in 0..{G - 1}, got {tuple(scores)}")
        return int(sum(int(s) * int(st) for s, st in zip(scores, self.strides())))

    def scores(self, idx: int) -> tuple[int, ...]:
        G = self.rules.goal
        return tuple(int(idx // st) % G for st in self.strides())

    def bar_ranges(self) -> list[int]:
        """``range_j``: the largest bar ``X`` of ``Phi_j`` (``j = 0`` unused), growing by ``D`` per seat
        because ``Phi_j(X)`` reads seat ``j``'s free region up to ``X + D``."""
        return bar_ranges(self.rules, self.players, self.cap)


# --------------------------------------------------------------------------- the rule tables
@dataclass(frozen=True)
class Outcomes:
    """Roll outcomes as arrays (from :attr:`Rules.outcomes`, seed 002's ``P_new1s``)."""

    p: np.ndarray  # [o, q] probability
    gain: np.ndarray  # [o, q] points added (non-1s)
    o_next: np.ndarray  # [o, q] 1s set aside after
    n: np.ndarray  # [o] outcomes that do not end the turn
    p_end: np.ndarray  # [o] chance the roll ends the turn


def outcomes(rules: Rules) -> Outcomes:
    L = rules.ones_limit
    width = max(len(x) for x in rules.outcomes)
    p = np.zeros((L, width))
    g = np.zeros((L, width), dtype=np.int64)
    on = np.zeros((L, width), dtype=np.int64)
    n = np.zeros(L, dtype=np.int64)
    for o in rules.ones:
        for q, (prob, gain, o_next) in enumerate(rules.outcomes[o]):
            p[o, q], g[o, q], on[o, q] = prob, gain, o_next
        n[o] = len(rules.outcomes[o])
    return Outcomes(p, g, on, n, np.array(rules.p_end))


def first_passage(rules: Rules, d_max: int) -> np.ndarray:
    """``Q[d, o, r - 1, o']``: from ``d = X - t >= 0`` points at or below the bar with ``o`` 1s set
    aside, always rolling, the chance to first exceed the bar at ``X + r`` with ``o'`` 1s::

        Q[d, o] = sum_{n=0}^{L-1-o} P_new1s(D-o, n) (delta_{r = g - d, o'} if g > d else Q[d - g, o'])

    with ``g = D - o'``.  ``sum_{r, o'} Q[d, o, r, o']`` is seed 002's ``P_exceed(d, o)``.
    """
    L, D = rules.ones_limit, rules.dice
    Q = np.zeros((d_max + 1, L, D, L))
    for d in range(d_max + 1):
        for o in rules.ones:
            for prob, gain, o_next in rules.outcomes[o]:
                if gain > d:
                    Q[d, o, gain - d - 1, o_next] += prob
                else:
                    Q[d, o] += prob * Q[d - gain, o_next]
    return Q


def reach_mask(rules: Rules) -> np.ndarray:
    """``reach[k, o]``: a turn can be at ``(k, o)``, ``k <= turn_total_bound``."""
    from dicebase.rules.rolled_ones import reachable_turns

    reach = np.zeros((rules.turn_total_bound + 1, rules.ones_limit), dtype=bool)
    for k, o in reachable_turns(rules):
        reach[k, o] = True
    return reach


# --------------------------------------------------------------------------- the final round
@dataclass
class Finals:
    """The final round, compactly.  For seat ``j = 1 .. N-1`` (0-based):

    * ``phi[j]``: ``[X - G, r, role]``, ``Phi_j(X; s_j..s_{N-1})`` over roles ``[leader, j, .., N-1]``,
      ``r`` the index of ``(s_j, .., s_{N-1})`` (``s_j`` most significant), ``X = G .. bar_ranges[j]``;
    * ``fa[j]``, ``fc[j]``: ``[R, t - G - 1, o(, role)]`` seat ``j``'s values above the bar,
      ``FA + Fc * Phi_{j+1}(X)`` (roles ``[j, .., N-1]``), ``R`` the index of ``s_{j+1}..``;
    * ``froll[j]``: seat ``j``'s decision above the bar (True: roll);
    * ``q``: the first-passage table :func:`first_passage`.

    ``phi`` is what the solve reads; ``fa``, ``fc``, ``froll`` and ``q`` are enough to rebuild
    any ``Phi`` (:func:`final_start`) and every final-turn state (:func:`final_turn_values`).
    """

    flat: np.ndarray
    offsets: np.ndarray
    rows: np.ndarray
    phi: list
    fa: list
    fc: list
    froll: list
    q: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.flat.nbytes + sum(a.nbytes for a in self.fa + self.fc + self.froll if a is not None)
                   + self.q.nbytes)


def solve_finals(spec: Spec, workers: int | None = None) -> Finals:
    """Every seat's final turn, from the last seat back to seat 2 (each reads the next's table)."""
    from numba import get_num_threads

    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    r, N = spec.rules, spec.players
    G, D, L, C = r.goal, r.dice, r.ones_limit, spec.cap
    workers = workers or get_num_threads()
    ranges = spec.bar_ranges()
    out = outcomes(r)
    Q = first_passage(r, ranges[-1])
    Q0 = np.ascontiguousarray(Q[:, 0])
    rows = np.zeros(N + 1, dtype=np.int64)
    offsets = np.zeros(N + 1, dtype=np.int64)
    sizes = []
    total = 0
    for j in range(1, N):
        rows[j] = G ** (N - j)
        offsets[j] = total
        size = (ranges[j] - G + 1) * rows[j] * (N - j + 1)
        sizes.append(size)
        total += size
    flat = np.zeros(total)
    phi, fa, fc, froll = [None] * N, [None] * N, [None] * N, [None] * N
    for j in range(N - 1, 0, -1):
        nR = rows[j] // G
        tmax = ranges[j] + D
        TT = tmax - G
        fa[j] = np.zeros((nR, TT, L, N - j))
        fc[j] = np.zeros((nR, TT, L))
        froll[j] = np.zeros((nR, TT, L), dtype=bool)
        XR = ranges[j] - G + 1
        kern.final_tables(j, N, G, C, L, spec.tie_tolerance, tmax, XR, Q0, out.p, out.gain, out.o_next, out.n,
                          out.p_end, flat, offsets, rows, fa[j], fc[j], froll[j], workers)
    for j in range(1, N):
        phi[j] = flat[offsets[j]: offsets[j] + sizes[j - 1]].reshape(ranges[j] - G + 1, rows[j], N - j + 1)
    return Finals(flat, offsets, rows, phi, fa, fc, froll, Q)


def final_start(spec: Spec, finals: Finals, j: int, X: int, later: tuple[int, ...]) -> np.ndarray:
    """``Phi_j(X; later)`` for seat ``j`` (0-based, ``1 <= j < N``) starting its final turn with bar
    ``X >= G``; ``later`` = the scores of seats ``j .. N-1``.  Roles ``[leader, j, .., N-1]``.
    Read from the table (bars ``G .. bar_ranges[j]``; a bar beyond cannot occur under the caps)."""
    G = spec.rules.goal
    r = 0
    for s in later:
        r = r * G + int(s)
    if X - G < finals.phi[j].shape[0]:
        return finals.phi[j][X - G, r].copy()
    raise ValueError(f"bar {X} is beyond the stored final-round tables (score_cap {spec.cap})")


# --------------------------------------------------------------------------- the solve
@dataclass
class LevelInputs:
    """What a chunk of one level reads: the spec, the rule tables, the final round and the turn
    starts of higher levels (``start``; a Dask task gets these once per worker)."""

    spec: Spec
    finals: Finals
    start: np.ndarray  # [tuple, seat, seat's win]
    reach: np.ndarray
    out: Outcomes
    #: what a cycle tuple stores: "mixed" (an equilibrium, the default) or "cycle-start" (the values
    #: of the first policy profile of the detected cycle: not an equilibrium; for comparisons only)
    selection: str = "mixed"


@dataclass
class ChunkResult:
    """Values of one chunk of tuples: ``values[t, m, :]`` the win vector at seat ``m``'s turn start,
    ``status[t]`` (0 pure equilibrium by policy iteration, 1 cycle resolved), ``evaluations[t]``
    (turn evaluations used), ``mixed`` (one record per tuple whose stored equilibrium needed the
    cycle resolution: scores, kind ('pure' or 'mixed'), randomising seats, their decision states
    and roll probabilities, the indifference residual)."""

    tuples: np.ndarray
    values: np.ndarray
    status: np.ndarray
    evaluations: np.ndarray
    mixed: list


def solve_tuples(inputs: LevelInputs, tuples: np.ndarray, workers: int | None = None) -> ChunkResult:
    """Solve the tuples ``tuples`` (indices, all of one score-sum level) given the higher levels in
    ``inputs.start``; returns their values (does not write ``inputs.start``).

    The result of a tuple depends only on the higher levels, never on the other tuples of the
    chunk, the chunking or the thread count (bit-identical).
    """
    from numba import get_num_threads

    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    spec, f, o = inputs.spec, inputs.finals, inputs.out
    r, N = spec.rules, spec.players
    tuples = np.ascontiguousarray(tuples, dtype=np.int64)
    n = len(tuples)
    values = np.zeros((n, N, N))
    status = np.zeros(n, dtype=np.int64)
    evals = np.zeros(n, dtype=np.int64)
    if n:
        kern.solve_tuples(tuples, N, r.goal, r.turn_total_bound, r.dice, r.ones_limit, spec.tie_tolerance,
                          spec.max_iterations, spec.strides(), inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                          inputs.start, f.flat, f.offsets, f.rows, values, status, evals,
                          workers or get_num_threads())
    mixed = []
    for t in np.flatnonzero(status != kern.CONVERGED):
        record, vals = _resolve_cycle(inputs, int(tuples[t]))
        values[t] = vals
        mixed.append(record)
        status[t] = 1
    return ChunkResult(tuples, values, status, evals, mixed)


def level_tuples(spec: Spec) -> list[np.ndarray]:
    """Tuple indices of every score-sum level, from the highest sum ``N (G - 1)`` down to 0."""
    G, N = spec.rules.goal, spec.players
    total = np.zeros(spec.tuples, dtype=np.int64)
    idx = np.arange(spec.tuples, dtype=np.int64)
    for st in spec.strides():
        total += (idx // st) % G
    order = np.argsort(-total, kind="stable")
    bounds = np.searchsorted(-total[order], np.arange(-N * (G - 1), 1), side="left")
    bounds = np.append(bounds, spec.tuples)
    return [order[bounds[i]: bounds[i + 1]] for i in range(len(bounds) - 1)]


@dataclass
class Solution:
    """An N-player solve.

    ``start``: ``[tuple, m, e]`` seat ``e``'s win probability when seat ``m`` starts its turn at the
    tuple (index :meth:`Spec.index`; ``start_at(scores)`` gives ``[m, e]``).  ``finals``: the final
    round (:class:`Finals`).  ``mixed``: the tuples whose stored equilibrium came from the cycle
    resolution (see :class:`ChunkResult`).  ``stats``: timings, counts, tolerances and caps.
    """

    spec: Spec
    start: np.ndarray
    finals: Finals
    mixed: list
    stats: dict = field(default_factory=dict)

    def start_at(self, scores) -> np.ndarray:
        return self.start[self.spec.index(scores)]

    def lookup(self, scores, seat: int) -> np.ndarray:
        """The start-values lookup :func:`turn_values` takes (``seat`` 0-based)."""
        return self.start[self.spec.index(scores), seat]

    def turn_values(self, scores, seat: int) -> dict:
        """:func:`turn_values` of this solution (``seat`` 0-based), with its mixing probabilities."""
        key = (tuple(int(x) for x in scores), seat)
        return turn_values(key[0], seat, self.lookup, self.spec, self.finals, self.mixing().get(key))

    def mixing(self) -> dict:
        """``{(scores, seat): [(k, o, p_roll), ...]}`` of the randomising seats (0-based seats)."""
        out: dict = {}
        for rec in self.mixed:
            for m, states, q in rec["randomising"]:
                qs = q if isinstance(q, list) else [q] * len(states)
                out[(tuple(rec["scores"]), m)] = [(k, o, p) for (k, o), p in zip(states, qs)]
        return out


def solve(rules: Rules, players: int, *, score_cap: int | None = None, tie_tolerance: float = TIE_TOLERANCE,
          chunk: int | None = None, workers: int | None = None, selection: str = "mixed",
          progress=None) -> Solution:
    """Solve Great Rolled Ones for ``players`` seats under ``rules`` (every score tuple below the goal,
    every seat to move).  ``chunk``: tuples per :func:`solve_tuples` call (default: a whole level);
    ``workers``: threads' share of each chunk (default numba's thread count); ``selection``: see
    :class:`LevelInputs` (keep "mixed")."""
    if selection not in ("mixed", "cycle-start"):
        raise ValueError(f"selection must be 'mixed' or 'cycle-start', got {selection!r}")
    spec = Spec(rules, players, score_cap, tie_tolerance)
    t0 = time.perf_counter()
    finals = solve_finals(spec, workers)
    t1 = time.perf_counter()
    start = np.zeros((spec.tuples, players, players))
    inputs = LevelInputs(spec, finals, start, reach_mask(rules), outcomes(rules), selection)
    mixed = []
    evaluations = 0
    levels = level_tuples(spec)
    for li, level in enumerate(levels):
        pieces = [level] if not chunk else [level[i: i + chunk] for i in range(0, len(level), chunk)]
        for piece in pieces:
            res = solve_tuples(inputs, piece, workers)
            start[res.tuples] = res.values
            mixed.extend(res.mixed)
            evaluations += int(res.evaluations.sum())
        if progress:
            progress(li + 1, len(levels))
    t2 = time.perf_counter()
    mixed.sort(key=lambda rec: rec["index"])
    stats = {
        "players": players,
        "goal": rules.goal,
        "tuples": spec.tuples,
        "turn_starts": spec.tuples * players,
        "turn_total_bound": rules.turn_total_bound,
        "score_cap": spec.cap,
        "tie_tolerance": tie_tolerance,
        "equilibrium_tolerance": EQUILIBRIUM_TOLERANCE,
        "max_iterations": spec.max_iterations,
        "turn_evaluations": evaluations,
        "cycle_tuples": len(mixed),
        "mixed_tuples": sum(1 for m in mixed if m["kind"] == "mixed"),
        "selection": selection,
        "max_indifference_residual": max((m["residual"] for m in mixed if m["kind"] != "cycle-start"), default=0.0),
        "seconds_final_round": round(t1 - t0, 3),
        "seconds_levels": round(t2 - t1, 3),
        "bytes_start": int(start.nbytes),
        "bytes_finals": finals.nbytes,
    }
    return Solution(spec, start, finals, mixed, stats)


# --------------------------------------------------------------------------- policy cycles
def _tuple_tools(inputs: LevelInputs, idx: int):
    """The hold vectors of tuple ``idx`` and a function evaluating one seat's turn at a ``beta``."""
    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    spec, f, o = inputs.spec, inputs.finals, inputs.out
    r, N = spec.rules, spec.players
    K, D, L = r.turn_total_bound, r.dice, r.ones_limit
    H = np.zeros((N, K + D + 1, N))
    kern.fill_hold(idx, N, r.goal, K, D, spec.strides(), inputs.start, f.flat, f.offsets, f.rows, H)

    def turn(m: int, beta: float):
        A = np.zeros((K + D + 1, L, N))
        c = np.zeros((K + D + 1, L))
        dec = np.zeros((K + 1, L), dtype=bool)
        ivl = np.zeros(2)
        kern.turn_dp(m, beta, N, K, D, L, spec.tie_tolerance, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                     H, A, c, dec, ivl)
        return A[0, 0].copy(), float(c[0, 0]), dec & inputs.reach, ivl

    return H, turn


def _cycle_values(N: int, SA: np.ndarray, Sc: np.ndarray) -> np.ndarray:
    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    T = np.zeros((N, N))
    kern.solve_cycle(N, np.ascontiguousarray(SA), np.ascontiguousarray(Sc), T)
    return T


def _resolve_cycle(inputs: LevelInputs, idx: int, all_equilibria: bool = False):
    """An equilibrium of one tuple whose policy iteration cycled (or did not settle).

    1. Rerun the best-response iteration from the same start, recording each seat's policies,
       until a profile repeats: the cycle.
    2. Pure: every combination of the policies seen in the cycle (seat order, then order seen),
       the first where every seat's policy is a best response to the values it yields.
    3. Mixed: subsets S of the seats whose policy changes in the cycle, smallest first (then seat
       order); each seat of S randomises between two of its cycle policies, adjacent at its
       indifference point ``b*`` (the ``beta`` where both give it the same value), the others
       play one of their cycle policies.  The unknown roll probabilities solve
       ``beta_m(q) = b*_m`` for m in S (Newton, exact for |S| <= 2 where each equation is affine
       in the others' q); accepted when every q is in [0, 1] and every seat's value is its
       best-response value within :data:`EQUILIBRIUM_TOLERANCE`.
    Returns (record, values[m, :]) of the first found; with ``all_equilibria`` the list of every
    equilibrium the search finds (a diagnostic: how much the selection matters).  Raises
    RuntimeError when nothing is found (never seen).
    """
    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    spec = inputs.spec
    N = spec.players
    H, turn = _tuple_tools(inputs, idx)
    scores = spec.scores(idx)
    stride = spec.strides()
    beta = np.empty(N)
    kern.initial_beta(idx, N, spec.rules.goal, stride, inputs.start, beta)  # the same start as the kernel
    policies: list[list] = [[] for _ in range(N)]  # per seat: (A, c, dec)

    def key(A, c):
        return tuple(A.tolist()) + (c,)

    def policy_id(m, A, c, dec):
        for i, (A2, c2, _) in enumerate(policies[m]):
            if key(A2, c2) == key(A, c):
                return i
        policies[m].append((A, c, dec))
        return len(policies[m]) - 1

    history: list[tuple] = []
    betas: list[np.ndarray] = []
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
        T = _cycle_values(N, SA, Sc)
        beta = np.array([T[(m + 1) % N, m] for m in range(N)])
    else:  # pragma: no cover
        raise RuntimeError(f"tuple {scores}: best responses neither settle nor cycle")
    if inputs.selection == "cycle-start":
        prof = cycle[0]
        SA = np.array([policies[m][prof[m]][0] for m in range(N)])
        Sc = np.array([policies[m][prof[m]][1] for m in range(N)])
        return _record(idx, scores, "cycle-start", [], float("nan"), len(cycle)), _cycle_values(N, SA, Sc)
    # each seat's policies over the range of its beta in the cycle, in beta order (a seat's
    # beta may jump over policies: those in between are candidates too)
    seen = []
    for m in range(N):
        if len({p[m] for p in cycle}) == 1:
            seen.append([cycle[0][m]])
            continue
        lo_b = min(b[m] for b in cycle_betas)
        hi_b = max(b[m] for b in cycle_betas)
        ids, b = [], lo_b
        while True:
            A, c, dec, ivl = turn(m, b)
            ids.append(policy_id(m, A, c, dec))
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
    # 2. pure
    for combo in itertools.product(*seen):
        SA = np.array([policies[m][combo[m]][0] for m in range(N)])
        Sc = np.array([policies[m][combo[m]][1] for m in range(N)])
        T, b, worst = check(SA, Sc)
        if worst <= EQUILIBRIUM_TOLERANCE:
            found.append((_record(idx, scores, "pure", [], worst, len(cycle)), T))
            if not all_equilibria:
                return found[0]
    # 3. mixed
    movers = [m for m in range(N) if len(seen[m]) > 1]
    for size in range(1, len(movers) + 1):
        for S in itertools.combinations(movers, size):
            # adjacent pairs of the seat's policies in beta order
            pairs = [[(seen[m][a], seen[m][a + 1]) for a in range(len(seen[m]) - 1)] for m in S]
            rest = [seen[m] if m not in S else [None] for m in range(N)]
            for pair_combo in itertools.product(*pairs):
                for fixed in itertools.product(*rest):
                    cand = _mixed_candidate(N, policies, S, pair_combo, fixed, check)
                    if cand is None:
                        continue
                    T, qs, worst = cand
                    randomising = []
                    for m, (i0, i1), q in zip(S, pair_combo, qs):
                        d0, d1 = policies[m][i0][2], policies[m][i1][2]
                        states = [(int(k), int(o)) for k, o in zip(*np.nonzero(d0 != d1))]
                        # q is the weight of the policy with the higher bust chance (it rolls there)
                        roll_q = [q if d1[k, o] else 1.0 - q for k, o in states]
                        randomising.append((m, states, roll_q[0] if len(set(roll_q)) == 1 else roll_q))
                    found.append((_record(idx, scores, "mixed", randomising, worst, len(cycle)), T))
                    if not all_equilibria:
                        return found[0]
    if all_equilibria:
        return found
    raise RuntimeError(f"tuple {scores}: no equilibrium found among the policies of its cycle")  # pragma: no cover


def _mixed_candidate(N, policies, S, pair_combo, fixed, check):
    """Solve the roll probabilities of the seats in ``S`` so that each is indifferent; None if none."""
    base_A = np.zeros((N, N))
    base_c = np.zeros(N)
    for m in range(N):
        if fixed[m] is not None:
            base_A[m], base_c[m] = policies[m][fixed[m]][0], policies[m][fixed[m]][1]
    ends = []
    bstar = []
    for m, (i0, i1) in zip(S, pair_combo):
        A0, c0 = policies[m][i0][0], policies[m][i0][1]
        A1, c1 = policies[m][i1][0], policies[m][i1][1]
        if c1 == c0:
            return None
        ends.append((A0, c0, A1, c1))
        bstar.append((A1[m] - A0[m]) / (c0 - c1))

    def build(q):
        SA, Sc = base_A.copy(), base_c.copy()
        for (m, (A0, c0, A1, c1)), x in zip(zip(S, ends), q):
            SA[m] = (1.0 - x) * A0 + x * A1
            Sc[m] = (1.0 - x) * c0 + x * c1
        return SA, Sc

    def resid(q):
        SA, Sc = build(q)
        T = _cycle_values(N, SA, Sc)
        return np.array([T[(m + 1) % N, m] - b for m, b in zip(S, bstar)])

    q = np.full(len(S), 0.5)
    for _ in range(50):
        r = resid(q)
        if np.max(np.abs(r)) <= 1e-16:
            break
        J = np.zeros((len(S), len(S)))
        h = 1e-6
        for a in range(len(S)):
            dq = q.copy()
            dq[a] += h
            J[:, a] = (resid(dq) - r) / h
        try:
            step = np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            return None
        q = q - step
        if not np.all(np.isfinite(q)) or np.max(np.abs(q)) > 1e6:
            return None
    if np.any(q < -1e-9) or np.any(q > 1 + 1e-9):
        return None
    q = np.clip(q, 0.0, 1.0)
    T, b, worst = check(*build(q))
    if worst > EQUILIBRIUM_TOLERANCE:
        return None
    return T, [float(x) for x in q], worst


def _record(idx, scores, kind, randomising, worst, cycle_length):
    return {
        "index": int(idx),
        "scores": [int(s) for s in scores],
        "kind": kind,
        "randomising": randomising,  # (seat (0-based), [(k, o), ...], probability of rolling there)
        "residual": float(max(worst, 0.0)),
        "cycle_length": int(cycle_length),
    }


# --------------------------------------------------------------------------- lookups
def turn_values(scores, seat: int, start_values_lookup, spec: Spec, finals: Finals, mixing=None):
    """Every ``(k, o)`` state of seat ``seat``'s (0-based) turn at ``scores`` (all below the goal).

    ``start_values_lookup(scores, seat) -> (N,)`` gives a stored turn-start win vector
    (e.g. :meth:`Solution.lookup`); ``finals`` the final round; ``mixing`` the mixed
    equilibrium's ``[(k, o, p_roll)]`` for this tuple and seat, if any.  Returns a dict of
    arrays over ``k = 0 .. K`` (turn total), ``o`` (1s set aside), ``e`` (seat):
    ``p_roll[k, o, e]``, ``p_hold[k, e]`` (NaN at ``k = 0``: holding not allowed),
    ``roll[k, o]`` (probability the mover rolls: 1, 0 or the mixing probability), ``p_win[k, o, e]``.
    Unreachable ``(k, o)`` are computed too (as if reached).  Reads ``N`` stored vectors from the
    higher tuples and the next seat's start vector; seed 002's equations one line each.
    """
    r, N = spec.rules, spec.players
    G, K, D, L = r.goal, r.turn_total_bound, r.dice, r.ones_limit
    scores = tuple(int(s) for s in scores)
    m = seat
    nxt = (m + 1) % N
    bust = np.asarray(start_values_lookup(scores, nxt), dtype=float)
    hold = np.full((K + D + 1, N), np.nan)
    for k in range(1, K + D + 1):
        t = scores[m] + k
        if t < G:
            higher = list(scores)
            higher[m] = t
            hold[k] = start_values_lookup(tuple(higher), nxt)
        else:
            hold[k] = 0.0
            if m == N - 1:
                hold[k, m] = 1.0
            else:
                roles = final_start(spec, finals, m + 1, t, scores[m + 1:])
                hold[k, m] = roles[0]
                hold[k, m + 1:] = roles[1:]
    value = np.zeros((K + D + 1, L, N))
    value[K + 1:] = hold[K + 1:, None, :]  # beyond the bound: hold
    p_roll = np.zeros((K + 1, L, N))
    roll = np.zeros((K + 1, L))
    mix = {(k, o): q for k, o, q in (mixing or [])}
    for k in range(K, -1, -1):
        for o in range(L):
            pr = r.p_end[o] * bust
            for prob, gain, o_next in r.outcomes[o]:
                pr = pr + prob * value[k + gain, o_next]
            p_roll[k, o] = pr
            if k == 0:
                q = 1.0
            elif (k, o) in mix:
                q = mix[(k, o)]
            else:
                q = 1.0 if pr[m] > hold[k, m] + spec.tie_tolerance else 0.0
            roll[k, o] = q
            value[k, o] = pr if q == 1.0 else hold[k] if q == 0.0 else q * pr + (1.0 - q) * hold[k]
    return {"p_roll": p_roll, "p_hold": hold[: K + 1], "roll": roll, "p_win": value[: K + 1]}


def final_turn_values(spec: Spec, finals: Finals, j: int, X: int, later: tuple[int, ...]):
    """Seat ``j``'s (0-based, ``1 <= j < N``) final turn with bar ``X``; ``later`` = the scores of seats
    ``j+1 .. N-1``.  Returns ``(value, roll)``: ``value[t, o, role]`` over roles ``[leader, j, .., N-1]``
    for totals ``t = 0 .. G + TT`` (``t = s_j + k``; ``TT`` the stored free-region width) and ``roll[t, o]``
    (must roll at ``t <= X``)."""
    r, N = spec.rules, spec.players
    G, D, L = r.goal, r.dice, r.ones_limit
    R = 0
    for s in later:
        R = R * G + int(s)
    nxt = np.array([1.0]) if j == N - 1 else final_start(spec, finals, j + 1, X, tuple(later))
    bust = np.concatenate([[nxt[0], 0.0], nxt[1:]])  # the old leader keeps its role, j gets 0
    top = G + finals.fa[j].shape[1]
    value = np.zeros((top + 1, L, N - j + 1))
    roll = np.zeros((top + 1, L), dtype=bool)
    for t in range(top, X, -1):  # above the bar: stored
        fa, fc = finals.fa[j][R, t - G - 1], finals.fc[j][R, t - G - 1]
        value[t, :, 1:] = fa
        value[t] += fc[:, None] * bust
        roll[t] = finals.froll[j][R, t - G - 1]
    for t in range(X, -1, -1):
        for o in range(L):
            v = r.p_end[o] * bust
            for prob, gain, o_next in r.outcomes[o]:
                v = v + prob * value[min(t + gain, top), o_next]
            value[t, o] = v
            roll[t, o] = True
    return value, roll


def summary(sol: Solution) -> dict:
    """Seat win probabilities at the start (all scores 0, seat 1 to move) and the cycle findings."""
    N = sol.spec.players
    v = sol.start_at((0,) * N)[0]
    return {"p_win_seats": [float(x) for x in v], **{k: sol.stats[k] for k in ("cycle_tuples", "mixed_tuples")}}


__all__ = [
    "Spec", "Solution", "Finals", "rules_for", "TURN_TOTAL_MARGIN", "LevelInputs", "ChunkResult", "solve",
    "solve_finals", "solve_tuples",
    "level_tuples", "turn_values", "final_turn_values", "final_start", "first_passage", "summary",
    "TIE_TOLERANCE", "EQUILIBRIUM_TOLERANCE",
]
