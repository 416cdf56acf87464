"""The games dicebase knows how to build, by name, in build order."""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES: dict[str, str] = {
    "threes": "dicebase.builder.threes",
    "rolled_ones": "dicebase.builder.rolled_ones",
    "ten_thousand": "dicebase.builder.ten_thousand",
}

#: Names users may type on the command line (``rolled-ones``) mapped to game names.
ALIASES = {name.replace("_", "-"): name for name in GAMES}


def canonical(name: str) -> str:
    """``rolled-ones`` or ``rolled_ones`` -> ``rolled_ones``; ValueError for unknown names."""
    key = name.strip().lower().replace("-", "_")
    if key not in GAMES:
        known = ", ".join(sorted(ALIASES))
        raise ValueError(f"unknown game {name!r}; known games: {known}")
    return key


def load(game: str) -> ModuleType:
    return importlib.import_module(GAMES[canonical(game)])
