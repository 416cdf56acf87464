"""docs/cli.md's shell examples run as printed (issue 34, item 13: `$variant` inside double quotes was
expanded by the shell to nothing, and the example failed).

Each ``$ dicebase ...`` example of the page (with its continuation lines) is run by a real shell on a
test build of Threes (``DICEBASE_DB``), and its output is the one the page shows.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def examples() -> list[tuple[str, str]]:
    """(command, output shown) of every ``$ dicebase`` example in docs/cli.md's code blocks."""
    out = []
    for block in re.findall(r"```\n(.*?)```", (ROOT / "docs" / "cli.md").read_text(), flags=re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ dicebase"):
                command = [lines[i][2:]]
                while command[-1].endswith("\\") or "".join(command).count("'") % 2:  # continued, or a quote open
                    i += 1
                    command.append(lines[i])
                i += 1
                shown = []
                while i < len(lines) and not lines[i].startswith("$ "):
                    shown.append(lines[i])
                    i += 1
                out.append(("\n".join(command), "\n".join(shown)))
            else:
                i += 1
    return out


def test_the_sql_example_runs_as_printed(built_db):
    found = examples()
    assert found and any("$variant" in c for c, _ in found)
    db = built_db(("threes",))  # TEST_OPTIONS: rounds of up to 5 players
    env = {**os.environ, "DICEBASE_DB": str(db), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command, shown in found:
        if "threes_seats" not in command:
            continue
        run = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (command, run.stderr)
        assert run.stdout.split() == shown.split(), (run.stdout, shown)
