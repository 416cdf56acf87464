"""10,000 for N players: lookups in the N-player tables (issue 21; docs/n_players.md).

``db.ten_thousand.state_n(scores, player, turn_total, dice, triple)``, ``best_n(roll, scores, player, ...)``,
``seats(players)`` and ``compensation(players)`` answer from the tables the build writes for each
(rules, goal, players) (:mod:`dicebase.layout.ten_thousand`, its N-player section): every turn start's win
vector and ``kmax`` (``ten_thousand_turn_starts``), the final round by deficits (``ten_thousand_final_round``),
the cycle tuples with their mixing probabilities and the roll groups (``ten_thousand_roll_groups``).  A
mid-turn state is computed here, in plain Python, by the solver's equations
(``dicebase.builder.ten_thousand.nplayer.turn_values`` and ``final_turn_values``, mirrored operation for
operation, so to the same bits)::

    P_roll(m, s, k, c) = sum_groups p_g P(m, s, k + pts(o*), c(o*)) + pf(c) P(m+1, s, 0, six)
    P_bank(m, s, k)    = P(m+1, s + k e_m, 0, six)                    if s_m + k < goal
                       = Phi_{N-1}(s_m + k; the other seats)           otherwise (the final round)

over the turn totals ``k = kmax .. k_asked`` (beyond ``kmax`` the mover banks), ``o*`` the mover's keep
of the group by its own entry with the tie-break (:func:`dicebase.rules.ten_thousand.keep_priority`).  A
final turn (some seat at or above the goal) is the same over the seat's total, the bar and the stored
``Phi`` of the seats after it.  :class:`Turn` computes a turn in two passes (the mover's own values and
decisions over every state, then every seat's values only where the answer needs them) and the connection
remembers the last :data:`TURN_MEMO` turns, so the other states of a turn asked before cost a fraction of a
millisecond.  Rows are read through the one block reader (:class:`dicebase.query.blocks.Blocks`): by position
on DuckDB, every row's key checked, by key on SQLite.  No numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from itertools import accumulate
from operator import itemgetter, mul

from dicebase.errors import too_many_players
from dicebase.layout import ten_thousand as layout
from dicebase.query.base import BadInput, NotInDatabase, built_options, clip, comma_numbers, whole_number
from dicebase.query.blocks import Found
from dicebase.query.metadata import has_relation
from dicebase.rules.ten_thousand import (
    DEFAULT_OPTIONS, FACES, MAX_PLAYERS, MAX_POINTS, PLAYER_COUNTS, RuleSet, keep_priority, legal_keeps, roll_multisets,
    turn_states,
)


# --------------------------------------------------------------------------- answers
@dataclass(frozen=True)
class NAction:
    """One action at an N-player pre-roll state: ``roll`` or ``bank``."""

    action: str
    p_win: float  # the mover's win probability with this action, every seat optimal after
    p_wins: tuple[float, ...]  # every seat's win probability with this action

    def as_dict(self) -> dict:
        return {"action": self.action, "p_win": self.p_win, "p_wins": list(self.p_wins)}


@dataclass(frozen=True)
class NState:
    """Optimal (equilibrium) play at an N-player pre-roll state: every legal action with its win vector."""

    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]
    player: int  # the seat to move, 1..players
    turn_total: int
    dice: int
    triple: int
    final_turn: bool  # a seat has banked at or above the goal: the mover must end above the bar
    bar: int | None  # the highest score on a final turn (None before the final round)
    best: str  # "roll", "bank" or "mixed" (the seat randomises here: see roll_probability)
    roll_probability: float  # 1 (rolls), 0 (banks) or the stored mixing probability
    p_win: float
    p_wins: tuple[float, ...]
    actions: tuple[NAction, ...]
    cycle: dict | None = None  # the tuple's stored equilibrium was selected (docs/n_players.md)
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
            "player": self.player, "turn_total": self.turn_total, "dice": self.dice, "triple": self.triple,
            "final_turn": self.final_turn, "bar": self.bar, "best": self.best,
            "roll_probability": self.roll_probability, "p_win": self.p_win, "p_wins": list(self.p_wins),
            "actions": [a.as_dict() for a in self.actions], "cycle_tuple": self.cycle is not None,
            "cycle": self.cycle, "source": self.source,
        }


@dataclass(frozen=True)
class NKeep:
    """One legal keep of a roll at an N-player state, valued with optimal play after it."""

    keep: list[int]
    points: int
    dice_after: int
    triple_after: int
    p_win: float  # the mover's win probability after this keep
    p_wins: tuple[float, ...]
    then: str  # what the mover does at the state the keep leads to: 'roll', 'bank' or 'mixed'
    probability: float  # the equilibrium's probability of taking this keep (1 or 0; in a mixed keep between)

    def as_dict(self) -> dict:
        return {"keep": self.keep, "points": self.points, "dice_after": self.dice_after,
                "triple_after": self.triple_after, "p_win": self.p_win, "p_wins": list(self.p_wins),
                "then": self.then, "probability": self.probability}


@dataclass(frozen=True)
class NBest:
    """Every legal keep of a roll at an N-player state, the equilibrium's keep first."""

    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]
    player: int
    roll: list[int]
    turn_total: int
    triple: int
    final_turn: bool
    bar: int | None
    farkle: bool  # nothing scores: the turn total is lost, the next seat moves
    p_win: float  # the mover's win probability after the equilibrium's keep (or the farkle)
    p_wins: tuple[float, ...]
    actions: tuple[NKeep, ...]
    cycle: dict | None = None
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
            "player": self.player, "roll": self.roll, "turn_total": self.turn_total, "triple": self.triple,
            "final_turn": self.final_turn, "bar": self.bar, "farkle": self.farkle, "p_win": self.p_win,
            "p_wins": list(self.p_wins), "best": self.actions[0].as_dict() if self.actions else None,
            "actions": [a.as_dict() for a in self.actions], "cycle_tuple": self.cycle is not None,
            "cycle": self.cycle, "source": self.source,
        }


