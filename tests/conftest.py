"""Shared fixtures: session-cached test databases and an in-process CLI runner."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the toy game used by the foundation tests


@pytest.fixture(scope="session")
def built_db(tmp_path_factory):
    """``built_db(games=("threes",), kind="duckdb", options=None) -> Path``.

    Builds the games with their TEST_OPTIONS (updated by ``options``, a dict
    game -> dict) once per distinct request and returns the file path.  Under
    pytest-xdist (``-n 2``) the workers share one build per request: the first
    to ask builds it under a file lock, the others wait and reuse it.  Within one process the builds
    share their solves (``_sharing_solves``): the SQLite file of a request solves nothing its DuckDB
    twin (or an earlier request with the same rule set and goal) solved already.
    """
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker's base is a folder of the run's shared one
        root = root.parent
    cache = root / "built-databases"
    cache.mkdir(exist_ok=True)

    def factory(games=("threes",), kind="duckdb", options=None):
        from dicebase.builder import pipeline, registry

        games = tuple(registry.canonical(g) for g in games)
        options = {registry.canonical(g): o for g, o in (options or {}).items()}
        key = json.dumps([games, kind, options], sort_keys=True)
        suffix = "duckdb" if kind == "duckdb" else "sqlite"
        folder = cache / hashlib.sha256(key.encode()).hexdigest()[:16]
        path = folder / f"{'-'.join(games)}.{suffix}"
        with FileLock(f"{folder}.lock"):
            if not path.exists():
                merged = {g: {**getattr(registry.load(g), "TEST_OPTIONS", {}), **options.get(g, {})} for g in games}
                folder.mkdir(exist_ok=True)
                with _recording_read_backs(folder / READ_BACKS), _sharing_solves():  # read_backs(path), below
                    pipeline.build(list(games), f"{kind}:///{path}", quiet=True, options=merged)
        return path

    return factory


# -- one solve per rule set and size, shared by this process's built_db builds ---------------------------
#: (module, function) of the solvers a build calls through its module's attribute: deterministic, their
#: answers independent of threads (docs/DESIGN.md), and only read by the builders that call them
SHARED_SOLVES = (
    ("dicebase.builder.ten_thousand.solitaire", "solve"),
    ("dicebase.builder.ten_thousand.solitaire", "average_turn"),
    ("dicebase.builder.ten_thousand.twoplayer", "solve"),
    ("dicebase.builder.ten_thousand.twoplayer", "solve_penalty"),
    ("dicebase.builder.ten_thousand.nplayer", "solve"),
    ("dicebase.builder.rolled_ones", "solve"),
    ("dicebase.builder.threes", "solve_expected"),
    ("dicebase.builder.threes", "solve_win"),
    ("dicebase.builder.pig.solver", "solve"),
)
_SOLVED: dict = {}  # (module, function, arguments) -> the answer, for the life of this process
_NOT_KEYS = {"progress", "runner"}  # a build's reporting and its level runner: not part of what is solved


@contextlib.contextmanager
def _sharing_solves():
    """While a built_db build runs: each solver in SHARED_SOLVES answers a call it has answered before in
    this process (same arguments) with the same answer instead of solving again; a call it has not seen
    (or with arguments that cannot be a key) runs as it is.  The writing, checksums and stores all run."""
    import importlib

    patched = []
    for module_name, name in SHARED_SOLVES:
        module = importlib.import_module(module_name)
        real = getattr(module, name)

        def shared(*args, _real=real, _key=(module_name, name), **kwargs):
            key = (*_key, args, tuple(sorted((k, v) for k, v in kwargs.items() if k not in _NOT_KEYS)))
            try:
                hash(key)
            except TypeError:
                return _real(*args, **kwargs)
            if key not in _SOLVED:
                _SOLVED[key] = _real(*args, **kwargs)
            return _SOLVED[key]

        setattr(module, name, shared)
        patched.append((module, name, real))
    try:
        yield
    finally:
        for module, name, real in patched:
            setattr(module, name, real)


# -- the checksums a built_db build read back (tests/test_build_checksums.py) ---------------------------
READ_BACKS = "read-backs.json"


@contextlib.contextmanager
def _recording_read_backs(record: Path):
    """While a built_db build runs: every table whose checksum the pipeline reads back from the stored
    rows (``pipeline.stored_table_checksum``, instead of the one computed from the appended rows) is
    recorded, the call itself unchanged, and the list written to ``record`` once the build is done."""
    from dicebase.builder import pipeline

    tables, real = [], pipeline.stored_table_checksum

    def recorded(con, store, table, columns):
        tables.append(table)
        return real(con, store, table, columns)

    pipeline.stored_table_checksum = recorded
    try:
        yield
    finally:
        pipeline.stored_table_checksum = real
    record.write_text(json.dumps(tables))


def read_backs(path: Path) -> list[str]:
    """The tables whose checksums the build of ``built_db``'s database ``path`` read back from the
    stored rows (empty: every checksum came from the appended rows).  No record is an error."""
    return json.loads((Path(path).parent / READ_BACKS).read_text())


def invoke_cli(args: list[str]) -> tuple[int, str, str]:
    """Run the real ``dicebase`` entry point in-process: (exit code, stdout, stderr)."""
    from dicebase.main import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def run_cli():
    """``run_cli(args) -> (exit_code, stdout, stderr)`` for the real CLI."""
    return invoke_cli
