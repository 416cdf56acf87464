"""``dicebase ten-thousand ...``: lookups in the solved 10,000 / Farkle tables."""

from __future__ import annotations

import click

from dicebase.cli.common import WholeNumbers, emit, emit_seats, output_option, resolve_format
from dicebase.present import db_option, open_db
from dicebase.rules.ten_thousand import MAX_POINTS


def _rules_option(func):
    return click.option(
        "--rules", "--variant", "rules", default="ten-thousand", show_default=True, metavar="NAME",
        help="Rule set: a preset (ten-thousand = seed 004, farkle, farkle-additive, zilch) or house rules "
             "built from a file (see `dicebase info`).",
    )(func)


POINTS = click.IntRange(0, MAX_POINTS)
#: a banked score: below 0 only with a consecutive-farkle penalty (down to the rule set's lowest_score, issue 24)
SCORE = click.IntRange(-20_000, MAX_POINTS)
_farkles_option = click.option(
    "--farkles", default=None, metavar="A,B", type=WholeNumbers("--farkles", "counts", "0,2"),
    help="Farkles in a row of the player to move and of the opponent (two players, rule sets with a "
         "consecutive-farkle penalty; e.g. 0,2).")


def _triple_option(func):
    return click.option(
        "--triple", default=0, show_default=True, type=int, metavar="F",
        help="Face of the standing three of a kind (0 = none; only with 3 or fewer dice, unless the rules keep "
        "it past hot dice).",
    )(func)


def _nplayer_options(func):
    """``--scores A,B,C[,D]`` and ``--player K``: an N-player state (issue 21) instead of --score/--opponent."""
    func = click.option(
        "--player", default=None, type=int, metavar="K",
        help="N players: the seat to move, 1..N (with --scores).")(func)
    return click.option(
        "--scores", default=None, metavar="A,B,C[,D]", type=WholeNumbers("scores", "whole numbers", "300,450,0"),
        help="Every seat's banked points in seat order (2-4 seats), e.g. 300,450,0, with --player the seat to move: two "
        "seats are the game --score and --opponent give (the same answer), more the N-player tables' (built with -o "
        "ten-thousand.players=...). A seat at or above the goal: the final round.")(func)


def _seats(scores, player, score, opponent, farkles=None) -> dict:
    """The scores as the Python API takes them: ``scores`` and ``player`` (any number of seats; two are the
    two-player game) or the two-player shorthand ``score`` and ``opponent``; BadInput (one line) for a mix
    of the two ways (and for --farkles with --scores: the N-player tables have no farkle counts, issue 34)."""
    from dicebase.errors import BadInput

    if scores is not None:
        if score is not None or opponent is not None:
            raise BadInput("give either --scores (every seat's score) or --score and --opponent (two players), not both")
        if farkles is not None:
            raise BadInput("--farkles goes with --score and --opponent (the two-player game of a rule set with a "
                           "consecutive-farkle penalty); the N-player game (--scores) has no farkle counts")
        if player is None:
            raise BadInput("give --player K, the seat to move, with --scores")
        return {"scores": scores, "player": player}
    if player is not None:
        raise BadInput("--player goes with --scores (N players); two players take --score and --opponent")
    return {"score": score, "opponent": opponent, **({} if farkles is None else {"farkles": farkles})}


def _mix(m: dict) -> str:
    if m["decision"] == "roll":
        return (f"seat {m['seat']} rolls at ({m['turn_total']}, {m['dice']} dice, triple {m['triple']}) with "
                f"probability {m['p_roll']:.4f}")
    return (f"seat {m['seat']} mixes two keeps at ({m['turn_total']}, {m['dice']} dice): the first with probability "
            f"{m['p_first']:.4f}")


@click.group(name="ten-thousand")
def group():
    """10,000 (Farkle family): odds, the optimal turn and the optimal two-player game.

    Every lookup reads the exact solution stored by `dicebase build ten-thousand`.
    Points are plain points (multiples of 50).

    Example:

    \b
        dicebase ten-thousand odds --dice 6
        dicebase ten-thousand best 1 1 5 2 3 4 --turn-total 0
        dicebase ten-thousand best 1 5 5 --turn-total 600 --score 9000 --opponent 9500
        dicebase ten-thousand state --score 9000 --opponent 9500 --turn-total 1500 --dice 3
        dicebase ten-thousand state --scores 300,300,400 --player 1 --turn-total 1200 --dice 1 --triple 4
        dicebase ten-thousand seats
    """


