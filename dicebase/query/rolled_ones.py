"""Great Rolled Ones lookups: ``db.rolled_ones.best(...)``, ``komi``, ``gaps``, ``policy`` ...

Plain SQL over the rolled_ones_* tables (no sqlalchemy, no numpy: the CLI
starts fast).  A state is seed 002's ``(p, i, j, k, o)``: player to move,
mover's score, opponent's score, turn total, 1s set aside.  Three kinds of
state are answered:

* ``i, j < goal`` and a stored turn total: one row of ``rolled_ones_states``;
* player 2's final turn (``j >= goal``): the row ``delta = j - (i + k)`` of
  ``rolled_ones_p_exceed`` (every policy plays it like optimal play);
* player 2 who could already hold and win (``i + k >= goal + dice``, not
  stored): holding wins (1), rolling is worth ``1 - P_end(o) P(1, j, i, 0, 0)``
  with ``P(1, j, i, 0, 0)`` read from the table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property, partial

from dicebase.layout import rolled_ones as layout
from dicebase.query.base import (
    BadInput, NotInDatabase, clip, first, how_to_add, is_scores, named, ready_to_hold, rebuild_command,
    whole_number,
)
from dicebase.query.blocks import Blocks, Found, held_bytes
from dicebase.rules.rolled_ones import DEFAULT_OPTIONS, POLICY_NAMES, Rules, reachable_turns

STATES = layout.STATES.name
FINAL = layout.FINAL.name
#: Largest ``disagreements`` limit: more than any buildable variant has states, and far from
#: the 64-bit overflow of LIMIT in DuckDB and SQLite.
LIMIT_MAX = 10_000_000
COMPUTED = "computed: player 2 passed a certain win (P_hold = 1, P_roll = 1 - P_end(o) * P(1, j, i, 0, 0))"


@dataclass(frozen=True)
class Variant:
    """A rule set as stored in rolled_ones_variants."""

    name: str
    goal: int
    dice: int
    faces: int
    ones_limit: int
    turn_total_bound: int
    komi_max: int

    @cached_property
    def rules(self) -> Rules:
        return Rules(self.goal, self.dice, self.ones_limit, self.faces, self.turn_total_bound)

    @cached_property
    def reachable(self) -> frozenset[tuple[int, int]]:
        """Every (k, o) a turn can reach with k <= turn_total_bound (each roll adds dice - o' points)."""
        return reachable_turns(self.rules)

    def p_end(self, o: int) -> float:
        """Probability that the next roll (dice - o dice) brings the 1s to ones_limit or more."""
        return self.rules.p_end[o]


@dataclass(frozen=True)
class State:
    p: int
    i: int
    j: int
    k: int
    o: int

    def as_dict(self) -> dict:
        return {"player": self.p, "score": self.i, "opponent": self.j, "turn_total": self.k, "ones": self.o}


@dataclass(frozen=True)
class ActionValue:
    action: str  # "roll" or "hold"
    p_win: float  # the mover's win probability with this action, optimal play after


@dataclass(frozen=True)
class StateValue:
    """Optimal play at one state: both actions with their values, best first."""

    variant: str
    state: State
    p_roll: float
    p_hold: float
    best: str
    p_win: float
    source: str  # which table answered (or how it was computed)
    actions: tuple[ActionValue, ...] = field(default=())

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            **self.state.as_dict(),
            "p_roll": self.p_roll,
            "p_hold": self.p_hold,
            "best": self.best,
            "p_win": self.p_win,
            "actions": [{"action": a.action, "p_win": a.p_win} for a in self.actions],
            "source": self.source,
        }


@dataclass(frozen=True)
class KomiRow:
    komi: int
    p1_win: float
    p2_win: float


@dataclass(frozen=True)
class Komi:
    variant: str
    rows: tuple[KomiRow, ...]
    fair_komi: int
    fair_p1_win: float

    def as_dict(self) -> dict:
        return {**asdict(self), "rows": [asdict(r) for r in self.rows]}


