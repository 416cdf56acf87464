"""The 10,000 page (``/ten-thousand``): every keep of a roll ranked, roll or bank, odds and bank thresholds."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from dicebase.web.pages import (
    Figures, _faces, _int, _lookup, _not_built, _nplayer_answer, _nplayer_panel, _players_asked, _render,
    _seat_scores, _variants, _whole,
)


def _rules_words(server, rules_name: str) -> list[str]:
    """The rule set's rules in words (issue 24: how the game ends, minimums, bonus, penalty, compensation)."""
    from dicebase.errors import DicebaseError

    try:
        return server.thread_db().ten_thousand.rules_in_words(rules_name)
    except DicebaseError:
        return []


def page(server, request: Request) -> Response:
    """A roll and the turn's state -> every keep ranked, then roll or bank; odds; bank thresholds."""
    variants = _variants(server, "ten_thousand")
    if not variants:
        return _not_built(server, request, "10,000", "ten_thousand")
    q = request.query_params
    rules_name = q.get("rules") if q.get("rules") in variants else (
        "ten-thousand" if "ten-thousand" in variants else next(iter(variants)))
    rolled = _faces(q.get("dice"))
    state = {
        "turn_total": _int(q.get("turn_total"), 0),
        "triple": _int(q.get("triple"), 0),
        "score": _int(q.get("score"), None),
        "opponent": _int(q.get("opponent"), None),
    }
    odds_dice = _int(q.get("odds_dice"), 6)
    answer, error = None, None
    penalty = _penalty_counts(variants[rules_name], q)  # issue 24: both farkle counts of a penalty rule set
    nplayer = _ten_thousand_n(server, q, rules_name, rolled)  # N players (issue 21): the players control
    if nplayer["players"] != 2 or nplayer["error"]:
        error = nplayer["error"]
    elif rolled:
        two = penalty and state["score"] is not None and state["opponent"] is not None
        answer, error = _lookup(server, "/api/v1/ten-thousand/best", {"dice": rolled, **state, "rules": rules_name,
                                                                      "farkles": penalty["farkles"] if two else None})
    elif q.get("dice"):
        error = "type the faces rolled, 1 to 6 of them, each 1-6 (e.g. 1 1 5 2 3 4)"
    odds, odds_error = _lookup(server, "/api/v1/ten-thousand/odds", {"dice": odds_dice, "rules": rules_name})
    thresholds, _ = _lookup(server, "/api/v1/ten-thousand/thresholds", {"rules": rules_name})
    goal = next((g["options"].get("goal") for g in server.info["games"] if g["game"] == "ten_thousand"), None)
    rules_words = _rules_words(server, rules_name)
    return _render(request, "ten_thousand.html", {
        "rules_words": rules_words,
        "title": "10,000 advisor",
        "variants": variants, "rules_name": rules_name, "rolled": rolled, "dice_text": " ".join(map(str, rolled)),
        "state": state, "goal": goal, "answer": answer,
        "odds_dice": odds_dice, "odds": odds, "odds_error": odds_error, "thresholds": thresholds,
        "figures": Figures.for_game("ten_thousand"),
        "penalty": penalty,
        **nplayer,
        "error": error,  # after the N-player keys: their "error" (None with 2 players) hid the lookup's line
    })


def _penalty_counts(variant: dict, q) -> dict | None:
    """A rule set with a consecutive-farkle penalty whose two-player game is built (issue 24): the counts the
    page offers (0..after - 1), the farkles in a row asked (yours, the opponent's; a count out of range goes to
    the lookup, which says what is allowed), the penalty and the lowest score.  None for any other rule set."""
    rules, two = variant.get("rules") or {}, (variant.get("solver") or {}).get("two_player") or {}
    if not rules.get("farkle_penalty") or "goal_points" not in two:
        return None
    return {"after": int(rules.get("farkle_penalty_after", 3)), "points": int(rules["farkle_penalty"]),
            "lowest": int(rules.get("lowest_score", 0)),
            "farkles": [_int(q.get("farkles"), 0), _int(q.get("opponent_farkles"), 0)]}


def _ten_thousand_n(server, q, rules_name: str, rolled: list[int]) -> dict:
    """N players on the 10,000 page: the players control, and with N > 2 every seat's score and the seat to
    move -> every keep of the roll typed (or, with no roll, roll or bank with the dice left) with every
    seat's chance.  Returns the page's N-player keys; ``error`` a line for the page, or None."""
    from dicebase.rules.ten_thousand import MAX_PLAYERS

    seats, _ = _lookup(server, "/api/v1/ten-thousand/seats", {"rules": rules_name})
    goals = {int(r["players"]): int(r["goal"]) for r in seats or []}
    counts = sorted(n for n in goals if n > 2)
    players_hint = None if counts else _lookup(server, "/api/v1/ten-thousand/seats", {"rules": rules_name,
                                                                                       "players": 3})[1]
    players, error = _players_asked(server, "/api/v1/ten-thousand/seats", {"rules": rules_name}, q, counts, MAX_PLAYERS)
    out = {"players": players, "player_counts": sorted({2, *counts, players}), "built_counts": [2, *counts],
           "players_hint": players_hint,
           "n_goal": goals.get(players), "nanswer": None, "compensation": None, "error": error,
           "nstate": {"fields": [], "player": 1, "to_roll": 6}}
    if players == 2:
        return out
    fields, scores, bad_scores = _seat_scores(q, players)
    player, bad_player = _whole(q, "player", "the seat to move", 1)
    to_roll, bad_to_roll = _whole(q, "to_roll", "dice to roll", 6)
    turn_total, bad_total = _whole(q, "turn_total", "turn total", 0)
    triple, bad_triple = _whole(q, "triple", "standing triple", 0)
    out["nstate"] = {"fields": fields, "player": player, "to_roll": to_roll}
    error = error or bad_scores or bad_player or bad_to_roll or bad_total or bad_triple
    if error is None and q.get("dice") and not rolled:
        error = "type the faces rolled, 1 to 6 of them, each 1-6 (e.g. 1 1 5 2 3 4)"
    if error is None:
        params = {"scores": scores, "player": player, "turn_total": turn_total, "triple": triple, "rules": rules_name}
        if rolled:
            answer, error = _lookup(server, "/api/v1/ten-thousand/best", {"dice": rolled, **params})
        else:
            answer, error = _lookup(server, "/api/v1/ten-thousand/state", {**params, "dice": to_roll})
        out["nanswer"] = _nplayer_answer(answer)
    out["error"] = error
    if players in counts:
        out["compensation"] = _nplayer_panel(server, "/api/v1/ten-thousand/compensation",
                                             {"players": players, "rules": rules_name})
    return out
