"""Threes build options: checked by validate_options before the pipeline touches any file."""

from __future__ import annotations

import pytest

from dicebase.builder import pipeline
from dicebase.builder import threes as T


def merged(**changes):
    return {**T.DEFAULT_OPTIONS, **changes}


@pytest.mark.parametrize(
    "changes, fragment",
    [
        (dict(max_players=21), "threes.max_players must be 2..20"),
        (dict(max_players=1), "threes.max_players must be 2..20"),
        (dict(max_players=0), "threes.max_players must be 2..20"),
        (dict(max_players=10**9), "threes.max_players must be 2..20"),
        (dict(max_players=True), "threes.max_players must be a whole number"),
        (dict(max_players=2.5), "threes.max_players must be a whole number"),
        (dict(max_players="six"), "threes.max_players must be a whole number"),
        (dict(max_players=None), "threes.max_players must be a whole number"),
        (dict(dice=9), "threes.dice must be 1..8"),
        (dict(dice=0), "threes.dice must be 1..8"),
        (dict(faces=2), "threes.faces 3..12"),
        (dict(faces=[6]), "threes.faces must be a whole number"),
        (dict(dice=8, faces=12), "million decision states, over the limit of 40 million"),
        (dict(dice=6, faces=8), "lower dice, faces or max_players"),
        (dict(variants=5), "threes.variants must be a non-empty list"),
        (dict(variants=[]), "threes.variants must be a non-empty list"),
        (dict(variants=["classic", 3]), "threes.variants must be a non-empty list"),
        (dict(variants=["fancy"]), "threes.variants: unknown ['fancy']"),
        (dict(ties="sometimes"), "threes.ties: unknown ['sometimes']"),
        (dict(ties={"shared": 1}), "threes.ties must be a non-empty list"),
        (dict(ties=[]), "threes.ties must be a non-empty list"),
    ],
)
def test_validate_options_rejects(changes, fragment):
    with pytest.raises(ValueError) as info:
        T.validate_options(merged(**changes))
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "changes",
    [dict(), dict(max_players=2), dict(max_players=T.MAX_PLAYERS), dict(variants="reroll", ties="strict"),
     dict(dice=3, faces=4), dict(dice=6, faces=6, max_players=12)],
)
def test_validate_options_accepts(changes):
    T.validate_options(merged(**changes))


def test_duplicates_are_dropped():
    # a repeated tie rule used to solve and write the same rows twice (a key violation late in the build)
    max_players, variants, ties = T.check_options(merged(variants=["classic", "classic"], ties=["strict", "strict"]))
    assert list(variants) == ["classic"] and ties == ["strict"]


def test_decision_state_count_of_the_default_build():
    # docs/threes.md: 5,149,440 decision states (rows of threes_win_decisions) in the default build
    assert T.decision_states(T.VARIANTS.values(), 12, 2) == 5_149_440


@pytest.mark.parametrize("options", [dict(max_players=50), dict(ties=["shared", "never"]), dict(dice=8, faces=12)])
def test_pipeline_refuses_before_touching_files(tmp_path, options):
    target = tmp_path / "sub" / "threes.duckdb"
    with pytest.raises(pipeline.BuildError) as info:
        pipeline.build(["threes"], f"duckdb:///{target}", quiet=True, options={"threes": options})
    assert "threes" in str(info.value) and "\n" not in str(info.value)
    assert not target.parent.exists()  # not even the directory


def test_cli_build_refuses_with_one_line(run_cli, tmp_path):
    target = tmp_path / "x.duckdb"
    code, out, err = run_cli(["build", "threes", "--db", str(target), "-q", "-o", "threes.max_players=21"])
    assert code == 2 and "threes.max_players must be 2..20" in err and len(err.strip().splitlines()) == 1
    assert not target.exists()
