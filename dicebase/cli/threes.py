"""``dicebase threes ...``: lookups in the solved Threes tables."""

from __future__ import annotations

import click

from dicebase.cli.common import emit, output_option, resolve_format
from dicebase.present import db_option, open_db

TIES = click.Choice(["shared", "strict"])


def _variant_option(func):
    return click.option(
        "--rules", "--variant", "variant", default="classic", show_default=True, metavar="NAME",
        help="Rule set (--variant: the same): classic (keep >= 1 die after every roll) or reroll (a roll may also "
             "keep no die and re-roll them all, as often as you like but never twice in a row: the roll after a re-roll "
             "keeps >= 2).",
    )(func)


@click.group(name="threes")
def group():
    """Threes: lowest total of five dice wins, a 3 counts zero.

    Every lookup reads the exact solution stored by `dicebase build threes`.

    Example:

    \b
        dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 4
        dicebase threes expected --rules reroll
    """


@group.command()
@click.argument("dice", nargs=-1, type=int, required=True)
@_variant_option
@click.option("--score", default=0, show_default=True, type=int, help="Points of the dice kept before this roll.")
@click.option("--to-beat", type=int, default=None, help="Best final score of the players who already finished.")
@click.option("--players-after", type=int, default=None,
              help="Players still to play after you (0 = you are last, which needs --to-beat).")
@click.option("--must-keep-two", is_flag=True, help="Your previous roll was a re-roll: keep at least two (reroll variant).")
@click.option("--ties", type=TIES, default=None,
              help="Who wins a tie for the lowest score: shared (all tied players, default) or strict (nobody).")
@db_option
@output_option
def best(dice, variant, score, to_beat, players_after, must_keep_two, ties, db_path, fmt, as_json):
    """Rank every legal keep of a roll, best first.

    DICE are the faces just rolled (a 3 is written 3). The kept dice are always
    the lowest-worth ones, so a keep is how many of them to take. Without
    --to-beat/--players-after the value is the expected final score (including
    --score; lower is better). With either, it is the probability of winning
    the round when every player plays perfectly; --players-after alone means
    nobody has finished yet, --to-beat alone means you are the last player
    (--players-after 0 therefore needs --to-beat). A --score that already
    loses to --to-beat is refused: no keep can win.

    --format csv prints one row per keep, best first (rank 1), each with the
    whole state (an empty to_beat means nobody has finished yet).

    Bounds: the win objective (the N-player tables) covers rolls of up to the
    built dice (5) and rounds of up to the built max_players (12 by default,
    at most 20; see `dicebase info`). The expected-score objective also takes
    rolls of any size up to the built many_dice (5000 by default), ranking
    every keep from threes_many_dice; on exact ties there it keeps every 3.

    Example:

    \b
        dicebase threes best 4 3 1 1 2 --score 0 --to-beat 7 --players-after 4
        dicebase threes best 6 5 4 --rules reroll --score 2 --json
    """
    with open_db(db_path) as db:
        answer = db.threes.best(
            list(dice), variant=variant, score=score, to_beat=to_beat, players_after=players_after,
            must_keep_two=must_keep_two, ties=ties,
        )
    fmt = resolve_format(fmt, as_json)
    if fmt == "json":
        emit(answer.as_dict(), fmt)
    elif fmt == "csv":
        emit(_csv_rows(answer), fmt)
    else:
        emit(_table_doc(answer), fmt)


def _csv_rows(answer) -> list[dict]:
    """One row per keep, best first, each carrying the whole state (CSV has no place for a header document)."""
    doc = answer.as_dict()
    state = {k: v for k, v in doc.items() if k not in ("best", "actions")}
    return [
        {**state, "rank": rank, "keep": list(a.keep), "dice_kept": a.dice_kept, "value": a.value}
        for rank, a in enumerate(answer.actions, 1)
    ]


def _table_doc(answer) -> dict:
    doc = answer.as_dict()
    doc.pop("best")
    if doc.get("to_beat", 0) is None:
        doc["to_beat"] = "nobody finished yet"
    label = "expected final score (lower is better)" if answer.objective == "expected_final_score" else "p_win"
    doc["actions"] = [{"keep": a["keep"] or "(re-roll all)", label: a["value"]} for a in doc["actions"]]
    return doc


@group.command()
@_variant_option
@click.option("--dice", type=int, default=None,
              help="Answer for a turn of this many dice, 1 up to the built many_dice (5000 by default).")
@db_option
@output_option
def expected(variant, dice, db_path, fmt, as_json):
    """Expected final score of a turn played to minimise it, per dice left.

    Without --dice: every dice count of the built game (1..5). With --dice N:
    a turn of N dice, read from the many-dice table (seed 000's open question:
    from about 150 dice on it no longer changes in double precision).

    Rows with must_keep_two=true are the states right after a re-roll (reroll
    variant): that roll must keep at least two dice.

    Example:

    \b
        dicebase threes expected --rules reroll --json
        dicebase threes expected --dice 5000
    """
    with open_db(db_path) as db:
        rows = db.threes.expected(variant, dice=dice)
    emit([{"dice": r.dice, "must_keep_two": r.must_keep_two, "expected_score": r.expected_score} for r in rows],
         resolve_format(fmt, as_json))


@group.command()
@_variant_option
@click.option("--dice", type=int, default=None,
              help="Dice still to roll (default: a fresh turn); up to the built many_dice_chances (50 by default), "
                   "targets 0..30 beyond the built dice.")
@click.option("--ties", type=TIES, default="shared", show_default=True,
              help="shared: equalling the target wins; strict: you must finish strictly below it.")
@click.option("--must-keep-two", is_flag=True, help="The first of these rolls must keep two (after a re-roll).")
@db_option
@output_option
def chances(variant, dice, ties, must_keep_two, db_path, fmt, as_json):
    """The last player's chance to win against each target score.

    One row per target b (the best final score so far): the probability that
    the last player, rolling --dice fresh dice with nothing kept and playing
    to win, ends on b or less (shared) or below b (strict). With more dice
    than the built game (up to many_dice_chances, 50 by default) the targets
    are 0..30.

    Example:

    \b
        dicebase threes chances --ties strict
        dicebase threes chances --rules reroll --dice 3 --json
        dicebase threes chances --dice 50
    """
    with open_db(db_path) as db:
        rows = db.threes.chances(variant, dice=dice, ties=ties, must_keep_two=must_keep_two)
    emit([{"target": r.target, "p_win": r.p_win} for r in rows], resolve_format(fmt, as_json))


@group.command()
@click.option("--players", type=int, required=True,
              help="Players in the round: 2 up to the max_players the database was built with (dicebase info).")
@_variant_option
@click.option("--ties", type=TIES, default="shared", show_default=True,
              help="shared: all players tied for the lowest score win; strict: a tie has no winner.")
@db_option
@output_option
def seats(players, variant, ties, db_path, fmt, as_json):
    """Win probability of each seat in a round where everyone plays perfectly.

    Seat 1 plays first. Under shared ties co-winners all count, so the column
    sums to more than 1; under strict ties a tied round has no winner.

    Example:

    \b
        dicebase threes seats --players 6
        dicebase threes seats --players 4 --ties strict --json
    """
    with open_db(db_path) as db:
        rows = db.threes.seats(players, variant=variant, ties=ties)
    emit([{"seat": r.seat, "p_win": r.p_win} for r in rows], resolve_format(fmt, as_json))
