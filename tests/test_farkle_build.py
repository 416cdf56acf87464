"""Issue 24, the builder's stored tables of the Farkle family's options (docs/farkle.md, "In the database"):
what the build writes must be what the solvers give, on both stores.

The database is tests/test_farkle_lookups.py's (same options: one build per store and session): zilch-playr
(bank minimum, no-score bonus, consecutive-farkle penalty; one turn) and minimal-farkle's rules to 500 with
compensation (first to the goal wins) and with a bank minimum.
"""

from __future__ import annotations

import pytest

from dicebase.rules.ten_thousand import PRESETS, dominated_flags, legal_keeps, roll_multisets

from test_farkle_lookups import COMPENSATED, GOAL, STORES, _duel, _name, _open, _solver_record, _zilch_turn


@pytest.fixture(scope="module")
def paths(built_db):
    from test_farkle_lookups import OPTIONS

    return {kind: built_db(("ten_thousand",), kind, OPTIONS) for kind in STORES}


@pytest.mark.parametrize("kind", STORES)
def test_solitaire_keep_values_past_the_bound_under_the_bonus(paths, kind):
    """ten_thousand_solitaire_keep holds the solver's value of the best keep, also where the keep gives all six
    dice back above the stored bound: the no-score bonus's all-dice class rolls on there (k + c), it does not
    bank (zilch-playr: 1-6 at 9,000 is worth 10,978.24, not the 10,500 banked)."""
    rules = "zilch-playr"
    rs = PRESETS[rules]
    with _open(paths, kind) as db:
        record = _solver_record(db, rules)["solitaire"]
        turn = _zilch_turn(tuple(record["farkle_values_points"]), tuple(record["relative_values_points"]))
        bound = record["bank_bound_points"]
        asked = (bound - 1500, bound - 600, bound - 50, bound)
        rows = db.fetchall(
            "SELECT turn_total, dice, triple, roll, keep, value FROM ten_thousand_solitaire_keep "
            f"WHERE rules = ? AND turn_total IN ({', '.join('?' * len(asked))})", (rules, *asked))
        assert len(rows) > 1000
        past = 0
        for k, n, t, roll, keep, value in rows:
            counts = tuple(roll.count(str(f)) for f in range(1, 7))
            every = legal_keeps(rs, counts, n, t)
            keeps = [kp for kp, dom in zip(every, dominated_flags(every)) if not dom]
            best = max(turn.keep(k, kp)[0] for kp in keeps)
            assert value == pytest.approx(best, abs=1e-9), (k, n, t, roll, keep)
            chosen = next(kp for kp in keeps if "".join(map(str, _name(kp.kept))) == keep)
            assert turn.keep(k, chosen)[0] == pytest.approx(best, abs=1e-9)
            past += k + chosen.points > bound and chosen.n_after == rs.dice
        assert past > 50
        value = db.fetchone("SELECT value FROM ten_thousand_solitaire_keep WHERE rules = ? AND turn_total = 9000 "
                            "AND dice = 6 AND triple = 0 AND roll = '123456'", (rules,))[0]
        assert bound == 9150 and round(value, 2) == 10978.24  # 10,500 + c, c = 478.24 (bonus_chain)


@pytest.mark.parametrize("kind", STORES)
def test_policy_duel_and_record_start_from_the_compensation(paths, kind):
    """With compensation the stored start (ten_thousand_policy_duel, the build's record) is the rule set's own:
    the second player at its compensation, not 0, 0; seed 004's rule in both seats from that start too."""
    from dicebase.builder.ten_thousand import twoplayer

    rs, d, _table = _duel(COMPENSATED.name)
    c = rs.compensation // rs.unit
    heur = twoplayer.solve(rs, d.goal, keep_tables=False)
    with _open(paths, kind) as db:
        got = {(p, s): w for p, s, w in db.fetchall(
            "SELECT policy, seat, p_win FROM ten_thousand_policy_duel WHERE rules = ? AND goal = ?", (rs.name, GOAL))}
        want = {("optimal", 1): float(d.W[0, c]), ("optimal", 2): 1 - float(d.W[0, c]),
                ("seed004", 1): float(heur.heur_h[0, c]), ("seed004", 2): float(heur.heur_o[0, c])}
        assert got.keys() == want.keys()
        for key, p in want.items():
            assert got[key] == pytest.approx(p, abs=1e-12), key
        assert abs(got[("optimal", 1)] - float(d.W[0, 0])) > 1e-3  # the uncompensated start differs
        assert db.ten_thousand.compensation(rules=rs.name).rules_p_wins[0] == pytest.approx(got[("optimal", 1)], abs=1e-12)
        record = _solver_record(db, rs.name)["two_player"]
        assert record["objective"] == ("win probability; the first player to bank at or above the goal wins at once "
                                       "(no last round); the second player starts with 100 points"), record


@pytest.mark.parametrize("kind", STORES)
def test_odds_label_the_no_score_bonus(paths, kind):
    """Under zilch-playr's no-score bonus a roll of six dice that scores nothing is no farkle: its odds row is
    'No-score bonus' (500 points), six dice have no 'Farkle' row, fewer dice keep theirs."""
    rs = PRESETS["zilch-playr"]
    nothing = sum(w for counts, w in roll_multisets(6) if not any(k.points != 500 for k in legal_keeps(rs, counts, 6, 0))
                  and legal_keeps(rs, counts, 6, 0))
    with _open(paths, kind) as db:
        six = {r.combination: r for r in db.ten_thousand.odds(6, rules="zilch-playr")}
        assert "Farkle" not in six
        bonus = six["No-score bonus"]
        assert bonus.outcomes == nothing == 1080 and bonus.mean_points == bonus.mean_combination_points == 500
        assert sum(r.outcomes for r in six.values()) == 6**6
        assert list(six)[-1] == "No-score bonus"
        assert "Farkle" in {r.combination for r in db.ten_thousand.odds(5, rules="zilch-playr")}
        assert db.fetchall("SELECT combination, farkle, best_points FROM ten_thousand_rolls WHERE rules = ? AND dice = 6 "
                           "AND roll = '223446'", ("zilch-playr",)) == [("No-score bonus", False, 500)]
        # seed 004's rules keep their 'Farkle' row of six dice
        assert "Farkle" in {r.combination for r in db.ten_thousand.odds(6, rules=COMPENSATED.name)}
