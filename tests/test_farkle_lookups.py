"""Issue 24, the read side: lookups, the fair compensation, the rules command and the page know the Farkle
family's options (docs/farkle.md, "In the database").

Every answer is checked against the solver's own values at a small goal, on both stores: the one-turn
lookups of zilch-playr (bank minimum, no-score bonus, consecutive-farkle penalty) and of a rule set
without hot dice that has a bank minimum; the two-player lookups of minimal-farkle's rules (first to the
goal wins) with compensation; the fair compensation against a brute-force search over the solver's
turn-start values.
Minimal Farkle's published 200 points is the full game's figure (tests/test_farkle_solvers.py).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from functools import lru_cache

import pytest

import dicebase
from dicebase.rules.ten_thousand import (
    MINIMAL_FARKLE, NO_DICE, PRESETS, TEN_THOUSAND, legal_keeps, roll_multisets, to_file, turn_states,
    two_player_refusal,
)

GOAL = 500  # the two-player goal of this build (10 x 10 score pairs)
NO_HOT = replace(TEN_THOUSAND, name="no-hot-500", hot_dice=False, bank_minimum=500,
                 description="seed 004's scoring without hot dice, 500 points needed to bank")
# minimal-farkle's rules (first to the goal wins) to 500 points, the second player starting with 100: the
# one two-player game of this build (a rules file with two_player = true is solved to its own goal)
COMPENSATED = replace(MINIMAL_FARKLE, name="mf-comp", goal=GOAL, compensation=100,
                      description="Minimal Farkle to 500 in which the second player starts with 100 points")
# the same with a bank minimum of 300 and the must-exceed last turn (what that turn needs grows to the bank
# minimum), built and tested once the two-player solve models a bank minimum
BANKED = replace(MINIMAL_FARKLE, name="mf-bank", goal=GOAL, bank_minimum=300,
                 last_round="others_one_turn_must_exceed",
                 description="Minimal Farkle's scoring to 500, 300 points needed to bank, a must-exceed last turn")
# shared last-turn ties with a bank minimum of 150: a last turn begun 150 or more behind can bank a tie (half a win,
# ten_thousand_last_turn), a smaller deficit must reach 150 (ten_thousand_exceed)
TIED = replace(MINIMAL_FARKLE, name="mf-tie", goal=GOAL, bank_minimum=150, last_round="others_one_turn_ties_shared",
               description="Minimal Farkle's scoring to 500, 150 points needed to bank, last-turn ties shared")
DUELS = [COMPENSATED] + ([BANKED] if two_player_refusal(BANKED) is None else []) + [TIED]
OPTIONS = {"ten_thousand": {
    "rules": ["zilch-playr", NO_HOT.name, *(rs.name for rs in DUELS)],
    "duel_rules": [],
    "goal": GOAL,
    "house_rules": {NO_HOT.name: to_file(NO_HOT), **{rs.name: to_file(rs, two_player=True) for rs in DUELS}},
}}
STORES = ("duckdb", "sqlite")


@pytest.fixture(scope="module")
def paths(built_db):
    return {kind: built_db(("ten_thousand",), kind, OPTIONS) for kind in STORES}


def _open(paths, kind):
    return dicebase.open(paths[kind] if kind == "duckdb" else f"sqlite:///{paths[kind]}")


def _solver_record(db, rules: str) -> dict:
    return next(v["solver"] for v in db.info()["variants"] if v["variant"] == rules)


def _name(counts) -> list[int]:
    return [f for f, c in enumerate(counts, start=1) for _ in range(c)]


# --------------------------------------------------------------------------- the one-turn lookups
class Turn:
    """The solver's one-turn values of a rule set, in points: ``value(k, (n, t))`` and whether it rolls
    there, past the bound as the solver extends them (bank; the all-dice class of a no-score bonus rolls
    on, worth k + c); a keep's value and what follows it as ``best`` must report them."""

    def __init__(self, rs, farkle_points: float):
        from dicebase.builder.ten_thousand import solitaire
        from dicebase.numeric.ten_thousand_turn import transitions

        self.rs, self.farkle = rs, farkle_points
        self.sol = solitaire.solve(rs, farkle_value=farkle_points / rs.unit)
        self.states = turn_states(rs)
        s6 = solitaire.bonus_class(rs)
        self.s6 = s6
        self.c = solitaire.bonus_chain(solitaire.flatten(transitions(rs)), s6) if s6 is not None else 0.0

    def keep(self, k: int, kp) -> tuple[float, str]:
        u, rs = self.rs.unit, self.rs
        ku, s = (k + kp.points) // u, self.states.index((kp.n_after, kp.t_after))
        if ku <= self.sol.bound:
            value, rolls = float(self.sol.value[ku, s]) * u, bool(self.sol.roll[ku, s])
        else:
            value, rolls = (ku + (self.c if s == self.s6 else 0.0)) * u, s == self.s6
        if (kp.n_after, kp.t_after) == NO_DICE:
            return value, "lost" if k + kp.points < rs.bank_minimum else "bank"
        return value, "roll" if rolls else "bank"


