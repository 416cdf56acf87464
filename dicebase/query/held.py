"""Lookup tables held in memory: lookups without a query (a game's ``Queries.hold``: 10,000's in
:mod:`dicebase.query.ten_thousand.held`, Great Rolled Ones' through :func:`load_rows`).

Why: on DuckDB every lookup of a new state reads its rows, and one such read costs about
0.6-1.2 ms whatever it returns (DuckDB binds and plans the statement, then scans a row group and
loads its blocks; BENCHMARKS.md).  A process that answers many lookups (``dicebase serve``, a
script that calls ``hold()``) can instead keep a block of a table as arrays and answer from them
in microseconds.  Loading takes a few seconds, once; a one-shot CLI lookup never loads it (nor
imports numpy: this module is imported by ``hold()`` only).

Every row is checked as it is loaded (its key where the build puts it); a block that fails is not
held, and the lookups read the file as before.  Here: reading a block in checked chunks
(:func:`chunks`) and holding a block's rows by position (:class:`HeldRows`, :func:`load_rows`).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

#: Rows read per query while loading (a few megabytes of arrays at a time)
CHUNK_ROWS = 1 << 20


class NotAsBuilt(Exception):
    """A block being loaded is not as the build writes it (or the loading was stopped)."""


def chunks(fetch_arrays, table: str, columns: str, base: int, total: int, stop):
    """(start, stop_at, columns as arrays) of rows base + start .. base + stop_at - 1 of ``table``,
    a chunk at a time, each with its ``rowid`` and ``columns``; NotAsBuilt when a chunk has a
    NULL or is not every rowid of its range, or when ``stop()`` turns true."""
    for start in range(0, total, CHUNK_ROWS):
        if stop():
            raise NotAsBuilt
        stop_at = min(start + CHUNK_ROWS, total)
        cols = fetch_arrays(f"SELECT rowid, {columns} FROM {table} WHERE rowid BETWEEN ? AND ?",
                            (base + start, base + stop_at - 1))
        if any(np.ma.isMaskedArray(c) and np.ma.getmaskarray(c).any() for c in cols.values()):
            raise NotAsBuilt  # a NULL
        rowid = cols["rowid"]
        if len(rowid) != stop_at - start or (rowid != np.arange(base + start, base + stop_at)).any():
            raise NotAsBuilt
        yield start, stop_at, cols


@dataclass(frozen=True)
class HeldRows:
    """A block of a table's rows in memory by position (row 0: the block's first), its value
    columns by name as (values, codes): numbers as an array with codes None; text (a few distinct
    values, e.g. 'roll' and 'hold') as the distinct values and an array of one small code per
    row.  A row's values are what a read returns: Python floats, ints and strings."""

    columns: dict  # name -> (array or tuple of distinct values, None or array('B') of codes)

    @property
    def nbytes(self) -> int:
        return sum(len(codes if codes is not None else values) * (codes if codes is not None else values).itemsize
                   for values, codes in self.columns.values())

    def row(self, at: int, names: list[str]) -> tuple:
        out = []
        for name in names:
            values, codes = self.columns[name]
            out.append(values[at] if codes is None else values[codes[at]])
        return tuple(out)


def _column(parts: list) -> tuple:
    """One held column from its chunks (numpy arrays): (values, codes) of HeldRows."""
    whole = np.concatenate(parts) if parts else np.array([], dtype=np.float64)
    if whole.dtype.kind == "f":
        return array("d", whole.astype(np.float64).tobytes()), None
    if whole.dtype.kind in "iub":
        return array("q", whole.astype(np.int64).tobytes()), None
    distinct, codes = np.unique(whole.astype(str), return_inverse=True)
    if len(distinct) > 255:
        raise ValueError("too many distinct values to hold as codes")
    return tuple(distinct.tolist()), array("B", codes.astype(np.uint8).tobytes())


def load_rows(fetch_arrays, table: str, base: int, total: int, keys: list[str], values: list[str],
              position, stop=lambda: False) -> HeldRows | None:
    """Rows ``base``..``base + total - 1`` of ``table``: its ``values`` columns, once every row's
    ``keys`` columns are found where ``position`` (a function of those columns as arrays, giving
    each row's offset in the block, -1 for a key the build does not store) puts it; None if one
    is not, or when ``stop()`` turns true."""
    parts: dict[str, list] = {name: [] for name in values}
    quoted = ", ".join(f'"{name}"' for name in (*keys, *values))
    try:
        for _start, _stop_at, cols in chunks(fetch_arrays, table, quoted, base, total, stop):
            if (position(*(cols[name] for name in keys)) != cols["rowid"] - base).any():
                return None
            for name in values:
                parts[name].append(cols[name])
    except NotAsBuilt:
        return None
    try:
        return HeldRows({name: _column(chunks) for name, chunks in parts.items()})
    except ValueError:
        return None
