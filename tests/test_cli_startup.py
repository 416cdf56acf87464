"""Issue 12 §2: what a CLI lookup loads and how it ends.  A lookup imports DuckDB's engine
(``_duckdb``) but not the ``duckdb`` wrapper package, nor importlib.metadata; a read-only
command ends without the interpreter's teardown and still writes all of its output.
The seconds themselves are measured by benchmarks/lookups.py, never asserted here."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dicebase.query.database import duckdb_engine

DICEBASE = [sys.executable, "-m", "dicebase"]


@pytest.fixture(scope="module")
def dbs(built_db):
    return {"duckdb": built_db(("threes",)), "sqlite": built_db(("threes",), "sqlite")}


def _imported(args: list[str], tmp_path) -> tuple[subprocess.CompletedProcess, set[str]]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "dicebase", *args], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    names = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc, names


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_lookup_loads_neither_the_duckdb_wrapper_nor_package_metadata(dbs, store, tmp_path):
    proc, names = _imported(["threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "1",
                             "--json", "--db", f"{store}:///{dbs[store]}"], tmp_path)
    assert proc.returncode == 0 and '"objective"' in proc.stdout, proc.stderr[-2000:]
    assert "dicebase.cli" in names  # the report is complete
    # duckdb/__init__ pulls importlib.metadata (its version), the relation and expression APIs
    assert "duckdb" not in names and "importlib.metadata" not in names, sorted(names)
    if store == "duckdb" and duckdb_engine().__name__ == "_duckdb":
        assert "_duckdb" in names
    if store == "sqlite":
        assert "_duckdb" not in names


def test_the_engine_module_is_the_one_the_duckdb_package_wraps():
    import duckdb

    engine = duckdb_engine()
    assert engine.connect is duckdb.connect or engine.__name__ == "duckdb"
    assert engine.Error is duckdb.Error and engine.InterruptException is duckdb.InterruptException


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_read_only_command_writes_all_of_its_output(dbs, store, tmp_path):
    # 200,000 CSV lines through a pipe: the process ends without the interpreter's teardown,
    # after flushing everything.
    proc = subprocess.run([*DICEBASE, "sql", "SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                           "SELECT x + 1 FROM c WHERE x < 200000) SELECT x FROM c)", "--format", "csv",
                           "--db", f"{store}:///{dbs[store]}"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "x" and lines[1:] == [str(n) for n in range(1, 200001)]


def test_a_read_only_command_keeps_its_exit_code_and_error_line(dbs, tmp_path):
    proc = subprocess.run([*DICEBASE, "threes", "best", "9", "--db", str(dbs["duckdb"])], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("Error: ") and proc.stderr.count("\n") == 1


def test_output_to_a_file_is_complete(dbs, tmp_path):
    target = tmp_path / "best.json"
    with open(target, "w") as handle:
        proc = subprocess.run([*DICEBASE, "threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7",
                               "--players-after", "1", "--json", "--db", str(dbs["duckdb"])], stdout=handle,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    import json

    assert json.loads(target.read_text())["objective"] == "win_probability"


def test_a_profiled_run_ends_normally(dbs, tmp_path):
    # cProfile (and coverage, tracing) write their report at interpreter exit: no early exit then
    proc = subprocess.run([sys.executable, "-m", "cProfile", "-s", "cumtime", "-m", "dicebase", "threes", "expected",
                           "--db", str(dbs["duckdb"])], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0 and "function calls" in proc.stdout, proc.stderr[-2000:]