@dataclass(frozen=True)
class Gap:
    policy: str
    algorithm: int
    p1_win: float
    p2_win: float
    gap: float
    seed_gap: float | None  # seed 002 Fig. 2; None for a variant other than 'standard'

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Advantage:
    variant: str
    p1_win: float
    p2_win: float
    advantage: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PolicyAdvice:
    """What a human policy does at a state, against optimal play's action."""

    variant: str
    policy: str
    title: str
    state: State
    action: str
    optimal_action: str
    p_win_action: float  # mover's win probability with the policy's action, optimal play after
    p_win_optimal: float  # ... with the optimal action
    cost: float  # p_win_optimal - p_win_action
    p_win_moving: float  # the policy plays seat p against the optimal player from here: its win probability
    p_win_waiting: float  # the optimal player is to move here, the policy plays seat 3 - p: its win probability

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "policy": self.policy,
            "title": self.title,
            **self.state.as_dict(),
            "action": self.action,
            "optimal_action": self.optimal_action,
            "agrees": self.action == self.optimal_action,
            "p_win_action": self.p_win_action,
            "p_win_optimal": self.p_win_optimal,
            "cost": self.cost,
            "p_win_moving": self.p_win_moving,
            "p_win_waiting": self.p_win_waiting,
        }


@dataclass(frozen=True)
class Disagreement:
    state: State
    policy_action: str
    optimal_action: str
    p_win: float
    cost: float

    def as_dict(self) -> dict:
        return {
            **self.state.as_dict(),
            "policy_action": self.policy_action,
            "optimal_action": self.optimal_action,
            "p_win": self.p_win,
            "cost": self.cost,
        }


def rank(p_roll: float, p_hold: float, best: str) -> tuple[ActionValue, ...]:
    """Both actions, the optimal one first."""
    actions = [ActionValue("roll", p_roll), ActionValue("hold", p_hold)]
    return tuple(sorted(actions, key=lambda a: a.action != best))


def policy_name(name: str) -> str:
    """``fixed-hold-at`` or ``fixed_hold_at`` -> ``fixed_hold_at``; BadInput for unknown names."""
    key = str(name).strip().lower().replace("-", "_")
    if key not in POLICY_NAMES:
        allowed = ", ".join(n.replace("_", "-") for n in POLICY_NAMES)
        raise BadInput(f"unknown policy {clip(name)}; allowed: {allowed}")
    return key


