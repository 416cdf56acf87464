"""Seed 002's human policies in the N-player game (issue 21): what each costs the seat that uses it when
the other seats play optimally.  Two readings of "the others play optimally" (``MODES``):

* ``equilibrium`` (the default, seed 002's measure): the other seats **keep playing the stored
  equilibrium** (the optimal N-player strategies as stored, mixed decisions included: what the ``best``
  lookups answer); they do not adapt to the policy.  With every seat's play fixed the game is a Markov
  chain, so this is a policy evaluation (:func:`against_equilibrium`): linear in the values, one pass over
  the score-sum levels, each tuple's bust cycle solved exactly, no search.  With two players it is seed
  002's Fig. 2 measure and equals ``rolled_ones_seat_win_rates`` (:mod:`.evaluate`) within 1e-12.
* ``best_response``: the other seats **exploit the policy**: each maximises its own win probability
  knowing it (:func:`solve_fixed`), subgame perfect, with the tie-break of :mod:`.nplayer` (the mover
  rolls only when rolling beats holding by more than 1e-12).  It is the equilibrium solve of
  :mod:`.nplayer` with one seat's turns replaced by the policy's: seat ``h``'s turn is affine in what a
  bust leaves it, like every turn, but its decisions do not depend on that, so it is evaluated once per
  score tuple (:func:`.nplayer_kernels.solve_tuple` with a policy seat); the others iterate as in the
  equilibrium solve, and a policy cycle among them goes to the same search
  (:func:`dicebase.builder.equilibrium.resolve_cycle`, seat ``h`` with its one policy).  With two players
  the policy seat wins at most as often as in the equilibrium reading (an optimal two-player strategy
  guarantees its value; a best response can only do better against the policy).

**Reading the two-player policies for N players** (documented in docs/n_players.md):

* ``p`` (player 1 or 2): the last seat ``N`` plays the policy's *player 2* cases, every other seat its
  *player 1* cases.  Player 2's cases in seed 002 are those of the seat whose hold at the goal ends the
  game (it wins at once), which with N players is the last seat; every other seat reaching the goal
  hands the later seats final turns, as player 1 does.
* ``i``: the seat's own score; ``j`` ("opponent"): the **leading other player**, the highest score among
  the other seats.
* A final turn (another seat reached the goal this round): roll until the total exceeds the bar (the
  highest score), then hold, which is what all four policies do on player 2's final turn (seed 002:
  "player 2 must exceed player 1"); :func:`dicebase.builder.rolled_ones.evaluate.final_turn_agrees`
  checks it for two players.
* A hold at turn total 0 is played as a roll (:func:`decide`).
* Beyond the turn-total bound ``K`` the other seats hold (as in the equilibrium solve); a human
  policy may keep rolling (Algorithm 1 rolls until two 1s are set aside, whatever its score), so its
  turns run up to ``K + tail`` (:func:`.evaluate.tail_length`: the chance of a turn gaining more than
  ``tail`` points is at most 1e-16), and the final-round tables are solved with the score cap raised to
  ``goal + K + tail`` to hold its bars (a higher cap changes no value: tests/test_rolled_ones_nplayer.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from dicebase.builder.rolled_ones.evaluate import tail_length
from dicebase.builder.rolled_ones.nplayer import LevelInputs, Solution, level_tuples, solve
from dicebase.builder.rolled_ones.nplayer_final import Finals, solve_finals
from dicebase.builder.rolled_ones.nplayer_spec import Spec, first_passage, outcomes, reach_mask
from dicebase.builder.equilibrium import resolve_cycle, resolve_unconverged
from dicebase.rules.rolled_ones import POLICY_MODES, TIE_TOLERANCE, Rules
from dicebase.numeric.rolled_ones_policies import POLICIES, human_decisions, policy_role


@dataclass
class FixedSolution:
    """A fixed-seat solve: ``start[tuple, m, e]`` as :class:`.nplayer.Solution`'s, seat ``seat`` (0-based)
    playing ``policy``, the others best-responding; ``mixed`` the tuples whose best responses cycled."""

    spec: Spec
    seat: int
    policy: str
    start: np.ndarray
    finals: Finals
    mixed: list
    stats: dict = field(default_factory=dict)

    def start_at(self, scores) -> np.ndarray:
        return self.start[self.spec.index(scores)]

    @property
    def p_win(self) -> float:
        """The policy seat's win probability from the start (every score 0, seat 1 to move)."""
        return float(self.start[0, 0, self.seat])


