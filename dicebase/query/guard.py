"""The read-only guard: what a statement may do on a dicebase connection.

Both stores open the file read-only; on top of that, ``Database.run_sql`` (the
``dicebase sql`` command) refuses anything that writes or touches files before
it runs: SQLite's authorizer (:class:`SqliteGuard`) checks each statement as it
is prepared, and DuckDB's statements are classified by DuckDB's own parser and
tokenizer (:func:`check_duckdb_statement`).  :func:`check_statement` is the
argument check every query method starts with.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable

from dicebase.errors import BadInput, DicebaseError, QueryFailed, QueryInterrupted, QueryTimeout, ReadOnlyViolation
from dicebase.errors import clip, shorten
from dicebase.query.engine import duckdb_engine

# DuckDB statements `run_sql` runs (DuckDB parses DESCRIBE/SHOW/SUMMARIZE/FROM-first/VALUES as SELECT).
DUCKDB_READ_TYPES = {"SELECT", "EXPLAIN", "PRAGMA"}
# Table functions that change state although they are called from a SELECT.
DUCKDB_REFUSED_TABLE_FUNCTIONS = {"checkpoint", "force_checkpoint"}
# DuckDB pragmas that only read (any "=" assignment is refused as well).
DUCKDB_READ_PRAGMAS = {
    "table_info", "show", "show_tables", "show_tables_expanded", "show_databases", "database_list",
    "database_size", "storage_info", "version", "platform", "functions", "metadata_info",
}

# SQLite pragmas that only read.  Those in the first set take an argument (a table, an index, a
# page budget); those in the second read a setting and are refused when they assign one.
SQLITE_PRAGMAS_WITH_ARGUMENT = {
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
    "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
}
SQLITE_READ_SETTINGS = {
    "user_version", "application_id", "schema_version", "data_version", "page_count", "page_size",
    "freelist_count", "encoding", "database_list", "collation_list", "function_list", "module_list",
    "pragma_list", "compile_options", "max_page_count",
}
_SQLITE_ACTIONS = {
    value: name[len("SQLITE_"):] for name, value in vars(sqlite3).items()
    if name.startswith("SQLITE_") and isinstance(value, int) and 1 <= value <= 33
}


def check_statement(sql, params) -> None:
    """BadInput unless ``sql`` is text and ``params`` a list, tuple or dict of values."""
    if not isinstance(sql, str):
        raise BadInput(f"the query must be SQL text, got {clip(sql)}")
    if "\x00" in sql:
        raise BadInput("the query contains a NUL character")
    if not isinstance(params, (tuple, list, dict)):
        raise BadInput(f"query parameters must be a list or tuple of values, got {clip(params)}")


class SqliteGuard:
    """The SQLite authorizer: reads only, and it remembers why it refused a statement."""

    def __init__(self):
        self.refusal: str | None = None

    def __call__(self, action, arg1, arg2, dbname, source):
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                      getattr(sqlite3, "SQLITE_RECURSIVE", 33)):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master" and source is None:
            # SQLite asks this when a SELECT reads a table-valued pragma such as
            # pragma_table_info() (the pragma itself is checked next); no write can
            # succeed anyway: the file is opened mode=ro and writable_schema is refused.
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA:
            name = (arg1 or "").lower()
            if name in SQLITE_PRAGMAS_WITH_ARGUMENT or (name in SQLITE_READ_SETTINGS and arg2 is None):
                return sqlite3.SQLITE_OK
            self.refusal = f"PRAGMA {name}" + (" with a value" if arg2 is not None else "") + " is not a read-only pragma"
            return sqlite3.SQLITE_DENY
        what = _SQLITE_ACTIONS.get(action, str(action)).replace("_", " ")
        target = f" {arg1}" if arg1 else ""
        self.refusal = f"{what}{target} is not a read"
        return sqlite3.SQLITE_DENY

    def refused(self) -> ReadOnlyViolation | None:
        """The error for the statement just refused, if the guard refused one."""
        if not self.refusal:
            return None
        return ReadOnlyViolation(f"refused: {self.refusal}; the sql command runs read-only statements")


def check_duckdb_statement(con, text: str, translate: Callable[[Exception], DicebaseError]) -> None:
    """Refuse what is not a read, by DuckDB's own parser and tokenizer.

    Runs inside ``Database._run`` (the check and the statement are one query for the time
    limit and ``interrupt()``); ``translate`` turns an engine error into a DicebaseError.
    """
    def parse(sql):
        try:
            return con.extract_statements(sql)
        except Exception as exc:
            error = translate(exc)
            if isinstance(error, QueryFailed):
                raise ReadOnlyViolation(f"cannot parse the query: {error}") from None
            raise error from None

    statements = parse(text)
    if len(statements) != 1:
        raise ReadOnlyViolation(f"one statement at a time, got {len(statements)}")
    kind = statements[0].type.name
    if kind not in DUCKDB_READ_TYPES:
        raise ReadOnlyViolation(refusal(kind))
    tokens = [(pos, text[pos:end].strip()) for pos, end in token_spans(text)]
    words = [word for _, word in tokens]
    if kind == "EXPLAIN":
        if len(words) > 1 and words[1].upper() in ("ANALYZE", "ANALYSE"):
            raise ReadOnlyViolation("refused: EXPLAIN ANALYZE runs its statement; use plain EXPLAIN")
        inner = text[tokens[1][0]:] if len(tokens) > 1 else ""
        inner_statements = parse(inner) if inner else []
        if len(inner_statements) != 1 or inner_statements[0].type.name != "SELECT":
            raise ReadOnlyViolation("refused: EXPLAIN runs here only for a SELECT statement")
        text = inner
    if kind == "PRAGMA":
        name = words[1].lower() if len(words) > 1 else ""
        if name not in DUCKDB_READ_PRAGMAS or "=" in words:
            raise ReadOnlyViolation(f"refused: PRAGMA {shorten(name, 40)} is not a read-only pragma")
        return
    try:
        tree = con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0]
    except Exception as exc:
        error = translate(exc)
        if isinstance(error, (QueryInterrupted, QueryTimeout)):
            raise error from None
        return  # no json extension: the read-only connection is still the guard
    for name in table_functions(json.loads(tree)):
        if name.lower() in DUCKDB_REFUSED_TABLE_FUNCTIONS:
            raise ReadOnlyViolation(f"refused: {name}() changes the database file; the sql command only reads")


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each token but comments, by DuckDB's tokenizer (a token's text runs to the next)."""
    duckdb = duckdb_engine()
    starts = [pos for pos, kind in duckdb.tokenize(text) if kind != duckdb.token_type.comment]
    return [(start, end) for start, end in zip(starts, starts[1:] + [len(text)])]


def table_functions(node) -> list[str]:
    """Names of every table function in a DuckDB parse tree (json_serialize_sql)."""
    found = []
    if isinstance(node, dict):
        if node.get("type") == "TABLE_FUNCTION":
            function = node.get("function") or {}
            found.append(str(function.get("function_name", "")))
        for value in node.values():
            found.extend(table_functions(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(table_functions(value))
    return found


def refusal(kind: str) -> str:
    """Why a DuckDB statement of ``kind`` (INSERT, COPY, ATTACH ...) is refused."""
    return (
        f"refused: {kind} statements cannot run here; the sql command runs one read-only "
        "SELECT, WITH, VALUES, EXPLAIN or read-only PRAGMA statement"
    )
