"""Issue 25 item 1: output that is cut short is never a success.

Every command that writes to standard output or to a file ends with a non-zero exit and one
line naming where the output went when the write did not complete: a full disk (a real one:
a small tmpfs where this process may mount one, else a file size limit, RLIMIT_FSIZE, in the
child), or /dev/full as standard output.  The database read is unchanged, and a file written
with --output or by ``dicebase plot`` is there complete or not at all (the old one kept).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
# a query of ~450 KB of output on both engines (no table of the test databases is that long)
LONG_QUERY = ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 30000) "
              "SELECT i, 'abcdefghij' AS pad FROM r")
FULL_REASONS = ("no space left on the device", "larger than this process may write")


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def dicebase(args, *, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec=None, timeout=120):
    """The real ``dicebase`` console program in a child process: (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "dicebase", *map(str, args)], stdout=stdout, stderr=stderr,
                          preexec_fn=preexec, timeout=timeout, cwd=TESTS.parent)
    out = proc.stdout.decode() if isinstance(proc.stdout, bytes) else ""
    err = proc.stderr.decode() if isinstance(proc.stderr, bytes) else ""
    return proc.returncode, out, err


@dataclass
class SmallDisk:
    """A folder where writing past ``limit`` bytes fails: a tmpfs of that size, or (where no
    tmpfs can be mounted) an ordinary folder with a file size limit set in the child (``preexec``)."""

    dir: Path
    limit: int
    preexec: object = None


@contextlib.contextmanager
def small_disk(tmp_path: Path, limit: int):
    folder = tmp_path / f"disk-{limit}"
    folder.mkdir()
    mounted = False
    if (os.geteuid() == 0 and shutil.which("mount") and sys.platform.startswith("linux")
            and not os.environ.get("DICEBASE_TEST_NO_TMPFS")):  # set it to test the fallback
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={limit}", "tmpfs", str(folder)],
                                 capture_output=True).returncode == 0
    try:
        if mounted:
            yield SmallDisk(folder, limit)
        else:
            def preexec():
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

            yield SmallDisk(folder, limit, preexec)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture(params=["duckdb", "sqlite"])
def store(request):
    return request.param


@pytest.fixture
def db(built_db, store):
    return built_db(("threes",), store)


def _one_line_naming(err: str, *names: str) -> None:
    assert err.count("\n") == 1 and err.startswith("Error: "), err
    assert "Traceback" not in err and "internal error" not in err, err
    for name in names:
        assert name in err, (name, err)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "jsonl", "table", "markdown"])
def test_every_format_on_dev_full_fails_naming_it(db, store, fmt):
    before = digest(db)
    with open("/dev/full", "wb") as full:
        code, _, err = dicebase(["sql", "SELECT * FROM schema_tables", "--db", f"{store}:///{db}", "--format", fmt],
                                stdout=full)
    assert code == 1
    _one_line_naming(err, "/dev/full", "no space left on the device", "incomplete")
    assert digest(db) == before


@pytest.mark.parametrize("args", [["info", "--json"], ["info"], ["schema"], ["schema", "--json"],
                                  ["verify"], ["threes", "--help"], ["--help"], ["plot", "--list"]])
def test_listings_and_help_on_dev_full_fail_naming_it(db, store, args):
    db_args = [] if "--help" in args or args[0] == "plot" else ["--db", f"{store}:///{db}"]
    with open("/dev/full", "wb") as full:
        code, _, err = dicebase([*args, *db_args], stdout=full)
    assert code == 1
    _one_line_naming(err, "/dev/full")


@pytest.mark.parametrize("fmt", ["csv", "json", "jsonl", "table"])
def test_a_long_answer_on_a_full_disk_fails_naming_the_file(db, store, fmt, tmp_path):
    """The case Python's buffered stdout lost: a large write that fills the disk part-way."""
    before = digest(db)
    with small_disk(tmp_path, 64 * 1024) as disk:
        target = disk.dir / f"o.{fmt}"
        with open(target, "wb") as handle:
            code, _, err = dicebase(["sql", LONG_QUERY, "--db", f"{store}:///{db}", "--format", fmt, "--limit", "0"],
                                    stdout=handle, preexec=disk.preexec)
        assert code == 1
        _one_line_naming(err, str(target), "incomplete")
        assert any(reason in err for reason in FULL_REASONS), err
    assert digest(db) == before


def test_the_same_answer_on_a_roomy_disk_is_complete(db, store, tmp_path):
    target = tmp_path / "o.csv"
    with open(target, "wb") as handle:
        code, _, err = dicebase(["sql", LONG_QUERY, "--db", f"{store}:///{db}", "--format", "csv"], stdout=handle)
    assert code == 0 and err == ""
    assert target.read_text().count("\n") == 30001


def test_output_file_on_a_full_disk_keeps_the_old_file_and_leaves_nothing(db, store, tmp_path):
    before = digest(db)
    with small_disk(tmp_path, 64 * 1024) as disk:
        target = disk.dir / "rows.csv"
        target.write_text("the old answer\n")
        code, _, err = dicebase(["sql", LONG_QUERY, "--db", f"{store}:///{db}", "--format", "csv",
                                 "--output", target], preexec=disk.preexec)
        assert code == 1
        _one_line_naming(err, str(target), "was not written (the old file is unchanged)")
        assert target.read_text() == "the old answer\n"
        assert sorted(p.name for p in disk.dir.iterdir()) == ["rows.csv"]
    assert digest(db) == before


def test_a_closed_pipe_is_still_quiet(db, store):
    """``dicebase sql ... | head -1``: the reader went away; that is no error."""
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "sql", LONG_QUERY, "--db", f"{store}:///{db}",
                             "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=TESTS.parent)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == ""


def test_a_plot_on_a_full_disk_leaves_no_file(built_db, tmp_path):
    db = built_db(("threes",), "duckdb")
    with small_disk(tmp_path, 16 * 1024) as disk:
        target = disk.dir / "chances.png"
        code, _, err = dicebase(["plot", "threes-chances", "--db", db, "--out", target], preexec=disk.preexec)
        assert code == 1
        _one_line_naming(err, str(target), "was not written")
        assert list(disk.dir.iterdir()) == []


def test_a_file_used_as_a_folder_is_named(db, store, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    for args in (["sql", "SELECT 1", "--output", afile / "x.csv"], ["plot", "threes-chances", "--out", afile / "x.png"],
                 ["export", "--format", "csv", "--out", afile / "x"]):
        code, _, err = dicebase([*args, "--db", f"{store}:///{db}"])
        assert code == 2
        _one_line_naming(err, f"{afile} is a file, not a directory")
