"""Great Rolled Ones: the rules as data, and what is legal under them.

Seed 002 (Neller, Nguyen, Pham, Phan, Presser, "Optimal Play of the Great
Rolled Ones Game") describes a non-terminal state as the 5-tuple
``(p, i, j, k, o)``: ``p`` the player to move (1 or 2), ``i`` the mover's
score, ``j`` the opponent's score, ``k`` the turn total and ``o`` the number
of rolled 1s set aside this turn.  This module holds the rule parameters, the
roll outcomes (``P_new1s``), the chance a roll ends the turn and the reachable
turn states, shared by the solver (``dicebase.builder.rolled_ones``) and the
lookups (``dicebase.query.rolled_ones``).  No numpy here: the command line imports it.

Nothing here is specific to 5 dice, goal 50 or three 1s: those are fields of
:class:`Rules`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import cached_property, lru_cache
from math import comb

from dicebase.errors import SizeLimit
from dicebase.rules import files
from dicebase.rules.files import Key, house_rules

GAME = "rolled_ones"
#: Seed 002's human-playable policies, in algorithm order (rolled_ones_states column prefixes).
POLICY_NAMES = ("roll_4_or_5_dice", "fixed_hold_at", "simple_ones_cases", "keep_pace_end_race")


@dataclass(frozen=True)
class Rules:
    """One rule set of Great Rolled Ones (two players).

    ``goal``: a player ending a turn with ``goal`` or more points makes that round
    the last; player 2 must then exceed player 1's score (seed 002).
    ``dice``: dice rolled at the start of a turn; rolled 1s are set aside.
    ``ones_limit``: a turn ends with no score change once this many 1s are set aside
    (3 in the seed).  ``faces``: faces per die (a 1 has chance ``1/faces``).
    ``turn_total_bound``: the largest turn total ``k`` kept in the state space;
    the rules do not bound ``k`` (see ``solver`` for why the values below the
    bound are exact).
    """

    goal: int = 50
    dice: int = 5
    ones_limit: int = 3
    faces: int = 6
    turn_total_bound: int = 80

    def __post_init__(self) -> None:
        if self.goal < 1:
            raise ValueError(f"goal must be at least 1, got {self.goal}")
        if not 1 <= self.ones_limit <= self.dice:
            raise ValueError(
                f"need 1 <= ones_limit <= dice so every allowed roll has a die to roll, "
                f"got ones_limit={self.ones_limit}, dice={self.dice}"
            )
        if self.faces < 2:
            raise ValueError(f"faces must be at least 2, got {self.faces}")
        if self.turn_total_bound < self.goal:
            raise ValueError(
                f"turn_total_bound must be at least the goal ({self.goal}), got {self.turn_total_bound}"
            )

    def as_dict(self) -> dict:
        return asdict(self)

    # ---- roll outcomes -------------------------------------------------
    @property
    def ones(self) -> range:
        """Values of ``o`` in a non-terminal state: 0 .. ones_limit - 1."""
        return range(self.ones_limit)

    @cached_property
    def outcomes(self) -> tuple[tuple[tuple[float, int, int], ...], ...]:
        """For each ``o``: the non-ending roll outcomes ``(P_new1s(d, n), d - n, o + n)``.

        ``d = dice - o`` dice are rolled and ``n`` of them are new 1s with
        ``o + n < ones_limit``; the turn total grows by the ``d - n`` non-1s
        (seed 002's ``5 - o'``).  Outcomes with ``o + n >= ones_limit`` end the turn.
        """
        out = []
        for o in self.ones:
            d = self.dice - o
            out.append(
                tuple((P_new1s(d, n, self.faces), d - n, o + n) for n in range(self.ones_limit - o))
            )
        return tuple(out)

    @cached_property
    def p_end(self) -> tuple[float, ...]:
        """``p_end[o]``: chance the next roll brings the 1s set aside to ``ones_limit`` or more."""
        return tuple(
            sum(P_new1s(self.dice - o, n, self.faces) for n in range(self.ones_limit - o, self.dice - o + 1))
            for o in self.ones
        )

    def holding_wins(self, p: int, i: int, k: int) -> bool:
        """Player 2 whose score plus turn total passed ``goal - 1 + dice`` has rolled on where
        holding had already won for sure (one roll past the last state below the goal): holding
        wins (1), rolling is worth ``1 - P_end(o) P(1, j, i, 0, 0)``.  Such states are not stored
        (:mod:`dicebase.layout.rolled_ones`); the lookups compute them."""
        return p == 2 and i + k > self.goal - 1 + self.dice

    @property
    def min_gain(self) -> int:
        """Fewest points a roll that does not end the turn adds (``dice - ones_limit + 1``)."""
        return self.dice - self.ones_limit + 1


def P_new1s(d: int, o_new: int, faces: int = 6) -> float:
    """Seed 002: ``P_new1s(d, o_new) = C(d, o_new) (1/6)^o_new (5/6)^(d - o_new)``.

    The probability that exactly ``o_new`` of ``d`` rolled dice show a 1
    (``0 <= o_new <= d``); ``faces`` generalises the 6.
    """
    q = 1.0 / faces
    return comb(d, o_new) * q**o_new * (1.0 - q) ** (d - o_new)


@lru_cache(maxsize=None)
def reachable_turns(rules: Rules) -> frozenset[tuple[int, int]]:
    """Every ``(k, o)`` a turn can be at, turn total ``k <= turn_total_bound`` with ``o`` 1s set aside.

    A turn starts at ``(k, o) = (0, 0)`` and every roll that does not end it
    adds ``dice - o'`` points (at least ``dice - ones_limit + 1``), so e.g. with
    5 dice a turn total of 1 or 2, or one with no 1s that is not a multiple of
    5, cannot occur.  Only reachable ``(k, o)`` are stored.
    """
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        k, o = todo.pop()
        for _, gain, o_next in rules.outcomes[o]:
            nxt = (k + gain, o_next)
            if nxt[0] <= rules.turn_total_bound and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return frozenset(seen)


# --------------------------------------------------------------------------- more than two players
#: Most seats a build may store (``rolled_ones_turn_starts`` has a score and a win column per seat).
MAX_PLAYERS = 4
#: Player counts a build may solve (``-o rolled-ones.players=[2,3,4]``).
PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
#: N players: the mover rolls only when rolling beats holding by more than this (its own win
#: probability); otherwise it holds ("hold before roll").  With three or more players a tie for the
#: mover changes the others' chances, so it is broken the same way everywhere (docs/n_players.md).
TIE_TOLERANCE = 1e-12
#: Turn totals kept past the goal (``turn_total_bound - goal``) that raising does not change, by
#: number of players: measured by solving with larger bounds (identical values, difference 0.0) at
#: goals 6-50; with 4 and 5 players a margin of 30 is NOT enough (differences of 4e-6 to 2e-5 at
#: small goals): a seat that ends the normal phase early in a round faces several final turns and
#: keeps rolling its five dice far past the goal.  (tests/test_rolled_ones_nplayer.py raises them.)
TURN_TOTAL_MARGIN = {2: 30, 3: 30}
TURN_TOTAL_MARGIN_MANY = 50

NPLAYER_RULES_TEXT = (
    "Great Rolled Ones for {players} players (issue 21; with 2 players seed 002's game): seats 1..{players} play in "
    "order, a round is one turn each; {dice} dice with {faces} faces, rolled 1s are set aside and {ones_limit} of them "
    "end the turn with no score; holding (never at turn total 0) banks the non-1s rolled. A seat whose turn ends at "
    "or above {goal} makes the round the last: every seat after it takes one final turn (after the last seat the "
    "game ends at once), and on a final turn a seat may hold only above the highest score. The highest score wins. "
    "Each seat maximises its own win probability; ties for the mover (within {tie}) hold."
)


def turn_total_margin(players: int) -> int:
    """Turn totals kept past the goal for ``players`` seats (:data:`TURN_TOTAL_MARGIN`)."""
    return TURN_TOTAL_MARGIN.get(players, TURN_TOTAL_MARGIN_MANY)


def rules_for(players: int, goal: int = 50, **rules) -> Rules:
    """Seed 002's rules at ``goal`` with a turn-total bound proven harmless for ``players``
    (:data:`TURN_TOTAL_MARGIN`); the final-round score cap default is then ``goal + bound``."""
    return Rules(goal=goal, turn_total_bound=goal + turn_total_margin(players), **rules)


def nplayer_rules(rules: Rules, players: int) -> Rules:
    """The rules an N-player solve of a variant uses: its own, with the turn-total bound raised to
    ``goal + turn_total_margin(players)`` where that is larger (the bound is a solver setting)."""
    bound = max(rules.turn_total_bound, rules.goal + turn_total_margin(players))
    return replace(rules, turn_total_bound=bound)


def score_cap(rules: Rules) -> int:
    """Default final-round score cap of an N-player solve: ``goal + turn_total_bound`` (a seat above
    the bar on its final turn holds once its score reaches it; proven harmless by tests)."""
    return rules.goal + rules.turn_total_bound


def bar_ranges(rules: Rules, players: int, cap: int) -> list[int]:
    """``range_j``: the largest bar ``X`` of the final-round start ``Phi_j`` (``j = 1 .. players - 1``,
    0-based seats; ``j = 0`` unused), growing by ``dice`` per seat because ``Phi_j(X)`` reads seat
    ``j``'s final turn up to ``X + dice``."""
    base = cap - 1 + rules.dice
    return [0] + [base + (j - 1) * rules.dice for j in range(1, players)]


