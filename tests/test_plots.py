"""dicebase plot: every figure draws exactly the rows of its documented SQL, from both stores.

The arrays are checked where they reach matplotlib (Axes.imshow / plot / text are wrapped
and record their arguments), against a direct run of the SQL that `dicebase plot NAME --sql`
prints, arranged here independently of dicebase.plots.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import dicebase
from dicebase import games, plots
from dicebase.query.base import BadInput, NotInDatabase

GAME_OF = {name: spec.game for name, spec in plots.FIGURES.items()}

#: (figure, options) drawn in the tests: every figure, and the options that change what is drawn.
CASES = [
    ("rolled-ones-strategy", {}),
    ("rolled-ones-strategy", {"player": 2, "ones": 1}),
    ("rolled-ones-policy-errors", {"policy": "simple-ones-cases"}),
    ("rolled-ones-policy-errors", {"policy": "fixed_hold_at", "player": 1}),
    ("rolled-ones-komi", {}),
    ("seat-advantage", {}),
    ("threes-chances", {}),
    ("threes-chances", {"variant": "reroll", "ties": "strict"}),
    ("threes-seats", {}),
    ("threes-keep-chart", {}),
    ("threes-keep-chart", {"variant": "reroll", "players_after": 2}),
    ("ten-thousand-thresholds", {}),
    ("ten-thousand-thresholds", {"variant": "farkle"}),
    ("ten-thousand-win", {}),
]
FIRST_CASE = {}
for _name, _options in CASES:
    FIRST_CASE.setdefault(_name, _options)


def case_id(case) -> str:
    name, options = case
    return name + "".join(f"-{k}={v}" for k, v in options.items())


@pytest.fixture(scope="module")
def db_path(built_db):
    """db_path(figure, kind) -> the test database of the figure's game in that store."""
    return lambda name, kind="duckdb": built_db((GAME_OF[name],), kind)


@pytest.fixture
def recorder(monkeypatch):
    """Every Axes.imshow / plot / text call during the test: (method, axes, args, kwargs)."""
    from matplotlib.axes import Axes

    calls = []
    for method in ("imshow", "plot", "text"):
        original = getattr(Axes, method)

        def wrapper(self, *args, _original=original, _method=method, **kwargs):
            calls.append((_method, self, args, kwargs))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Axes, method, wrapper)
    return calls


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


# ---------------------------------------------------------------------------
# every figure renders, from both stores, at its size, with content
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["duckdb", "sqlite"])
@pytest.mark.parametrize("name", list(plots.FIGURES))
def test_every_figure_renders_from_both_stores(name, kind, db_path, tmp_path):
    from matplotlib.image import imread

    options = FIRST_CASE.get(name, {})  # a figure without a case here: its defaults
    with dicebase.open(f"{kind}:///{db_path(name, kind)}") as db:
        png = plots.render(db, name, "png", **options)
        expected_size = plots.size_px(db, name, **options)
    out = tmp_path / f"{name}.png"
    out.write_bytes(png)
    assert png_size(out.read_bytes()) == expected_size
    assert expected_size[0] == 1200  # readable at 1200 px: the figures are drawn for that width
    pixels = imread(out)[..., :3]
    not_white = (pixels < 0.97).any(axis=2).mean()
    colours = len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert not_white > 0.03, f"{name}: only {not_white:.1%} of the pixels are drawn"
    assert colours > 30, f"{name}: {colours} colours"


@pytest.mark.parametrize("case", CASES[1:], ids=case_id)
def test_option_variants_render(case, db_path):
    name, options = case
    with dicebase.open(db_path(name)) as db:
        png = plots.render(db, name, "png", **options)
        assert png_size(png) == plots.size_px(db, name, **options)


@pytest.mark.parametrize("fmt,head", [("svg", b"<svg"), ("pdf", b"%PDF")])
def test_vector_formats(fmt, head, db_path):
    with dicebase.open(db_path("rolled-ones-komi")) as db:
        data = plots.render(db, "rolled-ones-komi", fmt)
    assert head in data[:400]


