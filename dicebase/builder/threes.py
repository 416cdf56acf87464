"""Threes, solved exactly by enumerating roll multisets.

The rules, their variants and the legal keeps are in :mod:`dicebase.rules.threes`
(shared with the lookups).  Since a kept die only adds its worth, a player always
keeps the *lowest-worth* dice, so an action is just ``a`` = how many of the sorted
dice to keep.

A pre-roll state is ``(d, s, f)``: ``d`` dice left to roll, ``s`` points
kept so far, ``f`` the must-keep-two flag.  A decision state adds the roll
``r``.  ``c_a(r)`` is the worth of the ``a`` lowest dice of ``r``.

Objectives, one solver each, written as the optimality equations:

(a) ``solve_expected``: minimise the expected final score::

        E(d, f) = sum_r P(r) min_{a legal} [ c_a(r) + E(d - a, a == 0) ],  E(0, .) = 0

(b)+(c) ``solve_win``: win probability in an N-player round with every
player playing its own best response (subgame perfect).  A player facing the
best score so far ``B`` with ``m`` players still to play after it, and ending
on ``x``, wins with probability::

        shared ties: W_m(x; B) = [x <= B] * prod_{k<m} (1 - L_k(x))
        strict ties: W_m(x; B) = [x <  B] * prod_{k<m} (1 - LE_k(x))

where ``L_k(x)`` (``LE_k(x)``) is the probability that a player facing best
``x`` with ``k`` players after it finishes strictly below (at or below) ``x``
under its own optimal policy.  Proof: once our player finishes on ``x`` (and
survives ``B``), every later player faces exactly ``x`` for as long as nobody
has gone below it, so the later players' chances multiply.  The pre-roll
values follow by backward induction::

        V_m(0, f; B, s) = W_m(s; B)
        V_m(d, f; B, s) = sum_r P(r) max_{a legal} V_m(d - a, a == 0; B, s + c_a(r))

``B = NO_TARGET = max_score + 1`` means nobody has finished yet (every score
beats it).  ``m = 0`` is objective (b), the last player facing a target.

Tie-break (one rule everywhere): among actions whose values are within
a relative ``TOL`` (1e-12) of the best, keep the FEWEST dice (a re-roll keeps 0).  It
matches seed 003's ``choose_n`` (which replaces its choice only on a strictly
better value, trying 1, 2, ... dice).  The stored policy, the final-score
distributions (hence L_k/LE_k and every earlier player's values) and the
Monte-Carlo tests all use it.

Everything is vectorised over (B, s, rolls, actions); the only Python loops
run over dice counts, flags, actions and player counts.  The solver never
touches the database: ``build(ctx, options)`` writes its arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dicebase.numeric.dice import rolls
from dicebase.layout import threes as layout
from dicebase.rules.threes import (  # noqa: F401  (MAX_PLAYERS, VARIANTS, sort_roll: part of this module's surface)
    DEFAULT_OPTIONS, GAME, MAX_PLAYERS, TEST_OPTIONS, TIE_RULES, TOL, VARIANTS, Rules, check_options,
    decision_states, sort_roll, validate_options,
)


# --------------------------------------------------------------------------- rolls
@dataclass(frozen=True)
class RollSet:
    """All rolls of ``d`` dice, each with its dice in keep order (lowest worth first)."""

    keep_order: np.ndarray  # (R, d) faces, lowest worth first (ties: lower face first)
    cost: np.ndarray  # (R, d + 1) c_a: worth of the a first dice, a = 0..d
    prob: np.ndarray  # (R,) exact probability of the multiset
    ways: np.ndarray  # (R,) ordered rolls giving it
    total: int  # faces ** d ordered rolls

    def average(self, per_roll: np.ndarray) -> np.ndarray:
        """sum_r P(r) per_roll[..., r], as (sum_r ways_r per_roll) / faces**d (exact for integer values)."""
        return (per_roll @ self.ways.astype(np.float64)) / self.total


def roll_set(rules: Rules, d: int) -> RollSet:
    table = rolls(d, rules.faces)
    faces = table.faces_sorted.astype(np.int64)
    worth = np.asarray(rules.worth, dtype=np.int64)
    key = worth[faces - 1] * (rules.faces + 1) + faces
    order = np.argsort(key, axis=1, kind="stable")
    keep_order = np.take_along_axis(faces, order, axis=1)
    cost = np.zeros((len(table), d + 1), dtype=np.int64)
    cost[:, 1:] = np.cumsum(worth[keep_order - 1], axis=1)
    return RollSet(keep_order, cost, table.probability, table.ways.astype(np.int64), table.total)


def _roll_sets(rules: Rules) -> dict[int, RollSet]:
    return {d: roll_set(rules, d) for d in range(1, rules.dice + 1)}


def choose(values: np.ndarray, maximize: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Best value along the last axis and the tie-broken action index.

    ``values[..., a]`` is the value of keeping ``a`` dice (illegal actions hold
    -inf when maximising, +inf when minimising).  Among actions within a
    relative TOL of the best (|best - v| <= TOL * |best|: rounding noise, not
    a real difference, even for win chances far below 1e-12), the smallest
    ``a`` (fewest dice kept) wins.
    """
    best = values.max(axis=-1) if maximize else values.min(axis=-1)
    margin = TOL * np.abs(best)[..., None]
    near = values >= best[..., None] - margin if maximize else values <= best[..., None] + margin
    return best, near.argmax(axis=-1)


