"""Issue 25 items 3, 4, 5 and 9: builds and exports under faults say what happened in one line.

- a build on a full disk (DuckDB and SQLite alike) fails with exit 1 and the remedy, and the
  target is unchanged with nothing left beside it (a real full disk: a small tmpfs where this
  process may mount one, else a file size limit in the child);
- a lock file that cannot be created is said at once (exit 2), not waited for;
- a closed standard error (``build ... 2>&1 | head -1``) does not stop a build;
- a build through a symbolic link writes and locks the real file and keeps the link;
- an export from a damaged file says the file is damaged (both stores), not "cannot write";
- DuckDB's out-of-memory text is our own line with the remedy.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import dicebase
from dicebase.builder import pipeline
from test_faults_output import FULL_REASONS, digest, small_disk
from test_hardening_builds import toys  # noqa: F401  (fixture)

TESTS = Path(__file__).parent
# the real console program with the toy games of the foundation tests registered
TOY_MAIN = (f"import sys; sys.path.insert(0, {str(TESTS)!r}); import toy_game, toy_game_b; "
            "toy_game.register(); toy_game_b.register(); from dicebase.main import main; main()")


def toy_dicebase(args, *, preexec=None, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300):
    proc = subprocess.run([sys.executable, "-c", TOY_MAIN, *map(str, args)], stdout=stdout, stderr=stderr,
                          preexec_fn=preexec, timeout=timeout)
    decode = lambda b: b.decode() if isinstance(b, bytes) else ""  # noqa: E731
    return proc.returncode, decode(proc.stdout), decode(proc.stderr)


def _one_line(err: str) -> None:
    assert err.count("\n") == 1 and err.startswith("Error: "), err
    assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_first_build_on_a_full_disk_says_so_and_leaves_nothing(toys, tmp_path, store):
    with small_disk(tmp_path, 256 * 1024) as disk:
        target = disk.dir / f"toy.{store}"
        code, _, err = toy_dicebase(["build", "toy", "--db", f"{store}:///{target}", "-q",
                                     "-o", "toy.rows=400000"], preexec=disk.preexec)
        _one_line(err)
        assert f"cannot write {target}" in err and "the old file, if any, is unchanged" in err
        if disk.preexec is None:  # a full tmpfs (a file size limit is an I/O error to SQLite)
            assert code == 1 and any(reason in err for reason in FULL_REASONS), err
        else:
            assert code in (1, 2), err
        assert sorted(p.name for p in disk.dir.iterdir()) == [f"{target.name}.lock"]


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_rebuild_on_a_full_disk_keeps_the_file(toys, tmp_path, store):
    built = tmp_path / f"built.{store}"
    pipeline.build(["toy"], f"{store}:///{built}", quiet=True, options={"toy": {"rows": 1000}})
    room = built.stat().st_size + 256 * 1024
    with small_disk(tmp_path, room - room % 4096) as disk:
        target = disk.dir / built.name
        target.write_bytes(built.read_bytes())
        before = digest(target)
        code, _, err = toy_dicebase(["build", "toy", "--db", f"{store}:///{target}", "-q", "--force",
                                     "-o", "toy.rows=400000"], preexec=disk.preexec)
        assert code == 1 or (disk.preexec is not None and code == 2), err
        _one_line(err)
        assert f"cannot write {target}" in err and "unchanged" in err
        assert digest(target) == before
        assert sorted(p.name for p in disk.dir.iterdir()) == sorted([target.name, f"{target.name}.lock"])
    with dicebase.open(f"{store}:///{built}") as db:
        assert db.games() == ["toy"]


def test_duckdb_write_failures_of_every_class_are_write_errors():
    """A full disk reaches a DuckDB build as a failed commit, a failed checkpoint or, afterwards,
    an invalidated database (the classes vary by DuckDB release): each is the same line."""
    import duckdb

    from dicebase.builder.target import is_engine_io_error, write_error

    texts = [
        (duckdb.TransactionException, 'TransactionContext Error: Failed to commit: Could not write file '
                                      '"x.duckdb.tmp-1.wal": No space left on device'),
        (duckdb.FatalException, "FATAL Error: Checkpoint failed: Could not write file: No space left on device"),
        (duckdb.InvalidInputException, "Invalid Input Error: database has been invalidated because of a "
                                       "previous fatal error. The database must be restarted"),
    ]
    for cls, text in texts:
        exc = cls(text)
        assert is_engine_io_error(exc), text
        line = str(write_error(exc, Path("db/x.duckdb")))
        assert line.startswith("cannot write db/x.duckdb: ") and line.endswith("the old file, if any, is unchanged")
    assert "free some space" in str(write_error(duckdb.TransactionException(texts[0][1]), Path("x")))
    assert not is_engine_io_error(duckdb.BinderException("Binder Error: column not found"))
    assert not is_engine_io_error(ValueError("no space left"))  # a solver's error is a bug, not a write error


@pytest.mark.skipif(not os.path.isfile("/proc/version"), reason="needs /proc")
def test_a_lock_file_that_cannot_be_created_is_said_at_once(tmp_path):
    code, _, err = toy_dicebase(["build", "toy", "--db", "/proc/version.duckdb", "-q"], timeout=120)
    assert code == 2
    _one_line(err)
    assert "cannot create the lock file /proc/version.duckdb.lock" in err and "another process" not in err


def test_a_lock_file_that_cannot_be_created_injected(toys, tmp_path, monkeypatch):
    """Where no such folder exists (not Linux), the operating system's refusal is injected."""
    import errno

    from dicebase.builder import target as target_module

    real_open = os.open

    def refusing(path, *args, **kwargs):
        if str(path).endswith(".lock"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(target_module.os, "open", refusing)
    with pytest.raises(target_module.BuildError, match="cannot create the lock file .*permission denied"):
        pipeline.build(["toy"], tmp_path / "t.duckdb", quiet=True)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
def test_a_closed_stderr_does_not_stop_a_build(built_db, tmp_path, store):
    """``dicebase build rolled-ones --force 2>&1 | head -1``: the build finishes, complete."""
    from dicebase.builder import registry

    target = tmp_path / f"r.{store}"
    options = registry.load("rolled_ones").TEST_OPTIONS
    read, write = os.pipe()
    os.close(read)  # the reader went away before the first line of progress
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "dicebase", "build", "rolled-ones", "--force", "--db", f"{store}:///{target}",
             *(arg for key, value in options.items() for arg in ("-o", f"rolled-ones.{key}={value}"))],
            stdout=write, stderr=write, timeout=600, cwd=TESTS.parent)
    finally:
        os.close(write)
    assert proc.returncode == 0
    from dicebase.schema import game_tables

    with dicebase.open(f"{store}:///{target}") as db:  # complete: every table with the rows the build recorded
        assert db.games() == ["rolled_ones"]
        recorded = dict(db.fetchall("SELECT table_name, row_count FROM build_tables WHERE game = 'rolled_ones'"))
        assert sorted(recorded) == sorted(t.name for t in game_tables("rolled_ones"))
        for name, rows in recorded.items():
            assert db.fetchone(f"SELECT count(*) FROM {name}")[0] == rows, name
        assert recorded["rolled_ones_states"] > 0
    assert not list(tmp_path.glob("*.tmp-*"))


