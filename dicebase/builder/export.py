"""Copy an open database into another store, into Parquet/CSV files, or into a Datasette site.

- DuckDB to DuckDB is DuckDB's own ``COPY FROM DATABASE`` (tables, keys,
  views and comments), in the storage version asked for.
- Between the two engines rows stream in chunks of numpy columns through
  the bulk writers the build uses, so an exported SQLite file has the
  identical schema, views and metadata of a SQLite build.
- Parquet and CSV are DuckDB's own ``COPY (SELECT ...) TO``, one file per
  table and per view (views materialised), every column cast to the type
  the schema declares.  Parquet files carry the descriptions in their
  key-value metadata; CSV comes with a CSVW ``csv-metadata.json`` giving
  every column's type and description.
- Datasette: a SQLite copy plus ``metadata.json`` (dicebase.builder.datasette).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from dicebase.builder.store import Writer, check_storage_version, sql_literal
from dicebase.errors import BadInput, clip, damaged, kind, one_line, shorten
from dicebase.schema import CORE, catalogue, game_tables, game_views

CHUNK_ROWS = 1_000_000
FORMATS = ("sqlite", "duckdb", "parquet", "csv", "datasette")
CSV_METADATA = "csv-metadata.json"

# CSVW (https://www.w3.org/TR/tabular-data-primer/) datatypes of the SQL types the schema uses
CSVW_TYPES = {"VARCHAR": "string", "SMALLINT": "short", "INTEGER": "int", "BIGINT": "long",
              "DOUBLE": "double", "BOOLEAN": "boolean"}


@dataclass(frozen=True)
class Relation:
    """A table or view as exported: its columns (name, SQL type, description, key, required)."""

    name: str
    kind: str  # "table" or "view"
    game: str
    description: str
    columns: list[tuple[str, str, str, bool, bool]]

    @property
    def key(self) -> list[str]:
        return [name for name, _type, _text, is_key, _required in self.columns if is_key]


def relations(games: list[str]) -> list[Relation]:
    """Every table and view of the core metadata and ``games``, from the schema catalogue."""
    table_rows, column_rows = catalogue(games)
    required = {
        (t.name, c.name): not c.nullable for game in [CORE, *games] for t in game_tables(game) for c in t.columns
    }
    columns: dict[str, list] = {}
    for table_name, _pos, name, data_type, is_key, text in column_rows:
        columns.setdefault(table_name, []).append(
            (name, data_type, text, bool(is_key), required.get((table_name, name), False))
        )
    return [Relation(name, kind, game, text, columns[name]) for name, kind, game, text in table_rows]


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


EXPORT_SUFFIXES = (".parquet", ".csv", ".json", ".sqlite")


def _is_previous_export(path: Path) -> bool:
    """A directory holding nothing but files an export writes (.parquet/.csv/.json/.sqlite): safe to replace with --force."""
    return path.is_dir() and all(p.is_file() and p.suffix in EXPORT_SUFFIXES for p in path.iterdir())


def _check_target(db, fmt: str, out_path: Path, force: bool) -> None:
    if out_path.resolve() == db.location.path.resolve():
        raise BadInput(f"{out_path} is the database being exported; choose another --out")
    if not out_path.exists():
        return
    if not force:
        raise BadInput(f"{out_path} exists; choose another --out or pass --force to replace it")
    if fmt in ("sqlite", "duckdb") and not out_path.is_file():
        raise BadInput(f"{out_path} is a directory; --format {fmt} writes one file")
    if fmt not in ("sqlite", "duckdb") and not _is_previous_export(out_path):
        raise BadInput(
            f"{out_path} is not a directory of files from an earlier dicebase export; refusing to replace it"
        )


def export(
    db,
    fmt: str,
    out: str | os.PathLike,
    *,
    force: bool = False,
    quiet: bool = True,
    storage_version: str | None = None,
) -> list[str]:
    """Export every table and view of ``db``; returns their names.

    Output appears only when complete: a file is renamed into place, a
    directory swapped in, so an interrupted export leaves the old output.
    The export holds ``<out>.lock`` as a build does, and removes what an
    interrupted export or build of the same output left behind.
    ``storage_version`` is the DuckDB storage format of a ``duckdb`` export
    (default: the build's, readable by DuckDB 1.1 and later).  Raises
    BadInput for a bad request and WriteFailed when the output cannot be written.
    """
    from dicebase.builder.target import make_parent, real_path, remove_leftovers, target_lock, write_error

    if fmt not in FORMATS:
        raise BadInput(f"unknown export format {clip(fmt)}; use {', '.join(FORMATS)}")
    if storage_version is not None:
        if fmt != "duckdb":
            raise BadInput("--storage-version applies to --format duckdb only")
        try:
            check_storage_version(storage_version)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out) or "\x00" in os.fspath(out):
        raise BadInput(f"--out must be a file or directory path, got {clip(out)}")
    out_path = real_path(Path(out))  # through a symbolic link: replace what it points to, keep the link
    try:
        _check_target(db, fmt, out_path, force)
    except OSError as exc:
        raise write_error(exc, out_path) from None
    make_parent(out_path)
    games = db.games()
    rels = relations(games)
    with target_lock(out_path, quiet=quiet):
        remove_leftovers(out_path)
        _export_locked(db, fmt, out_path, games, rels, quiet, storage_version)
    return [r.name for r in rels]


def _export_locked(db, fmt: str, out_path: Path, games: list[str], rels: list, quiet: bool,
                   storage_version: str | None) -> None:
    from dicebase.builder.target import is_engine_io_error, write_error

    temp = out_path.with_name(f"{out_path.name}.tmp-{os.getpid()}")
    try:
        try:
            if fmt in ("sqlite", "duckdb"):
                _export_store(db, fmt, temp, _progress(_tables_in(db), fmt, quiet), storage_version)
                os.replace(temp, out_path)
            else:
                temp.mkdir()
                if fmt == "datasette":
                    from dicebase.builder.datasette import write_metadata

                    _export_store(db, "sqlite", temp / "dicebase.sqlite", _progress(_tables_in(db), fmt, quiet), None)
                    write_metadata(temp / "metadata.json", rels, games)
                else:
                    _export_files(db, fmt, temp, rels, _progress(rels, fmt, quiet))
                old = out_path.with_name(f"{out_path.name}.old-{os.getpid()}")
                if out_path.exists():
                    os.replace(out_path, old)
                os.replace(temp, out_path)
                shutil.rmtree(old, ignore_errors=True)
        except Exception as exc:
            if _source_damaged(exc):  # a read of the database, not a write, failed: say so
                raise damaged(db.location, shorten(one_line(exc), 160), db.games()) from None
            if isinstance(exc, (OSError, sqlite3.Error)) or is_engine_io_error(exc):
                raise write_error(exc, out_path) from None
            raise
    finally:
        try:
            if temp.is_dir():
                shutil.rmtree(temp, ignore_errors=True)
            else:
                temp.unlink(missing_ok=True)
                temp.with_name(temp.name + ".wal").unlink(missing_ok=True)
        except OSError:
            pass


def _source_damaged(exc: BaseException) -> bool:
    """An engine error saying the database being read is corrupt (the file being written is new
    and ours: a checksum or malformed-page error comes from the source)."""
    return kind(exc) == "damaged"


def _progress(items: list, fmt: str, quiet: bool):
    if quiet:
        return items
    import click

    return click.progressbar(items, label=f"exporting to {fmt}", file=sys.stderr, item_show_func=lambda t: t.name if t else "")


def _iterate(progress):
    if hasattr(progress, "__enter__"):
        with progress as items:
            yield from items
    else:
        yield from progress


def _export_store(db, fmt: str, temp: Path, progress, storage_version: str | None) -> None:
    """One database file of store ``fmt``: same tables, views, metadata; comments in DuckDB."""
    if fmt == "duckdb" and db.store == "duckdb":
        # DuckDB's own copy: tables, keys, views and comments, in the chosen storage format
        writer = Writer(temp, fmt, storage_version=storage_version, copy_from=db.location.path)
        list(_iterate(progress))
    else:
        writer = Writer(temp, fmt, storage_version=storage_version)
    try:
        if not (fmt == "duckdb" and db.store == "duckdb"):
            for t in _iterate(progress):
                writer.create_table(t)
                names = [c.name for c in t.columns]
                for chunk in _chunks(db, t.name, names):
                    writer.append(t.name, chunk)
            for game in db.games():
                for view in game_views(game):
                    writer.create_view(view)
        games = db.games()
        writer.describe(_tables_in(db), [v for g in games for v in game_views(g)])
        writer.execute("UPDATE build_info SET value = ? WHERE key = 'store'", (fmt,))
        writer.execute("DELETE FROM build_info WHERE key = 'duckdb_storage_version'")
        if fmt == "duckdb":
            writer.insert_rows("build_info", ["key", "value"], [("duckdb_storage_version", writer.storage_version)])
        writer.close()
    except BaseException:
        writer.abort()
        raise


def _duckdb_source(db, workdir: Path):
    """An in-memory DuckDB connection with the database attached read-only as ``src``.

    A SQLite database is first copied into a DuckDB file in ``workdir``
    (DuckDB reads SQLite only through an extension it would download).
    """
    import duckdb

    path = db.location.path
    if db.store == "sqlite":
        path = workdir / "source.duckdb"
        _export_store(db, "duckdb", path, _tables_in(db), None)
    con = duckdb.connect(config={"temp_directory": str(workdir / "spill")})
    con.execute(f"ATTACH {sql_literal(path)} AS src (READ_ONLY)")
    return con, (path if db.store == "sqlite" else None)


def _select(rel: Relation) -> str:
    """SELECT every column of ``rel`` cast to its declared type (views' computed columns included).

    Tables keep their stored (key) order; a view's rows are sorted by all its
    columns, so the same database always exports the same files."""
    cols = ", ".join(f"CAST({name} AS {data_type}) AS {name}" for name, data_type, _t, _k, _r in rel.columns)
    order = " ORDER BY ALL" if rel.kind == "view" else ""
    return f"SELECT {cols} FROM src.{rel.name}{order}"


def parquet_metadata(rel: Relation) -> dict[str, str]:
    """The key-value metadata of a relation's Parquet file.

    ``description`` is the table's; ``dicebase.columns`` a JSON list of
    {name, type, description, key} (DuckDB's COPY writes file metadata, not
    per-field metadata).
    """
    return {
        "description": rel.description,
        "dicebase.name": rel.name,
        "dicebase.kind": rel.kind,
        "dicebase.game": rel.game,
        "dicebase.columns": json.dumps(
            [{"name": n, "type": t, "description": d, "key": k} for n, t, d, k, _r in rel.columns]
        ),
    }


def _export_files(db, fmt: str, temp: Path, rels: list[Relation], progress) -> None:
    scratch = temp.with_name(temp.name + ".src")
    scratch.mkdir()
    con = None
    try:
        con, _ = _duckdb_source(db, scratch)
        for rel in _iterate(progress):
            target = sql_literal((temp / f"{rel.name}.{fmt}").as_posix())
            if fmt == "parquet":
                kv = ", ".join(f"{sql_literal(k)}: {sql_literal(v)}" for k, v in parquet_metadata(rel).items())
                options = f"FORMAT parquet, KV_METADATA {{{kv}}}"
            else:
                options = "FORMAT csv, HEADER true"
            con.execute(f"COPY ({_select(rel)}) TO {target} ({options})")
    finally:
        if con is not None:
            con.close()
        shutil.rmtree(scratch, ignore_errors=True)
    if fmt == "csv":
        from dicebase.builder.target import write_fully

        write_fully(temp / CSV_METADATA, json.dumps(csvw(rels), indent=2) + "\n")


def csvw(rels: list[Relation]) -> dict:
    """CSV on the Web metadata: each file's columns with datatype, description, and the primary key."""
    from dicebase.version import __version__

    return {
        "@context": "http://www.w3.org/ns/csvw",
        "dc:title": "dicebase",
        "dc:description": f"dicebase {__version__}: solved push-your-luck dice games, one CSV per table and view",
        "tables": [
            {
                "url": f"{rel.name}.csv",
                "dc:title": rel.name,
                "dc:description": rel.description,
                "dc:type": rel.kind,
                "tableSchema": {
                    "columns": [
                        {
                            "name": name,
                            "titles": name,
                            "datatype": CSVW_TYPES[data_type],
                            "required": required,
                            "dc:description": text,
                        }
                        for name, data_type, text, _key, required in rel.columns
                    ],
                    **({"primaryKey": rel.key} if rel.key else {}),
                },
            }
            for rel in rels
        ],
    }
