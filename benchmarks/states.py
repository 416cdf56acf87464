"""Random valid states for "first lookup" figures: a NEW state each call on a warm connection.

``measure(url, games, seed, count)`` is the "new state" figure of benchmarks/lookups.py and
benchmarks/run.py.

``draw(game, db, seed, count)`` gives, per lookup kind, ``count`` distinct states the file
can answer (each tried once on ``db``, so draw them on a connection that is closed before
timing: the timed connection must not have read them).  States come from the games' own
bounds (dice faces, score ranges, the built goal) with a fixed seed, so two runs, and an
older checkout measured with ``--code``, ask the same states of the same file.  Only the
public read API is used, with arguments every checkout since 74419e1 accepts.
"""

from __future__ import annotations

import random
import statistics
import time
from pathlib import Path
from typing import Callable

Lookup = Callable[[object], object]


def _threes(db, rng: random.Random) -> dict[str, Callable[[], tuple[Lookup, tuple]]]:
    def roll_and_score():
        left = rng.randint(1, 5)
        kept = [rng.randint(1, 6) for _ in range(5 - left)]
        score = sum(0 if face == 3 else face for face in kept)
        return [rng.randint(1, 6) for _ in range(left)], score

    def win():
        dice, score = roll_and_score()
        players_after = rng.randint(0, 4)
        to_beat = rng.randint(max(score, 1), 30) if players_after == 0 or rng.random() < 0.7 else None
        return (lambda db, d=dice, s=score, t=to_beat, p=players_after:
                db.threes.best(d, score=s, to_beat=t, players_after=p)), (sorted(dice), score, to_beat, players_after)

    def expected():
        dice, score = roll_and_score()
        variant = rng.choice(("classic", "reroll"))
        return (lambda db, d=dice, s=score, v=variant: db.threes.best(d, score=s, variant=v)), (sorted(dice), score, variant)

    return {"threes best (win)": win, "threes best (expected)": expected}


def _rolled_ones(db, rng: random.Random) -> dict[str, Callable[[], tuple[Lookup, tuple]]]:
    v = db.rolled_ones.variant(None)
    goal, bound, limit = v.goal, getattr(v, "turn_total_bound", 50), getattr(v, "ones_limit", 4)

    def state():
        return (rng.randint(1, 2), rng.randrange(goal), rng.randrange(goal), rng.randint(0, min(bound, 40)),
                rng.randrange(limit))

    def best():
        s = state()
        return (lambda db, s=s: db.rolled_ones.best(*s)), s

    def policy():
        s = state()
        return (lambda db, s=s: db.rolled_ones.policy("keep_pace_end_race", *s)), s

    return {"rolled-ones best": best, "rolled-ones policy keep_pace_end_race": policy}


def _ten_thousand_goal(db) -> int:
    try:
        return int(db.ten_thousand.goal())
    except TypeError:  # 74419e1: goal(rules)
        return int(db.ten_thousand.goal("ten-thousand"))


def _ten_thousand(db, rng: random.Random) -> dict[str, Callable[[], tuple[Lookup, tuple]]]:
    try:
        goal = _ten_thousand_goal(db)
    except Exception:  # no two-player game in this file: the solitaire lookups only
        goal = 0

    def roll():
        return [rng.randint(1, 6) for _ in range(rng.randint(1, 6))]

    def points(most: int) -> int:
        return 50 * rng.randrange(max(most // 50, 1))

    def solitaire():
        dice, turn = roll(), points(3000)
        return (lambda db, d=dice, t=turn: db.ten_thousand.best(d, turn_total=t)), (sorted(dice), turn)

    def two_player():
        dice, turn, score, opponent = roll(), points(2000), points(goal), points(goal)
        return (lambda db, d=dice, t=turn, s=score, o=opponent:
                db.ten_thousand.best(d, turn_total=t, score=s, opponent=o)), (sorted(dice), turn, score, opponent)

    def state():
        score, opponent, turn, dice = points(goal), points(goal), points(2000), rng.randint(1, 6)
        return (lambda db, s=score, o=opponent, t=turn, n=dice:
                db.ten_thousand.state(s, o, t, n)), (score, opponent, turn, dice)

    kinds = {"ten-thousand best (solitaire)": solitaire}
    if goal:
        kinds.update({"ten-thousand best (two-player)": two_player, "ten-thousand state": state})
    return kinds


DRAWERS = {"threes": _threes, "rolled_ones": _rolled_ones, "ten_thousand": _ten_thousand}


def draw(game: str, db, seed: int, count: int) -> dict[str, list[Lookup]]:
    """Per lookup kind, ``count`` distinct states of ``game`` that ``db`` answers (fewer if the
    file holds fewer: at most 50 tries per state)."""
    from dicebase.query.base import DicebaseError

    rng = random.Random(f"{seed} {game}")
    drawn: dict[str, list[Lookup]] = {}
    for label, make in DRAWERS[game](db, rng).items():
        seen: set[str] = set()
        lookups: list[Lookup] = []
        for _ in range(50 * count):
            if len(lookups) == count:
                break
            fn, key = make()
            if repr(key) in seen:
                continue
            seen.add(repr(key))
            try:
                fn(db)
            except DicebaseError:  # not a legal state, or not in this build
                continue
            lookups.append(fn)
        drawn[label] = lookups
    return drawn


#: lookups of other states asked on the timed connection before timing, per kind
WARM_STATES = 20


def measure(url: str, games, seed: int, count: int,
            warmed: bool = False) -> dict[tuple[str, str], tuple[int, float, float]] | None:
    """(game, kind) -> (states timed, p50 s, p99 s) of one call each for ``count`` new states.

    States are drawn and checked on a connection of their own, closed before the timed one
    opens; the timed connection first answers WARM_STATES other states of each kind.
    ``warmed``: the timed connection first runs ``dicebase serve``'s warm-up (None where the
    measured checkout has none).
    """
    import dicebase

    warmer = None
    if warmed:
        try:
            from dicebase.web import warm
        except ImportError:
            return None
        if Path(warm.__file__).resolve().parents[2] != Path(dicebase.__file__).resolve().parents[1]:
            return None  # another checkout's warm-up (an installed dicebase), not the measured one's
        warmer = warm.Warmer

    with dicebase.open(url) as scratch:
        built = set(scratch.games())
        drawn = {game: draw(game, scratch, seed, WARM_STATES + count) for game in games if game in built}
    figures = {}
    with dicebase.open(url) as db:
        if warmer is not None:
            warmer(db, say=lambda line: None).run()
        for game, kinds in drawn.items():
            for label, lookups in kinds.items():
                warm, timed = lookups[:WARM_STATES], lookups[WARM_STATES:]
                for fn in warm:
                    fn(db)
                samples = []
                for fn in timed:
                    started = time.perf_counter()
                    fn(db)
                    samples.append(time.perf_counter() - started)
                if samples:
                    ordered = sorted(samples)
                    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
                    figures[(game, label)] = (len(samples), statistics.median(ordered), p99)
                else:
                    figures[(game, label)] = (0, float("nan"), float("nan"))
    return figures
