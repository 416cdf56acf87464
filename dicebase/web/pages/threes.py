"""The Threes page (``/threes``): a turn as it is played, the keeps of each roll ranked."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from dicebase.web.pages import Figures, _faces, _int, _lookup, _not_built, _render, _url, _variants


def page(server, request: Request) -> Response:
    """A turn of Threes as it is played: settings, tap the faces rolled, pick a keep, repeat."""
    variants = _variants(server, "threes")
    if not variants:
        return _not_built(server, request, "Threes", "threes")
    q = request.query_params
    variant = q.get("variant") if q.get("variant") in variants else ("classic" if "classic" in variants else next(iter(variants)))
    rules, solver = variants[variant]["rules"], variants[variant]["solver"]
    dice_total, faces = int(rules.get("dice", 5)), int(rules.get("faces", 6))
    worth = list(rules.get("worth") or range(1, faces + 1))
    low, high = (list(solver.get("players_after") or [0, 0]) + [0, 0])[:2]
    max_score = int(rules.get("max_score", dice_total * max(worth)))

    play = q.get("play") if q.get("play") in ("win", "expected") else "win"
    players_after = _int(q.get("players_after"), min(max(1, low), high))
    to_beat = _int(q.get("to_beat"), None)  # None: nobody has finished
    ties = q.get("ties") if q.get("ties") in ("shared", "strict") else "shared"
    settings = {"variant": variant, "play": play, "players_after": players_after, "to_beat": to_beat, "ties": ties}
    if play == "expected":
        settings.update(players_after=None, to_beat=None, ties=None)

    score = _int(q.get("score"), 0)
    left = min(max(_int(q.get("left"), dice_total), 0), dice_total)
    must_keep_two = q.get("must_keep_two") == "true"
    rolled = [f for f in _faces(q.get("dice")) if 1 <= f <= faces][: max(left, 0)]
    turn = {**settings, "score": score, "left": left, "must_keep_two": must_keep_two or None}

    answer, error, choices = None, None, []
    if left > 0 and len(rolled) == left:
        params = {"dice": rolled, "variant": variant, "score": score, "must_keep_two": "true" if must_keep_two else None}
        if play == "win":
            params.update(to_beat=to_beat, players_after=players_after, ties=ties)
        answer, error = _lookup(server, "/api/v1/threes/best", params)
        if answer:
            top = answer["actions"][0]["value"]
            for action in answer["actions"]:
                kept = action["keep"]
                cost = (top - action["value"]) if answer["objective"] == "win_probability" else (action["value"] - top)
                after = {**turn, "score": score + sum(worth[f - 1] for f in kept), "left": left - len(kept),
                         "must_keep_two": (len(kept) == 0) or None, "dice": None}
                choices.append({"keep": kept, "value": action["value"], "cost": cost, "url": _url("/threes", after)})

    def with_dice(dice):
        return _url("/threes", {**turn, "dice": dice or None})

    pad = [{"face": f, "worth": worth[f - 1], "url": with_dice(rolled + [f])} for f in range(1, faces + 1)]
    finished = None
    if left <= 0:
        finished = {"score": score, "new_turn": _url("/threes", settings)}
        if play == "win":
            best_so_far = score if to_beat is None else min(score, to_beat)
            finished["next_player"] = _url("/threes", {**settings, "to_beat": best_so_far,
                                                       "players_after": max(players_after - 1, 0)})
    return _render(request, "threes.html", {
        "title": "Threes advisor",
        "variants": variants, "variant": variant, "rules": rules,
        "play": play, "players_after": players_after, "players_range": range(low, high + 1),
        "to_beat": to_beat, "to_beat_range": range(0, max_score + 1), "ties": ties,
        "score": score, "left": left, "must_keep_two": must_keep_two, "dice_total": dice_total,
        "rolled": rolled, "pad": pad, "complete": len(rolled) >= left,
        "undo": with_dice(rolled[:-1]), "clear": with_dice([]),
        "answer": answer, "error": error, "choices": choices, "finished": finished,
        "new_turn": _url("/threes", settings),
        "figures": Figures.for_game("threes"),
    })
