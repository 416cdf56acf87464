"""10,000's rule sets as the lookups read them (split from queries.py, issue 30): the rule sets built, each one's
rules, goal, classes and checks of a turn's values, shared by every lookup (:class:`RuleSets`, a base of
:class:`dicebase.query.ten_thousand.queries.Queries`)."""

from __future__ import annotations

import json

from dicebase.query.base import (
    BadInput, NotInDatabase, built_options, clip, first, how_to_add, named, rebuild_command, text_choice, whole_number,
)
from dicebase.query.ten_thousand.results import State
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


class RuleSets:
    """The rule-set reads and checks of :class:`~dicebase.query.ten_thousand.queries.Queries` (its state lives there)."""

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

    def _rule_set(self, rules: str):
        """The RuleSet the database was built with (from build_variants.rules_json)."""
        if rules not in self._rule_sets:
            from dicebase.rules.ten_thousand import RuleSet

            stored = self._rule(rules)
            self._rule_sets[rules] = RuleSet(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored.items()})
        return self._rule_sets[rules]
