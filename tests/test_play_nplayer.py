"""``dicebase play`` with two or more bots (issue 23, item 5): Great Rolled Ones and 10,000 as N-player games.

The game is driven through its ``ask``/``say`` functions (and once through the real CLI's standard input):
the program's dice come from the seed, your own dice are typed in with ``real_dice``.  Every decision the
review lists is asked again of the N-player lookup it names (``rolled-ones best --scores``, ``ten-thousand
best/state --scores``): its cost must be that lookup's best value minus the value of the action taken, in the
mover's own win probability, exactly.  Turn order and the final round are read back from the game's lines
(docs/n_players.md: Great Rolled Ones ends after the last seat of the round in which a seat reached the goal,
10,000 after every other seat has taken one last turn).

Builds: the ones tests/test_web_nplayer_pages.py uses (Great Rolled Ones at goal 20 and the ten-thousand
preset at goal 250, both with 2 and 3 players; the same ``built_db`` options, so a run builds each once), and
the plain test builds (two players only) for the refusals.
"""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

import dicebase
from conftest import invoke_cli
from dicebase.bots.play import play
from dicebase.errors import BadInput, NotInDatabase

RO_OPTIONS = {"rolled_ones": {"goal": 20, "players": [2, 3]}}
TT_OPTIONS = {"ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": 250,
                               "players": [2, 3]}}


@pytest.fixture(scope="module")
def ro(built_db):
    path = built_db(("rolled_ones",), "duckdb", RO_OPTIONS)
    with dicebase.open(str(path)) as db:
        yield path, db


@pytest.fixture(scope="module")
def tt(built_db):
    path = built_db(("ten_thousand",), "duckdb", TT_OPTIONS)
    with dicebase.open(str(path)) as db:
        yield path, db


class Player:
    """A scripted player: ``answer(prompt)`` decides; '?' is asked first at every ``advise_every``-th prompt."""

    def __init__(self, answer, advise_every: int = 3):
        self.answer, self.every = answer, advise_every
        self.lines: list[str] = []
        self.prompts = 0
        self._advised = False

    def ask(self, prompt: str):
        self.lines.append(prompt)
        if not self._advised and self.prompts % self.every == 0:
            self._advised = True
            return "?"
        self._advised = False
        self.prompts += 1
        return self.answer(prompt)

    def say(self, text: str):
        self.lines.append(text)


def _turn_total(prompt: str) -> int:
    return int(re.search(r"turn total (\d+)", prompt).group(1))


def _turns(lines: list[str]) -> list[int]:
    """The seats (1-based) in the order their turns were played."""
    return [int(m.group(1)) for m in (re.match(r"-- seat (\d+) ", x) for x in lines) if m]


def _final_scores(result: str) -> list[int]:
    return [int(x) for x in re.findall(r"seat \d+ \([^)]*\) (\d+)", result.split(":")[0])]


def _check_order(turns: list[int], n: int) -> None:
    assert turns[0] == 1
    assert all(b == a % n + 1 for a, b in zip(turns, turns[1:])), turns


# --------------------------------------------------------------------------- Great Rolled Ones
def _ro_answer(prompt: str) -> str:
    """Hold at 8 or more (a poor rule at goal 20 now and then: some decisions cost), else roll."""
    return "h" if _turn_total(prompt) >= 8 else "r"


