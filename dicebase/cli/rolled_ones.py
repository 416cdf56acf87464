"""``dicebase rolled-ones ...``: lookups in the solved Great Rolled Ones tables."""

from __future__ import annotations

import click

from dicebase.cli.common import WholeNumbers, emit, emit_compensation, emit_seats, output_option, resolve_format
from dicebase.present import db_option, open_db
from dicebase.rules.rolled_ones import POLICY_MODES

#: Largest ``disagreements --limit``; equal to dicebase.query.rolled_ones.LIMIT_MAX (tested), kept
#: here so the CLI module does not import the query layer at start-up.
LIMIT_MAX = 10_000_000


def _variant_option(func):
    return click.option(
        "--rules", "--variant", "variant", default=None, metavar="NAME",
        help="Rule set (--variant: the same), as in rolled_ones_variants (default: the one built; 'standard' is seed 002's rules).",
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
        dicebase rolled-ones best --scores 30,41,12 --player 3 --turn-total 13 --ones 1
        dicebase rolled-ones seats --players 3
    """


def _best_options(func):
    """``best``'s state: two players as seed 002's (p, i, j, k, o), or N players as --scores and --player."""
    for flag, required, kind, text in reversed([
        ("--player", True, int, "Player to move: 1 (moves first each round) or 2; with --scores the seat to move, "
                                "1..N.  [p]"),
        ("--score", False, int, "Two players: the mover's score before this turn, points.  [i]"),
        ("--opponent", False, int, "Two players: the opponent's score, points (player 1's final score on player 2's "
                                   "last turn).  [j]"),
        ("--scores", False, WholeNumbers("scores", "whole numbers", "30,41,12"), "Every seat's score in seat order "
                                 "(2-4 seats), e.g. 30,41,12, with --player the seat to move: two seats are the "
                                 "game --score and --opponent give (the same answer), more the N-player tables'."),
        ("--turn-total", True, int, "Points rolled this turn and not yet banked.  [k]"),
        ("--ones", True, int, "Rolled 1s set aside this turn, below the variant's ones_limit (which ends the "
                              "turn).  [o]"),
    ]):
        metavar = "A,B[,C[,D]]" if flag == "--scores" else "N"
        func = click.option(flag, required=required, default=None, type=kind, metavar=metavar, help=text)(func)
    return func


@group.command()
@_best_options
@_variant_option
@db_option
@output_option
def best(player, score, opponent, scores, turn_total, ones, variant, db_path, fmt, as_json):
    """Optimal play at a state: every action with its win probabilities, best first.

    Two players (--scores A,B or, the same, --score and --opponent): p_roll and p_hold are the mover's
    probabilities of winning if it rolls or holds now and both play
    optimally afterwards; p_win is the larger. On player 2's last turn
    (--opponent at or above the goal) the answer comes from the P_exceed
    table.

    N players (--scores A,B,C[,D], one per seat, with --player the seat to
    move): each action with the mover's win probability and p_wins, every
    seat's, all seats playing optimally (an equilibrium), computed from the
    stored turn starts. In a score tuple where best responses cycle the
    stored equilibrium is a selection, often mixed: the answer says so
    (cycle_tuple, and the seats' roll probabilities). A score at or above
    the goal is a final-round state: a seat before --player reached the
    goal this round (the highest score is the bar) and --player takes its
    final turn, holding only above the bar. These are new, unpublished
    results (docs/n_players.md).

    Example:

    \b
        dicebase rolled-ones best --player 2 --score 30 --opponent 41 --turn-total 13 --ones 1 --json
        dicebase rolled-ones best --scores 30,41,12 --player 3 --turn-total 13 --ones 1
        dicebase rolled-ones best --scores 52,41,12 --player 2 --turn-total 13 --ones 1
    """
    from dicebase.errors import BadInput

    fmt = resolve_format(fmt, as_json)
    if scores is not None and (score is not None or opponent is not None):
        raise BadInput("give either --scores (every seat's score) or --score and --opponent (two players), not both")
    if scores is None and (score is None or opponent is None):
        raise BadInput("give --score and --opponent (two players) or --scores A,B,C (one score per seat, N players)")
    state = (scores, player) if scores is not None else (player, score, opponent)  # --score/--opponent: shorthand
    with open_db(db_path) as db:
        answer = db.rolled_ones.best(*state, turn_total, ones, variant=variant)
    if hasattr(answer, "p_wins"):  # three or more seats: every seat's chance
        emit_seats(answer, fmt, _mix)
        return
    doc = answer.as_dict()
    if fmt == "table":
        doc = {k: v for k, v in doc.items() if k not in ("p_roll", "p_hold")}
    elif fmt == "csv":  # one row per action next to the answer's fields: the action's own p_win renamed
        doc["actions"] = [{"action": a["action"], "action_p_win": a["p_win"]} for a in doc["actions"]]
    emit(doc, fmt)


def _mix(m: dict) -> str:
    return f"seat {m['seat']} rolls at ({m['turn_total']}, {m['ones']}) with probability {m['p_roll']:.4f}"


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


def _players_option(required: bool):
    return click.option("--players", required=required, default=None, type=click.IntRange(2, 4), metavar="N",
                        help="Number of players, 2..4 (as built: -o rolled-ones.players=[2,3] is the default).")


@group.command()
@_players_option(False)
@_variant_option
@db_option
@output_option
def seats(players, variant, db_path, fmt, as_json):
    """N players: each seat's win probability from the start, every seat playing optimally.

    advantage = p_win - 1/N. Every N built, or one with --players. These are
    new, unpublished results (docs/n_players.md).

    Example:

    \b
        dicebase rolled-ones seats --players 3 --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.rolled_ones.seats(players, variant=variant)
    emit([r.as_dict() for r in rows], fmt)


@group.command()
@_players_option(True)
@_variant_option
@db_option
@output_option
def compensation(players, variant, db_path, fmt, as_json):
    """N players: the fair compensation, starting points that bring every seat closest to 1/N.

    Searched over the stored turn starts with seat 1 to move and at least one
    seat at 0: the starting scores with the least largest |p_win - 1/N|,
    next to the seats' chances without compensation. New, unpublished
    results (docs/n_players.md).

    Example:

    \b
        dicebase rolled-ones compensation --players 3
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        emit_compensation(db.rolled_ones.compensation(players, variant=variant), fmt)




@group.command()
@_players_option(False)
@click.option("--mode", type=click.Choice(POLICY_MODES), default="equilibrium", show_default=True,
              help="How the other seats play: equilibrium (they keep the stored equilibrium and do not adapt, as "
                   "seed 002 measures) or best_response (they exploit the policy).")
@_variant_option
@db_option
@output_option
def policies(players, mode, variant, db_path, fmt, as_json):
    """N players: what each of seed 002's human policies costs the seat that uses it.

    One seat plays the policy, the other seats play optimally, in one of two
    readings (--mode): equilibrium (the default; seed 002's measure) - they
    keep playing the stored equilibrium, they do not adapt to the policy;
    best_response - each maximises its own win probability knowing the
    policy, it exploits it. p_win: the policy seat's win probability from the
    start; p_win_optimal: the seat's when every seat plays the equilibrium;
    cost = p_win_optimal - p_win. With two players the equilibrium reading is
    `rolled-ones gaps`' (seed 002's Fig. 2), and a best response wins at least
    as often against the policy. For N players the last seat plays the
    policy's player 2 cases, the others its player 1 cases, and "opponent" is
    the leading other player (docs/n_players.md). New, unpublished results
    for three or more players.

    Example:

    \b
        dicebase rolled-ones policies --players 2
        dicebase rolled-ones policies --players 3 --mode best_response --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.rolled_ones.n.policies(players, variant=variant, mode=mode)
    emit([r.as_dict() for r in rows], fmt)
    if fmt == "table":
        sums: dict = {}
        for r in rows:
            sums.setdefault((r.players, r.policy), []).append(r.cost)
        for (n, name), costs in sums.items():
            click.echo(f"{n} players, {name} ({mode}): mean cost over the seats {sum(costs) / len(costs):.6f}, "
                       f"sum {sum(costs):.6f}")