def final_totals(rules: Rules, players: int, cap: int) -> list[int]:
    """``TT_j``: how many totals ``t = goal + 1 .. goal + TT_j`` seat ``j``'s (0-based, ``1 <= j < players``)
    final turn above the bar keeps (``j = 0`` unused: 0)."""
    ranges = bar_ranges(rules, players, cap)
    return [0] + [ranges[j] + rules.dice - rules.goal for j in range(1, players)]


def nplayer_cells(goal: int, players: int) -> int:
    """Turn-start values ``goal^players * players^2`` of an N-player solve (doubles, 8 bytes each)."""
    return goal**players * players * players


# --------------------------------------------------------------------------- build options
#: Every build option with its default: seed 002's rules, turn totals up to 80 (optimal play never
#: rolls beyond 76; the build proves holding optimal beyond the bound), komi 0..10.
DEFAULT_OPTIONS = {
    "goal": 50,
    "dice": 5,
    "ones_limit": 3,
    "faces": 6,
    "turn_total_bound": 80,
    "komi_max": 10,
    "house_rules": {},  # name -> values of a rules file (dicebase build rolled-ones --rules FILE.toml)
    # numbers of players whose N-player tables (rolled_ones_turn_starts ...) are built for every variant;
    # 4 players takes minutes and about 1 GB (docs/n_players.md): -o rolled-ones.players=[2,3,4]
    "players": [2, 3],
    # numbers of players (each also in "players") whose cost of seed 002's human policies is computed
    # (rolled_ones_policy_costs) in the reading "equilibrium": the other seats keep playing the stored
    # equilibrium, one policy evaluation pass per count (3 players at goal 50: about 8 CPU-seconds; docs/n_players.md)
    "policy_players": [2, 3],
    # ... and in the reading "best_response": the other seats exploit the policy, one solve per policy and
    # seat (3 players: 12 solves, minutes at goal 50): -o rolled-ones.policy_best_response_players=[2,3]
    "policy_best_response_players": [2],
}

