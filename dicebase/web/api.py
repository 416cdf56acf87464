"""Every CLI lookup as an HTTP endpoint, built from the click command itself.

``GET /api/v1/GAME/COMMAND?option=value`` is ``dicebase GAME COMMAND --option
value --json``: the endpoint's parameters are the command's own click
parameters (long option names with dashes as underscores, flags as
true/false, the positional dice as ``dice=4,3,1,1,2``), and the answer is
produced by running that command in-process on the server's open database
(``dicebase.present.serving``), so the API and ``--json`` cannot drift apart.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import cached_property

import click

from dicebase.errors import UNAVAILABLE, BadInput, DicebaseError, file_error
from dicebase.present import serving

#: Root commands served besides the game lookups (read-only, with --json).
ROOT_COMMANDS = ("info", "schema", "tournament")  # tournament: docs/bots.md
#: Parameters every lookup has that make no sense over HTTP: the server chooses the database and the format.
NOT_PARAMETERS = {"db_path", "fmt", "as_json"}
FLAG_VALUES = {"true": True, "false": False}
#: Values a list parameter (the dice of a roll) takes over HTTP.  Threes' expected-score `best`
#: takes rolls of up to the built many_dice (5,000), and its answer lists every keep with its dice:
#: it grows with the square of the roll (1.4 MB and 0.2 s at 500 dice, 138 MB and 7 s at 5,000),
#: which one request should not be able to make a shared server compute and send.
MAX_LIST_VALUES = 500


class LookupFailed(Exception):
    """A lookup that failed as the CLI would report it: its HTTP status and the CLI's one-line message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def http_status(exc: Exception, exit_code: int) -> int:
    """The HTTP status of a failed lookup, as its error class says (``dicebase.errors``): the
    user's input 400, not in the database 404, and 503 for what is no fault of the request (a
    missing, damaged or busy database file, a time limit, the memory ceiling).  A click usage
    error is the user's input; anything else a user cannot fix (exit code other than 2) is 503."""
    if isinstance(exc, OSError) and not isinstance(exc, DicebaseError):
        exc = file_error(exc, exc.filename or "a file", "use")
    status = getattr(exc, "http_status", None)
    if status is None or (status == 400 and exit_code != 2):
        return 400 if exit_code == 2 else UNAVAILABLE
    return status


@dataclass(frozen=True)
class Parameter:
    """One query parameter and the click parameter behind it."""

    name: str  # query parameter: the long option name with dashes as underscores, or the argument's name
    param: click.Parameter

    @property
    def is_flag(self) -> bool:
        return isinstance(self.param, click.Option) and self.param.is_flag

    @property
    def is_list(self) -> bool:
        return isinstance(self.param, click.Argument) and self.param.nargs != 1

    @property
    def flag(self) -> str:
        """The CLI spelling: --to-beat (options) or the argument's metavar."""
        if isinstance(self.param, click.Option):
            return _long_flag(self.param)
        return self.param.human_readable_name

    @property
    def required(self) -> bool:
        return bool(self.param.required)

    @property
    def help(self) -> str:
        return " ".join((getattr(self.param, "help", None) or "").split())


