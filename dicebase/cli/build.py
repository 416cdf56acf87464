"""``dicebase build`` and ``dicebase export``: the commands that write database files (dicebase.builder)."""

from __future__ import annotations

import click

from dicebase.present import db_option, open_db


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
    except RecursionError:  # issue 34: JSON arrays nested thousands deep
        raise click.BadParameter(f"{head}: the value is nested too deeply", param_hint="--option") from None
    return game, key, value


@click.command()
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
@click.option("--cluster", metavar="ADDRESS|local:N", default=None,
              help="Solve the N-player levels on Dask: an existing scheduler (tcp://HOST:8786 or a scheduler "
                   "file) or local:N (N worker processes here). Needs pip install 'dicebase[cluster]'; "
                   "the answers are the same (docs/cluster.md).")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted build from its last finished N-player level (the checkpoints in "
                   ".NAME.levels/ beside the target; removed when the build succeeds).")
def build(games, db_path, force, no_wait, quiet, option_texts, storage_version, threads, rules_files, force_size,
          cluster, resume):
    """Solve the named games (default: all) and write their tables.

    The build writes a temporary file beside the target and renames it into
    place at the end: an interrupted build leaves the old database as it was.
    Games already built with the same options are skipped unless --force;
    games already in the file and not named are always kept. A build locks
    the target (TARGET.lock) for its whole run: a second build of the same
    file waits for it (or fails at once with --no-wait).

    N-player solves run level by level; --cluster sends each level's chunks
    to Dask workers, and every finished level is checkpointed so that a
    killed build run again with --resume goes on from there.

    Example:

    \b
        dicebase build
        dicebase build threes --db sqlite:///db/dicebase.sqlite
        dicebase build ten-thousand -o ten-thousand.goal=2000 --db db/small.duckdb
        dicebase build --storage-version v1.2.0
        dicebase build ten-thousand --threads 4
        dicebase build ten-thousand --rules our-table.toml
        dicebase build rolled-ones -o rolled-ones.players=[2,3] --cluster local:2
        dicebase build rolled-ones -o rolled-ones.players=[2,3] --cluster tcp://10.0.0.5:8786 --resume
    """
    from dicebase.builder.pipeline import build as run_build
    from dicebase.errors import BadInput
    from dicebase.location import resolve
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
            cluster=cluster, resume=resume,
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


@click.command()
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
