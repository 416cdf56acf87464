"""Issue 34, items 7, 10 and 13 (c): every remedy a "not built" line prints is a command that works.

Each case provokes the line the way a user meets it (the real ``dicebase`` program, in a shell, on a
small copy of a test build), takes the printed command out of it, RUNS it in a shell as printed, and
asks the first lookup again: it now answers.  The cases: a game not in the file, Threes' variants and
tie rules, a 10,000 rule set, its two-player game, N-player tables of a rule set that is not a
two-player one (the hint used to repeat the very build that left it out), a house-rules file (the
hint used to be ~1,000 characters of JSON, cut before the option it was for), Great Rolled Ones'
N-player tables; a number of players no build can store names no command.  The page shows the
same short line, and the page and the CLI agree about which N-player tables are built.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DICEBASE = str(Path(sys.executable).parent / "dicebase")
HANG = 900  # seconds: a hang guard only, never a timing assertion

SMALL_10K = {"goal": 500, "rules": ["ten-thousand", "farkle"]}  # two-player: ten-thousand only; no N players
SMALL_THREES = {"max_players": 3, "variants": ["classic"], "ties": ["shared"], "many_dice": 50, "many_dice_chances": 5}
SMALL_ROLLED = {"goal": 20, "players": [2], "policy_players": [2], "policy_best_response_players": []}


def sh(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """``command`` in a real shell (as a user pastes it), with this venv's dicebase first on PATH."""
    env = {**os.environ, "PATH": f"{Path(DICEBASE).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("DICEBASE_DB", None)
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG)


def remedy_of(line: str) -> str:
    """The command an error line ends with (after "with: ")."""
    found = re.search(r"with: (dicebase (?:build|rules) .*)$", line.strip())
    assert found, f"no command in {line!r}"
    return found.group(1)


