"""The level loop of the N-player solves (issue 22): in this process or on a Dask cluster, with
checkpoints a killed build resumes from.

Both N-player solvers (Great Rolled Ones, 10,000) fill a table of turn starts by score-sum level,
from the highest sum down.  The tuples of one level read only higher levels, so a level is cut
into chunks that the game's ``solve_tuples(inputs, tuples, threads)`` solves independently (its
values are bit-identical for any chunking and thread count).  :func:`run` is the loop both games'
``solve`` use:

1. a *runner* solves one level and returns its chunks' results merged in chunk order:
   :class:`InProcess` (the default: today's behaviour, numba threads in this process) or
   :class:`dicebase.builder.cluster.DaskRunner` (chunks as Dask tasks);
2. the driver alone writes the level into the table (the game's ``store``) and its counts
   (the game's ``absorb``), in level order, so the table is the same whatever ran the chunks;
3. with a checkpoint directory, each finished level's merged result is saved (plain arrays in a
   ``numpy.savez`` file read back with ``allow_pickle=False``, the records in tagged JSON: no file
   can run code; a manifest written after it records its length and SHA-256); ``resume`` replays
   the verified levels instead of solving them again.  A checkpoint directory owned by another
   user, writable by others or a symbolic link is refused (issue 34).

Nothing here imports Dask: a runner is any object with ``open(problem)``, ``solve_level(problem,
index, tuples)``, ``stored(index, tuples, values)`` and ``close()``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import shutil
import stat
import sys
import time
import typing
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dicebase import errors, version
from dicebase.errors import CheckpointFormatError

#: The checkpoint format; a manifest of another format is not trusted (the levels are solved again).
#: 1: pickles (never read since issue 34); 2: ``numpy.savez`` arrays and tagged JSON.
CHECKPOINT_FORMAT = 2
#: A level file's name; the manifest must name exactly this file for each level.
LEVEL_FILE = "level-{index:05d}.npz"
#: The member of a level file that holds its JSON part (the fields that are not arrays).
META = "__meta__"


@dataclass
class Problem:
    """One N-player solve as the level loop sees it.

    ``inputs``: the game's ``LevelInputs`` (``inputs.start`` is the table the levels fill);
    ``levels``: the tuple indices of each level, highest score sum first; ``solve_tuples``:
    the game's chunk solver; ``store(inputs, tuples, values)``: writes one level's values into
    ``inputs.start`` (module-level functions, so a Dask worker can run them on its own copy);
    ``fingerprint``: everything the values depend on (a checkpoint is reused only when equal)."""

    label: str
    inputs: Any
    levels: list
    solve_tuples: Callable
    store: Callable
    fingerprint: dict
    #: the class ``solve_tuples`` returns (a dataclass of arrays and lists); default: its return annotation
    result_type: type | None = None

    def fingerprint_key(self) -> str:
        text = json.dumps({**self.fingerprint, "dicebase": version.__version__, "format": CHECKPOINT_FORMAT},
                          sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def merge(results: list) -> Any:
    """The results of one level's chunks as one result of the same class, in chunk order (arrays
    concatenated, lists joined)."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    parts = {}
    for f in dataclasses.fields(first):
        values = [getattr(r, f.name) for r in results]
        if isinstance(values[0], np.ndarray):
            parts[f.name] = np.concatenate(values)
        elif isinstance(values[0], list):
            parts[f.name] = [item for v in values for item in v]
        else:
            raise TypeError(f"cannot merge field {f.name!r} of {type(first).__name__}")
    return type(first)(**parts)


def split(tuples: np.ndarray, pieces: int) -> list[np.ndarray]:
    """``tuples`` in at most ``pieces`` contiguous chunks of near-equal size (none empty)."""
    pieces = max(1, min(int(pieces), len(tuples)))
    return [c for c in np.array_split(tuples, pieces) if len(c)] or [tuples]


