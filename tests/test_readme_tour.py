"""The README's tour of the CLI runs as written from a fresh clone: every file a line reads is
shipped (or written by an earlier line), every line's options parse, and the lines run, their
long parts shortened (fewer games and hands, no sandbox unless the line asks for one).

The default run walks the quick lines; ``--runslow`` walks every line but ``play`` (a person
plays it) and ``--ray`` (it needs a cluster)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import ROOT, bound, cli_env, gin_arena

from arena.cli.main import build_parser
from arena.seats.walls.sandbox import resolve_sandbox

README = (ROOT / "README.md").read_text(encoding="utf-8")
FILE = re.compile(r"[\w.-]*(/[\w.-]+)+|[\w-]+\.(py|js|toml|jsonl|json|sqlite|html)")
"""A word that names a file: a path with a slash, or a name with a file's extension."""
QUICK = frozenset({"solve", "protocol", "conformance", "replay", "judge", "match"})
"""The commands the default run runs (a match only in two-player mode): a second or so each."""
SANDBOXED = frozenset({"tournament", "match", "check-bot", "sprt", "ab"})


def tour() -> list[list[str]]:
    """The tour's lines, each split like a shell would split it, comments dropped."""
    section = README[README.index("## A tour of the CLI") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the README's tour has no ```sh block"
    lines = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    assert all(line[0] == "gin-arena" for line in lines if line)
    return [line[1:] for line in lines if line]


def words(argv: list[str]) -> Iterator[tuple[str, str]]:
    """Each word of a line with the option before it: bot commands (``mine="python3 bot.py"``)
    and options' values (``--set undercut_bonus=25``) are split into their words."""
    before = ""
    for arg in argv:
        for word in shlex.split(arg.partition("=")[2] if "=" in arg else arg):
            yield before, word
        before = arg


def outputs(argv: list[str]) -> set[str]:
    """The files a line writes: -o, a match's --record, a new tournament's --db."""
    command, written = argv[0], set()
    for before, word in words(argv):
        if (
            before == "-o"
            or (before == "--record" and command == "match")
            or (before == "--db" and command == "tournament" and "--resume" not in argv)
            or (before == "--db" and command == "league" and argv[1] == "create")
        ):
            written.add(word)
    return written


def test_the_tour_is_there() -> None:
    commands = {argv[0] for argv in tour()}
    assert {"tournament", "match", "check-bot", "solve", "conformance"} <= commands


def test_every_file_the_tour_reads_is_shipped_or_written_by_an_earlier_line() -> None:
    written: set[str] = set()
    for argv in tour():
        made = outputs(argv)
        for _, word in words(argv):
            if FILE.fullmatch(word) and word not in made and not word.startswith("-"):
                assert (ROOT / word).exists() or word in written, (
                    f"gin-arena {shlex.join(argv)}: {word!r} is neither in the repository nor "
                    "written by a line before"
                )
        written |= made


def test_every_line_of_the_tour_parses() -> None:
    parser = build_parser()
    for argv in tour():
        args = argv[: argv.index("<")] if "<" in argv else argv  # < FILE is the shell's
        try:
            parser.parse_args(args)
        except SystemExit as stop:
            pytest.fail(f"gin-arena {shlex.join(argv)}: options rejected (exit {stop.code})")


def skipped(argv: list[str]) -> str | None:
    """Why a line of the tour is not run, or None."""
    if argv[0] == "play":
        return "a person plays it (tests/arena/cli/test_play.py plays it in a pseudo-terminal)"
    if argv[0] == "serve":
        return "it serves until stopped (tests/arena/serve/test_serve.py runs it as a server)"
    if "--ray" in argv:
        return "it needs a Ray cluster (tox -e cluster runs tournaments on one)"
    if "node" in (word for _, word in words(argv)) and shutil.which("node") is None:
        return "node is not installed here"
    return None


def shortened(argv: list[str]) -> list[str]:
    """The line with its long parts made short."""
    argv = list(argv)

    def put(option: str, value: str) -> None:
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv[1:1] = [option, value]

    command = argv[0]
    if command == "tournament" and "--resume" not in argv:
        put("--games-per-table", "3" if "three-player" in argv else "2")
    if command in ("match", "ab") and "--hands" in argv:
        put("--hands", "2")
    elif command == "match" and "--games" not in argv:
        put("--games", "1")
    if command == "sprt":
        put("--max-games", "2")
    if command in SANDBOXED and ("--sandbox" not in argv or resolve_sandbox("auto") is None):
        put("--sandbox", "none")  # unless the line asks for a sandbox and there is one here
    if command == "league" and argv[1] in ("add", "update", "run") and "--sandbox" not in argv:
        argv += ["--sandbox", "none"]  # the option belongs to the action, after it
    return argv


def walk(cwd: Path, quick_only: bool) -> None:
    """Run the tour's lines in order in ``cwd`` (the repository's docs/ and bots/ linked in)."""
    for name in ("docs", "bots"):
        (cwd / name).symlink_to(ROOT / name)
    # python3 in a line is this Python, with this checkout importable, as after pip install.
    env = cli_env(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    )
    if not (Path(sys.executable).parent / "python3").exists():
        pytest.skip("no python3 beside this Python: the tour's bot commands need one")
    ran = 0
    for line in tour():
        quick = line[0] in QUICK and not (line[0] == "match" and "--mode" in line)
        if skipped(line) or (quick_only and not quick):
            continue
        argv = shortened(line)
        stdin = ""
        if "<" in argv:
            at = argv.index("<")
            stdin, argv = (cwd / argv[at + 1]).read_text(encoding="utf-8"), argv[:at]
        done = gin_arena(*argv, cwd=cwd, env=env, stdin=stdin, timeout=bound(300))
        assert done.returncode == 0, f"gin-arena {shlex.join(argv)}:\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"gin-arena {shlex.join(argv)}:\n{done.stderr}"
        for written in outputs(argv):
            assert (cwd / written).exists(), f"gin-arena {shlex.join(argv)} wrote no {written}"
        ran += 1
    assert ran >= (10 if quick_only else 20)


@pytest.mark.slow  # eleven CLI runs: the quick lane checks that every line parses, above
def test_the_quick_lines_of_the_tour_run(tmp_path: Path) -> None:
    walk(tmp_path, quick_only=True)


@pytest.mark.slow
def test_every_line_of_the_tour_runs_shortened(tmp_path: Path) -> None:
    walk(tmp_path, quick_only=False)


def test_the_tours_bot_is_the_plain_python_bot_of_the_protocol() -> None:
    protocol = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    block = re.search(
        r"<!-- bot:python:begin -->\n```python\n(.*?)```\n<!-- bot:python:end -->",
        protocol,
        re.DOTALL,
    )
    assert block, "docs/PROTOCOL.md has no plain Python bot"
    assert (ROOT / "docs" / "examples" / "mybot.py").read_text(encoding="utf-8") == block.group(1)


def test_the_tour_keeps_a_tournament_out_of_a_league_database_and_times_its_long_lines() -> None:
    """A tournament's database in the tour is never called like a league's (a user who runs
    ``league standings --db league.sqlite`` after it finds it refused); the lines that take
    minutes say roughly how many."""
    for line in tour():
        if line[0] in ("tournament", "ratings", "report"):
            assert not any("league" in word for word in line), line
    section = README[README.index("## A tour of the CLI") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block
    raw = block.group(1).splitlines()
    for marker in ("--mode partnership --bots", "--sandbox bwrap", "--hands 2000"):
        (line,) = [line for line in raw if marker in line]
        assert re.search(r"\(~\d+ min\)", line), line
