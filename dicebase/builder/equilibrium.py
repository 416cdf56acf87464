"""The per-tuple equilibrium of an N-player dice game solved by score-sum levels: the machinery
the N-player solvers of Great Rolled Ones (:mod:`.rolled_ones.nplayer`) and 10,000
(:mod:`.ten_thousand.nplayer`) share.  Nothing here knows a game's rules: a game supplies its
turn (one seat's best response, affine in what a bust leaves it) and this module solves the cycle
of turn starts, finds a policy cycle's equilibrium and records it (docs/n_players.md,
``../shared/N-PLAYERS.md``).

Score tuples.  ``N`` seats with scores ``s = (s_0, .., s_{N-1})``, each ``0 <= s_m < G`` (``G``
the goal in the game's units), are the index ``sum_m s_m stride_m`` with
``stride_m = G^(N-1-m)`` (seat 1 the most significant digit; :func:`tuple_strides`).  A bank (a
hold) raises the score sum; a bust keeps the tuple and passes the turn.  So the tuples of one
score-sum level depend only on higher levels, and levels are solved from ``N (G - 1)`` down to 0
(:func:`score_sum_levels`).

The bust cycle.  Within a tuple, seat ``m``'s turn start under a fixed policy is affine in the
next seat's turn start (what a bust leaves)::

    T_m = A_m + c_m T_{m+1}                 (T_N = T_0; A_m a win vector, c_m the bust chance)
    T_0 = (sum_i (prod_{l<i} c_l) A_i) / (1 - prod_l c_l),   then T_{N-1} .. T_1

(:func:`cycle_values`, the kernel :func:`dicebase.numeric.cycle.solve_cycle`).  Seat ``m``'s
greedy policy depends on one number, its own entry of what a bust leaves it:
``beta_m = T_{m+1}[m]``.  Policy iteration (in each game's kernel): every seat's best response
at the current ``beta`` (with the interval of ``beta`` that keeps it), the exact cycle solve, new
``beta``; it stops, exactly, when every new ``beta`` keeps its policy.  It starts from
:func:`.equilibrium_kernels.initial_beta` (higher levels only: the start does not depend on
chunking).

Policy cycles.  With three or more players best responses can cycle: a profile of policies
seen before stops the kernel, and :func:`resolve_cycle` searches, in a fixed order,

1. the cycle: rerun the best responses from the same start until a profile repeats; each
   seat's candidate policies are those over the range of its ``beta`` in the cycle (a seat's
   ``beta`` may jump over a policy: those in between are candidates too);
2. a **pure** equilibrium: every combination of the candidates (seat order, then order seen),
   the first where each seat's policy is a best response to the values it yields, within
   :data:`EQUILIBRIUM_TOLERANCE`, and is the policy its greedy turn plays at those values (the
   lookups and bots replay the stored values with the greedy turn: a policy short of the best by
   less than the tolerance is still another turn for the other seats, 1.4e-6 at 10,000's
   4-player (4, 7, 4, 8) at goal 500);
3. a **mixed stationary** equilibrium: sets ``S`` of the seats with more than one candidate,
   smallest first (then seat order); each seat of ``S`` plays ``(1 - q_m) P0 + q_m P1`` for two
   candidates adjacent in ``beta`` order, the others one candidate each.  ``P0``, ``P1`` are
   equally good to seat ``m`` at its indifference point
   ``b*_m = (A1[m] - A0[m]) / (c0 - c1)``, so the ``q`` solve ``beta_m(q) = b*_m`` for ``m`` in
   ``S`` (:func:`mixed_candidate`: Newton with a forward-difference Jacobian; a seat's own ``q``
   drops out of its own condition, so for ``|S| <= 2`` each equation is affine in the others'
   ``q``).  Accepted when every ``q`` is in [0, 1], every seat's value is its best-response
   value within :data:`EQUILIBRIUM_TOLERANCE` and every seat outside ``S`` plays its greedy turn.
   The games store ``q`` per decision where ``P0`` and ``P1`` differ; that is the lottery between
   them only where no such decision can follow another in a turn (Kuhn; Pig re-solves its tuples
   where one can, :func:`dicebase.builder.pig.solver.one_decision`): the tests replay every
   stored mixed tuple (docs/n_players.md).

Each resolved tuple gives a record (:func:`cycle_record`).
"""

from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

#: Policy-iteration rounds per tuple before it is handed to the cycle resolution.
MAX_ITERATIONS = 64
#: A stored mixed equilibrium must make its randomising seats indifferent within this.
EQUILIBRIUM_TOLERANCE = 1e-12


# --------------------------------------------------------------------------- score tuples
def tuple_strides(G: int, N: int) -> np.ndarray:
    """``stride[m] = G ** (N - 1 - m)``: a score tuple's index is ``sum_m s[m] * stride[m]``."""
    return np.array([G ** (N - 1 - m) for m in range(N)], dtype=np.int64)


