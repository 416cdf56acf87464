"""What a game's solver writes through: ``BuildContext`` records its variants, notes and
timed steps, and appends its rows (with their checksums) to the tables of its schema."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from dicebase.builder.metadata import column_spec
from dicebase.builder.store import Writer, canonical_column
from dicebase.builder.target import BuildError
from dicebase.checksum import AppendedChecksum
from dicebase.schema import game_tables


@dataclass
class TableStats:
    """Rows written and seconds spent writing them."""

    rows: int = 0
    seconds: float = 0.0


class BuildContext:
    """What a game's ``build(ctx, options)`` uses to record variants and write rows."""

    def __init__(self, game: str, writer: Writer, quiet: bool):
        self.game = game
        self.quiet = quiet
        self._writer = writer
        self._tables = {t.name: t for t in game_tables(game)}
        self.table_stats: dict[str, TableStats] = {name: TableStats() for name in self._tables}
        self.checksums = {name: AppendedChecksum(column_spec(t)) for name, t in self._tables.items()}
        self.variants: dict[str, tuple[dict, dict]] = {}
        self.steps: list[tuple[str, float]] = []
        self.notes: dict[str, Any] = {}
        #: how the N-player level loops run (``dicebase.builder.levels.Levels``: a Dask cluster, level
        #: checkpoints, the progress bar); the pipeline sets it, ``None`` is in-process as before
        self.levels = None

    def variant(self, name: str, rules: dict, solver: dict) -> None:
        """Record a variant's full rule parameters and solver settings."""
        if name in self.variants:
            raise BuildError(f"{self.game}: variant {name!r} recorded twice")
        self.variants[name] = (json.loads(json.dumps(rules)), json.loads(json.dumps(solver)))

    def note(self, key: str, value: Any) -> None:
        self.notes[key] = json.loads(json.dumps(value))

    def write(self, table_name: str, columns: dict) -> None:
        """Bulk-append rows given as equal-length numpy columns (or a scalar: that value in
        every row).  Rows appended in key order get their checksum as they are written."""
        table = self._tables.get(table_name)
        if table is None:
            raise BuildError(f"{self.game}: no table {table_name!r} in its schema")
        expected = [c.name for c in table.columns]
        if sorted(columns) != sorted(expected):
            raise BuildError(
                f"{table_name}: columns {sorted(columns)} do not match the schema's {sorted(expected)}"
            )
        ordered = {name: canonical_column(columns[name]) for name in expected}
        stats = self.table_stats[table_name]
        started = time.perf_counter()
        rows = self._writer.append(table_name, ordered)
        self.checksums[table_name].add(ordered, rows)
        stats.rows += rows
        stats.seconds += time.perf_counter() - started

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Time a step; shown on stderr unless quiet, recorded in build_steps."""
        started = time.perf_counter()
        yield
        seconds = time.perf_counter() - started
        self.steps.append((label, seconds))
        if not self.quiet:
            print(f"  {self.game}: {label} ({seconds:.2f} s)", file=sys.stderr, flush=True)

    def progress(self, iterable: Iterable, label: str, length: int | None = None) -> Iterable:
        """A click progress bar over a long loop (plain iteration when quiet)."""
        if self.quiet:
            return iterable
        import click

        return _ProgressIterable(click.progressbar(iterable, length=length, label=f"  {self.game}: {label}", file=sys.stderr))


    def progress_bar(self, label: str, length: int):
        """A click progress bar of ``length`` steps advanced by ``bar.update(n, text)`` (``text``:
        shown beside it, e.g. levels done and tuples per second); click shows the time left."""
        import click

        return _ProgressBar(click.progressbar(length=length, label=f"  {self.game}: {label}", file=sys.stderr,
                                              show_eta=True, show_pos=False, item_show_func=lambda text: text))


class _ProgressBar:
    def __init__(self, bar):
        self.bar = bar

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def update(self, steps: int, text: str | None = None) -> None:
        self.bar.update(steps, text)


class _ProgressIterable:
    def __init__(self, bar):
        self.bar = bar

    def __iter__(self):
        with self.bar as items:
            yield from items
