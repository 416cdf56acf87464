"""Issue 24: the Farkle family's rule options in the rules layer (docs/farkle.md).

Every option defaults to the behaviour before it existed (a preset is stored as before), every bad
value is refused with one line naming the rules-file key, and the rule files in rules/ are the presets.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from dicebase.rules import files
from dicebase.rules.ten_thousand import (
    FARKLE_OPTIONS, PRESETS, RuleSet, check_options, from_file, legal_keeps, options_text, to_file, validate_options,
)

ROOT = Path(__file__).resolve().parent.parent
OLD = ("ten-thousand", "farkle", "farkle-additive", "zilch")
NEW = ("zilch-playr", "minimal-farkle", "facebook-farkle")


def test_defaults_are_the_old_behaviour():
    """The options' defaults leave the old presets' stored rules (rules_json) as they were."""
    for name in OLD:
        d = PRESETS[name].as_dict()
        assert not set(FARKLE_OPTIONS) & set(d), name
        assert d["last_round"] == "others_one_turn_must_exceed"
        assert PRESETS[name].farkle_options == {}


@pytest.mark.parametrize("name", NEW)
def test_rule_files_are_the_presets(name):
    """rules/NAME.toml (the repository's rule files) reads back as the preset."""
    house = files.load(ROOT / "rules" / f"{name}.toml")
    assert house.name == name
    assert from_file(name, house.values) == PRESETS[name]
    assert from_file(name, to_file(PRESETS[name])) == PRESETS[name]


def test_old_rule_files_still_load():
    """A rules file written before the options (none of their keys) builds with the defaults."""
    values = {k: v for k, v in to_file(PRESETS["farkle"]).items() if k not in FARKLE_OPTIONS}
    assert from_file("farkle", values) == PRESETS["farkle"]


@pytest.mark.parametrize("change, says", [
    (dict(last_round="sudden_death"), "last_round: unknown rule"),
    (dict(farkle_count_reset="never"), "farkle_count_reset: unknown rule"),
    (dict(farkle_penalty_after=0), "farkle_penalty_after: must be 1..5"),
    (dict(lowest_score=100), "lowest_score: must be -20000..0"),
    (dict(bank_minimum=-50), "bank_minimum: must be a whole number of points >= 0"),
    (dict(compensation=10_000), "compensation: 10000 would put the second player at the goal"),
    (dict(no_score_bonus=500, hot_dice=False), "no_score_bonus: its free roll needs hot_dice"),
    (dict(farkle_penalty=125), "not multiples of the unit 50"),
])
def test_bad_options_one_line(change, says):
    with pytest.raises(ValueError) as info:
        replace(PRESETS["farkle"], **change)
    assert says in str(info.value) and "\n" not in str(info.value)


def test_bad_option_in_a_rules_file_names_the_key(tmp_path):
    text = (ROOT / "rules" / "zilch-playr.toml").read_text().replace("bank_minimum = 300", "bank_minimum = 310")
    path = tmp_path / "z.toml"
    path.write_text(text)
    with pytest.raises(files.RulesFileError) as info:
        files.load(path)
    assert r"bank_minimum (line " in str(info.value) and "310 is not a multiple of the unit 50" in str(info.value)


def test_two_player_refuses_what_it_does_not_model():
    """The two-player (and N-player) solves refuse the options they do not model, in one line."""
    with pytest.raises(ValueError, match="no-score bonus only with last_round"):  # zilch-playr: a last round
        validate_options({"rules": ["zilch-playr"], "duel_rules": ["zilch-playr"], "goal": 1000, "house_rules": {}})
    validate_options({"rules": ["facebook-farkle"], "duel_rules": ["facebook-farkle"], "goal": 1000,
                      "house_rules": {}})  # issue 24: the penalty, the bank minimum are solved for two players
    ok = {"rules": ["minimal-farkle"], "duel_rules": ["minimal-farkle"], "goal": 1000, "house_rules": {}}
    validate_options(ok)
    with pytest.raises(ValueError, match="the N-player solve does not support last_round"):
        validate_options({**ok, "players": [3]})
    assert [r.name for r in check_options(ok)[1]] == ["minimal-farkle"]


def test_no_score_bonus_is_a_keep_of_every_die():
    """A roll of six dice that scores nothing is worth the bonus and all six dice again (zilch-playr);
    without the bonus (zilch) it is a farkle; with fewer dice it is a farkle either way."""
    roll = (0, 2, 2, 0, 0, 2)  # 2 2 3 3 6 6 is three pairs: scores; 2 2 3 4 6 6 does not
    nothing = (0, 2, 1, 1, 0, 2)
    assert legal_keeps(PRESETS["zilch-playr"], roll, 6, 0)[0].points == 1500
    [bonus] = legal_keeps(PRESETS["zilch-playr"], nothing, 6, 0)
    assert (bonus.points, bonus.n_after, bonus.t_after) == (500, 6, 0)
    assert legal_keeps(PRESETS["zilch"], nothing, 6, 0) == []
    assert legal_keeps(PRESETS["zilch-playr"], (0, 2, 1, 1, 0, 0), 4, 0) == []


def test_rules_in_words():
    """A preset's page shows its rules in words (docs/farkle.md): every option it sets is said."""
    text = " ".join(options_text(PRESETS["zilch-playr"]))
    for says in ("at least 300 points", "500 points and a free roll", "3rd farkle in a row costs 500",
                 "one more turn and must end it above"):
        assert says in text
    assert "wins at once" in " ".join(options_text(PRESETS["minimal-farkle"]))
    assert options_text(RuleSet("x", "", "", compensation=200))[-1] == "The second player starts with 200 points."
