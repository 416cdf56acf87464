"""The HTML pages: a home page and one advisor per game.

Each page reads its whole state from the query string (any position can be
bookmarked or sent to a friend) and gets its numbers from the same lookups as
the API (``Server.lookup``), so a page shows exactly what the CLI and the API
answer.  Pages are rendered on the server from Jinja2 templates in the package.
"""

from __future__ import annotations

from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from dicebase.version import __version__

GAMES = [
    ("threes", "/threes", "Threes", "Lowest total of five dice wins; a 3 counts zero. Which dice to keep?"),
    ("rolled_ones", "/rolled-ones", "Rolled Ones", "Great Rolled Ones: two players race to 50; three 1s end the turn. Roll or hold?"),
    ("ten_thousand", "/ten-thousand", "10,000", "The Farkle family: which scoring dice to keep, and when to bank."),
]

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
        Route("/threes", cached(lambda r: threes(server, r))),
        Route("/rolled-ones", cached(lambda r: rolled_ones(server, r))),
        Route("/ten-thousand", cached(lambda r: ten_thousand(server, r))),
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
        "variants": info["variants"],
    })


def api_docs(server, request: Request) -> Response:
    return _render(request, "api.html", {"title": "HTTP API", "spec": server.openapi})


def _not_built(request: Request, title: str, game: str) -> Response:
    cli = game.replace("_", "-")
    message = f"{cli} is not built into this database; add it with: dicebase build {cli}"
    return _render(request, "error.html", {"title": title, "status": 404, "message": message}, 404)


# -- Threes ---------------------------------------------------------------------------------------

def threes(server, request: Request) -> Response:
    """A turn of Threes as it is played: settings, tap the faces rolled, pick a keep, repeat."""
    variants = _variants(server, "threes")
    if not variants:
        return _not_built(request, "Threes", "threes")
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


# -- Great Rolled Ones ------------------------------------------------------------------------------

def rolled_ones(server, request: Request) -> Response:
    """A position (seat, both scores, turn total, 1s aside) -> roll or hold; the komi and gap tables."""
    variants = _variants(server, "rolled_ones")
    if not variants:
        return _not_built(request, "Great Rolled Ones", "rolled_ones")
    q = request.query_params
    variant = q.get("variant") if q.get("variant") in variants else next(iter(variants))
    rules = variants[variant]["rules"]
    state = {
        "player": _int(q.get("player"), 1),
        "score": _int(q.get("score"), 0),
        "opponent": _int(q.get("opponent"), 0),
        "turn_total": _int(q.get("turn_total"), 0),
        "ones": _int(q.get("ones"), 0),
    }
    answer, error = _lookup(server, "/api/v1/rolled-ones/best", {**state, "variant": variant})
    komi, _ = _lookup(server, "/api/v1/rolled-ones/komi", {"variant": variant})
    gaps, _ = _lookup(server, "/api/v1/rolled-ones/gaps", {"variant": variant})
    return _render(request, "rolled_ones.html", {
        "title": "Great Rolled Ones advisor",
        "variants": variants, "variant": variant, "rules": rules, "state": state,
        "ones_range": range(0, int(rules.get("ones_limit", 3))),
        "answer": answer, "error": error, "komi": komi, "gaps": gaps,
        "figures": Figures.for_game("rolled_ones"),
    })


# -- 10,000 -----------------------------------------------------------------------------------------

def ten_thousand(server, request: Request) -> Response:
    """A roll and the turn's state -> every keep ranked, then roll or bank; odds; bank thresholds."""
    variants = _variants(server, "ten_thousand")
    if not variants:
        return _not_built(request, "10,000", "ten_thousand")
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
    if rolled:
        answer, error = _lookup(server, "/api/v1/ten-thousand/best", {"dice": rolled, **state, "rules": rules_name})
    elif q.get("dice"):
        error = "type the faces rolled, 1 to 6 of them, each 1-6 (e.g. 1 1 5 2 3 4)"
    odds, odds_error = _lookup(server, "/api/v1/ten-thousand/odds", {"dice": odds_dice, "rules": rules_name})
    thresholds, _ = _lookup(server, "/api/v1/ten-thousand/thresholds", {"rules": rules_name})
    goal = next((g["options"].get("goal") for g in server.info["games"] if g["game"] == "ten_thousand"), None)
    return _render(request, "ten_thousand.html", {
        "title": "10,000 advisor",
        "variants": variants, "rules_name": rules_name, "rolled": rolled, "dice_text": " ".join(map(str, rolled)),
        "state": state, "goal": goal, "answer": answer, "error": error,
        "odds_dice": odds_dice, "odds": odds, "odds_error": odds_error, "thresholds": thresholds,
        "figures": Figures.for_game("ten_thousand"),
    })
