"""10,000 for N players: one total of a turn, defined once (issue 30), for the lookups' mid-turn answers
(:mod:`dicebase.query.ten_thousand.nturn`, the plain function), the bots' exact recursion
(:mod:`dicebase.bots.ten_thousand_n_kernels`, compiled) and the solver's turn values
(:mod:`dicebase.builder.ten_thousand.nplayer`, compiled).

Written in the subset of Python that CPython and ``numba.njit`` both run: loops and indexing over flat sequences
(lists in CPython, numpy arrays under numba), the same float operations in the same order either way, so the plain
and the compiled function give the same bits.  No numpy here: the lookups import this module.

A turn's values sit in a flat sequence ``V`` of ``W`` entries per state: the state (total ``k``, pre-roll class
``c``) at ``(r * S + c) * W`` where ``r`` is the row of total ``k`` (a total ``p`` units higher: row ``r + p``).
Entry ``dec`` is the mover's own win probability, which makes every decision; the other entries (other seats'
win probabilities, the chance the turn ends in a farkle, a lineup's vector...) follow its decisions.  The moves:
class ``c``'s roll groups ``sg[c] .. sg[c + 1] - 1`` of probability ``gp[g]``, each group's keeps
``go[g] .. go[g + 1] - 1`` in tie-break order (points ``op[o]`` in units, next class ``ost[o]``), ``pf[c]`` the
farkle chance.  The equations (:mod:`dicebase.builder.ten_thousand.nplayer`)::

    roll value, entry j = sum over groups g, in order, from pf[c] * ff[j]:  gp[g] * V(k + op[o*], ost[o*])[j]
                          then + pf[c] * fb[j]           (ff, fb: what a farkle adds, first or last, per entry)
    o*                  = the first keep (tie-break order) within ``tol`` of the group's best for the mover
    roll or bank        = roll where banking is not allowed (k < bank_from); bank with no dice to roll or past
                          ``kmax``; a stored mixed decision as stored; else roll iff the mover's roll value beats
                          its bank value by more than ``tol``

A stored mixture of two keeps in a group (a cycle tuple's equilibrium) takes ``q V(first) + (1 - q) V(second)``.
"""

from __future__ import annotations


def places(op, ost, S, W, out):
    """``out[o]``: where keep ``o`` leads in a flat sequence of ``W`` entries per state, ``(op[o] * S + ost[o]) * W``
    entries above the total's first (:func:`turn_row`'s ``place``)."""
    for o in range(len(op)):
        out[o] = (op[o] * S + ost[o]) * W
    return out


