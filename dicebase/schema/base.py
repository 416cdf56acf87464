"""The shared SQLAlchemy Core metadata, build-metadata tables and view helper.

Every table and view of every game is defined once, on ``metadata``, with a
comment on the table and on each column.  The comments are the public schema
documentation: the builder copies them into ``schema_tables`` and
``schema_columns`` so analysts can read them with SQL, and docs/schema.md is
generated from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Boolean, Column, Double, Integer, MetaData, String, Table
from sqlalchemy.sql import Select

from dicebase.version import SCHEMA_VERSION  # noqa: E402,F401  (defined without heavy imports)

metadata = MetaData()


def table(name: str, game: str, comment: str, *columns: Column, key_index: bool = True) -> Table:
    """Define a table of ``game`` on the shared metadata; every column needs a comment.

    ``key_index=False`` keeps the primary key in the schema (and in SQLite,
    whose WITHOUT ROWID tables are clustered on it at no extra cost) but
    creates no DuckDB index for it: DuckDB's ART index costs about 50 bytes
    a row, which dominates large tables, while point lookups on rows written
    in key order are served by DuckDB's per-row-group min/max zone maps.
    The builder must then write the rows in key order and unique.
    """
    missing = [c.name for c in columns if not c.comment]
    if missing:
        raise ValueError(f"table {name}: columns without a comment: {missing}")
    return Table(name, metadata, *columns, comment=comment, info={"game": game, "key_index": key_index})


@dataclass(frozen=True)
class View:
    """A SQL view: a portable ``select()`` compiled once per store at build time.

    ``column_comments`` documents columns that are not plain copies of a table
    column (those inherit the table column's comment).
    """

    name: str
    game: str
    comment: str
    select: Select
    column_comments: dict[str, str] = field(default_factory=dict)

    def columns(self) -> list[tuple[str, str, str]]:
        """(name, SQL type, description) for each output column."""
        out = []
        for col in self.select.selected_columns:
            comment = self.column_comments.get(col.name) or getattr(col, "comment", None) or ""
            if not comment:
                raise ValueError(f"view {self.name}: column {col.name} has no comment")
            out.append((col.name, _type_name(col.type), comment))
        return out


def seat_views(game: str, prefix: str, starts: Table, block: dict[str, str], seats: range, players: str,
               new: str, *, always: int = 0, own: dict[str, str] | None = None) -> tuple[View, View, View]:
    """The N-player views over a game's turn starts (``starts``: block columns, ``players``, ``seat``, ``score1``..,
    ``p_win1``..): ``<game>_seat_wins``, each seat's chance from the start; ``<game>_compensation``, every start
    with a seat at 0 and how far it is from fair; ``<game>_fair_compensation``, the fairest.  ``block``: the block
    columns but ``players`` with their comments; ``prefix`` opens each view's comment, ``new`` ends the first's;
    ``own``: a view's comment in the game's own words instead (view name -> comment).  Seats 1..``always`` sit in
    every block: their columns' comments do not say they hold 0 with fewer players."""
    from sqlalchemy import and_, case, func, literal, or_, select, union_all

    c, key, own = starts.c, [starts.c[name] for name in block], own or {}
    absent = lambda n: "" if n <= always else f"; 0 when players < {n}"  # noqa: E731
    all_zero = and_(*(c[f"score{n}"] == 0 for n in seats))
    seat_wins = View(
        f"{game}_seat_wins",
        game,
        own.get(f"{game}_seat_wins", f"{prefix}: each seat's win probability from the start of the game (every score "
                f"0, seat 1 to move), every seat playing optimally.{new}"),
        union_all(*(
            select(*key, c.players, literal(n).label("seat"), c[f"p_win{n}"].label("p_win"),
                   (c[f"p_win{n}"] - literal(1.0) / c.players).label("advantage"))
            .where(c.seat == 1, all_zero, c.players >= n)
            for n in seats
        )),
        {**block, "players": players, "seat": "seat, 1..players (seat 1 moves first)",
         "p_win": "the seat's win probability, probability 0-1",
         "advantage": "p_win - 1/players: the seat's advantage over an even share, probability difference"},
    )
    deviation = None  # max over seats n <= players of |p_win_n - 1/players| (portable: no greatest())
    for n in seats:
        part = case((c.players >= n, func.abs(c[f"p_win{n}"] - literal(1.0) / c.players, type_=Double)),
                    else_=literal(0.0))
        deviation = part if deviation is None else case((deviation >= part, deviation), else_=part)
    comments = {
        **block, "players": players,
        **{f"score{n}": f"seat {n}'s starting points (compensation), points{absent(n)}" for n in seats},
        **{f"p_win{n}": f"seat {n}'s win probability from these starting scores, probability 0-1{absent(n)}"
           for n in seats},
        "deviation": "the largest |p_win - 1/players| over the seats, probability difference",
    }
    starts_select = select(
        *key, c.players, *(c[f"score{n}"] for n in seats), *(c[f"p_win{n}"] for n in seats),
        deviation.label("deviation"),
    ).where(c.seat == 1, or_(*(and_(c.players >= n, c[f"score{n}"] == 0) for n in seats)))
    compensation = View(
        f"{game}_compensation",
        game,
        own.get(f"{game}_compensation", f"{prefix}: every start with compensation (starting scores below the goal, at "
                "least one seat at 0, seat 1 to move) and how far it is from fair: the largest |p_win - 1/players| "
                "over the seats."),
        starts_select,
        comments,
    )
    sub = starts_select.subquery("c")
    least = select(*(sub.c[name] for name in block), sub.c.players, func.min(sub.c.deviation).label("least")).group_by(
        *(sub.c[name] for name in block), sub.c.players).subquery("m")
    fair = View(
        f"{game}_fair_compensation",
        game,
        own.get(f"{game}_fair_compensation", f"{prefix}: the fair compensation, the starting scores (at least one "
                "seat at 0) that bring every seat closest to 1/players (least largest |p_win - 1/players|), searched "
                "over the stored turn starts."),
        select(sub).select_from(sub.join(least, and_(*(least.c[name] == sub.c[name] for name in (*block, "players")),
                                                     least.c.least == sub.c.deviation))),
        comments,
    )
    return seat_wins, compensation, fair


