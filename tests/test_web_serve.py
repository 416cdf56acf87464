"""``dicebase serve`` as a user runs it, and the pages through Starlette's test client."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402
from test_web_warm import stopped_cleanly as _stopped  # noqa: E402


def _serve(*args):
    return subprocess.Popen([sys.executable, "-m", "dicebase", "serve", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_serve_starts_answers_and_stops_on_ctrl_c(built_db):
    db = built_db(("threes",), "sqlite")
    started = time.monotonic()
    proc = _serve("--port", "0", "--db", f"sqlite:///{db}")
    line = proc.stdout.readline()
    assert line.startswith("dicebase: serving sqlite:///") and "http://127.0.0.1:" in line, proc.stderr.read()
    base = line.split(" at ")[1].split("/ ")[0]
    with urllib.request.urlopen(f"{base}/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4") as reply:
        # seed 001 (001_f4320d56f1732e4d.txt): keep [3], exact p_win 0.2760
        assert json.load(reply)["best"]["keep"] == [3]
    print(f"first answer {time.monotonic() - started:.2f} s after start")  # timings are reported, not asserted
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert _stopped(out)
    assert err == ""


def test_serve_refuses_a_missing_or_foreign_database(tmp_path):
    proc = _serve("--db", str(tmp_path / "none.duckdb"))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and out == ""
    assert err.startswith("Error: no database at ") and err.count("\n") == 1
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_bytes(b"not a database at all" * 100)
    proc = _serve("--db", f"sqlite:///{foreign}")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and err.startswith("Error: ") and err.count("\n") == 1


def test_serve_refuses_a_busy_port(built_db):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _serve("--port", str(port), "--db", f"duckdb:///{built_db(('threes',))}")
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err == f"Error: cannot listen on 127.0.0.1:{port}: address already in use\n"


def test_lookups_do_not_load_the_web_stack(built_db):
    code = (
        "import sys; from dicebase.main import main\n"
        "try: main(['threes', 'best', '4', '3', '1', '1', '2', '--json', '--db', sys.argv[1]])\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in ('starlette', 'uvicorn', 'jinja2', 'dicebase.web') if m in sys.modules), file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code, f"duckdb:///{built_db(('threes',))}"],
                          capture_output=True, text=True, timeout=60)
    assert proc.stderr.strip() == "[]"


@pytest.fixture(scope="module")
def pages(built_db):
    made = {}

    def client(game):
        if game not in made:
            made[game] = TestClient(create_app(dicebase.open(f"duckdb:///{built_db((game,))}")))
            made[game].__enter__()
        return made[game]

    yield client
    for c in made.values():
        c.__exit__(None, None, None)


def test_home_page(pages):
    page = pages("threes").get("/")
    assert page.status_code == 200
    for text in ('href="/threes"', 'href="/rolled-ones"', 'href="/ten-thousand"', 'href="/api"', "classic", "reroll"):
        assert text in page.text
    assert "not in this database" in page.text  # rolled-ones and ten-thousand are not in this file


def test_threes_page_follows_a_turn(pages):
    client = pages("threes")
    # seed 001 (001_f4320d56f1732e4d.txt): keep [3] at 0.2760 is the first row
    page = client.get("/threes?players_after=4&to_beat=7&dice=4,3,1,1,2")
    assert page.status_code == 200
    first = page.text.index('class="keep best"')
    assert 'data-keep="3"' in page.text[first:first + 300] and "0.2760" in page.text[first:first + 600]
    # the keep [3 1] leads to 3 dice, score 1 (a 3 counts zero, a 1 one)
    assert "score=1&amp;left=3" in page.text
    # a finished turn compares with the best score so far and passes the phone on
    done = client.get("/threes?players_after=4&to_beat=7&score=5&left=0")
    assert "Turn over: your score is 5" in done.text and "You beat the best score so far (7)" in done.text
    assert "players_after=3&amp;to_beat=5" in done.text
    # a state the database refuses shows the CLI's line, not a server error
    refused = client.get("/threes?players_after=0&dice=1,2,3,4,5")
    assert refused.status_code == 200 and "--players-after 0 needs --to-beat" in refused.text


def test_game_pages(pages):
    ro = pages("rolled_ones").get("/rolled-ones?player=2&score=30&opponent=41&turn_total=13&ones=1")
    assert ro.status_code == 200 and "Komi" in ro.text and "keep_pace_end_race" in ro.text
    bad = pages("rolled_ones").get("/rolled-ones?player=7")
    assert bad.status_code == 200 and 'class="error"' in bad.text
    tt = pages("ten_thousand").get("/ten-thousand?dice=1+1+5+2+3+4&turn_total=0&odds_dice=3")
    assert tt.status_code == 200 and "then roll" in tt.text and "3-of-a-kind" in tt.text and "When to bank" in tt.text
    missing = pages("threes").get("/rolled-ones")
    assert missing.status_code == 404 and "dicebase build rolled-ones" in missing.text
    nowhere = pages("threes").get("/no/such/page")
    assert nowhere.status_code == 404 and "<html" in nowhere.text


def test_assets_ship_in_the_package(pages):
    client = pages("threes")
    page = client.get("/threes").text
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page  # no CDN
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/static/icon.svg").status_code == 200


_PAGE_KEYS = ["variant", "play", "players_after", "to_beat", "ties", "score", "left", "must_keep_two", "dice",
              "player", "opponent", "turn_total", "ones", "triple", "rules", "odds_dice"]
_page_values = st.one_of(st.integers(-5, 10**6).map(str), st.text(max_size=8),
                         st.lists(st.integers(0, 9), max_size=7).map(lambda v: ",".join(map(str, v))),
                         st.just("9" * 5000))


@pytest.mark.parametrize("game, path", [("threes", "/threes"), ("rolled_ones", "/rolled-ones"),
                                        ("ten_thousand", "/ten-thousand")])
def test_generated_page_states_never_fail(pages, game, path):
    """Any query string gives the page (with the CLI's line for a refused state), never a server error."""
    client = pages(game)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(st.tuples(st.sampled_from(_PAGE_KEYS), _page_values), max_size=6))
    def check(items):
        response = client.get(path, params=items)
        assert response.status_code == 200, (items, response.text[-500:])
        assert "</html>" in response.text and len(response.text) < 200_000

    check()


