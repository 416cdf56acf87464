"""Pig on the web (issue 31): the phone page in a real Chromium at 360 px (the fixtures of
tests/test_web_browser.py), linked from the home page through the descriptor; the HTTP API generated from the
CLI gives the CLI's JSON; the play page plays Pig to its end."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import dicebase
from dicebase.web.app import create_app

from test_web_browser import _check_phone_layout, _tap, browser, phone, served  # noqa: F401  (the fixtures)

#: Two players at goal 100, the build of tests/test_pig_db.py (the same options: one build per session).
GOAL100 = {"pig": {"variants": ["pig"], "house_rules": {}, "players": [2], "policy_players": [2]}}


@pytest.fixture(scope="module")
def pig100(built_db):
    return built_db(("pig",), "duckdb", GOAL100)


def test_pig_page_on_a_phone(phone, served, built_db, tmp_path):  # noqa: F811
    """Three seats of pig6 (Pig's die, goal 6; the tests' build): every seat's score, the seat to move and the
    turn total typed in; both actions ranked with every seat's chance, equal to `pig best --json`; the player
    counts built; no horizontal scrolling at 360 px and every field labelled."""
    base = served("pig")
    phone.goto(f"{base}/")
    _tap(phone, 'a.card[href="/pig"]')
    _check_phone_layout(phone)
    phone.select_option("#variant", "pig6")
    phone.select_option("#players", "3")  # submits the form
    phone.wait_for_url("**players=3**")
    assert [o.inner_text() for o in phone.locator("#players option").all()] == ["2 players", "3 players"]
    for seat, score in ((1, "2"), (2, "0"), (3, "3")):
        phone.fill(f"#score{seat}", score)
    phone.select_option("#player", "2")
    phone.fill("#turn_total", "2")
    with phone.expect_navigation():
        phone.click("button[type=submit]")
    _check_phone_layout(phone)
    with dicebase.open(built_db(("pig",))) as db:
        want = db.pig.best([2, 0, 3], 2, 2, variant="pig6")
    assert phone.locator(".verdict").inner_text() == want.best.upper()
    assert [li.locator(".what").inner_text() for li in phone.locator("ol.keeps li").all()] == \
        [a.action for a in want.actions]
    rows = phone.locator("table.seat-wins tbody tr")
    assert rows.count() == 2
    for row, action in zip(rows.all(), want.actions):
        assert [td.inner_text() for td in row.locator("td").all()] == [f"{p:.4f}" for p in action.p_wins]
    text = phone.locator("main").inner_text()
    assert "3 players: each seat's chance, and a fair start" in text and "Simple policies against optimal play" in text
    shot = tmp_path / "pig-phone.png"
    phone.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICEBASE_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / "pig-phone.png")


def test_a_bad_position_is_one_line_on_the_page(phone, served):  # noqa: F811
    phone.goto(served("pig") + "/pig?variant=pig6&score1=0&score2=0&player=1&turn_total=1")
    _check_phone_layout(phone)
    assert phone.locator(".error").inner_text() == "turn total 1 cannot occur (each roll adds one of 2, 3, 4, 5, 6)"


def test_the_api_answers_the_cli_json(pig100, run_cli):
    """GET /api/v1/pig/best (generated from the CLI) equals `dicebase pig best --json`, and so do seats and
    policies; a bad position is the CLI's line with 400."""
    code, out, err = run_cli(["pig", "best", "--scores", "30,41", "--player", "2", "--turn-total", "13", "--json",
                              "--db", str(pig100)])
    assert code == 0, err
    with TestClient(create_app(dicebase.open(f"duckdb:///{pig100}"))) as client:
        got = client.get("/api/v1/pig/best?scores=30,41&player=2&turn_total=13")
        assert got.status_code == 200 and got.json() == json.loads(out)
        for path, args in (("seats", []), ("policies", ["--players", "2"])):
            code, out, err = run_cli(["pig", path, *args, "--json", "--db", str(pig100)])
            assert client.get(f"/api/v1/pig/{path}?{'players=2' if args else ''}").json() == json.loads(out)
        bad = client.get("/api/v1/pig/best?scores=30,41&player=2&turn_total=1")
        code, out, err = run_cli(["pig", "best", "--scores", "30,41", "--player", "2", "--turn-total", "1",
                                  "--db", str(pig100)])
        assert bad.status_code == 400 and code == 2 and err == f"Error: {bad.json()['error']}\n"
        play = client.get("/play/pig?bots=optimal&seat=1&seed=3&moves=" + ",".join(["h"] * 60))
        assert play.status_code == 200 and "wins; you" in play.text  # played to its end through the one game loop
