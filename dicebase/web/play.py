"""The phone page "play against the bot": ``/play/threes``, ``/play/rolled-ones``, ``/play/ten-thousand``.

The game is the terminal's (``dicebase.bots.play``) replayed from the URL: the program's dice
come from ``seed`` and your decisions so far are ``moves`` (comma-separated), so every position
is a link, the back button undoes a move, and the server keeps no state.  When the moves run out
the page shows the game so far and one button per legal decision; ``advice=1`` adds the stored
value of each.  At the end it shows the same review as ``dicebase play``: each decision, the
best one and what yours cost in chance to win.  Great Rolled Ones and 10,000 offer one bot (the
two-player game) or as many as the N-player tables built in the file allow (``bots=optimal,optimal``:
the N-player game of docs/n_players.md, advice with every seat's chance).
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from dicebase import games
from dicebase.bots.play import choices, default_bots, play, players_built
from dicebase.errors import DicebaseError
from dicebase.web.pages import GAMES, _templates
from dicebase.version import __version__

MAX_MOVES = 400


class _Waiting(Exception):
    """The moves ran out: the game waits for this prompt's answer."""

    def __init__(self, prompt: str):
        self.prompt = prompt


def play_page(server, request: Request) -> Response:
    game = request.path_params["game"]
    q = request.query_params
    bots = q.get("bots") or ",".join(default_bots(game))
    if "seed" not in q:  # a new game: a fresh seed, in the URL from now on
        params = {"bots": bots, "seat": q.get("seat", "1"), "seed": secrets.randbelow(10**6)}
        return RedirectResponse(f"/play/{game}?{urlencode(params)}", status_code=303)
    moves = [m for m in (q.get("moves") or "").split(",") if m]
    advice = q.get("advice") == "1"
    lines: list[str] = []
    script = list(moves) + (["?"] if advice else [])

    def ask(prompt: str):
        if script:
            return script.pop(0)
        raise _Waiting(prompt)

    context = {"title": f"Play {game}", "game": game, "bots": bots, "moves": moves, "lines": lines,
               "review": None, "choices": [], "prompt": None, "error": None}
    try:
        seat = int(q.get("seat", "1"))
        seed = int(q["seed"])
        if len(moves) > MAX_MOVES or seed < 0:
            raise ValueError
    except ValueError:
        context["error"] = "seat, seed and moves must be whole numbers (seed >= 0)"
        return _render(request, context, 400)
    base = {"bots": bots, "seat": seat, "seed": seed}
    context.update(seat=seat, seed=seed, new=f"/play/{game}?{urlencode({'bots': bots, 'seat': seat})}")
    try:

        db = server.thread_db()
        names = [b.strip() for b in bots.split(",") if b.strip()]
        if games.game(game).n_players:
            context["counts"] = _bot_counts(db, game, names)
        review = play(db, game, names, seat, ask, lines.append, seed=seed)
        context["review"] = review
    except _Waiting as wait:
        context["prompt"] = re.sub(r"\s*\(([^;)]*); \? for advice\)", r" (\1)", wait.prompt.strip()).rstrip(":")
        done = ",".join(moves)
        context["choices"] = [
            (label, f"/play/{game}?{urlencode({**base, 'moves': (done + ',' if done else '') + answer})}", answer)
            for answer, label in choices(game, wait.prompt, lines)]
        context["advice_url"] = None if advice else f"/play/{game}?{urlencode({**base, 'moves': done, 'advice': 1})}"
        context["undo_url"] = (f"/play/{game}?{urlencode({**base, 'moves': ','.join(moves[:-1])})}"
                               if moves else None)
    except DicebaseError as exc:
        context["error"] = str(exc)
        return _render(request, context, 400)
    return _render(request, context)


def _bot_counts(db, game: str, names: list[str]) -> list[tuple[int, str | None]]:
    """The numbers of bots this file can play (1: the two-player tables; 2 or more: the N-player tables
    built for the default variant or rule set), each with the address of a new game against that many
    (None: the number playing now).  The lineup keeps its bots and repeats its last one."""
    try:
        players = players_built(game, db)
    except DicebaseError:
        players = []
    out = []
    for count in [1, *(n - 1 for n in players)]:
        lineup = (names or default_bots(game))[:count]
        lineup += lineup[-1:] * (count - len(lineup))
        out.append((count, None if lineup == names else f"/play/{game}?{urlencode({'bots': ','.join(lineup)})}"))
    return out


def _render(request: Request, context: dict, status: int = 200) -> Response:
    context = {"version": __version__, "games": GAMES, "page": request.url.path, "advice_url": None,
               "undo_url": None, "seat": None, "seed": None, "new": None, "counts": [], **context}
    return _templates.TemplateResponse(request, "play.html", context, status_code=status)


def routes(server) -> list[Route]:
    playable = games.cli_names("bots")
    return [Route("/play/{game:str}", lambda r: play_page(server, r) if r.path_params["game"] in playable
                  else _render(r, {"title": "Play", "game": r.path_params["game"], "bots": "", "moves": [],
                                   "lines": [], "review": None, "choices": [], "prompt": None,
                                   "error": f"games to play: {', '.join(playable)}"}, 404))]