class InProcess:
    """Every chunk in this process: ``chunk`` tuples per ``solve_tuples`` call (default a whole
    level) on ``threads`` numba threads (default numba's thread count).  The default runner."""

    def __init__(self, chunk: int | None = None, threads: int | None = None):
        self.chunk, self.threads = chunk, threads

    def open(self, problem: Problem) -> None:
        pass

    def solve_level(self, problem: Problem, index: int, tuples: np.ndarray):
        if self.chunk:
            pieces = [tuples[i: i + self.chunk] for i in range(0, len(tuples), self.chunk)] or [tuples]
        else:
            pieces = [tuples]
        return merge([problem.solve_tuples(problem.inputs, p, self.threads) for p in pieces])

    def stored(self, index: int, tuples: np.ndarray, values: np.ndarray) -> None:
        pass

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in-process"


@dataclass
class Levels:
    """How a build runs its N-player level loops (``ctx.levels``; a game's ``solve(runner=...)``).

    ``runner``: :class:`InProcess` (default) or a :class:`dicebase.builder.cluster.DaskRunner`;
    ``checkpoints``: the scratch directory of level checkpoints (``None``: none written);
    ``resume``: replay the verified checkpoints of an earlier run of the same solve;
    ``progress``: ``(label, total) -> bar`` with ``bar.update(n, text)`` (a context manager), or None;
    ``say``: where one-line notes go (resumed levels, discarded checkpoints), or None."""

    runner: Any = None
    checkpoints: Path | None = None
    resume: bool = False
    progress: Callable | None = None
    say: Callable[[str], None] | None = None
    #: per solve run: levels solved, levels replayed from checkpoints, tuples, seconds (for the build notes)
    log: list = field(default_factory=list)


class Checkpoints:
    """The finished levels of one solve in ``root/<fingerprint key>/``: ``level-NNNNN.npz`` (the
    merged result of that level) and ``manifest.json`` (each file's length and SHA-256, written
    atomically after the file).  A file is trusted only when its length and hash match.

    A level file holds only plain arrays (``numpy.savez``, read with ``allow_pickle=False``) and
    one JSON member for the fields that are not arrays (lists, tuples and dicts tagged so that
    they come back as they were): loading one cannot run code.  A file whose hash matches but
    that holds anything else (an object array, a foreign member, another class's fields, tuples
    of another level) was not written by this loop: the build is refused with one line.  The
    directories are refused (one line) when another user owns them, others may write them or
    they are symbolic links: whoever can write them could plant values."""

    def __init__(self, root: Path, problem: Problem, resume: bool):
        self.root = Path(root)
        self.dir = self.root / problem.fingerprint_key()
        self.problem = problem
        self.fingerprint = json.loads(json.dumps(problem.fingerprint, sort_keys=True, default=repr))
        self.entries: list[dict] = []
        self.discarded = 0
        self._safe = False
        self._check_directories()
        if not resume and self.dir.exists():
            shutil.rmtree(self.dir)

    def _check_directories(self) -> None:
        """Refuse (BadInput, one line) a checkpoint directory another user owns, that others may
        write, or that is a symbolic link or not a directory; one that does not exist yet is fine."""
        for path in (self.root, self.dir):
            try:
                info = os.lstat(path)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise errors.file_error(exc, path, "read") from None
            why = _unsafe(info, directory=True)
            if why:
                raise errors.unsafe_checkpoints(self.root, path, why)

    def _manifest(self) -> Path:
        return self.dir / "manifest.json"

    def load(self):
        """Yield ``(index, result)`` of every verified level in order; stop at the first level that is
        missing, damaged or out of order (it and every later file are removed)."""
        try:
            manifest = json.loads(self._manifest().read_text())
            ok = (manifest.get("format") == CHECKPOINT_FORMAT and manifest.get("fingerprint") == self.fingerprint
                  and isinstance(manifest.get("levels"), list))
        except (OSError, ValueError, AttributeError):
            ok = False
        if not ok:
            if self.dir.exists():
                self.discarded = len(list(self.dir.glob("level-*")))
                shutil.rmtree(self.dir)  # never read: another format (the pickles of format 1) or another solve
            return
        for position, entry in enumerate(manifest["levels"]):
            result = self._verified(entry, position)
            if result is None:
                self.discarded = len(manifest["levels"]) - position
                self._truncate(position)
                return
            self.entries.append(entry)
            yield position, result

    def _verified(self, entry, position: int):
        """The result of level ``position``, or None when its file is missing or damaged (its length
        or hash is not the manifest's); refused when the file matches but is not a level file."""
        path = self.dir / LEVEL_FILE.format(index=position)
        try:
            if not isinstance(entry, dict) or entry.get("index") != position or entry.get("file") != path.name:
                return None
            why = _unsafe(os.lstat(path), directory=False)
            if why:
                raise errors.foreign_checkpoint(path, why)
            data = path.read_bytes()
        except OSError:
            return None
        if len(data) != entry.get("bytes") or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            return None
        try:
            return decode_level(data, self.problem, position)
        except CheckpointFormatError as exc:
            raise errors.foreign_checkpoint(path, str(exc)) from None

    def _truncate(self, keep: int) -> None:
        self.entries = self.entries[:keep]
        for path in self.dir.glob("level-*"):
            with contextlib.suppress(ValueError, OSError):
                if int(path.name.split("-")[1].split(".")[0]) >= keep:
                    path.unlink()
        self._write_manifest()

    def save(self, index: int, result) -> None:
        if not self._safe:
            for path in (self.root, self.dir):
                with contextlib.suppress(FileExistsError):
                    os.mkdir(path, 0o700)
            self._check_directories()  # also one made by someone else between the check and here
            self._safe = True
        data = encode_level(result)
        path = self.dir / LEVEL_FILE.format(index=index)
        _write_synced(path, data)
        self.entries.append({"index": index, "file": path.name, "bytes": len(data),
                             "sha256": hashlib.sha256(data).hexdigest()})
        self._write_manifest()

    def _write_manifest(self) -> None:
        if not self.dir.exists():
            return
        text = json.dumps({"format": CHECKPOINT_FORMAT, "fingerprint": self.fingerprint, "levels": self.entries})
        temp = self._manifest().with_suffix(".json.tmp")
        _write_synced(temp, text.encode())
        os.replace(temp, self._manifest())


