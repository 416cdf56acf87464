"""10,000's turns for the game loop (:func:`dicebase.bots.play.game_loop`): after each roll the player keeps
scoring dice (none: a farkle, the turn ends with nothing), then rolls on or banks; when a seat banks at or
above the goal every other seat takes one last turn, in which it may bank only above the highest score.

One bot plays the two-player tables (:class:`TenThousandTurns`: a keep's value is ``ten-thousand best``, roll
or bank ``ten-thousand state``), two or more the N-player tables (:class:`TenThousandNTurns`, docs/n_players.md:
``ten-thousand best/state --scores``, every seat playing the stored equilibrium after).  Bots: ``optimal``
plays the lookups' decisions (N players: stored mixed decisions drawn); ``seed004`` and ``bank-T`` keep the
most dice, then the most points, bank at their thresholds, and on a last turn roll until above the bar."""

from __future__ import annotations

import re

import numpy as np

from dicebase.bots.play import (
    ADVICE, Decision, _advise, _ask_choice, _ask_faces, _draw, _label, _lineup, _number, _read, _result, _seats_text,
    check_lineup,
)
from dicebase.errors import BadInput

_ROLL_OR_BANK = {"r": True, "roll": True, "b": False, "bank": False}

#: The lineup when none is given.
DEFAULT_BOTS = ("optimal",)


class _Turns:
    """What the two stores share: the rolls of a turn, the keeps, the bank."""

    game = "ten-thousand"
    final_round = "around"

    def _start(self, players: list[str], seat: int, ask, say, seed: int, real_dice: bool):
        self.players, self.seat, self.ask, self.say, self.real_dice = players, seat, ask, say, real_dice
        self.tt = self.db.ten_thousand
        self.rng = np.random.default_rng(seed)
        self.decisions: list[Decision] = []

    def _choose_keep(self, text: str, k: int, shown: list, texts: list[str], advice) -> int:
        """Your keep of the roll ``text``: its index in ``shown`` (``texts``: their lines; ``advice()``: the lines
        '?' shows, every keep in the lookup's order)."""
        ask, say = self.ask, self.say
        say(f"   you rolled {text} (turn total {k}); your keeps:")
        for n, line in enumerate(texts, 1):
            say(f"     {n}: {line}")
        while True:
            line = _read(ask, f"   keep which (1..{len(shown)}; ? for advice): ")
            if line in ADVICE:
                for line in advice():
                    say(line)
                continue
            n = _number(line)
            if n is not None and 1 <= n <= len(shown):
                return n - 1
            say(f"   keep one of 1..{len(shown)}")

    def turn(self, m: int, score: list[int], final: bool) -> int:
        say = self.say
        human = self.players[m] == "you"
        k, dice, triple = 0, self.dice, 0
        while True:
            if human and self.real_dice:
                faces = _ask_faces(self.ask, say, dice, 6)
            else:
                faces = [int(x) for x in self.rng.integers(1, 7, size=dice)]
            faces = sorted(faces)
            text = " ".join(map(str, faces))
            keep = self.keep(m, score, faces, text, k, triple, human)
            if keep is None:
                say(f"   rolled {text}: farkle, the turn ends with nothing")
                return score[m]
            points, dice, triple, shown = keep
            k += points
            say(f"   rolled {text}: {'you ' if human else ''}{shown} -> turn total {k}")
            if dice == 0:  # every die scored without hot dice: the turn ends, banked if it may
                if self.lost_without_dice(final, score, m, k):
                    return score[m]
                break
            if not self.roll(m, score, k, dice, triple, final, human):
                break
        say(f"   banks: {score[m] + k}")
        return score[m] + k


def _keep_text(act) -> str:
    left = "hot dice: 6 dice again" if act.hot_dice else ("no dice left" if act.dice_after == 0
                                                          else f"{act.dice_after} dice left")
    triple = f", triple of {act.triple_after}s standing" if act.triple_after else ""
    return f"keep {' '.join(map(str, act.keep))} ({act.points} points; {left}{triple})"


