"""House rules (issue 8 §2-§5): rules files, their validation, presets, and proofs that a
rule set built from a file is solved exactly like the same rules built in."""

from __future__ import annotations

import itertools
import json
import math
from functools import lru_cache
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dicebase.rules import SizeLimit
from dicebase.rules import rolled_ones as RO
from dicebase.rules import ten_thousand as TT
from dicebase.rules import threes as TH
from dicebase.rules.files import RulesFileError, dump, parse

GAMES = {"threes": TH, "rolled-ones": RO, "ten-thousand": TT}


def _checksums(path: Path, game: str) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = dict(con.execute("SELECT table_name, checksum FROM build_tables WHERE game = ?", [game]).fetchall())
        variants = con.execute(
            "SELECT variant, rules_json FROM build_variants WHERE game = ? ORDER BY variant", [game]
        ).fetchall()
    finally:
        con.close()
    return {"tables": tables, "variants": variants}


# ------------------------------------------------------------------ files: print, read back
@pytest.mark.parametrize("game", GAMES)
def test_every_preset_prints_as_a_file_that_reads_back_to_the_same_rules(game, run_cli):
    mod = GAMES[game]
    for name, rules in mod.PRESETS.items():
        code, text, err = run_cli(["rules", game, name])
        assert code == 0, err
        for key in mod.FILE_KEYS:  # every key is explained, with what it allows
            assert f"Allowed: {key.allowed()}" in " ".join(text.replace("\n#", " ").split()), key.name
            assert f"\n{key.name} = " in text
        house = parse(text, "preset.toml")
        assert (house.game, house.name) == (mod.GAME, name)
        assert house.rules() == rules


def test_rules_command_errors_are_one_line(run_cli):
    for args, says in [
        (["rules"], "name a game"),
        (["rules", "yahtzee"], "unknown game 'yahtzee'"),
        (["rules", "ten-thousand", "nope"], "presets: ten-thousand, farkle, farkle-additive, zilch"),
    ]:
        code, out, err = run_cli(args)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (args, err)


# ------------------------------------------------------------------ §4 presets
def test_published_presets_score_as_their_sources_say():
    # playr.co.uk 'Rules of Zilch': every die over three doubles the set; straight and three pairs 1500
    assert [TT.ZILCH.kind_points(2, n) for n in (3, 4, 5, 6)] == [200, 400, 800, 1600]
    assert TT.keep_points(TT.ZILCH, (1, 1, 1, 1, 1, 1), 0) == (1500, 0)
    assert TT.keep_points(TT.ZILCH, (2, 0, 2, 0, 2, 0), 0)[0] == 1500
    # mattbusche.org 'Farkle Scoring': four 3s 600, five 900, six 1200; three pairs 750; straight 1500
    assert [TT.FARKLE_ADDITIVE.kind_points(3, n) for n in (4, 5, 6)] == [600, 900, 1200]
    assert TT.keep_points(TT.FARKLE_ADDITIVE, (0, 2, 0, 2, 0, 2), 0)[0] == 750
    assert TT.keep_points(TT.FARKLE_ADDITIVE, (0, 0, 3, 0, 0, 3), 0)[0] == 300 + 600  # two triples: separately
    for preset in (TT.ZILCH, TT.FARKLE_ADDITIVE):
        assert "http" in preset.source and preset.name in TT.DEFAULT_OPTIONS["rules"]
    assert TT.DEFAULT_OPTIONS["duel_rules"] == ["ten-thousand"]


# ------------------------------------------------------------------ §3 validation
def _preset_text(run_cli, game: str, preset: str | None = None) -> str:
    code, text, _ = run_cli(["rules", game] + ([preset] if preset else []))
    assert code == 0
    return text


