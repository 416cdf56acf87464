"""Optimal play of two-player Great Rolled Ones: seed 002's equations, solved exactly.

Seed 002's optimality equations, for the state ``(p, i, j, k, o)`` (mover
``p``, mover's score ``i``, opponent's score ``j``, turn total ``k``, 1s set
aside ``o``; goal 50 and 5 dice written generally as ``G`` and ``D``)::

    P_roll(p,i,j,k,o) = P_exceed(j - (i + k), o)                       if p = 2 and j >= G
                      = sum_{n=0}^{2-o} P_new1s(D-o, n) P(p, i, j, k + D - o', o')
                        + sum_{n=3-o}^{D-o} P_new1s(D-o, n) (1 - P(3-p, j, i, 0, 0))   otherwise

    P_hold(p,i,j,k,o) = 0                          if k = 0 or (p = 2 and j >= G and i + k <= j)
                      = 1                          if p = 2 and i + k >= G and i + k > j
                      = 1 - P(3-p, j, i + k, 0, 0) otherwise

    P(p,i,j,k,o) = max(P_roll, P_hold)

Readings of the seed's notation (docs/rolled_ones.md lists them too):

* The seed prints ``P_exceed(j - i, o)`` in the first case of ``P_roll``; its
  own definition of ``Delta = j - (i + k)`` includes the turn total, so we use
  ``j - (i + k)``.  Where player 2 has already exceeded (``Delta < 0``) the
  equation would make rolling worth 1; we store the true one-roll value there
  (``1 - chance of ending the turn``), which changes no ``P`` (holding is worth 1).
* ``(p = 2 and j >= 50, i)`` and ``(p = 2 and i + k >= 50, j)`` read as
  "player 2 holding does not exceed ``j``" (tie or behind: a loss, player 2
  must exceed) and "holding reaches the goal and exceeds ``j``".
* ``P(1, i, x, 0, 0)`` with ``x >= G`` (player 2 ended the last round at the
  goal) is 0, and ``P(2, i, x, 0, 0)`` with ``x >= G`` is player 2's final
  turn, ``P_exceed(x - i, 0)``.

``P``, ``P_roll`` and ``P_hold`` at the end of this module transcribe these
cases one by one (scalar, reading the right-hand sides from a solution); the
tests check the vectorised solution against them state by state.

Solution method (exact, no tolerance).  Holding raises the score sum
``i + j``; rolling raises ``k``; only ending a turn on the 1s limit keeps the
sum and swaps the mover, coupling the turn starts ``P(1, i, j, 0, 0)`` and
``P(2, j, i, 0, 0)``.  So the solver visits score-sum levels from ``2G - 2``
down to 0.  Within a level every turn is a function of its one unknown
"turn ends on 1s" value ``b``: processing ``k`` from the bound down to 0 gives
each state's value as ``a + c * b`` for the greedy decisions at the current
``b``; the 2-cycle between the two players' turn starts is then solved
exactly as a 2x2 linear system, and the decisions are re-derived (Newton /
policy iteration on the 2-cycle) until they no longer change.  The work is
vectorised over all score pairs of a level; the Python loops run over levels,
Newton steps and turn totals only.

Turn-total bound ``K``: ``k`` is unbounded in the rules.  States with
``k <= K`` are solved and stored; for ``k > K`` the solver uses the hold value,
and checks that this is exact: beyond ``K`` player 1's hold value
``1 - P_exceed(i + k - j, 0)`` is at least the best a roll can give,
``1 - P_end(o) * P(2, j, i, 0, 0)``; player 2 (``i + k >= G``) holds and wins.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.builder.rolled_ones.rules import P_exceed_table
from dicebase.rules.rolled_ones import P_new1s, Rules

#: Newton steps per level before falling back to plain fixed-point iteration.
MAX_NEWTON_STEPS = 50


@dataclass
class Solution:
    """Optimal values of every non-terminal state with ``i, j < G`` and ``k <= K``.

    Arrays are indexed ``[p - 1, i, j, k, o]`` exactly as seed 002's tuple.
    ``p_hold`` does not depend on ``o`` and is stored ``[p - 1, i, j, k]``.
    Player 2's final-turn states (``j >= G``) are ``P_exceed(j - (i + k), o)``.
    """

    rules: Rules
    p_exceed: np.ndarray  # [Delta + 1, o], Delta = -1 .. delta_max
    p_roll: np.ndarray  # [p-1, i, j, k, o]
    p_hold: np.ndarray  # [p-1, i, j, k]
    roll: np.ndarray  # [p-1, i, j, k, o] bool: the optimal action is roll
    turn_start: np.ndarray  # [p-1, i, x] = P(p, i, x, 0, 0), x = 0 .. G + K + D - 1
    stats: dict = field(default_factory=dict)

    @property
    def p_win(self) -> np.ndarray:
        """``P(p, i, j, k, o) = max(P_roll, P_hold)``."""
        return np.maximum(self.p_roll, self.p_hold[..., None])

    def P(self, p: int, i: int, j: int, k: int, o: int) -> float:
        """One state's value, including player 2's final turn (``j >= G``)."""
        G = self.rules.goal
        if p == 2 and j >= G:
            return float(self.p_exceed[max(j - (i + k), -1) + 1, o])
        return float(max(self.p_roll[p - 1, i, j, k, o], self.p_hold[p - 1, i, j, k]))


# ---------------------------------------------------------------------------
# the building blocks, one per equation
# ---------------------------------------------------------------------------
def roll_matrix(rules: Rules) -> np.ndarray:
    """The non-ending part of ``P_roll`` as a matrix over the next ``D - g_min + 1`` turn totals.

    ``M[o, (g - g_min) * L + o'] = P_new1s(D - o, o' - o)`` for the roll from ``o``
    that sets aside ``o' - o`` new 1s and adds ``g = D - o'`` points; the value
    array of a turn, sliced at ``k + g_min .. k + D`` and flattened, times
    ``M`` is ``sum_{n=0}^{2-o} P_new1s(D-o, n) P(p, i, j, k + D - o', o')``.
    """
    L, D, gmin = rules.ones_limit, rules.dice, rules.min_gain
    M = np.zeros((L, (D - gmin + 1) * L))
    for o in rules.ones:
        for prob, gain, o_next in rules.outcomes[o]:
            M[o, (gain - gmin) * L + o_next] += prob
    return M


def final_turn_starts(rules: Rules, pex: np.ndarray, width: int) -> np.ndarray:
    """Turn-start values ``T[p-1, i, x] = P(p, i, x, 0, 0)``, filled where ``x >= G``.

    ``x >= G`` for ``p = 1``: player 2 ended the last round at the goal, player 1 lost: 0.
    ``x >= G`` for ``p = 2``: player 2's final turn, ``P_exceed(x - i, 0)``.
    Columns ``x < G`` are filled level by level by the solvers.
    """
    G = rules.goal
    T = np.zeros((2, G, width))
    i = np.arange(G)[:, None]
    x = np.arange(G, width)[None, :]
    T[1, :, G:] = pex[x - i + 1, 0]
    return T


def hold_values(T: np.ndarray, p: int, i: np.ndarray, j: np.ndarray, k_max: int) -> np.ndarray:
    """``P_hold(p, i, j, k) = 1 - P(3 - p, j, i + k, 0, 0)`` for ``k = 0 .. k_max``; 0 at ``k = 0``.

    Returns shape ``(k_max + 1, len(i))``.  With ``T`` from
    :func:`final_turn_starts` this covers all three cases of the seed's
    ``P_hold`` for ``j < G``: player 2 reaching the goal makes ``T[0, j, i+k] = 0``
    (hold wins: 1), player 1 reaching it makes ``T[1, j, i+k] = P_exceed``.
    """
    k = np.arange(k_max + 1)[:, None]
    H = 1.0 - T[2 - p][j[None, :], i[None, :] + k]
    H[0] = 0.0  # holding at k = 0 breaks the rules: treated as a loss
    return H


def level_pairs(rules: Rules, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Score pairs ``(i, j)`` with ``i + j = s`` and ``0 <= i, j < G``."""
    G = rules.goal
    i = np.arange(max(0, s - G + 1), min(s, G - 1) + 1)
    return i, s - i


