"""The games dicebase knows how to build, by name, in build order (from the descriptors, dicebase.games).

Each game's builder module implements :class:`GameBuilder`; one that checks its options
before a build also :class:`ChecksOptions`, and one that can add a rule set to a built
file without solving the others again also :class:`AddsVariants`.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from dicebase import games

#: game name -> its builder module, live (a registered test game joins it)
GAMES = games.Layer("builder")


@runtime_checkable
class GameBuilder(Protocol):
    """What the build pipeline asks of every game's builder module."""

    #: every build option with its default (``dicebase build --option game.key=value`` may set them)
    DEFAULT_OPTIONS: dict[str, Any]

    def build(self, ctx: Any, options: dict[str, Any]) -> None:
        """Solve the game under ``options`` and write its tables through ``ctx`` (a BuildContext)."""


@runtime_checkable
class ChecksOptions(Protocol):
    def validate_options(self, options: dict[str, Any]) -> Any:
        """Raise ValueError/TypeError (or rules.SizeLimit) for options the game cannot build."""


@runtime_checkable
class AddsVariants(Protocol):
    def variant_fingerprints(self, options: dict[str, Any]) -> dict[str, str]:
        """Each rule set ``options`` build, by name -> a text that changes whenever its rows would."""

    def options_for_variants(self, options: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """``options`` narrowed to build only the rule sets ``names``."""


def canonical(name: str) -> str:
    """``rolled-ones`` or ``rolled_ones`` -> ``rolled_ones``; ValueError for unknown names."""
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        known = ", ".join(sorted(g.cli_name for g in games.all_games("builder")))
        raise ValueError(f"unknown game {name!r}; known games: {known}")
    return key


def load(game: str) -> GameBuilder:
    return games.load(canonical(game), "builder")
