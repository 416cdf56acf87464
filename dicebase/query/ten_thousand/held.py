"""10,000's two-player table held in memory (:meth:`Queries.hold`, :mod:`dicebase.query.held`): the
(rules, goal) block of ``ten_thousand_duel`` as two arrays, about 10 bytes a row (301 MB at goal
10,000).  Every row is checked as it is loaded: its (score, opponent) must be the pair the bounds table
places at its position, and within a pair the keys must increase (the order the build writes).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from dicebase.layout.ten_thousand import DIE_SLOTS, KEY_STEP, held_key_parts
from dicebase.query.held import NotAsBuilt, chunks


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
        for start, stop_at, cols in chunks(fetch_arrays, "ten_thousand_duel",
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
    except NotAsBuilt:
        return None
    present = counts > 0
    if (p_win[first_rows[present]] != np.frombuffer(bounds[2], dtype=np.float64)[present]).any():
        return None  # p_start repeats the pair's first row
    return HeldDuel(unit, G, tuple(array(a.typecode, a) for a in bounds), keys, p_win)