@pytest.mark.parametrize("seat,seed", [(1, 11), (2, 1), (3, 10)])
def test_rolled_ones_three_players_costs_are_the_lookups(ro, seat, seed):
    path, db = ro
    you = Player(_ro_answer)
    review = play(db, "rolled-ones", ["optimal", "optimal"], seat, you.ask, you.say, seed=seed)
    lines = you.lines
    turns = _turns(lines)
    _check_order(turns, 3)
    assert turns[-1] == 3  # the round in which a seat reaches the goal is the last: it ends with seat 3
    scores = _final_scores(review.result)
    assert len(scores) == 3 and max(scores) >= 20 and scores.count(max(scores)) == 1
    winner = scores.index(max(scores)) + 1
    assert f"seat {winner} wins" in review.result
    assert review.result.endswith("you win" if winner == seat else "you lose")
    assert review.decisions
    for d in review.decisions:
        at = d.lookup
        assert at["lookup"] == "rolled-ones best" and at["player"] == seat
        st = db.rolled_ones.n.best(at["scores"], at["player"], at["turn_total"], at["ones"])
        chosen = next(a for a in st.actions if a.action == d.chose)
        assert d.p_chose == chosen.p_win and d.p_best == st.p_win and d.best == st.best
        assert d.cost == max(0.0, st.p_win - chosen.p_win)
    assert review.total_cost == pytest.approx(sum(d.cost for d in review.decisions), abs=1e-15)
    # the advice: every action with every seat's win probability, as the lookup gives them
    first = review.decisions[0].lookup
    st = db.rolled_ones.n.best(first["scores"], first["player"], first["turn_total"], first["ones"])
    for a in st.actions:
        shown = f"     {a.action}: p_win {a.p_win:.4f} (" + ", ".join(
            f"seat {n} {x:.4f}" for n, x in enumerate(a.p_wins, 1)) + ")"
        assert shown in lines


def test_rolled_ones_a_costly_decision_and_the_final_round(ro):
    """Holding at every chance (turn total 2 or more) gives chance away: some decision costs; a seat
    that reached the goal before the last seat leaves the later seats a final turn each."""
    path, db = ro
    you = Player(lambda p: "h", advise_every=10**6)
    review = play(db, "rolled-ones", ["optimal", "optimal"], 1, you.ask, you.say, seed=2)
    assert any(d.cost > 1e-6 for d in review.decisions)
    for d in review.decisions:
        at = d.lookup
        st = db.rolled_ones.n.best(at["scores"], at["player"], at["turn_total"], at["ones"])
        assert d.cost == max(0.0, st.p_win - next(a.p_win for a in st.actions if a.action == "hold"))


def test_rolled_ones_final_turns_roll_to_the_bar(ro):
    """Every seed's game: in the final round a seat that holds holds above the highest score before it."""
    path, db = ro
    for seed in range(6):
        you = Player(_ro_answer, advise_every=10**6)
        play(db, "rolled-ones", ["optimal", "fixed-hold-at"], 2, you.ask, you.say, seed=seed)
        final = False
        for line in you.lines:
            m = re.search(r"final turn: hold only above (\d+)", line)
            if m:
                final, bar = True, int(m.group(1))
            h = re.match(r"   holds: (\d+)", line)
            if h and final:
                assert int(h.group(1)) > bar


def test_rolled_ones_real_dice(ro):
    path, db = ro
    answers = iter(["0", "0", "h"] * 200)
    lines: list[str] = []

    def ask(prompt):
        lines.append(prompt)
        return next(answers)

    review = play(db, "rolled-ones", ["optimal", "optimal"], 1, ask, lines.append, seed=1, real_dice=True)
    assert "how many 1s did your 5 dice show?" in lines[1]
    assert "   rolled 0 ones: turn total 5, 0 ones set aside" in lines
    assert review.decisions and review.decisions[0].lookup["turn_total"] == 5


# --------------------------------------------------------------------------------------- 10,000
def _tt_answer(prompt: str) -> str:
    """The first keep listed (the most points), roll on below 350, then bank."""
    if "keep which" in prompt:
        return "1"
    return "b" if _turn_total(prompt) >= 350 else "r"


