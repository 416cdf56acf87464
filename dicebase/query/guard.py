"""The read-only guard: what a statement may do on a dicebase connection.

Both stores open the file read-only; on top of that every statement run through a
``Database`` (``run_sql``, the ``dicebase sql`` command, and the lower-level ``execute``,
``fetchall``, ``fetchone``, ``columns``, ``read``, ``fetch_arrays``, ``prepared`` and the
connection ``call`` hands out) is checked before it runs: SQLite's authorizer
(:class:`SqliteGuard`) checks each statement as it is prepared, and DuckDB's statements are
classified by DuckDB's own parser and tokenizer (:func:`check_duckdb_statement`; the
lower-level methods by :class:`DuckdbGuard`, which remembers the texts it passed and also
lets the Python API change a few connection settings).  A function anywhere in a statement
that changes state, runs SQL of its own or sleeps is refused (DUCKDB_REFUSED_FUNCTIONS,
SQLITE_REFUSED_FUNCTIONS).  :func:`check_statement` is the argument check every query
method starts with.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable

from dicebase.errors import BadInput, DicebaseError, QueryFailed, QueryInterrupted, QueryTimeout, ReadOnlyViolation
from dicebase.errors import clip, no_statement, qualified_call, refused_function, shorten
from dicebase.query.engine import DUCKDB_BOUNDED_MACROS, MAX_VALUE_BYTES, duckdb_engine

# DuckDB statements `run_sql` runs (DuckDB parses DESCRIBE/SHOW/SUMMARIZE/FROM-first/VALUES as SELECT).
DUCKDB_READ_TYPES = {"SELECT", "EXPLAIN", "PRAGMA"}
# Functions refused anywhere in a statement, although they are called from a SELECT: they change
# the connection's or the file's state (checkpoints, logging, profiling, external resources,
# grammar extensions, sequences), run SQL the guard would not see (query, query_table,
# json_execute_serialized_sql), or sleep in one call the time limit cannot stop.  The list comes
# from classifying ``SELECT function_name, function_type FROM duckdb_functions()``;
# tests/test_faults_guard.py fails when a DuckDB release adds a function whose name says it
# may belong here and that is not classified.
DUCKDB_REFUSED_FUNCTIONS = {
    "checkpoint", "force_checkpoint",
    "enable_logging", "disable_logging", "truncate_duckdb_logs", "write_log",
    "enable_profiling", "disable_profiling",
    "query", "query_table", "json_execute_serialized_sql",
    "register_external_resource", "register_external_resource_type", "deregister_external_resource",
    "create_external_resource", "destroy_external_resource", "add_grammar_extension", "remove_grammar_extension",
    "nextval", "setval", "sleep_ms", "pg_sleep",
}
DUCKDB_REFUSED_TABLE_FUNCTIONS = DUCKDB_REFUSED_FUNCTIONS  # (the name before issue 25)
# DuckDB functions whose format argument says how long a string to build: it must be a constant
# whose widths and precisions are numbers of at most MAX_VALUE_BYTES.
DUCKDB_FORMAT_FUNCTIONS = {"printf", "format"}
# Settings the Python API's lower-level methods may change with SET/RESET (the web server's
# threads and memory pool, the progress bar); run_sql and the sql command change none.
DUCKDB_API_SETTINGS = {"threads", "memory_limit", "max_memory", "enable_progress_bar", "enable_progress_bar_print"}
# SQLite functions refused: fts3_tokenizer returns and accepts memory addresses.
SQLITE_REFUSED_FUNCTIONS = {"fts3_tokenizer", "load_extension"}
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
        self.error: DicebaseError | None = None  # set by a bounded function that refused its call

    def __call__(self, action, arg1, arg2, dbname, source):
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in SQLITE_REFUSED_FUNCTIONS:
            self.refusal = f"the function {arg2.lower()}() is not a read"
            return sqlite3.SQLITE_DENY
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

    def reset(self) -> None:
        self.refusal = None
        self.error = None

    def refused(self) -> DicebaseError | None:
        """The error for the statement just refused, if the guard (or a bounded function) refused one."""
        if self.error is not None:
            return self.error
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
    if not statements:
        raise no_statement()
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
        if words and words[0].upper() != "PRAGMA":  # DuckDB parses IMPORT DATABASE as a pragma
            raise ReadOnlyViolation(refusal(shorten(words[0].upper(), 40)))
        name = words[1].lower() if len(words) > 1 else ""
        if name not in DUCKDB_READ_PRAGMAS or "=" in words:
            raise ReadOnlyViolation(f"refused: PRAGMA {shorten(name, 40)} is not a read-only pragma")
        return
    check_duckdb_functions(con, text, translate, None if kind == "EXPLAIN" else tokens)


def check_duckdb_functions(con, text: str, translate: Callable[[Exception], DicebaseError],
                           tokens: list[tuple[int, str]] | None = None) -> None:
    """Refuse a statement that calls a refused function, goes around a bounded one, or gives
    printf/format a format that is not a constant of bounded widths: first by the tokens (a
    name followed by ``(``, so a nested ``query('...')`` string is never run), then by DuckDB's
    parse tree (json_serialize_sql), where it has one."""
    if tokens is None:
        tokens = [(pos, text[pos:end].strip()) for pos, end in token_spans(text)]
    words = [word for _, word in tokens]
    for i, word in enumerate(words[:-1]):
        name = word.strip('"').lower()
        if name in DUCKDB_REFUSED_FUNCTIONS and words[i + 1] == "(":
            raise refused_function(name)
        if name in DUCKDB_BOUNDED_MACROS and words[i + 1] == "(" and i > 0 and words[i - 1] == ".":
            raise qualified_call(name)
    try:
        tree = con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()[0]
    except Exception as exc:
        error = translate(exc)
        if isinstance(error, (QueryInterrupted, QueryTimeout)):
            raise error from None
        return  # no json extension: the tokens were checked, and the connection is read-only
    for function in function_calls(json.loads(tree)):
        name = str(function.get("function_name", "")).lower()
        if name in DUCKDB_REFUSED_FUNCTIONS:
            raise refused_function(name)
        if name in DUCKDB_BOUNDED_MACROS and (function.get("schema") or function.get("catalog")):
            raise qualified_call(name)
        if name in DUCKDB_FORMAT_FUNCTIONS:
            check_format(name, function)


def check_format(name: str, function: dict) -> None:
    """QueryTooLarge unless printf/format's first argument is a constant string whose widths and
    precisions are numbers of at most MAX_VALUE_BYTES (none taken from an argument)."""
    import re

    from dicebase.errors import value_too_large

    arguments = function.get("arguments") or []
    first = arguments[0].get("expression", arguments[0]) if arguments else {}
    literal = None
    if first.get("class") == "CONSTANT":  # {"value": {"value": ...}} or {"literal": {"text": ...}} by release
        value = first.get("value")
        literal = value.get("value") if isinstance(value, dict) else (first.get("literal") or {}).get("text")
    if not isinstance(literal, str):
        raise value_too_large(f"{name}() takes a constant format string here, whose widths say how long a string it builds")
    spec = r"%[-+ #0]*\*|%[-+ #0]*\d*\.\*|\{[^{}]*\{"  # a width or precision taken from an argument
    if re.search(spec, literal) or any(int(n) > MAX_VALUE_BYTES for n in re.findall(r"\d+", literal)):
        raise value_too_large(f"{name}() would build a string of more than 10,000,000 characters, or takes "
                              "its width from an argument")


class DuckdbGuard:
    """The check of the lower-level methods on DuckDB (``execute``, ``fetchall`` ...): a statement
    ``run_sql`` would run, an ``EXECUTE`` of a statement this connection prepared (its SELECT was
    checked when it was prepared), or SET/RESET of a DUCKDB_API_SETTINGS setting.  The texts it
    passed are remembered (a lookup's few texts are checked once per process)."""

    MEMO = 4096
    _passed: dict[str, bool] = {}

    @classmethod
    def check(cls, con, text: str, translate: Callable[[Exception], DicebaseError], prepared_names=()) -> None:
        """``prepared_names``: the names this connection's statements were prepared under."""
        shape = statement_shape(text)
        if shape in cls._passed:
            return
        stripped = text.strip()
        match = _EXECUTE.fullmatch(stripped)
        if match is not None:
            if match.group(1) in set(prepared_names):
                return
            raise ReadOnlyViolation("refused: EXECUTE runs only the statements this connection prepared")
        try:
            statements = con.extract_statements(stripped)
        except Exception:
            statements = None
        if statements is not None and len(statements) == 1 and statements[0].type.name == "SET":
            words = [text[pos:end].strip().lower() for pos, end in token_spans(stripped)]
            words = [w for w in words if w not in ("set", "reset", "global", "session", "local")]
            if not words or words[0] not in DUCKDB_API_SETTINGS:
                raise ReadOnlyViolation(
                    f"refused: only {', '.join(sorted(DUCKDB_API_SETTINGS))} may be set through the Python API")
            return
        check_duckdb_statement(con, stripped, translate)
        if len(cls._passed) >= cls.MEMO:
            cls._passed.clear()
        cls._passed[shape] = True


_SHAPE = None


def statement_shape(text: str) -> str:
    """``text`` with every whole number outside quotes written as 0: what the guard's verdict
    depends on.  A number there cannot change a statement's kind, the functions it calls or a
    format string (those are in quotes); it can only change a value, which the bounded macros
    check as the statement runs.  So a lookup that reads rows 1000 to 1099 and then 2000 to 2099
    is checked once, not once per state."""
    global _SHAPE
    if _SHAPE is None:
        import re

        _SHAPE = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|(?<![\w.$])\d+(?![\w.$])")
    return _SHAPE.sub(lambda m: m.group(0) if m.group(0)[0] in "'\"" else "0", text)


_EXECUTE = __import__("re").compile(r"EXECUTE (dicebase_\d+)\((?:-?\d+(?:, -?\d+)*)?\)")


class GuardedConnection:
    """The engine connection ``Database.call`` hands to its function: ``execute`` (and a
    ``cursor``'s) runs through the guard; ``create_function`` and ``interrupt`` as the engine's.
    Nothing else of the engine's connection is offered (``checkpoint()``, ``sql()`` ...)."""

    __slots__ = ("_con", "_check")

    def __init__(self, con, check: Callable[[object, str], None] | None):
        self._con = con
        self._check = check  # None: SQLite, whose authorizer checks every statement

    def execute(self, sql, params=()):
        if self._check is not None:
            check_statement(sql, params)
            self._check(self._con, sql)
        return self._con.execute(sql, params)

    def cursor(self):
        return GuardedConnection(self._con.cursor(), self._check) if self._check is not None else self._con.cursor()

    def create_function(self, *args, **kwargs):
        return self._con.create_function(*args, **kwargs)

    def interrupt(self):
        return self._con.interrupt()

    def __getattr__(self, name):
        raise BadInput(f"the connection Database.call hands out offers execute, cursor, create_function and "
                       f"interrupt only, not {clip(name, 40)}")


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each token but comments, by DuckDB's tokenizer (a token's text runs to the next)."""
    duckdb = duckdb_engine()
    starts = [pos for pos, kind in duckdb.tokenize(text) if kind != duckdb.token_type.comment]
    return [(start, end) for start, end in zip(starts, starts[1:] + [len(text)])]


def function_calls(node) -> list[dict]:
    """Every function call (scalar, aggregate, table function) in a DuckDB parse tree."""
    found = []
    if isinstance(node, dict):
        if "function_name" in node:
            found.append(node)
        for value in node.values():
            found.extend(function_calls(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(function_calls(value))
    return found


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