def turn_kernel(
    rules: Rules,
    M: np.ndarray,
    AC: np.ndarray,
    H: np.ndarray,
    b: np.ndarray,
    fixed: np.ndarray | None,
    R: np.ndarray,
    dec: np.ndarray,
    top: int | None = None,
    k_offset: int = 0,
) -> None:
    """Values of whole turns as ``a + c * b``, for ``k = K`` down to 0 (in place).

    Row ``r`` of every array is the turn total ``k = k_offset + r``; rows
    ``top`` down to 0 are computed (default ``top = K``, ``k_offset = 0``).

    ``AC[k, o, 0|1, m]``: coefficients ``a`` and ``c`` of state ``(k, o)`` of
    turn ``m``, rows ``K + 1 .. K + D`` prefilled (beyond the bound).
    ``H[k, m]``: ``P_hold``.  ``b[m]``: the mover's value when the turn ends
    on the 1s limit, ``1 - P(3-p, j, i, 0, 0)``.  ``fixed[k, o, m]``: roll
    decisions of a fixed policy, or None to choose greedily (``P_roll > P_hold``;
    ties hold) at the given ``b``.  Writes ``P_roll``'s coefficients to ``R``
    and the decisions to ``dec``.
    """
    D, gmin, L = rules.dice, rules.min_gain, rules.ones_limit
    top = rules.turn_total_bound if top is None else top
    m = AC.shape[-1]
    rows = (D - gmin + 1) * L
    p_end = np.asarray(rules.p_end)[:, None]
    for k in range(top, -1, -1):
        # P_roll: sum over non-ending rolls of P_new1s * P(k + D - o', o'), plus P_end * b
        block = AC[k + gmin : k + D + 1].reshape(rows, 2 * m)
        roll = (M @ block).reshape(L, 2, m)
        roll[:, 1] += p_end
        R[k] = roll
        if fixed is None:
            d = roll[:, 0] + roll[:, 1] * b > H[k]
            if k + k_offset == 0:
                d[:] = True  # P_hold(k = 0) = 0: never hold at the start of a turn
        else:
            d = fixed[k]
        dec[k] = d
        # P = max(P_roll, P_hold) (or the fixed policy's choice)
        AC[k, :, 0] = np.where(d, roll[:, 0], H[k])
        AC[k, :, 1] = np.where(d, roll[:, 1], 0.0)


