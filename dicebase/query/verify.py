"""Recompute the checksums of the whole file and compare them with those the build stored.

What is compared (the formulas are in ``dicebase.checksum``):

* every game table, with the row count and checksum in ``build_tables``;
* every metadata table (build_info, build_games, build_variants, build_steps, build_tables,
  schema_tables, schema_columns) and every view's definition, with the ``checksum:`` rows of
  ``build_info``, and those rows with ``checksum:checksums``;
* the relations themselves: a table or view the catalogue (``schema_tables``) names but the
  file lacks is MISSING, one the file has but the build did not write is EXTRA.

A file built before the metadata and views had checksums (no ``checksum:`` rows) has its game
tables checked as before, and its metadata tables and views reported as ``not checked``, which
is not a failure.  A table the engine cannot read (a damaged block) is UNREADABLE.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dicebase.errors import BadInput, DatabaseDamaged, DicebaseError, QueryFailed, clip, rebuild_hint

IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")
CORE = "core"
#: statuses that are not a failure
PASSING = ("ok", "not checked")
OLD_FILE = ("built before dicebase recorded checksums of the metadata tables and view definitions; "
            "rebuild with --force to record them")


@dataclass(frozen=True)
class TableCheck:
    """One table or view of the file, checked.  ``status``: ok, MISMATCH, MISSING, EXTRA,
    UNREADABLE, or ``not checked`` (no checksum was recorded: a file built by an earlier
    version); ``note`` says why when it is not ok."""

    table: str
    game: str
    ok: bool
    rows: int
    stored_rows: int
    stored: str
    computed: str
    kind: str = "table"
    status: str = ""
    note: str = ""

    def __post_init__(self):
        if not self.status:
            object.__setattr__(self, "status", "ok" if self.ok else "MISMATCH")

    def line(self) -> str:
        """One line for a person: status, name, rows (tables) and why (when not ok)."""
        what = f"({self.rows:,} rows)" if self.kind == "table" and self.status in ("ok", "MISMATCH") else f"({self.kind})"
        return f"{self.status:8}  {self.table}  {what}" + (f": {self.note}" if self.note else "")

    def as_dict(self) -> dict:
        return {"table": self.table, "kind": self.kind, "game": self.game, "status": self.status,
                "rows": self.rows, "stored_rows": self.stored_rows,
                "stored_checksum": self.stored, "computed_checksum": self.computed, "note": self.note}


def verify(db, games: list[str] | None = None) -> list[TableCheck]:
    """One TableCheck per table and view of ``db`` (of ``games`` only, and the metadata, when given)."""
    built = db.games()
    if games is not None:
        wanted = []
        for game in games:
            if not isinstance(game, str):
                raise BadInput(f"a game is a name, got {clip(game)}")
            key = game.strip().lower().replace("-", "_")
            if key not in built:
                raise BadInput(f"{clip(game)} is not built into this database; it has: "
                               f"{', '.join(g.replace('_', '-') for g in built) or 'no game'}")
            wanted.append(key)
        built = wanted
    tables = [row for row in db.fetchall(
        "SELECT table_name, game, row_count, checksum FROM build_tables ORDER BY game, table_name"
    ) if row[1] in built]
    checks = _game_checks(db, tables)
    checks.extend(_file_checks(db, built, [t[0] for t in tables], only=games is not None))
    return checks


def failure(db, checks: list[TableCheck]) -> DicebaseError | None:
    """The one-line error (exit 1) when a check failed: what failed, and the command that
    rebuilds it (every game, when the metadata failed); None when every check passed."""
    bad = [c for c in checks if c.status not in PASSING]
    if not bad:
        return None
    games = sorted({c.game for c in bad})
    if CORE in games:
        games = db.games() if _games_readable(db) else []
    error = DicebaseError(
        f"{len(bad)} of {len(checks)} tables and views do not match what the build wrote: "
        f"{', '.join(f'{c.table} ({c.status})' for c in bad[:8])}{' ...' if len(bad) > 8 else ''}; "
        f"rebuild with: {rebuild_hint(db.location, games, force=True)}")
    error.exit_code = 1
    return error


def unchecked(checks: list[TableCheck]) -> str | None:
    """One line naming what could not be checked (a file built before the metadata had checksums)."""
    skipped = [c.table for c in checks if c.status == "not checked"]
    if not skipped:
        return None
    return f"not checked: {len(skipped)} metadata tables and views ({OLD_FILE})"


def _games_readable(db) -> bool:
    try:
        db.games()
    except DicebaseError:
        return False
    return True


def _catalogue(db, table: str) -> list[tuple[str, str, bool]]:
    columns = [
        (name, data_type, bool(is_key))
        for name, data_type, is_key in db.fetchall(
            "SELECT column_name, data_type, is_key FROM schema_columns WHERE table_name = ? ORDER BY position",
            (table,),
        )
    ]
    # Names are formatted into the checksum queries: only plain identifiers, as dicebase writes them.
    for name in [table, *(c[0] for c in columns)]:
        if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
            raise DatabaseDamaged(f"the database's catalogue names a table or column {clip(name)}, which "
                                  f"dicebase never writes; rebuild it with: {rebuild_hint(db.location, db.games(), force=True)}")
    return columns


def _game_checks(db, tables) -> list[TableCheck]:
    from dicebase.checksum import stored_table_checksum

    present = _relations(db)
    checks = []
    for table, game, stored_rows, stored in tables:
        if present.get(table, ("",))[0] != "table":
            checks.append(TableCheck(table, game, False, 0, int(stored_rows), stored, "", "table", "MISSING",
                                     "the build wrote it; the file has no such table"))
            continue
        try:
            columns = _catalogue(db, table)
            (rows,) = db.fetchone(f'SELECT count(*) FROM "{table}"')
            computed = db.call(lambda con: stored_table_checksum(con, db.store, table, columns))
        except (DatabaseDamaged, QueryFailed) as exc:
            checks.append(TableCheck(table, game, False, 0, int(stored_rows), stored, "", "table", "UNREADABLE", str(exc)))
            continue
        checks.append(TableCheck(table, game, computed == stored and rows == stored_rows, int(rows),
                                 int(stored_rows), stored, computed))
    return checks


def _metadata_checksum(db, table: str) -> str:
    from dicebase.checksum import metadata_table_checksum

    columns = _catalogue(db, table)
    return db.call(lambda con: metadata_table_checksum(con, db.store, table, columns))


def _relations(db) -> dict[str, tuple[str, str | None]]:
    from dicebase.checksum import relations_in

    return db.call(lambda con: relations_in(con, db.store))


def _file_checks(db, games: list[str], game_tables: list[str], only: bool) -> list[TableCheck]:
    """The metadata tables, the views (of ``games``), and (unless ``only`` some games were asked
    for) the relations the build did not write, against build_info's checksum rows."""
    from dicebase.checksum import (
        CHECKSUMS_KEY, METADATA_TABLES, TABLE_KEY, VIEW_KEY, checksums_checksum, view_checksum,
    )

    stored = dict(db.fetchall("SELECT key, value FROM build_info WHERE key LIKE 'checksum:%'"))
    recorded = bool(stored)
    present = _relations(db)
    try:
        catalogue = {name: (kind, game) for name, kind, game in db.fetchall("SELECT name, kind, game FROM schema_tables")}
    except (DatabaseDamaged, QueryFailed):  # reported below, as schema_tables' own check
        catalogue = {}
    views = {name: game for name, (kind, game) in catalogue.items() if kind == "view" and game in games}
    if recorded and not only:  # every view the build recorded, whatever the catalogue says now
        views.update({key[len(VIEW_KEY):]: CORE for key in stored
                      if key.startswith(VIEW_KEY) and key[len(VIEW_KEY):] not in views})
    checks = []

    def check(name, kind, game, expected, compute, rows=None):
        if not recorded:
            checks.append(TableCheck(name, game, True, 0, 0, "", "", kind, "not checked", OLD_FILE))
            return
        if present.get(name, ("",))[0] != kind:
            checks.append(TableCheck(name, game, False, 0, 0, expected or "", "", kind, "MISSING",
                                     f"the build wrote this {kind}; the file has none of that name"))
            return
        try:
            computed = compute()
            count = int(rows()) if rows else 0
        except ValueError as exc:
            checks.append(TableCheck(name, game, False, 0, 0, expected or "", "", kind, "MISMATCH", str(exc)))
            return
        except (DatabaseDamaged, QueryFailed) as exc:
            checks.append(TableCheck(name, game, False, 0, 0, expected or "", "", kind, "UNREADABLE", str(exc)))
            return
        if expected is None:
            checks.append(TableCheck(name, game, False, count, count, "", computed, kind, "MISMATCH",
                                     "no checksum of it was recorded (its checksum row is gone)"))
        else:
            note = "" if computed == expected else (
                "its definition is not the one the build wrote" if kind == "view" else "its rows changed since the build")
            checks.append(TableCheck(name, game, computed == expected, count, count, expected, computed, kind,
                                     note=note))

    for table in METADATA_TABLES:
        check(table, "table", CORE, stored.get(TABLE_KEY + table),
              lambda table=table: _metadata_checksum(db, table),
              rows=lambda table=table: db.fetchone(f'SELECT count(*) FROM "{table}"')[0])
    for view in sorted(views):
        check(view, "view", views[view], stored.get(VIEW_KEY + view),
              lambda view=view: view_checksum(present[view][1]))
    if recorded and not only:
        expected = stored.get(CHECKSUMS_KEY)
        computed = checksums_checksum(stored)
        if expected != computed:
            checks.append(TableCheck(CHECKSUMS_KEY, CORE, False, len(stored) - 1, len(stored) - 1, expected or "",
                                     computed, "checksums", "MISMATCH",
                                     "build_info's checksum rows are not those the build recorded"))
        wrote = set(catalogue) | set(game_tables) | set(METADATA_TABLES) | set(views)
        for name in sorted(set(present) - wrote):
            kind = present[name][0]
            checks.append(TableCheck(name, CORE, False, 0, 0, "", "", kind, "EXTRA",
                                     f"the build did not write this {kind}"))
    return checks
