"""10,000 lookups: ``db.ten_thousand.odds(...)``, ``best``, ``state``, ``thresholds``, ``gaps``, ``hold``.

Plain SQL over the ten_thousand_* tables (no sqlalchemy, no numpy).  ``best`` is a one-step
lookahead: for every legal keep of the roll it reads the stored pre-roll value of the state the
keep leads to (:data:`~dicebase.layout.ten_thousand.DUEL_LOOKAHEAD_SQL` is the documented query;
SQLite runs it, DuckDB the same values in Python over reads by position, :mod:`.lookahead`).
"""

from __future__ import annotations

import json

from dicebase.layout.ten_thousand import DUEL, DUEL_LOOKAHEAD_SQL, LAST_TURN_SQL, ROLL_PARTS_SQL, SOLITAIRE_LOOKAHEAD_SQL
from dicebase.query.base import (
    BadInput, NotInDatabase, built_options, clip, comma_numbers, first, how_to_add, named, ready_to_hold, rebuild_command,
    text_choice, whole_number,
)
from dicebase.query.ten_thousand.lookahead import Lookahead
from dicebase.query.ten_thousand.results import (
    AVERAGE, EXPECTED, WIN, Best, DuelCompensation, Gap, KeepAction, OddsRow, PenaltyBest, PenaltyState, State,
    Threshold, positional,
)
from dicebase.query.blocks import held_bytes
from dicebase.query.ten_thousand.stored import Stored
from dicebase.rules.ten_thousand import DEFAULT_OPTIONS, MAX_POINTS, PRESETS


def _int(value, what: str, allowed: str) -> int:
    return whole_number(value, what, allowed)


def _points(value, what: str, unit: int, hi: int = MAX_POINTS, why: str = "") -> int:
    """A multiple of the rule set's ``unit`` from 0 to ``hi``; ``why`` explains the upper end."""
    allowed = f"a multiple of {unit} from 0 to {hi}{why}"
    v = _int(value, what, allowed)
    if v < 0 or v > hi or v % unit:
        raise BadInput(f"{what} must be {allowed}, got {v}")
    return v


def _class_name(n: int, t: int) -> str:
    dice = "1 die" if n == 1 else f"{n} dice"
    return f"{dice} with a standing triple of {t}s" if t else dice


def _rule_name(rules: str | None, variant: str | None) -> str:
    """The rule set a lookup asks for: ``variant=`` is another name for ``rules=`` (every lookup
    takes a variant name, issue 8); neither means the default preset ``ten-thousand``."""
    if variant is not None:
        text_choice(variant, "variant")
    if rules is not None:
        text_choice(rules, "rules")
    if variant is not None and rules is not None and variant != rules:
        raise BadInput(f"give the rule set once: rules={clip(rules)} and variant={clip(variant)} differ")
    return variant if variant is not None else ("ten-thousand" if rules is None else rules)


