"""Checks shared by every game's read API (whole numbers, names, the start of ``hold()``), and the
N-player answers every game's lookups share (:class:`NAction`, :class:`SeatWin`, :class:`Compensation`).

The exceptions live in :mod:`dicebase.errors`; they are importable from here as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from dicebase.errors import (  # noqa: F401  (re-exported: dicebase.query.base was their home)
    BadInput,
    DatabaseClosed,
    DatabaseDamaged,
    DatabaseLocked,
    DatabaseMissing,
    DicebaseError,
    NotADicebaseDatabase,
    NotInDatabase,
    PermissionDenied,
    QueryFailed,
    QueryInterrupted,
    QueryTimeout,
    QueryTooLarge,
    ReadOnlyViolation,
    SchemaVersionMismatch,
    WriteFailed,
    clip,
    shorten,
)


def is_whole_number(value) -> bool:
    """An int or numpy integer, but not a bool (True is not a count) nor a float or str."""
    import numbers

    return isinstance(value, numbers.Integral) and not _is_boolean(value)


def _is_boolean(value) -> bool:
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def whole_number(value, what: str, allowed: str = "") -> int:
    """``value`` as an int, or BadInput naming ``what`` and what is ``allowed``.

    The one rule every game's read API applies to counts, scores and faces.
    """
    if not is_whole_number(value):
        hint = f" ({allowed})" if allowed else ""
        raise BadInput(f"{what} must be a whole number{hint}, got {clip(value)}")
    return int(value)


def comma_numbers(text: str) -> list[int] | None:
    """``"30,41,12"`` -> ``[30, 41, 12]``: whole numbers in ASCII digits with an optional leading minus,
    separated by commas (spaces around them allowed); None for anything else.  The read API takes the
    same texts as the command line: ``1_0``, ``+5`` and fullwidth or Arabic-Indic digits are not numbers."""
    import re

    parts = [part.strip(" ") for part in text.split(",")]
    if not all(re.fullmatch(r"-?[0-9]{1,18}", part) for part in parts):
        return None
    return [int(part) for part in parts]


def is_scores(value) -> bool:
    """Whether a verb's first value is a score tuple, one per seat (a list or tuple, or a text with a comma as
    ``--scores 30,41,12`` takes it), rather than two players' single score."""
    return isinstance(value, (list, tuple)) or (isinstance(value, str) and "," in value)


def parse_scores(scores, counts: tuple[int, ...], example: str, what: str = "whole numbers") -> tuple[int, ...]:
    """A score tuple, one per seat in seat order: ``"30,41,12"`` (ASCII digits, an optional minus) or a list
    of whole numbers -> a tuple of one of the game's player ``counts``; BadInput (one line) otherwise.  Each
    game checks the scores' range."""
    if isinstance(scores, str):
        values = comma_numbers(scores)
        if values is None:
            raise BadInput(f"scores must be {what} separated by commas, one per seat (e.g. {example}), "
                           f"got {clip(scores)}")
    elif isinstance(scores, (list, tuple)):
        values = [whole_number(s, "each score") for s in scores]
    else:
        raise BadInput(f"scores must be a list of {what}, one per seat (e.g. {example}), got {clip(scores)}")
    if len(values) not in counts:
        raise BadInput(f"scores must name {counts[0]} to {counts[-1]} seats (one score per seat, in seat "
                       f"order), got {len(values)}")
    return tuple(values)


def player_count(players, counts: tuple[int, ...]) -> int:
    """A number of players, one of the game's ``counts``; BadInput (one line) otherwise."""
    n = whole_number(players, "players")
    if n not in counts:
        raise BadInput(f"players must be {counts[0]}..{counts[-1]}, got {n}")
    return n


@dataclass(frozen=True)
class NAction:
    """One action at an N-player state before a roll (``roll``, or ``hold``/``bank`` as the game calls it),
    with the win probability of the mover and of every seat when it is taken and every seat plays on optimally."""

    action: str
    p_win: float  # the mover's win probability with this action
    p_wins: tuple[float, ...]  # every seat's win probability with this action, in seat order

    def as_dict(self) -> dict:
        return {"action": self.action, "p_win": self.p_win, "p_wins": list(self.p_wins)}


@dataclass(frozen=True)
class SeatWin:
    """One seat's win probability from the start of an N-player game, every seat optimal (a ``<game>_seat_wins``
    row of a game whose blocks are named by its rule set alone: Great Rolled Ones, Pig)."""

    players: int
    seat: int
    p_win: float
    advantage: float  # p_win - 1/players

    def as_dict(self) -> dict:
        return {"players": self.players, "seat": self.seat, "p_win": self.p_win, "advantage": self.advantage}


