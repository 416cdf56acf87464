"""The build pipeline: run each game's solver once and write its tables atomically.

A build writes into a temporary file beside the target and renames it over
the target only after every table, view and metadata row is in place, so an
interrupted or failed build leaves the previous database untouched.

A build holds an exclusive lock on ``<target>.lock`` for its whole run,
from reading what the target holds to the final rename, so two builds of
one file run one after the other and neither loses the other's games.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

import dicebase
from dicebase.builder import registry
from dicebase.builder.store import (
    DUCKDB_STORAGE_VERSION,
    Writer,
    canonical_column,
    check_storage_version,
)
from dicebase.checksum import AppendedChecksum, stored_table_checksum
from dicebase.location import Location, resolve
from dicebase import SCHEMA_VERSION
from dicebase.query.base import (
    DatabaseLocked,
    DatabaseDamaged,
    DicebaseError,
    NotADicebaseDatabase,
    SchemaVersionMismatch,
    WriteFailed,
)
from dicebase.schema import CORE, DIALECT, catalogue, game_tables, game_views


class BuildError(DicebaseError):
    """A build request that cannot be carried out (bad option, incompatible file)."""


class BuildLocked(BuildError, DatabaseLocked):
    """Another build holds the target's lock (and --no-wait was given)."""


@dataclass
class TableStats:
    """Rows written and seconds spent writing them."""

    rows: int = 0
    seconds: float = 0.0


class BuildContext:
    """What a game's ``build(ctx, options)`` uses to record variants and write rows."""

    def __init__(self, game: str, writer: Writer, quiet: bool):
        self.game = game
        self.quiet = quiet
        self._writer = writer
        self._tables = {t.name: t for t in game_tables(game)}
        self.table_stats: dict[str, TableStats] = {name: TableStats() for name in self._tables}
        self.checksums = {name: AppendedChecksum(column_spec(t)) for name, t in self._tables.items()}
        self.variants: dict[str, tuple[dict, dict]] = {}
        self.steps: list[tuple[str, float]] = []
        self.notes: dict[str, Any] = {}

    def variant(self, name: str, rules: dict, solver: dict) -> None:
        """Record a variant's full rule parameters and solver settings."""
        if name in self.variants:
            raise BuildError(f"{self.game}: variant {name!r} recorded twice")
        self.variants[name] = (json.loads(json.dumps(rules)), json.loads(json.dumps(solver)))

    def note(self, key: str, value: Any) -> None:
        self.notes[key] = json.loads(json.dumps(value))

    def write(self, table_name: str, columns: dict) -> None:
        """Bulk-append rows given as equal-length numpy columns (or a scalar: that value in
        every row).  Rows appended in key order get their checksum as they are written."""
        table = self._tables.get(table_name)
        if table is None:
            raise BuildError(f"{self.game}: no table {table_name!r} in its schema")
        expected = [c.name for c in table.columns]
        if sorted(columns) != sorted(expected):
            raise BuildError(
                f"{table_name}: columns {sorted(columns)} do not match the schema's {sorted(expected)}"
            )
        ordered = {name: canonical_column(columns[name]) for name in expected}
        stats = self.table_stats[table_name]
        started = time.perf_counter()
        rows = self._writer.append(table_name, ordered)
        self.checksums[table_name].add(ordered, rows)
        stats.rows += rows
        stats.seconds += time.perf_counter() - started

    @contextlib.contextmanager
    def step(self, label: str) -> Iterator[None]:
        """Time a step; shown on stderr unless quiet, recorded in build_steps."""
        started = time.perf_counter()
        yield
        seconds = time.perf_counter() - started
        self.steps.append((label, seconds))
        if not self.quiet:
            print(f"  {self.game}: {label} ({seconds:.2f} s)", file=sys.stderr, flush=True)

    def progress(self, iterable: Iterable, label: str, length: int | None = None) -> Iterable:
        """A click progress bar over a long loop (plain iteration when quiet)."""
        if self.quiet:
            return iterable
        import click

        return _ProgressIterable(click.progressbar(iterable, length=length, label=f"  {self.game}: {label}", file=sys.stderr))