def test_a_build_through_a_symbolic_link_writes_and_locks_the_real_file(toys, tmp_path):
    real = tmp_path / "real" / "toy.duckdb"
    real.parent.mkdir()
    pipeline.build(["toy"], real, quiet=True)
    link = tmp_path / "link.duckdb"
    link.symlink_to(real)
    report = pipeline.build(["toy_b"], link, quiet=True)
    assert report.built == ["toy_b"]
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert (real.parent / "toy.duckdb.lock").exists() and not (tmp_path / "link.duckdb.lock").exists()
    with dicebase.open(real) as db:
        assert sorted(db.games()) == ["toy", "toy_b"]


def _damage_a_table(path: Path, store: str) -> None:
    """Overwrite a data block of toy_values (not the catalogue: the file still opens)."""
    if store == "duckdb":
        import duckdb

        con = duckdb.connect(str(path), read_only=True)
        (block,) = con.execute("SELECT max(block_id) FROM pragma_storage_info('toy_values') WHERE block_id >= 0"
                               ).fetchone()
        con.close()
        offset, size = 3 * 4096 + block * 262144 + 512, 4096
    else:
        con = sqlite3.connect(path)
        (page,) = con.execute("SELECT max(pageno) FROM dbstat WHERE name = 'toy_values'").fetchone()
        (page_size,) = con.execute("PRAGMA page_size").fetchone()
        con.close()
        offset, size = (page - 1) * page_size, page_size
    with open(path, "r+b") as handle:
        handle.seek(offset)
        handle.write(b"\xa5" * size)


@pytest.mark.parametrize("store", ["duckdb", "sqlite"])
@pytest.mark.parametrize("fmt", ["sqlite", "duckdb", "parquet"])
def test_export_from_a_damaged_file_says_it_is_damaged(toys, tmp_path, run_cli, store, fmt):
    path = tmp_path / f"d.{store}"
    pipeline.build(["toy"], f"{store}:///{path}", quiet=True, options={"toy": {"rows": 200_000}})
    _damage_a_table(path, store)
    before = digest(path)
    out = tmp_path / f"out.{fmt}"
    code, _, err = run_cli(["export", "--format", fmt, "--out", out, "--db", f"{store}:///{path}", "-q"])
    assert code == 2, err
    _one_line(err)
    assert f"{path} is damaged" in err and "rebuild it with: dicebase build toy" in err and "--force" in err
    assert "cannot write" not in err
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == [path.name]


def test_out_of_memory_is_our_line_with_the_remedy(built_db):
    path = built_db(("threes",), "duckdb")
    with dicebase.open(path, memory_limit="20MB") as db:
        with pytest.raises(dicebase.QueryTooLarge) as caught:
            db.run_sql("SELECT list(i) FROM range(50000000) t(i)", ())
    text = str(caught.value)
    assert "in-memory mode" not in text and "memory_limit" in text and "\n" not in text
