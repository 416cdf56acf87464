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
before stops the iteration and :func:`_resolve_cycle` (the shared search,
:func:`dicebase.builder.equilibrium.resolve_cycle`) searches, in a fixed order, a pure
equilibrium among the policies of the cycle and then a mixed stationary equilibrium in which
one or more seats randomise between the two policies of the cycle at their indifference
point (see ``docs/n_players.md``); the affected tuples and mixing probabilities are returned.

Caps (explicit, proven harmless by tests that raise them): the turn total ``k`` of a turn
below the goal is kept up to ``rules.turn_total_bound`` (``K``; beyond it the mover holds, as
in :mod:`.solver`), and in the final round a seat above the bar holds once its score reaches
``score_cap`` (``C >= G + K``).

Modules: this one solves (:func:`solve`, :func:`solve_tuples`, :class:`Solution`); :mod:`.nplayer_spec`
holds :class:`Spec` and the rule tables, :mod:`.nplayer_final` the final round (``Phi_j``),
:mod:`.nplayer_lookups` every state of a turn (:func:`turn_values`, :func:`final_turn_values`),
:mod:`.nplayer_kernels` the compiled kernels; the per-tuple equilibrium machinery (the bust cycle,
policy cycles, mixed equilibria), shared with 10,000, is :mod:`dicebase.builder.equilibrium`.
Every public name is importable from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.builder.equilibrium import (  # noqa: F401  (MAX_ITERATIONS: re-exported)
    EQUILIBRIUM_TOLERANCE, MAX_ITERATIONS, resolve_cycle, resolve_unconverged, score_sum_levels,
)
from dicebase.builder.rolled_ones.nplayer_final import Finals, final_start, solve_finals  # noqa: F401  (re-exported)
from dicebase.builder.rolled_ones.nplayer_lookups import final_turn_values, turn_values  # noqa: F401  (re-exported)
from dicebase.builder.rolled_ones.nplayer_spec import (  # noqa: F401  (re-exported)
    Outcomes, Spec, first_passage, outcomes, reach_mask,
)
from dicebase.rules.rolled_ones import (  # noqa: F401  (re-exported: the N-player rules live in the rules layer)
    TIE_TOLERANCE, TURN_TOTAL_MARGIN, TURN_TOTAL_MARGIN_MANY, Rules, bar_ranges, rules_for, score_cap,
)


# --------------------------------------------------------------------------- the solve
#: ``hdec`` of a solve in which every seat best-responds (no seat plays a policy: :func:`solve_tuples`)
NO_POLICY = np.zeros((1, 1, 1, 1), dtype=bool)


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
        K = r.turn_total_bound
        kern.solve_tuples(tuples, -1, NO_POLICY, N, r.goal, K, K, r.dice, r.ones_limit, spec.tie_tolerance,
                          spec.max_iterations, spec.strides(), inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                          inputs.start, f.flat, f.offsets, f.rows, values, status, evals,
                          workers or get_num_threads())
    mixed = resolve_unconverged(status, values, lambda t: _resolve_cycle(inputs, int(tuples[t])))
    return ChunkResult(tuples, values, status, evals, mixed)


def store_level(inputs: LevelInputs, tuples: np.ndarray, values: np.ndarray) -> None:
    """Write one level's solved values into ``inputs.start`` (the level loop's driver, and a Dask
    worker into its own copy)."""
    inputs.start[tuples] = values


def level_tuples(spec: Spec) -> list[np.ndarray]:
    """Tuple indices of every score-sum level, from the highest sum ``N (G - 1)`` down to 0."""
    return score_sum_levels(spec.rules.goal, spec.players)


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
          progress=None, runner=None) -> Solution:
    """Solve Great Rolled Ones for ``players`` seats under ``rules`` (every score tuple below the goal,
    every seat to move).  ``chunk``: tuples per :func:`solve_tuples` call (default: a whole level);
    ``workers``: threads' share of each chunk (default numba's thread count); ``selection``: see
    :class:`LevelInputs` (keep "mixed"); ``runner``: a :class:`dicebase.builder.levels.Levels` (a Dask
    cluster, level checkpoints, a progress bar; default: this process, as ``chunk`` and ``workers`` say).
    The values are bit-identical whatever runs the levels."""
    from dicebase.builder import levels as level_loop

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

    def absorb(res: ChunkResult) -> None:
        nonlocal evaluations
        mixed.extend(res.mixed)
        evaluations += int(res.evaluations.sum())

    problem = level_loop.Problem(f"rolled-ones {players} players, goal {rules.goal}", inputs, level_tuples(spec),
                                 solve_tuples, store_level, {"game": "rolled_ones", "spec": repr(spec),
                                                             "selection": selection})
    loop = level_loop.run(problem, absorb, levels=runner, chunk=chunk, threads=workers, progress=progress)
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
        "levels": {k: loop[k] for k in ("runner", "levels_solved", "levels_resumed")},
    }
    return Solution(spec, start, finals, mixed, stats)


# --------------------------------------------------------------------------- policy cycles
def _tuple_tools(inputs: LevelInputs, idx: int):
    """The hold vectors of tuple ``idx`` and a function evaluating one seat's turn at a ``beta``."""
    from dicebase.builder.rolled_ones import nplayer_kernels as kern
    from dicebase.numeric.rolled_ones_turn import best_turn

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
        best_turn(m, beta, N, K, D, L, spec.tie_tolerance, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                  H, A, c, dec, ivl, np.zeros(N), False, dec)
        return A[0, 0].copy(), float(c[0, 0]), dec & inputs.reach, ivl

    return H, turn


def _randomising(m: int, d0: np.ndarray, d1: np.ndarray, q: float) -> tuple:
    """A randomising seat's entry of a cycle record: ``(m, [(k, o), ...], p_roll)``, the states where
    its two policies differ and the probability of rolling there (one number when all agree)."""
    states = [(int(k), int(o)) for k, o in zip(*np.nonzero(d0 != d1))]
    # q is the weight of the policy with the higher bust chance (it rolls there)
    roll_q = [q if d1[k, o] else 1.0 - q for k, o in states]
    return (m, states, roll_q[0] if len(set(roll_q)) == 1 else roll_q)


def _resolve_cycle(inputs: LevelInputs, idx: int, all_equilibria: bool = False):
    """An equilibrium of one tuple whose policy iteration cycled (or did not settle):
    :func:`dicebase.builder.equilibrium.resolve_cycle` with this game's turns.  Returns
    (record, values[m, :]); with ``all_equilibria`` the list of every equilibrium found."""
    spec = inputs.spec
    _, turn = _tuple_tools(inputs, idx)
    return resolve_cycle(turn, inputs.start, idx, spec.rules.goal, spec.strides(),
                         max_iterations=spec.max_iterations, selection=inputs.selection,
                         describe_mixing=_randomising, all_equilibria=all_equilibria)


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
