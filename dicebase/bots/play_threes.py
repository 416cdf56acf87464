"""Threes' turns for the game loop (:func:`dicebase.bots.play.game_loop`): every seat plays one turn, in order;
after each roll the player keeps at least one die (the lowest first); the lowest total wins."""

from __future__ import annotations

import re

import numpy as np

from dicebase.bots.play import ADVICE, Decision, _ask_faces, _number, _read
from dicebase.errors import BadInput

#: The lineup when none is given.
DEFAULT_BOTS = ("only-3s", "win")


class ThreesTurns:
    """You and ``bots`` in a Threes round of rule set ``variant``; ``ties``: who wins a tie for the lowest."""

    game = "threes"
    final_round = "one_each"
    goal = 0
    must_end = True

    def __init__(self, db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                 variant: str = "classic", ties: str = "shared"):
        from dicebase.bots.threes import Threes

        engine = Threes(db, variant)
        self.db, self.ask, self.say, self.real_dice, self.variant, self.ties = db, ask, say, real_dice, variant, ties
        self.engine, self.rules, self.rs = engine, engine.rules, engine.rolls
        n = len(bots) + 1
        if not 1 <= seat <= n:
            raise BadInput(f"seat must be 1..{n} (you and {len(bots)} bots), got {seat}")
        if n > engine.max_players:
            raise BadInput(f"this database holds rounds of up to {engine.max_players} players, got {n}")
        self.seat, self.max_turns = seat, n
        self.rng = np.random.default_rng(seed)
        self.players = list(bots[: seat - 1]) + ["you"] + list(bots[seat - 1:])
        self.decisions: list[Decision] = []
        self.legal = engine.legal()

    def _best(self, score: list[int], m: int) -> int:
        """The lowest score of the seats before ``m`` (the rules' ``no_target`` before any)."""
        return min([self.rules.no_target, *score[:m]])

    def header(self, m: int, score: list[int], final: bool) -> str:
        who, best = self.players[m], self._best(score, m)
        label = who if who == "you" else f"{who} (seat {m + 1})"
        return f"-- seat {m + 1}: {label}; best so far: {'none' if best == self.rules.no_target else best}"

    def reached(self, m: int) -> None:
        return None

    def turn(self, s: int, score: list[int], final: bool) -> int:
        rules, rs, rng, who = self.rules, self.rs, self.rng, self.players[s]
        m = len(self.players) - 1 - s  # the players after this one
        best = self._best(score, s)
        d, f, total = rules.dice, 0, 0
        keep = None if who in ("you", "random") else self.engine.keep_table(who, m)
        while d > 0:
            if who == "you" and self.real_dice:
                faces = _ask_faces(self.ask, self.say, d, rules.faces)
            else:
                faces = list(rng.integers(1, rules.faces + 1, size=d))
            faces = [int(x) for x in sorted(faces, key=lambda x: (rules.worth[x - 1], x))]
            text = " ".join(map(str, faces))
            g = rs.offset[d] + rs.text[rs.offset[d]:rs.offset[d + 1]].index(text)
            if who == "you":
                a = self._your_keep(faces, total, d, bool(f), best, m, self.legal[f, g])
            elif who == "random":
                choices = np.flatnonzero(self.legal[f, g])
                a = int(choices[int(rng.integers(len(choices)))])
            else:
                a = int(keep[min(best, keep.shape[0] - 1) if keep.shape[0] > 1 else 0, f, total, g])
            kept = faces[:a]
            total += int(rs.cost[g, a])
            self.say(f"   rolled {text}: keeps {' '.join(map(str, kept)) or 'none (re-roll)'} -> score {total}")
            d, f = d - a, int(a == 0)
        return total

    def _your_keep(self, faces, score, d, must_keep_two, best, m, legal_row) -> int:
        ask, say, rules = self.ask, self.say, self.rules
        to_beat = None if best == rules.no_target else best
        advice = None
        can_win = to_beat is None or score < to_beat or (score == to_beat and self.ties == "shared")
        if can_win and (to_beat is not None or m > 0):
            advice = self.db.threes.best(faces, variant=self.variant, score=score, to_beat=to_beat, players_after=m,
                                         must_keep_two=must_keep_two, ties=self.ties)
        allowed = [int(a) for a in np.flatnonzero(legal_row)]
        say(f"   you rolled {' '.join(map(str, faces))} (score so far {score})")
        while True:
            line = _read(ask, f"   keep how many of the lowest ({allowed[0]}..{allowed[-1]}; ? for advice): ")
            if line in ADVICE:
                if advice is None:
                    say("   no advice: you cannot win this round any more")
                else:
                    for act in advice.actions:
                        say(f"     keep {' '.join(map(str, act.keep)) or 'none (re-roll)'}: p_win {act.value:.4f}")
                continue
            if _number(line) in allowed:
                a = _number(line)
                break
            say(f"   keep one of {', '.join(map(str, allowed))}")
        if advice is not None:
            values = {len(act.keep): act.value for act in advice.actions}
            top = advice.actions[0]
            self.decisions.append(Decision(len(self.decisions) + 1, f"roll {' '.join(map(str, faces))} at score {score}",
                                           f"kept {a}", f"kept {len(top.keep)}", values[a], top.value))
        return a

    def result(self, finals: list[int], m: int) -> str:
        players, low = self.players, min(finals)
        winners = [f"seat {i + 1} ({p})" for i, (p, x) in enumerate(zip(players, finals)) if x == low]
        mine = finals[self.seat - 1]
        return (f"scores {', '.join(f'{p} {x}' for p, x in zip(players, finals))}; lowest {low}: "
                f"{' and '.join(winners)}; you {'win' if mine == low else 'lose'}"
                f"{' (shared)' if mine == low and len(winners) > 1 else ''}")


def turns(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
          variant: str | None = None, ties: str = "shared"):
    """Threes' turn engine for the game loop (:func:`dicebase.bots.play.play`): you and ``bots`` in one round."""
    from dicebase.bots import _check_bots

    _check_bots("threes", list(bots) + ["random"])
    return ThreesTurns(db, bots, seat, ask, say, seed=seed, real_dice=real_dice, variant=variant or "classic",
                       ties=ties)


def choices(prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision at ``prompt``: how many of the lowest dice to keep."""
    m = re.search(r"\((\d+)\.\.(\d+);", prompt)
    lo, hi = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
    return [(str(a), f"Keep {a}" if a else "Re-roll all") for a in range(lo, hi + 1)]