def solve_fixed(rules: Rules, players: int, policy: str | Callable, seat: int, *, workers: int | None = None,
                tail: int | None = None, tie_tolerance: float = TIE_TOLERANCE) -> FixedSolution:
    """Seat ``seat`` (0-based) plays ``policy`` (a name of :data:`POLICIES` or a rule
    ``(p, i, j, k, o, goal) -> roll?``), the others best-respond; every score tuple below the goal.
    ``rules.turn_total_bound`` is the others' bound ``K``; the policy's turns run to ``K + tail``."""
    from numba import get_num_threads

    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    name = policy if isinstance(policy, str) else getattr(policy, "__name__", "policy")
    rule = POLICIES[policy].rule if isinstance(policy, str) else policy
    if not 0 <= seat < players:
        raise ValueError(f"seat must be 0..{players - 1}, got {seat}")
    t0 = time.perf_counter()
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    tail = tail_length(rules) if tail is None else tail
    KH = K + tail
    spec = Spec(rules, players, G + KH, tie_tolerance)
    workers = workers or get_num_threads()
    finals = solve_finals(spec, workers, hold_seat=seat)
    hdec = human_decisions(rule, rules, players, seat, KH)
    reach = reach_mask(replace(rules, turn_total_bound=KH))
    out = outcomes(rules)
    start = np.zeros((spec.tuples, players, players))
    inputs = LevelInputs(spec, finals, start, reach, out)
    mixed, evaluations = [], 0
    for level in level_tuples(spec):
        n = len(level)
        values = np.zeros((n, players, players))
        status = np.zeros(n, dtype=np.int64)
        evals = np.zeros(n, dtype=np.int64)
        kern.solve_tuples(np.ascontiguousarray(level, dtype=np.int64), seat, hdec, players, G, K, KH, D, L,
                          tie_tolerance, spec.max_iterations, spec.strides(), reach, out.p, out.gain, out.o_next,
                          out.n, out.p_end, start, finals.flat, finals.offsets, finals.rows, values, status, evals,
                          workers)
        mixed += resolve_unconverged(status, values, lambda t: _resolve(inputs, int(level[t]), seat, hdec, KH))
        start[level] = values
        evaluations += int(evals.sum())
    stats = {
        "players": players, "goal": G, "seat": seat + 1, "policy": name, "turn_total_bound": K,
        "policy_turn_total_bound": KH, "tail_error_bound": 1e-16, "score_cap": spec.cap,
        "tie_tolerance": tie_tolerance, "turn_evaluations": evaluations, "cycle_tuples": len(mixed),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return FixedSolution(spec, seat, name, start, finals, mixed, stats)


def _resolve(inputs: LevelInputs, idx: int, seat: int, hdec: np.ndarray, KH: int):
    """A tuple whose best responses cycled: the shared search with seat ``seat``'s one fixed policy."""
    from dicebase.builder.rolled_ones import nplayer_kernels as kern
    from dicebase.builder.rolled_ones.nplayer import _randomising
    from dicebase.numeric.rolled_ones_turn import best_turn

    spec, f, o = inputs.spec, inputs.finals, inputs.out
    r, N = spec.rules, spec.players
    G, K, D, L = r.goal, r.turn_total_bound, r.dice, r.ones_limit
    H = np.zeros((N, KH + D + 1, N))
    kern.fill_hold(idx, N, G, KH, D, spec.strides(), inputs.start, f.flat, f.offsets, f.rows, H)
    scores = spec.scores(idx)
    lead = max(s for n, s in enumerate(scores) if n != seat)
    A = np.zeros((KH + D + 1, L, N))
    c = np.zeros((KH + D + 1, L))
    best_turn(seat, 0.0, N, KH, D, L, spec.tie_tolerance, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end, H, A,
              c, np.zeros((K + 1, L), dtype=bool), np.zeros(2), np.zeros(N), True, hdec[scores[seat], lead])
    fixed = (A[0, 0].copy(), float(c[0, 0]), hdec[scores[seat], lead, : K + 1].copy(), np.array([-np.inf, np.inf]))

    def turn(m: int, beta: float):
        if m == seat:
            return fixed
        A = np.zeros((KH + D + 1, L, N))
        c = np.zeros((KH + D + 1, L))
        dec = np.zeros((K + 1, L), dtype=bool)
        ivl = np.zeros(2)
        best_turn(m, beta, N, K, D, L, spec.tie_tolerance, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                  H, A, c, dec, ivl, np.zeros(N), False, dec)
        return A[0, 0].copy(), float(c[0, 0]), dec & inputs.reach[: K + 1], ivl

    return resolve_cycle(turn, inputs.start, idx, G, spec.strides(), max_iterations=spec.max_iterations,
                         selection="mixed", describe_mixing=_randomising)


# --------------------------------------------------------------------------- the others keep the equilibrium
@dataclass
class Evaluation:
    """Policy evaluations against the stored equilibrium (:func:`against_equilibrium`).

    ``plays[c] = (policy, seat)``: in evaluation ``c`` seat ``seat`` (0-based) plays ``policy`` (a name of
    :data:`POLICIES`, or None: the stored equilibrium too), every other seat the stored
    equilibrium.  ``start[c, tuple, m]``: seat ``seat``'s win probability when seat ``m`` starts its turn at
    the tuple (index :meth:`Spec.index` of ``spec``)."""

    spec: Spec
    plays: list
    start: np.ndarray
    stats: dict = field(default_factory=dict)

    def start_at(self, policy: str | None, seat: int, scores) -> np.ndarray:
        """``[m]``: the seat's win probability at each seat's turn start at ``scores``."""
        return self.start[self.plays.index((policy, seat)), self.spec.index(scores)]

    def p_win(self, policy: str | None, seat: int) -> float:
        """The seat's win probability from the start (every score 0, seat 1 to move)."""
        return float(self.start[self.plays.index((policy, seat)), 0, 0])


def given_finals(sol: Solution, spec: Spec, hold_seat: int | None, workers: int) -> np.ndarray:
    """The final round (``Finals.flat`` of ``spec``'s layout) when every seat plays its stored final turn
    (``sol.finals.froll``; at or beyond the stored score cap it holds, as stored) except ``hold_seat``
    (0-based, or None), which holds as soon as it is above the bar (the policies' final turn)."""
    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    r, N = spec.rules, spec.players
    G, D, L, C = r.goal, r.dice, r.ones_limit, spec.cap
    ranges = spec.bar_ranges()
    out = outcomes(r)
    Q0 = np.ascontiguousarray(first_passage(r, ranges[-1])[:, 0])
    rows, offsets = _rows(spec), _offsets(spec)
    total = int(offsets[N - 1] + (ranges[N - 1] - G + 1) * rows[N - 1] * 2)
    flat = np.zeros(total)
    for j in range(N - 1, 0, -1):
        nR, tmax = rows[j] // G, ranges[j] + D
        given = np.zeros((nR, tmax - G, L), dtype=bool)
        if j != hold_seat:
            stored = sol.finals.froll[j]
            width = min(stored.shape[1], C - G - 1)
            given[:, :width] = stored[:, :width]
        kern.final_tables(j, N, G, C, L, spec.tie_tolerance, tmax, ranges[j] - G + 1, Q0, out.p, out.gain, out.o_next,
                          out.n, out.p_end, flat, offsets, rows, np.zeros((nR, tmax - G, L, N - j)),
                          np.zeros((nR, tmax - G, L)), given, True, given, workers)
    return flat


def _mixing_arrays(sol: Solution) -> tuple[np.ndarray, np.ndarray]:
    """The stored mixing as arrays: the cycle tuples' indices (sorted) and ``q[row, m, k, o]`` (the roll
    probability, NaN where the seat does not randomise; one more row, all NaN, for every other tuple)."""
    spec = sol.spec
    r, N = spec.rules, spec.players
    mixing = sol.mixing()
    tuples = sorted({spec.index(scores) for scores, _ in mixing})
    q = np.full((len(tuples) + 1, N, r.turn_total_bound + 1, r.ones_limit), np.nan)
    for (scores, m), states in mixing.items():
        row = tuples.index(spec.index(scores))
        for k, o, p in states:
            q[row, m, k, o] = p
    return np.array(tuples, dtype=np.int64), q


def against_equilibrium(sol: Solution, plays, *, tail: int | None = None, workers: int | None = None,
                        max_bytes: int = 1 << 30) -> Evaluation:
    """Each ``(policy, seat)`` of ``plays``: seat ``seat`` (0-based) plays ``policy`` (a name of
    :data:`POLICIES`, or None: the stored equilibrium), every other seat keeps playing the stored
    equilibrium of ``sol`` (its decisions as the lookups compute them from the stored turn starts, the
    mixing included; it holds beyond the bound ``K``), exactly: one pass over the score-sum levels, every
    turn's hold distribution forward from its start (:func:`.nplayer_policy_kernels.occupancy`), the
    tuple's bust cycle solved for the evaluated seat.  The policy's turns run to ``K + tail``; the final
    round is :func:`given_finals` (score cap ``goal + K + tail``).  Evaluations share the stored play of
    each tuple; ``max_bytes`` bounds the values held at once (more evaluations take more passes)."""
    from numba import get_num_threads

    from dicebase.builder.rolled_ones import nplayer_policy_kernels as pkern

    t0 = time.perf_counter()
    plays = [(p, int(m)) for p, m in plays]
    rules, N = sol.spec.rules, sol.spec.players
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    for p, m in plays:
        if not 0 <= m < N or (p is not None and p not in POLICIES):
            raise ValueError(f"a play is (policy name or None, seat 0..{N - 1}), got {(p, m)!r}")
    tail = tail_length(rules) if tail is None else tail
    KH = K + tail
    spec = Spec(rules, N, G + KH, sol.spec.tie_tolerance)
    workers = workers or get_num_threads()
    names = sorted({p for p, _ in plays if p is not None}, key=list(POLICIES).index)
    hdec = np.zeros((max(1, len(names)), 2, G, G, KH + 1, L), dtype=bool)
    for n, name in enumerate(names):
        for role, seat in enumerate((0, N - 1)):
            hdec[n, role] = human_decisions(POLICIES[name].rule, rules, N, seat, KH)
    role = np.array([policy_role(m, N) - 1 for m in range(N)], dtype=np.int64)
    o = outcomes(rules)
    wtab = np.zeros(hdec.shape[:4] + (KH + D + 1,))
    ctab = np.zeros(hdec.shape[:4])
    pkern.policy_occupancy(hdec, KH, D, L, o.p, o.gain, o.o_next, o.n, o.p_end, wtab, ctab, workers)
    del hdec
    holders = sorted({None if p is None else m for p, m in plays}, key=lambda x: -1 if x is None else x)
    phi = np.stack([given_finals(sol, spec, h, workers) for h in holders])
    mix_tuples, mix_q = _mixing_arrays(sol)
    f = sol.finals
    start = np.zeros((len(plays), spec.tuples, N))
    per = max(1, int(max_bytes // (spec.tuples * N * 8)))
    levels = level_tuples(spec)
    for b in range(0, len(plays), per):
        batch = plays[b: b + per]
        c_pol = np.array([-1 if p is None else names.index(p) for p, _ in batch], dtype=np.int64)
        c_seat = np.array([m for _, m in batch], dtype=np.int64)
        c_fin = np.array([holders.index(None if p is None else m) for p, m in batch], dtype=np.int64)
        startp = np.zeros((len(batch), spec.tuples, N))
        for level in levels:
            out = np.zeros((len(batch), len(level), N))
            pkern.evaluate_tuples(np.ascontiguousarray(level, dtype=np.int64), N, G, K, KH, D, L, spec.tie_tolerance,
                                  spec.strides(), o.p, o.gain, o.o_next, o.n, o.p_end, sol.start, f.flat, f.offsets,
                                  f.rows, mix_tuples, mix_q, wtab, ctab, role, c_pol, c_seat, c_fin, startp, phi,
                                  _offsets(spec), _rows(spec), out, workers)
            startp[:, level] = out
        start[b: b + len(batch)] = startp
    stats = {
        "players": N, "goal": G, "opponents": "the stored equilibrium (fixed: they do not adapt)",
        "turn_total_bound": K, "policy_turn_total_bound": KH, "tail_error_bound": 1e-16, "score_cap": spec.cap,
        "tie_tolerance": spec.tie_tolerance, "evaluations": len(plays), "passes": -(-len(plays) // per),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return Evaluation(spec, plays, start, stats)


def _rows(spec: Spec) -> np.ndarray:
    rows = np.zeros(spec.players + 1, dtype=np.int64)
    for j in range(1, spec.players):
        rows[j] = spec.rules.goal ** (spec.players - j)
    return rows


def _offsets(spec: Spec) -> np.ndarray:
    ranges, rows = spec.bar_ranges(), _rows(spec)
    offsets = np.zeros(spec.players + 1, dtype=np.int64)
    total = 0
    for j in range(1, spec.players):
        offsets[j] = total
        total += (ranges[j] - spec.rules.goal + 1) * rows[j] * (spec.players - j + 1)
    return offsets


# --------------------------------------------------------------------------- the table
#: The readings of "the others play optimally": they keep the stored equilibrium (seed 002's measure,
#: the default) or they best-respond to the policy.
MODES = POLICY_MODES


@dataclass(frozen=True)
class PolicyCost:
    """One row of ``rolled_ones_policy_costs``: seat ``seat`` (1-based) of ``players`` plays ``policy``, the
    others as ``mode`` says (:data:`MODES`)."""

    players: int
    mode: str
    seat: int
    policy: str
    p_win: float  # the policy seat's win probability, the others as mode says
    p_win_optimal: float  # the seat's win probability when every seat plays the equilibrium
    cycle_tuples: int  # best_response: tuples whose best responses cycled; equilibrium: 0 (nothing searched)

    @property
    def cost(self) -> float:
        return self.p_win_optimal - self.p_win


def policy_costs(rules: Rules, players: int, policies=None, *, mode: str = "equilibrium",
                 solution: Solution | None = None, workers: int | None = None,
                 progress=None) -> tuple[list[PolicyCost], dict]:
    """Every (policy, seat) of ``players`` seats in reading ``mode`` against the equilibrium ``solution``
    (:func:`.nplayer.solve` of ``rules``; solved here when not given).  Returns the rows and the stats of
    each solve (``best_response``) or of the one evaluation pass (``equilibrium``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    names = list(POLICIES) if policies is None else list(policies)
    sol = solve(rules, players, workers=workers) if solution is None else solution
    optimal = sol.start[0, 0]
    if mode == "equilibrium":
        ev = against_equilibrium(sol, [(n, m) for n in names for m in range(players)], workers=workers)
        rows = [PolicyCost(players, mode, m + 1, n, ev.p_win(n, m), float(optimal[m]), 0)
                for n in names for m in range(players)]
        return rows, {"solves": [ev.stats]}
    rows, stats = [], []
    for name in names:
        for seat in range(players):
            fixed = solve_fixed(rules, players, name, seat, workers=workers)
            rows.append(PolicyCost(players, mode, seat + 1, name, fixed.p_win, float(optimal[seat]),
                                   len(fixed.mixed)))
            stats.append(fixed.stats)
            if progress:
                progress(len(rows), len(names) * players)
    return rows, {"solves": stats}


__all__ = ["policy_role", "human_decisions", "FixedSolution", "solve_fixed", "Evaluation", "given_finals",
           "against_equilibrium", "MODES", "PolicyCost", "policy_costs"]