@group.command()
@click.option("--dice", required=True, type=int, metavar="N", help="Dice rolled, 1-6.")
@_triple_option
@_rules_option
@db_option
@output_option
def odds(dice, triple, rules, db_path, fmt, as_json):
    """Combination classes of a roll of N dice: outcomes, probability, mean points.

    Seed 004's tables: rarest combination first, then '1 or 5' and 'Farkle'.
    mean_points counts every scoring die (the best keep); mean_combination_points
    only the dice of the named combination (seed 004's 'Add to 3-of-a-kind' EV).

    Example:

    \b
        dicebase ten-thousand odds --dice 6
        dicebase ten-thousand odds --dice 3 --triple 2 --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.ten_thousand.odds(dice, triple=triple, rules=rules)
    out = [
        {"combination": r.combination, "outcomes": r.outcomes, "probability": r.probability,
         "mean_points": r.mean_points, "mean_combination_points": r.mean_combination_points}
        for r in rows
    ]
    if fmt == "table":
        scoring = sum(r.outcomes for r in rows if r.combination != "Farkle")
        total = 6 ** dice
        click.echo(f"{dice} dice, triple {triple or 'none'}, rules {rules}: "
                   f"{scoring:,} scoring outcomes of {total:,} ({100 * scoring / total:.2f} %)")
    emit(out, fmt)


@group.command()
@click.argument("dice", nargs=-1, type=int, required=True)
@click.option("--turn-total", required=True, type=POINTS, metavar="K",
              help="Unbanked points of this turn before the roll (multiple of 50, 0 = turn start).")
@_triple_option
@click.option("--score", type=SCORE, default=None, metavar="I",
              help="Your banked points, below the goal (two-player game; with --opponent).")
@click.option("--opponent", type=SCORE, default=None, metavar="J",
              help="Opponent's banked points; at or above the goal this is your last turn.")
@_farkles_option
@_nplayer_options
@_rules_option
@db_option
@output_option
def best(dice, turn_total, triple, score, opponent, farkles, scores, player, rules, db_path, fmt, as_json):
    """Rank every legal keep of a roll, best first, with the roll/bank choice after it.

    DICE are the faces just rolled. Without --score/--opponent the value is the
    expected banked points of the turn (solitaire); with them it is the probability
    of winning the two-player game to the built goal. An --opponent at or above the
    goal makes this your last turn: every keep is valued by the chance to end above
    the opponent. A farkle reports the value of losing the turn total.

    N players (--scores A,B,C[,D], one per seat, with --player the seat to
    move): each keep with the mover's win probability and p_wins, every
    seat's, all seats playing optimally (an equilibrium), computed from the
    stored turn starts; a seat at or above the goal makes it a final turn.
    In a score tuple where best responses cycle the answer says so. New,
    unpublished results (docs/n_players.md).

    Example:

    \b
        dicebase ten-thousand best 1 1 5 2 3 4 --turn-total 0
        dicebase ten-thousand best 2 5 6 --turn-total 350 --triple 2
        dicebase ten-thousand best 1 5 5 --turn-total 600 --score 9000 --opponent 9500 --json
        dicebase ten-thousand best 5 2 3 4 --turn-total 300 --score 9700 --opponent 10050
        dicebase ten-thousand best 1 5 2 3 --turn-total 600 --scores 300,450,0 --player 3
        dicebase ten-thousand best 1 5 2 3 --turn-total 300 --score -500 --opponent 2000 --farkles 2,0 --rules facebook-farkle
    """
    fmt = resolve_format(fmt, as_json)
    seats = _seats(scores, player, score, opponent, farkles)
    with open_db(db_path) as db:
        answer = db.ten_thousand.best(list(dice), turn_total=turn_total, triple=triple, rules=rules, **seats)
    if hasattr(answer, "p_wins"):  # three or more seats: every seat's chance
        emit_seats(answer, fmt, _mix)
        return
    doc = answer.as_dict()
    if fmt == "table":
        doc.pop("best")
        if answer.farkle:  # the value of the state after losing the turn total
            doc["actions"] = "farkle: nothing scores, the turn total is lost"
        else:
            doc.pop("farkle_value")
            label = {"expected_banked_points": "expected points", "win_probability": "p_win"}.get(
                answer.objective, "value (points)")  # issue 24: with a farkle penalty, docs/farkle.md
            doc["actions"] = [
                {"keep": a["keep"], "points": a["points"], "dice_after": a["dice_after"],
                 "triple_after": a["triple_after"] or "-", label: a["value"], "then": a["then"],
                 "dominated": a["dominated"]}
                for a in doc["actions"]
            ]
        if answer.score is None:  # solitaire turn
            for key in ("score", "opponent", "goal", "last_turn"):
                doc.pop(key)
    emit(doc, fmt)


@group.command()
@click.option("--score", default=None, type=SCORE, metavar="I",
              help="Banked points of the player to move, below the goal (two players; with --opponent).")
@click.option("--opponent", default=None, type=SCORE, metavar="J",
              help="Opponent's banked points; at or above the goal this is the last turn.")
@_farkles_option
@_nplayer_options
@click.option("--turn-total", required=True, type=POINTS, metavar="K",
              help="Unbanked points of this turn (0 = turn start with six dice).")
@click.option("--dice", required=True, type=int, metavar="N", help="Dice about to be rolled, 1-6.")
@_triple_option
@_rules_option
@db_option
@output_option
def state(score, opponent, farkles, scores, player, turn_total, dice, triple, rules, db_path, fmt, as_json):
    """Any two-player pre-roll state: win probability, roll or bank, both values.

    Answers every state, not only the stored ones: roll states are read from
    ten_thousand_duel, bank states get the bank value from the opponent's turn
    start (or last turn) and the roll value by one-step lookahead over every
    roll, and last-turn states (opponent at or above the goal) the chance to
    end above the opponent. `source` says which.

    N players (--scores A,B,C[,D] with --player K): roll and bank with the
    mover's win probability and p_wins, every seat's; best is roll, bank or
    mixed (a cycle tuple where the seat randomises: roll_probability). A
    seat at or above the goal makes it a final turn. New, unpublished
    results (docs/n_players.md).

    Example:

    \b
        dicebase ten-thousand state --score 0 --opponent 0 --turn-total 0 --dice 6
        dicebase ten-thousand state --score 9000 --opponent 9500 --turn-total 1500 --dice 3 --json
        dicebase ten-thousand state --score 9700 --opponent 10050 --turn-total 300 --dice 1
        dicebase ten-thousand state --scores 300,450,0 --player 3 --turn-total 0 --dice 6 --json
        dicebase ten-thousand state --score 0 --opponent 0 --farkles 0,0 --turn-total 0 --dice 6 --rules facebook-farkle
    """
    from dicebase.errors import BadInput

    fmt = resolve_format(fmt, as_json)
    seats = _seats(scores, player, score, opponent, farkles)
    if scores is None and (score is None or opponent is None):
        raise BadInput("give --score and --opponent (two players) or --scores A,B,C with --player K (N players)")
    state = (scores, player) if scores is not None else (score, opponent)  # --score/--opponent: shorthand
    with open_db(db_path) as db:
        st = db.ten_thousand.state(*state, turn_total, dice, triple=triple, rules=rules,
                                   **{k: v for k, v in seats.items() if k == "farkles"})
    if hasattr(st, "p_wins"):  # three or more seats: every seat's chance
        emit_seats(st, fmt, _mix)
        return
    from dataclasses import asdict

    emit(asdict(st), fmt)


@group.command()
@_rules_option
@db_option
@output_option
def thresholds(rules, db_path, fmt, as_json):
    """When to bank: per dice count and standing triple, the optimal turn's bank threshold.

    min_turn_total is the smallest turn total with which a turn reaches the
    (dice, triple); bank_from is the smallest such reachable total at which the
    optimal solitaire turn banks (it rolls below it; last_roll is empty when it
    always banks); seed004_bank_from is where seed 004's EV rule banks.

    Example:

    \b
        dicebase ten-thousand thresholds
        dicebase ten-thousand thresholds --rules farkle --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.ten_thousand.thresholds(rules)
    emit([{"dice": r.dice, "triple": r.triple, "min_turn_total": r.min_turn_total, "bank_from": r.bank_from,
           "last_roll": r.last_roll, "seed004_bank_from": r.seed004_bank_from} for r in rows], fmt)