@dataclass(frozen=True)
class Compensation:
    """The fair compensation for ``players`` seats (``<game>_fair_compensation``) beside the start with every
    score 0 (Great Rolled Ones, Pig)."""

    variant: str
    players: int
    scores: tuple[int, ...]  # starting points per seat (fair compensation)
    p_wins: tuple[float, ...]
    deviation: float  # largest |p_win - 1/players|
    uncompensated: tuple[float, ...]  # the seats' win probabilities from all scores 0
    uncompensated_deviation: float

    def as_dict(self) -> dict:
        return {"variant": self.variant, "players": self.players, "scores": list(self.scores),
                "p_wins": list(self.p_wins), "deviation": self.deviation,
                "uncompensated_p_wins": list(self.uncompensated),
                "uncompensated_deviation": self.uncompensated_deviation}


def built_block(built: dict, name: str, players: int, counts: tuple[int, ...], option: str, how_to_add):
    """``built[(name, players)]``, the block of an N-player game's rule set ``name`` that a lookup reads: one
    line for more players than the game has (``option``: its build option), NotInDatabase naming what is built
    and the build that adds them (``how_to_add``: the game's remedy, :func:`how_to_add`'s keywords) otherwise."""
    from dicebase.errors import too_many_players

    if players not in counts:  # the tables have the rules' seats: no build adds more
        raise too_many_players(players, counts, option)
    got = built.get((name, players))
    if got is None:
        have = sorted(n for other, n in built if other == name)
        remedy = how_to_add(rule_set=name, it="them", lead="rebuild with", players=sorted({*have, players}))
        raise NotInDatabase(f"{players} players are not built for {name} "
                            f"(built: {', '.join(map(str, have)) or 'none'}); {remedy}")
    return got


def seat_wins(db, game: str, variant: str, players: int | None = None) -> list[SeatWin]:
    """The rows of ``<game>_seat_wins`` (:func:`dicebase.schema.base.seat_views`) of ``variant``: every N built,
    or ``players``."""
    rows = db.fetchall(f"SELECT players, seat, p_win, advantage FROM {game}_seat_wins WHERE variant = ? "
                       "ORDER BY players, seat", (variant,))
    return [SeatWin(int(a), int(s), float(w), float(d)) for a, s, w, d in rows
            if players is None or int(a) == int(players)]


def compensation(db, game: str, variant: str, players: int, scores: tuple[str, ...], wins: tuple[str, ...],
                 rebuild) -> Compensation:
    """The fair compensation for ``players`` seats of ``variant`` (``<game>_fair_compensation``: the first of
    the fairest starts in score order) beside the start with every score 0 (``<game>_compensation``);
    ``scores``, ``wins``: the views' columns of every seat.  NotInDatabase naming ``rebuild()`` when absent."""
    n = players
    cols = ", ".join((*scores[:n], *wins[:n]))
    fair = db.fetchone(f"SELECT {cols}, deviation FROM {game}_fair_compensation WHERE variant = ? AND players = ? "
                       f"ORDER BY {', '.join(scores)} LIMIT 1", (variant, n))
    start = db.fetchone(f"SELECT {cols}, deviation FROM {game}_compensation WHERE variant = ? AND players = ? AND "
                        + " AND ".join(f"{c} = 0" for c in scores), (variant, n))
    if fair is None or start is None:
        raise NotInDatabase(f"no turn starts for {n} players in {variant}; rebuild with: {rebuild()}")
    return Compensation(variant, n, tuple(int(x) for x in fair[:n]), tuple(float(x) for x in fair[n:2 * n]),
                        float(fair[-1]), tuple(float(x) for x in start[n:2 * n]), float(start[-1]))


def cycle(db, game: str, block: tuple[str, int], scores: tuple[int, ...], columns: tuple[str, ...],
          mixing: dict[str, str]) -> dict | None:
    """The stored equilibrium's record of a cycle tuple in ``<game>_cycle_tuples`` (None: not one), with the
    mixing probabilities of ``<game>_mixing``: block (variant, players), ``columns`` every seat's score column
    (0 beyond the block's seats), ``mixing`` each mixing key column -> its name in the record (then ``p_roll``)."""
    padded = (*scores, *([0] * (len(columns) - len(scores))))
    where = "variant = ? AND players = ? AND " + " AND ".join(f"{c} = ?" for c in columns)
    row = db.read(f"SELECT kind, randomising_seats, cycle_length, residual FROM {game}_cycle_tuples WHERE {where}",
                  (*block, *padded))
    if not row:
        return None
    kind, _seats, length, residual = row[0]
    keys = ", ".join(mixing)
    rows = db.read(f"SELECT {keys}, p_roll FROM {game}_mixing WHERE {where} ORDER BY {keys}", (*block, *padded))
    return {"kind": kind,
            "randomising": [{**{name: int(x) for name, x in zip(mixing.values(), r)}, "p_roll": float(r[-1])}
                            for r in rows],
            "cycle_length": int(length), "residual": float(residual),
            "note": ("best responses cycle in this score tuple: no pure equilibrium among them, the stored one is "
                     "mixed (the seats listed roll with the probability given)" if kind == "mixed" else
                     "best responses cycle in this score tuple: the stored pure equilibrium was selected by search")}


def first(rows: list[tuple]) -> tuple | None:
    """The first row of a ``Database.read`` result, or None when it is empty."""
    return rows[0] if rows else None


