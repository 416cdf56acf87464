"""The final round of N-player 10,000 (:mod:`.nplayer` documents the equations): ``Phi_r``, the win
vector when ``r`` seats still take a final turn, by their deficits to the bar; solved for
``r = 2 .. N - 1`` (:func:`solve_finals`; ``Phi_1`` is ``P_exceed``) and read back (:func:`final_start`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .nplayer_spec import Spec, moves


@dataclass
class Finals:
    """The final round: ``phi`` (flat, ``Phi_r`` at ``offsets[r]``, r >= 2; see
    :mod:`.nplayer_kernels`), ``fa[r]``/``fc[r]``/``froll[r]`` (seat p1 above the bar), ``D``/``M`` the
    extents, ``pexc`` (``P_exceed``)."""

    phi: np.ndarray
    offsets: np.ndarray
    D: list
    M: list
    fa: list
    fc: list
    froll: list
    pexc: np.ndarray
    df: int

    @property
    def nbytes(self) -> int:
        return int(self.phi.nbytes + sum(a.nbytes for a in self.fa + self.fc + self.froll if a is not None)
                   + self.pexc.nbytes)


def solve_finals(spec: Spec, workers: int | None = None) -> Finals:
    """``Phi_r`` for r = 2 .. N - 1 (each reads ``Phi_{r-1}``; ``Phi_1`` is ``P_exceed``)."""
    from numba import get_num_threads

    from . import nplayer_kernels as kern

    N, G = spec.players, spec.G
    workers = workers or get_num_threads()
    mv = moves(spec.rules)
    z = spec.sizes()
    D, M, pexc = z["D"], z["M"], z["pexc"]
    B = 2 * G - 1
    offsets = np.zeros(N + 1, dtype=np.int64)
    total = 0
    for r in range(2, N):
        offsets[r] = total
        total += (D[r] + 1) * B ** (r - 1) * (r + 1)
    phi = np.zeros(max(total, 1))
    fa, fc, froll = [None] * N, [None] * N, [None] * N
    S = len(mv.states)
    for r in range(2, N):
        rows = (M[r] + 1) * B ** (r - 2)
        fa[r] = np.zeros((rows, S, r))
        fc[r] = np.zeros((rows, S))
        froll[r] = np.zeros((rows, S), dtype=bool)
        kern.final_free(r, G, M[r], spec.tie_tolerance, spec.final_scale, spec.pf_min, pexc, mv.sg, mv.gp, mv.go,
                        mv.op, mv.ost, mv.pf, phi, offsets, fa[r], fc[r], froll[r], mv.max_pts, workers)
        kern.final_phi(r, G, D[r], M[r], spec.tie_tolerance, pexc, mv.sg, mv.gp, mv.go, mv.op, mv.ost, mv.pf,
                       phi, offsets, fa[r], fc[r], mv.max_pts, workers)
    return Finals(phi, offsets, D, M, fa, fc, froll, pexc, z["df"])


def final_start(spec: Spec, finals: Finals, X: int, later) -> np.ndarray:
    """``Phi_r`` at bar ``X`` (units, ``>= G``) for the seats ``later`` (scores in play order, all below
    the goal) still to take a final turn: the win vector over ``[leader, later...]``."""
    later = [int(u) for u in later]
    r = len(later)
    deltas = np.array([X - u for u in later], dtype=np.int64)
    if r == 0:
        return np.ones(1)
    if deltas.min() < 1 or (r >= 2 and deltas.max() > finals.D[r]) or deltas.max() >= len(finals.pexc):
        raise ValueError(f"bar {X} with scores {later} is outside the final-round tables")
    if r == 1:
        p = finals.pexc[deltas[0]]
        return np.array([1.0 - p, p])
    B = 2 * spec.G - 1
    ix = int(deltas[0])
    for j in range(1, r):
        ix = ix * B + int(deltas[j] - deltas[0] + spec.G - 1)
    base = int(finals.offsets[r]) + ix * (r + 1)
    return finals.phi[base: base + r + 1].copy()
