"""Two-player 10,000 to a goal, maximising the probability of winning.

Units of ``rules.unit`` (50 points); goal ``G`` units.  Player to move has banked
``i``, the opponent ``j`` (both < G), turn total ``k``, pre-roll class ``s``
(dice left, standing triple; :func:`~.scoring.turn_states`).

    P(i, j, k, s)  = max(P_bank, P_roll)                           (k > 0)
    P_bank         = 1 - W(j, i + k)                   if i + k <  G
                   = 1 - P_exceed(i + k - j)           if i + k >= G (opponent's last turn)
    P_roll         = sum_r P(r) max_keep P(i, j, k + pts, s') + pf(s) * (1 - W(j, i))
    W(i, j)        = P(i, j, 0, six dice)                          (a turn starts with a roll)

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

from .scoring import transitions, turn_states
from .solitaire import flatten, max_dice_flat

def exceed_table(rules: RuleSet, max_need: int, keep: str = "optimal") -> np.ndarray:
    """E[m, s] for m = 0..max_need units: chance to gain at least m more units this turn.

    ``E(m <= 0, s) = 1``; ``E(m, s) = sum_r P(r) max_keep E(m - pts, s')``; farkle -> 0.
    ``keep="max_dice"`` scores the keep using the most dice (then most points) instead of
    the best one: seed 004's "keep rolling until ahead" last-round policy.
    """
    fl = flatten(transitions(rules)) if keep == "optimal" else max_dice_flat(rules)
    off = fl.max_pts
    E = np.ones((max_need + 1 + off, fl.n_states))
    for m in range(1, max_need + 1):
        vals = E[off + m - fl.opt_pts, fl.opt_state]
        gmax = np.maximum.reduceat(vals, fl.group_opt[:-1], axis=-1)
        E[off + m] = np.add.reduceat(gmax * fl.group_prob, fl.state_group[:-1], axis=-1)
    return E[off:].copy()


# --------------------------------------------------------------------------- kernel
def _kernels():
    """Compile the numba kernels (imported here so importing this module stays light;
    why numba and not numpy: the measurement is in docs/ten_thousand.md)."""
    from numba import njit

    @njit(cache=True, fastmath=False)
    def eval_turn(i, j, G, om, F, kmax, W, pexd, sg, gp, go, op, ost, pf, VA, VB, ROLL, buf):
        """One turn of the player at (i, j) for farkle value F: affine values A + B F of
        every (k <= kmax, s), the argmax policy at F, and the interval of F keeping it."""
        S = sg.shape[0] - 1
        lo = -np.inf
        hi = np.inf
        for k in range(kmax, -1, -1):
            for s in range(S):
                ra = 0.0
                rb = pf[s]
                for g in range(sg[s], sg[s + 1]):
                    o0 = go[g]
                    o1 = go[g + 1]
                    best = -1
                    bv = -1.0
                    for o in range(o0, o1):
                        kk = k + op[o]
                        if kk > kmax:
                            a = 1.0 - pexd[i + kk - j]
                            b = 0.0
                        else:
                            a = VA[kk, ost[o]]
                            b = VB[kk, ost[o]]
                        buf[0, o - o0] = a
                        buf[1, o - o0] = b
                        v = a + b * F
                        if v > bv:
                            bv = v
                            best = o - o0
                    ca = buf[0, best]
                    cb = buf[1, best]
                    for q in range(o1 - o0):
                        if q != best:
                            db = cb - buf[1, q]
                            if db != 0.0:
                                x = (buf[0, q] - ca) / db
                                if db > 0.0:
                                    if x > lo:
                                        lo = x
                                elif x < hi:
                                    hi = x
                    ra += gp[g] * ca
                    rb += gp[g] * cb
                can_bank = k > 0 and (i > 0 or k >= om)
                if can_bank:
                    if i + k < G:
                        ba = 1.0 - W[j, i + k]
                    else:
                        ba = 1.0 - pexd[i + k - j]
                    # bank (ba, 0) vs roll (ra, rb); ties go to bank
                    x = 0.0
                    if rb != 0.0:
                        x = (ba - ra) / rb
                    if ra + rb * F > ba:
                        VA[k, s] = ra
                        VB[k, s] = rb
                        ROLL[k, s] = True
                        if rb != 0.0 and x > lo:  # roll stays better for F > x
                            lo = x
                    else:
                        VA[k, s] = ba
                        VB[k, s] = 0.0
                        ROLL[k, s] = False
                        if rb != 0.0 and x < hi:
                            hi = x
                else:
                    VA[k, s] = ra
                    VB[k, s] = rb
                    ROLL[k, s] = True
        return VA[0, 0], VB[0, 0], lo, hi

    @njit(cache=True)
    def first_safe_d(pexd, level):
        """Smallest d with pexd[d] <= level (pexd is non-increasing)."""
        for d in range(pexd.shape[0]):
            if pexd[d] <= level:
                return d
        return -1

    @njit(cache=True)
    def solve_sum(ssum, G, om, W, pexd, pf_min, sg, gp, go, op, ost, pf, kcap, tol,
                  out_val, out_roll, out_kmax, stats, bound_scale):
        """Solve every pair (i, j) with i + j = ssum; write W and each pair's table.

        out_val/out_roll: (pairs, kcap + 1, S) scratch rows per pair (pair p = i - i0),
        out_kmax[p] = kmax(i, j).  stats: [evaluations, max slack used, bound retries].
        """
        S = sg.shape[0] - 1
        maxg = 0
        for g in range(go.shape[0] - 1):
            if go[g + 1] - go[g] > maxg:
                maxg = go[g + 1] - go[g]
        buf = np.empty((2, maxg))
        i0 = max(0, ssum - G + 1)
        i1 = min(ssum, G - 1)
        VA1 = np.empty((kcap + 1, S))
        VB1 = np.empty((kcap + 1, S))
        VA2 = np.empty((kcap + 1, S))
        VB2 = np.empty((kcap + 1, S))
        R1 = np.zeros((kcap + 1, S), dtype=np.bool_)
        R2 = np.zeros((kcap + 1, S), dtype=np.bool_)
        for i in range(i0, i1 + 1):
            j = ssum - i
            if j < i:
                continue
            # initial guesses from the solved sum above
            if j + 1 < G:
                X = W[i, j + 1]
            elif i + 1 < G:
                X = W[i + 1, j]
            else:
                X = 0.5
            if i + 1 < G:
                Y = W[j, i + 1]
            elif j + 1 < G:
                Y = W[j + 1, i]
            else:
                Y = 0.5
            if i == j:
                Y = X
            scale = bound_scale
            for attempt in range(40):
                d1 = first_safe_d(pexd, pf_min * Y * scale)
                d2 = first_safe_d(pexd, pf_min * X * scale)
                if d1 < 0 or d2 < 0:
                    raise ValueError("P_exceed table too short for the turn-total bound")
                k1 = max(G - i - 1, d1 + j - i - 1)
                k2 = max(G - j - 1, d2 + i - j - 1)
                if k1 > kcap or k2 > kcap:
                    raise ValueError("turn-total bound above kcap")
                ok = False
                for it in range(60):
                    F1 = 1.0 - Y
                    F2 = 1.0 - X
                    A1, B1, lo1, hi1 = eval_turn(i, j, G, om, F1, k1, W, pexd, sg, gp, go, op, ost, pf, VA1, VB1, R1, buf)
                    stats[0] += 1
                    if i == j:
                        Xn = (A1 + B1) / (1.0 + B1)
                        Yn = Xn
                        lo2 = lo1
                        hi2 = hi1
                    else:
                        A2, B2, lo2, hi2 = eval_turn(j, i, G, om, F2, k2, W, pexd, sg, gp, go, op, ost, pf, VA2, VB2, R2, buf)
                        stats[0] += 1
                        Xn = (A1 + B1 - B1 * A2 - B1 * B2) / (1.0 - B1 * B2)
                        Yn = A2 + B2 * (1.0 - Xn)
                    G1 = 1.0 - Yn
                    G2 = 1.0 - Xn
                    slack = max(lo1 - G1, G1 - hi1, lo2 - G2, G2 - hi2, 0.0)
                    X = Xn
                    Y = Yn
                    if slack <= tol:
                        if slack > stats[1]:
                            stats[1] = slack
                        ok = True
                        break
                if not ok:
                    raise ValueError("policy iteration did not settle")
                # the bound must hold for the solved values
                if pexd[i + k1 + 1 - j] <= pf_min * Y and pexd[j + k2 + 1 - i] <= pf_min * X:
                    break
                stats[2] += 1
                scale *= 0.1
            W[i, j] = X
            W[j, i] = Y
            F1 = 1.0 - Y
            F2 = 1.0 - X
            p = i - i0
            for k in range(k1 + 1):
                for s in range(S):
                    out_val[p, k, s] = VA1[k, s] + VB1[k, s] * F1
                    out_roll[p, k, s] = R1[k, s]
            out_kmax[p] = k1
            if i != j:
                p = j - i0
                for k in range(k2 + 1):
                    for s in range(S):
                        out_val[p, k, s] = VA2[k, s] + VB2[k, s] * F2
                        out_roll[p, k, s] = R2[k, s]
                out_kmax[p] = k2

    @njit(cache=True)
    def eval_h(i, j, G, om, F, kh, hroll, Ho, pexd, hsg, hgp, hgo, hop, host, hpf, HA, HB):
        """Seed-004 heuristic H to move at (H: i, O: j); values P(H wins) = A + B F with
        F = P(H wins) after H farkles (O to move at (j, i))."""
        S = hsg.shape[0] - 1
        for k in range(kh, -1, -1):
            for s in range(S):
                roll = k == 0 or hroll[k, s] or (i == 0 and k < om)
                if roll:
                    ra = 0.0
                    rb = hpf[s]
                    for g in range(hsg[s], hsg[s + 1]):
                        o = hgo[g]
                        kk = k + hop[o]
                        if kk > kh:  # H banks there
                            if i + kk < G:
                                a = Ho[j, i + kk]
                            else:
                                a = 1.0 - pexd[i + kk - j]
                            b = 0.0
                        else:
                            a = HA[kk, host[o]]
                            b = HB[kk, host[o]]
                        ra += hgp[g] * a
                        rb += hgp[g] * b
                    HA[k, s] = ra
                    HB[k, s] = rb
                else:
                    if i + k < G:
                        HA[k, s] = Ho[j, i + k]
                    else:
                        HA[k, s] = 1.0 - pexd[i + k - j]
                    HB[k, s] = 0.0
        return HA[0, 0], HB[0, 0]

    @njit(cache=True)
    def eval_o(a, b, G, F, kmax, V, R, Hh, pexd, pexh, sg, gp, go, op, ost, pf, OA, OB):
        """Optimal player O to move at (O: a, H: b) following the optimal policy (values V,
        roll flags R of pair (a, b)); values P(H wins) = A + B F, F = P(H wins) after O
        farkles (H to move at (b, a))."""
        S = sg.shape[0] - 1
        for k in range(kmax, -1, -1):
            for s in range(S):
                if R[k, s]:
                    ra = 0.0
                    rb = pf[s]
                    for g in range(sg[s], sg[s + 1]):
                        best = -1
                        bv = -1.0
                        for o in range(go[g], go[g + 1]):
                            kk = k + op[o]
                            if kk > kmax:
                                v = 1.0 - pexd[a + kk - b]
                            else:
                                v = V[kk, ost[o]]
                            if v > bv:
                                bv = v
                                best = o
                        kk = k + op[best]
                        if kk > kmax:  # O banks past its bound: H's last turn
                            ra += gp[g] * pexh[a + kk - b]
                        else:
                            ra += gp[g] * OA[kk, ost[best]]
                            rb += gp[g] * OB[kk, ost[best]]
                    OA[k, s] = ra
                    OB[k, s] = rb
                else:
                    if a + k < G:
                        OA[k, s] = Hh[b, a + k]
                    else:
                        OA[k, s] = pexh[a + k - b]
                    OB[k, s] = 0.0
        return OA[0, 0], OB[0, 0]

    @njit(cache=True)
    def heuristic_sum(ssum, G, om, kh, hroll, Hh, Ho, pexd, pexh, hsg, hgp, hgo, hop, host, hpf,
                      sg, gp, go, op, ost, pf, out_val, out_roll, out_kmax, kcap):
        """Seed-004 heuristic H against the fixed optimal policy O for every pair of this sum.

        Needs the optimal tables of this sum (out_val/out_roll/out_kmax from solve_sum)."""
        S = sg.shape[0] - 1
        i0 = max(0, ssum - G + 1)
        i1 = min(ssum, G - 1)
        HA = np.empty((kh + 1, S))
        HB = np.empty((kh + 1, S))
        OA = np.empty((kcap + 1, S))
        OB = np.empty((kcap + 1, S))
        for i in range(i0, i1 + 1):
            j = ssum - i
            # cycle h(i, j) <-> o(j, i), O uses pair (j, i)'s optimal tables
            p = j - i0
            A1, B1 = eval_h(i, j, G, om, 0.0, kh, hroll, Ho, pexd, hsg, hgp, hgo, hop, host, hpf, HA, HB)
            A2, B2 = eval_o(j, i, G, 0.0, out_kmax[p], out_val[p], out_roll[p], Hh, pexd, pexh,
                            sg, gp, go, op, ost, pf, OA, OB)
            h = (A1 + B1 * A2) / (1.0 - B1 * B2)
            Hh[i, j] = h
            Ho[j, i] = A2 + B2 * h

    return eval_turn, solve_sum, eval_h, eval_o, heuristic_sum


_KERNELS = None


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
    i: np.ndarray  # state keys, one row per stored state
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
    eval_turn, solve_sum, eval_h, eval_o, heuristic_sum = kernels()
    fl = flatten(transitions(rules, prune=False))
    G = goal_units
    om = -(-rules.opening_minimum // rules.unit)
    pf_min = float(fl.p_farkle.min())
    kcap = 2 * G + 800
    max_need = 3 * G + 1000 + fl.max_pts
    E = exceed_table(rules, max_need)
    pexd = E[1:, 0].copy()  # pexd[d] = E(d + 1, six dice)
    W = np.full((G, G), np.nan)
    S = fl.n_states
    t0 = time.perf_counter()
    stats = np.zeros(3)
    out_val = np.empty((G, kcap + 1, S))
    out_roll = np.empty((G, kcap + 1, S), dtype=bool)
    out_kmax = np.zeros(G, dtype=np.int64)
    kmax = np.zeros((G, G), dtype=np.int64)
    parts = []
    sums = range(2 * G - 2, -1, -1)
    if heuristic:
        from .heuristic import roll_table  # heuristic imports solitaire only: no cycle

        hfl = max_dice_flat(rules)
        hroll, kh = roll_table(rules)
        pexh = exceed_table(rules, max_need, keep="max_dice")[1:, 0].copy()
        Hh = np.full((G, G), np.nan)
        Ho = np.full((G, G), np.nan)
    t_heur = 0.0

    def run(bar):
        nonlocal t_heur
        for ssum in bar:
            solve_sum(ssum, G, om, W, pexd, pf_min, fl.state_group, fl.group_prob,
                      fl.group_opt, fl.opt_pts, fl.opt_state, fl.p_farkle, kcap, tol,
                      out_val, out_roll, out_kmax, stats, bound_scale)
            if heuristic:
                th = time.perf_counter()
                heuristic_sum(ssum, G, om, kh, hroll, Hh, Ho, pexd, pexh, hfl.state_group,
                              hfl.group_prob, hfl.group_opt, hfl.opt_pts, hfl.opt_state,
                              hfl.p_farkle, fl.state_group, fl.group_prob, fl.group_opt,
                              fl.opt_pts, fl.opt_state, fl.p_farkle, out_val, out_roll,
                              out_kmax, kcap)
                t_heur += time.perf_counter() - th
            i0 = max(0, ssum - G + 1)
            i1 = min(ssum, G - 1)
            for i in range(i0, i1 + 1):
                p = i - i0
                km = int(out_kmax[p])
                kmax[i, ssum - i] = km
                if keep_tables:
                    v = out_val[p, : km + 1].ravel()
                    r = out_roll[p, : km + 1].ravel()
                    idx = np.arange(v.size)
                    if rows == "roll":
                        sel = r.copy()
                        sel[1:S] = False  # k = 0 with fewer than six dice is unreachable
                        idx = idx[sel]
                    parts.append((i, ssum - i, idx, v[idx], r[idx]))

    run(sums if progress is None else progress(sums, "two-player solve (score sums)", length=len(sums)))
    seconds = time.perf_counter() - t0
    if keep_tables:
        parts.sort(key=lambda part: (part[0], part[1]))  # by (score, opponent), then k, s
        n = sum(v.size for _, _, _, v, _ in parts)
        I = np.empty(n, dtype=np.int16)
        J = np.empty(n, dtype=np.int16)
        K = np.empty(n, dtype=np.int16)
        Sx = np.empty(n, dtype=np.int8)
        P = np.empty(n)
        R = np.empty(n, dtype=bool)
        pos = 0
        for i, j, idx, v, r in parts:
            m = v.size
            kk, ss = np.divmod(idx, S)
            I[pos : pos + m] = i
            J[pos : pos + m] = j
            K[pos : pos + m] = kk
            Sx[pos : pos + m] = ss
            P[pos : pos + m] = v
            R[pos : pos + m] = r
            pos += m
        parts.clear()
    else:
        I = J = K = Sx = P = R = np.empty(0)
    return TwoPlayer(
        rules, G, W, I, J, K, Sx, P, R, kmax, E,
        Hh if heuristic else None, Ho if heuristic else None,
        dict(seconds=seconds, heuristic_seconds=t_heur, evaluations=int(stats[0]),
             max_policy_slack=float(stats[1]), bound_retries=int(stats[2]), pf_min=pf_min,
             tol=tol, kcap=kcap, exceed_rows=max_need),
    )

