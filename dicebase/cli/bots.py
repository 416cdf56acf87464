"""``dicebase tournament``, ``dicebase simulate``, ``dicebase play``: the stored policies as players."""

from __future__ import annotations

import sys

import click

from dicebase import games
from dicebase.cli.common import emit, output_option, resolve_format
from dicebase.errors import BadInput
from dicebase.present import db_option, open_db

GAMES = click.Choice(games.cli_names("bots"))  # the games with bots: tournaments, simulations and play
VARIANT_HELP = ("Rule variant (Threes: classic, the default, or reroll; Great Rolled Ones: the file's own "
                "variant by default; 10,000: the rule set, default ten-thousand).")


def _bot_list(bots) -> list[str]:
    """Bots as given: separate arguments, or commas (the HTTP API's list)."""
    out = []
    for b in bots:
        out.extend(x.strip() for x in str(b).split(",") if x.strip())
    return out


@click.command()
@click.argument("game", type=GAMES)
@click.argument("bots", nargs=-1, required=True)
@click.option("--rotate", is_flag=True, help="Average each player over every distinct seating.")
@click.option("--variant", default=None, metavar="NAME", help=VARIANT_HELP)
@db_option
@output_option
def tournament(game, bots, rotate, variant, db_path, fmt, as_json):
    """Each seat's exact chance to win, bots playing the stored policies.

    Threes: one round with that seating (seat 1 plays first). p_win counts a
    tie for the lowest score as a win for every tied player (seed 003's
    count), p_split splits it, p_sole needs a unique lowest score. Great
    Rolled Ones: a game of 2 or 3 players (3: the N-player tables, the
    optimal bot playing the stored equilibrium); 10,000: a game of two
    (seat 1 moves first), or of 3-4 optimal bots where the N-player
    tables are built (the stored start vector). Computed from
    each bot's turn outcome distribution and the game's recursion, not by
    sampling. Bots: see `dicebase simulate --help` or docs/bots.md.

    Example:

    \b
        dicebase tournament threes random only-3s expected win
        dicebase tournament threes random random random only-3s only-3s only-3s
        dicebase tournament threes only-3s win --rotate --json
        dicebase tournament rolled-ones optimal simple-ones-cases
        dicebase tournament rolled-ones optimal optimal keep-pace-end-race
        dicebase tournament ten-thousand seed004 bank-350 --rotate
        dicebase tournament ten-thousand optimal optimal optimal
    """
    from dicebase import bots as api

    with open_db(db_path) as db:
        answer = api.tournament(db, game, _bot_list(bots), rotate=rotate, variant=variant)
    fmt = resolve_format(fmt, as_json)
    doc = answer.as_dict()
    if fmt == "json":
        emit(doc, fmt)
        return
    rows = doc["seats"]
    if fmt == "csv":
        emit([{"game": answer.game, "variant": answer.variant, "rotate": answer.rotate, **r} for r in rows], fmt)
        return
    what = "each player's average over every seating" if rotate else "seat 1 plays first"
    emit(rows, fmt, title=f"{answer.game} ({answer.variant}): exact chance to win a {answer.unit}, {what}")


@click.command()
@click.argument("game", type=GAMES)
@click.argument("bots", nargs=-1, required=True)
@click.option("--rounds", type=int, default=10_000, show_default=True,
              help="Rounds (Threes) or games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice: the same seed, the same run.")
@click.option("--count", type=click.Choice(["win", "split", "sole"]), default="win", show_default=True,
              help="Threes ties: win (every tied player wins, seed 003), split, sole (unique lowest only).")
