"""The final round of N-player Great Rolled Ones (:mod:`.nplayer` documents the equations):
``Phi_j(X; s_j..s_{N-1})``, the win vector when seat ``j`` starts its final turn with bar ``X``,
solved from the last seat back (:func:`solve_finals`) and read back (:func:`final_start`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicebase.builder.rolled_ones.nplayer_spec import Spec, first_passage, outcomes


@dataclass
class Finals:
    """The final round, compactly.  For seat ``j = 1 .. N-1`` (0-based):

    * ``phi[j]``: ``[X - G, r, role]``, ``Phi_j(X; s_j..s_{N-1})`` over roles ``[leader, j, .., N-1]``,
      ``r`` the index of ``(s_j, .., s_{N-1})`` (``s_j`` most significant), ``X = G .. bar_ranges[j]``;
    * ``fa[j]``, ``fc[j]``: ``[R, t - G - 1, o(, role)]`` seat ``j``'s values above the bar,
      ``FA + Fc * Phi_{j+1}(X)`` (roles ``[j, .., N-1]``), ``R`` the index of ``s_{j+1}..``;
    * ``froll[j]``: seat ``j``'s decision above the bar (True: roll);
    * ``q``: the first-passage table :func:`.nplayer_spec.first_passage`.

    ``phi`` is what the solve reads; ``fa``, ``fc``, ``froll`` and ``q`` are enough to rebuild
    any ``Phi`` (:func:`final_start`) and every final-turn state (:func:`.nplayer_lookups.final_turn_values`).
    """

    flat: np.ndarray
    offsets: np.ndarray
    rows: np.ndarray
    phi: list
    fa: list
    fc: list
    froll: list
    q: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.flat.nbytes + sum(a.nbytes for a in self.fa + self.fc + self.froll if a is not None)
                   + self.q.nbytes)


def solve_finals(spec: Spec, workers: int | None = None, hold_seat: int | None = None) -> Finals:
    """Every seat's final turn, from the last seat back to seat 2 (each reads the next's table).

    ``hold_seat`` (0-based): that seat does not best-respond on its final turn but holds as soon as it
    is above the bar (seed 002's human policies; :mod:`.nplayer_policies`)."""
    from numba import get_num_threads

    from dicebase.builder.rolled_ones import nplayer_kernels as kern

    r, N = spec.rules, spec.players
    G, D, L, C = r.goal, r.dice, r.ones_limit, spec.cap
    workers = workers or get_num_threads()
    ranges = spec.bar_ranges()
    out = outcomes(r)
    Q = first_passage(r, ranges[-1])
    Q0 = np.ascontiguousarray(Q[:, 0])
    rows = np.zeros(N + 1, dtype=np.int64)
    offsets = np.zeros(N + 1, dtype=np.int64)
    sizes = []
    total = 0
    for j in range(1, N):
        rows[j] = G ** (N - j)
        offsets[j] = total
        size = (ranges[j] - G + 1) * rows[j] * (N - j + 1)
        sizes.append(size)
        total += size
    flat = np.zeros(total)
    phi, fa, fc, froll = [None] * N, [None] * N, [None] * N, [None] * N
    for j in range(N - 1, 0, -1):
        nR = rows[j] // G
        tmax = ranges[j] + D
        TT = tmax - G
        fa[j] = np.zeros((nR, TT, L, N - j))
        fc[j] = np.zeros((nR, TT, L))
        froll[j] = np.zeros((nR, TT, L), dtype=bool)
        XR = ranges[j] - G + 1
        kern.final_tables(j, N, G, G + 1 if j == hold_seat else C, L, spec.tie_tolerance, tmax, XR, Q0, out.p,
                          out.gain, out.o_next, out.n, out.p_end, flat, offsets, rows, fa[j], fc[j], froll[j], False,
                          froll[j], workers)
    for j in range(1, N):
        phi[j] = flat[offsets[j]: offsets[j] + sizes[j - 1]].reshape(ranges[j] - G + 1, rows[j], N - j + 1)
    return Finals(flat, offsets, rows, phi, fa, fc, froll, Q)


def final_start(spec: Spec, finals: Finals, j: int, X: int, later: tuple[int, ...]) -> np.ndarray:
    """``Phi_j(X; later)`` for seat ``j`` (0-based, ``1 <= j < N``) starting its final turn with bar
    ``X >= G``; ``later`` = the scores of seats ``j .. N-1``.  Roles ``[leader, j, .., N-1]``.
    Read from the table (bars ``G .. bar_ranges[j]``; a bar beyond cannot occur under the caps)."""
    G = spec.rules.goal
    r = 0
    for s in later:
        r = r * G + int(s)
    if X - G < finals.phi[j].shape[0]:
        return finals.phi[j][X - G, r].copy()
    raise ValueError(f"bar {X} is beyond the stored final-round tables (score_cap {spec.cap})")

