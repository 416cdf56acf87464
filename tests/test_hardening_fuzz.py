"""Issue 7 §6: generated junk thrown at every CLI command and every public read-API method.

Each CLI call must exit 0 or 2 with at most one line on stderr and no
traceback; each API call must return or raise a DicebaseError; and the
database files must be byte-for-byte unchanged afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import math
import os

import click
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import dicebase
from dicebase.builder import registry
from dicebase.query.base import DicebaseError

GAME_NAMES = {n for g in registry.GAMES for n in (g, g.replace("_", "-"))}
# examples per CLI command (each runs the real CLI in-process) and per API test; raise them with
# DICEBASE_FUZZ_EXAMPLES for a longer hunt
EXAMPLES = int(os.environ.get("DICEBASE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
API_FUZZ = settings(FUZZ, max_examples=EXAMPLES * 10)

# junk a user could type: numbers of every size, text, option-looking words, paths
words = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["0", "-1", "1e309", "nan", "inf", "", " ", "--", "-", "=", "'", '"', ";", "\x00x",
                     "9" * 5000, "a" * 10000, "/proc/x/y", "/", "..", "db/x.duckdb", "sqlite:///", "duckdb:///x",
                     "classic", "reroll", "shared", "strict", "farkle", "standard", "json", "csv", "table",
                     "SELECT 1", "SELECT * FROM threes_win", "DROP TABLE threes_win", "PRAGMA user_version=1"]),
    st.text(max_size=30),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
).filter(lambda w: w.strip().lower() not in GAME_NAMES)


def _commands(group: click.Group, ctx: click.Context, path=()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, (*path, name))
        else:
            yield (*path, name), command


def all_commands():
    from dicebase.main import cli

    with cli.make_context("dicebase", ["info"], resilient_parsing=True) as ctx:
        return list(_commands(cli, ctx))


# `serve` runs until stopped (any junk it accepts would start a server); tests/test_web_*.py cover it
COMMANDS = [(path, command) for path, command in all_commands() if path != ("serve",)]


def _option_words(command: click.Command) -> list[str]:
    return [opt for p in command.params if isinstance(p, click.Option) for opt in p.opts if opt != "--db"]


def digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture(scope="module")
def databases(built_db):
    paths = {
        "threes": built_db(("threes",)),
        "rolled-ones": built_db(("rolled_ones",)),
        "ten-thousand": built_db(("ten_thousand",)),
        "sqlite": built_db(("threes",), "sqlite"),
    }
    before = {k: digest(p) for k, p in paths.items()}
    yield paths
    assert {k: digest(p) for k, p in paths.items()} == before, "a fuzzed call changed a database file"


def _db_for(path: tuple[str, ...], databases, choice: int):
    if path[0] in databases:
        return databases[path[0]]
    return [databases["threes"], databases["sqlite"]][choice % 2]


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_cli_junk_is_one_line_exit_0_or_2(path, command, databases, run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an export with a junk --out writes here, never beside the databases
    options = _option_words(command)

    @FUZZ
    @given(data=st.data())
    def check(data):
        parts = data.draw(st.lists(st.one_of(words, st.sampled_from(options or ["--json"])), max_size=8))
        db = str(_db_for(path, databases, data.draw(st.integers(0, 1))))
        args = [*path, *parts, "--db", db]
        if path == ("build",):  # a junk game name: never build for real into the fuzzed file
            args += ["no-such-game", "--no-wait", "-q"]
        code, out, err = run_cli(args)
        assert code in (0, 2), (args, code, err)
        assert "Traceback" not in err and err.count("\n") <= 1 + (path == ("sql",)), (args, err)
        if code == 2:
            assert err.startswith("Error: ") and len(err) < 1100, (args, err)

    check()


GAME_QUERIES = ("threes", "rolled_ones", "ten_thousand")


def _api_targets(dbs):
    """(label, bound methods) for every public method of the database and of its games' query objects:
    a game's methods bound on that game's database, the database's own on each of them (a draw or the
    sweep picks among them)."""
    targets = []
    for owner_name in ("db", *GAME_QUERIES):
        owners = list(dbs.values()) if owner_name == "db" else [getattr(dbs[owner_name], owner_name)]
        for name, _ in inspect.getmembers(owners[0], inspect.ismethod):
            if name.startswith("_") or name in ("close", "interrupt"):
                continue
            targets.append((f"{owner_name}.{name}", [getattr(owner, name) for owner in owners]))
    return targets


junk_values = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40), st.floats(),
    st.text(max_size=20), st.binary(max_size=10), st.sampled_from(["classic", "standard", "ten-thousand", "SELECT 1",
                                                                    "shared", "fixed-hold-at", math.nan]),
    st.lists(st.integers(-3, 9), max_size=7), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.tuples(st.integers(), st.text(max_size=2)),
)


@pytest.fixture(scope="module")
def game_dbs(built_db):
    """Per store, each game's test database: the session's shared builds (TEST_OPTIONS), which other
    test files read too, instead of a private build of all three games into one file."""
    paths = {store: {game: built_db((game,), store) for game in GAME_QUERIES} for store in ("duckdb", "sqlite")}
    before = {store: [digest(p) for p in files.values()] for store, files in paths.items()}
    yield paths
    assert {store: [digest(p) for p in files.values()] for store, files in paths.items()} == before, \
        "a fuzzed API call changed a database file"


@contextlib.contextmanager
def opened(files: dict, store: str):
    with contextlib.ExitStack() as stack:
        yield {game: stack.enter_context(dicebase.open(f"{store}:///{path}")) for game, path in files.items()}


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_api_junk_returns_or_raises_a_dicebase_error(game_dbs, store):
    with opened(game_dbs[store], store) as dbs:
        targets = _api_targets(dbs)

        @API_FUZZ
        @given(data=st.data())
        def check(data):
            label, methods = data.draw(st.sampled_from(targets))
            method = data.draw(st.sampled_from(methods))
            params = [p for p in inspect.signature(method).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            kwargs = {p.name: data.draw(junk_values) for p in params
                      if p.default is inspect.Parameter.empty or data.draw(st.booleans())}
            try:
                method(**kwargs)
            except DicebaseError:
                pass
            except Exception as exc:  # noqa: BLE001 - the point of the test
                raise AssertionError(f"{label}(**{kwargs!r}) raised {type(exc).__name__}: {exc}") from None

        check()


# one of each kind of junk, for the sweep below
JUNK_EXAMPLES = [None, True, 0, -1, 10**40, 1.5, math.nan, "", "x", b"x", "classic", "standard", "ten-thousand",
                 "SELECT 1", "shared", "fixed-hold-at", [], [1, 2], [9, 9, 9], {}, {"a": 1}, (1, "a")]


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_every_parameter_takes_every_kind_of_junk(game_dbs, store):
    """Deterministic, beside the random hunt above: each parameter of each public method, one at
    a time (the others 0 or their default), given each kind of junk, returns or raises a
    DicebaseError (e.g. ``holds_solitaire(variant=[])`` raised TypeError)."""
    failed = []
    with opened(game_dbs[store], store) as dbs:
        for label, method in [(label, m) for label, methods in _api_targets(dbs) for m in methods]:
            params = [p for p in inspect.signature(method).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            required = {p.name: 0 for p in params if p.default is inspect.Parameter.empty}
            for param in params:
                for junk in JUNK_EXAMPLES:
                    kwargs = {**required, param.name: junk}
                    try:
                        method(**kwargs)
                    except DicebaseError:
                        pass
                    except Exception as exc:  # noqa: BLE001 - the point of the test
                        failed.append(f"{label}(**{kwargs!r}) raised {type(exc).__name__}: {exc}")
    assert failed == []


@given(target=junk_values)
@FUZZ
def test_open_junk_raises_a_dicebase_error(target):
    try:
        dicebase.open(target).close()
    except DicebaseError:
        pass


def test_a_lookup_after_close_is_a_dicebase_error(built_db):
    from dicebase.query.base import DatabaseClosed

    db = dicebase.open(built_db(("threes",)))
    db.close()
    with pytest.raises(DatabaseClosed):
        db.threes.expected("classic")
    with pytest.raises(DatabaseClosed):
        db.run_sql("SELECT 1")
