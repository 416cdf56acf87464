"""Issue 34 (hardening, round three): inputs that reached an internal error, ran on without bound, or were
quietly accepted.  Each fault is reproduced as it was found: real rules files on disk, the real ``dicebase``
command in its own process (``python -m dicebase``), input piped to ``dicebase play``.

- item 4: every number of every game's rules file has a documented range; a value outside it (``bank_minimum =
  1e12`` asked numpy for terabytes, ``farkle_penalty = 1e12`` never converged) is one line before any work, and
  within the ranges the build's size check counts what a bank minimum costs.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dicebase.rules import files

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("threes", "rolled-ones", "ten-thousand")


def dicebase(*args, input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """The real command in its own process: (returncode, stdout, stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("DICEBASE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "dicebase", *map(str, args)], input=input, capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)


@contextlib.contextmanager
def serving(db):
    """A real ``dicebase serve`` of ``db`` on a free loopback port: its base URL; stopped afterwards."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "dicebase", "serve", "--host", "127.0.0.1", "--port", "0", "--db",
                             f"duckdb:///{db}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert " at http://" in line, line + proc.stderr.read()
        yield line.split(" at ")[1].split("/ ")[0]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def one_error_line(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """The single ``Error: ...`` line of a refused command (exit ``code``, nothing on stdout, no traceback)."""
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr[-2000:]
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    return lines[0]


def preset_file(game: str) -> str:
    proc = dicebase("rules", game)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def with_value(text: str, key: str, value) -> str:
    """The rules file ``text`` with ``key = value`` (a TOML value written from Python)."""
    written = json.dumps(value)
    new, n = re.subn(rf"(?m)^{re.escape(key)} = .*$", lambda _: f"{key} = {written}", text)
    assert n == 1, key
    return new


def numeric_keys():
    """(game, key) of every number a rules file holds, in every game."""
    out = []
    for game in GAMES:
        for key in files.module(game).FILE_KEYS:
            if key.kind in ("int", "ints"):
                out.append((game, key))
    return out


# --------------------------------------------------------------------------- item 4: every rule value bounded
def test_every_number_of_every_rules_file_has_a_documented_range():
    """No numeric key without both bounds, and the file a player edits says them (``Allowed: ... a..b``)."""
    keys = numeric_keys()
    assert len(keys) >= 25  # threes 5, rolled-ones 6, ten-thousand 17
    for game, key in keys:
        assert key.minimum is not None and key.maximum is not None, (game, key.name)
        assert f"{key.minimum}..{key.maximum}" in key.allowed()
    for game in GAMES:
        text = preset_file(game)
        for key in files.module(game).FILE_KEYS:
            if key.kind in ("int", "ints"):
                assert f"{key.minimum}..{key.maximum}" in text.split(f"\n{key.name} = ")[0].rsplit("\n\n", 1)[-1]


@pytest.mark.parametrize("game, key", numeric_keys(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_a_value_past_its_range_is_one_line_from_rules_check(game, key, tmp_path):
    """Each numeric key of each game, one past its maximum, in a real file: ``dicebase rules --check`` names the
    file, the key, its line and the range (exit 2), in well under a second of work."""
    text = preset_file(game)
    current = tomllib.loads(text)[key.name]
    big = key.maximum + 1
    value = [big, *current[1:]] if key.kind == "ints" else big
    path = tmp_path / f"{key.name}.toml"
    path.write_text(with_value(text, key.name, value))
    line = one_error_line(dicebase("rules", "--check", path))
    assert f"{path}: {key.name} (line " in line and f"{key.minimum}..{key.maximum}" in line, line


@pytest.mark.parametrize("key", ["bank_minimum", "farkle_penalty"])
def test_the_reported_values_are_refused_before_any_work(key, tmp_path):
    """As found: ``bank_minimum = 1e12`` ended in ``internal error (MemoryError: 3.49 TiB)`` and ``farkle_penalty =
    1e12`` ran on; both were accepted by ``rules --check``.  Now both commands refuse them in one line and the
    build creates no file."""
    text = with_value(with_value(preset_file("ten-thousand"), "name", "huge"), key, 10**12)
    path = tmp_path / "huge.toml"
    path.write_text(text)
    line = one_error_line(dicebase("rules", "--check", path))
    assert f"{key} (line " in line and "0..100000" in line and "1000000000000" in line
    db = tmp_path / "huge.duckdb"
    line = one_error_line(dicebase("build", "-q", "--rules", path, "--db", db))
    assert f"{key} (line " in line and "0..100000" in line
    assert not db.exists() and not list(tmp_path.glob("huge.duckdb*"))


def test_the_same_values_as_build_options_are_refused_too(tmp_path):
    """House rules given as a build option (``-o ten-thousand.house_rules={...}``) are checked key by key as a
    file's are, so the range holds there too."""
    values = tomllib.loads(preset_file("ten-thousand"))
    del values["game"], values["name"]
    values["farkle_penalty"] = 10**12
    db = tmp_path / "opt.duckdb"
    line = one_error_line(dicebase("build", "ten-thousand", "-q", "--db", db,
                                   "-o", f"ten-thousand.house_rules={json.dumps({'opt': values})}",
                                   "-o", 'ten-thousand.rules=["opt"]'))
    assert "house_rules['opt']: farkle_penalty: must be a whole number 0..100000" in line, line
    line = one_error_line(dicebase("build", "threes", "-q", "--db", db,
                                   "-o", 'threes.house_rules={"t": {"dice": 5, "faces": 6, "worth": [1, 2, 0, 4, 5, 1e9],'
                                   ' "min_keep": 1, "allow_reroll": false, "keep_after_reroll": 2}}'))
    assert "house_rules['t']: worth: must be a list of faces whole numbers 0..100" in line, line
    assert not db.exists()


def test_a_bank_minimum_within_range_counts_in_the_size_check(tmp_path):
    """Within the ranges the size check decides: a bank minimum of 100,000 points in units of 1 needs a solitaire
    table of 100,001 turn totals (the estimate ignored the bank minimum before, which is how 1e12 reached numpy).
    ``rules --check`` says it builds only with --force-size and what it needs; the build refuses in one line."""
    text = preset_file("ten-thousand")
    text = with_value(with_value(with_value(text, "name", "big-bank"), "bank_minimum", 100_000), "unit", 1)
    path = tmp_path / "big-bank.toml"
    path.write_text(text)
    proc = dicebase("rules", "--check", path)
    assert proc.returncode == 0, proc.stderr
    assert "it builds only with --force-size" in proc.stdout and "100,001 turn totals x 24 classes" in proc.stdout
    db = tmp_path / "big.duckdb"
    line = one_error_line(dicebase("build", "-q", "--rules", path, "--db", db))
    assert "2,400,024 cells (about 48 MB)" in line and "bank_minimum" in line and "--force-size" in line, line
    assert not db.exists()


# --------------------------------------------------------------------------- item 5b: nested arrays, huge files
@pytest.mark.parametrize("depth, open_, close", [(5000, "[", "]"), (500, "[", "]"), (900, "{a=", "}")],
                         ids=["arrays-5000", "arrays-500", "inline-tables-900"])
def test_deeply_nested_values_in_a_rules_file_are_one_line(depth, open_, close, tmp_path):
    """As found: a file with deeply nested arrays gave ``internal error (RecursionError)`` in ``rules --check``
    (tomllib reads nesting recursively); so did ``build --rules``.  Now one line naming the file."""
    path = tmp_path / "deep.toml"
    path.write_text(f'game = "ten-thousand"\nname = "deep"\ndescription = {open_ * depth}1{close * depth}\n')
    for args in (["rules", "--check", path], ["build", "-q", "--rules", path, "--db", tmp_path / "deep.duckdb"]):
        line = one_error_line(dicebase(*args))
        assert str(path) in line and "nested too deeply" in line, line
    assert not (tmp_path / "deep.duckdb").exists()


def test_nesting_the_parser_survives_is_refused_by_the_key_with_a_short_value(tmp_path):
    """Nesting tomllib can read reaches the key checks, whose message shows the value cut short."""
    path = tmp_path / "nested.toml"
    path.write_text('game = "ten-thousand"\nname = "deep"\ndescription = ' + "[" * 200 + "]" * 200 + "\n")
    line = one_error_line(dicebase("rules", "--check", path))
    assert "description (line 3): must be a string, got [[[" in line and len(line) < 300, line


def test_a_huge_rules_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.toml"
    path.write_text("#" * 3_000_000)
    line = one_error_line(dicebase("rules", "--check", path))
    assert "larger than 1,000,000 bytes" in line, line


def test_a_deeply_nested_build_option_is_one_line(tmp_path):
    """The same nesting given as a build option's JSON (``-o GAME.KEY=[[[...]]]``)."""
    db = tmp_path / "o.duckdb"
    line = one_error_line(dicebase("build", "ten-thousand", "-q", "--db", db,
                                   "-o", "ten-thousand.house_rules=" + "[" * 20000 + "]" * 20000))
    assert "nested too deeply" in line, line
    line = one_error_line(dicebase("build", "ten-thousand", "-q", "--db", db,
                                   "-o", "ten-thousand.house_rules=" + "[" * 200 + "]" * 200))
    assert "must map names to rules-file values, got [[[" in line and len(line) < 300, line
    assert not db.exists()


# --------------------------------------------------------------------------- item 5a: answers in dicebase play
#: Lines that are not numbers, each asked again: a 5,000-digit number (past Python's int conversion limit:
#: 10,000 failed on it with 'internal error (ValueError: Exceeds the limit (4300 digits)'), fullwidth and
#: Arabic-Indic digits, an underscore between digits (int() reads '1_0' as 10) and a superscript two.
NOT_NUMBERS = ["9" * 5000, "\uff11", "\u0663", "1_0", "\u00b2"]


def play(db, game: str, *args, lines: list[str]) -> subprocess.CompletedProcess:
    return dicebase("play", game, "--db", db, "--seed", "1", *args, input="".join(f"{x}\n" for x in lines))


def test_ten_thousand_play_asks_again_after_a_5000_digit_answer(built_db):
    """As found: a 5,000-digit answer to 'keep which' ended 10,000's game in an internal error (Threes and Great
    Rolled Ones asked again).  Now each of the lines is refused with the question again, and the game goes on to
    its review."""
    db = built_db(("ten_thousand",))
    proc = play(db, "ten-thousand", lines=NOT_NUMBERS + ["1", "b"] * 600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr == "" and "Review:" in proc.stdout
    head = proc.stdout.split("keep which", 1)[1].split("roll or bank", 1)[0]
    assert head.count("keep one of 1..") == len(NOT_NUMBERS), head[-1000:]


def test_threes_play_asks_again_after_each_non_number(built_db):
    db = built_db(("threes",))
    proc = play(db, "threes", "--bots", "win", "--seat", "1", lines=NOT_NUMBERS + ["1"] * 10)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-2000:]
    assert proc.stdout.count("keep one of") == len(NOT_NUMBERS) and "Review:" in proc.stdout


def test_real_dice_answers_take_ascii_digits_only(built_db):
    """Great Rolled Ones with real dice (how many 1s) and Threes' faces entered by hand: the same lines are not
    numbers there either, so '０' or '1_0' never becomes a count or a face."""
    db = built_db(("rolled_ones",))
    proc = play(db, "rolled-ones", "--real-dice", "--bots", "fixed-hold-at", lines=NOT_NUMBERS + ["1", "h"] * 300)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-2000:]
    first = proc.stdout.split("how many 1s", 1)[1].split("roll or hold", 1)[0]
    assert first.count("give a whole number 0..") == len(NOT_NUMBERS), first[-1000:]
    db = built_db(("threes",))
    proc = play(db, "threes", "--real-dice", "--bots", "only-3s", "--seat", "1",
                lines=["\uff13 3 3 3 3", "0_3 3 3 3 3", "9" * 5000 + " 3 3 3 3", "3 3 3 3 3", "5"])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-2000:]
    assert proc.stdout.count("give 5 faces, each 1..6") == 3


