"""What a database says about itself: the build's record (``info``), its games and relations.

Functions of an open ``Database``; the methods of the same names call them.
"""

from __future__ import annotations

import json
from typing import Any

from dicebase.errors import BadInput, DicebaseError, clip, not_built


def info(db) -> dict[str, Any]:
    """Everything the build recorded: versions, games, variants, tables, steps."""
    facts = dict(db.fetchall("SELECT key, value FROM build_info ORDER BY key"))
    games = [
        {
            "game": g,
            "options": json.loads(o),
            "notes": json.loads(n),
            "build_seconds": round(s, 3),
            "built_at": at,
        }
        for g, o, n, s, at in db.fetchall(
            "SELECT game, options_json, notes_json, build_seconds, built_at FROM build_games ORDER BY game"
        )
    ]
    variants = [
        {"game": g, "variant": v, "rules": json.loads(r), "solver": json.loads(s)}
        for g, v, r, s in db.fetchall(
            "SELECT game, variant, rules_json, solver_json FROM build_variants ORDER BY game, variant"
        )
    ]
    tables = [
        {"table": t, "game": g, "rows": int(n), "checksum": c, "write_seconds": round(w, 3)}
        for t, g, n, c, w in db.fetchall(
            "SELECT table_name, game, row_count, checksum, write_seconds FROM build_tables ORDER BY game, table_name"
        )
    ]
    steps = [
        {"game": g, "step": s, "seconds": round(sec, 3)}
        for g, s, sec in db.fetchall("SELECT game, step, seconds FROM build_steps ORDER BY game, seq")
    ]
    return {
        "location": str(db.location),
        "file_bytes": db.location.path.stat().st_size,
        "build": facts,
        "games": games,
        "variants": variants,
        "tables": tables,
        "steps": steps,
    }


def games(db) -> list[str]:
    """The games built into the file, by their stored names (``rolled_ones``)."""
    return [g for (g,) in db.fetchall("SELECT game FROM build_games ORDER BY game")]


def games_if_readable(db) -> list[str]:
    """``games(db)`` of a file that may be of another schema version; [] when it cannot say."""
    try:
        return games(db)
    except DicebaseError:
        return []


def require_game(db, game: str) -> None:
    """NotInDatabase (naming the command that adds it) unless ``game`` is built into the file."""
    if not isinstance(game, str):
        raise BadInput(f"a game is a name such as threes, got {clip(game)}")
    if game not in games(db):
        raise not_built(game, db.location)


def relations(db) -> list[tuple[str, str]]:
    """(name, 'table'|'view') for every public relation, from the schema catalogue."""
    return [(n, k) for n, k in db.fetchall("SELECT name, kind FROM schema_tables ORDER BY kind, name")]


def has_relation(db, name: str) -> bool:
    """Whether the file has a table or view ``name`` (from the engine's own catalogue)."""
    if db.store == "sqlite":
        row = db.fetchone("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,))
    else:
        # duckdb_tables(): a few times cheaper than the information_schema.tables view
        row = db.fetchone(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?", (name,)
        )
    return bool(row and row[0])