def copy_of(path: Path, tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(path, target)
    return target


def provoke_run_and_ask_again(cwd: Path, lookup: str, expect: str) -> str:
    """Run ``lookup`` (fails with one line naming a command), run the command, run ``lookup`` again."""
    first = sh(lookup, cwd)
    line = first.stderr.strip()
    assert first.returncode == 2 and len(line.splitlines()) == 1 and line.startswith("Error: "), (first.returncode, line)
    assert re.search(expect, line), line
    command = remedy_of(line)
    built = sh(command, cwd)
    assert built.returncode == 0, (command, built.stderr[-2000:])
    again = sh(lookup, cwd)
    assert again.returncode == 0 and again.stdout.strip(), (lookup, again.stderr)
    return line


@pytest.fixture(scope="module")
def small_10k(built_db):
    return built_db(("ten_thousand",), options={"ten_thousand": SMALL_10K})


def test_n_players_of_a_rule_set_that_is_not_two_player(small_10k, tmp_path):
    """Item 7: the hint adds the rule set to the two-player ones as well (the build of N players extends those)."""
    copy_of(small_10k, tmp_path, "t.duckdb")
    line = provoke_run_and_ask_again(tmp_path, "dicebase ten-thousand seats --variant farkle --players 3 --db t.duckdb",
                                     r"3 players are not built for farkle")
    assert "duel_rules=[\"ten-thousand\",\"farkle\"]" in line and "players=[3]" in line


def test_a_rule_set_and_its_two_player_game(small_10k, tmp_path):
    copy_of(small_10k, tmp_path, "t.duckdb")
    provoke_run_and_ask_again(tmp_path, "dicebase ten-thousand odds --dice 6 --variant zilch --db t.duckdb",
                              r"rule set 'zilch' is not built; add it with")
    provoke_run_and_ask_again(
        tmp_path, "dicebase ten-thousand state --score 0 --opponent 0 --turn-total 0 --dice 6 --variant farkle "
        "--db t.duckdb", r"the two-player game of 'farkle' is not built; add it with")


def test_a_house_rules_file_is_named_by_its_file_and_the_hint_is_short(small_10k, tmp_path):
    """Item 10: README's own edit (a rules file from a preset, renamed, three_pairs = 750), built beside the
    file's presets; the N-player and two-player hints name the file and the one option to add, in full."""
    copy_of(small_10k, tmp_path, "t.duckdb")
    made = sh("dicebase rules ten-thousand farkle > our-table.toml", tmp_path)
    assert made.returncode == 0, made.stderr
    text = (tmp_path / "our-table.toml").read_text()
    text = re.sub(r'(?m)^name = .*$', 'name = "our-table"', text)
    text = re.sub(r"(?m)^three_pairs = .*$", "three_pairs = 750", text)
    text = re.sub(r"(?m)^goal = .*$", "goal = 500", text)  # small: the machine is tiny
    (tmp_path / "our-table.toml").write_text(text)
    built = sh("dicebase build ten-thousand --db t.duckdb --rules our-table.toml -q", tmp_path)
    assert built.returncode == 0, built.stderr
    # the two-player game of the house rule set (two_player = false in the file)
    line = provoke_run_and_ask_again(
        tmp_path, "dicebase ten-thousand state --score 0 --opponent 0 --turn-total 0 --dice 6 --variant our-table "
        "--db t.duckdb", r"the two-player game of 'our-table' is not built")
    assert "house_rules" not in line and "--rules our-table-as-built.toml" in line and len(remedy_of(line)) <= 260, line
    # then its 3-player tables: the option to add, in full, and the file named
    line = provoke_run_and_ask_again(
        tmp_path, "dicebase ten-thousand seats --variant our-table --players 3 --db t.duckdb",
        r"3 players are not built for our-table")
    command = remedy_of(line)
    assert "-o 'ten-thousand.players=[3]'" in command and "--rules our-table-as-built.toml" in command
    assert "house_rules" not in line and "..." not in line and len(command) <= 260, line
    assert (tmp_path / "our-table.toml").read_text() == text  # the user's own file is left alone
    # the rule set is still the file's: three pairs 750
    best = sh("dicebase ten-thousand best 2 2 4 4 6 6 --turn-total 0 --variant our-table --db t.duckdb --json",
              tmp_path)
    assert best.returncode == 0 and json.loads(best.stdout)["actions"][0]["points"] == 750, best.stdout[:400]


def test_threes_variants_and_tie_rules(built_db, tmp_path):
    copy_of(built_db(("threes",), options={"threes": SMALL_THREES}), tmp_path, "t.duckdb")
    provoke_run_and_ask_again(tmp_path, "dicebase threes best 4 3 1 1 2 --variant reroll --db t.duckdb",
                              r"variant 'reroll' is not built")
    provoke_run_and_ask_again(
        tmp_path, "dicebase threes best 4 3 1 1 2 --to-beat 7 --players-after 1 --ties strict --db t.duckdb",
        r"tie rule 'strict' is not built")


def test_rolled_ones_n_players_and_a_game_not_in_the_file(built_db, tmp_path):
    copy_of(built_db(("rolled_ones",), options={"rolled_ones": SMALL_ROLLED}), tmp_path, "r.duckdb")
    provoke_run_and_ask_again(tmp_path, "dicebase rolled-ones seats --players 3 --db r.duckdb",
                              r"3 players are not built for .*; rebuild with")
    # Threes is not in the file: the command adds it with its own defaults and keeps Great Rolled Ones
    provoke_run_and_ask_again(tmp_path, "dicebase threes seats --players 4 --db r.duckdb",
                              r"threes is not built into r\.duckdb; add it with: dicebase build threes --db r\.duckdb$")
    assert sh("dicebase rolled-ones seats --players 3 --db r.duckdb", tmp_path).returncode == 0


def test_pig_two_house_rule_sets_in_one_file_the_second_is_named(tmp_path):
    """Found in issue 31's review: with two house rule sets built, the remedy for the second's missing
    3 players wrote the first's rules file; it names the one asked for now, and following it adds them."""
    from dicebase.rules import files, pig

    for goal in (5, 6):
        (tmp_path / f"g{goal}.toml").write_text(files.dump("pig", f"g{goal}", {**pig.to_file(pig.PIG), "goal": goal},
                                                           f"Pig to {goal}"))
    built = sh("dicebase build pig --db p.duckdb --rules g5.toml --rules g6.toml -o pig.variants=[] --quiet", tmp_path)
    assert built.returncode == 0, built.stderr
    line = provoke_run_and_ask_again(tmp_path, "dicebase pig seats --players 3 --rules g6 --db p.duckdb",
                                     r"3 players are not built for g6 .*; rebuild with")
    assert "--variant g6" in remedy_of(line) and "g5" not in remedy_of(line), line
    assert sh("dicebase pig seats --players 2 --rules g5 --db p.duckdb", tmp_path).returncode == 0


@pytest.mark.parametrize("game", ["rolled-ones", "ten-thousand"])
def test_more_players_than_any_build_stores_names_no_command(small_10k, built_db, tmp_path, game):
    """Item 7: five players (you and four bots) used to suggest players=[2,3,5], which the build refuses."""
    db = small_10k if game == "ten-thousand" else built_db(("rolled_ones",), options={"rolled_ones": SMALL_ROLLED})
    run = subprocess.run([DICEBASE, "play", game, "--bots", "optimal,optimal,optimal,optimal", "--db", str(db)],
                         input="q\n", capture_output=True, text=True, timeout=HANG)
    line = run.stderr.strip()
    assert run.returncode == 2 and len(line.splitlines()) == 1, line
    assert "5 players cannot be built" in line and "2 to 4 players" in line and "dicebase build" not in line, line


def test_a_solve_past_the_size_limits_says_so_and_names_force_size(small_10k, tmp_path):
    """Four players to 500 points fit the limits; to 1,000 (a test build's goal) they need 640,000 turn starts:
    the line says so and the command carries --force-size, which the build's size check needs."""
    copy_of(small_10k, tmp_path, "t.duckdb")
    bigger = sh("dicebase build ten-thousand --db t.duckdb -q -o ten-thousand.goal=1000 "
                "-o 'ten-thousand.rules=[\"ten-thousand\"]'", tmp_path)
    assert bigger.returncode == 0, bigger.stderr
    first = sh("dicebase ten-thousand seats --players 4 --db t.duckdb", tmp_path)
    line = first.stderr.strip()
    assert first.returncode == 2 and "640,000 turn starts" in line and " --force-size" in remedy_of(line), line
    without = remedy_of(line).replace(" --force-size", "")
    refused = sh(without, tmp_path)  # as the line says: the build refuses it without --force-size
    assert refused.returncode == 2 and "--force-size" in refused.stderr, refused.stderr


# -- the page: the same short line, and the same counts as the CLI (items 10 and 13 c) ------------------

@pytest.fixture(scope="module")
def page_db(small_10k, tmp_path_factory):
    """The small 10,000 file with 3 players of ten-thousand (not of farkle) and a house rule set."""
    folder = tmp_path_factory.mktemp("page")
    copy_of(small_10k, folder, "p.duckdb")
    text = sh("dicebase rules ten-thousand farkle", folder).stdout
    text = re.sub(r'(?m)^name = .*$', 'name = "our-table"', text)
    text = re.sub(r"(?m)^goal = .*$", "goal = 500", text)
    (folder / "our-table.toml").write_text(text)
    built = sh("dicebase build ten-thousand --db p.duckdb -q --rules our-table.toml -o 'ten-thousand.players=[3]'",
               folder)
    assert built.returncode == 0, built.stderr
    return folder / "p.duckdb"


@pytest.fixture(scope="module")
def page_server(page_db):
    """A real ``dicebase serve`` on a free port, started beside the file (``--db p.duckdb``, as a user does)."""
    import signal

    proc = subprocess.Popen([DICEBASE, "serve", "--port", "0", "--db", "p.duckdb"], cwd=page_db.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, proc.stderr.read()
        yield line.split(" at ")[1].split("/ ")[0]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def _page(base: str, query: str) -> tuple[int, str]:
    import html
    import urllib.request

    with urllib.request.urlopen(f"{base}/ten-thousand?{query}", timeout=HANG) as reply:
        return reply.status, html.unescape(reply.read().decode())


def _cli_line(folder: Path, *args: str) -> tuple[int, str, str]:
    run = sh(" ".join(["dicebase", "ten-thousand", "seats", *args, "--db", "p.duckdb"]), folder)
    return run.returncode, run.stdout, run.stderr.strip().removeprefix("Error: ")


def test_the_page_and_the_cli_agree_on_the_n_player_tables(page_db, page_server):
    """Item 13 (c): the page asks the query layer which N-player tables are built (the CLI's seats) and shows its
    line, with the command that adds them; item 10: that line is short, never the house rules' JSON."""
    folder = page_db.parent
    seen = set()
    for rules in ("ten-thousand", "farkle", "our-table"):
        code, out, line = _cli_line(folder, "--variant", rules, "--json")
        built = sorted({r["players"] for r in json.loads(out)}) if code == 0 else []
        seen.add(tuple(built))
        status, text = _page(page_server, f"rules={rules}&players=3")
        assert status == 200
        if 3 in built:
            assert "Seat 3" in text and "not built" not in text, rules
        else:  # the page shows the CLI's own line for the same question
            code, _, line3 = _cli_line(folder, "--variant", rules, "--players", "3")
            assert code == 2 and line3 in text, (rules, line3)
            assert "house_rules" not in text and len(line3) < 400, line3
        status, text = _page(page_server, f"rules={rules}")
        assert status == 200
        if not built:  # two players only here: the hint is the query layer's line, not a guess of the page
            assert line3 in text and "with: dicebase" in line3, (rules, line3)
    assert seen == {(3,), ()}  # both kinds were compared
