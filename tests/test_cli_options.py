"""Issue 20 §4: one meaning per short option.  A short option (``-o``) stands for the same long
option in every command that has it, so a habit learnt in one command is right in the others."""

from __future__ import annotations

import click


def _short_options() -> dict[str, dict[str, list[str]]]:
    """short option -> {its long option -> the commands that give it that meaning}."""
    from dicebase.main import cli

    found: dict[str, dict[str, list[str]]] = {}

    def walk(command: click.Command, ctx: click.Context) -> None:
        for param in command.params:
            if not isinstance(param, click.Option):
                continue
            long_name = max(param.opts, key=len)
            for opt in [*param.opts, *param.secondary_opts]:
                if not opt.startswith("--"):
                    found.setdefault(opt, {}).setdefault(long_name, []).append(ctx.command_path)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                walk(sub, click.Context(sub, info_name=name, parent=ctx))

    walk(cli, click.Context(cli, info_name="dicebase"))
    return found


def test_no_short_option_has_two_meanings():
    found = _short_options()
    twice = {short: meanings for short, meanings in found.items() if len(meanings) > 1}
    assert not twice, f"short options with more than one meaning: {twice}"


def test_the_walk_sees_every_command():
    found = _short_options()
    assert found["-o"] == {"--option": ["dicebase build"]}  # not --out of `dicebase plot NAME` any more
    assert "dicebase sql" in found["-p"]["--param"]
    assert set(found["-q"]["--quiet"]) == {"dicebase build", "dicebase export"}
