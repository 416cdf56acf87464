"""Threes' answers: the dataclasses the lookups return (their ``as_dict`` is the JSON the CLI
and the HTTP API print)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from dicebase.rules.threes import Rules, kept_sums, rank, rank_many, sort_roll  # noqa: F401  (the tie-break)

EXPECTED = "expected_final_score"
WIN = "win_probability"


@dataclass(frozen=True)
class Variant:
    """Rule parameters of a variant, as stored in threes_variants."""

    name: str
    dice: int
    faces: int
    worths: tuple[int, ...]
    min_keep: int
    allow_reroll: bool
    keep_after_reroll: int
    max_score: int
    no_target: int
    description: str

    @cached_property
    def rules(self) -> Rules:
        return Rules(self.name, self.dice, self.faces, self.worths, self.min_keep, self.allow_reroll,
                     self.keep_after_reroll, self.description)

    def worth(self, face: int) -> int:
        return self.worths[face - 1]

    def keep_order(self, faces) -> list[int]:
        """Faces sorted the way they are kept: lowest worth first (ties: lower face first)."""
        return sort_roll(self.rules, faces)

    def legal_keeps(self, dice_left: int, must_keep_two: bool) -> range:
        return self.rules.legal_keeps(dice_left, must_keep_two)

    def reachable_scores(self, kept: int) -> list[int]:
        """Every score ``kept`` dice can be worth."""
        return sorted(kept_sums(self.worths, kept)[kept])


@dataclass(frozen=True)
class Action:
    """One legal keep: the kept faces (lowest worth first) and its value."""

    keep: tuple[int, ...]
    value: float

    @property
    def dice_kept(self) -> int:
        return len(self.keep)


@dataclass(frozen=True)
class Best:
    """Every legal keep of a roll, best first, under one objective."""

    objective: str  # "expected_final_score" (lower is better) or "win_probability" (higher is better)
    variant: str
    roll: tuple[int, ...]  # faces in keep order
    score: int
    must_keep_two: bool
    ties: str | None  # None for the expected-score objective
    to_beat: int | None  # None: nobody has finished yet (or expected-score objective)
    players_after: int | None
    actions: tuple[Action, ...]

    @property
    def best(self) -> Action:
        return self.actions[0]

    def as_dict(self) -> dict:
        doc = {
            "objective": self.objective,
            "variant": self.variant,
            "roll": list(self.roll),
            "score": self.score,
            "must_keep_two": self.must_keep_two,
        }
        if self.objective == WIN:
            doc.update(ties=self.ties, to_beat=self.to_beat, players_after=self.players_after)
        doc["best"] = {"keep": list(self.best.keep), "value": self.best.value}
        doc["actions"] = [{"keep": list(a.keep), "value": a.value} for a in self.actions]
        return doc


@dataclass(frozen=True)
class ExpectedRow:
    dice: int
    must_keep_two: bool
    expected_score: float


@dataclass(frozen=True)
class ChanceRow:
    target: int
    p_win: float


@dataclass(frozen=True)
class SeatRow:
    seat: int
    p_win: float


@dataclass(frozen=True)
class Built:
    """What the build recorded for a variant: tie rules and player range."""

    ties: tuple[str, ...]
    max_players_after: int
