"""Hot dice off, and a standing triple that survives hot dice (issue 8 §2: "hot dice" is a rule a
file expresses).  Semantics (dicebase/rules/ten_thousand.py, docs/ten_thousand.md):

- ``hot_dice = false``: a keep that uses every rolled die ends the turn and banks its total; a player
  still at 0 below ``opening_minimum`` scores nothing (as a farkle).
- ``hot_dice_clears_triple = false`` (hot dice on, triple_stands): the standing triple (the one the
  hot-dice keep formed, else the one standing) stays on the fresh dice.

The solvers' tables are checked against computations that share no code with them: exhaustive
enumeration of ordered rolls and kept subsets for the solitaire turn, an independent value iteration
of the whole two-player game, and a Monte-Carlo run of the stored policy.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import duckdb
import numpy as np
import pytest

from dicebase.rules import ten_thousand as TT
from dicebase.rules.files import dump, parse

TINY = """
game = "ten-thousand"
name = "{name}"
description = "{dice} dice; a single 1 is 100, a single 5 is 50, three of a kind 100 x face (three 1s 1000)"
dice = {dice}
single = [100, 0, 0, 0, 50, 0]
triple = [1000, 200, 300, 400, 500, 600]
extra_dice = "add_triple"
kind_values = [0, 0, 0]
straight = 0
three_pairs = 0
three_pairs_with_four = false
four_and_pair = 0
two_triples = 0
triple_stands = {stands}
hot_dice = {hot}
hot_dice_clears_triple = {clears}
opening_minimum = {opening}
goal = 500
last_round = "others_one_turn_must_exceed"
unit = 50
two_player = {two_player}
"""

#: name -> (dice, triple_stands, hot_dice, hot_dice_clears_triple, opening_minimum, two_player)
VARIANTS = {
    "tiny-nohot": (3, False, False, True, 0, False),
    "tiny-nohot-open": (3, False, False, True, 300, True),  # all dice scored below 300 at 0: the turn is lost
    "tiny-stands-nohot": (3, True, False, True, 0, False),
    "tiny-carry": (3, True, True, False, 0, False),  # the triple stands on the fresh dice after hot dice
    "four-stands-nohot": (4, True, False, True, 0, False),  # a triple of 4 dice stands on the last die, then the end
    "four-carry": (4, True, True, False, 0, False),  # four of a kind and a triple standing on four fresh dice
}


def _toml(name: str) -> str:
    dice, stands, hot, clears, opening, two = VARIANTS[name]
    low = {True: "true", False: "false"}
    return TINY.format(name=name, dice=dice, stands=low[stands], hot=low[hot], clears=low[clears],
                       opening=opening, two_player=low[two])


def _six_dice_nohot(run_cli) -> str:
    """Seed 004's rules without hot dice (solitaire tables only)."""
    code, text, _ = run_cli(["rules", "ten-thousand"])
    assert code == 0
    return (text.replace('name = "ten-thousand"', 'name = "nohot"').replace("hot_dice = true", "hot_dice = false"))


@pytest.fixture(scope="module")
def hot_db(tmp_path_factory):
    from conftest import invoke_cli

    root = tmp_path_factory.mktemp("hot")
    db = root / "hot.duckdb"
    args = []
    for name in VARIANTS:
        (root / f"{name}.toml").write_text(_toml(name))
        args += ["--rules", root / f"{name}.toml"]
    (root / "nohot.toml").write_text(_six_dice_nohot(invoke_cli))
    args += ["--rules", root / "nohot.toml"]
    code, _, err = invoke_cli(["build", "-q", "--db", db, *args, "-o", "ten-thousand.rules=[]",
                               "-o", "ten-thousand.duel_rules=[]"])
    assert code == 0, err
    return db


def _rows(db, sql, params=()):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


