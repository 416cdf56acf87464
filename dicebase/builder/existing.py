"""What the target of a build already holds, read before the build decides what to solve.

The builder reads its own files here, read-only, through the engines themselves (not the
read API of ``dicebase.query``, which sits beside the builder): the games built and with
which options, the DuckDB storage version, and whether a game's tables still match the
checksums its build stored (the formula of ``dicebase.checksum``, over the columns of the
game's schema).  A file that is still the one its build wrote (its modification time the
build's stamp, ``dicebase.checksum.file_stamp``, and no write-ahead log beside it) keeps the
checksums it records without its tables being read.  An engine's error is the same one-line error the read API gives
(``dicebase.errors.classify``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterator

from dicebase.builder.metadata import column_spec
from dicebase.builder.target import BuildError
from dicebase.checksum import CHECKSUMS_KEY, file_stamp, stored_table_checksum
from dicebase.errors import (
    DatabaseDamaged,
    DicebaseError,
    NotADicebaseDatabase,
    SchemaVersionMismatch,
    classify,
    clip,
    file_error,
    kind,
    other_schema_version,
)
from dicebase.location import Location
from dicebase.schema import game_tables
from dicebase import version


class _File:
    """A read-only connection to a dicebase file; every engine error as a DicebaseError."""

    def __init__(self, loc: Location):
        self.loc = loc
        try:  # readable at all (a refusal is the operating system's one line, not the engine's)
            with loc.path.open("rb") as handle:
                handle.read(16)
        except OSError as exc:
            raise file_error(exc, loc.path) from None
        if loc.store == "duckdb":
            import duckdb

            self._engine_error = duckdb.Error
            try:
                self.con = duckdb.connect(str(loc.path), read_only=True)
            except duckdb.Error as exc:
                raise classify(exc, loc) from None
        else:
            self._engine_error = sqlite3.Error
            try:
                self.con = sqlite3.connect(Path(loc.path).resolve().as_uri() + "?mode=ro", uri=True)
            except sqlite3.Error as exc:
                raise classify(exc, loc) from None
            except OSError as exc:
                raise file_error(exc, loc.path) from None

    def fetchall(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        try:
            return self.con.execute(sql, params).fetchall()
        except self._engine_error as exc:
            raise classify(exc, self.loc) from None

    def checksum(self, table: str, columns: list[tuple[str, str, bool]]) -> str:
        try:
            return stored_table_checksum(self.con, self.loc.store, table, columns)
        except self._engine_error as exc:
            raise classify(exc, self.loc) from None

    def check_version(self) -> None:
        """NotADicebaseDatabase or SchemaVersionMismatch unless a dicebase file of this schema version."""
        try:
            rows = self.con.execute("SELECT value FROM build_info WHERE key = 'schema_version'").fetchall()
        except self._engine_error as exc:
            if kind(exc) != "query":
                raise classify(exc, self.loc) from None
            raise NotADicebaseDatabase(
                f"{self.loc.path} is not a dicebase database (it has no build_info table); "
                "give the path of a dicebase file, or build one at another path"
            ) from None
        if not rows or rows[0][0] != str(version.SCHEMA_VERSION):
            found = clip(rows[0][0], 40) if rows else "unknown"
            try:
                games = [g for (g,) in self.fetchall("SELECT game FROM build_games ORDER BY game")]
            except DicebaseError:
                games = []
            raise other_schema_version(self.loc, found, version.SCHEMA_VERSION, games)

    def unchanged_since_build(self) -> bool:
        """Whether the file is the one its build wrote: no write since (its modification time is
        still the build's stamp) and no write-ahead log or journal beside it waiting to be applied."""
        try:
            facts = dict(self.fetchall("SELECT key, value FROM build_info WHERE key IN ('built_at', ?)",
                                       (CHECKSUMS_KEY,)))
        except DicebaseError:
            return False
        stamp = file_stamp(facts.get("built_at"), facts.get(CHECKSUMS_KEY))
        path = Path(self.loc.path)
        try:
            if any(path.with_name(path.name + suffix).exists() for suffix in (".wal", "-wal", "-journal")):
                return False
            return stamp is not None and os.stat(path).st_mtime_ns == stamp
        except OSError:
            return False

    def close(self) -> None:
        self.con.close()


@contextlib.contextmanager
def reading(loc: Location) -> Iterator[_File]:
    """The dicebase file at ``loc``, open read-only and checked to be of this schema version."""
    target = _File(loc)
    try:
        target.check_version()
        yield target
    finally:
        target.close()


def existing_games(
    loc: Location, force: bool, wanted: dict[str, dict] | None = None, quiet: bool = True
) -> dict[str, dict] | None:
    """The games in an existing database of this schema version; None when there is no file.

    A file that is not a dicebase database of this schema version (another
    program's file, a damaged file, an older dicebase file) is replaced only
    with ``force``.  A file that cannot be read now (locked by another
    process, permission denied) is never replaced: its games would be lost.
    Each game of ``wanted`` (game -> options) stored with the same options and
    package version has its tables' checksums verified: ``intact`` is False
    when they no longer match (someone changed a value), so it is rebuilt.
    """
    if not loc.path.exists():
        return None
    try:
        with reading(loc) as target:
            info = dict(target.fetchall("SELECT key, value FROM build_info"))
            games = {
                game: {"options": json.loads(opts), "package_version": info.get("package_version"), "intact": True}
                for game, opts in target.fetchall("SELECT game, options_json FROM build_games")
            }
            to_check = [
                g for g, opts in (wanted or {}).items()
                if g in games and games[g]["options"] == opts and games[g]["package_version"] == version.__version__
            ]
            if to_check:
                stamped = target.unchanged_since_build()
                if not quiet:
                    print(f"{_checking(to_check, stamped)} ...", file=sys.stderr, flush=True)
                for game in to_check:
                    games[game]["intact"] &= _matches_its_checksums(target, game, stamped)
    except (NotADicebaseDatabase, DatabaseDamaged, SchemaVersionMismatch) as exc:
        if force:
            return None
        raise BuildError(f"{loc.path} is in the way: {exc}; use --force to replace it") from None
    except DicebaseError as exc:
        raise BuildError(f"cannot build into {loc.path}: {exc}") from None
    return games


def intact(loc: Location, game: str, quiet: bool) -> bool:
    """Whether every table of ``game`` in the file at ``loc`` still matches its build's checksum."""
    try:
        with reading(loc) as target:
            stamped = target.unchanged_since_build()
            if not quiet:
                print(f"{_checking([game], stamped)} (to keep its unchanged variants) ...", file=sys.stderr, flush=True)
            return _matches_its_checksums(target, game, stamped)
    except DicebaseError:
        return False


def _checking(games: list[str], stamped: bool) -> str:
    if stamped:
        return (f"the stored tables of {', '.join(games)} are as the file's last build wrote them "
                "(its modification time is still that build's stamp): keeping their recorded checksums")
    return f"checking the stored tables of {', '.join(games)} against their checksums"


def storage_version_of(loc: Location) -> str | None:
    """The DuckDB storage version an existing dicebase file records (None: not recorded)."""
    try:
        with reading(loc) as target:
            rows = target.fetchall("SELECT value FROM build_info WHERE key = 'duckdb_storage_version'")
    except DicebaseError:
        return None
    return rows[0][0] if rows else None


def _matches_its_checksums(target: _File, game: str, stamped: bool = False) -> bool:
    """Each table of ``game``'s schema has the rows and checksum its build stored in build_tables
    (``stamped``: the file is unchanged since its build, which recorded them: only their rows in
    build_tables are looked for)."""
    stored: dict[str, Any] = {
        table: (rows, checksum)
        for table, rows, checksum in target.fetchall(
            "SELECT table_name, row_count, checksum FROM build_tables WHERE game = ?", (game,))
    }
    for table in game_tables(game):
        if table.name not in stored:
            return False
        if stamped:
            continue
        rows, checksum = stored[table.name]
        (count,) = target.fetchall(f'SELECT count(*) FROM "{table.name}"')[0]
        if count != rows or target.checksum(table.name, column_spec(table)) != checksum:
            return False
    return True
