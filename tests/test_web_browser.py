"""The pages in a real browser: the system's headless Chromium driven by Playwright.

Seed 001's turn is tapped through on a 360x740 phone screen, the page is read
back, and a screenshot is saved (to $DICEBASE_SCREENSHOTS as well when set,
which is how docs/threes-phone.png is made).  Without Chromium these tests
skip, saying so, except under CI=true, where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 360, "height": 740}


def _chromium() -> str | None:
    for candidate in (os.environ.get("DICEBASE_CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium",
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def _unavailable(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run installs it with apt-get)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    if executable is None:
        _unavailable("no Chromium on this machine: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python is not installed: pip install -e '.[test]'")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def served(built_db):
    """``served(game) -> base URL`` of a real ``dicebase serve`` on that game's test database."""
    running: dict[str, tuple[subprocess.Popen, str]] = {}

    def start(game: str) -> str:
        if game not in running:
            db = built_db((game,))
            proc = subprocess.Popen(
                [sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", f"duckdb:///{db}"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            line = proc.stdout.readline()
            assert " at http://" in line, line + proc.stderr.read()
            running[game] = (proc, line.split(" at ")[1].split("/ ")[0])
        return running[game][1]

    yield start
    for proc, _ in running.values():
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    page = context.new_page()
    yield page
    context.close()


def _tap(page, target) -> None:
    """Tap a link (a selector or a locator) and wait for the page it leads to."""
    with page.expect_navigation():
        (page.locator(target) if isinstance(target, str) else target).tap()


def _check_phone_layout(page) -> None:
    """No horizontal scrolling at 360 px, and every visible form control has a label."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.url
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('select, input:not([type=hidden]), textarea')]
               .filter(e => !(e.id && document.querySelector(`label[for="${e.id}"]`)) && !e.closest('label'))
               .map(e => e.name)"""
    )
    assert unlabelled == [], page.url


def test_threes_seed001_turn(phone, served, tmp_path):
    # seed 001 (001_f4320d56f1732e4d.txt): rolled 4 3 1 1 2, best so far 7, four players after ->
    # keep [3]; exact win probability 0.2760 (test_threes_db pins 0.276029725545554).
    base = served("threes")
    phone.goto(f"{base}/threes")
    _check_phone_layout(phone)
    phone.select_option("#players_after", "4")
    phone.select_option("#to_beat", "7")
    with phone.expect_navigation():
        phone.click("#start")
    for face in (4, 3, 1, 1, 2):
        _tap(phone, f'.pad a[data-face="{face}"]')
    best = phone.locator("ol.keeps a.keep").first
    assert best.get_attribute("data-keep") == "3"
    assert best.locator(".value").inner_text() == "0.2760"
    assert phone.locator("ol.keeps a.keep").count() == 5
    assert "to_beat=7" in phone.url and "players_after=4" in phone.url and "dice=4,3,1,1,2" in phone.url
    _check_phone_layout(phone)
    shot = tmp_path / "threes-phone.png"
    phone.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICEBASE_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / "threes-phone.png")

    # Tap the keep: the next roll has 4 dice, the score carried over (a 3 counts zero).
    _tap(phone, best)
    assert "left=4" in phone.url and "score=0" in phone.url
    assert "roll 4 dice" in phone.locator("main").inner_text()
    for face in (6, 5, 1, 3):
        _tap(phone, f'.pad a[data-face="{face}"]')
    keeps = phone.locator("ol.keeps a.keep")
    assert keeps.count() == 4
    assert keeps.first.get_attribute("data-keep").startswith("3")


def test_threes_reroll_rule(phone, served):
    """Keeping nothing (reroll variant) makes the next roll keep at least two."""
    base = served("threes")
    phone.goto(f"{base}/threes?variant=reroll&play=expected&dice=6,6,5,5,4")
    keeps = phone.locator("ol.keeps a.keep")
    reroll = phone.locator('ol.keeps a.keep[data-keep=""]')
    assert reroll.count() == 1
    _tap(phone, reroll)
    assert "must_keep_two=true" in phone.url and "left=5" in phone.url
    assert "keep at least two" in phone.locator("main").inner_text()
    for face in (6, 6, 5, 5, 4):
        _tap(phone, f'.pad a[data-face="{face}"]')
    assert min(len(k.split()) for k in keeps.evaluate_all("els => els.map(e => e.dataset.keep)")) == 2


@pytest.mark.parametrize("game, path", [
    ("threes", "/"),
    ("threes", "/api"),
    ("rolled_ones", "/rolled-ones?player=2&score=30&opponent=41&turn_total=13&ones=1"),
    ("ten_thousand", "/ten-thousand?dice=1+1+5+2+3+4&turn_total=0"),
])
def test_pages_fit_a_phone(phone, served, game, path):
    phone.goto(served(game) + path)
    _check_phone_layout(phone)
    assert phone.locator(".error").count() == 0, phone.locator(".error").first.inner_text()


def test_rolled_ones_and_ten_thousand_answers(phone, served):
    phone.goto(served("rolled_ones") + "/rolled-ones")
    phone.fill("#score", "30")
    phone.fill("#opponent", "41")
    phone.fill("#turn_total", "13")
    phone.select_option("#ones", "1")
    phone.select_option("#player", "2")
    with phone.expect_navigation():
        phone.click("button[type=submit]")
    assert phone.locator(".verdict").inner_text() in ("ROLL", "HOLD")
    assert phone.locator("ol.keeps li").count() == 2
    assert "komi" in phone.locator("main").inner_text().lower()

    phone.goto(served("ten_thousand") + "/ten-thousand")
    phone.fill("#dice", "115234")
    with phone.expect_navigation():
        phone.click("form.settings button[type=submit]")
    assert "dice=1+1+5+2+3+4" in phone.url or "dice=115234" in phone.url
    assert phone.locator("ol.keeps li").count() > 3
    phone.select_option("#odds_dice", "3")
    phone.wait_for_url("**odds_dice=3**")
    assert "3-of-a-kind" in phone.locator("main").inner_text()
