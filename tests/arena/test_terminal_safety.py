"""Terminal safety: no escape sequence a bot or a file name controls reaches a terminal raw.

Every command is run as a user runs it, with a bot (tests/arena/hostile/escapes.py) whose file
name, bots-file name, ``ready`` fields, stderr and replies hold escape sequences, and with records
and databases holding such names. Whatever is printed on stdout and stderr must show them escaped
(``\\x1b``); rich must not read a name as markup; JSON and the stored data keep them exactly.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from arena_support import HOSTILE
from support import gin_arena

from arena.terminal import printable

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
"""A retitle (OSC ... BEL), a clear screen (ESC [ 2J), an 8-bit CSI and a right-to-left override:
what tests/arena/hostile/escapes.py writes too."""
SHOWN = printable(ESCAPES)
"""The same, as it must be shown: ``\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202e``."""
RAW = ("\x1b", "\x07", "\x9b", "\u202e")

FILE_NAME = f"[red]<i>file{ESCAPES}"
"""The name of the hostile bot's script (the bot's name when it is run by its command line)."""
TOML_NAME = f"[link=https://example.com]toml{ESCAPES}[/link]"
"""The name of a bots-file entry (the built-in greedy bot)."""
STARTUP_NAME = f"startup{ESCAPES}"
"""A bots-file entry of the hostile bot in its mode that cannot start."""


def assert_safe(done: subprocess.CompletedProcess[str]) -> None:
    """Neither stdout nor stderr holds a raw escape character."""
    for stream, text in (("stdout", done.stdout), ("stderr", done.stderr)):
        for char in RAW:
            assert char not in text, f"a raw {char!r} on {stream}:\n{text}"


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the hostile bot under a hostile file name, a bots file naming greedy
    and the bot that cannot start with hostile names, and one naming greedy only."""
    folder = tmp_path_factory.mktemp("bots")
    shutil.copy(HOSTILE / "escapes.py", folder / f"{FILE_NAME}.py")
    shutil.copy(HOSTILE / "_wire.py", folder / "_wire.py")
    startup = json.dumps([sys.executable, str(HOSTILE / "escapes.py"), "startup"])
    greedy = f'[[bot]]\nname = {json.dumps(TOML_NAME)}\ncommand = "greedy"\n'
    (folder / "greedy.toml").write_text(greedy, encoding="utf-8")
    (folder / "bots.toml").write_text(
        f"{greedy}\n[[bot]]\nname = {json.dumps(STARTUP_NAME)}\ncommand = {startup}\n",
        encoding="utf-8",
    )
    return folder


def command(bots: Path) -> str:
    """The hostile bot's command line (its name is its file name)."""
    return shlex.join([sys.executable, str(bots / f"{FILE_NAME}.py")])


