"""10,000 for N players: lookups in the N-player tables (issue 21; docs/n_players.md).

``db.ten_thousand.state(scores, player, turn_total, dice, triple)`` and ``best(roll, ..., scores=, player=)`` with
three or more seats (``db.ten_thousand.n.state`` / ``n.best`` for any number, two included),
``seats(players)`` and ``compensation(players)`` answer from the tables the build writes for each
(rules, goal, players) (:mod:`dicebase.layout.ten_thousand`, its N-player section): every turn start's win
vector and ``kmax`` (``ten_thousand_turn_starts``), the final round by deficits (``ten_thousand_final_round``),
the cycle tuples with their mixing probabilities and the roll groups (``ten_thousand_roll_groups``).  A
mid-turn state is computed here, in plain Python, by the one definition of a turn's total
(:func:`dicebase.rules.ten_thousand.turn.turn_row`, which the solver's ``turn_values`` and
``final_turn_values`` and the bots compile: the same bits)::

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

from functools import cached_property, partial

from dicebase.errors import too_many_players
from dicebase.layout import ten_thousand as layout
from dicebase.query.base import BadInput, NotInDatabase, built_options, clip, player_count, whole_number
from dicebase.query.blocks import Found
from dicebase.query.metadata import has_relation
from dicebase.query.ten_thousand.nlayout import (  # noqa: F401  (moves, moves_from_rows: the lookups' tables)
    Block, Layout, Moves, _by_scores, laid_out, moves, moves_from_rows, parse_scores,
)
from dicebase.query.ten_thousand.nturn import BelowGoal, FinalTurn, Turn
from dicebase.query.ten_thousand.results import Compensation, NAction, NBest, NKeep, NState, SeatWin  # noqa: F401
from dicebase.rules.ten_thousand import (
    DEFAULT_OPTIONS, FACES, MAX_PLAYERS, MAX_POINTS, PLAYER_COUNTS, RuleSet, keep_priority, legal_keeps,
)


#: Turns each connection remembers (:meth:`NPlayers._remember`): a turn at goal 1,000 holds about 0.8 MB.
TURN_MEMO = 16


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

    # -- the turn (as the solver's turn_values) --------------------------------------------------
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
        return BelowGoal(self.layout(rs), b.tie_tolerance, m, top, bust, hold, kmax, 1 if sm > 0 else max(1, om),
                         roll_mix, keep_mix)

    # -- a final turn (as the solver's final_turn_values) ------------------------------------------
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
            n = player_count(players, PLAYER_COUNTS)
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
        n = player_count(players, PLAYER_COUNTS)
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
