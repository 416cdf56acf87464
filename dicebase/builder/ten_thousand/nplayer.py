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

Solution method (the Great Rolled Ones solver's, :mod:`dicebase.builder.rolled_ones.nplayer`; the
per-tuple equilibrium machinery both share is :mod:`dicebase.builder.equilibrium`):
levels by descending score sum; the N turn starts of one tuple form a cycle (a farkle passes the
turn, scores unchanged); each seat's turn is affine in what a farkle leaves it
(``A + c * P(m+1, s, 0, six)``) and its best response depends on one number, ``beta_m``; policy
iteration with the exact N-cycle solve, stopped exactly when every ``beta`` keeps its policy;
a repeated profile is a policy cycle, resolved in Python (:func:`_resolve_cycle`, the shared
:func:`dicebase.builder.equilibrium.resolve_cycle`: a pure equilibrium among the cycle's policies,
else a mixed stationary one) and reported.

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

Modules: this one solves (:func:`solve`, :func:`solve_tuples`, :class:`Solution`, the rotation
classes); :mod:`.nplayer_spec` holds :class:`Spec` and the rule tables (:func:`moves`),
:mod:`.nplayer_final` the final round (``Phi_r``), :mod:`.nplayer_lookups` every state of a turn
(:func:`turn_values`, :func:`final_turn_values`), :mod:`.nplayer_kernels` the compiled kernels.
Every public name is importable from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.builder.equilibrium import (
    EQUILIBRIUM_TOLERANCE, MAX_ITERATIONS, resolve_cycle, resolve_unconverged, score_sum_levels,
)
from dicebase.rules.ten_thousand import RuleSet

from .nplayer_final import Finals, final_start, solve_finals  # noqa: F401  (re-exported)
from .nplayer_lookups import final_turn_values, turn_values  # noqa: F401  (re-exported)
from .nplayer_spec import (  # noqa: F401  (re-exported)
    BOUND_SCALE, MARGIN_LEVEL, TIE_TOLERANCE, Moves, Spec, keep_priority, moves, reach_mask,
)


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
                          mv.sg, mv.gp, mv.go, mv.op, mv.ost, mv.pf, mv.max_pts, f.pexc, spec.pf_min,
                          spec.bound_scale, z["tcap"], inputs.start, f.phi, f.offsets, values, kmax, status, evals,
                          proven, workers or get_num_threads())
    mixed = resolve_unconverged(status, values, lambda t: _resolve_cycle(inputs, int(reps[t]), kmax[t]))
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
    idx = np.arange(spec.tuples, dtype=np.int64)
    if representatives:
        idx = idx[canonical(spec, idx)[0] == idx]
    return score_sum_levels(spec.G, spec.players, idx)


def expand(spec: Spec, start: np.ndarray | None, kmax: np.ndarray | None, tuples: np.ndarray,
           values: np.ndarray | None, kvals: np.ndarray | None) -> None:
    """Write the solved ``tuples`` and every rotation of them into ``start`` and ``kmax`` (either may be
    ``None``: not written)."""
    N = spec.players
    rot = rotations(spec, tuples)
    ar = np.arange(N)
    for r in range(N - 1, -1, -1):
        perm = (ar + r) % N
        if start is not None:
            start[rot[:, r]] = values[:, perm][:, :, perm]
        if kmax is not None:
            kmax[rot[:, r]] = kvals[:, perm]


def store_level(inputs: LevelInputs, tuples: np.ndarray, values: np.ndarray) -> None:
    """Write one level's solved values (and their rotations) into ``inputs.start`` (the level loop's
    driver, and a Dask worker into its own copy)."""
    expand(inputs.spec, inputs.start, None, tuples, values, None)


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
          progress=None, runner=None) -> Solution:
    """Solve 10,000 under ``rules`` for ``players`` seats to ``goal`` points (default the rules' goal):
    every score tuple below the goal, every seat to move.  ``chunk``: tuples per :func:`solve_tuples`
    call (default a whole level); ``workers``: threads per chunk (default numba's thread count);
    ``selection``: "mixed" (store an equilibrium in cycle tuples) or "cycle-start" (comparisons);
    ``runner``: a :class:`dicebase.builder.levels.Levels` (a Dask cluster, level checkpoints, a progress
    bar; default: this process, as ``chunk`` and ``workers`` say).  Bit-identical whatever runs the levels."""
    from dicebase.builder import levels as level_loop

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

    def absorb(res: ChunkResult) -> None:
        nonlocal evaluations, unproven
        expand(spec, None, kmax, res.tuples, None, res.kmax)
        mixed.extend(res.mixed)
        evaluations += int(res.evaluations.sum())
        unproven += int((~res.proven).sum())

    levels = level_tuples(spec)
    problem = level_loop.Problem(f"ten-thousand {players} players, goal {spec.goal}", inputs, levels, solve_tuples,
                                 store_level, {"game": "ten_thousand", "spec": repr(spec), "selection": selection})
    loop = level_loop.run(problem, absorb, levels=runner, chunk=chunk, threads=workers, progress=progress)
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
        "levels": {k: loop[k] for k in ("runner", "levels_solved", "levels_resumed")},
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
        V = np.zeros((KK, S, N + 1))  # [A..., c]: the turn's values A + c * (what a farkle leaves)
        roll = np.zeros((KK, S), dtype=bool)
        keep = np.zeros((KK, len(mv.gp)), dtype=np.int8)
        ivl = np.zeros(2)
        kern.one_turn(idx, m, beta, N, spec.G, spec.om, spec.tie_tolerance, spec.strides(), reach_mask(spec.rules, KK), mv.sg, mv.gp, mv.go,
                      mv.op, mv.ost, mv.pf, mv.max_pts, int(kmax[m]), inputs.start, f.phi, f.offsets, f.pexc,
                      V, roll, keep, ivl)
        K = int(kmax[m]) + 1
        return V[0, 0, :N].copy(), float(V[0, 0, N]), (roll[:K].copy(), keep[:K].copy()), ivl

    return turn


def _resolve_cycle(inputs: LevelInputs, idx: int, kmax, all_equilibria: bool = False):
    """An equilibrium of one tuple whose policy iteration cycled: the search shared with Great
    Rolled Ones, :func:`dicebase.builder.equilibrium.resolve_cycle` (rerun the best responses until
    a profile repeats; then a pure equilibrium among the policies the cycle spans; then a mixed
    stationary one, seats randomising between two adjacent policies at their indifference points,
    smallest set first), with this game's turns.  Returns (record, values[m, :])."""
    spec = inputs.spec
    return resolve_cycle(_tuple_tools(inputs, idx, kmax), inputs.start, idx, spec.G, spec.strides(),
                         max_iterations=spec.max_iterations, selection=inputs.selection,
                         describe_mixing=_randomising, fixed_point_unchecked=True, distinct_sweep=True,
                         all_equilibria=all_equilibria)


def _randomising(m: int, dec0, dec1, q: float) -> tuple:
    """A randomising seat's entry of a cycle record: ``(m, decisions)`` (:func:`_decisions`)."""
    return (m, _decisions(dec0, dec1, q))


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