def cli(bots: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``gin-arena ARGS`` as a user runs it, in the bots' directory, typing ``stdin``."""
    return gin_arena(*args, cwd=bots, stdin=stdin)


@pytest.fixture(scope="module")
def record(bots: Path) -> Path:
    """A record of a match between the two hostile names, under a hostile file name."""
    path = bots / f"record{ESCAPES}.jsonl"
    done = cli(
        bots, "match", command(bots), TOML_NAME, "--bots", "bots.toml", "--games", "2",
        "--seed", "1", "--sandbox", "none", "--record", str(path), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def tournament(bots: Path) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A small tournament of the two hostile names (one from a bots file, one from ``--bot``), in
    a database under a hostile file name."""
    db = bots / f"league{ESCAPES}.sqlite"
    done = cli(
        bots, "tournament", "--bots", "greedy.toml", "--bot", f"{FILE_NAME}={command(bots)}",
        "--games-per-table", "2", "--db", str(db), "--sandbox", "none", "--concurrency", "1",
        "--seed", "1",
    )  # fmt: skip
    return db, done


def test_match_shows_names_and_failures_escaped(bots: Path) -> None:
    done = cli(
        bots, "match", command(bots), TOML_NAME, "--bots", "bots.toml", "--games", "2",
        "--seed", "1", "--sandbox", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert f"{printable(FILE_NAME)} v {printable(TOML_NAME)}: 2 games" in done.stdout
    assert f"{printable(FILE_NAME)} forfeits: malformed" in done.stdout
    assert f"\n{printable(TOML_NAME)} " in done.stdout  # the summary's row
    as_json = cli(
        bots, "match", command(bots), TOML_NAME, "--bots", "bots.toml", "--games", "2",
        "--seed", "1", "--sandbox", "none", "--json",
    )  # fmt: skip
    assert as_json.returncode == 0, as_json.stderr
    assert_safe(as_json)  # JSON writes them as \u001b, and keeps them exactly
    assert json.loads(as_json.stdout)["bots"] == [FILE_NAME, TOML_NAME]


def test_a_bot_that_cannot_start_has_its_stderr_shown_escaped(bots: Path) -> None:
    done = cli(bots, "match", "greedy", STARTUP_NAME, "--bots", "bots.toml", "--sandbox", "none")
    assert done.returncode == 1
    assert_safe(done)
    assert f"stderr {SHOWN} one\n" in done.stderr  # the lines of the tail stay lines
    assert "could not start" in done.stderr


def test_check_bot_shows_the_ready_fields_and_failures_escaped(bots: Path) -> None:
    done = cli(bots, "check-bot", command(bots), "--games", "1", "--sandbox", "none")
    assert done.returncode == 1
    assert_safe(done)
    assert f"by author{SHOWN}; ignores ignores{SHOWN}" in done.stdout
    assert "FAIL" in done.stdout and "malformed" in done.stdout


def test_check_bot_shows_the_stderr_of_a_bot_that_cannot_start_escaped(bots: Path) -> None:
    done = cli(bots, "check-bot", STARTUP_NAME, "--bots", "bots.toml", "--sandbox", "none")
    assert done.returncode == 1
    assert_safe(done)
    assert f"stderr {SHOWN} one" in done.stdout


def test_replay_of_a_record_with_hostile_names(bots: Path, record: Path) -> None:
    done = cli(bots, "replay", str(record))
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert f"Game 1: {printable(FILE_NAME)} (seat 0) v {printable(TOML_NAME)}" in done.stdout


def test_judge_of_a_record_with_a_hostile_file_name(bots: Path, record: Path) -> None:
    done = cli(bots, "judge", str(record))
    assert done.returncode == 0, done.stdout
    assert_safe(done)
    assert f"{printable(str(record))}: OK" in done.stdout


def test_argparse_errors_show_the_arguments_escaped(bots: Path, record: Path) -> None:
    done = cli(bots, "judge", str(record), f"extra{ESCAPES}")
    assert done.returncode == 2
    assert_safe(done)
    assert f"unrecognized arguments: extra{SHOWN}" in done.stderr


def test_tournament_shows_names_escaped_and_not_as_markup(
    tournament: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    db, done = tournament
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert printable(FILE_NAME) in done.stdout and printable(TOML_NAME) in done.stdout
    assert f"forfeits: {printable(FILE_NAME)} lost 2 games" in done.stdout
    with sqlite3.connect(db) as connection:  # the database keeps the names exactly
        names = {row[0] for row in connection.execute("SELECT name FROM bots")}
    assert names == {FILE_NAME, TOML_NAME}


def test_ratings_table_and_errors(
    bots: Path, tournament: tuple[Path, subprocess.CompletedProcess[str]]
) -> None:
    db, _ = tournament
    done = cli(bots, "ratings", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert printable(FILE_NAME) in done.stdout and printable(TOML_NAME) in done.stdout
    assert f"forfeits: {printable(FILE_NAME)} lost 2 games" in done.stdout
    wrong = cli(bots, "ratings", "--db", str(db), "--anchor", f"nobody{ESCAPES}")
    assert wrong.returncode == 2
    assert_safe(wrong)
    assert f"--anchor 'nobody{SHOWN}' is not a bot" in wrong.stderr
    assert printable(TOML_NAME) in wrong.stderr
    as_csv = cli(bots, "ratings", "--db", str(db), "--format", "csv")  # not to a terminal
    assert as_csv.returncode == 0, as_csv.stderr
    assert FILE_NAME in as_csv.stdout and TOML_NAME in as_csv.stdout  # kept exactly


def test_report_terminal_output(
    bots: Path, tournament: tuple[Path, subprocess.CompletedProcess[str]], record: Path
) -> None:
    db, _ = tournament
    page = bots / f"report{ESCAPES}.html"
    for source in (("--db", str(db)), ("--record", str(record))):
        done = cli(bots, "report", *source, "-o", str(page))
        assert done.returncode == 0, done.stderr
        assert_safe(done)
        assert f"written to {printable(str(page))}" in done.stdout
        html = page.read_text(encoding="utf-8")
        assert "[link=https://example.com]toml" in html and "&lt;i&gt;file" in html
        assert "<i>file" not in html


def test_sprt_shows_names_escaped(bots: Path) -> None:
    done = cli(
        bots, "sprt", command(bots), TOML_NAME, "--bots", "bots.toml", "--max-games", "2",
        "--concurrency", "1", "--db", "sprt.sqlite", "--sandbox", "none", "--seed", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert f"SPRT {printable(FILE_NAME)} v {printable(TOML_NAME)}:" in done.stdout


def test_ab_shows_names_escaped(bots: Path) -> None:
    done = cli(
        bots, "ab", command(bots), TOML_NAME, "--bots", "bots.toml", "--hands", "2",
        "--jobs", "1", "--sandbox", "none", "--seed", "1",
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # the hostile bot forfeits: no verdict
    assert_safe(done)
    assert f"A/B {printable(FILE_NAME)} v {printable(TOML_NAME)}:" in done.stdout
    assert f"forfeits: {printable(FILE_NAME)} 2" in done.stdout


def test_play_shows_names_escaped(bots: Path) -> None:
    done = cli(
        bots, "play", command(bots), "--name", f"me{ESCAPES}", "--seed", "1",
        "--sandbox", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert_safe(done)
    assert f"me{SHOWN} v " in done.stdout and printable(FILE_NAME) in done.stdout
    assert "You left the game (end of input)" in done.stdout  # stdin is empty


def test_play_against_a_bot_that_cannot_start(bots: Path) -> None:
    done = cli(bots, "play", STARTUP_NAME, "--bots", "bots.toml", "--sandbox", "none")
    assert done.returncode == 1
    assert_safe(done)
    assert f"stderr {SHOWN} one" in done.stderr
