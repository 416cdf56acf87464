"""Copy an open database into another store, or into Parquet/CSV files.

Rows are streamed in chunks of numpy columns through the same bulk writers
the build uses, so an exported SQLite file has the identical schema, views
and metadata of a SQLite build.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Iterator

import numpy as np

from dicebase.builder.store import Writer
from dicebase.query.base import BadInput, clip
from dicebase.schema import CORE, game_tables, game_views

CHUNK_ROWS = 1_000_000


def _chunks(db, table: str, names: list[str]) -> Iterator[dict[str, np.ndarray]]:
    """The table's rows as chunks of numpy columns, streamed."""
    cols = ", ".join(names)
    if db.store == "duckdb":
        (n,) = db.fetchone(f"SELECT count(*) FROM {table}")
        for start in range(0, n, CHUNK_ROWS):
            data = db.execute(
                f"SELECT {cols} FROM {table} WHERE rowid >= ? AND rowid < ?", (start, start + CHUNK_ROWS)
            ).fetchnumpy()
            yield {name: np.asarray(data[name]) for name in names}
        return
    cur = db.execute(f"SELECT {cols} FROM {table}")
    while True:
        rows = cur.fetchmany(CHUNK_ROWS // 4)
        if not rows:
            return
        yield {
            name: np.array(values, dtype=object if isinstance(values[0], str) else None)
            for name, values in zip(names, zip(*rows))
        }


def _tables_in(db) -> list:
    tables = list(game_tables(CORE))
    for game in db.games():
        tables.extend(game_tables(game))
    return tables


def _is_previous_export(path: Path) -> bool:
    """A directory holding nothing but .parquet/.csv files: safe to replace with --force."""
    return path.is_dir() and all(p.is_file() and p.suffix in (".parquet", ".csv") for p in path.iterdir())


def _check_target(db, fmt: str, out_path: Path, force: bool) -> None:
    if out_path.resolve() == db.location.path.resolve():
        raise BadInput(f"{out_path} is the database being exported; choose another --out")
    if not out_path.exists():
        return
    if not force:
        raise BadInput(f"{out_path} exists; choose another --out or pass --force to replace it")
    if fmt in ("sqlite", "duckdb") and not out_path.is_file():
        raise BadInput(f"{out_path} is a directory; --format {fmt} writes one file")
    if fmt in ("parquet", "csv") and not _is_previous_export(out_path):
        raise BadInput(
            f"{out_path} is not a directory of .parquet/.csv files from an earlier export; refusing to replace it"
        )


def export(db, fmt: str, out: str | os.PathLike, *, force: bool = False, quiet: bool = True) -> list[str]:
    """Export every table of ``db``; returns the table names written.

    Output appears only when complete: a file is renamed into place, a
    directory swapped in, so an interrupted export leaves the old output.
    The export holds ``<out>.lock`` as a build does, and removes what an
    interrupted export or build of the same output left behind.  Raises
    BadInput for a bad request and WriteFailed when the output cannot be written.
    """
    from dicebase.builder.pipeline import _write_error, remove_leftovers, target_lock

    if fmt not in ("sqlite", "duckdb", "parquet", "csv"):
        raise BadInput(f"unknown export format {clip(fmt)}; use sqlite, duckdb, parquet or csv")
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out) or "\x00" in os.fspath(out):
        raise BadInput(f"--out must be a file or directory path, got {clip(out)}")
    out_path = Path(out)
    try:
        _check_target(db, fmt, out_path, force)
        out_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(exc, out_path) from None
    tables = _tables_in(db)
    with target_lock(out_path, quiet=quiet):
        remove_leftovers(out_path)
        _export_locked(db, fmt, out_path, tables, quiet)
    return [t.name for t in tables]


def _export_locked(db, fmt: str, out_path: Path, tables: list, quiet: bool) -> None:
    from dicebase.builder.pipeline import _is_engine_io_error, _write_error

    temp = out_path.with_name(f"{out_path.name}.tmp-{os.getpid()}")
    progress = _progress(tables, fmt, quiet)
    try:
        try:
            if fmt in ("sqlite", "duckdb"):
                _export_store(db, fmt, temp, progress)
                os.replace(temp, out_path)
            else:
                _export_files(db, fmt, temp, progress)
                old = out_path.with_name(f"{out_path.name}.old-{os.getpid()}")
                if out_path.exists():
                    os.replace(out_path, old)
                os.replace(temp, out_path)
                shutil.rmtree(old, ignore_errors=True)
        except (OSError, sqlite3.Error) as exc:
            raise _write_error(exc, out_path) from None
        except Exception as exc:
            if not _is_engine_io_error(exc):
                raise
            raise _write_error(exc, out_path) from None
    finally:
        try:
            if temp.is_dir():
                shutil.rmtree(temp, ignore_errors=True)
            else:
                temp.unlink(missing_ok=True)
            temp.with_name(temp.name + ".wal").unlink(missing_ok=True)
        except OSError:
            pass


def _progress(tables: list, fmt: str, quiet: bool):
    if quiet:
        return tables
    import click

    return click.progressbar(tables, label=f"exporting to {fmt}", file=sys.stderr, item_show_func=lambda t: t.name if t else "")


def _iterate(progress):
    if hasattr(progress, "__enter__"):
        with progress as items:
            yield from items
    else:
        yield from progress


def _export_store(db, fmt: str, temp: Path, progress) -> None:
    writer = Writer(temp, fmt)
    try:
        for t in _iterate(progress):
            writer.create_table(t)
            names = [c.name for c in t.columns]
            for chunk in _chunks(db, t.name, names):
                writer.append(t.name, chunk)
        for game in db.games():
            for view in game_views(game):
                writer.create_view(view)
        writer.execute("UPDATE build_info SET value = ? WHERE key = 'store'", (fmt,))
        writer.close()
    except BaseException:
        writer.abort()
        raise


def _export_files(db, fmt: str, temp: Path, progress) -> None:
    import duckdb

    from dicebase.schema import create_table_sql

    temp.mkdir()
    for t in _iterate(progress):
        names = [c.name for c in t.columns]
        scratch = duckdb.connect()
        try:
            scratch.execute(create_table_sql(t, key_constraint=False))
            for chunk in _chunks(db, t.name, names):
                scratch.register("_chunk", chunk)
                scratch.execute(f"INSERT INTO {t.name} SELECT {', '.join(names)} FROM _chunk")
                scratch.unregister("_chunk")
            target = (temp / f"{t.name}.{fmt}").as_posix().replace("'", "''")
            option = "FORMAT PARQUET" if fmt == "parquet" else "FORMAT CSV, HEADER"
            scratch.execute(f"COPY {t.name} TO '{target}' ({option})")
        finally:
            scratch.close()