@dataclass(frozen=True)
class SeatWin:
    rules: str
    goal: int
    players: int
    seat: int
    p_win: float
    advantage: float  # p_win - 1/players

    def as_dict(self) -> dict:
        return {"rules": self.rules, "goal": self.goal, "players": self.players, "seat": self.seat,
                "p_win": self.p_win, "advantage": self.advantage}


@dataclass(frozen=True)
class Compensation:
    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]  # starting points per seat (fair compensation)
    p_wins: tuple[float, ...]
    deviation: float  # largest |p_win - 1/players|
    uncompensated: tuple[float, ...]  # the seats' win probabilities from all scores 0
    uncompensated_deviation: float

    def as_dict(self) -> dict:
        return {"rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
                "p_wins": list(self.p_wins), "deviation": self.deviation,
                "uncompensated_p_wins": list(self.uncompensated),
                "uncompensated_deviation": self.uncompensated_deviation}


@dataclass(frozen=True)
class Block:
    """One (rules, goal, players) block as recorded in ``ten_thousand_players``."""

    rules: str
    goal: int
    players: int
    unit: int
    tie_tolerance: float
    final_scale: float
    deficits: tuple[int, int, int, int]  # rows per gap pattern of the final round, by later seats (index 0 unused)
    cycle_tuples: int

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.rules, self.goal, self.players)

    @property
    def G(self) -> int:
        return self.goal // self.unit

    def start_rows(self) -> int:
        return layout.np_start_rows(self.G, self.players)

    def final_rows(self) -> int:
        return layout.np_final_sizes(self.G, self.players, self.deficits)[1]


# --------------------------------------------------------------------------- the rules' tables
@dataclass(frozen=True)
class Moves:
    """Every class's roll groups and keeps, keeps in tie-break order (units): the solver's ``nplayer.moves``,
    read from ``ten_thousand_roll_groups`` (:func:`moves_from_rows`) or built from the rules alone
    (:func:`moves`).  ``groups[c]``: ``(first global group index, [(probability, [(points, next
    class), ...]), ...])``; ``pf[c]`` the farkle chance."""

    states: tuple
    pf: tuple
    groups: tuple
    max_pts: int

    @cached_property
    def pf_min(self) -> float:
        return min(self.pf)


