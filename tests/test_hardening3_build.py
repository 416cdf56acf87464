"""Issue 34 (hardening, round three), the build's items: level checkpoints that cannot run code
(item 2), bad ``--cluster`` values (item 3), running out of memory named as such (item 9).

Each is reproduced as it was found: a real ``dicebase build`` process killed mid-solve leaves
real checkpoints, which are then replaced by crafted files (a pickle that would create a marker
file, an npz with an object array) or put in a directory another user owns or others can
write; ``--cluster`` at a real HTTP server on a free loopback port, junk scheduler files and
addresses Dask cannot use; a real build under a real address-space limit."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from dicebase.builder import levels
from dicebase.builder.ten_thousand import nplayer as ten
from dicebase.rules.ten_thousand import PRESETS

DICEBASE = [sys.executable, "-m", "dicebase"]
#: Great Rolled Ones for 2 and 3 players with policy cycles, solved in about a second
BUILD_OPTIONS = ["-o", "rolled-ones.players=[2,3]", "-o", "rolled-ones.goal=16", "-o", "rolled-ones.dice=4",
                 "-o", "rolled-ones.ones_limit=2", "-o", "rolled-ones.komi_max=5",
                 "-o", "rolled-ones.turn_total_bound=32"]


def _dicebase(args, cwd, timeout=300, **kwargs):
    return subprocess.run([*DICEBASE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, **kwargs)


def _one_line(proc, code=2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stderr[-3000:])
    assert proc.stderr.startswith("Error: ") and proc.stderr.count("\n") == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    return proc.stderr


def _checksums(path) -> dict:
    from dicebase.query import open as open_db

    with open_db(path) as db:
        return dict(db.fetchall("SELECT table_name, checksum FROM build_tables WHERE game = 'rolled_ones' "
                                "ORDER BY table_name"))


# --------------------------------------------------------------------------- item 2: checkpoints
@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """The checkpoints a real build killed (SIGKILL) during its 3-player solve left, and the table
    checksums of the same build run through."""
    base = tmp_path_factory.mktemp("killed")
    target = base / "killed.duckdb"
    scratch = target.with_name(f".{target.name}.levels")
    for _attempt in range(5):
        shutil.rmtree(scratch, ignore_errors=True)
        proc = subprocess.Popen([*DICEBASE, "build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "-q"],
                                cwd=base, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        done = 0
        try:
            while proc.poll() is None and done < 3:
                for manifest in scratch.glob("*/manifest.json"):
                    try:
                        entry = json.loads(manifest.read_text())
                    except (OSError, ValueError):
                        continue
                    if "players=3" in entry["fingerprint"]["spec"]:
                        done = len(entry["levels"])
                time.sleep(0.005)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if done >= 3 and not target.exists():
            break
        target.unlink(missing_ok=True)
    else:
        pytest.fail("could not stop a build during its 3-player solve")
    (solve_dir,) = [p.parent for p in scratch.glob("*/manifest.json")
                    if "players=3" in json.loads(p.read_text())["fingerprint"]["spec"]]
    fresh = base / "fresh.duckdb"
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(fresh), "-q"], base)
    assert proc.returncode == 0, proc.stderr
    return {"scratch": scratch, "key": solve_dir.name, "checksums": _checksums(fresh)}


def _setup(killed, tmp_path) -> tuple[Path, Path]:
    """A copy of the killed build's checkpoints beside a target in ``tmp_path``: (target, solve dir)."""
    target = tmp_path / "db.duckdb"
    scratch = target.with_name(f".{target.name}.levels")
    shutil.copytree(killed["scratch"], scratch)
    return target, scratch / killed["key"]


