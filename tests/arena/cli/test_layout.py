"""Help and the lines people read laid out for the terminal: every command's ``--help`` fits the
width in COLUMNS (and 80 columns when piped), wrapped by words only (every word of the output is a
word of the text as written), with examples and file lines kept as lines under a hanging indent."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from support import gin_arena

from arena.cli import layout
from arena.cli.main import COMMANDS, build_parser
from arena.cli.tournament import BOTS_FILE, DESCRIPTION

WIDTHS = (64, 80, 132)
"""Below 64 columns argparse's own usage lines (options aligned after the program name) overflow."""


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every parser under ``parser`` (``league run`` too), by its program name."""
    found = {parser.prog: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.update(subparsers(sub))
    return found


def words(text: str) -> set[str]:
    return set(text.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_every_help_fits_the_terminal(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    parsers = subparsers(build_parser())
    assert len(parsers) > len(COMMANDS)  # the league's actions too
    for prog, parser in parsers.items():
        wide = [line for line in parser.format_help().splitlines() if len(line) > width]
        assert not wide, f"{prog} --help at {width} columns: {wide}"


@pytest.mark.parametrize("width", WIDTHS)
def test_help_is_wrapped_by_words(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    for command in COMMANDS:
        written = command.description or command.help
        shown = layout.reflow(written, width - 2)
        assert words(shown) - words(written) <= {"#"}, command.name  # no word cut in two
        assert words(written) <= words(shown), command.name  # and none lost


def test_an_example_stays_a_line_and_continues_under_a_hanging_indent() -> None:
    shown = layout.reflow(DESCRIPTION, 60).splitlines()
    first = next(i for i, line in enumerate(shown) if "--bot mine=" in line)
    assert shown[first].startswith("  gin-arena tournament")
    assert shown[first + 1].startswith("      ") and shown[first + 1].strip()
    # a paragraph is one paragraph again, refilled: no line of it ends far short of the width
    paragraph = [line for line in shown if line.startswith("Every game is committed")]
    assert paragraph and len(paragraph[0]) > 50


def test_a_toml_comment_continues_as_a_comment() -> None:
    for width in (60, 80):
        for line in layout.reflow(BOTS_FILE, width).splitlines():
            if line.startswith("  ") and line.strip().startswith(("name", "command", "cwd", "env")):
                continue
            if line.startswith(" " * 20):  # a continued comment of the example's lines
                assert line.strip().startswith("#"), line


def test_hanging_never_cuts_a_word() -> None:
    text = "PASS  handshake  " + " ".join(f"word{i}" for i in range(40))
    for width in range(30, 90, 7):
        lines = layout.hanging(text, width, 6)
        assert all(len(line) <= width for line in lines)
        assert lines[0].startswith("PASS  handshake")
        assert all(line.startswith("      word") for line in lines[1:])
        assert " ".join(" ".join(lines).split()) == " ".join(text.split())


def test_piped_help_is_80_columns() -> None:
    """No COLUMNS and stdout a pipe: the help is laid out for 80 columns."""
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("COLUMNS", "LINES")}
    from support import cli_env

    env = cli_env()
    env.pop("COLUMNS", None)
    shown = gin_arena("tournament", "--help", env=env).stdout
    lines = shown.splitlines()
    assert max(map(len, lines)) <= 80
    assert max(map(len, lines)) > 70  # laid out for 80, not for some narrow default
    assert re.search(r"^  gin-arena tournament$", shown, re.MULTILINE)


def test_check_bot_lines_fit_any_width_and_keep_each_check_at_the_margin() -> None:
    from arena.cli.check_bot import Check, check_lines

    long = "ready in 0.40 s: protocol 1, 'mine' '1' by Ada; ignores " + ", ".join(
        f"message_{i}" for i in range(12)
    )
    checks = [
        Check("handshake", True, long),
        Check("exits on quit", False, "exited with code 3\nTraceback (most recent call last):"),
    ]
    for width in (40, 64, 80, 100, 160):
        lines = check_lines(checks, width)
        assert all(len(line) <= width for line in lines), width
        starts = [line for line in lines if not line.startswith(" ")]
        assert starts[0].startswith("PASS  handshake") and starts[1].startswith(
            "FAIL  exits on quit"
        )
        assert len(starts) == 2  # a continuation is always indented
        assert words("\n".join(lines)) == words(long) | words(checks[1].detail) | {
            "PASS",
            "FAIL",
            "handshake",
            "handshake:",
            "exits",
            "on",
            "quit",
            "quit:",
        } - ({"handshake:", "quit:"} if width >= 100 else {"handshake", "quit"})
    piped = check_lines(checks, None)  # piped: a check a line, whole
    assert piped[0].startswith("PASS  handshake      ready in") and long in piped[0]
    assert len(check_lines(checks[:1], 80)) == 3  # the name column is dropped at 80: no sliver


def _config(players: int, bots: int = 3, **kw: object) -> object:
    from arena.seats.botspec import resolve
    from arena.tournament.config import Config
    from engine.formats import format_named

    mode = {2: "two-player", 3: "three-player"}[players]
    specs = tuple(resolve("random", name=f"bot-with-a-long-name-{i}") for i in range(bots))
    return Config(specs, mode=format_named(mode), games_per_pair=6, seed=1234, **kw)  # type: ignore[arg-type]


def test_the_tournament_header_says_what_it_plays_and_its_seed() -> None:
    from arena.cli.tournament import header

    three = header(_config(3), "league.sqlite", 0, 6, True)  # type: ignore[arg-type]
    assert "1 table of 3 bots, 6 games" in three and "games each" not in three
    assert "4 tables of 3 bots, 6 games a table" in header(_config(3, 4), "x", 0, 24, False)  # type: ignore[arg-type]
    fresh = header(_config(2), "x", 0, 18, False)  # type: ignore[arg-type]
    assert "3 pairs, 6 games each" in fresh and "seed" not in fresh  # a random seed: at the end
    resumed = header(_config(2), "x", 5, 18, False)  # type: ignore[arg-type]
    assert "seed 1234" in resumed and "resuming at 5 of 18 games" in resumed


def test_the_tournament_header_and_footer_wrap_by_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At a terminal (its width stood in for), the lines around the standings wrap by words
    under a hanging indent; piped, they stay whole for a program to read."""
    from arena.cli import tournament as tournament_cmd
    from arena.cli.main import main

    bots = ["--bot", "a-rather-long-bot-name=random", "--bot", "another-long-bot-name=random"]
    for width in (44, 80, None):
        monkeypatch.setattr(tournament_cmd, "terminal_columns", lambda w=width: w)
        monkeypatch.chdir(tmp_path)
        db = f"tournament-{width}.sqlite"
        code = main(
            ["tournament", *bots, "--games-per-table", "2", "--db", db, "--sandbox", "none"]
        )
        assert code == 0
        lines = capsys.readouterr().out.splitlines()
        table = lines.index(next(line for line in lines if line.startswith("Standings")))
        sentences = lines[:table] + [line for line in lines[table:] if " " in line.strip()]
        assert lines[0].startswith("round-robin of 2 bots")
        footer = lines[lines.index(next(line for line in lines if line.startswith("seed "))) :]
        if width is None:
            assert len(footer) == 1 and footer[0].endswith(db) and "database" in lines[0]
            continue
        # the table's rule, one word as wide as the table, is the table's to fit
        assert all(len(line) <= width for line in sentences), (width, lines)
        assert lines[1].startswith("  ")
        assert all(line.startswith("  ") for line in footer[1:])
