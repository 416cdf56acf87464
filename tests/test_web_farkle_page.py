"""Issue 24: the 10,000 phone page with both farkle counts of a two-player game with a consecutive-farkle penalty.

For a penalty rule set whose two-player game is built the page offers "Your farkles in a row" and "Opponent's farkles"
(in a row, 0 .. farkle_penalty_after - 1) and scores down to the rule set's lowest_score, and passes the
counts to the lookup (``best --farkles A,B``).  The build is tests/test_farkle_penalty_db.py's (the same
``built_db`` options, so a run builds it once): Facebook Farkle's rules to 500 (first to the goal wins; the third
farkle in a row costs 500, scores down to -350) and the same with a last round.  Every number the page shows is
checked against the Python API; the browser test drives the page on a 360 px phone screen in the system Chromium.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402
from test_farkle_penalty_db import FB, FB_EXCEED, OPTIONS  # noqa: E402  (the same build)
from test_web_browser import _check_phone_layout, browser, phone  # noqa: E402,F401  (fixtures reused)
from test_web_nplayer_pages import _shot, _submit  # noqa: E402


@pytest.fixture(scope="module")
def path(built_db):
    return built_db(("ten_thousand",), "duckdb", OPTIONS)


@pytest.fixture(scope="module")
def client(path):
    with TestClient(create_app(dicebase.open(f"duckdb:///{path}"))) as made:
        yield made


@pytest.fixture(scope="module")
def db(path):
    with dicebase.open(f"duckdb:///{path}") as opened:
        yield opened


def _values(text: str) -> list[str]:
    return re.findall(r'<span class="value">([^<]*)</span>', text)


def test_the_form_offers_both_farkle_counts(client):
    text = client.get(f"/ten-thousand?rules={FB.name}").text
    for field in ("farkles", "opponent_farkles"):
        options = re.search(rf'<select id="{field}" name="{field}">(.*?)</select>', text).group(1)
        assert re.findall(r'<option value="(\d)"', options) == ["0", "1", "2"]  # the 3rd in a row costs the penalty
    assert 'id="score" name="score" type="number" inputmode="numeric" min="-350"' in text
    assert "Farkles in a row before this roll; the 3rd in a row costs 500 points; scores can fall to -350." in text


@pytest.mark.parametrize("rs", (FB, FB_EXCEED), ids=lambda rs: rs.name)
def test_every_keep_with_the_farkle_counts(client, db, rs):
    """A roll at a score below 0 with two farkles in a row (the next costs the penalty): every keep, valued as
    ``best --farkles 2,1`` values it (with a last round too), and the farkle's worth."""
    text = client.get(f"/ten-thousand?rules={rs.name}&dice=1+5+2+2+3+4&turn_total=0&score=-300&opponent=200"
                      "&farkles=2&opponent_farkles=1").text
    want = db.ten_thousand.best([1, 5, 2, 2, 3, 4], turn_total=0, score=-300, opponent=200, rules=rs.name,
                                farkles=[2, 1])
    assert _values(text) == [f"{a.value:.4f}" for a in want.actions]
    assert (f"Farkles in a row: you 2, the opponent 1; a farkle now leaves you a chance of "
            f"{want.farkle_value:.4f} (it costs the penalty).") in text
    assert '<option value="2" selected>2</option>' in text
    # the counts matter: no farkles in a row gives other values
    other = client.get(f"/ten-thousand?rules={rs.name}&dice=1+5+2+2+3+4&turn_total=0&score=-300&opponent=200"
                       "&farkles=0&opponent_farkles=0").text
    assert _values(other) != _values(text) and "you 0, the opponent 0" in other


def test_a_count_out_of_range_is_a_line_on_the_page(client):
    text = client.get(f"/ten-thousand?rules={FB.name}&dice=1+5+2+2+3+4&score=0&opponent=0&farkles=3").text
    assert re.findall(r'role="alert">([^<]*)', text) == [
        "--farkles must be two counts A,B from 0 to 2 (farkles in a row: the mover&#39;s, the opponent&#39;s; the 3rd "
        "costs the penalty), got 3,0"]


def test_solitaire_and_other_rule_sets_have_no_counts(client, built_db):
    """Without the scores the page answers the one turn (count 0's turn), as before; a rule set without a penalty
    shows no count fields."""
    text = client.get(f"/ten-thousand?rules={FB.name}&dice=1+5+2+2+3+4").text
    assert "Farkles in a row:" not in text and _values(text)
    with TestClient(create_app(dicebase.open(f"duckdb:///{built_db(('ten_thousand',))}"))) as plain:
        assert 'id="farkles"' not in plain.get("/ten-thousand").text


def test_farkle_counts_on_a_phone(phone, path, db, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", f"duckdb:///{path}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert " at http://" in line, line + proc.stderr.read()
        base = line.split(" at ")[1].split("/ ")[0]
        phone.goto(f"{base}/ten-thousand?rules={FB.name}")
        _check_phone_layout(phone)
        phone.fill("#score", "-300")
        phone.fill("#opponent", "200")
        phone.select_option("#farkles", "2")
        phone.select_option("#opponent_farkles", "1")
        phone.fill("#dice", "152234")
        _submit(phone)
        want = db.ten_thousand.best([1, 5, 2, 2, 3, 4], turn_total=0, score=-300, opponent=200, rules=FB.name,
                                    farkles=[2, 1])
        assert phone.locator("ol.keeps li").count() == len(want.actions)
        assert phone.locator("ol.keeps .value").first.inner_text() == f"{want.actions[0].value:.4f}"
        assert f"{want.farkle_value:.4f} (it costs the penalty)" in phone.locator(".farkle-note").inner_text()
        assert "farkles=2" in phone.url and "opponent_farkles=1" in phone.url
        assert phone.locator("#farkles").input_value() == "2"  # the form keeps the counts
        _check_phone_layout(phone)
        _shot(phone, tmp_path, "ten-thousand-farkle-counts-phone.png")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
