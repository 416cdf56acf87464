"""10,000 for N players: the lookups' turn (issue 21; split from nplayer.py, issue 30): a turn's values and
decisions, below the goal (:class:`BelowGoal`) and on a final turn (:class:`FinalTurn`), each total by the one
definition of a turn's total, :func:`dicebase.rules.ten_thousand.turn.turn_row` (the plain function; the bots and
the solver compile it).  No numpy."""

from __future__ import annotations

from itertools import accumulate
from operator import mul

from dicebase.query.ten_thousand.nlayout import Layout
from dicebase.rules.ten_thousand.turn import turn_row

#: What the bound on rolling must clear before a state is decided without its roll groups (:meth:`Turn.row`): far
#: above the rounding error of a roll value (a sum of a few hundred products of probabilities, about 1e-14), so a
#: state decided by the bound would bank had its roll value been computed.
BOUND_MARGIN = 1e-9
NO_MIX = ((), (), (), (), (), (), (), ())


class Turn:
    """One turn's values (a seat's turn below the goal, or a final turn), computed at lookup from the stored turn
    starts in two passes:

    1. :meth:`down_to`: the mover's own win probability at every (total, class) from the top total down (its
       decisions depend on it alone: roll or bank by its own entry, keeps by their value to it), by
       :func:`~dicebase.rules.ten_thousand.turn.turn_row`, recording each decision and the keep taken in every
       roll group.  A state where even the best keep of every roll group (a bound from the largest values
       ``max_pts`` totals above) cannot beat banking is decided "bank" without its groups: the bound must fall
       short by :data:`BOUND_MARGIN`, so no decision changes;
    2. :meth:`vectors`: every seat's win probability only where an answer needs it: the states asked and those
       the recorded decisions reach from them, each seat's entry the same sum as the mover's; remembered.

    Totals are in units; a state is ``total * S + class``.  ``terminal(k)`` is the win vector of banking at ``k``
    (a final turn: the bank above the bar), ``bust`` that of a farkle; banking is allowed from ``bank_from`` and
    ends the turn past ``kmax``."""

    def __init__(self, lay: Layout, tol: float, mover: int, top: int, last: int, bust, terminal, bank_from: int,
                 kmax: int, keep_mix=None, roll_mix=None):
        S = lay.S
        self.lay, self.tol, self.mover, self.top, self.S = lay, tol, mover, top, S
        self.bust, self.terminal, self.bank_from, self.kmax = bust, terminal, bank_from, kmax
        self.keep_mix = keep_mix or {}  # total -> {class: {group index in class: (first, second, p_first)}}
        self.roll_mix = roll_mix or {}  # (total, class) -> roll probability
        self._mixes = self._row_mixes()
        size = (last + 1) * S
        self.F = [0.0] * size  # the mover's value at each state (pass 1)
        self.Q: list = [None] * size  # the mover's roll probability (None: not computed)
        self.KEEP: list = [None] * ((last + 1) * len(lay.gp))  # the keep taken in each roll group (None: not computed)
        self.rowmax = [0.0] * (last + 1)  # the largest of the mover's values at each total
        self.lo = top + 1  # the lowest total computed
        for k in range(top + 1, last + 1):
            v = terminal(k)[mover]
            self.F[k * S:(k + 1) * S] = [v] * S
            self.rowmax[k] = v
        width = len(bust)
        self.V = [[None] * size for _ in range(width)]  # pass 2: each seat's value, where known
        self.R = [[None] * size for _ in range(width)]  # pass 2: each seat's value of rolling, where known

    def _row_mixes(self) -> dict:
        """Per total, the stored mixed decisions as :func:`turn_row` takes them (rolls, then keeps)."""
        sg = self.lay.sg
        out: dict = {}
        for (k, c), q in self.roll_mix.items():
            rk, rc, rq = out.setdefault(k, ([], [], [], [], [], [], [], []))[:3]
            rk.append(k)
            rc.append(c)
            rq.append(q)
        for k, by_class in self.keep_mix.items():
            row = out.setdefault(k, ([], [], [], [], [], [], [], []))
            for c, by_group in by_class.items():
                for gi, (first, second, p_first) in by_group.items():
                    for seq, x in zip(row[3:], (k, sg[c] + gi, first, second, p_first)):
                        seq.append(x)
        return out

    def banks_below(self, k: int):  # pragma: no cover - each kind of turn says
        """The mover's bank value at ``k`` where a roll value below it (by the tolerance) means banking, per
        class (None: the decision is not made by comparing the two there)."""
        raise NotImplementedError

    def _total(self, k: int, skip, write: bool) -> None:
        """:func:`turn_row` at total ``k`` (``write``: its values and decisions; else only the keeps of the classes
        not skipped)."""
        S = self.S
        if write and all(skip):  # every class banks (high totals)
            self.F[k * S:(k + 1) * S] = [self.terminal(k)[self.mover]] * S
            self.Q[k * S:(k + 1) * S] = [0.0] * S
            return
        lay = self.lay
        h = self.terminal(k) if k >= self.bank_from else None
        turn_row(k, k, S, 1, 0, -1, 0.0, self.F, (0.0 if h is None else h[self.mover],), 0, (self.bust[self.mover],),
                 (0.0,), self.bank_from, self.kmax, self.tol, skip, write, lay.sg, lay.gp, lay.go, lay.place, lay.pf,
                 *self._mixes.get(k, NO_MIX), self.KEEP, k * len(lay.gp), self.Q, k * S, ())

    def _sel(self, i: int):
        """The keeps taken in each roll group at state ``i``, as places in the window (a stored mixture: both and
        the first's chance); None where not computed (decided by the bound)."""
        lay = self.lay
        k, c = divmod(i, self.S)
        g0 = k * len(lay.gp) + lay.sg[c]
        got = self.KEEP[g0:g0 + lay.sg[c + 1] - lay.sg[c]]
        if None in got:
            return None
        place = lay.place
        if not self.keep_mix:
            return [place[o] for o in got]
        out = []
        for g, o in enumerate(got, start=lay.sg[c]):
            if o >= 0:
                out.append(place[o])
            else:
                _g, first, second, p_first = (seq[-1 - o] for seq in self._mixes[k][4:])
                out.append((place[lay.go[g] + first], place[lay.go[g] + second], p_first))
        return out

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
        self._total(k, skip, True)
        self.rowmax[k] = max(self.F[k * S:(k + 1) * S])

    def down_to(self, k_at: int):
        for k in range(self.lo - 1, k_at - 1, -1):
            self.row(k)
        self.lo = min(self.lo, k_at)
        return self

    def ensure(self, k: int, c: int):
        """The keeps of state (k, c) where pass 1 decided it without them (the mover banks there)."""
        if self._sel(k * self.S + c) is None:
            skip = [True] * self.S
            skip[c] = False
            self._total(k, skip, False)
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
        S, Q, V, R = self.S, self.Q, self.V, self.R
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
            sel = self._sel(i)
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
                    for gp, x in zip(ps, self._sel(i)):
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

    def __init__(self, lay: Layout, tol: float, m: int, top: int, bust, hold, kmax: int, bank_from: int,
                 roll_mix: dict, keep_mix: dict):
        self.hold = hold
        super().__init__(lay, tol, m, top, top + lay.max_pts, bust, hold.__getitem__, bank_from, kmax, keep_mix,
                         roll_mix)

    def banks_below(self, k: int):
        if k < self.bank_from:
            return None
        h = self.hold[k][self.mover] + self.tol
        return [None if (k, c) in self.roll_mix else h for c in range(self.S)]


class FinalTurn(Turn):
    """A final turn over roles ``[leader, mover, later...]`` with bar ``X``: at or below the bar the mover must
    roll; above it it banks to ``[0, Phi(t; later)]`` unless rolling beats that by more than the tolerance, and
    banks at once where the later seats can hardly pass it (``forced``) and near the top."""

    def __init__(self, lay: Layout, tol: float, top: int, X: int, bust, bank: dict, forced):
        self.X, self.bank, self.forced = X, bank, forced
        super().__init__(lay, tol, 1, top, top, bust, bank.__getitem__, X + 1, top + 1)

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