def test_panel_options_set_the_height(db_path):
    with dicebase.open(db_path("rolled-ones-strategy")) as db:
        both = plots.size_px(db, "rolled-ones-strategy")
        one = plots.size_px(db, "rolled-ones-strategy", player=1)
        single = plots.size_px(db, "rolled-ones-strategy", player=1, ones=0)
    assert both[1] > one[1] and one[0] == single[0] == 1200


# ---------------------------------------------------------------------------
# the arrays handed to matplotlib are the rows of the documented SQL
# ---------------------------------------------------------------------------
def direct_query(db, name, options) -> list[dict]:
    """The figure's SQL as `dicebase plot NAME --sql` prints it, run as a user would run it."""
    text = plots.sql(db, name, **options)
    assert "?" not in text  # the values are written in: the text runs as it stands
    names, rows = db.run_sql(text)
    return [dict(zip(names, row)) for row in rows]


def drawn(recorder, method, **match):
    """Recorded calls of ``method`` whose kwargs match (e.g. family='monospace')."""
    return [(ax, args, kw) for m, ax, args, kw in recorder if m == method
            and all(kw.get(k) == v for k, v in match.items())]


ONES = {"no": 0, "one": 1, "two": 2}


def rolled_ones_panel(ax) -> tuple[int, int]:
    p, words = re.match(r"Player (\d), (\w+) 1", ax.get_title()).groups()
    return int(p), ONES[words]


def grids_by(rows, keys, value, shape, y, x) -> dict:
    out: dict = {}
    for r in rows:
        grid = out.setdefault(tuple(r[k] for k in keys), np.full(shape, np.nan))
        if r[value] is not None:
            grid[r[y], r[x]] = r[value]
    return out


@pytest.mark.parametrize("case", [c for c in CASES if c[0].startswith("rolled-ones-strategy")], ids=case_id)
def test_strategy_map_draws_the_largest_rolled_turn_total(case, db_path, recorder):
    name, options = case
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, options)
        goal = db.rolled_ones.variant().goal
        plots.render(db, name, "png", **options)
    expected = grids_by(rows, ("p", "o"), "last_roll_k", (goal, goal), "j", "i")
    images = drawn(recorder, "imshow")
    assert len(images) == len(expected) == len({(r["p"], r["o"]) for r in rows})
    for ax, (grid,), _ in images:
        np.testing.assert_array_equal(grid, expected[rolled_ones_panel(ax)])
    if options.get("player"):
        assert {p for p, _ in expected} == {options["player"]}


def test_policy_errors_draw_the_largest_cost(db_path, recorder):
    name, options = "rolled-ones-policy-errors", {"policy": "simple-ones-cases"}
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, options)
        goal = db.rolled_ones.variant().goal
        plots.render(db, name, "png", **options)
    expected = grids_by(rows, ("p", "o"), "max_cost", (goal, goal), "j", "i")
    images = drawn(recorder, "imshow")
    assert len(images) == 6
    for ax, (grid,), _ in images:
        np.testing.assert_array_equal(grid, expected.get(rolled_ones_panel(ax), np.full((goal, goal), np.nan)))
    assert all(r["max_cost"] > 0 for r in rows)  # a disagreement never gains


def test_komi_draws_both_players_and_the_fair_point(db_path, recorder):
    name = "rolled-ones-komi"
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, {})
        plots.render(db, name, "png")
    lines = {kw.get("label"): args for _, args, kw in drawn(recorder, "plot")}
    komi = [r["komi"] for r in rows]
    np.testing.assert_array_equal(lines["player 1 (moves first)"][0], komi)
    np.testing.assert_array_equal(lines["player 1 (moves first)"][1], [r["p1_win"] for r in rows])
    np.testing.assert_array_equal(lines["player 2"][1], [r["p2_win"] for r in rows])
    fair = [r for r in rows if r["fair"]]
    np.testing.assert_array_equal(lines["fair komi"][0], [r["komi"] for r in fair])
    # seed 002 (002_adf76725bcd1fb40.txt, "Compensation Points"): 3 points, player 1 wins 0.4955
    assert [r["komi"] for r in fair] == [3] and round(fair[0]["p1_win"], 4) == 0.4955


