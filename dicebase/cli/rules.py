"""``dicebase rules ...``: print a rule set as a commented TOML file (house rules start here)."""

from __future__ import annotations

import click

from dicebase import games
from dicebase.present import db_option


@click.command(name="rules")
@click.argument("game", required=False)
@click.argument("preset", required=False)
@click.option("--variant", "variant", metavar="NAME", default=None,
              help="With --db: print the rules this database's variant NAME was built with.")
@click.option("--words", is_flag=True, help="Print the rules in words, one sentence a line, instead of the file "
              "(how the game ends, minimums, bonuses, penalties, compensation).")
@click.option("--check", "check", metavar="FILE", default=None,
              help="Check a rules file as `dicebase build --rules FILE` would, without building: one line naming "
              "the key if it is wrong (exit 2), else its rules in words.")
@db_option
def group(game, preset, variant, words, check, db_path):
    """Print a rule set as a commented TOML file to edit and build.

    Without --variant: the preset PRESET of GAME (default: the game's first
    preset). With --variant: the rules the database's variant was built with
    (GAME is needed only when several games have a variant of that name).
    Every key is explained in a comment with its allowed values. --words
    prints the rules in words instead; --check FILE checks a rules file.

    Example:

    \b
        dicebase rules ten-thousand farkle > our-table.toml
        dicebase rules --check our-table.toml
        dicebase build ten-thousand --rules our-table.toml
        dicebase rules --db db/dicebase.duckdb --variant our-table
        dicebase rules ten-thousand zilch-playr --words
    """
    from dicebase.errors import BadInput
    from dicebase.rules import files

    if check is not None:
        if game is not None or preset is not None or variant is not None:
            raise BadInput("--check FILE checks a rules file on its own; leave out GAME, PRESET and --variant")
        _check_file(check)
        return
    if variant is None:
        if game is None:
            raise BadInput(f"name a game ({', '.join(games.cli_names('rules'))}), e.g. dicebase rules ten-thousand; or "
                           "give --variant NAME to print a built variant's rules")
        try:
            mod = files.module(game)
        except files.RulesFileError as exc:
            raise BadInput(str(exc)) from None
        name = preset or next(iter(mod.PRESETS))
        if name not in mod.PRESETS:
            raise BadInput(f"unknown {game} preset {name!r}; presets: {', '.join(mod.PRESETS)}")
        rules = mod.PRESETS[name]
        values = mod.to_file(rules)
        title = f"{mod.GAME.replace('_', '-')}, preset {name!r}"
    else:
        if preset is not None:
            raise BadInput("give either a PRESET or --variant NAME, not both")
        mod, name, values = _built_variant(db_path, game, variant)
        title = f"{mod.GAME.replace('_', '-')}, variant {name!r} as built"
        rules = mod.from_file(name, values)
    if words:
        click.echo("\n".join(in_words(mod, rules)))
        return
    click.echo(files.dump(mod.GAME, name, values, title), nl=False)


def in_words(mod, rules) -> list[str]:
    """A rule set in words (:func:`dicebase.rules.files.in_words`): its description where it is its own, the
    rules generated from the values (issue 34), and its source."""
    from dicebase.rules import files

    return files.in_words(mod, rules)


def _check_file(path) -> None:
    """``--check FILE``: the file's keys, then the game's build checks of it (the two-player solve's
    refusals among them); a solve that needs --force-size is said on a line, not refused."""
    from dicebase.errors import BadInput, SizeLimit
    from dicebase.rules import files

    try:
        house = files.load(path)
    except files.RulesFileError as exc:
        raise BadInput(str(exc)) from None
    mod = files.module(house.game)
    note = None
    try:
        mod.validate_options(house.add_to(dict(mod.DEFAULT_OPTIONS)))
    except SizeLimit as exc:
        note = f"it builds only with --force-size: {exc}"
    except ValueError as exc:
        raise BadInput(f"{path}: {exc}") from None
    rules = house.rules()
    click.echo(f"{path}: {house.game.replace('_', '-')} rules {house.name!r} are valid; in words:")
    for line in in_words(mod, rules):
        click.echo(f"  {line}")
    copied = files.copied_description(mod, rules)
    if copied:
        preset, diff = copied
        click.echo(f"note: description is the {preset} preset's, but these rules differ from it ({'; '.join(diff)}); "
                   "the words above come from the values: describe your rules in the file's description")
    if note:
        click.echo(note)


def _built_variant(db_path, game, variant):
    """(rules module, name, file values) of a variant stored in build_variants."""
    import json

    from dicebase.present import open_db
    from dicebase.errors import BadInput, NotInDatabase
    from dicebase.rules import files

    with open_db(db_path) as db:
        rows = db.fetchall(
            "SELECT game, rules_json, solver_json FROM build_variants WHERE variant = ? ORDER BY game", (variant,)
        )
        if game is not None:
            try:
                wanted = files.module(game).GAME
            except files.RulesFileError as exc:
                raise BadInput(str(exc)) from None
            rows = [r for r in rows if r[0] == wanted]
        if not rows:
            known = db.fetchall("SELECT DISTINCT variant FROM build_variants ORDER BY variant")
            raise NotInDatabase(f"this database has no variant {variant!r}"
                                f"{' of ' + game if game else ''}; variants: {', '.join(r[0] for r in known)}")
        if len(rows) > 1:
            raise BadInput(f"several games have a variant {variant!r} ({', '.join(r[0] for r in rows)}); "
                           "name the game: dicebase rules GAME --variant NAME")
        game_name, rules_json, solver_json = rows[0]
    mod = files.module(game_name)
    return mod, variant, mod.from_record(json.loads(rules_json), json.loads(solver_json or "{}"))
