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
from dicebase.cli.common import db_option, emit, open_db, output_option, resolve_format

GAME_GROUPS = {
    "threes": "dicebase.cli.threes",
    "rolled-ones": "dicebase.cli.rolled_ones",
    "ten-thousand": "dicebase.cli.ten_thousand",
}
#: Other commands that load lazily: name -> module whose ``group`` is the command.
LAZY_COMMANDS = {**GAME_GROUPS, "rules": "dicebase.cli.rules"}


class LazyGroup(click.Group):
    """A group whose game subcommands are imported on first use."""

    def list_commands(self, ctx):
        present = {name for name, module in LAZY_COMMANDS.items() if importlib.util.find_spec(module)}
        return sorted(set(super().list_commands(ctx)) | present)

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS and importlib.util.find_spec(LAZY_COMMANDS[name]):
            return importlib.import_module(LAZY_COMMANDS[name]).group
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
@click.option("--force", is_flag=True, help="Rebuild games even when the file already has them with the same options.")
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
def build(games, db_path, force, quiet, option_texts, storage_version, threads, rules_files, force_size):
    """Solve the named games (default: all) and write their tables.

    The build writes a temporary file beside the target and renames it into
    place at the end: an interrupted build leaves the old database as it was.
    Games already built with the same options are skipped unless --force.

    Example:

    \b
        dicebase build
        dicebase build threes --db sqlite:///db/dicebase.sqlite
        dicebase build ten-thousand -o ten-thousand.goal=2000 --db db/small.duckdb
        dicebase build --storage-version v1.2.0
        dicebase build ten-thousand --threads 4
        dicebase build ten-thousand --rules our-table.toml
    """
    from dicebase.builder.pipeline import BuildError, build as run_build
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
            threads=threads, house_rules=house, force_size=force_size,
        )
    except (BuildError, ValueError) as exc:
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
@click.option("--limit", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Most rows printed in table format (0 = all); CSV and JSON print every row.")
@db_option
@output_option
def sql(query, limit, db_path, fmt, as_json):
    """Run one read-only SQL statement (SELECT/WITH/VALUES/EXPLAIN) and print the rows.

    Statements that write, attach files, install extensions or copy data out
    are refused; the database is opened read-only in any case. A query that
    starts with "--" needs a "--" before it: dicebase sql -- "-- note ...".

    Example:

    \b
        dicebase sql "SELECT name, description FROM schema_tables"
        dicebase sql "SELECT * FROM threes_expected_scores" --format csv
    """
    from dicebase.cli.common import unique_names

    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        names, rows = db.run_sql(query)
    names = unique_names(names)
    shown = rows if fmt != "table" or limit == 0 else rows[:limit]
    emit([dict(zip(names, row)) for row in shown], fmt, columns=names)
    if len(shown) < len(rows):
        click.echo(f"({len(rows) - len(shown)} more rows not shown; use --limit 0, --format csv or --json for all)", err=True)


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
def serve(db_path, host, port):
    """Serve the web advisor and the HTTP JSON API from the database (read-only).

    Every lookup `dicebase GAME COMMAND ... --json` is also
    GET /api/v1/GAME/COMMAND with the same options as query parameters and
    the same JSON answer; the pages at / are phone-sized advisors for each
    game. Stop it with Ctrl-C.

    Example:

    \b
        dicebase serve
        dicebase serve --db sqlite:///db/dicebase.sqlite --port 8080
        curl 'http://127.0.0.1:8000/api/v1/threes/best?dice=4,3,1,1,2&to_beat=7&players_after=4'
    """
    try:
        from dicebase.web.server import run
    except ImportError as exc:
        missing = (exc.name or "a module").split(".")[0]
        raise click.ClickException(f"dicebase serve needs the web extras ({missing} is missing): "
                                   "pip install 'dicebase[serve]'") from None
    run(open_db(db_path), host, port)


def error_line(exc: BaseException) -> tuple[str, int] | None:
    """The one line and exit code the CLI gives for an exception a user can cause; None for a bug.

    Shared by ``main`` and the web API, so both report a mistake in the same words.
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
        return str(exc), 2
    if type(exc).__name__ == "InterruptException" or str(exc) == "Query interrupted":  # DuckDB's Ctrl-C
        return "interrupted; nothing was changed", 130
    return None


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, exit code 2 for anything the user can fix."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        # make_context/invoke rather than cli.main: click's main turns Ctrl-C
        # into Abort after printing a stray newline; here every exception
        # reaches the one-line handlers below.
        with cli.make_context("dicebase", args) as ctx:
            cli.invoke(ctx)
        code = 0
    except click.exceptions.Exit as exc:  # --help, --version
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # `dicebase` or `dicebase threes` alone
        click.echo(exc.ctx.get_help())
        sys.exit(0)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except (KeyboardInterrupt, Exception) as exc:
        line = error_line(exc)
        if line is None:
            raise
        _fail(*line)
    sys.exit(code)


def _fail(message: str, code: int) -> None:
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    sys.exit(code)
