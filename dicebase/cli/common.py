"""Shared CLI pieces: output formats (``--format``/``--json``) and how they print, strict commands.

The pieces the web server shares with the CLI (the --db option, opening the database,
the JSON text, the one-line errors) live one layer down, in ``dicebase.present``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Callable

import click

from dicebase.errors import BadInput
from dicebase.present import collected, json_text, jsonable

FORMATS = ("table", "csv", "json")
SQL_FORMATS = ("table", "csv", "tsv", "json", "jsonl", "markdown")  # `dicebase sql`, for scripts

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
        if not ctx.resilient_parsing:  # then each number as typed (issue 34), before click converts it
            check_number_texts(ctx, opts)
        return opts, rest, order

    parser.parse_args = parse_args
    return parser


#: A whole number as the command line takes it: ASCII digits 0-9, a leading minus allowed (the
#: option's range says whether a negative number is legal).  Python's int() also reads '1_0' as 10, '+5',
#: ' 5 ' and fullwidth or Arabic-Indic digits (issue 34): none of them is a number here.
WHOLE_TEXT = re.compile(r"-?[0-9]+")
#: A decimal number: ASCII only and no underscore (float() reads '1_0.5' and '\uff11.5'); the rest (nan, inf,
#: 1e999) is the option's type's to refuse.
DECIMAL_TEXT = re.compile(r"[-+.0-9a-zA-Z]{1,40}")


def check_number_texts(ctx: click.Context, opts: dict) -> None:
    """Every integer or decimal option and argument of a command line, as typed (before click converts it):
    a whole number is ASCII digits with an optional leading minus (:data:`WHOLE_TEXT`), a decimal ASCII
    without underscores; otherwise one line naming the option (click's BadParameter, exit 2)."""
    for param in ctx.command.params:
        kind = param.type
        if isinstance(kind, click.types.IntParamType):
            pattern, what = WHOLE_TEXT, "a whole number in the digits 0-9 (a leading minus for a negative one)"
        elif isinstance(kind, click.types.FloatParamType):
            pattern, what = DECIMAL_TEXT, "a number in the digits 0-9 with an optional '.' and exponent"
        else:
            continue
        value = opts.get(param.name)
        texts = [value] if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
        for text in texts:
            if isinstance(text, str) and not pattern.fullmatch(text):
                raise click.BadParameter(f"{_clipped(text)} is not {what}", ctx=ctx, param=param)
            if isinstance(text, str) and len(text) > 1000:  # digits past Python's int() limit: no option takes them
                raise click.BadParameter(f"{_clipped(text)} is too large", ctx=ctx, param=param)


def _clipped(text: str) -> str:
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text):,} characters)"


class WholeNumbers(click.ParamType):
    """A comma-separated list of whole numbers in ASCII digits, each with an optional leading minus
    (``--scores 300,450,0``, ``--farkles 0,2``): a tuple of ints; anything else (``1_0``, ``\uff11``, ``a,b``,
    an empty item) is one line (BadInput, exit 2) saying what the option takes.  How many numbers and their
    ranges (negative ones included) are the lookup's to check, so its line names the seat and the range."""

    name = "whole numbers"

    def __init__(self, what: str, noun: str, example: str):
        self.what = what  # e.g. "scores", "--farkles"
        self.noun = noun  # e.g. "whole numbers", "counts"
        self.example = example

    def convert(self, value, param, ctx):
        if isinstance(value, (tuple, list)):  # a default, or converted already
            return tuple(value)
        text = str(value)
        parts = [part.strip(" ") for part in text.split(",")]
        if not all(re.fullmatch(r"-?[0-9]{1,18}", part) for part in parts):
            raise BadInput(f"{self.what} must be {self.noun} separated by commas, in the digits 0-9 (e.g. "
                           f"{self.example}), got {_clipped(text)}")
        return tuple(int(part) for part in parts)


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange that also refuses nan and inf (which every comparison with a bound lets through)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def not_a_folder(folder) -> str:
    """Why ``folder`` (a path that is not a directory) cannot hold a file: the part of it that is
    a file, or that it does not exist."""
    from pathlib import Path

    folder = Path(folder)
    for part in (folder, *folder.parents):
        try:
            if part.is_dir():
                break
            if part.exists():
                return f"{part} is a file, not a directory"
        except (OSError, ValueError):
            break
    return f"no directory {folder}: it does not exist"


def emit(data: Any, fmt: str, *, title: str | None = None, columns: list[str] | None = None) -> None:
    """Print ``data`` (a list of row dicts, or one dict) as a table, CSV, TSV, one JSON
    document, JSON lines (one object per row) or a Markdown table.

    ``columns`` names the columns of an empty list, so CSV still gets its header.
    """
    if fmt == "json":
        document = jsonable(data)
        if not collected(document):
            click.echo(json_text(document))
        return
    rows = data if isinstance(data, list) else _rows_of(data)
    if fmt in ("csv", "tsv"):
        click.echo(_csv(rows, columns, delimiter="," if fmt == "csv" else "\t"), nl=False)
        return
    if fmt == "jsonl":
        for row in rows:
            click.echo(json.dumps(jsonable(row), allow_nan=False))
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
    value = jsonable(value)
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


def emit_seats(answer, fmt: str, mix: Callable[[dict], str]) -> None:
    """An answer for three or more seats (``best``/``state --scores``): one JSON document, or the state, one row
    per action with every seat's chance (``p_win_seat1`` ..) and, in a table, a line on a cycle tuple with each
    randomising seat's mix in words (``mix``)."""
    doc = answer.as_dict()
    if fmt == "json":
        emit(doc, fmt)
        return
    cycle = doc.pop("cycle")
    if isinstance(doc.get("best"), dict):  # a keep: the first action, listed below
        doc.pop("best")
    rows = []
    for a in doc["actions"]:
        row = {k: v for k, v in a.items() if k not in ("p_win", "p_wins")}
        row["action_p_win"] = a["p_win"]
        row.update({f"p_win_seat{n + 1}": x for n, x in enumerate(a["p_wins"])})
        rows.append(row)
    doc["actions"] = rows or "farkle: nothing scores, the turn total is lost"
    if cycle is not None:
        doc["cycle_kind"] = cycle["kind"]
    emit(doc, fmt)
    if fmt == "table" and cycle is not None:
        mixes = ", ".join(mix(m) for m in cycle["randomising"]) or "no seat randomises"
        click.echo(f"cycle tuple: {cycle['note']}; {mixes}")


def emit_compensation(answer, fmt: str) -> None:
    """An N-player fair compensation (``query.base.Compensation``): one JSON document, or one row per seat (its
    start, its chance with and without it) and, in a table, the largest deviation from an even share."""
    doc = answer.as_dict()
    if fmt == "json":
        emit(doc, fmt)
        return
    rows = [{"seat": n + 1, "start": doc["scores"][n], "p_win": doc["p_wins"][n],
             "p_win_uncompensated": doc["uncompensated_p_wins"][n]} for n in range(answer.players)]
    emit(rows, fmt)
    if fmt == "table":
        click.echo(f"largest |p_win - 1/{answer.players}|: {answer.deviation:.6f} with these starting points, "
                   f"{answer.uncompensated_deviation:.6f} without")