def test_seat_advantage_draws_every_seat_of_every_n(db_path, recorder):
    name = "seat-advantage"
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, {})
        plots.render(db, name, "png")
    assert rows and {r["game"] for r in rows} == {"Great Rolled Ones"}  # the test build has no N-player 10,000
    lines = {kw.get("label"): args for _, args, kw in drawn(recorder, "plot")}
    for seat in {r["seat"] for r in rows}:
        mine = [r for r in rows if r["seat"] == seat]
        np.testing.assert_array_equal(lines[f"seat {seat}"][0], [r["players"] for r in mine])
        np.testing.assert_array_equal(lines[f"seat {seat}"][1], [r["advantage"] for r in mine])
    for r in rows:  # advantage = p_win - 1/N, and the seats of one N share 1
        assert abs(r["advantage"] - (r["p_win"] - 1 / r["players"])) <= 1e-15
    # seed 002 ("First Player Advantage"): two players, 0.4495 and 0.5505
    two = [r["p_win"] for r in rows if r["players"] == 2]
    assert abs(two[0] - 0.4495) <= 1e-4 and abs(two[1] - 0.5505) <= 1e-4


@pytest.mark.parametrize("case", [c for c in CASES if c[0] == "threes-chances"], ids=case_id)
def test_chances_draw_one_curve_per_dice_count(case, db_path, recorder):
    name, options = case
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, options)
        plots.render(db, name, "png", **options)
    expected: dict = {}
    for r in rows:
        expected.setdefault((r["dice_left"], bool(r["must_keep_two"])), []).append((r["target"], r["p_win"]))
    curves = drawn(recorder, "plot")
    assert len(curves) == len(expected)
    for _, (x, y), kw in curves:
        dice = int(kw["label"].split()[0])
        points = expected[(dice, "must keep two" in kw["label"])]
        np.testing.assert_array_equal(x, [t for t, _ in points])
        np.testing.assert_array_equal(y, [p for _, p in points])
    if options.get("variant", "classic") == "classic" and options.get("ties", "shared") == "shared":
        # seed 000 (000_450f6a57c3cf1371.txt, "Rolling Second", one die, no take-two): gap 0..6 ->
        # 0.1667, 0.3334, 0.5001, 0.5001, 0.6668, 0.8335, 1.000 (simulated to about 1e-4)
        one_die = [p for _, p in expected[(1, False)][:7]]
        np.testing.assert_allclose(one_die, [1 / 6, 2 / 6, 3 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0], atol=2e-4)


def test_seats_draw_every_seat_of_every_round(db_path, recorder):
    name = "threes-seats"
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, {})
        plots.render(db, name, "png")
    rounds: dict = {}
    for r in rows:
        rounds.setdefault(r["players"], []).append(r)
    lines = drawn(recorder, "plot")
    left = [(args[0], args[1]) for ax, args, _ in lines if ax.get_title().startswith("Win chance")]
    right = [(args[0], args[1]) for ax, args, _ in lines if ax.get_title().startswith("Relative")]
    assert len(left) == len(right) == len(rounds)
    for (seats, p_win), (_, edge), players in zip(left, right, sorted(rounds)):
        np.testing.assert_array_equal(seats, [r["seat"] for r in rounds[players]])
        np.testing.assert_array_equal(p_win, [r["p_win"] for r in rounds[players]])
        np.testing.assert_array_equal(edge, [r["edge_over_seat_1"] for r in rounds[players]])
    # seed 003 (003_8344d4625da6f45d.txt): "each spot down in turn order seems to confer an
    # approximately 2% advantage" -- with shared ties every later seat wins more, on average
    # between 0.5% and 4% (relative to seat 1) a spot
    for players, seats in rounds.items():
        edges = [r["edge_over_seat_1"] for r in seats]
        assert edges[0] == 0 and all(b > a for a, b in zip(edges, edges[1:])), (players, edges)
        assert 0.005 < edges[-1] / (players - 1) < 0.04, (players, edges)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] == "threes-keep-chart"], ids=case_id)
