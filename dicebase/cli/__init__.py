"""The ``dicebase`` command line.

Game command groups load lazily, so ``dicebase threes best ...`` imports
neither the other games nor the solvers.  Every error a user can cause is
printed as one line on stderr with exit code 2; tracebacks are for bugs.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from dicebase import __version__
from dicebase.cli.common import (
    SQL_FORMATS,
    StrictCommand,
    StrictGroup,
    db_option,
    emit,
    make_strict,
    open_db,
    output_option,
    resolve_format,
)

GAME_GROUPS = {
    "threes": "dicebase.cli.threes",
    "rolled-ones": "dicebase.cli.rolled_ones",
    "ten-thousand": "dicebase.cli.ten_thousand",
    "plot": "dicebase.cli.plot",
}
#: Other commands that load lazily: name -> module whose ``group`` is the command.
LAZY_COMMANDS = {**GAME_GROUPS, "rules": "dicebase.cli.rules"}


class LazyGroup(StrictGroup):
    """A group whose game subcommands are imported on first use.

    Every command under it is strict: an option given twice is refused.
    """

    command_class = StrictCommand
    group_class = StrictGroup

    def list_commands(self, ctx):
        present = {name for name, module in LAZY_COMMANDS.items() if importlib.util.find_spec(module)}
        return sorted(set(super().list_commands(ctx)) | present)

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS and importlib.util.find_spec(LAZY_COMMANDS[name]):
            return make_strict(importlib.import_module(LAZY_COMMANDS[name]).group)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="dicebase")
def cli():
    """dicebase: solved push-your-luck dice games, answered from a database.

    Build once, then ask: every lookup ranks every legal action with its
    value, best first, like a chess endgame tablebase.

    Example:

    \b
        dicebase build
        dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 4
        dicebase sql "SELECT * FROM threes_expected_scores"
    """


def _parse_option(text: str) -> tuple[str, str, object]:
    import json

    head, sep, raw = text.partition("=")
    game, dot, key = head.partition(".")
    if not sep or not dot or not game or not key:
        raise click.BadParameter(f"{text!r} is not GAME.KEY=VALUE (e.g. ten-thousand.goal=2000)", param_hint="--option")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return game, key, value


@cli.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option("--db", "db_path", metavar="PATH|URL", default=None, envvar="DICEBASE_DB",
              help="Target file or URL (duckdb:///PATH, sqlite:///PATH). Default: db/dicebase.duckdb.")
@click.option("--force", is_flag=True,
              help="Rebuild the named games even when the file already has them with the same options "
                   "(every other game in the file is kept).")
@click.option("--no-wait", is_flag=True, help="Fail at once when another build holds the file, instead of waiting.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--option", "-o", "option_texts", multiple=True, metavar="GAME.KEY=VALUE",
              help="Override a build option, e.g. ten-thousand.goal=2000 (repeatable).")
@click.option("--storage-version", metavar="VERSION", default=None,
              help="DuckDB storage format to write (default v1.1.0: every DuckDB from 1.1 on opens the file; "
                   "'latest' for the newest).")
@click.option("--threads", type=click.IntRange(min=1), default=None, metavar="N",
              help="Solver threads (default: every core); the answers are the same for any N.")
@click.option("--rules", "rules_files", multiple=True, metavar="FILE.toml",
              help="Also build the house rules in this file as a variant named in it, beside what the "
                   "database holds (print a file to edit with: dicebase rules GAME). Repeatable.")
@click.option("--force-size", is_flag=True, help="Build rule sets whose estimated solve exceeds the size limits.")
def build(games, db_path, force, no_wait, quiet, option_texts, storage_version, threads, rules_files, force_size):
    """Solve the named games (default: all) and write their tables.

    The build writes a temporary file beside the target and renames it into
    place at the end: an interrupted build leaves the old database as it was.
    Games already built with the same options are skipped unless --force;
    games already in the file and not named are always kept. A build locks
    the target (TARGET.lock) for its whole run: a second build of the same
    file waits for it (or fails at once with --no-wait).

    Example:

    \b
        dicebase build
        dicebase build threes --db sqlite:///db/dicebase.sqlite
        dicebase build ten-thousand -o ten-thousand.goal=2000 --db db/small.duckdb
        dicebase build --storage-version v1.2.0
        dicebase build ten-thousand --threads 4
        dicebase build ten-thousand --rules our-table.toml
    """
    from dicebase.builder.pipeline import build as run_build
    from dicebase.location import resolve
    from dicebase.query.base import BadInput
    from dicebase.rules.files import load as load_rules

    options: dict[str, dict] = {}
    for text in option_texts:
        game, key, value = _parse_option(text)
        options.setdefault(game, {})[key] = value
    try:
        house = [load_rules(path) for path in rules_files]
        loc = resolve(db_path)
        report = run_build(
            list(games) or None, loc, force=force, quiet=quiet, options=options, storage_version=storage_version,
            threads=threads, wait=not no_wait, house_rules=house, force_size=force_size,
        )
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    names = lambda gs: ", ".join(g.replace("_", "-") for g in gs)  # noqa: E731
    if report.built:
        size = loc.path.stat().st_size / 1e6
        click.echo(f"built {names(report.built)} into {loc.path.resolve()} ({loc.store}) in {report.seconds:.1f} s ({size:.1f} MB)")
    elif report.storage_version:
        click.echo(f"rewrote {loc.path.resolve()} in DuckDB storage version {report.storage_version}")
    if report.skipped:
        click.echo(f"up to date: {names(report.skipped)} (use --force to rebuild)")


@cli.command()
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


@cli.command()
@click.argument("query")
@click.option("--param", "-p", "params", type=(str, str), multiple=True, metavar="NAME VALUE",
              help="Bind the query's $NAME to VALUE, as text (repeatable).")
@click.option("--limit", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Most rows printed in table format (0 = all); the other formats print every row.")
@click.option("--output", "-O", "output", metavar="FILE", default=None,
              help="Write the rows to FILE (replaced when complete) instead of standard output.")
@click.option("--timeout", default=60.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
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
    from dicebase.query.base import BadInput, clip

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

    from dicebase.query.base import BadInput

    target = Path(output)
    if target.is_dir():
        raise BadInput(f"--output {output} is a directory; give a file name")
    if target.exists() and target.resolve() == db.location.path.resolve():
        raise BadInput(f"--output {output} is the database being read; choose another file")
    if not target.parent.is_dir():
        raise BadInput(f"--output {output}: no directory {target.parent}")
    return target


def _emit_to_file(target, records: list[dict], fmt: str, names: list[str]) -> None:
    """Write the rows to a temporary file beside ``target`` and rename it into place."""
    import contextlib
    import os

    temp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        with open(temp, "w", encoding="utf-8", newline="") as handle, contextlib.redirect_stdout(handle):
            emit(records, fmt, columns=names)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


@cli.command()
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
    from dicebase.query.base import NotInDatabase

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


@cli.command()
@click.argument("games", nargs=-1, metavar="[GAME]...")
@db_option
@output_option
def verify(games, db_path, fmt, as_json):
    """Recompute every table's checksum and compare it with the one stored at build time.

    Prints one line per table: ok, or MISMATCH when a stored value (or the
    row count) changed since the build. Exits 0 only when every table
    matches, 1 otherwise. The formula is in `dicebase schema build_tables`.

    Example:

    \b
        dicebase verify
        dicebase verify threes --db sqlite:///db/dicebase.sqlite --json
    """
    from dicebase.query.base import DicebaseError
    from dicebase.query.verify import verify as run_verify

    fmt = resolve_format(fmt, as_json)
    with open_db(db_path, timeout=None) as db:
        checks = run_verify(db, list(games) or None)
    if fmt == "table":
        for check in checks:
            click.echo(f"{'ok' if check.ok else 'MISMATCH':8}  {check.table}  ({check.rows:,} rows)")
    else:
        emit([c.as_dict() for c in checks], fmt)
    bad = [c for c in checks if not c.ok]
    if bad:
        error = DicebaseError(f"{len(bad)} of {len(checks)} tables do not match their build checksums: "
                              f"{', '.join(c.table for c in bad)}; rebuild with --force")
        error.exit_code = 1
        raise error


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["sqlite", "duckdb", "parquet", "csv", "datasette"]), required=True,
              help="sqlite/duckdb: one database file; parquet/csv: a directory with one file per table and view; "
                   "datasette: a directory with dicebase.sqlite and metadata.json.")
@click.option("--out", "out", required=True, metavar="PATH",
              help="Output file (sqlite/duckdb) or directory (parquet/csv/datasette).")
@click.option("--force", is_flag=True, help="Replace an existing output (a file, or a directory of an earlier export).")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--storage-version", metavar="VERSION", default=None,
              help="--format duckdb: DuckDB storage format (default v1.1.0, readable by DuckDB 1.1 and later; 'latest').")
@db_option
def export(fmt, out, force, quiet, storage_version, db_path):
    """Copy every table and view to another store, to Parquet/CSV files or to a Datasette site.

    Views stay views in sqlite/duckdb and become files in parquet/csv. Parquet
    files carry the descriptions in their key-value metadata; CSV comes with
    csv-metadata.json (CSVW): every column's type and description. datasette
    writes DIR/dicebase.sqlite and DIR/metadata.json (descriptions and canned
    lookups); serve it with: datasette serve DIR/dicebase.sqlite -m DIR/metadata.json

    Example:

    \b
        dicebase export --format sqlite --out db/dicebase.sqlite
        dicebase export --format parquet --out db/parquet
        dicebase export --format duckdb --out db/latest.duckdb --storage-version latest
        dicebase export --format datasette --out db/datasette
    """
    from dicebase.builder.export import export as run_export

    with open_db(db_path) as db:
        written = run_export(db, fmt, out, force=force, quiet=quiet, storage_version=storage_version)
    click.echo(f"exported {len(written)} tables and views to {out}")


@cli.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 shares the advisor with every device on your network.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="TCP port (0: any free port, printed at start).")
@click.option("--timeout", default=10.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="Stop a lookup that runs longer (the answer is a 503 error).")
@click.option("--workers", type=click.IntRange(1, 64), default=None, metavar="N",
              help="Server processes, each with its own read-only connection. Default: one per core, at most 4.")
@click.option("--cache-mb", type=click.FloatRange(min=0), default=32.0, show_default=True, metavar="MB",
              help="Memory for remembered API answers, per server process (a build's answers never change); "
                   "0 turns the cache off.")
def serve(db_path, host, port, timeout, workers, cache_mb):
    """Serve the web advisor and the HTTP JSON API from the database (read-only).

    Every lookup `dicebase GAME COMMAND ... --json` is also
    GET /api/v1/GAME/COMMAND with the same options as query parameters and
    the same JSON answer; the pages at / are phone-sized advisors for each
    game. Stop it with Ctrl-C.

    Example:

    \b
        dicebase serve
        dicebase serve --db sqlite:///db/dicebase.sqlite --port 8080
        dicebase serve --workers 1 --cache-mb 0
        curl 'http://127.0.0.1:8000/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4'
    """
    try:
        from dicebase.web.server import default_workers, run
    except ImportError as exc:
        missing = (exc.name or "a module").split(".")[0]
        raise click.ClickException(f"dicebase serve needs the web extras ({missing} is missing): "
                                   "pip install 'dicebase[serve]'") from None
    run(open_db(db_path, timeout=timeout), host, port, workers=workers or default_workers(),
        cache_bytes=int(cache_mb * 1024 * 1024))


def error_line(exc: BaseException) -> tuple[str, int] | None:
    """The one line and exit code the CLI gives for an exception a user can cause; None for a bug.

    Shared by ``main`` and the web API, so both report a mistake in the same words.
    Exit codes: 2 the user's own input or path, 1 a fault of the machine (a
    full disk), 130 Ctrl-C; ``main`` gives a bug (None here) exit 1 and one
    line too (``DICEBASE_DEBUG=1`` shows its traceback).
    """
    from dicebase.query.base import DicebaseError

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; nothing was changed", 130
    if isinstance(exc, click.exceptions.UsageError):
        where = exc.ctx.command_path if exc.ctx else "dicebase"
        return f"{exc.format_message()} (see '{where} --help')", 2
    if isinstance(exc, click.exceptions.Abort):
        return "aborted", 1
    if isinstance(exc, click.ClickException):
        return exc.format_message(), exc.exit_code
    if isinstance(exc, DicebaseError):
        return str(exc), getattr(exc, "exit_code", 2)
    if isinstance(exc, OSError):
        from dicebase.query.database import file_error

        error = file_error(exc, exc.filename or "a file", "use")
        return str(error), error.exit_code
    if type(exc).__name__ == "InterruptException" or str(exc) == "Query interrupted":  # DuckDB's Ctrl-C
        return "interrupted; nothing was changed", 130
    return None


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one line on stderr for every error, never a traceback.

    Exit codes: 0 done, 2 the user's own input or path, 1 a fault of the
    machine (a full disk) or a bug, 130 Ctrl-C.  ``DICEBASE_DEBUG=1`` shows
    the traceback of a bug instead of its one line.
    """
    import os

    args = sys.argv[1:] if argv is None else list(argv)
    try:
        # make_context/invoke rather than cli.main: click's main turns Ctrl-C
        # into Abort after printing a stray newline; here every exception
        # reaches the one-line handlers below.
        with cli.make_context("dicebase", args) as ctx:
            cli.invoke(ctx)
        _flush_stdout()
        code = 0
    except BrokenPipeError:  # the reader of stdout went away (| head): not an error
        _quiet_broken_pipe()
        code = 0
    except click.exceptions.Exit as exc:  # --help, --version
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # `dicebase` or `dicebase threes` alone
        _echo_or_quit(exc.ctx.get_help())
        code = 0
    except (KeyboardInterrupt, Exception) as exc:
        line = error_line(exc)
        if line is None:
            if os.environ.get("DICEBASE_DEBUG"):
                raise
            line = (f"internal error ({type(exc).__name__}: {exc}); please report it with the command you ran "
                    "(DICEBASE_DEBUG=1 shows the traceback)", 1)
        _fail(*line)
    if argv is None and _reads_only(args):
        _exit_now(code)
    sys.exit(code)


