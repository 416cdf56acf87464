"""Pig's figure (issue 31): the optimal roll/hold boundary of two players (Neller and Presser, "Optimal Play of
the Dice Game Pig", The UMAP Journal 25(1), 2004, draw it as a surface over own score, opponent score and turn
total).  It renders, it is in the gallery through Pig's descriptor, and every cell agrees with `pig best`."""

from __future__ import annotations

import pytest

import dicebase
from dicebase import plots
from dicebase.errors import NotInDatabase
from dicebase.rules.pig import reachable


@pytest.fixture(scope="module")
def path(built_db):
    return built_db(("pig",))  # the tests' build: piglet and pig6, 2 and 3 players


def test_it_is_pigs_figure_and_renders(path, run_cli, tmp_path):
    assert plots.names("pig") == ["pig-boundary"]
    with dicebase.open(path) as db:
        png = plots.render(db, "pig-boundary", "png", variant="piglet")
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
        assert plots.size_px(db, "pig-boundary", variant="piglet") == (1200, 640)
        assert "FROM pig_turn_starts" in plots.sql(db, "pig-boundary", variant="pig6")
    out = tmp_path / "pig.svg"
    code, _, err = run_cli(["plot", "pig-boundary", "--variant", "pig6", "--out", str(out),
                            "--db", str(path)])
    assert code == 0 and out.read_bytes().startswith(b"<?xml"), err


@pytest.mark.parametrize("variant", ["piglet", "pig6"])
def test_every_cell_is_what_pig_best_answers(path, variant):
    """The hold-at total of each (own, opponent) score: `pig best` holds there and rolls at every reachable
    total below it; a grey cell (NaN) rolls at every reachable total; a hatched one rolls again above it."""
    with dicebase.open(path) as db:
        data = plots.data(db, "pig-boundary", variant=variant)
        rules = db.pig.variant(variant).rules
        G = rules.goal
        for i in range(G):
            for j in range(G):
                totals = sorted(reachable(rules, G - 1 - i) - {0})
                best = {k: db.pig.best([i, j], 1, k, variant=variant).best for k in totals}
                hold_at = data["hold_at"][j, i]
                if hold_at != hold_at:  # NaN: never holds
                    assert set(best.values()) <= {"roll"}
                    continue
                assert best[int(hold_at)] == "hold" and all(best[k] == "roll" for k in totals if k < hold_at)
                assert bool(data["split"][j, i]) == any(best[k] == "roll" for k in totals if k > hold_at)


def test_needs_two_players_built(built_db, run_cli):
    three = built_db(("pig",), "duckdb", {"pig": {"variants": ["piglet"], "house_rules": {}, "players": [3],
                                                  "policy_players": [3]}})
    with dicebase.open(three) as db, pytest.raises(NotInDatabase, match="2 players are not built for piglet"):
        plots.render(db, "pig-boundary", "png")
    code, _, err = run_cli(["plot", "pig-boundary", "--variant", "nope", "--db", str(three)])
    assert code == 2 and err.startswith("Error: ") and err.count("\n") == 1
