"""``dicebase serve``'s response cache and worker processes, and Ctrl-C while a figure is drawn.

The cache may only ever return the answer the server would compute: the
tests compare a cached server (with a cache so small that entries are
evicted all the time) with an uncached one on the same file, query by query.
No wall-clock time is asserted: the timeouts are hang guards only.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

import dicebase  # noqa: E402
from dicebase.web.app import create_app  # noqa: E402
from dicebase.web.cache import ENTRY_OVERHEAD, ResponseCache, cache_key  # noqa: E402
from test_web_warm import stopped_cleanly as _stopped  # noqa: E402

SEED_001 = "/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4"


# -- the cache on its own ------------------------------------------------------------------------
def test_cache_stays_within_its_bound_and_drops_the_least_recently_used():
    body = b"x" * 1000
    key = [cache_key("/api/v1/threes/best", [("dice", str(n))]) for n in range(10)]
    cost = len(body) + len("/api/v1/threes/best") + len("dice") + 1 + ENTRY_OVERHEAD
    cache = ResponseCache(3 * cost)
    for k in key[:3]:
        cache.put(k, body)
    assert len(cache) == 3 and cache.size_bytes == 3 * cost
    assert cache.get(key[0]) == body  # key[0] is now the most recently used
    cache.put(key[3], body)  # evicts key[1], the least recently used
    assert cache.get(key[1]) is None and cache.get(key[0]) == body and cache.get(key[3]) == body
    for k in key:
        cache.put(k, body)
        assert cache.size_bytes <= cache.max_bytes
    assert len(cache) == 3
    cache.put(cache_key("/big", []), b"y" * (4 * cost))  # larger than the whole cache: not kept
    assert cache.get(cache_key("/big", [])) is None and len(cache) == 3
    assert cache.hits == 3 and cache.misses == 2


def test_cache_key_ignores_parameter_order_only():
    a = cache_key("/api/v1/threes/best", [("dice", "4,3"), ("variant", "reroll")])
    assert a == cache_key("/api/v1/threes/best", [("variant", "reroll"), ("dice", "4,3")])
    assert a != cache_key("/api/v1/threes/best", [("dice", "4,3"), ("variant", "classic")])
    assert a != cache_key("/api/v1/threes/best", [("dice", "3,4"), ("variant", "reroll")])
    assert a != cache_key("/api/v1/threes/expected", [("dice", "4,3"), ("variant", "reroll")])


def test_a_cache_of_zero_bytes_is_off():
    cache = ResponseCache(0)
    cache.put(cache_key("/a", []), b"1")
    assert not cache.enabled and len(cache) == 0 and cache.get(cache_key("/a", [])) is None


# -- the cache in the application -----------------------------------------------------------------
@pytest.fixture(scope="module")
def threes_db(built_db):
    return built_db(("threes",))


@pytest.fixture(scope="module")
def cached_and_plain(threes_db):
    """A server whose cache holds only a few answers (evictions all the time) and one with none."""
    cached = TestClient(create_app(dicebase.open(f"duckdb:///{threes_db}"), cache_bytes=12_000))
    plain = TestClient(create_app(dicebase.open(f"duckdb:///{threes_db}"), cache_bytes=0))
    with cached, plain:
        yield cached, plain


def test_a_hit_is_the_same_answer_as_the_lookup(cached_and_plain):
    cached, plain = cached_and_plain
    miss = cached.get(SEED_001 + "&variant=classic")
    hit = cached.get(SEED_001 + "&variant=classic")
    assert miss.headers["x-cache"] == "MISS" and hit.headers["x-cache"] == "HIT"
    # seed 001 (001_f4320d56f1732e4d.txt): keep [3] at 0.2760
    assert hit.json()["best"]["keep"] == [3] and round(hit.json()["best"]["value"], 4) == 0.2760
    uncached = plain.get(SEED_001 + "&variant=classic")
    assert hit.content == miss.content == uncached.content
    assert hit.headers["etag"] == miss.headers["etag"] == uncached.headers["etag"]
    assert "x-cache" not in plain.get(SEED_001).headers  # no cache, no header


def test_the_variant_is_part_of_the_key(cached_and_plain):
    cached, plain = cached_and_plain
    state = "/api/v1/threes/best?dice=6,6,5,5,4&players_after=1"
    for variant in ("classic", "reroll", "classic", "reroll"):
        answer = cached.get(f"{state}&variant={variant}")
        assert answer.content == plain.get(f"{state}&variant={variant}").content
        assert answer.json()["variant"] == variant
    # the re-roll variant may keep no die: its ranking is a different answer for the same dice
    classic = cached.get(f"{state}&variant=classic").json()
    reroll = cached.get(f"{state}&variant=reroll").json()
    assert classic != reroll


def test_errors_are_not_cached(cached_and_plain):
    cached, _ = cached_and_plain
    for _ in range(2):
        refused = cached.get("/api/v1/threes/best?dice=4,3,1,1,2&players_after=0")
        assert refused.status_code == 400 and "x-cache" not in refused.headers
        assert "--players-after 0 needs --to-beat" in refused.json()["error"]


def test_if_none_match_is_answered_before_the_cache(cached_and_plain):
    cached, _ = cached_and_plain
    etag = cached.get(SEED_001).headers["etag"]
    again = cached.get(SEED_001, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag


# Queries over a small state space, so the same state (in another parameter order) comes back
# while the tiny cache evicts: a cached server must always answer as the uncached one does.
_dice = st.lists(st.integers(1, 6), min_size=1, max_size=5).map(lambda d: ",".join(map(str, d)))
_params = st.fixed_dictionaries(
    {"dice": _dice},
    optional={
        "variant": st.sampled_from(["classic", "reroll", "Classic", "nonsense"]),
        "score": st.sampled_from(["0", "1", "4", "9", "x"]),
        "to_beat": st.sampled_from(["3", "7", "12", "30"]),
        "players_after": st.sampled_from(["0", "1", "4"]),
        "ties": st.sampled_from(["shared", "strict"]),
        "must_keep_two": st.sampled_from(["true", "false"]),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(params=_params, order=st.randoms(use_true_random=False), repeat=st.integers(1, 3))
def test_cached_answers_equal_uncached_answers(cached_and_plain, params, order, repeat):
    cached, plain = cached_and_plain
    items = list(params.items())
    expected = plain.get("/api/v1/threes/best", params=items)
    for _ in range(repeat):
        order.shuffle(items)
        got = cached.get("/api/v1/threes/best", params=items)
        assert (got.status_code, got.content) == (expected.status_code, expected.content)
        assert got.headers.get("etag") == expected.headers.get("etag")
    server = cached.app.state.server
    assert server.cache.size_bytes <= server.cache.max_bytes


def test_memory_is_bounded_however_many_states_are_asked(threes_db):
    bound = 40_000
    with TestClient(create_app(dicebase.open(f"duckdb:///{threes_db}"), cache_bytes=bound)) as client:
        cache = client.app.state.server.cache
        asked = 0
        for a in range(1, 7):
            for b in range(1, 7):
                for c in range(1, 7):
                    assert client.get(f"/api/v1/threes/best?dice={a},{b},{c}&players_after=2").status_code == 200
                    asked += 1
                    assert cache.size_bytes <= bound
        assert 0 < len(cache) < asked  # answers were kept, and older ones dropped to stay within the bound


def test_a_changed_database_file_empties_the_cache(threes_db, tmp_path, capfd):
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(threes_db, copy)
    with TestClient(create_app(dicebase.open(f"duckdb:///{copy}"))) as client:
        cache = client.app.state.server.cache
        assert client.get(SEED_001).headers["x-cache"] == "MISS"
        assert client.get(SEED_001).headers["x-cache"] == "HIT"
        stat = copy.stat()
        os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # as a rebuild in place would
        assert client.get(SEED_001).headers["x-cache"] == "MISS"
        assert len(cache) == 1  # only the answer just computed
        assert client.get(SEED_001).headers["x-cache"] == "HIT"
    assert f"{copy} changed; the response cache was emptied" in capfd.readouterr().err


# -- worker processes ---------------------------------------------------------------------------
def _serve(*args):
    return subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _base(proc) -> str:
    line = proc.stdout.readline()
    assert " at http://127.0.0.1:" in line, line + proc.stderr.read()
    return line.split(" at ")[1].split("/ ")[0]


def _children(pid: int) -> list[int]:
    """The server's worker processes (not multiprocessing's resource tracker)."""
    pids = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [p for p in pids if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]


def _get(url: str):
    """One request on a new connection: (status, headers, body)."""
    with urllib.request.urlopen(url, timeout=60) as reply:
        return reply.status, dict(reply.headers), reply.read()


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the worker processes from /proc (Linux)")
def test_workers_give_the_same_answers_and_etags(threes_db):
    with TestClient(create_app(dicebase.open(f"duckdb:///{threes_db}"), cache_bytes=0)) as single:
        expected = single.get(SEED_001)
    proc = _serve("--db", f"duckdb:///{threes_db}", "--workers", "2")
    try:
        base = _base(proc)
        answers = [_get(base + SEED_001) for _ in range(24)]
        assert len(_children(proc.pid)) == 2
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert {status for status, _, _ in answers} == {200}
    assert {body for _, _, body in answers} == {expected.content}
    assert {headers["etag"] for _, headers, _ in answers} == {expected.headers["etag"]}
    # Each worker has its own cache, so each computes the answer once: the new connections were
    # spread over both (SO_REUSEPORT; all 24 on one worker has probability 2**-23).
    assert sorted(headers["x-cache"] for _, headers, _ in answers).count("MISS") == 2
    assert proc.returncode == 0 and _stopped(out) and err == ""


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_workers_stop_cleanly(threes_db, how):
    proc = _serve("--db", f"duckdb:///{threes_db}", "--workers", "2")
    base = _base(proc)
    assert _get(base + SEED_001)[0] == 200
    workers = _children(proc.pid)
    proc.send_signal(how)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and _stopped(out) and err == ""
    assert not any(Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()
                   for pid in workers)


def test_workers_refuse_a_busy_port_with_one_line(threes_db):
    proc = _serve("--db", f"duckdb:///{threes_db}", "--workers", "2")
    try:
        port = _base(proc).rsplit(":", 1)[1]
        second = subprocess.run([sys.executable, "-m", "dicebase", "serve", "--port", port, "--workers", "2",
                                 "--db", f"duckdb:///{threes_db}"], capture_output=True, text=True, timeout=60)
        # the running server's SO_REUSEPORT group is not joined: the port is busy
        assert second.returncode == 2
        assert second.stderr == f"Error: cannot listen on 127.0.0.1:{port}: address already in use\n"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


# -- Ctrl-C while a figure is being drawn ----------------------------------------------------------
@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_while_a_figure_is_drawn_stops_cleanly(threes_db, workers):
    """The figure is requested, then Ctrl-C comes while matplotlib draws it (the first figure of a
    server imports matplotlib too): the server still stops by itself, cleanly, with exit 0."""
    proc = _serve("--db", f"duckdb:///{threes_db}", "--workers", workers)
    base = _base(proc)
    assert _get(base + SEED_001)[0] == 200  # serving
    outcome: list = []

    def draw():
        try:
            outcome.append(_get(base + "/plots/threes-keep-chart.png?players_after=3")[0])
        except OSError as exc:  # the server may close the connection as it stops
            outcome.append(exc)

    asker = threading.Thread(target=draw, daemon=True)
    asker.start()
    time.sleep(0.3)  # the request is in flight (drawing the first figure takes longer)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)  # hang guard, not a timing
    asker.join(timeout=120)
    assert proc.returncode == 0, err
    assert _stopped(out)
    assert "Traceback" not in err and err == ""
    assert outcome and (outcome[0] == 200 or isinstance(outcome[0], OSError))
    print(f"the figure request ended with {outcome[0]!r}")  # reported: answered before the stop, or cut


def test_serve_help_documents_workers_and_cache():
    proc = subprocess.run([sys.executable, "-m", "dicebase", "serve", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "--workers N" in text and "--cache-mb MB" in text and "0 turns the cache off" in text
    assert re.search(r"dicebase serve --workers 1 --cache-mb 0", text)
