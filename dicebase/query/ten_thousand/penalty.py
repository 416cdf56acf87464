"""10,000's two-player game with a consecutive-farkle penalty (issue 24; split from queries.py, issue 30): its
``state`` and ``best`` (:class:`Penalty`, a base of :class:`dicebase.query.ten_thousand.queries.Queries`)."""

from __future__ import annotations

from dicebase.query.base import BadInput, NotInDatabase, clip, comma_numbers, first
from dicebase.query.ten_thousand.results import WIN, KeepAction, PenaltyBest, PenaltyState
from dicebase.query.ten_thousand.rulesets import _int


class Penalty:
    """The farkle-penalty lookups of :class:`~dicebase.query.ten_thousand.queries.Queries` (its state lives there)."""

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
