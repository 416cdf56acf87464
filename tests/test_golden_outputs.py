"""Answers that must not change when code is reshaped: CLI ``--json``, HTTP and Python API.

``tests/golden/outputs.json`` holds the outputs of a fixed set of lookups across every game,
recorded with the code as it was before the query layer was reshaped (issue 20: "every
answer is unchanged ... a test compares them to recorded outputs"). Each test run builds the
same small test databases and compares, as exact text, every recorded answer:

- ``cli``: ``dicebase ... --json`` on DuckDB and on SQLite (both stores must give the
  recorded document);
- ``http``: ``GET /api/v1/...`` on a DuckDB server, which must be the same document;
- ``python``: the Python API's dataclasses, made plain (``as_dict`` where a result has one,
  else its fields), with the ten-thousand and rolled-ones tables read from the file and
  held in memory (``hold()``).

Re-record only for a deliberate change of an answer, from the code that should give it:
``python tests/test_golden_outputs.py --record`` (it builds the databases in a temporary
folder and rewrites the file), and say why in the commit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import sys
import tempfile
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "outputs.json"
GAMES = {"threes": "threes", "rolled-ones": "rolled_ones", "ten-thousand": "ten_thousand"}


def _cli_cases() -> tuple[list[list[str]], list[list[str]]]:
    """Command lines (without --json and --db) across every lookup command of every game: the
    fixed ones (each must answer) and random states (recorded where the state can occur)."""
    fixed = [
        ["threes", "best", "4", "3", "1", "1", "2", "--score", "0", "--to-beat", "7", "--players-after", "4"],
        ["threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "4", "--ties", "strict"],
        ["threes", "best", "6", "5", "4", "--variant", "reroll", "--score", "2"],
        ["threes", "best", "6", "5", "4", "2", "--variant", "reroll", "--score", "1", "--must-keep-two"],
        ["threes", "best", "5", "5", "2", "6", "1"],
        ["threes", "best", "3", "3", "6", "2", "5", "3", "1", "4", "4", "6", "2", "5"],
        ["threes", "chances"],
        ["threes", "chances", "--ties", "strict"],
        ["threes", "chances", "--variant", "reroll", "--dice", "3"],
        ["threes", "chances", "--dice", "50"],
        ["threes", "expected"],
        ["threes", "expected", "--variant", "reroll"],
        ["threes", "expected", "--dice", "40"],
        ["threes", "seats", "--players", "4", "--ties", "strict"],
        ["threes", "seats", "--players", "5"],
        ["rolled-ones", "advantage"],
        ["rolled-ones", "gaps"],
        ["rolled-ones", "komi"],
        ["rolled-ones", "best", "--player", "2", "--score", "30", "--opponent", "41", "--turn-total", "13", "--ones", "1"],
        ["rolled-ones", "best", "--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0", "--ones", "0"],
        ["rolled-ones", "best", "--player", "2", "--score", "48", "--opponent", "52", "--turn-total", "0", "--ones", "0"],
        ["rolled-ones", "disagreements", "keep-pace-end-race", "--limit", "5"],
        ["rolled-ones", "disagreements", "fixed-hold-at", "--limit", "3"],
        ["rolled-ones", "policy", "fixed-hold-at", "--player", "1", "--score", "20", "--opponent", "35",
         "--turn-total", "22", "--ones", "1"],
        ["rolled-ones", "policy", "roll-4-or-5-dice", "--player", "2", "--score", "10", "--opponent", "5",
         "--turn-total", "10", "--ones", "0"],
        ["rolled-ones", "policy", "simple-ones-cases", "--player", "1", "--score", "40", "--opponent", "44",
         "--turn-total", "6", "--ones", "2"],
        ["ten-thousand", "odds", "--dice", "6"],
        ["ten-thousand", "odds", "--dice", "3", "--triple", "2"],
        ["ten-thousand", "best", "1", "1", "5", "2", "3", "4", "--turn-total", "0"],
        ["ten-thousand", "best", "2", "5", "6", "--turn-total", "350", "--triple", "2"],
        ["ten-thousand", "best", "1", "5", "5", "--turn-total", "300", "--score", "600", "--opponent", "800"],
        ["ten-thousand", "best", "5", "2", "3", "4", "--turn-total", "300", "--score", "700", "--opponent", "1050"],
        ["ten-thousand", "best", "1", "1", "1", "5", "2", "6", "--turn-total", "0", "--rules", "farkle"],
        ["ten-thousand", "best", "5", "5", "3", "--turn-total", "250", "--rules", "zilch"],
        ["ten-thousand", "state", "--score", "0", "--opponent", "0", "--turn-total", "0", "--dice", "6"],
        ["ten-thousand", "state", "--score", "500", "--opponent", "700", "--turn-total", "150", "--dice", "3"],
        ["ten-thousand", "state", "--score", "700", "--opponent", "1050", "--turn-total", "300", "--dice", "1"],
        ["ten-thousand", "state", "--score", "950", "--opponent", "400", "--turn-total", "50", "--dice", "5"],
        ["ten-thousand", "thresholds"],
        ["ten-thousand", "thresholds", "--rules", "farkle"],
        ["ten-thousand", "gaps"],
    ]
    cases = []
    rng = random.Random(20)
    for _ in range(12):  # rolled-ones turn states spread over the board
        score, opponent = rng.randrange(0, 50), rng.randrange(0, 60)
        cases.append(["rolled-ones", "best", "--player", str(rng.choice((1, 2))), "--score", str(score),
                      "--opponent", str(opponent), "--turn-total", str(rng.randrange(0, 30)),
                      "--ones", str(rng.randrange(0, 3))])
    for _ in range(12):  # two-player 10,000 states, roll and bank states, at the test goal (1,000)
        cases.append(["ten-thousand", "state", "--score", str(50 * rng.randrange(0, 22)),
                      "--opponent", str(50 * rng.randrange(0, 22)), "--turn-total", str(50 * rng.randrange(0, 16)),
                      "--dice", str(rng.randrange(1, 7))])
    for _ in range(8):  # threes win-probability keeps
        roll = [str(rng.randrange(1, 7)) for _ in range(rng.randrange(1, 6))]
        cases.append(["threes", "best", *roll, "--to-beat", str(rng.randrange(0, 20)),
                      "--players-after", str(rng.randrange(0, 5))])
    return fixed, cases



HTTP_CASES = [
    "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4",
    "/api/v1/threes/expected?variant=reroll",
    "/api/v1/rolled-ones/best?player=2&score=30&opponent=41&turn_total=13&ones=1",
    "/api/v1/rolled-ones/komi",
    "/api/v1/ten-thousand/state?score=500&opponent=700&turn_total=150&dice=3",
    "/api/v1/ten-thousand/best?dice=1,5,5&turn_total=300&score=600&opponent=800",
    "/api/v1/ten-thousand/thresholds?rules=farkle",
]
#: N players (issue 30): the builds tests/test_web_nplayer_pages.py uses (so a run builds each once), Great
#: Rolled Ones at goal 20 and 10,000 (ten-thousand preset) at goal 250, both with 2 and 3 players.
N_OPTIONS = {
    "rolled_ones": {"goal": 20, "players": [2, 3]},
    "ten_thousand": {"rules": ["ten-thousand"], "duel_rules": ["ten-thousand"], "goal": 250, "players": [2, 3]},
}
#: Command lines (without --json and --db) on the N-player builds: three players (a cycle tuple with a mixed
#: equilibrium, a final round), and two players both ways (``--scores A,B`` and ``--score/--opponent``: the same
#: document, :data:`N_TWO_SEATS`).
N_CLI_CASES = [
    ["rolled-ones", "best", "--scores", "3,5,9", "--player", "1", "--turn-total", "7", "--ones", "2"],
    ["rolled-ones", "best", "--scores", "22,5,9", "--player", "2", "--turn-total", "18", "--ones", "1"],
    ["rolled-ones", "best", "--scores", "0,0,0", "--player", "1", "--turn-total", "0", "--ones", "0"],
    ["rolled-ones", "best", "--scores", "4,11", "--player", "1", "--turn-total", "0", "--ones", "0"],
    ["rolled-ones", "best", "--player", "1", "--score", "4", "--opponent", "11", "--turn-total", "0", "--ones", "0"],
    ["rolled-ones", "best", "--scores", "11,4", "--player", "2", "--turn-total", "0", "--ones", "0"],
    ["rolled-ones", "best", "--player", "2", "--score", "4", "--opponent", "11", "--turn-total", "0", "--ones", "0"],
    ["rolled-ones", "seats", "--players", "3"],
    ["rolled-ones", "compensation", "--players", "3"],
    ["ten-thousand", "state", "--scores", "50,50,150", "--player", "1", "--turn-total", "1200", "--dice", "1",
     "--triple", "4"],
    ["ten-thousand", "state", "--scores", "300,100,0", "--player", "2", "--turn-total", "250", "--dice", "3"],
    ["ten-thousand", "state", "--scores", "0,0,0", "--player", "1", "--turn-total", "0", "--dice", "6"],
    ["ten-thousand", "best", "1", "5", "2", "3", "--turn-total", "300", "--scores", "50,100,0", "--player", "3"],
    ["ten-thousand", "best", "1", "5", "2", "3", "--turn-total", "100", "--scores", "300,100,0", "--player", "3"],
    ["ten-thousand", "state", "--scores", "100,150", "--player", "1", "--turn-total", "100", "--dice", "4"],
    ["ten-thousand", "state", "--score", "100", "--opponent", "150", "--turn-total", "100", "--dice", "4"],
    ["ten-thousand", "best", "1", "5", "5", "--turn-total", "200", "--scores", "50,200", "--player", "2"],
    ["ten-thousand", "best", "1", "5", "5", "--turn-total", "200", "--score", "200", "--opponent", "50"],
    ["ten-thousand", "seats", "--players", "3"],
    ["ten-thousand", "compensation", "--players", "3"],
]
#: ``--scores A,B`` with two players is the shorthand ``--score/--opponent``'s verb (issue 30): each line's recorded
#: document is the other's, byte for byte (recorded before issue 30 from the N-player tables; now the two-player ones).
N_TWO_SEATS = {
    "rolled-ones best --scores 4,11 --player 1 --turn-total 0 --ones 0":
        "rolled-ones best --player 1 --score 4 --opponent 11 --turn-total 0 --ones 0",
    "rolled-ones best --scores 11,4 --player 2 --turn-total 0 --ones 0":
        "rolled-ones best --player 2 --score 4 --opponent 11 --turn-total 0 --ones 0",
    "ten-thousand state --scores 100,150 --player 1 --turn-total 100 --dice 4":
        "ten-thousand state --score 100 --opponent 150 --turn-total 100 --dice 4",
    "ten-thousand best 1 5 5 --turn-total 200 --scores 50,200 --player 2":
        "ten-thousand best 1 5 5 --turn-total 200 --score 200 --opponent 50",
}
N_HTTP_CASES = [
    "/api/v1/rolled-ones/best?scores=3,5,9&player=1&turn_total=7&ones=2",
    "/api/v1/ten-thousand/state?scores=50,50,150&player=1&turn_total=1200&dice=1&triple=4",
    "/api/v1/ten-thousand/best?dice=1,5,2,3&turn_total=300&scores=50,100,0&player=3",
    "/api/v1/rolled-ones/best?scores=11,4&player=2&turn_total=0&ones=0",
    "/api/v1/ten-thousand/state?scores=100,150&player=1&turn_total=100&dice=4",
]
#: Python API calls on the N-player builds.
N_PYTHON_CASES = {
    "rolled_ones": [
        "db.rolled_ones.best((3, 5, 9), 1, 7, 2)",
        "db.rolled_ones.best((22, 5, 9), 2, 18, 1)",
        "db.rolled_ones.best(1, 4, 11, 0, 0)",
        "db.rolled_ones.best((4, 11), 1, 0, 0)",
        "db.rolled_ones.best('11,4', 2)",
        "db.rolled_ones.seats(3)",
    ],
    "ten_thousand": [
        "db.ten_thousand.state((50, 50, 150), 1, 1200, dice=1, triple=4)",
        "db.ten_thousand.state((300, 100, 0), 2, 250, dice=3)",
        "db.ten_thousand.best([1, 5, 2, 3], turn_total=300, scores=(50, 100, 0), player=3)",
        "db.ten_thousand.state(100, 150, 100, dice=4)",
        "db.ten_thousand.state([100, 150], 1, 100, dice=4)",
        "db.ten_thousand.best([1, 5, 5], turn_total=200, scores='50,200', player=2)",
        "db.ten_thousand.best([1, 5, 5], turn_total=200, score=200, opponent=50)",
        "db.ten_thousand.seats(3)",
    ],
}
#: Python API calls, evaluated with ``db`` bound to an open database of the game.
PYTHON_CASES = {
    "threes": [
        "db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=4)",
        "db.threes.best([6, 5, 4], variant='reroll', score=2)",
        "db.threes.expected('reroll')",
        "db.threes.chances('classic', ties='strict')",
        "db.threes.seats(4)",
    ],
    "rolled_ones": [
        "db.rolled_ones.best(2, 30, 41, 13, 1)",
        "db.rolled_ones.policy('fixed-hold-at', 1, 20, 35, 22, 1)",
        "db.rolled_ones.komi()",
        "db.rolled_ones.gaps()",
        "db.rolled_ones.advantage()",
        "db.rolled_ones.disagreements('keep-pace-end-race', limit=4)",
    ],
    "ten_thousand": [
        "db.ten_thousand.best([1, 5, 5], turn_total=300, score=600, opponent=800)",
        "db.ten_thousand.best([2, 5, 6], turn_total=350, triple=2)",
        "db.ten_thousand.state(500, 700, 150, dice=3)",
        "db.ten_thousand.state(700, 1050, 300, dice=1)",
        "db.ten_thousand.state(950, 400, 50, dice=5)",
        "db.ten_thousand.odds(3, triple=2)",
        "db.ten_thousand.thresholds('farkle')",
        "db.ten_thousand.gaps()",
    ],
}


def plain(value):
    """A result as plain JSON values: ``as_dict()`` where it has one, else a dataclass's fields."""
    if hasattr(value, "as_dict"):
        return plain(value.as_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _game(args: list[str]) -> str:
    return GAMES[args[0]]


def _cli_document(invoke, db_path: Path, args: list[str]) -> str:
    code, out, err = invoke([*args, "--json", "--db", str(db_path)])
    assert code == 0, (args, err)
    return json.dumps(json.loads(out), sort_keys=True)


def _python_answers(db, calls: list[str]) -> dict[str, str]:
    return {call: json.dumps(plain(eval(call, {"db": db})), sort_keys=True) for call in calls}  # noqa: S307


def _record_n(outputs: dict, folder: str) -> None:
    """The N-player sections (``cli_n``, ``http_n``, ``python_n``) from builds with :data:`N_OPTIONS`."""
    from conftest import invoke_cli
    from starlette.testclient import TestClient

    import dicebase
    from dicebase.builder import pipeline
    from dicebase.web.app import create_app

    paths = {}
    for game, options in N_OPTIONS.items():
        for kind in ("duckdb", "sqlite"):
            paths[game, kind] = Path(folder) / f"{game}-n.{kind}"
            if not paths[game, kind].exists():
                pipeline.build([game], f"{kind}:///{paths[game, kind]}", quiet=True, options={game: options})
    outputs["cli_n"] = {" ".join(args): _cli_document(invoke_cli, paths[_game(args), "duckdb"], args)
                        for args in N_CLI_CASES}
    outputs["http_n"] = {}
    for url in N_HTTP_CASES:
        game = GAMES[url.split("/")[3]]
        with TestClient(create_app(dicebase.open(paths[game, "duckdb"]))) as client:
            response = client.get(url)
            assert response.status_code == 200, (url, response.text)
            outputs["http_n"][url] = json.dumps(response.json(), sort_keys=True)
    outputs["python_n"] = {}
    for game, calls in N_PYTHON_CASES.items():
        with dicebase.open(paths[game, "duckdb"]) as db:
            outputs["python_n"][game] = _python_answers(db, calls)


def record_n(path: Path = GOLDEN, folder: str | None = None) -> None:
    """Rewrite only the N-player sections of ``path`` (the others kept as they are)."""
    sys.path.insert(0, str(Path(__file__).parent))
    outputs = json.loads(path.read_text())
    with tempfile.TemporaryDirectory() if folder is None else contextlib.nullcontext(folder) as folder:
        _record_n(outputs, folder)
    path.write_text(json.dumps(outputs, indent=1, sort_keys=True) + "\n")


def record(path: Path = GOLDEN, folder: str | None = None) -> None:
    """Build the test databases (in ``folder``, default a temporary one) and write every answer
    the current code gives to ``path``: every fixed case, and the random cases that answer."""
    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import invoke_cli

    import dicebase
    from dicebase.builder import pipeline, registry

    outputs: dict = {"cli": {}, "http": {}, "python": {}}
    with tempfile.TemporaryDirectory() if folder is None else contextlib.nullcontext(folder) as folder:
        paths = {}
        for game in GAMES.values():
            for kind in ("duckdb", "sqlite"):
                paths[game, kind] = Path(folder) / f"{game}.{kind}"
                options = {game: dict(getattr(registry.load(game), "TEST_OPTIONS", {}))}
                if not paths[game, kind].exists():
                    pipeline.build([game], f"{kind}:///{paths[game, kind]}", quiet=True, options=options)
        fixed, random_states = _cli_cases()
        for args in fixed:
            outputs["cli"][" ".join(args)] = _cli_document(invoke_cli, paths[_game(args), "duckdb"], args)
        for args in random_states:
            code, out, _ = invoke_cli([*args, "--json", "--db", str(paths[_game(args), "duckdb"])])
            if code == 0:
                outputs["cli"][" ".join(args)] = json.dumps(json.loads(out), sort_keys=True)
        from starlette.testclient import TestClient

        from dicebase.web.app import create_app

        for url in HTTP_CASES:
            game = GAMES[url.split("/")[3]]
            with TestClient(create_app(dicebase.open(paths[game, "duckdb"]))) as client:
                response = client.get(url)
                assert response.status_code == 200, (url, response.text)
                outputs["http"][url] = json.dumps(response.json(), sort_keys=True)
        for game, calls in PYTHON_CASES.items():
            with dicebase.open(paths[game, "duckdb"]) as db:
                outputs["python"][game] = _python_answers(db, calls)
        _record_n(outputs, folder)
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(outputs, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
@pytest.mark.parametrize("game", sorted(GAMES))
def test_cli_json_is_unchanged(golden, built_db, run_cli, game, kind):
    """Every recorded ``--json`` document of the game, on both stores, exactly as recorded."""
    db_path = built_db((GAMES[game],), kind)
    cases = {line: document for line, document in golden["cli"].items() if line.split()[0] == game}
    assert len(cases) >= 10
    for line, document in cases.items():
        assert _cli_document(run_cli, db_path, line.split()) == document, line


def test_http_answers_are_unchanged(golden, built_db):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    import dicebase
    from dicebase.web.app import create_app

    for url in HTTP_CASES:
        game = GAMES[url.split("/")[3]]
        with TestClient(create_app(dicebase.open(built_db((game,), "duckdb")))) as client:
            response = client.get(url)
            assert response.status_code == 200, (url, response.text)
            assert json.dumps(response.json(), sort_keys=True) == golden["http"][url], url


@pytest.mark.parametrize("held", [False, True], ids=["file", "held"])
@pytest.mark.parametrize("game", sorted(PYTHON_CASES))
def test_python_api_is_unchanged(golden, built_db, game, held):
    import dicebase

    with dicebase.open(built_db((game,), "duckdb")) as db:
        if held and game != "threes":
            assert getattr(db, game).hold() > 0
        assert _python_answers(db, PYTHON_CASES[game]) == golden["python"][game]


@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
def test_nplayer_cli_json_is_unchanged(golden, built_db, run_cli, kind):
    """Every recorded N-player ``--json`` document, on both stores, exactly as recorded."""
    for line, document in golden["cli_n"].items():
        game = GAMES[line.split()[0]]
        assert _cli_document(run_cli, built_db((game,), kind, {game: N_OPTIONS[game]}), line.split()) == document, line


def test_two_seats_are_the_two_player_shorthand(golden):
    """``--scores A,B --player K`` is recorded as exactly the document ``--score/--opponent`` gives."""
    for line, shorthand in N_TWO_SEATS.items():
        assert golden["cli_n"][line] == golden["cli_n"][shorthand], line


def test_nplayer_http_and_python_answers_are_unchanged(golden, built_db):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    import dicebase
    from dicebase.web.app import create_app

    paths = {game: built_db((game,), "duckdb", {game: options}) for game, options in N_OPTIONS.items()}
    for url in N_HTTP_CASES:
        with TestClient(create_app(dicebase.open(paths[GAMES[url.split("/")[3]]]))) as client:
            response = client.get(url)
            assert response.status_code == 200, (url, response.text)
            assert json.dumps(response.json(), sort_keys=True) == golden["http_n"][url], url
    for game, calls in N_PYTHON_CASES.items():
        with dicebase.open(paths[game]) as db:
            assert _python_answers(db, calls) == golden["python_n"][game]


if __name__ == "__main__":
    if sys.argv[1:2] not in (["--record"], ["--record-n"]) or len(sys.argv) > 3:
        sys.exit("usage: python tests/test_golden_outputs.py --record|--record-n [FOLDER-TO-KEEP-THE-DATABASES]\n"
                 "(--record-n: only the N-player sections)")
    (record if sys.argv[1] == "--record" else record_n)(folder=sys.argv[2] if len(sys.argv) == 3 else None)
    print(f"wrote {GOLDEN}")
