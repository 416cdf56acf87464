"""Great Rolled Ones' turns for the game loop (:func:`dicebase.bots.play.game_loop`): roll the dice not set aside,
each 1 is set aside, the others add to the turn total; three 1s end the turn with nothing.

One bot plays the two-player tables (:class:`RolledOnesTurns`: advice and review from ``rolled-ones best``),
two or more the N-player tables (:class:`RolledOnesNTurns`, docs/n_players.md: advice and review from
``rolled-ones best --scores``, every seat's win probability, every seat playing the stored equilibrium after).
A turn that ends at or above the goal makes the round the last: the seats after it take one final turn, in
which they may hold only above the highest score."""

from __future__ import annotations

import numpy as np

from dicebase.bots.play import (
    Decision, _advise, _ask_choice, _ask_ones, _draw, _label, _lineup, _result, check_lineup,
)
from dicebase.errors import BadInput

_ROLL_OR_HOLD = {"r": True, "roll": True, "h": False, "hold": False}

#: The lineup when none is given.
DEFAULT_BOTS = ("optimal",)


class _Turns:
    """What the two stores share: the dice of a turn, the bust, the hold."""

    game = "rolled-ones"
    final_round = "to_last_seat"

    def _start(self, players: list[str], seat: int, ask, say, seed: int, real_dice: bool):
        self.players, self.seat, self.ask, self.say, self.real_dice = players, seat, ask, say, real_dice
        self.rng = np.random.default_rng(seed)
        self.decisions: list[Decision] = []

    def turn(self, m: int, score: list[int], final: bool) -> int:
        say, D, L = self.say, self.dice, self.ones_limit
        human = self.players[m] == "you"
        k, o = 0, 0
        while self.decide(m, score, k, o, final, human):
            if human and self.real_dice:
                ones, faces = _ask_ones(self.ask, say, D - o), None
            else:
                faces = [int(x) for x in self.rng.integers(1, self.faces + 1, size=D - o)]
                ones = faces.count(1)
            shown = " ".join(map(str, sorted(faces))) if faces else f"{ones} ones"
            if o + ones >= L:
                say(f"   rolled {shown}: {o + ones} ones, the turn ends with nothing")
                return score[m]
            k, o = k + (D - o - ones), o + ones
            say(f"   rolled {shown}: turn total {k}, {o} ones set aside")
        say(f"   holds: {score[m] + k}")
        return score[m] + k


class RolledOnesTurns(_Turns):
    """You against one bot: the two-player game of rule set ``variant`` (values: ``rolled-ones best``)."""

    max_turns = 400
    must_end = False

    def __init__(self, db, bot: str, seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 variant: str | None = None):
        from dicebase.bots.rolled_ones import RolledOnes

        engine = RolledOnes(db, variant)
        r = engine.rules
        if seat not in (1, 2):
            raise BadInput(f"seat must be 1 or 2 (Great Rolled Ones has two players), got {seat}")
        self.db, self.bot, self.engine, self.table = db, bot, engine, engine.roll_table(bot)
        self.goal, self.dice, self.faces, self.ones_limit = r.goal, r.dice, r.faces, r.ones_limit
        self._start([bot, "you"] if seat == 2 else ["you", bot], seat, ask, say, seed, real_dice)

    def header(self, m: int, score: list[int], final: bool) -> str:
        who = "you" if m == self.seat - 1 else self.bot
        return (f"-- player {m + 1} ({who}): {score[m]} against {score[1 - m]}"
                + (" (final turn: exceed it)" if final else ""))

    def reached(self, m: int) -> None:
        return None

    def decide(self, m: int, score: list[int], k: int, o: int, final: bool, human: bool) -> bool:
        me, you, G = score[m], score[1 - m], self.goal
        if final:
            return me + k <= you
        if human:
            return k == 0 or self._your_roll(m + 1, me, you, k, o)
        return bool(self.table[m, min(me, G - 1), min(you, G - 1), min(k, self.engine.KT), o]) or k == 0

    def _your_roll(self, p, me, you, k, o) -> bool:
        advice = self.db.rolled_ones.best(p, me, you, k, o, variant=self.engine.v.name)
        roll = _ask_choice(self.ask, self.say, f"   turn total {k}, {o} ones: roll or hold (r/h; ? for advice): ",
                           _ROLL_OR_HOLD, "   answer r (roll) or h (hold)",
                           lambda: self.say(f"     roll: p_win {advice.p_roll:.4f}; hold: p_win {advice.p_hold:.4f}; "
                                            f"best: {advice.best}"))
        chosen = advice.p_roll if roll else advice.p_hold
        self.decisions.append(Decision(len(self.decisions) + 1, f"score {me} vs {you}, turn total {k}, {o} ones",
                                       "roll" if roll else "hold", advice.best, chosen, advice.p_win))
        return roll

    def result(self, score: list[int], m: int) -> str:
        s1, s2 = score
        winner = 2 if (s2 > s1 and (s2 >= self.goal or s1 >= self.goal)) else 1  # s1 >= goal: player 2's final turn
        return (f"player 1 {s1}, player 2 {s2}: player {winner} wins; "
                f"you {'win' if winner == self.seat else 'lose'}")


