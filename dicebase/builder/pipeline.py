"""The build pipeline: run each game's solver once and write its tables atomically.

A build writes into a temporary file beside the target and renames it over
the target only after every table, view and metadata row is in place, so an
interrupted or failed build leaves the previous database untouched.  It holds
the target's lock from reading what the target holds to the final rename.

This module decides what to solve and runs the steps; the pieces it runs live beside it:
``target`` (the lock, leftovers, write errors), ``existing`` (what the target already
holds, read before the build), ``context`` (what a solver writes through), ``metadata``
(the catalogue and build_info) and ``store`` (the writer of both stores).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dicebase.builder import registry
from dicebase.builder.context import BuildContext
from dicebase.builder.levels import Levels, checkpoint_root, remove_checkpoints
from dicebase.builder.existing import existing_games, intact, storage_version_of
from dicebase.builder.metadata import column_spec, write_build_info, write_catalogue
from dicebase.builder.store import DUCKDB_STORAGE_VERSION, Writer, check_storage_version
from dicebase.builder.target import (  # noqa: F401  (BuildLocked, remove_leftovers, target_lock: this module's API too)
    BuildError,
    BuildLocked,
    is_engine_io_error,
    make_parent,
    real_path,
    remove_leftovers,
    target_lock,
    write_error,
)
from dicebase.checksum import CHECKSUMS_KEY, file_stamp, stored_table_checksum
from dicebase.location import Location, resolve
from dicebase.schema import CORE, game_tables, game_views
from dicebase import version


@dataclass
class BuildReport:
    location: Location
    built: list[str]
    skipped: list[str]
    seconds: float
    storage_version: str | None = None  # DuckDB: the storage format the file was (re)written in; None if untouched


def parse_options(game: str, overrides: dict[str, Any] | None, *, base: dict | None = None,
                  house: list | tuple = (), force_size: bool = False) -> dict[str, Any]:
    """Defaults updated by ``overrides``, checked by the game's ``validate_options`` if it has one.

    ``base`` (the options a database was built with) replaces the defaults it names; each of
    ``house`` (:class:`dicebase.rules.files.HouseRules`) then adds its variant.  A solve the
    game estimates too large (:class:`dicebase.rules.SizeLimit`) is refused unless ``force_size``.
    Runs before any file is touched, so a bad option costs nothing.
    """
    from dicebase.errors import SizeLimit

    module = registry.load(game)
    options = dict(module.DEFAULT_OPTIONS)
    options.update({k: v for k, v in (base or {}).items() if k in options})
    for key, value in (overrides or {}).items():
        if key not in options:
            known = ", ".join(sorted(options)) or "none"
            raise BuildError(f"unknown option {key!r} for {game}; known options: {known}")
        options[key] = value
    for rules_file in house:
        options = rules_file.add_to(options)
    if isinstance(module, registry.ChecksOptions):
        try:
            module.validate_options(dict(options))
        except SizeLimit as exc:
            if not force_size:
                raise BuildError(f"{exc} (or build it anyway with --force-size)") from None
        except (TypeError, ValueError) as exc:
            raise BuildError(str(exc)) from None
    return options


def build(
    games: list[str] | None = None,
    target: str | os.PathLike | Location | None = None,
    *,
    force: bool = False,
    quiet: bool = False,
    options: dict[str, dict[str, Any]] | None = None,
    wait: bool = True,
    storage_version: str | None = None,
    threads: int | None = None,
    house_rules: list | tuple = (),
    force_size: bool = False,
    cluster: str | None = None,
    resume: bool = False,
) -> BuildReport:
    """Build ``games`` (default: all) into ``target`` (default: db/dicebase.duckdb).

    Games already in the target with the same package version, schema version
    and options are skipped unless ``force``.  Every other game already in the
    file is kept, with or without ``force``.  The build holds the target's lock
    from reading it to the final rename; ``wait=False`` fails at once with
    BuildLocked when another build holds it.  A DuckDB file is written in
    ``storage_version``'s format (default DUCKDB_STORAGE_VERSION, readable by
    DuckDB 1.1 and later); an existing file in another format is rewritten in
    this one.  The solvers run on ``threads`` threads (default: every core);
    their answers do not depend on it (docs/DESIGN.md).  Raises BuildError for
    bad requests and WriteFailed when the output cannot be written; any solver
    error propagates after the temporary file is removed.

    ``house_rules`` (checked rules files, :func:`dicebase.rules.files.load`) add their
    variants to what the target already holds for their game (or to the game's defaults);
    ``force_size`` builds rule sets whose estimated solve exceeds the limits.

    ``cluster`` runs the N-player level loops on Dask (``local:N`` or a scheduler address,
    :mod:`dicebase.builder.cluster`; the values are the same).  Every finished level of an
    N-player solve is checkpointed in ``.<target name>.levels/`` beside the target, removed when
    the build succeeds; ``resume`` replays the verified checkpoints an interrupted build left
    instead of removing them (docs/cluster.md).
    """
    if house_rules and not games:
        games = [h.game for h in house_rules]
    try:
        loc = target if isinstance(target, Location) else resolve(target)
        names = [registry.canonical(g) for g in (games or list(registry.GAMES))]
    except (TypeError, ValueError, AttributeError) as exc:
        raise BuildError(str(exc) if isinstance(exc, ValueError) else
                         f"give the target as a path or URL and the games as names ({exc})") from None
    names = list(dict.fromkeys(names))
    overrides = {registry.canonical(g): o for g, o in (options or {}).items()}
    stray = set(overrides) - set(names)
    if stray:
        raise BuildError(f"options given for games not being built: {', '.join(sorted(stray))}")
    stray = {h.game for h in house_rules} - set(names)
    if stray:
        raise BuildError(f"rules files given for games not being built: {', '.join(sorted(stray))}")
    built = {}
    if house_rules and not loc.path.is_dir():
        built = {g: e["options"] for g, e in (existing_games(loc, force) or {}).items()}
    game_options = {
        g: parse_options(g, overrides.get(g), base=built.get(g), force_size=force_size,
                         house=[h for h in house_rules if h.game == g])
        for g in names
    }
    if loc.store == "duckdb":
        storage_version = storage_version or DUCKDB_STORAGE_VERSION
        try:
            check_storage_version(storage_version)
        except ValueError as exc:
            raise BuildError(str(exc)) from None
    elif storage_version is not None:
        raise BuildError("--storage-version applies to DuckDB files only, not to SQLite")

    threads = _solver_threads(threads)
    if cluster is not None:
        from dicebase.builder.cluster import parse_address, require_dask

        parse_address(cluster)
        require_dask()

    # through a symbolic link: write (and lock) the file it points to, and keep the link
    real = real_path(loc.path)
    if real != loc.path:
        loc = Location(real, loc.store)
    try:
        if loc.path.is_dir():
            raise BuildError(f"{loc.path} is a directory; give a database file path, e.g. {loc.path / 'dicebase.duckdb'}")
    except OSError as exc:
        raise write_error(exc, loc.path) from None
    make_parent(loc.path)
    with target_lock(loc.path, wait=wait, quiet=quiet):
        remove_leftovers(loc.path)
        return _build_locked(loc, names, game_options, force, quiet, storage_version, threads, cluster, resume)


def _build_locked(
    loc: Location, names: list[str], game_options: dict, force: bool, quiet: bool,
    storage_version: str | None, threads: int, cluster: str | None = None, resume: bool = False,
) -> BuildReport:
    """The build proper, under the target's lock: what the file holds now is what is kept."""
    existing = existing_games(loc, force, None if force else game_options, quiet)
    up_to_date = [
        g
        for g in names
        if existing
        and g in existing
        and existing[g]["options"] == game_options[g]
        and existing[g]["package_version"] == version.__version__
        and existing[g]["intact"]
    ]
    todo = names if force else [g for g in names if g not in up_to_date]
    convert = loc.store == "duckdb" and existing is not None and storage_version_of(loc) != storage_version
    if not todo and not convert:
        return BuildReport(loc, [], names, 0.0)
    reuse, complete = ({}, set()) if force else _reusable_variants(loc, existing, todo, game_options, quiet)
    # rows removed (a game or rule set built again): the file is rewritten, which leaves no room behind
    removes = any(g in (existing or {}) and g not in complete for g in todo)

    checkpoints = checkpoint_root(loc.path)
    if not resume:
        remove_checkpoints(checkpoints)  # an earlier run's, not asked for: start afresh
    connection = None
    temp = loc.path.with_name(f"{loc.path.name}.tmp-{os.getpid()}")
    # every other game in the file is kept, even one this version does not know
    keep = [g for g in (existing or {}) if g not in todo]
    started = time.perf_counter()
    writer = None
    import numba

    threads_before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        try:
            copy = bool(keep or reuse)
            log = _pending_log(loc)
            writer = _start_from(loc, temp, storage_version, copy, convert or removes, log)
            if copy:
                _forget_games(writer, [g for g in todo if g not in reuse])
            else:
                for t in game_tables(CORE):
                    writer.create_table(t)
            levels = Levels(checkpoints=checkpoints, resume=resume)
            if cluster is not None:
                from dicebase.builder.cluster import DaskRunner, connect

                connection = connect(cluster)
                levels.runner = DaskRunner(connection.client, name=connection.address)
            for game in todo:
                kept = _forget_variants(writer, game, reuse[game]) if game in reuse else None
                _build_game(writer, game, game_options[game], quiet, kept, levels)
            write_catalogue(writer, [g for g in registry.GAMES if g in set(keep) | set(todo)])
            write_build_info(writer, loc, time.perf_counter() - started, storage_version, threads)
            facts = dict(writer.execute("SELECT key, value FROM build_info WHERE key IN ('built_at', ?)",
                                        (CHECKSUMS_KEY,)))
            writer.close()
            writer = None
            _stamp(temp, facts)
            if log is not None:  # what it held was read with the file; left beside the new one it would damage it
                log.unlink(missing_ok=True)
            os.replace(temp, loc.path)
            remove_checkpoints(checkpoints)
        except (OSError, sqlite3.Error) as exc:
            raise write_error(exc, loc.path) from None
        except Exception as exc:
            if not is_engine_io_error(exc):
                raise
            raise write_error(exc, loc.path) from None
    finally:
        if connection is not None:
            connection.close()
        if writer is not None:
            writer.abort()
        for leftover in (temp, temp.with_name(temp.name + ".wal")):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        numba.set_num_threads(threads_before)
    return BuildReport(
        loc, todo, [g for g in names if g not in todo], time.perf_counter() - started, storage_version
    )


def _pending_log(loc: Location):
    """The write-ahead log beside the target (changes a killed process left unapplied), or None."""
    log = loc.path.with_name(loc.path.name + (".wal" if loc.store == "duckdb" else "-wal"))
    return log if log.exists() else None


def _start_from(loc: Location, temp, storage_version: str | None, copy: bool, rewrite: bool, log=None) -> Writer:
    """The writer of the temporary file: empty, or (``copy``) starting as the target's copy.

    A copy is the file's bytes (the build then appends inside the copy), unless the file must be
    read through its engine: a DuckDB file to ``rewrite`` (in another storage format, or losing
    rows: DuckDB keeps the room deleted rows took, a rewrite does not), or a file with a
    write-ahead ``log`` beside it (whose changes the bytes lack).  Rewriting a large file
    (DuckDB's COPY FROM DATABASE decodes and compresses every table again) costs more than
    solving a rule set to add to it."""
    if not copy:
        return Writer(temp, loc.store, storage_version=storage_version)
    if loc.store == "duckdb" and (rewrite or log is not None):
        return Writer(temp, loc.store, storage_version=storage_version, copy_from=loc.path)
    if log is not None:  # SQLite: its backup copies the pages the log holds too
        source = sqlite3.connect(Path(loc.path).resolve().as_uri() + "?mode=ro", uri=True)
        copied = sqlite3.connect(str(temp))
        try:
            source.backup(copied)
        finally:
            copied.close()
            source.close()
    else:
        shutil.copyfile(loc.path, temp)
    return Writer(temp, loc.store, storage_version=storage_version)


def _stamp(path, facts: dict) -> None:
    """Give the finished file its build's stamp as its modification time
    (:func:`dicebase.checksum.file_stamp`): the next build then knows it unchanged without reading
    its tables.  A file system that cannot keep the time only costs that build the reading."""
    stamp = file_stamp(facts.get("built_at"), facts.get(CHECKSUMS_KEY))
    if stamp is not None:
        with contextlib.suppress(OSError):
            os.utime(path, ns=(time.time_ns(), stamp))


def _solver_threads(threads: int | None) -> int:
    """The solver thread count: ``threads``, or every core numba may use (NUMBA_NUM_THREADS)."""
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return most
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= most:
        raise BuildError(
            f"--threads must be a whole number from 1 to {most} (this machine's cores; "
            f"set NUMBA_NUM_THREADS for more), got {threads!r}"
        )
    return threads


def _forget_games(writer: Writer, games: list[str]) -> None:
    """Remove every trace of ``games`` from a copied database before rebuilding them."""
    relations = writer.relations()
    for game in games:
        for view in game_views(game):
            if view.name in relations:
                writer.drop(view.name, "view")
        for t in game_tables(game):
            if t.name in relations:
                writer.drop(t.name, "table")
        for meta in ("build_games", "build_variants", "build_steps", "build_tables"):
            writer.execute(f"DELETE FROM {meta} WHERE game = ?", (game,))


@dataclass
class KeptVariants:
    """Variants of a game copied from the existing file into the new one (not solved again)."""

    names: list[str]
    notes: dict[str, Any]  # the game's build notes, less those of the variants not kept
    steps: list[tuple[str, float]]  # the steps that built them
    #: table -> (rows, checksum) as the old file records them, for each table that lost no rows
    #: (the checksums were verified, or the file is unchanged since the build that recorded them)
    unchanged: dict[str, tuple[int, str]] = dataclasses.field(default_factory=dict)


def _reusable_variants(
    loc: Location, existing: dict | None, todo: list[str], game_options: dict, quiet: bool
) -> tuple[dict[str, list[str]], set[str]]:
    """Per game to build, the variants whose rows the existing file already holds as this build
    would write them: same package version (so the same schema and solver code), same
    fingerprint (normalised rules and solver settings, the game's ``variant_fingerprints``),
    and the game's tables intact (their checksums verified), as for an up-to-date game.  Also
    the games that keep every variant the file holds (the build only adds to them)."""
    reuse, complete = {}, set()
    for game in todo:
        module = registry.load(game)
        entry = (existing or {}).get(game)
        if (entry is None or entry["package_version"] != version.__version__
                or not isinstance(module, registry.AddsVariants)):
            continue
        try:
            before = module.variant_fingerprints(dict(entry["options"]))
        except (TypeError, ValueError, KeyError):  # options this version no longer reads: rebuild
            continue
        after = module.variant_fingerprints(dict(game_options[game]))
        same = [name for name, fingerprint in after.items() if before.get(name) == fingerprint]
        if same and intact(loc, game, quiet):
            reuse[game] = same
            if set(before) <= set(same):
                complete.add(game)
    return reuse, complete


def _forget_variants(writer: Writer, game: str, kept: list[str]) -> KeptVariants:
    """Remove from a copied database every row of ``game`` but those of the ``kept`` variants
    (the first key column of each of its tables names the variant); its views and metadata
    are written again by the build."""
    relations = writer.relations()
    for view in game_views(game):
        if view.name in relations:
            writer.drop(view.name, "view")
    marks = ", ".join("?" for _ in kept)
    recorded = {table: (rows, checksum) for table, rows, checksum in writer.execute(
        "SELECT table_name, row_count, checksum FROM build_tables WHERE game = ?", (game,))}
    unchanged = {}
    for t in game_tables(game):
        variant_column = list(t.primary_key.columns)[0].name
        if t.name not in relations:
            writer.create_table(t)
            continue
        deleted = writer.delete(f"DELETE FROM {t.name} WHERE {variant_column} NOT IN ({marks})", kept)
        if t.name in recorded and not deleted:
            unchanged[t.name] = recorded[t.name]  # no row deleted: the table the checksum was recorded for
    rows = writer.execute("SELECT notes_json FROM build_games WHERE game = ?", (game,))
    notes = json.loads(rows[0][0]) if rows and rows[0][0] else {}
    old = [v for (v,) in writer.execute("SELECT variant FROM build_variants WHERE game = ?", (game,))]
    dropped = set(old) - set(kept)
    steps = [(label, sec) for label, sec in writer.execute(
        "SELECT step, seconds FROM build_steps WHERE game = ? ORDER BY seq", (game,))
        if not any(label.startswith(f"{v}:") or label.startswith(f"{v} ") for v in dropped)]
    writer.execute(f"DELETE FROM build_variants WHERE game = ? AND variant NOT IN ({marks})", (game, *kept))
    for meta in ("build_games", "build_steps", "build_tables"):
        writer.execute(f"DELETE FROM {meta} WHERE game = ?", (game,))
    return KeptVariants(list(kept), {k: v for k, v in notes.items() if k not in dropped}, steps, unchanged)


def _build_game(writer: Writer, game: str, options: dict[str, Any], quiet: bool,
                kept: KeptVariants | None = None, levels: Levels | None = None) -> None:
    """Solve ``game`` and write its tables, views and metadata; with ``kept``, its tables already
    hold the rows of the kept variants and only the other variants are solved."""
    module = registry.load(game)
    if kept is None:
        for t in game_tables(game):
            writer.create_table(t)
    ctx = BuildContext(game, writer, quiet)
    if levels is not None:
        ctx.levels = dataclasses.replace(levels, progress=None if quiet else ctx.progress_bar,
                                         say=None if quiet else _say)
    if not quiet:
        print(f"building {game} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    if kept is None:
        module.build(ctx, dict(options))
    else:
        ctx.steps.extend(kept.steps)
        ctx.notes.update(kept.notes)
        wanted = [v for v in module.variant_fingerprints(dict(options)) if v not in kept.names]
        if not quiet:
            print(f"  {game}: keeping {', '.join(kept.names)} from the existing file (unchanged)", file=sys.stderr)
        if wanted:
            module.build(ctx, module.options_for_variants(dict(options), wanted))
    for view in game_views(game):
        writer.create_view(view)
    seconds = time.perf_counter() - started
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    writer.insert_rows(
        "build_games",
        ["game", "options_json", "notes_json", "build_seconds", "built_at"],
        [(game, json.dumps(options, sort_keys=True), json.dumps(ctx.notes, sort_keys=True), seconds, now)],
    )
    writer.insert_rows(
        "build_variants",
        ["game", "variant", "rules_json", "solver_json"],
        [(game, name, json.dumps(r, sort_keys=True), json.dumps(s, sort_keys=True)) for name, (r, s) in ctx.variants.items()],
    )
    writer.insert_rows(
        "build_steps",
        ["game", "seq", "step", "seconds"],
        [(game, seq, label, sec) for seq, (label, sec) in enumerate(ctx.steps, start=1)],
    )
    # a table that kept rows from the old file and got new ones is read back (the appended rows
    # are not all of it); one that got none and lost none keeps the checksum recorded for it
    checksums, rows = {}, {}
    for t in game_tables(game):
        appended = ctx.table_stats[t.name].rows
        if kept is not None and not appended and t.name in kept.unchanged:
            rows[t.name], checksums[t.name] = kept.unchanged[t.name]
            continue
        checksums[t.name] = ((ctx.checksums[t.name].hexdigest() if kept is None else None)
                             or stored_table_checksum(writer.con, writer.store, t.name, column_spec(t)))
        rows[t.name] = appended if kept is None else writer.execute(f"SELECT count(*) FROM {t.name}")[0][0]
    writer.insert_rows(
        "build_tables",
        ["table_name", "game", "row_count", "checksum", "write_seconds"],
        [(name, game, rows[name], checksums[name], s.seconds) for name, s in ctx.table_stats.items()],
    )
    if not quiet:
        print(f"built {game} in {seconds:.2f} s", file=sys.stderr, flush=True)


def _say(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


__all__ = ["BuildContext", "BuildError", "BuildLocked", "BuildReport", "build", "parse_options", "remove_leftovers", "target_lock"]
