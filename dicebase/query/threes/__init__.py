"""Threes lookups: ``db.threes.best(...)``, ``expected``, ``chances``, ``seats``, ``p_win``.

:mod:`.queries` holds the verbs (:class:`Queries`), :mod:`.results` what they return.  The
rules (and the solver's tie-break, ``rank``) are :mod:`dicebase.rules.threes`; where
``threes_win`` holds each state is :mod:`dicebase.layout.threes`.
"""

from dicebase.query.threes.queries import KNOWN_VARIANTS, LAST_PLAYER_NEEDS_TARGET, Queries  # noqa: F401
from dicebase.query.threes.results import (  # noqa: F401
    EXPECTED, WIN, Action, Best, Built, ChanceRow, ExpectedRow, SeatRow, Variant, rank, rank_many,
)
from dicebase.rules.threes import TOL, Rules  # noqa: F401  (one tie tolerance, defined once)

__all__ = ["Action", "Best", "ChanceRow", "ExpectedRow", "Queries", "SeatRow", "Variant"]
