"""The HTML pages: a home page and one advisor per game.

Each page reads its whole state from the query string (any position can be
bookmarked or sent to a friend) and gets its numbers from the same lookups as
the API (``Server.lookup``), so a page shows exactly what the CLI and the API
answer.  Pages are rendered on the server from Jinja2 templates in the package.

This module is what the pages share (routes, home, errors, figures, the N-player
controls); each game's page is ``page(server, request)`` in its own module here
(``dicebase.web.pages.threes`` ...), named by its descriptor's ``pages``.
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
