"""10,000 for N players: the lookups' turn solver (issue 21; split from nplayer.py, issue 30): a turn's values
and decisions by the solver's equations (:mod:`dicebase.query.ten_thousand.nplayer` says which), below the
goal (:class:`BelowGoal`) and on a final turn (:class:`FinalTurn`).  No numpy."""

from __future__ import annotations

from itertools import accumulate
from operator import mul

from dicebase.query.ten_thousand.nlayout import Layout

BOUND_MARGIN = 1e-9


def _roll_sums(window, lay: "Layout", tol: float, skip, bust: float):
    """One total's roll values for the mover and the keep taken in each group (its place), per class not in
    ``skip`` (None there): the first keep in tie-break order within ``tol`` of the group's best (the solver's
    choice), summed in group order from 0.0, then the farkle's ``pf * bust``, as the solver does."""
    sums, taken = [], []
    for c, groups in enumerate(lay.classes):
        if skip[c]:
            sums.append(None)
            taken.append(None)
            continue
        pr = 0.0
        sel = []
        keep = sel.append
        for gp, take, places, single in groups:
            if single:
                keep(places)
                pr += gp * window[places]
                continue
            vals = take(window)
            floor = max(vals) - tol
            v = vals[0]
            if v >= floor:
                keep(places[0])
            else:
                j = 1
                while vals[j] < floor:
                    j += 1
                v = vals[j]
                keep(places[j])
            pr += gp * v
        sums.append(pr + lay.pf[c] * bust)
        taken.append(sel)
    return sums, taken


def _roll_sums_mixed(window, lay: "Layout", tol: float, skip, bust: float, mixes: dict):
    """:func:`_roll_sums` where some groups (``mixes``: per class, by the group's index in it) take a stored
    mixture of two keeps ``(first, second, p_first)``: the keep taken is then ``(place, place, p_first)``."""
    sums, taken = [], []
    for c, groups in enumerate(lay.classes):
        if skip[c]:
            sums.append(None)
            taken.append(None)
            continue
        pr = 0.0
        sel = []
        mixed = mixes.get(c, {})
        for gi, (gp, _take, places, single) in enumerate(groups):
            places = (places,) if single else places
            mix = mixed.get(gi)
            if mix is not None:
                a, z, q = mix
                v = q * window[places[a]] + (1.0 - q) * window[places[z]]
                sel.append((places[a], places[z], q))
            else:
                vals = [window[p] for p in places]
                floor = max(vals) - tol
                j = next(i for i, x in enumerate(vals) if x >= floor)
                v = vals[j]
                sel.append(places[j])
            pr += gp * v
        sums.append(pr + lay.pf[c] * bust)
        taken.append(sel)
    return sums, taken


