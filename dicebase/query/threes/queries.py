"""Threes lookups: ``db.threes.best(...)``, ``expected``, ``chances``, ``seats``.

Plain SQL over the threes_* tables (no sqlalchemy, no numpy: the CLI starts
fast).  ``best`` is a one-step lookahead: it reads the stored pre-roll values
of every state the legal keeps lead to in one query and ranks the keeps,
breaking ties exactly as the solver does (fewest dice kept among values
within 1e-12 of the best).
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Mapping, Set
from itertools import accumulate
from functools import cached_property, partial

from dicebase.layout import threes as layout
from dicebase.query.base import (
    BadInput, NotInDatabase, _is_boolean, first as _first, is_whole_number, named, rebuild_command,
)
from dicebase.query.blocks import Blocks, Found
from dicebase.query.threes.results import (
    EXPECTED, WIN, Action, Best, Built, ChanceRow, ExpectedRow, SeatRow, Variant, rank, rank_many,
)
from dicebase.rules.threes import DEFAULT_OPTIONS, MAX_PLAYERS, TIE_RULES, VARIANTS

KNOWN_VARIANTS = tuple(VARIANTS)  # the standard variants, buildable with -o threes.variants
LAST_PLAYER_NEEDS_TARGET = (
    "--players-after 0 needs --to-beat: the last player faces the best score so far "
    "(with nobody finished and nobody after, every score wins)"
)

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxtuple = 8


def _show(value) -> str:
    """A user's value for a one-line message: repr, shortened."""
    return _short.repr(value)


_is_int = is_whole_number
_is_bool = _is_boolean


def _win_values(rows) -> dict[tuple[int, bool, int], float]:
    """(dice_left, must_keep_two, score) -> p_win of threes_win rows."""
    return {(int(dl), bool(f), int(s)): float(p) for dl, f, s, p in rows}


