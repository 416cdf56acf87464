"""The metadata a build writes beside the games' tables: the catalogue of every table, view
and column (``schema_tables``, ``schema_columns``), the facts of the build (``build_info``) and,
last, the checksums of those tables and of every view (``record_checksums``)."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone

import numpy as np

from dicebase.builder.store import Writer
from dicebase.location import Location
from dicebase.schema import CORE, DIALECT, catalogue, game_tables, game_views
from dicebase import version


def column_spec(table) -> list[tuple[str, str, bool]]:
    """(name, SQL type as in schema_columns, is_key) per column, in schema order."""
    return [(c.name, c.type.compile(dialect=DIALECT), bool(c.primary_key)) for c in table.columns]


def write_catalogue(writer: Writer, games: list[str]) -> None:
    """Rewrite the catalogue rows of core and ``games`` (rows of games this version does
    not know, kept from the file, stay as they were); in DuckDB also COMMENT ON every
    table, view and column."""
    table_rows, column_rows = catalogue(games)
    rewritten = [CORE, *games]
    marks = ", ".join("?" for _ in rewritten)
    writer.execute(
        f"DELETE FROM schema_columns WHERE table_name IN (SELECT name FROM schema_tables WHERE game IN ({marks}))",
        rewritten,
    )
    writer.execute(f"DELETE FROM schema_tables WHERE game IN ({marks})", rewritten)
    writer.insert_rows("schema_tables", ["name", "kind", "game", "description"], table_rows)
    writer.insert_rows(
        "schema_columns",
        ["table_name", "position", "column_name", "data_type", "is_key", "description"],
        column_rows,
    )
    writer.describe(
        [t for game in [CORE, *games] for t in game_tables(game)],
        [v for game in games for v in game_views(game)],
    )


def write_build_info(
    writer: Writer, loc: Location, seconds: float, storage_version: str | None, threads: int
) -> None:
    import duckdb
    import sqlalchemy

    games = [g for (g,) in writer.execute("SELECT game FROM build_games ORDER BY game")]
    facts = {
        "package_version": version.__version__,
        "schema_version": str(version.SCHEMA_VERSION),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "store": loc.store,
        "games": ",".join(games),
        "last_build_seconds": f"{seconds:.3f}",
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "duckdb_version": duckdb.__version__,
        "sqlalchemy_version": sqlalchemy.__version__,
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "threads": str(threads),  # solver threads of the last build (answers do not depend on it)
    }
    if loc.store == "duckdb":
        facts["duckdb_storage_version"] = storage_version
    writer.execute("DELETE FROM build_info")
    writer.insert_rows("build_info", ["key", "value"], sorted(facts.items()))
    record_checksums(writer)


def record_checksums(writer: Writer) -> None:
    """The last rows of a build: the checksums of the metadata tables and of every view's
    definition, as ``checksum:...`` rows of build_info (``dicebase.checksum``; the game tables'
    are in build_tables); ``dicebase verify`` compares them."""
    from dicebase.checksum import CHECKSUM_PREFIX, METADATA_TABLES, file_checksums

    writer.execute(f"DELETE FROM build_info WHERE key LIKE '{CHECKSUM_PREFIX}%'")
    tables = {t.name: column_spec(t) for t in game_tables(CORE)}
    rows = file_checksums(writer.con, writer.store, {name: tables[name] for name in METADATA_TABLES})
    writer.insert_rows("build_info", ["key", "value"], sorted(rows.items()))
