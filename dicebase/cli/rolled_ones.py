"""``dicebase rolled-ones ...``: lookups in the solved Great Rolled Ones tables."""

from __future__ import annotations

import click

from dicebase.cli.common import emit, output_option, resolve_format
from dicebase.present import db_option, open_db

#: Largest ``disagreements --limit``; equal to dicebase.query.rolled_ones.LIMIT_MAX (tested), kept
#: here so the CLI module does not import the query layer at start-up.
LIMIT_MAX = 10_000_000


def _variant_option(func):
    return click.option(
        "--variant", default=None, metavar="NAME",
        help="Rule set, as in rolled_ones_variants (default: the one built; 'standard' is seed 002's rules).",
    )(func)


def _state_options(func):
    """``--player --score --opponent --turn-total --ones``: seed 002's state (p, i, j, k, o)."""
    for flag, text in reversed(
        [
            ("--player", "Player to move: 1 (moves first each round) or 2.  [p]"),
            ("--score", "The mover's score before this turn, points.  [i]"),
            ("--opponent", "The opponent's score, points (player 1's final score on player 2's last turn).  [j]"),
            ("--turn-total", "Points rolled this turn and not yet banked.  [k]"),
            ("--ones", "Rolled 1s set aside this turn, below the variant's ones_limit (which ends the turn).  [o]"),
        ]
    ):
        func = click.option(flag, required=True, type=int, metavar="N", help=text)(func)
    return func


@click.group(name="rolled-ones")
def group():
    """Great Rolled Ones: push your luck with five dice, three 1s end the turn.

    Every lookup reads the exact solution of seed 002's equations stored by
    `dicebase build rolled-ones`. A state is (player, score, opponent,
    turn total, ones set aside) = seed 002's (p, i, j, k, o).

    Example:

    \b
        dicebase rolled-ones best --player 1 --score 0 --opponent 0 --turn-total 0 --ones 0
        dicebase rolled-ones komi
        dicebase rolled-ones gaps --json
    """


@group.command()
@_state_options
@_variant_option
@db_option
@output_option
def best(player, score, opponent, turn_total, ones, variant, db_path, fmt, as_json):
    """Optimal play at a state: both actions with their win probabilities, best first.

    p_roll and p_hold are the mover's probabilities of winning if it rolls or
    holds now and both players play optimally afterwards; p_win is the
    larger. On player 2's last turn (--opponent at or above the goal) the
    answer comes from the P_exceed table.

    Example:

    \b
        dicebase rolled-ones best --player 2 --score 30 --opponent 41 --turn-total 13 --ones 1 --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        answer = db.rolled_ones.best(player, score, opponent, turn_total, ones, variant=variant)
    doc = answer.as_dict()
    if fmt == "table":
        doc = {k: v for k, v in doc.items() if k not in ("p_roll", "p_hold")}
    elif fmt == "csv":  # one row per action next to the answer's fields: the action's own p_win renamed
        doc["actions"] = [{"action": a["action"], "action_p_win": a["p_win"]} for a in doc["actions"]]
    emit(doc, fmt)


@group.command()
@_variant_option
@db_option
@output_option
def komi(variant, db_path, fmt, as_json):
    """Player 1's win rate for each compensation (komi) stored, and the fair komi.

    Komi c means player 1 starts with c points (the state (1, c, 0, 0, 0));
    both play optimally. Rows run from 0 to the variant's komi_max (a build
    option). The fair komi brings player 1 closest to 0.5.

    Example:

    \b
        dicebase rolled-ones komi --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        answer = db.rolled_ones.komi(variant=variant)
    doc = answer.as_dict()
    if fmt == "table":
        emit(doc["rows"], fmt)
        click.echo(f"fair komi: {answer.fair_komi} (player 1 wins {answer.fair_p1_win:.4f})")
        return
    emit(doc, fmt)


@group.command()
@_variant_option
@db_option
@output_option
def gaps(variant, db_path, fmt, as_json):
    """How much each human-playable policy loses against optimal play (seed 002 Fig. 2).

    p1_win / p2_win: the policy's win rate in seat 1 / 2 against the optimal
    player; gap = (p1_win - optimal p1 win) + (p2_win - optimal p2 win);
    seed_gap is the figure printed in seed 002.

    Example:

    \b
        dicebase rolled-ones gaps --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.rolled_ones.gaps(variant=variant)
    emit([r.as_dict() for r in rows], fmt)


@group.command()
@_variant_option
@db_option
@output_option
def advantage(variant, db_path, fmt, as_json):
    """First-player advantage: both seats' win rates under optimal play.

    Example:

    \b
        dicebase rolled-ones advantage --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        answer = db.rolled_ones.advantage(variant=variant)
    emit(answer.as_dict(), fmt)


@group.command()
@click.argument("name", metavar="NAME")
@_state_options
@_variant_option
@db_option
@output_option
def policy(name, player, score, opponent, turn_total, ones, variant, db_path, fmt, as_json):
    """What a human-playable policy does at a state, and what optimal play does.

    NAME is one of roll-4-or-5-dice, fixed-hold-at, simple-ones-cases,
    keep-pace-end-race (seed 002's Algorithms 1-4). cost is the mover's win
    probability lost by the policy's action here (optimal play afterwards);
    p_win_moving / p_win_waiting are the policy's chances against the optimal
    player from this state when the policy / the optimal player is to move.

    Example:

    \b
        dicebase rolled-ones policy fixed-hold-at --player 1 --score 20 --opponent 35 --turn-total 22 --ones 1
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        answer = db.rolled_ones.policy(name, player, score, opponent, turn_total, ones, variant=variant)
    emit(answer.as_dict(), fmt)


@group.command()
@click.argument("name", metavar="NAME")
@click.option(
    "--limit", default=10, show_default=True, type=click.IntRange(1, LIMIT_MAX), metavar="N",
    help=f"How many states to list (1..{LIMIT_MAX:,}).",
)
@_variant_option
@db_option
@output_option
def disagreements(name, limit, variant, db_path, fmt, as_json):
    """The states where a human policy's action costs the most against optimal play.

    Example:

    \b
        dicebase rolled-ones disagreements keep-pace-end-race --limit 5
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.rolled_ones.disagreements(name, limit=limit, variant=variant)
    emit([r.as_dict() for r in rows], fmt)
