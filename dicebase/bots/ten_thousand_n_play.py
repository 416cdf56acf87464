"""The N-player 10,000 bots' decisions and games with dice (:class:`Play`, part of
:class:`dicebase.bots.ten_thousand_n.TenThousandN`).

Simulation plays the games with dice, one turn of many games at a time (the games waiting on the same
(scores, seat) turn are played together): an optimal seat by the lookups (every decision memoised per state for
the engine's life; plain Python per roll, a few hundred games a second at goal 250; a final turn needs the stored
final round, which a ``bank-T`` near the largest threshold can overshoot: one line then), a fixed bot vectorised
over the games waiting on its turn.
"""

from __future__ import annotations

import heapq

import numpy as np

from dicebase.rules.ten_thousand import legal_keeps

FACES = 6


class Play:
    """The decisions of an optimal seat (the lookups', memoised per state) and the games played with dice, for
    :class:`~dicebase.bots.ten_thousand_n.TenThousandN` (its ``db``, ``rules``, ``goal``, ``dice``, ``N``, ``u``,
    ``two`` and the memos ``_roll``, ``_keep``, ``_options``)."""

    # -- the decisions (the lookups', memoised per state) ---------------------------------------------
    def roll_probability(self, scores: tuple, m: int, k: int, dice: int, triple: int) -> float:
        key = (scores, m, k, dice, triple)
        q = self._roll.get(key)
        if q is None:
            q = self._roll[key] = float(self.db.ten_thousand.n.state(
                list(scores), m + 1, k, dice, triple, self.variant_name).roll_probability)
        return q

    def options(self, faces: tuple, triple: int) -> tuple:
        """A roll's keep options as (points, dice after, triple after), sorted: the rolls of one roll group
        (the same options) share the equilibrium's keep."""
        key = (faces, triple)
        got = self._options.get(key)
        if got is None:
            counts = tuple(faces.count(f) for f in range(1, FACES + 1))
            got = self._options[key] = tuple(sorted({(kp.points, kp.n_after, kp.t_after) for kp in
                                                     legal_keeps(self.rules, counts, len(faces), triple)}))
        return got

    def keeps(self, faces: tuple, scores: tuple, m: int, k: int, triple: int) -> tuple:
        """((probability, points, dice after, triple after), ...) of the equilibrium; () on a farkle."""
        key = (self.options(faces, triple), len(faces), scores, m, k, triple)
        got = self._keep.get(key)
        if got is None:
            b = self.db.ten_thousand.n.best(list(faces), list(scores), m + 1, k, triple, self.variant_name)
            got = self._keep[key] = () if b.farkle else tuple(
                (a.probability, a.points, a.dice_after, a.triple_after) for a in b.actions if a.probability > 0)
        return got

    def play_turn(self, scores: tuple, m: int, rng: np.random.Generator) -> int:
        """Seat m's turn from its start; returns its score after it (unchanged on a farkle)."""
        k, dice, triple = 0, self.dice, 0
        bar = max(scores[:m] + scores[m + 1:]) if max(scores) >= self.goal else None
        while True:
            if dice == 0:  # every die kept in a rule set without hot dice: the turn ends, banked if it may
                return scores[m] + k if bar is None or scores[m] + k > bar else scores[m]
            q = self.roll_probability(scores, m, k, dice, triple)
            if q < 1.0 and (q <= 0.0 or rng.random() >= q):
                return scores[m] + k
            faces = tuple(sorted(int(f) for f in rng.integers(1, FACES + 1, size=dice)))
            pick = self.draw_keep(faces, scores, m, k, triple, rng)
            if pick is None:
                return scores[m]
            k, dice, triple = k + pick[1], pick[2], pick[3]

    def draw_keep(self, faces: tuple, scores: tuple, m: int, k: int, triple: int, rng: np.random.Generator):
        """The optimal seat's keep of a roll, as :meth:`keeps` ranks them: the first, or, where the equilibrium
        randomises between keeps, one drawn with the stored probabilities; None for a farkle."""
        options = self.keeps(faces, scores, m, k, triple)
        if not options:
            return None
        if options[0][0] < 1.0:
            u, acc = rng.random(), 0.0
            for opt in options:
                acc += opt[0]
                if u < acc:
                    return opt
        return options[0]

    # -- simulation --------------------------------------------------------------------------------------
    def fixed_turns(self, bot: str, scores: tuple, m: int, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` turns of the fixed bot ``bot`` in seat m from ``scores`` (points) played with dice, all at once:
        its score after each (unchanged on a farkle).  The two-player bot's play (:mod:`dicebase.bots.ten_thousand`):
        the max-dice keep of each roll, bank from its threshold; on a final turn roll until above the bar."""
        two, u = self.two, self.u
        rs = two.rolls
        C = len(two.classes)
        banks = self.__dict__.setdefault("_bank_from", {})
        bank = banks[bot] if bot in banks else banks.setdefault(bot, two.bank_from(bot))
        me = scores[m] // u
        bar = max(scores[:m] + scores[m + 1:]) // u if max(scores) >= self.goal else None
        k = np.zeros(count, dtype=np.int64)
        c = np.zeros(count, dtype=np.int64)
        out = np.full(count, me, dtype=np.int64)
        live = np.arange(count)
        while live.size:
            kk, cc = k[live], c[live]
            roll = (kk < bank[cc]) if bar is None else (me + kk <= bar)
            roll = (roll & (cc < C - 1)) | (kk == 0)
            end = ~roll
            if end.any():
                tot = me + kk[end]
                out[live[end]] = tot if bar is None else np.where(tot > bar, tot, me)
            live, cc = live[roll], cc[roll]
            g = np.searchsorted(rs["cdf"], rng.random(live.size) + cc, side="right")
            g = np.minimum(g, rs["offset"][cc + 1] - 1)
            ok = ~rs["farkle"][g]
            live, g = live[ok], g[ok]
            k[live] += rs["pts"][g]
            c[live] = rs["after"][g]
        return out * u

    def simulate(self, bots: list[str], games: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Play ``games`` games; the wins per seat.  Games waiting on the same turn are played together."""
        self.check(bots)
        N, G = self.N, self.goal
        # the games waiting: (scores, seat to move, seat that reached the goal or -1) -> how many
        waiting: dict[tuple, int] = {(tuple([0] * N), 0, -1): games}
        order = [(0, 0, -1, tuple([0] * N))]  # the turns to play, the lowest score sum first
        wins = np.zeros(N)
        while order:
            _, m, ender0, scores = heapq.heappop(order)
            count = waiting.pop((scores, m, ender0))
            if bots[m] == "optimal":
                news = [self.play_turn(scores, m, rng) for _ in range(count)]
            else:
                news = self.fixed_turns(bots[m], scores, m, count, rng).tolist()
            for new in news:
                after = scores[:m] + (int(new),) + scores[m + 1:]
                ender = m if ender0 < 0 and new >= G else ender0
                nxt = (m + 1) % N
                if ender >= 0 and nxt == ender:  # every other seat has taken its final turn
                    wins[int(np.argmax(after))] += 1
                    continue
                key = (after, nxt, ender)
                if key not in waiting:
                    waiting[key] = 0
                    heapq.heappush(order, (sum(after), nxt, ender, after))
                waiting[key] += 1
        return {"win": wins}