@lru_cache(maxsize=16)
def moves(rules: RuleSet) -> Moves:
    """The rolls of each pre-roll class grouped by their keeps (every keep, as the game needs: no pruning),
    groups in sorted order of their keeps, each group's keeps in :func:`keep_priority` order."""
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    pf, groups, at, most = [], [], 0, 0
    for n, t in states:
        total = FACES**n
        by_keeps: dict[tuple, int] = {}
        farkle = 0
        for counts, ways in roll_multisets(n):
            opts = sorted({(k.points // rules.unit, index[(k.n_after, k.t_after)]) for k in legal_keeps(rules, counts, n, t)})
            if not opts:
                farkle += ways
                continue
            by_keeps[tuple(opts)] = by_keeps.get(tuple(opts), 0) + ways
        cls = []
        for key in sorted(by_keeps):
            ordered = sorted(key, key=lambda o: keep_priority(rules, o[0], o[1]))
            cls.append((by_keeps[key] / total, tuple(ordered)))
            most = max(most, max(p for p, _ in key))
        pf.append(farkle / total)
        groups.append((at, tuple(cls)))
        at += len(cls)
    return Moves(tuple(states), tuple(pf), tuple(groups), most)


def moves_from_rows(rules: RuleSet, rows) -> Moves | None:
    """:func:`moves` from the rows of ``ten_thousand_roll_groups`` (dice, triple, roll_group, keep, probability,
    points, dice_after, triple_after; key order), None if they are not every class's groups numbered in order."""
    states = turn_states(rules)
    index = {s: i for i, s in enumerate(states)}
    pf: list = [None] * len(states)
    groups: list[list] = [[] for _ in states]
    most = 0
    for n, t, g, o, p, pts, n2, t2 in rows:
        c, c2 = index.get((n, t)), index.get((n2, t2))
        if c is None:
            return None
        if g == -1:
            pf[c] = float(p)
            continue
        if c2 is None or pts % rules.unit:
            return None
        cls = groups[c]
        if g == len(cls) and o == 0:
            cls.append((float(p), []))
        elif g != len(cls) - 1 or o != len(cls[g][1]):
            return None
        cls[g][1].append((pts // rules.unit, c2))
        most = max(most, pts // rules.unit)
    if None in pf:
        return None
    out, at = [], 0
    for cls in groups:
        out.append((at, tuple((p, tuple(opts)) for p, opts in cls)))
        at += len(cls)
    return Moves(tuple(states), tuple(pf), tuple(out), most)


def _by_scores(rows) -> dict:
    """Rows (score1..score4, values...) by their scores."""
    return {tuple(int(x) for x in row[:MAX_PLAYERS]): row[MAX_PLAYERS:] for row in rows}


#: Turns each connection remembers (:meth:`NPlayers._remember`): a turn at goal 1,000 holds about 0.8 MB.
TURN_MEMO = 16


def parse_scores(scores, unit: int | None = None) -> tuple[int, ...]:
    """``"300,450,0"`` or a list of whole numbers -> a tuple; BadInput (one line) otherwise."""
    if isinstance(scores, str):
        values = comma_numbers(scores)
        if values is None:
            raise BadInput(f"scores must be whole numbers of points separated by commas, one per seat (e.g. "
                           f"300,450,0), got {clip(scores)}")
    elif isinstance(scores, (list, tuple)):
        values = [whole_number(s, "each score") for s in scores]
    else:
        raise BadInput(f"scores must be a list of whole numbers of points, one per seat (e.g. 300,450,0), got "
                       f"{clip(scores)}")
    if not 2 <= len(values) <= MAX_PLAYERS:
        raise BadInput(f"scores must name {PLAYER_COUNTS[0]} to {MAX_PLAYERS} seats (one score per seat, in seat "
                       f"order), got {len(values)}")
    for n, s in enumerate(values):
        if not 0 <= s <= MAX_POINTS or (unit and s % unit):
            raise BadInput(f"seat {n + 1}'s score must be a multiple of {unit or 50} from 0 to {MAX_POINTS}, got {s}")
    return tuple(values)


@dataclass(frozen=True)
class Layout:
    """:class:`Moves` laid out for the lookups' turn.  ``classes[c]``: the roll groups of class ``c`` in order, each
    ``(probability, take, places, single)``: ``places`` its keeps' places ``points * S + next class`` (tie-break
    order) in a window of the mover's values that starts at the total, ``take`` an ``itemgetter`` of them all
    (``single``: one keep, ``places`` then its one place).  ``reach``: every class's groups by their largest keep
    (its points - 1 and the groups' total probability), class after class, for the bound on rolling
    (:meth:`Turn.row`)."""

    S: int
    max_pts: int
    classes: tuple
    probabilities: tuple  # per class its groups' probabilities, in order
    pf: tuple
    reach: tuple  # (itemgetter of every class's largest keeps' points - 1, their probabilities, first, end per class)

    @property
    def width(self) -> int:
        """The window's length: the totals from the one rolled at to ``max_pts`` above it."""
        return (self.max_pts + 1) * self.S

    @cached_property
    def pf_ends(self) -> tuple[float, float]:
        """The smallest and the largest farkle chance of a class."""
        return (min(self.pf), max(self.pf))


def laid_out(mv: Moves) -> Layout:
    """The :class:`Layout` of a rule set's moves (once per connection and rule set)."""
    S = len(mv.states)
    classes, probabilities, reach_at, reach_w, first, end = [], [], [], [], [], []
    for _g0, groups in mv.groups:
        out, by_points = [], {}
        for gp, opts in groups:
            places = tuple(p * S + c2 for p, c2 in opts)
            out.append((gp, None, places[0], True) if len(places) == 1 else (gp, itemgetter(*places), places, False))
            top = max(p for p, _ in opts)
            by_points[top] = by_points.get(top, 0.0) + gp
        classes.append(tuple(out))
        probabilities.append(tuple(gp for gp, _ in groups))
        first.append(len(reach_at))
        for d in sorted(by_points):
            reach_at.append(d - 1)
            reach_w.append(by_points[d])
        end.append(len(reach_at))
    reach = (itemgetter(*reach_at, 0), (*reach_w, 0.0), tuple(first), tuple(end))  # never one index alone
    return Layout(S, mv.max_pts, tuple(classes), tuple(probabilities), mv.pf, reach)


#: What the bound on rolling must clear before a state is decided without its roll groups (:meth:`Turn.row`): far
#: above the rounding error of a roll value (a sum of a few hundred products of probabilities, about 1e-14), so a
#: state decided by the bound would bank had its roll value been computed.
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


class NPlayers:
    """The N-player lookups of one connection (``db.ten_thousand.n``)."""

    def __init__(self, q):
        self.q = q
        self.db = q.db
        self.blocks = q.blocks
        self._pexc: dict[tuple, list[float]] = {}
        self._turns: dict[tuple, Turn] = {}  # the last TURN_MEMO turns computed (_remember)
        self._moves: dict[str, Moves] = {}
        self._layouts: dict[str, Layout] = {}

    # -- what is built ------------------------------------------------------------------------
    @cached_property
    def built(self) -> dict[tuple[str, int, int], Block]:
        """(rules, goal, players) -> :class:`Block` of every N-player block in the file."""
        self.db.require_game("ten_thousand")
        if not has_relation(self.db, layout.NP_PLAYERS.name):
            return {}
        rows = self.db.fetchall(
            "SELECT rules, goal, players, unit, tie_tolerance, final_scale, deficits1, deficits2, deficits3, "
            "cycle_tuples FROM ten_thousand_players ORDER BY rules, goal, players")
        return {(r[0], int(r[1]), int(r[2])): Block(r[0], int(r[1]), int(r[2]), int(r[3]), float(r[4]), float(r[5]),
                                                      (0, int(r[6]), int(r[7]), int(r[8])), int(r[9]))
                for r in rows}

    def moves(self, rs: RuleSet) -> Moves:
        """The rule set's roll groups and keeps (:class:`Moves`): read once from ``ten_thousand_roll_groups``
        (written with the N-player tables), else enumerated from the rules (:func:`moves`)."""
        got = self._moves.get(rs.name)
        if got is None:
            if has_relation(self.db, layout.NP_ROLL_GROUPS.name):
                got = moves_from_rows(rs, self.db.read(
                    "SELECT dice, triple, roll_group, keep, probability, points, dice_after, triple_after FROM "
                    "ten_thousand_roll_groups WHERE rules = ? ORDER BY dice, triple, roll_group, keep", (rs.name,)))
            got = self._moves[rs.name] = got or moves(rs)
        return got

    def layout(self, rs: RuleSet) -> Layout:
        got = self._layouts.get(rs.name)
        if got is None:
            got = self._layouts[rs.name] = laid_out(self.moves(rs))
        return got

    def block(self, players: int, rules: str) -> Block:
        """The block of ``players`` seats of the rule set (the largest goal built); NotInDatabase with the
        rebuild command if not built."""
        self.q._rule(rules)
        if players not in PLAYER_COUNTS:  # the tables have MAX_PLAYERS seats: no build adds more
            raise too_many_players(players, PLAYER_COUNTS, "ten-thousand.players")
        got = [b for key, b in self.built.items() if key[0] == rules and key[2] == players]
        if not got:
            have = sorted({key[2] for key in self.built if key[0] == rules})
            raise NotInDatabase(f"{players} players are not built for {rules} (built: "
                                f"{', '.join(map(str, have)) or 'none'}); {self.how_to_add(rules, players)}")
        return max(got, key=lambda b: b.goal)

    def how_to_add(self, rules: str, players: int) -> str:
        """The remedy for ``players`` seats of ``rules`` not built: the build's player counts with it, and
        the rule set among the two-player ones (the N-player tables are built for those only)."""
        built = built_options(self.db, "ten_thousand")
        counts = sorted({*built.get("players", []), players})
        duel = list(built.get("duel_rules", DEFAULT_OPTIONS["duel_rules"]))
        house = (built.get("house_rules") or {}).get(rules) or {}
        more = {} if rules in duel or house.get("two_player") else {"duel_rules": [*duel, rules]}
        return self.q.how_to_add(rule_set=rules, it="them", lead="rebuild with", players=counts, **more)

    # -- finding blocks -------------------------------------------------------------------------
    def _found(self, table, b: Block, size) -> Found | None:
        return self.blocks.found(table, b.key, partial(self._locate, table, b, size))

    def _locate(self, table, b: Block, size) -> Found | None:
        """A block starts after the blocks before it in (rules, goal, players) order; found when its first and
        last rows are its own and their neighbours not, else by one key filter (a block written elsewhere)."""
        sizes = {key: size(other) for key, other in self.built.items()}
        base = layout.np_block_start(sizes, b.key)
        if self.blocks.ends_fit(table, b.key, base, sizes[b.key]):
            return Found(base, sizes[b.key])
        span = self.blocks.span(table, b.key)
        if span is not None and span[1] == sizes[b.key]:
            return Found(*span)
        return None

    # -- reads --------------------------------------------------------------------------------
    def starts_along(self, b: Block, seat: int, units: tuple[int, ...], m: int, lo: int) -> dict[int, tuple]:
        """{v: win vector} at ``seat``'s turn start with seat ``m + 1``'s score v units (the other scores as
        given) for v = lo .. G - 1: one range of rows."""
        N, G, u = b.players, b.G, b.unit
        table = layout.np_starts_table(N)
        with_score = lambda v: tuple((v if n == m else s) * u for n, s in enumerate(units))  # noqa: E731
        found = self._found(table, b, Block.start_rows)
        cols = ", ".join(layout.NP_WINS[:N])
        others = [(layout.NP_SCORES[n], units[n] * u) for n in range(N) if n != m]

        def pack(score, *values):
            return int(score) // u, tuple(float(x) for x in values)

        if found is not None:
            position = partial(layout.np_start_position, u, G, N)
            first, last = position(seat, *with_score(lo)), position(seat, *with_score(G - 1))
            where = " AND ".join(f"{c} = ?" for c, _ in others) if G ** (N - 1 - m) > 1 else ""
            rows = self.blocks.read(table, b.key, found, first, last, cols, position, where=where,
                                    params=tuple(s for _, s in others) if where else (), count=G - lo)
            if rows is not None:
                return dict(pack(row[2 + m], *row[2 + N:]) for row in rows)
        marks = ", ".join("?" for _ in range(lo, G))
        sql = (f"SELECT {layout.NP_SCORES[m]}, {cols} FROM {layout.NP_TURN_STARTS} WHERE rules = ? AND goal = ? "
               f"AND players = ? AND seat = ? AND " + "".join(f"{c} = ? AND " for c, _ in others)
               + f"{layout.NP_SCORES[m]} IN ({marks})")
        rows = self.db.read(sql, (*b.key, seat, *(s for _, s in others), *(v * u for v in range(lo, G))))
        return dict(pack(*row) for row in rows)

    def start_row(self, b: Block, seat: int, units: tuple[int, ...]) -> tuple[tuple[float, ...], int] | None:
        """(win vector, kmax in units) of one turn start (scores in units): one point read, by position on DuckDB
        (its key checked), else by key."""
        N, u = b.players, b.unit
        table = layout.np_starts_table(N)
        key = (seat, *(s * u for s in units))
        cols = ", ".join(layout.NP_WINS[:N]) + ", kmax"
        found = self._found(table, b, Block.start_rows)
        row = None
        if found is not None:
            row = self.blocks.row(table, b.key, found, layout.np_start_position(u, b.G, N, *key), cols, key)
        if row is None:
            row = self.blocks.by_key(table, b.key, key, cols)
        return None if row is None else (tuple(float(x) for x in row[:N]), int(row[N]) // u)

    def phi_along(self, b: Block, later: tuple[int, ...], bars: range) -> dict[int, list[float]]:
        """{X: Phi_r(X; later)} over roles [leader, later...] for the bars ``bars`` (units): ``later`` the
        scores (units, play order) of the ``r`` seats still to take a final turn.  One range of rows."""
        r, u = len(later), b.unit
        gap2 = (later[0] - later[1]) * u if r >= 2 else 0  # deficit minus the first's: (X - u_2) - (X - u_1)
        gap3 = (later[0] - later[2]) * u if r >= 3 else 0
        lo, hi = bars[0] - later[0], bars[-1] - later[0]
        if lo < 1 or hi >= b.deficits[r] or min(bars[0] - x for x in later) < 1:
            raise NotInDatabase(f"the final-round table of {b.players} players lacks the bar {bars[-1] * u} with "
                                f"the later seats at {[x * u for x in later]} (deficits up to "
                                f"{(b.deficits[r] - 1) * u} points are stored)")
        table = layout.NP_FINAL
        found = self._found(table, b, Block.final_rows)
        cols = ", ".join(layout.NP_ROLES[: r + 1])
        if found is not None:
            position = partial(layout.np_final_position, u, b.G, b.players, b.deficits)
            first, last = position(r, gap2, gap3, lo * u), position(r, gap2, gap3, hi * u)
            rows = self.blocks.read(table, b.key, found, first, last, cols, position)
            if rows is not None:
                return {later[0] + row[4] // u: [float(x) for x in row[5:]] for row in rows}
        rows = self.db.read(f"SELECT deficit, {cols} FROM {layout.NP_FINAL_ROUND} WHERE rules = ? AND goal = ? AND "
                            "players = ? AND later = ? AND gap2 = ? AND gap3 = ? AND deficit BETWEEN ? AND ?",
                            (*b.key, r, gap2, gap3, lo * u, hi * u))
        out = {later[0] + int(row[0]) // u: [float(x) for x in row[1:]] for row in rows}
        if len(out) != len(bars):
            raise NotInDatabase(f"{layout.NP_FINAL_ROUND} lacks rows of {b.rules} for {b.players} players; rebuild "
                                f"with: {self.q.rebuild_command()}")
        return out

    def pexc(self, b: Block) -> list[float]:
        """``P_exceed(d)`` (the last seat's chance to pass a bar d units above it), d = 0 .. deficits1 - 1."""
        if b.key not in self._pexc:
            top = b.deficits[1] - 1
            got = self.phi_along(b, (0,), range(1, top + 1))
            self._pexc[b.key] = [0.0] + [got[d][1] for d in range(1, top + 1)]
        return self._pexc[b.key]

    def cycle(self, b: Block, units: tuple[int, ...]) -> dict | None:
        """The stored equilibrium's record of a cycle tuple (None: not one), decisions in points."""
        if not b.cycle_tuples:
            return None
        padded = (*(s * b.unit for s in units), *([0] * (MAX_PLAYERS - len(units))))
        where = "rules = ? AND goal = ? AND players = ? AND " + " AND ".join(f"{c} = ?" for c in layout.NP_SCORES)
        every = self.db.read(f"SELECT {', '.join(layout.NP_SCORES)}, kind, randomising_seats, cycle_length, residual "
                             "FROM ten_thousand_cycle_tuples WHERE rules = ? AND goal = ? AND players = ?", b.key,
                             into=_by_scores)  # the block's cycle tuples, read once (a few per thousand tuples)
        row = every.get(padded)
        if row is None:
            return None
        kind, seats, length, residual = row
        mixing = self.db.read("SELECT seat, turn_total, dice, triple, decision, roll_group, keep_first, keep_second, "
                              f"probability FROM ten_thousand_mixing WHERE {where} ORDER BY seat, turn_total, dice, "
                              "triple, decision, roll_group", (*b.key, *padded))
        return {
            "kind": kind,
            "randomising": [{"seat": int(s), "turn_total": int(k), "dice": int(n), "triple": int(t), "decision": d,
                             **({"p_roll": float(p)} if d == "roll" else
                                {"roll_group": int(g), "keep_first": int(a), "keep_second": int(z),
                                 "p_first": float(p)})}
                            for s, k, n, t, d, g, a, z, p in mixing],
            "cycle_length": int(length),
            "residual": float(residual),
            "note": ("best responses cycle in this score tuple: no pure equilibrium among them, the stored one is "
                     "mixed (the seats listed randomise with the probability given)" if kind == "mixed" else
                     "best responses cycle in this score tuple: the stored pure equilibrium was selected by search"),
        }

    # -- the turn (the solver's turn_values) -----------------------------------------------------
    def _remember(self, key, make):
        """The turn ``key`` of this connection (computed by ``make()`` the first time; the last
        :data:`TURN_MEMO` turns are kept)."""
        turns = self._turns
        got = turns.get(key)
        if got is None:
            got = turns[key] = make()
            while len(turns) > TURN_MEMO:
                turns.pop(next(iter(turns)))
        else:
            turns[key] = turns.pop(key)  # the most recently used last
        return got

    def _turn(self, b: Block, rs: RuleSet, units: tuple[int, ...], m: int, k_at: int, cycle: dict | None) -> BelowGoal:
        """Seat ``m``'s turn (0-based) below the goal, computed down to ``k_at`` (units): a :class:`BelowGoal` over
        the totals ``max(kmax, k_at)`` down.  Up to ``kmax`` the turn of (scores, seat) is remembered on the
        connection and later lookups extend it."""
        N, G, sm, u = b.players, b.G, units[m], b.unit
        own = self.start_row(b, m + 1, units)
        if own is None:
            raise NotInDatabase(f"{layout.NP_TURN_STARTS} lacks turn starts of {[s * u for s in units]}; rebuild "
                                f"with: {self.q.rebuild_command()}")
        kmax = own[1]
        if k_at > kmax:  # the mover banks: one total, not remembered
            return self._make_turn(b, rs, units, m, k_at, kmax, cycle).down_to(k_at)
        return self._remember(("turn", b.key, units, m),
                              lambda: self._make_turn(b, rs, units, m, kmax, kmax, cycle)).down_to(k_at)

    def _make_turn(self, b: Block, rs: RuleSet, units: tuple[int, ...], m: int, top: int, kmax: int,
                   cycle: dict | None) -> BelowGoal:
        mv = self.moves(rs)
        N, G, u = b.players, b.G, b.unit
        nxt = (m + 1) % N
        sm = units[m]
        along = self.starts_along(b, nxt + 1, units, m, sm)
        if len(along) != G - sm:
            raise NotInDatabase(f"{layout.NP_TURN_STARTS} lacks turn starts of {[s * u for s in units]}; rebuild "
                                f"with: {self.q.rebuild_command()}")
        KK = top + mv.max_pts
        bust = list(along[sm])
        hold = [None] * (KK + 1)
        for k in range(1, min(KK, G - 1 - sm) + 1):
            hold[k] = list(along[sm + k])
        if sm + KK >= G:
            others = [(m + 1 + j) % N for j in range(N - 1)]
            first = max(G, sm + 1)
            phis = self.phi_along(b, tuple(units[j] for j in others), range(first, sm + KK + 1))
            for t, v in phis.items():
                vec = [0.0] * N
                vec[m] = v[0]
                for j, x in zip(others, v[1:]):
                    vec[j] = x
                hold[t - sm] = vec
        roll_mix, keep_mix = {}, {}
        for d in (cycle or {}).get("randomising", []):
            if d["seat"] != m + 1:
                continue
            c = mv.states.index((d["dice"], d["triple"]))
            if d["decision"] == "roll":
                roll_mix[(d["turn_total"] // u, c)] = d["p_roll"]
            else:
                keep_mix.setdefault(d["turn_total"] // u, {}).setdefault(c, {})[d["roll_group"]] = (
                    d["keep_first"], d["keep_second"], d["p_first"])
        om = -(-rs.opening_minimum // u)
        return BelowGoal(self.layout(rs), b.tie_tolerance, m, top, bust, hold, kmax,
                         lambda k: k > 0 and (sm > 0 or k >= om), roll_mix, keep_mix)

    # -- a final turn (the solver's final_turn_values) ---------------------------------------------
    def _final(self, b: Block, rs: RuleSet, X: int, own: int, later: tuple[int, ...], t_at: int) -> FinalTurn:
        """Seat's final turn with bar ``X``, score ``own`` and the seats ``later`` after it (units), over roles
        [leader, mover, later...], computed from the top total down to ``t_at`` (a :class:`FinalTurn`; remembered
        on the connection unless ``t_at`` lies past the totals where banking is forced)."""
        mv = self.moves(rs)
        pexc = self.pexc(b)
        limit = mv.pf_min * b.final_scale

        def forced(t):
            if not later:
                return True
            if any(t - x >= len(pexc) for x in later):
                return True  # past every stored deficit: P_exceed is 0 there (beyond the final-round tables)
            return sum(pexc[t - x] for x in later) <= limit

        top = X + 1
        while not forced(top):
            top += 1
        if t_at > top:
            turn = self._make_final(b, rs, X, later, forced, t_at + mv.max_pts)
        else:
            turn = self._remember(("final", b.key, X, later),
                                  lambda: self._make_final(b, rs, X, later, forced, top + mv.max_pts))
        return turn.down_to(t_at)

    def _make_final(self, b: Block, rs: RuleSet, X: int, later: tuple[int, ...], forced, top: int) -> FinalTurn:
        mv = self.moves(rs)
        if later:
            phis = self.phi_along(b, later, range(X, top + 1))
        else:
            phis = {t: [1.0] for t in range(X, top + 1)}
        nxt = phis[X]
        bank = {t: [0.0, *phis[t]] for t in range(X + 1, top + 1)}
        return FinalTurn(self.layout(rs), b.tie_tolerance, top, X, [nxt[0], 0.0, *nxt[1:]], bank, forced)

    # -- the lookups ----------------------------------------------------------------------------
    def _state_input(self, scores, player, turn_total, rules):
        rules = rules if rules is not None else "ten-thousand"
        rule = self.q._rule(rules)
        u = rule["unit"]
        scores = parse_scores(scores, u)
        N = len(scores)
        p = whole_number(player, "player")
        if not 1 <= p <= N:
            raise BadInput(f"player must be 1..{N} (the seat to move; --scores names {N} seats), got {p}")
        b = self.block(N, rules)
        k = whole_number(turn_total, "turn total")
        if not 0 <= k <= MAX_POINTS or k % u:
            raise BadInput(f"turn total must be a multiple of {u} from 0 to {MAX_POINTS}, got {k}")
        G = b.G
        units = tuple(s // u for s in scores)
        m = p - 1
        if units[m] >= G:
            raise BadInput(f"the seat to move (seat {p}) must be below the goal {b.goal}: a seat at or above it has "
                           f"banked its last turn, got {scores[m]}")
        final = any(s >= G for s in units)
        X, later = None, ()
        if final:
            X = max(units)
            if sum(1 for s in units if s == X) > 1:
                raise BadInput(f"in the final round the highest score is one seat's (every final turn ends above the "
                               f"bar or scores nothing), got {X * u} twice")
            seq = []
            for j in range(1, N):
                seat = (m + j) % N
                if units[seat] >= G:
                    break
                seq.append(units[seat])
            later = tuple(seq)
        return b, self.q._rule_set(rules), rule, scores, units, m, k // u, final, X, later

    def state(self, scores, player, turn_total=0, dice=None, triple=0, rules: str | None = None) -> NState:
        """Every legal action (roll, bank) at an N-player pre-roll state with the mover's and every seat's win
        probability (scores in points, seat order; ``player`` the seat to move)."""
        b, rs, rule, scores, units, m, k, final, X, later = self._state_input(scores, player, turn_total, rules)
        n = whole_number(rule["dice"] if dice is None else dice, "dice")
        if not 1 <= n <= rule["dice"]:
            raise BadInput(f"dice must be 1-{rule['dice']}, got {n}")
        t = self.q._triple(rule, n, triple)
        self.q._check_turn(rule, n, t, k * b.unit)
        c = self.moves(rs).states.index((n, t))
        N = b.players
        if final:
            at = units[m] + k
            turn = self._final(b, rs, X, units[m], later, at)
            pr, q = self._seats(turn.vectors([(at, c)], roll=True)[0], m, later, units, X), turn.q(at, c)
            bank = None if at <= X else self._seats(turn.bank[at], m, later, units, X)
            cycle, source = None, f"computed from {layout.NP_FINAL_ROUND} (final turn)"
        else:
            cycle = self.cycle(b, units)
            turn = self._turn(b, rs, units, m, k, cycle)
            kmax = turn.kmax
            pr, q = tuple(turn.vectors([(k, c)], roll=True)[0]), turn.q(k, c)
            can_bank = k > 0 and (units[m] > 0 or k * b.unit >= rs.opening_minimum)
            bank = tuple(turn.hold[k]) if can_bank else None
            source = f"computed from {layout.NP_TURN_STARTS}" + (
                f" and {layout.NP_FINAL_ROUND}" if units[m] + kmax + self.moves(rs).max_pts >= b.G else "")
            if k > kmax:
                source += f" (beyond the turn's kmax {kmax * b.unit}: banking is proven optimal)"
        if bank is None:
            q = 1.0
        value = pr if q == 1.0 else bank if q == 0.0 else tuple(q * a + (1.0 - q) * z for a, z in zip(pr, bank))
        roll_a = NAction("roll", pr[m], tuple(pr))
        actions = (roll_a,) if bank is None else ((roll_a, NAction("bank", bank[m], tuple(bank))) if q >= 0.5
                                                  else (NAction("bank", bank[m], tuple(bank)), roll_a))
        best = "roll" if q == 1.0 else "bank" if q == 0.0 else "mixed"
        return NState(b.rules, b.goal, N, scores, m + 1, k * b.unit, n, t, final, None if X is None else X * b.unit,
                      best, q, value[m], tuple(value), actions, cycle, source)

    def best(self, roll, scores, player, turn_total=0, triple=0, rules: str | None = None) -> NBest:
        """Every legal keep of the roll ``roll`` (faces) at an N-player state, the equilibrium's keep first, each
        with the mover's and every seat's win probability after it."""
        b, rs, rule, scores, units, m, k, final, X, later = self._state_input(scores, player, turn_total, rules)
        if isinstance(roll, (str, bytes, dict)) or not hasattr(roll, "__iter__"):
            raise BadInput(f"dice must be a list of faces 1-6, e.g. [1, 5, 2], got {clip(roll)}")
        faces = [whole_number(f, "a die", "a face 1-6") for f in roll]
        if not 1 <= len(faces) <= rule["dice"]:
            raise BadInput(f"give the faces of 1-{rule['dice']} rolled dice, got {len(faces)}")
        bad = [f for f in faces if not 1 <= f <= FACES]
        if bad:
            raise BadInput(f"dice faces must be 1-6, got {bad[0]}")
        n = len(faces)
        t = self.q._triple(rule, n, triple)
        self.q._check_turn(rule, n, t, k * b.unit)
        mv = self.moves(rs)
        N, u = b.players, b.unit
        keeps = legal_keeps(rs, tuple(faces.count(f) for f in range(1, FACES + 1)), n, t)
        order = sorted(range(len(keeps)), key=lambda i: keep_priority(rs, keeps[i].points // u,
                                                                         mv.states.index((keeps[i].n_after, keeps[i].t_after))))
        if not keeps:  # a farkle: the turn total is lost, the next seat moves (or the final turn scores nothing)
            if final:
                farkle_v = self._seats(self._final_bust(b, X, later), m, later, units, X)
                cycle, source = None, f"computed from {layout.NP_FINAL_ROUND} (final turn)"
            else:
                farkle_v = tuple(self.starts_along(b, (m + 1) % N + 1, units, m, units[m])[units[m]])
                cycle, source = self.cycle(b, units), f"computed from {layout.NP_TURN_STARTS}"
            return NBest(b.rules, b.goal, N, scores, m + 1, sorted(faces), k * u, t, final,
                         None if X is None else X * u, True, farkle_v[m], tuple(farkle_v), (), cycle, source)
        k_next = k + min(kp.points // u for kp in keeps)
        after = [(k + kp.points // u, mv.states.index((kp.n_after, kp.t_after))) for kp in keeps]
        if final:
            turn = self._final(b, rs, X, units[m], later, units[m] + k_next)
            after = [(units[m] + kk, c2) for kk, c2 in after]
            vals = [(self._seats(v, m, later, units, X), turn.then(*state))
                    for v, state in zip(turn.vectors(after), after)]
            farkle_v = self._seats(self._final_bust(b, X, later), m, later, units, X)
            cycle, keep_mix, source = None, {}, f"computed from {layout.NP_FINAL_ROUND} (final turn)"
        else:
            cycle = self.cycle(b, units)
            turn = self._turn(b, rs, units, m, k_next, cycle)
            vals = [(tuple(v), turn.then(*state)) for v, state in zip(turn.vectors(after), after)]
            farkle_v = tuple(self.starts_along(b, (m + 1) % N + 1, units, m, units[m])[units[m]])
            keep_mix = turn.keep_mix
            source = f"computed from {layout.NP_TURN_STARTS}"
        best_v = max(v[m] for v, _ in vals)
        taken = next(i for i in order if vals[i][0][m] >= best_v - b.tie_tolerance)
        prob = {taken: 1.0}
        c = mv.states.index((n, t))
        g = self._group_of(rs, c, keeps)
        mix = keep_mix.get(k, {}).get(c, {}).get(g) if g is not None else None
        if mix is not None:  # the seat randomises between two keeps of this roll's group
            opts = mv.groups[c][1][g][1]
            by_opt = {(kp.points // u, mv.states.index((kp.n_after, kp.t_after))): i for i, kp in enumerate(keeps)}
            prob = {by_opt[opts[mix[0]]]: mix[2], by_opt[opts[mix[1]]]: 1.0 - mix[2]}
        actions = []
        for i in sorted(range(len(keeps)), key=lambda i: (-prob.get(i, 0.0), order.index(i))):
            kp, (v, then) = keeps[i], vals[i]
            actions.append(NKeep([f for f, cnt in enumerate(kp.kept, start=1) for _ in range(cnt)], kp.points,
                                 kp.n_after, kp.t_after, v[m], tuple(v), then, prob.get(i, 0.0)))
        value_taken = [sum(prob[i] * vals[i][0][e] for i in prob) for e in range(N)]
        return NBest(b.rules, b.goal, N, scores, m + 1, sorted(faces), k * u, t, final, None if X is None else X * u,
                     False, value_taken[m], tuple(value_taken), tuple(actions), cycle, source)

    # -- helpers of the lookups ------------------------------------------------------------------
    def _seats(self, roles, m: int, later: tuple, units: tuple, X: int) -> tuple[float, ...]:
        """A final-turn win vector over roles [leader, mover, later...] as one entry per seat."""
        N = len(units)
        out = [0.0] * N
        out[units.index(X)] = roles[0]
        out[m] = roles[1]
        for j, x in enumerate(roles[2:], start=1):
            out[(m + j) % N] = x
        return tuple(out)

    def _final_bust(self, b: Block, X: int, later: tuple) -> list[float]:
        nxt = self.phi_along(b, later, range(X, X + 1))[X] if later else [1.0]
        return [nxt[0], 0.0, *nxt[1:]]

    def _group_of(self, rs: RuleSet, c: int, keeps) -> int | None:
        """The index (within class ``c``) of the roll group whose keeps are ``keeps``."""
        mv = self.moves(rs)
        u = rs.unit
        key = tuple(sorted({(kp.points // u, mv.states.index((kp.n_after, kp.t_after))) for kp in keeps}))
        for i, (_gp, opts) in enumerate(mv.groups[c][1]):
            if tuple(sorted(opts)) == key:
                return i
        return None

    # -- aggregates ----------------------------------------------------------------------------
    def seats(self, players=None, rules: str | None = None) -> list[SeatWin]:
        """Each seat's win probability from the start, every seat optimal (ten_thousand_seat_wins)."""
        rules = rules if rules is not None else "ten-thousand"
        self.q._rule(rules)
        if players is not None:
            n = whole_number(players, "players")
            if n not in PLAYER_COUNTS:
                raise BadInput(f"players must be {PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}, got {n}")
            self.block(n, rules)
        elif not any(key[0] == rules for key in self.built):
            raise NotInDatabase(f"no N-player tables for {rules}; {self.how_to_add(rules, 3)}")
        rows = self.db.fetchall("SELECT goal, players, seat, p_win, advantage FROM ten_thousand_seat_wins WHERE "
                                "rules = ? ORDER BY players, goal, seat", (rules,))
        return [SeatWin(rules, int(g), int(a), int(s), float(w), float(d)) for g, a, s, w, d in rows
                if players is None or int(a) == int(players)]

    def compensation(self, players, rules: str | None = None) -> Compensation:
        """The fair compensation for ``players`` seats (ten_thousand_fair_compensation)."""
        rules = rules if rules is not None else "ten-thousand"
        n = whole_number(players, "players")
        if n not in PLAYER_COUNTS:
            raise BadInput(f"players must be {PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}, got {n}")
        b = self.block(n, rules)
        cols = ", ".join((*layout.NP_SCORES[:n], *layout.NP_WINS[:n]))
        where = "rules = ? AND goal = ? AND players = ?"
        fair = self.db.fetchone(f"SELECT {cols}, deviation FROM ten_thousand_fair_compensation WHERE {where} "
                                f"ORDER BY {', '.join(layout.NP_SCORES)} LIMIT 1", b.key)
        start = self.db.fetchone(f"SELECT {cols}, deviation FROM ten_thousand_compensation WHERE {where} AND "
                                 + " AND ".join(f"{c} = 0" for c in layout.NP_SCORES), b.key)
        if fair is None or start is None:
            raise NotInDatabase(f"no turn starts for {n} players in {b.rules}; rebuild with: "
                                f"{self.q.rebuild_command()}")
        return Compensation(b.rules, b.goal, n, tuple(int(x) for x in fair[:n]), tuple(float(x) for x in fair[n:2 * n]),
                            float(fair[-1]), tuple(float(x) for x in start[n:2 * n]), float(start[-1]))
