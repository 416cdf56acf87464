"""A game against the bots: the dice rolled by the program (seeded) or entered from real dice,
the stored advice on request, and at the end the cost of each of your decisions.

The game talks through two functions, ``ask(prompt) -> str`` and ``say(text)``, so the terminal
(``dicebase play``) and tests drive the same code.  The cost of a decision is the stored value of
the best action minus the stored value of the one you took: win probability (Threes: your
chance to win the round under the win objective, every later player playing it; Great Rolled
Ones: your chance to win the game under optimal play by both).  With two or more bots Great Rolled
Ones and 10,000 play the N-player game: the values are the N-player lookups' (every seat's win
probability, every seat playing the stored equilibrium after), the cost is in your own win probability,
and each reviewed decision names its lookup.

One game loop (:func:`game_loop`) plays every game, over the game's turn engine (:class:`TurnEngine`:
whose turn, the header line, the turn itself with its legal actions, the final round, the result): each
game's bots module (named by its descriptor in :mod:`dicebase.games`) names its play module (``PLAY``), whose
``turns(...)`` makes the engine.
The terminal (``dicebase play``) and the web page (``/play/<game>``) both call :func:`play`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

from dicebase.errors import BadInput

ADVICE = ("?", "help", "advice")


@dataclass(frozen=True)
class Decision:
    number: int
    state: str
    chose: str
    best: str
    p_chose: float
    p_best: float
    #: N-player games: the lookup that valued it (``rolled-ones best --scores``, ``ten-thousand state`` or
    #: ``best`` with ``--scores``): its name and arguments, so the values can be asked again
    lookup: dict | None = None

    @property
    def cost(self) -> float:
        return max(0.0, self.p_best - self.p_chose)

    def as_dict(self) -> dict:
        out = {**asdict(self), "cost": self.cost}
        if self.lookup is None:
            del out["lookup"]
        return out


@dataclass(frozen=True)
class Review:
    game: str
    result: str
    decisions: tuple[Decision, ...]

    @property
    def total_cost(self) -> float:
        return sum(d.cost for d in self.decisions)

    def as_dict(self) -> dict:
        return {"game": self.game, "result": self.result, "total_cost": self.total_cost,
                "decisions": [d.as_dict() for d in self.decisions]}

    def lines(self) -> list[str]:
        out = [f"Review: {len(self.decisions)} decisions, total cost {self.total_cost:.4f} "
               "(chance to win given away against the best action)"]
        for n, d in enumerate(self.decisions, 1):
            mark = "" if d.cost <= 1e-12 else f"  cost {d.cost:.4f}"
            out.append(f"  {n:>2}. {d.state}: you {d.chose} ({d.p_chose:.4f}); best {d.best} ({d.p_best:.4f}){mark}")
        return out


class Ended(BadInput):
    """The input ended before the game did."""


def _read(ask, prompt: str) -> str:
    line = ask(prompt)
    if line is None:
        raise Ended("the input ended before the game did")
    return line.strip().lower()


def _number(text: str) -> int | None:
    """A whole number typed as ASCII digits (at most 9 of them), else None, so the question is asked again:
    '1_0', fullwidth or Arabic-Indic digits and a line of 5,000 digits (past Python's int conversion limit,
    issue 34) are not answers."""
    if 0 < len(text) <= 9 and text.isascii() and text.isdigit():
        return int(text)
    return None


def _ask_faces(ask, say, d: int, faces: int) -> list[int]:
    while True:
        line = _read(ask, f"   your roll of {d} dice (faces 1..{faces}, e.g. {' '.join(['4', '3', '1', '1', '2', '6'][:d])}): ")
        got = [_number(x) for x in line.replace(",", " ").split()]
        if len(got) == d and all(x is not None and 1 <= x <= faces for x in got):
            return got
        say(f"   give {d} faces, each 1..{faces}")


def _ask_ones(ask, say, dice: int) -> int:
    while True:
        line = _read(ask, f"   how many 1s did your {dice} dice show? ")
        n = _number(line)
        if n is not None and 0 <= n <= dice:
            return n
        say(f"   give a whole number 0..{dice}")


def _ask_choice(ask, say, prompt: str, answers: dict[str, bool], retry: str, advise) -> bool:
    """A two-way answer (roll or hold/bank): ``answers`` maps each accepted word to the choice; '?' advises."""
    while True:
        line = _read(ask, prompt)
        if line in ADVICE:
            advise()
            continue
        if line in answers:
            return answers[line]
        say(retry)


def check_lineup(game: str, names: list[str]) -> list[str]:
    """Each bot name known for ``game`` (one line, exit 2, if not); the lineup may repeat a bot."""
    from dicebase.bots import _check_bots

    if not names:
        raise BadInput(f"dicebase play {game} needs at least one bot (--bots NAME[,NAME...])")
    for name in dict.fromkeys(names):
        _check_bots(game, [name, name])
    return names


def _seats_text(p_wins) -> str:
    return ", ".join(f"seat {n} {x:.4f}" for n, x in enumerate(p_wins, 1))


def _advise(say, actions, best: str) -> None:
    """Every action with the mover's and every seat's win probability, as the lookups rank them."""
    for act in actions:
        say(f"     {act.action}: p_win {act.p_win:.4f} ({_seats_text(act.p_wins)})")
    say(f"     best: {best}")


def _draw(rng, q: float) -> bool:
    """A decision with roll probability q: 1 rolls, 0 stops, between them drawn (the stored mixing)."""
    return q >= 1.0 or (q > 0.0 and bool(rng.random() < q))


def _lineup(bots: list[str], seat: int) -> list[str]:
    n = len(bots) + 1
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= n:
        raise BadInput(f"seat must be 1..{n} (you and {len(bots)} bots), got {seat}")
    return list(bots[: seat - 1]) + ["you"] + list(bots[seat - 1:])


def _label(players: list[str], m: int) -> str:
    return f"seat {m + 1} ({players[m]})"


def _result(players: list[str], score: list[int], seat: int) -> str:
    winner = max(range(len(score)), key=lambda m: score[m])  # unique: every final turn ends above the bar or not at all
    shown = ", ".join(f"{_label(players, m)} {x}" for m, x in enumerate(score))
    return f"{shown}: seat {winner + 1} wins; you {'win' if winner == seat - 1 else 'lose'}"


# --------------------------------------------------------------------------- the game loop
class TurnEngine(Protocol):
    """One game's turns, as :func:`game_loop` plays them (made by the ``turns(...)`` of the game's play module)."""

    #: the review's game name (``rolled-ones``)
    game: str
    #: the seats in order, ``"you"`` among them
    players: list[str]
    #: who plays after the first seat reaches ``goal``: ``"one_each"`` (no final round: every seat plays one turn,
    #: Threes), ``"to_last_seat"`` (the seats after it, to the end of the round), ``"around"`` (every other seat),
    #: ``"none"`` (nobody: the first to reach the goal wins at once, Pig)
    final_round: str
    goal: int
    #: the most turns a game takes; past them ``must_end`` refuses the game, else its result is read as it stands
    max_turns: int
    must_end: bool
    #: your decisions so far, for the review
    decisions: list[Decision]

    def header(self, m: int, score: list[int], final: bool) -> str:
        """The line that opens seat ``m``'s turn (0-based) at ``score``; ``final``: in the final round."""

    def turn(self, m: int, score: list[int], final: bool) -> int:
        """Seat ``m`` plays its turn (bot or you, dice drawn or typed): its score after it."""

    def reached(self, m: int) -> str | None:
        """The line when seat ``m`` is the first to reach the goal (None: no line)."""

    def result(self, score: list[int], m: int) -> str:
        """The game's result line; ``m`` the seat that played the last turn."""