def _unsafe(info: os.stat_result, *, directory: bool) -> str:
    """Why a checkpoint directory (or level file) with this ``lstat`` cannot be trusted, or ""."""
    kind_ok = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not kind_ok:
        return "it is not a directory" if directory else "it is not a regular file"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"it belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others may write it (mode {stat.S_IMODE(info.st_mode):o})"
    return ""


# --------------------------------------------------------------------------- the level files
def encode_level(result) -> bytes:
    """A level's merged result (a dataclass of arrays and JSON-able values) as the bytes of an
    uncompressed ``numpy.savez`` file: each array field as itself, the other fields as JSON."""
    if not dataclasses.is_dataclass(result):
        raise TypeError(f"a level result must be a dataclass, got {type(result).__name__}")
    arrays, meta = {}, {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "biuf":
                raise TypeError(f"cannot checkpoint field {f.name!r} of dtype {value.dtype}")
            arrays[f.name] = value
        else:
            meta[f.name] = _to_json(value)
    if META in arrays:
        raise TypeError(f"a level result may not have a field named {META!r}")
    text = json.dumps({"class": _class_name(type(result)), "fields": meta}, allow_nan=True)
    arrays[META] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def decode_level(data: bytes, problem: Problem, index: int):
    """The result :func:`encode_level` wrote for level ``index`` of ``problem``, checked: only plain
    numeric arrays (``allow_pickle=False``), exactly the fields of the result class, and the tuples
    of that level.  CheckpointFormatError (one line) for anything else; nothing in it is run."""
    cls = result_type(problem)
    fields = {f.name for f in dataclasses.fields(cls)}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if any(m.compress_type != zipfile.ZIP_STORED for m in members):
                raise CheckpointFormatError("it has compressed members, which this loop never writes")
            names = [m.filename for m in members]
        if len(set(names)) != len(names) or not all(n.endswith(".npy") for n in names):
            raise CheckpointFormatError(f"its members are not arrays ({', '.join(sorted(names))[:120]})")
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            loaded = {name: npz[name] for name in npz.files}
    except CheckpointFormatError:
        raise
    except ValueError as exc:  # an object array: "Object arrays cannot be loaded when allow_pickle=False"
        raise CheckpointFormatError(f"it is not plain arrays ({errors.one_line(exc)[:120]})") from None
    except (OSError, zipfile.BadZipFile, EOFError, KeyError, RuntimeError, NotImplementedError) as exc:
        raise CheckpointFormatError(f"it is not a level file ({type(exc).__name__})") from None
    raw = loaded.pop(META, None)
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise CheckpointFormatError("it has no record of its fields")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
        if not isinstance(meta, dict) or not isinstance(meta.get("fields"), dict):
            raise ValueError("not an object of fields")
        values = {name: _from_json(v) for name, v in meta["fields"].items()}
    except (ValueError, TypeError, RecursionError) as exc:
        raise CheckpointFormatError(f"its record of fields is not ours ({errors.one_line(exc)[:80]})") from None
    if meta.get("class") != _class_name(cls):
        raise CheckpointFormatError(f"it holds a {str(meta.get('class'))[:60]}, not a {_class_name(cls)}")
    for name, array in loaded.items():
        if array.dtype.kind not in "biuf":
            raise CheckpointFormatError(f"its array {name[:40]!r} has dtype {array.dtype}")
    values.update(loaded)
    if set(values) != fields:
        raise CheckpointFormatError(f"its fields ({', '.join(sorted(values))[:120]}) are not those of {cls.__name__}")
    result = cls(**values)
    tuples = getattr(result, "tuples", None)
    expected = problem.levels[index]
    if not isinstance(tuples, np.ndarray) or tuples.shape != np.shape(expected) or not np.array_equal(tuples, expected):
        raise CheckpointFormatError(f"it holds other tuples than level {index}")
    rows = getattr(result, "values", None)
    if not isinstance(rows, np.ndarray) or rows.ndim < 1 or len(rows) != len(tuples):
        raise CheckpointFormatError(f"its values do not match level {index}'s {len(tuples)} tuples")
    return result


def result_type(problem: Problem) -> type:
    """The dataclass ``problem.solve_tuples`` returns: ``problem.result_type``, else its return annotation."""
    cls = problem.result_type
    if cls is None:
        try:
            cls = typing.get_type_hints(problem.solve_tuples).get("return")
        except Exception:  # noqa: BLE001 - an annotation that cannot be evaluated: fall back to its name
            name = getattr(problem.solve_tuples, "__annotations__", {}).get("return")
            module = sys.modules.get(getattr(problem.solve_tuples, "__module__", ""), None)
            cls = getattr(module, name, None) if isinstance(name, str) else name
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{problem.label}: cannot tell the result class of {problem.solve_tuples!r}; "
                        "give Problem(result_type=...)")
    return cls


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _to_json(value):
    """``value`` (None, bool, int, float, str, lists, tuples, dicts of str keys, numpy scalars) as JSON
    that :func:`_from_json` turns back into an equal value of the same types: a list stays a JSON
    array, a tuple is ``{"tuple": [...]}``, a dict ``{"dict": {...}}``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, tuple):
        return {"tuple": [_to_json(v) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError("cannot checkpoint a dict with keys that are not strings")
        return {"dict": {k: _to_json(v) for k, v in value.items()}}
    raise TypeError(f"cannot checkpoint a value of type {type(value).__name__}")


def _from_json(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_from_json(v) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, inner), = value.items()
        if tag == "tuple" and isinstance(inner, list):
            return tuple(_from_json(v) for v in inner)
        if tag == "dict" and isinstance(inner, dict):
            return {k: _from_json(v) for k, v in inner.items()}
    raise ValueError("an untagged object")


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def run(problem: Problem, absorb: Callable[[Any], None], *, levels: Levels | None = None,
        chunk: int | None = None, threads: int | None = None,
        progress: Callable[[int, int], None] | None = None) -> dict:
    """Solve every level of ``problem`` in order: each level's merged result is written into the
    table by ``problem.store`` and handed to ``absorb`` (the game's counts), here and only here.

    ``levels`` (a :class:`Levels`) picks the runner, the checkpoints and the progress bar; without
    it the level loop runs in this process (``chunk``, ``threads``) as the solvers always did.
    ``progress(done, total)`` is called after each level, unless ``levels`` brings its own progress
    bar (which replaces it: one display).  Returns the loop's counts."""
    cfg = levels or Levels()
    runner = cfg.runner or InProcess(chunk, threads)
    ckpt = Checkpoints(cfg.checkpoints, problem, cfg.resume) if cfg.checkpoints is not None else None
    total_tuples = int(sum(len(level) for level in problem.levels))
    counts = {"label": problem.label, "runner": _describe(runner), "levels": len(problem.levels),
              "levels_resumed": 0, "levels_solved": 0, "tuples": total_tuples, "tuples_solved": 0,
              "seconds_solving": 0.0, "checkpoints_discarded": 0}
    bar_cm = cfg.progress(f"{problem.label} ({counts['runner']})", total_tuples) if cfg.progress else None
    if bar_cm is not None:
        progress = None
    started = time.perf_counter()
    with (bar_cm or contextlib.nullcontext()) as bar:
        runner.open(problem)
        try:
            done = 0
            if ckpt is not None and cfg.resume:
                for index, result in ckpt.load():
                    _apply(problem, runner, absorb, index, result)
                    done = index + 1
                    counts["levels_resumed"] += 1
                    if bar is not None:
                        bar.update(len(problem.levels[index]), f"{done}/{len(problem.levels)} levels (checkpoint)")
                    if progress:
                        progress(done, len(problem.levels))
                counts["checkpoints_discarded"] = ckpt.discarded
                if cfg.say and (done or ckpt.discarded):
                    extra = f"; {ckpt.discarded} damaged or stale checkpoints discarded" if ckpt.discarded else ""
                    cfg.say(f"{problem.label}: resumed {done} of {len(problem.levels)} levels from {ckpt.dir}{extra}")
            solve_started = time.perf_counter()
            for index in range(done, len(problem.levels)):
                tuples = problem.levels[index]
                result = runner.solve_level(problem, index, tuples)
                if ckpt is not None:
                    ckpt.save(index, result)
                _apply(problem, runner, absorb, index, result)
                counts["levels_solved"] += 1
                counts["tuples_solved"] += len(tuples)
                if bar is not None:
                    elapsed = time.perf_counter() - solve_started
                    rate = counts["tuples_solved"] / elapsed if elapsed > 0 else 0.0
                    bar.update(len(tuples), f"{index + 1}/{len(problem.levels)} levels, {rate:,.0f} tuples/s")
                if progress:
                    progress(index + 1, len(problem.levels))
            counts["seconds_solving"] = round(time.perf_counter() - solve_started, 3)
        finally:
            runner.close()
    counts["seconds"] = round(time.perf_counter() - started, 3)
    cfg.log.append(counts)
    return counts


def _apply(problem: Problem, runner, absorb, index: int, result) -> None:
    problem.store(problem.inputs, result.tuples, result.values)
    runner.stored(index, result.tuples, result.values)
    absorb(result)


def _describe(runner) -> str:
    describe = getattr(runner, "describe", None)
    return describe() if describe else type(runner).__name__


def remove_checkpoints(root: Path | None) -> None:
    """Remove a build's checkpoint directory (after the build succeeded)."""
    if root is not None and Path(root).exists():
        shutil.rmtree(root, ignore_errors=True)


def checkpoint_root(target: Path) -> Path:
    """The scratch directory of a build's level checkpoints: ``.<name>.levels`` beside the target
    (made mode 700; refused when another user owns it or others may write it)."""
    return Path(target).with_name(f".{Path(target).name}.levels")


__all__ = ["Problem", "Levels", "InProcess", "Checkpoints", "run", "merge", "split", "remove_checkpoints",
           "checkpoint_root", "CHECKPOINT_FORMAT", "encode_level", "decode_level", "result_type"]
