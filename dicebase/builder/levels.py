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
3. with a checkpoint directory, each finished level's merged result is saved (a pickle whose
   length and SHA-256 a manifest records, written after it); ``resume`` replays the verified
   levels instead of solving them again.

Nothing here imports Dask: a runner is any object with ``open(problem)``, ``solve_level(problem,
index, tuples)``, ``stored(index, tuples, values)`` and ``close()``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import pickle
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dicebase import version

#: The checkpoint format; a manifest of another format is not trusted (the levels are solved again).
CHECKPOINT_FORMAT = 1


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
    """The finished levels of one solve in ``root/<fingerprint key>/``: ``level-NNNNN.pkl`` (the
    merged result of that level) and ``manifest.json`` (each file's length and SHA-256, written
    atomically after the file).  A file is trusted only when its length and hash match."""

    def __init__(self, root: Path, problem: Problem, resume: bool):
        self.dir = Path(root) / problem.fingerprint_key()
        self.fingerprint = json.loads(json.dumps(problem.fingerprint, sort_keys=True, default=repr))
        self.entries: list[dict] = []
        self.discarded = 0
        if not resume and self.dir.exists():
            shutil.rmtree(self.dir)

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
                self.discarded = len(list(self.dir.glob("level-*.pkl")))
                shutil.rmtree(self.dir)
            return
        for position, entry in enumerate(manifest["levels"]):
            result = self._verified(entry, position)
            if result is None:
                self.discarded = len(manifest["levels"]) - position
                self._truncate(position)
                return
            self.entries.append(entry)
            yield position, result

    def _verified(self, entry: dict, position: int):
        try:
            path = self.dir / f"level-{position:05d}.pkl"
            if entry.get("index") != position or entry.get("file") != path.name:
                return None
            data = path.read_bytes()
            if len(data) != entry.get("bytes") or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
                return None
            return pickle.loads(data)  # our own file, its length and hash as recorded when written
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
            return None

    def _truncate(self, keep: int) -> None:
        self.entries = self.entries[:keep]
        for path in self.dir.glob("level-*.pkl"):
            with contextlib.suppress(ValueError, OSError):
                if int(path.stem.split("-")[1]) >= keep:
                    path.unlink()
        self._write_manifest()

    def save(self, index: int, result) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        path = self.dir / f"level-{index:05d}.pkl"
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
    """The scratch directory of a build's level checkpoints: ``.<name>.levels`` beside the target."""
    return Path(target).with_name(f".{Path(target).name}.levels")


__all__ = ["Problem", "Levels", "InProcess", "Checkpoints", "run", "merge", "split", "remove_checkpoints",
           "checkpoint_root", "CHECKPOINT_FORMAT"]
