"""``dicebase info``, ``schema``, ``sql`` and ``verify``: the database file as a whole (dicebase.query)."""

from __future__ import annotations

import click

from dicebase.cli.common import SQL_FORMATS, FiniteFloatRange, emit, output_option, resolve_format
from dicebase.present import db_option, open_db


@click.command()
@db_option
@output_option
def info(db_path, fmt, as_json):
    """Show what the database holds: versions, rules, solver settings, tables.

    Example:

    \b
        dicebase info
        dicebase info --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        data = db.info()
    if fmt != "table":
        emit(data, fmt)
        return
    click.echo(f"database: {data['location']} ({data['file_bytes'] / 1e6:.1f} MB)")
    for key, value in data["build"].items():
        click.echo(f"  {key}: {value}")
    click.echo("games:")
    emit([{k: v for k, v in g.items() if k != "notes"} for g in data["games"]], "table")
    click.echo("variants:")
    emit(data["variants"], "table")
    click.echo("tables:")
    emit(data["tables"], "table")


@click.command()
@click.argument("query")
@click.option("--param", "-p", "params", type=(str, str), multiple=True, metavar="NAME VALUE",
              help="Bind the query's $NAME to VALUE, as text (repeatable).")
@click.option("--limit", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Most rows printed in table format (0 = all); the other formats print every row.")
@click.option("--output", "-O", "output", metavar="FILE", default=None,
              help="Write the rows to FILE (replaced when complete) instead of standard output.")
@click.option("--timeout", default=60.0, show_default=True, type=FiniteFloatRange(min=0, min_open=True),
              metavar="SECONDS", help="Stop the query after this many seconds.")
@db_option
@output_option(formats=SQL_FORMATS)
def sql(query, params, limit, output, timeout, db_path, fmt, as_json):
    """Run one read-only SQL statement (SELECT/WITH/VALUES/EXPLAIN) and print the rows.

    Statements that write, attach files, install extensions or copy data out
    are refused (DuckDB's own parser, SQLite's authorizer); the database is
    opened read-only in any case. A query is stopped after --timeout seconds
    or by Ctrl-C, and may use at most 2 GB of memory and return at most
    1,000,000 rows. Values come in as named parameters, never pasted into
    the SQL: -p NAME VALUE binds $NAME (text; columns compare with it as with
    a quoted literal, CAST it for arithmetic). Formats: table, csv, tsv, json
    (one document), jsonl (one object per line), markdown. A query that
    starts with "--" needs a "--" before it: dicebase sql -- "-- note ...".

    Example:

    \b
        dicebase sql "SELECT name, description FROM schema_tables"
        dicebase sql "SELECT seat, p_win FROM threes_seats WHERE players = $n AND ties = $ties" -p n 4 -p ties shared
        dicebase sql "SELECT * FROM threes_expected_scores" --format jsonl --output scores.jsonl
    """
    import re

    from dicebase.cli.common import unique_names
    from dicebase.errors import BadInput, clip

    fmt = resolve_format(fmt, as_json)
    bound = {}
    for name, value in params:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise BadInput(f"parameter name {clip(name)} is not a name (letters, digits, _), the $NAME the query uses")
        if name in bound:
            raise BadInput(f"parameter {clip(name)} given twice")
        bound[name] = value
    with open_db(db_path, timeout=timeout) as db:
        target = _output_target(output, db) if output else None
        names, rows = db.run_sql(query, bound or ())
    names = unique_names(names)
    shown = rows if fmt != "table" or limit == 0 else rows[:limit]
    records = [dict(zip(names, row)) for row in shown]
    if target is None:
        emit(records, fmt, columns=names)
    else:
        _emit_to_file(target, records, fmt, names)
    if len(shown) < len(rows):
        click.echo(f"({len(rows) - len(shown)} more rows not shown; use --limit 0 or another --format for all)", err=True)


def _output_target(output: str, db):
    """The --output path, checked before the query runs: never the database, a directory or a missing folder."""
    from pathlib import Path

    from dicebase.errors import BadInput

    target = Path(output)
    if target.is_dir():
        raise BadInput(f"--output {output} is a directory; give a file name")
    if target.exists() and target.resolve() == db.location.path.resolve():
        raise BadInput(f"--output {output} is the database being read; choose another file")
    if not target.parent.is_dir():
        from dicebase.cli.common import not_a_folder

        raise BadInput(f"--output {output}: {not_a_folder(target.parent)}")
    return target


def _emit_to_file(target, records: list[dict], fmt: str, names: list[str]) -> None:
    """Write the rows to a temporary file beside ``target`` and rename it into place."""
    import contextlib
    import os

    from dicebase.errors import output_failed
    from dicebase.present import WholeWrites, text_output

    temp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    outcome = f"{target} was not written" + (" (the old file is unchanged)" if target.exists() else "")
    try:
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as exc:
            raise output_failed(exc, str(target), outcome) from None
        # every byte written or WriteFailed naming the file (a full disk never leaves a short file)
        raw = WholeWrites(fd, str(target), closefd=True, outcome=outcome)
        with text_output(raw) as handle, contextlib.redirect_stdout(handle):
            emit(records, fmt, columns=names)
        try:
            os.replace(temp, target)
        except OSError as exc:
            raise output_failed(exc, str(target), outcome) from None
    finally:
        temp.unlink(missing_ok=True)


@click.command()
@click.argument("table", required=False)
@db_option
@output_option
def schema(table, db_path, fmt, as_json):
    """Describe the public schema: tables and views, or the columns of one.

    Example:

    \b
        dicebase schema
        dicebase schema threes_expected_scores --json
    """
    from dicebase.errors import NotInDatabase

    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        if table is None:
            names, rows = db.columns("SELECT name, kind, game, description FROM schema_tables ORDER BY game, kind, name")
        else:
            names, rows = db.columns(
                "SELECT column_name, data_type, is_key, description FROM schema_columns "
                "WHERE table_name = ? ORDER BY position",
                (table,),
            )
            if not rows:
                raise NotInDatabase(f"no table or view named {table!r}; list them with: dicebase schema")
    emit([{n: (bool(v) if n == "is_key" else v) for n, v in zip(names, row)} for row in rows], fmt)


@click.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@db_option
@output_option
def verify(games, db_path, fmt, as_json):
    """Recompute every checksum the build recorded and compare: tables, views, metadata.

    Prints one line per table and view: ok, MISMATCH when a stored value (or
    the row count) changed since the build, MISSING, EXTRA or UNREADABLE.
    Covers the game tables, the build's metadata tables and every view's
    definition. Exits 0 only when everything matches, 1 otherwise; a file
    built before the metadata had checksums says what it could not check.
    The formulas are in `dicebase schema build_tables` and docs/schema.md.

    Example:

    \b
        dicebase verify
        dicebase verify threes --db sqlite:///db/dicebase.sqlite --json
    """
    from dicebase.query.verify import failure, unchecked
    from dicebase.query.verify import verify as run_verify

    fmt = resolve_format(fmt, as_json)
    with open_db(db_path, timeout=None) as db:
        checks = run_verify(db, list(games) or None)
        error = failure(db, checks)
    if fmt == "table":
        for check in checks:
            click.echo(check.line())
    else:
        emit([c.as_dict() for c in checks], fmt)
    skipped = unchecked(checks)
    if skipped:
        click.echo(skipped, err=True)
    if error is not None:
        raise error