# --------------------------------------------------------------------------- (a)
@dataclass
class ExpectedSolution:
    rules: Rules
    expected: dict[tuple[int, bool], float]  # (d, f) -> expected points still to come
    keep: dict[tuple[int, bool], np.ndarray]  # (d, f) -> (R,) optimal keep per roll
    value: dict[tuple[int, bool], np.ndarray]  # (d, f) -> (R,) expected points to come incl. kept dice
    final_dist: np.ndarray  # (max_score + 1,) final-score distribution of a fresh turn


def solve_expected(rules: Rules) -> ExpectedSolution:
    """E(d, f) = sum_r P(r) min_a [c_a(r) + E(d - a, a == 0)], E(0, .) = 0."""
    rs = _roll_sets(rules)
    E: dict[tuple[int, bool], float] = {(0, False): 0.0}
    keep, value = {}, {}
    for d in range(1, rules.dice + 1):
        for f in sorted(rules.flags(d), reverse=True):  # flagged first: (d, False) may re-roll into it
            r = rs[d]
            vals = np.full((len(r.prob), d + 1), np.inf)
            for a in rules.legal_keeps(d, f):
                vals[:, a] = r.cost[:, a] + E[(d - a, a == 0)]
            best, act = choose(vals, maximize=False)
            E[(d, f)] = float(r.average(best))
            keep[(d, f)] = act.astype(np.int8)
            value[(d, f)] = best
    dist = _forward_expected(rules, rs, keep)
    return ExpectedSolution(rules, E, keep, value, dist)


def _forward_expected(rules: Rules, rs: dict[int, RollSet], keep) -> np.ndarray:
    policy = {  # the same keep for every score: a win policy with one target
        (d, f): np.broadcast_to(v, (1, rules.score_range(d), len(v))) for (d, f), v in keep.items()
    }
    return _forward(rules, rs, policy, nb=1)[0]


# --------------------------------------------------------------------------- (b), (c)
@dataclass
class WinLevel:
    """Everything about the player with ``m`` players after it, for every B."""

    m: int
    terminal: np.ndarray  # (NB, S) W_m(x; B)
    value: dict[tuple[int, bool], np.ndarray]  # (d, f) -> (NB, S_d) pre-roll p_win, d = 0..dice
    keep: dict[tuple[int, bool], np.ndarray]  # (d, f) -> (NB, S_d, R_d) optimal keep
    live: dict[tuple[int, bool], np.ndarray]  # (d, f) -> (NB, S_d, R_d) some keep has p_win > 0
    final_dist: np.ndarray  # (NB, S) final-score distribution of a fresh turn facing B


@dataclass
class WinSolution:
    rules: Rules
    ties: str
    levels: list[WinLevel]  # levels[m]
    seats: dict[int, np.ndarray] = field(default_factory=dict)  # N -> (N,) p_win per seat

    @property
    def max_players(self) -> int:
        return len(self.levels)