#: Commands that only read: once their output is written this process has nothing left to do.
READ_ONLY_COMMANDS = {"threes", "rolled-ones", "ten-thousand", "info", "schema", "sql", "verify", "rules"}


def _reads_only(args: list[str]) -> bool:
    """Whether ``args`` run a read-only command, in a process nobody profiles or traces."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    return name in READ_ONLY_COMMANDS and sys.getprofile() is None and sys.gettrace() is None


def _exit_now(code: int) -> None:
    """Flush the output and end the process without the interpreter's teardown.

    A read-only command has closed its database and written its answer; tearing down
    every module and DuckDB's engine would add about 15 ms to a lookup's end to end
    time (the console script only: ``main(argv)`` called from Python returns as usual).
    """
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (already reported) or a closed stream
            pass
    os._exit(code)


def _flush_stdout() -> None:
    """Flush now, so a closed pipe is reported here and not at interpreter exit."""
    sys.stdout.flush()


def _quiet_broken_pipe() -> None:
    """After EPIPE: point stdout at /dev/null so Python's exit-time flush stays silent."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests capture stdout)
        pass


def _echo_or_quit(text: str) -> None:
    try:
        click.echo(text)
        _flush_stdout()
    except BrokenPipeError:
        _quiet_broken_pipe()


def _fail(message: str, code: int) -> None:
    import re

    # echoed input (a 5,000-digit die, a 300-character path) is cut to a readable length
    line = re.sub(r"\S{121,}", lambda m: f"{m.group(0)[:80]}...({len(m.group(0))} characters)",
                  " ".join(str(message).split()))
    if len(line) > 1000:
        line = line[:1000] + "..."
    try:
        click.echo(f"Error: {line}", err=True)
    except (BrokenPipeError, OSError):
        pass
    sys.exit(code)
