"""10,000 lookups: ``db.ten_thousand.odds(...)``, ``best``, ``state``, ``thresholds``, ``gaps``, ``hold``.

:mod:`.queries` holds the verbs (:class:`Queries`), :mod:`.results` what they return,
:mod:`.lookahead` the one-step lookahead in Python and :mod:`.stored` the reads of stored values
through the one block reader (:mod:`dicebase.query.blocks`).  The storage layout and the
documented queries are defined in :mod:`dicebase.layout.ten_thousand` (re-exported here).
"""

from dicebase.layout.ten_thousand import (  # noqa: F401  (the documented queries, importable from here too)
    BANK_VALUE_SQL,
    DUEL_LOOKAHEAD_SQL,
    LAST_TURN_SQL,
    ROLL_PARTS_SQL,
    ROLL_VALUE_SQL,
    SOLITAIRE_LOOKAHEAD_SQL,
)
from dicebase.query.ten_thousand.queries import Queries
from dicebase.query.ten_thousand.results import (  # noqa: F401
    EXPECTED,
    WIN,
    Best,
    Gap,
    KeepAction,
    OddsRow,
    State,
    Threshold,
    positional,
    rolls,
)
from dicebase.rules.ten_thousand import MAX_POINTS  # noqa: F401  (the largest score a lookup takes)

__all__ = ["Best", "Gap", "KeepAction", "OddsRow", "Queries", "State", "Threshold"]
