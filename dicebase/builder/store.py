"""Bulk writers for the two stores: numpy columns in, rows out.

DuckDB ingests a dict of numpy arrays directly (a replacement scan over the
registered arrays); SQLite gets ``executemany`` in large batches, all inside
one transaction.  Neither path goes through an ORM or inserts row by row.
"""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import numpy as np
from sqlalchemy import Table

from dicebase.schema import View, create_table_sql, create_view_sql

SQLITE_BATCH = 200_000

DUCKDB_STORAGE_VERSION = "v1.1.0"
"""The DuckDB storage format a build writes unless told otherwise.

DuckDB writes its newest format by default, which older releases refuse
("database file with version number 69, but we can only read versions
between 64 and 68").  ``v1.1.0`` is read by DuckDB 1.1 and every later
release, and holds everything dicebase uses: tables, primary keys, views
and COMMENT ON tables, views and columns (tests/test_other_tools.py opens a
fresh build with duckdb 1.1.3).  ``--storage-version latest`` writes the
newest format instead.
"""


def sql_literal(text: str) -> str:
    """A SQL string literal (for statements that take no parameters: ATTACH, COMMENT ON, COPY)."""
    return "'" + str(text).replace("'", "''") + "'"


def check_storage_version(version: str) -> None:
    """ValueError with one line unless this DuckDB can write storage format ``version``."""
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"ATTACH ':memory:' AS probe (STORAGE_VERSION {sql_literal(version)})")
    except duckdb.Error:
        raise ValueError(
            f"unknown DuckDB storage version {version!r}; give a DuckDB release such as "
            f"{DUCKDB_STORAGE_VERSION} (the default), v1.2.0, or latest"
        ) from None
    finally:
        con.close()


def canonical_column(values):
    """The array as stored: int64, float64, bool or object (Python str); a scalar (one value
    for every row, e.g. a variant's name) stays a Python scalar."""
    if isinstance(values, (str, bool, int, float, np.generic)):
        return values.item() if isinstance(values, np.generic) else values
    values = np.asarray(values)
    kind = values.dtype.kind
    if kind == "b":
        return values.astype(bool, copy=False)
    if kind in "iu":
        return values.astype(np.int64, copy=False)
    if kind == "f":
        return values.astype(np.float64, copy=False)
    if kind in "UO":
        return values.astype(object, copy=False)
    raise TypeError(f"unsupported column dtype {values.dtype}")