BAD_EDITS = [
    ("unit = 50", "unit = 60", "single (line", "not a multiple of the unit 60"),
    ("dice = 6", "dice = 3", "straight (line", "needs six dice"),
    ("single = [100, 0, 0, 0, 50, 0]", "single = [100, 0, 0, 0, -50, 0]", "single (line", "whole numbers 0..100000"),
    ("hot_dice = true", 'hot_dice = "yes"', "hot_dice (line", "must be true or false"),
    ("goal = 10000", "goal = 10025", "goal (line", "not a multiple of the unit 50"),
    ("goal = 10000", "goal = 0", "goal (line", "a whole number 1..20000"),
    ('extra_dice = "add_triple"', 'extra_dice = "triple"', "extra_dice (line", '"add_triple" | "double" | "fixed"'),
    ("unit = 50", "unit = 50\nhouse_bonus = 500", "house_bonus (line", "unknown key; allowed keys: game, name"),
    ("single = [100, 0, 0, 0, 50, 0]", "single = [100, 50, 50, 50, 50, 50]", "single (line",
     "so a turn would never have to end"),
    ('name = "ten-thousand"', 'name = "Our Table"', "name (line", "lowercase letters"),
    ("triple = [1000, 200, 300, 400, 500, 600]", "triple = [1000, 200]", "triple (line", "a list of 6 whole"),
    ("goal = 10000", "goal = 10000 points", "not valid TOML", "line"),
    ("unit = 50", "", "unit (line" if False else "unit", "missing"),
]


@pytest.mark.parametrize("old, new, where, says", BAD_EDITS)
def test_a_bad_file_gets_one_line_naming_file_key_line_and_what_is_allowed(old, new, where, says, run_cli, tmp_path):
    text = _preset_text(run_cli, "ten-thousand")
    assert old in text
    path = tmp_path / "house.toml"
    path.write_text(text.replace(old, new))
    target = tmp_path / "never.duckdb"
    code, out, err = run_cli(["build", "-q", "--rules", path, "--db", target])
    assert code == 2, (out, err)
    line = err.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert line.startswith(f"Error: {path}: ") and where in line and says in line, line
    assert not target.exists() and not list(tmp_path.glob("never*")), "a bad file touched the target"


def _set(text: str, key: str, value: str) -> str:
    """The rules file ``text`` with ``key = value``."""
    lines = text.splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith(f"{key} = ")]
    lines[at] = f"{key} = {value}"
    return "\n".join(lines) + "\n"


def test_no_scoring_combination_is_refused(run_cli):
    text = _preset_text(run_cli, "ten-thousand")
    for key, value in (("single", "[0, 0, 0, 0, 0, 0]"), ("triple", "[0, 0, 0, 0, 0, 0]"), ("straight", "0"),
                       ("three_pairs", "0")):
        text = _set(text, key, value)
    with pytest.raises(RulesFileError, match=r"^nothing.toml: single \(line \d+\): no roll ever scores"):
        parse(text, "nothing.toml")


def test_threes_and_rolled_ones_files_are_checked_too(run_cli, tmp_path):
    threes = _preset_text(run_cli, "threes").replace("worth = [1, 2, 0, 4, 5, 6]", "worth = [1, 2, 0, 4, 5]")
    with pytest.raises(RulesFileError, match=r"worth \(line \d+\): must be a list of faces whole numbers 0..100"):
        parse(threes, "t.toml")
    threes = _preset_text(run_cli, "threes").replace("min_keep = 1", "min_keep = 6")
    with pytest.raises(RulesFileError, match=r"min_keep \(line \d+\): at most dice \(5\)"):
        parse(threes, "t.toml")
    rolled = _preset_text(run_cli, "rolled-ones").replace("ones_limit = 3", "ones_limit = 7")
    with pytest.raises(RulesFileError, match=r"ones_limit \(line \d+\): must be at most dice \(5\), got 7"):
        parse(rolled, "r.toml")
    with pytest.raises(RulesFileError, match=r"game \(line 7\): these rules are for threes, not ten-thousand"):
        parse(_preset_text(run_cli, "threes"), "t.toml", game="ten-thousand")


def test_a_solve_too_large_is_refused_with_its_estimate_unless_forced(run_cli, tmp_path):
    from dicebase.builder import pipeline

    text = _preset_text(run_cli, "ten-thousand").replace("unit = 50", "unit = 10").replace(
        "two_player = false", "two_player = true")
    path = tmp_path / "fine.toml"
    path.write_text(text.replace('name = "ten-thousand"', 'name = "fine"'))
    code, out, err = run_cli(["build", "-q", "--rules", path, "--db", tmp_path / "big.duckdb"])
    assert code == 2 and "cells" in err and "over the limit" in err and "--force-size" in err, err
    assert not (tmp_path / "big.duckdb").exists()
    house = parse(path.read_text(), str(path))
    with pytest.raises(SizeLimit):
        TT.validate_options(house.add_to(dict(TT.DEFAULT_OPTIONS)))
    # --force-size lets it through validation (not built here: it would take the machine)
    options = pipeline.parse_options("ten_thousand", {}, house=[house], force_size=True)
    assert "fine" in options["house_rules"] and "fine" in options["rules"]


