"""Great Rolled Ones for N players: lookups in the N-player tables (issue 21; docs/n_players.md).

``db.rolled_ones.best(scores, player, turn_total, ones)`` with three or more seats (``db.rolled_ones.n.best``
for any number, two included), ``seats(players)`` and
``compensation(players)`` answer from the tables the build writes for each (variant, players)
(:mod:`dicebase.layout.rolled_ones`): every turn start's win vector (``rolled_ones_turn_starts``),
the compact final round (``rolled_ones_final_turns``) and the cycle tuples with their mixing
probabilities.  A mid-turn state is computed here by the turn the solver runs, defined once in
:mod:`dicebase.rules.rolled_ones_turn` (``play_turn``, ``final_start``, ``final_turn``: plain Python here,
compiled in the builder and the bots, so the answers are the solver's to the bit)::

    P_roll(m, s, k, o) = P_end(o) P(m+1, s, 0, 0) + sum_n P_new1s(D-o, n) P(m, s, k + D - o', o')
    P_hold(m, s, k)    = P(m+1, s + k e_m, 0, 0)        if s_m + k < goal
                       = e_m                            if s_m + k >= goal and m is the last seat
                       = Phi_{m+1}(s_m + k; s_{m+1}..)  otherwise (the final round)

from ``turn_total_bound + dice`` stored vectors.  ``Phi_j(X; s_j..)`` (roles [leader, j, ..]) comes from
the stored final turns above the bar and the first-passage chances ``Q`` of the rules.  Rows are read
through the one block reader (:class:`dicebase.query.blocks.Blocks`): by position on DuckDB, every
row's key checked, by key on SQLite.  No numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property, partial

from dicebase.layout import rolled_ones as layout
from dicebase.query import base
from dicebase.query.base import (
    BadInput, Compensation, NAction, NotInDatabase, SeatWin, player_count, whole_number,
)
from dicebase.query.blocks import Found
from dicebase.query.metadata import has_relation
from dicebase.rules.rolled_ones import (
    DEFAULT_OPTIONS, PLAYER_COUNTS, POLICY_MODES, Rules, final_totals, reachable_turns,
)
from dicebase.rules.rolled_ones_turn import (
    Grid, final_start, final_turn, first_passage_from_zero, outcome_grids, play_turn,
)

WINS = ", ".join(layout.WINS)


@dataclass(frozen=True)
class Block:
    """One (variant, players) block as recorded in ``rolled_ones_players``."""

    variant: str
    players: int
    goal: int
    dice: int
    faces: int
    ones_limit: int
    turn_total_bound: int
    score_cap: int
    tie_tolerance: float
    cycle_tuples: int
    mixed_tuples: int

    @cached_property
    def rules(self) -> Rules:
        return Rules(self.goal, self.dice, self.ones_limit, self.faces, self.turn_total_bound)

    @property
    def key(self) -> tuple[str, int]:
        return (self.variant, self.players)


@dataclass(frozen=True)
class NStateValue:
    """Optimal (equilibrium) play at one N-player state, every legal action with its win vector."""

    variant: str
    players: int
    scores: tuple[int, ...]
    player: int  # the seat to move, 1..players
    turn_total: int
    ones: int
    best: str  # "roll", "hold" or "mixed" (the seat randomises here: see roll_probability)
    roll_probability: float  # 1 (rolls), 0 (holds) or the stored mixing probability
    p_win: float
    p_wins: tuple[float, ...]
    actions: tuple[NAction, ...]
    cycle: dict | None = None  # the tuple's stored equilibrium was selected (see docs/n_players.md)
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "players": self.players,
            "scores": list(self.scores),
            "player": self.player,
            "turn_total": self.turn_total,
            "ones": self.ones,
            "best": self.best,
            "roll_probability": self.roll_probability,
            "p_win": self.p_win,
            "p_wins": list(self.p_wins),
            "actions": [a.as_dict() for a in self.actions],
            "cycle_tuple": self.cycle is not None,
            "cycle": self.cycle,
            "source": self.source,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class PolicyCost:
    """What one of seed 002's human policies costs the seat that uses it, the other seats playing as ``mode``
    says: ``equilibrium`` (they keep the stored equilibrium) or ``best_response`` (they exploit the policy)."""

    variant: str
    players: int
    mode: str
    policy: str
    seat: int
    p_win: float
    p_win_optimal: float
    cost: float  # p_win_optimal - p_win
    cycle_tuples: int

    def as_dict(self) -> dict:
        return {"variant": self.variant, "players": self.players, "mode": self.mode, "policy": self.policy,
                "seat": self.seat,
                "p_win": self.p_win, "p_win_optimal": self.p_win_optimal, "cost": self.cost,
                "cycle_tuples": self.cycle_tuples}


# --------------------------------------------------------------------------- the rules' tables
def parse_scores(scores) -> tuple[int, ...]:
    """``"30,41,12"`` or a list of whole numbers -> a tuple; BadInput (one line) otherwise."""
    return base.parse_scores(scores, PLAYER_COUNTS, "30,41,12")


class NPlayers:
    """The N-player lookups of one connection (``db.rolled_ones.n``)."""

    def __init__(self, q):
        self.q = q
        self.db = q.db
        self.blocks = q.blocks

    # -- what is built ------------------------------------------------------------------------
    @cached_property
    def built(self) -> dict[tuple[str, int], Block]:
        """(variant, players) -> :class:`Block` of every N-player block in the file."""
        self.db.require_game("rolled_ones")
        if not has_relation(self.db, "rolled_ones_players"):
            return {}
        rows = self.db.fetchall(
            "SELECT p.variant, p.players, v.goal, v.dice, v.faces, v.ones_limit, p.turn_total_bound, p.score_cap, "
            "p.tie_tolerance, p.cycle_tuples, p.mixed_tuples FROM rolled_ones_players p "
            "JOIN rolled_ones_variants v ON v.variant = p.variant ORDER BY p.variant, p.players")
        return {(r[0], int(r[1])): Block(r[0], *(int(x) for x in r[1:8]), float(r[8]), int(r[9]), int(r[10]))
                for r in rows}

    def block(self, players: int, variant: str | None) -> Block:
        """The block of ``players`` seats of the variant; NotInDatabase with the rebuild command if not built."""
        return base.built_block(self.built, self.q.variant(variant).name, players, PLAYER_COUNTS,
                                "rolled-ones.players", self.q.how_to_add)

    # -- reads --------------------------------------------------------------------------------
    def _found(self, table, b: Block, size) -> Found | None:
        """Where ``b``'s block of ``table`` lies: after the blocks before it in (variant, players) order
        (:meth:`Blocks.in_order`), ``size(block)`` the rows of each."""
        return self.blocks.in_order(table, b.key, lambda: {key: size(other) for key, other in self.built.items()})

    def starts_along(self, b: Block, seat: int, scores: tuple[int, ...], m: int) -> dict[int, tuple[float, ...]]:
        """{v: win vector at ``seat``'s turn start with seat ``m + 1``'s score v (the other scores as
        given)} for v = scores[m] .. goal - 1: a bust's and every hold's next turn start (:meth:`Blocks.along`)."""
        N, G = b.players, b.goal
        table = layout.starts_table(N)
        found = self._found(table, b, lambda o: layout.start_rows(o.goal, o.players))
        return self.blocks.along(table, b.key, found, partial(layout.start_position, G, N), seat, scores, m, G,
                                 layout.WINS[:N])

    def final_rows(self, b: Block, j: int, later: tuple[int, ...]) -> dict[tuple[int, int], tuple[float, ...]]:
        """{(total, ones): (p_bust, FA of seats j..N-1)} of 0-based seat ``j``'s final turn above the bar,
        the later seats' scores ``later`` (seats j+1 .. N-1)."""
        N, G, L = b.players, b.goal, b.ones_limit
        table = layout.finals_table(N)
        scores = (0,) * (j + 1) + tuple(later)
        tt = final_totals(b.rules, N, b.score_cap)[j]
        wins = ", ".join(layout.WINS[j:N])
        found = self._found(table, b, lambda o: layout.final_layout(o.rules, o.players, o.score_cap)[2])

        def pack(total, ones, p_bust, *fa):
            return (int(total), int(ones)), (float(p_bust), *(float(x) for x in fa))

        if found is not None:
            position = partial(layout.final_position, b.rules, N, b.score_cap)
            first = position(j + 1, *scores, G + 1, 0)
            last = position(j + 1, *scores, G + tt, L - 1)
            rows = self.blocks.read(table, b.key, found, first, last, f"p_bust, {wins}", position)
            if rows is not None:
                return dict(pack(*row[2 + N:]) for row in rows)
        sql = (f"SELECT total, ones, p_bust, {wins} FROM {layout.FINAL_TURNS} WHERE variant = ? AND players = ? "
               f"AND seat = ? AND " + " AND ".join(f"{c} = ?" for c in layout.SCORES[:N]))
        return dict(pack(*row) for row in self.db.read(sql, (*b.key, j + 1, *scores)))

    def cycle(self, b: Block, scores: tuple[int, ...]) -> dict | None:
        """The stored equilibrium's record of a cycle tuple (None: not one)."""
        if not b.cycle_tuples:
            return None
        return base.cycle(self.db, "rolled_ones", b.key, scores, layout.SCORES,
                          {"seat": "seat", "k": "turn_total", "o": "ones"})

    # -- the final round ----------------------------------------------------------------------
    def phi(self, b: Block, j: int, X: int, later: tuple[int, ...], cache: dict) -> list[float]:
        """``Phi_j(X; later)``: roles [leader, j, .., N-1] when 0-based seat ``j`` starts its final turn
        with bar ``X``; ``later`` = the scores of seats j .. N-1 (the solver's
        :func:`~dicebase.rules.rolled_ones_turn.final_start` on the stored rows)."""
        key = (j, X, later)
        if key in cache:
            return cache[key]
        N, G, D, L = b.players, b.goal, b.dice, b.ones_limit
        free = cache.get(("free", j, later[1:]))
        if free is None:
            free = cache[("free", j, later[1:])] = self.free_region(b, j, later[1:])
        last = j == N - 1
        nb = [] if last else self.phi(b, j + 1, X, later[1:], cache)
        out = [0.0] * (N - j + 1)
        Q0 = first_passage_from_zero(b.rules, G + b.turn_total_bound + 2 * D)
        final_start(N - j, D, L, X - later[0], X - G - 1, Q0, *free, last, nb, 0, out, 0, [0.0] * (N - j))
        cache[key] = out
        return out

    def free_region(self, b: Block, j: int, later: tuple[int, ...]) -> tuple[Grid, Grid]:
        """``(FA[t - G - 1, o, :], Fc[t - G - 1, o])``: 0-based seat ``j``'s stored final turn above the bar
        (its holding outcomes' win probabilities for seats j..N-1 and its chance of three 1s), the later
        seats' scores ``later``."""
        N, G, L = b.players, b.goal, b.ones_limit
        tt = final_totals(b.rules, N, b.score_cap)[j]
        rows = self.final_rows(b, j, later)
        if len(rows) != tt * L:
            raise NotInDatabase(f"{layout.FINAL_TURNS} lacks rows of seat {j + 1}'s final turn; rebuild with: "
                                f"{self.q.rebuild_command()}")
        FA, Fc = Grid((tt, L, N - j)), Grid((tt, L))
        for (t, o), (p_bust, *fa) in rows.items():
            Fc[t - G - 1, o] = p_bust
            for i, x in enumerate(fa):
                FA[t - G - 1, o, i] = x
        return FA, Fc

    # -- the lookup ---------------------------------------------------------------------------
    def best(self, scores, player, turn_total, ones, variant: str | None = None) -> NStateValue:
        scores = parse_scores(scores)
        N = len(scores)
        p, k, o = (whole_number(x, name) for x, name in ((player, "player"), (turn_total, "turn total"),
                                                         (ones, "ones")))
        if not 1 <= p <= N:
            raise BadInput(f"player must be 1..{N} (the seat to move; --scores names {N} seats), got {p}")
        b = self.block(N, variant)
        G, K, L = b.goal, b.turn_total_bound, b.ones_limit
        if any(s >= G for s in scores):
            return self.final_best(b, scores, p, k, o)
        for n, s in enumerate(scores):
            if not 0 <= s < G:
                raise BadInput(f"seat {n + 1}'s score must be 0..{G - 1} (a turn that ends at {G} or more makes the "
                               f"round the last; final-round states are not answered by this lookup), got {s}")
        if not 0 <= o < L:
            raise BadInput(f"ones must be 0..{L - 1} (ones set aside; {L} end the turn), got {o}")
        if not 0 <= k <= K:
            raise BadInput(f"turn total must be 0..{K} (the stored bound for {N} players; beyond it the mover "
                           f"holds), got {k}")
        if (k, o) not in reachable_turns(b.rules):
            raise BadInput(f"turn total {k} with {o} ones set aside cannot occur (a roll adds its non-1s, "
                           f"{b.dice - b.ones_limit + 1} to {b.dice} points)")
        cycle = self.cycle(b, scores)
        mix = {}
        for rec in (cycle or {}).get("randomising", []):
            if rec["seat"] == p:
                mix[(rec["turn_total"], rec["ones"])] = rec["p_roll"]
        pr, hold, q, value = self.turn(b, scores, p - 1, k, o, mix)
        m = p - 1
        roll_a = NAction("roll", pr[m], pr)
        actions = (roll_a,) if k == 0 else ((roll_a, NAction("hold", hold[m], hold)) if q >= 0.5
                                            else (NAction("hold", hold[m], hold), roll_a))
        best = "roll" if q == 1.0 else "hold" if q == 0.0 else "mixed"
        return NStateValue(b.variant, N, scores, p, k, o, best, q, value[m], value, actions, cycle,
                           f"computed from {layout.TURN_STARTS}" + ("" if m == N - 1 or scores[m] + K < G
                                                                    else f" and {layout.FINAL_TURNS}"))

    def final_best(self, b: Block, scores: tuple[int, ...], p: int, k: int, o: int) -> NStateValue:
        """A final-round state: some seat before ``p`` has reached the goal this round and seat ``p`` takes
        its final turn against the bar (the highest score); the solver's ``final_turn_values``, with each
        action's win vector (P_hold: the seats after it play against the new bar; P_roll: every outcome)."""
        N, G, L = b.players, b.goal, b.ones_limit
        j = p - 1
        before = scores[:j]
        bar = max(before) if before else -1
        for n in range(j, N):
            if scores[n] >= G:
                raise BadInput(f"seat {n + 1}'s score must be 0..{G - 1}: in the final round only seats before the "
                               f"mover (seat {p}) can be at or above the goal {G}, got {scores[n]}")
        if bar < G:  # pragma: no cover - some score is at or above the goal, and none from the mover on
            raise AssertionError("unreachable")
        high = [s for s in before if s >= G]
        if any(x >= y for x, y in zip(high, high[1:])):
            raise BadInput(f"the scores at or above the goal must rise in seat order (each final turn ends above the "
                           f"bar or keeps its score), got {', '.join(str(s) for s in high)}")
        if not 0 <= o < L:
            raise BadInput(f"ones must be 0..{L - 1} (ones set aside; {L} end the turn), got {o}")
        top = G + final_totals(b.rules, N, b.score_cap)[j]
        t = scores[j] + k
        if bar >= top - b.dice or t > top:
            raise BadInput(f"the final round is stored for bars below {top - b.dice} and totals up to {top} (the score "
                           f"cap {b.score_cap}: beyond it a seat above the bar holds), got bar {bar}, total {t}")
        if (k, o) not in reachable_turns(replace(b.rules, turn_total_bound=max(k, b.turn_total_bound))):
            raise BadInput(f"turn total {k} with {o} ones set aside cannot occur (a roll adds its non-1s, "
                           f"{b.dice - b.ones_limit + 1} to {b.dice} points)")
        later = tuple(scores[j + 1:])
        leader = before.index(bar)
        roll_roles, hold_roles = self.final_turn(b, j, bar, scores[j], later, t, o)

        def vector(roles):  # roles [leader, j, .., N-1] -> one entry per seat
            if roles is None:
                return None
            vec = [0.0] * N
            vec[leader] = roles[0]
            vec[j:] = roles[1:]
            return tuple(vec)

        pr, hold = vector(roll_roles), vector(hold_roles)
        notes = [f"final round: seat {leader + 1} leads with {bar}; seat {p} may hold only above it"]
        if hold is None:  # at or below the bar: it must roll
            q, actions = 1.0, (NAction("roll", pr[j], pr),)
        elif pr is None:  # at the score cap the solver holds (a cap proven harmless, docs/n_players.md)
            q, actions = 0.0, (NAction("hold", hold[j], hold),)
            notes.append(f"at the score cap {b.score_cap} the stored play holds")
        else:
            q = 1.0 if pr[j] > hold[j] + b.tie_tolerance else 0.0
            roll_a, hold_a = NAction("roll", pr[j], pr), NAction("hold", hold[j], hold)
            actions = (roll_a, hold_a) if q == 1.0 else (hold_a, roll_a)
        value = pr if q == 1.0 else hold
        return NStateValue(b.variant, N, scores, p, k, o, "roll" if q == 1.0 else "hold", q, value[j], value, actions,
                           None, f"computed from {layout.FINAL_TURNS}", tuple(notes))

    def final_turn(self, b: Block, j: int, bar: int, own: int, later: tuple[int, ...], t_at: int, o_at: int):
        """(P_roll, P_hold) over roles [leader, j, .., N-1] at total ``t_at`` with ``o_at`` 1s of 0-based seat
        ``j``'s final turn with bar ``bar`` (P_hold None where holding is not allowed): the solver's
        :func:`~dicebase.rules.rolled_ones_turn.final_turn`, above the bar from the stored rows, at or below it
        by rolling."""
        r, N, G = b.rules, b.players, b.goal
        cache: dict = {}
        nxt = [1.0] if j == N - 1 else self.phi(b, j + 1, bar, later, cache)
        bust = [nxt[0], 0.0] + list(nxt[1:])  # the old leader keeps its role, j gets 0
        top = G + final_totals(r, N, b.score_cap)[j]
        value = Grid((top + 1, r.ones_limit, N - j + 1))
        final_turn(N - j, G, r.ones_limit, top, max(bar, t_at), t_at, bust, *self.free_region(b, j, later),
                   *outcome_grids(r), value, [0.0] * (N - j + 1))
        roll = value.row(t_at, o_at)
        if t_at > bar:
            hold = [0.0, 1.0] if j == N - 1 else [0.0] + list(self.phi(b, j + 1, t_at, later, cache))  # j leads
            return (None if t_at >= b.score_cap else roll), hold
        return roll, None

    def turn(self, b: Block, scores: tuple[int, ...], m: int, k_at: int, o_at: int, mix: dict):
        """(P_roll, P_hold, roll probability, value) at (k_at, o_at) of seat ``m``'s turn: the turn as the
        solver defines it (:func:`dicebase.rules.rolled_ones_turn.play_turn`), from ``k = turn_total_bound``
        down to ``k_at``."""
        r, N, G = b.rules, b.players, b.goal
        K, D, L = b.turn_total_bound, r.dice, r.ones_limit
        nxt = (m + 1) % N
        starts = self.starts_along(b, nxt + 1, scores, m)
        if len(starts) != G - scores[m]:
            raise NotInDatabase(f"{layout.TURN_STARTS} lacks turn starts of {scores}; rebuild with: "
                                f"{self.q.rebuild_command()}")
        cache: dict = {}
        hold = Grid((K + D + 1, N))
        for k in range(1, K + D + 1):
            t = scores[m] + k
            if t < G:
                vec = starts[t]
            else:
                vec = [0.0] * N
                if m == N - 1:
                    vec[m] = 1.0
                else:
                    roles = self.phi(b, m + 1, t, tuple(scores[m + 1:]), cache)
                    vec[m] = roles[0]
                    vec[m + 1:] = roles[1:]
            for i in range(N):
                hold[k, i] = vec[i]
        mixq = Grid((K + 1, L), math.nan)
        for (k, o), p in mix.items():
            mixq[k, o] = p
        value, proll, q = Grid((K + D + 1, L, N)), Grid((K + 1, L, N)), Grid((K + 1, L))
        play_turn(m, 0, N, K, D, L, k_at, b.tie_tolerance, *outcome_grids(r), hold, starts[scores[m]], mixq, value,
                  proll, q, [0.0] * N)
        return proll.row(k_at, o_at), (None if k_at == 0 else hold.row(k_at)), q[k_at, o_at], value.row(k_at, o_at)

    # -- aggregates ----------------------------------------------------------------------------
    def seats(self, players=None, variant: str | None = None) -> list[SeatWin]:
        """Each seat's win probability from the start, every seat optimal (rolled_ones_seat_wins)."""
        v = self.q.variant(variant)
        if players is not None:
            n = player_count(players, PLAYER_COUNTS)
            self.block(n, v.name)
        elif not any(name == v.name for name, _ in self.built):
            remedy = self.q.how_to_add(rule_set=v.name, it="them", lead="rebuild with",
                                       players=list(DEFAULT_OPTIONS["players"]))
            raise NotInDatabase(f"no N-player tables for {v.name}; {remedy}")
        return base.seat_wins(self.db, "rolled_ones", v.name, players)

    def compensation(self, players, variant: str | None = None) -> Compensation:
        """The fair compensation for ``players`` seats (rolled_ones_fair_compensation)."""
        n = player_count(players, PLAYER_COUNTS)
        b = self.block(n, variant)
        return base.compensation(self.db, "rolled_ones", b.variant, n, layout.SCORES, layout.WINS,
                                 self.q.rebuild_command)

    def policies(self, players=None, variant: str | None = None, mode: str = "equilibrium") -> list[PolicyCost]:
        """Seed 002's human policies with N players (rolled_ones_policy_costs): each policy in each seat against
        the equilibrium, the other seats playing as ``mode`` says (:data:`POLICY_MODES`: ``equilibrium``, they
        keep the stored equilibrium; ``best_response``, they exploit the policy); every N built, or ``players``."""
        v = self.q.variant(variant)
        if mode not in POLICY_MODES:
            raise BadInput(f"mode must be one of {', '.join(POLICY_MODES)}, got {mode!r}")
        n = None
        if players is not None:
            n = player_count(players, PLAYER_COUNTS)
            self.block(n, v.name)
        rows = []
        if has_relation(self.db, "rolled_ones_policy_costs") and "mode" in self.db.columns(
                "SELECT * FROM rolled_ones_policy_costs LIMIT 0")[0]:
            rows = self.db.fetchall(
                "SELECT players, policy, seat, p_win, p_win_optimal, cost, cycle_tuples FROM rolled_ones_policy_costs "
                "WHERE variant = ? AND mode = ? ORDER BY players, policy, seat", (v.name, mode))
        got = [PolicyCost(v.name, int(a), mode, str(pol), int(s), float(w), float(o), float(c), int(cy))
               for a, pol, s, w, o, c, cy in rows if n is None or int(a) == n]
        if not got:
            counts = sorted({c for name, c in self.built if name == v.name} | ({n} if n else set())) or [2, 3]
            key = "policy_players" if mode == "equilibrium" else "policy_best_response_players"
            wanted = sorted({int(r[0]) for r in rows} | {n or 2})  # the counts it has, and this one
            raise NotInDatabase(
                f"no human-policy costs ({mode}){f' for {n} players' if n else ''} in {v.name}; rebuild with: "
                f"{self.q.rebuild_command_with(players=counts, **{key: wanted})}")
        return got
