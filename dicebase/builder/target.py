"""The target file of a build or export: its lock, the leftovers of interrupted runs, and
what a failure to write it is called.

A build holds an exclusive lock on ``<target>.lock`` for its whole run, from reading what the
target holds to the final rename, so two builds of one file run one after the other and
neither loses the other's games.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
from pathlib import Path
from typing import Iterator

from dicebase.errors import BadInput, DatabaseLocked, DicebaseError, WriteFailed, file_error


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

    _check_lock_file(lock_path, target)
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


def _check_lock_file(lock_path: Path, target: Path) -> None:
    """Open (creating it if need be) the lock file once, so that a lock file that cannot be made
    at all is said at once (exit 2) and not taken for another process's lock, waited for forever."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise lock_unavailable(exc, lock_path, target) from None
    os.close(fd)


def lock_unavailable(exc: OSError, lock_path: Path, target: Path) -> BuildError:
    """The lock file beside ``target`` cannot be created: not another process, a path to change."""
    reason = str(file_error(exc, lock_path, "create")).split(": ", 1)[-1]
    if exc.errno in (errno.ENOENT, errno.ENOTDIR) and lock_path.parent.is_dir():
        reason = "this directory does not allow new files"
    return BuildError(
        f"cannot create the lock file {lock_path} ({reason}); {target} needs a writable directory "
        "(its lock and temporary file go beside it): give another path"
    )


def make_parent(path: Path) -> None:
    """Create the directory of ``path`` (and its parents); BadInput naming a part of it that is
    a file (instead of the system's bare 'File exists'), write_error otherwise."""
    parent = path.parent
    for part in (parent, *parent.parents):
        try:
            if part.is_dir():
                break
            if part.exists() or part.is_symlink():
                raise BadInput(f"cannot write {path}: {part} is a file, not a directory")
        except OSError:
            break
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(exc, path) from None


def real_path(path: Path) -> Path:
    """``path`` with its symbolic links followed: a build or export through a link writes the file
    the link points to (the link stays a link) and locks that file, as a build of the real path does."""
    try:
        if os.path.realpath(path) != os.path.abspath(path):
            return Path(os.path.realpath(path))
    except (OSError, ValueError):
        pass
    return path


def write_fully(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in full or raise OSError: a plain ``write_text`` loses the rest
    of a large write when the disk fills part-way (Python's buffered file returns a short count)."""
    data = memoryview(text.encode("utf-8"))
    with open(path, "wb", buffering=0) as handle:
        while data:
            data = data[handle.write(data):]


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
        full = exc.errno == errno.ENOSPC
    else:
        message = " ".join(str(exc).split())
        low = message.lower()
        full = "full" in low or "no space" in low or "async write failed" in low
        if not full and "invalidated" in low:  # DuckDB after a failed write: the first error said why
            message = "the engine stopped after a failed write (is the disk full?)"
        error = WriteFailed(f"cannot write {path}: {'no space left on the device' if full else message[:200]}")
        if full:
            error.exit_code = 1
    remedy = " (free some space there and run it again)" if full else ""
    failed = WriteFailed(f"{error}{remedy}; the old file, if any, is unchanged")
    failed.exit_code = error.exit_code
    return failed


#: Words of a DuckDB error (of any class: a full disk at commit is a TransactionException, at a
#: checkpoint a FatalException, afterwards "database has been invalidated") that say a write failed.
_WRITE_FAILURE_WORDS = ("no space left", "could not write", "failed to commit", "checkpoint failed",
                        "invalidated", "disk is full", "could not truncate", "could not fsync")


def is_engine_io_error(exc: BaseException) -> bool:
    """A DuckDB error from writing the file (disk full, I/O), as opposed to a bug in a solver."""
    if not type(exc).__module__.startswith(("duckdb", "_duckdb")):
        return False
    if type(exc).__name__ in ("IOException", "OutOfMemoryException", "FatalException", "PermissionException"):
        return True
    low = " ".join(str(exc).split()).lower()
    return any(words in low for words in _WRITE_FAILURE_WORDS)
