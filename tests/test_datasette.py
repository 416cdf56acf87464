"""`dicebase export --format datasette`: served by Datasette's own test client (no server).

A table page shows the column descriptions; each canned query returns the rows
the CLI prints for the same lookup, best first.
"""

from __future__ import annotations

import asyncio
import html
import json

import pytest

from test_other_tools import ALL_GAMES, SMALL_ALL

datasette_app = pytest.importorskip("datasette.app", reason="datasette is in the test extra")


@pytest.fixture(scope="session")
def site(built_db, tmp_path_factory):
    """(database path, exported directory) for all three games, small."""
    from conftest import invoke_cli

    db = built_db(ALL_GAMES, "duckdb", SMALL_ALL)
    out = tmp_path_factory.mktemp("datasette") / "site"
    code, stdout, err = invoke_cli(["export", "-q", "--format", "datasette", "--out", out, "--db", db])
    assert code == 0, err
    return db, out


def get(site_dir, path: str):
    """GET ``path`` from a Datasette serving the export with its metadata.json."""
    ds = datasette_app.Datasette(
        [str(site_dir / "dicebase.sqlite")],
        metadata=json.loads((site_dir / "metadata.json").read_text()),
    )

    async def fetch():
        return await ds.client.get(path)

    return asyncio.run(fetch())


def canned(site_dir, name: str, **params) -> list[dict]:
    from urllib.parse import urlencode

    response = get(site_dir, f"/dicebase/{name}.json?{urlencode(params)}&_shape=array")
    assert response.status_code == 200, response.text
    return response.json()


def cli_json(db, *args) -> dict:
    from conftest import invoke_cli

    code, out, err = invoke_cli([*args, "--db", db, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_export_writes_the_sqlite_file_and_metadata(site):
    _, out = site
    assert sorted(p.name for p in out.iterdir()) == ["dicebase.sqlite", "metadata.json"]
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["title"] == "dicebase" and "002" in meta["source"] and meta["description"]
    tables = meta["databases"]["dicebase"]["tables"]
    assert "threes_chances" in tables and "rolled_ones_fair_komi" in tables  # views too
    assert tables["threes_win"]["columns"]["p_win"].startswith("probability")


def test_a_table_page_shows_its_column_descriptions(site):
    _, out = site
    page = get(out, "/dicebase/threes_seats")
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert "Objective (d): win probability of every seat" in text  # the table's description
    assert "seat in turn order, 1 = plays first" in text  # a column's description
    view = html.unescape(get(out, "/dicebase/rolled_ones_fair_komi").text)
    assert "komi" in view


@pytest.mark.parametrize(
    "roll, score, to_beat, players_after, ties",
    [("4 3 1 1 2", 0, 7, 1, "shared"), ("6 5 1 2 4", 0, 12, 1, "strict"), ("5 3 2", 3, 9, 0, "shared"),
     ("6 6 5 4 2", 0, None, 1, "shared")],  # None: nobody has finished (threes_variants.no_target, 31)
)
def test_threes_best_keep_matches_the_cli(site, roll, score, to_beat, players_after, ties):
    db, out = site
    rows = canned(out, "threes_best_keep", variant="classic", roll=roll, score=score,
                  to_beat=31 if to_beat is None else to_beat, players_after=players_after, ties=ties,
                  must_keep_two="false")
    target = [] if to_beat is None else ["--to-beat", to_beat]
    answer = cli_json(db, "threes", "best", *roll.split(), "--score", score, *target,
                      "--players-after", players_after, "--ties", ties)
    assert [(r["keep"], r["p_win"]) for r in rows] == [
        (" ".join(map(str, a["keep"])), a["value"]) for a in answer["actions"]
    ]
    assert len(rows) == len(roll.split())


@pytest.mark.parametrize(
    "player, score, opponent, turn_total, ones",
    [(1, 10, 12, 8, 1), (2, 5, 15, 0, 0), (2, 10, 22, 8, 1)],  # the last: player 2's final turn
)
def test_rolled_ones_best_action_matches_the_cli(site, player, score, opponent, turn_total, ones):
    db, out = site
    answer = cli_json(db, "rolled-ones", "best", "--player", player, "--score", score, "--opponent", opponent,
                      "--turn-total", turn_total, "--ones", ones)
    rows = canned(out, "rolled_ones_best_action", variant=answer["variant"], player=player, score=score,
                  opponent=opponent, turn_total=turn_total, ones=ones)
    assert [(r["action"], r["p_win"]) for r in rows] == [(a["action"], a["p_win"]) for a in answer["actions"]]


@pytest.mark.parametrize("roll, turn_total", [("1 1 5 2 3 4", 0), ("1 5 5", 300), ("2 2 2 3 4", 50)])
def test_ten_thousand_best_keep_matches_the_cli(site, roll, turn_total):
    db, out = site
    answer = cli_json(db, "ten-thousand", "best", *roll.split(), "--turn-total", turn_total)
    rows = canned(out, "ten_thousand_best_keep", rules="ten-thousand", roll="".join(sorted(roll.split())),
                  turn_total=turn_total, triple=0)
    expected = [("".join(map(str, a["keep"])), a["points"], a["value"], a["then"]) for a in answer["actions"]]
    assert [(r["keep"], r["points"], r["value"], r["then_action"]) for r in rows] == expected and expected


@pytest.mark.parametrize("roll, turn_total, score, opponent", [("1 5 5", 150, 300, 200), ("1 1 5 2 3 4", 0, 0, 0)])
def test_ten_thousand_best_keep_to_win_matches_the_cli(site, roll, turn_total, score, opponent):
    db, out = site
    answer = cli_json(db, "ten-thousand", "best", *roll.split(), "--turn-total", turn_total, "--score", score,
                      "--opponent", opponent)
    rows = canned(out, "ten_thousand_best_keep_to_win", rules="ten-thousand", roll="".join(sorted(roll.split())),
                  turn_total=turn_total, triple=0, score=score, opponent=opponent)
    expected = [("".join(map(str, a["keep"])), a["points"], a["value"], a["then"]) for a in answer["actions"]]
    assert [(r["keep"], r["points"], r["value"], r["then_action"]) for r in rows] == expected and expected
