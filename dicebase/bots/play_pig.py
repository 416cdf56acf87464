"""Pig's turns for the game loop (:func:`dicebase.bots.play.game_loop`): roll one die as often as you like; the
bust face ends the turn with nothing, any other face adds its score to the turn total; hold to bank it.  The
first seat whose score plus turn total reaches the goal wins at once (no final round).

Any number of bots the tables were built for (``dicebase pig seats``): you and one bot play the two-player block,
you and more the N-player block.  ``optimal`` decides by ``dicebase pig best`` (a stored mixed decision drawn
with its probability); ``hold-at-N`` and ``four-turns`` by their rule (:mod:`dicebase.bots.pig`).  Your
decisions are valued by ``pig best`` (every seat's win probability, every seat playing the stored equilibrium
after) and each reviewed decision names its lookup.
"""

from __future__ import annotations

import numpy as np

from dicebase.bots.play import Decision, _advise, _ask_choice, _ask_faces, _draw, _label, _lineup, _result, check_lineup
from dicebase.rules import pig_turn
from dicebase.rules.pig import face_name

_ROLL_OR_HOLD = {"r": True, "roll": True, "h": False, "hold": False}

#: The lineup when none is given.
DEFAULT_BOTS = ("optimal",)


class PigTurns:
    """You against one or more bots, rule set ``variant`` (the block of that many players must be built)."""

    game = "pig"
    final_round = "none"
    max_turns = 10_000
    must_end = True

    def __init__(self, db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 variant: str | None = None):
        from dicebase.bots.pig import policy

        self.players = _lineup(bots, seat)
        self.q = db.pig
        v = self.q.variant(variant)
        self.q.seats(len(self.players), v.name)  # NotInDatabase, with the command that adds them, where not built
        self.variant, self.rules, self.goal = v.name, v.rules, v.goal
        self.policies = {b: policy(b) for b in bots if b != "optimal"}  # optimal: `pig best`
        self.seat, self.ask, self.say, self.real_dice = seat, ask, say, real_dice
        self.rng = np.random.default_rng(seed)
        self.decisions: list[Decision] = []

    def header(self, m: int, score: list[int], final: bool) -> str:
        return f"-- {_label(self.players, m)}: scores {', '.join(map(str, score))}"

    def reached(self, m: int) -> str | None:
        return None

    def _face(self, human: bool) -> int:
        r = self.rules
        if human and self.real_dice:
            return _ask_faces(self.ask, self.say, 1, r.faces)[0]
        return int(self.rng.integers(1, r.faces + 1))

    def turn(self, m: int, score: list[int], final: bool) -> int:
        r, say = self.rules, self.say
        human = self.players[m] == "you"
        k = 0
        while k == 0 or self.decide(m, score, k, human):
            face = self._face(human)
            if face == r.bust_face:
                say(f"   rolled {face_name(r, face)}: the turn ends with nothing")
                return score[m]
            k += r.scores[face - 1]
            if score[m] + k >= self.goal:
                say(f"   rolled {face_name(r, face)}: turn total {k}, {score[m] + k} reaches {self.goal}")
                return score[m] + k
            say(f"   rolled {face_name(r, face)}: turn total {k}")
        say(f"   holds: {score[m] + k}")
        return score[m] + k

    def decide(self, m: int, score: list[int], k: int, human: bool) -> bool:
        """Whether seat ``m`` rolls at turn total ``k`` (``k >= 1``)."""
        if human:
            return self._your_roll(score, m, k)
        who = self.players[m]
        if who == "optimal":
            return _draw(self.rng, self.q.best(list(score), m + 1, k, variant=self.variant).roll_probability)
        kind, param = self.policies[who]
        return bool(pig_turn.policy_rolls(kind, param, self.goal, score[m], k))

    def _your_roll(self, score: list[int], m: int, k: int) -> bool:
        advice = self.q.best(list(score), m + 1, k, variant=self.variant)
        roll = _ask_choice(self.ask, self.say, f"   turn total {k}: roll or hold (r/h; ? for advice): ", _ROLL_OR_HOLD,
                           "   answer r (roll) or h (hold)", lambda: _advise(self.say, advice.actions, advice.best))
        chosen = next(a for a in advice.actions if a.action == ("roll" if roll else "hold"))
        self.decisions.append(Decision(
            len(self.decisions) + 1, f"scores {','.join(map(str, score))}, seat {m + 1}, turn total {k}",
            chosen.action, advice.best, chosen.p_win, advice.p_win,
            {"lookup": "pig best", "scores": list(score), "player": m + 1, "turn_total": k, "variant": self.variant}))
        return roll

    def result(self, score: list[int], m: int) -> str:
        return _result(self.players, score, self.seat)


def turns(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
          variant: str | None = None, ties: str = "shared") -> PigTurns:
    """Pig's turn engine for the game loop (:func:`dicebase.bots.play.play`)."""
    return PigTurns(db, check_lineup("pig", bots), seat, ask, say, seed=seed, real_dice=real_dice, variant=variant)


def choices(prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision at ``prompt``: roll or hold."""
    return [("r", "Roll"), ("h", "Hold")]


def players_built(db) -> list[int]:
    """The numbers of players above two whose tables ``db`` holds for its default rule set."""
    variant = db.pig.variant(None).name
    return sorted(n for v, n in db.pig.built if v == variant and n > 2)
