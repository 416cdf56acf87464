"""What every figure shares: its options, its one SQL query, the caption and the drawing frame.

A figure is a :class:`FigureSpec` subclass.  Rendering one runs four steps,
each a method, so that tests can check the middle two against the database:

1. ``resolve(db, options)``: check the options (BadInput / NotInDatabase with
   one line) and fill in defaults from what the database holds;
2. ``query(opts)``: the figure's one SQL statement, with ``?`` parameters;
   ``dicebase plot NAME --sql`` prints it with the values written in;
3. ``arrays(names, rows, opts)``: the query's rows arranged as numpy arrays
   (grids, curves); no game value is computed here, only placed;
4. ``draw(fig, data, opts)``: matplotlib calls on a ``matplotlib.figure.SubFigure``
   (the figure above its two-line caption), never pyplot.

Nothing here imports matplotlib or numpy at module level: ``--list`` and
``--sql`` stay light, and lookups never load this package at all.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import threading
from dataclasses import dataclass
from typing import Any

from dicebase.errors import not_built
from dicebase.query.base import BadInput, NotInDatabase, whole_number

#: Pixels per inch of every PNG; figures are 12 inches wide, so 1200 px.
DPI = 100
WIDTH_IN = 12.0

#: The sequential colormap of every heat map: cividis is designed to read the
#: same with red-green colour blindness and in greyscale.
SEQUENTIAL = "cividis"

#: Okabe & Ito's colour-blind-safe palette for lines and categories.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")

FORMATS = ("png", "svg", "pdf")

CAPTION_IN = 0.4  # inches of the two-line caption strip under every figure

_RENDER_LOCK = threading.Lock()  # matplotlib's rcParams and font cache are process-wide


@dataclass(frozen=True)
class Option:
    """One option of a figure: ``name`` is the keyword (``players_after``), CLI ``--players-after``."""

    name: str
    kind: type  # int or str
    help: str
    metavar: str = "N"
    required: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class FigureSpec(ABC):
    """One figure: subclasses set the class attributes and implement the four steps."""

    name: str = ""
    game: str = ""  # dicebase game name (threes, rolled_ones, ten_thousand)
    summary: str = ""  # one line for `dicebase plot --list` and the --help summary
    description: str = ""  # the --help body: what is drawn and how to read it
    examples: tuple[str, ...] = ()  # argument strings after `dicebase plot NAME`
    gallery: tuple[str, ...] = ("",)  # the argument strings drawn in docs/gallery.md
    options: tuple[Option, ...] = ()
    height_in: float = 8.0

    # -- the four steps -----------------------------------------------------
    def resolve(self, db, opts: dict) -> dict:
        """Checked options with every default filled in (may read the database)."""
        return dict(opts)

    @abstractmethod
    def query(self, opts: dict) -> tuple[str, tuple]:
        """The one SQL statement and its parameters this figure's data comes from."""

    @abstractmethod
    def arrays(self, names: list[str], rows: list[tuple], opts: dict) -> dict:
        """The rows of that query arranged as the arrays handed to matplotlib."""

    @abstractmethod
    def draw(self, fig, data: dict, opts: dict) -> None:
        """Draw the arrays on ``fig``."""

    def caption_facts(self, opts: dict) -> str:
        """The rule facts of this drawing for the caption, e.g. 'variant classic, ties shared'."""
        return ""

    def figure_height(self, opts: dict) -> float:
        """Height in inches of this drawing (some depend on how many panels the options ask for)."""
        return self.height_in

    # -- shared -------------------------------------------------------------
    def size_px(self, opts: dict) -> tuple[int, int]:
        """(width, height) in pixels of the PNG for these resolved options."""
        return round(WIDTH_IN * DPI), round(self.figure_height(opts) * DPI)

    def check_options(self, options: dict) -> dict:
        """Type-check the keywords (unknown ones refused); None means 'use the default'."""
        known = {o.name: o for o in self.options}
        out: dict[str, Any] = {}
        for key, value in options.items():
            if key not in known:
                allowed = ", ".join(o.flag for o in self.options) or "none"
                raise BadInput(f"{self.name} has no option {_flag(key)}; its options: {allowed}")
            if value is None:
                continue
            opt = known[key]
            if opt.kind is int:
                value = whole_number(value, opt.flag)
            elif not isinstance(value, str):
                raise BadInput(f"{opt.flag} must be a name, got {value!r}")
            out[key] = value
        for opt in self.options:
            if opt.required and opt.name not in out:
                raise BadInput(f"{self.name} needs {opt.flag} {opt.metavar}")
        return out


def _flag(key: str) -> str:
    return "--" + str(key).replace("_", "-")


def choose(value, allowed, what: str):
    """``value`` if it is one of ``allowed``, else BadInput listing them."""
    if value not in allowed:
        raise BadInput(f"{what} must be one of {', '.join(str(a) for a in allowed)}, got {value!r}")
    return value


