"""A read-only connection to a dicebase file, DuckDB or SQLite, behind one interface."""

from __future__ import annotations

import json
import re
import sqlite3
from functools import cached_property
from pathlib import Path
from typing import Any

from dicebase import SCHEMA_VERSION
from dicebase.location import Location, resolve
from dicebase.query.base import BadInput, DatabaseMissing, NotInDatabase, ReadOnlyViolation

# Statement kinds the `sql` command runs; everything else is refused before it runs.
_SQLITE_READ_KEYWORDS = {"SELECT", "WITH", "VALUES", "EXPLAIN", "PRAGMA", "FROM", "DESCRIBE", "SHOW", "SUMMARIZE"}
_SQLITE_READ_PRAGMAS = {"table_info", "table_xinfo", "table_list", "index_list", "index_info"}
_DUCKDB_READ_TYPES = {"SELECT", "EXPLAIN"}  # DuckDB parses DESCRIBE/SHOW/SUMMARIZE/FROM-first as SELECT
# Attributes a thread's twin of a Database must not share: the game query objects cache per connection.
_PER_CONNECTION = ("threes", "rolled_ones", "ten_thousand")


def _sqlite_authorizer(action, arg1, arg2, dbname, source):
    """Allow reads only, whatever the statement: the file is also opened mode=ro."""
    allowed = {
        sqlite3.SQLITE_SELECT,
        sqlite3.SQLITE_READ,
        sqlite3.SQLITE_FUNCTION,
        getattr(sqlite3, "SQLITE_RECURSIVE", 33),
    }
    if action in allowed:
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in _SQLITE_READ_PRAGMAS:
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def build_hint(loc: Location) -> str:
    from dicebase.location import default_path

    if loc.path.resolve() == default_path().resolve():
        return "dicebase build"
    return f"dicebase build --db {loc.store}:///{loc.path.resolve()}"


