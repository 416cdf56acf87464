"""A game against the bots: the dice rolled by the program (seeded) or entered from real dice,
the stored advice on request, and at the end the cost of each of your decisions.

The game talks through two functions, ``ask(prompt) -> str`` and ``say(text)``, so the terminal
(``dicebase play``) and tests drive the same code.  The cost of a decision is the stored value of
the best action minus the stored value of the one you took: win probability (Threes: your
chance to win the round under the win objective, every later player playing it; Great Rolled
Ones: your chance to win the game under optimal play by both).  With two or more bots Great Rolled
Ones and 10,000 play the N-player game (``play_rolled_ones_n``, ``play_ten_thousand_n``): the values
are the N-player lookups' (every seat's win probability, every seat playing the stored equilibrium
after), the cost is in your own win probability, and each reviewed decision names its lookup.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

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


# ------------------------------------------------------------------------------- Threes
def play_threes(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                variant: str = "classic", ties: str = "shared") -> Review:
    from dicebase.bots.threes import Threes

    engine = Threes(db, variant)
    rules, rs = engine.rules, engine.rolls
    n = len(bots) + 1
    if not 1 <= seat <= n:
        raise BadInput(f"seat must be 1..{n} (you and {len(bots)} bots), got {seat}")
    if n > engine.max_players:
        raise BadInput(f"this database holds rounds of up to {engine.max_players} players, got {n}")
    rng = np.random.default_rng(seed)
    players = list(bots[: seat - 1]) + ["you"] + list(bots[seat - 1:])
    best = rules.no_target
    finals: list[int] = []
    decisions: list[Decision] = []
    legal = engine.legal()
    for s, who in enumerate(players):
        m = n - 1 - s
        label = who if who == "you" else f"{who} (seat {s + 1})"
        say(f"-- seat {s + 1}: {label}; best so far: {'none' if best == rules.no_target else best}")
        d, f, score = rules.dice, 0, 0
        keep = None if who in ("you", "random") else engine.keep_table(who, m)
        while d > 0:
            if who == "you" and real_dice:
                faces = _ask_faces(ask, say, d, rules.faces)
            else:
                faces = list(rng.integers(1, rules.faces + 1, size=d))
            faces = [int(x) for x in sorted(faces, key=lambda x: (rules.worth[x - 1], x))]
            text = " ".join(map(str, faces))
            g = rs.offset[d] + rs.text[rs.offset[d]:rs.offset[d + 1]].index(text)
            if who == "you":
                a = _your_keep(db, ask, say, faces, score, d, bool(f), best, m, variant, ties, legal[f, g], decisions,
                               rules)
            elif who == "random":
                choices = np.flatnonzero(legal[f, g])
                a = int(choices[int(rng.integers(len(choices)))])
            else:
                a = int(keep[min(best, keep.shape[0] - 1) if keep.shape[0] > 1 else 0, f, score, g])
            kept = faces[:a]
            score += int(rs.cost[g, a])
            say(f"   rolled {text}: keeps {' '.join(map(str, kept)) or 'none (re-roll)'} -> score {score}")
            d, f = d - a, int(a == 0)
        finals.append(score)
        best = min(best, score)
    low = min(finals)
    winners = [f"seat {i + 1} ({p})" for i, (p, x) in enumerate(zip(players, finals)) if x == low]
    mine = finals[seat - 1]
    result = (f"scores {', '.join(f'{p} {x}' for p, x in zip(players, finals))}; lowest {low}: "
              f"{' and '.join(winners)}; you {'win' if mine == low else 'lose'}"
              f"{' (shared)' if mine == low and len(winners) > 1 else ''}")
    say(result)
    return Review("threes", result, tuple(decisions))


def _ask_faces(ask, say, d: int, faces: int) -> list[int]:
    while True:
        line = _read(ask, f"   your roll of {d} dice (faces 1..{faces}, e.g. {' '.join(['4', '3', '1', '1', '2', '6'][:d])}): ")
        got = [_number(x) for x in line.replace(",", " ").split()]
        if len(got) == d and all(x is not None and 1 <= x <= faces for x in got):
            return got
        say(f"   give {d} faces, each 1..{faces}")


def _your_keep(db, ask, say, faces, score, d, must_keep_two, best, m, variant, ties, legal_row, decisions, rules):
    to_beat = None if best == rules.no_target else best
    advice = None
    can_win = to_beat is None or score < to_beat or (score == to_beat and ties == "shared")
    if can_win and (to_beat is not None or m > 0):
        advice = db.threes.best(faces, variant=variant, score=score, to_beat=to_beat, players_after=m,
                                must_keep_two=must_keep_two, ties=ties)
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
        decisions.append(Decision(len(decisions) + 1, f"roll {' '.join(map(str, faces))} at score {score}",
                                  f"kept {a}", f"kept {len(top.keep)}", values[a], top.value))
    return a


# --------------------------------------------------------------------------- Great Rolled Ones
def play_rolled_ones(db, bot: str, seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                     variant: str | None = None, max_turns: int = 400) -> Review:
    from dicebase.bots.rolled_ones import RolledOnes

    engine = RolledOnes(db, variant)
    r = engine.rules
    G, D = r.goal, r.dice
    if seat not in (1, 2):
        raise BadInput(f"seat must be 1 or 2 (Great Rolled Ones has two players), got {seat}")
    table = engine.roll_table(bot)
    rng = np.random.default_rng(seed)
    score = [0, 0]
    decisions: list[Decision] = []
    p, final = 1, False
    for _ in range(max_turns):
        me, you = score[p - 1], score[2 - p]
        human = p == seat
        say(f"-- player {p} ({'you' if human else bot}): {me} against {you}" + (" (final turn: exceed it)" if final else ""))
        k, o = 0, 0
        bust = False
        while True:
            if final:
                roll = me + k <= you
            elif human and k > 0:
                roll = _your_roll(db, ask, say, p, me, you, k, o, engine.v.name, decisions, G)
            elif human:
                roll = True
            else:
                roll = bool(table[p - 1, min(me, G - 1), min(you, G - 1), min(k, engine.KT), o]) or k == 0
            if not roll:
                break
            if human and real_dice:
                ones = _ask_ones(ask, say, D - o)
                faces = None
            else:
                faces = [int(x) for x in rng.integers(1, r.faces + 1, size=D - o)]
                ones = faces.count(1)
            shown = " ".join(map(str, sorted(faces))) if faces else f"{ones} ones"
            if o + ones >= r.ones_limit:
                say(f"   rolled {shown}: {o + ones} ones, the turn ends with nothing")
                bust = True
                break
            k, o = k + (D - o - ones), o + ones
            say(f"   rolled {shown}: turn total {k}, {o} ones set aside")
        total = me if bust else me + k
        score[p - 1] = total
        if not bust:
            say(f"   holds: {total}")
        if final:
            break
        if total >= G:
            if p == 2:
                break
            final = True
        p = 3 - p
    s1, s2 = score
    winner = 2 if (s2 > s1 and (s2 >= G or final)) else 1
    result = f"player 1 {s1}, player 2 {s2}: player {winner} wins; you {'win' if winner == seat else 'lose'}"
    say(result)
    return Review("rolled-ones", result, tuple(decisions))


def _ask_ones(ask, say, dice: int) -> int:
    while True:
        line = _read(ask, f"   how many 1s did your {dice} dice show? ")
        n = _number(line)
        if n is not None and 0 <= n <= dice:
            return n
        say(f"   give a whole number 0..{dice}")


def _your_roll(db, ask, say, p, me, you, k, o, variant, decisions, G) -> bool:
    advice = db.rolled_ones.best(p, me, you, k, o, variant=variant)
    while True:
        line = _read(ask, f"   turn total {k}, {o} ones: roll or hold (r/h; ? for advice): ")
        if line in ADVICE:
            say(f"     roll: p_win {advice.p_roll:.4f}; hold: p_win {advice.p_hold:.4f}; best: {advice.best}")
            continue
        if line in ("r", "roll", "h", "hold"):
            roll = line.startswith("r")
            break
        say("   answer r (roll) or h (hold)")
    chosen = advice.p_roll if roll else advice.p_hold
    decisions.append(Decision(len(decisions) + 1, f"score {me} vs {you}, turn total {k}, {o} ones",
                              "roll" if roll else "hold", advice.best, chosen, advice.p_win))
    return roll


# ------------------------------------------------------------------------------------ 10,000
def _keep_text(act) -> str:
    left = "hot dice: 6 dice again" if act.hot_dice else ("no dice left" if act.dice_after == 0
                                                          else f"{act.dice_after} dice left")
    triple = f", triple of {act.triple_after}s standing" if act.triple_after else ""
    return f"keep {' '.join(map(str, act.keep))} ({act.points} points; {left}{triple})"


def play_ten_thousand(db, bot: str, seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                      rules: str | None = None, max_turns: int = 400) -> Review:
    """You against one 10,000 bot (two players): after each of your rolls you choose a keep, then
    roll on or bank.  Advice and the review come from the stored two-player values: a keep's value
    is ``ten-thousand best`` (the state it leads to, played optimally), roll or bank ``ten-thousand
    state``.  In the last turn (the other player banked at or above the goal) you must end above it."""
    from dicebase.bots.ten_thousand import TenThousand

    engine = TenThousand(db, rules)
    name, G, u, D = engine.variant_name, engine.goal, engine.u, engine.start
    if seat not in (1, 2):
        raise BadInput(f"seat must be 1 or 2 (this 10,000 game has two players), got {seat}")
    bank_from = None if bot == "optimal" else engine.bank_from(bot)
    tt = db.ten_thousand
    rng = np.random.default_rng(seed)
    score = [0, 0]
    decisions: list[Decision] = []
    p, final = 1, False
    for _ in range(max_turns):
        me, you = score[p - 1], score[2 - p]
        human = p == seat
        say(f"-- player {p} ({'you' if human else bot}): {me} against {you}"
            + (" (last turn: end above it)" if final else ""))
        k, dice, triple, lost = 0, D, 0, False
        while True:
            if human and real_dice:
                faces = _ask_faces(ask, say, dice, 6)
            else:
                faces = [int(x) for x in rng.integers(1, 7, size=dice)]
            faces = sorted(faces)
            text = " ".join(map(str, faces))
            if human or bot == "optimal":
                best = tt.best(faces, turn_total=k, triple=triple, score=me, opponent=you, rules=name)
            else:
                best = tt.best(faces, turn_total=k, triple=triple, rules=name)
            if best.farkle:
                say(f"   rolled {text}: farkle, the turn ends with nothing")
                lost = True
                break
            if human:
                act = _your_keep_tt(ask, say, text, k, best, decisions)
            elif bot == "optimal":
                act = best.actions[0]
            else:  # seed 004's keep: the most dice, then the most points
                act = max(best.actions, key=lambda a: (len(a.keep), a.points))
            k += act.points
            dice, triple = (D if act.hot_dice else act.dice_after), act.triple_after
            say(f"   rolled {text}: {'you ' if human else ''}{_keep_text(act)} -> turn total {k}")
            if dice == 0:
                break  # every die scored without hot dice: the turn banks
            if final and me + k <= you:
                continue  # the last turn must end above the other player: roll on
            if human:
                roll = _your_roll_tt(ask, say, tt, name, me, you, k, dice, triple, decisions)
            elif final:
                roll = False  # above the other player: bank and win
            elif bot == "optimal":
                roll = tt.state(me, you, k, dice, triple, rules=name).action == "roll"
            else:
                roll = k < int(bank_from[engine.index[(dice, triple)]]) * u
            if not roll:
                break
        total = me if lost else me + k
        score[p - 1] = total
        if not lost:
            say(f"   banks: {total}")
        if final:
            break
        if total >= G:
            final = True
        p = 3 - p
    s1, s2 = score
    last = p  # the player who took the last turn
    winner = last if score[last - 1] > score[2 - last] else 3 - last
    result = f"player 1 {s1}, player 2 {s2}: player {winner} wins; you {'win' if winner == seat else 'lose'}"
    say(result)
    return Review("ten-thousand", result, tuple(decisions))


def _your_keep_tt(ask, say, text, k, best, decisions):
    shown = sorted(best.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
    say(f"   you rolled {text} (turn total {k}); your keeps:")
    for n, act in enumerate(shown, 1):
        say(f"     {n}: {_keep_text(act)}")
    while True:
        line = _read(ask, f"   keep which (1..{len(shown)}; ? for advice): ")
        if line in ADVICE:
            for act in best.actions:
                say(f"     option {shown.index(act) + 1}, keep {' '.join(map(str, act.keep))}: p_win {act.value:.4f} "
                    f"(then {act.then})")
            continue
        n = _number(line)
        if n is not None and 1 <= n <= len(shown):
            act = shown[n - 1]
            break
        say(f"   keep one of 1..{len(shown)}")
    top = best.actions[0]
    decisions.append(Decision(len(decisions) + 1, f"roll {text} at turn total {k}",
                              f"kept {' '.join(map(str, act.keep))}", f"kept {' '.join(map(str, top.keep))}",
                              act.value, top.value))
    return act


def _your_roll_tt(ask, say, tt, name, me, you, k, dice, triple, decisions) -> bool:
    advice = tt.state(me, you, k, dice, triple, rules=name)
    what = f"turn total {k}, {dice} dice" + (f", triple of {triple}s standing" if triple else "")
    while True:
        line = _read(ask, f"   {what}: roll or bank (r/b; ? for advice): ")
        if line in ADVICE:
            say(f"     roll: p_win {advice.roll_value:.4f}; bank: p_win {advice.bank_value:.4f}; best: {advice.action}")
            continue
        if line in ("r", "roll", "b", "bank"):
            roll = line.startswith("r")
            break
        say("   answer r (roll) or b (bank)")
    chosen = advice.roll_value if roll else advice.bank_value
    decisions.append(Decision(len(decisions) + 1, f"score {me} vs {you}, {what}", "roll" if roll else "bank",
                              advice.action, chosen, advice.p_win))
    return roll


# ------------------------------------------------------------------------- N players (both games)
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
    if not 1 <= seat <= n:
        raise BadInput(f"seat must be 1..{n} (you and {len(bots)} bots), got {seat}")
    return list(bots[: seat - 1]) + ["you"] + list(bots[seat - 1:])


def _label(players: list[str], m: int) -> str:
    return f"seat {m + 1} ({players[m]})"


def _result(players: list[str], score: list[int], seat: int) -> str:
    winner = max(range(len(score)), key=lambda m: score[m])  # unique: every final turn ends above the bar or not at all
    shown = ", ".join(f"{_label(players, m)} {x}" for m, x in enumerate(score))
    return f"{shown}: seat {winner + 1} wins; you {'win' if winner == seat - 1 else 'lose'}"


def play_rolled_ones_n(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                       variant: str | None = None, max_turns: int = 2000) -> Review:
    """You against two or more Great Rolled Ones bots: the N-player game of docs/n_players.md.

    Seats play in order; a turn that ends at or above the goal makes the round the last (the seats
    after it take one final turn, in which they may hold only above the highest score).  Advice and
    the review come from the N-player lookups (``rolled-ones best --scores``): every action with every
    seat's win probability, every seat playing the stored equilibrium after.  Bots: ``optimal`` plays
    the lookups' decision (a stored mixed decision drawn with its probability; beyond the turn-total
    bound it holds, as the model does); seed 002's policies play as ``dicebase tournament`` reads them
    for N players and on a final turn roll until above the bar, then hold."""
    q = db.rolled_ones
    players = _lineup(bots, seat)
    N = len(players)
    b = q.n.block(N, variant)  # NotInDatabase, with the rebuild command, where N players are not built
    r = b.rules
    G, K, D, L = b.goal, b.turn_total_bound, r.dice, r.ones_limit
    policies = _RolledOnesPolicies(b)
    rng = np.random.default_rng(seed)
    score = [0] * N
    decisions: list[Decision] = []
    ender = None
    m = 0
    for _ in range(max_turns):
        who = players[m]
        human = who == "you"
        final = ender is not None
        bar = max(score) if final else None
        say(f"-- {_label(players, m)}: scores {', '.join(map(str, score))}"
            + (f" (final turn: hold only above {bar})" if final else ""))
        k, o, bust = 0, 0, False
        while True:
            t = score[m] + k
            if k == 0 or (final and t <= bar):
                roll = True  # the first roll, or a final turn at or below the bar: it must roll
            elif not final and k > K:
                say(f"   turn total {k} is past the stored bound {K}: the turn holds (as the N-player model plays it)")
                roll = False
            elif human:
                roll = _your_roll_n(q, ask, say, b, score, m, k, o, decisions)
            elif who == "optimal":
                roll = _draw(rng, q.n.best(score, m + 1, k, o, variant=b.variant).roll_probability)
            elif final:
                roll = False  # seed 002's policies hold as soon as they are above the bar
            else:
                roll = policies.roll(who, N, m, score, k, o)
            if not roll:
                break
            if human and real_dice:
                ones, faces = _ask_ones(ask, say, D - o), None
            else:
                faces = [int(x) for x in rng.integers(1, r.faces + 1, size=D - o)]
                ones = faces.count(1)
            shown = " ".join(map(str, sorted(faces))) if faces else f"{ones} ones"
            if o + ones >= L:
                say(f"   rolled {shown}: {o + ones} ones, the turn ends with nothing")
                bust = True
                break
            k, o = k + (D - o - ones), o + ones
            say(f"   rolled {shown}: turn total {k}, {o} ones set aside")
        if not bust:
            score[m] += k
            say(f"   holds: {score[m]}")
        if not final and score[m] >= G:
            ender = m
            if m < N - 1:
                say(f"   seat {m + 1} reached {G}: seats {m + 2}..{N} take a final turn")
        if ender is not None and m == N - 1:
            break
        m = (m + 1) % N
    else:
        raise BadInput(f"the game did not end within {max_turns} turns")
    result = _result(players, score, seat)
    say(result)
    return Review("rolled-ones", result, tuple(decisions))


class _RolledOnesPolicies:
    """Seed 002's policies in seat m of N, read as the N-player build and ``dicebase tournament`` read them
    (:func:`dicebase.rules.rolled_ones_policies.human_decisions`: the last seat plays player 2's
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
            from dicebase.rules.rolled_ones_policies import POLICIES, human_decisions

            self.tables[key] = human_decisions(POLICIES[COLUMNS[bot]].rule, self.rules, N, m, self.KT)
        lead = max(s for n, s in enumerate(score) if n != m)
        return bool(self.tables[key][score[m], lead, k, o])


def _your_roll_n(q, ask, say, b, score, m, k, o, decisions) -> bool:
    advice = q.n.best(score, m + 1, k, o, variant=b.variant)
    if len(advice.actions) == 1:  # at the score cap of a final turn the model holds
        say(f"   turn total {k}: the turn {advice.actions[0].action}s (the only action the model has here)")
        return advice.actions[0].action == "roll"
    while True:
        line = _read(ask, f"   turn total {k}, {o} ones: roll or hold (r/h; ? for advice): ")
        if line in ADVICE:
            _advise(say, advice.actions, advice.best)
            continue
        if line in ("r", "roll", "h", "hold"):
            roll = line.startswith("r")
            break
        say("   answer r (roll) or h (hold)")
    chosen = next(a for a in advice.actions if a.action == ("roll" if roll else "hold"))
    decisions.append(Decision(len(decisions) + 1, f"scores {','.join(map(str, score))}, seat {m + 1}, turn total {k}, "
                                                  f"{o} ones", chosen.action, advice.best, chosen.p_win, advice.p_win,
                              {"lookup": "rolled-ones best", "scores": list(score), "player": m + 1, "turn_total": k,
                               "ones": o, "variant": b.variant}))
    return roll


def play_ten_thousand_n(db, bots: list[str], seat: int, ask, say, *, seed: int = 0, real_dice: bool = False,
                        rules: str | None = None, max_turns: int = 2000) -> Review:
    """You against two or more 10,000 bots: the N-player game of docs/n_players.md.

    Seats play in order; when a seat banks at or above the goal every other seat takes one final turn
    (in which it may bank only above the highest score).  After each roll you choose a keep, then roll
    on or bank.  Advice and the review come from the N-player lookups: a keep's value is ``ten-thousand
    best --scores`` (the state it leads to, every seat playing the stored equilibrium after), roll or
    bank ``ten-thousand state --scores``.  Bots: ``optimal`` plays the lookups' decisions
    (:class:`dicebase.bots.ten_thousand_n.TenThousandN`: stored mixed decisions drawn); ``seed004`` and
    ``bank-T`` keep the most dice, then the most points, bank at their thresholds, and on a final turn
    roll until above the bar, then bank (as in the two-player game)."""
    from dicebase.bots.ten_thousand_n import TenThousandN

    players = _lineup(bots, seat)
    N = len(players)
    engine = TenThousandN(db, rules, N)  # NotInDatabase, with the rebuild command, where N players are not built
    name, G, D = engine.variant_name, engine.goal, engine.dice
    fixed = {b: _FixedTenThousand(db, name, b, engine.rules) for b in set(bots) if b != "optimal"}
    tt = db.ten_thousand
    rng = np.random.default_rng(seed)
    score = [0] * N
    decisions: list[Decision] = []
    ender = None
    m = 0
    for _ in range(max_turns):
        who = players[m]
        human = who == "you"
        final = ender is not None
        bar = max(score) if final else None
        say(f"-- {_label(players, m)}: scores {', '.join(map(str, score))}"
            + (f" (last turn: bank only above {bar})" if final else ""))
        k, dice, triple, lost = 0, D, 0, False
        while True:
            if human and real_dice:
                faces = _ask_faces(ask, say, dice, 6)
            else:
                faces = [int(x) for x in rng.integers(1, 7, size=dice)]
            faces = sorted(faces)
            text = " ".join(map(str, faces))
            if human:
                keep = _your_keep_n(tt, ask, say, name, text, faces, score, m, k, triple, D, decisions)
            elif who == "optimal":
                keep = _optimal_keep(engine, rng, faces, score, m, k, triple)
            else:
                keep = fixed[who].keep(faces, triple)
            if keep is None:
                say(f"   rolled {text}: farkle, the turn ends with nothing")
                lost = True
                break
            points, dice, triple, shown = keep
            k += points
            say(f"   rolled {text}: {'you ' if human else ''}{shown} -> turn total {k}")
            if dice == 0:  # every die scored without hot dice: the turn ends, banked if it may
                lost = final and score[m] + k <= bar
                break
            if human:
                roll = _your_roll_tt_n(tt, ask, say, name, score, m, k, dice, triple, decisions)
            elif final and score[m] + k <= bar:
                roll = True  # a final turn at or below the bar must roll on
            elif who == "optimal":
                roll = _draw(rng, engine.roll_probability(tuple(score), m, k, dice, triple))
            elif final:
                roll = False  # above the bar: bank
            else:
                roll = fixed[who].rolls(k, dice, triple)
            if not roll:
                break
        if not lost:
            score[m] += k
            say(f"   banks: {score[m]}")
        if ender is None and score[m] >= G:
            ender = m
            say(f"   seat {m + 1} reached {G}: every other seat takes a last turn")
        m = (m + 1) % N
        if ender is not None and m == ender:
            break
    else:
        raise BadInput(f"the game did not end within {max_turns} turns")
    result = _result(players, score, seat)
    say(result)
    return Review("ten-thousand", result, tuple(decisions))


def _nkeep_text(keep: list[int], points: int, n: int, dice_after: int, triple_after: int, D: int) -> str:
    hot = len(keep) == n and dice_after == D
    left = f"hot dice: {D} dice again" if hot else ("no dice left" if dice_after == 0 else f"{dice_after} dice left")
    triple = f", triple of {triple_after}s standing" if triple_after else ""
    return f"keep {' '.join(map(str, keep))} ({points} points; {left}{triple})"


def _optimal_keep(engine, rng, faces, score, m, k, triple):
    pick = engine.draw_keep(tuple(faces), tuple(score), m, k, triple, rng)  # a stored mixing drawn
    if pick is None:
        return None
    _p, points, dice_after, triple_after = pick
    kept = _kept_faces(engine.rules, faces, triple, points, dice_after, triple_after)
    return points, dice_after, triple_after, _nkeep_text(kept, points, len(faces), dice_after, triple_after,
                                                         engine.dice)


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


def _your_keep_n(tt, ask, say, name, text, faces, score, m, k, triple, D, decisions):
    best = tt.n.best(faces, list(score), m + 1, k, triple, name)
    if best.farkle:
        return None
    shown = sorted(best.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
    texts = [_nkeep_text(a.keep, a.points, len(faces), a.dice_after, a.triple_after, D) for a in shown]
    say(f"   you rolled {text} (turn total {k}); your keeps:")
    for n, line in enumerate(texts, 1):
        say(f"     {n}: {line}")
    while True:
        line = _read(ask, f"   keep which (1..{len(shown)}; ? for advice): ")
        if line in ADVICE:
            for act in best.actions:
                say(f"     option {shown.index(act) + 1}, keep {' '.join(map(str, act.keep))}: p_win {act.p_win:.4f} "
                    f"({_seats_text(act.p_wins)}; then {act.then})")
            continue
        if _number(line) is not None and 1 <= _number(line) <= len(shown):
            n = _number(line) - 1
            break
        say(f"   keep one of 1..{len(shown)}")
    act, top = shown[n], best.actions[0]
    decisions.append(Decision(len(decisions) + 1, f"roll {text} at scores {','.join(map(str, score))}, seat {m + 1}, "
                                                  f"turn total {k}", f"kept {' '.join(map(str, act.keep))}",
                              f"kept {' '.join(map(str, top.keep))}", act.p_win, best.p_win,
                              {"lookup": "ten-thousand best", "roll": list(faces), "scores": list(score),
                               "player": m + 1, "turn_total": k, "triple": triple, "rules": name,
                               "option": n + 1}))
    return act.points, act.dice_after, act.triple_after, texts[n]


def _your_roll_tt_n(tt, ask, say, name, score, m, k, dice, triple, decisions) -> bool:
    advice = tt.n.state(list(score), m + 1, k, dice, triple, name)
    what = f"turn total {k}, {dice} dice" + (f", triple of {triple}s standing" if triple else "")
    if len(advice.actions) == 1:  # banking is not allowed here (a final turn at or below the bar)
        say(f"   {what}: you must {advice.actions[0].action}")
        return advice.actions[0].action == "roll"
    while True:
        line = _read(ask, f"   {what}: roll or bank (r/b; ? for advice): ")
        if line in ADVICE:
            _advise(say, advice.actions, advice.best)
            continue
        if line in ("r", "roll", "b", "bank"):
            roll = line.startswith("r")
            break
        say("   answer r (roll) or b (bank)")
    chosen = next(a for a in advice.actions if a.action == ("roll" if roll else "bank"))
    decisions.append(Decision(len(decisions) + 1, f"scores {','.join(map(str, score))}, seat {m + 1}, {what}",
                              chosen.action, advice.best, chosen.p_win, advice.p_win,
                              {"lookup": "ten-thousand state", "scores": list(score), "player": m + 1,
                               "turn_total": k, "dice": dice, "triple": triple, "rules": name}))
    return roll
