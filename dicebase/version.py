"""The package version and the schema version, at the bottom of the layers.

Every layer may read them (the builder records them, the read API checks a file
against them, the web server puts them in its ETag) without importing the
``dicebase`` package's facade, whose ``open`` reaches up into the read API.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: Bumped whenever a table, column or view changes meaning or shape; a database
#: built with another schema version is refused at open with a rebuild hint.
SCHEMA_VERSION = 6  # 5: threes_many_dice, threes_many_dice_keeps, threes_many_dice_chances (issue 13); 6: ten_thousand_duel_bounds.first_row, row_count, p_start (issue 12)