# --------------------------------------------------------------------------- item 6: quiet acceptance
def test_farkles_with_scores_is_refused_and_checked(built_db):
    """As found: ``--farkles`` was ignored with ``--scores`` whatever its value (even ``a,b``).  Now a value that is
    not two counts is refused by the option itself, and counts with ``--scores`` are refused as a combination:
    the N-player tables have no farkle counts."""
    db = built_db(("ten_thousand",))
    for cmd in (["state", "--dice", "6"], ["best", "1", "5", "2", "3"]):
        base = ["ten-thousand", *cmd, "--db", db, "--scores", "300,450,0", "--player", "1", "--turn-total", "0"]
        line = one_error_line(dicebase(*base, "--farkles", "a,b"))
        assert "--farkles must be counts separated by commas, in the digits 0-9 (e.g. 0,2), got 'a,b'" in line, line
        line = one_error_line(dicebase(*base, "--farkles", "0,1"))
        assert "--farkles goes with --score and --opponent" in line and "no farkle counts" in line, line
    # two players: the counts still reach the lookup, which says what it needs of them
    line = one_error_line(dicebase("ten-thousand", "state", "--db", db, "--score", "0", "--opponent", "0",
                                   "--turn-total", "0", "--dice", "6", "--farkles", "0,1"))
    assert "--farkles is for rule sets with a consecutive-farkle penalty" in line, line