class _ProgressIterable:
    def __init__(self, bar):
        self.bar = bar

    def __iter__(self):
        with self.bar as items:
            yield from items


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
    from dicebase.rules import SizeLimit

    module = registry.load(game)
    options = dict(getattr(module, "DEFAULT_OPTIONS", {}))
    options.update({k: v for k, v in (base or {}).items() if k in options})
    for key, value in (overrides or {}).items():
        if key not in options:
            known = ", ".join(sorted(options)) or "none"
            raise BuildError(f"unknown option {key!r} for {game}; known options: {known}")
        options[key] = value
    for rules_file in house:
        options = rules_file.add_to(options)
    validate = getattr(module, "validate_options", None)
    if validate is not None:
        try:
            validate(dict(options))
        except SizeLimit as exc:
            if not force_size:
                raise BuildError(f"{exc} (or build it anyway with --force-size)") from None
        except (TypeError, ValueError) as exc:
            raise BuildError(str(exc)) from None
    return options


def _existing_games(
    loc: Location, force: bool, wanted: dict[str, dict] | None = None, quiet: bool = True
) -> dict[str, dict] | None:
    """The games in an existing database of this schema version; None when there is no file.

    A file that is not a dicebase database of this schema version (another
    program's file, a damaged file, an older dicebase file) is replaced only
    with ``force``.  A file that cannot be read now (locked by another
    process, permission denied) is never replaced: its games would be lost.
    Each game of ``wanted`` (game -> options) stored with the same options and
    package version has its tables' checksums verified: ``intact`` is False
    when they no longer match (someone changed a value), so it is rebuilt.
    """
    if not loc.path.exists():
        return None
    from dicebase.query import open as open_db
    from dicebase.query.verify import verify

    try:
        with open_db(loc, timeout=None) as db:
            info = dict(db.fetchall("SELECT key, value FROM build_info"))
            games = {
                game: {"options": json.loads(opts), "package_version": info.get("package_version"), "intact": True}
                for game, opts in db.fetchall("SELECT game, options_json FROM build_games")
            }
            to_check = [
                g for g, opts in (wanted or {}).items()
                if g in games and games[g]["options"] == opts and games[g]["package_version"] == dicebase.__version__
            ]
            if to_check:
                if not quiet:
                    print(f"checking the stored tables of {', '.join(to_check)} against their checksums ...",
                          file=sys.stderr, flush=True)
                for check in verify(db, to_check):
                    games[check.game]["intact"] &= check.ok
    except (NotADicebaseDatabase, DatabaseDamaged, SchemaVersionMismatch) as exc:
        if force:
            return None
        raise BuildError(f"{loc.path} is in the way: {exc}; use --force to replace it") from None
    except DicebaseError as exc:
        raise BuildError(f"cannot build into {loc.path}: {exc}") from None
    return games


LEFTOVER_PATTERNS = ("{name}.tmp-*", "{name}.old-*")


def remove_leftovers(target: Path) -> list[Path]:
    """Remove temporary files and folders an interrupted build or export of ``target`` left.

    A leftover is named ``<target>.tmp-PID`` (or ``.old-PID``, with suffixes
    such as ``.wal``); it is removed when process PID no longer runs, or is
    this process (the caller holds the target's lock, so it is not in use).
    Returns what was removed.
    """
    removed = []
    for pattern in LEFTOVER_PATTERNS:
        for stale in target.parent.glob(pattern.format(name=glob_escape(target.name))):
            pid_text = stale.name[len(target.name) + 5:].split(".")[0]
            if not pid_text.isdigit():
                continue
            pid = int(pid_text)
            if pid != os.getpid() and _process_alive(pid):
                continue
            try:
                if stale.is_dir() and not stale.is_symlink():
                    shutil.rmtree(stale)
                else:
                    stale.unlink()
            except OSError:
                continue  # not ours to remove (permissions): leave it
            removed.append(stale)
    return removed


