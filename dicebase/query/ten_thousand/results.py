"""10,000's answers: the dataclasses the lookups return, and what every lookup shares (the
documented queries' named parameters, the rolls of n dice)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from dicebase.query.base import NAction  # noqa: F401  (the N-player answers below hold it)
from dicebase.rules.ten_thousand import FACES, roll_multisets

EXPECTED = "expected_banked_points"
WIN = "win_probability"
#: The one-turn objective of a rule set with a consecutive-farkle penalty (issue 24, docs/farkle.md): the
#: turn's expected banked points plus the relative value of the farkle count it leaves (a farkle is worth
#: the relative value of one more farkle in a row, not 0), which ranks actions as the long-run average does
AVERAGE = "average_reward_turn_value"

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
class DuelCompensation:
    """Two players (issue 24): the fair compensation from the stored turn starts (view
    ten_thousand_duel_fair_compensation), the first player to move.  The fields of the N-player answer
    (``scores``, ``p_wins`` per seat ...) and the starts nearest to fair."""

    rules: str
    goal: int
    scores: tuple[int, int]  # starting points of the first and second player (one of them 0)
    p_wins: tuple[float, float]
    deviation: float  # |p_win of the first player - 1/2|
    uncompensated: tuple[float, float]  # both players' win probabilities from 0, 0
    uncompensated_deviation: float
    rules_compensation: int  # the rule set's own `compensation` (points the second player starts with)
    rules_p_wins: tuple[float, float]  # both players' win probabilities from the rule set's own start
    nearest: tuple = ()  # ((score1, score2, p_win1, deviation), ...) the starts nearest to fair, fairest first

    @property
    def compensation(self) -> int:
        """The points the compensated player starts with."""
        return max(self.scores)

    @property
    def compensated_seat(self) -> int | None:
        """1 or 2: the seat that starts with the compensation (None: no compensation is fairest)."""
        return None if self.compensation == 0 else (2 if self.scores[1] else 1)

    def as_dict(self) -> dict:
        return {"rules": self.rules, "goal": self.goal, "players": 2, "scores": list(self.scores),
                "p_wins": list(self.p_wins), "deviation": self.deviation,
                "uncompensated_p_wins": list(self.uncompensated),
                "uncompensated_deviation": self.uncompensated_deviation,
                "compensated_seat": self.compensated_seat, "compensation": self.compensation,
                "rules_compensation": self.rules_compensation, "rules_p_wins": list(self.rules_p_wins),
                "nearest": [{"scores": [a, b], "p_win1": p, "deviation": d} for a, b, p, d in self.nearest]}


@dataclass(frozen=True)
class Gap:
    rules: str
    goal: int
    policy: str
    p1_win: float
    p2_win: float
    gap: float
    expected_turn_points: float | None


def rolls(n: int) -> list[tuple[str, float]]:
    """(roll, probability) of every roll of n dice, as ten_thousand_rolls holds them for each
    standing triple: ways = n! / (c1! ... c6!) of the 6^n ordered outcomes (the rules' multisets)."""
    return [("".join(str(face) * c for face, c in enumerate(counts, start=1)), ways / FACES ** n)
            for counts, ways in roll_multisets(n)]


@dataclass(frozen=True)
class PenaltyBest(Best):
    """:class:`Best` of a two-player game with a consecutive-farkle penalty (issue 24): also both farkle counts."""

    farkles: list[int] = field(default_factory=list)  # [the mover's, the opponent's] consecutive farkles


@dataclass(frozen=True)
class PenaltyState(State):
    """:class:`State` of a two-player game with a consecutive-farkle penalty (issue 24): also both farkle counts."""

    farkles: list[int] = field(default_factory=list)  # [the mover's, the opponent's] consecutive farkles


# --------------------------------------------------------------------------- N players (issue 21)
@dataclass(frozen=True)
class NState:
    """Optimal (equilibrium) play at an N-player pre-roll state: every legal action with its win vector."""

    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]
    player: int  # the seat to move, 1..players
    turn_total: int
    dice: int
    triple: int
    final_turn: bool  # a seat has banked at or above the goal: the mover must end above the bar
    bar: int | None  # the highest score on a final turn (None before the final round)
    best: str  # "roll", "bank" or "mixed" (the seat randomises here: see roll_probability)
    roll_probability: float  # 1 (rolls), 0 (banks) or the stored mixing probability
    p_win: float
    p_wins: tuple[float, ...]
    actions: tuple[NAction, ...]
    cycle: dict | None = None  # the tuple's stored equilibrium was selected (docs/n_players.md)
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
            "player": self.player, "turn_total": self.turn_total, "dice": self.dice, "triple": self.triple,
            "final_turn": self.final_turn, "bar": self.bar, "best": self.best,
            "roll_probability": self.roll_probability, "p_win": self.p_win, "p_wins": list(self.p_wins),
            "actions": [a.as_dict() for a in self.actions], "cycle_tuple": self.cycle is not None,
            "cycle": self.cycle, "source": self.source,
        }