def game_loop(engine: TurnEngine, say) -> Review:
    """Play ``engine``'s game from every score 0, seat 1 first, to its end: each turn by the engine, then the
    final-round rule (:attr:`TurnEngine.final_round`); the result line and the review of your decisions."""
    N = len(engine.players)
    score = [0] * N
    ender, m = None, 0
    for _ in range(engine.max_turns):
        final = ender is not None
        say(engine.header(m, score, final))
        score[m] = engine.turn(m, score, final)
        if engine.final_round != "one_each" and ender is None and score[m] >= engine.goal:
            ender = m
            note = engine.reached(m)
            if note:
                say(note)
        after = (m + 1) % N
        if engine.final_round == "one_each":
            done = after == 0
        else:
            done = ender is not None and (engine.final_round == "none" or (
                m == N - 1 if engine.final_round == "to_last_seat" else after == ender))
        if done:
            break
        m = after
    else:
        if engine.must_end:
            raise BadInput(f"the game did not end within {engine.max_turns} turns")
    result = engine.result(score, m)
    say(result)
    return Review(engine.game, result, tuple(engine.decisions))


def _play_module(game: str):
    """The play module of ``game`` (its bots module, named by its descriptor, names it: ``PLAY``)."""
    import importlib

    from dicebase import games

    try:
        return importlib.import_module(games.load(game, "bots").PLAY)
    except (KeyError, AttributeError):
        raise BadInput(f"no game to play called {game!r}; games: {', '.join(games.cli_names('bots'))}") from None


def default_bots(game: str) -> list[str]:
    """The lineup ``game`` is played against when none is given (Threes: only-3s,win; the others: optimal)."""
    return list(_play_module(game).DEFAULT_BOTS)


def choices(game: str, prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision of ``game`` at ``prompt``, ``lines`` what the game said so far
    (the web page's buttons)."""
    return _play_module(game).choices(prompt, lines)


def players_built(game: str, db) -> list[int]:
    """The numbers of players above two whose N-player tables ``db`` holds for ``game``'s default rule set."""
    return _play_module(game).players_built(db)


def play(db, game: str, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
         variant: str | None = None, ties: str = "shared") -> Review:
    """You in seat ``seat`` against ``bots`` (seat order) in ``game`` (``threes``, ``rolled-ones``, ``ten-thousand``),
    asked through ``ask(prompt) -> str`` and told through ``say(text)``; the program's dice from ``seed``, or
    your own typed in (``real_dice``).  ``variant``: the rule set (10,000: its ``--rules``); ``ties``: Threes'
    tie rule.  Great Rolled Ones and 10,000 with one bot play the two-player tables, with more the N-player
    tables.  Returns the review."""
    engine = _play_module(game).turns(db, list(bots), seat, ask, say, seed=seed, real_dice=real_dice,
                                      variant=variant, ties=ties)
    return game_loop(engine, say)