def glob_escape(name: str) -> str:
    import glob

    return glob.escape(name)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


@contextlib.contextmanager
def target_lock(target: Path, *, wait: bool = True, quiet: bool = False) -> Iterator[None]:
    """Hold the exclusive lock ``<target>.lock`` (filelock) while the body runs.

    The holder writes its pid into the lock file, so a second build can say
    whom it waits for.  With ``wait=False`` a held lock raises BuildLocked at once.
    """
    from filelock import FileLock, Timeout

    lock_path = target.with_name(target.name + ".lock")

    def record_holder(fd: int) -> None:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    lock = FileLock(lock_path, on_acquired=record_holder, fallback_to_soft=False)
    try:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            holder = _lock_holder(lock_path)
            if not wait:
                raise BuildLocked(
                    f"{target} is being built by another process{holder}; wait for it, "
                    "or run again without --no-wait to queue behind it"
                ) from None
            if not quiet:
                print(f"waiting for the build of {target} by another process{holder} to finish ...",
                      file=sys.stderr, flush=True)
            lock.acquire()
    except OSError as exc:
        raise _write_error(exc, lock_path) from None
    try:
        yield
    finally:
        lock.release()


def _lock_holder(lock_path: Path) -> str:
    try:
        text = lock_path.read_text().strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


def _write_error(exc: BaseException, path: Path) -> DicebaseError:
    """A failure to write a build or export as one line; the old file is unchanged."""
    from dicebase.query.database import file_error

    if isinstance(exc, OSError):
        error = file_error(exc, path, "write")
    else:
        message = " ".join(str(exc).split())
        low = message.lower()
        full = "full" in low or "no space" in low or "async write failed" in low
        error = WriteFailed(f"cannot write {path}: {'no space left on the device' if full else message[:200]}")
        if full:
            error.exit_code = 1
    failed = WriteFailed(f"{error}; the old file, if any, is unchanged")
    failed.exit_code = error.exit_code
    return failed


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
        built = {g: e["options"] for g, e in (_existing_games(loc, force) or {}).items()}
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

    try:
        if loc.path.is_dir():
            raise BuildError(f"{loc.path} is a directory; give a database file path, e.g. {loc.path / 'dicebase.duckdb'}")
        loc.path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(exc, loc.path) from None
    with target_lock(loc.path, wait=wait, quiet=quiet):
        remove_leftovers(loc.path)
        return _build_locked(loc, names, game_options, force, quiet, storage_version, threads)


def _build_locked(
    loc: Location, names: list[str], game_options: dict, force: bool, quiet: bool,
    storage_version: str | None, threads: int,
) -> BuildReport:
    """The build proper, under the target's lock: what the file holds now is what is kept."""
    existing = _existing_games(loc, force, None if force else game_options, quiet)
    up_to_date = [
        g
        for g in names
        if existing
        and g in existing
        and existing[g]["options"] == game_options[g]
        and existing[g]["package_version"] == dicebase.__version__
        and existing[g]["intact"]
    ]
    todo = names if force else [g for g in names if g not in up_to_date]
    convert = loc.store == "duckdb" and existing is not None and _storage_version(loc) != storage_version
    if not todo and not convert:
        return BuildReport(loc, [], names, 0.0)
    reuse = {} if force else _reusable_variants(loc, existing, todo, game_options, quiet)

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
            if loc.store == "duckdb":
                writer = Writer(temp, loc.store, storage_version=storage_version, copy_from=loc.path if copy else None)
            else:
                if copy:
                    shutil.copyfile(loc.path, temp)
                writer = Writer(temp, loc.store)
            if copy:
                _forget_games(writer, [g for g in todo if g not in reuse])
            else:
                for t in game_tables(CORE):
                    writer.create_table(t)
            for game in todo:
                kept = _forget_variants(writer, game, reuse[game]) if game in reuse else None
                _build_game(writer, game, game_options[game], quiet, kept)
            _write_catalogue(writer, [g for g in registry.GAMES if g in set(keep) | set(todo)])
            _write_build_info(writer, loc, time.perf_counter() - started, storage_version, threads)
            writer.close()
            writer = None
            os.replace(temp, loc.path)
        except (OSError, sqlite3.Error) as exc:
            raise _write_error(exc, loc.path) from None
        except Exception as exc:
            if not _is_engine_io_error(exc):
                raise
            raise _write_error(exc, loc.path) from None
    finally:
        if writer is not None:
            writer.abort()
        for leftover in (temp, temp.with_name(temp.name + ".wal")):
            with contextlib.suppress(OSError):
                leftover.unlink(missing_ok=True)
        numba.set_num_threads(threads_before)
    return BuildReport(
        loc, todo, [g for g in names if g not in todo], time.perf_counter() - started, storage_version
    )


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


