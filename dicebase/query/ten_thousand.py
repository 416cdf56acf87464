"""10,000 lookups: ``db.ten_thousand.odds(...)``, ``best``, ``state``, ``thresholds``, ``gaps``.

Plain SQL over the ten_thousand_* tables (no sqlalchemy, no numpy).  ``best`` is a
one-step lookahead: for every legal keep of the roll it reads the stored pre-roll value
of the state the keep leads to (:data:`DUEL_LOOKAHEAD_SQL` is the documented query).
"""

from __future__ import annotations

import json
import math
from array import array
from dataclasses import asdict, dataclass, field

from dicebase.layout.ten_thousand import (
    BANK_VALUE_SQL,
    DUEL_LOOKAHEAD_SQL,
    LAST_TURN_SQL,
    ROLL_PARTS_SQL,
    ROLL_VALUE_SQL,
    SOLITAIRE_LOOKAHEAD_SQL,
)
from dicebase.query.base import BadInput, NotInDatabase, clip, first, ready_to_hold, text_choice, whole_number
from dicebase.rules.ten_thousand import MAX_POINTS, PRESETS

EXPECTED = "expected_banked_points"
WIN = "win_probability"

_POSITIONAL: dict[str, tuple[str, list[str]]] = {}  # sql -> (text with ?, parameter names in order)


def positional(sql: str, values: dict) -> tuple[str, tuple]:
    """Named ``:name`` parameters -> ``?`` placeholders and the value tuple (both stores)."""
    if sql not in _POSITIONAL:
        import re

        names: list[str] = []

        def sub(m):
            names.append(m.group(1))
            return "?"

        _POSITIONAL[sql] = re.sub(r":([a-z]+)\b", sub, sql), names
    text, names = _POSITIONAL[sql]
    return text, tuple(values[name] for name in names)


@dataclass(frozen=True)
class OddsRow:
    combination: str
    outcomes: int
    probability: float
    mean_points: float
    mean_combination_points: float


@dataclass(frozen=True)
class KeepAction:
    keep: list[int]
    points: int
    dice_after: int
    triple_after: int
    hot_dice: bool
    dominated: bool
    value: float
    then: str  # 'roll' or 'bank' at the state the keep leads to; 'lost': no hot dice, all dice scored below the opening minimum


@dataclass(frozen=True)
class Best:
    objective: str
    rules: str
    roll: list[int]
    turn_total: int
    triple: int
    score: int | None
    opponent: int | None
    goal: int | None
    last_turn: bool  # the opponent has banked at or above the goal: this turn must exceed it
    farkle: bool
    farkle_value: float  # value of this state when the roll is a farkle (the turn total is lost)
    actions: list[KeepAction] = field(default_factory=list)

    @property
    def best(self) -> KeepAction | None:
        return self.actions[0] if self.actions else None

    @property
    def value(self) -> float:
        """Value of the roll: the best keep's, or the farkle value when nothing scores."""
        return self.actions[0].value if self.actions else self.farkle_value

    def as_dict(self) -> dict:
        d = asdict(self)
        d["best"] = d["actions"][0] if d["actions"] else None
        d["value"] = self.value
        return d


@dataclass(frozen=True)
class State:
    """A two-player pre-roll state: its win probability, optimal action and both action values."""

    rules: str
    goal: int
    score: int
    opponent: int
    turn_total: int
    dice: int
    triple: int
    last_turn: bool  # opponent >= goal: this is the last turn, it must end above the opponent
    p_win: float  # win probability under optimal play = max(roll_value, bank_value)
    action: str  # 'roll' or 'bank' (ties bank)
    roll_value: float  # win probability if rolling now, then playing optimally
    bank_value: float | None  # win probability if banking now (None: a turn start cannot bank)
    source: str  # where the values come from


@dataclass(frozen=True)
class Threshold:
    dice: int
    triple: int
    min_turn_total: int | None
    bank_from: int | None
    last_roll: int | None
    seed004_bank_from: int | None


@dataclass(frozen=True)
class Gap:
    rules: str
    goal: int
    policy: str
    p1_win: float
    p2_win: float
    gap: float
    expected_turn_points: float | None


def _by_first(rows) -> dict[int, float]:
    """{key: value} of (key, value) rows (turn-start win probabilities by opponent score)."""
    return {int(key): float(value) for key, value in rows}


def _by_key3(rows) -> dict[tuple[int, int, int], float]:
    """{(a, b, c): value} of (a, b, c, value) rows, e.g. (turn_total, dice, triple) -> p_win (the
    schema's INTEGER and DOUBLE columns come as int and float from both stores: no conversion,
    which would cost more than the read for a pair's few hundred rows)."""
    return {(a, b, c): value for a, b, c, value in rows}


def _rolls(n: int) -> list[tuple[str, float]]:
    """(roll, probability) of every roll of n dice, as ten_thousand_rolls holds them for each
    standing triple: ways = n! / (c1! ... c6!) of the 6^n ordered outcomes."""
    from itertools import combinations_with_replacement

    out = []
    for faces in combinations_with_replacement(range(1, 7), n):
        ways = math.factorial(n)
        for face in set(faces):
            ways //= math.factorial(faces.count(face))
        out.append(("".join(map(str, faces)), ways / 6 ** n))
    return out


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
    if variant is not None and rules is not None and variant != rules:
        raise BadInput(f"give the rule set once: rules={clip(rules)} and variant={clip(variant)} differ")
    return variant if variant is not None else ("ten-thousand" if rules is None else rules)


