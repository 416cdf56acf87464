"""Optimal (equilibrium) play of Pig for any number of players >= 2, solved exactly (issue 31).

One solver for every N (two players is not a second one): the score tuples of one score-sum level depend
only on higher levels (a hold raises the sum; a bust keeps the tuple and passes the turn), so the shared
level loop (:mod:`dicebase.builder.levels`) solves levels from ``N (G - 1)`` down to 0, and within a tuple
the shared equilibrium engine (:mod:`dicebase.builder.equilibrium`) runs policy iteration on the N-cycle of
turn starts with Pig's turn (:func:`dicebase.rules.pig_turn.turn`, compiled in :mod:`.kernels`), each
seat's turn affine in what a bust leaves it.  Tuples whose best responses cycle (three or more players,
``../shared/N-PLAYERS.md``) go to :func:`~dicebase.builder.equilibrium.resolve_cycle`: a pure equilibrium
among the cycle's policies, else a mixed one, recorded as in Great Rolled Ones.

The simple policies (:func:`evaluate_policy`): one seat plays a fixed policy, the others the stored
equilibrium (they do not adapt), through the same levels (a fixed profile instead of a best response).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.builder.equilibrium import (
    EQUILIBRIUM_TOLERANCE, MAX_ITERATIONS, resolve_cycle, resolve_unconverged, score_sum_levels, tuple_strides,
)
from dicebase.rules.pig import TIE_TOLERANCE, Rules


#: Levels of fewer tuples run on one thread: waking the thread pool costs more than they do (2 players at
#: goal 100: 199 levels of at most 100 tuples).
SERIAL_BELOW = 1024


@dataclass
class LevelInputs:
    """What a chunk of one level reads: the rules, the number of players and the turn starts of higher
    levels (``start[idx, m, e]``)."""

    rules: Rules
    players: int
    start: np.ndarray
    tie_tolerance: float = TIE_TOLERANCE
    max_iterations: int = MAX_ITERATIONS

    @property
    def strides(self) -> np.ndarray:
        return tuple_strides(self.rules.goal, self.players)

    @property
    def gains(self) -> np.ndarray:
        return np.array(self.rules.gains, dtype=np.int64)


@dataclass
class ChunkResult:
    """Values of one chunk of tuples (``values[t, m, :]``), ``status[t]`` (0 by policy iteration, 1 cycle
    resolved), ``evaluations[t]`` and one record per cycle tuple (``mixed``)."""

    tuples: np.ndarray
    values: np.ndarray
    status: np.ndarray
    evaluations: np.ndarray
    mixed: list


def solve_tuples(inputs: LevelInputs, tuples: np.ndarray, workers: int | None = None) -> ChunkResult:
    """Solve the tuples ``tuples`` (all of one score-sum level) given the higher levels in ``inputs.start``."""
    from numba import get_num_threads

    from dicebase.builder.pig import kernels as kern

    r, N = inputs.rules, inputs.players
    tuples = np.ascontiguousarray(tuples, dtype=np.int64)
    n = len(tuples)
    values = np.zeros((n, N, N))
    status = np.zeros(n, dtype=np.int64)
    evals = np.zeros(n, dtype=np.int64)
    args = (tuples, N, r.goal, inputs.tie_tolerance, inputs.max_iterations, inputs.strides, r.p_face, r.p_bust,
            inputs.gains, inputs.start, values, status, evals)
    if n >= SERIAL_BELOW:
        kern.solve_tuples(*args, workers or get_num_threads())
    elif n:  # a small level: one thread, no pool to wake (the same operations per tuple: the same bits)
        kern.solve_piece(0, 1, *args)
    mixed = resolve_unconverged(status, values, lambda t: resolve(inputs, int(tuples[t])))
    return ChunkResult(tuples, values, status, evals, mixed)


def store_level(inputs: LevelInputs, tuples: np.ndarray, values: np.ndarray) -> None:
    """Write one level's values into ``inputs.start``."""
    inputs.start[tuples] = values


def seat_turn(inputs: LevelInputs, idx: int, start: np.ndarray | None = None, mix: dict | None = None):
    """``turn(m, beta) -> (A0, c0, decisions, interval)``: seat ``m``'s turn at tuple ``idx`` (the engine's
    :data:`~dicebase.builder.equilibrium.Turn`), holds read from ``start`` (default the solve's);
    ``mix[m]``: fixed roll probabilities of seat ``m`` by turn total."""
    from dicebase.builder.pig import kernels as kern

    r, N, G = inputs.rules, inputs.players, inputs.rules.goal
    start = inputs.start if start is None else start
    H = np.zeros((N, G, N))
    kern.fill_hold(idx, N, G, inputs.strides, start, H)

    def turn(m: int, beta: float):
        A, c, dec, ivl, rv = np.zeros((G, N)), np.zeros(G), np.zeros(G), np.zeros(2), np.zeros(N)
        fixed = np.full(G, -1.0) if mix is None or m not in mix else mix[m]
        kern.seat_turn(idx, m, N, G, inputs.strides, beta, inputs.tie_tolerance, r.p_face, r.p_bust, inputs.gains,
                       H, fixed, rv, A, c, dec, ivl)
        return A[0].copy(), float(c[0]), dec, ivl

    return turn


