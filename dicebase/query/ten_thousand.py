"""10,000 lookups: ``db.ten_thousand.odds(...)``, ``best``, ``state``, ``thresholds``, ``gaps``.

Plain SQL over the ten_thousand_* tables (no sqlalchemy, no numpy).  ``best`` is a
one-step lookahead: for every legal keep of the roll it reads the stored pre-roll value
of the state the keep leads to (:data:`DUEL_LOOKAHEAD_SQL` is the documented query).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from dicebase.query.base import BadInput, NotInDatabase

UNIT = 50
EXPECTED = "expected_banked_points"
WIN = "win_probability"

#: Value of every keep of a roll in the two-player game by one-step lookahead.
#: Named parameters (see :func:`duel_lookahead_params`): :k turn total, :i score, :j opponent,
#: :goal, :rules, :dice, :triple, :roll.  A continuation state missing from
#: ten_thousand_duel banks: below the goal its value is 1 - the opponent's turn-start value,
#: at or above it 1 - the opponent's chance to exceed in the last turn (0 past the stored needs).
DUEL_LOOKAHEAD_SQL = """
SELECT kp.keep, kp.points, kp.dice_used, kp.dice_after, kp.triple_after, kp.hot_dice, kp.dominated,
       CASE WHEN d.p_win IS NOT NULL THEN d.p_win
            WHEN :i + :k + kp.points < :goal THEN 1 - w.p_win
            ELSE 1 - COALESCE(e.p_exceed, 0) END AS value,
       CASE WHEN d.p_win IS NOT NULL THEN 'roll' ELSE 'bank' END AS then_action
FROM ten_thousand_keeps kp
LEFT JOIN ten_thousand_duel d
  ON d.rules = :rules AND d.goal = :goal AND d.score = :i AND d.opponent = :j
 AND d.turn_total = :k + kp.points AND d.dice = kp.dice_after AND d.triple = kp.triple_after
LEFT JOIN ten_thousand_duel w
  ON w.rules = :rules AND w.goal = :goal AND w.score = :j AND w.opponent = :i + :k + kp.points
 AND w.turn_total = 0 AND w.dice = 6 AND w.triple = 0
LEFT JOIN ten_thousand_exceed e
  ON e.rules = :rules AND e.policy = 'optimal' AND e.need = :i + :k + kp.points - :j + 50
 AND e.dice = 6 AND e.triple = 0
WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple AND kp.roll = :roll
"""

#: Value of every keep of a roll in the solitaire turn by one-step lookahead.
#: Named parameters :k, :rules, :dice, :triple, :roll.  Past the stored bound banking is
#: optimal and the value is the turn total itself.
SOLITAIRE_LOOKAHEAD_SQL = """
SELECT kp.keep, kp.points, kp.dice_used, kp.dice_after, kp.triple_after, kp.hot_dice, kp.dominated,
       COALESCE(s.value, :k + kp.points) AS value,
       COALESCE(s.action, 'bank') AS then_action
FROM ten_thousand_keeps kp
LEFT JOIN ten_thousand_solitaire s
  ON s.rules = :rules AND s.turn_total = :k + kp.points AND s.dice = kp.dice_after
 AND s.triple = kp.triple_after
