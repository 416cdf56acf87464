"""Shared CLI pieces: the --db option, output formats, opening the database."""

from __future__ import annotations

import csv
import io
import json
import math
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, Callable

import click

from dicebase.query.base import BadInput, DicebaseError  # noqa: F401  (re-exported for game CLIs)

FORMATS = ("table", "csv", "json")
SQL_FORMATS = ("table", "csv", "tsv", "json", "jsonl", "markdown")  # `dicebase sql`, for scripts

# Set by ``serving`` (the web server runs a command in-process): the open
# database every command uses instead of opening --db, and the list that
# receives the JSON document instead of stdout.  Context variables, so each
# request's thread has its own.
_served_db: ContextVar = ContextVar("dicebase_served_db", default=None)
_served_documents: ContextVar = ContextVar("dicebase_served_documents", default=None)


@contextmanager
def serving(db):
    """Run CLI commands against the open database ``db`` and collect their JSON documents.

    Yields the list the documents are appended to (plain JSON values, as
    ``--json`` would print them).  ``db`` stays open: its owner closes it.
    """
    documents: list = []
    db_token, doc_token = _served_db.set(db), _served_documents.set(documents)
    try:
        yield documents
    finally:
        _served_db.reset(db_token)
        _served_documents.reset(doc_token)


def db_option(func: Callable) -> Callable:
    """``--db PATH|URL``: which database file to read (default db/dicebase.duckdb or $DICEBASE_DB)."""
    return click.option(
        "--db",
        "db_path",
        metavar="PATH|URL",
        default=None,
        envvar="DICEBASE_DB",
        help="Database file or URL (duckdb:///PATH, sqlite:///PATH). Default: db/dicebase.duckdb, or $DICEBASE_DB.",
    )(func)


def output_option(func: Callable | None = None, *, formats: tuple[str, ...] = FORMATS) -> Callable:
    """``--format table|csv|json`` (or ``formats``) and its shortcut ``--json``.

    Use bare (``@output_option``) or with other formats (``@output_option(formats=SQL_FORMATS)``).
    """
    if func is None:
        return lambda f: output_option(f, formats=formats)
    func = click.option(
        "--json", "as_json", is_flag=True, default=False, help="Print one JSON document (same as --format json)."
    )(func)
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(formats),
        default="table",
        show_default=True,
        help="Output format.",
    )(func)
    return func


def resolve_format(fmt: str, as_json: bool) -> str:
    """The output format; ``--json`` with a different ``--format`` is refused (BadInput)."""
    if as_json and fmt != "json":
        ctx = click.get_current_context(silent=True)
        given = ctx is not None and ctx.get_parameter_source("fmt") not in (
            None, click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)
        if given:
            raise BadInput(f"--json and --format {fmt} contradict each other; give one of them")
    return "json" if as_json else fmt


class StrictCommand(click.Command):
    """A command that refuses an option given twice (instead of silently keeping the last)."""

    def make_parser(self, ctx: click.Context):
        return refusing_repeated_options(super().make_parser(ctx), ctx)


class StrictGroup(click.Group):
    """A group whose own options, and every subcommand's, may not be repeated."""

    def make_parser(self, ctx: click.Context):
        return refusing_repeated_options(super().make_parser(ctx), ctx)

    def get_command(self, ctx, name):
        return make_strict(super().get_command(ctx, name))


def make_strict(command):
    """``command`` (a click Command or Group) made strict, in place; returns it."""
    if command is None or isinstance(command, (StrictCommand, StrictGroup)):
        return command
    if isinstance(command, click.Group):
        command.__class__ = type(f"Strict{type(command).__name__}", (StrictGroup, type(command)), {}) \
            if type(command) is not click.Group else StrictGroup
    elif type(command) is click.Command:
        command.__class__ = StrictCommand
    return command


def refusing_repeated_options(parser, ctx: click.Context):
    """``parser`` (click's parser of one command line) made to refuse an option given more than once.

    The check reads the order of the options that click's own parse records, so
    a command line is parsed once (the web API runs a command per request).  A
    repeat is refused before any value is converted, with a UsageError naming
    the first option given twice (unless the option is meant to repeat).
    """
    parse = parser.parse_args

    def parse_args(args: list[str]):
        opts, rest, order = parse(args)
        seen: set[str] = set()
        for param in order:
            if not isinstance(param, click.Option) or param.multiple or param.count:
                continue
            if param.name in seen:
                name = max(param.opts, key=len)
                raise click.UsageError(f"option {name} given more than once; give it once", ctx=ctx)
            seen.add(param.name)
        return opts, rest, order

    parser.parse_args = parse_args
    return parser


