"""Issue 25 items 3, 6 and 9 for ``dicebase serve``: a real server on 127.0.0.1.

- after ``kill -9`` of the parent of ``--workers 2``, the workers exit (bounded wait) and the
  port stops answering;
- a request the HTTP parser refuses (an 80 KB query string) is the API's JSON error;
- ``--cache-mb`` and ``--timeout`` refuse nan and inf with one line and exit 2.
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

SEED = "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4"


def _serve(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--host", "127.0.0.1", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _port(proc) -> int:
    line = proc.stdout.readline()
    assert " at http://127.0.0.1:" in line, line
    return int(line.split(" at http://127.0.0.1:")[1].split("/")[0])


def _get(port: int, target: str):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", target)
        reply = conn.getresponse()
        return reply.status, reply.getheader("content-type"), reply.read()
    finally:
        conn.close()


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "zombie" not in status.read_text()
    except OSError:
        return False


def _workers(pid: int) -> list[int]:
    pids = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [p for p in pids if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the worker processes from /proc (Linux)")
@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_workers_exit_when_their_parent_is_killed(built_db, store):
    db = built_db(("threes",), store)
    proc = _serve("--db", f"{store}:///{db}", "--workers", "2")
    try:
        port = _port(proc)
        assert _get(port, SEED)[0] == 200
        workers = _workers(proc.pid)
        assert len(workers) == 2
    except BaseException:
        proc.kill()
        raise
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    deadline = time.monotonic() + 60  # a bound, not a timing: they stop within about a second
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [pid for pid in workers if _alive(pid)]
    for pid in survivors:  # leave no server behind, whatever the outcome
        subprocess.run(["kill", "-9", str(pid)])
    assert survivors == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


@pytest.fixture(scope="module")
def server(built_db):
    db = built_db(("threes",), "duckdb")
    proc = _serve("--db", f"duckdb:///{db}", "--workers", "1")
    try:
        yield _port(proc)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


@pytest.mark.parametrize("size", [80_000, 200_000])
def test_a_query_string_too_long_to_parse_is_a_json_error(server, size):
    status, kind, body = _get(server, SEED + "&x=" + "1" * size)
    assert status == 400 and kind == "application/json"
    error = json.loads(body)["error"]
    assert "request line and headers are too long" in error and "\n" not in error


def test_a_long_query_string_the_parser_reads_is_the_apis_own_error(server):
    status, kind, body = _get(server, "/api/v1/threes/best?dice=" + "1" * 20_000)
    assert status == 400 and kind == "application/json" and "error" in json.loads(body)


def test_the_server_still_answers_after_a_refused_request(server):
    _get(server, SEED + "&x=" + "1" * 80_000)
    assert _get(server, SEED)[0] == 200


@pytest.mark.parametrize("args", [["--cache-mb", "nan"], ["--cache-mb", "inf"], ["--cache-mb", "-inf"],
                                  ["--timeout", "nan"], ["--timeout", "inf"]])
def test_serve_refuses_numbers_that_are_not_finite(built_db, args):
    db = built_db(("threes",), "duckdb")
    proc = subprocess.run([sys.executable, "-m", "dicebase", "serve", "--port", "0", "--db", db, *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and f"Invalid value for '{args[0]}'" in proc.stderr
    assert "internal error" not in proc.stderr
