"""10,000 bots for N players (3 or 4 seats; the N-player tables of docs/n_players.md).

Only ``optimal`` plays here: every seat plays the stored equilibrium (``ten_thousand_turn_starts``,
``ten_thousand_final_round``, ``ten_thousand_mixing``).  Its decisions are the lookups' own
(``db.ten_thousand.state_n`` / ``best_n``): roll or bank as ``state_n`` says (a randomising seat of a
cycle tuple rolls with the stored probability, drawn), after a roll the keep ``best_n`` ranks first (a
mixed keep drawn with its stored probabilities); a final turn (a seat has banked at or above the goal,
every other seat takes one) as the lookups play it, above the bar.

Exact: with every seat optimal the game's value is the stored equilibrium's turn start of seat 1 at
scores (0, .., 0) (``ten_thousand_turn_starts``), read as it is stored.  Lineups mixing ``optimal`` with
``seed004`` or ``bank-T`` bots are refused for more than two players: their exact recursion (each fixed
bot's turn outcome distribution per tuple, the optimal seats' decisions, the final round for the
seating) is not written.

Simulation plays the games with dice, one turn of many games at a time (the games waiting on the same
(scores, seat) turn are played together, so the lookups' remembered turn serves them); every decision
is memoised per state for the engine's life.  It is plain Python per roll (a lookup-driven check, not a
fast simulator: a few thousand games a second at goal 250, fewer at larger goals).
"""

from __future__ import annotations

import heapq

import numpy as np

from dicebase.errors import BadInput, NotInDatabase
from dicebase.rules.ten_thousand import RuleSet, legal_keeps

FACES = 6


class TenThousandN:
    """The 10,000 bots of one (rule set, players) N-player block of an open database."""

    def __init__(self, db, rules: str | None, players: int):
        self.db = db
        sets = db.ten_thousand.rule_sets()
        name = rules if rules is not None else ("ten-thousand" if "ten-thousand" in sets else next(iter(sets)))
        if name not in sets:
            raise BadInput(f"unknown rule set {name!r}; this database has: {', '.join(sets)}")
        self.variant_name = name
        self.unit = "game"
        self.N = int(players)
        self.block = db.ten_thousand.n.block(self.N, name)  # NotInDatabase (with the rebuild command) if not built
        self.goal = int(self.block.goal)
        self.dice = int(sets[name]["dice"])
        self._roll: dict = {}
        self._keep: dict = {}
        self._options: dict = {}
        stored = sets[name]
        self.rules = RuleSet(**{k: tuple(v) if isinstance(v, list) else v for k, v in stored.items()})

    @staticmethod
    def check(bots: list[str]) -> None:
        if any(b != "optimal" for b in bots):
            raise BadInput(f"a ten-thousand tournament with a bot other than optimal takes two players in this "
                           f"version (mixed lineups of more players are not done; 3 or 4 optimal bots play the "
                           f"N-player tables), got {', '.join(bots)}")

    # -- exact ------------------------------------------------------------------------------------
    def start_vector(self) -> np.ndarray:
        """The stored win vector at seat 1's turn start, every score 0."""
        N = self.N
        cols = ", ".join(f"p_win{n}" for n in range(1, N + 1))
        zeros = " AND ".join(f"score{n} = 0" for n in range(1, N + 1))
        row = self.db.fetchall(f"SELECT {cols} FROM ten_thousand_turn_starts WHERE rules = ? AND goal = ? AND "
                               f"players = ? AND seat = 1 AND {zeros}", (self.variant_name, self.goal, N))
        if not row:
            raise NotInDatabase(f"ten_thousand_turn_starts lacks the start of {N} players to {self.goal}")
        return np.array([float(x) for x in row[0]])

    def exact(self, bots: list[str]) -> dict[str, np.ndarray]:
        self.check(bots)
        return {"win": self.start_vector()}

    # -- the decisions (the lookups', memoised per state) ---------------------------------------------
    def roll_probability(self, scores: tuple, m: int, k: int, dice: int, triple: int) -> float:
        key = (scores, m, k, dice, triple)
        q = self._roll.get(key)
        if q is None:
            q = self._roll[key] = float(self.db.ten_thousand.state_n(
                list(scores), m + 1, k, dice, triple, rules=self.variant_name).roll_probability)
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
            b = self.db.ten_thousand.best_n(list(faces), list(scores), m + 1, k, triple, rules=self.variant_name)
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
            options = self.keeps(faces, scores, m, k, triple)
            if not options:
                return scores[m]
            pick = options[0]
            if pick[0] < 1.0:
                u, acc = rng.random(), 0.0
                for opt in options:
                    acc += opt[0]
                    if u < acc:
                        pick = opt
                        break
            k, dice, triple = k + pick[1], pick[2], pick[3]

    # -- simulation --------------------------------------------------------------------------------------
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
            for _ in range(waiting.pop((scores, m, ender0))):
                new = self.play_turn(scores, m, rng)
                after = scores[:m] + (new,) + scores[m + 1:]
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