#: Texts Python's int() reads as numbers that are not ASCII digits: an underscore, a plus, fullwidth, Arabic-Indic
#: and Devanagari digits (and, for a single number, spaces around it).
NOT_ASCII_WHOLE = ["1_0", "+5", "\uff11\uff10", "\u0661\u0660", "\u0967\u0966"]


@pytest.mark.parametrize("text", NOT_ASCII_WHOLE)
def test_scores_take_ascii_digits_only(text, built_db):
    """As found: ``--scores 1_0`` read as 10, and fullwidth or Arabic-Indic digits as numbers.  Every score of
    ``--scores`` (10,000 and Great Rolled Ones) is ASCII digits now (spaces after a comma are allowed)."""
    for game, db, rest in (
        ("ten-thousand", built_db(("ten_thousand",)), ["state", "--turn-total", "0", "--dice", "6"]),
        ("rolled-ones", built_db(("rolled_ones",)), ["best", "--turn-total", "0", "--ones", "0"]),
    ):
        line = one_error_line(dicebase(game, *rest[:1], "--db", db, "--scores", f"{text},0,0", "--player", "1",
                                       *rest[1:]))
        assert "scores must be whole numbers separated by commas, in the digits 0-9" in line, line


@pytest.mark.parametrize("text", NOT_ASCII_WHOLE)
def test_the_python_api_reads_score_texts_as_the_command_line_does(text, built_db):
    """The read API takes ``scores`` as a text too (``db.rolled_ones.best("30,41,12", 1)``): it refuses what the
    command line refuses, where it read ``1_0`` as 10 with ``int()``; a negative score gets the seat's range."""
    import dicebase.query
    from dicebase.errors import BadInput

    with dicebase.query.open(built_db(("rolled_ones",))) as db:
        with pytest.raises(BadInput, match="scores must be whole numbers separated by commas"):
            db.rolled_ones.best(f"{text},0", 1)
        with pytest.raises(BadInput, match="seat 1's score must be"):
            db.rolled_ones.best("-1,0", 1)
    with dicebase.query.open(built_db(("ten_thousand",))) as db:
        with pytest.raises(BadInput, match="scores must be whole numbers of points separated by commas"):
            db.ten_thousand.state(f"{text},0", 1)