#: Above every need ten_thousand_exceed can hold (a need is at most the opponent's score plus a unit)
MAX_NEED = 2 * MAX_POINTS
#: DuckDB reads a two-player pair's rows whole up to this many (a pair holds 751 on average at
#: goal 10,000, at most 3,646), and only the turn totals asked (and the pair's ends) past it
WHOLE_PAIR_ROWS = 1500
#: A two-player pair's rows by position, prepared once per connection (Database.prepared)
PAIR_ROWS_SQL = ("SELECT rowid, score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                 "WHERE rowid BETWEEN $1 AND $2")


@dataclass(frozen=True)
class _Lookahead:
    """One class's rolls for ROLL_VALUE_SQL: the distinct keep outcomes, and per roll its chance
    and the outcomes its legal keeps lead to (none: a farkle)."""

    outcomes: tuple  # (points, dice_after, triple_after) of every keep of the class, once each
    rolls: list  # (probability, indices into outcomes) of every roll of the class's dice
    max_points: int  # the most points one keep scores


@dataclass
class _Layout:
    """Where one block of a table's rows lies in a DuckDB file (a row's rowid is its position), as
    the build writes it; found once per connection by :meth:`find`, checked again by every read."""

    base: int  # rowid of the block's first row
    count: int  # rows in the block
    unit: int = 0  # points per step of the block's points key (turn_total, need, score)
    size: int = 0  # rows per step: classes per turn total or need; opponents per score
    classes: tuple = ()  # (dice, triple) of the rows of one step, in order
    blocks: dict = field(default_factory=dict)  # keeps, rolls: (dice, triple) -> (first, last rowid)

    @classmethod
    def find(cls, q: "Queries", table: str, block: tuple) -> "_Layout | None":
        db = q.db
        unit = q._shape(block[0])[0]
        if table in ("ten_thousand_keeps", "ten_thousand_rolls"):
            rows = db.fetchall(f"SELECT dice, triple, min(rowid), max(rowid), count(*) FROM {table} "
                               "WHERE rules = ? GROUP BY dice, triple", block)
            blocks = {(n, t): (a, b) for n, t, a, b, c in rows if b - a + 1 == c}
            return cls(0, 0, blocks=blocks) if blocks else None
        if table == "ten_thousand_duel":
            return cls._find_duel(q, *block)
        where = {"ten_thousand_duel_bounds": "rules = ? AND goal = ?", "ten_thousand_exceed": "rules = ? AND policy = ?",
                 "ten_thousand_solitaire": "rules = ?"}[table]
        a, b, count = db.fetchone(f"SELECT min(rowid), max(rowid), count(*) FROM {table} WHERE {where}", block)
        if not count or b - a + 1 != count:
            return None
        if table == "ten_thousand_duel_bounds":
            G = block[1] // unit
            return cls(a, count, unit, G) if count == G * G else None
        # a dense grid of (points step, class): the classes of the first step give its width
        step = "need" if table == "ten_thousand_exceed" else "turn_total"
        head = db.fetchall(f"SELECT {step}, dice, triple FROM {table} WHERE rowid BETWEEN ? AND ?", (a, a + 99))
        first = unit if table == "ten_thousand_exceed" else 0
        classes = []
        for points, n, t in head:
            if points != first:
                break
            classes.append((n, t))
        # every class of the rule set once per step (ten_thousand_classes), or the grid is not the build's
        if sorted(classes) != sorted(q.classes(block[0])) or count % len(classes):
            return None
        return cls(a, count, unit, len(classes), tuple(classes))

    @classmethod
    def _find_duel(cls, q: "Queries", rules: str, goal: int) -> "_Layout | None":
        """ten_thousand_duel's (rules, goal) block: the build writes it just before its bounds, so it
        starts after the rows of every bounds block before this one; checked at both ends, else
        found by a key filter over the block (one scan)."""
        bounds = q._layout("ten_thousand_duel_bounds", rules, goal)
        if bounds is None:
            return None
        db = q.db
        before, total = db.fetchone(
            "SELECT coalesce(sum(row_count) FILTER (WHERE rowid < ?), 0), sum(row_count) FILTER (WHERE rowid BETWEEN ? AND ?) "
            "FROM ten_thousand_duel_bounds", (bounds.base, bounds.base, bounds.base + bounds.count - 1))
        if not total:
            return None
        top = (bounds.size - 1) * bounds.unit

        def fits(base: int) -> bool:
            rows = db.fetchall(
                "SELECT rowid, rules, goal, score, opponent FROM ten_thousand_duel "
                "WHERE rowid = ? OR rowid = ? OR rowid = ? OR rowid = ?",
                (base - 1, base, base + total - 1, base + total))
            at = {rowid: tuple(rest) for rowid, *rest in rows}
            return (at.get(base) == (rules, goal, 0, 0) and at.get(base + total - 1) == (rules, goal, top, top)
                    and at.get(base - 1, ("",))[:2] != (rules, goal) and at.get(base + total, ("",))[:2] != (rules, goal))

        if fits(before):
            return cls(before, total)
        a, b, count = db.fetchone("SELECT min(rowid), max(rowid), count(*) FROM ten_thousand_duel "
                                  "WHERE rules = ? AND goal = ?", (rules, goal))
        if count == total and b - a + 1 == count and fits(a):
            return cls(a, total)
        return None


class Queries:
    def __init__(self, db):
        self.db = db
        self._rules: dict[str, dict] | None = None
        self._classes: dict[str, dict] = {}
        self._goals: dict[str, int] = {}
        self._rule_sets: dict[str, object] = {}
        self._odds: dict[tuple[str, int, int], list[OddsRow]] | None = None
        self._layouts: dict[tuple, object] = {}  # DuckDB: where blocks of rows lie (see _Layout), per connection
        self._bounds_blocks: dict[tuple, tuple | None] = {}  # (rules, goal) -> see _bounds_block
        self._bounds_asks: dict[tuple, int] = {}  # (rules, goal) -> two-player lookups asked (_asked)
        self._solitaire_asks: dict[str, int] = {}  # DuckDB: see _solitaire_values
        self._exceed_columns: dict[str, dict] = {}  # rules -> see _exceed_start
        self._solitaire_blocks: dict[str, dict] = {}  # rules -> {(turn_total, dice, triple): (value, action)}
        self._lookaheads: dict[tuple, _Lookahead] = {}  # (rules, dice, triple) -> see _lookahead
        #: blocks whose rows were not where the build puts them (read by key filters instead)
        self.misplaced: list[str] = []
        # (sql, params) -> (the rows Database.read remembers, what was made of them): a read answered
        # from the memo is not checked and converted again (dropped with the memo: new rows, new check)
        self._checked: dict[tuple, tuple] = {}

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
        text_choice(rules, "rules")
        built = self.rule_sets()
        if rules not in built:
            if rules in PRESETS:
                raise NotInDatabase(
                    f"rule set {rules!r} is not built; add it with: dicebase build ten-thousand --force "
                    f"-o 'ten-thousand.rules=[\"{rules}\"]'"
                )
            raise BadInput(f"unknown rule set {rules!r}; built: {', '.join(built)}")
        return built[rules]

    def classes(self, rules: str | None = None, *,
                variant: str | None = None) -> dict[tuple[int, int], tuple[float, int | None]]:
        """(dice, triple) -> (farkle chance, smallest turn total reaching it) for a built rule set
        (``rules=`` or ``variant=``: a preset or a variant built from a rules file)."""
        rules = _rule_name(rules, variant)
        text_choice(rules, "rules")
        if rules not in self._classes:
            try:
                rows = self.db.fetchall(
                    "SELECT dice, triple, p_farkle, min_turn_total FROM ten_thousand_classes WHERE rules = ?", (rules,)
                )
            except Exception:  # a database built before the table existed (DuckDB and SQLite differ)
                raise NotInDatabase(
                    "this database has no ten_thousand_classes table; rebuild it: dicebase build ten-thousand --force"
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
        i = _points(score, "--score", unit, goal - unit, f" (the player to move is below the goal {goal})")
        j = _points(opponent, "--opponent", unit, MAX_POINTS, f" (at or above the goal {goal}: your last turn)")
        return goal, i, j

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
             rules: str | None = None, *, variant: str | None = None) -> Best:
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
        sqlite = self.db.store == "sqlite"  # its indexed joins run the documented queries fastest
        keeps = [] if sqlite else self._keeps(rules, n, t, roll)
        if score is None:
            objective, goal, farkle_value = EXPECTED, None, 0.0
            sql, params = SOLITAIRE_LOOKAHEAD_SQL, dict(k=k, rules=rules, dice=n, triple=t, roll=roll)
            values = None if sqlite else self._solitaire_values(rules, k, keeps)
        else:
            goal, i, j = self._scores(rules, score, opponent)
            objective = WIN
            if j >= goal:  # the last turn: end above the opponent or lose
                last, farkle_value = True, 0.0
                need = j - i - k + rule["unit"]
                sql, params = LAST_TURN_SQL, dict(need=need, rules=rules, dice=n, triple=t, roll=roll)
                values = None if sqlite else self._last_turn_values(rules, need, keeps)
            else:
                self._asked(rules, goal)
                sql, params = DUEL_LOOKAHEAD_SQL, dict(k=k, i=i, j=j, goal=goal, rules=rules, dice=n, triple=t, roll=roll,
                                                       unit=rule["unit"], start=rule["dice"])
                if sqlite:
                    w_ji = self._turn_starts(rules, goal, j, [i]).get(i)
                    if w_ji is None:
                        raise NotInDatabase(f"ten_thousand_duel lacks the turn start ({j}, {i}); rebuild: "
                                            "dicebase build ten-thousand --force")
                else:
                    values, w_ji, _stored = self._duel_values(rules, goal, i, j, k, keeps)
                farkle_value = 1.0 - w_ji
        if sqlite:
            rows = self.db.read(*positional(sql, params))
        else:
            rows = [(*keep[1:], *value) for keep, value in zip(keeps, values)]
        opening = not last and score is not None and i == 0  # a two-player turn still below the opening minimum

        def ends(p: int, then: str) -> str:
            """What follows a keep of every die without hot dice: the turn ends, banked or (below the
            opening minimum) lost; the stored lost-turn rows (dice 0) read 'roll' in the queries."""
            return "lost" if opening and k + p < rule["opening_minimum"] else "bank"

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
        text_choice(rules, "rules")
        if rules in self._goals:
            return self._goals[rules]
        row = self.db.fetchone("SELECT MAX(goal) FROM ten_thousand_policy_duel WHERE rules = ?", (rules,))
        if not row or row[0] is None:
            raise NotInDatabase(
                f"the two-player game of {rules!r} is not built; add it with: dicebase build ten-thousand "
                f"--force -o 'ten-thousand.duel_rules=[\"{rules}\"]'"
            )
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
            return sorted(self._class_rows("ten_thousand_keeps", "roll, keep, points, dice_used, dice_after, "
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

    # -- DuckDB: rows read by position -----------------------------------------
    # Every table is written once, in key order, so a row's key gives its position (DuckDB's
    # rowid) within its (rules[, goal]) block: dense grids by arithmetic, ten_thousand_duel by
    # the pair offsets stored in ten_thousand_duel_bounds.  A read of a rowid range touches one
    # row group (0.4-0.5 ms) where a key filter scans one (1.4-2.8 ms, issue 12).  Where each
    # block starts is found once per connection (_Layout); every read checks the key columns of
    # the rows it gets, and a block that is not where and how the build writes it (a file
    # written by other tools, edited, or rows deleted and re-inserted) is read by key filters.
    def _layout(self, table: str, *block) -> "_Layout | None":
        """Where ``table``'s rows of ``block`` lie (None: not as the build writes them)."""
        key = (table, *block)
        if key not in self._layouts:
            self._layouts[key] = _Layout.find(self, table, block) if self.db.store == "duckdb" else None
        return self._layouts[key]

    def _misplaced(self, key: tuple, what: str) -> None:
        """A positional read got rows of other keys: read this block by key filters from now on."""
        self._layouts[key] = None
        self.misplaced.append(what)

    def _asked(self, rules: str, goal: int) -> None:
        """Count a two-player lookup of (rules, goal) on this connection (see _bounds_block)."""
        key = (rules, goal)
        self._bounds_asks[key] = self._bounds_asks.get(key, 0) + 1

    def _bounds_block(self, rules: str, goal: int) -> tuple[array, array, array] | None:
        """The whole (rules, goal) block of ten_thousand_duel_bounds in memory, as three arrays by
        position (score // unit * G + opponent // unit): first_row, row_count, p_start.  Read from a
        connection's second two-player lookup on (40,000 rows at goal 10,000, 10-30 ms once): it
        saves a query per lookup after it, which a one-shot CLI lookup would never repay; taken
        from the held block when there is one (:meth:`hold`).  None while not read, or when a key
        is not where the build puts it (the lookups then read rows as before)."""
        key = (rules, goal)
        if key in self._bounds_blocks:
            return self._bounds_blocks[key]
        held = self.db._held.get(("ten_thousand_duel", rules, goal))
        if held is not None:
            return held.bounds
        if self._bounds_asks.get(key, 0) < 2:
            return None
        block = self._read_bounds_block(rules, goal)
        self._bounds_blocks[key] = block
        return block

    def _read_bounds_block(self, rules: str, goal: int) -> tuple[array, array, array] | None:
        """The bounds block of :meth:`_bounds_block`, read in one query; every row's key is checked
        against its position (None if one is not where the build puts it)."""
        unit = self._shape(rules)[0]
        G = goal // unit
        if self.db.store == "duckdb":
            lay = self._layout("ten_thousand_duel_bounds", rules, goal)
            if lay is None:
                return None
            # one row of three lists; the keys checked in the same scan
            first_rows, counts, p_starts, fits, rows = self.db.fetchone(
                "SELECT list(first_row ORDER BY rowid), list(row_count ORDER BY rowid), list(p_start ORDER BY rowid), "
                "bool_and(score = (rowid - $base) // $G * $unit AND opponent = (rowid - $base) % $G * $unit "
                "AND p_start IS NOT NULL AND first_row IS NOT NULL AND row_count IS NOT NULL), count(*) "
                "FROM ten_thousand_duel_bounds WHERE rowid BETWEEN $base AND $base + $G * $G - 1",
                dict(base=lay.base, G=G, unit=unit))
            if fits and rows == G * G:
                return array("q", first_rows), array("q", counts), array("d", p_starts)
            return None
        rows = self.db.fetchall(
            "SELECT score, opponent, first_row, row_count, p_start FROM ten_thousand_duel_bounds "
            "WHERE rules = ? AND goal = ? ORDER BY score, opponent", (rules, goal))
        if len(rows) == G * G and all(s == n // G * unit and o == n % G * unit and p is not None
                                      for n, (s, o, _first, _count, p) in enumerate(rows)):
            return (array("q", [row[2] for row in rows]), array("q", [row[3] for row in rows]),
                    array("d", [row[4] for row in rows]))
        return None

    def hold(self, rules: str | None = None, *, stop=None) -> int:
        """Keep the two-player table of ``rules`` (default: every rule set whose two-player game
        is built) in memory, so that later two-player lookups on this database, from any of its
        threads (``Database.for_thread``), run no query (dicebase/query/held.py).  DuckDB only:
        SQLite answers by primary key in about 0.1 ms already.  Costs about 10 bytes a row (301
        MB at goal 10,000) and 2-5 s, once; ``dicebase serve`` calls it while warming.
        ``stop()`` (a function) ends the loading early.  Returns the bytes this game holds now."""
        if not ready_to_hold(self.db, stop):
            return 0
        from dicebase.query import held as held_module

        names = [_rule_name(rules, None)] if rules is not None else [
            name for name in self.rule_sets() if self.db.fetchone(
                "SELECT count(*) FROM ten_thousand_policy_duel WHERE rules = ?", (name,))[0]]
        for name in names:
            goal = self.goal(name)
            key = ("ten_thousand_duel", name, goal)
            if key in self.db._held:
                continue
            unit = self._shape(name)[0]
            lay = self._layout("ten_thousand_duel", name, goal)
            bounds = self._read_bounds_block(name, goal)
            if lay is None or bounds is None:
                continue  # not laid out as the build writes it: the lookups read it as before
            got = held_module.load(self.db.fetch_arrays, lay.base, lay.count, unit, goal // unit, bounds,
                                   stop=stop or (lambda: False))
            if got is not None:
                self.db._held[key] = got
        return sum(held.nbytes for key, held in self.db._held.items() if key[0] == "ten_thousand_duel")

    def _bounds_rows(self, rules: str, goal: int, score: int, opponents: tuple[int, int],
                     pair: tuple[int, int] | None = None):
        """{opponent: turn-start p_win} of ``score`` for opponents ``opponents[0]``..``opponents[1]``,
        and (first_row, row_count) of ``pair`` in ten_thousand_duel: from the bounds block in memory
        (either store), else on DuckDB by position in one read; None when neither can answer (SQLite
        before the block is read, or a layout that is not the build's)."""
        unit = self._shape(rules)[0]
        G = goal // unit
        if not 0 <= opponents[0] <= opponents[1] < G * unit:  # not one range of this score's row
            return None
        block = self._bounds_block(rules, goal)
        if block is not None:  # no query
            first_rows, counts, p_starts = block
            row0 = score // unit * G
            starts = {o: p_starts[row0 + o // unit] for o in range(opponents[0], opponents[1] + 1, unit)}
            if pair is None:
                return starts, None
            at = pair[0] // unit * G + pair[1] // unit
            return starts, (first_rows[at], counts[at])
        key = ("ten_thousand_duel_bounds", rules, goal)
        lay = self._layout(*key)
        if lay is None:
            return None
        row0 = lay.base + (score // unit) * G
        lo, hi = row0 + opponents[0] // unit, row0 + opponents[1] // unit
        at = None if pair is None else lay.base + (pair[0] // unit) * G + pair[1] // unit
        sql = ("SELECT rowid, score, opponent, first_row, row_count, p_start FROM ten_thousand_duel_bounds "
               "WHERE rowid BETWEEN ? AND ?")
        params: tuple = (lo, hi)
        if at is not None and not lo <= at <= hi:
            sql, params = sql + " OR rowid = ?", (lo, hi, at)
        starts, where = {}, None
        for rowid, s, o, first_row, count, p in self.db.read(sql, params):
            pos = rowid - lay.base
            if s != (pos // G) * unit or o != (pos % G) * unit or p is None:
                break
            if lo <= rowid <= hi:
                starts[o] = p
            if rowid == at:
                where = (first_row, count)
        else:
            if len(starts) == hi - lo + 1 and (at is None or where is not None):
                return starts, where
        self._misplaced(key, f"ten_thousand_duel_bounds {rules} {goal}")
        return None

    def _pair_rows(self, rules: str, goal: int, i: int, j: int, lo: int, hi: int,
                   where: tuple[int, int] | None) -> dict[tuple[int, int, int], float]:
        """{(turn_total, dice, triple): p_win} of the stored states of pair (i, j) with turn totals
        lo..hi: from the held block (:meth:`hold`), by position (``where`` = the pair's (first_row,
        row_count)) or by key filter."""
        held = self.db._held.get(("ten_thousand_duel", rules, goal))
        if held is not None:
            return held.pair_rows(i, j, lo, hi)
        lay = self._layout("ten_thousand_duel", rules, goal) if where is not None else None
        if lay is not None:
            first_row, count = where
            a = lay.base + first_row
            b = a + count - 1
            # the pair's rows in lo..hi, and its first and last rows and their neighbours (which must
            # belong to other pairs): the rows at these positions are the whole pair.  Up to
            # WHOLE_PAIR_ROWS rows the whole range is read: DuckDB scans the row group either way, and
            # a filter that keeps the ends costs more than the rows it drops
            if count <= WHOLE_PAIR_ROWS:
                rows = self.db.read(self.db.prepared(PAIR_ROWS_SQL, a - 1, b + 1))
                mine = [row for row in rows if row[1] == i and row[2] == j]
                # count rows of the pair, none at a - 1 or b + 1: rowids are unique, so they are a..b
                if count > 0 and len(mine) == count and all(a <= row[0] <= b for row in mine):
                    return {(k, d, t): p for _rowid, _s, _o, k, d, t, p in mine if lo <= k <= hi}
            else:
                rows = self.db.read(
                    "SELECT rowid, score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                    "WHERE rowid BETWEEN ? AND ? AND (turn_total BETWEEN ? AND ? OR rowid <= ? OR rowid >= ?)",
                    (a - 1, b + 1, lo, hi, a, b),
                )
                out, ends = {}, 0
                for rowid, s, o, k, d, t, p in rows:
                    mine = s == i and o == j
                    if rowid in (a - 1, b + 1) and mine or a <= rowid <= b and not mine:
                        break
                    ends += rowid in (a, b)
                    if mine and lo <= k <= hi:
                        out[(k, d, t)] = p
                else:
                    if count > 0 and ends == (1 if a == b else 2):
                        return out
            self._misplaced(("ten_thousand_duel", rules, goal), f"ten_thousand_duel {rules} {goal}")
        return self.db.read(
            "SELECT turn_total, dice, triple, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? "
            "AND score = ? AND opponent = ? AND turn_total BETWEEN ? AND ?",
            (rules, goal, i, j, lo, hi),
            _by_key3,
        )

    def _opponents(self, rules: str, goal: int, i: int, k: int, points: list[int]) -> tuple[int, int]:
        """The opponent scores whose turn starts a lookahead from (i, k) reads: i (a farkle), i + k
        (banking now) and i + k + each keep's points, below the goal."""
        return i, min(i + k + max(points, default=0), goal - self._shape(rules)[0])

    def _turn_starts(self, rules: str, goal: int, i: int, opponents: list[int]) -> dict[int, float]:
        """W(i, j) for each opponent score j: turn-start win probabilities."""
        found = self._bounds_rows(rules, goal, i, (min(opponents), max(opponents))) if opponents else ({}, None)
        if found is not None:  # the bounds block in memory, or DuckDB by position
            return {o: found[0][o] for o in opponents if o in found[0]}
        if self.db.store == "duckdb":
            # every turn start of score i (one row per opponent, a few hundred): one key range, where
            # an IN list makes DuckDB hash-join a whole row group; remembered per connection
            every = self.db.read(
                "SELECT opponent, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? "
                "AND turn_total = 0 AND dice = ? AND triple = 0",
                (rules, goal, i, self._shape(rules)[1]),
                _by_first,
            )
            return {o: every[o] for o in opponents if o in every}
        marks = ", ".join("?" * len(set(opponents)))
        return self.db.read(  # SQLite: one index seek per opponent
            "SELECT opponent, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? "
            f"AND opponent IN ({marks}) AND turn_total = 0 AND dice = ? AND triple = 0",
            (rules, goal, i, *sorted(set(opponents)), self._shape(rules)[1]),
            _by_first,
        )

    def _exceed(self, rules: str, lo: int, hi: int, n: int | None = None, t: int | None = None) -> dict:
        """(need, dice, triple) -> optimal P_exceed for needs lo..hi (one class, or all)."""
        lay = self._layout("ten_thousand_exceed", rules, "optimal")
        if lay is not None:
            unit, S = lay.unit, lay.size
            top = lay.count // S * unit  # the largest stored need
            first, last = max(lo, unit), min(hi, top)
            if first > last:
                return {}
            a = lay.base + (first // unit - 1) * S
            b = lay.base + (last // unit) * S - 1
            sql, params = "SELECT rowid, need, dice, triple, p_exceed FROM ten_thousand_exceed WHERE rowid BETWEEN ? AND ?", (a, b)
            if n is not None:
                sql, params = sql + " AND dice = ? AND triple = ?", (*params, n, t)
            rows = self.db.read(sql, params)
            done = self._checked.get((sql, params))
            if done is not None and done[0] is rows:  # the same remembered read, checked already
                return done[1]
            out = {}
            for rowid, need, d, c, p in rows:
                pos = rowid - lay.base
                if need != (pos // S + 1) * unit or lay.classes[pos % S] != (d, c):
                    break
                out[(need, d, c)] = p
            else:
                if len(out) == ((last - first) // unit + 1 if n is not None else b - a + 1):
                    self._checked[(sql, params)] = (rows, out)
                    return out
            self._misplaced(("ten_thousand_exceed", rules, "optimal"), f"ten_thousand_exceed {rules} optimal")
        sql = ("SELECT need, dice, triple, p_exceed FROM ten_thousand_exceed WHERE rules = ? "
               "AND policy = 'optimal' AND need BETWEEN ? AND ?")
        params = (rules, lo, hi)
        if n is not None:
            sql, params = sql + " AND dice = ? AND triple = ?", (*params, n, t)
        return self.db.read(sql, params, _by_key3)

    def _exceed_start(self, rules: str, lo: int, hi: int) -> dict:
        """(need, all dice, 0) -> optimal P_exceed for needs lo..hi: what a bank at or past the goal
        leaves the opponent.  DuckDB reads the whole column once per connection (1,680 rows at goal
        10,000; remembered); SQLite the needs asked the first time, then the whole column."""
        start = self._shape(rules)[1]
        lay = self._layout("ten_thousand_exceed", rules, "optimal")
        if lay is None:
            if sum(n for (r, _goal), n in self._bounds_asks.items() if r == rules) < 2:  # see _asked
                return self._exceed(rules, lo, hi, start, 0)
            # from a connection's second two-player lookup: the whole column, kept with the bounds
            # block (not only in the read memo, which a full memo drops: reading it again scans
            # every need of the rule set, about 4 ms on SQLite)
            if rules not in self._exceed_columns:
                self._exceed_columns[rules] = self._exceed(rules, 0, MAX_NEED, start, 0)
            return self._exceed_columns[rules]
        if rules not in self._exceed_columns:  # DuckDB: one rowid range, read whole the first time
            self._exceed_columns[rules] = self._exceed(rules, lay.unit, lay.count // lay.size * lay.unit, start, 0)
        return self._exceed_columns[rules]

    def _duel_values(self, rules: str, goal: int, i: int, j: int, k: int,
                     keeps: list[tuple], also: int | None = None) -> tuple[list[tuple[float, str]], float, dict]:
        """(value, then) of each keep as DUEL_LOOKAHEAD_SQL values it, W(j, i), and the stored states
        of pair (i, j) read (turn totals from ``also``, if given, up to the largest keep's)."""
        points = [keep[2] for keep in keeps]
        unit, start = self._shape(rules)
        banked = [i + k + p for p in points]
        found = None
        if self.db.store == "duckdb":  # the turn starts of j from i to the largest banked score below the goal
            found = self._bounds_rows(rules, goal, j, self._opponents(rules, goal, i, k, points), (i, j))
        stored = {}
        if keeps or also is not None:
            lo = min([k + p for p in points] + ([] if also is None else [also]))
            hi = max([k + p for p in points] + ([] if also is None else [also]))
            stored = self._pair_rows(rules, goal, i, j, lo, hi, None if found is None else found[1])
        if found is not None:
            starts = {o: found[0][o] for o in [i, *(b for b in banked if b < goal)] if o in found[0]}
        else:
            starts = self._turn_starts(rules, goal, j, [i, *(b for b in banked if b < goal)])
        over = [b - j + unit for b in banked if b >= goal]
        exceed = self._exceed_start(rules, min(over), max(over)) if over else {}
        if i not in starts or any(b not in starts for b in banked if b < goal):
            raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                "dicebase build ten-thousand --force")
        values = []
        for (_roll, _keep, p, _used, da, ta, _hd, _dom), b in zip(keeps, banked):
            v = stored.get((k + p, da, ta))
            if v is not None:
                values.append((v, "roll"))
            elif b < goal:
                values.append((1 - starts[b], "bank"))
            else:
                values.append((1 - exceed.get((b - j + unit, start, 0), 0), "bank"))
        return values, starts[i], stored

    def _last_turn_values(self, rules: str, need: int, keeps: list[tuple]) -> list[tuple[float, str]]:
        """(value, then) of each keep as LAST_TURN_SQL values it (``need``: what the turn must still gain)."""
        short = [need - keep[2] for keep in keeps if keep[2] < need]
        exceed = self._exceed(rules, min(short), max(short)) if short else {}
        return [(1.0, "bank") if p >= need else (exceed.get((need - p, da, ta), 0), "roll")
                for _roll, _keep, p, _used, da, ta, _hd, _dom in keeps]

    def _solitaire_values(self, rules: str, k: int, keeps: list[tuple]) -> list[tuple[float, str]]:
        """(value, then) of each keep as SOLITAIRE_LOOKAHEAD_SQL values it."""
        if not keeps:
            return []
        points = [keep[2] for keep in keeps]
        lo, hi = k + min(points), k + max(points)
        stored = None
        lay = self._layout("ten_thousand_solitaire", rules)
        if lay is not None:
            unit, L = lay.unit, lay.size
            top = (lay.count // L - 1) * unit  # the stored bound
            self._solitaire_asks[rules] = asks = self._solitaire_asks.get(rules, 0) + 1
            if lo > top:
                stored = {}
            elif rules in self._solitaire_blocks:  # held whole: no query
                stored = self._solitaire_blocks[rules]
            else:
                a, b = lay.base + (lo // unit) * L, lay.base + (min(hi, top) // unit + 1) * L - 1
                whole = asks >= 2  # a connection that asks again reads the whole block once (13,890
                if whole:  # rows at goal 10,000, a few ms) and keeps it as a dict, not in the read memo
                    a, b = lay.base, lay.base + lay.count - 1
                rows = (self.db.fetchall if whole else self.db.read)(
                    "SELECT rowid, turn_total, dice, triple, value, action FROM ten_thousand_solitaire "
                    "WHERE rowid BETWEEN ? AND ?", (a, b))
                stored = {(kk, d, c): (float(v), act) for rowid, kk, d, c, v, act in rows
                          if kk == (rowid - lay.base) // L * unit and lay.classes[(rowid - lay.base) % L] == (d, c)}
                if len(stored) != b - a + 1 or len(rows) != b - a + 1:
                    stored = None
                    self._misplaced(("ten_thousand_solitaire", rules), f"ten_thousand_solitaire {rules}")
                elif whole:
                    self._solitaire_blocks[rules] = stored
        if stored is None:
            rows = self.db.read(
                "SELECT turn_total, dice, triple, value, action FROM ten_thousand_solitaire WHERE rules = ? "
                "AND turn_total BETWEEN ? AND ?",
                (rules, lo, hi),
            )
            stored = {(int(kk), int(d), int(c)): (float(v), a) for kk, d, c, v, a in rows}
        return [stored.get((k + p, da, ta), (k + p, "bank")) for _roll, _keep, p, _used, da, ta, _hd, _dom in keeps]

    def _class_rows(self, table: str, columns: str, rules: str, n: int, t: int) -> list[tuple]:
        """Every row of (rules, n dice, triple t) of ten_thousand_keeps or ten_thousand_rolls: one
        position range (DuckDB) or a key filter, ``columns`` after the (dice, triple) checked."""
        lay = self._layout(table, rules)
        block = None if lay is None else lay.blocks.get((n, t))
        if block is not None:
            rows = self.db.read(f"SELECT dice, triple, {columns} FROM {table} WHERE rowid BETWEEN ? AND ?", block)
            if len(rows) == block[1] - block[0] + 1 and all(d == n and c == t for d, c, *_ in rows):
                return [row[2:] for row in rows]
            self._misplaced((table, rules), f"{table} {rules}")
        return [row[2:] for row in self.db.read(
            f"SELECT dice, triple, {columns} FROM {table} WHERE rules = ? AND dice = ? AND triple = ?", (rules, n, t))]

    def _bank_value(self, rules: str, goal: int, i: int, j: int, k: int) -> float:
        """BANK_VALUE_SQL: 1 - W(j, i + k) below the goal, else 1 - P_exceed(i + k - j + unit)."""
        if i + k < goal:
            w = self._turn_starts(rules, goal, j, [i + k])
            if not w:
                raise NotInDatabase(f"ten_thousand_duel lacks the turn start ({j}, {i + k}); rebuild: "
                                    "dicebase build ten-thousand --force")
            return 1 - w[i + k]
        unit, start = self._shape(rules)
        need = i + k - j + unit
        return 1 - self._exceed_start(rules, need, need).get((need, start, 0), 0)

    def state(self, score, opponent, turn_total, dice=None, triple=0, rules: str | None = None, *,
              variant: str | None = None) -> State:
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
        goal, i, j = self._scores(rules, score, opponent)
        key = (rules, goal, i, j, k, n, t)
        if j >= goal:
            need = j - i - k + unit
            if need <= 0:  # already ahead: bank and win; rolling risks only the farkle
                return State(*key, True, 1.0, "bank", 1.0 - self.classes(rules)[(n, t)][0], 1.0,
                             "last turn, already ahead: banking wins; rolling wins unless it farkles "
                             "(ten_thousand_classes.p_farkle)")
            stored = self._exceed(rules, need, need, n, t).get((need, n, t))
            row = None if stored is None else (stored,)
            p = float(row[0]) if row else 0.0
            return State(*key, True, p, "roll", p, 0.0 if k > 0 else None,
                         f"last turn: ten_thousand_exceed (need = opponent - score - turn_total + {unit} = {need})"
                         + ("" if row else "; past the stored needs, taken as 0"))
        can_bank = k > 0 and (i > 0 or k >= rule["opening_minimum"])
        self._asked(rules, goal)
        if self.db.store == "duckdb" or self._bounds_block(rules, goal) is not None:
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
        farkle = 1.0 - self._turn_starts(rules, goal, j, [i])[i]
        parts = self.db.read(*positional(ROLL_PARTS_SQL, dict(
            i=i, j=j, k=k, goal=goal, rules=rules, dice=n, triple=t, unit=unit, start=rule["dice"])))
        return self._bank_state(key, bank, parts, farkle)

    @staticmethod
    def _stored_state(key: tuple, p_win, bank: float | None) -> State | None:
        """The state of ``key`` when it is a stored roll state (``p_win`` read from its row); None
        for a bank state, which the caller values by the lookahead.  A state that can neither bank
        (``bank`` None) nor was found stored is missing from the file."""
        if p_win is not None:
            p = float(p_win)
            return State(*key, False, p, "roll", p, bank, "stored roll state (ten_thousand_duel)" if bank is None
                         else "stored roll state (ten_thousand_duel); bank value from BANK_VALUE_SQL")
        if bank is None:
            raise NotInDatabase(f"state {key} should be a stored roll state but is missing; rebuild: "
                                "dicebase build ten-thousand --force")
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
        found = self._bounds_rows(rules, goal, j, self._opponents(rules, goal, i, k, [look.max_points]), (i, j))
        if found is None:  # not laid out as the build writes it: key filters
            return self._state_by_keys(rule, key, can_bank)
        starts, where = found
        if self.db.store == "sqlite":  # the state's own row first (one primary-key seek); the rest only for a bank state
            own = self._pair_rows(rules, goal, i, j, k, k, None)
            stored = own if (k, n, t) in own else self._pair_rows(rules, goal, i, j, k, k + look.max_points, None)
        else:  # DuckDB: the pair's rows in one read (it scans a row group whatever it keeps)
            stored = self._pair_rows(rules, goal, i, j, k, k + look.max_points, where)
        if i not in starts or (can_bank and i + k < goal and i + k not in starts):
            raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                "dicebase build ten-thousand --force")
        bank = None
        if can_bank:  # BANK_VALUE_SQL
            bank = 1 - float(starts[i + k]) if i + k < goal else float(self._bank_value(rules, goal, i, j, k))
        answer = self._stored_state(key, stored.get((k, n, t)), bank)
        if answer is not None:
            return answer
        # DUEL_LOOKAHEAD_SQL's value of every distinct keep outcome (points, dice after, triple after)
        over = [i + k + points - j + unit for points, _da, _ta in look.outcomes if i + k + points >= goal]
        exceed = self._exceed_start(rules, min(over), max(over)) if over else {}
        values = []
        for points, da, ta in look.outcomes:
            v = stored.get((k + points, da, ta))  # a stored roll state: roll on
            if v is None:
                banked = i + k + points
                if banked < goal:
                    if banked not in starts:
                        raise NotInDatabase(f"ten_thousand_duel lacks turn-start values of score {j}; rebuild: "
                                            "dicebase build ten-thousand --force")
                    v = 1 - starts[banked]
                else:
                    v = 1 - exceed.get((banked - j + unit, start, 0), 0)
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
        parts = [(prob, best.get(r)) for r, prob in _rolls(n)]
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
            look = _Lookahead(tuple(index), [(prob, tuple(by_roll.get(roll, ()))) for roll, prob in _rolls(n)],
                              max((kp[2] for kp in keeps), default=0))
            self._lookaheads[(rules, n, t)] = look
        return look

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

    def gaps(self) -> list[Gap]:
        self.db.require_game("ten_thousand")
        rows = self.db.fetchall(
            "SELECT g.rules, g.goal, g.policy, g.p1_win, g.p2_win, g.gap, t.expected_points "
            "FROM ten_thousand_gaps g LEFT JOIN ten_thousand_policy_turn t "
            "ON t.rules = g.rules AND t.policy = g.policy ORDER BY g.rules, g.goal, g.gap DESC, g.policy"
        )
        return [Gap(r, int(g), p, float(a), float(b), float(c), None if e is None else float(e))
                for r, g, p, a, b, c, e in rows]


BENCH_LOOKUPS = [
    ("ten-thousand best (solitaire)", lambda db: db.ten_thousand.best([1, 1, 5, 2, 3, 4], turn_total=0)),
    ("ten-thousand best (two-player)", lambda db: db.ten_thousand.best([1, 5, 5], turn_total=600, score=9000, opponent=9500)),
    ("ten-thousand state (bank state, lookahead)", lambda db: db.ten_thousand.state(9000, 9500, 1500, 3)),
    ("ten-thousand odds", lambda db: db.ten_thousand.odds(3, triple=2)),
]
BENCH_CLI = [
    ["ten-thousand", "best", "1", "5", "5", "--turn-total", "600", "--score", "9000", "--opponent", "9500", "--json"],
    ["ten-thousand", "state", "--score", "9000", "--opponent", "9500", "--turn-total", "1500", "--dice", "3", "--json"],
    ["ten-thousand", "odds", "--dice", "6", "--json"],
]
