"""The phone page "play against the bots" with two or more bots (issue 23, item 5): /play/rolled-ones and
/play/ten-thousand offer as many bots as the file's N-player tables allow, play the N-player game and end in
the same review as ``dicebase play`` (the same code, replayed from the address).

Builds: those of tests/test_web_nplayer_pages.py (Great Rolled Ones at goal 20, the ten-thousand preset at
goal 250, 2 and 3 players; its ``paths`` and ``served_n`` fixtures are reused) and the plain test builds.
The browser tests play on a 360 px phone screen in the system's Chromium (skipped without it, except under
CI=true); screenshots go to $DICEBASE_SCREENSHOTS when set.
"""

from __future__ import annotations

import os
import re
import shutil
from html import unescape
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.bots.play import play  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402
from test_web_browser import _check_phone_layout, _tap, browser, phone  # noqa: E402,F401  (fixtures)
from test_web_nplayer_pages import paths, served_n  # noqa: E402,F401  (fixtures: the same builds)


@pytest.fixture(scope="module")
def clients(paths, built_db):
    made = {}
    for game, path in [*paths.items(), *[(f"plain_{g}", built_db((g,))) for g in ("rolled_ones", "ten_thousand")]]:
        made[game] = TestClient(create_app(dicebase.open(f"duckdb:///{path}")))
        made[game].__enter__()
    yield made
    for client in made.values():
        client.__exit__(None, None, None)


def _answers(game: str, path, bots: list[str], seat: int, seed: int, answer) -> tuple[list[str], object]:
    """Play the game in Python: (the answers given, the review)."""
    given: list[str] = []

    def ask(prompt):
        given.append(answer(prompt))
        return given[-1]

    with dicebase.open(f"duckdb:///{path}") as db:
        review = play(db, game, bots, seat, ask, lambda text: None, seed=seed)
    return given, review


def _ro_answer(prompt: str) -> str:
    return "h" if int(re.search(r"turn total (\d+)", prompt).group(1)) >= 8 else "r"


def _tt_answer(prompt: str) -> str:
    if "keep which" in prompt:
        return "1"
    return "b" if int(re.search(r"turn total (\d+)", prompt).group(1)) >= 350 else "r"


def _review_costs(html: str) -> list[str]:
    return re.findall(r"— cost (\d\.\d{4})", unescape(html))


@pytest.mark.parametrize("game,answer,seed", [("rolled-ones", _ro_answer, 1), ("ten-thousand", _tt_answer, 11)])
def test_three_players_page_ends_in_the_review_of_the_game(clients, paths, game, answer, seed):
    key = game.replace("-", "_")
    moves, review = _answers(game, paths[key], ["optimal", "optimal"], 2, seed, answer)
    page = clients[key].get(f"/play/{game}?bots=optimal,optimal&seat=2&seed={seed}&moves={','.join(moves)}")
    assert page.status_code == 200, page.text[-400:]
    html = unescape(page.text)
    assert 'class="panel review"' in html and review.result in html
    assert f"Your {len(review.decisions)} decisions cost {review.total_cost:.4f}" in html
    assert _review_costs(page.text) == [f"{d.cost:.4f}" for d in review.decisions if d.cost > 1e-12]
    # the number-of-bots control: 1 (the two-player game) and 2 (playing now)
    assert re.search(r'<a class="count" href="/play/' + game + r'\?bots=optimal">1</a>', html)
    assert re.search(r'<strong class="count" aria-current="true">2</strong>', html)
    # half way: one button per legal decision, the advice with every seat's chance
    half = ",".join(moves[: len(moves) // 2])
    page = clients[key].get(f"/play/{game}?bots=optimal,optimal&seat=2&seed={seed}&moves={half}&advice=1")
    assert page.status_code == 200 and 'class="keep choice"' in page.text
    assert re.search(r"p_win 0\.\d{4} \(seat 1 0\.\d{4}, seat 2 0\.\d{4}, seat 3 0\.\d{4}", unescape(page.text))


def test_number_of_bots_where_the_tables_exist(clients):
    for game, key in (("rolled-ones", "rolled_ones"), ("ten-thousand", "ten_thousand")):
        html = unescape(clients[key].get(f"/play/{game}?bots=optimal&seat=1&seed=3").text)
        assert f'<a class="count" href="/play/{game}?bots=optimal%2Coptimal">2</a>' in html
        plain = clients[f"plain_{key}"].get(f"/play/{game}?bots=optimal&seat=1&seed=3")
        assert plain.status_code == 200 and 'class="counts"' not in plain.text  # two players only: no choice
        refused = clients[f"plain_{key}"].get(f"/play/{game}?bots=optimal,optimal&seat=1&seed=3")
        assert refused.status_code == 400
        error = re.search(r'<p class="error">(.*?)</p>', unescape(refused.text)).group(1)
        assert "3 players are not built" in error and "rebuild with: dicebase build" in error


# ------------------------------------------------------------------------------------ the phone
def _shot(page, tmp_path, name):
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICEBASE_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / name)


def test_rolled_ones_three_players_on_a_phone(phone, served_n, paths, tmp_path):
    base = served_n("rolled_ones")
    phone.goto(f"{base}/play/rolled-ones?bots=optimal&seat=2&seed=11")
    _tap(phone, ".counts a.count")  # two bots: a new game of three players
    assert "bots=optimal%2Coptimal" in phone.url or "bots=optimal,optimal" in phone.url
    assert phone.locator(".counts strong.count").inner_text() == "2"
    assert phone.locator("section.log .line").first.inner_text().startswith("-- seat 1 (you): scores 0, 0, 0")
    _check_phone_layout(phone)
    phone.goto(f"{base}/play/rolled-ones?bots=optimal,optimal&seat=2&seed=1")  # a game with fixed dice
    _tap(phone, "#advice")
    log = phone.locator(".log").inner_text()
    assert re.search(r"roll: p_win 0\.\d{4} \(seat 1 0\.\d{4}, seat 2 0\.\d{4}, seat 3 0\.\d{4}\)", log)
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-rolled-ones-3-advice.png")
    moves, review = _answers("rolled-ones", paths["rolled_ones"], ["optimal", "optimal"], 2, 1, _ro_answer)
    phone.goto(f"{base}/play/rolled-ones?bots=optimal,optimal&seat=2&seed=1&moves={','.join(moves)}")
    text = phone.locator(".review").inner_text()
    assert review.result in text and f"Your {len(review.decisions)} decisions cost" in text
    assert phone.locator(".review .decisions li").count() == len(review.decisions)
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-rolled-ones-3-review.png")


def test_ten_thousand_three_players_on_a_phone(phone, served_n, paths, tmp_path):
    base = served_n("ten_thousand")
    moves, review = _answers("ten-thousand", paths["ten_thousand"], ["optimal", "optimal"], 2, 11, _tt_answer)
    phone.goto(f"{base}/play/ten-thousand?bots=optimal,optimal&seat=2&seed=11&moves={moves[0]}")
    _tap(phone, "#advice")
    assert re.search(r"(roll|bank): p_win 0\.\d{4} \(seat 1 ", phone.locator(".log").inner_text())
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-ten-thousand-3-advice.png")
    phone.goto(f"{base}/play/ten-thousand?bots=optimal,optimal&seat=2&seed=11&moves={','.join(moves)}")
    text = phone.locator(".review").inner_text()
    assert review.result in text and phone.locator(".review .decisions li").count() == len(review.decisions)
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-ten-thousand-3-review.png")