@pytest.mark.parametrize("text", [*NOT_ASCII_WHOLE, " 5"])
def test_every_whole_number_option_and_argument_takes_ascii_digits_only(text, built_db):
    """The same texts in a single-number option (``--score``, ``--players-after``) and a number argument (the
    dice of ``threes best``): one line naming the option (click's int() would have read them)."""
    db = built_db(("threes",))
    for args, name in ((["threes", "best", "4", "3", "1", "--players-after", text], "--players-after"),
                       (["threes", "best", "4", text, "1"], "DICE...")):
        line = one_error_line(dicebase(*args, "--db", db))
        assert f"Invalid value for '{name}'" in line or f"Invalid value for {name}" in line, line
        assert "is not a whole number in the digits 0-9" in line, line
    line = one_error_line(dicebase("ten-thousand", "state", "--score", text, "--opponent", "0", "--turn-total", "0",
                                   "--dice", "6", "--db", built_db(("ten_thousand",))))
    assert "'--score'" in line and "is not a whole number in the digits 0-9" in line, line


def test_a_negative_score_is_still_a_number(built_db):
    """A leading minus stays legal where the option's range allows it (a banked score under a farkle penalty)."""
    proc = dicebase("ten-thousand", "state", "--score", "-100", "--opponent", "0", "--turn-total", "0", "--dice", "6",
                    "--db", built_db(("ten_thousand",)))
    assert "is not a whole number" not in proc.stderr, proc.stderr