# ------------------------------------------------------------------ §5 round trips (checksums)
def test_round_trip_preset_file_build_gives_identical_tables(run_cli, tmp_path):
    """preset -> `dicebase rules` -> file -> `build --rules` == the preset's own build (10,000 turn and
    two-player tables, Threes)."""
    # 10,000: the turn tables of farkle-additive, and the two-player game of ten-thousand to 500 (the
    # goal only sizes the duel: the file's rules are what the round trip checks)
    own = tmp_path / "own.duckdb"
    code, _, err = run_cli(["build", "ten-thousand", "-q", "--db", own, "-o", 'ten-thousand.rules=["farkle-additive"]',
                            "-o", 'ten-thousand.duel_rules=["ten-thousand"]', "-o", "ten-thousand.goal=500"])
    assert code == 0, err
    files = []
    for preset, two_player in (("farkle-additive", False), ("ten-thousand", True)):
        text = _preset_text(run_cli, "ten-thousand", preset)
        if two_player:
            text = text.replace("two_player = false", "two_player = true")
        files.append(tmp_path / f"{preset}.toml")
        files[-1].write_text(text)
    built = tmp_path / "from-files.duckdb"
    code, _, err = run_cli(["build", "-q", "--db", built, "--rules", files[0], "--rules", files[1],
                            "-o", "ten-thousand.rules=[]", "-o", "ten-thousand.duel_rules=[]",
                            "-o", "ten-thousand.goal=500"])
    assert code == 0, err
    a, b = _checksums(own, "ten_thousand"), _checksums(built, "ten_thousand")
    assert len(a["tables"]) >= 10 and a == b

    # Threes: the reroll variant
    own = tmp_path / "threes-own.duckdb"
    small = ["-o", "threes.max_players=2", "-o", 'threes.ties=["shared"]']
    assert run_cli(["build", "threes", "-q", "--db", own, "-o", 'threes.variants=["reroll"]', *small])[0] == 0
    path = tmp_path / "reroll.toml"
    path.write_text(_preset_text(run_cli, "threes", "reroll"))
    built = tmp_path / "threes-file.duckdb"
    assert run_cli(["build", "threes", "-q", "--db", built, "--rules", path, "-o", "threes.variants=[]", *small])[0] == 0
    assert _checksums(own, "threes") == _checksums(built, "threes")


def test_rolled_ones_round_trip_of_a_non_default_file_through_the_database(run_cli, tmp_path):
    """A Great Rolled Ones rule set that is not the preset (four dice, two 1s end the turn, goal 12) built
    from a file, printed back from the database with `dicebase rules --db --variant`, and built again from
    that print: identical tables (checksums) and the same rules."""
    text = (_preset_text(run_cli, "rolled-ones").replace('name = "standard"', 'name = "quick"')
            .replace("dice = 5", "dice = 4").replace("ones_limit = 3", "ones_limit = 2")
            .replace("goal = 50", "goal = 12").replace("turn_total_bound = 80", "turn_total_bound = 60")
            .replace("komi_max = 10", "komi_max = 3"))
    first = tmp_path / "quick.toml"
    first.write_text(text)
    own = ["-o", "rolled-ones.goal=8", "-o", "rolled-ones.turn_total_bound=60", "-o", "rolled-ones.komi_max=2"]
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    code, _, err = run_cli(["build", "-q", "--db", a, "--rules", first, *own])
    assert code == 0, err
    code, printed, err = run_cli(["rules", "--db", a, "--variant", "quick"])
    assert code == 0, err
    assert parse(printed, "printed.toml").values == parse(text, "quick.toml").values
    second = tmp_path / "printed.toml"
    second.write_text(printed)
    code, _, err = run_cli(["build", "-q", "--db", b, "--rules", second, *own])
    assert code == 0, err
    sums_a, sums_b = _checksums(a, "rolled_ones"), _checksums(b, "rolled_ones")
    assert len(sums_a["tables"]) >= 5 and sums_a == sums_b
    assert [v for v, _ in sums_a["variants"]] == ["goal8-dice5-ones3", "quick"]
    code, again, err = run_cli(["rules", "--db", b, "--variant", "quick"])
    assert code == 0 and again == printed


