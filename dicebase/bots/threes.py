"""Threes bots: every stored policy as a player, exact rounds and simulated rounds.

A bot's decision after a roll is how many of the lowest-worth dice to keep.  Each bot
is a *keep table* read from the database (no re-solving):

- ``random``: seed 003's RandomBot, a uniformly random legal keep (classic: 1..dice left);
- ``only-3s``: seed 003's Only3sBot, keep every 3 (at least the legal minimum; never re-roll);
- ``expected``: the keep of ``threes_expected_policy`` (lowest expected score, seeds 000/003);
- ``win`` / ``win-strict``: the keep of ``threes_win_policy`` (win probability, subgame perfect,
  seeds 001/003) for the seat's players after and the best score so far, under shared / strict ties.

Exact: a bot's final-score distribution given (players after ``m``, best so far ``B``) is pushed
forward through its keep table over (dice left, flag, score) with numpy, for every ``B`` at once;
the round is then one pass over the seats carrying the joint distribution of (best score, number
of players on it, whether the seat of interest is one of them).  Simulated: every round rolls its
dice (a roll of ``d`` dice drawn with its exact multiset probability, which is what rolling ``d``
dice gives), vectorised over rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dicebase.bots.base import arrays
from dicebase.errors import NotInDatabase
from dicebase.rules.threes import Rules

GAME = "threes"
BOTS = {
    "random": "seed 003's RandomBot: a uniformly random legal keep (classic: keep 1..dice left)",
    "only-3s": "seed 003's Only3sBot: keep every 3, at least the fewest allowed; never re-roll",
    "expected": "lowest expected final score (threes_expected_policy; seeds 000, 003)",
    "win": "highest win probability, ties shared (threes_win_policy; seeds 001, 003)",
    "win-strict": "highest win probability, ties strict: a tie for the lowest wins nothing (threes_win_policy)",
}
#: Its turn engine for the game loop (:func:`dicebase.bots.play.play`): a module with ``turns(...)``.
PLAY = "dicebase.bots.play_threes"


def is_bot(name: str) -> bool:
    """Whether ``name`` is one of :data:`BOTS`."""
    return name in BOTS


#: Ways to count a tie for the lowest score (``simulate``'s ``count``).
COUNTS = ("win", "split", "sole")
#: The most seats a tournament takes (None: as many as the built rounds, the engine checks).
MAX_SEATS = None
COUNT_HELP = {
    "win": "every player tied for the lowest score wins (seed 003's count; the 'shared' tie rule)",
    "split": "a tie for the lowest score splits one win between the tied players (the seats sum to 1)",
    "sole": "only a unique lowest score wins (the 'strict' tie rule)",
}


def engine(db, variant: str | None, players: int) -> "Threes":
    """The bots of ``variant`` (default classic) for a round of any number of ``players``."""
    return Threes(db, "classic" if variant is None else variant)


@dataclass(frozen=True)
class Rolls:
    """Every roll of 1..dice dice, concatenated: global index g, its dice count and costs."""

    dice: np.ndarray  # (G,) dice rolled
    roll_id: np.ndarray  # (G,) roll_id within threes_rolls (variant, dice)
    prob: np.ndarray  # (G,) probability of the multiset
    cost: np.ndarray  # (G, D + 1) worth of the a lowest dice (a > dice: unused, a large value)
    threes: np.ndarray  # (G,) dice worth 0 in the roll
    text: tuple[str, ...]  # (G,) faces in keep order
    offset: np.ndarray  # (D + 2,) first g of each dice count (offset[d] .. offset[d + 1] - 1)
    cdf: np.ndarray  # (G,) (d - 1) + cumulative probability within d: one searchsorted for every d


class Threes:
    """The Threes bots of one variant of an open database."""

    def __init__(self, db, variant: str = "classic"):
        self.db = db
        self.v = db.threes.variant(variant)
        self.rules: Rules = self.v.rules
        self.max_players = db.threes.built(self.v.name).max_players_after + 1
        self.variant_name = self.v.name
        self.unit = "round"

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        return self.round_exact(bots)

    def simulate(self, bots: list[str], rounds: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return self.simulate_rounds(bots, rounds, rng)

    # -- what is stored -------------------------------------------------------------------
    @cached_property
    def rolls(self) -> Rolls:
        r = self.rules
        got = arrays(self.db, "SELECT dice, roll_id, roll, probability FROM threes_rolls WHERE variant = ? "
                     "ORDER BY dice, roll_id", (self.v.name,))
        dice = got["dice"].astype(np.int64)
        text = tuple(str(t) for t in got["roll"])
        faces = [list(map(int, t.split())) for t in text]
        D = r.dice
        cost = np.full((len(text), D + 1), 10_000, dtype=np.int64)
        for g, f in enumerate(faces):
            w = np.cumsum([0] + [r.worth[x - 1] for x in f])
            cost[g, : len(w)] = w
        threes = np.array([sum(1 for x in f if r.worth[x - 1] == 0) for f in faces], dtype=np.int64)
        offset = np.searchsorted(dice, np.arange(D + 2))
        prob = got["probability"].astype(np.float64)
        cdf = np.empty_like(prob)
        for d in range(1, D + 1):
            a, b = offset[d], offset[d + 1]
            c = np.cumsum(prob[a:b])
            c[-1] = 1.0
            cdf[a:b] = (d - 1) + c
        return Rolls(dice, got["roll_id"].astype(np.int64), prob, cost, threes, text, offset, cdf)

    def legal(self) -> np.ndarray:
        """legal[flag, g, a]: keep ``a`` is legal after roll g (flag = must keep two)."""
        rs, D = self.rolls, self.rules.dice
        out = np.zeros((2, len(rs.dice), D + 1), dtype=bool)
        for f in (False, True):
            for d in range(1, D + 1):
                if f and f not in self.rules.flags(d):
                    continue
                a, b = rs.offset[d], rs.offset[d + 1]
                out[int(f), a:b, list(self.rules.legal_keeps(d, f))] = True
        return out

    @cached_property
    def _expected_keep(self) -> np.ndarray:
        """keep[flag, g] of threes_expected_policy."""
        rs = self.rolls
        got = arrays(self.db, "SELECT dice_left, must_keep_two, roll_id, keep FROM threes_expected_policy "
                     "WHERE variant = ?", (self.v.name,))
        keep = np.zeros((2, len(rs.dice)), dtype=np.int64)
        g = rs.offset[got["dice_left"].astype(np.int64)] + got["roll_id"].astype(np.int64)
        keep[got["must_keep_two"].astype(np.int64), g] = got["keep"].astype(np.int64)
        return keep

    def _win_keep(self, ties: str, m: int) -> np.ndarray:
        """keep[B, flag, score, g] of threes_win_policy for ``m`` players after (B = 0..no_target)."""
        cache = self.__dict__.setdefault("_win_cache", {})
        if (ties, m) in cache:
            return cache[(ties, m)]
        rs, r = self.rolls, self.rules
        rows = self.db.fetchall(
            "SELECT to_beat, dice_left, must_keep_two, score, keeps FROM threes_win_policy "
            "WHERE variant = ? AND ties = ? AND players_after = ?", (self.v.name, ties, m))
        if not rows:
            raise NotInDatabase(f"threes_win_policy has no rows for {self.v.name}/{ties} with {m} players after; "
                           f"rebuild with: {self.db.threes.rebuild_command()}")
        keep = np.zeros((r.no_target + 1, 2, r.max_score + 1, len(rs.dice)), dtype=np.int64)
        for b, d, f, s, keeps in rows:
            a = rs.offset[d]
            keep[b, int(bool(f)), s, a:a + len(keeps)] = np.frombuffer(keeps.encode(), dtype=np.uint8) - 48
        cache[(ties, m)] = keep
        return keep

    def keep_probabilities(self, bot: str, m: int) -> np.ndarray:
        """Q[B, flag, score, g, a]: probability that ``bot`` keeps ``a`` dice (B axis of length 1
        when the bot ignores the best score so far)."""
        rs, r = self.rolls, self.rules
        G, D, S = len(rs.dice), r.dice, r.max_score + 1
        legal = self.legal()
        if bot == "random":
            q = legal / np.maximum(legal.sum(axis=2, keepdims=True), 1)
            return np.broadcast_to(q[None, :, None, :, :], (1, 2, S, G, D + 1))
        keep = self.keep_table(bot, m)
        return (keep[..., None] == np.arange(D + 1)).astype(np.float64)

    def keep_table(self, bot: str, m: int) -> np.ndarray:
        """keep[B, flag, score, g] of a deterministic bot (B axis of length 1 when it ignores B)."""
        rs, r = self.rolls, self.rules
        S = r.max_score + 1
        if bot == "only-3s":
            low = np.stack([np.minimum(max(r.min_keep, 1), rs.dice),  # never re-roll: at least one die
                            np.minimum(r.keep_after_reroll, rs.dice)])
            keep = np.maximum(rs.threes[None, :], low)
            return np.broadcast_to(keep[None, :, None, :], (1, 2, S, len(rs.dice)))
        if bot == "expected":
            return np.broadcast_to(self._expected_keep[None, :, None, :], (1, 2, S, len(rs.dice)))
        if bot in ("win", "win-strict"):
            return self._win_keep("shared" if bot == "win" else "strict", m)
        raise ValueError(f"threes bot {bot!r} has no keep table")

    # -- exact ---------------------------------------------------------------------------
    def final_distribution(self, bot: str, m: int) -> np.ndarray:
        """dist[B, x]: probability that ``bot`` with ``m`` players after, facing best-so-far B, finishes
        on x (B = 0..no_target; rows identical for a bot that ignores B)."""
        rs, r = self.rolls, self.rules
        D, S, NB = r.dice, r.max_score + 1, r.no_target + 1
        q = self.keep_probabilities(bot, m)
        nb = q.shape[0]
        mass = np.zeros((D + 1, 2, nb, S))
        mass[D, 0, :, 0] = 1.0
        final = np.zeros((nb, S))
        scores = np.arange(S)
        for d in range(D, 0, -1):
            for f in (0, 1):
                here = mass[d, f]
                if not here.any():
                    continue
                a0, a1 = rs.offset[d], rs.offset[d + 1]
                # w[B, s, g, a] = mass * P(roll) * Q(keep)
                w = here[:, :, None, None] * rs.prob[None, None, a0:a1, None] * q[:, f, :, a0:a1, :]
                for a in range(0, d + 1):
                    wa = w[..., a]
                    if not wa.any():
                        continue
                    new_s = scores[:, None] + rs.cost[a0:a1, a][None, :]
                    ok = new_s < S
                    target = mass[d - a, int(a == 0)] if a < d else final
                    for bi in range(nb):
                        np.add.at(target[bi], new_s[ok], wa[bi][ok])
        out = final / final.sum(axis=1, keepdims=True)
        return np.broadcast_to(out, (NB, S)) if nb == 1 else out

    def round_exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        """Each seat's probability of winning one round with this seating, under every count."""
        n = len(bots)
        if n > self.max_players:
            raise NotInDatabase(f"this database holds Threes rounds of up to {self.max_players} players, got {n}; "
                           f"rebuild with: {self.db.threes.rebuild_command(max_players=n)}")
        # a bot's distribution depends on (bot, players after) only: kept for the engine's life, so a
        # rotated tournament computes each once, not once a seating (5,040 seatings of 8: ~21 min -> 12 s CPU)
        cache = self.__dict__.setdefault("_final_cache", {})
        dists = []
        for s, bot in enumerate(bots):
            m = n - 1 - s
            key = (bot, m if bot.startswith("win") else 0)
            if key not in cache:
                cache[key] = self.final_distribution(bot, key[1])
            dists.append(cache[key])
        return round_wins(dists, self.rules.no_target)

    # -- simulation -----------------------------------------------------------------------
    def max_rolls(self) -> int:
        """The most rolls a turn can take: one per die, and a re-roll before each but the last."""
        r = self.rules
        return r.dice + (r.dice - 1 if r.allow_reroll else 0)

    def play_turns(self, bot: str, m: int, best: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Final scores of ``len(best)`` turns of ``bot`` facing ``best`` (no_target = nobody yet)."""
        from dicebase.bots.kernels import threes_turns

        rs, r = self.rolls, self.rules
        n = len(best)
        S, G = r.max_score + 1, len(rs.dice)
        uniforms = rng.random((n, (2 if bot == "random" else 1) * self.max_rolls()))
        legal = self.legal()
        count = legal.sum(axis=2).astype(np.int64)
        first = legal.argmax(axis=2).astype(np.int64)
        if bot == "random":
            keep = np.zeros(2 * S * G, dtype=np.int64)
        else:
            keep = np.ascontiguousarray(self.keep_table(bot, m), dtype=np.int64).reshape(-1)
        return threes_turns(rs.cdf, rs.offset, np.ascontiguousarray(rs.cost), keep, S, G, r.dice,
                            best.astype(np.int64), uniforms, first, count, bot == "random")

    def simulate_rounds(self, bots: list[str], rounds: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Wins of each seat over ``rounds`` simulated rounds, under every count."""
        n, nt = len(bots), self.rules.no_target
        scores = np.empty((n, rounds), dtype=np.int64)
        best = np.full(rounds, nt, dtype=np.int64)
        for seat, bot in enumerate(bots):
            x = self.play_turns(bot, n - 1 - seat, best, rng)
            scores[seat] = x
            best = np.minimum(best, x)
        on_best = scores == best[None, :]
        k = on_best.sum(axis=0)
        return {"win": on_best.sum(axis=1).astype(np.float64),
                "split": (on_best / k[None, :]).sum(axis=1),
                "sole": (on_best & (k == 1)[None, :]).sum(axis=1).astype(np.float64)}


def round_wins(dists: list[np.ndarray], no_target: int) -> dict[str, np.ndarray]:
    """Each seat's probability of winning a round, seats playing in order with final-score
    distributions ``dists[s][B, x]`` given the best score so far B (no_target: nobody yet).

    For each seat t the pass carries P(best B, k players on B, whether t is one of them)."""
    n = len(dists)
    NB = no_target + 1
    out = {c: np.zeros(n) for c in COUNTS}
    for t in range(n):
        state = np.zeros((NB, n + 1, 2))
        state[no_target, 0, 0] = 1.0
        for s, dist in enumerate(dists):
            D = np.zeros((NB, NB))
            D[:, : dist.shape[1]] = dist
            mine = int(s == t)
            new = np.zeros_like(state)
            total = state.sum(axis=(1, 2))  # P(B)
            below = np.tril(D, -1)  # x < B
            new[:, 1, mine] += total @ below  # new best x, one player on it
            eq = np.diagonal(D)
            shifted = state * eq[:, None, None]
            if mine:
                new[:, 1:, 1] += shifted[:, :-1, 0] + shifted[:, :-1, 1]
            else:
                new[:, 1:, :] += shifted[:, :-1, :]
            above = np.triu(D, 1).sum(axis=1)  # x > B
            new += state * above[:, None, None]
            state = new
        k = np.arange(n + 1)
        mine = state[:, :, 1]
        out["win"][t] = mine.sum()
        out["split"][t] = (mine[:, 1:] / k[None, 1:]).sum()
        out["sole"][t] = mine[:, 1].sum()
    return out

