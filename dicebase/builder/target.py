"""The target file of a build or export: its lock, the leftovers of interrupted runs, and
what a failure to write it is called.

A build holds an exclusive lock on ``<target>.lock`` for its whole run, from reading what the
target holds to the final rename, so two builds of one file run one after the other and
neither loses the other's games.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from pathlib import Path
from typing import Iterator

from dicebase.errors import DatabaseLocked, DicebaseError, WriteFailed, file_error


class BuildError(DicebaseError):
    """A build request that cannot be carried out (bad option, incompatible file)."""


class BuildLocked(BuildError, DatabaseLocked):
    """Another build holds the target's lock (and --no-wait was given)."""


LEFTOVER_PATTERNS = ("{name}.tmp-*", "{name}.old-*")


def remove_leftovers(target: Path) -> list[Path]:
    """Remove temporary files and folders an interrupted build or export of ``target`` left.

    A leftover is named ``<target>.tmp-PID`` (or ``.old-PID``, with suffixes
    such as ``.wal``); it is removed when process PID no longer runs, or is
    this process (the caller holds the target's lock, so it is not in use).
    Returns what was removed.
    """
    removed = []
    for pattern in LEFTOVER_PATTERNS:
        for stale in target.parent.glob(pattern.format(name=glob_escape(target.name))):
            pid_text = stale.name[len(target.name) + 5:].split(".")[0]
            if not pid_text.isdigit():
                continue
            pid = int(pid_text)
            if pid != os.getpid() and _process_alive(pid):
                continue
            try:
                if stale.is_dir() and not stale.is_symlink():
                    shutil.rmtree(stale)
                else:
                    stale.unlink()
            except OSError:
                continue  # not ours to remove (permissions): leave it
            removed.append(stale)
    return removed


def glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


@contextlib.contextmanager
def target_lock(target: Path, *, wait: bool = True, quiet: bool = False) -> Iterator[None]:
    """Hold the exclusive lock ``<target>.lock`` (filelock) while the body runs.

    The holder writes its pid into the lock file, so a second build can say
    whom it waits for.  With ``wait=False`` a held lock raises BuildLocked at once.
    """
    from filelock import FileLock, Timeout

    lock_path = target.with_name(target.name + ".lock")

    def record_holder(fd: int) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    lock = FileLock(lock_path, on_acquired=record_holder, fallback_to_soft=False)
    try:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            holder = _lock_holder(lock_path)
            if not wait:
                raise BuildLocked(
                    f"{target} is being built by another process{holder}; wait for it, "
                    "or run again without --no-wait to queue behind it"
                ) from None
            if not quiet:
                print(f"waiting for the build of {target} by another process{holder} to finish ...",
                      file=sys.stderr, flush=True)
            lock.acquire()
    except OSError as exc:
        raise write_error(exc, lock_path) from None
    try:
        yield
    finally:
        lock.release()


def _lock_holder(lock_path: Path) -> str:
    try:
        text = lock_path.read_text().strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


def write_error(exc: BaseException, path: Path) -> DicebaseError:
    """A failure to write a build or export as one line; the old file is unchanged."""
    if isinstance(exc, OSError):
        error = file_error(exc, path, "write")
    else:
        message = " ".join(str(exc).split())
        low = message.lower()
        full = "full" in low or "no space" in low or "async write failed" in low
        error = WriteFailed(f"cannot write {path}: {'no space left on the device' if full else message[:200]}")
        if full:
            error.exit_code = 1
    failed = WriteFailed(f"{error}; the old file, if any, is unchanged")
    failed.exit_code = error.exit_code
    return failed


def is_engine_io_error(exc: BaseException) -> bool:
    """A DuckDB error from writing the file (disk full, I/O), as opposed to a bug in a solver."""
    return type(exc).__module__.startswith(("duckdb", "_duckdb")) and type(exc).__name__ in (
        "IOException", "OutOfMemoryException", "FatalException", "PermissionException",
    )
