"""The game descriptors (dicebase.games): every list of games is derived from them, and each game's
module in a layer implements that layer's Protocol."""

from __future__ import annotations

import pytest

from dicebase import games

NAMES = games.names()


def test_every_list_of_games_is_the_descriptors():
    from dicebase import plots, rules, schema
    from dicebase.builder import registry
    from dicebase.cli import GAME_GROUPS
    from dicebase.cli.run import READ_ONLY_COMMANDS
    from dicebase.query.games import QUERIES
    from dicebase.web import pages, warm

    assert NAMES == ["threes", "rolled_ones", "ten_thousand", "pig"]
    assert list(rules.GAMES) == list(schema.GAME_SCHEMAS) == list(registry.GAMES) == list(QUERIES) == NAMES
    assert list(GAME_GROUPS) == games.cli_names() and set(GAME_GROUPS) <= READ_ONLY_COMMANDS
    assert [key for key, *_ in pages.GAMES] == games.names("pages")
    assert set(warm.HELD_GAMES) == {"rolled_ones", "ten_thousand"}
    assert {spec.game for spec in plots.FIGURES.values()} == set(games.names("figures"))
    assert [games.game(n).cli_name for n in NAMES] == ["threes", "rolled-ones", "ten-thousand", "pig"]
    assert games.game("Rolled-Ones") is games.game("rolled_ones")


@pytest.mark.parametrize("name", NAMES)
def test_each_game_module_implements_its_layer(name):
    import click

    from dicebase.builder.registry import GameBuilder
    from dicebase.query.games import GameQueries

    assert isinstance(games.load(name, "builder"), GameBuilder)
    assert issubclass(games.load(name, "query").Queries, GameQueries)
    assert isinstance(games.load(name, "cli").group, click.Group)
    assert games.load(name, "cli").group.name == games.game(name).cli_name
    assert isinstance(games.load(name, "schema").VIEWS, (list, tuple))
    if games.game(name).pages:  # a game may have no page yet (Pig, issue 31)
        assert callable(games.load(name, "pages"))


def test_a_registered_game_joins_every_live_list_and_leaves_again():
    from dicebase import schema
    from dicebase.builder import registry

    toy = games.Game("descriptor_toy", "Descriptor toy", schema="dicebase.schema.threes")
    assert games.register(toy) is toy and games.register(toy) is toy  # the same descriptor again: a no-op
    try:
        assert "descriptor_toy" in schema.GAME_SCHEMAS and "descriptor_toy" not in registry.GAMES
        assert games.names()[-1] == "descriptor_toy"
        with pytest.raises(ValueError):
            games.register(games.Game("descriptor_toy", "Another"))
        with pytest.raises(KeyError):
            games.load("descriptor_toy", "builder")
    finally:
        games.unregister("descriptor_toy")
    assert "descriptor_toy" not in schema.GAME_SCHEMAS and games.names() == NAMES
    with pytest.raises(ValueError):
        games.unregister("threes")
