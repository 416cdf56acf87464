"""Pig's storage layout (issue 31): one storage path for every number of players.

``pig_turn_starts`` holds every turn start's win vector: block (variant, players), key (seat to move,
score1..score_players), seat-major then the score tuple in base ``goal`` (seat 1 the most significant
digit: :func:`start_position`); seats beyond ``players`` hold 0.  Mid-turn states are computed at lookup by
the turn of :mod:`dicebase.rules.pig_turn` from the turn starts along the mover's score.  Standard library
and :mod:`dicebase.rules` only.
"""

from __future__ import annotations

from dicebase.layout import Table, start_position, start_rows, tuple_index  # noqa: F401  (this game's, shared)
from dicebase.rules.pig import MAX_PLAYERS

#: One score column and one win column per seat, for up to MAX_PLAYERS seats (0 beyond ``players``).
SCORES = tuple(f"score{n}" for n in range(1, MAX_PLAYERS + 1))
WINS = tuple(f"p_win{n}" for n in range(1, MAX_PLAYERS + 1))
TURN_STARTS = "pig_turn_starts"
PLAYERS = Table("pig_players", ("variant",), ("players",))


def starts_table(players: int) -> Table:
    """``pig_turn_starts`` for ``players`` seats: block (variant, players), key (seat, score1..score_players)."""
    return Table(TURN_STARTS, ("variant", "players"), ("seat", *SCORES[:players]))

