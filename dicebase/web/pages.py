"""The HTML pages: a home page and one advisor per game.

Each page reads its whole state from the query string (any position can be
bookmarked or sent to a friend) and gets its numbers from the same lookups as
the API (``Server.lookup``), so a page shows exactly what the CLI and the API
answer.  Pages are rendered on the server from Jinja2 templates in the package.
"""

from __future__ import annotations

from functools import partial
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from dicebase import games
from dicebase.version import __version__

#: The games with a page, as the templates list them: (name, path, link text, line on the home page).
GAMES = [(g.name, g.path, g.page_title, g.page_blurb) for g in games.all_games("pages")]

_env = jinja2.Environment(
    loader=jinja2.PackageLoader("dicebase.web", "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
    undefined=jinja2.StrictUndefined,
)


def _number(value, digits: int = 4) -> str:
    """A value as a page shows it: probabilities to 4 places, larger numbers to 1, lists spaced."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) <= 1 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value) or "–"
    return str(value)


_env.filters["num"] = _number
_templates = Jinja2Templates(env=_env)


def _render(request: Request, name: str, context: dict, status: int = 200) -> Response:
    server = request.app.state.server
    context = {"version": __version__, "games": GAMES, "page": request.url.path, **context}
    headers = {"ETag": server.etag, "Cache-Control": "no-cache"} if status == 200 else None
    return _templates.TemplateResponse(request, name, context, status_code=status, headers=headers)


def error_page(request: Request, status: int, message: str) -> Response:
    return _render(request, "error.html", {"title": f"{status}", "status": status, "message": message}, status)


def _url(path: str, params: dict) -> str:
    """``path`` with the query string of ``params`` (None values left out, lists comma-joined)."""
    items = []
    for key, value in params.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        items.append((key, value))
    return path + ("?" + urlencode(items, safe=",") if items else "")


def _int(text, default: int | None) -> int | None:
    try:
        return int(str(text).strip())
    except (TypeError, ValueError):
        return default


def _faces(text: str | None) -> list[int]:
    """Dice typed or tapped: '4,3,1', '4 3 1' or '431' -> [4, 3, 1] (anything else is dropped)."""
    text = (text or "").strip()
    parts = text.replace(",", " ").split() if any(c in text for c in ", ") else list(text)
    return [int(p) for p in parts if p.isdigit() and len(p) == 1]


def _variants(server, game: str) -> dict[str, dict]:
    return {v["variant"]: v for v in server.info["variants"] if v["game"] == game}


def _lookup(server, path: str, params: dict):
    """(document, None) or (None, the CLI's one-line message) for a lookup with these parameters."""
    from dicebase.web.api import LookupFailed

    items = [(k, ",".join(map(str, v)) if isinstance(v, list) else str(v)) for k, v in params.items() if v is not None]
    try:
        return server.lookup(path, items), None
    except LookupFailed as exc:
        return None, exc.message


class Figures:
    """The plotting part's figures of this database as PNG, rendered once each and kept (a bounded cache)."""

    LIMIT = 64  # rendered figures kept; a PNG is about 100 kB

    def __init__(self, server):
        import threading
        from collections import OrderedDict

        self.server = server
        self._cache: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def for_game(game: str) -> list[dict]:
        """Each figure of ``game`` with the URL of its first gallery drawing, for the game's page."""
        import shlex

        from dicebase import plots

        shown = []
        for name in plots.names(game):
            spec = plots.figure(name)
            words = shlex.split(spec.gallery[0] if spec.gallery else "")
            params = {words[i].lstrip("-").replace("-", "_"): words[i + 1] for i in range(0, len(words) - 1, 2)}
            shown.append({"name": name, "summary": spec.summary, "url": _url(f"/plots/{name}.png", params)})
        return shown

    def png(self, name: str, items: list[tuple[str, str]]) -> bytes:
        """The figure drawn with these query parameters as its options (typed as the figure declares)."""
        from dicebase import plots
        from dicebase.errors import BadInput

        spec = plots.figure(name)
        kinds = {o.name: o.kind for o in spec.options}
        options = {}
        for key, value in items:
            if key in options:
                raise BadInput(f"parameter {key} given more than once")
            kind = kinds.get(key, str)
            try:
                options[key] = kind(value)
            except ValueError:
                raise BadInput(f"{key} must be a whole number, got {value[:40]!r}") from None
        key = (name, tuple(sorted(options.items())))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        image = plots.render(self.server.thread_db(), name, "png", **options)
        with self._lock:
            self._cache[key] = image
            while len(self._cache) > self.LIMIT:
                self._cache.popitem(last=False)
        return image


def _figure(server, figures: Figures, request: Request) -> Response:
    from dicebase.present import error_line
    from dicebase.web.api import http_status

    name = request.path_params["name"]
    try:
        image = figures.png(name, list(request.query_params.multi_items()))
    except Exception as exc:
        line = error_line(exc)
        if line is None:
            raise
        status = 404 if "no figure named" in line[0] else http_status(exc, line[1])
        return error_page(request, status, " ".join(line[0].split()))
    return Response(image, media_type="image/png", headers={"ETag": server.etag, "Cache-Control": "no-cache"})


def routes(server) -> list[Route]:
    figures = Figures(server)

    def cached(handler):
        def endpoint(request: Request) -> Response:
            if server.not_modified(request):
                return Response(status_code=304, headers={"ETag": server.etag, "Cache-Control": "no-cache"})
            return handler(request)

        return endpoint

    return [
        Route("/", cached(lambda r: home(server, r))),
        *(Route(g.path, cached(partial(games.load(g.name, "pages"), server))) for g in games.all_games("pages")),
        Route("/api", cached(lambda r: api_docs(server, r))),
        Route("/plots/{name}.png", cached(lambda r: _figure(server, figures, r))),
    ]


def home(server, request: Request) -> Response:
    info = server.info
    built = {g["game"]: g for g in info["games"]}
    return _render(request, "home.html", {
        "title": "dicebase",
        "build": info["build"],
        "built": built,
        "variants": [{**v, "words": _variant_words(v)} for v in info["variants"]],
    })


def _variant_words(v: dict) -> str:
    """A stored variant's rules in words, generated from its values by the rules layer (issue 34: the stored
    description of a house rule set can be a preset's, copied and left unedited)."""
    from dicebase.rules.files import record_words

    return " ".join(record_words(v["game"], v["variant"], v["rules"], v.get("solver")))


def api_docs(server, request: Request) -> Response:
    return _render(request, "api.html", {"title": "HTTP API", "spec": server.openapi})


def _not_built(server, request: Request, title: str, game: str) -> Response:
    from dicebase.errors import not_built

    message = str(not_built(game, server.thread_db().location))  # the command names the server's own --db
    return _render(request, "error.html", {"title": title, "status": 404, "message": message}, 404)


# -- Threes ---------------------------------------------------------------------------------------

def threes(server, request: Request) -> Response:
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


# -- N players (issue 21): the players control and one score field per seat -------------------------

def _player_counts(server, path: str, params: dict) -> tuple[list[int], str | None]:
    """The numbers of players above 2 whose N-player tables this database holds, as the ``seats`` lookup (the
    CLI's ``seats``) says, and where it holds none the lookup's own line: what is missing and the command that
    adds it (the query layer's, the same the CLI prints)."""
    rows, _ = _lookup(server, path, params)
    counts = sorted({int(r["players"]) for r in rows or [] if int(r["players"]) > 2})
    return counts, (None if counts else _lookup(server, path, {**params, "players": 3})[1])


def _players_asked(server, path: str, params: dict, q, counts: list[int], most: int) -> tuple[int, str | None]:
    """``players`` of the query string: (2 or N, None) or (the number to show, a line saying what is wrong;
    for a number not built, the ``seats`` lookup's own line with the command that adds it)."""
    text = (q.get("players") or "").strip()
    if not text:
        return 2, None
    n = _int(text, None)
    if n is None or not 2 <= n <= most:
        return 2, f"players must be a whole number from 2 to {most}, got {text[:40]!r}"
    if n > 2 and n not in counts:
        _, line = _lookup(server, path, {**params, "players": n})
        return n, line or f"{n} players are not in this database"
    return n, None


def _whole(q, key: str, label: str, default: int) -> tuple[int, str | None]:
    """A whole-number field (blank: ``default``) and a line saying what is wrong with it, if anything."""
    text = (q.get(key) or "").strip()
    if not text:
        return default, None
    value = _int(text, None)
    if value is None:
        return default, f"{label} must be a whole number, got {text[:40]!r}"
    return value, None


def _seat_scores(q, n: int) -> tuple[list[str], list[int] | None, str | None]:
    """Each seat's score field (``score1`` .. ``scoreN``, or ``scores=A,B,C`` as the API takes it; blank is 0):
    (the fields as typed, the whole numbers or None, a line saying what is wrong)."""
    typed = [(q.get(f"score{k}") or "").strip() for k in range(1, n + 1)]
    if not any(typed) and q.get("scores"):
        typed = ([p.strip() for p in q.get("scores").split(",")] + [""] * n)[:n]
    scores = []
    for k, text in enumerate(typed, start=1):
        value = _int(text or "0", None)
        if value is None:
            return typed, None, f"seat {k}'s score must be a whole number, got {text[:40]!r}"
        scores.append(value)
    return typed, scores, None


def _nplayer_answer(doc: dict | None) -> dict | None:
    """An N-player lookup's document with what its page shows: each action's row of every seat's chance."""
    if not doc:
        return None
    rows = []
    for a in doc.get("actions") or []:
        label = a["action"] if "action" in a else "keep " + " ".join(map(str, a["keep"]))
        rows.append({"label": label, "p_wins": a["p_wins"]})
    if doc.get("best") == "mixed" or any(0.0 < a.get("probability", 1.0) < 1.0 for a in doc.get("actions") or []):
        rows.append({"label": "as played (mixed)", "p_wins": doc["p_wins"]})
    if doc.get("farkle"):
        rows.append({"label": "farkle", "p_wins": doc["p_wins"]})
    return {**doc, "seat_rows": rows}


def _nplayer_panel(server, path: str, params: dict) -> dict | None:
    """The fair compensation of N players (the ``compensation`` lookup) with each seat's chance from 0."""
    doc, _ = _lookup(server, path, params)
    if not doc:
        return None
    rows = [{"seat": k + 1, "p_win_from_0": doc["uncompensated_p_wins"][k], "fair_start": doc["scores"][k],
             "p_win_then": doc["p_wins"][k]} for k in range(doc["players"])]
    return {**doc, "rows": rows}


# -- Great Rolled Ones ------------------------------------------------------------------------------

def rolled_ones(server, request: Request) -> Response:
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


# -- 10,000 -----------------------------------------------------------------------------------------

def _rules_words(server, rules_name: str) -> list[str]:
    """The rule set's rules in words (issue 24: how the game ends, minimums, bonus, penalty, compensation)."""
    from dicebase.errors import DicebaseError

    try:
        return server.thread_db().ten_thousand.rules_in_words(rules_name)
    except DicebaseError:
        return []


def ten_thousand(server, request: Request) -> Response:
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