@pytest.mark.parametrize("seat,seed", [(1, 1), (3, 8)])
def test_ten_thousand_three_players_costs_are_the_lookups(tt, seat, seed):
    path, db = tt
    you = Player(_tt_answer)
    review = play(db, "ten-thousand", ["optimal", "optimal"], seat, you.ask, you.say, seed=seed)
    turns = _turns(you.lines)
    _check_order(turns, 3)
    reached = next(int(m.group(1)) for m in (re.match(r"   seat (\d+) reached 250", x) for x in you.lines) if m)
    last = turns[len(turns) - 1 - turns[::-1].index(reached):]  # the ender's turn, then every other seat's
    assert len(last) == 3 and turns[-1] == (reached - 2) % 3 + 1
    scores = _final_scores(review.result)
    assert f"seat {scores.index(max(scores)) + 1} wins" in review.result and scores.count(max(scores)) == 1
    kinds = {d.lookup["lookup"] for d in review.decisions}
    assert kinds == {"ten-thousand best", "ten-thousand state"}
    for d in review.decisions:
        at = d.lookup
        if at["lookup"] == "ten-thousand best":
            b = db.ten_thousand.n.best(at["roll"], at["scores"], at["player"], at["turn_total"], at["triple"])
            shown = sorted(b.actions, key=lambda a: (-a.points, -len(a.keep), a.keep))
            assert d.p_chose == shown[at["option"] - 1].p_win and d.p_best == b.p_win
            assert d.cost == max(0.0, b.p_win - shown[at["option"] - 1].p_win)
        else:
            st = db.ten_thousand.n.state(at["scores"], at["player"], at["turn_total"], at["dice"], at["triple"])
            chosen = next(a for a in st.actions if a.action == d.chose)
            assert d.p_chose == chosen.p_win and d.p_best == st.p_win
            assert d.cost == max(0.0, st.p_win - chosen.p_win)
    assert any(d.cost > 1e-6 for d in review.decisions)  # banking at 350 regardless gives chance away
    assert any(re.match(r"     option \d+, keep .*: p_win 0\.\d{4} \(seat 1 .*, seat 3 .*; then ", x)
               for x in you.lines)


def test_ten_thousand_mixed_lineup_and_real_dice(tt):
    """seed004 beside an optimal bot; your dice typed in (a farkle, then six 1s: hot dice)."""
    path, db = tt
    answers = iter(["2 2 3 3 4 6", "1 1 1 1 1 1", "1", "b"] + ["1 1 1 1 1 1", "1", "b"] * 30)
    lines: list[str] = []

    def ask(prompt):
        lines.append(prompt)
        return next(answers)

    review = play(db, "ten-thousand", ["seed004", "optimal"], 1, ask, lines.append, seed=1, real_dice=True)
    assert "   rolled 2 2 3 3 4 6: farkle, the turn ends with nothing" in lines
    assert any("hot dice: 6 dice again" in x for x in lines)
    assert "seat 2 (seed004)" in review.result


# ------------------------------------------------------------------------------------ the CLI
def _play(args, lines):
    saved = sys.stdin
    sys.stdin = io.StringIO("".join(f"{x}\n" for x in lines))
    try:
        code, out, err = invoke_cli(["play", *map(str, args)])
    finally:
        sys.stdin = saved
    return code, out + err if code == 0 else err


def test_cli_three_players_json_and_text(ro, tt):
    ro_path, _ = ro
    code, out = _play(["rolled-ones", "--bots", "optimal,optimal", "--seat", "2", "--seed", "11", "--db", ro_path,
                       "--json"], ["r", "r", "h"] * 300)
    assert code == 0, out
    doc = json.loads(out)
    assert doc["game"] == "rolled-ones" and doc["seed"] == 11 and "seat 3 (optimal)" in doc["result"]
    assert doc["decisions"] and all(d["lookup"]["lookup"] == "rolled-ones best" for d in doc["decisions"])
    code, text = _play(["rolled-ones", "--bots", "optimal,optimal", "--seat", "2", "--seed", "11", "--db", ro_path],
                       ["r", "r", "h"] * 300)
    assert code == 0 and f"Review: {len(doc['decisions'])} decisions" in text and "-- seat 3 (optimal)" in text
    tt_path, _ = tt
    code, text = _play(["ten-thousand", "--bots", "optimal,optimal", "--seat", "3", "--seed", "2", "--db", tt_path],
                       ["?", "1", "?", "b"] + ["1", "b"] * 200)
    assert code == 0, text
    assert "option 1, keep" in text and "roll: p_win" in text and "bank: p_win" in text and "Review:" in text


