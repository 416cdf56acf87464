"""Seed 002's human policies in the N-player game (issue 21): what each costs the seat that uses it when
the other seats play optimally against it.

A **fixed-seat solve** (:func:`solve_fixed`): seat ``h`` plays a human policy, every other seat
best-responds (maximises its own win probability, knowing seat ``h``'s policy), subgame perfect, with the
tie-break of :mod:`.nplayer` (the mover rolls only when rolling beats holding by more than 1e-12).  It is
the equilibrium solve of :mod:`.nplayer` with one seat's turns replaced by the policy's: seat ``h``'s turn
is affine in what a bust leaves it, like every turn, but its decisions do not depend on that, so it is
evaluated once per score tuple (:func:`.nplayer_kernels.solve_tuple_fixed`); the others iterate as in
the equilibrium solve, and a policy cycle among them goes to the same search
(:func:`dicebase.builder.equilibrium.resolve_cycle`, seat ``h`` with its one policy).

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
* A hold at turn total 0 is played as a roll (:func:`.policies.decide`).
* Beyond the turn-total bound ``K`` a best-responding seat holds (as in the equilibrium solve); a human
  policy may keep rolling (Algorithm 1 rolls until two 1s are set aside, whatever its score), so its
  turns run up to ``K + tail`` (:func:`.evaluate.tail_length`: the chance of a turn gaining more than
  ``tail`` points is at most 1e-16), and the final-round tables are solved with the score cap raised to
  ``goal + K + tail`` to hold its bars (a higher cap changes no value: tests/test_rolled_ones_nplayer.py).

With two players this is seed 002's game with the optimal player replaced by a best response to the
policy: the human seat's win probability is at most its figure against the fixed (non-adapting) optimal
player stored in ``rolled_ones_seat_win_rates`` (an optimal two-player strategy guarantees its value;
a best response can only do better against the policy); see :func:`fixed_opponents` for that measure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from dicebase.builder.rolled_ones.evaluate import tail_length
from dicebase.builder.rolled_ones.nplayer import LevelInputs, level_tuples, solve
from dicebase.builder.rolled_ones.nplayer_final import Finals, solve_finals
from dicebase.builder.rolled_ones.nplayer_spec import Spec, outcomes, reach_mask
from dicebase.builder.rolled_ones.policies import POLICIES, decide
from dicebase.builder.equilibrium import resolve_cycle
from dicebase.rules.rolled_ones import TIE_TOLERANCE, Rules


def policy_role(seat: int, players: int) -> int:
    """Seed 002's player number (1 or 2) whose cases seat ``seat`` (0-based) plays: 2 for the last seat."""
    return 2 if seat == players - 1 else 1


def human_decisions(rule: Callable, rules: Rules, players: int, seat: int, top: int) -> np.ndarray:
    """``roll[i, lead, k, o]``: the policy's decision for 0-based seat ``seat`` with own score ``i``, the
    highest other score ``lead`` (both below the goal), turn total ``k <= top``, ``o`` 1s set aside."""
    G, L = rules.goal, rules.ones_limit
    i = np.arange(G).reshape(G, 1, 1, 1)
    j = np.arange(G).reshape(1, G, 1, 1)
    k = np.arange(top + 1).reshape(1, 1, -1, 1)
    o = np.arange(L).reshape(1, 1, 1, L)
    out = decide(rule, policy_role(seat, players), i, j, k, o, G)
    return np.ascontiguousarray(np.broadcast_to(out, (G, G, top + 1, L)))


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
    """Seat ``seat`` (0-based) plays ``policy`` (a name of :data:`.policies.POLICIES` or a rule
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
        kern.solve_tuples_fixed(np.ascontiguousarray(level, dtype=np.int64), seat, hdec, players, G, K, KH, D, L,
                                tie_tolerance, spec.max_iterations, spec.strides(), reach, out.p, out.gain,
                                out.o_next, out.n, out.p_end, start, finals.flat, finals.offsets, finals.rows,
                                values, status, evals, workers)
        for t in np.flatnonzero(status != kern.CONVERGED):
            record, vals = _resolve(inputs, int(level[t]), seat, hdec, KH)
            values[t] = vals
            mixed.append(record)
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

    spec, f, o = inputs.spec, inputs.finals, inputs.out
    r, N = spec.rules, spec.players
    G, K, D, L = r.goal, r.turn_total_bound, r.dice, r.ones_limit
    H = np.zeros((N, KH + D + 1, N))
    kern.fill_hold(idx, N, G, KH, D, spec.strides(), inputs.start, f.flat, f.offsets, f.rows, H)
    scores = spec.scores(idx)
    lead = max(s for n, s in enumerate(scores) if n != seat)
    A = np.zeros((KH + D + 1, L, N))
    c = np.zeros((KH + D + 1, L))
    kern.turn_fixed(seat, N, KH, D, L, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end, H,
                    hdec[scores[seat], lead], A, c)
    fixed = (A[0, 0].copy(), float(c[0, 0]), hdec[scores[seat], lead, : K + 1].copy(), np.array([-np.inf, np.inf]))

    def turn(m: int, beta: float):
        if m == seat:
            return fixed
        A = np.zeros((KH + D + 1, L, N))
        c = np.zeros((KH + D + 1, L))
        dec = np.zeros((K + 1, L), dtype=bool)
        ivl = np.zeros(2)
        kern.turn_dp(m, beta, N, K, D, L, spec.tie_tolerance, inputs.reach, o.p, o.gain, o.o_next, o.n, o.p_end,
                     H, A, c, dec, ivl)
        return A[0, 0].copy(), float(c[0, 0]), dec & inputs.reach[: K + 1], ivl

    return resolve_cycle(turn, inputs.start, idx, G, spec.strides(), max_iterations=spec.max_iterations,
                         selection="mixed", describe_mixing=_randomising)


@dataclass(frozen=True)
class PolicyCost:
    """One row of ``rolled_ones_policy_costs``: seat ``seat`` (1-based) of ``players`` plays ``policy``."""

    players: int
    seat: int
    policy: str
    p_win: float  # the policy seat's win probability, the others best-responding
    p_win_optimal: float  # the seat's win probability when every seat plays the equilibrium
    cycle_tuples: int

    @property
    def cost(self) -> float:
        return self.p_win_optimal - self.p_win


def policy_costs(rules: Rules, players: int, policies=None, *, optimal: np.ndarray | None = None,
                 workers: int | None = None, progress=None) -> tuple[list[PolicyCost], dict]:
    """Every (policy, seat) of ``players`` seats: :func:`solve_fixed` from the start against the
    equilibrium's start vector ``optimal`` (``[seat's win]`` at all scores 0, seat 1 to move; solved here
    when not given).  Returns the rows and the stats of each solve."""
    names = list(POLICIES) if policies is None else list(policies)
    if optimal is None:
        optimal = solve(rules, players, workers=workers).start[0, 0]
    rows, stats = [], []
    for name in names:
        for seat in range(players):
            sol = solve_fixed(rules, players, name, seat, workers=workers)
            rows.append(PolicyCost(players, seat + 1, name, sol.p_win, float(optimal[seat]), len(sol.mixed)))
            stats.append(sol.stats)
            if progress:
                progress(len(rows), len(names) * players)
    return rows, {"solves": stats}


__all__ = ["policy_role", "human_decisions", "FixedSolution", "solve_fixed", "PolicyCost", "policy_costs"]