#: The tests check seed 002's figures in the database, so they build the real game (its N-player tables
#: for 2 players only, with the human policies against the stored equilibrium: the 3-player tests build a
#: smaller goal, tests/test_rolled_ones_nplayer_db.py).
TEST_OPTIONS = {**{k: v for k, v in DEFAULT_OPTIONS.items() if k != "house_rules"}, "players": [2],
                "policy_players": [2], "policy_best_response_players": []}

#: ``-o rolled-ones.players=...``'s help, for the docs and the size message.
PLAYERS_HELP = (
    f"Numbers of players (each {PLAYER_COUNTS[0]}..{PLAYER_COUNTS[-1]}) whose N-player tables are built for every "
    "variant, e.g. [2,3] (the default) or [2,3,4]; 3 players at goal 50 take about 5 s and 14 MB of values, "
    "4 players about 5 minutes and 1.2 GB of memory."
)
#: Largest N-player turn-start table ``goal^N * N^2`` doubles a build may solve (4 players at goal 50: 100 M).
MAX_NPLAYER_CELLS = 100_000_000

STANDARD = Rules()
PRESETS = {"standard": STANDARD}


def variant_name(rules: Rules) -> str:
    """``standard`` for seed 002's rules, else a name spelling out the rule parameters."""
    if (rules.goal, rules.dice, rules.ones_limit, rules.faces) == (
        STANDARD.goal,
        STANDARD.dice,
        STANDARD.ones_limit,
        STANDARD.faces,
    ):
        return "standard"
    name = f"goal{rules.goal}-dice{rules.dice}-ones{rules.ones_limit}"
    return name if rules.faces == 6 else f"{name}-faces{rules.faces}"


