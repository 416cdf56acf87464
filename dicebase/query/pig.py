"""Pig lookups: ``db.pig.best(scores, player, turn_total)`` (``state``: the same), ``seats``,
``compensation``, ``policies`` (issue 31; docs/pig.md).

One path for every number of players: the build stores every turn start's win vector
(``pig_turn_starts``, block (variant, players), :mod:`dicebase.layout.pig`); a mid-turn state is computed
here by Pig's turn, :func:`dicebase.rules.pig_turn.turn`, the very function the solver compiles, as plain
Python over the turn starts along the mover's score (read through the one block reader,
:class:`dicebase.query.blocks.Blocks`: by position on DuckDB, every row's key checked, by key on SQLite).
Answers have the shape of Great Rolled Ones' N-player answers (:class:`~dicebase.query.base.NAction`).
No numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial

from dicebase.layout import pig as layout
from dicebase.query import base
from dicebase.query.base import (
    BadInput, Compensation, NAction, NotInDatabase, SeatWin, how_to_add, is_scores, named, player_count,
    rebuild_command, whole_number,
)
from dicebase.query.blocks import Blocks
from dicebase.query.metadata import has_relation
from dicebase.rules import pig_turn
from dicebase.rules.pig import DEFAULT_OPTIONS, PLAYER_COUNTS, POLICIES, Rules, reachable

GAME = "pig"


@dataclass(frozen=True)
class Variant:
    """A rule set as stored in pig_variants."""

    name: str
    goal: int
    faces: int
    bust_face: int
    scores: tuple[int, ...]

    @cached_property
    def rules(self) -> Rules:
        return Rules(self.goal, self.faces, self.bust_face, self.scores)


@dataclass(frozen=True)
class Block:
    """One (variant, players) block as recorded in pig_players."""

    variant: Variant
    players: int
    tie_tolerance: float
    cycle_tuples: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.variant.name, self.players)


@dataclass(frozen=True)
class PigState:
    """Optimal (equilibrium) play at one state, every legal action with every seat's win probability."""

    variant: str
    players: int
    scores: tuple[int, ...]
    player: int  # the seat to move, 1..players
    turn_total: int
    best: str  # "roll", "hold" or "mixed" (the seat randomises here: see roll_probability)
    roll_probability: float
    p_win: float
    p_wins: tuple[float, ...]
    actions: tuple[NAction, ...]
    cycle: dict | None = None
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {"variant": self.variant, "players": self.players, "scores": list(self.scores), "player": self.player,
                "turn_total": self.turn_total, "best": self.best, "roll_probability": self.roll_probability,
                "p_win": self.p_win, "p_wins": list(self.p_wins), "actions": [a.as_dict() for a in self.actions],
                "cycle_tuple": self.cycle is not None, "cycle": self.cycle, "source": self.source,
                "notes": list(self.notes)}


@dataclass(frozen=True)
class PolicyCost:
    """A simple policy in one seat, the other seats playing the stored equilibrium (pig_policy_costs)."""

    variant: str
    players: int
    policy: str
    title: str
    seat: int
    p_win: float
    p_win_optimal: float
    cost: float  # p_win_optimal - p_win
    p_wins: tuple[float, ...]

    def as_dict(self) -> dict:
        return {"variant": self.variant, "players": self.players, "policy": self.policy, "title": self.title,
                "seat": self.seat, "p_win": self.p_win, "p_win_optimal": self.p_win_optimal, "cost": self.cost,
                "p_wins": list(self.p_wins)}


def parse_scores(scores) -> tuple[int, ...]:
    """``"30,41,12"`` or a list of whole numbers -> a tuple; BadInput (one line) otherwise."""
    return base.parse_scores(scores, PLAYER_COUNTS, "30,41,12")


