"""Shared CLI pieces: the --db option, output formats, opening the database."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Callable

import click

from dicebase.query.base import BadInput, DicebaseError  # noqa: F401  (re-exported for game CLIs)

FORMATS = ("table", "csv", "json")


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


def output_option(func: Callable) -> Callable:
    """``--format table|csv|json`` and its shortcut ``--json``."""
    func = click.option(
        "--json", "as_json", is_flag=True, default=False, help="Print one JSON document (same as --format json)."
    )(func)
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format.",
    )(func)
    return func


def resolve_format(fmt: str, as_json: bool) -> str:
    return "json" if as_json else fmt


def open_db(db_path: str | None):
    """Open the database read-only; DicebaseError (exit 2) when missing or not ours."""
    from dicebase.query import open as open_database

    try:
        return open_database(db_path)
    except ValueError as exc:  # a malformed --db value
        raise BadInput(str(exc)) from None


def emit(data: Any, fmt: str, *, title: str | None = None) -> None:
    """Print ``data`` (a list of row dicts, or one dict) as a table, CSV or one JSON document."""
    if fmt == "json":
        click.echo(json.dumps(_jsonable(data), indent=2))
        return
    if fmt == "csv":
        rows = data if isinstance(data, list) else _rows_of(data)
        click.echo(_csv(rows), nl=False)
        return
    if title:
        click.echo(title)
    if isinstance(data, list):
        click.echo(render_table(data))
        return
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            click.echo(f"{key}:")
            click.echo(_indent(render_table(value)))
        else:
            click.echo(f"{key}: {_cell(value)}")


def _rows_of(data: dict) -> list[dict]:
    """The first list of row dicts inside a document, or the document as one row."""
    for value in data.values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return value
    return [{k: v for k, v in data.items() if not isinstance(v, (list, dict))}]


def _csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in row.items()})
    return buf.getvalue()


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
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


def render_table(rows: list[dict]) -> str:
    if not rows:
        return "(no rows)"
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
    """Plain JSON types: numpy scalars become Python numbers, tuples lists."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value