class Queries(Lookahead):
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

    # -- rule sets -------------------------------------------------------
    def rule_sets(self) -> dict[str, dict]:
        """Built rule sets: name -> every rule parameter."""
        if self._rules is None:
            self.db.require_game("ten_thousand")
            rows = self.db.fetchall(
                "SELECT variant, rules_json FROM build_variants WHERE game = 'ten_thousand' ORDER BY variant"
            )
            self._rules = {name: json.loads(r) for name, r in rows}
        return self._rules

    def _rule(self, rules: str) -> dict:
        return named(rules, self.rule_sets(), "rule set", allowed="text",
                     unknown=f"built: {', '.join(self.rule_sets())}", not_built=self._rule_set_not_built)

    def _rule_set_not_built(self, rules: str) -> NotInDatabase | None:
        """A preset this database lacks: the command that adds it (None: not a preset)."""
        if rules not in PRESETS:
            return None
        wanted = [*built_options(self.db, "ten_thousand").get("rules", []), rules]
        return NotInDatabase(f"rule set {rules!r} is not built; "
                             f"{self.how_to_add(rules=list(dict.fromkeys(wanted)))}")

    def rebuild_command(self, *, rule_set: str | None = None, **changes) -> str:
        """The command that rebuilds 10,000 into this file (the user's ``--db``) with ``changes``
        and every other option as built (``rule_set``: the rule set in question; a house rule set is
        named by its rules file, :func:`dicebase.query.base.rebuild_command`)."""
        return rebuild_command(self.db, "ten_thousand", DEFAULT_OPTIONS, rule_set=rule_set, **changes)

    def how_to_add(self, *, rule_set: str | None = None, it: str = "it", lead: str = "", **changes) -> str:
        """"add it with: COMMAND" for what a build with ``changes`` adds, or why no build can add it, or
        its size and the command that builds it anyway (:func:`dicebase.query.base.how_to_add`)."""
        return how_to_add(self.db, "ten_thousand", DEFAULT_OPTIONS, rule_set=rule_set, it=it, lead=lead, **changes)

    def classes(self, rules: str | None = None, *,
                variant: str | None = None) -> dict[tuple[int, int], tuple[float, int | None]]:
        """(dice, triple) -> (farkle chance, smallest turn total reaching it) for a built rule set
        (``rules=`` or ``variant=``: a preset or a variant built from a rules file)."""
        rules = _rule_name(rules, variant)
        if rules not in self._classes:
            try:
                rows = self.db.fetchall(
                    "SELECT dice, triple, p_farkle, min_turn_total FROM ten_thousand_classes WHERE rules = ?", (rules,)
                )
            except Exception:  # a database built before the table existed (DuckDB and SQLite differ)
                raise NotInDatabase(
                    f"this database has no ten_thousand_classes table; rebuild it: {self.rebuild_command()}"
                ) from None
            self._classes[rules] = {(int(n), int(t)): (float(p), None if m is None else int(m)) for n, t, p, m in rows}
        return self._classes[rules]

    def _triple(self, rule: dict, dice: int, triple) -> int:
        t = _int(triple, "--triple", "0 = none, or a face 1-6")
        if not 0 <= t <= 6:
            raise BadInput(f"--triple must be a face 1-6 (or 0 for none), got {t}")
        if t and not rule["triple_stands"]:
            raise BadInput(f"rule set {rule['name']!r} has no standing triple; leave --triple out")
        if t and dice > 3 and (rule["hot_dice_clears_triple"] or not rule["hot_dice"]):
            raise BadInput(f"a standing triple leaves at most 3 dice to roll, got {dice} dice")
        return t

    def _check_turn(self, rule: dict, n: int, t: int, k: int) -> None:
        """The turn total must be reachable with n dice left and standing triple t."""
        if k == 0:
            if n != rule["dice"] or t:
                raise BadInput(
                    f"a turn total of 0 is a turn start: all {rule['dice']} dice are rolled and no triple "
                    f"stands, got {_class_name(n, t)}"
                )
            return
        low = self.classes(rule["name"]).get((n, t), (None, None))[1]
        if low is not None and k < low:
            what = "6 dice again (after hot dice)" if (n, t) == (rule["dice"], 0) else _class_name(n, t)
            raise BadInput(f"a turn reaches {what} only with a turn total of at least {low}, got {k}")

    def _scores(self, rules: str, score, opponent) -> tuple[int, int, int]:
        goal, unit = self.goal(rules), self._rule(rules)["unit"]
        self._two_player_rules(rules)
        i = _points(score, "--score", unit, goal - unit, f" (the player to move is below the goal {goal})")
        if self._rule_set(rules).last_round == "first_to_goal_wins":  # no last turn: a bank at the goal wins
            j = _points(opponent, "--opponent", unit, goal - unit,
                        f" (in {rules} the first player to bank {goal} wins at once: no last turn)")
        else:
            j = _points(opponent, "--opponent", unit, MAX_POINTS, f" (at or above the goal {goal}: your last turn)")
        return goal, i, j

    def _beyond_sql(self, rules: str) -> bool:
        """Whether a rule set's two-player values differ from the documented queries' (issue 24): they value a
        bank at or past the goal by the opponent's must-exceed last turn needing more than the lead; under
        first_to_goal_wins it wins at once, and a bank minimum raises what that last turn needs."""
        rs = self._rule_set(rules)
        return rs.last_round != "others_one_turn_must_exceed" or rs.bank_minimum > 0

    def _two_player_rules(self, rules: str) -> None:
        """BadInput (one line) for a two-player lookup of a rule set whose stored game these lookups cannot
        read (issue 24): a consecutive-farkle penalty (both players' farkle counts and scores below 0 are
        part of its state) and shared last-turn ties."""
        rs = self._rule_set(rules)
        if rs.farkle_penalty:
            raise BadInput(f"rule set {rules!r} has a consecutive-farkle penalty: give both players' farkle counts "
                           "in a row, --farkles A,B (the mover's, the opponent's)")
        if rs.last_round == "others_one_turn_ties_shared" and rules not in self._ties_checked:
            # the tie-aware last turn (ten_thousand_last_turn): a build before it stored none
            from dicebase.query.metadata import has_relation

            if not (has_relation(self.db, "ten_thousand_last_turn") and self.db.fetchone(
                    "SELECT count(*) FROM ten_thousand_last_turn WHERE rules = ? AND need = ?", (rules, rs.unit))[0]):
                raise NotInDatabase(f"the file lacks the tie-aware last turn of {rules!r} (ten_thousand_last_turn, a "
                                    f"build before it); rebuild: {self.rebuild_command()}")
            self._ties_checked.add(rules)

    def _solver(self, rules: str) -> dict:
        """The stored solver record of a rule set (build_variants.solver_json: bounds, tolerances, the
        average-reward solve of a penalty)."""
        if rules not in self._solvers:
            row = self.db.fetchone("SELECT solver_json FROM build_variants WHERE game = 'ten_thousand' AND variant = ?",
                                   (rules,))
            self._solvers[rules] = json.loads(row[0] or "{}") if row else {}
        return self._solvers[rules]

    def _turn_farkle_value(self, rules: str) -> float:
        """What a farkle is worth in the stored one-turn values, points: 0, or under a consecutive-farkle
        penalty the relative value of one farkle in a row (the stored turn is count 0's, docs/farkle.md)."""
        if not self._rule_set(rules).farkle_penalty:
            return 0.0
        try:
            return float(self._solver(rules)["solitaire"]["farkle_values_points"][0])
        except (KeyError, IndexError, TypeError, ValueError):
            raise NotInDatabase(f"the build record of {rules!r} lacks its farkle values (an older build); rebuild: "
                                f"{self.rebuild_command()}") from None

    def _bonus_tail(self, rules: str) -> tuple[int, float]:
        """(K, c): the stored bound K of the one-turn table (points) and, under a no-score bonus, what rolling
        on from all the dice adds past it: the solver values the all-dice class at a turn total k >= K as
        k + c (it rolls there, docs/farkle.md), stored at K, so c = value(K, all dice) - K."""
        if rules not in self._bonus_tails:
            rs = self._rule_set(rules)
            try:
                K = int(self._solver(rules)["solitaire"]["bank_bound_points"])
            except (KeyError, TypeError, ValueError):
                raise NotInDatabase(f"the build record of {rules!r} lacks its bank bound; rebuild: "
                                    f"{self.rebuild_command()}") from None
            c = 0.0
            if rs.no_score_bonus:
                row = self._stored.solitaire(rules, K, K).get((K, rs.dice, 0))
                if row is None:
                    raise NotInDatabase(f"ten_thousand_solitaire lacks its bound row ({K}, {rs.dice}, 0) of {rules!r}; "
                                        f"rebuild: {self.rebuild_command()}")
                c = float(row[0]) - K
            self._bonus_tails[rules] = (K, c)
        return self._bonus_tails[rules]

    def _turn_rows(self, rules: str, k: int, rows: list, farkle_value: float) -> list:
        """The solitaire lookahead's rows (keep, points, used, dice after, triple after, hot dice, dominated,
        value, then) with issue 24's options applied where the stored table has no row: a keep of every die
        without hot dice below the bank minimum loses the turn (the farkle value), and under a no-score bonus
        a keep that gives all the dice back past the stored bound rolls on (k + c, :meth:`_bonus_tail`)."""
        rs = self._rule_set(rules)
        if not (rs.bank_minimum or rs.no_score_bonus):
            return rows
        K, c = self._bonus_tail(rules) if rs.no_score_bonus else (None, 0.0)
        out = []
        for keep, p, used, da, ta, hd, dom, v, then in rows:
            if da == 0 and k + p < rs.bank_minimum:
                v, then = farkle_value, "lost"
            elif K is not None and k + p > K and (da, ta) == (rs.dice, 0):
                v, then = k + p + c, "roll"
            out.append((keep, p, used, da, ta, hd, dom, v, then))
        return out

    def _ties(self, rules: str, deficit: int) -> bool:
        """Whether a last turn begun ``deficit`` points behind the leader can end in a shared tie (issue 24:
        last_round = others_one_turn_ties_shared and a deficit of at least the bank minimum, so that the tie can
        be banked); its values are then ten_thousand_last_turn's."""
        rs = self._rule_set(rules)
        return rs.last_round == "others_one_turn_ties_shared" and deficit >= rs.bank_minimum

    def _tied_last_turn(self, key: tuple, need: int, unit: int) -> State:
        """A last-turn state whose tie can be banked (:meth:`_ties`), ``need`` > 0 still to gain to pass the
        leader: ten_thousand_last_turn; at need = unit the turn total ties now: bank the tie (1/2) unless a roll,
        which wins unless it farkles, wins more often."""
        rules, _goal, _i, _j, k, n, t = key
        p = self._stored.last_turn(rules, need, need, n, t).get((need, n, t))
        if need == unit:
            roll = 1.0 - self.classes(rules)[(n, t)][0]
            return State(*key, True, max(roll, 0.5), "roll" if roll > 0.5 else "bank", roll, 0.5,
                         "last turn, tied: banking shares the win (1/2); rolling wins unless it farkles "
                         "(ten_thousand_classes.p_farkle)")
        return State(*key, True, 0.0 if p is None else float(p), "roll", 0.0 if p is None else float(p),
                     0.0 if k > 0 and k >= self._rule_set(rules).bank_minimum else None,
                     f"last turn, ties shared: ten_thousand_last_turn (need = opponent - score - turn_total + {unit} "
                     f"= {need})" + ("" if p is not None else "; past the stored needs, taken as 0"))

    def _shape(self, rules: str) -> tuple[int, int]:
        """(scoring unit, dice at a turn start) of a built rule set (50 and 6 in every preset)."""
        rule = self._rule(rules)
        return rule["unit"], rule["dice"]

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
             rules: str | None = None, *, variant: str | None = None, farkles=None) -> Best:
        """Every legal keep of the roll ``dice``, best first.

        Without scores: expected banked points of the solitaire turn.  With ``score`` and
        ``opponent``: the two-player win probability; an opponent at or above the goal means
        this is the last turn, and every keep is valued by the chance to end above it.
        ``rules=`` or ``variant=`` (the same thing) names a preset or a variant built from a
        rules file; default ``ten-thousand``."""
        rules = _rule_name(rules, variant)
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

    def goal(self, rules: str | None = None, *, variant: str | None = None) -> int:
        """Goal of the stored two-player game of a rule set (``rules=`` or ``variant=``)."""
        rules = _rule_name(rules, variant)
        if rules in self._goals:
            return self._goals[rules]
        row = self.db.fetchone("SELECT MAX(goal) FROM ten_thousand_policy_duel WHERE rules = ?", (rules,))
        if not row or row[0] is None:
            from dicebase.rules.ten_thousand import two_player_refusal

            why = two_player_refusal(self._rule_set(rules))
            if why:  # issue 24: a rule set the two-player solver cannot solve yet
                raise NotInDatabase(f"the two-player game of {rules!r} is not built: {why}")
            wanted = [*built_options(self.db, "ten_thousand").get("duel_rules", []), rules]
            raise NotInDatabase(f"the two-player game of {rules!r} is not built; "
                                f"{self.how_to_add(rule_set=rules, duel_rules=list(dict.fromkeys(wanted)))}")
        self._goals[rules] = int(row[0])
        return self._goals[rules]

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

    def _rule_set(self, rules: str):
        """The RuleSet the database was built with (from build_variants.rules_json)."""
        if rules not in self._rule_sets:
            from dicebase.rules.ten_thousand import RuleSet

            stored = self._rule(rules)
            self._rule_sets[rules] = RuleSet(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored.items()})
        return self._rule_sets[rules]

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

    def state(self, score, opponent, turn_total, dice=None, triple=0, rules: str | None = None, *,
              variant: str | None = None, farkles=None) -> State:
        """Win probability, optimal action and both action values of ANY two-player pre-roll state.

        Stored roll states are read from ten_thousand_duel; bank states (not stored) get the bank
        value from :data:`BANK_VALUE_SQL` and the roll value by one-step lookahead
        (:data:`ROLL_VALUE_SQL`); last-turn states (opponent >= goal) from ten_thousand_exceed.
        ``rules=`` or ``variant=`` (the same thing): a preset or a variant built from a rules file."""
        rules = _rule_name(rules, variant)
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

    # -- the two-player game with a consecutive-farkle penalty (issue 24) --------------------------
    def _penalty_args(self, rules: str, score, opponent, farkles) -> tuple:
        """(goal, i, j, ci, cj) of a two-player lookup of a penalty rule set; BadInput (one line) otherwise."""
        rs = self._rule_set(rules)
        if not rs.farkle_penalty:
            raise BadInput(f"--farkles is for rule sets with a consecutive-farkle penalty; {rules!r} has none")
        if score is None or opponent is None:
            raise BadInput("--farkles needs --score and --opponent (the two-player game)")
        goal = (self._solver(rules).get("two_player") or {}).get("goal_points")
        if goal is None:  # the two-player game of this rule set was not built: say how to add it
            self.goal(rules)
            raise NotInDatabase(f"the two-player game of {rules!r} is not built; rebuild: {self.rebuild_command()}")
        goal, unit, m = int(goal), rs.unit, rs.farkle_penalty_after
        if farkles is None:
            raise BadInput(f"rule set {rules!r} has a consecutive-farkle penalty: give both players' farkle counts "
                           "in a row, --farkles A,B (the mover's, the opponent's)")
        if isinstance(farkles, str):  # "A,B" as the command line gives it
            counts = comma_numbers(farkles)
            if counts is None:
                raise BadInput(f"--farkles must be two counts A,B from 0 to {m - 1}, got {clip(farkles)}")
            farkles = counts
        if isinstance(farkles, (bytes, dict)) or not hasattr(farkles, "__iter__"):
            raise BadInput(f"--farkles must be two counts A,B, got {clip(farkles)}")
        counts = [_int(c, "--farkles", f"a whole number 0-{m - 1}") for c in farkles]
        if len(counts) != 2 or any(not 0 <= c < m for c in counts):
            raise BadInput(f"--farkles must be two counts A,B from 0 to {m - 1} (farkles in a row: the mover's, "
                           f"the opponent's; the {m}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(m, 'th')} costs the penalty), "
                           f"got {','.join(map(str, counts))}")
        lo = rs.lowest_score
        scores = []
        for value, what in ((score, "--score"), (opponent, "--opponent")):
            v = _int(value, what, f"a multiple of {unit} from {lo} to {goal - unit}")
            if v < lo or v >= goal or v % unit:
                ends = (f"in {rules} the first player to bank {goal} wins" if rs.last_round == "first_to_goal_wins"
                        else f"{rules} is played to {goal}")
                raise BadInput(f"{what} must be a multiple of {unit} from {lo} (the rule set's lowest_score) to "
                               f"{goal - unit} ({ends}), got {v}")
            scores.append(v)
        return goal, scores[0], scores[1], counts[0], counts[1]

    def _penalty_turn(self, rules: str, goal: int, i: int, j: int, ci: int, cj: int):
        """The turn of (i, ci) against (j, cj) (:class:`~.lookahead.PenaltyTurn`) over the opponent's stored turn
        starts: the rows of ten_thousand_penalty_start with score = j, count = cj."""
        from dicebase.query.metadata import has_relation
        from dicebase.query.ten_thousand.lookahead import PenaltyTurn

        key = (rules, goal, j, cj)
        starts = self._penalty_starts.get(key)
        if starts is None:
            if not has_relation(self.db, "ten_thousand_penalty_start"):
                raise NotInDatabase(f"the file lacks the two-player turn starts with farkle counts of {rules!r} "
                                    f"(ten_thousand_penalty_start, a build before it); rebuild: {self.rebuild_command()}")
            rows = self.db.fetchall(
                "SELECT opponent, opponent_count, p_win FROM ten_thousand_penalty_start WHERE rules = ? AND goal = ? "
                "AND score = ? AND count = ?", (rules, goal, j, cj))
            starts = {(int(o), int(c)): float(p) for o, c, p in rows}
            if not starts:
                raise NotInDatabase(f"ten_thousand_penalty_start holds no turn starts of {rules!r} to {goal}; rebuild: "
                                    f"{self.rebuild_command()}")
            if len(self._penalty_starts) > 64:  # a connection remembers a few opponents' turn starts
                self._penalty_starts.clear()
            self._penalty_starts[key] = starts
        return PenaltyTurn(self, rules, goal, i, j, ci, cj, starts, self._penalty_last_turn(rules))

    def _penalty_last_turn(self, rules: str) -> tuple | None:
        """(v, pf_min) of a penalty rule set with a last round, None under first_to_goal_wins: v[d] what the last
        turn is worth to the opponent d units behind after a bank at or past the goal (twoplayer.last_turn_values:
        ten_thousand_exceed at need max(lead + unit, bank minimum), or ten_thousand_last_turn where ties are shared
        and the lead is at least the bank minimum), every lead the build stored; pf_min the least farkle chance of a
        class (ten_thousand_classes), for the solver's turn-total bound.  Remembered per connection."""
        rs = self._rule_set(rules)
        if rs.last_round == "first_to_goal_wins":
            return None
        if rules not in self._penalty_last:
            from dicebase.query.ten_thousand.stored import MAX_NEED

            unit, start = self._shape(rules)
            column = self._stored.exceed_start(rules, unit, MAX_NEED)
            v = []
            while (got := column.get((self._last_need(rules, len(v) * unit), start, 0))) is not None:
                v.append(float(got))
            if not v:
                raise NotInDatabase(f"the file lacks the last turn of {rules!r} (ten_thousand_exceed, written for a "
                                    f"penalty rule set with a last round since issue 24); rebuild: "
                                    f"{self.rebuild_command()}")
            self._penalty_last[rules] = (v, min(p for p, _low in self.classes(rules).values()))
        return self._penalty_last[rules]

    def _penalty_state(self, rules: str, score, opponent, farkles, k: int, n: int, t: int) -> PenaltyState:
        goal, i, j, ci, cj = self._penalty_args(rules, score, opponent, farkles)
        turn = self._penalty_turn(rules, goal, i, j, ci, cj)
        bank = turn.bank(k)
        roll = turn.roll(k, n, t)
        p, action = (bank, "bank") if bank is not None and bank >= roll else (roll, "roll")
        fs, fc = turn.farkle_to
        return PenaltyState(rules, goal, i, j, k, n, t, False, p, action, roll, bank,
                            f"farkle penalty: this turn by one turn's recursion from the opponent's turn starts "
                            f"(ten_thousand_penalty_start, score = {j}, count = {cj}); a bank of T is worth 1 - "
                            f"W({j}, {i} + T, {cj}, 0), "
                            + ("1 at the goal" if turn.last is None else
                               "at the goal 1 - the opponent's last turn (ten_thousand_exceed)")
                            + f"; a farkle 1 - W({j}, {fs}, {cj}, {fc})",
                            [ci, cj])

    def _penalty_best(self, rules: str, rule: dict, faces: list, roll: str, n: int, t: int, k: int,
                      score, opponent, farkles) -> PenaltyBest:
        goal, i, j, ci, cj = self._penalty_args(rules, score, opponent, farkles)
        turn = self._penalty_turn(rules, goal, i, j, ci, cj)
        actions = []
        for _roll, keep, p, _used, da, ta, hd, dom in self._keeps(rules, n, t, roll):
            v, then = turn.outcome(k, int(p), int(da), int(ta))
            actions.append(KeepAction([int(c) for c in keep], int(p), int(da), int(ta), bool(hd), bool(dom),
                                      float(v), then))
        actions.sort(key=lambda a: (-a.value, -a.points, -len(a.keep), a.keep))
        return PenaltyBest(WIN, rules, sorted(faces), k, t, i, j, goal, False, not actions, float(turn.farkle),
                           actions, [ci, cj])

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

    def state_n(self, scores, player, turn_total=0, dice=None, triple=0, rules: str | None = None, *,
                variant: str | None = None):
        """N players: every action (roll, bank) at a pre-roll state with the mover's and every seat's win
        probability (``p_wins``): ``scores`` one per seat in seat order (points; one at or above the goal: a
        final turn), ``player`` the seat to move.  Returns a :class:`~.nplayer.NState`."""
        return self.n.state(scores, player, turn_total, dice, triple, _rule_name(rules, variant))

    def best_n(self, dice, scores, player, turn_total=0, triple=0, rules: str | None = None, *,
               variant: str | None = None):
        """N players: every legal keep of the roll ``dice`` (faces) with the mover's and every seat's win
        probability, the equilibrium's keep first.  Returns a :class:`~.nplayer.NBest`."""
        return self.n.best(dice, scores, player, turn_total, triple, _rule_name(rules, variant))

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
