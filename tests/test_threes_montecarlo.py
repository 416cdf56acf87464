"""Monte-Carlo check: play with the STORED policies (read from the database) and compare to stored values.

Each check plays at least 100,000 turns or rounds (vectorised with numpy) and asserts the stored
value lies inside the simulation's 99.9 % confidence interval (z = 3.29).  Seeds are fixed, so a
pass or a failure is reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dicebase
from dicebase.builder.threes import unpack_keeps

Z999 = 3.2905  # two-sided 99.9 %
N = 100_000


@pytest.fixture(scope="module")
def db(built_db):
    with dicebase.open(f"duckdb:///{built_db()}") as database:
        yield database


class Table:
    """The stored rules, rolls and policies of one variant, as dense numpy arrays."""

    def __init__(self, db, variant: str):
        self.db = db
        self.variant = variant
        v = db.threes.variant(variant)
        self.v = v
        self.worth = np.array((0, *v.worths))  # worth[face]
        # roll -> roll_id, built from threes_rolls (faces are counted, so the order in the text is irrelevant)
        self.base = v.dice + 1
        self.lut = np.full((v.dice + 1, self.base ** v.faces), -1, dtype=np.int64)
        for d, roll_id, roll in db.fetchall("SELECT dice, roll_id, roll FROM threes_rolls WHERE variant = ?", (variant,)):
            counts = np.bincount([int(f) for f in roll.split()], minlength=v.faces + 1)[1:]
            self.lut[d, self._code(counts[None, :])[0]] = roll_id
        self.rmax = int(max(r for (r,) in db.fetchall("SELECT count(*) FROM threes_rolls WHERE variant = ? GROUP BY dice", (variant,))))

    def _code(self, counts: np.ndarray) -> np.ndarray:
        return counts @ (self.base ** np.arange(self.v.faces))

    def expected_policy(self) -> np.ndarray:
        """keep[d, f, roll_id]"""
        pol = np.full((self.v.dice + 1, 2, self.rmax), -1, dtype=np.int64)
        for d, f, r, k in self.db.fetchall(
            "SELECT dice_left, must_keep_two, roll_id, keep FROM threes_expected_policy WHERE variant = ?", (self.variant,)
        ):
            pol[d, int(f), r] = k
        return pol

    def win_policy(self, ties: str, players_after: int) -> np.ndarray:
        """keep[to_beat, d, f, score, roll_id] for one players_after."""
        v = self.v
        pol = np.full((v.no_target + 1, v.dice + 1, 2, v.max_score + 1, self.rmax), -1, dtype=np.int64)
        rows = self.db.fetchall(
            "SELECT to_beat, dice_left, must_keep_two, score, keeps FROM threes_win_policy "
            "WHERE variant = ? AND ties = ? AND players_after = ?",
            (self.variant, ties, players_after),
        )
        for d in range(1, v.dice + 1):
            sub = [r for r in rows if r[1] == d]
            keeps = unpack_keeps([r[4] for r in sub])
            b, f, s = (np.array([r[i] for r in sub], dtype=np.int64) for i in (0, 2, 3))
            pol[b, d, f, s, : keeps.shape[1]] = keeps
        return pol

    def play(self, rng, n: int, lookup) -> np.ndarray:
        """Play n fresh turns; lookup(idx, d, f, s, roll_id) -> keep.  Returns the final scores."""
        v = self.v
        d = np.full(n, v.dice)
        f = np.zeros(n, dtype=np.int64)
        s = np.zeros(n, dtype=np.int64)
        for _ in range(2 * v.dice + 1):
            live = np.nonzero(d > 0)[0]
            if live.size == 0:
                break
            dl = d[live]
            faces = rng.integers(1, v.faces + 1, size=(live.size, v.dice))
            rolled = np.arange(v.dice)[None, :] < dl[:, None]
            counts = np.stack([((faces == face) & rolled).sum(axis=1) for face in range(1, v.faces + 1)], axis=1)
            roll_id = self.lut[dl, self._code(counts)]
            assert (roll_id >= 0).all()
            keep = lookup(live, dl, f[live], s[live], roll_id)
            # legality of the stored keep
            low = np.where(f[live] == 1, np.minimum(v.keep_after_reroll, dl), np.where(v.allow_reroll & (dl > 1), 0, 1))
            assert ((keep >= low) & (keep <= dl)).all()
            worths = np.where(rolled, self.worth[faces], 10**6)
            worths.sort(axis=1)
            prefix = np.concatenate([np.zeros((live.size, 1), dtype=np.int64), np.cumsum(worths, axis=1)], axis=1)
            s[live] += prefix[np.arange(live.size), keep]
            d[live] -= keep
            f[live] = keep == 0
        assert (d == 0).all()
        return s


def within_ci(observed_mean: float, stored: float, sd: float, n: int) -> bool:
    return abs(observed_mean - stored) <= Z999 * sd / math.sqrt(n)


@pytest.mark.parametrize("variant", ["classic", "reroll"])
def test_expected_policy_simulation(db, variant):
    table = Table(db, variant)
    pol = table.expected_policy()
    rng = np.random.default_rng(20240601)
    finals = table.play(rng, 2 * N, lambda idx, d, f, s, r: pol[d, f, r])
    (stored,) = db.fetchone(
        "SELECT expected_score FROM threes_expected_scores WHERE variant = ? AND dice_left = 5 AND must_keep_two = ?",
        (variant, False),
    )
    dist = dict(db.fetchall("SELECT final_score, probability FROM threes_expected_dist WHERE variant = ?", (variant,)))
    mean = sum(x * p for x, p in dist.items())
    assert mean == pytest.approx(stored, abs=1e-12)
    sd = math.sqrt(sum((x - mean) ** 2 * p for x, p in dist.items()))
    assert within_ci(finals.mean(), stored, sd, finals.size), (finals.mean(), stored)
    # and P(final score 0) (all threes)
    p0 = dist[0]
    assert within_ci((finals == 0).mean(), p0, math.sqrt(p0 * (1 - p0)), finals.size)


@pytest.mark.parametrize("variant, ties, to_beat", [("classic", "strict", 7), ("reroll", "shared", 5)])
def test_last_player_simulation(db, variant, ties, to_beat):
    table = Table(db, variant)
    pol = table.win_policy(ties, 0)
    rng = np.random.default_rng(7 + to_beat)
    finals = table.play(rng, N, lambda idx, d, f, s, r: pol[to_beat, d, f, s, r])
    wins = (finals <= to_beat) if ties == "shared" else (finals < to_beat)
    p = db.threes.p_win(5, variant=variant, to_beat=to_beat, players_after=0, ties=ties)
    assert within_ci(wins.mean(), p, math.sqrt(p * (1 - p)), N), (wins.mean(), p)


@pytest.mark.parametrize("variant, ties, players", [("classic", "shared", 4), ("reroll", "strict", 5)])
def test_round_simulation(db, variant, ties, players):
    """Full rounds: every seat plays the stored policy for (players after, best so far)."""
    table = Table(db, variant)
    v = table.v
    rng = np.random.default_rng(1000 + players)
    best = np.full(N, v.no_target)
    scores = []
    for seat in range(1, players + 1):
        pol = table.win_policy(ties, players - seat)
        facing = best.copy()
        finals = table.play(rng, N, lambda idx, d, f, s, r: pol[facing[idx], d, f, s, r])
        scores.append(finals)
        best = np.minimum(best, finals)
    scores = np.stack(scores, axis=1)
    low = scores.min(axis=1, keepdims=True)
    at_low = scores == low
    wins = at_low if ties == "shared" else at_low & (at_low.sum(axis=1, keepdims=True) == 1)
    stored = [r.p_win for r in db.threes.seats(players, variant=variant, ties=ties)]
    for seat, p in enumerate(stored):
        assert within_ci(wins[:, seat].mean(), p, math.sqrt(p * (1 - p)), N), (seat + 1, wins[:, seat].mean(), p)
