"""Recompute every table's checksum and compare it with the one the build stored.

The formula is in ``dicebase.checksum``; this module reads the columns, their
types and keys from the database's own ``schema_columns`` catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dicebase.errors import BadInput, DatabaseDamaged, clip, rebuild_hint

IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]{0,62}")


@dataclass(frozen=True)
class TableCheck:
    table: str
    game: str
    ok: bool
    rows: int
    stored_rows: int
    stored: str
    computed: str

    def as_dict(self) -> dict:
        return {"table": self.table, "game": self.game, "status": "ok" if self.ok else "MISMATCH",
                "rows": self.rows, "stored_rows": self.stored_rows,
                "stored_checksum": self.stored, "computed_checksum": self.computed}


def verify(db, games: list[str] | None = None) -> list[TableCheck]:
    """One TableCheck per game table of ``db`` (of ``games`` only, when given)."""
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
    catalogue = {}
    for table, *_ in tables:
        catalogue[table] = [
            (name, data_type, bool(is_key))
            for name, data_type, is_key in db.fetchall(
                "SELECT column_name, data_type, is_key FROM schema_columns WHERE table_name = ? ORDER BY position",
                (table,),
            )
        ]
        # Names are formatted into the checksum queries: only plain identifiers, as dicebase writes them.
        for name in [table, *(c[0] for c in catalogue[table])]:
            if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
                raise DatabaseDamaged(f"the database's catalogue names a table or column {clip(name)}, which "
                                      f"dicebase never writes; rebuild it with: {rebuild_hint(db.location, db.games(), force=True)}")
    return _checks(db, tables, catalogue)


def _checks(db, tables, catalogue) -> list[TableCheck]:
    from dicebase.checksum import stored_table_checksum

    checks = []
    for table, game, stored_rows, stored in tables:
        columns = catalogue[table]
        (rows,) = db.fetchone(f'SELECT count(*) FROM "{table}"')
        computed = db.call(lambda con: stored_table_checksum(con, db.store, table, columns))
        checks.append(TableCheck(table, game, computed == stored and rows == stored_rows, int(rows),
                                 int(stored_rows), stored, computed))
    return checks

