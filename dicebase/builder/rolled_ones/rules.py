"""Great Rolled Ones: the two acyclic equations of seed 002, as arrays.

The rule parameters, ``P_new1s`` and the reachable turns are in
:mod:`dicebase.rules.rolled_ones` (shared with the lookups).  This module holds
the numpy tables of the two equations that need no iteration:

* ``P_new1s(d, o_new)``: the chance that ``o_new`` of ``d`` rolled dice are 1s;
* ``P_exceed(Delta, o)``: the chance that player 2, on the final turn, exceeds
  player 1's score at or above the goal, ``Delta = j - (i + k)`` behind.

Nothing here is specific to 5 dice, goal 50 or three 1s: those are fields of
:class:`Rules`.
"""

from __future__ import annotations

import numpy as np

from dicebase.rules.rolled_ones import P_new1s, Rules, reachable_turns as reachable_set


def P_new1s_table(rules: Rules) -> np.ndarray:
    """``table[d, n] = P_new1s(d, n)`` for ``0 <= n <= d <= dice`` (0 where ``n > d``)."""
    t = np.zeros((rules.dice + 1, rules.dice + 1))
    for d in range(rules.dice + 1):
        for n in range(d + 1):
            t[d, n] = P_new1s(d, n, rules.faces)
    return t


#: Turn totals ``Delta`` computed per matrix product in :func:`P_exceed_table`.
P_EXCEED_BLOCK = 64


def P_exceed_table(rules: Rules, delta_max: int) -> np.ndarray:
    """Seed 002's ``P_exceed(Delta, o)`` for ``Delta = -1 .. delta_max``, ``o = 0 .. ones_limit``.

    ::

        P_exceed(Delta, o) = 0                                  if o >= 3
                             1                                  if Delta < 0
                             sum_{n=0}^{2-o} P_new1s(5 - o, n) P_exceed(Delta - (5 - o'), o')
                                                                otherwise, o' = o + n

    Row ``Delta + 1`` holds ``Delta``; row 0 (``Delta = -1``) stands for every
    ``Delta < 0``.  Column ``o = ones_limit`` is the ``o >= 3`` case (all 0).

    Vectorised: the recursion is linear with constant coefficients and looks
    back at most ``dice`` rows, so the rows ``Delta = s .. s + B - 1`` are one
    fixed matrix ``T`` (``B * L x dice * L``) times the ``dice`` rows below
    ``s``.  ``T`` is built once by running the recursion on coefficient
    vectors (``B`` steps), then each block of ``B`` rows is one matrix-vector
    product.  Equal to the row-by-row recursion within 4e-16 (a test keeps
    the scalar recursion as the reference).
    """
    L, D, B = rules.ones_limit, rules.dice, P_EXCEED_BLOCK
    outcomes = [(prob, gain, o_next, o) for o in rules.ones for prob, gain, o_next in rules.outcomes[o]]
    # C[r, o]: row r - D (Delta = s + r - D) as coefficients of the D * L values of rows s - D .. s - 1
    C = np.zeros((D + B, L, D * L))
    C[:D].reshape(D * L, D * L)[...] = np.eye(D * L)
    for b in range(D, D + B):
        for prob, gain, o_next, o in outcomes:  # n = 0 .. 2 - o: the turn goes on (o' < ones_limit)
            C[b, o] += prob * C[b - gain, o_next]
    T = C[D:].reshape(B * L, D * L)
    n = delta_max + 1
    rows = np.ones((D + -(-n // B) * B, L))  # the first D rows: Delta < 0, already exceeded
    for s in range(D, len(rows), B):
        rows[s : s + B] = (T @ rows[s - D : s].ravel()).reshape(B, L)
    table = np.zeros((delta_max + 2, L + 1))
    table[0, :L] = 1.0  # Delta < 0: player 2 has exceeded player 1
    table[1:, :L] = rows[D : D + n]
    return table


def P_exceed(table: np.ndarray, delta, o):
    """Look up ``P_exceed(Delta, o)`` in a table from :func:`P_exceed_table` (arrays allowed)."""
    delta = np.maximum(np.asarray(delta), -1)
    return table[delta + 1, o]


def reachable_turns(rules: Rules) -> np.ndarray:
    """``reach[k, o]``: whether a turn can be at turn total ``k`` with ``o`` 1s set aside
    (:func:`dicebase.rules.rolled_ones.reachable_turns` as a boolean array)."""
    reach = np.zeros((rules.turn_total_bound + 1, rules.ones_limit), dtype=bool)
    for k, o in reachable_set(rules):
        reach[k, o] = True
    return reach
