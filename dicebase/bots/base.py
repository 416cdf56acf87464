"""What every game's bots share: reading a table into numpy arrays, the N-seat cycle of turn starts,
95% intervals, seat names."""

from __future__ import annotations

import math

import numpy as np


def load(dotted: str):
    """What ``module:attribute`` names: a game's bots module names the modules that import it by such a string
    (its play module ``PLAY``, its N-player bots), so the package has no import cycle."""
    import importlib

    module, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module), attribute)


def arrays(db, sql: str, params: tuple = ()) -> dict[str, np.ndarray]:
    """The columns of a query as numpy arrays by name (DuckDB: read as arrays; SQLite: row by row)."""
    if db.store == "duckdb":
        return {k: np.asarray(v) for k, v in db.fetch_arrays(sql, params).items()}
    names, rows = db.columns(sql, params)
    cols = list(zip(*rows)) if rows else [() for _ in names]
    return {n: np.array(c, dtype=object if c and isinstance(c[0], str) else None) for n, c in zip(names, cols)}


def solve_cycles(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
    """The turn starts of every tuple of a level, each seat's turn written ``V_m = a_m + b_m V_{m+1}``
    (``a_m`` [tuples, N]: the lineup's win vector when the turn passes on by a score; ``b_m`` [tuples]: its
    chance to end with nothing, the same tuple to the next seat), seats in order, wrapping: ``V_0`` in
    closed form, then ``V_{N-1} .. V_1`` (the vectorised :func:`dicebase.numeric.cycle.solve_cycle`)."""
    N = len(a)
    acc, prod = np.zeros_like(a[0]), np.ones(len(b[0]))
    for m in range(N):
        acc += prod[:, None] * a[m]
        prod = prod * b[m]
    V = [acc / (1.0 - prod)[:, None]] + [None] * (N - 1)
    for m in range(N - 1, 0, -1):
        V[m] = a[m] + b[m][:, None] * V[(m + 1) % N]
    return V


def wilson(successes: float, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion (successes may be fractional: split wins)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    den = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / den
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def seat_names(bots: list[str]) -> list[str]:
    """Seat labels: a bot that sits more than once is numbered, as seed 003 names its players."""
    seen: dict[str, int] = {}
    total = {b: bots.count(b) for b in bots}
    out = []
    for b in bots:
        seen[b] = seen.get(b, 0) + 1
        out.append(f"{b} {seen[b]}" if total[b] > 1 else b)
    return out
