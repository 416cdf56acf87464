"""Issue 7 §1: no build loses a game, and a busy or unreadable file is never called broken.

Concurrent builds run in separate processes (spawned, so no DuckDB thread is
forked); each round starts two builds into one file at the same moment.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dicebase
from dicebase.builder import pipeline
from dicebase.query.base import (
    DatabaseLocked,
    DatabaseDamaged,
    NotADicebaseDatabase,
    PermissionDenied,
    SchemaVersionMismatch,
)

TESTS = Path(__file__).parent
ROUNDS = 20


def _register_toys() -> None:
    import toy_game
    import toy_game_b

    toy_game.register()
    toy_game_b.register()


@pytest.fixture
def toys():
    import toy_game
    import toy_game_b

    _register_toys()
    yield
    toy_game.unregister()
    toy_game_b.unregister()


def _build_in_child(game: str, url: str, options: dict, start_at: float) -> list[str]:
    """Runs in a spawned process: wait for the common start, build, return what it says it built."""
    sys.path.insert(0, str(TESTS))
    _register_toys()
    time.sleep(max(0.0, start_at - time.time()))
    return pipeline.build([game], url, quiet=True, options={game: options}).built


def _games_in(url: str) -> set[str]:
    with dicebase.open(url) as db:
        return set(db.games())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def pool():
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as executor:
        # warm both workers up (imports), so the rounds start together
        list(executor.map(time.sleep, [0.1, 0.1]))
        yield executor


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_concurrent_builds_of_different_games_lose_nothing(toys, pool, tmp_path, store):
    lost = 0
    for round_ in range(ROUNDS):
        url = f"{store}:///{tmp_path / f'r{round_}.{store}'}"
        start = time.time() + 0.3
        jobs = [pool.submit(_build_in_child, "toy", url, {"rows": 50 + round_}, start),
                pool.submit(_build_in_child, "toy_b", url, {"rows": 30 + round_}, start)]
        reported = {g for job in jobs for g in job.result(timeout=120)}
        assert reported == {"toy", "toy_b"}, "both builds must report their game as built"
        lost += len(reported - _games_in(url))
    assert lost == 0, f"{lost} games reported as built are missing from the file"


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_concurrent_builds_of_the_same_game_end_with_one_of_them(toys, pool, tmp_path, store):
    path = tmp_path / f"same.{store}"
    url = f"{store}:///{path}"
    pipeline.build(["toy_b"], url, quiet=True)  # a game both builds must keep
    for round_ in range(ROUNDS):
        start = time.time() + 0.3
        jobs = [pool.submit(_build_in_child, "toy", url, {"rows": 10 + 2 * round_ + k}, start) for k in (0, 1)]
        assert [job.result(timeout=120) for job in jobs] == [["toy"], ["toy"]]
        with dicebase.open(url) as db:
            assert set(db.games()) == {"toy", "toy_b"}
            (rows,) = db.fetchone("SELECT count(*) FROM toy_values")
            assert rows in (10 + 2 * round_, 11 + 2 * round_)
    assert not list(tmp_path.glob("*.tmp-*"))


def test_a_waiting_build_says_whom_it_waits_for_and_no_wait_fails_at_once(toys, tmp_path, run_cli):
    path = tmp_path / "held.duckdb"
    pipeline.build(["toy_b"], f"duckdb:///{path}", quiet=True)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from dicebase.builder.pipeline import target_lock; from pathlib import Path\n"
         f"with target_lock(Path({str(path)!r})):\n    print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = digest(path)
        code, out, err = run_cli(["build", "toy", "--db", str(path), "-q", "--no-wait"])
        assert code == 2 and out == "" and err.count("\n") == 1
        assert f"pid {holder.pid}" in err and "being built by another process" in err
        assert digest(path) == before

        waiter = subprocess.Popen(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(TESTS)!r}); import toy_game; toy_game.register();"
             "from dicebase.main import main; main()", "build", "toy", "--db", str(path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        first = waiter.stderr.readline()
        assert "waiting" in first and f"pid {holder.pid}" in first
        assert waiter.poll() is None, "the second build must wait for the first"
    finally:
        holder.kill()
        holder.wait()
    out, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, err
    assert _games_in(f"duckdb:///{path}") == {"toy", "toy_b"}


def test_force_rebuilds_the_named_game_and_keeps_every_other(toys, tmp_path):
    for store in ("duckdb", "sqlite"):
        url = f"{store}:///{tmp_path / f'f.{store}'}"
        pipeline.build(["toy_b"], url, quiet=True)
        pipeline.build(["toy"], url, quiet=True)
        report = pipeline.build(["toy"], url, quiet=True, force=True)
        assert report.built == ["toy"]
        assert _games_in(url) == {"toy", "toy_b"}


def _lock_with_engine(path: Path, store: str) -> subprocess.Popen:
    """A process holding the engine's own write lock on ``path`` until killed."""
    if store == "duckdb":
        code = f"import duckdb, time; con = duckdb.connect({str(path)!r}); print('held', flush=True); time.sleep(60)"
    else:
        code = (f"import sqlite3, time; con = sqlite3.connect({str(path)!r}, isolation_level=None); "
                "con.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_locked_file_is_reported_as_locked_and_force_does_not_replace_it(toys, tmp_path, run_cli, store):
    path = tmp_path / f"locked.{store}"
    url = f"{store}:///{path}"
    pipeline.build(["toy_b"], url, quiet=True)
    holder = _lock_with_engine(path, store)
    try:
        before = digest(path)
        with pytest.raises(DatabaseLocked, match="locked by another process"):
            dicebase.open(url)
        code, out, err = run_cli(["info", "--db", url])
        assert code == 2 and err.count("\n") == 1 and "locked by another process" in err
        assert "rebuild" not in err and "--force" not in err, "a busy file must not be called broken"
        if store == "duckdb":
            assert f"pid {holder.pid}" in err
        code, out, err = run_cli(["build", "toy", "--db", url, "-q", "--force"])
        assert code == 2 and err.count("\n") == 1 and "locked" in err
        assert digest(path) == before
    finally:
        holder.kill()
        holder.wait()
    assert _games_in(url) == {"toy_b"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files of any mode")
def test_an_unreadable_file_is_permission_denied(toys, tmp_path, run_cli):
    path = tmp_path / "secret.duckdb"
    pipeline.build(["toy_b"], f"duckdb:///{path}", quiet=True)
    path.chmod(0)
    try:
        with pytest.raises(PermissionDenied):
            dicebase.open(path)
        code, _, err = run_cli(["build", "toy", "--db", str(path), "-q", "--force"])
        assert code == 2 and "permission denied" in err
    finally:
        path.chmod(0o644)
    assert _games_in(f"duckdb:///{path}") == {"toy_b"}


def test_distinct_errors_for_other_files(toys, tmp_path):
    sqlite_file = tmp_path / "x.sqlite"
    pipeline.build(["toy_b"], f"sqlite:///{sqlite_file}", quiet=True)
    with pytest.raises(NotADicebaseDatabase, match="is a SQLite file"):
        dicebase.open(f"duckdb:///{sqlite_file}")
    text = tmp_path / "notes.duckdb"
    text.write_text("hello " * 1000)
    with pytest.raises(NotADicebaseDatabase):
        dicebase.open(text)
    old = tmp_path / "old.duckdb"
    pipeline.build(["toy_b"], f"duckdb:///{old}", quiet=True)
    import duckdb

    con = duckdb.connect(str(old))
    con.execute("UPDATE build_info SET value = ' 3' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(SchemaVersionMismatch, match=r"schema version ' 3'"):
        dicebase.open(old)


def test_damaged_files_are_damaged(toys, tmp_path, run_cli):
    sqlite_file = tmp_path / "d.sqlite"
    pipeline.build(["toy"], f"sqlite:///{sqlite_file}", quiet=True, options={"toy": {"rows": 5000}})
    data = bytearray(sqlite_file.read_bytes())
    data[4096:12288] = os.urandom(8192)
    sqlite_file.write_bytes(bytes(data))
    code, out, err = run_cli(["sql", "SELECT sum(root) FROM toy_values", "--db", str(sqlite_file)])
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "damaged" in err or "not a SQLite database" in err or "not a dicebase" in err

    duck = tmp_path / "d.duckdb"
    pipeline.build(["toy"], f"duckdb:///{duck}", quiet=True, options={"toy": {"rows": 200_000}})
    data = bytearray(duck.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 65536] = os.urandom(65536)
    duck.write_bytes(bytes(data))
    code, out, err = run_cli(["sql", "SELECT sum(root), count(label) FROM toy_values", "--db", str(duck)])
    assert code in (0, 2) and err.count("\n") <= 1 and "Traceback" not in err
    if code == 2:
        assert "damaged" in err and "--force" in err


def test_leftovers_of_a_killed_build_are_removed_by_the_next_build(toys, tmp_path):
    path = tmp_path / "k.duckdb"
    url = f"duckdb:///{path}"
    pipeline.build(["toy_b"], url, quiet=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale_file = path.with_name(f"{path.name}.tmp-{dead.pid}")
    stale_file.write_bytes(b"x" * 1000)
    path.with_name(f"{path.name}.tmp-{dead.pid}.wal").write_bytes(b"x")
    stale_dir = path.with_name(f"{path.name}.tmp-{dead.pid + 1_000_000}")
    stale_dir.mkdir()
    (stale_dir / "t.parquet").write_bytes(b"x")
    live = path.with_name(f"{path.name}.tmp-{os.getppid()}")  # a running process: not a leftover
    live.write_bytes(b"x")
    report = pipeline.build(["toy_b"], url, quiet=True)
    assert report.built == [], "up to date"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, f"{path.name}.lock", live.name])


def test_a_killed_build_leaves_the_file_and_the_next_build_cleans_up(toys, tmp_path):
    path = tmp_path / "kill.duckdb"
    pipeline.build(["toy_b"], f"duckdb:///{path}", quiet=True)
    before = digest(path)
    signal_file = tmp_path / "stalled"
    proc = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(TESTS)!r}); import toy_game; toy_game.register();"
         "from dicebase.main import main; main()", "build", "toy", "--db", str(path), "-q",
         "-o", f"toy.stall_signal_file={signal_file}"],
    )
    deadline = time.time() + 60
    while not signal_file.exists() and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert digest(path) == before and list(tmp_path.glob("*.tmp-*"))
    pipeline.build(["toy"], f"duckdb:///{path}", quiet=True)
    assert not list(tmp_path.glob("*.tmp-*"))
    assert _games_in(f"duckdb:///{path}") == {"toy", "toy_b"}


def test_an_unreadable_file_injected_is_permission_denied_and_kept(toys, tmp_path, run_cli, monkeypatch):
    """As root no file mode stops a read, so the operating system's refusal is injected at open."""
    import errno
    import pathlib

    path = tmp_path / "secret.duckdb"
    pipeline.build(["toy_b"], f"duckdb:///{path}", quiet=True)
    before = digest(path)
    real_open = pathlib.Path.open

    def refusing_open(self, *args, **kwargs):
        if self.name == path.name:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "open", refusing_open)
    with pytest.raises(PermissionDenied):
        dicebase.open(path)
    code, _, err = run_cli(["info", "--db", str(path)])
    assert code == 2 and err.count("\n") == 1 and "permission denied" in err and "rebuild" not in err
    code, _, err = run_cli(["build", "toy", "--db", str(path), "-q", "--force"])
    assert code == 2 and err.count("\n") == 1 and "permission denied" in err
    monkeypatch.undo()
    assert digest(path) == before
    assert _games_in(f"duckdb:///{path}") == {"toy_b"}