# ------------------------------------------------------------------ build beside what the database holds; lookups
TINY = """
game = "ten-thousand"
name = "tiny"
description = "three dice; a single 1 is 100, a single 5 is 50, three of a kind 100 x face (three 1s 1000)"
dice = 3
single = [100, 0, 0, 0, 50, 0]
triple = [1000, 200, 300, 400, 500, 600]
extra_dice = "add_triple"
kind_values = [0, 0, 0]
straight = 0
three_pairs = 0
three_pairs_with_four = false
four_and_pair = 0
two_triples = 0
triple_stands = false
hot_dice = true
hot_dice_clears_triple = true
opening_minimum = 0
goal = 1000
last_round = "others_one_turn_must_exceed"
unit = 50
two_player = true
"""


@pytest.fixture(scope="module")
def house_db(tmp_path_factory):
    """Presets first, then each rules file built beside them (a later build keeps earlier variants)."""
    from conftest import invoke_cli

    root = tmp_path_factory.mktemp("house")
    db = root / "house.duckdb"
    (root / "tiny.toml").write_text(TINY)
    (root / "low.toml").write_text(_threes_file(invoke_cli))
    (root / "short.toml").write_text(_rolled_file(invoke_cli))
    for args in (
        ["ten-thousand", "-o", 'ten-thousand.rules=["zilch"]', "-o", "ten-thousand.duel_rules=[]"],
        ["--rules", root / "tiny.toml"],
        ["--rules", root / "low.toml", "-o", "threes.max_players=3"],
        ["--rules", root / "short.toml", "-o", "rolled-ones.goal=20", "-o", "rolled-ones.turn_total_bound=70",
         "-o", "rolled-ones.komi_max=5"],
    ):
        code, _, err = invoke_cli(["build", "-q", "--db", db, *args])
        assert code == 0, err
    return db


def _threes_file(invoke_cli) -> str:
    code, text, _ = invoke_cli(["rules", "threes", "classic"])
    return (text.replace('name = "classic"', 'name = "low"').replace("dice = 5", "dice = 3")
            .replace("worth = [1, 2, 0, 4, 5, 6]", "worth = [0, 2, 3, 4, 5, 6]"))


def _rolled_file(invoke_cli) -> str:
    code, text, _ = invoke_cli(["rules", "rolled-ones"])
    return (text.replace('name = "standard"', 'name = "short"').replace("goal = 50", "goal = 15")
            .replace("turn_total_bound = 80", "turn_total_bound = 60").replace("komi_max = 10", "komi_max = 4"))


def test_house_variants_are_built_beside_the_presets_and_every_lookup_takes_variant(house_db, run_cli):
    db = ["--db", house_db]
    con = duckdb.connect(str(house_db), read_only=True)
    variants = con.execute("SELECT game, variant FROM build_variants ORDER BY game, variant").fetchall()
    con.close()
    assert ("ten_thousand", "zilch") in variants and ("ten_thousand", "tiny") in variants
    assert ("threes", "low") in variants and ("rolled_ones", "short") in variants
    for args in (
        ["ten-thousand", "odds", "--dice", "3", "--variant", "tiny"],
        ["ten-thousand", "best", "1", "5", "5", "--turn-total", "0", "--variant", "tiny"],
        ["ten-thousand", "best", "1", "5", "2", "--turn-total", "300", "--score", "200", "--opponent", "850",
         "--variant", "tiny"],
        ["ten-thousand", "state", "--score", "0", "--opponent", "0", "--turn-total", "0", "--dice", "3", "--variant", "tiny"],
        ["ten-thousand", "thresholds", "--variant", "tiny"],
        ["ten-thousand", "best", "1", "1", "5", "2", "3", "4", "--turn-total", "0", "--variant", "zilch"],
        ["threes", "best", "3", "1", "6", "--variant", "low"],
        ["threes", "expected", "--variant", "low"],
        ["rolled-ones", "best", "--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0", "--ones", "0",
         "--variant", "short"],
        ["rolled-ones", "komi", "--variant", "short"],
    ):
        code, out, err = run_cli([*args, *db, "--json"])
        assert code == 0, (args, err)
        json.loads(out)
    # the rules a database was built with print back as the file that built them
    for game, name, text in (("ten-thousand", "tiny", TINY), ("threes", "low", None), ("rolled-ones", "short", None)):
        code, out, err = run_cli(["rules", "--variant", name, *db])
        assert code == 0, err
        again = parse(out, "from-db.toml")
        assert again.name == name and again.game == game.replace("-", "_")
        if text:
            assert again.values == parse(text, "tiny.toml").values
    code, out, err = run_cli(["rules", "--variant", "nope", *db])
    assert code == 2 and "no variant 'nope'" in err