class TenThousandTurns(_Turns):
    """You against one bot: the two-player game of rule set ``rules``."""

    max_turns = 400
    must_end = False

    def __init__(self, db, bot: str, seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 rules: str | None = None):
        from dicebase.bots.ten_thousand import TenThousand

        engine = TenThousand(db, rules)
        self.db, self.bot, self.engine = db, bot, engine
        self.name, self.goal, self.u, self.dice = engine.variant_name, engine.goal, engine.u, engine.start
        if seat not in (1, 2):
            raise BadInput(f"seat must be 1 or 2 (this 10,000 game has two players), got {seat}")
        self.bank_from = None if bot == "optimal" else engine.bank_from(bot)
        self._start([bot, "you"] if seat == 2 else ["you", bot], seat, ask, say, seed, real_dice)

    def header(self, m: int, score: list[int], final: bool) -> str:
        who = "you" if m == self.seat - 1 else self.bot
        return (f"-- player {m + 1} ({who}): {score[m]} against {score[1 - m]}"
                + (" (last turn: end above it)" if final else ""))

    def reached(self, m: int) -> None:
        return None

    def keep(self, m, score, faces, text, k, triple, human):
        tt, bot = self.tt, self.bot
        if human or bot == "optimal":
            best = tt.best(faces, turn_total=k, triple=triple, score=score[m], opponent=score[1 - m], rules=self.name)
        else:
            best = tt.best(faces, turn_total=k, triple=triple, rules=self.name)
        if best.farkle:
            return None
        if human:
            act = self._your_keep(text, k, best)
        elif bot == "optimal":
            act = best.actions[0]
        else:  # seed 004's keep: the most dice, then the most points
            act = max(best.actions, key=lambda a: (len(a.keep), a.points))
        return act.points, (self.dice if act.hot_dice else act.dice_after), act.triple_after, _keep_text(act)

    def lost_without_dice(self, final, score, m, k) -> bool:
        return False  # the turn banks (a last turn that did not pass the other player loses the game on its score)

    def roll(self, m, score, k, dice, triple, final, human) -> bool:
        me, you = score[m], score[1 - m]
        if final and me + k <= you:
            return True  # the last turn must end above the other player: roll on
        if human:
            return self._your_roll(me, you, k, dice, triple)
        if final:
            return False  # above the other player: bank and win
        if self.bot == "optimal":
            return self.tt.state(me, you, k, dice, triple, rules=self.name).action == "roll"
        return k < int(self.bank_from[self.engine.index[(dice, triple)]]) * self.u

    def _your_keep(self, text, k, best):
        shown = sorted(best.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
        act = shown[self._choose_keep(text, k, shown, [_keep_text(a) for a in shown], lambda: [
            f"     option {shown.index(a) + 1}, keep {' '.join(map(str, a.keep))}: p_win {a.value:.4f} (then {a.then})"
            for a in best.actions])]
        top = best.actions[0]
        self.decisions.append(Decision(len(self.decisions) + 1, f"roll {text} at turn total {k}",
                                       f"kept {' '.join(map(str, act.keep))}", f"kept {' '.join(map(str, top.keep))}",
                                       act.value, top.value))
        return act

    def _your_roll(self, me, you, k, dice, triple) -> bool:
        advice = self.tt.state(me, you, k, dice, triple, rules=self.name)
        what = f"turn total {k}, {dice} dice" + (f", triple of {triple}s standing" if triple else "")
        roll = _ask_choice(self.ask, self.say, f"   {what}: roll or bank (r/b; ? for advice): ", _ROLL_OR_BANK,
                           "   answer r (roll) or b (bank)",
                           lambda: self.say(f"     roll: p_win {advice.roll_value:.4f}; bank: p_win "
                                            f"{advice.bank_value:.4f}; best: {advice.action}"))
        chosen = advice.roll_value if roll else advice.bank_value
        self.decisions.append(Decision(len(self.decisions) + 1, f"score {me} vs {you}, {what}",
                                       "roll" if roll else "bank", advice.action, chosen, advice.p_win))
        return roll

    def result(self, score: list[int], last: int) -> str:
        s1, s2 = score
        winner = last + 1 if score[last] > score[1 - last] else 2 - last
        return (f"player 1 {s1}, player 2 {s2}: player {winner} wins; "
                f"you {'win' if winner == self.seat else 'lose'}")


class TenThousandNTurns(_Turns):
    """You against two or more bots: the N-player game of rule set ``rules``
    (:class:`dicebase.bots.ten_thousand_n.TenThousandN` plays the ``optimal`` seats)."""

    max_turns = 2000
    must_end = True

    def __init__(self, db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 rules: str | None = None):
        from dicebase.bots.ten_thousand_n import TenThousandN

        players = _lineup(bots, seat)
        engine = TenThousandN(db, rules, len(players))  # NotInDatabase, with the rebuild command, where not built
        self.db, self.engine = db, engine
        self.name, self.goal, self.dice = engine.variant_name, engine.goal, engine.dice
        self.fixed = {b: _FixedTenThousand(db, self.name, b, engine.rules) for b in set(bots) if b != "optimal"}
        self._start(players, seat, ask, say, seed, real_dice)

    def header(self, m: int, score: list[int], final: bool) -> str:
        return (f"-- {_label(self.players, m)}: scores {', '.join(map(str, score))}"
                + (f" (last turn: bank only above {max(score)})" if final else ""))

    def reached(self, m: int) -> str:
        return f"   seat {m + 1} reached {self.goal}: every other seat takes a last turn"

    def keep(self, m, score, faces, text, k, triple, human):
        who = self.players[m]
        if human:
            return self._your_keep(text, faces, score, m, k, triple)
        if who == "optimal":
            return self._optimal_keep(faces, score, m, k, triple)
        return self.fixed[who].keep(faces, triple)

    def lost_without_dice(self, final, score, m, k) -> bool:
        return final and score[m] + k <= max(score)

    def roll(self, m, score, k, dice, triple, final, human) -> bool:
        who = self.players[m]
        if human:
            return self._your_roll(score, m, k, dice, triple)
        if final and score[m] + k <= max(score):
            return True  # a final turn at or below the bar must roll on
        if who == "optimal":
            return _draw(self.rng, self.engine.roll_probability(tuple(score), m, k, dice, triple))
        if final:
            return False  # above the bar: bank
        return self.fixed[who].rolls(k, dice, triple)

    def _optimal_keep(self, faces, score, m, k, triple):
        engine = self.engine
        pick = engine.draw_keep(tuple(faces), tuple(score), m, k, triple, self.rng)  # a stored mixing drawn
        if pick is None:
            return None
        _p, points, dice_after, triple_after = pick
        kept = _kept_faces(engine.rules, faces, triple, points, dice_after, triple_after)
        return points, dice_after, triple_after, _nkeep_text(kept, points, len(faces), dice_after, triple_after,
                                                             engine.dice)

    def _your_keep(self, text, faces, score, m, k, triple):
        D = self.dice
        best = self.tt.n.best(faces, list(score), m + 1, k, triple, self.name)
        if best.farkle:
            return None
        shown = sorted(best.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
        texts = [_nkeep_text(a.keep, a.points, len(faces), a.dice_after, a.triple_after, D) for a in shown]
        n = self._choose_keep(text, k, shown, texts, lambda: [
            f"     option {shown.index(a) + 1}, keep {' '.join(map(str, a.keep))}: p_win {a.p_win:.4f} "
            f"({_seats_text(a.p_wins)}; then {a.then})" for a in best.actions])
        act, top = shown[n], best.actions[0]
        self.decisions.append(Decision(
            len(self.decisions) + 1, f"roll {text} at scores {','.join(map(str, score))}, seat {m + 1}, turn total {k}",
            f"kept {' '.join(map(str, act.keep))}", f"kept {' '.join(map(str, top.keep))}", act.p_win, best.p_win,
            {"lookup": "ten-thousand best", "roll": list(faces), "scores": list(score), "player": m + 1,
             "turn_total": k, "triple": triple, "rules": self.name, "option": n + 1}))
        return act.points, act.dice_after, act.triple_after, texts[n]

    def _your_roll(self, score, m, k, dice, triple) -> bool:
        advice = self.tt.n.state(list(score), m + 1, k, dice, triple, self.name)
        what = f"turn total {k}, {dice} dice" + (f", triple of {triple}s standing" if triple else "")
        if len(advice.actions) == 1:  # banking is not allowed here (a final turn at or below the bar)
            self.say(f"   {what}: you must {advice.actions[0].action}")
            return advice.actions[0].action == "roll"
        roll = _ask_choice(self.ask, self.say, f"   {what}: roll or bank (r/b; ? for advice): ", _ROLL_OR_BANK,
                           "   answer r (roll) or b (bank)", lambda: _advise(self.say, advice.actions, advice.best))
        chosen = next(a for a in advice.actions if a.action == ("roll" if roll else "bank"))
        self.decisions.append(Decision(
            len(self.decisions) + 1, f"scores {','.join(map(str, score))}, seat {m + 1}, {what}", chosen.action,
            advice.best, chosen.p_win, advice.p_win,
            {"lookup": "ten-thousand state", "scores": list(score), "player": m + 1, "turn_total": k, "dice": dice,
             "triple": triple, "rules": self.name}))
        return roll

    def result(self, score: list[int], m: int) -> str:
        return _result(self.players, score, self.seat)


def _nkeep_text(keep: list[int], points: int, n: int, dice_after: int, triple_after: int, D: int) -> str:
    hot = len(keep) == n and dice_after == D
    left = f"hot dice: {D} dice again" if hot else ("no dice left" if dice_after == 0 else f"{dice_after} dice left")
    triple = f", triple of {triple_after}s standing" if triple_after else ""
    return f"keep {' '.join(map(str, keep))} ({points} points; {left}{triple})"


def _kept_faces(rules, faces, triple, points, dice_after, triple_after) -> list[int]:
    """The faces of a keep with these points and dice after (the first such keep of the rules' order)."""
    from dicebase.rules.ten_thousand.scoring import legal_keeps

    counts = tuple(faces.count(f) for f in range(1, 7))
    for kp in legal_keeps(rules, counts, len(faces), triple):
        if (kp.points, kp.n_after, kp.t_after) == (points, dice_after, triple_after):
            return [f for f, c in enumerate(kp.kept, start=1) for _ in range(c)]
    return []  # pragma: no cover - the lookups' keeps are the rules' keeps


class _FixedTenThousand:
    """seed004 and bank-T for N players: the two-player bots' decisions (the most dice, then the most
    points; bank from the threshold of the dice left), which do not depend on the other seats."""

    def __init__(self, db, name: str, bot: str, rules):
        from dicebase.bots.ten_thousand import TenThousand

        engine = TenThousand(db, name)
        self.rules, self.u, self.index = rules, engine.u, engine.index
        self.bank_from = engine.bank_from(bot)

    def keep(self, faces, triple):
        from dicebase.rules.ten_thousand.scoring import legal_keeps

        counts = tuple(faces.count(f) for f in range(1, 7))
        keeps = legal_keeps(self.rules, counts, len(faces), triple)
        if not keeps:
            return None
        kp = max(keeps, key=lambda x: (sum(x.kept), x.points))
        kept = [f for f, c in enumerate(kp.kept, start=1) for _ in range(c)]
        return kp.points, kp.n_after, kp.t_after, _nkeep_text(kept, kp.points, len(faces), kp.n_after, kp.t_after,
                                                              self.rules.dice)

    def rolls(self, k: int, dice: int, triple: int) -> bool:
        return k < int(self.bank_from[self.index[(dice, triple)]]) * self.u


def turns(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
          variant: str | None = None, ties: str = "shared"):
    """10,000's turn engine for the game loop (:func:`dicebase.bots.play.play`): one bot plays the two-player
    tables, more the N-player tables; ``variant`` is the rule set (``--rules``)."""
    names = check_lineup("ten-thousand", bots)
    if len(names) == 1:
        return TenThousandTurns(db, names[0], seat, ask, say, seed=seed, real_dice=real_dice, rules=variant)
    return TenThousandNTurns(db, names, seat, ask, say, seed=seed, real_dice=real_dice, rules=variant)


def choices(prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision at ``prompt``: roll or bank, or a keep (the numbered lines the
    game printed before it)."""
    if "roll or bank" in prompt:
        return [("r", "Roll"), ("b", "Bank")]
    keeps = {}
    for line in reversed(lines):
        if line.lstrip().startswith("option "):  # the advice, printed after the keeps
            continue
        m = re.match(r"\s+(\d+): (keep .*)$", line)
        if not m:
            break
        keeps[m.group(1)] = m.group(2)[0].upper() + m.group(2)[1:]
    return sorted(keeps.items(), key=lambda kv: int(kv[0]))


def players_built(db) -> list[int]:
    """The numbers of players above two whose N-player tables ``db`` holds for its default rule set."""
    sets = db.ten_thousand.rule_sets()
    rules = "ten-thousand" if "ten-thousand" in sets else next(iter(sets))
    return sorted({key[2] for key in db.ten_thousand.n.built if key[0] == rules and key[2] > 2})
