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

from dicebase.errors import DicebaseError
from dicebase.web.pages import GAMES, _templates
from dicebase.version import __version__

DEFAULT_BOTS = {"threes": "only-3s,win", "rolled-ones": "optimal", "ten-thousand": "optimal"}
MAX_MOVES = 400


class _Waiting(Exception):
    """The moves ran out: the game waits for this prompt's answer."""

    def __init__(self, prompt: str):
        self.prompt = prompt


def _choices(game: str, prompt: str, lines: list[str]) -> list[tuple[str, str]]:
    """(answer, label) of each legal decision at ``prompt`` (10,000's keeps: the numbered lines the
    game printed before it)."""
    if game == "rolled-ones":
        return [("r", "Roll"), ("h", "Hold")]
    if game == "ten-thousand":
        if "roll or bank" in prompt:
            return [("r", "Roll"), ("b", "Bank")]
        keeps = {}
        for line in reversed(lines):
            if line.lstrip().startswith("option "):  # the advice, printed after the keeps
                continue
            m = re.match(r"\s+(\d+): (keep .*)$", line)
            if not m:
                break
            keeps[m.group(1)] = m.group(2)[0].upper() + m.group(2)[1:]
        return sorted(keeps.items(), key=lambda kv: int(kv[0]))
    m = re.search(r"\((\d+)\.\.(\d+);", prompt)
    lo, hi = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
    return [(str(a), f"Keep {a}" if a else "Re-roll all") for a in range(lo, hi + 1)]


def play_page(server, request: Request) -> Response:
    game = request.path_params["game"]
    q = request.query_params
    bots = q.get("bots") or DEFAULT_BOTS[game]
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
        from dicebase.bots import _check_bots
        from dicebase.bots.play import (
            check_lineup, play_rolled_ones, play_rolled_ones_n, play_ten_thousand, play_ten_thousand_n, play_threes,
        )

        db = server.thread_db()
        names = [b.strip() for b in bots.split(",") if b.strip()]
        if game != "threes":
            context["counts"] = _bot_counts(db, game, names)
        if game == "threes":
            _check_bots("threes", names + ["random"])
            review = play_threes(db, names, seat, ask, lines.append, seed=seed)
        elif game == "rolled-ones":
            check_lineup(game, names)
            review = (play_rolled_ones(db, names[0], seat, ask, lines.append, seed=seed) if len(names) == 1 else
                      play_rolled_ones_n(db, names, seat, ask, lines.append, seed=seed))
        else:
            check_lineup(game, names)
            review = (play_ten_thousand(db, names[0], seat, ask, lines.append, seed=seed) if len(names) == 1 else
                      play_ten_thousand_n(db, names, seat, ask, lines.append, seed=seed))
        context["review"] = review
    except _Waiting as wait:
        context["prompt"] = re.sub(r"\s*\(([^;)]*); \? for advice\)", r" (\1)", wait.prompt.strip()).rstrip(":")
        done = ",".join(moves)
        context["choices"] = [
            (label, f"/play/{game}?{urlencode({**base, 'moves': (done + ',' if done else '') + answer})}", answer)
            for answer, label in _choices(game, wait.prompt, lines)]
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
        if game == "rolled-ones":
            variant = db.rolled_ones.variant(None).name
            players = sorted(n for v, n in db.rolled_ones.n.built if v == variant and n > 2)
        else:
            sets = db.ten_thousand.rule_sets()
            rules = "ten-thousand" if "ten-thousand" in sets else next(iter(sets))
            players = sorted({key[2] for key in db.ten_thousand.n.built if key[0] == rules and key[2] > 2})
    except DicebaseError:
        players = []
    out = []
    for count in [1, *(n - 1 for n in players)]:
        lineup = (names or ["optimal"])[:count]
        lineup += lineup[-1:] * (count - len(lineup))
        out.append((count, None if lineup == names else f"/play/{game}?{urlencode({'bots': ','.join(lineup)})}"))
    return out


def _render(request: Request, context: dict, status: int = 200) -> Response:
    context = {"version": __version__, "games": GAMES, "page": request.url.path, "advice_url": None,
               "undo_url": None, "seat": None, "seed": None, "new": None, "counts": [], **context}
    return _templates.TemplateResponse(request, "play.html", context, status_code=status)


def routes(server) -> list[Route]:
    return [Route("/play/{game:str}", lambda r: play_page(server, r) if r.path_params["game"] in DEFAULT_BOTS
                  else _render(r, {"title": "Play", "game": r.path_params["game"], "bots": "", "moves": [],
                                   "lines": [], "review": None, "choices": [], "prompt": None,
                                   "error": "games to play: threes, rolled-ones, ten-thousand"}, 404))]
