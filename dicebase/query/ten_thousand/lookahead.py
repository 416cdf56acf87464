"""10,000's one-step lookahead in Python: the values of the documented queries
(:mod:`dicebase.layout.ten_thousand`: DUEL_LOOKAHEAD_SQL, LAST_TURN_SQL, BANK_VALUE_SQL,
ROLL_VALUE_SQL, SOLITAIRE_LOOKAHEAD_SQL) computed over a few reads of stored values
(:mod:`.stored`), whose joins would take DuckDB 10-30 ms (tests/test_ten_thousand_db.py checks
the two agree).  Part of :class:`~dicebase.query.ten_thousand.Queries`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dicebase.query.base import NotInDatabase
from dicebase.query.ten_thousand.results import State, rolls


@dataclass(frozen=True)
class _Lookahead:
    """One class's rolls for ROLL_VALUE_SQL: the distinct keep outcomes, and per roll its chance
    and the outcomes its legal keeps lead to (none: a farkle)."""

    outcomes: tuple  # (points, dice_after, triple_after) of every keep of the class, once each
    rolls: list  # (probability, indices into outcomes) of every roll of the class's dice
    max_points: int  # the most points one keep scores


class Lookahead:
    """The lookahead of :class:`~dicebase.query.ten_thousand.Queries` (its stored values: ``_stored``)."""

    def _opponents(self, rules: str, goal: int, i: int, k: int, points: list[int]) -> tuple[int, int]:
        """The opponent scores whose turn starts a lookahead from (i, k) reads: i (a farkle), i + k
        (banking now) and i + k + each keep's points, below the goal."""
        return i, min(i + k + max(points, default=0), goal - self._shape(rules)[0])

    def _duel_values(self, rules: str, goal: int, i: int, j: int, k: int,
                     keeps: list[tuple], also: int | None = None) -> tuple[list[tuple[float, str]], float, dict]:
        """(value, then) of each keep as DUEL_LOOKAHEAD_SQL values it, W(j, i), and the stored states
        of pair (i, j) read (turn totals from ``also``, if given, up to the largest keep's)."""
        points = [keep[2] for keep in keeps]
        unit, start = self._shape(rules)
        banked = [i + k + p for p in points]
        found = None
        if self.db.store == "duckdb":  # the turn starts of j from i to the largest banked score below the goal
            found = self._stored.bounds_rows(rules, goal, j, self._opponents(rules, goal, i, k, points), (i, j))
        stored = {}
        if keeps or also is not None:
            lo = min([k + p for p in points] + ([] if also is None else [also]))
            hi = max([k + p for p in points] + ([] if also is None else [also]))
            stored = self._stored.pair_rows(rules, goal, i, j, lo, hi, None if found is None else found[1])
        if found is not None:
            starts = {o: found[0][o] for o in [i, *(b for b in banked if b < goal)] if o in found[0]}
        else:
            starts = self._stored.turn_starts(rules, goal, j, [i, *(b for b in banked if b < goal)])
        over = [self._last_need(rules, b - j) for b in banked if b >= goal]
        exceed = self._stored.exceed_start(rules, min(over), max(over)) if over else {}
        if i not in starts or any(b not in starts for b in banked if b < goal):
            raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                f"{self.rebuild_command()}")
        values = []
        for (_roll, _keep, p, _used, da, ta, _hd, _dom), b in zip(keeps, banked):
            v = stored.get((k + p, da, ta))
            if v is not None:
                values.append((v, "roll"))
            elif b < goal:
                values.append((1 - starts[b], "bank"))
            else:
                values.append((1 - exceed.get((self._last_need(rules, b - j), start, 0), 0), "bank"))
        return values, starts[i], stored

    def _last_need(self, rules: str, lead: int) -> int:
        """What the opponent's last turn must gain after a bank ``lead`` points ahead at or past the goal:
        more than the lead, and at least the bank minimum (issue 24; the documented queries take
        ``lead + unit``, the same without a bank minimum)."""
        return max(lead + self._shape(rules)[0], self._rule_set(rules).bank_minimum)

    def _last_turn_values(self, rules: str, need: int, keeps: list[tuple], ties: bool = False) -> list[tuple[float, str]]:
        """(value, then) of each keep as LAST_TURN_SQL values it (``need``: what the turn must still gain).
        ``ties`` (issue 24, a tie that can be banked): ten_thousand_last_turn's values, and a keep that ties the
        leader (need - points = unit) banks the tie (1/2) unless rolling on wins more often."""
        short = [need - keep[2] for keep in keeps if keep[2] < need]
        if not ties:
            exceed = self._stored.exceed(rules, min(short), max(short)) if short else {}
            return [(1.0, "bank") if p >= need else (exceed.get((need - p, da, ta), 0), "roll")
                    for _roll, _keep, p, _used, da, ta, _hd, _dom in keeps]
        unit = self._shape(rules)[0]
        stored = self._stored.last_turn(rules, min(short), max(short)) if short else {}
        out = []
        for _roll, _keep, p, _used, da, ta, _hd, _dom in keeps:
            if p >= need:
                out.append((1.0, "bank"))
            elif need - p == unit:  # tied after it: max(1/2, 1 - p_farkle); no dice left (no hot dice): the tie
                v = stored.get((unit, da, ta), 0.5)
                out.append((v, "bank" if v <= 0.5 else "roll"))
            else:
                out.append((stored.get((need - p, da, ta), 0.0), "roll"))
        return out

    def _solitaire_values(self, rules: str, k: int, keeps: list[tuple]) -> list[tuple[float, str]]:
        """(value, then) of each keep as SOLITAIRE_LOOKAHEAD_SQL values it."""
        if not keeps:
            return []
        points = [keep[2] for keep in keeps]
        lo, hi = k + min(points), k + max(points)
        stored = self._stored.solitaire(rules, lo, hi)
        return [stored.get((k + p, da, ta), (k + p, "bank")) for _roll, _keep, p, _used, da, ta, _hd, _dom in keeps]

    def _bank_value(self, rules: str, goal: int, i: int, j: int, k: int) -> float:
        """BANK_VALUE_SQL: 1 - W(j, i + k) below the goal, else 1 - P_exceed(i + k - j + unit) (the need at
        least the bank minimum, :meth:`_last_need`)."""
        if i + k < goal:
            w = self._stored.turn_starts(rules, goal, j, [i + k])
            if not w:
                raise NotInDatabase(f"ten_thousand_duel lacks the turn start ({j}, {i + k}); rebuild: "
                                    f"{self.rebuild_command()}")
            return 1 - w[i + k]
        unit, start = self._shape(rules)
        need = self._last_need(rules, i + k - j)
        return 1 - self._stored.exceed_start(rules, need, need).get((need, start, 0), 0)

    def _stored_state(self, key: tuple, p_win, bank: float | None) -> State | None:
        """The state of ``key`` when it is a stored roll state (``p_win`` read from its row); None
        for a bank state, which the caller values by the lookahead.  A state that can neither bank
        (``bank`` None) nor was found stored is missing from the file."""
        if p_win is not None:
            p = float(p_win)
            return State(*key, False, p, "roll", p, bank, "stored roll state (ten_thousand_duel)" if bank is None
                         else "stored roll state (ten_thousand_duel); bank value from BANK_VALUE_SQL")
        if bank is None:
            raise NotInDatabase(f"state {key} should be a stored roll state but is missing; rebuild: "
                                f"{self.rebuild_command()}")
        return None

    @staticmethod
    def _bank_state(key: tuple, bank: float, parts, farkle: float) -> State:
        """A bank state: ROLL_VALUE_SQL's sum of each roll's best keep (a farkle worth ``farkle``)
        weighted by the roll's chance, summed here (math.fsum) so that both stores give the same bits."""
        roll_value = math.fsum(float(p) * (farkle if v is None else float(v)) for p, v in parts)
        return State(*key, False, bank, "bank", roll_value, bank,
                     "bank state (not stored: banking is optimal): bank value from BANK_VALUE_SQL, roll value "
                     "by one-step lookahead over every roll (ROLL_VALUE_SQL)")

    def _state_by_position(self, rule: dict, key: tuple, can_bank: bool) -> State:
        """``state`` below the goal on DuckDB: the turn starts of the opponent's score and where the
        pair's rows lie (ten_thousand_duel_bounds, in memory from a connection's second two-player
        lookup), one read of the pair's rows, and the class's keeps (remembered per connection).
        A stored roll state is answered from its row; only a bank state needs the lookahead."""
        rules, goal, i, j, k, n, t = key
        unit, start = rule["unit"], rule["dice"]
        look = self._lookahead(rules, n, t)
        found = self._stored.bounds_rows(rules, goal, j, self._opponents(rules, goal, i, k, [look.max_points]), (i, j))
        if found is None:  # not laid out as the build writes it: key filters
            return self._state_by_keys(rule, key, can_bank)
        starts, where = found
        if self.db.store == "sqlite":  # the state's own row first (one primary-key seek); the rest only for a bank state
            own = self._stored.pair_rows(rules, goal, i, j, k, k, None)
            stored = own if (k, n, t) in own else self._stored.pair_rows(rules, goal, i, j, k, k + look.max_points, None)
        else:  # DuckDB: the pair's rows in one read (it scans a row group whatever it keeps)
            stored = self._stored.pair_rows(rules, goal, i, j, k, k + look.max_points, where)
        if i not in starts or (can_bank and i + k < goal and i + k not in starts):
            raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                f"{self.rebuild_command()}")
        bank = None
        if can_bank:  # BANK_VALUE_SQL
            bank = 1 - float(starts[i + k]) if i + k < goal else float(self._bank_value(rules, goal, i, j, k))
        answer = self._stored_state(key, stored.get((k, n, t)), bank)
        if answer is not None:
            return answer
        # DUEL_LOOKAHEAD_SQL's value of every distinct keep outcome (points, dice after, triple after)
        over = [self._last_need(rules, i + k + points - j) for points, _da, _ta in look.outcomes
                if i + k + points >= goal]
        exceed = self._stored.exceed_start(rules, min(over), max(over)) if over else {}
        values = []
        for points, da, ta in look.outcomes:
            v = stored.get((k + points, da, ta))  # a stored roll state: roll on
            if v is None:
                banked = i + k + points
                if banked < goal:
                    if banked not in starts:
                        raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                            f"{self.rebuild_command()}")
                    v = 1 - starts[banked]
                else:
                    v = 1 - exceed.get((self._last_need(rules, banked - j), start, 0), 0)
            values.append(v)
        parts = [(prob, max(map(values.__getitem__, outcomes)) if outcomes else None)
                 for prob, outcomes in look.rolls]
        return self._bank_state(key, bank, parts, 1.0 - starts[i])

    def _state_by_keys(self, rule: dict, key: tuple, can_bank: bool) -> State:
        """``_state_by_position`` for a file whose bounds are not where the build puts them."""
        rules, goal, i, j, k, n, t = key
        keeps = self._keeps(rules, n, t, None)
        values, w_ji, stored = self._duel_values(rules, goal, i, j, k, keeps, also=k)
        bank = float(self._bank_value(rules, goal, i, j, k)) if can_bank else None
        answer = self._stored_state(key, stored.get((k, n, t)), bank)
        if answer is not None:
            return answer
        best: dict[str, float] = {}
        for keep, (v, _then) in zip(keeps, values):
            best[keep[0]] = max(v, best.get(keep[0], v))
        parts = [(prob, best.get(r)) for r, prob in rolls(n)]
        return self._bank_state(key, bank, parts, 1.0 - w_ji)

    def _lookahead(self, rules: str, n: int, t: int) -> "_Lookahead":
        """The keeps of every roll of (n dice, triple t) grouped for the one-step lookahead
        (remembered per connection)."""
        look = self._lookaheads.get((rules, n, t))
        if look is None:
            keeps = self._keeps(rules, n, t, None)
            index: dict[tuple[int, int, int], int] = {}
            by_roll: dict[str, list[int]] = {}
            for roll, _keep, points, _used, da, ta, _hd, _dom in keeps:
                by_roll.setdefault(roll, []).append(index.setdefault((points, da, ta), len(index)))
            look = _Lookahead(tuple(index), [(prob, tuple(by_roll.get(roll, ()))) for roll, prob in rolls(n)],
                              max((kp[2] for kp in keeps), default=0))
            self._lookaheads[(rules, n, t)] = look
        return look


