"""Lookup tables held in memory: lookups without a query (``Queries.hold`` of the 10,000 game
and of Great Rolled Ones).

Why: on DuckDB every lookup of a new two-player state reads its pair's rows, and one such read
costs about 0.6-1.2 ms whatever it returns (DuckDB binds and plans the statement, then scans a
row group and loads its blocks; BENCHMARKS.md).  A process that answers many lookups (``dicebase
serve``, a script that calls ``hold()``) can instead keep the (rules, goal) block of
``ten_thousand_duel`` as two arrays, about 10 bytes a row (301 MB at goal 10,000), and answer
from them in microseconds.  Loading takes a few seconds, once; a one-shot CLI lookup never
loads it (nor imports numpy: this module is imported by ``hold()`` only).

Every row is checked as it is loaded: its (score, opponent) must be the pair the bounds table
places at its position, and within a pair the keys must increase (the order the build writes).
A block that fails is not held, and the lookups read the file as before.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from dicebase.layout.ten_thousand import DIE_SLOTS, KEY_STEP, held_key_parts

#: Rows read per query while loading (a few megabytes of arrays at a time)
CHUNK_ROWS = 1 << 20


class _NotAsBuilt(Exception):
    """A block being loaded is not as the build writes it (or the loading was stopped)."""


def _chunks(fetch_arrays, table: str, columns: str, base: int, total: int, stop):
    """(start, stop_at, columns as arrays) of rows base + start .. base + stop_at - 1 of ``table``,
    a chunk at a time, each with its ``rowid`` and ``columns``; _NotAsBuilt when a chunk has a
    NULL or is not every rowid of its range, or when ``stop()`` turns true."""
    for start in range(0, total, CHUNK_ROWS):
        if stop():
            raise _NotAsBuilt
        stop_at = min(start + CHUNK_ROWS, total)
        cols = fetch_arrays(f"SELECT rowid, {columns} FROM {table} WHERE rowid BETWEEN ? AND ?",
                            (base + start, base + stop_at - 1))
        if any(np.ma.isMaskedArray(c) and np.ma.getmaskarray(c).any() for c in cols.values()):
            raise _NotAsBuilt  # a NULL
        rowid = cols["rowid"]
        if len(rowid) != stop_at - start or (rowid != np.arange(base + start, base + stop_at)).any():
            raise _NotAsBuilt
        yield start, stop_at, cols


@dataclass(frozen=True)
class HeldDuel:
    """The (rules, goal) block of ten_thousand_duel by pair position (score // unit * G + opponent
    // unit): the bounds (first_row, row_count, p_start, as Queries._bounds_block keeps them), and
    per row its key (increasing within its pair) and p_win."""

    unit: int
    G: int
    bounds: tuple  # (array('q') first_row, array('q') row_count, array('d') p_start)
    keys: np.ndarray  # int16 or int32, one per row of the block
    p_win: np.ndarray  # float64, one per row

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.p_win.nbytes + sum(len(a) * a.itemsize for a in self.bounds)

    def pair_rows(self, i: int, j: int, lo: int, hi: int) -> dict[tuple[int, int, int], float]:
        """{(turn_total, dice, triple): p_win} of pair (i, j)'s rows with turn totals lo..hi."""
        unit = self.unit
        at = i // unit * self.G + j // unit
        first, count = self.bounds[0][at], self.bounds[1][at]
        keys = self.keys[first:first + count]
        a = int(keys.searchsorted(max(lo, 0) // unit * KEY_STEP))
        b = int(keys.searchsorted((hi // unit + 1) * KEY_STEP))
        if a >= b:
            return {}
        return {held_key_parts(unit, key): p
                for key, p in zip(keys[a:b].tolist(), self.p_win[first + a:first + b].tolist())}


def load(fetch_arrays, base: int, total: int, unit: int, G: int, bounds: tuple,
         stop=lambda: False) -> HeldDuel | None:
    """The block of ``total`` rows from rowid ``base`` of ten_thousand_duel, read by
    ``fetch_arrays(sql, params)`` (a dict of numpy arrays) a chunk at a time and checked against
    ``bounds`` (the bounds block, its keys already checked); None if any row is not where the
    build puts it, or when ``stop()`` turns true."""
    first_rows = np.frombuffer(bounds[0], dtype=np.int64)
    counts = np.frombuffer(bounds[1], dtype=np.int64)
    if len(counts) != G * G or (counts < 0).any() or int(counts.sum()) != total:
        return None
    if (first_rows != np.concatenate(([0], np.cumsum(counts)[:-1]))).any():  # pairs one after another
        return None
    most = fetch_arrays("SELECT max(turn_total) AS most FROM ten_thousand_duel WHERE rowid BETWEEN ? AND ?",
                        (base, base + total - 1))["most"]
    if len(most) != 1 or np.ma.is_masked(most[0]):
        return None
    top = (int(most[0]) // unit + 1) * KEY_STEP  # above every key of the block
    keys = np.empty(total, dtype=np.int16 if top < 2 ** 15 else np.int32)
    p_win = np.empty(total, dtype=np.float64)
    ends = first_rows + counts
    last_pair, last_key = -1, -1  # the previous chunk's last row
    try:
        for start, stop_at, cols in _chunks(fetch_arrays, "ten_thousand_duel",
                                            "score, opponent, turn_total, dice, triple, p_win", base, total, stop):
            # the pair of each row, from the bounds: pairs p0..p1 cover the chunk, each its rows in it
            p0, p1 = np.searchsorted(ends, [start, stop_at - 1], side="right")
            lengths = np.minimum(ends[p0:p1 + 1], stop_at) - np.maximum(first_rows[p0:p1 + 1], start)
            pair = np.repeat(np.arange(p0, p1 + 1), lengths)
            k, d, t = cols["turn_total"], cols["dice"], cols["triple"]
            if ((cols["score"] != pair // G * unit) | (cols["opponent"] != pair % G * unit) | (k < 0)
                    | (k % unit != 0) | (k >= top // KEY_STEP * unit) | (d < 0) | (d >= DIE_SLOTS) | (t < 0) | (t >= DIE_SLOTS)).any():
                return None
            key = k // unit * KEY_STEP + d * DIE_SLOTS + t  # layout.ten_thousand.held_key, as arrays
            # keys increase within a pair (the build's order), across the chunk's start too
            if ((np.diff(key) <= 0) & (pair[1:] == pair[:-1])).any() or (pair[0] == last_pair and key[0] <= last_key):
                return None
            keys[start:stop_at] = key
            p_win[start:stop_at] = cols["p_win"]
            last_pair, last_key = int(pair[-1]), int(key[-1])
    except _NotAsBuilt:
        return None
    present = counts > 0
    if (p_win[first_rows[present]] != np.frombuffer(bounds[2], dtype=np.float64)[present]).any():
        return None  # p_start repeats the pair's first row
    return HeldDuel(unit, G, tuple(array(a.typecode, a) for a in bounds), keys, p_win)


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
        for _start, _stop_at, cols in _chunks(fetch_arrays, table, quoted, base, total, stop):
            if (position(*(cols[name] for name in keys)) != cols["rowid"] - base).any():
                return None
            for name in values:
                parts[name].append(cols[name])
    except _NotAsBuilt:
        return None
    try:
        return HeldRows({name: _column(chunks) for name, chunks in parts.items()})
    except ValueError:
        return None


def rolled_ones_positions(rules):
    """:func:`dicebase.layout.rolled_ones.position` over numpy arrays of keys (p, i, j, k, o), from
    the layout's tables (:func:`~dicebase.layout.rolled_ones.position_tables`): each key's offset
    in its variant's block as the build writes it, -1 for a state it does not store."""
    from dicebase.layout.rolled_ones import position_tables

    turn, first_rows, per_pair = (np.array(table, dtype=np.int64) for table in position_tables(rules))
    G = rules.goal

    def position(p, i, j, k, o):
        inside = ((p >= 1) & (p <= 2) & (i >= 0) & (i < G) & (j >= 0) & (j < G) & (k >= 0)
                  & (k < turn.shape[0]) & (o >= 0) & (o < turn.shape[1]))
        p, i, j = np.where(inside, p, 1), np.where(inside, i, 0), np.where(inside, j, 0)
        k, o = np.where(inside, k, 0), np.where(inside, o, 0)
        n = turn[k, o]
        fits = inside & (n >= 0) & (n < per_pair[p - 1, i])
        return np.where(fits, first_rows[p - 1, i] + j * per_pair[p - 1, i] + n, -1)

    return position
