"""What an N-player Great Rolled Ones solve is given (:mod:`.nplayer`, which documents the game and
the equations): :class:`Spec` (the rules, the number of players, the caps) and the rule tables
derived from the rules, :func:`outcomes` (seed 002's ``P_new1s`` as arrays), :func:`first_passage`
(the final round's chance process below the bar) and :func:`reach_mask` (the reachable turns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicebase.builder.equilibrium import MAX_ITERATIONS, tuple_scores, tuple_strides
from dicebase.numeric.rolled_ones_turn import outcome_arrays
from dicebase.rules import rolled_ones_turn as turn
from dicebase.rules.rolled_ones import TIE_TOLERANCE, Rules, bar_ranges, score_cap


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
        return tuple_strides(self.rules.goal, self.players)

    def index(self, scores) -> int:
        """Tuple index of ``scores`` (seat 1 first), each ``0 <= score < goal``."""
        G = self.rules.goal
        if len(scores) != self.players or not all(0 <= s < G for s in scores):
            raise ValueError(f"need {self.players} scores in 0..{G - 1}, got {tuple(scores)}")
        return int(sum(int(s) * int(st) for s, st in zip(scores, self.strides())))

    def scores(self, idx: int) -> tuple[int, ...]:
        return tuple_scores(idx, self.rules.goal, self.strides())

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
    p_end, p, gain, o_next, n = outcome_arrays(rules)
    return Outcomes(p, gain, o_next, n, p_end)


def first_passage(rules: Rules, d_max: int) -> np.ndarray:
    """``Q[d, o, r - 1, o']``: :func:`dicebase.rules.rolled_ones_turn.first_passage` (the final round's chance
    process below the bar, defined once) as a numpy array."""
    Q = turn.first_passage(rules, d_max)
    return np.array(Q.flat()).reshape(Q.shape)


def reach_mask(rules: Rules) -> np.ndarray:
    """``reach[k, o]``: a turn can be at ``(k, o)``, ``k <= turn_total_bound``."""
    from dicebase.rules.rolled_ones import reachable_turns

    reach = np.zeros((rules.turn_total_bound + 1, rules.ones_limit), dtype=bool)
    for k, o in reachable_turns(rules):
        reach[k, o] = True
    return reach