def _storage_version(loc: Location) -> str | None:
    """The DuckDB storage version an existing dicebase file records (None: not recorded)."""
    from dicebase.query import open as open_db
    from dicebase.query.base import DicebaseError

    try:
        with open_db(loc) as db:
            row = db.fetchone("SELECT value FROM build_info WHERE key = 'duckdb_storage_version'")
    except DicebaseError:
        return None
    return row[0] if row else None


def _is_engine_io_error(exc: BaseException) -> bool:
    """A DuckDB error from writing the file (disk full, I/O), as opposed to a bug in a solver."""
    return type(exc).__module__.startswith(("duckdb", "_duckdb")) and type(exc).__name__ in (
        "IOException", "OutOfMemoryException", "FatalException", "PermissionException",
    )


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


def _reusable_variants(
    loc: Location, existing: dict | None, todo: list[str], game_options: dict, quiet: bool
) -> dict[str, list[str]]:
    """Per game to build, the variants whose rows the existing file already holds as this build
    would write them: same package version (so the same schema and solver code), same
    fingerprint (normalised rules and solver settings, the game's ``variant_fingerprints``),
    and the game's tables intact (their checksums verified), as for an up-to-date game."""
    reuse = {}
    for game in todo:
        module = registry.load(game)
        entry = (existing or {}).get(game)
        if (entry is None or entry["package_version"] != dicebase.__version__
                or not hasattr(module, "variant_fingerprints")):
            continue
        try:
            before = module.variant_fingerprints(dict(entry["options"]))
        except (TypeError, ValueError, KeyError):  # options this version no longer reads: rebuild
            continue
        after = module.variant_fingerprints(dict(game_options[game]))
        same = [name for name, fingerprint in after.items() if before.get(name) == fingerprint]
        if same and _intact(loc, game, quiet):
            reuse[game] = same
    return reuse


def _intact(loc: Location, game: str, quiet: bool) -> bool:
    from dicebase.query import open as open_db
    from dicebase.query.verify import verify

    if not quiet:
        print(f"checking the stored tables of {game} against their checksums (to keep its unchanged variants) ...",
              file=sys.stderr, flush=True)
    try:
        with open_db(loc, timeout=None) as db:
            return all(check.ok for check in verify(db, [game]))
    except DicebaseError:
        return False


def _forget_variants(writer: Writer, game: str, kept: list[str]) -> KeptVariants:
    """Remove from a copied database every row of ``game`` but those of the ``kept`` variants
    (the first key column of each of its tables names the variant); its views and metadata
    are written again by the build."""
    relations = writer.relations()
    for view in game_views(game):
        if view.name in relations:
            writer.drop(view.name, "view")
    marks = ", ".join("?" for _ in kept)
    for t in game_tables(game):
        variant_column = list(t.primary_key.columns)[0].name
        if t.name not in relations:
            writer.create_table(t)
        else:
            writer.execute(f"DELETE FROM {t.name} WHERE {variant_column} NOT IN ({marks})", kept)
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
    return KeptVariants(list(kept), {k: v for k, v in notes.items() if k not in dropped}, steps)