def _type_name(sqltype) -> str:
    """The SQL type of a view column; views must type computed expressions (``type_=``)."""
    from sqlalchemy.types import NullType

    if isinstance(sqltype, NullType):
        raise ValueError("a view column has no SQL type; give its expression type_=...")
    return sqltype.compile()


CORE = "core"

build_info = table(
    "build_info",
    CORE,
    "One row per fact about this database file: versions, build date, store, total seconds.",
    Column("key", String, primary_key=True, comment="name of the fact, e.g. package_version"),
    Column("value", String, nullable=False, comment="its value, as text"),
)

build_games = table(
    "build_games",
    CORE,
    "One row per game built into this file, with the build options and seconds it took.",
    Column("game", String, primary_key=True, comment="game name, e.g. threes"),
    Column("options_json", String, nullable=False, comment="build options as JSON (defaults plus --option overrides)"),
    Column("notes_json", String, nullable=False, comment="extra build facts recorded by the game's builder, as JSON"),
    Column("build_seconds", Double, nullable=False, comment="wall-clock seconds to solve and write this game"),
    Column("built_at", String, nullable=False, comment="UTC time the game finished building, ISO 8601"),
)

build_variants = table(
    "build_variants",
    CORE,
    "One row per rule variant (rule set) of each game: its full rule parameters and solver settings.",
    Column("game", String, primary_key=True, comment="game name"),
    Column("variant", String, primary_key=True, comment="variant or rule-set name"),
    Column("rules_json", String, nullable=False, comment="every rule parameter of the variant, as JSON"),
    Column("solver_json", String, nullable=False, comment="solver settings: method, tolerances, bounds, as JSON"),
)

build_steps = table(
    "build_steps",
    CORE,
    "Timed steps of the build, in the order they ran (by seq).",
    Column("game", String, primary_key=True, comment="game name"),
    Column("seq", Integer, primary_key=True, comment="order in which the game's steps ran, from 1"),
    Column("step", String, nullable=False, comment="what the step did"),
    Column("seconds", Double, nullable=False, comment="wall-clock seconds"),
)

build_tables = table(
    "build_tables",
    CORE,
    "One row per game table: row count and content checksum.",
    Column("table_name", String, primary_key=True, comment="table name"),
    Column("game", String, nullable=False, comment="game the table belongs to"),
    Column("row_count", Integer, nullable=False, comment="rows written"),
    Column(
        "checksum",
        String,
        nullable=False,
        comment=(
            "hex sha256 of the text '<column>:<column sha256 hex>;' for every column in schema order; a column's "
            "sha256 covers its values with rows ordered by the primary key, each value as 8 little-endian bytes "
            "(INTEGER/SMALLINT/BOOLEAN as int64, DOUBLE as IEEE float64), or UTF-8 text plus one 0x00 byte "
            "(VARCHAR), or the single byte 0xFF for NULL; `dicebase verify` recomputes it"
        ),
    ),
    Column("write_seconds", Double, nullable=False, comment="seconds spent writing the rows"),
)

schema_tables = table(
    "schema_tables",
    CORE,
    "The public schema: every table and view with its description.",
    Column("name", String, primary_key=True, comment="table or view name"),
    Column("kind", String, nullable=False, comment="'table' or 'view'"),
    Column("game", String, nullable=False, comment="game it belongs to, or 'core'"),
    Column("description", String, nullable=False, comment="what one row holds"),
)

schema_columns = table(
    "schema_columns",
    CORE,
    "The public schema: every column of every table and view with its type, key flag and description.",
    Column("table_name", String, primary_key=True, comment="table or view name"),
    Column("position", Integer, primary_key=True, comment="column position, from 1"),
    Column("column_name", String, nullable=False, comment="column name"),
    Column("data_type", String, nullable=False, comment="SQL type"),
    Column("is_key", Boolean, nullable=False, comment="true when the column is part of the primary key"),
    Column("description", String, nullable=False, comment="meaning and unit"),
)

CORE_TABLES = [build_info, build_games, build_variants, build_steps, build_tables, schema_tables, schema_columns]
