"""10,000 for N players: the layout arithmetic of the lookups (issue 21; split from nplayer.py, issue 30): a
stored block, the rolls of each pre-roll class grouped by their keeps (:class:`Moves`), the score tuple as
given and the groups laid out for the turn (:class:`Layout`).  No numpy."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from operator import itemgetter

from dicebase.layout import ten_thousand as layout
from dicebase.query import base
from dicebase.query.base import BadInput
from dicebase.rules.ten_thousand import (
    FACES, MAX_PLAYERS, MAX_POINTS, PLAYER_COUNTS, RuleSet, keep_priority, legal_keeps, roll_multisets, turn_states,
)
from dicebase.rules.ten_thousand.turn import places


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



def parse_scores(scores, unit: int | None = None) -> tuple[int, ...]:
    """``"300,450,0"`` or a list of whole numbers -> a tuple; BadInput (one line) otherwise."""
    values = base.parse_scores(scores, PLAYER_COUNTS, "300,450,0", "whole numbers of points")
    for n, s in enumerate(values):
        if not 0 <= s <= MAX_POINTS or (unit and s % unit):
            raise BadInput(f"seat {n + 1}'s score must be a multiple of {unit or 50} from 0 to {MAX_POINTS}, got {s}")
    return tuple(values)


@dataclass(frozen=True)
class Layout:
    """:class:`Moves` laid out for the turn (:func:`dicebase.rules.ten_thousand.turn.turn_row`'s flat sequences):
    class ``c``'s roll groups ``sg[c] .. sg[c + 1] - 1`` of probability ``gp[g]``, each group's keeps
    ``go[g] .. go[g + 1] - 1`` in tie-break order (points ``op[o]``, next class ``ost[o]``; ``place[o]`` their state
    ``op[o] * S + ost[o]`` in a window of the mover's values that starts at the total).  ``reach``: every class's
    groups by their largest keep (its points - 1 and the groups' total probability), class after class, for the
    bound on rolling (:meth:`Turn.row`).  The lookups and the bots share it."""

    S: int
    max_pts: int
    probabilities: tuple  # per class its groups' probabilities, in order
    pf: tuple
    reach: tuple  # (itemgetter of every class's largest keeps' points - 1, their probabilities, first, end per class)
    sg: tuple
    gp: tuple
    go: tuple
    op: tuple
    ost: tuple
    place: tuple

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
    probabilities, reach_at, reach_w, first, end = [], [], [], [], []
    sg, gp, go, op, ost = [0], [], [0], [], []
    for _g0, groups in mv.groups:
        by_points = {}
        for pr, opts in groups:
            gp.append(pr)
            for pts, c2 in opts:
                op.append(pts)
                ost.append(c2)
            go.append(len(op))
            top = max(p for p, _ in opts)
            by_points[top] = by_points.get(top, 0.0) + pr
        sg.append(len(gp))
        probabilities.append(tuple(pr for pr, _ in groups))
        first.append(len(reach_at))
        for d in sorted(by_points):
            reach_at.append(d - 1)
            reach_w.append(by_points[d])
        end.append(len(reach_at))
    reach = (itemgetter(*reach_at, 0), (*reach_w, 0.0), tuple(first), tuple(end))  # never one index alone
    return Layout(S, mv.max_pts, tuple(probabilities), mv.pf, reach, tuple(sg), tuple(gp), tuple(go), tuple(op),
                  tuple(ost), tuple(places(op, ost, S, 1, [0] * len(op))))
