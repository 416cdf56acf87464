"""Great Rolled Ones' N-player turn, defined once (issue 30): the builder's kernels, the lookups' mid-turn
and final-round answers and the bots all run these functions.

Written in the subset of Python that runs both in CPython and under ``numba.njit``: plain loops, element
indexing ``a[i, j]``, float arithmetic, ``math``; no numpy.  :mod:`dicebase.numeric.rolled_ones_turn` compiles
them (``njit(cache=True)``) for the builder and the bots, which pass numpy arrays; the lookups call them as
they are with :class:`Grid` tables (no numpy on a lookup).  Either way each value comes from the same
operations in the same order, so the solver's tables, the lookups and the bots agree to the bit.

Conventions (N seats, 0-based seat ``m``; :mod:`dicebase.builder.rolled_ones.nplayer` has the equations):

* roll outcomes with ``o`` 1s set aside: ``out_p[o, x]`` (probability), ``out_g[o, x]`` (points added),
  ``out_o[o, x]`` (1s set aside after) for ``x < out_n[o]``, in the order of ``Rules.outcomes``;
  ``p_end[o]`` the chance the roll ends the turn (:func:`outcome_grids`);
* ``hold[k, i]``: seat ``i``'s win probability when the mover holds at turn total ``k`` (``1 <= k <= K + D``);
  beyond the turn-total bound ``K`` the mover holds.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import product


class Grid(dict):
    """A table that CPython callers pass where the compiled callers pass a numpy array: ``g[i, j, ...]``
    reads and writes one element (a dict keyed by the index tuples, in C order: no Python-level call per
    element).  One-dimensional tables are plain lists."""

    __slots__ = ("shape",)

    def __init__(self, shape: tuple[int, ...], fill=0.0, data=None):
        keys = product(*(range(n) for n in shape))
        super().__init__(dict.fromkeys(keys, fill) if data is None else zip(keys, data))
        self.shape = tuple(shape)

    def row(self, *key) -> tuple:
        """The elements ``g[*key, :]`` as a tuple."""
        return tuple(self[(*key, i)] for i in range(self.shape[len(key)]))

    def flat(self) -> list:
        """Every element in C order (for ``numpy.array(g.flat()).reshape(g.shape)``)."""
        return list(self.values())


@lru_cache(maxsize=16)
def outcome_grids(rules) -> tuple:
    """``(p_end, out_p, out_g, out_o, out_n)`` of ``rules`` (a ``Rules``): ``p_end`` and ``out_n`` lists, the
    others :class:`Grid` tables padded with zeros; the builder and the bots read them as numpy arrays
    (:func:`dicebase.numeric.rolled_ones_turn.outcome_arrays`)."""
    L = rules.ones_limit
    width = max(len(x) for x in rules.outcomes)
    out_p, out_g, out_o = Grid((L, width)), Grid((L, width), 0), Grid((L, width), 0)
    for o in range(L):
        for x, (prob, gain, o_next) in enumerate(rules.outcomes[o]):
            out_p[o, x], out_g[o, x], out_o[o, x] = prob, gain, o_next
    return list(rules.p_end), out_p, out_g, out_o, [len(x) for x in rules.outcomes]


@lru_cache(maxsize=16)
def first_passage(rules, d_max: int) -> Grid:
    """``Q[d, o, r - 1, o']``: from ``d = X - t >= 0`` points at or below a bar ``X`` with ``o`` 1s set
    aside, always rolling, the chance to first exceed the bar at ``X + r`` with ``o'`` 1s::

        Q[d, o] = sum_{n=0}^{L-1-o} P_new1s(D-o, n) (delta_{r = g - d, o'} if g > d else Q[d - g, o'])

    with ``g = D - o'``.  ``sum_{r, o'} Q[d, o, r, o']`` is seed 002's ``P_exceed(d, o)``.  The builder reads
    it as a numpy array (``nplayer_spec.first_passage``), the lookups and the bots as it is."""
    L, D = rules.ones_limit, rules.dice
    cell = D * L
    q = [0.0] * ((d_max + 1) * L * cell)
    for d in range(d_max + 1):
        for o in range(L):
            at = (d * L + o) * cell
            for prob, gain, o_next in rules.outcomes[o]:
                if gain > d:
                    q[at + (gain - d - 1) * L + o_next] += prob
                else:
                    src = ((d - gain) * L + o_next) * cell
                    for x in range(cell):
                        q[at + x] += prob * q[src + x]
    return Grid((d_max + 1, L, D, L), data=q)


@lru_cache(maxsize=16)
def first_passage_from_zero(rules, d_max: int) -> Grid:
    """``Q0[d, r - 1, o']``: :func:`first_passage` from no 1s set aside (a final turn's start)."""
    Q = first_passage(rules, d_max)
    return Grid((d_max + 1, rules.dice, rules.ones_limit),
                data=[Q[d, 0, r, o2] for d in range(d_max + 1) for r in range(rules.dice)
                      for o2 in range(rules.ones_limit)])


def play_turn(m, e0, e1, K, D, L, k_stop, tol, p_end, out_p, out_g, out_o, out_n, hold, bust, mixq, value, proll,
              q, pr):
    """Seat ``m``'s turn played as stored: every state's win vector when a bust leaves ``bust[i]`` and a hold
    at ``k`` gives ``hold[k, i]``, for the seats ``i = e0 .. e1 - 1`` (the mover's entry is enough to play;
    ``e0 = 0, e1 = N`` gives every seat's).

    From ``k = K`` down to ``k_stop``, every ``o``: ``proll[k, o, i]`` the value of rolling,
    ``q[k, o]`` the chance the mover rolls (always at ``k = 0``; ``mixq[k, o]`` where it is not NaN, a
    stored mixed equilibrium's; else roll iff ``P_roll > P_hold + tol`` in its own entry: ties hold) and
    ``value[k, o, i]`` the state's value.  ``value[k]`` for ``k = K + 1 .. K + D`` is ``hold[k]``.
    ``pr``: scratch of length ``e1``.  Unreachable states are computed too (as if reached).
    """
    for k in range(K + D, K, -1):
        for o in range(L):
            for i in range(e0, e1):
                value[k, o, i] = hold[k, i]
    for k in range(K, k_stop - 1, -1):
        for o in range(L):
            for i in range(e0, e1):
                pr[i] = p_end[o] * bust[i]
            for x in range(out_n[o]):
                p = out_p[o, x]
                kk = k + out_g[o, x]
                o2 = out_o[o, x]
                for i in range(e0, e1):
                    pr[i] = pr[i] + p * value[kk, o2, i]
            if k == 0:
                r = 1.0
            elif not math.isnan(mixq[k, o]):
                r = mixq[k, o]
            elif pr[m] > hold[k, m] + tol:
                r = 1.0
            else:
                r = 0.0
            q[k, o] = r
            for i in range(e0, e1):
                proll[k, o, i] = pr[i]
                if r == 1.0:
                    value[k, o, i] = pr[i]
                elif r == 0.0:
                    value[k, o, i] = hold[k, i]
                else:
                    value[k, o, i] = r * pr[i] + (1.0 - r) * hold[k, i]


def best_turn(m, beta, N, K, D, L, tol, reach, out_p, out_g, out_o, out_n, p_end, H, A, c, dec, res, rv, fixed, roll):
    """Seat ``m``'s turn at the tuple whose hold vectors are ``H[m, k, :]``, as an affine function of what
    a bust leaves every seat (the next seat's turn start ``T_next``): every reachable state's value is
    ``A[k, o, :] + c[k, o] * T_next`` (the solver's policy iteration, :mod:`dicebase.builder.equilibrium`).

    A best response (``fixed`` False): the greedy policy when a bust leaves the mover ``beta`` (roll iff
    ``P_roll > P_hold + tol`` in its own entry; never hold at ``k = 0``; hold beyond ``K``), its decisions in
    ``dec[k, o]`` and ``res = [lo, hi]``: the policy is the same for every ``beta`` in ``(lo, hi]``.
    A fixed play (``fixed`` True, a seat playing one of seed 002's policies): it rolls where ``roll[k, o]``
    (and at ``k = 0``), whatever ``beta``; ``res = [-inf, inf]``, ``dec`` untouched.  ``rv``: scratch of
    length ``N``.
    """
    lo = -math.inf
    hi = math.inf
    for k in range(K + D, K, -1):
        for o in range(L):
            for i in range(N):
                A[k, o, i] = H[m, k, i]
            c[k, o] = 0.0
    for k in range(K, -1, -1):
        for o in range(L):
            if not reach[k, o]:
                continue
            if fixed and k > 0 and not roll[k, o]:
                for i in range(N):
                    A[k, o, i] = H[m, k, i]
                c[k, o] = 0.0
                continue
            for i in range(N):
                rv[i] = 0.0
            rc = p_end[o]
            for x in range(out_n[o]):
                p = out_p[o, x]
                kk = k + out_g[o, x]
                o2 = out_o[o, x]
                for i in range(N):
                    rv[i] += p * A[kk, o2, i]
                rc += p * c[kk, o2]
            go = True
            if not fixed:
                if k > 0:
                    h = H[m, k, m]
                    go = rv[m] + rc * beta > h + tol
                    if rc > 0.0:
                        edge = (h + tol - rv[m]) / rc
                        if go:
                            if edge > lo:
                                lo = edge
                        elif edge < hi:
                            hi = edge
                dec[k, o] = go
            if go:
                for i in range(N):
                    A[k, o, i] = rv[i]
                c[k, o] = rc
            else:
                for i in range(N):
                    A[k, o, i] = H[m, k, i]
                c[k, o] = 0.0
    res[0] = lo
    res[1] = hi


def final_start(nf, D, L, d, t0, Q0, FA, Fc, last, nb, nb0, out, o0, W):
    """``Phi_j(X; s_j, R)``: the win vector over the roles ``[leader, j, .., N-1]`` (``nf = N - j`` seats from
    ``j``) when seat ``j`` starts its final turn ``d = X - s_j`` points at or below the bar ``X``, written to
    ``out[o0 .. o0 + nf]``.  Below the bar it must roll: ``Q0[d, r - 1, o']`` (:func:`first_passage` from no
    1s) is the chance to first exceed the bar at ``X + r`` with ``o'`` 1s, where seat ``j``'s free region is
    worth ``FA[t0 + r, o', :] + Fc[t0 + r, o'] * Phi_{j+1}(X)`` (``t0 + r`` the index of total ``X + r``);
    three 1s before that leave the bar to the next seat.  ``nb[nb0 ..]``: ``Phi_{j+1}(X; R)`` over its roles
    ``[leader, j + 1, ..]`` (unread when ``last``: seat ``j`` is the last, and the leader keeps the lead
    unless it passes).  ``W``: scratch of length ``nf``."""
    for i in range(nf):
        W[i] = 0.0
    qs = 0.0
    cc = 0.0
    for r in range(1, D + 1):
        tt = t0 + r
        for o2 in range(L):
            qq = Q0[d, r - 1, o2]
            if qq == 0.0:
                continue
            qs += qq
            cc += qq * Fc[tt, o2]
            for i in range(nf):
                W[i] += qq * FA[tt, o2, i]
    cc += 1.0 - qs  # three 1s before exceeding the bar
    if last:
        out[o0] = cc  # the leader keeps the lead
        out[o0 + 1] = W[0]
    else:
        out[o0] = cc * nb[nb0]
        out[o0 + 1] = W[0]
        for i in range(1, nf):
            out[o0 + 1 + i] = W[i] + cc * nb[nb0 + i]


def final_turn(nf, G, L, top, X, t_stop, bust, FA, Fc, p_end, out_p, out_g, out_o, out_n, value, v):
    """Seat ``j``'s final turn with bar ``X``: ``value[t, o, :]`` over the roles ``[leader, j, .., N-1]``
    (``nf + 1`` of them) for the totals ``t = top .. t_stop`` with ``o`` 1s set aside.  Above the bar it plays
    its stored free region, ``FA[t - G - 1, o, :] + Fc[t - G - 1, o] * bust`` (roles ``j ..``; the leader's
    entry ``Fc * bust[0]``); at or below it must roll (totals past ``top`` read ``top``).  ``bust``: the roles'
    values when it busts (the next seat's ``Phi`` at the old bar, ``j`` getting 0).  ``v``: scratch of length
    ``nf + 1``."""
    for t in range(top, X, -1):
        for o in range(L):
            fc = Fc[t - G - 1, o]
            value[t, o, 0] = fc * bust[0]
            for i in range(nf):
                value[t, o, 1 + i] = FA[t - G - 1, o, i] + fc * bust[1 + i]
    for t in range(X, t_stop - 1, -1):
        for o in range(L):
            for i in range(nf + 1):
                v[i] = p_end[o] * bust[i]
            for x in range(out_n[o]):
                p = out_p[o, x]
                tt = min(t + out_g[o, x], top)
                o2 = out_o[o, x]
                for i in range(nf + 1):
                    v[i] = v[i] + p * value[tt, o2, i]
            for i in range(nf + 1):
                value[t, o, i] = v[i]


def free_turn(nf, L, tol, t_hi, t_lo, top, cap, hold, FA, Fc, FR, fixed, given, p_end, out_p, out_g, out_o, out_n, rv):
    """Seat ``j``'s final turn above the bar, where it may hold: ``FA[i, o, :] + Fc[i, o] * B`` over the roles
    ``[j, .., N-1]`` (``nf``) for the totals of index ``i = t_hi .. t_lo`` (one point apart, ``o`` 1s set
    aside), ``B`` what a bust leaves them (the next seat's ``Phi`` at the old bar: seat ``j`` gets 0, so the
    values above the bar do not depend on it).  ``hold[i, :]``: what holding at ``i`` gives (``j`` leads);
    a roll past index ``top`` reads ``top``.  Seat ``j`` best-responds (roll iff ``P_roll > P_hold + tol`` in
    its own entry, only below the score cap: ``i < cap``; decisions in ``FR[i, o]``) or with ``fixed`` plays
    ``given[i, o]`` (``FR`` untouched).  ``rv``: scratch of length ``nf``."""
    for ti in range(t_hi, t_lo - 1, -1):
        for o in range(L):
            go = given[ti, o] if fixed else ti < cap
            rc = 0.0
            if go:
                for i in range(nf):
                    rv[i] = 0.0
                rc = p_end[o]
                for x in range(out_n[o]):
                    p = out_p[o, x]
                    tt = min(ti + out_g[o, x], top)
                    o2 = out_o[o, x]
                    for i in range(nf):
                        rv[i] += p * FA[tt, o2, i]
                    rc += p * Fc[tt, o2]
                if not fixed:
                    go = rv[0] > hold[ti, 0] + tol  # a bust leaves the mover 0: rv[0] is its whole roll value
            if not fixed:
                FR[ti, o] = go
            if go:
                for i in range(nf):
                    FA[ti, o, i] = rv[i]
                Fc[ti, o] = rc
            else:
                for i in range(nf):
                    FA[ti, o, i] = hold[ti, i]
                Fc[ti, o] = 0.0
