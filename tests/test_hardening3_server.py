"""Issue 34 items 1, 5c and 8 for ``dicebase serve``: real server processes on free loopback ports.

- item 5c: ``--cache-mb 1e308`` (an OverflowError) and ``--timeout 1e308`` (an OverflowError
  traceback in the query watchdog's thread) are refused with one line and exit 2.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("uvicorn")


@pytest.mark.parametrize("args, bound", [(["--cache-mb", "1e308"], "0<=x<=65536"),
                                         (["--cache-mb", "65537"], "0<=x<=65536"),
                                         (["--timeout", "1e308"], "0<x<=3600"),
                                         (["--timeout", "3601"], "0<x<=3600")])
def test_serve_refuses_numbers_past_their_maximum(built_db, args, bound):
    db = built_db(("threes",), "duckdb")
    proc = subprocess.run([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", db, *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"Error: Invalid value for '{args[0]}'")
    assert bound in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
