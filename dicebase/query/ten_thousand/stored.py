"""10,000's stored values, read through the one block reader (:mod:`dicebase.query.blocks`).

Every table is written once, in key order (:mod:`dicebase.layout.ten_thousand`), so a row's key
gives its position (DuckDB's rowid) within its block: dense grids by arithmetic,
``ten_thousand_duel`` by the pair offsets stored in ``ten_thousand_duel_bounds``.  A read of a
rowid range touches one row group (0.4-0.5 ms) where a key filter scans one (1.4-2.8 ms, issue
12).  Where each block starts is found once per connection; every read checks the keys of the
rows it gets, and a block that is not where and how the build writes it (a file written by
other tools, edited, or rows deleted and re-inserted) is read by key filters.  SQLite seeks its
primary keys.  Each reader returns what the documented queries (:mod:`dicebase.layout.ten_thousand`)
would read.
"""

from __future__ import annotations

from array import array
from functools import partial

from dicebase.layout.ten_thousand import (
    BOUNDS, DUEL, EXCEED, GRID_STEP, KEEPS, LAST_TURN, SOLITAIRE, grid_position, pair_at, pair_position,
)
from dicebase.query.blocks import Blocks, Found
from dicebase.rules.ten_thousand import MAX_POINTS

#: Above every need ten_thousand_exceed can hold (a need is at most the opponent's score plus a unit)
MAX_NEED = 2 * MAX_POINTS
#: DuckDB reads a two-player pair's rows whole up to this many (a pair holds 751 on average at
#: goal 10,000, at most 3,646), and only the turn totals asked (and the pair's ends) past it
WHOLE_PAIR_ROWS = 1500
#: A two-player pair's rows by position, prepared once per connection (Database.prepared)
PAIR_ROWS_SQL = ("SELECT rowid, score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                 "WHERE rowid BETWEEN $1 AND $2")


def by_first(rows) -> dict[int, float]:
    """{key: value} of (key, value) rows (turn-start win probabilities by opponent score)."""
    return {int(key): float(value) for key, value in rows}


def by_key3(rows) -> dict[tuple[int, int, int], float]:
    """{(a, b, c): value} of (a, b, c, value) rows, e.g. (turn_total, dice, triple) -> p_win (the
    schema's INTEGER and DOUBLE columns come as int and float from both stores: no conversion,
    which would cost more than the read for a pair's few hundred rows)."""
    return {(a, b, c): value for a, b, c, value in rows}


def _grid_rows(rows) -> dict[tuple[int, int, int], object]:
    """{(points, dice, triple): value} of checked grid rows (position, points, dice, triple, value)."""
    return {(a, b, c): value for _at, a, b, c, value in rows}


class Stored:
    """The stored values of one connection's 10,000 lookups (``q`` gives the rule sets)."""

    def __init__(self, q):
        self.q = q
        self.db = q.db
        self.blocks = Blocks(q.db)
        self._bounds_blocks: dict[tuple, tuple | None] = {}  # (rules, goal) -> see bounds_block
        self._bounds_asks: dict[tuple, int] = {}  # (rules, goal) -> two-player lookups asked (asked)
        self._solitaire_asks: dict[str, int] = {}  # DuckDB: see solitaire
        self._solitaire_blocks: dict[str, dict] = {}  # rules -> {(turn_total, dice, triple): (value, action)}
        self._exceed_columns: dict[str, dict] = {}  # rules -> see exceed_start

    # -- finding blocks ----------------------------------------------------------------------
    def found(self, table, *block) -> Found | None:
        """Where ``table``'s rows of ``block`` lie (None: SQLite, or not as the build writes them)."""
        return self.blocks.found(table, block, partial(self._locate, table, block))

    def _locate(self, table, block: tuple) -> Found | None:
        unit = self.q._shape(block[0])[0]
        if table is KEEPS:  # runs of rows per (dice, triple)
            runs = self.blocks.runs(table, block, ("dice", "triple"))
            return Found(0, 0, runs=runs) if runs else None
        if table is DUEL:
            return self._locate_duel(*block)
        span = self.blocks.span(table, block)
        if span is None:
            return None
        base, count = span
        if table is BOUNDS:
            G = block[1] // unit
            return Found(base, count, (unit, G)) if count == G * G else None
        # a dense grid of (points step, class): the classes of the first step give its width
        step, first = GRID_STEP[table.name]
        head = self.db.fetchall(f"SELECT {step}, dice, triple FROM {table.name} WHERE rowid BETWEEN ? AND ?",
                                (base, base + 99))
        classes = []
        for points, n, t in head:
            if points != first * unit:
                break
            classes.append((n, t))
        # every class of the rule set once per step (ten_thousand_classes), or the grid is not the build's
        if sorted(classes) != sorted(self.q.classes(block[0])) or count % len(classes):
            return None
        return Found(base, count, (unit, first, tuple(classes)))

    def _locate_duel(self, rules: str, goal: int) -> Found | None:
        """ten_thousand_duel's (rules, goal) block: the build writes it just before its bounds, so it
        starts after the rows of every bounds block before this one; checked at both ends, else
        found by a key filter over the block (one scan)."""
        bounds = self.found(BOUNDS, rules, goal)
        if bounds is None:
            return None
        before, total = self.db.fetchone(
            "SELECT coalesce(sum(row_count) FILTER (WHERE rowid < ?), 0), sum(row_count) FILTER (WHERE rowid BETWEEN ? AND ?) "
            "FROM ten_thousand_duel_bounds", (bounds.base, bounds.base, bounds.base + bounds.size - 1))
        if not total:
            return None
        top = (bounds.shape[1] - 1) * bounds.shape[0]
        block = (rules, goal)
        if self.blocks.ends_fit(DUEL, block, before, total, (0, 0), (top, top)):
            return Found(before, total)
        span = self.blocks.span(DUEL, block)
        if span is not None and span[1] == total and self.blocks.ends_fit(DUEL, block, span[0], total, (0, 0), (top, top)):
            return Found(span[0], total)
        return None

    # -- the bounds: turn starts and where each pair's rows lie ---------------------------------
    def asked(self, rules: str, goal: int) -> None:
        """Count a two-player lookup of (rules, goal) on this connection (see bounds_block)."""
        key = (rules, goal)
        self._bounds_asks[key] = self._bounds_asks.get(key, 0) + 1

    def bounds_block(self, rules: str, goal: int) -> tuple[array, array, array] | None:
        """The whole (rules, goal) block of ten_thousand_duel_bounds in memory, as three arrays by
        position (score // unit * G + opponent // unit): first_row, row_count, p_start.  Read from a
        connection's second two-player lookup on (40,000 rows at goal 10,000, 10-30 ms once): it
        saves a query per lookup after it, which a one-shot CLI lookup would never repay; taken
        from the held block when there is one (:meth:`hold`).  None while not read, or when a key
        is not where the build puts it (the lookups then read rows as before)."""
        key = (rules, goal)
        if key in self._bounds_blocks:
            return self._bounds_blocks[key]
        held = self.blocks.held(DUEL, key)
        if held is not None:
            return held.bounds
        if self._bounds_asks.get(key, 0) < 2:
            return None
        block = self.read_bounds_block(rules, goal)
        self._bounds_blocks[key] = block
        return block

    def bounds_in_memory(self, rules: str, goal: int) -> tuple[array, array, array] | None:
        """The bounds block of (rules, goal) if it is in memory (read whole, or held), else None."""
        held = self.blocks.held(DUEL, (rules, goal))
        return held.bounds if held is not None else self._bounds_blocks.get((rules, goal))

    def read_bounds_block(self, rules: str, goal: int) -> tuple[array, array, array] | None:
        """The bounds block of :meth:`bounds_block`, read in one query; every row's key is checked
        against its position (None if one is not where the build puts it)."""
        unit = self.q._shape(rules)[0]
        G = goal // unit
        if self.db.store == "duckdb":
            lay = self.found(BOUNDS, rules, goal)
            if lay is None:
                return None
            # one row of three lists; the keys checked in the same scan
            first_rows, counts, p_starts, fits, rows = self.db.fetchone(
                "SELECT list(first_row ORDER BY rowid), list(row_count ORDER BY rowid), list(p_start ORDER BY rowid), "
                "bool_and(score = (rowid - $base) // $G * $unit AND opponent = (rowid - $base) % $G * $unit "
                "AND p_start IS NOT NULL AND first_row IS NOT NULL AND row_count IS NOT NULL), count(*) "
                "FROM ten_thousand_duel_bounds WHERE rowid BETWEEN $base AND $base + $G * $G - 1",
                dict(base=lay.base, G=G, unit=unit))
            if fits and rows == G * G:
                return array("q", first_rows), array("q", counts), array("d", p_starts)
            return None
        rows = self.db.fetchall(
            "SELECT score, opponent, first_row, row_count, p_start FROM ten_thousand_duel_bounds "
            "WHERE rules = ? AND goal = ? ORDER BY score, opponent", (rules, goal))
        if len(rows) == G * G and all((s, o) == pair_at(unit, G, n) and p is not None
                                      for n, (s, o, _first, _count, p) in enumerate(rows)):
            return (array("q", [row[2] for row in rows]), array("q", [row[3] for row in rows]),
                    array("d", [row[4] for row in rows]))
        return None

    def bounds_rows(self, rules: str, goal: int, score: int, opponents: tuple[int, int],
                    pair: tuple[int, int] | None = None):
        """{opponent: turn-start p_win} of ``score`` for opponents ``opponents[0]``..``opponents[1]``,
        and (first_row, row_count) of ``pair`` in ten_thousand_duel: from the bounds block in memory
        (either store), else on DuckDB by position in one read; None when neither can answer (SQLite
        before the block is read, or a layout that is not the build's)."""
        unit = self.q._shape(rules)[0]
        G = goal // unit
        if not 0 <= opponents[0] <= opponents[1] < G * unit:  # not one range of this score's row
            return None
        block = self.bounds_block(rules, goal)
        if block is not None:  # no query
            first_rows, counts, p_starts = block
            row0 = pair_position(unit, G, score, 0)
            starts = {o: p_starts[row0 + o // unit] for o in range(opponents[0], opponents[1] + 1, unit)}
            if pair is None:
                return starts, None
            at = pair_position(unit, G, *pair)
            return starts, (first_rows[at], counts[at])
        lay = self.found(BOUNDS, rules, goal)
        if lay is None:
            return None
        lo, hi = pair_position(unit, G, score, opponents[0]), pair_position(unit, G, score, opponents[1])
        at = None if pair is None else pair_position(unit, G, *pair)
        where, params = "", ()
        if at is not None and not lo <= at <= hi:  # the pair's own row too
            first, last, where, params = min(lo, at), max(hi, at), "(rowid BETWEEN ? AND ? OR rowid = ?)", (
                lay.base + lo, lay.base + hi, lay.base + at)
        else:
            first, last = lo, hi
        rows = self.blocks.read(BOUNDS, (rules, goal), lay, first, last, "first_row, row_count, p_start",
                                partial(pair_position, unit, G), where=where, params=params,
                                count=hi - lo + 1 + (where != ""))
        if rows is None:
            return None
        starts, found = {}, None
        for position, _s, o, first_row, count, p in rows:
            if lo <= position <= hi:
                starts[o] = p
            if position == at:
                found = (first_row, count)
        return starts, found

    def turn_starts(self, rules: str, goal: int, i: int, opponents: list[int]) -> dict[int, float]:
        """W(i, j) for each opponent score j: turn-start win probabilities."""
        found = self.bounds_rows(rules, goal, i, (min(opponents), max(opponents))) if opponents else ({}, None)
        if found is not None:  # the bounds block in memory, or DuckDB by position
            return {o: found[0][o] for o in opponents if o in found[0]}
        start = self.q._shape(rules)[1]
        if self.db.store == "duckdb":
            # every turn start of score i (one row per opponent, a few hundred): one key range, where
            # an IN list makes DuckDB hash-join a whole row group; remembered per connection
            every = self.db.read(
                "SELECT opponent, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? "
                "AND turn_total = 0 AND dice = ? AND triple = 0", (rules, goal, i, start), by_first)
            return {o: every[o] for o in opponents if o in every}
        marks = ", ".join("?" * len(set(opponents)))
        return self.db.read(  # SQLite: one index seek per opponent
            "SELECT opponent, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? AND score = ? "
            f"AND opponent IN ({marks}) AND turn_total = 0 AND dice = ? AND triple = 0",
            (rules, goal, i, *sorted(set(opponents)), start), by_first)

    # -- a pair's rows of ten_thousand_duel ----------------------------------------------------
    def pair_rows(self, rules: str, goal: int, i: int, j: int, lo: int, hi: int,
                  where: tuple[int, int] | None) -> dict[tuple[int, int, int], float]:
        """{(turn_total, dice, triple): p_win} of the stored states of pair (i, j) with turn totals
        lo..hi: from the held block (:meth:`hold`), by position (``where`` = the pair's (first_row,
        row_count)) or by key filter."""
        held = self.blocks.held(DUEL, (rules, goal))
        if held is not None:
            return held.pair_rows(i, j, lo, hi)
        lay = self.found(DUEL, rules, goal) if where is not None else None
        if lay is not None:
            got = self._pair_by_position(lay, i, j, lo, hi, where)
            if got is not None:
                return got
            self.blocks.lose(DUEL, (rules, goal))
        return self.db.read(
            "SELECT turn_total, dice, triple, p_win FROM ten_thousand_duel WHERE rules = ? AND goal = ? "
            "AND score = ? AND opponent = ? AND turn_total BETWEEN ? AND ?", (rules, goal, i, j, lo, hi), by_key3)

    def _pair_by_position(self, lay: Found, i: int, j: int, lo: int, hi: int, where: tuple[int, int]):
        """The rows of :meth:`pair_rows` by position: the pair's rows in lo..hi, and its first and
        last rows and their neighbours (which must belong to other pairs): the rows at these
        positions are the whole pair.  Up to WHOLE_PAIR_ROWS rows the whole range is read: DuckDB
        scans the row group either way, and a filter that keeps the ends costs more than the rows
        it drops.  None: the rows are not the pair's."""
        first_row, count = where
        a = lay.base + first_row
        b = a + count - 1
        if count <= WHOLE_PAIR_ROWS:
            rows = self.db.read(self.db.prepared(PAIR_ROWS_SQL, a - 1, b + 1))
            mine = [row for row in rows if row[1] == i and row[2] == j]
            # count rows of the pair, none at a - 1 or b + 1: rowids are unique, so they are a..b
            if count > 0 and len(mine) == count and all(a <= row[0] <= b for row in mine):
                return {(k, d, t): p for _rowid, _s, _o, k, d, t, p in mine if lo <= k <= hi}
            return None
        rows = self.db.read(
            "SELECT rowid, score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
            "WHERE rowid BETWEEN ? AND ? AND (turn_total BETWEEN ? AND ? OR rowid <= ? OR rowid >= ?)",
            (a - 1, b + 1, lo, hi, a, b))
        out, ends = {}, 0
        for rowid, s, o, k, d, t, p in rows:
            mine = s == i and o == j
            if rowid in (a - 1, b + 1) and mine or a <= rowid <= b and not mine:
                return None
            ends += rowid in (a, b)
            if mine and lo <= k <= hi:
                out[(k, d, t)] = p
        return out if count > 0 and ends == (1 if a == b else 2) else None

    # -- the last turn: ten_thousand_exceed ----------------------------------------------------
    def exceed(self, rules: str, lo: int, hi: int, n: int | None = None, t: int | None = None) -> dict:
        """(need, dice, triple) -> optimal P_exceed for needs lo..hi (one class, or all)."""
        return self._need_grid(EXCEED, (rules, "optimal"), "p_exceed", lo, hi, n, t)

    def last_turn(self, rules: str, lo: int, hi: int, n: int | None = None, t: int | None = None) -> dict:
        """(need, dice, triple) -> the tie-aware last-turn value of ten_thousand_last_turn (issue 24: rule sets
        whose last-turn ties are shared) for needs lo..hi (one class, or all)."""
        return self._need_grid(LAST_TURN, (rules,), "p_win", lo, hi, n, t)

    def _need_grid(self, table, block: tuple, column: str, lo: int, hi: int, n: int | None, t: int | None) -> dict:
        """A dense grid by need (ten_thousand_exceed, ten_thousand_last_turn): by position where laid out as the
        build writes it, else by key filters."""
        rules = block[0]
        lay = self.found(table, *block)
        if lay is not None:
            unit, first_step, classes = lay.shape
            S = len(classes)
            top = lay.size // S * unit  # the largest stored need
            first, last = max(lo, unit), min(hi, top)
            if first > last:
                return {}
            a, b = (first // unit - 1) * S, (last // unit) * S - 1
            where, params = ("dice = ? AND triple = ?", (n, t)) if n is not None else ("", ())
            got = self.blocks.read(table, block, lay, a, b, column,
                                   partial(grid_position, unit, first_step, classes), where=where, params=params,
                                   count=(last - first) // unit + 1 if n is not None else None, into=_grid_rows)
            if got is not None:
                return got
        policy = " AND policy = 'optimal'" if table is EXCEED else ""
        sql = f"SELECT need, dice, triple, {column} FROM {table.name} WHERE rules = ?{policy} AND need BETWEEN ? AND ?"
        params = (rules, lo, hi)
        if n is not None:
            sql, params = sql + " AND dice = ? AND triple = ?", (*params, n, t)
        return self.db.read(sql, params, by_key3)

    def exceed_start(self, rules: str, lo: int, hi: int) -> dict:
        """(need, all dice, 0) -> optimal P_exceed for needs lo..hi: what a bank at or past the goal
        leaves the opponent.  DuckDB reads the whole column once per connection (1,680 rows at goal
        10,000; remembered); SQLite the needs asked the first time, then the whole column.  Under
        last_round = first_to_goal_wins (issue 24) a bank at the goal wins at once: the opponent has no last
        turn, so none (every such bank is worth 1 - 0, as the solver takes it)."""
        rs = self.q._rule_set(rules)
        if rs.last_round == "first_to_goal_wins":
            return {}
        unit, start = self.q._shape(rules)
        if rs.last_round == "others_one_turn_ties_shared":
            # ties shared (issue 24): a lead at least the bank minimum can be tied, worth ten_thousand_last_turn at
            # need = lead + unit (> the bank minimum); a smaller lead needs the bank minimum (need = bank minimum,
            # Lookahead._last_need), which passes the leader: ten_thousand_exceed.  Both columns whole, once
            if rules not in self._exceed_columns:
                bm = rs.bank_minimum
                self._exceed_columns[rules] = {
                    **(self.exceed(rules, unit, bm, start, 0) if bm else {}),
                    **{key: p for key, p in self.last_turn(rules, unit, MAX_NEED, start, 0).items() if key[0] > bm}}
            return self._exceed_columns[rules]
        lay = self.found(EXCEED, rules, "optimal")
        if lay is None:
            if sum(n for (r, _goal), n in self._bounds_asks.items() if r == rules) < 2:  # see asked
                return self.exceed(rules, lo, hi, start, 0)
            # from a connection's second two-player lookup: the whole column, kept with the bounds
            # block (not only in the read memo, which a full memo drops: reading it again scans
            # every need of the rule set, about 4 ms on SQLite)
            if rules not in self._exceed_columns:
                self._exceed_columns[rules] = self.exceed(rules, 0, MAX_NEED, start, 0)
            return self._exceed_columns[rules]
        if rules not in self._exceed_columns:  # DuckDB: one rowid range, read whole the first time
            self._exceed_columns[rules] = self.exceed(rules, unit, lay.size // len(lay.shape[2]) * unit, start, 0)
        return self._exceed_columns[rules]

    # -- the solitaire turn: ten_thousand_solitaire ----------------------------------------------
    def solitaire(self, rules: str, lo: int, hi: int) -> dict:
        """{(turn_total, dice, triple): (value, action)} of the stored solitaire states with turn
        totals lo..hi (past the stored bound none: banking is optimal there)."""
        lay = self.found(SOLITAIRE, rules)
        if lay is not None:
            unit, first_step, classes = lay.shape
            L = len(classes)
            top = (lay.size // L - 1) * unit  # the stored bound
            self._solitaire_asks[rules] = asks = self._solitaire_asks.get(rules, 0) + 1
            if lo > top:
                return {}
            if rules in self._solitaire_blocks:  # held whole: no query
                return self._solitaire_blocks[rules]
            a, b = (lo // unit) * L, (min(hi, top) // unit + 1) * L - 1
            whole = asks >= 2  # a connection that asks again reads the whole block once (13,890
            if whole:  # rows at goal 10,000, a few ms) and keeps it as a dict, not in the read memo
                a, b = 0, lay.size - 1
            got = self.blocks.read(SOLITAIRE, (rules,), lay, a, b, "value, action",
                                   partial(grid_position, unit, first_step, classes), remember=not whole,
                                   into=lambda rows: {(kk, d, c): (float(v), act) for _at, kk, d, c, v, act in rows})
            if got is not None:
                if whole:
                    self._solitaire_blocks[rules] = got
                return got
        rows = self.db.read(
            "SELECT turn_total, dice, triple, value, action FROM ten_thousand_solitaire WHERE rules = ? "
            "AND turn_total BETWEEN ? AND ?", (rules, lo, hi))
        return {(int(kk), int(d), int(c)): (float(v), a) for kk, d, c, v, a in rows}

    # -- keeps of a class ------------------------------------------------------------------------
    def class_rows(self, columns: str, rules: str, n: int, t: int) -> list[tuple]:
        """Every row of (rules, n dice, triple t) of ten_thousand_keeps: one position range (DuckDB)
        or a key filter, ``columns`` after the (dice, triple) checked."""
        lay = self.found(KEEPS, rules)
        run = None if lay is None else lay.runs.get((n, t))
        if run is not None:
            rows = self.db.read(f"SELECT dice, triple, {columns} FROM {KEEPS.name} WHERE rowid BETWEEN ? AND ?", run)
            if len(rows) == run[1] - run[0] + 1 and all(d == n and c == t for d, c, *_ in rows):
                return [row[2:] for row in rows]
            self.blocks.lose(KEEPS, (rules,))
        elif lay is not None and (n, t) in self.q.classes(rules):  # a class's rows not in one run
            self.blocks.lose(KEEPS, (rules,))
        return [row[2:] for row in self.db.read(
            f"SELECT dice, triple, {columns} FROM {KEEPS.name} WHERE rules = ? AND dice = ? AND triple = ?", (rules, n, t))]

    # -- holding the two-player table ------------------------------------------------------------
    def hold(self, rules: str, goal: int, stop) -> None:
        """Hold the (rules, goal) block of ten_thousand_duel in memory (dicebase/query/ten_thousand/held.py),
        unless it is not laid out as the build writes it."""
        if self.blocks.held(DUEL, (rules, goal)) is not None:
            return
        lay = self.found(DUEL, rules, goal)
        bounds = self.read_bounds_block(rules, goal) if lay is not None else None
        if lay is None or bounds is None:
            return  # not laid out as the build writes it: the lookups read it as before
        from dicebase.query.ten_thousand import held

        unit = self.q._shape(rules)[0]
        self.blocks.hold(DUEL, (rules, goal), lambda: held.load(self.db.fetch_arrays, lay.base, lay.size, unit,
                                                                  goal // unit, bounds, stop=stop or (lambda: False)))