class Writer:
    """An open, writable store file.  Use ``close()`` to commit.

    A DuckDB file is written in ``storage_version``'s format (default
    DUCKDB_STORAGE_VERSION); ``copy_from`` starts it as a copy of another
    DuckDB file (DuckDB's COPY FROM DATABASE: tables, keys, views, comments),
    which also converts that file to the chosen format.
    """

    def __init__(self, path: Path, store: str, *, storage_version: str | None = None, copy_from: Path | None = None):
        self.path = Path(path)
        self.store = store
        if store == "duckdb":
            import duckdb

            self.storage_version = storage_version or DUCKDB_STORAGE_VERSION
            # spill beside the target, as a file connection would (an in-memory one spills into ./.tmp)
            self.con = duckdb.connect(config={"temp_directory": f"{self.path}.tmp"})
            self.con.execute(
                f"ATTACH {sql_literal(self.path)} AS target (STORAGE_VERSION {sql_literal(self.storage_version)})"
            )
            self.con.execute("USE target")
            if copy_from is not None:
                self.con.execute(f"ATTACH {sql_literal(copy_from)} AS source (READ_ONLY)")
                self.con.execute("COPY FROM DATABASE source TO target")
                self.con.execute("DETACH source")
        elif store == "sqlite":
            self.con = sqlite3.connect(str(self.path), isolation_level=None)
            # The file is a private temporary until the final rename, so
            # durability inside it buys nothing; the rename is the commit.
            self.con.execute("PRAGMA journal_mode=OFF")
            self.con.execute("PRAGMA synchronous=OFF")
            self.con.execute("BEGIN")
        else:
            raise ValueError(f"unknown store {store!r}")

    # -- schema ---------------------------------------------------------
    def execute(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        cur = self.con.execute(sql, params)
        try:
            return cur.fetchall()
        except Exception:  # statements without a result set
            return []

    def delete(self, sql: str, params: tuple | list = ()) -> int:
        """Run a DELETE statement; the number of rows it removed."""
        cur = self.con.execute(sql, params)
        if self.store == "sqlite":
            return max(cur.rowcount, 0)
        rows = cur.fetchall()
        return int(rows[0][0]) if rows else 0

    def create_table(self, table: Table) -> None:
        indexed = self.store == "sqlite" or table.info.get("key_index", True)
        sql = create_table_sql(table, key_constraint=indexed)
        if self.store == "sqlite" and table.primary_key.columns:
            sql += " WITHOUT ROWID"  # clustered on the key: smaller file, one B-tree probe per lookup
        self.con.execute(sql)

    def create_view(self, view: View) -> None:
        self.con.execute(create_view_sql(view))

    def describe(self, tables: list[Table], views: list[View]) -> None:
        """DuckDB: COMMENT ON every table, view and column, so duckdb_tables(),
        duckdb_views(), duckdb_columns() and DuckDB's UIs show the descriptions.
        (SQLite has no comments; its schema_tables/schema_columns say the same.)"""
        if self.store != "duckdb":
            return
        statements = []
        for t in tables:
            statements.append(f"COMMENT ON TABLE {t.name} IS {sql_literal(t.comment)}")
            for col in t.columns:
                statements.append(f"COMMENT ON COLUMN {t.name}.{col.name} IS {sql_literal(col.comment)}")
        for v in views:
            statements.append(f"COMMENT ON VIEW {v.name} IS {sql_literal(v.comment)}")
            for name, _type, comment in v.columns():
                statements.append(f"COMMENT ON COLUMN {v.name}.{name} IS {sql_literal(comment)}")
        self.con.execute(";\n".join(statements))

    def drop(self, name: str, kind: str) -> None:
        self.con.execute(f"DROP {kind.upper()} IF EXISTS {name}")

    def relations(self) -> dict[str, str]:
        """Existing table and view names mapped to 'table' or 'view'."""
        if self.store == "sqlite":
            rows = self.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
        else:
            rows = self.execute(
                "SELECT table_name, CASE table_type WHEN 'VIEW' THEN 'view' ELSE 'table' END "
                "FROM information_schema.tables WHERE table_catalog = current_database() AND table_schema = 'main'"
            )
        return {name: kind for name, kind in rows}

    # -- data -----------------------------------------------------------
    def append(self, table_name: str, columns: dict) -> int:
        """Bulk-append equal-length numpy columns; returns the row count.

        A column given as a scalar holds that value in every row: it is passed as one
        query parameter, not as millions of Python objects.
        """
        names = list(columns)
        arrays = [n for n in names if isinstance(columns[n], np.ndarray)]
        lengths = {len(columns[n]) for n in arrays}
        if len(lengths) != 1:
            raise ValueError(f"{table_name}: columns of unequal length {sorted(lengths)}, or no array column")
        (n_rows,) = lengths
        if n_rows == 0:
            return 0
        col_list = ", ".join(names)
        if self.store == "duckdb":
            source = {name: columns[name] for name in arrays}
            selected = ", ".join(name if name in source else "?" for name in names)
            constants = [columns[name] for name in names if name not in source]
            self.con.register("_dicebase_source", source)
            try:
                self.con.execute(
                    f"INSERT INTO {table_name} ({col_list}) SELECT {selected} FROM _dicebase_source", constants
                )
            finally:
                self.con.unregister("_dicebase_source")
        else:
            marks = ", ".join("?" for _ in names)
            sql = f"INSERT INTO {table_name} ({col_list}) VALUES ({marks})"
            for start in range(0, n_rows, SQLITE_BATCH):
                stop = min(start + SQLITE_BATCH, n_rows)
                batch = zip(*(
                    columns[name][start:stop].tolist() if name in arrays else itertools.repeat(columns[name], stop - start)
                    for name in names
                ))
                self.con.executemany(sql, batch)
        return n_rows

    def insert_rows(self, table_name: str, names: list[str], rows: list[tuple]) -> None:
        """Insert a few Python rows (build metadata); not for bulk data."""
        if not rows:
            return
        marks = "(" + ", ".join("?" for _ in names) + ")"
        sql = f"INSERT INTO {table_name} ({', '.join(names)}) VALUES "
        if self.store == "duckdb":  # one statement: DuckDB's executemany runs one statement per row
            self.con.execute(sql + ", ".join(marks for _ in rows), [value for row in rows for value in row])
        else:
            self.con.executemany(sql + marks, rows)

    def close(self) -> None:
        if self.store == "sqlite":
            self.con.execute("COMMIT")
        else:
            self.con.execute("CHECKPOINT target")
        self.con.close()

    def abort(self) -> None:
        try:
            self.con.close()
        except Exception:
            pass
