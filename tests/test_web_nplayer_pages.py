"""The phone pages for more than two players (issue 21, item 2): a number-of-players control and one score
field per seat on the Great Rolled Ones and 10,000 pages, answered by the N-player lookups.

The builds are the ones tests/test_rolled_ones_nplayer_db.py and tests/test_ten_thousand_nplayer_db.py use
(the same ``built_db`` options, so a whole run builds each once): Great Rolled Ones at goal 20 and 10,000
(ten-thousand preset) at goal 250, both with 2 and 3 players.  Their 3-player games hold cycle tuples with
mixed equilibria (docs/n_players.md): (3, 5, 9) at goal 20, where seats 1 and 2 randomise at turn total 7
with two 1s aside, and (50, 50, 150) at goal 250, where seats 1 and 2 randomise at turn total 1,200 with
one die and a standing triple of 4s.  Every number a page shows is checked against the Python API.  The
browser tests drive both pages with 3 players on a 360 px phone screen in the system's Chromium."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402
from test_web_browser import _check_phone_layout, browser, phone  # noqa: E402,F401  (fixtures reused)

RO_OPTIONS = {"rolled_ones": {"goal": 20, "players": [2, 3]}}
TT_OPTIONS = {"ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": 250,
                               "players": [2, 3]}}
GAMES = {"rolled_ones": RO_OPTIONS, "ten_thousand": TT_OPTIONS}


@pytest.fixture(scope="module")
def paths(built_db):
    return {game: built_db((game,), "duckdb", options) for game, options in GAMES.items()}


@pytest.fixture(scope="module")
def clients(paths, built_db):
    """Test clients on the N-player builds (by game) and on the plain test builds (``plain_<game>``)."""
    made = {}
    for game, path in [*paths.items(), *[(f"plain_{g}", built_db((g,))) for g in GAMES]]:
        made[game] = TestClient(create_app(dicebase.open(f"duckdb:///{path}")))
        made[game].__enter__()
    yield made
    for client in made.values():
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def dbs(paths):
    opened = {game: dicebase.open(f"duckdb:///{path}") for game, path in paths.items()}
    yield opened
    for db in opened.values():
        db.close()


class _Page(HTMLParser):
    """What an N-player answer shows: the verdict, the notes, each listed action's value and cost, and the
    rows of the every-seat table (label -> the numbers as printed)."""

    def __init__(self, text: str):
        super().__init__()
        self.verdict, self.notes, self.values, self.costs, self.errors, self.rows = None, [], [], [], [], {}
        self._stack, self._row, self._cell = [], None, None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        kind = next((c for c in ("verdict", "note", "value", "cost", "error") if c in classes), None)
        if tag == "tr":
            self._row = []
        elif tag in ("th", "td") and self._row is not None:
            self._cell = []
        self._stack.append((tag, kind, []))

    def handle_endtag(self, tag):
        if not self._stack:
            return
        opened, kind, text = self._stack.pop()
        words = " ".join("".join(text).split())
        if kind == "verdict":
            self.verdict = words
        elif kind in ("note", "value", "cost", "error"):
            {"note": self.notes, "value": self.values, "cost": self.costs, "error": self.errors}[kind].append(words)
        if opened in ("th", "td") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        if opened == "tr" and self._row:
            self.rows[self._row[0]] = self._row[1:]
            self._row = None
        if self._stack:  # the text of an element is its parent's too
            self._stack[-1][2].extend(text)

    def handle_data(self, data):
        if self._stack:
            self._stack[-1][2].append(data)
        if self._cell is not None:
            self._cell.append(data)


def _page(client, path: str) -> _Page:
    response = client.get(path)
    assert response.status_code == 200, response.text[-400:]
    assert "Traceback" not in response.text and "</html>" in response.text
    return _Page(response.text)


def _f(x: float) -> str:
    return f"{x:.4f}"


# --------------------------------------------------------------------------- Great Rolled Ones
def test_rolled_ones_players_control_lists_what_is_built(clients):
    text = clients["rolled_ones"].get("/rolled-ones").text
    assert '<select id="players" name="players"' in text
    assert '<option value="2" selected>2 players</option><option value="3">3 players</option>' in text
    # the test build holds 2 players only: no control, a line saying how to add more
    plain = clients["plain_rolled_ones"].get("/rolled-ones").text
    assert 'id="players"' not in plain and "3 players are not built" in plain and "rolled-ones.players=[2,3]" in plain


def test_rolled_ones_cycle_tuple_shows_the_mixed_decision(clients, dbs):
    want = dbs["rolled_ones"].rolled_ones.best([3, 5, 9], 1, 7, 2)
    assert want.best == "mixed" and want.cycle is not None
    page = _page(clients["rolled_ones"], "/rolled-ones?players=3&score1=3&score2=5&score3=9&player=1&turn_total=7&ones=2")
    assert page.verdict == "MIXED"
    assert any(f"rolls with probability {_f(want.roll_probability)} and holds otherwise" in n for n in page.notes)
    assert page.values == [_f(a.p_win) for a in want.actions]
    for a in want.actions:  # every legal action with every seat's chance
        assert page.rows[a.action] == [_f(p) for p in a.p_wins]
    assert page.rows["as played (mixed)"] == [_f(p) for p in want.p_wins]
    head = '<th scope="col">seat</th><th scope="col" class="mover">1*</th><th scope="col">2</th><th scope="col">3</th>'
    assert head in clients["rolled_ones"].get("/rolled-ones?players=3&scores=3,5,9&turn_total=7&ones=2").text
    cycle = next(n for n in page.notes if "Best responses cycle" in n)
    for m in want.cycle["randomising"]:
        assert f"seat {m['seat']} rolls at turn total {m['turn_total']} with {m['ones']} 1s aside with probability " \
               f"{_f(m['p_roll'])}" in cycle


def test_rolled_ones_final_round_state(clients, dbs):
    want = dbs["rolled_ones"].rolled_ones.best([22, 5, 9], 2, 18, 1)
    assert [a.action for a in want.actions] == ["roll", "hold"]
    page = _page(clients["rolled_ones"], "/rolled-ones?players=3&score1=22&score2=5&score3=9&player=2&turn_total=18&ones=1")
    assert page.verdict == want.best.upper()
    assert any(n.startswith("Final round: seat 1 leads with 22") for n in page.notes)
    assert page.values == [_f(a.p_win) for a in want.actions]
    assert page.costs == ["best", f"−{_f(want.actions[0].p_win - want.actions[1].p_win)}"]
    for a in want.actions:
        assert page.rows[a.action] == [_f(p) for p in a.p_wins]
    # the scores may also come as the API takes them
    same = _page(clients["rolled_ones"], "/rolled-ones?players=3&scores=22,5,9&player=2&turn_total=18&ones=1")
    assert same.rows == page.rows


def test_rolled_ones_seats_and_fair_start(clients, dbs):
    comp = dbs["rolled_ones"].rolled_ones.compensation(3)
    page = _page(clients["rolled_ones"], "/rolled-ones?players=3")
    for seat in range(3):
        assert page.rows[str(seat + 1)] == [_f(comp.uncompensated[seat]), str(comp.scores[seat]),
                                            _f(comp.p_wins[seat])]
    assert "Komi" not in clients["rolled_ones"].get("/rolled-ones?players=3").text  # two-player tables: N = 2 only


@pytest.mark.parametrize("query, message", [
    ("players=4", "4 players are not built for goal20-dice5-ones3 (built: 2, 3); rebuild with: dicebase build"),
    ("players=9", "players must be a whole number from 2 to 4, got '9'"),
    ("players=three", "players must be a whole number from 2 to 4"),
    ("players=3&score2=ten", "seat 2's score must be a whole number, got 'ten'"),
    ("players=3&player=x", "the seat to move must be a whole number"),
    ("players=3&player=4", "player must be 1..3"),
    ("players=3&score1=-1", "seat 1's score must be 0..19"),
    ("players=3&score1=25&player=1", "seat 1's score must be 0..19"),
    ("players=3&turn_total=7&ones=1", "cannot occur"),
])
def test_rolled_ones_bad_input_is_a_line_on_the_page(clients, query, message):
    page = _page(clients["rolled_ones"], f"/rolled-ones?{query}")
    assert len(page.errors) == 1 and message in page.errors[0], page.errors
    assert page.verdict is None


def test_rolled_ones_two_players_unchanged(clients):
    client = clients["rolled_ones"]
    two = "/rolled-ones?player=2&score=3&opponent=4&turn_total=13&ones=1"
    assert client.get(two).text == client.get(two + "&players=2").text
    page = _page(client, two)
    assert page.verdict in ("ROLL", "HOLD") and "Komi" in client.get(two).text and not page.errors


# --------------------------------------------------------------------------- 10,000
def test_ten_thousand_roll_or_bank_in_a_cycle_tuple(clients, dbs):
    want = dbs["ten_thousand"].ten_thousand.state([50, 50, 150], 1, 1200, 1, triple=4)
    assert want.best == "mixed"
    page = _page(clients["ten_thousand"], "/ten-thousand?players=3&score1=50&score2=50&score3=150&player=1"
                                          "&turn_total=1200&triple=4&to_roll=1")
    assert page.verdict == "MIXED"
    assert any(f"rolls with probability {_f(want.roll_probability)} and banks otherwise" in n for n in page.notes)
    assert page.values == [_f(a.p_win) for a in want.actions]
    for a in want.actions:
        assert page.rows[a.action] == [_f(p) for p in a.p_wins]
    assert page.rows["as played (mixed)"] == [_f(p) for p in want.p_wins]
    cycle = next(n for n in page.notes if "Best responses cycle" in n)
    for m in want.cycle["randomising"]:
        assert f"seat {m['seat']} rolls at turn total 1200, 1 die, triple 4 with probability {_f(m['p_roll'])}" in cycle


def test_ten_thousand_every_keep_with_every_seat(clients, dbs):
    want = dbs["ten_thousand"].ten_thousand.best([1, 5, 2, 3], 100, scores=[50, 100, 0], player=3)
    assert len(want.actions) == 3 and not want.final_turn
    page = _page(clients["ten_thousand"], "/ten-thousand?players=3&score1=50&score2=100&score3=0&player=3"
                                          "&turn_total=100&dice=1+5+2+3")
    assert page.values == [_f(a.p_win) for a in want.actions]
    assert page.costs[0] == "best"
    for a in want.actions:
        assert page.rows["keep " + " ".join(map(str, a.keep))] == [_f(p) for p in a.p_wins]
    assert not any(n.startswith("Final round") for n in page.notes)


def test_ten_thousand_final_turn_and_farkle(clients, dbs):
    db, client = dbs["ten_thousand"], clients["ten_thousand"]
    want = db.ten_thousand.best([1, 5, 2, 3], 100, scores=[300, 100, 0], player=3)
    assert want.final_turn and want.bar == 300
    page = _page(client, "/ten-thousand?players=3&score1=300&score2=100&score3=0&player=3&turn_total=100&dice=1523")
    assert "Final round: seat 3 must end above the bar of 300 (the highest score) to bank." in page.notes
    for a in want.actions:
        assert page.rows["keep " + " ".join(map(str, a.keep))] == [_f(p) for p in a.p_wins]
    lost = db.ten_thousand.best([2, 2, 3, 4], 100, scores=[300, 100, 0], player=3)
    page = _page(client, "/ten-thousand?players=3&score1=300&score2=100&score3=0&player=3&turn_total=100&dice=2234")
    assert page.verdict == "Farkle" and page.rows["farkle"] == [_f(p) for p in lost.p_wins]
    # a final turn before rolling: bank only above the bar
    st_ = db.ten_thousand.state([300, 100, 0], 2, 250, 3)
    page = _page(client, "/ten-thousand?players=3&score1=300&score2=100&score3=0&player=2&turn_total=250&to_roll=3")
    assert page.verdict == st_.best.upper() and page.values == [_f(a.p_win) for a in st_.actions]
    for a in st_.actions:
        assert page.rows[a.action] == [_f(p) for p in a.p_wins]


@pytest.mark.parametrize("query, message", [
    ("players=4", "4 players are not built for ten-thousand (built: 2, 3); rebuild with: dicebase build"),
    ("players=3&score1=60", "multiple of 50"),
    ("players=3&score3=x", "seat 3's score must be a whole number, got 'x'"),
    ("players=3&dice=x", "type the faces rolled"),
    ("players=3&dice=789", "dice faces must be 1-6, got 7"),
    ("players=3&to_roll=0", "dice must be 1-6"),
    ("players=3&turn_total=abc", "turn total must be a whole number"),
    ("players=3&score1=300&score2=300&player=3", "highest score is one seat's"),
])
def test_ten_thousand_bad_input_is_a_line_on_the_page(clients, query, message):
    page = _page(clients["ten_thousand"], f"/ten-thousand?{query}")
    assert len(page.errors) == 1 and message in page.errors[0], page.errors


def test_ten_thousand_two_players_unchanged(clients):
    client = clients["ten_thousand"]
    for two in ("/ten-thousand?dice=1+1+5+2+3+4&turn_total=0", "/ten-thousand?dice=1+5+5&turn_total=150&score=100&opponent=150"):
        assert client.get(two).text == client.get(two + "&players=2").text
        assert "Every keep, best first" in client.get(two).text
    text = client.get("/ten-thousand").text
    assert '<option value="2" selected>2 players</option><option value="3">3 players</option>' in text
    plain = clients["plain_ten_thousand"].get("/ten-thousand?players=3").text
    assert "3 players are not built for ten-thousand (built: none)" in plain and "ten-thousand.players=[3]" in plain


_KEYS = ["players", "player", "score1", "score2", "score3", "score4", "scores", "turn_total", "ones", "dice",
         "triple", "to_roll", "variant", "rules"]
_values = st.one_of(st.integers(-5, 400).map(str), st.sampled_from(["2", "3", "4"]), st.text(max_size=6),
                    st.lists(st.integers(0, 9), max_size=5).map(lambda v: ",".join(map(str, v))),
                    st.just("9" * 5000))


@pytest.mark.parametrize("game, path", [("rolled_ones", "/rolled-ones"), ("ten_thousand", "/ten-thousand")])
def test_generated_nplayer_states_never_fail(clients, game, path):
    """Any query string with the N-player fields gives the page, never a server error."""
    client = clients[game]

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(st.tuples(st.sampled_from(_KEYS), _values), max_size=6))
    def check(items):
        response = client.get(path, params=[("players", "3"), *items])
        assert response.status_code == 200, (items, response.text[-500:])
        assert "</html>" in response.text and "Traceback" not in response.text

    check()


# --------------------------------------------------------------------------- the phone, 3 players
@pytest.fixture(scope="module")
def served_n(paths):
    """``served_n(game) -> base URL`` of a real ``dicebase serve`` on that game's N-player build."""
    running = {}

    def start(game: str) -> str:
        if game not in running:
            proc = subprocess.Popen(
                [sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", f"duckdb:///{paths[game]}"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            line = proc.stdout.readline()
            assert " at http://" in line, line + proc.stderr.read()
            running[game] = (proc, line.split(" at ")[1].split("/ ")[0])
        return running[game][1]

    yield start
    for proc, _ in running.values():
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)


def _submit(page) -> None:
    with page.expect_navigation():
        page.click("form.settings button[type=submit]")


def _seat_table_fits(page) -> bool:
    """The every-seat table is not cut off by its scrolling box (no sideways scrolling to read it)."""
    return page.evaluate("() => [...document.querySelectorAll('table.seat-wins')]"
                         ".every(t => t.parentElement.scrollWidth <= t.parentElement.clientWidth)")


def _shot(page, tmp_path, name: str) -> None:
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("DICEBASE_SCREENSHOTS"):
        shutil.copy(shot, Path(os.environ["DICEBASE_SCREENSHOTS"]) / name)


def test_rolled_ones_three_players_on_a_phone(phone, served_n, dbs, tmp_path):
    phone.goto(served_n("rolled_ones") + "/rolled-ones")
    with phone.expect_navigation():  # the players control redraws the form with one field per seat
        phone.select_option("#players", "3")
    assert phone.locator(".seats input").count() == 3
    for seat, score in ((1, "3"), (2, "5"), (3, "9")):
        phone.fill(f"#score{seat}", score)
    phone.select_option("#player", "1")
    phone.fill("#turn_total", "7")
    phone.select_option("#ones", "2")
    _submit(phone)
    want = dbs["rolled_ones"].rolled_ones.best([3, 5, 9], 1, 7, 2)
    assert phone.locator(".verdict").inner_text() == "MIXED"
    assert _f(want.roll_probability) in phone.locator(".result .note").first.inner_text()
    assert phone.locator("table.seat-wins tbody tr").count() == 3  # roll, hold, as played
    assert phone.locator("table.seat-wins thead th").count() == 4
    _check_phone_layout(phone)
    assert _seat_table_fits(phone)
    _shot(phone, tmp_path, "rolled-ones-3-players-phone.png")

    phone.fill("#score1", "22")  # seat 1 reached the goal: seat 2's final turn
    phone.select_option("#player", "2")
    phone.fill("#turn_total", "18")
    phone.select_option("#ones", "1")
    _submit(phone)
    assert "Final round" in phone.locator(".result").inner_text()
    assert phone.locator("ol.keeps li").count() == 2
    _check_phone_layout(phone)


def test_ten_thousand_three_players_on_a_phone(phone, served_n, dbs, tmp_path):
    phone.goto(served_n("ten_thousand") + "/ten-thousand")
    with phone.expect_navigation():
        phone.select_option("#players", "3")
    for seat, score in ((1, "300"), (2, "100"), (3, "0")):
        phone.fill(f"#score{seat}", score)
    phone.select_option("#player", "3")
    phone.fill("#turn_total", "100")
    phone.fill("#dice", "1523")
    _submit(phone)
    want = dbs["ten_thousand"].ten_thousand.best([1, 5, 2, 3], 100, scores=[300, 100, 0], player=3)
    assert phone.locator("ol.keeps li").count() == len(want.actions)
    assert phone.locator("ol.keeps .value").first.inner_text() == _f(want.actions[0].p_win)
    assert "Final round" in phone.locator(".result").inner_text()
    _check_phone_layout(phone)
    assert _seat_table_fits(phone)
    _shot(phone, tmp_path, "ten-thousand-3-players-phone.png")

    phone.fill("#dice", "")  # no roll typed: roll or bank with the dice left
    for seat, score in ((1, "50"), (2, "50"), (3, "150")):
        phone.fill(f"#score{seat}", score)
    phone.select_option("#player", "1")
    phone.fill("#turn_total", "1200")
    phone.select_option("#triple", "4")
    phone.select_option("#to_roll", "1")
    _submit(phone)
    assert phone.locator(".verdict").inner_text() == "MIXED"
    assert phone.locator("table.seat-wins tbody tr").count() == 3
    _check_phone_layout(phone)
    phone.select_option("#odds_dice", "3")  # the odds form keeps the seats
    phone.wait_for_url("**odds_dice=3**")
    assert "score3=150" in phone.url and phone.locator(".verdict").inner_text() == "MIXED"