#: Sane ranges of the build options (inclusive).  Beyond them a build would be
#: meaningless (komi at or past the goal) or would need too much memory.
OPTION_RANGES = {
    "goal": (1, 100),
    "dice": (1, 10),
    "ones_limit": (1, 10),  # and at most dice
    "faces": (2, 20),
    "turn_total_bound": (1, 500),  # and at least goal
    "komi_max": (0, 99),  # and below goal
}

#: Largest state array ``2 * goal^2 * (turn_total_bound + 1) * ones_limit`` a build may need
#: (the standard variant needs 1.2 million; the policy evaluation holds 8 such arrays of doubles).
MAX_STATE_CELLS = 5_000_000


def _relations(values: dict) -> tuple[str, str] | None:
    """(key, what is wrong) for values in range that do not fit together, else None."""
    G, D, L, K = values["goal"], values["dice"], values["ones_limit"], values["turn_total_bound"]
    if L > D:
        return "ones_limit", f"must be at most dice ({D}), got {L}"
    if K < G:
        return "turn_total_bound", f"must be at least the goal ({G}), got {K}"
    if values["komi_max"] >= G:
        return "komi_max", f"must be 0..{G - 1} (below the goal {G}), got {values['komi_max']}"
    return None


def size_estimate(values: dict) -> int:
    """State cells ``2 * goal^2 * (turn_total_bound + 1) * ones_limit`` of a solve."""
    return 2 * values["goal"] ** 2 * (values["turn_total_bound"] + 1) * values["ones_limit"]


def _check_size(values: dict, what: str) -> None:
    cells = size_estimate(values)
    if cells > MAX_STATE_CELLS:
        raise SizeLimit(
            f"rolled-ones{what}: goal {values['goal']}, turn_total_bound {values['turn_total_bound']}, ones_limit "
            f"{values['ones_limit']} need {cells:,} states (about {cells * 64 / 1e9:.1f} GB), more than the "
            f"{MAX_STATE_CELLS:,} a build may use; lower goal or turn_total_bound"
        )


