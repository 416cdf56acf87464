"""``dicebase plot ...``: pictures of optimal play, one subcommand per figure of dicebase.plots.

Importing it loads neither matplotlib nor the figures (dicebase.plots loads when a figure is
listed, described or drawn), so ``dicebase --help`` stays quick.
"""

from __future__ import annotations

from pathlib import Path

import click

from dicebase import games
from dicebase.errors import BadInput
from dicebase.present import db_option, open_db, write_file

SUFFIXES = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


class FigureGroup(click.Group):
    """Subcommands are the figures of dicebase.plots (imported on first use; matplotlib only when drawing)."""

    def list_commands(self, ctx):
        from dicebase.plots import FIGURES

        return list(FIGURES)

    def get_command(self, ctx, name):
        from dicebase.plots import FIGURES

        spec = FIGURES.get(name)
        return None if spec is None else figure_command(spec)


@click.group(name="plot", cls=FigureGroup, invoke_without_command=True)
@click.option("--list", "show_list", is_flag=True, help="List every figure with one line on what it shows.")
@click.pass_context
def group(ctx, show_list):
    """Draw pictures of optimal play from the stored tables (PNG, SVG or PDF).

    Each figure is a subcommand with its own options; its data is one SQL
    query on the database, which --sql prints. Without --out the figure is
    written to NAME.png in the current directory.

    Example:

    \b
        dicebase plot --list
        dicebase plot rolled-ones-strategy --player 1
        dicebase plot threes-keep-chart --out chart.pdf
        dicebase plot threes-chances --sql
    """
    if ctx.invoked_subcommand is not None:
        return
    if not show_list:
        click.echo(ctx.get_help())
        return
    from dicebase.plots import FIGURES

    width = max(len(n) for n in FIGURES)
    for name, spec in FIGURES.items():
        click.echo(f"{name.ljust(width)}  {spec.summary}")


def figure_command(spec) -> click.Command:
    """The click command of one figure: its options, --out, --sql and --db."""
    examples = "\n".join(f"    dicebase plot {spec.name} {e}".rstrip() for e in spec.examples)
    help_text = f"{spec.summary}.\n\n{spec.description}\n\nExample:\n\n\b\n{examples}\n"

    def callback(out, show_sql, db_path, **options):
        from dicebase import plots

        with open_db(db_path) as db:
            if show_sql:
                click.echo(plots.sql(db, spec.name, **options))
                return
            path, fmt = output_path(out, spec.name)
            image = plots.render(db, spec.name, fmt, **options)
        write_file(path, image)  # complete or not at all: a full disk leaves no partial file
        click.echo(str(path))

    params = []
    for opt in spec.options:
        names = [opt.flag]
        rules_option = games.game(spec.game).rules_option
        if opt.name == "variant" and rules_option != "variant":
            names.append(f"--{rules_option}")  # the name the game's lookups use (10,000: --rules)
        params.append(click.Option([*names, opt.name], type=opt.kind, default=None, metavar=opt.metavar,
                                   required=opt.required, help=opt.help))
    params += [
        click.Option(["--out", "out"], default=None, metavar="FILE",
                     help=f"File to write: .png (1200 px wide), .svg or .pdf. Default: {spec.name}.png here."),
        click.Option(["--sql", "show_sql"], is_flag=True,
                     help="Print the figure's SQL query (values written in) instead of drawing it."),
    ]
    command = click.Command(spec.name, callback=callback, params=params, help=help_text,
                            short_help=spec.summary)
    return db_option(command)


def output_path(out: str | None, name: str) -> tuple[Path, str]:
    """(path, format) from --out; BadInput for an unknown suffix or a missing directory."""
    path = Path(out) if out else Path(f"{name}.png")
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise BadInput(f"--out must end in {', '.join(SUFFIXES)}, got {str(path)[:200]!r}")
    try:
        is_dir, parent_is_dir = path.is_dir(), path.parent.is_dir()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte ...
        raise BadInput(f"--out {str(path)[:200]!r} is not a usable file name ({exc})") from None
    if is_dir:
        raise BadInput(f"--out {path} is a directory; give a file name, e.g. {path / (name + '.png')}")
    if not parent_is_dir:
        from dicebase.cli.common import not_a_folder

        raise BadInput(f"--out {path}: {not_a_folder(path.parent)}")
    return path, fmt