WHERE kp.rules = :rules AND kp.dice = :dice AND kp.triple = :triple AND kp.roll = :roll
"""


def positional(sql: str, values: dict) -> tuple[str, list]:
    """Named ``:name`` parameters -> ``?`` placeholders and the value list (both stores)."""
    import re

    params: list = []

    def sub(m):
        params.append(values[m.group(1)])
        return "?"

    return re.sub(r":([a-z]+)\b", sub, sql), params


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
    then: str  # 'roll' or 'bank' at the state the keep leads to


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
    farkle: bool
    actions: list[KeepAction] = field(default_factory=list)

    @property
    def best(self) -> KeepAction | None:
        return self.actions[0] if self.actions else None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["best"] = d["actions"][0] if d["actions"] else None
        return d


@dataclass(frozen=True)
class State:
    """A two-player pre-roll state: its win probability and optimal action."""

    rules: str
    goal: int
    score: int
    opponent: int
    turn_total: int
    dice: int
    triple: int
    p_win: float
    action: str
    p_bank: float | None


@dataclass(frozen=True)
class Threshold:
    dice: int
    triple: int
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


def _int(value, what: str, allowed: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                return int(value)
        except ValueError:
            pass
        raise BadInput(f"{what} must be an integer ({allowed}), got {value!r}")
    return value


def _points(value, what: str) -> int:
    v = _int(value, what, "a multiple of 50, >= 0")
    if v < 0 or v % UNIT:
        raise BadInput(f"{what} must be a multiple of 50 and >= 0, got {v}")
    return v


class Queries:
    def __init__(self, db):
        self.db = db
        self._rules: dict[str, dict] | None = None

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
        built = self.rule_sets()
        if rules not in built:
            from dicebase.builder.ten_thousand.rules import PRESETS

            if rules in PRESETS:
                raise NotInDatabase(
                    f"rule set {rules!r} is not built; add it with: dicebase build ten-thousand --force "
                    f"-o 'ten-thousand.rules=[\"{rules}\"]'"
                )
            raise BadInput(f"unknown rule set {rules!r}; built: {', '.join(built)}")
        return built[rules]

    def _triple(self, rule: dict, dice: int, triple) -> int:
        t = _int(triple, "--triple", "0 = none, or a face 1-6")
        if not 0 <= t <= 6:
            raise BadInput(f"--triple must be a face 1-6 (or 0 for none), got {t}")
        if t and not rule["triple_stands"]:
            raise BadInput(f"rule set {rule['name']!r} has no standing triple; leave --triple out")
        if t and dice > 3:
            raise BadInput(f"a standing triple leaves at most 3 dice to roll, got {dice} dice")
        return t

    # -- (a) -----------------------------------------------------------
    def odds(self, dice, triple=0, rules: str = "ten-thousand") -> list[OddsRow]:
        rule = self._rule(rules)
        n = _int(dice, "--dice", "1-6")
        if not 1 <= n <= rule["dice"]:
            raise BadInput(f"--dice must be 1-{rule['dice']}, got {n}")
        t = self._triple(rule, n, triple)
        rows = self.db.fetchall(
            "SELECT combination, outcomes, probability, mean_points, mean_combination_points "
            "FROM ten_thousand_odds WHERE rules = ? AND dice = ? AND triple = ? ORDER BY position",
            (rules, n, t),
        )
        return [OddsRow(c, int(o), float(p), float(m), float(cm)) for c, o, p, m, cm in rows]

    # -- (c), (d) ----------------------------------------------------------
    def best(self, dice, turn_total=0, triple=0, score=None, opponent=None,
             rules: str = "ten-thousand") -> Best:
        """Every legal keep of the roll ``dice``, best first."""
        rule = self._rule(rules)
        faces = [_int(f, "a die", "a face 1-6") for f in dice]
        if not 1 <= len(faces) <= rule["dice"]:
            raise BadInput(f"give the faces of 1-{rule['dice']} rolled dice, got {len(faces)}")
        bad = [f for f in faces if not 1 <= f <= 6]
        if bad:
            raise BadInput(f"dice faces must be 1-6, got {bad[0]}")
        n = len(faces)
        t = self._triple(rule, n, triple)
        k = _points(turn_total, "--turn-total")
        if t and k < rule["triple_values"][t - 1]:
            raise BadInput(f"a standing triple of {t}s means a turn total of at least {rule['triple_values'][t - 1]}, got {k}")
        if k == 0 and n < rule["dice"]:
            raise BadInput(f"with a turn total of 0 all {rule['dice']} dice are rolled (turn start), got {n} dice")
        roll = "".join(str(f) for f in sorted(faces))
        if (score is None) != (opponent is None):
            raise BadInput("give both --score and --opponent (two-player game) or neither (solitaire turn)")
        if score is None:
            rows = self.db.fetchall(*positional(SOLITAIRE_LOOKAHEAD_SQL, dict(k=k, rules=rules, dice=n, triple=t, roll=roll)))
            objective, goal = EXPECTED, None
        else:
            i = _points(score, "--score")
            j = _points(opponent, "--opponent")
            goal = self.goal(rules)
            if i >= goal or j >= goal:
                raise BadInput(f"--score and --opponent must be below the goal {goal} (a score at the goal ends the game)")
            rows = self.db.fetchall(*positional(DUEL_LOOKAHEAD_SQL, dict(
                k=k, i=i, j=j, goal=goal, rules=rules, dice=n, triple=t, roll=roll)))
            objective = WIN
        actions = [
            KeepAction([int(c) for c in keep], int(p), int(da), int(ta), bool(hd), bool(dom), float(v), then)
            for keep, p, _used, da, ta, hd, dom, v, then in rows
        ]
        actions.sort(key=lambda a: (-a.value, -a.points, -len(a.keep)))
        return Best(objective, rules, sorted(faces), k, t, score, opponent, goal, not actions, actions)

    def goal(self, rules: str) -> int:
        row = self.db.fetchone("SELECT MAX(goal) FROM ten_thousand_policy_duel WHERE rules = ?", (rules,))
        if not row or row[0] is None:
            raise NotInDatabase(
                f"the two-player game of {rules!r} is not built; add it with: dicebase build ten-thousand "
                f"--force -o 'ten-thousand.duel_rules=[\"{rules}\"]'"
            )
        return int(row[0])

    def state(self, score, opponent, turn_total, dice=6, triple=0, rules: str = "ten-thousand") -> State:
        """Win probability and optimal action of a two-player pre-roll state."""
        rule = self._rule(rules)
        i, j, k = _points(score, "--score"), _points(opponent, "--opponent"), _points(turn_total, "--turn-total")
        n = _int(dice, "--dice", "1-6")
        if not 1 <= n <= rule["dice"]:
            raise BadInput(f"--dice must be 1-{rule['dice']}, got {n}")
        t = self._triple(rule, n, triple)
        goal = self.goal(rules)
        if i >= goal or j >= goal:
            raise BadInput(f"--score and --opponent must be below the goal {goal}")
        if k == 0 and (n, t) != (rule["dice"], 0):
            raise BadInput("a turn total of 0 is a turn start: six dice, no triple")
        row = self.db.fetchone(
            "SELECT p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? AND opponent = ? "
            "AND turn_total = ? AND dice = ? AND triple = ?",
            (rules, goal, i, j, k, n, t),
        )
        p_bank = self._bank_value(rules, goal, i, j, k) if k > 0 else None
        if row is not None:
            return State(rules, goal, i, j, k, n, t, float(row[0]), "roll", p_bank)
        return State(rules, goal, i, j, k, n, t, float(p_bank), "bank", p_bank)

    def _bank_value(self, rules, goal, i, j, k) -> float:
        if i + k < goal:
            (w,) = self.db.fetchone(
                "SELECT p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? AND opponent = ? "
                "AND turn_total = 0 AND dice = 6 AND triple = 0",
                (rules, goal, j, i + k),
            )
            return 1.0 - float(w)
        row = self.db.fetchone(
            "SELECT p_exceed FROM ten_thousand_exceed WHERE rules = ? AND policy = 'optimal' AND need = ? "
            "AND dice = 6 AND triple = 0",
            (rules, i + k - j + UNIT),
        )
        return 1.0 - (float(row[0]) if row else 0.0)

    def thresholds(self, rules: str = "ten-thousand") -> list[Threshold]:
        self._rule(rules)
        rows = self.db.fetchall(
            "SELECT t.dice, t.triple, t.bank_from, t.last_roll, h.bank_from FROM ten_thousand_thresholds t "
            "LEFT JOIN ten_thousand_seed004_rule h ON h.rules = t.rules AND h.dice = t.dice AND h.triple = t.triple "
            "WHERE t.rules = ? ORDER BY t.triple, t.dice DESC",
            (rules,),
        )
        return [Threshold(int(n), int(t), b, lr, h) for n, t, b, lr, h in rows]

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
    ("ten-thousand odds", lambda db: db.ten_thousand.odds(3, triple=2)),
]
BENCH_CLI = [
    ["ten-thousand", "best", "1", "5", "5", "--turn-total", "600", "--score", "9000", "--opponent", "9500", "--json"],
    ["ten-thousand", "odds", "--dice", "6", "--json"],
]
