"""Threes with many dice: the minimum expected score E[n] for thousands of dice.

Seed 000 asks whether Threes is tractable with, say, 5000 dice.  Enumerating
rolls is hopeless (one roll of 5000 dice has C(5005, 5) ~ 2.6e16 multisets),
but the optimal play has a structure that makes it a few numpy passes
(docs/threes.md, "Many dice", gives the argument in full):

1. Keep every 3.  A 3 costs nothing; if E is non-decreasing in the dice
   count (verified on the computed values), keeping it never hurts.  So a
   roll is (k threes, the m = n - k other dice), and the k threes only enter
   through the binomial probability of k.
2. Of the m other dice only the lowest few matter.  Keeping j of them costs
   at least j points (each is worth >= 1), while keeping only the ``s`` the
   rules force is worth at most s dice plus E[m - s] <= B (the score bound),
   so j <= s + B: the decision depends only on the sorted *prefix* of the
   lowest T = forced_max + floor(B) other dice.  And a die worth more than
   Delta (the largest step E[m] - E[m - 1]) beyond the forced ones is never
   kept, so such dice are lumped together ("canonical" prefixes).
3. The prefix of m + 1 dice is a function of the prefix of m dice and the new
   die, so the prefix distribution is a small Markov chain in m (a few hundred
   states), stepped with one ``bincount`` per m.  Together with the binomial
   law of k (Pascal's rule, one vector operation per n) every E[n] is an exact
   finite sum: nothing is truncated except the candidates j > T, which are
   provably dominated.

The bounds B and Delta are checked on the computed values (the build fails if
one is violated); tests/test_threes_many.py raises both and gets the same
numbers.  The keep rule that results is stored compactly
(``threes_many_dice_keeps``): keep every 3 and the forced lowest others; for
rolls with few other dice (at most ``settled`` of them) a table says how many
more of them to keep; and in the re-roll variant re-roll instead when that is
better than the kept value by more than the tie tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from math import floor

import numpy as np
from numba import njit

from dicebase.rules.threes import MAX_MANY_DICE, TOL, Rules

DEFAULT_MAX_DICE = 5000


# --------------------------------------------------------------------------- prefix chain
@dataclass(frozen=True)
class PrefixChain:
    """The sorted lowest ``T`` of m non-three dice, as a Markov chain in m.

    A state is a tuple of indices into ``worths`` (ascending), of length
    min(m, T).  Positions at or beyond ``forced_max`` holding a die worth more
    than ``step`` are replaced by the top index: such a die is never kept
    voluntarily, so its exact value cannot change a decision.
    """

    worths: np.ndarray  # (K,) worths of the non-three faces, ascending
    length: int  # T
    states: tuple[tuple[int, ...], ...]
    src: np.ndarray  # (P * K,) transitions: state src --(new die)--> dst
    dst: np.ndarray
    cost: np.ndarray  # (P, T + 1) worth of the first j dice of the state (inf beyond its length)
    by_length: tuple[np.ndarray, ...]  # state indices of each prefix length 0..T

    def step(self, pi: np.ndarray) -> np.ndarray:
        """Distribution over prefixes after one more die (each non-three face equally likely)."""
        k = len(self.worths)
        return np.bincount(self.dst, weights=pi[self.src] / k, minlength=len(self.states))


def _prefix_graph(worths: np.ndarray, truncate):
    """Breadth-first over the prefixes reachable from no dice: a prefix plus one new die, sorted,
    then ``truncate``d.  Returns the states, the transitions (src --die--> dst, one per state and
    face) and each state's cost row: the worth of its first j dice (inf beyond its length)."""
    index = {(): 0}
    states: list[tuple[int, ...]] = [()]
    src, dst = [], []
    q = 0
    while q < len(states):
        for die in range(len(worths)):
            nxt = truncate(tuple(sorted(states[q] + (die,))))
            if nxt not in index:
                index[nxt] = len(states)
                states.append(nxt)
            src.append(q)
            dst.append(index[nxt])
        q += 1
    longest = max(len(s) for s in states)
    cost = np.full((len(states), longest + 1), np.inf)
    for row, prefix in enumerate(states):
        cost[row, : len(prefix) + 1] = np.concatenate([[0.0], np.cumsum(worths[list(prefix)])])
    return states, src, dst, cost


