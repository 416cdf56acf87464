"""10,000 for N players: lookups in the N-player tables (issue 21; docs/n_players.md).

``db.ten_thousand.state_n(scores, player, turn_total, dice, triple)``, ``best_n(roll, scores, player, ...)``,
``seats(players)`` and ``compensation(players)`` answer from the tables the build writes for each
(rules, goal, players) (:mod:`dicebase.layout.ten_thousand`, its N-player section): every turn start's win
vector and ``kmax`` (``ten_thousand_turn_starts``), the final round by deficits (``ten_thousand_final_round``)
and the cycle tuples with their mixing probabilities.  A mid-turn state is computed here, in plain Python,
by the solver's equations (``dicebase.builder.ten_thousand.nplayer.turn_values`` and
``final_turn_values``, mirrored operation for operation)::

    P_roll(m, s, k, c) = sum_groups p_g P(m, s, k + pts(o*), c(o*)) + pf(c) P(m+1, s, 0, six)
    P_bank(m, s, k)    = P(m+1, s + k e_m, 0, six)                    if s_m + k < goal
                       = Phi_{N-1}(s_m + k; the other seats)           otherwise (the final round)

over the turn totals ``k = kmax .. k_asked`` (beyond ``kmax`` the mover banks), ``o*`` the mover's keep
of the group by its own entry with the tie-break (:func:`dicebase.rules.ten_thousand.keep_priority`).  A
final turn (some seat at or above the goal) is the same over the seat's total, the bar and the stored
``Phi`` of the seats after it.  Rows are read through the one block reader
(:class:`dicebase.query.blocks.Blocks`): by position on DuckDB, every row's key checked, by key on SQLite.
No numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial

from dicebase.layout import ten_thousand as layout
from dicebase.query.base import BadInput, NotInDatabase, clip, whole_number
from dicebase.query.blocks import Found
from dicebase.query.metadata import has_relation
from dicebase.rules.ten_thousand import (
    FACES, MAX_PLAYERS, MAX_POINTS, PLAYER_COUNTS, RuleSet, keep_priority, legal_keeps, roll_multisets, turn_states,
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
    """Every class's roll groups and keeps, keeps in tie-break order (units): the solver's ``nplayer.moves``
    built from the rules alone.  ``groups[c]``: ``(first global group index, [(probability, [(points, next
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


def parse_scores(scores, unit: int | None = None) -> tuple[int, ...]:
    """``"300,450,0"`` or a list of whole numbers -> a tuple; BadInput (one line) otherwise."""
    if isinstance(scores, str):
        try:
            values = [int(p.strip()) for p in scores.split(",")]
        except ValueError:
            raise BadInput(f"scores must be whole numbers of points separated by commas, one per seat (e.g. "
                           f"300,450,0), got {clip(scores)}") from None
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


def _add(a, b, w):
    return [x + w * y for x, y in zip(a, b)]


class NPlayers:
    """The N-player lookups of one connection (``db.ten_thousand.n``)."""

    def __init__(self, q):
        self.q = q
        self.db = q.db
        self.blocks = q.blocks
        self._pexc: dict[tuple, list[float]] = {}

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

    def block(self, players: int, rules: str) -> Block:
        """The block of ``players`` seats of the rule set (the largest goal built); NotInDatabase with the
        rebuild command if not built."""
        self.q._rule(rules)
        got = [b for key, b in self.built.items() if key[0] == rules and key[2] == players]
        if not got:
            have = sorted({key[2] for key in self.built if key[0] == rules})
            counts = sorted(set(have) | {players})
            raise NotInDatabase(
                f"{players} players are not built for {rules} (built: {', '.join(map(str, have)) or 'none'}); "
                f"rebuild with: {self.q.rebuild_command(players=counts)}")
        return max(got, key=lambda b: b.goal)

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
    def starts_along(self, b: Block, seat: int, units: tuple[int, ...], m: int, lo: int,
                     with_kmax: bool = False) -> dict[int, tuple]:
        """{v: win vector (and kmax, units)} at ``seat``'s turn start with seat ``m + 1``'s score v units (the
        other scores as given) for v = lo .. G - 1."""
        N, G, u = b.players, b.G, b.unit
        table = layout.np_starts_table(N)
        with_score = lambda v: tuple((v if n == m else s) * u for n, s in enumerate(units))  # noqa: E731
        found = self._found(table, b, Block.start_rows)
        cols = ", ".join(layout.NP_WINS[:N]) + (", kmax" if with_kmax else "")
        others = [(layout.NP_SCORES[n], units[n] * u) for n in range(N) if n != m]

        def pack(score, *values):
            wins = tuple(float(x) for x in values[:N])
            return int(score) // u, (wins, int(values[N]) // u) if with_kmax else wins

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
        row = self.db.read(f"SELECT kind, randomising_seats, cycle_length, residual FROM ten_thousand_cycle_tuples "
                           f"WHERE {where}", (*b.key, *padded))
        if not row:
            return None
        kind, seats, length, residual = row[0]
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
    def _turn(self, b: Block, rs: RuleSet, units: tuple[int, ...], m: int, k_at: int, cycle: dict | None):
        """Values of seat ``m``'s turn (0-based) below the goal from ``max(kmax, k_at)`` down to ``k_at`` (units):
        (value[k][c], p_roll at k_at per class, hold[k_at], roll probability at k_at per class, keep choice
        function, kmax)."""
        mv = moves(rs)
        N, G, tol, u = b.players, b.G, b.tie_tolerance, b.unit
        nxt = (m + 1) % N
        sm = units[m]
        own = self.starts_along(b, m + 1, units, m, sm, with_kmax=True).get(sm)
        along = self.starts_along(b, nxt + 1, units, m, sm)
        if own is None or len(along) != G - sm:
            raise NotInDatabase(f"{layout.NP_TURN_STARTS} lacks turn starts of {[s * u for s in units]}; rebuild "
                                f"with: {self.q.rebuild_command()}")
        kmax = own[1]
        top = max(kmax, k_at)
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
                keep_mix[(d["turn_total"] // u, mv.groups[c][0] + d["roll_group"])] = (
                    d["keep_first"], d["keep_second"], d["p_first"])
        S = len(mv.states)
        value = [None] * (KK + 1)
        for k in range(top + 1, KK + 1):
            value[k] = [hold[k]] * S
        om = -(-rs.opening_minimum // u)
        result = None
        decided: dict[int, list[float]] = {}
        for k in range(top, k_at - 1, -1):
            pr_all, qs = [], []
            can_bank = k > 0 and (sm > 0 or k >= om)
            for c in range(S):
                g0, groups = mv.groups[c]
                pr = [0.0] * N
                for gi, (gp, opts) in enumerate(groups):
                    chosen = self._chosen(value, k, opts, m, tol, keep_mix.get((k, g0 + gi)))
                    pr = _add(pr, chosen, gp)
                pr = _add(pr, bust, mv.pf[c])
                if not can_bank:
                    q = 1.0
                elif not groups:
                    q = 0.0
                elif k > kmax:
                    q = 0.0  # beyond kmax the mover banks (proven optimal at solve time)
                elif (k, c) in roll_mix:
                    q = roll_mix[(k, c)]
                else:
                    q = 1.0 if pr[m] > hold[k][m] + tol else 0.0
                pr_all.append(pr)
                qs.append(q)
            value[k] = [pr if q == 1.0 else hold[k] if q == 0.0 else [q * a + (1.0 - q) * h for a, h in zip(pr, hold[k])]
                        for pr, q in zip(pr_all, qs)]
            decided[k] = qs
            if k == k_at:
                result = (pr_all, qs)

        def then(kk, c):
            q = decided.get(kk, [0.0] * S)[c]  # past the computed totals: beyond kmax, the mover banks
            return "roll" if q == 1.0 else "bank" if q == 0.0 else "mixed"

        return value, result[0], hold[k_at] if k_at else None, result[1], keep_mix, kmax, then

    @staticmethod
    def _chosen(value, k, opts, m, tol, mix):
        """The win vector of a roll group: the mover's keep (the first in priority order within ``tol`` of
        the best for it), or the stored mixture of two keeps."""
        vals = [value[k + p][c2] for p, c2 in opts]
        best = max(v[m] for v in vals)
        if mix is not None:
            a, z, q = mix
            return [q * x + (1.0 - q) * y for x, y in zip(vals[a], vals[z])]
        for v in vals:
            if v[m] >= best - tol:
                return v
        raise AssertionError("unreachable")  # pragma: no cover

    # -- a final turn (the solver's final_turn_values) ---------------------------------------------
    def _final(self, b: Block, rs: RuleSet, X: int, own: int, later: tuple[int, ...], t_at: int):
        """Seat's final turn with bar ``X``, score ``own`` and the seats ``later`` after it (units): values over
        roles [leader, mover, later...] from the top total down to ``t_at``: (value, p_roll per class at t_at,
        bank vector at t_at or None, roll probability per class at t_at)."""
        mv = moves(rs)
        tol = b.tie_tolerance
        pexc = self.pexc(b)
        r = 1 + len(later)
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
        top = max(top + mv.max_pts, t_at + mv.max_pts)
        if later:
            phis = self.phi_along(b, later, range(X, top + 1))
        else:
            phis = {t: [1.0] for t in range(X, top + 1)}
        nxt = phis[X]
        bust = [nxt[0], 0.0, *nxt[1:]]
        S = len(mv.states)
        value = [None] * (top + 1)
        result = None
        rolls: set[tuple[int, int]] = set()
        for t in range(top, t_at - 1, -1):
            h = [0.0, *phis[t]] if t > X else None
            if t > X and (forced(t) or t + mv.max_pts > top) and t != t_at:
                value[t] = [h] * S
                continue
            pr_all, qs = [], []
            for c in range(S):
                _g0, groups = mv.groups[c]
                pr = [0.0] * (r + 1)
                for gp, opts in groups:
                    vals = [value[min(t + p, top)][c2] for p, c2 in opts]
                    best = max(v[1] for v in vals)
                    chosen = next(v for v in vals if v[1] >= best - tol)
                    pr = _add(pr, chosen, gp)
                pr = _add(pr, bust, mv.pf[c])
                if t > X and (forced(t) or t + mv.max_pts > top or not groups or pr[1] <= h[1] + tol):
                    q = 0.0
                else:
                    q = 1.0
                pr_all.append(pr)
                qs.append(q)
            value[t] = [pr if q else h for pr, q in zip(pr_all, qs)]
            rolls.update((t, c) for c in range(S) if qs[c])
            if t == t_at:
                result = (pr_all, qs, h)

        def then(kk, c):
            return "roll" if (own + kk, c) in rolls else "bank"

        return value, result[0], result[2], result[1], then

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
        c = moves(rs).states.index((n, t))
        N = b.players
        if final:
            _v, prs, h, qs, _then = self._final(b, rs, X, units[m], later, units[m] + k)
            pr, q = self._seats(prs[c], m, later, units, X), qs[c]
            bank = None if h is None or units[m] + k <= X else self._seats(h, m, later, units, X)
            cycle, source = None, f"computed from {layout.NP_FINAL_ROUND} (final turn)"
        else:
            cycle = self.cycle(b, units)
            _v, prs, hold, qs, _km, kmax, _then = self._turn(b, rs, units, m, k, cycle)
            pr, q = tuple(prs[c]), qs[c]
            can_bank = k > 0 and (units[m] > 0 or k * b.unit >= rs.opening_minimum)
            bank = tuple(hold) if can_bank else None
            source = f"computed from {layout.NP_TURN_STARTS}" + (
                f" and {layout.NP_FINAL_ROUND}" if units[m] + kmax + moves(rs).max_pts >= b.G else "")
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
        mv = moves(rs)
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
        if final:
            t_at = units[m] + k_next
            value, _p, _h, _q, decision = self._final(b, rs, X, units[m], later, t_at)
            nxt = self._final_bust(b, X, later)
            at = lambda kk, c: self._seats(value[units[m] + kk][c], m, later, units, X)  # noqa: E731
            farkle_v = self._seats(nxt, m, later, units, X)
            cycle, keep_mix, source = None, {}, f"computed from {layout.NP_FINAL_ROUND} (final turn)"
        else:
            cycle = self.cycle(b, units)
            value, _p, _h, _q, keep_mix, _kmax, decision = self._turn(b, rs, units, m, k_next, cycle)
            farkle_v = tuple(self.starts_along(b, (m + 1) % N + 1, units, m, units[m])[units[m]])
            at = lambda kk, c: tuple(value[kk][c])  # noqa: E731
            source = f"computed from {layout.NP_TURN_STARTS}"
        vals = []
        for kp in keeps:
            c2 = mv.states.index((kp.n_after, kp.t_after))
            vals.append((at(k + kp.points // u, c2), decision(k + kp.points // u, c2)))
        best_v = max(v[m] for v, _ in vals)
        taken = next(i for i in order if vals[i][0][m] >= best_v - b.tie_tolerance)
        prob = {taken: 1.0}
        c = mv.states.index((n, t))
        g = self._group_of(rs, c, keeps)
        mix = keep_mix.get((k, mv.groups[c][0] + g)) if g is not None else None
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
        mv = moves(rs)
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
            raise NotInDatabase(f"no N-player tables for {rules}; rebuild with: "
                                f"{self.q.rebuild_command(players=[3])}")
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