def test_refusals_are_one_line(built_db, ro, tt):
    plain_ro, plain_tt = built_db(("rolled_ones",)), built_db(("ten_thousand",))
    for args in (["rolled-ones", "--bots", "optimal,optimal", "--db", plain_ro],
                 ["ten-thousand", "--bots", "optimal,optimal", "--db", plain_tt],
                 ["rolled-ones", "--bots", "optimal,optimal,optimal", "--db", ro[0]],
                 ["ten-thousand", "--bots", "optimal,optimal,optimal", "--db", tt[0]]):
        code, err = _play(args, [])
        assert code != 0 and len(err.strip().splitlines()) == 1, err
        assert "players are not built" in err and "rebuild with: dicebase build" in err, err
    code, err = _play(["rolled-ones", "--bots", "optimal,seed004", "--db", ro[0]], [])
    assert code == 2 and "unknown rolled-ones bot 'seed004' (it is a ten-thousand bot)" in err
    code, err = _play(["ten-thousand", "--bots", "optimal,optimal", "--seat", "4", "--db", tt[0]], [])
    assert code == 2 and "seat must be 1..3 (you and 2 bots), got 4" in err
    with dicebase.open(str(plain_ro)) as db, pytest.raises(NotInDatabase):
        play(db, "rolled-ones", ["optimal", "optimal"], 1, None, None)
    with pytest.raises(BadInput, match="the input ended before the game did"):
        play(ro[1], "rolled-ones", ["optimal", "optimal"], 1, lambda p: None, lambda t: None)


def test_any_answers_any_lineup_end_in_a_winner(ro, tt):
    """Random answers (advice asked now and then), random lineups, three seats: every game ends with one winner,
    the last turn where the rules put it, and every reviewed decision valued by its lookup."""
    import random

    rnd = random.Random(23)

    def ro_answer(prompt):
        return rnd.choice(["r", "h", "r", "?"])

    def tt_answer(prompt):
        if "keep which" in prompt:
            return str(rnd.randint(1, int(re.search(r"\(1\.\.(\d+)", prompt).group(1))))
        return rnd.choice(["r", "b", "r", "?"])

    ro_bots = ["optimal", "fixed-hold-at", "keep-pace-end-race", "simple-ones-cases", "roll-4-or-5-dice"]
    for seed in range(20):
        for game, (path, db), bots, answer in (
                ("rolled-ones", ro, [rnd.choice(ro_bots) for _ in range(2)], ro_answer),
                ("ten-thousand", tt, [rnd.choice(["optimal", "optimal", "seed004", "bank-300"]) for _ in range(2)],
                 tt_answer)):
            lines: list[str] = []
            seat = 1 + seed % 3
            review = play(db, game, bots, seat, lambda p: (lines.append(p), answer(p))[1], lines.append, seed=seed)
            turns = _turns(lines)
            _check_order(turns, 3)
            scores = _final_scores(review.result)
            assert scores.count(max(scores)) == 1 and f"seat {scores.index(max(scores)) + 1} wins" in review.result
            if game == "rolled-ones":
                assert turns[-1] == 3
            else:
                reached = next(int(m.group(1)) for m in (re.match(r"   seat (\d+) reached", x) for x in lines) if m)
                assert turns[-1] == (reached - 2) % 3 + 1
            assert all(0.0 <= d.p_chose <= d.p_best + 1e-12 <= 1.0 + 1e-12 for d in review.decisions)
