"""What an N-player 10,000 solve is given (:mod:`.nplayer`, which documents the game, the equations
and the caps): the rule tables (:func:`moves`, every roll group's keeps in tie-break order;
:func:`reach_mask`, the reachable turn states) and :class:`Spec` (the rules, the number of players,
the goal, the tolerances and the caps, with the table extents they imply, :meth:`Spec.sizes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dicebase.builder.equilibrium import MAX_ITERATIONS, tuple_scores, tuple_strides
from dicebase.rules.ten_thousand import (  # noqa: F401  (the tie-break is a rule: defined once, there)
    TIE_TOLERANCE, RuleSet, keep_priority, turn_states,
)

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
    group_class: np.ndarray


@lru_cache(maxsize=None)
def moves(rules: RuleSet) -> Moves:
    """:func:`~dicebase.numeric.ten_thousand_turn.transitions` (every keep: no pruning, as the two-player game) with each
    group's keeps reordered by :func:`keep_priority`."""
    from dicebase.numeric.ten_thousand_turn import flatten, transitions

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
                 ost.astype(np.int64), int(fl.max_pts), gc.astype(np.int64))


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
        return tuple_strides(self.G, self.players)

    def index(self, scores) -> int:
        """Tuple index of ``scores`` (units, seat 1 first), each ``0 <= score < G``."""
        G = self.G
        if len(scores) != self.players or not all(0 <= s < G for s in scores):
            raise ValueError(f"need {self.players} scores in 0..{G - 1} units, got {tuple(scores)}")
        return int(sum(int(s) * int(st) for s, st in zip(scores, self.strides())))

    def scores(self, idx: int) -> tuple[int, ...]:
        return tuple_scores(idx, self.G, self.strides())

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