def _build_game(writer: Writer, game: str, options: dict[str, Any], quiet: bool,
                kept: KeptVariants | None = None) -> None:
    """Solve ``game`` and write its tables, views and metadata; with ``kept``, its tables already
    hold the rows of the kept variants and only the other variants are solved."""
    module = registry.load(game)
    if kept is None:
        for t in game_tables(game):
            writer.create_table(t)
    ctx = BuildContext(game, writer, quiet)
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
    # a table that kept rows from the old file is read back: the appended rows are not all of it
    checksums = {
        t.name: (ctx.checksums[t.name].hexdigest() if kept is None else None)
        or stored_table_checksum(writer.con, writer.store, t.name, column_spec(t))
        for t in game_tables(game)
    }
    rows = {name: s.rows if kept is None else writer.execute(f"SELECT count(*) FROM {name}")[0][0]
            for name, s in ctx.table_stats.items()}
    writer.insert_rows(
        "build_tables",
        ["table_name", "game", "row_count", "checksum", "write_seconds"],
        [(name, game, rows[name], checksums[name], s.seconds) for name, s in ctx.table_stats.items()],
    )
    if not quiet:
        print(f"built {game} in {seconds:.2f} s", file=sys.stderr, flush=True)


def column_spec(table) -> list[tuple[str, str, bool]]:
    """(name, SQL type as in schema_columns, is_key) per column, in schema order."""
    return [(c.name, c.type.compile(dialect=DIALECT), bool(c.primary_key)) for c in table.columns]


def _write_catalogue(writer: Writer, games: list[str]) -> None:
    """Rewrite the catalogue rows of core and ``games`` (rows of games this version does
    not know, kept from the file, stay as they were); in DuckDB also COMMENT ON every
    table, view and column."""
    table_rows, column_rows = catalogue(games)
    rewritten = [CORE, *games]
    marks = ", ".join("?" for _ in rewritten)
    writer.execute(
        f"DELETE FROM schema_columns WHERE table_name IN (SELECT name FROM schema_tables WHERE game IN ({marks}))",
        rewritten,
    )
    writer.execute(f"DELETE FROM schema_tables WHERE game IN ({marks})", rewritten)
    writer.insert_rows("schema_tables", ["name", "kind", "game", "description"], table_rows)
    writer.insert_rows(
        "schema_columns",
        ["table_name", "position", "column_name", "data_type", "is_key", "description"],
        column_rows,
    )
    writer.describe(
        [t for game in [CORE, *games] for t in game_tables(game)],
        [v for game in games for v in game_views(game)],
    )


def _write_build_info(
    writer: Writer, loc: Location, seconds: float, storage_version: str | None, threads: int
) -> None:
    import duckdb
    import sqlalchemy

    games = [g for (g,) in writer.execute("SELECT game FROM build_games ORDER BY game")]
    facts = {
        "package_version": dicebase.__version__,
        "schema_version": str(SCHEMA_VERSION),
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "store": loc.store,
        "games": ",".join(games),
        "last_build_seconds": f"{seconds:.3f}",
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "duckdb_version": duckdb.__version__,
        "sqlalchemy_version": sqlalchemy.__version__,
        "machine": f"{platform.machine()} {os.cpu_count()} cores",
        "threads": str(threads),  # solver threads of the last build (answers do not depend on it)
    }
    if loc.store == "duckdb":
        facts["duckdb_storage_version"] = storage_version
    writer.execute("DELETE FROM build_info")
    writer.insert_rows("build_info", ["key", "value"], sorted(facts.items()))


__all__ = ["BuildContext", "BuildError", "BuildLocked", "BuildReport", "build", "parse_options", "remove_leftovers", "target_lock"]