def test_keep_chart_prints_every_roll_with_its_stored_keep(case, db_path, recorder):
    name, options = case
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, options)
        plots.render(db, name, "png", **options)
    assert len(rows) == 252  # multisets of five six-sided dice

    def cell(roll: str, keep: int) -> str:
        faces = roll.split()
        return " ".join(["|", *faces] if keep == 0 else [*faces[:keep], "|", *faces[keep:]] if keep < 5 else faces)

    texts = [args[2] for _, args, _ in drawn(recorder, "text", family="monospace")]
    assert texts == [cell(r["roll"], r["keep"]) for r in rows]
    if "players_after" not in options:
        # seed 000 (000_450f6a57c3cf1371.txt): with 3 3 1 1 2 you keep everything (4 points beats
        # keeping 3 3 1 1 and rolling one die, 2 + 3 expected)
        assert {r["roll"]: r["keep"] for r in rows}["3 3 1 1 2"] == 5


@pytest.mark.parametrize("case", [c for c in CASES if c[0] == "ten-thousand-thresholds"], ids=case_id)
def test_thresholds_draw_the_solitaire_table_and_the_duel_maps(case, db_path, recorder):
    name, options = case
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, options)
        goal = db.ten_thousand.goal("ten-thousand") if options.get("variant") != "farkle" else 0
        plots.render(db, name, "png", **options)
    images = drawn(recorder, "imshow")
    solitaire = [r for r in rows if r["part"] == "solitaire"]
    triples = sorted({r["triple"] for r in solitaire})
    table = np.full((6, len(triples)), np.nan)
    for r in solitaire:
        table[r["dice"] - 1, triples.index(r["triple"])] = r["turn_total"]
    (ax, (grid,), _), *maps = images
    assert ax.get_title().startswith("Solitaire")
    np.testing.assert_array_equal(grid, table)
    duel = [r for r in rows if r["part"] == "duel"]
    if not goal:
        assert not duel and not maps  # farkle: no two-player solve in the test database
        return
    cells = goal // 50
    expected = grids_by([{**r, "y": r["opponent"] // 50, "x": r["score"] // 50} for r in duel],
                        ("dice",), "turn_total", (cells, cells), "y", "x")
    assert len(maps) == 6
    for ax, (grid,), _ in maps:
        title = ax.get_title()
        dice = 6 if title.startswith("six") else int(title.split()[0])
        np.testing.assert_array_equal(grid, expected[(dice,)])


def test_win_map_draws_the_turn_start_win_chance(db_path, recorder):
    name = "ten-thousand-win"
    with dicebase.open(db_path(name)) as db:
        rows = direct_query(db, name, {})
        plots.render(db, name, "png")
    cells = max(r["score"] for r in rows) // 50 + 1
    expected = grids_by([{**r, "y": r["opponent"] // 50, "x": r["score"] // 50, "k": 0} for r in rows],
                        ("k",), "p_win", (cells, cells), "y", "x")[(0,)]
    ((_, (grid,), _),) = drawn(recorder, "imshow")
    np.testing.assert_array_equal(grid, expected)
    assert not np.isnan(grid).any()


@pytest.mark.parametrize("name", list(plots.FIGURES))
def test_both_stores_give_the_same_arrays(name, db_path):
    options = FIRST_CASE.get(name, {})  # a figure without a case here: its defaults
    with dicebase.open(f"duckdb:///{db_path(name)}") as duck, dicebase.open(f"sqlite:///{db_path(name, 'sqlite')}") as lite:
        a, b = plots.data(duck, name, **options), plots.data(lite, name, **options)
        assert plots.sql(duck, name, **options) == plots.sql(lite, name, **options)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray) and a[key].dtype.kind == "f":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-12, atol=1e-15, err_msg=key)
        elif isinstance(a[key], list):
            assert len(a[key]) == len(b[key])
            for x, y in zip(a[key], b[key]):
                for u, v in zip(x, y):
                    np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)


# ---------------------------------------------------------------------------
# the Python API
# ---------------------------------------------------------------------------
def test_api_refuses_bad_names_and_options(db_path):
    with dicebase.open(db_path("threes-chances")) as db:
        with pytest.raises(BadInput, match="no figure named"):
            plots.render(db, "threes-nope")
        with pytest.raises(BadInput, match="has no option --player"):
            plots.render(db, "threes-chances", player=1)
        with pytest.raises(BadInput, match="format must be one of png, svg, pdf"):
            plots.render(db, "threes-chances", "gif")
        with pytest.raises(BadInput, match="--players-after must be a whole number"):
            plots.render(db, "threes-keep-chart", players_after="2")
        with pytest.raises(NotInDatabase, match="not built"):
            plots.render(db, "rolled-ones-komi")  # a threes-only database


def test_build_stamp_names_the_build(db_path):
    with dicebase.open(db_path("threes-seats")) as db:
        stamp = plots.build_stamp(db, "threes-seats")
        (built_at,) = db.fetchone("SELECT built_at FROM build_games WHERE game = 'threes'")
    assert built_at in stamp and stamp == plots.build_stamp(dicebase.open(db_path("threes-seats")), "threes-seats")


def test_every_figure_is_listed_with_its_game():
    assert plots.names("rolled-ones") == ["rolled-ones-strategy", "rolled-ones-policy-errors", "rolled-ones-komi",
                                          "seat-advantage"]
    assert set(plots.names()) == set(plots.FIGURES) and len(plots.FIGURES) >= 9
    assert sorted(n for g in games.names("figures") for n in plots.names(g)) == sorted(plots.FIGURES)
    both_games = {"seat-advantage"}  # one panel per game's N-player blocks: listed with rolled-ones, named for both
    for spec in plots.FIGURES.values():
        assert spec.summary and spec.description and spec.examples
        assert spec.name in both_games or spec.name.startswith(spec.game.replace("_", "-"))


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------
def test_plot_list(run_cli):
    code, out, err = run_cli(["plot", "--list"])
    assert code == 0 and not err
    assert [line.split()[0] for line in out.splitlines()] == list(plots.FIGURES)


def test_plot_writes_name_png_here_and_prints_the_path(run_cli, db_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["plot", "threes-seats", "--db", db_path("threes-seats")])
    assert code == 0, err
    assert out.strip() == "threes-seats.png" and png_size((tmp_path / "threes-seats.png").read_bytes())[0] == 1200


@pytest.mark.parametrize("suffix,head", [(".svg", b"<svg"), (".pdf", b"%PDF"), (".PNG", b"\x89PNG")])
def test_plot_out_suffix_picks_the_format(suffix, head, run_cli, db_path, tmp_path):
    out = tmp_path / f"komi{suffix}"
    code, stdout, err = run_cli(["plot", "rolled-ones-komi", "--out", out, "--db", db_path("rolled-ones-komi")])
    assert code == 0, err
    assert head in out.read_bytes()[:400] and stdout.strip() == str(out)


@pytest.mark.parametrize("name", list(plots.FIGURES))
def test_plot_sql_prints_the_documented_query(name, run_cli, db_path):
    options = FIRST_CASE.get(name, {})  # a figure without a case here: its defaults
    args = [arg for k, v in options.items() for arg in ("--" + k.replace("_", "-"), v)]
    code, out, err = run_cli(["plot", name, *args, "--sql", "--db", db_path(name)])
    assert code == 0, err
    with dicebase.open(db_path(name)) as db:
        assert out.strip() == plots.sql(db, name, **options)
    code, out, err = run_cli(["sql", out, "--db", db_path(name), "--json"])
    assert code == 0 and out.startswith("["), err  # runs as printed with `dicebase sql`


BAD = [
    (["plot", "no-such-figure"], "No such command"),
    (["plot", "threes-chances", "--player", "1"], "No such option"),
    (["plot", "rolled-ones-strategy", "--player", "3"], "--player must be 1 or 2"),
    (["plot", "rolled-ones-strategy", "--player", "x"], "is not a whole number"),
    (["plot", "rolled-ones-strategy", "--ones", "3"], "--ones must be 0..2"),
    (["plot", "rolled-ones-strategy", "--variant", "huge"], "unknown variant"),
    (["plot", "rolled-ones-policy-errors"], "--policy"),
    (["plot", "rolled-ones-policy-errors", "--policy", "greedy"], "unknown policy"),
    (["plot", "threes-chances", "--ties", "random"], "--ties must be one of shared, strict"),
    (["plot", "threes-chances", "--variant", "five-thousand"], "unknown variant"),
    (["plot", "threes-keep-chart", "--players-after", "0"], "--players-after must be 1.."),
    (["plot", "threes-keep-chart", "--players-after", "99"], "--players-after must be 1.."),
    (["plot", "ten-thousand-win", "--variant", "yahtzee"], "unknown rule set"),
    (["plot", "ten-thousand-win", "--rules", "farkle"], "not built"),
    (["plot", "ten-thousand-win", "--goal", "5000"], "--goal must be the goal built"),
    (["plot", "threes-seats", "--out", "seats.gif"], "--out must end in .png, .svg, .pdf"),
    (["plot", "threes-seats", "--out", "no/such/dir/seats.png"], "does not exist"),
    (["plot", "threes-seats", "--out", "."], "--out must end in"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a[1:]) for a, _ in BAD])