def tuple_scores(idx: int, G: int, strides) -> tuple[int, ...]:
    """The scores (seat 1 first) of the tuple with index ``idx``."""
    return tuple(int(idx // st) % G for st in strides)


def score_sum_levels(G: int, N: int, idx: np.ndarray | None = None) -> list[np.ndarray]:
    """The tuple indices ``idx`` (default every tuple, ``0 .. G^N - 1``, in increasing order) by
    score-sum level, from the highest sum ``N (G - 1)`` down to 0 (each level in index order)."""
    if idx is None:
        idx = np.arange(G**N, dtype=np.int64)
    total = np.zeros(len(idx), dtype=np.int64)
    for st in tuple_strides(G, N):
        total += (idx // st) % G
    order = np.argsort(-total, kind="stable")
    bounds = np.searchsorted(-total[order], np.arange(-N * (G - 1), 1), side="left")
    bounds = np.append(bounds, len(idx))
    return [idx[order[bounds[i]: bounds[i + 1]]] for i in range(len(bounds) - 1)]


# --------------------------------------------------------------------------- the bust cycle
def cycle_values(N: int, SA: np.ndarray, Sc: np.ndarray) -> np.ndarray:
    """``T[m, :]``, every seat's turn start of a tuple whose seats play turns ``SA[m] + Sc[m] * T[m + 1]``."""
    from dicebase.builder import equilibrium_kernels as kern

    T = np.zeros((N, N))
    kern.solve_cycle(N, np.ascontiguousarray(SA), np.ascontiguousarray(Sc), T)
    return T


def cycle_record(idx, scores, kind, randomising, worst, cycle_length) -> dict:
    """What a solve reports of a tuple its policy iteration could not settle: ``kind`` "pure",
    "mixed" or "cycle-start", the randomising seats (each game says how it writes their decisions),
    the indifference residual and the length of the policy cycle (1: a fixed point after all)."""
    return {
        "index": int(idx),
        "scores": [int(s) for s in scores],
        "kind": kind,
        "randomising": randomising,  # (seat (0-based), the game's description of its mixed decisions)
        "residual": float(max(worst, 0.0)),
        "cycle_length": int(cycle_length),
    }


# --------------------------------------------------------------------------- policy cycles
#: ``turn(m, beta) -> (A, c, decisions, interval)``: seat ``m``'s best response when a bust leaves
#: it ``beta``: its turn start ``A + c * T_{m+1}``, its decisions (any object the game's
#: ``describe_mixing`` reads) and the interval ``(lo, hi]`` of ``beta`` that keeps them.
Turn = Callable[[int, float], tuple]


def resolve_unconverged(status: np.ndarray, values: np.ndarray, resolve: Callable[[int], tuple]) -> list[dict]:
    """The tuples of a chunk whose policy iteration stopped without converging (``status`` not
    ``CONVERGED``), each resolved by ``resolve(t) -> (record, values)`` (the game's :func:`resolve_cycle`):
    ``values[t]`` becomes the resolved values and ``status[t]`` 1; returns the records in tuple order."""
    from dicebase.builder.equilibrium_kernels import CONVERGED

    records = []
    for t in np.flatnonzero(status != CONVERGED):
        record, values[t] = resolve(int(t))
        records.append(record)
        status[t] = 1
    return records


def resolve_cycle(turn: Turn, start: np.ndarray, idx: int, G: int, strides: np.ndarray, *,
                  max_iterations: int, selection: str, describe_mixing: Callable,
                  fixed_point_unchecked: bool = False, distinct_sweep: bool = False,
                  all_equilibria: bool = False):
    """An equilibrium of the tuple ``idx`` whose policy iteration cycled (or did not settle); the
    search of the module docstring.  ``start``: the turn starts of higher levels (policy iteration
    starts where the kernel's did, :func:`.equilibrium_kernels.initial_beta`).

    ``selection``: "mixed" (an equilibrium) or "cycle-start" (the values of the first profile of
    the cycle: not an equilibrium, for comparisons).  ``describe_mixing(m, dec0, dec1, q)``: seat
    ``m``'s entry of the record's ``randomising`` when it plays the decisions ``dec1`` with
    probability ``q`` and ``dec0`` otherwise.  The two solvers differ in two details, kept as they
    were: ``fixed_point_unchecked`` (10,000) records a cycle of length 1 (the kernel stopped on an
    interval edge: a fixed point after all) as a pure equilibrium with residual 0 without the
    best-response check; ``distinct_sweep`` (10,000) lists each policy met while sweeping a seat's
    ``beta`` once (at most 1,000 steps) where Great Rolled Ones lists every step's.

    Returns ``(record, values[m, :])`` of the first found; with ``all_equilibria`` the list of
    every equilibrium the search finds (a diagnostic: how much the selection matters).  Raises
    RuntimeError when nothing is found (never seen).
    """
    from dicebase.builder import equilibrium_kernels as kern

    N = len(strides)
    scores = tuple_scores(idx, G, strides)
    beta = np.empty(N)
    kern.initial_beta(idx, N, G, strides, start, beta)  # the same start as the kernel
    policies: list[list] = [[] for _ in range(N)]  # per seat: (A, c, decisions)

    def policy_id(m, A, c, dec):
        for i, (A2, c2, _) in enumerate(policies[m]):
            if c2 == c and np.array_equal(A2, A):
                return i
        policies[m].append((A, c, dec))
        return len(policies[m]) - 1

    def profile(prof):
        SA = np.array([policies[m][prof[m]][0] for m in range(N)])
        Sc = np.array([policies[m][prof[m]][1] for m in range(N)])
        return SA, Sc

    # 1. the cycle
    history: list[tuple] = []
    betas: list[np.ndarray] = []
    for _ in range(4 * max_iterations):
        prof = tuple(policy_id(m, *turn(m, beta[m])[:3]) for m in range(N))
        if prof in history:
            first = history.index(prof)
            cycle, cycle_betas = history[first:], betas[first:]
            break
        history.append(prof)
        betas.append(beta)
        T = cycle_values(N, *profile(prof))
        beta = np.array([T[(m + 1) % N, m] for m in range(N)])
    else:  # pragma: no cover
        raise RuntimeError(f"tuple {scores}: best responses neither settle nor cycle")
    if fixed_point_unchecked and len(cycle) == 1:
        return cycle_record(idx, scores, "pure", [], 0.0, 1), cycle_values(N, *profile(cycle[0]))
    if selection == "cycle-start":
        return (cycle_record(idx, scores, "cycle-start", [], float("nan"), len(cycle)),
                cycle_values(N, *profile(cycle[0])))
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
        for _ in (range(1000) if distinct_sweep else itertools.count()):
            A, c, dec, ivl = turn(m, b)
            i = policy_id(m, A, c, dec)
            if not distinct_sweep or i not in ids:
                ids.append(i)
            if not ivl[1] < hi_b:
                break
            b = float(ivl[1]) + 1e-13 * max(1.0, abs(float(ivl[1])))
        seen.append(ids)

    def best_response(m, b):
        """Seat ``m``'s greedy turn at ``b`` (what the lookups and bots play): its value and policy."""
        A, c, dec, _ = turn(m, b)
        return A[m] + c * b, policy_id(m, A, c, dec)

    def check(SA, Sc, prof):
        """``(T, beta, worst)``: every seat's shortfall from its best response; infinite where a seat
        that plays one policy (``prof[m]`` not None) plays another than its greedy turn (replayed
        from the stored values, it would then be another strategy: a shortfall within the
        tolerance is still a different turn for the other seats)."""
        T = cycle_values(N, SA, Sc)
        b = np.array([T[(m + 1) % N, m] for m in range(N)])
        gaps = []
        for m in range(N):
            value, greedy = best_response(m, b[m])
            gaps.append(np.inf if prof[m] is not None and greedy != prof[m] else value - (SA[m, m] + Sc[m] * b[m]))
        return T, b, max(gaps)

    found = []
    # 2. pure
    for combo in itertools.product(*seen):
        T, b, worst = check(*profile(combo), combo)
        if worst <= EQUILIBRIUM_TOLERANCE:
            found.append((cycle_record(idx, scores, "pure", [], worst, len(cycle)), T))
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
                    cand = mixed_candidate(N, policies, S, pair_combo, fixed,
                                           lambda SA, Sc, fixed=fixed: check(SA, Sc, fixed))
                    if cand is None:
                        continue
                    T, qs, worst = cand
                    randomising = [describe_mixing(m, policies[m][i0][2], policies[m][i1][2], q)
                                   for m, (i0, i1), q in zip(S, pair_combo, qs)]
                    found.append((cycle_record(idx, scores, "mixed", randomising, worst, len(cycle)), T))
                    if not all_equilibria:
                        return found[0]
    if all_equilibria:
        return found
    raise RuntimeError(f"tuple {scores}: no equilibrium found among the policies of its cycle")  # pragma: no cover


def mixed_candidate(N, policies, S, pair_combo, fixed, check):
    """Solve the roll probabilities of the seats in ``S`` so that each is indifferent; None if none.

    ``policies[m]``: seat ``m``'s policies ``(A, c, decisions)``; ``pair_combo``: for each seat of
    ``S`` the two it mixes, ``(i0, i1)`` (``q`` the weight of ``i1``); ``fixed[m]``: the policy of a
    seat not in ``S`` (None for those in ``S``); ``check(SA, Sc) -> (T, beta, worst)`` the
    best-response check.  Returns ``(T, q, worst)``."""
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
        T = cycle_values(N, SA, Sc)
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


__all__ = [
    "MAX_ITERATIONS", "EQUILIBRIUM_TOLERANCE", "tuple_strides", "tuple_scores", "score_sum_levels",
    "cycle_values", "cycle_record", "resolve_cycle", "mixed_candidate",
]