def _write_manifest(solve_dir: Path, fmt: int, files: list[tuple[str, bytes]]) -> None:
    manifest = json.loads((solve_dir / "manifest.json").read_text())
    manifest["format"] = fmt
    manifest["levels"] = [{"index": i, "file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                          for i, (name, data) in enumerate(files)]
    (solve_dir / "manifest.json").write_text(json.dumps(manifest))


class _Payload:
    """Unpickling this creates the marker file (what a crafted checkpoint did as root)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_resume_from_a_killed_build_gives_the_same_tables(killed, tmp_path):
    target, solve_dir = _setup(killed, tmp_path)
    files = sorted(p.name for p in solve_dir.iterdir())
    assert files[0] == "level-00000.npz" and not [f for f in files if f.endswith(".pkl")]
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "rolled-ones 3 players, goal 16: resumed" in proc.stderr and "discarded" not in proc.stderr
    assert _checksums(target) == killed["checksums"]
    assert not target.with_name(f".{target.name}.levels").exists()


@pytest.mark.parametrize("fmt", [1, 2])
def test_a_crafted_pickle_checkpoint_is_never_loaded(killed, tmp_path, fmt):
    """The attack as found: a level-00000.pkl whose manifest records its true length and hash (format 1,
    the old pickles; or the current format naming the pickle) ran a command on --resume."""
    target, solve_dir = _setup(killed, tmp_path)
    marker = tmp_path / "ran"
    data = pickle.dumps(_Payload(marker))
    for old in solve_dir.glob("level-*"):
        old.unlink()
    (solve_dir / "level-00000.pkl").write_bytes(data)
    _write_manifest(solve_dir, fmt, [("level-00000.pkl", data)])
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "Traceback" not in proc.stderr
    (note,) = [line for line in proc.stderr.splitlines() if "resumed 0 of" in line]
    assert "1 damaged or stale checkpoints discarded" in note
    assert _checksums(target) == killed["checksums"]


def _object_npz(marker: Path) -> bytes:
    buffer = io.BytesIO()
    objects = np.empty(1, dtype=object)
    objects[0] = _Payload(marker)
    np.savez(buffer, tuples=np.arange(3), values=objects)
    return buffer.getvalue()


def test_a_crafted_npz_checkpoint_is_refused_unread(killed, tmp_path):
    """An npz whose hash the manifest records but that holds an object array (a pickle inside) or
    other fields: refused with one line, exit 2, its pickle never run; nothing is written."""
    target, solve_dir = _setup(killed, tmp_path)
    marker = tmp_path / "ran"
    crafted = _object_npz(marker)
    (solve_dir / "level-00000.npz").write_bytes(crafted)
    first = [("level-00000.npz", crafted)]
    _write_manifest(solve_dir, levels.CHECKPOINT_FORMAT, first)
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume", "-q"], tmp_path)
    line = _one_line(proc)
    assert "refused the checkpoint" in line and "level-00000.npz" in line and "not plain arrays" in line
    assert not marker.exists() and not target.exists()
    # plain arrays, but not a level of this solve (its tuples are another level's)
    buffer = io.BytesIO()
    np.savez(buffer, tuples=np.arange(3), values=np.zeros(3))
    (solve_dir / "level-00000.npz").write_bytes(buffer.getvalue())
    _write_manifest(solve_dir, levels.CHECKPOINT_FORMAT, [("level-00000.npz", buffer.getvalue())])
    line = _one_line(_dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume", "-q"],
                               tmp_path))
    assert "refused the checkpoint" in line and "no record of its fields" in line
    # the remedy it names works: build without --resume
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "-q"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _checksums(target) == killed["checksums"]


@pytest.mark.parametrize("how", ["others-write-root", "group-write-solve-dir", "other-owner", "symlink"])
def test_a_checkpoint_directory_others_control_is_refused(killed, tmp_path, how):
    target, solve_dir = _setup(killed, tmp_path)
    root = solve_dir.parent
    if how == "others-write-root":
        os.chmod(root, 0o777)
    elif how == "group-write-solve-dir":
        os.chmod(solve_dir, 0o775)
    elif how == "other-owner":
        if os.geteuid() != 0:
            pytest.skip("chown to another user needs root")
        os.chown(solve_dir, 12345, -1)
    else:
        elsewhere = tmp_path / "elsewhere"
        root.rename(elsewhere)
        root.symlink_to(elsewhere)
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume", "-q"], tmp_path)
    line = _one_line(proc)
    assert "refused the checkpoint directory" in line and "cannot be trusted" in line
    assert {"others-write-root": "others may write it (mode 777)", "group-write-solve-dir": "mode 775",
            "other-owner": "another user (uid 12345)", "symlink": "symbolic link"}[how] in line
    assert not target.exists()
    # the remedy it prints works
    remedy = line.split("remove it (", 1)[1].split(")", 1)[0]
    assert remedy.startswith("rm -r ")
    subprocess.run(remedy, shell=True, check=True, cwd=tmp_path)
    proc = _dicebase(["build", "rolled-ones", *BUILD_OPTIONS, "--db", str(target), "--resume", "-q"], tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_new_checkpoint_directories_are_private(tmp_path):
    """A solve's checkpoints are written in directories of mode 700, and a ten-thousand solve's cycle
    records (tuples inside lists inside dicts) come back from them equal, with the same values."""
    rules = PRESETS["ten-thousand"]
    ref = ten.solve(rules, 3, 300)
    assert ref.mixed  # the records that must survive the round trip

    class Stop(Exception):
        pass

    total = len(ten.level_tuples(ref.spec))

    def stop_late(done, total_levels):
        if done == total_levels - 2:
            raise Stop

    with pytest.raises(Stop):
        ten.solve(rules, 3, 300, runner=levels.Levels(checkpoints=tmp_path / "ck"), progress=stop_late)
    (solve_dir,) = (tmp_path / "ck").iterdir()
    assert (os.stat(tmp_path / "ck").st_mode & 0o777) == 0o700 and (os.stat(solve_dir).st_mode & 0o777) == 0o700
    sol = ten.solve(rules, 3, 300, runner=levels.Levels(checkpoints=tmp_path / "ck", resume=True))
    assert sol.stats["levels"]["levels_resumed"] == total - 2
    assert np.array_equal(ref.start, sol.start) and np.array_equal(ref.kmax, sol.kmax)
    assert ref.mixed == sol.mixed


# --------------------------------------------------------------------------- item 3: --cluster values
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_listening(port: int, proc, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server ended"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"nothing listens on port {port}")


@pytest.fixture(scope="module")
def http_port():
    """A real web server on a free loopback port (what --cluster got pointed at: a `dicebase serve`,
    or Dask's own dashboard)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, proc)
        yield port
    finally:
        proc.terminate()
        proc.wait()


SCHEDULER_FILES = {"empty.json": "", "blank.json": "  \n", "junk.json": "junk{", "nested.json": "[" * 100_000,
                   "list.json": "[1, 2]", "no-address.json": '{"address": 5}', "bad-address.json": '{"address": "foo"}',
                   "udp.json": '{"address": "udp://127.0.0.1:1"}'}


@pytest.mark.parametrize("value", ["foo", "/etc/passwd", "tls://127.0.0.1:1", "inproc://x", "ucx://127.0.0.1:1",
                                   "tcp://127.0.0.1:99999", "tcp://:8786", "tcp://127.0.0.1", "missing.json",
                                   *SCHEDULER_FILES, "http", "http-bare"])
def test_a_bad_cluster_value_is_one_line_and_nothing_after(tmp_path, http_port, value):
    """Each value the attacks tried: one line, exit 2, and nothing after it (the process runs to its
    end: a half-made Dask client printed a Client.__del__ traceback about 10 s after the line; an
    HTTP port gave MemoryError: Unable to allocate 3.07 EiB; a junk scheduler file AssertionError)."""
    for name, text in SCHEDULER_FILES.items():
        (tmp_path / name).write_text(text)
    given = {"http": f"tcp://127.0.0.1:{http_port}", "http-bare": f"127.0.0.1:{http_port}"}.get(value, value)
    target = tmp_path / "x.duckdb"
    proc = _dicebase(["build", "threes", "--db", str(target), "-q", "--cluster", given], tmp_path, timeout=120)
    line = _one_line(proc)
    assert "--cluster" in line and "MemoryError" not in line and "AssertionError" not in line
    assert not target.exists()
    if value.startswith("http"):
        assert "not a Dask scheduler" in line
    elif value in SCHEDULER_FILES and value != "bad-address.json" and value != "udp.json":
        assert "is not a Dask scheduler file" in line


def test_a_real_scheduler_is_reached_by_address_and_by_file(tmp_path):
    """The checks before Dask refuse nothing a real scheduler offers: tcp://HOST:PORT, HOST:PORT and its
    scheduler file all connect."""
    from dicebase.builder import cluster

    port = _free_port()
    scheduler_file = tmp_path / "scheduler.json"
    proc = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                             "--port", str(port), "--no-dashboard", "--scheduler-file", str(scheduler_file)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_listening(port, proc)
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        for given in (f"tcp://127.0.0.1:{port}", f"127.0.0.1:{port}", str(scheduler_file)):
            connection = cluster.connect(given)
            try:
                assert connection.client.scheduler_info()["address"] == f"tcp://127.0.0.1:{port}"
                assert connection.address == given
            finally:
                connection.close()
    finally:
        proc.terminate()
        proc.wait()


# --------------------------------------------------------------------------- item 9: out of memory
#: Runs ``dicebase ARGS`` with an address-space limit (RLIMIT_AS) of this process's size after its
#: heavy imports plus MARGIN MiB: the build starts, and runs out of memory in it.
_LIMITED = """
import resource, sys
import numpy, duckdb, numba
import dicebase.builder.pipeline, dicebase.builder.rolled_ones
size = next(int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmSize:"))
limit = size + int(sys.argv[1]) * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ["dicebase", *sys.argv[2:]]
from dicebase.main import main
main()
"""


@pytest.mark.skipif(not os.path.isfile("/proc/self/status"), reason="needs Linux's /proc")
@pytest.mark.parametrize("margin", [300, 600, 800])
def test_out_of_memory_in_a_build_is_named_as_such(tmp_path, margin):
    """A real build under a real memory limit (the issue: under 8 GB it said "is the disk full?", exit 2,
    with 79 GB free).  Wherever it runs out (DuckDB's writer, a solver's numpy array; the margins
    reach both), it is one line naming memory and the limit, exit 1 (the machine's fault), and the
    target is not written.  The 4-player solve needs about 1.2 GB, well past every margin."""
    target = tmp_path / "oom.duckdb"
    env = {**os.environ, "MALLOC_ARENA_MAX": "2", "NUMBA_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}  # native thread pools reserve address space by the core: keep the limit meaningful
    proc = subprocess.run([sys.executable, "-c", _LIMITED, str(margin), "build", "rolled-ones", "-q",
                           "-o", "rolled-ones.players=[2,4]", "-o", "rolled-ones.policy_players=[2]",
                           "--db", str(target)], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    line = _one_line(proc, code=1)
    assert f"cannot write {target}: " in line and "out of memory" in line
    assert "this process may use" in line and "ulimit -v" in line and "raise that limit" in line
    assert "disk" not in line and "no space" not in line
    # nothing half-written: the lock, and the finished levels' checkpoints where the N-player solve began
    assert not target.exists()
    assert {p.name for p in tmp_path.iterdir()} <= {f"{target.name}.lock", f".{target.name}.levels"}


def test_an_engine_invalidated_after_a_failed_write_is_named_by_its_cause(tmp_path):
    """DuckDB's "database has been invalidated" (what a build saw after its first error) was always "is
    the disk full?": now its original error decides, else the free space on the target's disk."""
    import duckdb

    from dicebase.builder.target import write_error

    target = tmp_path / "x.duckdb"
    bare = duckdb.InvalidInputException("Invalid Input Error: database has been invalidated because of a previous "
                                        "fatal error. The database must be restarted prior to being used again.")
    line = str(write_error(bare, target))
    assert "free on the disk: out of memory" in line and "is the disk full" not in line
    for original, words in (("Could not write file: No space left on device", "no space left on the device"),
                            ("Failed to allocate block of 262144 bytes (bad allocation)", "out of memory")):
        exc = duckdb.FatalException(f"Checkpoint failed for database x. The database has been invalidated. "
                                    f"Original error: {original}")
        failed = write_error(exc, target)
        assert words in str(failed) and failed.exit_code == 1