class Queries:
    """Read-only lookups in the Pig tables of one database."""

    def __init__(self, db):
        self.db = db
        #: the block reader of this connection (its diagnostics: ``blocks.located()``, ``blocks.misplaced``)
        self.blocks = Blocks(db)

    # -- variants and blocks -----------------------------------------------------------------
    @cached_property
    def _variants(self) -> dict[str, Variant]:
        self.db.require_game(GAME)
        rows = self.db.fetchall("SELECT variant, goal, faces, bust_face, scores FROM pig_variants ORDER BY variant")
        return {r[0]: Variant(r[0], int(r[1]), int(r[2]), int(r[3]), tuple(int(x) for x in r[4].split(",")))
                for r in rows}

    def variants(self) -> list[Variant]:
        return list(self._variants.values())

    def variant(self, name: str | None = None) -> Variant:
        """The named rule set; without a name 'pig', or the only one built."""
        known = self._variants
        if name is None:
            if "pig" in known:
                return known["pig"]
            if len(known) == 1:
                return next(iter(known.values()))
            raise BadInput(f"several rule sets are built; choose one with --rules: {', '.join(known)}")
        return named(name, known, "rule set", unknown=f"this database has: {', '.join(known) or 'none'}")

    @cached_property
    def built(self) -> dict[tuple[str, int], Block]:
        """(variant, players) -> :class:`Block` of every block in the file."""
        variants = self._variants
        rows = self.db.fetchall("SELECT variant, players, tie_tolerance, cycle_tuples FROM pig_players "
                                "ORDER BY variant, players")
        return {(r[0], int(r[1])): Block(variants[r[0]], int(r[1]), float(r[2]), int(r[3]))
                for r in rows if r[0] in variants}

    def _block(self, players: int, variant: str | None) -> Block:
        """The block of ``players`` seats of the rule set; NotInDatabase with the rebuild command if not built."""
        return base.built_block(self.built, self.variant(variant).name, players, PLAYER_COUNTS, "pig.players",
                                self.how_to_add)

    def rebuild_command(self) -> str:
        """The command that rebuilds Pig into this file (the user's ``--db``) as it was built."""
        return rebuild_command(self.db, GAME, DEFAULT_OPTIONS)

    def how_to_add(self, *, rule_set: str | None = None, it: str = "it", lead: str = "", **changes) -> str:
        """"add it with: COMMAND" for what a build with ``changes`` adds (:func:`dicebase.query.base.how_to_add`);
        ``rule_set``: the house rule set it is for, whose rules file the command names."""
        return how_to_add(self.db, GAME, DEFAULT_OPTIONS, rule_set=rule_set, it=it, lead=lead, **changes)

    # -- reads -------------------------------------------------------------------------------
    def _starts_along(self, b: Block, seat: int, scores: tuple[int, ...], m: int) -> dict[int, tuple[float, ...]]:
        """{v: win vector at ``seat``'s turn start with 0-based seat ``m``'s score v (the others as given)} for
        v = scores[m] .. goal - 1: what a bust leaves and every hold's next turn start (:meth:`Blocks.along`)."""
        N, G = b.players, b.variant.goal
        table = layout.starts_table(N)
        found = self.blocks.in_order(table, b.key, lambda: {key: layout.start_rows(other.variant.goal, other.players)
                                                            for key, other in self.built.items()})
        return self.blocks.along(table, b.key, found, partial(layout.start_position, G, N), seat, scores, m, G,
                                 layout.WINS[:N])

    def _cycle(self, b: Block, scores: tuple[int, ...]) -> dict | None:
        """The stored equilibrium's record of a cycle tuple (None: not one)."""
        if not b.cycle_tuples:
            return None
        return base.cycle(self.db, GAME, b.key, scores, layout.SCORES, {"seat": "seat", "k": "turn_total"})

    # -- the lookup --------------------------------------------------------------------------
    def best(self, *state, variant: str | None = None) -> PigState:
        """Optimal play at a state, for any number of players: ``best(scores, player, turn_total=0)`` (``scores``
        one per seat in seat order, a list or a text ``"30,41,12"``; ``player`` the seat to move), or two
        players' ``best(player, score, opponent, turn_total)``.  Every legal action with every seat's win
        probability, best first."""
        if state and is_scores(state[0]):
            if not 2 <= len(state) <= 3:
                raise BadInput(f"best takes scores, player and turn_total, got {len(state)} values")
            scores, player, turn_total = parse_scores(state[0]), state[1], (*state[2:], 0)[0]
        elif len(state) == 4:
            player, score, opponent, turn_total = state
            p = whole_number(player, "player")
            if p not in (1, 2):
                raise BadInput(f"player must be 1 or 2 (two players: --score and --opponent), got {p}")
            mine, theirs = whole_number(score, "score"), whole_number(opponent, "opponent score")
            scores = (mine, theirs) if p == 1 else (theirs, mine)
        else:
            raise BadInput("best takes (scores, player, turn_total) or two players' (player, score, opponent, "
                           f"turn_total), got {len(state)} values")
        return self._best(scores, player, turn_total, variant)

    state = best

    def _best(self, scores: tuple[int, ...], player, turn_total, variant) -> PigState:
        N = len(scores)
        p, k = whole_number(player, "player"), whole_number(turn_total, "turn total")
        if not 1 <= p <= N:
            raise BadInput(f"player must be 1..{N} (the seat to move; --scores names {N} seats), got {p}")
        b = self._block(N, variant)
        r, G = b.variant.rules, b.variant.goal
        for n, s in enumerate(scores):
            if not 0 <= s < G:
                raise BadInput(f"seat {n + 1}'s score must be 0..{G - 1} (a seat that reaches {G} has won), got {s}")
        m = p - 1
        room = G - scores[m]
        if not 0 <= k < room:
            raise BadInput(f"turn total must be 0..{room - 1} (seat {p} has {scores[m]}: at {room} or more it reaches "
                           f"the goal {G}, holds and wins at once), got {k}")
        if k not in reachable(r, room - 1):
            raise BadInput(f"turn total {k} cannot occur (each roll adds one of {', '.join(map(str, sorted(set(r.gains))))})")
        nxt = (m + 1) % N
        starts = self._starts_along(b, nxt + 1, scores, m)
        if len(starts) != room:
            raise NotInDatabase(f"{layout.TURN_STARTS} lacks turn starts of {scores}; rebuild with: {self.rebuild_command()}")
        bust = starts[scores[m]]
        H = [[0.0] * N] + [list(starts[scores[m] + j]) for j in range(1, room)]
        cycle = self._cycle(b, scores)
        mix = [-1.0] * room
        for rec in (cycle or {}).get("randomising", []):
            if rec["seat"] == p and rec["turn_total"] < room:
                mix[rec["turn_total"]] = rec["p_roll"]
        A, c, dec, ivl, rv = [[0.0] * N for _ in range(room)], [0.0] * room, [0.0] * room, [0.0, 0.0], [0.0] * N
        rc = pig_turn.turn(m, N, room, k, bust[m], b.tie_tolerance, r.p_face, r.p_bust, r.gains, H, mix, rv, A, c, dec, ivl)
        roll = tuple(a + rc * x for a, x in zip(rv, bust))
        q = dec[k]
        roll_a = NAction("roll", roll[m], roll)
        if k == 0:
            actions, value = (roll_a,), roll
        else:
            hold = tuple(H[k])
            hold_a = NAction("hold", hold[m], hold)
            actions = (roll_a, hold_a) if q >= 0.5 else (hold_a, roll_a)
            value = roll if q == 1.0 else hold if q == 0.0 else tuple(q * a + (1.0 - q) * h for a, h in zip(roll, hold))
        best = "roll" if q == 1.0 else "hold" if q == 0.0 else "mixed"
        notes = () if k == 0 else (("a tie for the mover: it holds (hold before roll)",)
                                   if q == 0.0 and abs(roll[m] - hold[m]) <= b.tie_tolerance else ())
        return PigState(b.variant.name, N, scores, p, k, best, q, value[m], value, actions, cycle,
                        f"computed from {layout.TURN_STARTS}", notes)

    # -- aggregates ----------------------------------------------------------------------------
    def seats(self, players=None, variant: str | None = None) -> list[SeatWin]:
        """Each seat's win probability from the start, every seat optimal (pig_seat_wins): the first
        player's advantage, for every N built or one."""
        v = self.variant(variant)
        if players is not None:
            self._block(player_count(players, PLAYER_COUNTS), v.name)
        return base.seat_wins(self.db, GAME, v.name, players)

    def compensation(self, players, variant: str | None = None) -> Compensation:
        """The fair compensation for ``players`` seats (pig_fair_compensation)."""
        n = player_count(players, PLAYER_COUNTS)
        b = self._block(n, variant)
        return base.compensation(self.db, GAME, b.variant.name, n, layout.SCORES, layout.WINS, self.rebuild_command)

    def policies(self, players=None, variant: str | None = None) -> list[PolicyCost]:
        """Each simple policy in each seat against the stored equilibrium (pig_policy_costs): every N built
        with policy costs, or ``players``."""
        v = self.variant(variant)
        n = None
        if players is not None:
            n = player_count(players, PLAYER_COUNTS)
            self._block(n, v.name)
        wins = ", ".join(f"w.{c}" for c in layout.WINS)
        rows = self.db.fetchall(
            f"SELECT c.players, c.policy, c.seat, c.p_win, c.p_win_optimal, c.cost, {wins} FROM pig_policy_costs c "
            "JOIN pig_policy_wins w ON w.variant = c.variant AND w.players = c.players AND w.policy = c.policy AND "
            "w.seat = c.seat WHERE c.variant = ? ORDER BY c.players, c.policy, c.seat", (v.name,)
        ) if has_relation(self.db, "pig_policy_wins") else []
        got = [PolicyCost(v.name, int(a), str(pol), POLICIES[pol].title if pol in POLICIES else str(pol), int(s),
                          float(w), float(o), float(cost), tuple(float(x) for x in ws[:int(a)]))
               for a, pol, s, w, o, cost, *ws in rows if n is None or int(a) == n]
        if not got:
            counts = sorted({c for name, c in self.built if name == v.name} | ({n} if n else set())) or [2]
            wanted = sorted({int(r[0]) for r in rows} | {n or 2})
            raise NotInDatabase(f"no simple-policy costs{f' for {n} players' if n else ''} in {v.name}; rebuild with: "
                                f"{rebuild_command(self.db, GAME, DEFAULT_OPTIONS, players=counts, policy_players=wanted)}")
        return got