@lru_cache(maxsize=None)
def _zilch_turn(farkle_values: tuple, relative: tuple) -> Turn:
    """zilch-playr's count-0 turn at the stored farkle value, after checking that the stored relative values
    are the average-reward solve's fixed point: one turn per count at its farkle value gives the same gain
    (T h - h constant within 1e-8 points) and the farkle values follow from h (docs/farkle.md)."""
    from dicebase.builder.ten_thousand import solitaire
    import numpy as np

    rs = PRESETS["zilch-playr"]
    h = np.array(relative)
    assert np.allclose(solitaire.penalty_farkle_values(rs, h), farkle_values, rtol=0, atol=1e-12)
    turns = [Turn(rs, f) for f in farkle_values]
    gain = [t.sol.value[0, 0] * rs.unit - h[c] for c, t in enumerate(turns)]
    assert max(gain) - min(gain) <= 1e-8 and round(gain[0], 3) == 620.855  # Busche 2010's figure (seed of #24)
    return turns[0]


def _sampled_turn_states(db, rules: str, bound: int, rolls_per_class: int):
    """(k, dice counts, n, t) to ask: every class at turn totals below and at the bank minimum, around the
    stored bound and past it; all rolls of up to 3 dice, a fixed sample of more."""
    rng = random.Random(24)
    rs = PRESETS.get(rules) or NO_HOT
    for (n, t), (_pf, low) in sorted(db.ten_thousand.classes(rules).items()):
        low = 0 if low is None else low
        ks = sorted({k for k in (low, low + 50, 250, 300, 350, 450, bound - 100, bound, bound + 200)
                     if k >= max(low, 0) and (k > 0 or (n, t) == (rs.dice, 0))})
        rolls = [counts for counts, _ways in roll_multisets(n)]
        if len(rolls) > rolls_per_class:
            rolls = rng.sample(rolls, rolls_per_class)
        for k in ks:
            for counts in rolls:
                yield k, counts, n, t


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.parametrize("rules", ["zilch-playr", NO_HOT.name])
def test_best_one_turn_equals_the_solver(paths, kind, rules):
    """Every keep's value and what follows it (roll, bank, lost) as the solver has them: below the bank
    minimum the turn must go on, a keep of every die without hot dice below it loses the turn, past the
    stored bound the bonus's all-dice class rolls on (k + c), and with the penalty a farkle is worth the
    relative value of one farkle in a row."""
    with _open(paths, kind) as db:
        record = _solver_record(db, rules)["solitaire"]
        if rules == "zilch-playr":
            turn = _zilch_turn(tuple(record["farkle_values_points"]), tuple(record["relative_values_points"]))
            objective, rolls = "average_reward_turn_value", 25
        else:
            turn, objective, rolls = Turn(NO_HOT, 0.0), "expected_banked_points", 12
        rs, bound = turn.rs, record["bank_bound_points"]
        assert bound == turn.sol.bound * rs.unit
        checked = {"lost": 0, "bonus past the bound": 0, "below the bank minimum": 0}
        for k, counts, n, t in _sampled_turn_states(db, rules, bound, rolls):
            answer = db.ten_thousand.best(_name(counts), turn_total=k, triple=t, rules=rules)
            assert answer.objective == objective
            keeps = legal_keeps(rs, counts, n, t)
            if not keeps:
                assert answer.farkle and answer.value == pytest.approx(turn.farkle, abs=1e-9)
                continue
            got = {tuple(a.keep): (a.value, a.then) for a in answer.actions}
            assert sorted(got) == sorted(tuple(_name(kp.kept)) for kp in keeps), (k, counts)
            for kp in keeps:
                value, then = turn.keep(k, kp)
                keep = tuple(_name(kp.kept))
                assert got[keep][0] == pytest.approx(value, abs=1e-9), (rules, k, counts, keep)
                assert got[keep][1] == then, (rules, k, counts, keep)
                checked["lost"] += then == "lost"
                checked["bonus past the bound"] += k + kp.points > bound and kp.n_after == rs.dice and then == "roll"
                checked["below the bank minimum"] += then == "roll" and k + kp.points < rs.bank_minimum
            assert answer.value == pytest.approx(max(turn.keep(k, kp)[0] for kp in keeps), abs=1e-9)
    assert checked["below the bank minimum"] > 0
    if rules == NO_HOT.name:
        assert checked["lost"] > 0
    else:
        assert checked["bonus past the bound"] > 0


