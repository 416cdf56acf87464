"""House rules files: a rule set as a commented TOML document.

``dicebase rules GAME [PRESET]`` prints a preset with :func:`dump`; a player edits it and
``dicebase build GAME --rules FILE.toml`` reads it back with :func:`load`, which checks
every key before anything is built (one line naming the file, the key, its line and what
is allowed).  Each game's rules module says which keys exist (``FILE_KEYS``), how a rule
set becomes a file (``to_file``) and a file becomes a rule set (``from_file``).  TOML is
read with the standard library's ``tomllib``.
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dicebase.errors import RulesFileError
from dicebase.rules import GAMES

#: A variant name: what lookups take as ``--variant NAME``.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
NAME_RULE = "1-40 characters: lowercase letters, digits and '-', starting with a letter or digit"


#: Largest rules file read, bytes (a printed preset is about 7 kB).
MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class Key:
    """One key of a rules file: its type, bounds and the comment printed above it."""

    name: str
    kind: str  # "int", "bool", "str", "ints" (list of whole numbers), "choice"
    help: str
    minimum: int | None = 0  # ints: smallest value (None: no bound)
    maximum: int | None = None
    length: int | str | None = None  # ints: how long the list must be (a number, or the name of an earlier key)
    choices: tuple[str, ...] = ()
    required: bool = True

    def allowed(self) -> str:
        """What the key allows, in words (printed in the file and in error messages)."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "str":
            return "a string"
        if self.kind == "choice":
            return " | ".join(f'"{c}"' for c in self.choices)
        bounds = _bounds(self.minimum, self.maximum)
        if self.kind == "int":
            return f"a whole number{bounds}"
        size = f"{self.length} " if self.length else ""
        return f"a list of {size}whole numbers{bounds}"


