"""Databases that cannot be written, as a user meets them: on a read-only mount (a bind mount
remounted read-only, as root) and as an immutable file (``chattr +i``, which binds root too).
``ratings``, ``report`` and ``league standings`` read them and leave nothing beside them; every
command that would write one says in one line that it is read-only, before any bot is started,
and creating a database in a read-only folder says so too. As an ordinary user, in a folder or
of a file its permissions keep read-only: tests/arena/tournament/test_store_readonly.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import LONG, gin_arena, read_only_mount

from arena.cli import ratings as ratings_command
from arena.cli import report as report_command

READ_ONLY = ("is on a read-only file system", "is read-only (immutable")


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league (two bots, one pairing played) and a tournament (two games), made once."""
    where = tmp_path_factory.mktemp("made")
    league, tournament = str(where / "club.sqlite"), str(where / "t.sqlite")
    ok(gin_arena("league", "create", "--db", league, "--seed", "3", "--batch", "1"))
    for name in ("greedy", "random"):
        ok(gin_arena("league", "add", "--db", league, name, name, "--sandbox", "none"))
    ok(gin_arena("league", "run", "--db", league, "--pairings", "1", timeout=LONG))
    ok(
        gin_arena(
            "tournament", "--bot", "a=greedy", "--bot", "b=random", "--games-per-pair", "2",
            "--seed", "3", "--db", tournament, "--sandbox", "none", timeout=LONG,
        )
    )  # fmt: skip
    return where


def root_only(what: str) -> None:
    if shutil.which("chattr") is None or os.geteuid() != 0:
        pytest.skip(f"{what} needs root and chattr(1); as an ordinary user the chmod tests run")


@pytest.fixture
def mounted(databases: Path, tmp_path: Path) -> Iterator[Path]:
    """A folder holding copies of the databases, bind-mounted read-only on itself."""
    shutil.copytree(databases, tmp_path / "mount")
    with read_only_mount(tmp_path / "mount") as folder:
        yield folder


@pytest.fixture
def immutable(databases: Path, tmp_path: Path) -> Iterator[Path]:
    """A writable folder holding copies of the databases, each ``chattr +i``."""
    root_only("chattr +i")
    folder = tmp_path / "immutable"
    shutil.copytree(databases, folder)
    files = [str(p) for p in folder.iterdir()]
    done = subprocess.run(["chattr", "+i", *files], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"chattr +i does not work here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["chattr", "-i", *files], check=True)


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_reading_commands_work_on_a_read_only_mount_and_leave_nothing(
    mounted: Path, tmp_path: Path
) -> None:
    before = names(mounted)
    ratings = ok(gin_arena("ratings", "--db", str(mounted / "t.sqlite"), "--format", "json"))
    assert '"games": 2' in ratings.stdout
    standings = ok(
        gin_arena("league", "standings", "--db", str(mounted / "club.sqlite"), "--format", "csv")
    )
    assert standings.stdout.splitlines()[1].split(",")[5] == "2"  # two games each
    page = tmp_path / "club.html"
    ok(gin_arena("report", "--db", str(mounted / "club.sqlite"), "-o", str(page)))
    assert "greedy@1" in page.read_text()
    assert names(mounted) == before, "a read left files beside the database"
    for command in (
        ratings_command,
        report_command,
    ):  # what their --help promises, as this test shows
        assert "opened read-only" in " ".join(command.DESCRIPTION.split())
        assert "read-only mount" in " ".join(command.DESCRIPTION.split())


def refused(done: subprocess.CompletedProcess[str], *why: str) -> str:
    """The one line a refused write says (exit 2, no traceback), checked to say ``why``."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert any(reason in lines[0] for reason in why), lines[0]
    return lines[0]


def starts(tmp_path: Path) -> tuple[str, Path]:
    """A bot command that leaves a file when it is started (no bot may be, when a write
    cannot be done), and that file."""
    marker = tmp_path / "started"
    script = tmp_path / "bot.sh"
    script.write_text(f"touch {marker}\nexec sleep 30\n")
    return f"sh {script}", marker


@pytest.mark.parametrize("setting", ["mounted", "immutable"])
def test_every_write_is_refused_as_read_only_before_any_bot_starts(
    setting: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    folder: Path = request.getfixturevalue(setting)
    league, tournament = str(folder / "club.sqlite"), str(folder / "t.sqlite")
    bot, marker = starts(tmp_path)
    commands = [
        ("league", "add", "--db", league, "mine", bot),
        ("league", "run", "--db", league, "--pairings", "1"),
        ("tournament", "--db", tournament, "--resume"),
    ]
    if setting == "mounted":  # one of each is enough for the other
        commands += [
            ("league", "update", "--db", league, "greedy", bot),
            ("league", "retire", "--db", league, "greedy"),
        ]
    for command in commands:
        line = refused(gin_arena(*command), *READ_ONLY)
        assert "cannot be written" in line and "damaged" not in line
        assert "not a gin-rummy-arena" not in line
    assert not marker.exists(), "a bot was started for a write that cannot be done"
    standings = ok(gin_arena("league", "standings", "--db", league, "--format", "json"))
    assert '"version": "mine@1"' not in standings.stdout


def test_creating_a_database_in_a_read_only_folder_is_one_line_before_any_bot_starts(
    mounted: Path, tmp_path: Path
) -> None:
    bot, marker = starts(tmp_path)
    league = refused(gin_arena("league", "create", "--db", str(mounted / "new.sqlite")), *READ_ONLY)
    assert "cannot create database" in league and "its folder" in league
    tournament = refused(
        gin_arena(
            "tournament", "--bot", f"mine={bot}", "--bot", "b=greedy",
            "--db", str(mounted / "new.sqlite"),
        ),
        *READ_ONLY,
    )  # fmt: skip
    assert "cannot create database" in tournament
    assert not marker.exists()
    assert "new.sqlite" not in names(mounted)
