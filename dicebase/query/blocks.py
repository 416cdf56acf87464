"""The one block reader: how every game's lookups find and read stored blocks of rows.

A stored table is a set of **blocks** (:class:`dicebase.layout.Table`): the rows sharing the
values of its ``block`` columns, written together by the build in key order.  A block is named
by ``(table, block values)``; a row within it by its **row key**, a tuple of the table's ``key``
columns of any length, and its **position** (offset from the block's first row) is a function of
that key which the game's layout module (:mod:`dicebase.layout`) defines.

What this module owns, for every game:

* **finding a block** (:meth:`Blocks.found`), once per connection: where it starts and how many
  rows it has (:class:`Found`), by one of three checks: its ends (:meth:`Blocks.ends_fit`: the
  first and last rows carry the block's values, their neighbours do not), its span
  (:meth:`Blocks.span`: ``min(rowid)``, ``max(rowid)`` and ``count(*)`` of a key filter, dense),
  or its runs of rows (:meth:`Blocks.runs`, grouped by some columns); a table whose blocks the
  build writes one after another in block order finds them by their sizes (:meth:`Blocks.in_order`).
  DuckDB only: SQLite finds nothing and seeks its primary keys;
* **reading by position** (:meth:`Blocks.read`): one ``rowid`` range, every row's key checked
  against the position it was read from (the caller's ``position`` function of the key); a row
  not where the layout puts it means the block is **misplaced** (:meth:`Blocks.lose`): it is read
  by key filters from then on (``Blocks.misplaced`` names each such block), never from another
  key's row;
* **the key-filtered fallback** (:meth:`Blocks.by_key`), the read SQLite always uses;
* **the turn starts along one seat's score** (:meth:`Blocks.along`), what every N-player turn of
  Great Rolled Ones and Pig reads: one range by position, else one key filter;
* **held blocks** (:meth:`Blocks.held`, :meth:`Blocks.hold`): a block kept in memory (numpy,
  :mod:`dicebase.query.held`, loaded only by ``hold()``) in ``Database._held``, shared by the
  connection's ``for_thread()`` twins, so that held lookups run no SQL.  Every row is checked as it
  is loaded; a block that fails is not held.

Room for more players: a 10,000 or Great Rolled Ones table stored for 3 or 4 players keys its
rows by a score tuple and a seat to move, e.g. ``Table("ten_thousand_duel4", ("rules", "goal"),
("seat", "score1", "score2", "score3", "score4", "turn_total", "dice", "triple"))``, with a
position function of that key in its layout module.  Finding, reading, checking, falling back
and holding are the calls below with the longer key: new rows and a new key shape, not a new
read path.

Diagnostics (public, for tests and ``dicebase serve``): :meth:`Blocks.located` (the blocks found
by position on this connection), ``misplaced``, :func:`held_bytes` and :func:`held_blocks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from dicebase.layout import Table


@dataclass(frozen=True)
class Found:
    """Where a block lies in a DuckDB file: its first ``rowid``, its rows, and what its layout
    needed to know to place rows in it (``shape``: e.g. the unit and classes of a grid, or
    ``runs``: sub-blocks by some columns -> (first, last rowid))."""

    base: int
    size: int
    shape: tuple = ()
    runs: dict = field(default_factory=dict)


class Blocks:
    """The block reader of one connection (each game's ``Queries`` has one: ``q.blocks``)."""

    def __init__(self, db):
        self.db = db
        self._found: dict[tuple, Found | None] = {}
        #: blocks whose rows were not where the build puts them (read by key filters instead)
        self.misplaced: list[str] = []
        #: ``lambda table, block: None`` makes every block unknown (every read a key filter)
        self.locate_with: Callable[[Table, tuple], Found | None] | None = None
        # (sql, params) -> (the rows Database.read remembers, what was made of them): a read answered
        # from the memo is not checked and converted again (dropped with the memo: new rows, new check)
        self._checked: dict[tuple, tuple] = {}

    # -- finding a block --------------------------------------------------------------------
    def found(self, table: Table, block: tuple, locate: Callable[[], Found | None]) -> Found | None:
        """Where ``block`` of ``table`` lies, found by ``locate()`` the first time it is asked on
        this connection; None on SQLite, or when it is not laid out as the build writes it."""
        key = (table.name, *block)
        if key not in self._found:
            if self.db.store != "duckdb":
                self._found[key] = None
            elif self.locate_with is not None:
                self._found[key] = self.locate_with(table, block)
            else:
                self._found[key] = locate()
        return self._found[key]

    def in_order(self, table: Table, block: tuple, sizes: Callable[[], dict[tuple, int]]) -> Found | None:
        """:meth:`found` for a table whose blocks the build writes one after another in the order of their block
        values (``sizes()``: every block's rows, by block values): ``block`` starts after the blocks before it,
        and is found when its first and last rows are its own and their neighbours not (then only row keys are
        checked); else it is lost (:meth:`lose`) and read by key filters."""

        def locate() -> Found | None:
            every = sizes()
            at, size = sum(rows for other, rows in every.items() if other < block), every[block]
            if self.ends_fit(table, block, at, size):
                return Found(at, size)
            self.lose(table, block)
            return None

        return self.found(table, block, locate)

    def place(self, table: Table, block: tuple, found: Found) -> None:
        """Record where ``block`` lies, found by the caller (e.g. by one scan of every block)."""
        self._found[(table.name, *block)] = found

    def known(self, table: Table, block: tuple) -> bool:
        """Whether ``found`` was asked for this block on this connection (found or not)."""
        return (table.name, *block) in self._found

    def lose(self, table: Table, block: tuple) -> None:
        """Rows read by position were not the block's: read it by key filters from now on."""
        self._found[(table.name, *block)] = None
        self.misplaced.append(" ".join(str(part) for part in (table.name, *block)))

    def located(self) -> dict[tuple, bool]:
        """(table, *block) -> whether it was found by position, for every block asked on this
        connection (False: read by key filters)."""
        return {key: found is not None for key, found in self._found.items()}

    def span(self, table: Table, block: tuple) -> tuple[int, int] | None:
        """(first rowid, rows) of the rows of ``block``, found by one key filter, when they are one
        run of consecutive rowids; else None."""
        a, b, count = self.db.fetchone(
            f"SELECT min(rowid), max(rowid), count(*) FROM {table.name} WHERE {table.where_block()}", block)
        if not count or b - a + 1 != count:
            return None
        return a, count

    def runs(self, table: Table, block: tuple, by: tuple[str, ...]) -> dict[tuple, tuple[int, int]]:
        """(values of ``by``) -> (first, last rowid) of each run of ``block``'s rows sharing them,
        for the runs that are consecutive rowids (one key filter, grouped)."""
        names = ", ".join(by)
        where = f" WHERE {table.where_block()}" if block else ""  # no block: the whole table
        rows = self.db.fetchall(f"SELECT {names}, min(rowid), max(rowid), count(*) FROM {table.name}"
                                f"{where} GROUP BY {names}", block)
        out = {}
        for *values, a, b, count in rows:
            if b - a + 1 == count:
                out[tuple(values)] = (a, b)
        return out

    def ends_fit(self, table: Table, block: tuple, base: int, size: int,
                 first_key: tuple = (), last_key: tuple = ()) -> bool:
        """Whether rows ``base`` and ``base + size - 1`` are ``block``'s (and carry ``first_key``
        and ``last_key``, leading key columns) and their neighbours are not: then the rows between
        are the block's, and a read by position need check only the row key, not the block's
        columns (which may cost DuckDB more to read than the rest of the key)."""
        n = max(len(first_key), len(last_key))
        columns = ", ".join((*table.block, *table.key[:n]))
        rows = self.db.fetchall(f"SELECT rowid, {columns} FROM {table.name} "
                                "WHERE rowid = ? OR rowid = ? OR rowid = ? OR rowid = ?",
                                (base - 1, base, base + size - 1, base + size))
        at = {rowid: tuple(rest) for rowid, *rest in rows}
        width = len(table.block)
        return (at.get(base, ())[:width + len(first_key)] == (*block, *first_key)
                and at.get(base + size - 1, ())[:width + len(last_key)] == (*block, *last_key)
                and at.get(base - 1, ())[:width] != tuple(block) and at.get(base + size, ())[:width] != tuple(block))

    # -- reading ------------------------------------------------------------------------------
    def read(self, table: Table, block: tuple, found: Found, first: int, last: int, columns: str,
             position: Callable[..., int | None], *, where: str = "", params: tuple = (),
             count: int | None = None, check_block: bool = False, into: Callable | None = None,
             remember: bool = True):
        """The rows at positions ``first``..``last`` of a found block (narrowed by ``where``), as
        (position, *row key, *columns) tuples (or ``into`` of that list), every row checked:
        ``position(*key)`` must be the position it was read from, no column NULL, ``count`` rows
        (default: every position; -1: any number) must come back, and with ``check_block`` (a block
        whose ends were not checked) each row must carry the block's values.  None, with the block
        lost (:meth:`lose`), when one is not.  ``remember``: through the connection's read memo
        (``Database.read``; a remembered read is not checked again), else read afresh."""
        names = (*table.block, *table.key) if check_block else table.key
        sql = (f"SELECT rowid, {', '.join(names)}, {columns} FROM {table.name} WHERE rowid BETWEEN ? AND ?"
               + (f" AND {where}" if where else ""))
        params = (found.base + first, found.base + last, *params)
        rows = (self.db.read if remember else self.db.fetchall)(sql, params)
        done = self._checked.get((sql, params))
        if done is not None and done[0] is rows:  # the same remembered read, checked already
            return done[1]
        skip, width, base = len(names) - len(table.key), len(names), found.base
        out = []
        for rowid, *row in rows:
            if (skip and tuple(row[:skip]) != tuple(block) or position(*row[skip:width]) != rowid - base
                    or None in row):
                break
            out.append((rowid - base, *row[skip:]))
        else:
            if count == -1 or len(rows) == (last - first + 1 if count is None else count):
                result = out if into is None else into(out)
                if remember:
                    self._checked[(sql, params)] = (rows, result)
                return result
        self.lose(table, block)
        return None

    def along(self, table: Table, block: tuple, found: Found | None, position: Callable[..., int | None], seat: int,
              scores: tuple[int, ...], m: int, stop: int, columns: tuple[str, ...]) -> dict[int, tuple[float, ...]]:
        """{v: ``columns`` as floats} of the rows (``seat``, ``scores`` with 0-based seat ``m``'s score v) for
        v = scores[m] .. stop - 1, of a table keyed (seat, one score per seat): the turn starts along one seat's
        score (what a bust leaves and every hold's next turn start).  One range of rows by position from a
        ``found`` block (``position(seat, *scores)``, every row checked), else (SQLite, a block not found or
        lost) one key filter."""
        lo, names, n = scores[m], table.key[1:], len(scores)
        others = [(names[i], scores[i]) for i in range(n) if i != m]
        cols = ", ".join(columns)
        if found is not None:
            first = position(seat, *scores[:m], lo, *scores[m + 1:])
            last = position(seat, *scores[:m], stop - 1, *scores[m + 1:])
            where = " AND ".join(f"{c} = ?" for c, _ in others) if last - first + 1 > stop - lo else ""
            rows = self.read(table, block, found, first, last, cols, position, where=where,
                             params=tuple(s for _, s in others) if where else (), count=stop - lo)
            if rows is not None:
                return {row[2 + m]: tuple(float(x) for x in row[2 + n:]) for row in rows}
        marks = ", ".join("?" for _ in range(lo, stop))
        sql = (f"SELECT {names[m]}, {cols} FROM {table.name} WHERE {table.where_block()} AND {table.key[0]} = ? AND "
               + "".join(f"{c} = ? AND " for c, _ in others) + f"{names[m]} IN ({marks})")
        rows = self.db.read(sql, (*block, seat, *(s for _, s in others), *range(lo, stop)))
        return {int(r[0]): tuple(float(x) for x in r[1:]) for r in rows}

    def row(self, table: Table, block: tuple, found: Found, at: int, columns: str, key: tuple) -> tuple | None:
        """``columns`` of the row at position ``at`` (one prepared point read), checked to carry
        ``key``; None, with the block lost, when it does not."""
        keys = ", ".join(table.key)
        row = self.db.read(self.db.prepared(f"SELECT {keys}, {columns} FROM {table.name} WHERE rowid = $1",
                                            found.base + at))
        row = row[0] if row else None
        if row is not None and tuple(row[:len(key)]) == tuple(key):
            return tuple(row[len(key):])
        self.lose(table, block)
        return None

    def by_key(self, table: Table, block: tuple, key: tuple, columns: str) -> tuple | None:
        """``columns`` of the row ``key`` of ``block``, by a key filter (SQLite's primary-key seek)."""
        rows = self.db.read(f"SELECT {columns} FROM {table.name} WHERE {table.where_row()}", (*block, *key))
        return rows[0] if rows else None

    # -- held blocks ------------------------------------------------------------------------------
    def held(self, table: Table, block: tuple) -> Any:
        """The block held in memory (by :meth:`hold`, on this database or a twin), or None."""
        return self.db._held.get((table.name, *block))

    def hold(self, table: Table, block: tuple, load: Callable[[], Any]) -> bool:
        """Hold ``block`` in memory: ``load()`` (numpy; None when a row is not where the layout puts
        it, or when stopped) once; True when it is held."""
        key = (table.name, *block)
        if key not in self.db._held:
            got = load()
            if got is None:
                return False
            self.db._held[key] = got
        return True


def held_bytes(db, table: str | None = None) -> int:
    """Bytes held in memory by ``db`` (and its twins), of ``table``'s blocks or of every table's."""
    return sum(held.nbytes for key, held in db._held.items() if table is None or key[0] == table)


def held_blocks(db) -> set[tuple]:
    """(table, *block values) of every block ``db`` holds in memory."""
    return set(db._held)