def open_db(db_path: str | None, timeout: float | None = None):
    """Open the database read-only; DicebaseError (exit 2) when missing, busy, damaged or not ours.

    ``timeout`` (seconds) overrides the query layer's default time limit.
    Under ``serving`` the server's open database, left open on exit.
    """
    served = _served_db.get()
    if served is not None:
        return nullcontext(served)
    from dicebase.query import open as open_database

    try:
        if timeout is None:
            return open_database(db_path)
        return open_database(db_path, timeout=timeout)
    except ValueError as exc:  # a malformed --db value
        raise BadInput(str(exc)) from None


def emit(data: Any, fmt: str, *, title: str | None = None, columns: list[str] | None = None) -> None:
    """Print ``data`` (a list of row dicts, or one dict) as a table, CSV, TSV, one JSON
    document, JSON lines (one object per row) or a Markdown table.

    ``columns`` names the columns of an empty list, so CSV still gets its header.
    """
    if fmt == "json":
        documents = _served_documents.get()
        if documents is not None:
            documents.append(_jsonable(data))
            return
        click.echo(json_text(_jsonable(data)))
        return
    rows = data if isinstance(data, list) else _rows_of(data)
    if fmt in ("csv", "tsv"):
        click.echo(_csv(rows, columns, delimiter="," if fmt == "csv" else "\t"), nl=False)
        return
    if fmt == "jsonl":
        for row in rows:
            click.echo(json.dumps(_jsonable(row), allow_nan=False))
        return
    if fmt == "markdown":
        from tabulate import tabulate

        headers = list(rows[0]) if rows else list(columns or [])
        cells = [[_cell(r.get(h)) for h in headers] for r in rows]
        align = ["right" if cells and all(_looks_numeric(c[i]) for c in cells) else "left" for i in range(len(headers))]
        click.echo(tabulate(cells, headers=headers, tablefmt="github", disable_numparse=True, colalign=align))
        return
    if title:
        click.echo(title)
    if isinstance(data, list):
        click.echo(render_table(data, columns))
        return
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            click.echo(f"{key}:")
            click.echo(_indent(render_table(value)))
        else:
            click.echo(f"{key}: {_cell(value)}")


#: ``json.dumps(document, indent=2, allow_nan=False)`` without making an encoder for every document.
_JSON_ENCODER = json.JSONEncoder(indent=2, allow_nan=False)


def json_text(document: Any) -> str:
    """The text ``--json`` prints for a document of plain JSON values (the API sends the same)."""
    return _JSON_ENCODER.encode(document)


def _rows_of(data: dict) -> list[dict]:
    """A document as CSV rows: each row of its first list of row dicts, preceded
    by the document's scalar fields (the state and the answer), so no field of
    the answer is lost; a document without such a list is one row."""
    scalars = {k: v for k, v in data.items() if not isinstance(v, (list, dict))}
    for value in data.values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return [{**scalars, **{k: v for k, v in row.items()}} for row in value]
    return [scalars]


def unique_names(names: list[str]) -> list[str]:
    """Column names made unique (a, a, b -> a, a_2, b) so no column is lost in a dict."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return out


def _csv(rows: list[dict], columns: list[str] | None = None, delimiter: str = ",") -> str:
    buf = io.StringIO()
    fieldnames = list(rows[0]) if rows else list(columns or [])
    if not fieldnames:
        return ""
    writer = csv.DictWriter(buf, fieldnames=fieldnames, lineterminator="\n", delimiter=delimiter)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in row.items()})
    return buf.getvalue()


def _csv_cell(value: Any) -> Any:
    value = _jsonable(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
            return f"{value:.1f}" if abs(value) < 1e6 else f"{int(value)}"
        return f"{value:.6g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.3e}"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "-"
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


def render_table(rows: list[dict], columns: list[str] | None = None) -> str:
    if not rows:
        return "  ".join(columns) + "\n(no rows)" if columns else "(no rows)"
    headers = list(rows[0])
    cells = [[_cell(r.get(h)) for h in headers] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers)]
    numeric = [all(_looks_numeric(c[i]) for c in cells) for i in range(len(headers))]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(c) for c in cells)
    return "\n".join(out)


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _jsonable(value: Any) -> Any:
    """Plain JSON types: numpy scalars and Decimals become numbers, NaN/inf null,
    dates ISO text, bytes hex, anything else unusual its text."""
    kind = type(value)  # the plain types by identity first: every lookup's document is made of them
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {str(k): _jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_jsonable(v) for v in value]
    return _unusual_jsonable(value)


def _unusual_jsonable(value: Any) -> Any:
    """``_jsonable`` of anything but the exact plain types (their subclasses included)."""
    import datetime
    import decimal

    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return _jsonable(float(value)) if not value == value.to_integral_value() else int(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if hasattr(value, "item"):  # numpy scalar
        return _jsonable(value.item())
    return str(value)
