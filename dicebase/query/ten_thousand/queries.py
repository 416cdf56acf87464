"""10,000 lookups: ``db.ten_thousand.odds(...)``, ``best``, ``state``, ``thresholds``, ``gaps``, ``hold``.

Plain SQL over the ten_thousand_* tables (no sqlalchemy, no numpy).  ``best`` is a one-step
lookahead: for every legal keep of the roll it reads the stored pre-roll value of the state the
keep leads to (:data:`~dicebase.layout.ten_thousand.DUEL_LOOKAHEAD_SQL` is the documented query;
SQLite runs it, DuckDB the same values in Python over reads by position, :mod:`.lookahead`).
"""

from __future__ import annotations

from dicebase.layout.ten_thousand import DUEL, DUEL_LOOKAHEAD_SQL, LAST_TURN_SQL, ROLL_PARTS_SQL, SOLITAIRE_LOOKAHEAD_SQL
from dicebase.query.base import BadInput, NotInDatabase, clip, first, is_scores, parse_scores, ready_to_hold, whole_number
from dicebase.query.ten_thousand.lookahead import Lookahead
from dicebase.query.ten_thousand.penalty import Penalty
from dicebase.query.ten_thousand.rulesets import RuleSets, _int, _points, _rule_name
from dicebase.query.ten_thousand.results import (
    AVERAGE, EXPECTED, WIN, Best, DuelCompensation, Gap, KeepAction, OddsRow, State, Threshold, positional,
)
from dicebase.query.blocks import held_bytes
from dicebase.query.ten_thousand.stored import Stored
from dicebase.rules.ten_thousand import PLAYER_COUNTS