class Database:
    """An open database.  Use as a context manager; every connection is read-only."""

    def __init__(self, location: Location):
        self.location = location
        path = location.path
        if path.is_dir():
            raise BadInput(f"{path} is a directory; give the database file, e.g. {path / 'dicebase.duckdb'}")
        if not path.is_file():
            raise DatabaseMissing(f"no database at {path}; build it with: {build_hint(location)}")
        if location.store == "duckdb":
            import duckdb

            try:
                self._con = duckdb.connect(
                    str(path), read_only=True, config={"enable_external_access": False}
                )
            except duckdb.Error as exc:
                raise NotInDatabase(
                    f"{path} is not a readable DuckDB database ({_one_line(exc)[:80]}); "
                    f"rebuild it with: {build_hint(location)} --force"
                ) from None
        else:
            self._con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, check_same_thread=False)
            self._con.set_authorizer(_sqlite_authorizer)
        try:
            is_ours = self._has_relation("build_info")
        except sqlite3.DatabaseError:
            self.close()
            raise NotInDatabase(
                f"{path} is not a SQLite database; rebuild it with: {build_hint(location)} --force"
            ) from None
        if not is_ours:
            self.close()
            raise NotInDatabase(f"{path} is not a dicebase database; build it with: {build_hint(location)}")
        row = self.fetchone("SELECT value FROM build_info WHERE key = 'schema_version'")
        if row is None or row[0] != str(SCHEMA_VERSION):
            self.close()
            found = row[0] if row else "unknown"
            raise NotInDatabase(
                f"{path} was built with schema version {found}, this dicebase reads version {SCHEMA_VERSION}; "
                f"rebuild it with: {build_hint(location)} --force"
            )

    # -- plumbing ---------------------------------------------------------
    @property
    def store(self) -> str:
        return self.location.store

    def execute(self, sql: str, params: tuple | list = ()):
        """A cursor over the rows of one statement (for streaming large results)."""
        return self._con.execute(sql, params)

    def fetchall(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        return self._con.execute(sql, params).fetchall()

    def fetchone(self, sql: str, params: tuple | list = ()) -> tuple | None:
        return self._con.execute(sql, params).fetchone()

    def columns(self, sql: str, params: tuple | list = ()) -> tuple[list[str], list[tuple]]:
        cur = self._con.execute(sql, params)
        names = [d[0] for d in cur.description] if cur.description else []
        return names, cur.fetchall()

    def _has_relation(self, name: str) -> bool:
        if self.store == "sqlite":
            row = self.fetchone("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,))
        else:
            row = self.fetchone(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' AND table_name = ?",
                (name,),
            )
        return bool(row and row[0])

    def for_thread(self) -> "Database":
        """The same database for use by another thread (the web server has one per worker thread).

        DuckDB: a cursor of this connection (one database instance, its settings
        and limits); SQLite: a new read-only connection.  Close it before this one.
        """
        if self.store == "sqlite":
            return Database(self.location)
        twin = object.__new__(Database)
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("_con", *_PER_CONNECTION)})
        twin._con = self._con.cursor()
        return twin

    def close(self) -> None:
        con, self._con = getattr(self, "_con", None), None
        if con is not None:
            con.close()

    def __enter__(self) -> "Database":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- read-only SQL for users ----------------------------------------
    def run_sql(self, query: str, params: tuple | list = ()) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement; refuse anything that writes or touches files."""
        text = query.strip().rstrip(";").strip()
        if not text:
            raise ReadOnlyViolation("empty query; give one SELECT statement")
        keyword = _first_keyword(text)
        if keyword == "EXPLAIN" and re.match(r"\s*EXPLAIN\s+ANALY[SZ]E\b", text, flags=re.I):
            raise ReadOnlyViolation("refused: EXPLAIN ANALYZE runs its statement; use plain EXPLAIN")
        if keyword not in _SQLITE_READ_KEYWORDS:
            raise ReadOnlyViolation(_refusal(keyword))
        if self.store == "duckdb":
            import duckdb

            try:
                statements = self._con.extract_statements(text)
            except duckdb.Error as exc:
                raise ReadOnlyViolation(_one_line(exc)) from None
            if len(statements) != 1:
                raise ReadOnlyViolation(f"one statement at a time, got {len(statements)}")
            kind = statements[0].type.name
            if kind not in _DUCKDB_READ_TYPES:
                raise ReadOnlyViolation(_refusal(keyword))
            try:
                return self.columns(text, params)
            except duckdb.Error as exc:
                raise ReadOnlyViolation(_one_line(exc)) from None
        try:
            return self.columns(text, params)
        except (sqlite3.DatabaseError, sqlite3.ProgrammingError, sqlite3.Warning) as exc:
            message = _one_line(exc)
            if "not authorized" in message or "readonly" in message:
                message = f"refused: the database is read-only ({message})"
            raise ReadOnlyViolation(message) from None

    # -- metadata ---------------------------------------------------------
    def info(self) -> dict[str, Any]:
        """Everything the build recorded: versions, games, variants, tables, steps."""
        facts = dict(self.fetchall("SELECT key, value FROM build_info ORDER BY key"))
        games = [
            {
                "game": g,
                "options": json.loads(o),
                "notes": json.loads(n),
                "build_seconds": round(s, 3),
                "built_at": at,
            }
            for g, o, n, s, at in self.fetchall(
                "SELECT game, options_json, notes_json, build_seconds, built_at FROM build_games ORDER BY game"
            )
        ]
        variants = [
            {"game": g, "variant": v, "rules": json.loads(r), "solver": json.loads(s)}
            for g, v, r, s in self.fetchall(
                "SELECT game, variant, rules_json, solver_json FROM build_variants ORDER BY game, variant"
            )
        ]
        tables = [
            {"table": t, "game": g, "rows": int(n), "checksum": c, "write_seconds": round(w, 3)}
            for t, g, n, c, w in self.fetchall(
                "SELECT table_name, game, row_count, checksum, write_seconds FROM build_tables ORDER BY game, table_name"
            )
        ]
        steps = [
            {"game": g, "step": s, "seconds": round(sec, 3)}
            for g, s, sec in self.fetchall("SELECT game, step, seconds FROM build_steps ORDER BY game, seq")
        ]
        return {
            "location": str(self.location),
            "file_bytes": self.location.path.stat().st_size,
            "build": facts,
            "games": games,
            "variants": variants,
            "tables": tables,
            "steps": steps,
        }

    def games(self) -> list[str]:
        return [g for (g,) in self.fetchall("SELECT game FROM build_games ORDER BY game")]

    def require_game(self, game: str) -> None:
        if game not in self.games():
            cli = game.replace("_", "-")
            raise NotInDatabase(f"{cli} is not built into {self.location.path}; add it with: {build_hint(self.location)} {cli}")

    def relations(self) -> list[tuple[str, str]]:
        """(name, 'table'|'view') for every public relation, from the schema catalogue."""
        return [(n, k) for n, k in self.fetchall("SELECT name, kind FROM schema_tables ORDER BY kind, name")]

    # -- the games ----------------------------------------------------------
    @cached_property
    def threes(self):
        from dicebase.query.threes import Queries

        return Queries(self)

    @cached_property
    def rolled_ones(self):
        from dicebase.query.rolled_ones import Queries

        return Queries(self)

    @cached_property
    def ten_thousand(self):
        from dicebase.query.ten_thousand import Queries

        return Queries(self)


def _refusal(keyword: str) -> str:
    what = f"{keyword} statements" if keyword else "this statement"
    return f"refused: {what} cannot run here; the sql command runs one read-only SELECT, WITH, VALUES or EXPLAIN statement"


def _first_keyword(text: str) -> str:
    text = re.sub(r"^(\s*(--[^\n]*\n|/\*.*?\*/))*", "", text, flags=re.S)
    match = re.match(r"\s*\(?\s*([A-Za-z]+)", text)
    return match.group(1).upper() if match else ""


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def open(target: str | Location | None = None) -> Database:  # noqa: A001
    loc = target if isinstance(target, Location) else resolve(target)
    return Database(loc)