@click.option("--variant", default=None, metavar="NAME", help=VARIANT_HELP)
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@db_option
@output_option
def simulate(game, bots, rounds, seed, count, variant, no_progress, db_path, fmt, as_json):
    """Play the bots with dice; wins with 95% intervals beside the exact values.

    Every roll is random (seeded: --seed gives the same run again). Each
    seat's win rate comes with its 95% Wilson interval and the exact value
    of `dicebase tournament`; a '*' flags an exact value outside the
    interval (expect about one seat in twenty).

    Bots. threes: random, only-3s (seed 003), expected (lowest expected
    score), win, win-strict (win probability). rolled-ones: optimal,
    roll-4-or-5-dice, fixed-hold-at, simple-ones-cases, keep-pace-end-race
    (seed 002). ten-thousand: optimal (goals up to about 1,500), seed004
    (seed 004's heuristic), bank-T (bank
    at T points) and bank-T6-T5-T4-T3-T2-T1 (a threshold per dice to roll);
    3 or 4 players: optimal only (the N-player tables).

    Example:

    \b
        dicebase simulate threes random random random only-3s only-3s only-3s --rounds 1000 --seed 3
        dicebase simulate threes only-3s win only-3s win only-3s win --rounds 10000
        dicebase simulate rolled-ones optimal fixed-hold-at --rounds 20000 --json
    """
    from dicebase import bots as api

    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        bar = None
        if not no_progress and fmt != "json" and rounds >= 1_000_000 and sys.stderr.isatty():
            bar = click.progressbar(length=rounds, label="playing", file=sys.stderr)
        try:
            if bar is not None:
                bar.__enter__()
            answer = api.simulate(db, game, _bot_list(bots), rounds=rounds, seed=seed, count=count,
                                  variant=variant, progress=None if bar is None else bar.update)
        finally:
            if bar is not None:
                bar.__exit__(None, None, None)
    doc = answer.as_dict()
    if fmt == "json":
        emit(doc, fmt)
        return
    if fmt == "csv":
        emit([{"game": answer.game, "rounds": answer.rounds, "seed": answer.seed, **s} for s in doc["seats"]], fmt)
        return
    rows = [{"seat": s.seat, "player": s.player, "wins": _wins(s.wins), "rate": s.rate,
             "95% low": s.low, "95% high": s.high, "exact": s.exact, "": "*" if s.outside else ""}
            for s in answer.seats]
    emit(rows, fmt, title=f"{answer.game} ({answer.variant}): {answer.rounds:,} {answer.unit}s, seed {answer.seed}, "
                          f"count {answer.count}")
    click.echo(f"{answer.outside} of {len(answer.seats)} exact values outside their 95% interval")


def _wins(x: float):
    return int(x) if float(x).is_integer() else round(x, 3)


@click.command()
@click.argument("game", type=GAMES)
@click.option("--bots", "bots", default=None, metavar="BOT,BOT",
              help="Your opponents, in seat order (Threes: default only-3s,win; Great Rolled Ones and 10,000: "
                   "default optimal; two or more bots play the N-player tables where they are built).")
@click.option("--seat", type=int, default=1, show_default=True, help="Your seat (1 plays first).")
@click.option("--seed", type=int, default=None, help="Seed of the program's dice (default: a new game each time).")
@click.option("--real-dice", is_flag=True, help="You roll real dice and type what they show (the bots' dice are the "
                                                 "program's).")
@click.option("--variant", default=None, metavar="NAME", help=VARIANT_HELP)
@click.option("--ties", type=click.Choice(["shared", "strict"]), default="shared", show_default=True,
              help="Threes: who wins a tie for the lowest score (shared: every tied player).")
@db_option
@output_option
def play(game, bots, seat, seed, real_dice, variant, ties, db_path, fmt, as_json):
    """Play a game against the bots in the terminal.

    The program rolls the dice (or you enter your own with --real-dice).
    After each of your rolls it asks for your decision; '?' shows the
    stored advice (every action with its chance to win). At the end it
    reviews each of your decisions: the best action and what yours cost
    in chance to win. Reads its answers from standard input line by line,
    so a script can play: --json prints the review as one JSON document.

    Great Rolled Ones and 10,000 with two or more bots play the N-player
    game (docs/n_players.md) where its tables are built (otherwise one
    line with the rebuild command): the advice ranks every action with
    every seat's chance to win, as `rolled-ones best --scores` and
    `ten-thousand state/best --scores` do, and the review costs your
    decisions in your own chance.

    Example:

    \b
        dicebase play threes --bots only-3s,win --seat 2
        dicebase play rolled-ones --bots keep-pace-end-race --seed 7
        dicebase play rolled-ones --bots optimal,optimal --seat 2
        dicebase play ten-thousand --bots seed004 --seat 2
        dicebase play ten-thousand --bots optimal,optimal --seat 3
    """
    import secrets

    from dicebase.bots.play import default_bots, play as play_game

    fmt = resolve_format(fmt, as_json)
    quiet = fmt == "json"
    stdin = sys.stdin

    def ask(prompt: str):
        if not quiet:
            click.echo(prompt, nl=False)
            sys.stdout.flush()
        try:
            line = stdin.readline()
        except (OSError, ValueError):  # no readable standard input (closed, or a test's capture)
            line = ""
        if not line:
            if not quiet:
                click.echo("")
            return None
        if not quiet and not _isatty(stdin):
            click.echo(line.rstrip("\n"))
        return line

    def say(text: str):
        if not quiet:
            click.echo(text)

    seed = secrets.randbelow(2**31) if seed is None else seed
    if seed < 0:
        raise BadInput(f"--seed must be a whole number >= 0, got {seed}")
    names = _bot_list([bots]) if bots else default_bots(game)
    with open_db(db_path) as db:
        review = play_game(db, game, names, seat, ask, say, seed=seed, real_dice=real_dice, variant=variant, ties=ties)
    if quiet:
        emit({**review.as_dict(), "seed": seed}, fmt)
        return
    for line in review.lines():
        click.echo(line)
    click.echo(f"(seed {seed}: --seed {seed} plays the same dice again)")


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False