def player_counts(options: dict, key: str = "players") -> tuple[int, ...]:
    """The ``players`` build option (or ``policy_players``, ``policy_best_response_players``: ``key``) as a
    sorted tuple of player counts (ValueError, one line, if bad): a list of distinct whole numbers in
    :data:`PLAYER_COUNTS`, or one such number; the policy options list only counts that ``players`` lists (left
    at their defaults, the defaults' counts that ``players`` lists)."""
    if key != "players" and options.get(key, DEFAULT_OPTIONS[key]) == DEFAULT_OPTIONS[key]:
        # the default: its counts that players builds (so -o rolled-ones.players=[2] needs no other option)
        return tuple(n for n in sorted(DEFAULT_OPTIONS[key]) if n in player_counts(options))
    counts = files.player_counts(options.get(key, DEFAULT_OPTIONS[key]), f"rolled-ones.{key}", PLAYER_COUNTS, "[2,3]")
    if key != "players":
        solved = player_counts(options)
        missing = [n for n in counts if n not in solved]
        if missing:
            raise ValueError(f"rolled-ones.{key} lists {missing[0]} players, which rolled-ones.players does "
                             f"not build ({list(solved)})")
    return counts


#: The readings of "the other seats play optimally" for seed 002's human policies (rolled_ones_policy_costs.mode):
#: they keep playing the stored equilibrium (do not adapt; seed 002's measure, the default) or they best-respond
#: to the policy (exploit it).
POLICY_MODES = ("equilibrium", "best_response")
#: The build option listing the numbers of players of each reading.
POLICY_OPTIONS = {"equilibrium": "policy_players", "best_response": "policy_best_response_players"}
#: Human-policy costs are built for up to this many players (docs/n_players.md).
MAX_POLICY_PLAYERS = 3


def policy_player_counts(options: dict, mode: str = "equilibrium") -> tuple[int, ...]:
    """Numbers of players whose human-policy costs are computed in reading ``mode``: the build options
    ``policy_players`` (``equilibrium``) and ``policy_best_response_players`` (``best_response``)."""
    return player_counts(options, POLICY_OPTIONS[mode])


def _check_nplayer_size(goal: int, players: tuple[int, ...], what: str) -> None:
    for n in players:
        cells = nplayer_cells(goal, n)
        if cells > MAX_NPLAYER_CELLS:
            raise SizeLimit(
                f"rolled-ones{what}: {n} players at goal {goal} need {cells:,} turn-start values (about "
                f"{cells * 12 / 1e9:.1f} GB and more than 5 minutes), more than the {MAX_NPLAYER_CELLS:,} a build "
                f"may use; lower the goal or leave {n} out of rolled-ones.players"
            )


def validate_options(options: dict) -> None:
    """ValueError (one line) for bad build options, :class:`SizeLimit` for a solve too large;
    the pipeline calls it before touching any file.

    Every option is a whole number (an ``int``; ``True``/``20.5``/``"20"`` are refused, never
    truncated) within :data:`OPTION_RANGES`, with ``ones_limit <= dice``,
    ``turn_total_bound >= goal``, ``komi_max < goal`` and a state space of at most
    :data:`MAX_STATE_CELLS`; the same holds for every house rule set.  ``players``: see
    :func:`player_counts`, each solve within :data:`MAX_NPLAYER_CELLS`.
    """
    values = {}
    for key, (lo, hi) in OPTION_RANGES.items():
        value = options.get(key, DEFAULT_OPTIONS[key])
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"rolled-ones.{key} must be a whole number {lo}..{hi}, got {value!r}")
        if not lo <= value <= hi:
            raise ValueError(f"rolled-ones.{key} must be {lo}..{hi}, got {value}")
        values[key] = value
    bad = _relations(values)
    if bad:
        raise ValueError(f"rolled-ones.{bad[0]} {bad[1]}")
    players = player_counts(options)
    for mode in POLICY_MODES:
        if max(policy_player_counts(options, mode), default=0) > MAX_POLICY_PLAYERS:
            raise ValueError(f"rolled-ones.{POLICY_OPTIONS[mode]}: human-policy costs are built for at most "
                             f"{MAX_POLICY_PLAYERS} players (4 players need the final round at the policies' score "
                             f"cap, about 1.4 GB per seat at goal 50)")
    house = variants(options)[1:]
    _check_size(values, "")
    _check_nplayer_size(values["goal"], players, "")
    for name, _, _ in house:
        _check_size(options["house_rules"][name], f" {name}")
        _check_nplayer_size(options["house_rules"][name]["goal"], players, f" {name}")