def text_choice(value, what: str) -> str:
    """``value`` when it is a str, else BadInput: names of variants and rule sets are text."""
    if not isinstance(value, str):
        raise BadInput(f"{what} must be a name (text), got {clip(value)}")
    return value


def ready_to_hold(db, stop) -> bool:
    """The start of a game's ``hold()``: BadInput unless ``stop`` is None or a function; False on
    SQLite (which holds nothing); on DuckDB, True once the connection draws no progress bar (a
    loading query may pass 2 s on a cold file)."""
    if stop is not None and not callable(stop):
        raise BadInput(f"stop must be a function that says when to stop, got {clip(stop)}")
    if db.store != "duckdb":
        return False
    db.without_progress_bar()
    return True


def built_options(db, game: str) -> dict:
    """The build options ``game`` was built into ``db``'s file with ({} when not recorded)."""
    import json

    row = first(db.read("SELECT options_json FROM build_games WHERE game = ?", (game,)))
    return json.loads(row[0]) if row else {}


def rebuild_command(db, game: str, defaults: dict, *, rule_set: str | None = None, **changes) -> str:
    """The command that rebuilds ``game`` into ``db``'s file (the user's own ``--db``, from
    :func:`dicebase.errors.rebuild_hint`) with ``changes`` and every other option as it was built.

    A file holding house rules (built with ``--rules FILE``) is rebuilt from their rules file, which
    ``dicebase rules GAME --variant NAME`` prints (``rule_set``: the one to name, when it is a house
    rule set): a build given a rules file starts from the options the file was built with, so the
    command names only ``changes``, never the house rules' values.  Otherwise options at their
    default (``defaults``, the game's build options) are left out; ``changes`` are always spelled
    out, each as ``-o GAME.KEY=JSON``; ``--force-size`` where the build's size check needs it.
    """
    return _plan(db, game, defaults, rule_set, changes)[0]


def how_to_add(db, game: str, defaults: dict, *, rule_set: str | None = None, it: str = "it", lead: str = "",
               **changes) -> str:
    """The remedy for something a build with ``changes`` adds, to follow "; " in an error line:
    ``add it with: COMMAND`` (:func:`rebuild_command`), or why no build can add it, or the size a
    build of it needs and the command that builds it anyway (:func:`dicebase.errors.add_remedy`)."""
    from dicebase.errors import add_remedy

    command, refusal, size = _plan(db, game, defaults, rule_set, changes)
    return add_remedy(command, refusal=refusal, size=size, it=it, lead=lead)


def _plan(db, game: str, defaults: dict, rule_set, changes: dict) -> tuple[str, str | None, str | None]:
    """(command, why the build refuses it or None, the build's size-limit line or None): the options
    as built with ``changes``, checked by the game's own ``validate_options`` as the build checks them."""
    import json
    import shlex

    from dicebase.errors import house_rules_file, one_line, rebuild_hint
    from dicebase.rules import SizeLimit
    from dicebase.rules.files import module

    if rule_set is not None:
        text_choice(rule_set, "rule set")
    built = built_options(db, game)
    before = {**defaults, **{k: v for k, v in built.items() if k in defaults}}
    after = {**before, **changes}
    cli = game.replace("_", "-")
    spell = lambda key, value: "-o " + shlex.quote(f"{cli}.{key}={json.dumps(value, separators=(',', ':'))}")  # noqa: E731
    house = before.get("house_rules")
    prefix = ""
    if isinstance(house, dict) and house and "house_rules" not in changes:
        # a build given a rules file starts from the options the file was built with: name the changes only
        write, path = house_rules_file(game, rule_set if rule_set in house else sorted(house)[0], db.location)
        prefix = f"{write} && "
        extra = ["--rules", path, *(spell(k, v) for k, v in changes.items())]
    else:
        extra = [spell(k, v) for k, v in after.items() if k in changes or v != defaults.get(k)]
    refusal = size = None
    try:
        module(game).validate_options(dict(after))
    except SizeLimit as exc:
        size = one_line(exc)
    except (TypeError, ValueError) as exc:
        refusal = one_line(exc)
    if size:
        extra.append("--force-size")
    return prefix + rebuild_hint(db.location, [cli], force=True, extra=extra), refusal, size


def named(name, built: dict, what: str, *, unknown: str, allowed: str = "text", not_built=None):
    """``built[name]``: the variant (or rule set) a lookup names.  BadInput when ``name`` is not
    text (``allowed``: what it may be) or names nothing this database or a build knows
    (``unknown``: the rest of that message); ``not_built(name)``, when given, is the error for a
    name a build knows but this database lacks (NotInDatabase naming the command that adds it),
    or None for an unknown name."""
    if not isinstance(name, str):
        raise BadInput(f"{what} must be a name ({allowed}), got {clip(name)}")
    if name in built:
        return built[name]
    missing = None if not_built is None else not_built(name)
    if missing is not None:
        raise missing
    raise BadInput(f"unknown {what} {clip(name)}; {unknown}")
