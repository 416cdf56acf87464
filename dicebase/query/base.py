"""Checks shared by every game's read API (whole numbers, names, the start of ``hold()``).

The exceptions live in :mod:`dicebase.errors`; they are importable from here as well.
"""

from __future__ import annotations

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


def rebuild_command(db, game: str, defaults: dict, **changes) -> str:
    """The command that rebuilds ``game`` into ``db``'s file (the user's own ``--db``, from
    :func:`dicebase.errors.rebuild_hint`) with ``changes`` and every other option as it was built.

    Options at their default (``defaults``, the game's build options) are left out; ``changes``
    are always spelled out, each as ``-o GAME.KEY=JSON``.
    """
    import json
    import shlex

    from dicebase.errors import rebuild_hint

    built = built_options(db, game)
    merged = {**defaults, **{k: v for k, v in built.items() if k in defaults}, **changes}
    cli = game.replace("_", "-")
    extra = ["-o " + shlex.quote(f"{cli}.{key}={json.dumps(value, separators=(',', ':'))}")
             for key, value in merged.items() if key in changes or value != defaults.get(key)]
    return rebuild_hint(db.location, [cli], force=True, extra=extra)


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