# ------------------------------------------------------------------ the rules files and the rules layer
def test_hot_dice_off_and_a_carried_triple_are_accepted_and_round_trip(run_cli):
    for name in VARIANTS:
        house = parse(_toml(name), f"{name}.toml")
        rules = house.rules()
        assert (rules.hot_dice, rules.hot_dice_clears_triple) == VARIANTS[name][2:4]
        assert parse(dump("ten_thousand", name, house.values, name), "again.toml").rules() == rules
    nohot = parse(_toml("tiny-nohot"), "x.toml").rules()
    assert TT.turn_states(nohot)[-1] == TT.NO_DICE and TT.NO_DICE not in TT.roll_states(nohot)
    (keep,) = [k for k in TT.legal_keeps(nohot, (1, 0, 0, 0, 2, 0), 3, 0) if k.dice == 3]
    assert (keep.points, keep.n_after, keep.t_after) == (200, 0, 0)  # the turn ends
    carry = parse(_toml("tiny-carry"), "x.toml").rules()
    assert len(TT.turn_states(carry)) == 3 + 3 * 6
    # three 4s with a triple of 2s standing: hot dice, the new triple stands on three fresh dice
    (keep,) = [k for k in TT.legal_keeps(carry, (0, 0, 0, 3, 0, 0), 3, 2) if k.dice == 3]
    assert (keep.points, keep.n_after, keep.t_after) == (400, 3, 4)
    # one 2 on the triple of 2s: hot dice, the triple of 2s stands on
    (keep,) = [k for k in TT.legal_keeps(carry, (0, 1, 0, 0, 0, 0), 1, 2)]
    assert (keep.points, keep.n_after, keep.t_after) == (200, 3, 2)
    six = TT.RuleSet(**{**TT.TEN_THOUSAND.as_dict(), "name": "six", "hot_dice_clears_triple": False})
    assert (6, 1) in TT.turn_states(six) and len(TT.turn_states(six)) == 6 + 6 * 6


# ------------------------------------------------------------------ brute force: the solitaire turn
def _triple(face: int) -> int:
    return 1000 if face == 1 else 100 * face


def _single(face: int) -> int:
    return {1: 100, 5: 50}.get(face, 0)


@lru_cache(maxsize=None)
def _score(kept: tuple[int, ...], standing: int) -> tuple[int, int] | None:
    """Independent scoring under the tiny rules: (points, face of a triple formed or 0), None if a die
    does not score.  A die of the standing triple's face scores the triple value again; c >= 3 dice of
    another face score the triple value times (c - 2), or (1s and 5s) as singles, whichever is more."""
    pts, formed = sum(_triple(f) for f in kept if f == standing), 0
    for face in set(kept) - {standing}:
        c = kept.count(face)
        as_kind = _triple(face) * (c - 2) if c >= 3 else None
        as_singles = c * _single(face) if _single(face) else None
        if as_kind is None and as_singles is None:
            return None
        if as_kind is not None and (as_singles is None or as_kind > as_singles):
            pts, formed = pts + as_kind, face
        else:
            pts += as_singles
    return pts, formed


END = (0, 0)


@lru_cache(maxsize=None)
def _options(n: int, t: int, stands: bool, hot: bool, clears: bool, dice: int = 3) -> tuple:
    """Per ordered roll of n dice: every (points, next (dice, triple) or END) of every kept subset;
    rolls with the same options merged as (ordered rolls, options)."""
    out = []
    for roll in itertools.product(range(1, 7), repeat=n):
        opts = set()
        for size in range(1, n + 1):
            for idx in itertools.combinations(range(n), size):
                got = _score(tuple(roll[i] for i in idx), t if stands else 0)
                if got is None:
                    continue
                pts, formed = got
                left = n - size
                if left:
                    nxt = (left, (formed or t) if stands else 0)
                elif hot:
                    nxt = (dice, (formed or t) if stands and not clears else 0)
                else:
                    nxt = END
                opts.add((pts, nxt))
        out.append(tuple(sorted(opts)))
    return tuple(sorted(Counter(out).items()))