def test_thresholds_know_the_bank_minimum(paths):
    """The one-turn bank thresholds of a rule set with a bank minimum never bank below it."""
    with _open(paths, "duckdb") as db:
        for rules, least in (("zilch-playr", 300), (NO_HOT.name, 500)):
            rows = db.ten_thousand.thresholds(rules)
            assert rows and all(r.bank_from is None or r.bank_from >= least for r in rows)
            # zilch-playr: six dice never bank (the no-score bonus makes every roll of six dice worth taking)
        assert [r.bank_from for r in db.ten_thousand.thresholds("zilch-playr") if r.dice == 6] == [None]


# --------------------------------------------------------------------------- two players
@lru_cache(maxsize=None)
def _duel(name: str = COMPENSATED.name):
    """The solver's every state (rows='all') of the two-player game: {(i, j, k, s) units: (p_win, roll)}."""
    from dicebase.builder.ten_thousand import twoplayer

    rs = next(r for r in DUELS if r.name == name)
    d = twoplayer.solve(rs, GOAL // rs.unit, heuristic=False, rows="all")
    table = {(int(i), int(j), int(k), int(s)): (float(p), bool(r))
             for i, j, k, s, p, r in zip(d.i, d.j, d.k, d.s, d.p_win, d.roll)}
    return rs, d, table


@lru_cache(maxsize=None)
def _last_turn_values(name: str):
    """The solver's worth of the last turn at its start by the deficit d (units), twoplayer.last_turn_values:
    E(max(d + 1, bank minimum)) must-exceed, the tie-aware Q(d) where a tie can be banked, 0 with no last round."""
    from dicebase.builder.ten_thousand import twoplayer

    return twoplayer.last_turn_values(next(r for r in DUELS if r.name == name), 2000)


@lru_cache(maxsize=None)
def _tie_table(name: str):
    from dicebase.builder.ten_thousand import twoplayer

    return twoplayer.tie_table(next(r for r in DUELS if r.name == name), 400)


def _bank(rs, d, i, j, k) -> float:
    """Banking k at (i, j) (units): the opponent's turn start below the goal; at or past it a win under
    first_to_goal_wins, else 1 - the opponent's last turn (twoplayer.last_turn_values: it must gain more than
    the lead and at least the bank minimum, or with ties shared also tie for half a win)."""
    if i + k < d.goal:
        return 1.0 - float(d.W[j, i + k])
    return 1.0 - float(_last_turn_values(rs.name)[i + k - j])


def _last_turn(rs, d, D: int, k: int, s: int) -> float:
    """The last-turn player's value (units) begun D behind with turn total k in class s: must exceed (and reach
    the bank minimum) by the exceed table E; with ties shared and D at least the bank minimum the tie table Q."""
    bm = -(-rs.bank_minimum // rs.unit)
    if rs.last_round == "others_one_turn_ties_shared" and D >= bm:
        return 1.0 if D - k < 0 else float(_tie_table(rs.name)[D - k, s])
    need = max(D + 1 - k, bm - k)
    return 1.0 if need <= 0 else float(d.exceed[need, s])


def _duel_value(rs, d, table, i, j, k, s) -> tuple[float, bool]:
    """P(i, j, k, s) (units) and whether rolling is optimal: a solved state, else banking (forced past the
    solved turn totals)."""
    if (i, j, k, s) in table:
        return table[(i, j, k, s)]
    assert k > d.kmax[i, j], (i, j, k, s)
    return _bank(rs, d, i, j, k), False


@pytest.mark.parametrize("kind", STORES)
@pytest.mark.parametrize("rules", [COMPENSATED.name, BANKED.name, TIED.name])
def test_state_and_best_two_players(paths, kind, rules):
    """minimal-farkle's rules: every state's win probability, action, bank value and roll value, and every
    keep's value, as the solver has them.  mf-comp (first_to_goal_wins): a bank at the goal is worth 1 (the
    opponent has no last turn), and an opponent at the goal is no state of the game.  mf-bank: no bank below
    300, and the last turn needs more than the lead and at least 300."""
    if rules not in [rs.name for rs in DUELS]:
        pytest.skip(f"the two-player solve does not model {rules} yet: {two_player_refusal(BANKED)}")
    rs, d, table = _duel(rules)
    u, G, states = rs.unit, d.goal, turn_states(rs)
    rng = random.Random(7)
    with _open(paths, kind) as db:
        classes = db.ten_thousand.classes(rules)
        asked = [(i, j, 0, 6) for i in range(G) for j in range(G) if (i + j) % 3 == 0]
        for _ in range(150):
            n = rng.randint(1, 6)
            asked.append((rng.randrange(G), rng.randrange(G), rng.randrange(classes[(n, 0)][1] // u, 25), n))
        low = {n: max(1, classes[(n, 0)][1] // u) for n in range(1, 7)}
        asked += [(G - low[3], 0, low[3], 3), (G - 1, G - 1, low[1], 1), (0, G - 1, 10, 6)]  # banking at the goal
        bank_wins = 0
        for i, j, k, n in asked:
            s = states.index((n, 0))
            p, rolls = _duel_value(rs, d, table, i, j, k, s)
            st = db.ten_thousand.state(i * u, j * u, k * u, n, rules=rules)
            assert st.p_win == pytest.approx(p, abs=1e-12) and st.action == ("roll" if rolls else "bank"), st
            if k > 0 and k * u >= rs.bank_minimum:
                assert st.bank_value == pytest.approx(_bank(rs, d, i, j, k), abs=1e-12)
                bank_wins += i + k >= G
            else:
                assert st.bank_value is None
            if rolls:
                assert st.roll_value == st.p_win
                continue
            # a bank state's roll value by brute force: every roll's best keep at the solver's values, a farkle
            # handing the opponent the turn
            roll = 0.0
            for counts, ways in roll_multisets(n):
                keeps = legal_keeps(rs, counts, n, 0)
                best = max((_duel_value(rs, d, table, i, j, k + kp.points // u, states.index((kp.n_after, kp.t_after)))[0]
                            for kp in keeps), default=1.0 - float(d.W[j, i]))
                roll += ways / 6**n * best
            assert st.roll_value == pytest.approx(roll, abs=1e-12), st
        assert bank_wins >= 3
        # best: a sample of rolls at sampled states
        for i, j, k, n in asked[::7]:
            for counts, _ways in roll_multisets(n)[::9]:
                answer = db.ten_thousand.best(_name(counts), turn_total=k * u, score=i * u, opponent=j * u,
                                              rules=rules)
                for a in answer.actions:
                    kp = next(x for x in legal_keeps(rs, counts, n, 0) if _name(x.kept) == a.keep)
                    p, rolls = _duel_value(rs, d, table, i, j, k + kp.points // u,
                                           states.index((kp.n_after, kp.t_after)))
                    assert a.value == pytest.approx(p, abs=1e-12) and a.then == ("roll" if rolls else "bank")
        if rs.last_round == "first_to_goal_wins":
            with pytest.raises(dicebase.BadInput, match="wins at once: no last turn"):
                db.ten_thousand.state(0, GOAL, 0, 6, rules=rules)
            return
        # the last turn: the opponent has banked j >= goal; win by ending above it with at least the bank minimum
        # (mf-tie: or tie for half a win where the deficit is at least the bank minimum)
        ties = rs.last_round == "others_one_turn_ties_shared"
        last = [(0, G, 0, 6), (G - 1, G, 2, 6), (G - 2, G + 1, 6, 6), (G - 1, G, 3, 3), (0, G + 4, 8, 2),
                (G - 4, G, 4, 2), (G - 3, G, 3, 3), (G - 6, G, 6, 6), (G - 5, G, 5, 1), (G - 5, G, 3, 3),
                (G - 2, G + 2, 3, 4), (G - 2, G, 2, 4)]
        checked = {"tied now": 0, "bank the tie": 0}
        for i, j, k, n in last:
            if k and k * u < classes[(n, 0)][1]:
                continue
            s = states.index((n, 0))
            st = db.ten_thousand.state(i * u, j * u, k * u, n, rules=rules)
            want = _last_turn(rs, d, j - i, k, s)
            assert st.last_turn and st.p_win == pytest.approx(want, abs=1e-12), (st, want)
            if ties and j - i == k and k * u >= rs.bank_minimum:  # tied now: bank the tie unless a roll wins more
                checked["tied now"] += 1
                assert st.bank_value == 0.5 and st.action == ("bank" if want == 0.5 else "roll"), st
            # every keep of every roll of the class, valued by the solver
            for counts, _ways in roll_multisets(n):
                keeps = legal_keeps(rs, counts, n, 0)
                if not keeps:
                    continue
                answer = db.ten_thousand.best(_name(counts), turn_total=k * u, score=i * u, opponent=j * u, rules=rules)
                assert answer.last_turn
                for a in answer.actions:
                    kp = next(x for x in keeps if _name(x.kept) == a.keep)
                    s2 = states.index((kp.n_after, kp.t_after))
                    k2 = k + kp.points // u
                    if (kp.n_after, kp.t_after) == NO_DICE:  # no hot dice: the turn ends with this total
                        want = 1.0 if k2 > j - i else (0.5 if ties and k2 == j - i and j - i >= -(-rs.bank_minimum // u) else 0.0)
                    else:
                        want = _last_turn(rs, d, j - i, k2, s2)
                    assert a.value == pytest.approx(want, abs=1e-12), (i, j, k, counts, a)
                    checked["bank the tie"] += ties and k2 == j - i and a.then == "bank"
        if ties:
            assert checked["tied now"] >= 1 and checked["bank the tie"] >= 1, checked


@pytest.mark.parametrize("kind", STORES)
def test_two_player_lookups_refuse_what_they_cannot_answer(paths, kind):
    """zilch-playr's two-player game is not built: the lookups say why the solver refuses it (not a rebuild
    command that would fail), or, once the solver takes it, the command that adds it."""
    why = two_player_refusal(PRESETS["zilch-playr"])
    with _open(paths, kind) as db:
        for ask in (lambda: db.ten_thousand.state(0, 0, 0, 6, rules="zilch-playr"),
                    lambda: db.ten_thousand.compensation(rules="zilch-playr")):
            with pytest.raises(dicebase.NotInDatabase) as got:
                ask()
            assert (why in str(got.value)) if why else ("add it with" in str(got.value))


# --------------------------------------------------------------------------- the fair compensation
def _fairest(W, G: int, u: int):
    """Brute force over the solver's turn starts: every start with one player at 0 (the first to move),
    fairest first (|p - 1/2|, then the smaller compensation, then the second player compensated)."""
    starts = [(abs(float(W[a, b]) - 0.5), a + b, a, b) for a in range(G) for b in range(G) if a == 0 or b == 0]
    return [(a * u, b * u, float(W[a, b]), e) for e, _total, a, b in sorted(starts)]


@pytest.mark.parametrize("kind", STORES)
def test_fair_compensation_equals_a_brute_force_search(paths, kind):
    rs, d, _table = _duel()
    rules = rs.name
    u, G = rs.unit, d.goal
    fair = _fairest(d.W, G, u)
    with _open(paths, kind) as db:
        answer = db.ten_thousand.compensation(rules=rules)
        assert answer.scores == fair[0][:2] and answer.compensated_seat == 2  # the second player is behind
        assert answer.p_wins[0] == pytest.approx(fair[0][2], abs=1e-12)
        assert answer.p_wins[0] + answer.p_wins[1] == pytest.approx(1.0, abs=1e-15)
        assert [(a, b) for a, b, _p, _e in answer.nearest] == [f[:2] for f in fair[:5]]
        assert answer.uncompensated[0] == pytest.approx(float(d.W[0, 0]), abs=1e-12)
        assert answer.deviation < answer.uncompensated_deviation
        c = rs.compensation
        assert answer.rules_compensation == c
        assert answer.rules_p_wins[0] == pytest.approx(float(d.W[0, c // u]), abs=1e-12)
        assert db.ten_thousand.compensation(2, rules=rules) == answer
        # the views say the same, in SQL
        view = db.fetchall("SELECT score1, score2, p_win1, p_win2, deviation FROM ten_thousand_duel_fair_compensation "
                           "WHERE rules = ? AND goal = ?", (rules, GOAL))
        assert len(view) == 1
        s1, s2, p1, p2, dev = view[0]
        assert (s1, s2) == answer.scores and p1 == answer.p_wins[0] and dev == answer.deviation
        assert p2 == pytest.approx(1 - p1, abs=1e-15)
        every = db.fetchone("SELECT count(*) FROM ten_thousand_duel_compensation WHERE rules = ? AND goal = ?",
                            (rules, GOAL))[0]
        assert every == 2 * G - 1


def test_compensation_command_and_http(paths, run_cli):
    db = str(paths["duckdb"])
    code, out, err = run_cli(["ten-thousand", "compensation", "--rules", "mf-comp", "--json", "--db", db])
    assert code == 0, err
    doc = json.loads(out)
    with _open(paths, "duckdb") as opened:
        assert doc == json.loads(json.dumps(opened.ten_thousand.compensation(rules="mf-comp").as_dict()))
    assert doc["players"] == 2 and doc["rules_compensation"] == 100 and len(doc["nearest"]) == 5
    code, text, err = run_cli(["ten-thousand", "compensation", "--rules", "mf-comp", "--db", db])
    assert code == 0 and f"the second player starts with {doc['compensation']:,}" in text
    assert "as its rules set it (100)" in text
    code, _out, err = run_cli(["ten-thousand", "compensation", "--rules", "zilch-playr", "--db", db])
    assert code != 0 and len(err.strip().splitlines()) == 1 and "zilch-playr" in err
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from dicebase.web.app import create_app

    with TestClient(create_app(dicebase.open(paths["duckdb"]))) as client:
        got = client.get("/api/v1/ten-thousand/compensation?rules=mf-comp")
        assert got.status_code == 200 and got.json() == doc
        page = client.get("/ten-thousand?rules=zilch-playr&dice=2+2+3+4+6+6&turn_total=0")
        assert page.status_code == 200
        assert "A turn may be banked only with at least 300 points." in page.text
        assert "what one more farkle in a row is worth" in page.text


# --------------------------------------------------------------------------- the rules command
def test_rules_command_words_and_check(run_cli, tmp_path, paths):
    code, text, _ = run_cli(["rules", "ten-thousand", "zilch-playr", "--words"])
    assert code == 0
    for says in ("at least 300 points", "worth 500 points and a free roll", "3rd farkle in a row costs 500 points",
                 "Source: Matt Busche"):
        assert says in text
    code, text, _ = run_cli(["rules", "--db", str(paths["duckdb"]), "--variant", "mf-comp", "--words"])
    assert code == 0 and "The second player starts with 100 points." in text and "Goal 500" in text
    code, printed, _ = run_cli(["rules", "ten-thousand", "zilch-playr"])
    good = tmp_path / "ours.toml"
    good.write_text(printed.replace('name = "zilch-playr"', 'name = "ours"'))
    code, text, err = run_cli(["rules", "--check", good])
    assert code == 0 and "rules 'ours' are valid" in text and "at least 300 points" in text, err
    bad = tmp_path / "bad.toml"
    bad.write_text(printed.replace("bank_minimum = 300", "bank_minimum = 310"))
    code, out, err = run_cli(["rules", "--check", bad])
    assert code == 2 and out == "" and "bank_minimum (line" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(["rules", "ten-thousand", "--check", good])
    assert code == 2 and "on its own" in err


# --------------------------------------------------------------------------- the page on a phone
def test_preset_page_shows_its_rules_in_words_on_a_phone(paths, tmp_path):
    """A real browser (the system's Chromium, as tests/test_web_browser.py; skipped without it) at 360 px:
    zilch-playr's page says its rules in words and ranks the keeps by the penalty's turn value."""
    import os
    import shutil
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import test_web_browser as web

    executable = web._chromium()
    if executable is None:
        web._unavailable("no Chromium on this machine: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        web._unavailable("Playwright for Python is not installed: pip install -e '.[test]'")
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db",
                             f"duckdb:///{paths['duckdb']}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert " at http://" in line, line + proc.stderr.read()
        base = line.split(" at ")[1].split("/ ")[0]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=web.CHROMIUM_ARGS)
            context = browser.new_context(viewport=web.PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
            context.route("**/plots/**", lambda route: route.abort())
            page = context.new_page()
            page.goto(f"{base}/ten-thousand?rules=zilch-playr&dice=1+5+2+3+4+4&turn_total=0")
            page.locator("details.rules-words summary").tap()
            text = page.locator("main").inner_text()
            assert "A turn may be banked only with at least 300 points." in text
            assert "The 3rd farkle in a row costs 500 points" in text
            assert "what one more farkle in a row is worth" in text
            assert page.locator("ol.keeps li").count() == 3
            web._check_phone_layout(page)
            shot = tmp_path / "zilch-phone.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
            if os.environ.get("DICEBASE_SCREENSHOTS"):
                shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / "zilch-phone.png")
            context.close()
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