def rules_from_options(options: dict) -> Rules:
    """The :class:`Rules` of build options (checked by :func:`validate_options`)."""
    return Rules(
        goal=options["goal"],
        dice=options["dice"],
        ones_limit=options["ones_limit"],
        faces=options["faces"],
        turn_total_bound=options["turn_total_bound"],
    )


def variants(options: dict) -> list[tuple[str, Rules, int]]:
    """(name, rules, komi_max) of every variant a build writes: the options' own, then each house rule set
    (one named like the options' own must equal it, and is written once)."""
    main = rules_from_options(options)
    out = [(variant_name(main), main, options["komi_max"])]
    for name, values, rules in house_rules(options, GAME, from_file, FILE_KEYS, FILE_DEFAULTS):
        if name == out[0][0]:
            if (rules, values["komi_max"]) != out[0][1:]:
                raise ValueError(f"rolled-ones house rules {name!r} differ from the variant of that name; rename them")
            continue
        out.append((name, rules, values["komi_max"]))
    return out


# --------------------------------------------------------------------------- rules files
_HELP = {
    "goal": "Points that end the game: a player ending a turn with this many makes it the last round, and "
    "player 2 must then exceed player 1's score (seed 002: 50).",
    "dice": "Dice rolled at the start of a turn; rolled 1s are set aside (seed 002: 5).",
    "ones_limit": "How many 1s set aside end the turn with no score (seed 002: 3); at most dice.",
    "faces": "Faces per die (a 1 comes up with chance 1/faces).",
    "turn_total_bound": "Solver setting: the largest turn total kept in the state space (at least the goal; "
    "the build proves holding optimal beyond it, or stops and says so).",
    "komi_max": "Solver setting: compensation points 0..komi_max given to player 2 in the komi table "
    "(below the goal).",
}
FILE_KEYS = tuple(Key(k, "int", _HELP[k], minimum=lo, maximum=hi) for k, (lo, hi) in OPTION_RANGES.items())
FILE_DEFAULTS: dict = {}


def to_file(rules: Rules, komi_max: int = DEFAULT_OPTIONS["komi_max"]) -> dict:
    return {"goal": rules.goal, "dice": rules.dice, "ones_limit": rules.ones_limit, "faces": rules.faces,
            "turn_total_bound": rules.turn_total_bound, "komi_max": komi_max}


def from_file(name: str, values: dict) -> Rules:
    """:class:`Rules` from checked rules-file values; ValueError ``"key: what is wrong"``."""
    bad = _relations(values)
    if bad:
        raise ValueError(f"{bad[0]}: {bad[1]}")
    return rules_from_options(values)


def words(rules: Rules) -> list[str]:
    """The variant in words generated from its values (:func:`dicebase.rules.files.in_words`)."""
    return [f"{rules.dice} dice with {rules.faces} faces; rolled 1s are set aside and {rules.ones_limit} of them end "
            "the turn with no score; holding banks the points of the other dice rolled. A player ending a turn with "
            f"{rules.goal} or more makes that round the last: player 2 must then end above player 1's score."]


def from_record(record: dict, solver: dict | None = None) -> dict:
    """Rules-file values of a variant as stored in build_variants.rules_json."""
    return {k: record[k] for k in OPTION_RANGES}


def add_house(options: dict, name: str, values: dict) -> dict:
    """Build options that also build the rules file ``values`` as variant ``name``."""
    return {**options, "house_rules": {**options.get("house_rules", {}), name: values}}