def terminal_reward(rules: Rules, ties: str, cover: np.ndarray) -> np.ndarray:
    """W(x; B) = [x <= B] (shared) or [x < B] (strict), times prod_k (1 - L_k(x))."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {TIE_RULES}, got {ties!r}")
    x = np.arange(rules.max_score + 1)
    b = np.arange(rules.no_target + 1)[:, None]
    survives = (x <= b) if ties == "shared" else (x < b)
    return survives * cover[None, :]


def backward(rules: Rules, rs: dict[int, RollSet], terminal: np.ndarray):
    """V(d, f; B, s) = sum_r P(r) max_a V(d - a, a == 0; B, s + c_a(r)), V(0) = terminal."""
    nb = terminal.shape[0]
    V = {(0, False): terminal}
    keep, live = {}, {}
    for d in range(1, rules.dice + 1):
        r = rs[d]
        s = np.arange(rules.score_range(d))
        for f in sorted(rules.flags(d), reverse=True):
            vals = np.full((nb, len(s), len(r.prob), d + 1), -np.inf)
            for a in rules.legal_keeps(d, f):
                nxt = V[(d - a, a == 0)]
                vals[..., a] = nxt[:, s[:, None] + r.cost[None, :, a]]
            best, act = choose(vals, maximize=True)
            V[(d, f)] = r.average(best)
            keep[(d, f)] = act.astype(np.int8)
            live[(d, f)] = best > 0.0
    return V, keep, live


def _forward(rules: Rules, rs: dict[int, RollSet], keep, nb: int) -> np.ndarray:
    """Final-score distribution of a fresh turn under ``keep``, for each of ``nb`` targets."""
    mass = {
        (d, f): np.zeros((nb, rules.score_range(d)))
        for d in range(rules.dice + 1)
        for f in rules.flags(d)
    }
    mass[(rules.dice, False)][:, 0] = 1.0
    b_idx = np.arange(nb)[:, None, None]
    for d in range(rules.dice, 0, -1):
        r = rs[d]
        s = np.arange(rules.score_range(d))[None, :, None]
        for f in rules.flags(d):  # False first: it feeds (d, True)
            act = keep[(d, f)]
            weight = mass[(d, f)][:, :, None] * r.prob[None, None, :]
            for a in rules.legal_keeps(d, f):
                chosen = act == a
                if not chosen.any():
                    continue
                target = mass[(d - a, a == 0)]
                width = target.shape[1]
                flat = (b_idx * width + s + r.cost[:, a][None, None, :])[chosen]
                target += np.bincount(flat, weights=weight[chosen], minlength=nb * width).reshape(nb, width)
    return mass[(0, False)]


def solve_win(rules: Rules, ties: str = "shared", max_players: int = 12) -> WinSolution:
    """Solve m = 0 .. max_players - 1 players after, then every seat for N = 2..max_players."""
    rs = _roll_sets(rules)
    x = np.arange(rules.max_score + 1)
    cover = np.ones(rules.max_score + 1)  # prod_{k<m} (1 - L_k(x))
    levels = []
    for m in range(max_players):
        R = terminal_reward(rules, ties, cover)
        V, keep, live = backward(rules, rs, R)
        dist = _forward(rules, rs, keep, nb=R.shape[0])
        levels.append(WinLevel(m, R, V, keep, live, dist))
        cdf = np.cumsum(dist, axis=1)  # cdf[B, y] = P(final <= y | facing B)
        at_or_below = cdf[x, x]  # LE_m(x): facing best x, finish <= x
        below = at_or_below - dist[x, x]  # L_m(x): finish < x
        cover = cover * (1.0 - (below if ties == "shared" else at_or_below))
        np.clip(cover, 0.0, 1.0, out=cover)
    sol = WinSolution(rules, ties, levels)
    sol.seats = {n: seat_win(sol, n) for n in range(2, max_players + 1)}
    return sol


def transition(dist: np.ndarray) -> np.ndarray:
    """T[B, B'] = P(best after this player is B' | best before is B) = sum_x dist[B, x] [min(B, x) = B']."""
    nb, ns = dist.shape
    x = np.arange(ns)[None, :]
    b = np.arange(nb)[:, None]
    T = np.zeros((nb, nb))
    T[:, :ns] = dist * (x < b)
    T[np.arange(nb), np.arange(nb)] += (dist * (x >= b)).sum(axis=1)
    return T


def seat_win(sol: WinSolution, players: int) -> np.ndarray:
    """p_win of seats 1..N: sum_B P(seat faces B) V_{N-seat}(fresh turn; B)."""
    rules = sol.rules
    pb = np.zeros(rules.no_target + 1)
    pb[rules.no_target] = 1.0
    out = np.zeros(players)
    for seat in range(1, players + 1):
        level = sol.levels[players - seat]
        out[seat - 1] = pb @ level.value[(rules.dice, False)][:, 0]
        pb = pb @ transition(level.final_dist)
    return out


# --------------------------------------------------------------------------- lookups used by tests
def action_values_expected(sol: ExpectedSolution, keep_order: list[int], score: int, must_keep_two: bool):
    """[(a, expected final score)] for every legal keep of a roll given in keep order."""
    rules = sol.rules
    d = len(keep_order)
    worth = [rules.worth[f - 1] for f in keep_order]
    return [
        (a, score + sum(worth[:a]) + sol.expected[(d - a, a == 0)]) for a in rules.legal_keeps(d, must_keep_two)
    ]


def action_values_win(sol: WinSolution, keep_order, score, to_beat, players_after, must_keep_two):
    rules = sol.rules
    d = len(keep_order)
    worth = [rules.worth[f - 1] for f in keep_order]
    V = sol.levels[players_after].value
    return [
        (a, float(V[(d - a, a == 0)][to_beat, score + sum(worth[:a])]))
        for a in rules.legal_keeps(d, must_keep_two)
    ]


# --------------------------------------------------------------------------- build
def _const(value, n: int) -> np.ndarray:
    return np.full(n, value, dtype=object if isinstance(value, str) else None)


def solver_settings(max_players: int, ties: list[str]) -> dict:
    return {
        "method": "exact backward induction over roll multisets (numpy), forward final-score distributions",
        "tie_tolerance": TOL,
        "tie_break": "among keeps within a relative tie_tolerance of the best value (|best - v| <= tol * |best|), keep the fewest dice",
        "ties": ties,
        "players_after": [0, max_players - 1],
        "seat_players": [2, max_players],
        "win_policy_rows": "packed: one row per pre-roll state, one decimal digit (the keep) per roll_id",
    }


def build(ctx, options: dict) -> None:
    """Solve every variant and tie rule and write the threes_* tables."""
    from dicebase.builder import threes_many

    max_players, variants, ties_rules = check_options(options, check_size=False)  # checked: validate_options
    many, chances = {}, {}
    for name, rules in variants.items():
        ctx.variant(name, rules.record(), solver_settings(max_players, ties_rules))
        with ctx.step(f"{name}: rules and rolls"):
            write_variant(ctx, rules)
        with ctx.step(f"{name}: expected score"):
            write_expected(ctx, solve_expected(rules))
        has_zero = 0 in rules.worth  # the many-dice solvers need a face worth 0 (house rules may have none)
        if options["many_dice"] and has_zero:
            with ctx.step(f"{name}: expected score with 1..{options['many_dice']} dice"):
                many[name] = threes_many.solve_many(rules, options["many_dice"])
                threes_many.write_many(ctx, many[name])
        if options["many_dice_chances"] and has_zero:
            with ctx.step(f"{name}: the last player's chances with 1..{options['many_dice_chances']} dice"):
                chances[name] = threes_many.solve_many_chances(rules, options["many_dice_chances"])
                threes_many.write_chances(ctx, chances[name])
        for ties in ties_rules:
            with ctx.step(f"{name} {ties}: win probabilities, {max_players} players"):
                sol = solve_win(rules, ties, max_players)
            with ctx.step(f"{name} {ties}: write"):
                write_win(ctx, sol)
    ctx.note("tie_break", "fewest dice kept among keeps within 1e-12 of the best")
    ctx.note("no_target", {n: r.no_target for n, r in variants.items()})
    if many:
        ctx.note("many_dice", {n: threes_many.settings(sol) for n, sol in many.items()})
    if chances:
        ctx.note("many_dice_chances", {n: threes_many.chance_settings(sol) for n, sol in chances.items()})


def write_variant(ctx, rules: Rules) -> None:
    ctx.write(
        "threes_variants",
        {
            "variant": _const(rules.variant, 1),
            "dice": np.array([rules.dice]),
            "faces": np.array([rules.faces]),
            "worths": _const(",".join(map(str, rules.worth)), 1),
            "min_keep": np.array([rules.min_keep]),
            "allow_reroll": np.array([rules.allow_reroll]),
            "keep_after_reroll": np.array([rules.keep_after_reroll]),
            "max_score": np.array([rules.max_score]),
            "no_target": np.array([rules.no_target]),
            "description": _const(rules.description, 1),
        },
    )
    for d in range(1, rules.dice + 1):
        r = roll_set(rules, d)
        n = len(r.prob)
        ctx.write(
            "threes_rolls",
            {
                "variant": rules.variant,
                "dice": d,
                "roll_id": np.arange(n),
                "roll": np.array([" ".join(map(str, row)) for row in r.keep_order.tolist()], dtype=object),
                "ways": r.ways,
                "probability": r.prob,
            },
        )


def write_expected(ctx, sol: ExpectedSolution) -> None:
    rules = sol.rules
    keys = sorted(sol.expected)
    ctx.write(
        "threes_expected_scores",
        {
            "variant": rules.variant,
            "dice_left": np.array([d for d, _ in keys]),
            "must_keep_two": np.array([f for _, f in keys], dtype=bool),
            "expected_score": np.array([sol.expected[k] for k in keys]),
        },
    )
    for (d, f), keep in sorted(sol.keep.items()):
        n = len(keep)
        ctx.write(
            "threes_expected_policy",
            {
                "variant": rules.variant,
                "dice_left": d,
                "must_keep_two": np.full(n, f, dtype=bool),
                "roll_id": np.arange(n),
                "keep": keep,
                "expected_score": sol.value[(d, f)],
            },
        )
    x = np.arange(rules.max_score + 1)
    ctx.write(
        "threes_expected_dist",
        {"variant": rules.variant, "final_score": x, "probability": sol.final_dist},
    )


def pack_keeps(keep: np.ndarray) -> np.ndarray:
    """(..., R) keep counts -> (...) strings of R decimal digits, digit i = keep for roll_id i."""
    if keep.size and keep.max() > 9:
        raise ValueError("packed keeps need at most 9 dice")
    codes = np.ascontiguousarray(keep.astype(np.uint8) + ord("0"))
    width = codes.shape[-1]
    return codes.view(f"S{width}")[..., 0].astype(f"U{width}").astype(object)


def unpack_keeps(packed) -> np.ndarray:
    """Inverse of pack_keeps for a sequence of equal-length strings: (n, R) int8."""
    packed = list(packed)
    if not packed:
        return np.zeros((0, 0), dtype=np.int8)
    raw = np.frombuffer("".join(packed).encode("ascii"), dtype=np.uint8)
    return (raw.reshape(len(packed), -1) - ord("0")).astype(np.int8)


def write_win(ctx, sol: WinSolution) -> None:
    rules = sol.rules
    nb = rules.no_target + 1
    base = {"variant": rules.variant, "ties": sol.ties}
    keys = layout.WIN.key  # the rows of threes_win in the layout's order (dicebase/layout/threes.py)
    cols: dict[str, list] = {k: [] for k in (*keys, "p_win")}
    pcols: dict[str, list] = {k: [] for k in (*keys, "keeps")}
    for level in sol.levels:
        for d, f, scores in layout.win_classes(rules):
            value = level.value[(d, f)]  # (NB, S_d)
            b, s = np.repeat(np.arange(nb), len(scores)), np.tile(np.asarray(scores, dtype=np.intp), nb)
            fixed = {"players_after": level.m, "dice_left": d, "must_keep_two": f}
            targets = [cols] if d == 0 else [cols, pcols]
            for out in targets:
                out["to_beat"].append(b)
                out["score"].append(s)
                for key, v in fixed.items():
                    out[key].append(np.full(len(b), v))
            cols["p_win"].append(value[b, s])
            if d:
                pcols["keeps"].append(pack_keeps(level.keep[(d, f)][b, s]))
    for table, data in ((layout.WIN.name, cols), ("threes_win_policy", pcols)):
        arrays = {k: np.concatenate(v) for k, v in data.items()}
        arrays["must_keep_two"] = arrays["must_keep_two"].astype(bool)
        n = len(arrays["to_beat"])
        if table == layout.WIN.name:  # every position of the block, once: what the lookups read by position
            assert n == len(sol.levels) * layout.win_grid(rules)[2], (rules.variant, sol.ties, n)
        arrays.update({k: v for k, v in base.items()})
        ctx.write(table, arrays)
    m_idx, b_idx, x_idx = np.meshgrid(
        np.arange(len(sol.levels)), np.arange(nb), np.arange(rules.max_score + 1), indexing="ij"
    )
    dist = np.stack([level.final_dist for level in sol.levels])
    n = dist.size
    ctx.write(
        "threes_win_dist",
        {
            **{k: v for k, v in base.items()},
            "players_after": m_idx.ravel(),
            "to_beat": b_idx.ravel(),
            "final_score": x_idx.ravel(),
            "probability": dist.ravel(),
        },
    )
    players = [np.full(n_, n_) for n_ in sol.seats]
    seats = [np.arange(1, n_ + 1) for n_ in sol.seats]
    p = [sol.seats[n_] for n_ in sol.seats]
    if players:
        n = sum(len(x) for x in p)
        ctx.write(
            "threes_seats",
            {
                **{k: v for k, v in base.items()},
                "players": np.concatenate(players),
                "seat": np.concatenate(seats),
                "p_win": np.concatenate(p),
            },
        )
