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
    if games.game(name).pages:  # a game may have no page
        assert callable(games.load(name, "pages"))
    if games.game(name).bots:
        from dicebase.bots import GameBots

        assert isinstance(games.load(name, "bots"), GameBots)


def test_a_toy_game_is_played_paged_and_queried_through_its_descriptor():
    """Bots, tournaments, simulations, play, the pages' routes and the Datasette metadata find a game by its
    descriptor alone (tests/toy_game_play.py: one module standing for a game's bots, play, page and layout)."""
    import types

    import toy_game_play
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from dicebase import bots
    from dicebase.bots.play import play
    from dicebase.builder import datasette
    from dicebase.errors import BadInput
    from dicebase.web import pages

    class Db:  # the toy's engine reads nothing; the bots keep their engines per open database
        pass

    toy_game_play.register()
    try:
        db = Db()
        assert bots.bot_names("toy-toss") == toy_game_play.BOTS
        result = bots.tournament(db, "toy-toss", ["coin"] * 3)
        assert [s.p_win for s in result.seats] == [1 / 3] * 3 and result.unit == "game"
        run = bots.simulate(db, "toy_toss", ["coin", "coin"], rounds=2000, seed=1)
        assert sum(s.wins for s in run.seats) == 2000 and run.outside == 0
        with pytest.raises(BadInput, match="takes 2 to 3 players"):
            bots.tournament(db, "toy-toss", ["coin"] * 4)
        with pytest.raises(BadInput, match="it is a toy-toss bot"):
            bots.tournament(db, "threes", ["win", "coin"])
        asked = []
        review = play(db, "toy-toss", ["coin"], 2, lambda prompt: asked.append(prompt) or "", lambda text: None)
        assert asked == ["toss? "] and review.game == "toy-toss" and review.result.startswith("scores [")

        server = types.SimpleNamespace(name="a test server", etag="x", not_modified=lambda request: False)
        with TestClient(Starlette(routes=pages.routes(server))) as client:
            assert client.get("/toy-toss").text == "toss page of a test server"

        doc = datasette.metadata([], ["threes", "toy_toss"])
        assert list(doc["databases"]["dicebase"]["queries"]) == ["threes_best_keep", "toy_toss_heads"]
        assert doc["source"].endswith(", " + toy_game_play.SOURCE) and "Toss)." in doc["description"]
    finally:
        toy_game_play.unregister()
    assert "toy_toss" not in games.names() and "toy_toss_heads" not in datasette.canned_queries(games.names())


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
