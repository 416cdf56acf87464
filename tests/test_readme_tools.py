"""docs/other_tools.md (linked from README's "Use it from other tools"): every example runs, in
order, against a small build.

The shell blocks run under bash with the virtual environment's bin first on PATH
(dicebase, datasette, and the duckdb shell from the duckdb-cli package); the
Python blocks run with this interpreter.  The sqlite3 shell comes from the
system (.ci/run installs it); outside CI a machine without it skips with the
reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = "docs/other_tools.md"


def examples() -> list[tuple[str, str]]:
    """(language, code) of each fenced block of the section, in order."""
    text = (ROOT / GUIDE).read_text()
    return re.findall(r"```(sh|python)\n(.*?)```", text, flags=re.S)


def test_the_section_has_an_example_for_each_tool():
    code = "\n".join(block for _lang, block in examples())
    for tool in ("duckdb -readonly", "sqlite3 -readonly", "import pandas", "import polars", "read_parquet",
                 "--format datasette", "datasette db/"):
        assert tool in code, f"{GUIDE} lacks a {tool!r} example"


@pytest.fixture(scope="module")
def workdir(built_db, tmp_path_factory):
    """A directory laid out like the repository after `dicebase build`: db/dicebase.duckdb."""
    work = tmp_path_factory.mktemp("readme-tools")
    (work / "db").mkdir()
    shutil.copyfile(built_db(), work / "db" / "dicebase.duckdb")
    return work


def run_block(lang: str, code: str, cwd: Path) -> subprocess.CompletedProcess:
    # the default database of a checkout is db/dicebase.duckdb in the checkout; here, in cwd
    env = {**os.environ, "DICEBASE_DB": "db/dicebase.duckdb"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if lang == "sh":
        args = ["bash", "-euo", "pipefail", "-c", code]
    else:
        args = [sys.executable, "-c", code]
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_every_example_runs(workdir):
    for tool in ("sqlite3", "duckdb"):
        found = shutil.which(tool, path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        if not found:
            reason = f"the {tool} shell is not installed (.ci/run installs sqlite3; duckdb comes with the test extra)"
            if os.environ.get("CI") == "true":
                pytest.fail(reason)
            pytest.skip(reason)
    outputs = []
    for lang, code in examples():
        result = run_block(lang, code, workdir)
        assert result.returncode == 0, f"{GUIDE} example failed:\n{code}\n{result.stderr}"
        assert result.stdout.strip(), f"{GUIDE} example printed nothing:\n{code}"
        outputs.append(result.stdout)
    everything = "\n".join(outputs)
    # what each tool shows: a description, the seed-003 seat values, booleans, Int16, canned lookup rows
    assert "Objective (a)" in everything or "Objective (b)" in everything  # DuckDB comments
    assert re.search(r"^4\|1\|0\.2988", everything, flags=re.M)  # sqlite3: 4 players, seat 1 wins 0.2988
    assert "must_keep_two" in everything and "bool" in everything
    assert "Int16" in everything  # polars / pandas keep SMALLINT's width
    assert '"keep": "3"' in everything or '"keep":"3"' in everything  # Datasette: keep the 3, as the CLI says
    for name in ("dicebase.sqlite", "parquet", "csv", "datasette"):
        assert (workdir / "db" / name).exists()
