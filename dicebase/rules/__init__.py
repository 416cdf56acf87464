"""Each game's rules, in one place shared by the solvers and the lookups.

``dicebase.rules.<game>`` holds the rule dataclass, its presets (variants), the build
options with their defaults and bounds, tie rules, tolerances and the legality functions
(legal keeps, reachable states, scoring of a kept set).  ``dicebase.builder`` and
``dicebase.query`` both import it and never each other.  No numpy, no sqlalchemy: the
command line imports these modules on every lookup.
"""

from dicebase.errors import SizeLimit  # noqa: F401  (its home was here: ``from dicebase.rules import SizeLimit``)

from dicebase import games

#: Game name -> its rules module (from the game descriptors, dicebase.games).
GAMES = games.Layer("rules")
