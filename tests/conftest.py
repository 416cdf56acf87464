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
    to ask builds it under a file lock, the others wait and reuse it.
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
                with _recording_read_backs(folder / READ_BACKS):  # for read_backs(path), below
                    pipeline.build(list(games), f"{kind}:///{path}", quiet=True, options=merged)
        return path

    return factory


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