def turn_row(k, r, S, W, dec, cb, beta, V, bank, bat, fb, ff, bank_from, kmax, tol, skip, write, sg, gp, go, place,
             pf, rm_k, rm_c, rm_q, km_k, km_g, km_a, km_z, km_q, keep, kat, qs, qat, ivl):
    """Total ``k`` (row ``r`` of ``V``; the rows above it known): every class's values into ``V`` (with
    ``write``), the mover's roll probability into ``qs[qat + c]`` and the keep taken in every roll group ``g``
    into ``keep[kat + g]`` (a global keep index, or ``-1 - x`` for the stored mixture ``x``).  ``place[o]``:
    where keep ``o`` leads, ``(op[o] * S + ost[o]) * W`` from the total's first entry.  ``bank[bat + j]``: entry
    ``j`` of banking ``k``.  A class with ``skip[c]`` banks without its roll groups (the caller proved it banks,
    or no turn reaches it).  Stored mixed decisions: rolls ``(rm_k, rm_c, rm_q)`` (total, class, roll
    probability), keeps ``(km_k, km_g, km_a, km_z, km_q)`` (total, global group, first and second keep within the
    group, probability of the first).

    The solver's affine turn (``cb >= 0``): the mover's value is ``V[dec] + V[cb] * beta``, ``beta`` what a farkle
    leaves it, entry ``cb`` the chance to reach that farkle; every decision by that value, and ``ivl = [lo, hi]``
    narrowed to the betas that keep every decision (conservative).  With ``cb < 0`` the mover's value is
    ``V[dec]`` and ``ivl`` is not used.

    The mover's entries are summed first, with the decisions; every other entry then by the same keeps, each its
    own sum in group order (the same bits as summing all entries side by side)."""
    can_bank = k >= bank_from
    nrm = len(rm_k)
    nkm = len(km_k)
    row = r * S * W
    own = row + dec
    affine = cb >= 0
    cof = row + cb
    lo = ivl[0] if affine else 0.0
    hi = ivl[1] if affine else 0.0
    for c in range(S):
        at = row + c * W
        if skip[c]:
            if write:
                qs[qat + c] = 0.0
                for j in range(W):
                    V[at + j] = bank[bat + j]
            continue
        a = pf[c] * ff[dec]
        b = pf[c] * ff[cb] if affine else 0.0
        g0 = sg[c]
        g1 = sg[c + 1]
        for g in range(g0, g1):
            if nkm:
                mixed = -1
                for x in range(nkm):
                    if km_k[x] == k and km_g[x] == g:
                        mixed = x
                if mixed >= 0:
                    q = km_q[mixed]
                    pa = place[go[g] + km_a[mixed]]
                    pz = place[go[g] + km_z[mixed]]
                    a += gp[g] * (q * V[own + pa] + (1.0 - q) * V[own + pz])
                    if affine:
                        b += gp[g] * (q * V[cof + pa] + (1.0 - q) * V[cof + pz])
                    keep[kat + g] = -1 - mixed
                    continue
            o = go[g]
            end = go[g + 1]
            v = V[own + place[o]]
            if end - o > 1:  # the first keep within tol of the best, for the mover
                if not affine:
                    best = v
                    for oo in range(o + 1, end):
                        y = V[own + place[oo]]
                        if y > best:
                            best = y
                    floor = best - tol
                    while v < floor:
                        o += 1
                        v = V[own + place[o]]
                else:  # by the mover's affine value
                    best = v + V[cof + place[o]] * beta
                    ob = o
                    for oo in range(o + 1, end):
                        y = V[own + place[oo]] + V[cof + place[oo]] * beta
                        if y > best:
                            best = y
                            ob = oo
                    floor = best - tol
                    y = v + V[cof + place[o]] * beta
                    while y < floor:
                        o += 1
                        v = V[own + place[o]]
                        y = v + V[cof + place[o]] * beta
                    # the betas that keep this choice
                    ac = v
                    bc = V[cof + place[o]]
                    ab = V[own + place[ob]]
                    bb = V[cof + place[ob]]
                    for oq in range(go[g], end + 1):
                        if oq == o:
                            continue
                        if oq == end:  # last: the chosen keep against the best
                            if o == ob:
                                continue
                            db = bb - bc
                            rhs = ac - ab + tol
                        elif oq < o:
                            db = V[cof + place[oq]] - bb
                            rhs = ab - V[own + place[oq]] - tol
                        else:
                            db = V[cof + place[oq]] - bc
                            rhs = ac - V[own + place[oq]] + tol
                        if db > 0.0:
                            y = rhs / db
                            if y < hi:
                                hi = y
                        elif db < 0.0:
                            y = rhs / db
                            if y > lo:
                                lo = y
            keep[kat + g] = o
            a += gp[g] * v
            if affine:
                b += gp[g] * V[cof + place[o]]
        a = a + pf[c] * fb[dec]
        if affine:
            b = b + pf[c] * fb[cb]
        if not write:
            continue
        if not can_bank:
            q = 1.0
        elif g0 == g1 or k > kmax:
            q = 0.0
        else:
            q = -1.0
            if nrm:
                for x in range(nrm):
                    if rm_k[x] == k and rm_c[x] == c:
                        q = rm_q[x]
            if q < 0.0:
                h = bank[bat + dec]
                if affine:
                    q = 1.0 if a + b * beta > h + tol else 0.0
                    if b > 0.0:
                        y = (h + tol - a) / b
                        if q == 1.0:
                            if y > lo:
                                lo = y
                        elif y < hi:
                            hi = y
                else:
                    q = 1.0 if a > h + tol else 0.0
        qs[qat + c] = q
        for j in range(W):
            if q == 0.0:
                V[at + j] = bank[bat + j]
                continue
            if j == dec:
                e = a
            elif j == cb:
                e = b
            else:
                e = pf[c] * ff[j]
                for g in range(g0, g1):
                    o = keep[kat + g]
                    if o < 0:
                        x = -1 - o
                        p = km_q[x]
                        e += gp[g] * (p * V[row + j + place[go[g] + km_a[x]]]
                                      + (1.0 - p) * V[row + j + place[go[g] + km_z[x]]])
                    else:
                        e += gp[g] * V[row + j + place[o]]
                e = e + pf[c] * fb[j]
            V[at + j] = e if q == 1.0 else q * e + (1.0 - q) * bank[bat + j]
    if affine:
        ivl[0] = lo
        ivl[1] = hi
