"""The HTTP JSON API: one contract with the CLI's --json, on both stores.

Every endpoint's answer must be byte-for-byte what ``dicebase ... --json``
prints for the same state; every mistake must be the CLI's one-line message
with 400 (bad input) or 404 (not in the database), and a database that cannot
answer (missing, damaged, busy, too slow) 503; nothing may give a 500.
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.web import api  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402

GAMES = {"threes": "threes", "rolled-ones": "rolled_ones", "ten-thousand": "ten_thousand"}
ENDPOINTS = api.endpoints()


def _game_of(endpoint) -> str:
    """The builder name of the game an endpoint reads (info and schema: threes' database)."""
    return GAMES.get(endpoint.cli_path[0], "threes")


@pytest.fixture(scope="module")
def clients(built_db):
    """``clients(game, kind) -> (TestClient, database URL)``, one app per game database, closed at the end."""
    opened: dict = {}

    def get(game: str, kind: str):
        if (game, kind) not in opened:
            url = f"{kind}:///{built_db((game,), kind)}"
            client = TestClient(create_app(dicebase.open(url)))
            client.__enter__()
            opened[game, kind] = (client, url)
        return opened[game, kind]

    yield get
    for client, _ in opened.values():
        client.__exit__(None, None, None)


def _url(path: str, items: list[tuple[str, str]]) -> str:
    return path + ("?" + urlencode(items, safe=",") if items else "")


# States beyond each command's documented example: (CLI path, query parameters).
STATES = [
    (("threes", "best"), [("dice", "4,3,1,1,2"), ("to_beat", "7"), ("players_after", "4")]),
    (("threes", "best"), [("dice", "6,5,4"), ("variant", "reroll"), ("score", "2")]),
    (("threes", "best"), [("dice", "6,5,4,2"), ("variant", "reroll"), ("score", "1"), ("must_keep_two", "true")]),
    (("threes", "best"), [("dice", "4,3,1,1,2"), ("to_beat", "7"), ("players_after", "4"), ("ties", "strict")]),
    (("threes", "chances"), [("variant", "reroll"), ("dice", "3")]),
    (("threes", "seats"), [("players", "4"), ("ties", "strict")]),
    (("rolled-ones", "best"), [("player", "1"), ("score", "0"), ("opponent", "0"), ("turn_total", "0"), ("ones", "0")]),
    (("rolled-ones", "best"), [("player", "2"), ("score", "30"), ("opponent", "55"), ("turn_total", "13"), ("ones", "1")]),
    (("ten-thousand", "best"), [("dice", "2,5,6"), ("turn_total", "350"), ("triple", "2")]),
    (("ten-thousand", "best"), [("dice", "1,5,5"), ("turn_total", "600"), ("score", "500"), ("opponent", "700")]),
    (("ten-thousand", "state"), [("score", "500"), ("opponent", "1050"), ("turn_total", "300"), ("dice", "1")]),
    (("ten-thousand", "odds"), [("dice", "3"), ("triple", "2")]),
    (("ten-thousand", "odds"), [("dice", "4"), ("rules", "farkle")]),
    (("schema", ), []),
]

CASES = [(e.cli_path, e.example()) for e in ENDPOINTS.values()] + STATES


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
@pytest.mark.parametrize("cli_path, items", CASES, ids=lambda v: "/".join(v) if isinstance(v, tuple) else None)
def test_answer_is_the_cli_json(clients, run_cli, kind, cli_path, items):
    """Each endpoint (its documented example and more states) answers exactly what --json prints."""
    endpoint = ENDPOINTS["/api/v1/" + "/".join(cli_path)]
    client, url = clients(_game_of(endpoint), kind)
    response = client.get(_url(endpoint.path, items))
    code, out, err = run_cli([*cli_path, "--db", url, *endpoint.argv(items)])
    if response.status_code == 200:
        assert code == 0, err
        assert response.text == out
        assert response.headers["content-type"] == "application/json"
    else:  # e.g. a documented example beyond the small test database: the same refusal
        assert response.status_code == 404, response.text
        assert code == 2
        assert err == f"Error: {response.json()['error']}\n"
    if cli_path == ("threes", "best") or cli_path == ("rolled-ones", "best"):
        assert response.status_code == 200


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_seed001_example(clients, kind):
    # seed 001 (001_f4320d56f1732e4d.txt): 4 3 1 1 2, best so far 7, four players after -> keep [3];
    # exact win probability 0.2760 (the seed's 0.1351 is a Monte Carlo estimate with approximate opponents).
    client, _ = clients("threes", kind)
    doc = client.get("/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4").json()
    assert doc["best"]["keep"] == [3]
    assert doc["best"]["value"] == pytest.approx(0.2760297255455543, abs=1e-12)
    assert [a["keep"] for a in doc["actions"]] == [[3], [3, 1], [3, 1, 1], [3, 1, 1, 2], [3, 1, 1, 2, 4]]


BAD = [
    # (game, path, query, status): the CLI refuses the same command line with the same message
    ("threes", "/api/v1/threes/best", "dice=4,3,1,1,9&to_beat=7", 400),
    ("threes", "/api/v1/threes/best", "dice=4,3,1,1,x", 400),
    ("threes", "/api/v1/threes/best", "dice=", 400),
    ("threes", "/api/v1/threes/best", "to_beat=7", 400),
    ("threes", "/api/v1/threes/best", "dice=4,3,1,1,2&players_after=0", 400),
    ("threes", "/api/v1/threes/best", "dice=4,3,1,1,2&ties=sometimes&to_beat=3", 400),
    ("threes", "/api/v1/threes/best", "dice=4,3,1,1,2&players_after=19", 404),
    ("threes", "/api/v1/threes/best", "dice=-1", 400),
    ("threes", "/api/v1/threes/seats", "players=99", 400),
    ("threes", "/api/v1/threes/seats", "", 400),
    ("threes", "/api/v1/schema", "table=nothing_here", 404),
    ("rolled_ones", "/api/v1/rolled-ones/best", "player=3&score=0&opponent=0&turn_total=0&ones=0", 400),
    ("rolled_ones", "/api/v1/rolled-ones/policy", "name=nobody&player=1&score=0&opponent=0&turn_total=0&ones=0", 400),
    ("rolled_ones", "/api/v1/rolled-ones/komi", "variant=house", 400),
    ("ten_thousand", "/api/v1/ten-thousand/best", "dice=1,1,5,2,3,4,6&turn_total=0", 400),
    ("ten_thousand", "/api/v1/ten-thousand/best", "dice=1,5&turn_total=25", 400),
    ("ten_thousand", "/api/v1/ten-thousand/odds", "dice=7", 400),
    ("threes", "/api/v1/rolled-ones/komi", "", 404),  # a game this database does not hold
    ("threes", "/api/v1/threes/best", "dice=4&score=x&to_beat=y", 400),  # two bad values: the CLI names the same one
    ("threes", "/api/v1/threes/best", "dice=4&to_beat=--json", 400),  # an option's value that looks like an option
]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
@pytest.mark.parametrize("game, path, query, status", BAD)
def test_bad_input_is_the_cli_message(clients, run_cli, kind, game, path, query, status):
    client, url = clients(game, kind)
    response = client.get(f"{path}?{query}" if query else path)
    assert response.status_code == status
    endpoint = ENDPOINTS[path]
    items = [tuple(pair.split("=", 1)) for pair in query.split("&")] if query else []
    code, out, err = run_cli([*endpoint.cli_path, "--db", url, *endpoint.argv(items)])
    assert code == 2 and out == ""
    assert err == f"Error: {response.json()['error']}\n"


@pytest.mark.parametrize("query, words", [
    ("foo=1", "unknown parameter 'foo'"),
    ("dice=1&dice=2", "given more than once"),
    ("dice=4,3,1,1,2&must_keep_two=maybe", "give true or false"),
    ("dice=4,3,1,1,2&db=/etc/passwd", "unknown parameter 'db'"),
    ("dice=4,3,1,1,2&format=csv", "unknown parameter 'format'"),
    ("dice=4,3,1,1,2&json=true", "unknown parameter 'json'"),
])
def test_parameters_the_api_refuses(clients, query, words):
    client, _ = clients("threes", "duckdb")
    response = client.get(f"/api/v1/threes/best?{query}")
    assert response.status_code == 400
    assert words in response.json()["error"]


def test_a_roll_of_more_dice_than_http_takes_is_refused_before_any_lookup(clients, monkeypatch):
    """Threes' many-dice answers grow with the square of the roll (138 MB at 5,000 dice): over
    HTTP a roll takes at most MAX_LIST_VALUES dice, refused with 400 and one line naming the CLI,
    and the lookup never runs; at the bound the request goes on to the lookup."""
    from dicebase.query import threes
    from dicebase.web import api

    client, _ = clients("threes", "duckdb")
    ran = []
    monkeypatch.setattr(threes.Queries, "best", lambda self, *a, _best=threes.Queries.best, **k: ran.append(1) or _best(self, *a, **k))
    response = client.get("/api/v1/threes/best?dice=" + ",".join(["3"] * (api.MAX_LIST_VALUES + 1)))
    assert response.status_code == 400 and not ran
    assert response.json()["error"] == (f"dice takes at most {api.MAX_LIST_VALUES:,} values over HTTP, got "
                                        f"{api.MAX_LIST_VALUES + 1:,} (the answer grows with their square); "
                                        "the CLI answers larger ones: dicebase threes best ...")
    at_bound = client.get("/api/v1/threes/best?dice=" + ",".join(["3"] * api.MAX_LIST_VALUES))
    assert "over HTTP" not in at_bound.text and ran


def test_flags_and_unknown_paths(clients):
    client, _ = clients("threes", "duckdb")
    on = client.get("/api/v1/threes/best?dice=6,5,4,2&variant=reroll&score=1&must_keep_two=true").json()
    off = client.get("/api/v1/threes/best?dice=6,5,4,2&variant=reroll&score=1&must_keep_two=false").json()
    assert on["must_keep_two"] is True and off["must_keep_two"] is False
    assert min(len(a["keep"]) for a in on["actions"]) == 2
    for path in ("/api/v1/nothing", "/api/v1/threes/nothing", "/api/v2/threes/best", "/api/v1/threes/best/more"):
        response = client.get(path)
        assert response.status_code == 404
        assert "error" in response.json()
    response = client.post("/api/v1/info")
    assert response.status_code == 405 and "error" in response.json()


def test_a_request_parses_its_command_line_once(built_db, monkeypatch):
    # the command's context hangs under contexts of "dicebase threes" built once per endpoint, and the
    # strict check (no option twice) reads click's own parse: one parser per request (no response cache)
    import click

    parsers = []
    make_parser = click.Command.make_parser

    def counted(self, ctx):
        parsers.append(ctx.command_path)
        return make_parser(self, ctx)

    with TestClient(create_app(dicebase.open(built_db(("threes",))), cache_bytes=0)) as client:
        monkeypatch.setattr(click.Command, "make_parser", counted)
        for query in ("dice=4,3,1,1,2&to_beat=7&players_after=4", "dice=4,3,1,1,x"):
            assert client.get(f"/api/v1/threes/best?{query}").status_code in (200, 400)
        assert client.get("/api/v1/threes/seats?players=3").status_code == 200
    assert parsers == ["dicebase threes best", "dicebase threes best", "dicebase threes seats"]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_the_database_twin_of_an_ended_thread_is_closed(built_db, kind):
    # lookups and pages run in anyio's worker threads, which end when idle and are replaced: no pile of twins
    import threading

    server = create_app(dicebase.open(f"{kind}:///{built_db(('threes',), kind)}"), cache_bytes=0).state.server
    twins = []
    for _ in range(3):
        thread = threading.Thread(target=lambda: twins.append(server.thread_db()))
        thread.start()
        thread.join()
    assert [not twin.statistics().open for twin in twins] == [True, True, False]  # the last one ended after the last open
    assert len(server.thread_databases()) == 2  # this thread's (the server asked for its info) and the last thread's
    assert server.lookup("/api/v1/threes/seats", [("players", "3")])  # this thread's twin still answers
    assert len(server.thread_databases()) == 2
    server.close()
    assert all(not twin.statistics().open for twin in twins)


def test_info_is_dicebase_info_json(clients, run_cli):
    client, url = clients("threes", "sqlite")
    code, out, _ = run_cli(["info", "--json", "--db", url])
    assert code == 0
    assert client.get("/api/v1/info").text == out


def test_etag_and_cors(clients):
    client, _ = clients("threes", "duckdb")
    first = client.get("/api/v1/threes/expected", headers={"Origin": "http://example.test"})
    etag = first.headers["etag"]
    assert first.headers["access-control-allow-origin"] == "*"
    assert client.get("/api/v1/threes/seats?players=3").headers["etag"] == etag  # one build, one tag
    assert client.get("/threes").headers["etag"] == etag
    again = client.get("/api/v1/threes/expected", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/v1/threes/expected", headers={"If-None-Match": '"other"'}).status_code == 200
    assert client.get("/api/v1/info", headers={"If-None-Match": f'"x", W/{etag}'}).status_code == 304
    # another build (here: the other store, with its own build_info) has another tag
    other, _ = clients("threes", "sqlite")
    assert other.get("/api/v1/threes/expected").headers["etag"] != etag


def test_openapi_documents_every_endpoint(clients):
    client, _ = clients("threes", "duckdb")
    spec = client.get("/api/v1/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]) == set(ENDPOINTS)
    for path, endpoint in ENDPOINTS.items():
        operation = spec["paths"][path]["get"]
        assert [p["name"] for p in operation["parameters"]] == list(endpoint.parameters)
        assert operation["summary"] and operation["x-example"].startswith(path)
        assert {"200", "400", "404", "503"} <= set(operation["responses"])
    best = {p["name"]: p for p in spec["paths"]["/api/v1/threes/best"]["get"]["parameters"]}
    assert best["ties"]["schema"]["enum"] == ["shared", "strict"]
    assert best["must_keep_two"]["schema"]["type"] == "boolean"
    assert best["dice"]["required"] and best["dice"]["example"] == "4,3,1,1,2"
    assert "/api/v1/threes/best?dice=4,3,1,1,2" in spec["paths"]["/api/v1/threes/best"]["get"]["x-example"]
    page = client.get("/api")
    assert page.status_code == 200 and "/api/v1/threes/best" in page.text and "openapi.json" in page.text


def test_every_lookup_command_is_an_endpoint():
    """Nothing the CLI answers with --json is missing from the API (a new command gets its endpoint)."""
    import click

    from dicebase.cli import GAME_GROUPS, cli

    ctx = click.Context(cli)
    for game in GAME_GROUPS:
        group = cli.get_command(ctx, game)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if any(p.name == "as_json" for p in command.params):
                assert f"/api/v1/{game}/{name}" in ENDPOINTS


# -- generated query strings never give a 500 -----------------------------------------------------

_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_number = st.integers(-3, 12_000).map(str)
_value = st.one_of(_number, _text, st.sampled_from(["true", "false", "classic", "reroll", "shared", "strict",
                                                     "farkle", "ten-thousand", "fixed-hold-at", ""]),
                   st.lists(st.integers(-1, 8), max_size=8).map(lambda v: ",".join(map(str, v))))


@st.composite
def _requests(draw):
    path = draw(st.sampled_from([*ENDPOINTS, "/api/v1/threes", "/api/v1/", "/api/v1/x/y"]))
    names = list(ENDPOINTS[path].parameters) if path in ENDPOINTS else []
    keys = st.one_of(st.sampled_from(names), _text) if names else _text
    items = draw(st.lists(st.tuples(keys, _value), max_size=6))
    return path, items


@pytest.mark.parametrize("game", ["threes", "rolled_ones", "ten_thousand"])
def test_generated_queries_never_fail(clients, game):
    client, _ = clients(game, "duckdb")

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_requests())
    def check(request):
        path, items = request
        response = client.get(path, params=items)
        assert response.status_code in (200, 400, 404), (path, items, response.text)
        body = json.loads(response.text)
        if response.status_code != 200:
            assert set(body) == {"error"} and "\n" not in body["error"]

    check()


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_time_limit_stops_a_lookup_with_503(built_db, kind):
    """The query layer's time limit applies to the server's lookups (serve --timeout sets it)."""
    db = dicebase.open(f"{kind}:///{built_db(('threes',), kind)}", timeout=10)
    with TestClient(create_app(db)) as client:
        client.app.state.server.db.timeout = 1e-6  # the request threads' connections inherit it
        response = client.get("/api/v1/threes/seats?players=3")
        assert response.status_code == 503
        assert response.json()["error"].startswith("the query ran longer than")


def test_a_damaged_database_is_503_with_the_cli_line(built_db, tmp_path, run_cli):
    """A database damaged under a running server is no fault of the request: 503, and the same
    one line the CLI prints for the same lookup (issue 20 §4)."""
    import shutil

    path = tmp_path / "threes.sqlite"
    shutil.copyfile(built_db(("threes",), "sqlite"), path)
    with TestClient(create_app(dicebase.open(f"sqlite:///{path}"), cache_bytes=0)) as client:
        data = bytearray(path.read_bytes())
        data[4096:] = bytes(len(data) - 4096)  # every page but the first (the header) zeroed
        path.write_bytes(bytes(data))
        response = client.get("/api/v1/threes/seats?players=3")
    code, _, err = run_cli(["threes", "seats", "--players", "3", "--json", "--db", f"sqlite:///{path}"])
    assert response.status_code == 503, response.text
    message = response.json()["error"]
    assert code == 2 and "damaged" in message
    assert err == f"Error: {message}\n"


def test_each_error_class_has_its_http_status():
    """400 for the request's own mistake, 404 not in the database, 503 what is no fault of the
    request (a missing, damaged or busy database, a time limit), as dicebase.errors says."""
    import errno

    import click

    from dicebase import errors
    from dicebase.location import resolve
    from dicebase.web.api import http_status

    loc = resolve("nowhere/x.duckdb")
    cases = [
        (errors.BadInput("bad"), 400), (click.UsageError("no such option"), 400),
        (errors.NotInDatabase("not built"), 404),
        (errors.missing(loc), 503), (errors.damaged(loc, "malformed"), 503),
        (errors.other_schema_version(loc, "'1'", 6), 503), (errors.locked(loc), 503),
        (errors.QueryTimeout("slow"), 503), (errors.no_space("full"), 503),
        (OSError(errno.EACCES, "Permission denied", "x.duckdb"), 503),
    ]
    from dicebase.present import error_line

    for exc, status in cases:
        assert http_status(exc, error_line(exc)[1]) == status, exc