class Queries:
    """Read-only lookups in the Great Rolled Ones tables of one database."""

    def __init__(self, db):
        self.db = db
        #: the block reader of this connection (its diagnostics: ``blocks.located()``, ``blocks.misplaced``)
        self.blocks = Blocks(db)

    @property
    def misplaced(self) -> list[str]:
        """Variants' blocks whose rows were not where the build puts them (read by key filters)."""
        return self.blocks.misplaced

    # -- variants ---------------------------------------------------------
    @cached_property
    def _variants(self) -> dict[str, Variant]:
        self.db.require_game("rolled_ones")
        rows = self.db.fetchall(
            "SELECT variant, goal, dice, faces, ones_limit, turn_total_bound, komi_max FROM rolled_ones_variants ORDER BY variant"
        )
        return {r[0]: Variant(*r) for r in rows}

    def variants(self) -> list[Variant]:
        return list(self._variants.values())

    def variant(self, name: str | None = None) -> Variant:
        """The named variant; without a name 'standard', or the only one built."""
        known = self._variants
        if name is None:
            if "standard" in known:
                return known["standard"]
            if len(known) == 1:
                return next(iter(known.values()))
            raise BadInput(f"several variants are built; choose one with --variant: {', '.join(known)}")
        return named(name, known, "variant", unknown=f"this database has: {', '.join(known) or 'none'}")

    def rebuild_command(self) -> str:
        """The command that rebuilds Great Rolled Ones into this file (the user's ``--db``) with
        the options it was built with."""
        return rebuild_command(self.db, "rolled_ones", DEFAULT_OPTIONS)

    def rebuild_command_with(self, *, rule_set: str | None = None, **changes) -> str:
        """:meth:`rebuild_command` with ``changes`` to the build options (e.g. ``players=[2, 3, 4]``)."""
        return rebuild_command(self.db, "rolled_ones", DEFAULT_OPTIONS, rule_set=rule_set, **changes)

    def how_to_add(self, *, rule_set: str | None = None, it: str = "it", lead: str = "", **changes) -> str:
        """"add it with: COMMAND" for what a build with ``changes`` adds, or why no build can, or its size
        and the command that builds it anyway (:func:`dicebase.query.base.how_to_add`)."""
        return how_to_add(self.db, "rolled_ones", DEFAULT_OPTIONS, rule_set=rule_set, it=it, lead=lead, **changes)

    # -- N players (dicebase.query.rolled_ones_n) ---------------------------
    @cached_property
    def n(self):
        """The N-player lookups (:class:`dicebase.query.rolled_ones_n.NPlayers`) of this connection."""
        from dicebase.query.rolled_ones_n import NPlayers

        return NPlayers(self)

    def seats(self, players=None, variant: str | None = None):
        """N players: each seat's win probability from the start with optimal play (every N built, or one)."""
        return self.n.seats(players, variant=variant)

    def compensation(self, players, variant: str | None = None):
        """N players: the fair compensation (starting scores bringing every seat closest to 1/N)."""
        return self.n.compensation(players, variant=variant)

    # -- validation -------------------------------------------------------
    def state(self, v: Variant, player, score, opponent, turn_total, ones) -> State:
        """Check a state against the variant's rules and stored bounds (BadInput with what is allowed)."""
        if not isinstance(v, Variant):
            raise BadInput(f"v must be a Variant (from .variant(name)), got {clip(v)}")
        p, i, j, k, o = (_whole(x, name) for x, name in (
            (player, "player"), (score, "score"), (opponent, "opponent score"), (turn_total, "turn total"), (ones, "ones")
        ))
        G, K, L = v.goal, v.turn_total_bound, v.ones_limit
        if p not in (1, 2):
            raise BadInput(f"player must be 1 or 2, got {p}")
        if not 0 <= i < G:
            raise BadInput(
                f"score must be 0..{G - 1} (a player at {G} or more has ended the game or made this the last round), got {i}"
            )
        j_max = G - 1 if p == 1 else G - 1 + K
        if not 0 <= j <= j_max:
            why = (
                f"player 1 moves while player 2 is below {G}"
                if p == 1
                else f"player 1's score: below {G}, or at most {G - 1} + turn_total_bound {K} in the last round"
            )
            raise BadInput(f"opponent score must be 0..{j_max} ({why}), got {j}")
        if not 0 <= o < L:
            raise BadInput(f"ones must be 0..{L - 1} (ones set aside; {L} end the turn), got {o}")
        if not 0 <= k <= K:
            raise BadInput(
                f"turn total must be 0..{K} (the stored bound; beyond it holding is optimal for player 1 and "
                f"player 2 has reached the goal), got {k}"
            )
        if (k, o) not in v.reachable:
            raise BadInput(
                f"turn total {k} with {o} ones set aside cannot occur (a roll adds its non-1s, {v.dice - v.ones_limit + 1} to "
                f"{v.dice} points); with {o} ones the turn total is one of {_examples(v, o)}"
            )
        return State(p, i, j, k, o)

    # -- optimal play -----------------------------------------------------
    def best(self, *state, variant: str | None = None):
        """Optimal play at a state, for any number of players.

        ``best(scores, player, turn_total=0, ones=0)``: ``scores`` one per seat in seat order (a list, or a text
        ``"30,41,12"``), ``player`` the seat to move.  Two seats are answered from the two-player tables (a
        :class:`StateValue`, as ``best(player, score, opponent, turn_total, ones)``, the two-player shorthand,
        seed 002's state (p, i, j, k, o)); three or more from the stored N-player turn starts (a
        :class:`~dicebase.query.rolled_ones_n.NStateValue`: every seat's win probability, a cycle tuple said
        so; docs/n_players.md)."""
        if state and is_scores(state[0]):
            from dicebase.query.rolled_ones_n import parse_scores

            scores, (player, turn_total, ones) = parse_scores(state[0]), (*state[1:], 0, 0)[:3]
            if len(state) > 4:
                raise BadInput(f"best takes scores, player, turn_total and ones, got {len(state)} values")
            if len(scores) > 2:
                return self.n.best(scores, player, turn_total, ones, variant=variant)
            v = self.variant(variant)
            for n, s in enumerate(scores):
                if s < 0:
                    raise BadInput(f"seat {n + 1}'s score must be 0..{v.goal - 1}, got {s}")
            p = _whole(player, "player")
            if p not in (1, 2):
                raise BadInput(f"player must be 1..2 (the seat to move; --scores names 2 seats), got {p}")
            return self._best(v, self.state(v, p, scores[p - 1], scores[2 - p], turn_total, ones))[0]
        if len(state) != 5:
            raise BadInput("best takes (scores, player, turn_total, ones) or two players' (player, score, opponent, "
                           f"turn_total, ones), got {len(state)} values")
        v = self.variant(variant)
        return self._best(v, self.state(v, *state))[0]

    def _best(self, v: Variant, s: State, extra: str = "") -> tuple[StateValue, tuple]:
        """best() at a checked state; ``extra``: more rolled_ones_states columns, read in the
        same query when the value comes from that table (else an empty tuple)."""
        more = ()
        if s.p == 2 and s.j >= v.goal:
            delta = max(s.j - s.i - s.k, -1)
            row = first(self.db.read(
                f"SELECT p_roll, p_hold, best, p_exceed FROM {FINAL} WHERE variant = ? AND delta = ? AND o = ?",
                (v.name, delta, s.o),
            ))
            source = f"{FINAL} (delta = {delta})"
        elif v.rules.holding_wins(s.p, s.i, s.k):
            p1 = self._p(v, 1, s.j, s.i, 0, 0)
            row = (1.0 - v.p_end(s.o) * p1, 1.0, "hold", 1.0)
            source = COMPUTED
        else:
            row = self._state_row(v, (s.p, s.i, s.j, s.k, s.o), f"p_roll, p_hold, best, p_win{extra}")
            source = STATES
            if row is not None:
                row, more = row[:4], tuple(row[4:])
        if row is None:
            raise NotInDatabase(f"no stored value for {s} in {v.name}; rebuild with: {self.rebuild_command()}")
        p_roll, p_hold, best, p_win = row
        value = StateValue(v.name, s, float(p_roll), float(p_hold), best, float(p_win), source, rank(p_roll, p_hold, best))
        return value, more

    def _state_row(self, v: Variant, key: tuple[int, int, int, int, int], columns: str) -> tuple | None:
        """``columns`` of the rolled_ones_states row of state ``key`` = (p, i, j, k, o).

        DuckDB reads it by position (one rowid: the table is written in key order and which
        states it holds follows from the rules, :mod:`dicebase.layout.rolled_ones`), 0.4 ms where
        the key filter scans a row group (1-2.5 ms, issue 12), and keeps it only if its key is the
        one asked; a held block answers with no query; SQLite seeks the primary key."""
        block = (v.name,)
        found = self._found(v)
        at = None if found is None else layout.position(v.rules, *key)
        if at is not None:
            held = self.blocks.held(layout.STATES, block)
            if held is not None:  # held in memory (hold()): no query
                return held.row(at, [name.strip() for name in columns.split(",")])
            # the variant's block was checked at both ends (_found); the row's own key here
            row = self.blocks.row(layout.STATES, block, found, at, columns, key)
            if row is not None:
                return row
        return self.blocks.by_key(layout.STATES, block, key, columns)

    def _found(self, v: Variant) -> Found | None:
        """Where ``v``'s block of rolled_ones_states lies (DuckDB; None: not the build's layout)."""
        return self.blocks.found(layout.STATES, (v.name,), partial(self._locate, v))

    def _locate(self, v: Variant) -> Found | None:
        """``v``'s block starts after the blocks of the variants before it (name order): found
        once its first and last rows are ``v``'s and their neighbours another variant's (or none),
        so that a read by position needs to check only the row's (p, i, j, k, o), not its variant,
        a column that costs DuckDB more to read than the rest of the key."""
        sizes = {w.name: layout.positions(w.rules)[2] for w in self._variants.values()}
        base = layout.block_start(sizes, v.name)
        if self.blocks.ends_fit(layout.STATES, (v.name,), base, sizes[v.name]):
            return Found(base, sizes[v.name])
        self.blocks.lose(layout.STATES, (v.name,))
        return None

    def hold(self, variant: str | None = None, *, stop=None) -> int:
        """Keep ``variant``'s rows of rolled_ones_states (default: every variant's) in memory, so
        that later lookups on this database, from any of its threads (``Database.for_thread``),
        run no query (dicebase/query/held.py): about 50 MB and a second for the default
        variant.  Every row's key is checked against the position the build gives it; a block
        that fails is not held.  DuckDB only (SQLite seeks the primary key in about 0.02 ms).
        ``stop()`` (a function) ends the loading early.  Returns the bytes this game holds now."""
        if not ready_to_hold(self.db, stop):
            return 0
        from dicebase.query import held as held_module

        names = [self.variant(variant).name] if variant is not None else sorted(self._variants)
        columns = [name for (name,) in self.db.fetchall(
            "SELECT column_name FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = ? "
            "ORDER BY column_index", (STATES,))]
        keys = list(layout.STATES.key)
        values = [name for name in columns if name not in (*keys, *layout.STATES.block)]
        for name in names:
            v = self._variants[name]
            if self.blocks.held(layout.STATES, (name,)) is not None:
                continue
            found = self._found(v)
            if found is not None:
                self.blocks.hold(layout.STATES, (name,), lambda v=v, found=found: held_module.load_rows(
                    self.db.fetch_arrays, STATES, found.base, found.size, keys, values, held_positions(v.rules),
                    stop=stop or (lambda: False)))
        return held_bytes(self.db, STATES)

    def _p(self, v: Variant, p, i, j, k, o) -> float:
        row = self._state_row(v, (p, i, j, k, o), "p_win")
        if row is None:
            raise NotInDatabase(f"no stored value for ({p}, {i}, {j}, {k}, {o}) in {v.name}; "
                                 f"rebuild with: {self.rebuild_command()}")
        return float(row[0])

    # -- aggregates -------------------------------------------------------
    def komi(self, variant: str | None = None) -> Komi:
        """Player 1's optimal win rate for komi 0..komi_max and the fair komi (closest to 0.5)."""
        v = self.variant(variant)
        rows = self.db.fetchall(
            "SELECT komi, p1_win, p2_win FROM rolled_ones_komi WHERE variant = ? ORDER BY komi", (v.name,)
        )
        fair = self.db.fetchone(
            "SELECT komi, p1_win FROM rolled_ones_fair_komi WHERE variant = ? ORDER BY komi LIMIT 1", (v.name,)
        )
        if not rows or fair is None:
            raise NotInDatabase(f"no komi rows for {v.name}; rebuild with: {self.rebuild_command()}")
        return Komi(v.name, tuple(KomiRow(int(c), float(a), float(b)) for c, a, b in rows), int(fair[0]), float(fair[1]))

    def gaps(self, variant: str | None = None) -> list[Gap]:
        """Seed 002 Fig. 2: each human policy's seat win rates against optimal play and its gap."""
        v = self.variant(variant)
        rows = self.db.fetchall(
            "SELECT policy, algorithm, p1_win, p2_win, gap, seed_gap FROM rolled_ones_policy_gaps "
            "WHERE variant = ? ORDER BY algorithm",
            (v.name,),
        )
        return [
            Gap(r[0], int(r[1]), float(r[2]), float(r[3]), float(r[4]), None if r[5] is None else float(r[5]))
            for r in rows
        ]

    def advantage(self, variant: str | None = None) -> Advantage:
        """First-player advantage under optimal play."""
        v = self.variant(variant)
        row = self.db.fetchone(
            "SELECT p1_win, p2_win, advantage FROM rolled_ones_first_player_advantage WHERE variant = ?", (v.name,)
        )
        if row is None:
            raise NotInDatabase(f"no seat win rates for {v.name}; rebuild with: {self.rebuild_command()}")
        return Advantage(v.name, *(float(x) for x in row))

    # -- human policies ---------------------------------------------------
    def policy(self, name, player, score, opponent, turn_total, ones, variant: str | None = None) -> PolicyAdvice:
        """A human policy's action at a state, the optimal action, and what the difference costs."""
        pname = policy_name(name)
        v = self.variant(variant)
        s = self.state(v, player, score, opponent, turn_total, ones)
        title = self._titles.get((v.name, pname))
        # the policy's columns come with the optimal values, in one query
        opt, row = self._best(v, s, f", {pname}_action, {pname}_p_win_moving, {pname}_p_win_waiting")
        if opt.source == STATES:
            action, moving, waiting = row[0], float(row[1]), float(row[2])
        elif opt.source == COMPUTED:  # every human policy holds when it can win (player 2 at the goal)
            action, moving, waiting = "hold", 1.0, 0.0
        else:  # player 2's final turn: every policy rolls until it exceeds j, as optimal play does
            action, moving, waiting = opt.best, opt.p_win, 1.0 - opt.p_win
        chosen = opt.p_roll if action == "roll" else opt.p_hold
        return PolicyAdvice(
            v.name,
            pname,
            title or pname,
            s,
            action,
            opt.best,
            chosen,
            opt.p_win,
            opt.p_win - chosen,
            moving,
            waiting,
        )

    @cached_property
    def _titles(self) -> dict[tuple[str, str], str]:
        """(variant, policy) -> title: the few rows of rolled_ones_policies, read once."""
        return {(v, p): t for v, p, t in self.db.fetchall("SELECT variant, policy, title FROM rolled_ones_policies")}

    def disagreements(self, name, limit: int = 10, variant: str | None = None) -> list[Disagreement]:
        """The states where a human policy's action costs most against the optimal one."""
        pname = policy_name(name)
        v = self.variant(variant)
        limit = _whole(limit, "limit")
        if not 1 <= limit <= LIMIT_MAX:
            raise BadInput(f"limit must be 1..{LIMIT_MAX}, got {limit}")
        rows = self.db.fetchall(
            "SELECT p, i, j, k, o, policy_action, optimal_action, p_win, cost FROM rolled_ones_disagreements "
            "WHERE variant = ? AND policy = ? ORDER BY cost DESC, p, i, j, k, o LIMIT ?",
            (v.name, pname, limit),
        )
        return [Disagreement(State(*map(int, r[:5])), r[5], r[6], float(r[7]), float(r[8])) for r in rows]