class RolledOnesNTurns(_Turns):
    """You against two or more bots: the N-player game of rule set ``variant`` (``rolled-ones best --scores``).

    Bots: ``optimal`` plays the lookups' decision (a stored mixed decision drawn with its probability; beyond
    the turn-total bound it holds, as the model does); seed 002's policies play as ``dicebase tournament``
    reads them for N players and on a final turn roll until above the bar, then hold."""

    max_turns = 2000
    must_end = True

    def __init__(self, db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 variant: str | None = None):
        players = _lineup(bots, seat)
        self.q = db.rolled_ones
        b = self.q.n.block(len(players), variant)  # NotInDatabase, with the rebuild command, where not built
        r = b.rules
        self.block, self.K = b, b.turn_total_bound
        self.goal, self.dice, self.faces, self.ones_limit = b.goal, r.dice, r.faces, r.ones_limit
        self.policies = _RolledOnesPolicies(b)
        self._start(players, seat, ask, say, seed, real_dice)

    def header(self, m: int, score: list[int], final: bool) -> str:
        return (f"-- {_label(self.players, m)}: scores {', '.join(map(str, score))}"
                + (f" (final turn: hold only above {max(score)})" if final else ""))

    def reached(self, m: int) -> str | None:
        N = len(self.players)
        return f"   seat {m + 1} reached {self.goal}: seats {m + 2}..{N} take a final turn" if m < N - 1 else None

    def decide(self, m: int, score: list[int], k: int, o: int, final: bool, human: bool) -> bool:
        who, bar = self.players[m], max(score)
        if k == 0 or (final and score[m] + k <= bar):
            return True  # the first roll, or a final turn at or below the bar: it must roll
        if not final and k > self.K:
            self.say(f"   turn total {k} is past the stored bound {self.K}: the turn holds (as the N-player model "
                     "plays it)")
            return False
        if human:
            return self._your_roll(score, m, k, o)
        if who == "optimal":
            return _draw(self.rng, self.q.n.best(score, m + 1, k, o, variant=self.block.variant).roll_probability)
        if final:
            return False  # seed 002's policies hold as soon as they are above the bar
        return self.policies.roll(who, len(score), m, score, k, o)

    def _your_roll(self, score, m, k, o) -> bool:
        advice = self.q.n.best(score, m + 1, k, o, variant=self.block.variant)
        if len(advice.actions) == 1:  # at the score cap of a final turn the model holds
            self.say(f"   turn total {k}: the turn {advice.actions[0].action}s (the only action the model has here)")
            return advice.actions[0].action == "roll"
        roll = _ask_choice(self.ask, self.say, f"   turn total {k}, {o} ones: roll or hold (r/h; ? for advice): ",
                           _ROLL_OR_HOLD, "   answer r (roll) or h (hold)",
                           lambda: _advise(self.say, advice.actions, advice.best))
        chosen = next(a for a in advice.actions if a.action == ("roll" if roll else "hold"))
        self.decisions.append(Decision(
            len(self.decisions) + 1, f"scores {','.join(map(str, score))}, seat {m + 1}, turn total {k}, {o} ones",
            chosen.action, advice.best, chosen.p_win, advice.p_win,
            {"lookup": "rolled-ones best", "scores": list(score), "player": m + 1, "turn_total": k, "ones": o,
             "variant": self.block.variant}))
        return roll

    def result(self, score: list[int], m: int) -> str:
        return _result(self.players, score, self.seat)


class _RolledOnesPolicies:
    """Seed 002's policies in seat m of N, read as the N-player build and ``dicebase tournament`` read them
    (:func:`dicebase.numeric.rolled_ones_policies.human_decisions`: the last seat plays player 2's
    cases, the others player 1's, "the opponent" is the leading other seat); tables made on first use."""

    def __init__(self, block):
        from dicebase.bots.rolled_ones import TAIL

        self.rules = block.rules
        self.KT = block.turn_total_bound + TAIL
        self.tables: dict = {}

    def roll(self, bot: str, N: int, m: int, score: list[int], k: int, o: int) -> bool:
        if k >= self.KT:
            return False
        key = (bot, N, m)
        if key not in self.tables:
            from dicebase.bots.rolled_ones import COLUMNS
            from dicebase.numeric.rolled_ones_policies import POLICIES, human_decisions

            self.tables[key] = human_decisions(POLICIES[COLUMNS[bot]].rule, self.rules, N, m, self.KT)
        lead = max(s for n, s in enumerate(score) if n != m)
        return bool(self.tables[key][score[m], lead, k, o])


def turns(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
          variant: str | None = None, ties: str = "shared"):
    """Great Rolled Ones' turn engine for the game loop (:func:`dicebase.bots.play.play`): one bot plays the
    two-player tables, more the N-player tables."""
    names = check_lineup("rolled-ones", bots)
    if len(names) == 1:
        return RolledOnesTurns(db, names[0], seat, ask, say, seed=seed, real_dice=real_dice, variant=variant)
    return RolledOnesNTurns(db, names, seat, ask, say, seed=seed, real_dice=real_dice, variant=variant)


def choices(prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision at ``prompt``: roll or hold."""
    return [("r", "Roll"), ("h", "Hold")]


def players_built(db) -> list[int]:
    """The numbers of players above two whose N-player tables ``db`` holds for its default variant."""
    variant = db.rolled_ones.variant(None).name
    return sorted(n for v, n in db.rolled_ones.n.built if v == variant and n > 2)