def test_the_http_api_refuses_the_same_texts(built_db):
    """Over HTTP (a real ``dicebase serve`` on a real port) the API runs the same commands: a 400 with the same line."""
    import urllib.error
    import urllib.parse
    import urllib.request

    db = built_db(("ten_thousand",))
    with serving(db) as base:
        cases = [({"scores": "1_0,0,0", "player": "1"}, "scores must be whole numbers separated by commas"),
                 ({"scores": "\uff11,0,0", "player": "1"}, "scores must be whole numbers separated by commas"),
                 ({"scores": "300,0,0", "player": "1", "farkles": "a,b"}, "--farkles must be counts"),
                 ({"scores": "300,0,0", "player": "1", "farkles": "0,0"}, "--farkles goes with --score"),
                 ({"score": "\u0661\u0660\u0660", "opponent": "0"}, "is not a whole number in the digits 0-9")]
        for params, says in cases:
            query = urllib.parse.urlencode({**params, "turn_total": "0", "dice": "6"})
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(f"{base}/api/v1/ten-thousand/state?{query}", timeout=30)
            assert info.value.code == 400, (params, info.value.code)
            assert says in json.load(info.value)["error"], params


try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    given = None


if given is not None:
    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(st.one_of(st.integers(0, 10**6).map(str),
                              st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=6)),
                    min_size=1, max_size=4))
    def test_scores_are_read_exactly_when_every_item_is_ascii_digits(run_cli, built_db, items):
        """Property: ``rolled-ones best --scores`` refuses the text as not whole numbers exactly when some item
        (spaces around it aside) is not 1-18 ASCII digits with an optional minus; otherwise whatever it says is
        about the numbers (a negative score: the seat's range)."""
        db = built_db(("rolled_ones",))
        text = ",".join(items)
        if not text or text.startswith("-"):
            return  # click reads a leading '-' as an option
        code, _, err = run_cli(["rolled-ones", "best", "--db", str(db), "--scores", text, "--player", "1",
                                "--turn-total", "0", "--ones", "0"])
        ascii_digits = all(re.fullmatch(r"-?[0-9]{1,18}", item.strip(" ")) for item in text.split(","))
        refused = "scores must be whole numbers separated by commas" in err
        assert refused != ascii_digits, (text, err)
        assert "internal error" not in err and len(err.strip().splitlines()) <= 1, err


