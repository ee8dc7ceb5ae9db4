"""``gin-arena report`` run as a user runs it: a page from a database and from a record, the data
as JSON, clear errors that leave an earlier report as it was, and the page without matplotlib."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import pytest
from support import gin_arena


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("league") / "league.sqlite"
    done = gin_arena("tournament", "--db", str(db), "--games-per-table", "2", "--seed", "9")
    assert done.returncode == 0, done.stderr
    return db


def test_a_page_of_a_tournament(league: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    done = gin_arena("report", "--db", str(league), "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert f"report of 6 games written to {page}" in done.stdout
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'id="report-data"' in text
    for section in ("standings", "crosstable", "elo-history", "failures", "move-times", "games"):
        assert f'id="{section}"' in text
    mode = stat.S_IMODE(page.stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask
    assert not list(tmp_path.glob(".report.html.*")), "no temporary file left"


def test_the_data_as_json_and_without_replays(league: Path) -> None:
    done = gin_arena("report", "--db", str(league), "--json", "--no-replays", "-o", "-")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == 6 and data["replays"] == {}
    assert not any(game["replay"] for game in data["game_list"])
    assert {row["name"] for row in data["standings"]} == {"random", "greedy", "strong"}


def test_a_page_of_a_match_record(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    done = gin_arena("match", "greedy", "random", "--games", "2", "--record", str(record))
    assert done.returncode == 0, done.stderr
    done = gin_arena("report", "--record", str(record), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    assert "greedy" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_bad_inputs_are_errors_that_keep_an_earlier_report(league: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text("the earlier report", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    for args, said in (
        (["--db", str(tmp_path / "none.sqlite")], "no tournament database"),
        (["--record", str(bad)], "bad.jsonl:1: not a record line"),
        (["--record", str(tmp_path / "none.jsonl")], "cannot read record"),
    ):
        done = gin_arena("report", *args, "-o", str(page))
        assert done.returncode == 2, done.stdout
        assert said in done.stderr and "Traceback" not in done.stderr
        assert page.read_text(encoding="utf-8") == "the earlier report"
    done = gin_arena("report", "--db", str(league), "-o", str(tmp_path / "no" / "dir.html"))
    assert done.returncode == 2 and "cannot write" in done.stderr
    done = gin_arena("report", "-o", str(page))
    assert done.returncode == 2 and "--db" in done.stderr


def test_without_matplotlib_the_page_says_what_to_install(league: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    # A module that fails to import, first on the path: matplotlib is "not installed".
    (blocker / "matplotlib.py").write_text("raise ImportError('blocked')\n", encoding="utf-8")
    from support import cli_env

    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), env["PYTHONPATH"]])
    page = tmp_path / "plain.html"
    done = gin_arena("report", "--db", str(league), "-o", str(page), env=env)
    assert done.returncode == 0, done.stderr
    assert "gin-rummy-arena[report]" in done.stderr
    text = page.read_text(encoding="utf-8")
    assert "gin-rummy-arena[report]" in text and 'id="standings-table"' in text
    assert "<svg" not in text and 'id="plot-elo"' not in text


def test_progress_lines_when_stderr_is_not_a_terminal(league: Path, tmp_path: Path) -> None:
    """Piped, a report says on stderr as each part of its work starts (and every few seconds
    within one: see the next test); the page and stdout are as without."""
    done = gin_arena("report", "--db", str(league), "-o", str(tmp_path / "r.html"))
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert [line for line in lines if ": 0 of " in line] == [
        "report: reading games: 0 of 6",
        "report: fitting Elo over the games: 0 of 6",
        "report: building replays: 0 of 6",
    ], lines
    plots = ["report: drawing the plots"] if importlib.util.find_spec("matplotlib") else []
    assert lines[-1 - len(plots) :] == [*plots, "report: writing the page"], lines
    assert done.stdout == f"report of 6 games written to {tmp_path / 'r.html'}\n"


def test_a_progress_line_every_few_seconds_within_a_part(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import report as report_cmd

    now = [0.0]
    monkeypatch.setattr(report_cmd.time, "monotonic", lambda: now[0])
    with report_cmd.Progress() as progress:
        for done in range(13):
            progress("building replays", done, 12)
            now[0] += 1.0  # a replay a second, by this clock
        progress.part("drawing the plots")
    assert capsys.readouterr().err.splitlines() == [
        "report: building replays: 0 of 12",
        "report: building replays: 5 of 12",
        "report: building replays: 10 of 12",
        "report: drawing the plots",
    ]
