"""Copy an open database into another store, or into Parquet/CSV files.

Rows are streamed in chunks of numpy columns through the same bulk writers
the build uses, so an exported SQLite file has the identical schema, views
and metadata of a SQLite build.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterator

import numpy as np

from dicebase.builder.store import Writer
from dicebase.query.base import BadInput
from dicebase.schema import CORE, game_tables, game_views

CHUNK_ROWS = 1_000_000


def _chunks(db, table: str, names: list[str]) -> Iterator[dict[str, np.ndarray]]:
    cols = ", ".join(names)
    if db.store == "duckdb":
        (n,) = db.fetchone(f"SELECT count(*) FROM {table}")
        for start in range(0, n, CHUNK_ROWS):
            data = db._con.execute(
                f"SELECT {cols} FROM {table} WHERE rowid >= ? AND rowid < ?", (start, start + CHUNK_ROWS)
            ).fetchnumpy()
            yield {name: np.asarray(data[name]) for name in names}
    else:
        cur = db._con.execute(f"SELECT {cols} FROM {table}")
        while True:
            rows = cur.fetchmany(CHUNK_ROWS // 4)
            if not rows:
                return
            yield {name: np.array(values, dtype=object if isinstance(values[0], str) else None)
                   for name, values in zip(names, zip(*rows))}


def _tables_in(db) -> list:
    games = db.games()
    tables = list(game_tables(CORE))
    for game in games:
        tables.extend(game_tables(game))
    return tables


def export(db, fmt: str, out: str | os.PathLike, *, force: bool = False) -> list[str]:
    """Export every table of ``db``; returns the table names written."""
    out_path = Path(out)
    if out_path.exists() and not force:
        raise BadInput(f"{out_path} exists; choose another --out or pass --force")
    tables = _tables_in(db)
    if fmt in ("sqlite", "duckdb"):
        out_path.parent.mkdir(parents=True, exist_ok=True)
        temp = out_path.with_name(out_path.name + f".tmp-{os.getpid()}")
        writer = Writer(temp, fmt)
        try:
            for t in tables:
                writer.create_table(t)
                names = [c.name for c in t.columns]
                for chunk in _chunks(db, t.name, names):
                    writer.append(t.name, chunk)
            for game in db.games():
                for view in game_views(game):
                    writer.create_view(view)
            writer.close()
            writer = None
            os.replace(temp, out_path)
        finally:
            if writer is not None:
                writer.abort()
            temp.unlink(missing_ok=True)
        return [t.name for t in tables]
    if fmt not in ("parquet", "csv"):
        raise BadInput(f"unknown export format {fmt!r}; use sqlite, duckdb, parquet or csv")
    import duckdb

    if out_path.exists():
        shutil.rmtree(out_path) if out_path.is_dir() else out_path.unlink()
    out_path.mkdir(parents=True)
    for t in tables:
        names = [c.name for c in t.columns]
        scratch = duckdb.connect()
        scratch.execute(_scratch_ddl(t))
        for chunk in _chunks(db, t.name, names):
            scratch.register("_chunk", chunk)
            scratch.execute(f"INSERT INTO {t.name} SELECT {', '.join(names)} FROM _chunk")
            scratch.unregister("_chunk")
        target = (out_path / f"{t.name}.{fmt}").as_posix().replace("'", "''")
        option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
        scratch.execute(f"COPY {t.name} TO '{target}' ({option})")
        scratch.close()
    return [t.name for t in tables]


def _scratch_ddl(table) -> str:
    from dicebase.schema import create_table_sql

    return create_table_sql(table)
