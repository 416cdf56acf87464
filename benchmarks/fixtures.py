"""The lookups the benchmarks time, per game (moved out of the query modules, issue 20).

``LOOKUPS[game]``: (label, function of an open database) timed in-process; ``CLI[game]``: the
arguments of ``dicebase`` commands timed end to end (benchmarks/lookups.py, benchmarks/run.py).
"""

from __future__ import annotations

LOOKUPS = {
    "threes": [
        ("threes best (win, seed 001)", lambda db: db.threes.best([4, 3, 1, 1, 2], to_beat=7, players_after=4)),
        ("threes best (expected)", lambda db: db.threes.best([6, 5, 3, 1, 1], variant="reroll")),
        ("threes chances", lambda db: db.threes.chances(ties="strict")),
    ],
    "rolled_ones": [
        ("rolled-ones best (1, 0, 0, 0, 0)", lambda db: db.rolled_ones.best(1, 0, 0, 0, 0)),
        ("rolled-ones best (2, 30, 41, 13, 1)", lambda db: db.rolled_ones.best(2, 30, 41, 13, 1)),
        ("rolled-ones policy keep_pace_end_race (1, 20, 35, 22, 1)",
         lambda db: db.rolled_ones.policy("keep_pace_end_race", 1, 20, 35, 22, 1)),
    ],
    "ten_thousand": [
        ("ten-thousand best (solitaire)", lambda db: db.ten_thousand.best([1, 1, 5, 2, 3, 4], turn_total=0)),
        ("ten-thousand best (two-player)",
         lambda db: db.ten_thousand.best([1, 5, 5], turn_total=600, score=9000, opponent=9500)),
        ("ten-thousand state (bank state, lookahead)", lambda db: db.ten_thousand.state(9000, 9500, 1500, 3)),
        ("ten-thousand odds", lambda db: db.ten_thousand.odds(3, triple=2)),
    ],
}

CLI = {
    "threes": [
        ["threes", "best", "4", "3", "1", "1", "2", "--score", "0", "--to-beat", "7", "--players-after", "4", "--json"],
        ["threes", "expected", "--variant", "reroll", "--json"],
    ],
    "rolled_ones": [
        ["rolled-ones", "best", "--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0", "--ones", "0",
         "--json"],
    ],
    "ten_thousand": [
        ["ten-thousand", "best", "1", "5", "5", "--turn-total", "600", "--score", "9000", "--opponent", "9500", "--json"],
        ["ten-thousand", "state", "--score", "9000", "--opponent", "9500", "--turn-total", "1500", "--dice", "3",
         "--json"],
        ["ten-thousand", "odds", "--dice", "6", "--json"],
    ],
}
