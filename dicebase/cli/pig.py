"""``dicebase pig ...``: lookups in the solved Pig tables (issue 31; docs/pig.md)."""

from __future__ import annotations

import click

from dicebase.cli.common import WholeNumbers, emit, emit_compensation, emit_seats, output_option, resolve_format
from dicebase.present import db_option, open_db
from dicebase.rules.pig import PLAYER_COUNTS


def _rules_option(func):
    return click.option(
        "--rules", "--variant", "variant", default=None, metavar="NAME",
        help="Rule set (--variant: the same), as in pig_variants (default: 'pig' when built, else the one built; "
             "'piglet' is Neller and Presser's coin game).",
    )(func)


def _state_options(func):
    """The state: every seat's score (--scores, or two players' --score and --opponent), the seat to move
    and the turn total."""
    for flag, required, kind, text in reversed([
        ("--scores", False, WholeNumbers("scores", "whole numbers", "30,41,12"),
         f"Every seat's banked score in seat order ({PLAYER_COUNTS[0]}-{PLAYER_COUNTS[-1]} seats), e.g. 30,41,12."),
        ("--score", False, int, "Two players: the mover's banked score, points."),
        ("--opponent", False, int, "Two players: the opponent's banked score, points."),
        ("--player", True, int, "The seat to move, 1..N (with --score/--opponent: 1 or 2)."),
        ("--turn-total", False, int, "Points rolled this turn and not yet banked (default 0: the turn's start)."),
    ]):
        metavar = "A,B[,C[,D]]" if flag == "--scores" else "N"
        default = 0 if flag == "--turn-total" else None
        func = click.option(flag, required=required, default=default, type=kind, metavar=metavar, help=text)(func)
    return func


@click.group(name="pig")
def group():
    """Pig: roll one die as often as you like; a 1 loses the turn's points; first to the goal wins.

    Every lookup reads the exact solution stored by `dicebase build pig`
    (Neller and Presser, "Optimal Play of the Dice Game Pig", 2004, for two
    players; any number of players from 2 to 4). A state is every seat's
    banked score, the seat to move and its turn total.

    Example:

    \b
        dicebase pig best --scores 0,0 --player 1
        dicebase pig best --score 30 --opponent 41 --player 2 --turn-total 13 --json
        dicebase pig seats
        dicebase pig policies --players 2
    """


def _lookup(scores, score, opponent, player, turn_total, variant, db_path, fmt, as_json):
    from dicebase.errors import BadInput

    fmt = resolve_format(fmt, as_json)
    if scores is not None and (score is not None or opponent is not None):
        raise BadInput("give either --scores (every seat's score) or --score and --opponent (two players), not both")
    if scores is None and (score is None or opponent is None):
        raise BadInput("give --score and --opponent (two players) or --scores A,B,C (one score per seat)")
    state = (scores, player, turn_total) if scores is not None else (player, score, opponent, turn_total)
    with open_db(db_path) as db:
        answer = db.pig.best(*state, variant=variant)
    emit_seats(answer, fmt, _mix)


def _mix(m: dict) -> str:
    return f"seat {m['seat']} rolls at turn total {m['turn_total']} with probability {m['p_roll']:.4f}"


@group.command()
@_state_options
@_rules_option
@db_option
@output_option
def best(scores, score, opponent, player, turn_total, variant, db_path, fmt, as_json):
    """Optimal play at a state: every action with every seat's win probability, best first.

    p_win is the mover's win probability with the best action, p_wins every
    seat's; each action lists them when it is taken and every seat plays
    optimally afterwards. Ties hold (hold before roll). With three or more
    seats a score tuple where best responses cycle stores a selected (often
    mixed) equilibrium: the answer says so (cycle_tuple). Results for three or
    more players are new (docs/pig.md).

    Example:

    \b
        dicebase pig best --scores 0,0 --player 1 --json
        dicebase pig best --score 30 --opponent 41 --player 2 --turn-total 13
        dicebase pig best --scores 30,41,12 --player 3 --turn-total 8 --rules pig
    """
    _lookup(scores, score, opponent, player, turn_total, variant, db_path, fmt, as_json)


@group.command()
@_state_options
@_rules_option
@db_option
@output_option
def state(scores, score, opponent, player, turn_total, variant, db_path, fmt, as_json):
    """The value of a state: the same answer as `pig best` (Pig's whole decision is roll or hold).

    Example:

    \b
        dicebase pig state --scores 0,0 --player 1 --json
        dicebase pig state --score 60 --opponent 90 --player 1 --turn-total 20
    """
    _lookup(scores, score, opponent, player, turn_total, variant, db_path, fmt, as_json)


def _players_option(required: bool):
    return click.option("--players", required=required, default=None,
                        type=click.IntRange(PLAYER_COUNTS[0], PLAYER_COUNTS[-1]), metavar="N",
                        help=f"Number of players, {PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]} (as built: -o pig.players=[2] "
                             "is the default).")


@group.command()
@_players_option(False)
@_rules_option
@db_option
@output_option
def seats(players, variant, db_path, fmt, as_json):
    """Each seat's win probability from the start, every seat playing optimally.

    advantage = p_win - 1/N: the first player's advantage. Every N built, or
    one with --players. Two players at goal 100: the first player wins 0.5306
    (Neller and Presser 2004).

    Example:

    \b
        dicebase pig seats --players 2 --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.pig.seats(players, variant=variant)
    emit([r.as_dict() for r in rows], fmt)


@group.command()
@_players_option(True)
@_rules_option
@db_option
@output_option
def compensation(players, variant, db_path, fmt, as_json):
    """The fair compensation (komi): starting points that bring every seat closest to 1/N.

    Searched over the stored turn starts with seat 1 to move and at least one
    seat at 0: the starting scores with the least largest |p_win - 1/N|, next
    to the seats' chances without compensation.

    Example:

    \b
        dicebase pig compensation --players 2
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        emit_compensation(db.pig.compensation(players, variant=variant), fmt)


@group.command()
@_players_option(False)
@_rules_option
@db_option
@output_option
def policies(players, variant, db_path, fmt, as_json):
    """What each simple policy costs the seat that plays it against optimal play.

    One seat plays the policy (hold at 20, hold at 25, four turns: exact
    definitions in pig_policies and docs/pig.md), every other seat the stored
    equilibrium (it does not adapt). p_win: the policy seat's win
    probability from the start; p_win_optimal: its win probability when it
    plays optimally too; cost = p_win_optimal - p_win; p_wins: every seat's.

    Example:

    \b
        dicebase pig policies --players 2
        dicebase pig policies --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.pig.policies(players, variant=variant)
    emit([r.as_dict() for r in rows], fmt)