# ---------------------------------------------------------------------------
# running the query
# ---------------------------------------------------------------------------
def literal_sql(sql: str, params: tuple) -> str:
    """The statement with each ``?`` replaced by its value as a SQL literal, for reading and re-running.

    Only for display: figures run the parameterised text.  Values are ints
    or names already checked by ``resolve``; strings are quoted with '' doubling.
    """
    parts = sql.split("?")
    if len(parts) - 1 != len(params):
        raise ValueError(f"{len(parts) - 1} placeholders, {len(params)} parameters")
    out = [parts[0]]
    for value, rest in zip(params, parts[1:]):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"unsupported parameter {value!r}")
        out.append(str(value) if isinstance(value, int) else "'" + value.replace("'", "''") + "'")
        out.append(rest)
    return "".join(out)


def fetch(db, spec: FigureSpec, opts: dict) -> tuple[list[str], list[tuple]]:
    """Run the figure's query through the read-only query layer; no rows is NotInDatabase."""
    sql, params = spec.query(opts)
    names, rows = db.run_sql(sql, params)
    if not rows:
        facts = spec.caption_facts(opts)
        raise NotInDatabase(
            f"{spec.name}: the database has no rows for {facts or 'this figure'}; "
            f"see what it holds with: dicebase info"
        )
    return names, rows


# ---------------------------------------------------------------------------
# caption and rendering
# ---------------------------------------------------------------------------
def build_facts(db, game: str) -> dict[str, str]:
    """When and with what this game's tables were built (for captions and cache keys)."""
    info = dict(db.fetchall("SELECT key, value FROM build_info WHERE key IN ('package_version', 'store')"))
    row = db.fetchone("SELECT built_at FROM build_games WHERE game = ?", (game,))
    if row is None:
        raise not_built(game, db.location)  # the command names the file's own --db
    return {"built_at": row[0], "version": info.get("package_version", "?"), "store": info.get("store", db.store)}


def command_line(spec: FigureSpec, given: dict) -> str:
    """``dicebase plot NAME --option value ...`` for the options the user gave."""
    return " ".join(["dicebase plot", spec.name, *(f"{_flag(k)} {v}" for k, v in given.items())])


def caption(db, spec: FigureSpec, opts: dict, given: dict) -> str:
    """Two lines: the database build (date, version, store) with the drawing's rules, and the data query."""
    facts = build_facts(db, spec.game)
    built = facts["built_at"][:16].replace("T", " ") + " UTC"
    rules = spec.caption_facts(opts)
    return (
        f"Database: {spec.game.replace('_', '-')} tables built {built} by dicebase {facts['version']} "
        f"({facts['store']}){'; ' + rules if rules else ''}.\n"
        f"Data: one SQL query, printed by: {command_line(spec, given)} --sql"
    )


def new_figure(height_in: float):
    """A matplotlib Figure on the Agg canvas, 1200 px wide; no pyplot, so no global figure registry
    and no GUI backend, whatever MPLBACKEND says."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(WIDTH_IN, height_in), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


RC = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "figure.titlesize": 15,
    "figure.titleweight": "bold",
    "legend.fontsize": 10,
    "image.cmap": SEQUENTIAL,
    "svg.hashsalt": "dicebase",
    "hatch.color": "white",
    "hatch.linewidth": 0.8,
}


def render_spec(db, spec: FigureSpec, fmt: str, options: dict) -> bytes:
    """Resolve, query, arrange, draw and save one figure; returns the file's bytes."""
    import io

    import matplotlib

    fmt = choose(fmt, FORMATS, "format")
    given = spec.check_options(options)
    opts = spec.resolve(db, given)
    names, rows = fetch(db, spec, opts)
    data = spec.arrays(names, rows, opts)
    text = caption(db, spec, opts, given)
    with _RENDER_LOCK, matplotlib.rc_context(RC):
        height = spec.figure_height(opts)
        fig = new_figure(height)
        body, foot = fig.subfigures(2, 1, height_ratios=(height - CAPTION_IN, CAPTION_IN))
        spec.draw(body, data, opts)
        foot.text(0.5, 0.5, text, ha="center", va="center", fontsize=9, color="#333333", linespacing=1.4)
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else ({"CreationDate": None} if fmt == "pdf" else {})
        fig.savefig(buf, format=fmt, dpi=DPI, metadata=metadata)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# drawing helpers shared by the games
# ---------------------------------------------------------------------------
def heat_map(ax, grid, *, x0: float, y0: float, step: float, norm, title: str, xlabel: str, ylabel: str):
    """``grid[y, x]`` as square cells, (x0, y0) at the lower-left cell's centre; returns the image."""
    ny, nx = grid.shape
    half = step / 2
    image = ax.imshow(
        grid,
        origin="lower",
        extent=(x0 - half, x0 + (nx - 1) * step + half, y0 - half, y0 + (ny - 1) * step + half),
        norm=norm,
        cmap=SEQUENTIAL,
        interpolation="nearest",
        aspect="auto",
    )
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return image

