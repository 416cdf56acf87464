"""The Great Rolled Ones page (``/rolled-ones``): roll or hold, for two or more players."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from dicebase.web.pages import (
    Figures, _int, _lookup, _not_built, _nplayer_answer, _nplayer_panel, _player_counts, _players_asked, _render,
    _seat_scores, _variants, _whole,
)


def page(server, request: Request) -> Response:
    """A position (the seat to move, every seat's score, turn total, 1s aside) -> roll or hold; with two players
    the komi and gap tables, with more every seat's chance and the fair compensation."""
    variants = _variants(server, "rolled_ones")
    if not variants:
        return _not_built(server, request, "Great Rolled Ones", "rolled_ones")
    q = request.query_params
    variant = q.get("variant") if q.get("variant") in variants else next(iter(variants))
    rules = variants[variant]["rules"]
    from dicebase.rules.rolled_ones import MAX_PLAYERS

    counts, players_hint = _player_counts(server, "/api/v1/rolled-ones/seats", {"variant": variant})
    players, error = _players_asked(server, "/api/v1/rolled-ones/seats", {"variant": variant}, q, counts,
                                    MAX_PLAYERS)
    two = players == 2
    if two:  # two players: the fields score and opponent (seed 002's state)
        state = {"player": _int(q.get("player"), 1), "score": _int(q.get("score"), 0),
                 "opponent": _int(q.get("opponent"), 0), "turn_total": _int(q.get("turn_total"), 0),
                 "ones": _int(q.get("ones"), 0)}
        asked = state
    else:  # one score field per seat
        fields, scores, bad_scores = _seat_scores(q, players)
        player, bad_player = _whole(q, "player", "the seat to move", 1)
        turn_total, bad_total = _whole(q, "turn_total", "turn total", 0)
        ones, bad_ones = _whole(q, "ones", "1s set aside", 0)
        error = error or bad_scores or bad_player or bad_total or bad_ones
        state = {"player": player, "turn_total": turn_total, "ones": ones, "fields": fields}
        asked = {"scores": scores, "player": player, "turn_total": turn_total, "ones": ones}
    answer = None
    if error is None:
        answer, error = _lookup(server, "/api/v1/rolled-ones/best", {**asked, "variant": variant})
    tables = {"variant": variant}
    compensation = None
    if not two and players in counts:
        compensation = _nplayer_panel(server, "/api/v1/rolled-ones/compensation", {"players": players, **tables})
    return _render(request, "rolled_ones.html", {
        "title": "Great Rolled Ones advisor",
        "variants": variants, "variant": variant, "rules": rules, "state": state,
        "ones_range": range(0, int(rules.get("ones_limit", 3))),
        "answer": answer if two else None, "error": error,
        "komi": _lookup(server, "/api/v1/rolled-ones/komi", tables)[0] if two else None,
        "gaps": _lookup(server, "/api/v1/rolled-ones/gaps", tables)[0] if two else None,
        "players": players, "built_counts": [2, *counts],
        "player_counts": [2, *counts] if two else sorted({2, *counts, players}),
        "nanswer": None if two else _nplayer_answer(answer), "compensation": compensation,
        "players_hint": players_hint if two else None,
        "figures": Figures.for_game("rolled_ones"),
    })