def test_python_api_takes_variant_exactly_as_rules(house_db):
    """Issue 8 §2: every Python lookup takes a variant name; for 10,000 ``variant=`` is ``rules=``,
    for a variant built from a file (tiny) and for a preset (zilch); both given and different is refused."""
    import dicebase
    from dicebase.query.base import BadInput

    with dicebase.open(str(house_db)) as db:
        tt = db.ten_thousand
        for name, dice in (("tiny", [1, 5, 5]), ("zilch", [1, 1, 5, 2, 3, 4])):
            by_variant = tt.best(dice, turn_total=0, variant=name)
            assert by_variant.as_dict() == tt.best(dice, turn_total=0, rules=name).as_dict()
            assert by_variant.rules == name and by_variant.actions
            assert tt.best(dice, turn_total=0, rules=name, variant=name).as_dict() == by_variant.as_dict()
            assert tt.odds(2, variant=name) == tt.odds(2, rules=name)
            assert tt.thresholds(variant=name) == tt.thresholds(rules=name)
            assert tt.classes(variant=name) == tt.classes(name)
        with pytest.raises(BadInput, match="differ"):
            tt.best([1, 5, 5], turn_total=0, rules="zilch", variant="tiny")


# ------------------------------------------------------------------ §5 brute force: the tiny rule set
@lru_cache(maxsize=None)
def _tiny_points(kept: tuple[int, ...]) -> int | None:
    """Independent scoring of kept dice (faces) under TINY: a triple of one face, or singles of 1 and 5."""
    if len(kept) == 3 and len(set(kept)) == 1:
        triple = 1000 if kept[0] == 1 else 100 * kept[0]
        singles = sum(100 if f == 1 else 50 for f in kept) if kept[0] in (1, 5) else 0
        return max(triple, singles)
    if all(f in (1, 5) for f in kept):
        return sum(100 if f == 1 else 50 for f in kept)
    return None


def _brute_force_turn(top: int = 6000):
    """V[k][n]: expected banked points of the optimal turn at turn total k (points) with n dice to roll,
    by enumerating all 6**n ordered rolls and every subset of kept dice; banking forced from ``top`` on."""
    V = {}
    roll_better = {}
    for k in range(top, -1, -50):
        for n in (3, 2, 1):
            if k >= top:
                V[k, n] = float(k)
                continue
            total = 0.0
            for roll in itertools.product(range(1, 7), repeat=n):
                best = 0.0  # a farkle loses the turn total
                for size in range(1, n + 1):
                    for idx in itertools.combinations(range(n), size):
                        pts = _tiny_points(tuple(roll[i] for i in idx))
                        if pts is None:
                            continue
                        left = n - size or 3  # hot dice: all three back
                        best = max(best, V[min(k + pts, top), left])
                total += best
            roll_value = total / 6**n
            V[k, n] = roll_value if k == 0 else max(float(k), roll_value)
            roll_better[k, n] = roll_value > k
    return V, roll_better