@group.command()
@db_option
@output_option
def gaps(db_path, fmt, as_json):
    """Seed 004's heuristic against the optimal opponent: win rates per seat and the gap.

    gap = (p1_win - optimal p1_win) + (p2_win - optimal p2_win); the optimal
    opponent keeps its optimal policy. expected_turn_points is one solitaire turn.

    Example:

    \b
        dicebase ten-thousand gaps
        dicebase ten-thousand gaps --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.ten_thousand.gaps()
    emit([{"rules": g.rules, "goal": g.goal, "policy": g.policy, "p1_win": g.p1_win, "p2_win": g.p2_win,
           "gap": g.gap, "expected_turn_points": g.expected_turn_points} for g in rows], fmt)


def _players_option(required: bool):
    return click.option("--players", required=required, default=None, type=click.IntRange(2, 4), metavar="N",
                        help="Number of players, 2..4 (as built: -o ten-thousand.players=[3]).")


@group.command()
@_players_option(False)
@_rules_option
@db_option
@output_option
def seats(players, rules, db_path, fmt, as_json):
    """N players: each seat's win probability from the start, every seat playing optimally.

    advantage = p_win - 1/N. Every N built (at its goal), or one with
    --players. New, unpublished results (docs/n_players.md).

    Example:

    \b
        dicebase ten-thousand seats --players 3 --json
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        rows = db.ten_thousand.seats(players, rules=rules)
    emit([r.as_dict() for r in rows], fmt)