class PenaltyTurn:
    """One turn of the two-player game with a consecutive-farkle penalty (issue 24), from the stored turn starts
    (ten_thousand_penalty_start): every state (turn total, dice, triple) of the turn of the player at ``i`` with
    ``ci`` farkles in a row against ``j`` with ``cj``, by one turn's recursion over the turn totals descending, as
    twoplayer.solve_penalty values it: a bank of T >= the bank minimum is worth 1 - W(j, i + T, cj, 0) below the
    goal; at or past it 1 under first_to_goal_wins, else ``1 - v[lead]`` (``last``: the opponent's last turn,
    twoplayer.last_turn_values, from the stored ten_thousand_exceed / ten_thousand_last_turn); a farkle
    1 - W(j, i, cj, ci + 1), or on the m-th in a row 1 - W(j, max(i - P, L), cj, 0 or m - 1).  With a last round
    a turn past the goal may roll on to lead by more; it banks from the solver's turn-total bound on (kernels.pen_kmax:
    the first lead d with v[d] <= pf_min (1 - farkle), where no roll can beat banking), so the values are the
    solver's.  Pure Python (the lookup path has no numpy)."""

    def __init__(self, q, rules: str, goal: int, i: int, j: int, ci: int, cj: int, starts: dict,
                 last: tuple | None = None):
        rs = q._rule_set(rules)
        self.q, self.rules, self.goal, self.i, self.j = q, rules, goal, i, j
        self.last = None if last is None else last[0]  # v[d], d = lead in units (None: first to the goal wins)
        self.unit = unit = rs.unit
        self.bm = max(1, -(-rs.bank_minimum // unit)) * unit
        m, P = rs.farkle_penalty_after, -(-rs.farkle_penalty // unit) * unit
        self.starts = starts  # (score, count) of the opponent's next turn start -> W(j, score, cj, count)
        if ci < m - 1:
            self.farkle_to = (i, ci + 1)
        else:
            self.farkle_to = (max(i - P, rs.lowest_score), 0 if rs.farkle_count_reset == "after_penalty" else m - 1)
        self.farkle = 1.0 - self._start(*self.farkle_to)
        self.top = max(goal - i, self.bm)  # from this turn total on every class banks (and wins: first to the goal)
        if last is not None:  # the solver's bound: a roll is worth at most 1 - pf(s) (1 - farkle), a bank 1 - v[d]
            level = last[1] * (1.0 - self.farkle)
            d = next((x for x, v in enumerate(self.last) if v <= level), None)
            if d is None:
                raise NotInDatabase(f"ten_thousand_exceed of {rules!r} is too short for the turn-total bound of a last "
                                    f"round; rebuild: {q.rebuild_command()}")
            self.top = max(self.top, d * unit + j - i)
        self.values: dict = {}  # (k, n, t) -> (value, action)
        self.low = self.top  # values are known from this turn total on

    def _start(self, score: int, count: int) -> float:
        w = self.starts.get((score, count))
        if w is None:
            raise NotInDatabase(f"ten_thousand_penalty_start lacks the turn start of score {score} with {count} "
                                f"farkles in a row; rebuild: {self.q.rebuild_command()}")
        return w

    def bank(self, k: int) -> float | None:
        """The value of banking turn total ``k`` (None: below the bank minimum, or a turn start)."""
        if k <= 0 or k < self.bm:
            return None
        if self.i + k < self.goal:
            return 1.0 - self._start(self.i + k, 0)
        if self.last is None:
            return 1.0
        lead = (self.i + k - self.j) // self.unit
        if lead >= len(self.last):
            raise NotInDatabase(f"ten_thousand_exceed of {self.rules!r} lacks the last turn {lead * self.unit} points "
                                f"behind; rebuild: {self.q.rebuild_command()}")
        return 1.0 - self.last[lead]

    def outcome(self, k: int, points: int, da: int, ta: int) -> tuple[float, str]:
        """(value, then) of a keep of ``points`` leading to (da, ta) from turn total ``k``."""
        k2 = k + points
        if da == 0:  # every die scored without hot dice: the turn ends, banked or lost below the bank minimum
            b = self.bank(k2)
            return (self.farkle, "lost") if b is None else (b, "bank")
        return self.value(k2, da, ta)

    def roll(self, k: int, n: int, t: int) -> float:
        """The value of rolling (n dice, triple t) at turn total ``k``: each roll's best keep, a farkle worth
        ``farkle``, weighted by the roll's chance (math.fsum)."""
        look = self.q._lookahead(self.rules, n, t)
        vals = [self.outcome(k, p, da, ta)[0] for p, da, ta in look.outcomes]
        return math.fsum(prob * (max(map(vals.__getitem__, outs)) if outs else self.farkle)
                         for prob, outs in look.rolls)

    def value(self, k: int, n: int, t: int) -> tuple[float, str]:
        """(value, optimal action) of the pre-roll state (k, n, t); banking wins ties."""
        if k >= self.top:
            return self.bank(k), "bank"
        self._fill(k)
        return self.values[(k, n, t)]

    def _fill(self, k: int) -> None:
        """Every class's value at turn totals ``k`` .. top - unit, the largest first (a keep scores > 0)."""
        if self.low <= k:
            return
        classes = list(self.q.classes(self.rules))
        for kk in range(self.low - self.unit, k - 1, -self.unit):
            b = self.bank(kk)
            for n, t in classes:
                r = self.roll(kk, n, t)
                self.values[(kk, n, t)] = (b, "bank") if b is not None and b >= r else (r, "roll")
            self.low = kk