def test_serve_without_the_web_extras_says_what_to_install(built_db):
    code = ("import sys; sys.modules['starlette'] = None\n"  # as if `pip install dicebase` without [serve]
            "from dicebase.main import main; main(['serve', '--db', sys.argv[1]])")
    proc = subprocess.run([sys.executable, "-c", code, f"duckdb:///{built_db(('threes',))}"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr == ("Error: dicebase serve needs the web extras (starlette is missing): "
                           "pip install 'dicebase[serve]'\n")


def test_game_pages_show_the_plotting_figures(pages):
    """Each game page shows its figures from dicebase.plots, served as PNG and kept once drawn."""
    from dicebase import plots

    client = pages("threes")
    page = client.get("/threes").text
    for name in plots.names("threes"):
        assert f'<img src="/plots/{name}.png' in page
    first = client.get("/plots/threes-seats.png?ties=strict")
    assert first.status_code == 200 and first.headers["content-type"] == "image/png"
    assert first.content.startswith(b"\x89PNG")
    assert client.get("/plots/threes-seats.png?ties=strict").content == first.content
    assert client.get("/plots/no-such-figure.png").status_code == 404
    assert client.get("/plots/threes-seats.png?ties=sometimes").status_code == 400
    assert client.get("/plots/threes-keep-chart.png?players_after=x").status_code == 400
    ro = pages("rolled_ones").get("/rolled-ones").text
    assert '<img src="/plots/rolled-ones-policy-errors.png?policy=' in ro
    assert '<img src="/plots/rolled-ones-strategy.png"' in ro
    assert '<img src="/plots/ten-thousand-thresholds.png"' in pages("ten_thousand").get("/ten-thousand").text
