"""The N-player 10,000 turn compiled once, for the solver's kernels and the bots' (issue 30): ``njit(cache=True)``
of the very functions the lookups run in plain Python (:mod:`dicebase.rules.ten_thousand.turn`), so there is one
definition, one compilation and one on-disk cache."""

from __future__ import annotations

from numba import njit

from dicebase.rules.ten_thousand import turn

turn_row = njit(cache=True)(turn.turn_row)
places = njit(cache=True)(turn.places)