def _randomising(m: int, d0: np.ndarray, d1: np.ndarray, q: float) -> tuple:
    """A randomising seat's entry of a cycle record: ``(m, [k, ...], p_roll)``, the turn totals where its two
    policies differ and the probability of rolling there."""
    states = [int(k) for k in np.flatnonzero(d0 != d1)]
    roll_q = [q if d1[k] == 1.0 else 1.0 - q for k in states]
    return (m, states, roll_q[0] if len(set(roll_q)) == 1 else roll_q)


def resolve(inputs: LevelInputs, idx: int, all_equilibria: bool = False):
    """An equilibrium of a tuple whose policy iteration cycled: the shared search with Pig's turn, then
    :func:`one_decision` where a randomising seat's two policies differ at more than one turn total."""
    found = resolve_cycle(seat_turn(inputs, idx), inputs.start, idx, inputs.rules.goal, inputs.strides,
                          max_iterations=inputs.max_iterations, selection="mixed", describe_mixing=_randomising,
                          all_equilibria=all_equilibria)
    if all_equilibria:
        return found
    record, values = found
    if any(len(states) > 1 for _m, states, _q in record["randomising"]):
        again = one_decision(inputs, idx, record, values)
        if again is not None:
            again[0]["one_decision"] = True  # re-solved: the shared search's lottery differed at several totals
            return again
    return found


def one_decision(inputs: LevelInputs, idx: int, record: dict, values: np.ndarray):
    """A mixed equilibrium in which each randomising seat randomises at one turn total only, or None.

    The shared search mixes two whole policies (a lottery at the turn's start); where they differ at more
    than one turn total, rolling with one probability at each of them is another strategy (a later total
    can be reached with or without passing an earlier one), so the stored roll probabilities would not
    give the stored values back.  Pig stores behaviour at each turn total, so here: each randomising seat's
    pure policies over the turn totals where the two differ (every combination of roll and hold there, the
    rest as its best response at the found equilibrium), and :func:`~dicebase.builder.equilibrium.
    mixed_candidate` over the pairs of them that differ at one turn total; the first equilibrium found (seat
    order, then turn totals), checked as the shared search checks one (every seat within
    ``EQUILIBRIUM_TOLERANCE`` of its best response)."""
    import itertools

    from dicebase.builder.equilibrium import cycle_record, cycle_values, mixed_candidate

    r, N, G = inputs.rules, inputs.players, inputs.rules.goal
    turn = seat_turn(inputs, idx)
    beta = [values[(m + 1) % N, m] for m in range(N)]
    policies: list[list] = [[] for _ in range(N)]

    def fixed(m: int, dec: np.ndarray) -> int:
        """The index of seat ``m``'s pure policy ``dec`` (its turn evaluated with every decision fixed)."""
        for i, (_A, _c, d) in enumerate(policies[m]):
            if np.array_equal(d, dec):
                return i
        A0, c0, _dec, _ivl = seat_turn(inputs, idx, mix={m: dec})(m, 0.0)
        policies[m].append((A0, c0, dec.copy()))
        return len(policies[m]) - 1

    mixing = {m: states for m, states, _q in record["randomising"]}
    pairs, rest = {}, [None] * N
    for m in range(N):
        base = turn(m, beta[m])[2].copy()  # the best response at the equilibrium (ties hold)
        if m not in mixing:
            rest[m] = fixed(m, base)
            continue
        options = []
        for combo in itertools.product((0.0, 1.0), repeat=len(mixing[m])):
            dec = base.copy()
            dec[mixing[m]] = combo
            options.append(fixed(m, dec))
        pairs[m] = [(i, j) for i, j in itertools.combinations(options, 2)
                    if np.count_nonzero(policies[m][i][2] != policies[m][j][2]) == 1]
    S = tuple(sorted(pairs))

    def best_value(m, b):
        A, c, _, _ = turn(m, b)
        return A[m] + c * b

    def check(SA, Sc):
        T = cycle_values(N, SA, Sc)
        b = np.array([T[(m + 1) % N, m] for m in range(N)])
        worst = max(best_value(m, b[m]) - (SA[m, m] + Sc[m] * b[m]) for m in range(N))
        return T, b, worst

    for pair_combo in itertools.product(*(pairs[m] for m in S)):
        got = mixed_candidate(N, policies, S, pair_combo, rest, check)
        if got is None:
            continue
        T, qs, worst = got
        randomising = [_randomising(m, policies[m][i0][2], policies[m][i1][2], q)
                       for m, (i0, i1), q in zip(S, pair_combo, qs)]
        return cycle_record(idx, record["scores"], "mixed", randomising, worst, record["cycle_length"]), T
    return None


