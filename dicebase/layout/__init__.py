"""Each game's storage layout, defined once: which states are stored, how keys are encoded,
the key columns of each stored block and the SQL that reads stored values.

The builder writes tables by these definitions and the query side reads them by the same ones
(:mod:`dicebase.query.blocks` is the one reader).  Modules here import only the standard
library and :mod:`dicebase.rules`: the command line's lookups import them without numpy.

The words used throughout:

* a **table** is stored as **blocks**: the rows of one block share the values of the table's
  ``block`` columns (e.g. ``(rules, goal)``) and the build writes them together, in key order;
* a **row key** is the values of the table's ``key`` columns, a tuple of any length (e.g.
  ``(score, opponent, turn_total, dice, triple)``);
* a **position** is a row's offset within its block (DuckDB's ``rowid`` less the block's first
  one), a function of its row key that each game's layout module gives (``None``: a key the
  build does not store).

A game stored for more players (a score tuple and a seat to move instead of a score and an
opponent) is a new :class:`Table` (or new block values) and a new position function over a
longer key: the reader does not change.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """A stored table: its name, the columns naming a block and the columns naming a row in it."""

    name: str
    block: tuple[str, ...]
    key: tuple[str, ...]

    def where_block(self) -> str:
        """SQL condition selecting one block (``?`` placeholders, in ``block`` order)."""
        return " AND ".join(f"{column} = ?" for column in self.block)

    def where_row(self) -> str:
        """SQL condition selecting one row of one block (block values, then the row key)."""
        return " AND ".join(f"{column} = ?" for column in (*self.block, *self.key))


# -- the N-player games' turn starts: one row per (seat to move, score tuple) --------------------------------
def tuple_index(goal: int, scores) -> int:
    """Index of a score tuple in base ``goal`` (scores in the game's units), seat 1 the most significant
    digit: the solvers' (``dicebase.builder.equilibrium.tuple_strides``)."""
    idx = 0
    for s in scores:
        idx = idx * goal + s
    return idx


def start_rows(goal: int, players: int) -> int:
    """Rows of a (rule set, players) block of turn starts: ``players * goal^players``."""
    return players * goal**players


def start_position(goal: int, players: int, seat: int, *scores: int) -> int | None:
    """Position of the turn start (seat to move, scores in units) in its block: seat-major, then the tuple
    index (None: not a stored key)."""
    if not 1 <= seat <= players or len(scores) != players or not all(0 <= s < goal for s in scores):
        return None
    return (seat - 1) * goal**players + tuple_index(goal, scores)
