"""Roll outcomes as multisets with multiplicities.

Rolling ``n`` dice with ``f`` faces has ``f**n`` ordered outcomes but only
``C(n + f - 1, n)`` distinct multisets (462 for six six-sided dice).  Every
solver enumerates the multisets once, weighted by how many ordered rolls
produce each one, so expectations are exact sums with integer weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np


@dataclass(frozen=True)
class Rolls:
    """All distinct outcomes of rolling ``dice`` dice with ``faces`` faces.

    ``faces_sorted[r]`` holds roll ``r`` as ascending face values (1-based),
    ``counts[r, f - 1]`` how many dice show face ``f``, ``ways[r]`` how many of
    the ``faces ** dice`` ordered rolls give that multiset, so
    ``ways / total`` is the exact probability of each roll.
    """

    dice: int
    faces: int
    faces_sorted: np.ndarray  # (R, dice) int8, ascending
    counts: np.ndarray  # (R, faces) int8
    ways: np.ndarray  # (R,) int64

    @property
    def total(self) -> int:
        return self.faces**self.dice

    @property
    def probability(self) -> np.ndarray:
        return self.ways / float(self.total)

    def __len__(self) -> int:
        return len(self.ways)


def _multinomial(counts: tuple[int, ...]) -> int:
    ways = factorial(sum(counts))
    for c in counts:
        ways //= factorial(c)
    return ways


@lru_cache(maxsize=None)
def rolls(dice: int, faces: int = 6) -> Rolls:
    """Enumerate the multisets of ``dice`` dice, in lexicographic order."""
    if dice < 0 or faces < 1:
        raise ValueError(f"need dice >= 0 and faces >= 1, got {dice}, {faces}")
    combos = list(combinations_with_replacement(range(1, faces + 1), dice))
    faces_sorted = np.array(combos, dtype=np.int8).reshape(len(combos), dice)
    counts = np.zeros((len(combos), faces), dtype=np.int8)
    for f in range(1, faces + 1):
        counts[:, f - 1] = (faces_sorted == f).sum(axis=1)
    ways = np.array([_multinomial(tuple(int(c) for c in row)) for row in counts], dtype=np.int64)
    for arr in (faces_sorted, counts, ways):
        arr.setflags(write=False)
    return Rolls(dice, faces, faces_sorted, counts, ways)


def roll_index(dice: int, faces: int = 6) -> dict[tuple[int, ...], int]:
    """Map an ascending tuple of faces to its row in ``rolls(dice, faces)``."""
    table = rolls(dice, faces)
    return {tuple(int(x) for x in row): r for r, row in enumerate(table.faces_sorted)}