# --------------------------------------------------------------------------- item 11: rules in words from the values
def readme_edit(tmp_path) -> Path:
    """The README's own house-rules edit: print the farkle preset, then ``name = "our-table"``, ``three_pairs = 750``."""
    readme = (ROOT / "README.md").read_text()
    assert 'dicebase rules ten-thousand farkle > our-table.toml' in readme
    assert '# edit two lines:  name = "our-table"   three_pairs = 750' in readme
    text = preset_file_of("farkle")
    path = tmp_path / "our-table.toml"
    path.write_text(with_value(with_value(text, "name", "our-table"), "three_pairs", 750))
    return path


def preset_file_of(preset: str) -> str:
    proc = dicebase("rules", "ten-thousand", preset)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def says_750_not_1500(text: str) -> None:
    assert "three pairs 750" in text, text
    assert "three pairs 1500" not in text and "three pairs 1,500" not in text, text


@pytest.fixture(scope="module")
def our_table(tmp_path_factory):
    """A database holding the README's 'our-table', built by the real command (its one-turn tables only)."""
    folder = tmp_path_factory.mktemp("our-table")
    path = readme_edit(folder)
    db = folder / "our.duckdb"
    proc = dicebase("build", "ten-thousand", "-q", "--rules", path, "--db", db,
                    "-o", "ten-thousand.rules=[]", "-o", "ten-thousand.duel_rules=[]", timeout=600)
    assert proc.returncode == 0, proc.stderr
    return path, db


def test_rules_check_says_the_edited_values(our_table):
    """As found: after the README's edit ``rules --check`` still said "three pairs 1500" (the free-text description
    copied from the preset).  The words are generated from the values now, and a note says the description is
    the preset's."""
    path, _ = our_table
    proc = dicebase("rules", "--check", path)
    assert proc.returncode == 0, proc.stderr
    says_750_not_1500(proc.stdout)
    assert "note: description is the farkle preset's, but these rules differ from it (three_pairs = 750, not 1500)" \
        in proc.stdout


def test_rules_words_of_the_built_variant_say_the_values(our_table):
    _, db = our_table
    proc = dicebase("rules", "--db", db, "--variant", "our-table", "--words")
    assert proc.returncode == 0, proc.stderr
    says_750_not_1500(proc.stdout)
    assert "A player still at 0 needs 500 points in one turn to get on the board." in proc.stdout


def test_the_pages_say_the_values(our_table):
    """The home page's table of rule variants and the 10,000 page's rules in words, from a real ``dicebase
    serve`` on a real port."""
    import html
    import urllib.request

    _, db = our_table
    with serving(db) as base:
        with urllib.request.urlopen(f"{base}/", timeout=60) as reply:
            home = html.unescape(reply.read().decode())
        row = home.split("<td>our-table</td>", 1)[1].split("</tr>", 1)[0]
        says_750_not_1500(row)
        with urllib.request.urlopen(f"{base}/ten-thousand?rules=our-table", timeout=60) as reply:
            page = html.unescape(reply.read().decode())
        says_750_not_1500(page)


def test_a_description_of_ones_own_and_a_presets_own_are_kept(tmp_path):
    """The description stays where it is the rule set's own: a player's own words, or a preset's unchanged."""
    text = with_value(with_value(with_value(preset_file_of("farkle"), "name", "kitchen"), "three_pairs", 750),
                      "description", "Our kitchen table's Farkle")
    path = tmp_path / "kitchen.toml"
    path.write_text(text)
    proc = dicebase("rules", "--check", path)
    assert proc.returncode == 0 and "  Our kitchen table's Farkle.\n" in proc.stdout and "note:" not in proc.stdout
    says_750_not_1500(proc.stdout)
    proc = dicebase("rules", "ten-thousand", "farkle", "--words")
    assert proc.stdout.startswith("Widely played Farkle scoring") and "three pairs 1,500 (four of a kind" in proc.stdout
