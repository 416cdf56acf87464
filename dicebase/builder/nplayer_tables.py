"""Writing an N-player solve's turn starts and cycle tuples, for the games whose layouts store them alike
(Great Rolled Ones, Pig: a block per (variant, players), ``score1..`` and ``p_win1..`` columns up to the
game's most seats, 0 beyond ``players``).  A game names its tables and columns; the rows are written here once."""

from __future__ import annotations

import numpy as np

#: Rows per write of the turn starts (a block of 4 players at a large goal is tens of millions).
CHUNK_ROWS = 1_000_000


def digits(idx: np.ndarray, goal: int, width: int) -> list[np.ndarray]:
    """The base-``goal`` digits of tuple indices ``idx``, most significant (seat 1) first, ``width`` of them."""
    return [(idx // goal ** (width - 1 - d)) % goal for d in range(width)]


def write_turn_starts(ctx, table: str, block: dict, start: np.ndarray, goal: int, scores: tuple[str, ...],
                      wins: tuple[str, ...], *, unit: int = 1, more=None) -> int:
    """Every turn start of ``start[idx, m, e]`` (N seats, tuples ``idx`` in base ``goal``, seat 1 the most
    significant digit) into ``table``: seat-major, then the tuple index (``dicebase.layout.start_position``);
    ``block`` the block's columns, scores stored times ``unit`` (10,000's points), ``more(idx, m)`` a game's
    further columns.  Returns the rows written."""
    N = start.shape[1]
    T = goal**N
    rows = 0
    for m in range(N):
        for a in range(0, T, CHUNK_ROWS):
            idx = np.arange(a, min(a + CHUNK_ROWS, T), dtype=np.int64)
            score = digits(idx, goal, N)
            cols = {**block, "seat": np.full(len(idx), m + 1, dtype=np.int64)}
            for n in range(len(scores)):
                cols[scores[n]] = score[n] * unit if n < N else 0
                cols[wins[n]] = start[idx, m, n] if n < N else 0.0
            if more is not None:
                cols.update(more(idx, m))
            ctx.write(table, cols)
            rows += len(idx)
    return rows


def write_cycles(ctx, tuples_table: str, mixing_table: str, block: dict, N: int, records: list,
                 scores: tuple[str, ...], state: tuple[str, ...]) -> None:
    """The cycle tuples' records (:func:`dicebase.builder.equilibrium.cycle_record`) into ``tuples_table`` and
    each randomising seat's decisions with their roll probability into ``mixing_table`` (key: the scores, the
    seat, the decision's ``state`` columns: ``k``, or ``k, o``), in key order."""
    recs = sorted(records, key=lambda rec: rec["scores"])
    if recs:
        cols = {**block,
                "kind": np.array([rec["kind"] for rec in recs], dtype=object),
                "randomising_seats": np.array([len(rec["randomising"]) for rec in recs]),
                "cycle_length": np.array([rec["cycle_length"] for rec in recs]),
                "residual": np.array([rec["residual"] for rec in recs])}
        for n in range(len(scores)):
            cols[scores[n]] = np.array([rec["scores"][n] if n < N else 0 for rec in recs])
        ctx.write(tuples_table, cols)
    mix = []
    for rec in recs:
        for m, states, q in rec["randomising"]:
            qs = q if isinstance(q, list) else [q] * len(states)
            for at, p in zip(states, qs):
                mix.append((*rec["scores"], *([0] * (len(scores) - N)), m + 1,
                            *(at if isinstance(at, tuple) else (at,)), float(p)))
    mix.sort()
    if mix:
        cols = dict(block)
        for n, column in enumerate((*scores, "seat", *state)):
            cols[column] = np.array([row[n] for row in mix], dtype=np.int64)
        cols["p_roll"] = np.array([row[-1] for row in mix])
        ctx.write(mixing_table, cols)