def test_bad_names_and_options_are_one_line_exit_2(args, message, run_cli, db_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = args[1] if args[1] in plots.FIGURES else "threes-chances"
    code, out, err = run_cli([*args, "--db", db_path(name)])
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("Error: ") and message in err, err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == []  # nothing written


def test_missing_database_is_one_line_exit_2(run_cli, tmp_path):
    code, out, err = run_cli(["plot", "threes-seats", "--db", tmp_path / "none.duckdb"])
    assert code == 2 and err.count("\n") == 1 and "dicebase build" in err


# ---------------------------------------------------------------------------
# heavy imports stay where they belong
# ---------------------------------------------------------------------------
def loaded_modules(script: str) -> set[str]:
    probe = (
        "import sys\nfrom dicebase.main import main\n"
        f"try:\n    main({script})\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('matplotlib', 'dicebase.plots', 'numpy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(eval(result.stdout.strip().splitlines()[-1]))  # noqa: S307 - our own printed list


def test_lookups_never_import_matplotlib_or_the_plots(db_path):
    threes = str(db_path("threes-chances"))
    rolled = str(db_path("rolled-ones-komi"))
    for args in (
        ["threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "4", "--db", threes],
        ["rolled-ones", "best", "--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0",
         "--ones", "0", "--db", rolled],
        ["sql", "SELECT 1", "--db", threes],
        ["--help"],
    ):
        loaded = loaded_modules(repr(args))
        assert not loaded & {"matplotlib", "dicebase.plots"}, (args, loaded)


def test_plot_list_and_sql_do_not_load_matplotlib(db_path):
    assert "matplotlib" not in loaded_modules(repr(["plot", "--list"]))
    assert "matplotlib" not in loaded_modules(repr(["plot", "threes-chances", "--sql", "--db",
                                                    str(db_path("threes-chances"))]))
