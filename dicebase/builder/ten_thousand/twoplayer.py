"""Two-player 10,000 to a goal, maximising the probability of winning.

Units of ``rules.unit`` (50 points); goal ``G`` units.  Player to move has banked
``i``, the opponent ``j`` (both < G), turn total ``k``, pre-roll class ``s``
(dice left, standing triple; :func:`~dicebase.rules.ten_thousand.turn_states`).

    P(i, j, k, s)  = max(P_bank, P_roll)                           (k > 0)
    P_bank         = 1 - W(j, i + k)                   if i + k <  G
                   = 1 - P_exceed(i + k - j)           if i + k >= G (opponent's last turn)
                   = 1                                 if i + k >= G and last_round = first_to_goal_wins
    P_roll         = sum_r P(r) max_keep P(i, j, k + pts, s') + pf(s) * (1 - W(j, i))
    W(i, j)        = P(i, j, 0, six dice)                          (a turn starts with a roll)

Without hot dice a keep of every die leads to the class "no dice" (``NO_DICE``, no roll
groups): there ``P = P_bank`` (the turn ends, banked), or ``1 - W(j, i)`` while the total may
not be banked (below the opening minimum: the turn is lost, the farkle value), and
``E(m >= 1) = 0``.

``P_exceed(d)``: the last-turn player, ``d`` units behind, wins by ending the turn
more than ``d`` ahead of its banked score: :func:`exceed_table` (``E(m, s)`` = chance
to still gain ``m`` or more units from class ``s``; the last turn keeps rolling until
then, so ``P_exceed(d) = E(d + 1, six dice)``).

Order (the only cycle is a farkle, (i, j) -> (j, i)): score sums ``i + j`` descending;
banking moves to a larger sum.  Within a sum the turn-start values ``X = W(i, j)``,
``Y = W(j, i)`` are a 2-cycle.  With the farkle value ``F = 1 - Y`` fixed, pair (i, j)'s
turn is acyclic in ``k`` (descending), and for a fixed policy every value is affine in
``F``: tracked as ``A + B F``.  Policy iteration (Newton): evaluate both turns at the
current ``F``s with the argmax policies, solve the 2x2 linear system for ``X, Y``; each
evaluation also returns the interval of ``F`` on which every argmax it took stays an
argmax, so when the solved ``F`` lies in it the values are exact and the loop stops.

Parallel (issue 12): the 2-cycles of one score sum read W of larger sums only, so they
run on every thread (:mod:`.kernels`, numba ``prange``), as do the seed-004 evaluation and
the collection of each sum's table rows; values are bit-identical for any thread count.

Turn-total bound past the goal (per pair, exact): a roll is worth at most
``1 - pf(s) W(j, i)`` (a farkle gives the opponent the dice), banking gives
``1 - P_exceed(d)``, so banking is optimal wherever ``P_exceed(d) <= pf_min W(j, i)``.
Each pair stores ``k <= kmax(i, j)``, the last turn total before that holds for every
larger deficit; beyond it banking is forced, which is exact.  The bound is chosen from
a guess of ``W(j, i)`` and checked against the solved value (and enlarged if needed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dicebase.rules.ten_thousand import RuleSet

from dicebase.numeric.ten_thousand_turn import class_sum, exceed_table, flatten, max_dice_flat, transitions, turn_states

from .solitaire import bank_minimum_units

def tie_table(rules: RuleSet, max_need: int) -> np.ndarray:
    """Q[m, s], m = 0..max_need: the last-turn player's value (a win 1, a tie 1/2) still needing to
    gain more than m units to win, exactly m to tie (``last_round = others_one_turn_ties_shared``).

    ``Q(m < 0) = 1``; ``Q(0, s) = max(1/2, roll)``; ``Q(m > 0, s) = roll``; roll = ``sum_r P(r)
    max_keep Q(m - pts, s')``, farkle 0.  No bank minimum here (:func:`last_turn_values`)."""
    fl = flatten(transitions(rules))
    off = fl.max_pts
    Q = np.ones((max_need + 1 + off, fl.n_states))
    for m in range(0, max_need + 1):
        vals = Q[off + m - fl.opt_pts, fl.opt_state]
        gmax = np.maximum.reduceat(vals, fl.group_opt[:-1], axis=-1)
        row = class_sum(gmax * fl.group_prob, fl.state_group)
        Q[off + m] = np.maximum(row, 0.5) if m == 0 else row
    return Q[off:].copy()


def last_turn_values(rules: RuleSet, max_d: int, keep: str = "optimal") -> np.ndarray:
    """v[d], d = 0..max_d: what the last turn is worth to the player who takes it ``d`` units behind
    the leader (who banked at or above the goal); the leader gets ``1 - v[d]``.

    Must exceed: the chance to end the turn more than d ahead, ``E(max(d + 1, bm), six dice)`` with
    bm the bank minimum (a bank needs bm units; without one, bm = 1 and this is today's ``E(d + 1)``).
    Ties shared: ``Q(d, six dice)`` (:func:`tie_table`) where d >= bm (a tie is banked at exactly d);
    below bm no tie can be banked, so it is the must-exceed value.  first_to_goal_wins: 0."""
    if rules.last_round == "first_to_goal_wins":
        return np.zeros(max_d + 1)
    bm = bank_minimum_units(rules)
    E = exceed_table(rules, max_d + 1 + bm, keep=keep)
    d = np.arange(max_d + 1)
    out = E[np.maximum(d + 1, bm), 0].copy()
    if rules.last_round == "others_one_turn_ties_shared" and keep == "optimal":
        Q = tie_table(rules, max_d)[:, 0]
        out = np.where(d >= bm, Q, out)
    return out


# --------------------------------------------------------------------------- kernel
def _kernels():
    """The numba kernels (imported here so importing this module stays light; why numba
    and not numpy: the measurement is in docs/ten_thousand.md)."""
    from . import kernels as k

    return k.eval_turn, k.solve_sum, k.eval_h, k.eval_o, k.heuristic_sum, k.collect_rows, k.place_rows


_KERNELS = None
#: solve_pair's error codes
PAIR_ERRORS = {
    1: "P_exceed table too short for the turn-total bound",
    2: "turn-total bound above kcap",
    3: "policy iteration did not settle",
    4: "turn-total bound still fails after 40 retries",
}


def kernels():
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _kernels()
    return _KERNELS


@dataclass
class TwoPlayer:
    rules: RuleSet
    goal: int  # units
    W: np.ndarray  # (G, G) turn-start win probability of the player to move
    i: np.ndarray  # state keys, one row per stored state, by (i, j, k, dice, triple)
    j: np.ndarray
    k: np.ndarray
    s: np.ndarray
    p_win: np.ndarray
    roll: np.ndarray
    kmax: np.ndarray  # (G, G) stored turn-total bound per pair (units)
    exceed: np.ndarray  # (M + 1, S) E(m, s)
    heur_h: np.ndarray | None = None  # (G, G) P(H wins), H to move with (H: i, O: j)
    heur_o: np.ndarray | None = None  # (G, G) P(H wins), O to move with (O: i, H: j)
    stats: dict = field(default_factory=dict)


def solve(rules: RuleSet, goal_units: int, tol: float = 1e-13, progress=None,
          keep_tables: bool = True, heuristic: bool = True, rows: str = "roll",
          bound_scale: float = 0.25) -> TwoPlayer:
    """Solve the two-player game to ``goal_units``; see the module docstring.

    ``rows="roll"`` keeps the roll-optimal states (what the database stores; a turn
    total of 0 only with six dice), ``rows="all"`` every solved state (tests).
    """
    from numba import get_num_threads

    from dicebase.rules.ten_thousand import two_player_refusal

    why = two_player_refusal(rules)
    if why:
        raise ValueError(f"{rules.name}: {why}")
    if rules.farkle_penalty:
        raise ValueError(f"{rules.name}: a consecutive-farkle penalty is solved by solve_penalty")
    _, solve_sum, _, _, heuristic_sum, collect_rows, place_rows = kernels()
    threads = get_num_threads()  # dicebase build --threads sets it (numba.set_num_threads)
    fl = flatten(transitions(rules, prune=False))
    G = goal_units
    om = -(-rules.opening_minimum // rules.unit)
    pf_min = float(fl.p_farkle.min())
    kcap = 2 * G + 800
    max_need = 3 * G + 1000 + fl.max_pts
    if heuristic:
        from .heuristic import roll_table  # heuristic imports solitaire only: no cycle

        hroll, kh = roll_table(rules)
        # the seed-004 player banks up to kh plus one roll past the goal: every deficit it can leave
        # must be in P_exceed (a rule set whose rule rolls on to large totals, e.g. a triple kept past
        # hot dice with a small goal); the presets' tables are long enough already
        max_need = max(max_need, G + kh + fl.max_pts + 1)
    E = exceed_table(rules, max_need)
    # pexd[d]: the last turn's worth to the player d units behind; E(d + 1, six dice) under the default
    # rules (issue 24: a bank minimum, ties shared; 0 when banking at the goal wins at once)
    pexd = last_turn_values(rules, max_need - 1)
    first_wins = rules.last_round == "first_to_goal_wins"
    bm = bank_minimum_units(rules)
    W = np.full((G, G), np.nan)
    S = fl.n_states
    t0 = time.perf_counter()
    stats = np.zeros(3)
    out_val = np.empty((G, kcap + 1, S))
    out_roll = np.empty((G, kcap + 1, S), dtype=bool)
    out_kmax = np.zeros(G, dtype=np.int64)
    kmax = np.zeros((G, G), dtype=np.int64)
    count = np.zeros((G, G), dtype=np.int64)  # stored rows per pair
    chunks = {}  # score sum -> its rows (collect_rows), pairs by i
    # rows by (score, opponent, turn total, dice, triple): the database's key order
    states = turn_states(rules)
    order = np.array(sorted(range(S), key=lambda s: states[s]), dtype=np.int64)
    sums = range(2 * G - 2, -1, -1)
    if heuristic:
        hfl = max_dice_flat(rules)
        pexh = last_turn_values(rules, max_need - 1, keep="max_dice")
        Hh = np.full((G, G), np.nan)
        Ho = np.full((G, G), np.nan)
    t_heur = 0.0

    def run(bar):
        nonlocal t_heur
        for ssum in bar:
            error = solve_sum(ssum, G, om, bm, W, pexd, pf_min, fl.state_group, fl.group_prob,
                              fl.group_opt, fl.opt_pts, fl.opt_state, fl.p_farkle, kcap, tol,
                              out_val, out_roll, out_kmax, stats, bound_scale, threads)
            if error:
                raise ValueError(f"two-player solve, score sum {ssum}: {PAIR_ERRORS[error]}")
            if heuristic:
                th = time.perf_counter()
                heuristic_sum(ssum, G, om, bm, kh, hroll, Hh, Ho, pexd, pexh, hfl.state_group,
                              hfl.group_prob, hfl.group_opt, hfl.opt_pts, hfl.opt_state,
                              hfl.p_farkle, fl.state_group, fl.group_prob, fl.group_opt,
                              fl.opt_pts, fl.opt_state, fl.p_farkle, out_val, out_roll,
                              out_kmax, kcap, threads)
                t_heur += time.perf_counter() - th
            ii = np.arange(max(0, ssum - G + 1), min(ssum, G - 1) + 1)
            kmax[ii, ssum - ii] = out_kmax[: ii.size]
            if keep_tables:
                chunks[ssum] = collect_rows(ssum, G, out_val, out_roll, out_kmax, rows == "all", order)
                count[ii, ssum - ii] = chunks[ssum][0]

    run(sums if progress is None else progress(sums, "two-player solve (score sums)", length=len(sums)))
    seconds = time.perf_counter() - t0
    if keep_tables:
        # key order: pair (i, j) starts after every pair before it; each sum's rows placed in bulk
        dest = np.zeros(G * G + 1, dtype=np.int64)
        np.cumsum(count.ravel(), out=dest[1:])
        n = int(dest[-1])
        dest = dest[:-1].reshape(G, G)
        I = np.empty(n, dtype=np.int16)
        J = np.empty(n, dtype=np.int16)
        K = np.empty(n, dtype=np.int16)
        Sx = np.empty(n, dtype=np.int8)
        P = np.empty(n)
        R = np.empty(n, dtype=bool)
        for ssum in sums:
            place_rows(ssum, G, *chunks.pop(ssum), dest, I, J, K, Sx, P, R)
    else:
        I = J = K = Sx = P = R = np.empty(0)
    return TwoPlayer(
        rules, G, W, I, J, K, Sx, P, R, kmax, E,
        Hh if heuristic else None, Ho if heuristic else None,
        dict(seconds=seconds, heuristic_seconds=t_heur, evaluations=int(stats[0]),
             max_policy_slack=float(stats[1]), bound_retries=int(stats[2]), pf_min=pf_min,
             tol=tol, kcap=kcap, exceed_rows=max_need, threads=threads),
    )



# --------------------------------------------------------------------------- issue 24: the farkle penalty
@dataclass
class PenaltyGame:
    """The two-player game with a consecutive-farkle penalty (:func:`solve_penalty`)."""

    rules: RuleSet
    goal: int  # units
    lowest: int  # units (<= 0): the lowest banked score, the model's bound
    counts: int  # m = farkle_penalty_after: counts 0..m-1 in the state
    W: np.ndarray  # (G - L, G - L, m, m) turn-start win chance of the player to move, W[i - L, j - L, ci, cj]
    rows: dict | None  # every solved state (keep_rows=True): i, j, ci, cj, k, s, p_win, roll
    stats: dict = field(default_factory=dict)

    def start(self, i: int = 0, j: int = 0, ci: int = 0, cj: int = 0) -> float:
        """W at banked scores i, j (units) and farkle counts ci, cj."""
        return float(self.W[i - self.lowest, j - self.lowest, ci, cj])


def penalty_kmax_cap(G: int, L: int) -> int:
    return 2 * (G - L) + 800


def solve_penalty(rules: RuleSet, goal_units: int, lowest_units: int | None = None, tol: float = 1e-13,
                  max_sweeps: int = 10_000, keep_rows: bool = False, progress=None) -> PenaltyGame:
    """The two-player game with a consecutive-farkle penalty, maximising the win probability
    (docs/farkle.md, "The two-player game with a penalty").

    State: banked scores i, j in [L, G) (L = ``lowest_units``, default ``rules.lowest_score``), farkle
    counts ci, cj in 0..m-1 of the player to move and the other, turn total k, class s.  A bank of
    k >= bm (the bank minimum) moves to (j, i + k, cj, 0) or ends the game at the goal; a farkle at
    count ci < m - 1 moves to (j, i, cj, ci + 1); at ci = m - 1 it costs the penalty P and moves to
    (j, max(i - P, L), cj, 0) (``after_penalty``) or (..., cj, m - 1) (``after_bank``).

    Without the penalty every move at one score sum raises the count sum, so a sweep over score
    sums descending and count sums descending solves every turn once, each with its farkle value
    known; only the penalty reaches back to a lower score sum.  The outer loop is a fixed-point
    iteration on those values: each sweep reads them from the sweep before (``pen_sum``) and the
    loop stops when a sweep changes no turn-start value by more than ``tol``.  Past ``kmax`` a turn
    banks: a roll is worth at most ``1 - pf(s) (1 - F)``, banking ``1 - v[d]`` (last turn) or 1 at the
    goal (first_to_goal_wins), so banking is optimal once ``v[d] <= pf_min (1 - F)``.
    """
    from numba import get_num_threads

    from . import kernels as kn

    if not rules.farkle_penalty:
        raise ValueError(f"{rules.name}: solve_penalty needs a farkle_penalty")
    from dicebase.rules.ten_thousand import two_player_refusal

    why = two_player_refusal(rules)
    if why:
        raise ValueError(f"{rules.name}: {why}")
    threads = get_num_threads()
    fl = flatten(transitions(rules, prune=False))
    G = goal_units
    L = rules.lowest_score // rules.unit if lowest_units is None else lowest_units
    if L > 0:
        raise ValueError("lowest score must be <= 0")
    nS = G - L
    m = rules.farkle_penalty_after
    P = -(-rules.farkle_penalty // rules.unit)
    bm = bank_minimum_units(rules)
    first_wins = rules.last_round == "first_to_goal_wins"
    kcap = penalty_kmax_cap(G, L)
    lastv = last_turn_values(rules, nS + kcap + fl.max_pts + 2)
    pf_min = float(fl.p_farkle.min())
    S = fl.n_states
    W = np.full((nS, nS, m, m), 0.5)
    sums = range(2 * nS - 2, -1, -1)
    stats = np.zeros(2, dtype=np.int64)
    history = []
    t0 = time.perf_counter()
    empty_v = np.empty((1, 1, 1, 1, 1))
    empty_r = np.empty((1, 1, 1, 1, 1), dtype=bool)
    empty_k = np.empty((1, 1, 1), dtype=np.int64)
    rows = None
    sweep = 0
    final = False
    while True:
        sweep += 1
        Wprev = W.copy()
        stats[:] = 0
        chunks = []
        for ssum in sums:
            if final:
                a0 = max(0, ssum - nS + 1)
                npair = min(ssum, nS - 1) - a0 + 1
                ov = np.zeros((npair, m, m, kcap + 1, S))
                orr = np.zeros((npair, m, m, kcap + 1, S), dtype=bool)
                ok = np.full((npair, m, m), -1, dtype=np.int64)
            else:
                ov, orr, ok = empty_v, empty_r, empty_k
            err = kn.pen_sum(ssum, nS, m, G, L, P, rules.farkle_count_reset == "after_penalty", bm, first_wins,
                             W, Wprev, lastv, pf_min, fl.state_group, fl.group_prob, fl.group_opt, fl.opt_pts,
                             fl.opt_state, fl.p_farkle, kcap, threads, final, ov, orr, ok, stats)
            if err:
                raise ValueError(f"two-player solve with a penalty, score sum {ssum}: "
                                 + ("last-turn table too short" if err == 1 else "turn-total bound above kcap"))
            if final:
                chunks.append(_penalty_rows(ssum, nS, L, a0, ov, orr, ok))
        delta = float(np.abs(W - Wprev).max())
        history.append(delta)
        if progress is not None:  # (sweep, largest change, the first player's start value so far)
            progress(sweep, delta, float(W[-L, -L, 0, 0]))
        if final:
            break
        if delta <= tol:
            if not keep_rows:
                break
            final = True  # one more sweep writes every state's row (it changes W by at most about tol)
        elif sweep >= max_sweeps:
            raise ValueError(f"two-player solve with a penalty: no convergence after {sweep} sweeps "
                             f"(last change {delta:.3g})")
    if keep_rows:
        rows = {key: np.concatenate([c[key] for c in chunks]) for key in chunks[0]}
    ratios = [b / a for a, b in zip(history[:-1], history[1:]) if a > 0]
    rho = max(ratios[-5:]) if ratios else 0.0
    return PenaltyGame(rules, G, L, m, W, rows, dict(
        seconds=time.perf_counter() - t0, sweeps=sweep, last_change=history[-1], tol=tol,
        contraction=rho, error_bound=(history[-1] * rho / (1 - rho)) if rho < 1 else float("inf"),
        turns=int(stats[0]), states=int(stats[1]), threads=threads, pf_min=pf_min, kcap=kcap,
        bank_minimum_units=bm, penalty_units=P, history=history, last_turn_leads=len(lastv) - 1))


def _penalty_rows(ssum, nS, L, a0, ov, orr, ok) -> dict:
    """One score sum's solved states as flat columns (vectorised)."""
    npair, m, _, K, S = ov.shape
    p, ci, cj, k, s = np.meshgrid(np.arange(npair), np.arange(m), np.arange(m), np.arange(K), np.arange(S),
                                  indexing="ij")
    sel = k <= ok[:, :, :, None, None]
    a = a0 + p[sel]
    return dict(i=a + L, j=ssum - a + L, ci=ci[sel], cj=cj[sel], k=k[sel], s=s[sel], p_win=ov[sel], roll=orr[sel])


def penalty_bound_effects(rules: RuleSet, goal_units: int, lows: list[int], tol: float = 1e-13) -> list[dict]:
    """What lowering the bound on banked scores does (docs/farkle.md, "The bound"): :func:`solve_penalty` at each
    bound of ``lows`` (units, descending), and for each pair of neighbours the largest change of a turn-start value
    W(i, j, ci, cj) with both scores >= ``floor`` (every farkle count), for floor = 0 (``moved``) and floor = minus
    one penalty (``moved_penalty_below``: the values a turn at scores >= 0 reads after its penalty), and anywhere
    (``moved_anywhere``: the floor's own artefact), with both solves' error estimates (``error_bounds``,
    ``solve_penalty``'s ``error_bound``: sweeps stop at a change <= ``tol``).  Each row also has the first
    player's chance at the lower bound (``p1_win``)."""
    P = -(-rules.farkle_penalty // rules.unit)
    solved = [solve_penalty(rules, goal_units, low, tol=tol) for low in lows]
    out = []
    for a, b in zip(solved, solved[1:]):
        shift = a.lowest - b.lowest
        if shift <= 0:
            raise ValueError("penalty_bound_effects: the bounds must descend")
        diff = np.abs(b.W[shift:, shift:] - a.W)

        def moved(floor: int) -> float:
            at = max(floor - a.lowest, 0)
            return float(diff[at:, at:].max())

        out.append(dict(lowest=a.lowest, lower=b.lowest, moved=moved(0), moved_penalty_below=moved(-P),
                        moved_anywhere=float(diff.max()), error_bounds=(a.stats["error_bound"], b.stats["error_bound"]),
                        tol=tol, sweeps=(a.stats["sweeps"], b.stats["sweeps"]), states=b.stats["states"],
                        p1_win=b.start(0, rules.compensation // rules.unit)))
    return out


def penalty_state_count(rules: RuleSet, goal_units: int, lowest_units: int | None = None) -> int | None:
    """States :func:`solve_penalty` solves under first_to_goal_wins (scores in [L, G) both, counts 0..m-1
    both, turn totals k <= max(G - i - 1, bm - 1), every class), without solving; None for a last round
    (there the bound on turn totals depends on the solved values)."""
    if rules.last_round != "first_to_goal_wins":
        return None
    G = goal_units
    L = rules.lowest_score // rules.unit if lowest_units is None else lowest_units
    i = np.arange(L, G)
    kmax = np.maximum(G - i - 1, bank_minimum_units(rules) - 1)
    return int((kmax + 1).sum()) * (G - L) * rules.farkle_penalty_after ** 2 * len(turn_states(rules))
