"""The Pig page (``/pig``): every seat's score, the seat to move and its turn total -> roll or hold, each action
with every seat's chance to win; the fair start and the simple policies' cost for the players built."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from dicebase.web.pages import (
    Figures, _lookup, _not_built, _nplayer_answer, _nplayer_panel, _players_asked, _render, _seat_scores, _variants,
    _whole,
)


def page(server, request: Request) -> Response:
    """A position of Pig for any number of players built: roll or hold, ranked, with every seat's chance."""
    variants = _variants(server, "pig")
    if not variants:
        return _not_built(server, request, "Pig", "pig")
    q = request.query_params
    variant = q.get("variant") if q.get("variant") in variants else ("pig" if "pig" in variants else next(iter(variants)))
    rules = variants[variant]["rules"]
    from dicebase.rules.pig import MAX_PLAYERS

    seats, _ = _lookup(server, "/api/v1/pig/seats", {"variant": variant})
    built = sorted({int(r["players"]) for r in seats or []})
    players, error = _players_asked(server, "/api/v1/pig/seats", {"variant": variant}, q, [n for n in built if n > 2],
                                    MAX_PLAYERS)
    if not (q.get("players") or "").strip() and built:
        players = built[0]  # a build of three players only starts there
    fields, scores, bad_scores = _seat_scores(q, players)
    player, bad_player = _whole(q, "player", "the seat to move", 1)
    turn_total, bad_total = _whole(q, "turn_total", "turn total", 0)
    error = error or bad_scores or bad_player or bad_total
    answer = None
    if error is None:
        answer, error = _lookup(server, "/api/v1/pig/best", {"scores": scores, "player": player,
                                                             "turn_total": turn_total, "variant": variant})
    tables = {"players": players, "variant": variant}
    policies = None
    if players in built:
        rows, _ = _lookup(server, "/api/v1/pig/policies", tables)
        policies = [{"policy": r["title"], "seat": r["seat"], "p_win": r["p_win"], "cost": r["cost"]}
                    for r in rows or []] or None
    hint = None if len(built) > 1 else _lookup(server, "/api/v1/pig/seats", {"variant": variant, "players": 3})[1]
    return _render(request, "pig.html", {
        "title": "Pig advisor",
        "variants": variants, "variant": variant, "rules": rules,
        "state": {"player": player, "turn_total": turn_total, "fields": fields},
        "players": players, "built_counts": built, "player_counts": sorted({*built, players}),
        "players_hint": hint, "error": error, "answer": _nplayer_answer(answer),
        "compensation": _nplayer_panel(server, "/api/v1/pig/compensation", tables) if players in built else None,
        "policies": policies,
        "figures": Figures.for_game("pig"),
    })