def test_tiny_rule_set_matches_brute_force(house_db):
    """Optimal turn value and every bank threshold of a 3-dice, two-scoring-faces rule set built from a
    file, against exhaustive enumeration of ordered rolls and kept subsets."""
    V, roll_better = _brute_force_turn()
    higher, _ = _brute_force_turn(top=8000)  # the brute force's own forced-bank total is harmless
    assert all(V[k, n] == pytest.approx(higher[k, n], rel=1e-12) for k in range(0, 3000, 50) for n in (1, 2, 3))
    con = duckdb.connect(str(house_db), read_only=True)
    (optimal,) = con.execute(
        "SELECT expected_points FROM ten_thousand_policy_turn WHERE rules = 'tiny' AND policy = 'optimal'"
    ).fetchone()
    rows = con.execute(
        "SELECT turn_total, dice, action, value FROM ten_thousand_solitaire WHERE rules = 'tiny' AND triple = 0"
    ).fetchall()
    con.close()
    assert optimal == pytest.approx(V[0, 3], rel=1e-12)
    assert len(rows) >= 3 * 5
    for k, n, action, value in rows:
        assert value == pytest.approx(V[k, n], rel=1e-12, abs=1e-9), (k, n)
        if k > 0:
            assert (action == "roll") == roll_better[k, n], (k, n)
    # the thresholds: per dice count, the smallest turn total from which banking is optimal
    for n in (1, 2, 3):
        brute = min(k for k in range(50, 6000, 50) if not roll_better[k, n])
        past = max(k for k, *_ in rows) + 50  # banking is proved optimal past the stored turn totals
        stored = min([k for k, d, a, _ in rows if d == n and k > 0 and a == "bank"] + [past])
        assert stored == brute


# ------------------------------------------------------------------ §5 property tests on random rule files
def _multiples(unit, top):
    return st.integers(0, top // unit).map(lambda m: m * unit)


@st.composite
def rule_files(draw):
    unit = draw(st.sampled_from([25, 50, 100]))
    dice = draw(st.integers(1, 6))
    values = {
        "description": "random", "source": "", "dice": dice,
        "single": [draw(_multiples(unit, 200)) for _ in range(6)],
        "triple": [draw(_multiples(unit, 1000)) for _ in range(6)],
        "extra_dice": draw(st.sampled_from(["add_triple", "double", "fixed"])),
        "three_pairs_with_four": draw(st.booleans()), "triple_stands": draw(st.booleans()),
        "hot_dice": draw(st.booleans()), "hot_dice_clears_triple": draw(st.booleans()),
        "opening_minimum": draw(_multiples(unit, 1000)), "goal": unit * draw(st.integers(1, 40)),
        "last_round": "others_one_turn_must_exceed", "unit": unit, "two_player": False,
    }
    values["kind_values"] = [draw(_multiples(unit, 3000)) for _ in range(3)] if values["extra_dice"] == "fixed" else [0, 0, 0]
    for key in ("straight", "three_pairs", "four_and_pair", "two_triples"):
        values[key] = draw(_multiples(unit, 2500)) if dice == 6 else 0
    return values


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rule_files())
def test_random_valid_rule_files_solve_within_the_proven_bound(values):
    from dicebase.builder.ten_thousand import solitaire
    from dicebase.numeric.ten_thousand_turn import transitions

    try:
        rules = TT.from_file("random", values)
    except ValueError:
        assume(False)
    text = dump("ten_thousand", "random", values, "random")
    assert parse(text, "random.toml").rules() == rules  # the file round-trips
    sol = solitaire.solve(rules)  # terminates
    K = sol.bound
    assert K == solitaire.bank_bound(rules)  # the proven bound, and the rules layer's estimate of it
    assert abs(TT.bank_bound_points(rules) / rules.unit - K) < 1 + 1e-9
    import numpy as np

    value, roll = sol.value, sol.roll
    k = np.arange(value.shape[0])[:, None]  # the turn total of each row (arrays: a bound can be 10^5 rows)
    max_pts = max(tr.max_pts for tr in transitions(rules))
    # bounded: at least the turn total (bank) from turn total 1 on, at most the bound plus one roll's points
    assert (k[1:] - 1e-9 <= value[1:]).all()
    assert (value <= K + max_pts + 1e-9).all()
    # monotone threshold: once banking is optimal (from turn total 1 on), it stays optimal at every larger one
    for s in range(value.shape[1]):
        banks = np.flatnonzero(~roll[1:, s]) + 1
        if banks.size:
            assert not roll[banks[0]:, s].any()
    assert not roll[K:].any()  # banking from the proven bound on