@dataclass
class Solution:
    """A solve: ``start[idx, m, e]`` (:meth:`start_at` by scores), the cycle tuples' records, stats."""

    rules: Rules
    players: int
    start: np.ndarray
    mixed: list
    stats: dict = field(default_factory=dict)

    def index(self, scores) -> int:
        return int(sum(int(s) * int(st) for s, st in zip(scores, tuple_strides(self.rules.goal, self.players))))

    def start_at(self, scores) -> np.ndarray:
        return self.start[self.index(scores)]

    def mixing(self) -> dict:
        """``{(idx, m): q[k]}``: the stored roll probabilities of each randomising seat (-1: not mixed)."""
        out = {}
        for rec in self.mixed:
            for m, states, q in rec["randomising"]:
                qs = q if isinstance(q, list) else [q] * len(states)
                row = out.setdefault((rec["index"], m), np.full(self.rules.goal, -1.0))
                for k, p in zip(states, qs):
                    row[k] = p
        return out


def solve(rules: Rules, players: int, *, tie_tolerance: float = TIE_TOLERANCE, chunk: int | None = None,
          workers: int | None = None, runner=None, progress=None) -> Solution:
    """Solve Pig for ``players`` seats under ``rules``: every score tuple below the goal, every seat to move.
    ``runner``: a :class:`dicebase.builder.levels.Levels` (default: this process, ``chunk``/``workers``).
    Bit-identical whatever runs the levels."""
    from dicebase.builder import levels as level_loop

    G, N = rules.goal, players
    t0 = time.perf_counter()
    start = np.zeros((G**N, N, N))
    inputs = LevelInputs(rules, N, start, tie_tolerance)
    mixed: list = []
    evaluations = 0

    def absorb(res: ChunkResult) -> None:
        nonlocal evaluations
        mixed.extend(res.mixed)
        evaluations += int(res.evaluations.sum())

    problem = level_loop.Problem(f"pig {N} players, goal {G}", inputs, score_sum_levels(G, N), solve_tuples,
                                 store_level, {"game": "pig", "rules": repr(rules), "players": N,
                                               "tie_tolerance": tie_tolerance})
    loop = level_loop.run(problem, absorb, levels=runner, chunk=chunk, threads=workers, progress=progress)
    mixed.sort(key=lambda rec: rec["index"])
    stats = {
        "players": N, "goal": G, "tuples": G**N, "turn_starts": G**N * N, "tie_tolerance": tie_tolerance,
        "equilibrium_tolerance": EQUILIBRIUM_TOLERANCE, "max_iterations": inputs.max_iterations,
        "turn_evaluations": evaluations, "cycle_tuples": len(mixed),
        "mixed_tuples": sum(1 for rec in mixed if rec["kind"] == "mixed"),
        "one_decision_tuples": sum(1 for rec in mixed if rec.get("one_decision")),
        "several_decision_tuples": sum(1 for rec in mixed if any(len(st) > 1 for _m, st, _q in rec["randomising"])),
        "max_indifference_residual": max((rec["residual"] for rec in mixed), default=0.0),
        "seconds": round(time.perf_counter() - t0, 3), "bytes_start": int(start.nbytes),
        "levels": {k: loop[k] for k in ("runner", "levels_solved", "levels_resumed")},
    }
    return Solution(rules, N, start, mixed, stats)


#: Bytes of profile tables one pass of :func:`evaluate_policies` may hold (more profiles: more passes).
EVALUATION_BYTES = 2_000_000_000


def evaluate_policies(sol: Solution, profiles, workers: int | None = None) -> np.ndarray:
    """``start[p, idx, m, e]``: the turn starts when 0-based seat ``profiles[p][0]`` plays the simple policy
    ``profiles[p][1:]`` (kind, param: :func:`dicebase.rules.pig_turn.policy_rolls`; seat -1: none) and every
    other seat the stored equilibrium, level by level through the solve's score-sum levels (every decision
    fixed: each tuple's cycle solved once).  The profiles of one pass share the equilibrium's decisions."""
    from numba import get_num_threads

    from dicebase.builder.pig import kernels as kern

    r, N, G = sol.rules, sol.players, sol.rules.goal
    mixing = sol.mixing()
    keys = sorted(mixing)
    mix_keys = np.array([idx * N + m for idx, m in keys], dtype=np.int64)
    mix_q = np.array([mixing[key] for key in keys]).reshape(len(keys), G)
    gains = np.array(r.gains, dtype=np.int64)
    out = np.zeros((len(profiles), *sol.start.shape))
    per_pass = max(1, EVALUATION_BYTES // sol.start.nbytes)
    levels = score_sum_levels(G, N)
    for a in range(0, len(profiles), per_pass):
        group = profiles[a: a + per_pass]
        seats, kinds, params = (np.array([p[i] for p in group], dtype=np.int64) for i in range(3))
        start = out[a: a + len(group)]
        for level in levels:
            args = (np.ascontiguousarray(level), N, G, sol.stats["tie_tolerance"], tuple_strides(G, N), r.p_face,
                    r.p_bust, gains, sol.start, mix_keys, mix_q, seats, kinds, params, start)
            if len(level) >= SERIAL_BELOW:
                kern.evaluate_tuples(*args, workers or get_num_threads())
            else:
                kern.evaluate_piece(0, 1, *args)
    return out


__all__ = ["LevelInputs", "ChunkResult", "Solution", "solve", "solve_tuples", "resolve", "seat_turn",
           "evaluate_policies"]