@group.command()
@_players_option(False)
@_rules_option
@db_option
@output_option
def compensation(players, rules, db_path, fmt, as_json):
    """The fair compensation: starting points that bring every seat closest to an even share.

    Two players (the default, or --players 2): from the two-player game's
    stored turn starts, the points the second player (or, where the second
    seat is the stronger, the first) starts with so that the first player's
    win probability is closest to 1/2, the five starts nearest to fair, and
    the game without compensation and as its rules set it (view
    ten_thousand_duel_fair_compensation, docs/farkle.md).

    N players (--players 3 or 4): searched over the stored turn starts with
    seat 1 to move and at least one seat at 0: the starting scores with the
    least largest |p_win - 1/N|, next to the seats' chances without
    compensation. New, unpublished results (docs/n_players.md).

    Example:

    \b
        dicebase ten-thousand compensation
        dicebase ten-thousand compensation --rules minimal-farkle --json
        dicebase ten-thousand compensation --players 3
    """
    fmt = resolve_format(fmt, as_json)
    with open_db(db_path) as db:
        answer = db.ten_thousand.compensation(players, rules=rules)
    doc = answer.as_dict()
    if fmt == "json":
        emit(doc, fmt)
        return
    if "nearest" in doc:  # two players
        rows = [{"first_player_start": n["scores"][0], "second_player_start": n["scores"][1],
                 "p_first_player_wins": n["p_win1"], "deviation": n["deviation"]} for n in doc["nearest"]]
        emit(rows, fmt)
        if fmt == "table":
            who = {None: "no compensation", 1: f"the first player starts with {answer.compensation:,}",
                   2: f"the second player starts with {answer.compensation:,}"}[answer.compensated_seat]
            own = ("" if not answer.rules_compensation else
                   f"; as its rules set it ({answer.rules_compensation:,}): {answer.rules_p_wins[0]:.6f}")
            click.echo(f"fairest: {who} (first player wins {answer.p_wins[0]:.6f}); without compensation the first "
                       f"player wins {answer.uncompensated[0]:.6f}{own} ({answer.rules}, goal {answer.goal:,})")
        return
    rows = [{"seat": n + 1, "start": doc["scores"][n], "p_win": doc["p_wins"][n],
             "p_win_uncompensated": doc["uncompensated_p_wins"][n]} for n in range(answer.players)]
    emit(rows, fmt)
    if fmt == "table":
        click.echo(f"largest |p_win - 1/{answer.players}|: {answer.deviation:.6f} with these starting points, "
                   f"{answer.uncompensated_deviation:.6f} without (goal {answer.goal})")
