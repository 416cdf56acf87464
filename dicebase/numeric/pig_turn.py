"""Pig's turn (:mod:`dicebase.rules.pig_turn`, its one definition) compiled once for the builder's kernels
and the bots: ``njit(cache=True)`` of the very functions the lookups run in plain Python, and the stored
mixing of a randomising seat, which both read the same way."""

from __future__ import annotations

import numpy as np
from numba import njit

from dicebase.rules import pig_turn

turn = njit(cache=True)(pig_turn.turn)
policy_rolls = njit(cache=True)(pig_turn.policy_rolls)


@njit(cache=True)
def stored_mix(key, mix_keys, mix_q, G, mix):
    """``mix[k]``: the stored roll probabilities of a randomising seat (``key = idx * N + m`` in the
    sorted ``mix_keys``; its row ``mix_q[i, :]``), else -1 everywhere (a best response)."""
    i = np.searchsorted(mix_keys, key)
    if i < mix_keys.shape[0] and mix_keys[i] == key:
        for k in range(G):
            mix[k] = mix_q[i, k]
    else:
        for k in range(G):
            mix[k] = -1.0