class Queries(RuleSets, Penalty, Lookahead):
    """10,000 lookups on an open :class:`dicebase.query.Database` (``db.ten_thousand``)."""

    def __init__(self, db):
        self.db = db
        self._rules: dict[str, dict] | None = None
        self._classes: dict[str, dict] = {}
        self._goals: dict[str, int] = {}
        self._rule_sets: dict[str, object] = {}
        self._solvers: dict[str, dict] = {}  # rules -> build_variants.solver_json
        self._bonus_tails: dict[str, float] = {}  # rules -> see _bonus_tail
        self._ties_checked: set[str] = set()  # rules whose ten_thousand_last_turn rows were found
        self._penalty_starts: dict[tuple, dict] = {}  # (rules, goal, score, count) -> see _penalty_turn
        self._penalty_last: dict[str, tuple] = {}  # rules -> see _penalty_last_turn
        self._odds: dict[tuple[str, int, int], list[OddsRow]] | None = None
        self._lookaheads: dict[tuple, object] = {}  # (rules, dice, triple) -> see _lookahead
        self._n = None  # the N-player lookups (see n)
        self._stored = Stored(self)  # the stored values, through the block reader
        #: the block reader of this connection (its diagnostics: ``blocks.located()``, ``blocks.misplaced``)
        self.blocks = self._stored.blocks

    @property
    def misplaced(self) -> list[str]:
        """Blocks whose rows were not where the build puts them (read by key filters instead)."""
        return self.blocks.misplaced

    def bounds_in_memory(self, rules: str | None = None, *, variant: str | None = None):
        """The bounds block of a rule set's two-player game that this connection answers from in
        memory, as three arrays by pair position (first_row, row_count, p_start; read whole from
        the connection's second two-player lookup, or taken from the held table), or None."""
        rules = _rule_name(rules, variant)
        return self._stored.bounds_in_memory(rules, self.goal(rules))

    def holds_solitaire(self, rules: str | None = None, *, variant: str | None = None) -> bool:
        """Whether this connection answers solitaire lookups of a rule set with no query (the
        block read whole from its second solitaire lookup)."""
        return bool(self._stored._solitaire_blocks.get(_rule_name(rules, variant)))

    # -- (a) -----------------------------------------------------------
    def odds(self, dice, triple=0, rules: str | None = None, *, variant: str | None = None) -> list[OddsRow]:
        """Every scoring combination of a roll of ``dice`` dice, with its chance (``rules=`` or
        ``variant=``: a preset or a variant built from a rules file; default ``ten-thousand``)."""
        rules = _rule_name(rules, variant)
        rule = self._rule(rules)
        n = _int(dice, "--dice", "1-6")
        if not 1 <= n <= rule["dice"]:
            raise BadInput(f"--dice must be 1-{rule['dice']}, got {n}")
        t = self._triple(rule, n, triple)
        if self._odds is None:  # a few hundred rows: read once per connection
            self._odds = {}
            for r, d, c3, c, o, p, m, cm in self.db.fetchall(
                "SELECT rules, dice, triple, combination, outcomes, probability, mean_points, mean_combination_points "
                "FROM ten_thousand_odds ORDER BY rules, dice, triple, position"
            ):
                self._odds.setdefault((r, int(d), int(c3)), []).append(OddsRow(c, int(o), float(p), float(m), float(cm)))
        return list(self._odds.get((rules, n, t), []))

    # -- (c), (d) ----------------------------------------------------------
    def best(self, dice, turn_total=0, triple=0, score=None, opponent=None,
             rules: str | None = None, *, variant: str | None = None, farkles=None, scores=None, player=None):
        """Every legal keep of the roll ``dice``, best first.

        Without scores: expected banked points of the solitaire turn.  With ``scores`` (one per seat in seat
        order, points) and ``player`` (the seat to move), for any number of players: two seats are answered
        from the two-player tables as ``score`` and ``opponent`` (the two-player shorthand: the mover's score
        and the opponent's) answer them, the two-player win probability (a :class:`Best`; an opponent at or
        above the goal means this is the last turn, and every keep is valued by the chance to end above it);
        three or more from the stored N-player turn starts, each keep with the mover's and every seat's win
        probability, the equilibrium's keep first (a :class:`~.nplayer.NBest`).
        ``rules=`` or ``variant=`` (the same thing) names a preset or a variant built from a
        rules file; default ``ten-thousand``."""
        rules = _rule_name(rules, variant)
        if scores is not None:
            if score is not None or opponent is not None:
                raise BadInput("give either scores (every seat's score) or score and opponent (two players), not both")
            seats, mover = self._seats(scores, player)
            if mover is None:
                return self.n.best(dice, seats, player, turn_total, triple, rules)
            score, opponent = seats
        rule = self._rule(rules)
        if isinstance(dice, (str, bytes, dict)) or not hasattr(dice, "__iter__"):
            raise BadInput(f"dice must be a list of faces 1-6, e.g. [1, 5, 2], got {clip(dice)}")
        faces = [_int(f, "a die", "a face 1-6") for f in dice]
        if not 1 <= len(faces) <= rule["dice"]:
            raise BadInput(f"give the faces of 1-{rule['dice']} rolled dice, got {len(faces)}")
        bad = [f for f in faces if not 1 <= f <= 6]
        if bad:
            raise BadInput(f"dice faces must be 1-6, got {bad[0]}")
        n = len(faces)
        t = self._triple(rule, n, triple)
        k = _points(turn_total, "--turn-total", rule["unit"])
        self._check_turn(rule, n, t, k)
        roll = "".join(str(f) for f in sorted(faces))
        if (score is None) != (opponent is None):
            raise BadInput("give both --score and --opponent (two-player game) or neither (solitaire turn)")
        last = False
        rs = self._rule_set(rules)
        if farkles is not None or (score is not None and rs.farkle_penalty):
            return self._penalty_best(rules, rule, faces, roll, n, t, k, score, opponent, farkles)
        # SQLite: its indexed joins run the documented queries fastest; they take the must-exceed last turn
        # without a bank minimum, so other rule sets' lookahead runs in Python over key reads (issue 24)
        sqlite = self.db.store == "sqlite" and (score is None or not self._beyond_sql(rules))
        if score is not None:
            goal, i, j = self._scores(rules, score, opponent)  # the rule set's two-player checks first
        keeps = [] if sqlite else self._keeps(rules, n, t, roll)
        if score is None:
            objective, goal = AVERAGE if rs.farkle_penalty else EXPECTED, None
            farkle_value = self._turn_farkle_value(rules)
            sql, params = SOLITAIRE_LOOKAHEAD_SQL, dict(k=k, rules=rules, dice=n, triple=t, roll=roll)
            values = None if sqlite else self._solitaire_values(rules, k, keeps)
        else:
            objective = WIN
            if j >= goal:  # the last turn: end above the opponent or lose
                last, farkle_value = True, 0.0
                need = max(j - i - k + rule["unit"], rs.bank_minimum - k)  # ahead, and a bankable total
                sql, params = LAST_TURN_SQL, dict(need=need, rules=rules, dice=n, triple=t, roll=roll)
                values = None if sqlite else self._last_turn_values(rules, need, keeps, self._ties(rules, j - i))
            else:
                self._stored.asked(rules, goal)
                sql, params = DUEL_LOOKAHEAD_SQL, dict(k=k, i=i, j=j, goal=goal, rules=rules, dice=n, triple=t, roll=roll,
                                                       unit=rule["unit"], start=rule["dice"])
                if sqlite:
                    w_ji = self._stored.turn_starts(rules, goal, j, [i]).get(i)
                    if w_ji is None:
                        raise NotInDatabase(f"ten_thousand_duel lacks the turn start ({j}, {i}); rebuild: "
                                            f"{self.rebuild_command()}")
                else:
                    values, w_ji, _stored = self._duel_values(rules, goal, i, j, k, keeps)
                farkle_value = 1.0 - w_ji
        if sqlite:
            rows = self.db.read(*positional(sql, params))
        else:
            rows = [(*keep[1:], *value) for keep, value in zip(keeps, values)]
        if score is None:
            rows = self._turn_rows(rules, k, rows, farkle_value)
        opening = not last and score is not None and i == 0  # a two-player turn still below the opening minimum
        # the smallest total a turn may end with banked (a bank minimum on every turn, issue 24)
        lowest = max(rs.bank_minimum, rule["opening_minimum"] if opening else 0)

        def ends(p: int, then: str) -> str:
            """What follows a keep of every die without hot dice: the turn ends, banked or (below the
            opening or bank minimum) lost; the stored lost-turn rows (dice 0) read 'roll' in the queries."""
            return "lost" if k + p < lowest else "bank"

        actions = [
            KeepAction([int(c) for c in keep], int(p), int(da), int(ta), bool(hd), bool(dom), float(v),
                       ends(int(p), then) if int(da) == 0 else then)
            for keep, p, _used, da, ta, hd, dom, v, then in rows
        ]
        actions.sort(key=lambda a: (-a.value, -a.points, -len(a.keep), a.keep))
        return Best(objective, rules, sorted(faces), k, t, score, opponent, goal, last, not actions,
                    float(farkle_value), actions)

    # -- the lookahead, in Python over a few key-range reads ------------------
    # Each reads one contiguous key range (a few row groups in DuckDB, an index range in
    # SQLite); the values are those of the documented queries (DUEL_LOOKAHEAD_SQL and the
    # others above), whose joins take DuckDB 10-30 ms (tests/test_ten_thousand_db.py
    # checks the two agree).
    def _keeps(self, rules: str, n: int, t: int, roll: str | None) -> list[tuple]:
        """(roll, keep, points, dice_used, dice_after, triple_after, hot_dice, dominated) of
        one roll of (n dice, triple t), ordered by keep; of every roll (by roll, keep) when
        ``roll`` is None.  One roll's keeps come from the rules (dicebase.rules, the code
        that wrote ten_thousand_keeps): one query fewer."""
        if roll is None:
            return sorted(self._stored.class_rows("roll, keep, points, dice_used, dice_after, "
                                           "triple_after, hot_dice, dominated", rules, n, t), key=lambda r: r[:2])
        from dicebase.rules.ten_thousand import dominated_flags, legal_keeps

        counts = tuple(roll.count(str(face)) for face in range(1, 7))
        rule_set = self._rule_set(rules)
        keeps = legal_keeps(rule_set, counts, n, t)
        rows = [(roll, "".join(str(f) * c for f, c in enumerate(kp.kept, start=1)), kp.points, kp.dice,
                 kp.n_after, kp.t_after, kp.dice == n and rule_set.hot_dice, dom)
                for kp, dom in zip(keeps, dominated_flags(keeps))]
        return sorted(rows, key=lambda row: row[1])

    def hold(self, rules: str | None = None, *, stop=None) -> int:
        """Keep the two-player table of ``rules`` (default: every rule set whose two-player game
        is built) in memory, so that later two-player lookups on this database, from any of its
        threads (``Database.for_thread``), run no query (dicebase/query/held.py).  DuckDB only:
        SQLite answers by primary key in about 0.1 ms already.  Costs about 10 bytes a row (301
        MB at goal 10,000) and 2-5 s, once; ``dicebase serve`` calls it while warming.
        ``stop()`` (a function) ends the loading early.  Returns the bytes this game holds now."""
        if not ready_to_hold(self.db, stop):
            return 0
        names = [_rule_name(rules, None)] if rules is not None else [
            name for name in self.rule_sets() if self.db.fetchone(
                "SELECT count(*) FROM ten_thousand_policy_duel WHERE rules = ?", (name,))[0]]
        for name in names:
            self._stored.hold(name, self.goal(name), stop)
        return held_bytes(self.db, DUEL.name)

    def state(self, score, opponent, turn_total=0, dice=None, triple=0, rules: str | None = None, *,
              variant: str | None = None, farkles=None):
        """Win probability, optimal action and both action values of ANY pre-roll state, for any number of
        players.

        ``state(scores, player, turn_total, dice, triple)``: ``scores`` one per seat in seat order (points; a
        list, or a text ``"300,450,0"``), ``player`` the seat to move.  Two seats are answered from the
        two-player tables, as the two-player shorthand ``state(score, opponent, turn_total, ...)`` (the
        mover's score and the opponent's) answers them: a :class:`State`.  Stored roll states are read from
        ten_thousand_duel; bank states (not stored) get the bank value from :data:`BANK_VALUE_SQL` and the
        roll value by one-step lookahead (:data:`ROLL_VALUE_SQL`); last-turn states (opponent >= goal) from
        ten_thousand_exceed.  Three or more seats are computed from the stored N-player turn starts: every
        action (roll, bank) with the mover's and every seat's win probability (``p_wins``; a seat at or above
        the goal: a final turn), a :class:`~.nplayer.NState`.
        ``rules=`` or ``variant=`` (the same thing): a preset or a variant built from a rules file."""
        rules = _rule_name(rules, variant)
        if is_scores(score):
            seats, mover = self._seats(score, opponent)
            if mover is None:
                return self.n.state(seats, opponent, turn_total, dice, triple, rules)
            score, opponent = seats
        rule = self._rule(rules)
        unit = rule["unit"]
        k = _points(turn_total, "--turn-total", unit)
        n = _int(rule["dice"] if dice is None else dice, "--dice", "1-6")
        if not 1 <= n <= rule["dice"]:
            raise BadInput(f"--dice must be 1-{rule['dice']}, got {n}")
        t = self._triple(rule, n, triple)
        self._check_turn(rule, n, t, k)
        if farkles is not None or self._rule_set(rules).farkle_penalty:
            return self._penalty_state(rules, score, opponent, farkles, k, n, t)
        goal, i, j = self._scores(rules, score, opponent)
        key = (rules, goal, i, j, k, n, t)
        bank_minimum = self._rule_set(rules).bank_minimum
        if j >= goal:
            need = max(j - i - k + unit, bank_minimum - k)  # ahead, and a total that may be banked (issue 24)
            if need <= 0:  # already ahead: bank and win; rolling risks only the farkle
                return State(*key, True, 1.0, "bank", 1.0 - self.classes(rules)[(n, t)][0], 1.0,
                             "last turn, already ahead: banking wins; rolling wins unless it farkles "
                             "(ten_thousand_classes.p_farkle)")
            if self._ties(rules, j - i):  # issue 24: a tie can be banked (half a win)
                return self._tied_last_turn(key, need, unit)
            stored = self._stored.exceed(rules, need, need, n, t).get((need, n, t))
            row = None if stored is None else (stored,)
            p = float(row[0]) if row else 0.0
            how = (f"need = opponent - score - turn_total + {unit} = {need}" if need == j - i - k + unit else
                   f"need = the bank minimum {bank_minimum} - turn_total = {need}")
            return State(*key, True, p, "roll", p, 0.0 if k > 0 and k >= bank_minimum else None,
                         f"last turn: ten_thousand_exceed ({how})" + ("" if row else "; past the stored needs, taken as 0"))
        rs = self._rule_set(rules)
        can_bank = k > 0 and k >= rs.bank_minimum and (i > 0 or k >= rule["opening_minimum"])
        self._stored.asked(rules, goal)
        if self.db.store == "sqlite" and self._beyond_sql(rules):
            # ROLL_PARTS_SQL values a bank at the goal by a must-exceed last turn: the lookahead in Python
            return self._state_by_position(rule, key, can_bank)
        if self.db.store == "duckdb" or self._stored.bounds_block(rules, goal) is not None:
            # the turn starts of j (by position, or the bounds block in memory), then the pair's rows from k on
            return self._state_by_position(rule, key, can_bank)
        bank = None
        if can_bank:
            bank = float(self._bank_value(rules, goal, i, j, k))
        row = first(self.db.read(
            "SELECT p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? AND opponent = ? "
            "AND turn_total = ? AND dice = ? AND triple = ?",
            key,
        ))
        stored = self._stored_state(key, None if row is None else row[0], bank)
        if stored is not None:
            return stored
        # ROLL_VALUE_SQL: each roll's best keep, a farkle worth 1 - W(j, i), weighted by the roll's
        # chance; summed here (math.fsum) so that both stores give the same bits
        # SQLite: its indexed joins run the documented query fastest
        farkle = 1.0 - self._stored.turn_starts(rules, goal, j, [i])[i]
        parts = self.db.read(*positional(ROLL_PARTS_SQL, dict(
            i=i, j=j, k=k, goal=goal, rules=rules, dice=n, triple=t, unit=unit, start=rule["dice"])))
        return self._bank_state(key, bank, parts, farkle)

    def thresholds(self, rules: str | None = None, *, variant: str | None = None) -> list[Threshold]:
        """Per (dice, triple): smallest reachable turn total, optimal bank threshold, seed 004's
        (``rules=`` or ``variant=``: a preset or a variant built from a rules file)."""
        rules = _rule_name(rules, variant)
        self._rule(rules)
        rows = self.db.fetchall(
            "SELECT t.dice, t.triple, t.min_turn_total, t.bank_from, t.last_roll, h.bank_from "
            "FROM ten_thousand_thresholds t LEFT JOIN ten_thousand_seed004_rule h "
            "ON h.rules = t.rules AND h.dice = t.dice AND h.triple = t.triple "
            "WHERE t.rules = ? ORDER BY t.triple, t.dice DESC",
            (rules,),
        )
        out = []
        for n, t, low, b, lr, h in rows:
            # seed 004's rule as played: the first reachable total at which it banks
            h = None if h is None else max(int(h), int(low)) if low is not None else int(h)
            out.append(Threshold(int(n), int(t), low, b, lr, h))
        return out

    # -- N players (dicebase.query.ten_thousand.nplayer; issue 21) ------------------------------
    @property
    def n(self):
        """The N-player lookups (:class:`dicebase.query.ten_thousand.nplayer.NPlayers`) of this connection."""
        if self._n is None:
            from dicebase.query.ten_thousand.nplayer import NPlayers

            self._n = NPlayers(self)
        return self._n

    def _seats(self, scores, player) -> tuple[tuple[int, ...], int | None]:
        """A score tuple (one per seat) and the seat to move, as given: for two seats the mover's score and the
        opponent's (the two-player tables answer), for more the checked tuple and seat (None)."""
        scores = parse_scores(scores, PLAYER_COUNTS, "300,450,0", "whole numbers of points")
        if len(scores) > 2:
            return scores, None
        p = _int(player, "player", "the seat to move, 1..2")
        if p not in (1, 2):
            raise BadInput(f"player must be 1..2 (the seat to move; --scores names 2 seats), got {p}")
        return (scores[p - 1], scores[2 - p]), p

    def seats(self, players=None, rules: str | None = None, *, variant: str | None = None):
        """N players: each seat's win probability from the start (``ten_thousand_seat_wins``)."""
        return self.n.seats(players, _rule_name(rules, variant))

    def compensation(self, players=None, rules: str | None = None, *, variant: str | None = None):
        """The fair compensation: the starting scores that bring every seat closest to an even share.

        Two players (``players`` None or 2, issue 24): from the two-player game's stored turn starts (view
        ten_thousand_duel_fair_compensation), a :class:`DuelCompensation`; a database with the N-player
        tables of two players but not the two-player game answers from those.  Three or more: the N-player
        tables (``-o ten-thousand.players=...``), a :class:`~.nplayer.Compensation`."""
        rules = _rule_name(rules, variant)
        if players is not None and whole_number(players, "players") != 2:
            return self.n.compensation(players, rules)
        self._rule(rules)
        try:
            goal = self.goal(rules)
        except NotInDatabase:
            if players is not None and any(key[0] == rules and key[2] == 2 for key in self.n.built):
                return self.n.compensation(2, rules)
            raise
        return self._duel_compensation(rules, goal)

    def _duel_compensation(self, rules: str, goal: int) -> DuelCompensation:
        """The two-player fair compensation of (rules, goal): what the view ten_thousand_duel_fair_compensation
        holds, read from ten_thousand_duel_bounds as the view does (so that a file built before the view
        answers too), ties to the smaller compensation."""
        rs = self._rule_set(rules)
        fair = self.db.fetchall(
            "SELECT score, opponent, p_start, abs(p_start - 0.5) AS deviation FROM ten_thousand_duel_bounds "
            "WHERE rules = ? AND goal = ? AND (score = 0 OR opponent = 0) "
            "ORDER BY deviation, score + opponent, score LIMIT 5", (rules, goal))
        own = sorted({0, rs.compensation if rs.compensation < goal else 0})
        starts = dict(self.db.fetchall(
            f"SELECT opponent, p_start FROM ten_thousand_duel_bounds WHERE rules = ? AND goal = ? AND score = 0 "
            f"AND opponent IN ({', '.join('?' * len(own))})", (rules, goal, *own)))
        if not fair or any(c not in starts for c in own):
            raise NotInDatabase(f"ten_thousand_duel_bounds lacks the turn starts of {rules!r} to {goal}; rebuild: "
                                f"{self.rebuild_command()}")
        s1, s2, p, d = fair[0]
        p0, pc = float(starts[0]), float(starts[own[-1]])
        return DuelCompensation(rules, goal, (int(s1), int(s2)), (float(p), 1.0 - float(p)), float(d),
                                (p0, 1.0 - p0), abs(p0 - 0.5), own[-1], (pc, 1.0 - pc),
                                tuple((int(a), int(b), float(q), float(e)) for a, b, q, e in fair))

    def rules_in_words(self, rules: str | None = None, *, variant: str | None = None) -> list[str]:
        """A built rule set's rules in words, one sentence each: its description, then how the game ends
        and the Farkle family's options it uses (issue 24: bank minimum, no-score bonus, penalty ...)."""
        from dataclasses import replace

        rules = _rule_name(rules, variant)
        self._rule(rules)
        rs = self._rule_set(rules)
        if self.db.fetchone("SELECT count(*) FROM ten_thousand_policy_duel WHERE rules = ?", (rules,))[0]:
            goal = self.goal(rules)  # a preset's two-player game is built to the build's goal
            if goal != rs.goal and rs.compensation < goal:
                rs = replace(rs, goal=goal)
        from dicebase.rules import files, ten_thousand as module  # issue 34: the words come from the values

        return files.in_words(module, rs, source=False)

    def gaps(self) -> list[Gap]:
        self.db.require_game("ten_thousand")
        rows = self.db.fetchall(
            "SELECT g.rules, g.goal, g.policy, g.p1_win, g.p2_win, g.gap, t.expected_points "
            "FROM ten_thousand_gaps g LEFT JOIN ten_thousand_policy_turn t "
            "ON t.rules = g.rules AND t.policy = g.policy ORDER BY g.rules, g.goal, g.gap DESC, g.policy"
        )
        return [Gap(r, int(g), p, float(a), float(b), float(c), None if e is None else float(e))
                for r, g, p, a, b, c, e in rows]