def prefix_chain(worths, length: int, step: float, forced_max: int) -> PrefixChain:
    worths = np.asarray(sorted(worths), dtype=np.float64)
    top = len(worths) - 1

    def canonical(prefix: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(i if (pos < forced_max or worths[i] <= step) else top for pos, i in enumerate(prefix))

    # the few hundred reachable prefixes (set-up, once)
    states, src, dst, cost = _prefix_graph(worths, lambda grown: canonical(grown[:length]))
    lengths = np.array([len(p) for p in states])
    by_length = tuple(np.flatnonzero(lengths == n) for n in range(length + 1))
    return PrefixChain(worths, length, tuple(states), np.array(src), np.array(dst), cost, by_length)


def choose_min(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Chosen value and index along the last axis: the smallest index within a relative TOL of the minimum."""
    best = values.min(axis=-1)
    near = values <= best[..., None] + TOL * np.abs(best)[..., None]
    pick = near.argmax(axis=-1)
    return np.take_along_axis(values, pick[..., None], axis=-1)[..., 0], pick


# --------------------------------------------------------------------------- solution
@dataclass(frozen=True)
class Bounds:
    """The two bounds the argument rests on; both are verified on the computed values."""

    score: float  # B: E[m] <= B for every m (the state after a keep)
    step: float  # Delta: E[m] - E[m - 1] <= Delta for every m >= 1

    def record(self) -> dict:
        return {"score_bound": self.score, "step_bound": self.step}


@dataclass(frozen=True)
class KeepRow:
    """Rolls with few other dice: how many of the others to keep after the 3s."""

    forced: int  # others the rules force you to keep (0, 1 or 2)
    others: tuple[int, ...]  # the non-three faces, in keep order
    keep: int  # others to keep (>= forced), the lowest ones
    value: float  # points of those kept others plus E[others - keep]


@dataclass
class ManyDice:
    rules: Rules
    max_dice: int
    bounds: Bounds
    expected: np.ndarray  # (max_dice + 1,) E[n]: no re-roll pending (the only state in classic)
    after_reroll: np.ndarray | None  # (max_dice + 1,) E[n] when this roll must keep two; NaN below 2 dice
    settled: int  # with more other dice than this, keep only the forced others
    keeps: list[KeepRow] = field(default_factory=list)
    chain_states: int = 0

    def expected_at(self, dice: int, must_keep_two: bool = False) -> float:
        table = self.after_reroll if must_keep_two else self.expected
        return float(table[dice])


def _keep_range(rules: Rules, dice: int, must_keep_two: bool) -> tuple[int, bool]:
    """(fewest dice a keep must hold, whether a re-roll of all is allowed) from the shared legality rule."""
    legal = rules.legal_keeps(dice, must_keep_two)
    return max(legal.start, 1), legal.start == 0


def default_bounds(rules: Rules) -> Bounds:
    """B = twice the top worth; Delta = the mean worth of one die (= E[1] - E[0], the first step)."""
    return Bounds(score=2.0 * max(rules.worth), step=float(np.mean(rules.worth)))


def solve_many(rules: Rules, max_dice: int = DEFAULT_MAX_DICE, bounds: Bounds | None = None) -> ManyDice:
    """E[n] for n = 0..max_dice (and after a re-roll), exactly up to floating point.

    E[n] = sum_k Binom(n, k; p3) * A(n, k), where A averages, over the lowest
    other dice (prefix chain), the best of: keeping the k threes, the forced
    others and j more (c_j + E[m - j]); or, where allowed, re-rolling all
    (E[n, must keep two]).  Raises ValueError if a bound is violated.
    """
    bounds = bounds or default_bounds(rules)
    worth = np.asarray(rules.worth, dtype=np.float64)
    p3 = float(np.mean(worth == 0))
    if p3 == 0:
        raise ValueError("threes with many dice needs a face worth 0 (the 3)")
    forced_max = max(rules.keep_after_reroll if rules.allow_reroll else 0, rules.min_keep, 1)
    T = forced_max + floor(bounds.score)
    chain = prefix_chain(worth[worth > 0], T, bounds.step, forced_max)
    js = np.arange(T + 1)
    cost_by_len = [chain.cost[idx][:, : n + 1] for n, idx in enumerate(chain.by_length)]

    N = max_dice
    F = np.zeros(N + 1)  # E[n], nothing pending
    R = np.full(N + 1, np.nan)  # E[n], must keep two
    Q = np.zeros((forced_max + 1, N + 1))  # Q[s, m] = E over m others of the best keep with s forced
    chosen_is_forced = np.ones((forced_max + 1, N + 1), dtype=bool)
    open_m: list[int] = []  # m with a profile-dependent keep (s = 0): their (pi, values) for the re-roll min
    open_rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def evaluate(m: int, s: int, pi_m: np.ndarray) -> np.ndarray:
        """Chosen value c_j + F[m - j] (j >= s) for every prefix of m others; records Q and settledness."""
        n_len = min(m, T)
        vals = cost_by_len[n_len] + F[m - js[: n_len + 1]][None, :]
        vals[:, :s] = np.inf
        value, pick = choose_min(vals)
        Q[s, m] = pi_m @ value
        chosen_is_forced[s, m] = bool(np.all(pick == s))
        return value

    def reroll_min(pi_m: np.ndarray, value: np.ndarray, reroll: float) -> float:
        """Average of min(keep value, re-roll value), re-rolling only when better by more than TOL."""
        return float(pi_m @ np.where(value > reroll * (1 + TOL), reroll, value))

    pi = np.zeros(len(chain.states))
    pi[0] = 1.0
    pis = [pi[chain.by_length[0]]]
    b = np.ones(1)  # Binom(n, k; p3), k = 0..n
    evaluate(0, 0, pis[0])
    for n in range(1, N + 1):
        pi = chain.step(pi)
        pi /= pi.sum()  # the exact total is 1: removes rounding drift over thousands of steps
        pis.append(pi[chain.by_length[min(n, T)]])
        nb = np.zeros(n + 1)
        nb[:n] += (1 - p3) * b
        nb[1:] += p3 * b
        b = nb / nb.sum()
        forced_values = {s: evaluate(n, s, pis[n]) for s in range(1, min(forced_max, n) + 1)}

        if rules.allow_reroll and n >= 2:  # E[n, must keep two]: no re-roll option
            r, _ = _keep_range(rules, n, True)
            R[n] = b[r:] @ Q[0, n - r :: -1] + sum(b[k] * Q[r - k, n - k] for k in range(r))

        r, reroll_ok = _keep_range(rules, n, False)
        if not reroll_ok:
            F[n] = b[r:] @ Q[0, n - r :: -1] + sum(b[k] * Q[r - k, n - k] for k in range(r))
        else:
            keep0 = np.where(Q[0, : n - r + 1] > R[n] * (1 + TOL), R[n], Q[0, : n - r + 1])
            for m in open_m:
                if m <= n - r:
                    keep0[m] = reroll_min(pis[m], open_rows[m], R[n])
            forced_part = 0.0
            for k in range(r):
                m = n - k
                value = forced_values[r - k] if m == n else evaluate(m, r - k, pis[m])
                forced_part += b[k] * reroll_min(pis[m], value, R[n])
            F[n] = b[r:] @ keep0[::-1] + forced_part

        value0 = evaluate(n, 0, pis[n])
        if not chosen_is_forced[0, n]:
            open_m.append(n)
            open_rows[n] = value0

    _check(F, bounds)
    unsettled = np.flatnonzero(~chosen_is_forced.all(axis=0))
    settled = int(unsettled.max()) if len(unsettled) else 0
    sol = ManyDice(
        rules, N, bounds, F, R if rules.allow_reroll else None, settled, chain_states=len(chain.states)
    )
    sol.keeps = keep_rows(rules, F, settled, forced_max)
    return sol


def _check(F: np.ndarray, bounds: Bounds) -> None:
    """The argument's premises, on the computed values (to the tie tolerance)."""
    steps = np.diff(F)
    if np.any(steps < -TOL * np.abs(F[1:])):
        n = int(np.argmax(steps < -TOL * np.abs(F[1:]))) + 1
        raise ValueError(f"threes many dice: E[{n}] < E[{n - 1}]: keeping every 3 is not proven optimal")
    if F.max() > bounds.score:
        raise ValueError(f"threes many dice: E reaches {F.max():.6g} > score bound {bounds.score}; raise it")
    if steps.max() > bounds.step * (1 + TOL):
        raise ValueError(f"threes many dice: a step of E is {steps.max():.6g} > step bound {bounds.step}; raise it")


def keep_rows(rules: Rules, F: np.ndarray, settled: int, forced_max: int) -> list[KeepRow]:
    """Every roll of m <= settled other dice (all multisets), for each forced count: the best number to keep."""
    faces = [f for f in range(1, len(rules.worth) + 1) if rules.worth[f - 1] > 0]
    faces.sort(key=lambda f: (rules.worth[f - 1], f))
    rows = []
    for m in range(1, settled + 1):
        combos = np.array(list(combinations_with_replacement(faces, m)))  # keep order: faces sorted by worth
        worth = np.asarray(rules.worth, dtype=np.float64)[combos - 1]
        cost = np.concatenate([np.zeros((len(combos), 1)), np.cumsum(worth, axis=1)], axis=1)
        for s in range(0, min(forced_max, m) + 1):
            vals = cost + F[m - np.arange(m + 1)][None, :]
            vals[:, :s] = np.inf
            value, pick = choose_min(vals)
            rows += [KeepRow(s, tuple(int(f) for f in c), int(j), float(v)) for c, j, v in zip(combos, pick, value)]
    return rows


# --------------------------------------------------------------------------- build
def settings(sol: ManyDice) -> dict:
    """What the build records about the many-dice solve (build_games.notes_json, key many_dice)."""
    return {
        "method": "binomial law of the 3s times a Markov chain over the lowest other dice (numpy), no roll enumeration",
        "max_dice": sol.max_dice,
        **sol.bounds.record(),
        "prefix_states": sol.chain_states,
        "settled": sol.settled,
        "tie_break": "keep every 3; among keeps of the others within a relative 1e-12 of the best, the fewest; "
        "re-roll all only when better than the kept value by more than 1e-12",
    }


def write_many(ctx, sol: ManyDice) -> None:
    """Rows of threes_many_dice and threes_many_dice_keeps for one variant."""
    name = sol.rules.variant
    dice = np.arange(1, sol.max_dice + 1)
    flags = [(False, sol.expected)] + ([(True, sol.after_reroll)] if sol.after_reroll is not None else [])
    for flag, values in flags:
        n = dice[dice >= 2] if flag else dice
        ctx.write(
            "threes_many_dice",
            {
                "variant": name,
                "dice": n,
                "must_keep_two": flag,
                "expected_score": values[n],
            },
        )
    rows = sol.keeps
    ctx.write(
        "threes_many_dice_keeps",
        {
            "variant": name,
            "forced": np.array([r.forced for r in rows], dtype=np.int64),
            "others": np.array([len(r.others) for r in rows], dtype=np.int64),
            "roll": np.array([" ".join(map(str, r.others)) for r in rows], dtype=object),
            "keep": np.array([r.keep for r in rows], dtype=np.int64),
            "value": np.array([r.value for r in rows]),
        },
    )


# --------------------------------------------------------------------------- the last player (objective b)
DEFAULT_CHANCE_DICE = 50
MAX_TARGET = 30


@dataclass(frozen=True)
class SumChain:
    """The lowest other dice of m non-three dice whose worths add up to at most ``budget``.

    Only those dice can be kept by a player who must finish at or below a target <= budget: the
    next one would already overshoot.  The prefix of m + 1 dice is the longest prefix within the
    budget of (prefix of m dice + the new die), so this is again a Markov chain in m.
    """

    states: tuple[tuple[int, ...], ...]
    src: np.ndarray
    dst: np.ndarray
    cost: np.ndarray  # (P, L + 1) worth of the first j dice (inf beyond the state's length)
    length: np.ndarray  # (P,)

    def step(self, pi: np.ndarray, faces: int) -> np.ndarray:
        return np.bincount(self.dst, weights=pi[self.src] / faces, minlength=len(self.states))


def sum_chain(worths, budget: int) -> SumChain:
    worths = np.asarray(sorted(worths), dtype=np.float64)

    def within_budget(grown: tuple[int, ...]) -> tuple[int, ...]:
        return grown[: int(np.searchsorted(np.cumsum(worths[list(grown)]), budget, side="right"))]

    # the ~3,200 prefixes worth <= 30 (set-up, once)
    states, src, dst, cost = _prefix_graph(worths, within_budget)
    length = np.array([len(s) for s in states])
    return SumChain(tuple(states), np.array(src), np.array(dst), cost, length)


@njit(cache=True)
def _keep_values(W, cost, prefixes, m, s, J):  # pragma: no cover - compiled
    """max over j = s..J of W(m - j, t - cost[p, j]) (0 where that overshoots t), for each prefix
    p in ``prefixes`` and every target t; -inf when s > J.  Compiled because numpy's version
    built a (prefixes, J + 1, targets) array per call: 4x slower.  One thread: with two, the
    whole many-dice step was no faster (benchmarks/build.py)."""
    targets = W.shape[1]
    out = np.empty((prefixes.size, targets))
    for q in range(prefixes.size):
        p = prefixes[q]
        for t in range(targets):
            best = -np.inf
            for j in range(s, J + 1):
                left = t - cost[p, j]  # points left after keeping the j lowest others
                value = W[m - j, np.int64(left)] if left >= 0 else 0.0
                if value > best:
                    best = value
            out[q, t] = best
    return out


@dataclass
class ManyChances:
    """The last player's chance to finish at or below a target, for 1..max_dice dice."""

    rules: Rules
    max_dice: int
    max_target: int
    p_win: np.ndarray  # (max_dice + 1, max_target + 1): nothing pending
    after_reroll: np.ndarray | None  # the same when this roll must keep two (NaN below 2 dice)
    chain_states: int = 0


def solve_many_chances(rules: Rules, max_dice: int = DEFAULT_CHANCE_DICE, max_target: int = MAX_TARGET) -> ManyChances:
    """W(n, t) = P(final score <= t) under the play that maximises it, n = 0..max_dice, t = 0..max_target.

    The same structure as the expected score: a keep is either some of the 3s only (worth
    max_a W(n - a, t), a constant per roll class: W is not monotone in n in the re-roll variant, so
    fewer 3s can be better), or all 3s and the j lowest others; of the others only the lowest ones
    worth at most t in total can be kept (a SumChain); the number of 3s is binomial.  W(0, t) = 1; a
    keep that overshoots t is worth 0.  Nothing is truncated: exact up to rounding.
    """
    worth = np.asarray(rules.worth, dtype=np.float64)
    p3 = float(np.mean(worth == 0))
    others = worth[worth > 0]
    chain = sum_chain(others, max_target)
    G = max_target
    N = max_dice
    t = np.arange(G + 1)
    W = np.zeros((N + 1, G + 1))
    W[0] = 1.0
    WT = np.full((N + 1, G + 1), np.nan)
    forced_max = max(rules.keep_after_reroll if rules.allow_reroll else 0, rules.min_keep, 1)
    V: dict[tuple[int, int], np.ndarray] = {}  # (m, s) -> (P_m, G + 1) best keep of the others, per prefix
    support: list[np.ndarray] = []
    pis: list[np.ndarray] = []

    def keep_values(m: int, s: int) -> np.ndarray:
        """max_{j >= s} W(m - j, t - c_j(p)) for every prefix p of m others and every target t."""
        return _keep_values(W, chain.cost, support[m], m, s, min(m, chain.cost.shape[1] - 1))

    pi = np.zeros(len(chain.states))
    pi[0] = 1.0
    b = np.ones(1)
    for n in range(N + 1):
        if n:
            pi = chain.step(pi, len(others))
            pi /= pi.sum()
            nb = np.zeros(n + 1)
            nb[:n] += (1 - p3) * b
            nb[1:] += p3 * b
            b = nb / nb.sum()
        sel = np.flatnonzero(pi > 0)
        support.append(sel)
        pis.append(pi[sel])
        if n == 0:
            V[(0, 0)] = keep_values(0, 0)
            continue
        for s in range(1, min(forced_max, n) + 1):
            V[(n, s)] = keep_values(n, s)

        def state_value(r: int, reroll: np.ndarray | None) -> np.ndarray:
            """sum_k Binom(n, k) E_p max(re-roll, keeping only a < k of the 3s, keeping all k and j others)."""
            fewer = np.maximum.accumulate(W[n - r :: -1], axis=0)  # row i: max over a = r..r+i of W(n - a)
            total = np.zeros(G + 1)
            for k in range(n + 1):
                floor_k = fewer[k - 1 - r] if k - 1 >= r else np.zeros(G + 1)
                if reroll is not None:
                    floor_k = np.maximum(floor_k, reroll)
                total += b[k] * (pis[n - k] @ np.maximum(V[(n - k, max(r - k, 0))], floor_k[None, :]))
            return total

        if rules.allow_reroll and n >= 2:
            WT[n] = state_value(_keep_range(rules, n, True)[0], None)
        r, reroll_ok = _keep_range(rules, n, False)
        W[n] = state_value(r, WT[n] if reroll_ok else None)
        V[(n, 0)] = keep_values(n, 0)

    return ManyChances(rules, N, G, W, WT if rules.allow_reroll else None, len(chain.states))


def chance_settings(sol: ManyChances) -> dict:
    """What the build records about the last player's many-dice solve."""
    return {
        "method": "binomial law of the 3s times a Markov chain over the lowest other dice worth <= max_target "
        "(numpy), no roll enumeration, nothing truncated",
        "max_dice": sol.max_dice,
        "targets": [0, sol.max_target],
        "prefix_states": sol.chain_states,
    }


def write_chances(ctx, sol: ManyChances) -> None:
    """Rows of threes_many_dice_chances for one variant: every dice count, flag and target."""
    flags = [(False, sol.p_win)] + ([(True, sol.after_reroll)] if sol.after_reroll is not None else [])
    for flag, values in flags:
        dice = np.arange(2 if flag else 1, sol.max_dice + 1)
        n, target = np.meshgrid(dice, np.arange(sol.max_target + 1), indexing="ij")
        ctx.write(
            "threes_many_dice_chances",
            {
                "variant": sol.rules.variant,
                "dice": n.ravel(),
                "must_keep_two": flag,
                "target": target.ravel(),
                "p_win": values[n.ravel(), target.ravel()],
            },
        )