def _bounds(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f" {lo}..{hi}"
    if lo is not None:
        return f" >= {lo}"
    return ""


def module(game: str):
    """The rules module of ``game`` (``ten-thousand`` or ``ten_thousand``)."""
    key = game.strip().lower().replace("-", "_")
    if key not in GAMES:
        raise RulesFileError(f"unknown game {game!r}; games: {', '.join(g.replace('_', '-') for g in GAMES)}")
    return importlib.import_module(GAMES[key])


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def _comment(text: str, width: int = 92) -> list[str]:
    out, line = [], "#"
    for word in text.split():
        if len(line) + 1 + len(word) > width and line != "#":
            out.append(line)
            line = "#"
        line += " " + word
    out.append(line)
    return out


def dump(game: str, name: str, values: dict, title: str) -> str:
    """A rules file: every key with a comment saying what it means and what it allows."""
    mod = module(game)
    cli_game = mod.GAME.replace("_", "-")
    lines = [
        f"# dicebase house rules: {title}",
        f"# Edit the values, give the rule set a new name, then build and ask:",
        f"#   dicebase build {cli_game} --rules FILE.toml",
        f"#   dicebase {cli_game} ... --variant NAME",
        "",
        "# the game these rules are for",
        f"game = {_toml_value(cli_game)}",
        f"# the variant name the build stores and lookups take (--variant); {NAME_RULE}",
        f"name = {_toml_value(name)}",
    ]
    for key in mod.FILE_KEYS:
        lines.append("")
        lines.extend(_comment(f"{key.help} Allowed: {key.allowed()}."))
        value = values[key.name] if key.required or key.name in values else mod.FILE_DEFAULTS[key.name]
        lines.append(f"{key.name} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class HouseRules:
    """A checked rules file: the game, the variant name and the normalised values (JSON-ready)."""

    game: str  # underscore form, e.g. ten_thousand
    name: str
    values: dict  # every FILE_KEYS key, normalised

    def rules(self):
        """The game's rule object built from the file."""
        return module(self.game).from_file(self.name, self.values)

    def add_to(self, options: dict) -> dict:
        """Build options with this variant added (the game's ``add_house``)."""
        return module(self.game).add_house(dict(options), self.name, self.values)


def _line_of(text: str, key: str) -> str:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=", re.MULTILINE)
    m = pattern.search(text)
    return f" (line {text.count(chr(10), 0, m.start()) + 1})" if m else ""


def _check_value(key: Key, value: Any, values: dict) -> Any:
    """The value normalised (tuples become lists), or ValueError saying what is wrong."""
    if key.kind == "bool":
        if not isinstance(value, bool):
            raise ValueError
        return value
    if key.kind in ("str", "choice"):
        if not isinstance(value, str) or (key.kind == "choice" and value not in key.choices):
            raise ValueError
        return value
    items = value if key.kind == "ints" else [value]
    if key.kind == "ints" and not isinstance(value, list):
        raise ValueError
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError
        if (key.minimum is not None and v < key.minimum) or (key.maximum is not None and v > key.maximum):
            raise ValueError
    if key.kind == "ints" and key.length:
        want = values.get(key.length) if isinstance(key.length, str) else key.length
        if len(items) != want:
            raise ValueError
    return list(items) if key.kind == "ints" else value


def check_values(keys: tuple[Key, ...], defaults: dict, values: Any) -> dict:
    """Rules-file values that did not come through :func:`parse` (build options' ``house_rules``, the
    Python API) checked key by key as a file's are: the normalised values, or ValueError
    ``"key: must be ..., got ..."`` (one line; every number within its key's documented range)."""
    if not isinstance(values, dict):
        raise ValueError(f"must map rules-file keys to values, got {_short(values)}")
    names = [k.name for k in keys]
    unknown = [k for k in values if k not in names]
    if unknown:
        raise ValueError(f"{_short(unknown[0])}: unknown key; allowed keys: {', '.join(names)}")
    out: dict = {}
    for key in keys:
        if key.name not in values:
            if key.required:
                raise ValueError(f"{key.name}: missing; it must be {key.allowed()}")
            out[key.name] = defaults[key.name]
            continue
        try:
            out[key.name] = _check_value(key, values[key.name], out)
        except ValueError:
            raise ValueError(f"{key.name}: must be {key.allowed()}, got {_short(values[key.name])}") from None
    return out


def house_rules(options: dict, game: str, from_file, keys: tuple[Key, ...], defaults: dict):
    """(name, values, rule set) of each house rule set of ``game``'s build options (``house_rules``: name ->
    rules-file values), in order, each checked as a file's is (:func:`check_values`, then ``from_file``);
    ValueError (one line naming ``GAME.house_rules[NAME]``) for the first bad one, when it is reached."""
    import reprlib

    cli = game.replace("_", "-")
    house = options.get("house_rules", {})
    if not isinstance(house, dict):
        raise ValueError(f"{cli}.house_rules must map names to rules-file values, got {reprlib.repr(house)}")
    for name, values in house.items():
        try:  # values that did not come from a checked file (-o GAME.house_rules=...): checked as one
            rules = from_file(name, check_values(keys, defaults, values))
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"{cli}.house_rules[{reprlib.repr(name)}]: {exc}") from None
        yield name, values, rules


def player_counts(value: Any, option: str, counts: tuple[int, ...], example: str, show=repr) -> tuple[int, ...]:
    """A build option listing numbers of players (``GAME.players``: ``option``) as a sorted tuple: a list of
    distinct whole numbers in ``counts`` (a game's ``PLAYER_COUNTS``, up to its ``MAX_PLAYERS``), or one such
    number; ValueError (one line, ``example`` a good value, ``show`` how the bad one is echoed) if bad."""
    items = [value] if isinstance(value, int) and not isinstance(value, bool) else value
    allowed = f"{counts[0]}..{counts[-1]}"
    if not isinstance(items, (list, tuple)) or any(isinstance(n, bool) or not isinstance(n, int) for n in items):
        raise ValueError(f"{option} must be a list of whole numbers {allowed}, e.g. {example}, got {show(value)}")
    bad = [n for n in items if n not in counts]
    if bad:
        raise ValueError(f"{option} must be {allowed} each (the tables have {counts[-1]} seats), got {bad[0]}")
    if len(set(items)) != len(items):
        raise ValueError(f"{option} lists a number twice: {show(value)}")
    return tuple(sorted(items))


def _short(value: Any) -> str:
    """``repr`` of a value cut to a line (a huge or deeply nested value stays one short line)."""
    import reprlib

    short = reprlib.Repr()
    short.maxstring = short.maxother = 60
    short.maxlevel = 3
    return short.repr(value)


def parse(text: str, source: str = "<rules>", game: str | None = None) -> HouseRules:
    """Check a rules document; RulesFileError (one line: file, key, line, what is allowed)."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesFileError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively (issue 34)
        raise RulesFileError(f"{source}: arrays or inline tables nested too deeply to read; every key of a rules "
                             "file is a number, a string, true/false or a flat list of numbers") from None

    def fail(key: str, what: str):
        raise RulesFileError(f"{source}: {key}{_line_of(text, key)}: {what}")

    if "game" not in data:
        raise RulesFileError(f"{source}: no 'game' key; say which game the rules are for, e.g. game = \"ten-thousand\"")
    if not isinstance(data["game"], str):
        fail("game", f"must be a game name ({', '.join(g.replace('_', '-') for g in GAMES)})")
    try:
        mod = module(data["game"])
    except RulesFileError as exc:
        fail("game", str(exc))
    if game is not None and mod.GAME != module(game).GAME:
        fail("game", f"these rules are for {mod.GAME.replace('_', '-')}, not {game}")
    name = data.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        fail("name", f"must be a variant name, {NAME_RULE}; got {_short(name)}")
    keys = {k.name: k for k in mod.FILE_KEYS}
    unknown = [k for k in data if k not in keys and k not in ("game", "name")]
    if unknown:
        fail(unknown[0], f"unknown key; allowed keys: game, name, {', '.join(keys)}")
    values: dict = {}
    for key in mod.FILE_KEYS:
        if key.name not in data:
            if key.required:
                fail(key.name, f"missing; it must be {key.allowed()} (print a complete file with: "
                     f"dicebase rules {mod.GAME.replace('_', '-')})")
            values[key.name] = mod.FILE_DEFAULTS[key.name]
            continue
        try:
            values[key.name] = _check_value(key, data[key.name], values)
        except ValueError:
            fail(key.name, f"must be {key.allowed()}, got {_short(data[key.name])}")
    try:
        mod.from_file(name, values)  # the game's own checks: combinations, unit, goal, ...
    except ValueError as exc:
        key, _, what = str(exc).partition(": ")
        if key in keys:
            fail(key, what)
        raise RulesFileError(f"{source}: {exc}") from None
    return HouseRules(mod.GAME, name, values)


def load(path: str | Path, game: str | None = None) -> HouseRules:
    """Read and check a rules file (see :func:`parse`)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise RulesFileError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes; a rules file is a few kB "
                                 "(print one with: dicebase rules GAME)")
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text() reads it
    except FileNotFoundError:
        raise RulesFileError(f"{path}: no such rules file (print one with: dicebase rules GAME > {path.name})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesFileError(f"{path}: cannot read it: {exc}") from None
    return parse(text, str(path), game)


# ------------------------------------------------------------------ a rule set in words (issue 34)
def _values(mod, rules) -> dict:
    """The rule values of a rule set as its file has them, without the free text."""
    return {k: v for k, v in mod.to_file(rules).items() if k not in ("description", "source", "two_player")}


def copied_description(mod, rules) -> tuple[str, list[str]] | None:
    """(preset, differences) when the rule set's description is a preset's own but its values are not: a
    printed preset edited without its description (issue 34: the README's 'our-table' still said "three pairs
    1500"); None otherwise."""
    description = getattr(rules, "description", "")
    if not description:
        return None
    for name, preset in mod.PRESETS.items():
        if getattr(preset, "description", None) == description:
            ours, theirs = _values(mod, rules), _values(mod, preset)
            diff = [f"{k} = {_toml_value(ours[k])}, not {_toml_value(theirs[k])}" for k in ours if ours[k] != theirs[k]]
            return (name, diff) if diff else None
    return None


def in_words(mod, rules, source: bool = True) -> list[str]:
    """A rule set in words, one sentence a line: its description (unless it is a preset's, copied into a file
    whose values differ), then the rules generated from the values (the game's ``words``), then its source."""
    out = []
    description = getattr(rules, "description", "")
    if description and copied_description(mod, rules) is None:
        out.append(description.rstrip(".") + ".")
    out.extend(mod.words(rules))
    if source and getattr(rules, "source", ""):
        out.append(f"Source: {rules.source}")
    return out


def record_words(game: str, variant: str, record: dict, solver: dict | None = None) -> list[str]:
    """:func:`in_words` of a variant as stored in build_variants (rules_json, solver_json), without its source;
    the stored description alone where the record cannot be read back (a file of another version)."""
    mod = module(game)
    try:
        return in_words(mod, mod.from_file(variant, mod.from_record(record, solver)), source=False)
    except (KeyError, TypeError, ValueError):
        description = record.get("description", "") if isinstance(record, dict) else ""
        return [description] if description else []