@dataclass(frozen=True)
class NKeep:
    """One legal keep of a roll at an N-player state, valued with optimal play after it."""

    keep: list[int]
    points: int
    dice_after: int
    triple_after: int
    p_win: float  # the mover's win probability after this keep
    p_wins: tuple[float, ...]
    then: str  # what the mover does at the state the keep leads to: 'roll', 'bank' or 'mixed'
    probability: float  # the equilibrium's probability of taking this keep (1 or 0; in a mixed keep between)

    def as_dict(self) -> dict:
        return {"keep": self.keep, "points": self.points, "dice_after": self.dice_after,
                "triple_after": self.triple_after, "p_win": self.p_win, "p_wins": list(self.p_wins),
                "then": self.then, "probability": self.probability}


@dataclass(frozen=True)
class NBest:
    """Every legal keep of a roll at an N-player state, the equilibrium's keep first."""

    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]
    player: int
    roll: list[int]
    turn_total: int
    triple: int
    final_turn: bool
    bar: int | None
    farkle: bool  # nothing scores: the turn total is lost, the next seat moves
    p_win: float  # the mover's win probability after the equilibrium's keep (or the farkle)
    p_wins: tuple[float, ...]
    actions: tuple[NKeep, ...]
    cycle: dict | None = None
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
            "player": self.player, "roll": self.roll, "turn_total": self.turn_total, "triple": self.triple,
            "final_turn": self.final_turn, "bar": self.bar, "farkle": self.farkle, "p_win": self.p_win,
            "p_wins": list(self.p_wins), "best": self.actions[0].as_dict() if self.actions else None,
            "actions": [a.as_dict() for a in self.actions], "cycle_tuple": self.cycle is not None,
            "cycle": self.cycle, "source": self.source,
        }


@dataclass(frozen=True)
class SeatWin:
    rules: str
    goal: int
    players: int
    seat: int
    p_win: float
    advantage: float  # p_win - 1/players

    def as_dict(self) -> dict:
        return {"rules": self.rules, "goal": self.goal, "players": self.players, "seat": self.seat,
                "p_win": self.p_win, "advantage": self.advantage}


@dataclass(frozen=True)
class Compensation:
    rules: str
    goal: int
    players: int
    scores: tuple[int, ...]  # starting points per seat (fair compensation)
    p_wins: tuple[float, ...]
    deviation: float  # largest |p_win - 1/players|
    uncompensated: tuple[float, ...]  # the seats' win probabilities from all scores 0
    uncompensated_deviation: float

    def as_dict(self) -> dict:
        return {"rules": self.rules, "goal": self.goal, "players": self.players, "scores": list(self.scores),
                "p_wins": list(self.p_wins), "deviation": self.deviation,
                "uncompensated_p_wins": list(self.uncompensated),
                "uncompensated_deviation": self.uncompensated_deviation}