class Turn:
    """One turn's values (a seat's turn below the goal, or a final turn), computed at lookup from the stored turn
    starts in two passes, by the solver's equations and in its order of operations (so to the same bits as the
    vector recursion the solver's ``turn_values`` runs):

    1. :meth:`down_to`: the mover's own win probability at every (total, class) from the top total down (its
       decisions depend on it alone: roll or bank by its own entry, keeps by their value to it), recording each
       decision and the keep taken in every roll group.  A state where even the best keep of every roll group
       (a bound from the largest values ``max_pts`` totals above) cannot beat banking is decided "bank" without
       its groups: the bound must fall short by :data:`BOUND_MARGIN`, so no decision changes;
    2. :meth:`vectors`: every seat's win probability only where an answer needs it: the states asked and those
       the recorded decisions reach from them, each seat's entry the same sum as the mover's; remembered.

    Totals are in units; a state is ``total * S + class``.  ``terminal(k)`` is the win vector of banking at ``k``
    (a final turn: the bank above the bar), ``bust`` that of a farkle."""

    def __init__(self, lay: Layout, tol: float, mover: int, top: int, last: int, bust, terminal, keep_mix=None):
        S = lay.S
        self.lay, self.tol, self.mover, self.top, self.S = lay, tol, mover, top, S
        self.bust, self.terminal = bust, terminal
        self.keep_mix = keep_mix or {}  # total -> {class: {group index in class: (first, second, p_first)}}
        size = (last + 1) * S
        self.F = [0.0] * size  # the mover's value at each state (pass 1)
        self.Q: list = [None] * size  # the mover's roll probability (None: not computed)
        self.SEL: list = [None] * size  # the keep taken in each roll group (None: not computed, or decided by bound)
        self.rowmax = [0.0] * (last + 1)  # the largest of the mover's values at each total
        self.lo = top + 1  # the lowest total computed
        for k in range(top + 1, last + 1):
            v = terminal(k)[mover]
            self.F[k * S:(k + 1) * S] = [v] * S
            self.rowmax[k] = v
        width = len(bust)
        self.V = [[None] * size for _ in range(width)]  # pass 2: each seat's value, where known
        self.R = [[None] * size for _ in range(width)]  # pass 2: each seat's value of rolling, where known

    # -- pass 1 -------------------------------------------------------------------------------
    def decide(self, k: int, sums: list):  # pragma: no cover - each kind of turn says
        """(the mover's values, roll probabilities) of total ``k`` from its roll values (None: decided by the
        bound to bank)."""
        raise NotImplementedError

    def banks_below(self, k: int):  # pragma: no cover - each kind of turn says
        """The mover's bank value at ``k`` where a roll value below it (by the tolerance) means banking, per
        class (None: the decision is not made by comparing the two there)."""
        raise NotImplementedError

    def row(self, k: int) -> None:
        """Pass 1 at total ``k`` (the totals above known)."""
        S, lay = self.S, self.lay
        b = self.bust[self.mover]
        hs = self.banks_below(k)
        if hs is None:
            skip = [False] * S
        else:  # the bound: each group's best keep at most the largest value up to its points above
            rm = list(accumulate(self.rowmax[k + 1:k + lay.max_pts + 1], max))
            lowest = min((h for h in hs if h is not None), default=None)
            top = rm[-1]  # every class at once: a roll is worth at most (1 - pf) top + pf b, largest at an end
            if lowest is not None and max((1.0 - pf) * top + pf * b for pf in lay.pf_ends) + BOUND_MARGIN <= lowest:
                skip = [h is not None for h in hs]
            else:
                take, ws, first, end = lay.reach
                at = [0.0, *accumulate(map(mul, ws, take(rm)))]
                skip = [h is not None and at[z] - at[a] + pf * b + BOUND_MARGIN <= h
                        for h, a, z, pf in zip(hs, first, end, lay.pf)]
        mixes = self.keep_mix.get(k)
        if all(skip):  # every class banks (high totals)
            sums, taken = [None] * S, [None] * S
        else:
            window = self.F[k * S:k * S + lay.width]
            sums, taken = (_roll_sums(window, lay, self.tol, skip, b) if mixes is None
                           else _roll_sums_mixed(window, lay, self.tol, skip, b, mixes))
        values, qs = self.decide(k, sums)
        self.F[k * S:(k + 1) * S] = values
        self.Q[k * S:(k + 1) * S] = qs
        self.SEL[k * S:(k + 1) * S] = taken
        self.rowmax[k] = max(values)

    def down_to(self, k_at: int):
        for k in range(self.lo - 1, k_at - 1, -1):
            self.row(k)
        self.lo = min(self.lo, k_at)
        return self

    def ensure(self, k: int, c: int):
        """The keeps of state (k, c) where pass 1 decided it without them (the mover banks there)."""
        S = self.S
        if self.SEL[k * S + c] is None:
            skip = [True] * S
            skip[c] = False
            mixes = self.keep_mix.get(k)
            window = self.F[k * S:k * S + self.lay.width]
            b = self.bust[self.mover]
            _sums, taken = (_roll_sums(window, self.lay, self.tol, skip, b) if mixes is None
                            else _roll_sums_mixed(window, self.lay, self.tol, skip, b, mixes))
            self.SEL[k * S + c] = taken[c]
        return self

    def q(self, k: int, c: int) -> float:
        """The mover's roll probability at (k, c): 0 past the computed totals (it banks)."""
        q = self.Q[k * self.S + c] if k <= self.top else None
        return 0.0 if q is None else q

    def then(self, k: int, c: int) -> str:
        q = self.q(k, c)
        return "roll" if q == 1.0 else "bank" if q == 0.0 else "mixed"

    # -- pass 2 -------------------------------------------------------------------------------
    def vectors(self, states, roll: bool = False) -> list[list[float]]:
        """Every seat's win vector at each state (k, c) of ``states``: its value (the mover's decision taken), or
        with ``roll`` the value of rolling there (whatever the mover decides)."""
        S, Q, SEL, V, R = self.S, self.Q, self.SEL, self.V, self.R
        V0, R0 = V[0], R[0]
        asked = [k * S + c for k, c in states]
        if roll:
            for k, c in states:
                self.ensure(k, c)
        todo: dict[int, list] = {}  # states whose roll value is computed now -> the states their keeps lead to
        ends: set[int] = set()  # states whose value is the bank's (or past the top), not known yet
        stack = []
        for i in asked:
            if roll or Q[i]:  # Q is None past the top: the mover banks there
                if R0[i] is None and i not in todo:
                    todo[i] = None
                    stack.append(i)
            elif V0[i] is None:
                ends.add(i)
        mixes = bool(self.keep_mix)
        while stack:
            i = stack.pop()
            base = i - i % S
            if Q[i] != 1.0 and V0[i] is None:
                ends.add(i)  # a mixed decision (or a roll asked where the mover banks): the bank's value too
            sel = SEL[i]
            if mixes and any(x.__class__ is tuple for x in sel):
                js = [base + y for x in sel for y in ((x[0], x[1]) if x.__class__ is tuple else (x,))]
            else:
                js = todo[i] = [base + x for x in sel]
            for j in js:
                if V0[j] is None and j not in todo:
                    if Q[j]:
                        todo[j] = None
                        stack.append(j)
                    else:
                        ends.add(j)
        width = len(self.bust)
        for i in ends:
            if V0[i] is None:
                v = self.terminal(i // S)
                for e in range(width):
                    V[e][i] = v[e]
        probabilities, pf, bust = self.lay.probabilities, self.lay.pf, self.bust
        for i in sorted(todo, reverse=True):  # higher totals first: every successor before its state
            c = i % S
            js, ps, q, p0 = todo[i], probabilities[c], Q[i], pf[c]
            pairs = None if js is None else list(zip(ps, js))
            for e in range(width):
                ve = V[e]
                acc = 0.0  # summed in order from 0.0, as the solver does
                if pairs is not None:
                    for gp, j in pairs:
                        acc += gp * ve[j]
                else:  # a stored mixture of two keeps in some group
                    base = i - c
                    for gp, x in zip(ps, SEL[i]):
                        if x.__class__ is tuple:
                            acc += gp * (x[2] * ve[base + x[0]] + (1.0 - x[2]) * ve[base + x[1]])
                        else:
                            acc += gp * ve[base + x]
                acc += p0 * bust[e]
                R[e][i] = acc
                if q == 1.0:
                    ve[i] = acc
                elif q:
                    ve[i] = q * acc + (1.0 - q) * ve[i]
        table = R if roll else V
        return [[table[e][i] for e in range(width)] for i in asked]


class BelowGoal(Turn):
    """Seat ``m``'s turn below the goal: bank to ``hold[k]`` (the next seat's turn start, or the final round at or
    past the goal), roll while it beats banking for the mover by more than the tolerance; past ``kmax`` it banks;
    a stored mixed decision of a cycle tuple is applied as stored."""

    def __init__(self, lay: Layout, tol: float, m: int, top: int, bust, hold, kmax: int, can_bank,
                 roll_mix: dict, keep_mix: dict):
        self.hold, self.kmax, self.can_bank, self.roll_mix = hold, kmax, can_bank, roll_mix
        self.no_groups = [not groups for groups in lay.classes]
        self.no_groups_at = [c for c, groups in enumerate(lay.classes) if not groups]
        self.mixed_totals = {k for k, _c in roll_mix}
        super().__init__(lay, tol, m, top, top + lay.max_pts, bust, hold.__getitem__, keep_mix)

    def banks_below(self, k: int):
        if not self.can_bank(k):
            return None
        h = self.hold[k][self.mover] + self.tol
        return [None if (k, c) in self.roll_mix else h for c in range(self.S)]

    def decide(self, k: int, sums: list):
        m, tol, kmax, roll_mix = self.mover, self.tol, self.kmax, self.roll_mix
        can_bank = self.can_bank(k)
        if not can_bank:
            return sums, [1.0] * len(sums)
        hm = self.hold[k][m]
        if k > kmax:  # the mover banks (proven optimal at solve time)
            return [hm] * len(sums), [0.0] * len(sums)
        if k not in self.mixed_totals:
            lim = hm + tol
            qs = [0.0 if pr is None or pr <= lim else 1.0 for pr in sums]
            for c in self.no_groups_at:
                qs[c] = 0.0
            return [pr if q else hm for pr, q in zip(sums, qs)], qs
        values, qs = [], []
        for c, pr in enumerate(sums):
            if not can_bank:
                q = 1.0
            elif pr is None or self.no_groups[c] or k > kmax:
                q = 0.0  # beyond kmax the mover banks (proven optimal at solve time)
            elif (k, c) in roll_mix:
                q = roll_mix[(k, c)]
            else:
                q = 1.0 if pr > hm + tol else 0.0
            values.append(pr if q == 1.0 else hm if q == 0.0 else q * pr + (1.0 - q) * hm)
            qs.append(q)
        return values, qs


class FinalTurn(Turn):
    """A final turn over roles ``[leader, mover, later...]`` with bar ``X``: at or below the bar the mover must
    roll; above it it banks to ``[0, Phi(t; later)]`` unless rolling beats that by more than the tolerance, and
    banks at once where the later seats can hardly pass it (``forced``) and near the top."""

    def __init__(self, lay: Layout, tol: float, top: int, X: int, bust, bank: dict, forced):
        self.X, self.bank, self.forced = X, bank, forced
        self.no_groups = [not groups for groups in lay.classes]
        super().__init__(lay, tol, 1, top, top, bust, bank.__getitem__)

    def _skipped(self, t: int) -> bool:
        return t > self.X and (self.forced(t) or t + self.lay.max_pts > self.top)

    def row(self, t: int) -> None:
        if self._skipped(t):  # banks at once: its keeps are found only when asked (ensure)
            S, v = self.S, self.bank[t][1]
            self.F[t * S:(t + 1) * S] = [v] * S
            self.Q[t * S:(t + 1) * S] = [0.0] * S
            self.rowmax[t] = v
            return
        super().row(t)

    def banks_below(self, t: int):
        return None if t <= self.X else [self.bank[t][1] + self.tol] * self.S

    def decide(self, t: int, sums: list):
        if t <= self.X:
            return sums, [1.0] * len(sums)
        hm, tol = self.bank[t][1], self.tol
        qs = [0.0 if pr is None or self.no_groups[c] or pr <= hm + tol else 1.0 for c, pr in enumerate(sums)]
        return [pr if q else hm for pr, q in zip(sums, qs)], qs


