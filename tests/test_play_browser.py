"""The "play against the bot" page in a real browser at 360 px (issue 23, item 5).

Uses the Chromium fixtures of tests/test_web_browser.py (skips without Chromium, except under
CI=true).  A Threes game is tapped through to the end-of-game review; a Great Rolled Ones game's
review is opened from its link.  The screenshots go to $DICEBASE_SCREENSHOTS when set.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from test_web_browser import _check_phone_layout, _tap, browser, phone, served  # noqa: F401  (fixtures)


def _shot(page, tmp_path, name):
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICEBASE_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / name)


def test_threes_game_against_the_bots_to_the_review(phone, served, tmp_path):
    base = served("threes")
    phone.goto(f"{base}/play/threes?bots=only-3s,win&seat=2&seed=4")
    _check_phone_layout(phone)
    assert "seat 1: only-3s" in phone.locator(".log").inner_text()
    _tap(phone, "#advice")  # the stored value of every keep, best first
    assert "keep 2: p_win 0.4450" in phone.locator(".log").inner_text()
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-threes-advice.png")
    taps = 0
    while phone.locator(".review").count() == 0:
        _tap(phone, phone.locator("a.choice").first)  # keep the fewest dice every time
        taps += 1
        assert taps <= 10
    review = phone.locator(".review").inner_text()
    assert "Review" in review and "decisions cost" in review
    assert phone.locator(".review .decisions li").count() >= 1
    assert "moves=" in phone.url
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-threes-review.png")


def test_rolled_ones_review_on_a_phone(phone, served, tmp_path):
    base = served("rolled_ones")
    moves = ",".join(["r", "h"] * 150)
    phone.goto(f"{base}/play/rolled-ones?bots=keep-pace-end-race&seat=1&seed=3&moves={moves}")
    assert phone.locator(".review").count() == 1
    assert "wins" in phone.locator(".review").inner_text()
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-rolled-ones-review.png")


def test_ten_thousand_game_on_a_phone_to_the_review(phone, served, tmp_path):
    """10,000 against the optimal bot: the keeps of a roll are buttons, the advice ranks them, roll
    or bank follows; a game played on by its address ends in the review."""
    base = served("ten_thousand")
    phone.goto(f"{base}/play/ten-thousand?bots=optimal&seat=1&seed=5")
    _check_phone_layout(phone)
    assert "you rolled 1 3 4 5 5 5" in phone.locator(".log").inner_text()
    assert phone.locator("a.choice").first.inner_text().startswith("Keep 1 5 5 5")
    _tap(phone, "#advice")
    assert "option 2, keep 5 5 5: p_win 0.5702" in phone.locator(".log").inner_text()
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-ten-thousand-advice.png")
    _tap(phone, phone.locator("a.choice").first)  # keep 1 5 5 5
    assert [phone.locator("a.choice").nth(n).inner_text() for n in range(2)] == ["Roll", "Bank"]
    _tap(phone, phone.locator("a.choice").nth(1))  # bank 600
    assert "banks: 600" in phone.locator(".log").inner_text()
    moves = ",".join(["1", "b"] * 60)
    phone.goto(f"{base}/play/ten-thousand?bots=optimal&seat=1&seed=5&moves={moves}")
    review = phone.locator(".review").inner_text()
    assert "Review" in review and "wins" in review and "decisions cost" in review
    _check_phone_layout(phone)
    _shot(phone, tmp_path, "play-ten-thousand-review.png")