class Queries:
    """Threes lookups on an open :class:`dicebase.query.Database`."""

    def __init__(self, db):
        self.db = db
        #: the block reader of this connection (its diagnostics: ``blocks.located()``, ``blocks.misplaced``)
        self.blocks = Blocks(db)
        self._scanned = False  # threes_win's blocks searched by one scan (after one was not where expected)

    @property
    def misplaced(self) -> list[str]:
        """(variant, ties) blocks whose rows were not where the build puts them (read by key filters)."""
        return self.blocks.misplaced

    # -- threes_win by position (DuckDB) ----------------------------------------
    # A state's rowid follows from the rules (dicebase/layout/threes.py).  A rowid range touches
    # one row group where a key filter scans one (issue 12).
    def _win_found(self, v: Variant, ties: str) -> Found | None:
        """Where the (variant, ties) block lies: where the build order puts it (checked by every
        read, which gets the variant and ties of its rows)."""
        return self.blocks.found(layout.WIN, (v.name, ties), partial(self._win_locate, v.name, ties))

    def _win_locate(self, name: str, ties: str) -> Found | None:
        where = layout.block_sizes([(n, t, self._variants[n].rules, built.max_players_after + 1)
                                    for n, built in self._built.items() if n in self._variants
                                    for t in built.ties]).get((name, ties))
        return None if where is None else Found(*where)

    def _win_read(self, v: Variant, ties: str, m: int, states: list[tuple[int, int, bool, int]],
                  narrow: str, value) -> dict | None:
        """{(to_beat, dice_left, must_keep_two, score): p_win} of ``states`` by one rowid range (rows
        further narrowed by ``narrow`` = ``value``), each row checked to carry its key; None: read
        them by key."""
        found = self._win_found(v, ties)
        if found is None:
            return None
        at = [layout.win_position(v.rules, m, *state) for state in states]
        if None in at:
            return None
        rows = self.blocks.read(layout.WIN, (v.name, ties), found, min(at), max(at), "p_win",
                                partial(layout.win_position, v.rules), where=f"{narrow} = ?", params=(value,),
                                count=-1, check_block=True)
        got = {} if rows is None else {row[0]: row[-1] for row in rows}
        if rows is None or any(position not in got for position in at):
            if rows is not None:
                self.blocks.lose(layout.WIN, (v.name, ties))
            return self._win_block_moved(v, ties, m, states, narrow, value)
        return {state: float(got[position]) for state, position in zip(states, at)}

    def _win_block_moved(self, v: Variant, ties: str, m: int, states, narrow: str, value) -> dict | None:
        """The (variant, ties) block is not where the build order puts it: find the blocks by one
        scan (once), and read again; a block still not as the build writes it is read by key filters."""
        if self._scanned:
            return None
        self._scanned = True
        for (name, t), (a, b) in self.blocks.runs(layout.WIN, (), ("variant", "ties")).items():
            built = self._built.get(name)
            if name in self._variants and built is not None:
                size = layout.win_grid(self._variants[name].rules)[2] * (built.max_players_after + 1)
                if b - a + 1 == size:
                    self.blocks.place(layout.WIN, (name, t), Found(a, size))
        return self._win_read(v, ties, m, states, narrow, value) if self.blocks.located().get(
            ("threes_win", v.name, ties)) else None

    # -- what is in the database ---------------------------------------------
    @cached_property
    def _variants(self) -> dict[str, Variant]:
        self.db.require_game("threes")
        rows = self.db.fetchall(
            "SELECT variant, dice, faces, worths, min_keep, allow_reroll, keep_after_reroll, max_score, "
            "no_target, description FROM threes_variants ORDER BY variant"
        )
        return {
            r[0]: Variant(
                r[0], int(r[1]), int(r[2]), tuple(int(w) for w in r[3].split(",")), int(r[4]), bool(r[5]),
                int(r[6]), int(r[7]), int(r[8]), r[9],
            )
            for r in rows
        }

    def built(self, variant: str = "classic") -> Built:
        """What the build recorded for a variant: its tie rules and the most players after."""
        return self._built[self.variant(variant).name]

    @cached_property
    def _built(self) -> dict[str, Built]:
        out = {}
        for name, solver in self.db.fetchall(
            "SELECT variant, solver_json FROM build_variants WHERE game = ?", ("threes",)
        ):
            s = json.loads(solver)
            out[name] = Built(tuple(s["ties"]), int(s["players_after"][1]))
        return out

    @cached_property
    def _expected_scores(self) -> dict[str, dict[tuple[int, bool], float]]:
        """variant -> (dice_left, must_keep_two) -> expected score: a few rows, read once."""
        out: dict[str, dict[tuple[int, bool], float]] = {}
        for name, dl, f, e in self.db.fetchall(
            "SELECT variant, dice_left, must_keep_two, expected_score FROM threes_expected_scores"
        ):
            out.setdefault(name, {})[(int(dl), bool(f))] = float(e)
        return out

    def variants(self) -> list[Variant]:
        return list(self._variants.values())

    def variant(self, name: str) -> Variant:
        return named(name, self._variants, "variant", allowed=", ".join(KNOWN_VARIANTS),
                     unknown=f"variants: {', '.join(KNOWN_VARIANTS)} (this database has: {', '.join(self._variants)})",
                     not_built=self._variant_not_built)

    def _variant_not_built(self, name: str) -> NotInDatabase | None:
        """A standard variant this database lacks: the command that adds it (None: not a standard one)."""
        if name not in KNOWN_VARIANTS:
            return None
        known = self._variants
        wanted = [n for n in KNOWN_VARIANTS if n in known or n == name]
        return NotInDatabase(f"variant {name!r} is not built into this database (it has {', '.join(known)}); "
                             f"rebuild with: {self.rebuild_command(variants=wanted)}")

    def rebuild_command(self, **changes) -> str:
        """The command that rebuilds threes into this file (the user's ``--db``) with ``changes``
        and every other option as built (options at their default left out)."""
        return rebuild_command(self.db, "threes", DEFAULT_OPTIONS, **changes)

    def _ties(self, variant: Variant, ties: str) -> str:
        if not isinstance(ties, str) or ties not in TIE_RULES:
            raise BadInput(f"unknown tie rule {_show(ties)}; allowed: {', '.join(TIE_RULES)}")
        built = self._built[variant.name].ties
        if ties not in built:
            wanted = [t for t in TIE_RULES if t in built or t == ties]
            raise NotInDatabase(
                f"tie rule {ties!r} is not built for {variant.name} (this database has: {', '.join(built)}); "
                f"rebuild with: {self.rebuild_command(ties=wanted)}"
            )
        return ties

    def _players_after(self, variant: Variant, players_after) -> int:
        top = self._built[variant.name].max_players_after
        if not _is_int(players_after) or players_after < 0:
            raise BadInput(
                f"players after must be a whole number 0..{top} (this database holds rounds of up to "
                f"{top + 1} players), got {_show(players_after)}"
            )
        players_after = int(players_after)
        if players_after > top:
            if players_after >= MAX_PLAYERS:
                raise BadInput(
                    f"players after must be 0..{top} (this database holds rounds of up to {top + 1} players; "
                    f"a build holds rounds of up to {MAX_PLAYERS}), got {players_after}"
                )
            raise NotInDatabase(
                f"players after must be 0..{top} (this database holds rounds of up to {top + 1} players), "
                f"got {players_after}; rebuild with: {self.rebuild_command(max_players=players_after + 1)}"
            )
        return players_after

    def _win_target(self, v: Variant, to_beat, players_after) -> tuple[int, int]:
        """(players_after, stored to_beat) of the win objective; to_beat None = nobody has finished."""
        if to_beat is None and players_after is None:
            raise BadInput("the win probability needs to_beat and/or players_after (to_beat alone: the last player)")
        players_after = self._players_after(v, 0 if players_after is None else players_after)
        if to_beat is None:
            if players_after == 0:
                raise BadInput(LAST_PLAYER_NEEDS_TARGET)
            return players_after, v.no_target
        return players_after, self._to_beat(v, to_beat)

    # -- lookups -----------------------------------------------------------------
    def best(
        self,
        dice,
        *,
        variant: str = "classic",
        score: int = 0,
        to_beat: int | None = None,
        players_after: int | None = None,
        must_keep_two: bool = False,
        ties: str | None = None,
    ) -> Best:
        """Rank every legal keep of the roll ``dice`` (faces, any order).

        Without ``to_beat`` and ``players_after`` the objective is the expected
        final score (value includes ``score``; lower is better).  Otherwise it is
        the win probability with ``players_after`` players still to play (default
        0) facing the best final score so far ``to_beat`` (default: nobody has
        finished yet), under tie rule ``ties`` (default shared).  ``players_after=0``
        without ``to_beat`` is refused (every score would win); so is a score that
        already loses to ``to_beat`` (no keep can win).
        """
        v = self.variant(variant)
        roll = self._roll(v, dice, most=max(v.dice, self._many_max("threes_many_dice", v)))
        if len(roll) > v.dice:
            return self._best_many(v, roll, score, must_keep_two, ties, to_beat, players_after)
        d = len(roll)
        score = self._score(v, score, d)
        must_keep_two = self._flag(v, must_keep_two, d)
        worth = [v.worth(f) for f in roll]
        cost = [sum(worth[:a]) for a in range(d + 1)]
        keeps = list(v.legal_keeps(d, must_keep_two))

        if to_beat is None and players_after is None:
            if ties is not None:
                raise BadInput("--ties applies to the win objective only: add --to-beat and/or --players-after")
            stored = self._expected_scores[v.name]
            actions = [Action(tuple(roll[:a]), score + cost[a] + stored[(d - a, a == 0)]) for a in keeps]
            return Best(EXPECTED, v.name, tuple(roll), score, must_keep_two, None, None, None,
                        rank(actions, maximize=False))

        ties = self._ties(v, "shared" if ties is None else ties)
        players_after, target = self._win_target(v, to_beat, players_after)
        if to_beat is not None and (score > target or (ties == "strict" and score == target)):
            raise BadInput(
                f"score {score} is already {'above' if score > target else 'level with'} to-beat {target}: "
                f"under {ties} ties no keep can win"
            )
        nexts = [(d - a, a == 0, score + cost[a]) for a in keeps]
        # One query: every pre-roll value of this (variant, ties, players_after, to_beat), at most a few
        # hundred rows, a key-prefix range in SQLite.  Faster in DuckDB than OR-ing the few states we need,
        # and than one rowid range over them (they lie in every pre-roll class's part of the level: a few
        # thousand rows; measured under load, p50 1.1 ms against 1.6 ms).
        values = self.db.read(
            "SELECT dice_left, must_keep_two, score, p_win FROM threes_win "
            "WHERE variant = ? AND ties = ? AND players_after = ? AND to_beat = ?",
            (v.name, ties, players_after, target),
            _win_values,
        )
        missing = [s for s in nexts if s not in values]
        if missing:
            raise NotInDatabase(
                f"threes_win lacks states {missing} for {v.name}/{ties}; rebuild with: {self.rebuild_command()}"
            )
        actions = [Action(tuple(roll[:a]), values[state]) for a, state in zip(keeps, nexts)]
        return Best(WIN, v.name, tuple(roll), score, must_keep_two, ties, None if to_beat is None else target,
                    players_after, rank(actions, maximize=True))

    def p_win(
        self,
        dice_left: int,
        *,
        variant: str = "classic",
        score: int = 0,
        to_beat: int | None = None,
        players_after: int | None = None,
        must_keep_two: bool = False,
        ties: str = "shared",
    ) -> float:
        """Stored win probability of a pre-roll state (dice_left = 0: the turn is over).

        ``to_beat`` and ``players_after`` mean what they mean in :meth:`best`."""
        v = self.variant(variant)
        if not _is_int(dice_left) or not 0 <= dice_left <= v.dice:
            raise BadInput(f"dice left must be a whole number 0..{v.dice}, got {_show(dice_left)}")
        dice_left = int(dice_left)
        score = self._score(v, score, dice_left)
        must_keep_two = self._flag(v, must_keep_two, dice_left)
        ties = self._ties(v, ties)
        players_after, target = self._win_target(v, to_beat, players_after)
        state = (target, dice_left, must_keep_two, score)
        read = self._win_read(v, ties, players_after, [state], "to_beat", target)
        row = (read[state],) if read is not None else _first(self.db.read(
            "SELECT p_win FROM threes_win WHERE variant = ? AND ties = ? AND players_after = ? AND to_beat = ? "
            "AND dice_left = ? AND must_keep_two = ? AND score = ?",
            (v.name, ties, players_after, target, dice_left, must_keep_two, score),
        ))
        if row is None:
            raise NotInDatabase(
                f"no stored value for that state in {v.name}/{ties}; rebuild with: {self.rebuild_command()}"
            )
        return float(row[0])

    def stored_keep(
        self,
        dice,
        *,
        variant: str = "classic",
        score: int = 0,
        to_beat: int | None = None,
        players_after: int | None = None,
        must_keep_two: bool = False,
        ties: str = "shared",
    ) -> int:
        """The keep stored in threes_win_policy for this roll (number of dice)."""
        v = self.variant(variant)
        roll = self._roll(v, dice)
        score = self._score(v, score, len(roll))
        must_keep_two = self._flag(v, must_keep_two, len(roll))
        ties = self._ties(v, ties)
        players_after, target = self._win_target(v, to_beat, players_after)
        row = _first(self.db.read(
            "SELECT substr(p.keeps, r.roll_id + 1, 1) FROM threes_win_policy p JOIN threes_rolls r "
            "ON r.variant = p.variant AND r.dice = p.dice_left "
            "WHERE p.variant = ? AND p.ties = ? AND p.players_after = ? AND p.to_beat = ? AND p.dice_left = ? "
            "AND p.must_keep_two = ? AND p.score = ? AND r.roll = ?",
            (v.name, ties, players_after, target, len(roll), must_keep_two, score, " ".join(map(str, roll))),
        ))
        if row is None:
            raise NotInDatabase(
                f"no stored decision for that state in {v.name}/{ties}; rebuild with: {self.rebuild_command()}"
            )
        return int(row[0])

    def expected(self, variant: str = "classic", dice: int | None = None) -> list[ExpectedRow]:
        """Expected final score of a turn with n dice left (and the must-keep-two flag), optimal play.

        ``dice=None``: every n of the built game (1..5); ``dice=N``: that N, 1..many_dice
        (from threes_many_dice)."""
        v = self.variant(variant)
        if dice is not None:
            most = self._many_max("threes_many_dice", v)
            if most == 0:
                raise NotInDatabase(f"no many-dice table for {v.name} in this database; rebuild with: "
                                    f"{self.rebuild_command(many_dice=5000)}")
            if not _is_int(dice) or not 1 <= dice <= most:
                raise BadInput(f"dice must be a whole number 1..{most} (this database's many-dice table), "
                               f"got {_show(dice)}")
            rows = self.db.read(
                "SELECT dice, must_keep_two, expected_score FROM threes_many_dice "
                "WHERE variant = ? AND dice = ? ORDER BY must_keep_two",
                (v.name, int(dice)),
            )
            return [ExpectedRow(int(d), bool(f), float(e)) for d, f, e in rows]
        rows = self.db.read(
            "SELECT dice_left, must_keep_two, expected_score FROM threes_expected_scores "
            "WHERE variant = ? AND dice_left > 0 ORDER BY dice_left, must_keep_two",
            (v.name,),
        )
        return [ExpectedRow(int(d), bool(f), float(e)) for d, f, e in rows]

    def chances(
        self, variant: str = "classic", dice: int | None = None, ties: str = "shared", must_keep_two: bool = False
    ) -> list[ChanceRow]:
        """The last player's win probability facing each target 0..max_score with ``dice`` fresh dice.

        More dice than the built game (up to the built many_dice_chances, 50 by default) read
        threes_many_dice_chances, targets 0..30."""
        v = self.variant(variant)
        dice = v.dice if dice is None else dice
        most = max(v.dice, self._many_max("threes_many_dice_chances", v))
        if not _is_int(dice) or not 1 <= dice <= most:
            raise BadInput(f"dice must be a whole number 1..{most}, got {_show(dice)}")
        dice = int(dice)
        if dice > v.dice:
            return self._many_chances(v, dice, ties, must_keep_two)
        must_keep_two = self._flag(v, must_keep_two, dice)
        ties = self._ties(v, ties)
        if self.db.store == "sqlite":  # one primary-key seek per target (a range would scan every state)
            targets = range(v.no_target)
            rows = self.db.read(
                "SELECT to_beat, p_win FROM threes_win WHERE variant = ? AND ties = ? AND players_after = 0 "
                f"AND to_beat IN ({', '.join('?' * len(targets))}) AND dice_left = ? AND must_keep_two = ? "
                "AND score = 0 ORDER BY to_beat",
                (v.name, ties, *targets, dice, must_keep_two),
            )
        else:  # DuckDB: one rowid range (an IN list would hash-join a whole row group), else a key range
            states = [(b, dice, must_keep_two, 0) for b in range(v.no_target)]
            read = self._win_read(v, ties, 0, states, "score", 0)
            rows = [(b, read[(b, dice, must_keep_two, 0)]) for b in range(v.no_target)] if read is not None else \
                self.db.read(
                    "SELECT to_beat, p_win FROM threes_win WHERE variant = ? AND ties = ? AND players_after = 0 "
                    "AND dice_left = ? AND must_keep_two = ? AND score = 0 AND to_beat < ? ORDER BY to_beat",
                    (v.name, ties, dice, must_keep_two, v.no_target),
                )
        return [ChanceRow(int(b), float(p)) for b, p in rows]

    def seats(self, players: int, variant: str = "classic", ties: str = "shared") -> list[SeatRow]:
        """Win probability of each seat in a round of ``players`` optimal players."""
        v = self.variant(variant)
        top = self._built[v.name].max_players_after + 1
        if not _is_int(players) or not 2 <= players:
            raise BadInput(f"players must be a whole number 2..{top} (this database's range), got {_show(players)}")
        players = int(players)
        if players > top:
            if players > MAX_PLAYERS:
                raise BadInput(
                    f"players must be 2..{top} (this database's range; a build holds rounds of up to {MAX_PLAYERS}), "
                    f"got {players}"
                )
            raise NotInDatabase(
                f"players must be 2..{top} (this database's range), got {players}; "
                f"rebuild with: {self.rebuild_command(max_players=players)}"
            )
        ties = self._ties(v, ties)
        rows = self.db.read(
            "SELECT seat, p_win FROM threes_seats WHERE variant = ? AND ties = ? AND players = ? ORDER BY seat",
            (v.name, ties, players),
        )
        return [SeatRow(int(s), float(p)) for s, p in rows]

    # -- many dice (threes_many_dice) ------------------------------------------------
    def _many_max(self, table: str, v: Variant) -> int:
        """Largest dice count stored in a many-dice table (threes_many_dice or threes_many_dice_chances)
        for variant ``v``; 0 when not built."""
        cache = self.__dict__.setdefault("_many_max_cache", {})
        if (table, v.name) not in cache:
            sql = {
                "threes_many_dice": "SELECT max(dice) FROM threes_many_dice WHERE variant = ?",
                "threes_many_dice_chances": "SELECT max(dice) FROM threes_many_dice_chances WHERE variant = ?",
            }[table]
            (most,) = self.db.fetchone(sql, (v.name,))
            cache[(table, v.name)] = int(most or 0)
        return cache[(table, v.name)]

    def _many_chances(self, v: Variant, dice: int, ties, must_keep_two) -> list[ChanceRow]:
        """threes_many_dice_chances: P(final <= target); under strict ties target t needs final <= t - 1."""
        if not isinstance(ties, str) or ties not in TIE_RULES:
            raise BadInput(f"unknown tie rule {_show(ties)}; allowed: {', '.join(TIE_RULES)}")
        must_keep_two = self._flag(v, must_keep_two, dice)
        rows = self.db.read(
            "SELECT target, p_win FROM threes_many_dice_chances WHERE variant = ? AND dice = ? "
            "AND must_keep_two = ? ORDER BY target",
            (v.name, dice, must_keep_two),
        )
        if ties == "shared":
            return [ChanceRow(int(t), float(p)) for t, p in rows]
        return [ChanceRow(0, 0.0)] + [ChanceRow(int(t) + 1, float(p)) for t, p in rows[:-1]]

    def _best_many(self, v: Variant, roll: list[int], score, must_keep_two, ties, to_beat, players_after) -> Best:
        """The expected-score objective for a roll larger than the built game, from threes_many_dice."""
        d = len(roll)
        if to_beat is not None or players_after is not None or ties is not None:
            raise BadInput(
                f"the win probability is stored for rolls of up to {v.dice} dice (the N-player tables); "
                f"a roll of {d} dice has the expected-score objective only: drop --to-beat, --players-after and --ties"
            )
        if not _is_int(score) or score < 0:
            raise BadInput(f"score must be a whole number >= 0 (points of the dice kept so far), got {_show(score)}")
        score = int(score)
        must_keep_two = self._flag(v, must_keep_two, d)
        stored = {(0, False): 0.0}
        stored.update(
            ((int(n), bool(f)), float(e))
            for n, f, e in self.db.read(
                "SELECT dice, must_keep_two, expected_score FROM threes_many_dice WHERE variant = ? AND dice <= ?",
                (v.name, d),
            )
        )
        cost = list(accumulate((v.worth(f) for f in roll), initial=0))
        keeps = v.legal_keeps(d, must_keep_two)
        actions = [Action(tuple(roll[:a]), score + cost[a] + stored[(d - a, a == 0)]) for a in keeps]
        threes = sum(1 for f in roll if v.worth(f) == 0)
        return Best(EXPECTED, v.name, tuple(roll), score, must_keep_two, None, None, None,
                    rank_many(actions, threes))

    # -- validation ----------------------------------------------------------------
    @staticmethod
    def _roll(v: Variant, dice, most: int | None = None) -> list[int]:
        not_a_list = BadInput(
            f"dice must be a list of faces (whole numbers 1..{v.faces}), e.g. [4, 3, 1, 1, 2]; got {_show(dice)}"
        )
        if isinstance(dice, (str, bytes, bytearray, Mapping, Set)) or not isinstance(dice, Iterable):
            raise not_a_list
        try:
            faces = list(dice)
        except TypeError:  # e.g. a 0-d numpy array
            raise not_a_list from None
        wrong = [f for f in faces if not _is_int(f)]
        if wrong:
            raise BadInput(f"dice must be whole numbers 1..{v.faces}, got {_show(wrong[0])}")
        faces = [int(f) for f in faces]
        most = v.dice if most is None else most
        if not 1 <= len(faces) <= most:
            raise BadInput(f"a roll has 1..{most} dice (the dice still to roll), got {len(faces)}")
        bad = [f for f in faces if not 1 <= f <= v.faces]
        if bad:
            raise BadInput(f"faces must be 1..{v.faces}, got {', '.join(map(str, bad))}")
        return v.keep_order(faces)

    @staticmethod
    def _score(v: Variant, score, dice_left: int) -> int:
        kept = v.dice - dice_left
        if not _is_int(score):
            raise BadInput(f"score must be a whole number of points, got {_show(score)}")
        score = int(score)
        if score < 0:
            raise BadInput(f"score must be >= 0 (points of the dice kept so far), got {score}")
        possible = v.reachable_scores(kept)
        if score not in possible:
            if kept == 0:
                raise BadInput(f"score must be 0 with {v.dice} dice to roll (nothing kept yet), got {score}")
            listing = f"0..{possible[-1]}" if possible == list(range(possible[-1] + 1)) else ", ".join(map(str, possible))
            raise BadInput(
                f"score {score} is impossible with {kept} kept {'die' if kept == 1 else 'dice'} "
                f"({v.dice - kept} to roll); possible: {listing}"
            )
        return score

    @staticmethod
    def _flag(v: Variant, must_keep_two, dice_left: int) -> bool:
        if not _is_bool(must_keep_two):
            raise BadInput(f"must_keep_two must be True or False, got {_show(must_keep_two)}")
        if not must_keep_two:
            return False
        if not v.allow_reroll:
            raise BadInput(f"--must-keep-two needs a variant with re-rolls (reroll); {v.name} has none")
        if dice_left < 2:
            raise BadInput("--must-keep-two needs 2 or more dice (the last die cannot have been re-rolled)")
        return True

    @staticmethod
    def _to_beat(v: Variant, to_beat) -> int:
        if not _is_int(to_beat) or not 0 <= to_beat <= v.max_score:
            raise BadInput(
                f"to-beat must be 0..{v.max_score} (the best final score so far; omit it if nobody has finished), "
                f"got {_show(to_beat)}"
            )
        return int(to_beat)