def _whole(value, name: str) -> int:
    return whole_number(value, name)


def _examples(v: Variant, o: int) -> str:
    ks = sorted(k for k, oo in v.reachable if oo == o)
    head = ", ".join(map(str, ks[:8]))
    return f"{head}, ..." if len(ks) > 8 else head


def held_positions(rules):
    """:func:`dicebase.layout.rolled_ones.position` over numpy arrays of keys (p, i, j, k, o), from
    the layout's tables (:func:`~dicebase.layout.rolled_ones.position_tables`): each key's offset
    in its variant's block as the build writes it, -1 for a state it does not store."""
    import numpy as np  # hold() only: a lookup loads no numpy

    turn, first_rows, per_pair = (np.array(table, dtype=np.int64) for table in layout.position_tables(rules))
    G = rules.goal

    def position(p, i, j, k, o):
        inside = ((p >= 1) & (p <= 2) & (i >= 0) & (i < G) & (j >= 0) & (j < G) & (k >= 0)
                  & (k < turn.shape[0]) & (o >= 0) & (o < turn.shape[1]))
        p, i, j = np.where(inside, p, 1), np.where(inside, i, 0), np.where(inside, j, 0)
        k, o = np.where(inside, k, 0), np.where(inside, o, 0)
        n = turn[k, o]
        fits = inside & (n >= 0) & (n < per_pair[p - 1, i])
        return np.where(fits, first_rows[p - 1, i] + j * per_pair[p - 1, i] + n, -1)

    return position