@dataclass(frozen=True)
class Endpoint:
    """``GET /api/v1/<cli path>``: one click command with --json."""

    cli_path: tuple[str, ...]  # ("threes", "best") or ("info",)
    command: click.Command

    @property
    def path(self) -> str:
        return "/api/v1/" + "/".join(self.cli_path)

    @property
    def summary(self) -> str:
        return self.command.get_short_help_str(limit=200)

    @property
    def description(self) -> str:
        """The command's help text without its Example block (the API has its own example)."""
        text = (self.command.help or "").split("Example:")[0]
        return "\n".join(line.strip() for line in text.strip().splitlines())

    @cached_property
    def parameters(self) -> dict[str, Parameter]:
        out = {}
        for param in self.command.params:
            if param.name in NOT_PARAMETERS:
                continue
            if isinstance(param, click.Option):
                name = _long_flag(param).lstrip("-").replace("-", "_")
            else:
                name = param.name
            out[name] = Parameter(name, param)
        return out

    @cached_property
    def aliases(self) -> dict[str, str]:
        """Other names of a parameter, from the option's other long flags (``variant`` of ``rules``)."""
        return {o.lstrip("-").replace("-", "_"): name for name, p in self.parameters.items()
                if isinstance(p.param, click.Option) for o in p.param.opts if o.startswith("--") and o != p.flag}

    def argv(self, items: list[tuple[str, str]]) -> list[str]:
        """The command line for query parameters ``items`` (an alias read as its parameter); BadInput for unknown
        or repeated ones."""
        seen: set[str] = set()
        options: list[str] = []
        positional: dict[str, list[str]] = {}  # by argument, put in the command's order below
        for key, value in items:
            key = self.aliases.get(key, key)
            parameter = self.parameters.get(key)
            if parameter is None:
                known = ", ".join(self.parameters) or "none"
                raise BadInput(f"unknown parameter {_short(key)} for {self.path}; its parameters: {known}")
            if key in seen:
                raise BadInput(f"parameter {key} given more than once")
            seen.add(key)
            if parameter.is_flag:
                if value.lower() not in FLAG_VALUES:
                    raise BadInput(f"{key} is a flag: give true or false, got {_short(value)}")
                if FLAG_VALUES[value.lower()]:
                    options.append(parameter.flag)
            elif parameter.is_list:
                positional[key] = [v.strip() for v in value.split(",")]
                if len(positional[key]) > MAX_LIST_VALUES:
                    raise BadInput(f"{key} takes at most {MAX_LIST_VALUES:,} values over HTTP, got "
                                   f"{len(positional[key]):,} (the answer grows with their square); "
                                   f"the CLI answers larger ones: dicebase {' '.join(self.cli_path)} ...")
            elif isinstance(parameter.param, click.Argument):
                positional[key] = [value]
            else:
                options.extend([parameter.flag, value])
        # the order of the query parameters never matters (the response cache relies on it)
        arguments = [v for name in self.parameters if name in positional for v in positional[name]]
        return [*options, "--json", "--", *arguments]

    def run(self, db, items: list[tuple[str, str]]):
        """The JSON document ``dicebase <cli path> <argv> --json`` prints, computed on the open ``db``.

        Raises what the CLI raises (click.UsageError, DicebaseError subclasses).
        """
        argv = self.argv(items)
        with serving(db) as documents:
            with self.command.make_context(self.cli_path[-1], argv, parent=self._parent) as ctx:
                self.command.invoke(ctx)
        if len(documents) != 1:
            raise RuntimeError(f"{' '.join(self.cli_path)} --json produced {len(documents)} documents")
        return documents[0]

    @cached_property
    def _parent(self) -> click.Context:
        """The context of ``dicebase GROUP`` above the command: the same command path as on the command
        line, so the same messages, built once (a command's context only reads its parents)."""
        from dicebase.cli import cli

        parent = click.Context(cli, info_name="dicebase")
        for name in self.cli_path[:-1]:
            parent = click.Context(parent.command.get_command(parent, name), info_name=name, parent=parent)
        return parent

    def example(self) -> list[tuple[str, str]]:
        """Query parameters of the command's first documented example that has them (else none)."""
        examples = _examples(self.command.help or "")
        prefix = ["dicebase", *self.cli_path]
        for argv in examples:
            if argv[: len(prefix)] == prefix and len(argv) > len(prefix):
                return self.items_for(argv[len(prefix):])
        return []

    def items_for(self, args: list[str]) -> list[tuple[str, str]]:
        """Query parameters equivalent to the command line ``args`` (the inverse of ``argv``)."""
        ctx = self.command.make_context(" ".join(self.cli_path), list(args), resilient_parsing=True)
        items = []
        for name, parameter in self.parameters.items():
            value = ctx.params.get(parameter.param.name)
            source = ctx.get_parameter_source(parameter.param.name)
            if source is not click.core.ParameterSource.COMMANDLINE:
                continue
            if parameter.is_flag:
                items.append((name, "true" if value else "false"))
            elif parameter.is_list or isinstance(value, (tuple, list)):  # an option parsed into numbers: --scores 0,0
                items.append((name, ",".join(str(v) for v in value)))
            else:
                items.append((name, str(value)))
        return items


def _examples(help_text: str) -> list[list[str]]:
    """The command lines of a docstring's Example block."""
    _, _, block = help_text.partition("Example:")
    return [shlex.split(line) for line in block.splitlines() if line.strip().startswith("dicebase ")]


def _long_flag(param: click.Option) -> str:
    """The option's main long flag: the first one declared (``--rules`` of ``--rules/--variant``, the rule set's
    one name in every game, issue 30), else the longest."""
    return next((o for o in param.opts if o.startswith("--")), max(param.opts, key=len))


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def endpoints() -> dict[str, Endpoint]:
    """Every lookup the CLI offers with --json, by URL path."""
    from dicebase.cli import GAME_GROUPS, cli

    ctx = click.Context(cli, info_name="dicebase")
    found: list[Endpoint] = [Endpoint((name,), cli.get_command(ctx, name)) for name in ROOT_COMMANDS]
    for game in GAME_GROUPS:
        group = cli.get_command(ctx, game)
        if group is None:
            continue
        group_ctx = click.Context(group, info_name=game, parent=ctx)
        for name in group.list_commands(group_ctx):
            command = group.get_command(group_ctx, name)
            if any(p.name == "as_json" for p in command.params):
                found.append(Endpoint((game, name), command))
    return {e.path: e for e in found}