def _brute_force_turn(dice, stands, hot, clears, top):
    """V[k, (n, t)]: expected banked points of the optimal turn (k points, n dice, triple t); banking
    forced from ``top`` on; END banks the turn total."""
    classes = [(n, t) for n in range(dice, 0, -1) for t in (range(7) if stands else (0,))]
    V, roll_better = {}, {}

    def value(k, c):
        return float(k) if c == END or k >= top else V[k, c]

    for k in range(top, -1, -50):
        for c in classes:
            if k >= top:
                V[k, c] = float(k)
                continue
            rolls = _options(*c, stands, hot, clears, dice)
            total = sum(w * max((value(k + p, nxt) for p, nxt in opts), default=0.0) for opts, w in rolls)
            roll_value = total / 6 ** c[0]
            V[k, c] = roll_value if k == 0 else max(float(k), roll_value)
            roll_better[k, c] = roll_value > k
    return V, roll_better


@pytest.mark.parametrize("name, top", [("tiny-nohot", 6000), ("tiny-stands-nohot", 6000), ("tiny-carry", 6000),
                                       ("four-stands-nohot", 6000), ("four-carry", 16000)])
def test_solitaire_turn_and_thresholds_match_brute_force(hot_db, name, top):
    """``top``: the brute force banks from there on; raising it by 2000 changes no value below top / 2
    (four dice with a triple standing on fresh dice bank only from 12,800 on: standing 6s score 600 a die)."""
    dice, stands, hot, clears, _, _ = VARIANTS[name]
    V, roll_better = _brute_force_turn(dice, stands, hot, clears, top=top)
    higher, _ = _brute_force_turn(dice, stands, hot, clears, top=top + 2000)  # the brute force's bound is harmless
    assert all(V[k, c] == pytest.approx(higher[k, c], rel=1e-12) for (k, c) in V if k < top // 2)
    (optimal,) = _rows(hot_db, "SELECT expected_points FROM ten_thousand_policy_turn WHERE rules = ? "
                       "AND policy = 'optimal'", [name])[0]
    assert optimal == pytest.approx(V[0, (dice, 0)], rel=1e-12)
    rows = _rows(hot_db, "SELECT turn_total, dice, triple, action, value FROM ten_thousand_solitaire "
                 "WHERE rules = ?", [name])
    classes = {(n, t) for _, n, t, _, _ in rows}  # no row for "no dice": the turn has ended there
    rules = parse(_toml(name), "x.toml").rules()
    assert classes == set(TT.roll_states(rules)) and classes <= {c for _, c in V}
    if stands and dice == 4:  # a triple standing with 4 dice exists only when hot dice keeps it
        assert ((4, 2) in classes) == (hot and not clears)
    for k, n, t, action, value in rows:
        assert value == pytest.approx(V[k, (n, t)], rel=1e-12, abs=1e-9), (k, n, t)
        if k > 0:
            assert (action == "roll") == roll_better[k, (n, t)], (k, n, t)
    past = max(k for k, *_ in rows) + 50  # banking is proved optimal past the stored turn totals
    for c in classes:
        brute = min(k for k in range(50, top, 50) if not roll_better[k, c])
        stored = min([k for k, n, t, a, _ in rows if (n, t) == c and k > 0 and a == "bank"] + [past])
        assert stored == brute, c
    if not hot and dice == 3:  # the keep of every die banks: its value is the turn total plus its points
        best = _rows(hot_db, "SELECT turn_total, keep, value FROM ten_thousand_solitaire_keep WHERE rules = ? "
                     "AND dice = 3 AND triple = 0 AND roll = '155'", [name])
        assert all(keep != "155" or value == k + 200 for k, keep, value in best)


def test_hot_dice_off_is_worth_less_than_hot_dice_on(hot_db):
    """Hot dice only adds options: without it the optimal turn is worth less (seed 004's rules)."""
    from dicebase.builder.ten_thousand import solitaire

    with_hot = solitaire.solve(TT.TEN_THOUSAND).value[0, 0] * 50
    (without,) = _rows(hot_db, "SELECT expected_points FROM ten_thousand_policy_turn WHERE rules = 'nohot' "
                       "AND policy = 'optimal'")[0]
    assert 0 < without < with_hot


# ------------------------------------------------------------------ Monte Carlo of the stored policy
def test_stored_policy_without_hot_dice_scores_its_value_in_simulation(hot_db):
    """Play 20,000 turns of seed 004's rules without hot dice with the stored tables only (roll or bank,
    the keep of every roll, where the keep leads); the mean lands in the 99.9% interval of the value."""
    act = {(k, n, t): a for k, n, t, a in _rows(
        hot_db, "SELECT turn_total, dice, triple, action FROM ten_thousand_solitaire WHERE rules = 'nohot'")}
    keep = {(k, n, t, r): kp for k, n, t, r, kp in _rows(
        hot_db, "SELECT turn_total, dice, triple, roll, keep FROM ten_thousand_solitaire_keep WHERE rules = 'nohot'")}
    move = {(n, t, r, kp): (p, da, ta) for n, t, r, kp, p, da, ta in _rows(
        hot_db, "SELECT dice, triple, roll, keep, points, dice_after, triple_after FROM ten_thousand_keeps "
        "WHERE rules = 'nohot'")}
    (value,) = _rows(hot_db, "SELECT expected_points FROM ten_thousand_policy_turn WHERE rules = 'nohot' "
                     "AND policy = 'optimal'")[0]
    rng = random.Random(8)
    scores = []
    for _ in range(20_000):
        k, n, t = 0, 6, 0
        while n and (k == 0 or act.get((k, n, t), "bank") == "roll"):
            roll = "".join(sorted(str(rng.randint(1, 6)) for _ in range(n)))
            kp = keep.get((k, n, t, roll))
            if kp is None:  # a farkle: no keep is stored for a roll that scores nothing
                k = 0
                break
            p, n, t = move[(n, t, roll, kp)]
            k += p
        scores.append(k)
    mean = float(np.mean(scores))
    se = float(np.std(scores)) / len(scores) ** 0.5
    assert abs(mean - value) < 3.3 * se, (mean, value, se)
    assert any(s > 0 for s in scores)


# ------------------------------------------------------------------ the two-player game: independent value iteration
def _independent_duel(goal_units: int, opening_units: int):
    """W[i, j] and P[i, j, k, n] (n = 3, 2, 1; 0 = END) of the tiny rules without hot dice, by plain
    value iteration over every state at once (no score-sum order, no policy iteration).  Without hot
    dice a turn scores at most three dice (1000 points = 20 units): a state's value depends on turn
    totals up to 20 units higher only, so forcing a bank above KT - 20 leaves every k <= KC exact."""
    G, KC, KT = goal_units, 40, 60
    groups = {}
    for n in (3, 2, 1):
        acc = {}
        for opts, w in _options(n, 0, False, False, True):
            key = tuple((p // 50, nxt[0]) for p, nxt in opts)
            acc[key] = acc.get(key, 0) + w
        groups[n] = [(w / 6**n, key) for key, w in acc.items() if key]  # () = a farkle
    # P_exceed(d) = chance a last turn from three dice gains d + 1 units or more
    E = np.zeros((KC + 2, 4))
    E[0] = 1.0
    for m in range(1, KC + 2):
        for n in (1, 2, 3):
            E[m, n] = sum(prob * max((1.0 if m - p <= 0 else (0.0 if nxt == 0 else E[m - p, nxt]))
                                     for p, nxt in key) for prob, key in groups[n])
    W = np.full((G, G), 0.5)
    P = np.zeros((G, G, KT + 1, 4))
    i_, j_, k_ = np.meshgrid(np.arange(G), np.arange(G), np.arange(KT + 1), indexing="ij")
    can_bank = (k_ > 0) & ((i_ > 0) | (k_ >= opening_units))
    deficit = i_ + k_ - j_  # of the opponent's last turn, when the bank reaches the goal
    exceed = np.where((deficit >= 0) & (deficit + 1 <= KC + 1), E[np.clip(deficit + 1, 0, KC + 1), 3], 0.0)
    forced = k_ > KT - 20
    for sweep in range(5000):
        bank = np.where(i_ + k_ < G, 1 - W[j_, np.minimum(i_ + k_, G - 1)], 1 - exceed)
        farkle = (1 - W.T)[:, :, None]  # 1 - W(j, i)
        new = np.empty_like(P)
        new[..., 0] = np.where(can_bank, bank, farkle)  # END: banked, or lost below the minimum
        for n in (3, 2, 1):
            pf = 1.0 - sum(prob for prob, key in groups[n])
            roll = pf * np.broadcast_to(farkle, (G, G, KT + 1))
            for prob, key in groups[n]:
                best = np.full((G, G, KT + 1), -np.inf)
                for p, nxt in key:
                    shifted = np.full((G, G, KT + 1), -np.inf)
                    shifted[:, :, : KT + 1 - p] = new[:, :, p:, 0] if nxt == 0 else P[:, :, p:, nxt]
                    best = np.maximum(best, shifted)
                roll = roll + prob * best
            new[..., n] = np.where(forced, bank, np.where(can_bank, np.maximum(bank, roll), roll))
        W_new = new[:, :, 0, 3].copy()
        change = max(np.abs(new[:, :, : KC + 1] - P[:, :, : KC + 1]).max(), np.abs(W_new - W).max())
        P, W = new, W_new
        if change == 0.0:
            break
    assert change < 1e-15
    return W, P[:, :, : KC + 1]


def test_two_player_without_hot_dice_matches_independent_value_iteration(hot_db):
    """Every stored two-player value of the tiny rules without hot dice and with a 300-point opening
    minimum (so some keeps of every die lose the turn) equals an independent value iteration."""
    W, P = _independent_duel(10, 6)
    rows = _rows(hot_db, "SELECT score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                 "WHERE rules = 'tiny-nohot-open'")
    assert len(rows) > 100
    lost = 0
    for i, j, k, n, t, p in rows:
        assert t == 0
        assert p == pytest.approx(P[i // 50, j // 50, k // 50, n], abs=1e-12), (i, j, k, n)
        if n == 0:  # a lost turn: all dice scored at 0 below the opening minimum
            lost += 1
            assert i == 0 and k < 300 and p == pytest.approx(1 - W[j // 50, 0], abs=1e-12)
    assert lost > 0
    starts = {(i, j): p for i, j, k, n, t, p in rows if k == 0}
    assert len(starts) == 100 and all(starts[i, j] == pytest.approx(W[i // 50, j // 50], abs=1e-12)
                                      for i, j in starts)
    assert all(0.0 <= p <= 1.0 for *_, p in rows)


def test_lookups_say_the_turn_ends_without_hot_dice(hot_db, run_cli):
    db = ["--db", hot_db, "--json"]
    code, out, err = run_cli(["ten-thousand", "best", "1", "5", "5", "--turn-total", "0", "--variant", "tiny-nohot",
                              *db])
    assert code == 0, err
    every = [a for a in json.loads(out)["actions"] if a["keep"] == [1, 5, 5]]
    assert every[0]["dice_after"] == 0 and every[0]["then"] == "bank" and every[0]["value"] == 200
    assert not every[0]["hot_dice"]
    # at 0 with 0 banked, 1 5 5 = 200 < 300: the turn is lost; with 100 banked before the roll it banks
    # kept a 1 (100), then 1 5 with 0 banked: 250 < 300, the turn is lost; with 100 banked it banks
    code, out, err = run_cli(["ten-thousand", "best", "1", "5", "--turn-total", "100", "--score", "0",
                              "--opponent", "200", "--variant", "tiny-nohot-open", *db])
    assert code == 0, err
    best = json.loads(out)
    (every,) = [a for a in best["actions"] if a["keep"] == [1, 5]]
    assert every["then"] == "lost" and every["value"] == pytest.approx(best["farkle_value"], abs=1e-15)
    code, out, err = run_cli(["ten-thousand", "best", "1", "5", "--turn-total", "100", "--score", "100",
                              "--opponent", "200", "--variant", "tiny-nohot-open", *db])
    assert code == 0, err
    (every,) = [a for a in json.loads(out)["actions"] if a["keep"] == [1, 5]]
    assert every["then"] == "bank"
    # a triple carried past hot dice stands with three dice
    code, out, err = run_cli(["ten-thousand", "best", "2", "3", "4", "--turn-total", "250", "--triple", "2",
                              "--variant", "tiny-carry", *db])
    assert code == 0, err
    code, out, err = run_cli(["ten-thousand", "best", "2", "3", "4", "--turn-total", "250", "--triple", "2",
                              "--variant", "tiny-nohot", *db])
    assert code == 2 and "no standing triple" in err


# ------------------------------------------------------------------ the two-player solve: bounded, same bits on 1 and 2 threads
SOLVE = """
import sys, numba, numpy as np
from dicebase.builder.ten_thousand import twoplayer
from dicebase.rules.ten_thousand import TEN_THOUSAND, RuleSet
numba.set_num_threads(int(sys.argv[1]))
rules = RuleSet(**{**TEN_THOUSAND.as_dict(), "name": "nohot", "hot_dice": False, "opening_minimum": 500})
s = twoplayer.solve(rules, 12, rows="all")
np.savez(sys.argv[2], W=s.W, heur_h=s.heur_h, heur_o=s.heur_o, i=s.i, j=s.j, k=s.k, s=s.s,
         p_win=s.p_win, roll=s.roll, kmax=s.kmax)
"""


def test_six_dice_without_hot_dice_two_player_is_bounded_and_identical_on_one_and_two_threads(tmp_path):
    got = []
    for threads in (1, 2):
        out = tmp_path / f"t{threads}.npz"
        subprocess.run([sys.executable, "-c", SOLVE, str(threads), str(out)], check=True,
                       env={**os.environ, "NUMBA_NUM_THREADS": "2"}, capture_output=True)
        with np.load(out) as data:
            got.append(dict(data))
    one, two = got
    for name in one:
        assert np.array_equal(one[name], two[name], equal_nan=one[name].dtype.kind == "f"), name
    for name in ("W", "p_win", "heur_h", "heur_o"):
        assert not np.isnan(one[name]).any() and (one[name] >= 0).all() and (one[name] <= 1).all(), name
    # the no-dice class (last) never rolls where it may bank, and is lost (rolled) only at 0 below 500
    nd = one["s"] == len(TT.turn_states(TT.RuleSet(**{**TT.TEN_THOUSAND.as_dict(), "hot_dice": False}))) - 1
    rolled = nd & one["roll"] & (one["k"] > 0)
    assert rolled.any() and (one["i"][rolled] == 0).all() and (one["k"][rolled] < 10).all()
    assert not (nd & ~one["roll"] & (one["i"] == 0) & (one["k"] < 10) & (one["k"] > 0)).any()


def test_seed004_rule_that_rolls_to_large_totals_stays_inside_the_last_turn_table():
    """Five dice with a triple kept past hot dice: seed 004's rule rolls on to about 60,000 points
    (its bank threshold), far past a goal of 800.  Its two-player evaluation reads the last-turn
    table for every total it can bank, so the table must reach that far (it did not: the values
    were read past the end of the array)."""
    from dicebase.builder.ten_thousand import heuristic, twoplayer

    rules = TT.RuleSet(**{**TT.TEN_THOUSAND.as_dict(), "name": "carry5", "dice": 5, "straight": None,
                          "three_pairs": None, "hot_dice_clears_triple": False})
    _, kh = heuristic.roll_table(rules)
    s = twoplayer.solve(rules, 16, keep_tables=False)
    assert kh > 1000 and s.stats["exceed_rows"] > 16 + kh
    for name in ("W", "heur_h", "heur_o"):
        values = getattr(s, name)
        assert np.isfinite(values).all() and (values >= 0).all() and (values <= 1).all(), name


def test_an_opening_minimum_no_turn_can_score_without_hot_dice_is_refused(run_cli, tmp_path):
    text = _toml("tiny-nohot").replace("opening_minimum = 0", "opening_minimum = 1500")
    path = tmp_path / "never.toml"
    path.write_text(text)
    code, _, err = run_cli(["build", "-q", "--rules", path, "--db", tmp_path / "never.duckdb"])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "opening_minimum (line" in err and "more than one turn can score without hot dice (1000)" in err
    assert not (tmp_path / "never.duckdb").exists()
    assert TT.max_turn_points(parse(_toml("tiny-nohot"), "x.toml").rules()) == 1000  # three 1s
    assert TT.max_turn_points(TT.TEN_THOUSAND) is None