def solve_two_cycle(a1, c1, a2, c2):
    """Solve ``x = a1 + c1 (1 - y)``, ``y = a2 + c2 (1 - x)`` exactly.

    ``x = P(1, i, j, 0, 0)``, ``y = P(2, j, i, 0, 0)``: each turn start's value
    given the other's, through "three 1s end the turn".
    """
    x = (a1 + c1 * (1.0 - a2 - c2)) / (1.0 - c1 * c2)
    y = a2 + c2 * (1.0 - x)
    return x, y


# ---------------------------------------------------------------------------
# the optimal solve
# ---------------------------------------------------------------------------
def delta_max(rules: Rules, extra: int = 0) -> int:
    """Largest ``Delta`` a stored or solved state can need in ``P_exceed``."""
    return rules.goal - 1 + rules.turn_total_bound + rules.dice + extra


def solve(rules: Rules) -> Solution:
    """Solve seed 002's equations for every state with ``k <= turn_total_bound``."""
    started = time.perf_counter()
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    pex = P_exceed_table(rules, delta_max(rules))
    width = G + K + D
    T = final_turn_starts(rules, pex, width)
    M = roll_matrix(rules)

    p_roll = np.zeros((2, G, G, K + 1, L))
    p_hold = np.zeros((2, G, G, K + 1))
    roll = np.zeros((2, G, G, K + 1, L), dtype=bool)

    newton_steps: list[int] = []
    fallback_levels = 0
    for s in range(2 * G - 2, -1, -1):
        i, j = level_pairs(rules, s)
        n = len(i)
        m = 2 * n
        # columns 0..n-1: player 1's turn at (i, j); n..2n-1: player 2's turn at (j, i)
        H = np.concatenate([hold_values(T, 1, i, j, K + D), hold_values(T, 2, j, i, K + D)], axis=1)
        AC = np.zeros((K + D + 1, L, 2, m))
        AC[K + 1 :, :, 0, :] = H[K + 1 :, None, :]  # beyond the bound: hold (checked below)
        R = np.empty((K + 1, L, 2, m))
        dec = np.empty((K + 1, L, m), dtype=bool)
        x = np.full(n, 0.5)
        y = np.full(n, 0.5)
        prev = None
        steps = 0
        converged = False
        while steps < MAX_NEWTON_STEPS:
            steps += 1
            b = np.concatenate([1.0 - y, 1.0 - x])
            turn_kernel(rules, M, AC, H, b, None, R, dec)
            a0, c0 = AC[0, 0, 0], AC[0, 0, 1]
            x_new, y_new = solve_two_cycle(a0[:n], c0[:n], a0[n:], c0[n:])
            if prev is not None and np.array_equal(dec, prev):
                converged = True
                break
            prev = dec.copy()
            x, y = x_new, y_new
        if not converged:  # pragma: no cover - safety net, never needed for the seed's rules
            fallback_levels += 1
            for _ in range(100_000):
                b = np.concatenate([1.0 - y, 1.0 - x])
                turn_kernel(rules, M, AC, H, b, None, R, dec)
                v = AC[0, 0, 0] + AC[0, 0, 1] * b
                change = max(np.max(np.abs(v[:n] - x)), np.max(np.abs(v[n:] - y)))
                x, y = v[:n], v[n:]
                if change <= 1e-15:
                    break
            x_new, y_new = x, y
        newton_steps.append(steps)
        # P_roll's "turn ends on 1s" value from the converged turn starts (the ones stored in T)
        b = np.concatenate([1.0 - y_new, 1.0 - x_new])
        T[0, i, j] = x_new
        T[1, j, i] = y_new
        rv = (R[:, :, 0] + R[:, :, 1] * b).transpose(2, 0, 1)  # (m, K+1, L)
        p_roll[0, i, j] = rv[:n]
        p_roll[1, j, i] = rv[n:]
        p_hold[0, i, j] = H[: K + 1, :n].T
        p_hold[1, j, i] = H[: K + 1, n:].T
        roll[0, i, j] = dec.transpose(2, 0, 1)[:n]
        roll[1, j, i] = dec.transpose(2, 0, 1)[n:]

    slack = check_hold_beyond_bound(rules, T)
    residual = _residual(rules, pex, p_roll, p_hold, T)
    stats = {
        "method": "score-sum levels, k descending, Newton/policy iteration on the 2-cycle of turn starts "
        "with an exact 2x2 solve (no tolerance)",
        "levels": 2 * G - 1,
        "newton_steps_max": int(max(newton_steps)),
        "newton_steps_mean": round(float(np.mean(newton_steps)), 3),
        "fallback_levels": fallback_levels,
        "max_bellman_residual": residual,
        "beyond_bound": "hold, proven optimal for every k > turn_total_bound (check_hold_beyond_bound)",
        "beyond_bound_min_slack": slack,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return Solution(rules, pex, p_roll, p_hold, roll, T, stats)


def check_hold_beyond_bound(rules: Rules, T: np.ndarray) -> float:
    """Prove that holding is optimal at every ``k > K``; return the smallest margin.

    Player 2 (``j < G``) beyond ``K >= G`` holds and wins.  For player 1 at
    ``(i, j)``, holding at ``k`` is worth ``H(k) = 1 - P_exceed(i + k - j, 0)``
    and ending the turn on 1s leaves ``b = 1 - P(2, j, i, 0, 0)``.

    1. Far out: from the first ``k*`` with ``max_{k >= k*} P_exceed(i + k - j, 0)
       <= min_o P_end(o) * P(2, j, i, 0, 0)`` for every ``(i, j)``, holding beats
       any roll (which is worth at most ``1 - P_end(o) * P(2, j, i, 0, 0)``), for
       all ``k >= k*``.  The maximum is taken over the computed table (a suffix
       maximum, so rounding in the last bits cannot break the argument); beyond
       the table ``P_exceed`` is smaller still, being non-increasing in ``Delta``
       (a turn gaining more than ``Delta + 1`` points gains more than ``Delta``).
    2. Then by induction downwards, ``k = k* - 1 .. K + 1``: if holding is
       optimal beyond ``k``, rolling at ``k`` is worth
       ``sum_n P_new1s(D-o, n) H(k + D - o') + P_end(o) b``; holding is optimal
       at ``k`` when ``H(k)`` is at least that for every ``o``.

    Raises ValueError when the bound is too small.
    """
    G, K = rules.goal, rules.turn_total_bound
    T2 = T[1, :, :G].T  # [i, j] -> P(2, j, i, 0, 0)
    i = np.arange(G)[:, None]
    j = np.arange(G)[None, :]
    span = 4000
    pex = P_exceed_table(rules, G + K + span)
    beyond = np.maximum.accumulate(pex[::-1, 0])[::-1]  # beyond[d] = max of P_exceed(d' - 1, 0), d' >= d
    H = lambda k: 1.0 - pex[i + k - j + 1, 0]  # noqa: E731
    k_star = K + 1
    while np.any(beyond[i + k_star - j + 1] > min(rules.p_end) * T2):
        k_star += 1
        if k_star > K + span - G:  # pragma: no cover - turns far longer than any sane rule set's
            raise ValueError(f"turn_total_bound {K}: cannot prove holding optimal beyond it")
    slack = float(np.min(min(rules.p_end) * T2 - beyond[i + k_star - j + 1]))
    b = 1.0 - T2
    for k in range(k_star - 1, K, -1):
        for o in rules.ones:
            roll = rules.p_end[o] * b
            for prob, gain, _ in rules.outcomes[o]:
                roll = roll + prob * H(k + gain)
            margin = H(k) - roll
            if margin.min() < 0.0:
                raise ValueError(
                    f"turn_total_bound {K} is too small: rolling at turn total {k} beats holding "
                    f"(by {-margin.min():.3g}); raise turn_total_bound"
                )
            slack = min(slack, float(margin.min()))
    return slack


def _residual(rules, pex, p_roll, p_hold, T) -> float:
    """Largest |P - max(P_roll, P_hold)| after re-deriving P_roll from the stored P.

    An independent one-sweep check of the whole state space against seed 002's
    equations (vectorised over all states at once).
    """
    G, K, D, L = rules.goal, rules.turn_total_bound, rules.dice, rules.ones_limit
    P = np.maximum(p_roll, p_hold[..., None])
    # extend k beyond K with hold values
    ext = np.zeros((2, G, G, K + D + 1, L))
    ext[:, :, :, : K + 1] = P
    ii = np.arange(G)[:, None, None]
    jj = np.arange(G)[None, :, None]
    kk = np.arange(K + 1, K + D + 1)[None, None, :]
    ext[0, :, :, K + 1 :] = (1.0 - T[1][jj, ii + kk])[..., None]
    ext[1, :, :, K + 1 :] = (1.0 - T[0][jj, ii + kk])[..., None]
    worst = 0.0
    for p in (1, 2):
        bust = 1.0 - T[2 - p][np.arange(G)[None, :], np.arange(G)[:, None]]  # [i, j] -> 1 - P(3-p, j, i)
        for o in rules.ones:
            r = rules.p_end[o] * bust[:, :, None]
            for prob, gain, o_next in rules.outcomes[o]:
                r = r + prob * ext[p - 1, :, :, gain : gain + K + 1, o_next]
            worst = max(worst, float(np.max(np.abs(r - p_roll[p - 1, :, :, :, o]))))
    return worst


# ---------------------------------------------------------------------------
# the equations, case by case (scalar reference; the solver above vectorises them)
# ---------------------------------------------------------------------------
def P(sol: Solution, p: int, i: int, j: int, k: int, o: int) -> float:
    """``P(p, i, j, k, o) = max(P_roll, P_hold)``, read from a solution.

    Outside the stored box: ``P(1, i, x >= G, 0, 0) = 0`` (player 2 reached the
    goal: player 1 lost), ``P(2, i, j >= G, k, o) = P_exceed(j - (i + k), o)``,
    and beyond the turn-total bound ``P = P_hold`` (proven optimal there).
    """
    G, K = sol.rules.goal, sol.rules.turn_total_bound
    if p == 1 and j >= G:
        return 0.0
    if p == 2 and j >= G:
        return float(sol.p_exceed[max(j - (i + k), -1) + 1, o])
    if k > K:
        return P_hold(sol, p, i, j, k, o)
    return float(max(sol.p_roll[p - 1, i, j, k, o], sol.p_hold[p - 1, i, j, k]))


def P_roll(sol: Solution, p: int, i: int, j: int, k: int, o: int) -> float:
    """Seed 002's ``P_roll(p, i, j, k, o)``::

        P_exceed(j - (i + k), o)                                       if p = 2 and j >= 50
        sum_{n=0}^{2-o} P_new1s(5-o, n) P(p, i, j, k + 5 - o', o')
          + sum_{n=3-o}^{5-o} P_new1s(5-o, n) (1 - P(3-p, j, i, 0, 0))  otherwise, o' = o + n
    """
    r = sol.rules
    G, D, L, F = r.goal, r.dice, r.ones_limit, r.faces
    if p == 2 and j >= G:
        delta = j - (i + k)
        if delta >= 0:
            return float(sol.p_exceed[delta + 1, o])
        return sum(P_new1s(D - o, n, F) for n in range(L - o))  # reading: already ahead, the roll's real value
    total = 0.0
    for n in range(0, L - o):  # n = 0 .. 2 - o: the turn goes on
        o2 = o + n
        total += P_new1s(D - o, n, F) * P(sol, p, i, j, k + D - o2, o2)
    for n in range(L - o, D - o + 1):  # n = 3 - o .. 5 - o: three 1s end the turn
        total += P_new1s(D - o, n, F) * (1.0 - P(sol, 3 - p, j, i, 0, 0))
    return total


def P_hold(sol: Solution, p: int, i: int, j: int, k: int, o: int) -> float:
    """Seed 002's ``P_hold(p, i, j, k, o)``::

        0                              if k = 0 or (p = 2 and j >= 50 and i + k <= j)
        1                              if p = 2 and i + k >= 50 and i + k > j
        1 - P(3 - p, j, i + k, 0, 0)   otherwise
    """
    G = sol.rules.goal
    if k == 0 or (p == 2 and j >= G and i + k <= j):
        return 0.0
    if p == 2 and i + k >= G and i + k > j:
        return 1.0
    return 1.0 - P(sol, 3 - p, j, i + k, 0, 0)
