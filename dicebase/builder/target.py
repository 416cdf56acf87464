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
import traceback
from pathlib import Path
from typing import Iterator

from dicebase.errors import BadInput, BuildError, BuildLocked, DicebaseError, WriteFailed, file_error


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
    """A failure to write a build or export as one line; the old file is unchanged.  It says which
    it was: a full disk (exit 1, free some space), the machine's memory (exit 1, Python's
    MemoryError, DuckDB's out-of-memory errors, ENOMEM; with the limit this process ran under), or
    the path (permissions ..., exit 2).  DuckDB's "database has been invalidated" after a failed
    write is named by its original error, else by the free space on the target's disk."""
    kind = failure_kind(exc, path)
    if kind == "memory":
        with contextlib.suppress(Exception):  # let the failed solve's arrays go before we say so
            traceback.clear_frames(exc.__traceback__)
        detail = ""
        if _invalidated(exc) and "original error:" not in str(exc).lower():
            free = _free_bytes(path) or 0
            detail = f"the engine stopped after a failed write with {_size(free)} free on the disk: "
        limits, limited = memory_limits()
        remedy = ("raise that limit or free some memory, and run it again" if limited else
                  "free some memory (other programs) and run it again, or build on a machine with more memory")
        failed = WriteFailed(f"cannot write {path}: {detail}out of memory ({limits}); {remedy}; "
                             "the old file, if any, is unchanged")
        failed.exit_code = 1
        return failed
    if isinstance(exc, OSError):
        error = file_error(exc, path, "write")
        full = kind == "full"
    else:
        message = " ".join(str(exc).split())
        full = kind == "full"
        if not full and _invalidated(exc):  # DuckDB after a failed write whose first error did not reach us
            message = "the engine stopped after a failed write (neither a full disk nor a lack of memory was seen)"
        error = WriteFailed(f"cannot write {path}: {'no space left on the device' if full else message[:200]}")
        if full:
            error.exit_code = 1
    remedy = " (free some space there and run it again)" if full else ""
    failed = WriteFailed(f"{error}{remedy}; the old file, if any, is unchanged")
    failed.exit_code = error.exit_code
    return failed


#: Words of an error (Python's, numpy's, numba's, DuckDB's) that say memory ran out.
_MEMORY_WORDS = ("out of memory", "bad allocation", "bad_alloc", "failed to allocate", "could not allocate",
                 "cannot allocate memory", "allocation failure", "allocation failed", "unable to allocate")
_FULL_WORDS = ("no space left", "disk is full", "disk full", "async write failed")
#: Below this much free space on the target's disk, a failed write is a full disk.
FULL_DISK_BYTES = 64 * 1024 * 1024


def failure_kind(exc: BaseException, path: Path) -> str:
    """"memory", "full" or "" (neither) for a failed build or export of ``path``."""
    if isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryException":
        return "memory"
    if isinstance(exc, OSError) and exc.errno is not None:
        return {errno.ENOMEM: "memory", errno.ENOSPC: "full",
                getattr(errno, "EDQUOT", errno.ENOSPC): "full"}.get(exc.errno, "")
    low = " ".join(str(exc).split()).lower()
    if _invalidated(exc):
        original = low.split("original error:", 1)[1] if "original error:" in low else ""
        if original:
            low = original
        else:
            free = _free_bytes(path)
            if free is None:
                return ""
            return "full" if free < FULL_DISK_BYTES else "memory"
    if any(words in low for words in _MEMORY_WORDS):
        return "memory"
    if "full" in low or any(words in low for words in _FULL_WORDS):
        return "full"
    return ""


def _invalidated(exc: BaseException) -> bool:
    return "invalidated" in str(exc).lower()


def _free_bytes(path: Path) -> int | None:
    """Free bytes on the disk of ``path`` (its nearest existing folder), or None."""
    for folder in (Path(path).parent, *Path(path).parent.parents):
        try:
            if folder.is_dir():
                return shutil.disk_usage(folder).free
        except OSError:
            return None
    return None


def memory_limits() -> tuple[str, bool]:
    """The memory this process may use, in words: its address-space limit (``ulimit -v``), its
    control group's limit, else the machine's memory; and whether a limit (not the machine) was found."""
    parts = []
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            parts.append(f"this process may use {_size(soft)} of address space: ulimit -v")
    with contextlib.suppress(OSError, ValueError):
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if text.isdigit():
            parts.append(f"its control group allows {_size(int(text))}: memory.max")
    if parts:
        return "; ".join(parts), True
    with contextlib.suppress(AttributeError, OSError, ValueError):
        parts.append(f"this machine has {_size(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))}")
    return "; ".join(parts) or "the build needs more memory than it could get", False


def _size(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


#: Words of a DuckDB error (of any class: a full disk at commit is a TransactionException, at a
#: checkpoint a FatalException, afterwards "database has been invalidated") that say a write failed.
_WRITE_FAILURE_WORDS = ("no space left", "could not write", "failed to commit", "checkpoint failed",
                        "invalidated", "disk is full", "could not truncate", "could not fsync")


def is_engine_io_error(exc: BaseException) -> bool:
    """A DuckDB error from writing the file (disk full, I/O), or memory that ran out anywhere in a
    build (Python's MemoryError: numpy, numba), as opposed to a bug in a solver."""
    if isinstance(exc, MemoryError):
        return True
    if not type(exc).__module__.startswith(("duckdb", "_duckdb")):
        return False
    if type(exc).__name__ in ("IOException", "OutOfMemoryException", "FatalException", "PermissionException"):
        return True
    low = " ".join(str(exc).split()).lower()
    return any(words in low for words in _WRITE_FAILURE_WORDS)
