"""What an organiser publishes (:mod:`arena.report.facts` and the page's header, crosstable,
sentences and Elo history), from real events made with the command line as a user makes them: a
round robin with a bot whose name and command are markup, changed rules and clock; a league with
an update and a retirement; a match record. The header names the seed, kind, games per pair (or
the league's pairings), time control, rules and every bot's command, version and digest, all as
the database holds them and escaped; ``--title`` names the page; the crosstable is one table
headed by names; the certainty and head-to-head sentences are the terminal's; the Elo history
says what its x axis is."""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from support import gin_arena

from arena.report import facts, plots
from arena.report.data import HISTORY_AXES, build, by_round, from_record, from_store
from arena.report.html import render
from arena.tournament.standings import standings
from arena.tournament.store import GameRow, Store

NEVER_KNOCK = Path(__file__).resolve().parents[1] / "arena" / "tournament_bots" / "never_knock.py"
HOSTILE_NAME = "</script><b>x"
HOSTILE_ARG = "</script><script>alert(1)</script>"
"""An argument the bot ignores: its command line is markup, as a bot author may make it."""
LONG_NAME = "a-bot-with-a-long-name"
BUILT_IN = ("strong", "greedy", "random")


def _ok(*args: str) -> str:
    done = gin_arena(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """greedy, a never-knocking bot whose name and command are markup, and the strong bot by a
    long name: knock limit 7, half a second a move, seed 77."""
    db = tmp_path_factory.mktemp("organiser") / "club.sqlite"
    hostile = f"{HOSTILE_NAME}={sys.executable} {NEVER_KNOCK} '{HOSTILE_ARG}'"
    _ok(
        "tournament",
        *("--db", str(db), "--games-per-table", "2", "--seed", "77"),
        *("--set", "knock_limit=7", "--move-time", "0.5", "--concurrency", "1"),
        *("--bot", "greedy=greedy", "--bot", hostile, "--bot", f"{LONG_NAME}=strong"),
    )
    return db


@pytest.fixture(scope="module")
def page(tournament: Path) -> str:
    out = tournament.parent / "club.html"
    _ok("report", "--db", str(tournament), "-o", str(out), "--title", "Club <night> & cup")
    return out.read_text(encoding="utf-8")


def _fact(page: str, label: str) -> str:
    found = re.search(
        rf'<div data-fact="{re.escape(label)}"><dt>[^<]*</dt><dd>(.*?)</dd></div>', page
    )
    assert found, label
    return html.unescape(found.group(1))


def _section(page: str, name: str) -> str:
    found = re.search(rf'<section id="{name}"[^>]*>(.*?)</section>', page, re.S)
    assert found, name
    return found.group(1)


def test_the_header_names_what_was_played(page: str, tournament: Path) -> None:
    assert _fact(page, "Seed") == "77"
    assert _fact(page, "Kind") == "round-robin tournament, two-player"
    assert _fact(page, "Games per pair") == "2, mirrored: each deal played twice, the seats swapped"
    assert _fact(page, "Time control").startswith("0.5 s a move, no bank, 0.1 s grace")
    assert "10 s to start" in _fact(page, "Time control")
    assert _fact(page, "Rules") == "the hoyle preset with knock_limit=7 (hoyle: 10)"
    assert "<span class=key>knock limit</span> 7</li>" in page  # every option, folded
    store = Store.open(tournament, readonly=True)
    try:
        bots, created = store.bots(), store.meta("created")
    finally:
        store.close()
    assert created and _fact(page, "Created") == facts.when(created)
    header = page[page.index("<header") : page.index("</header>")]
    for name, (command, version, digest) in bots.items():
        row = re.search(rf'<tr data-bot="{re.escape(html.escape(name))}">(.*?)</tr>', header)
        assert row, name
        cells = row.group(1)
        assert f"<code>{html.escape(command)}</code>" in cells
        assert f"<td>{html.escape(version)}</td>" in cells
        assert f'<code title="{digest}">{digest[: facts.DIGEST_CHARS]}</code>' in cells
    assert HOSTILE_ARG in bots[HOSTILE_NAME][0]  # the markup is in the command as stored...


def test_each_game_names_its_deal_seed(page: str, tournament: Path) -> None:
    store = Store.open(tournament, readonly=True)
    try:
        seeds = {row.id: row.seed for row in store.games(records=False)}
    finally:
        store.close()
    games = _section(page, "games")
    for game, seed in seeds.items():
        row = re.search(rf'<tr data-game="{game}"[^>]*>(.*?)</tr>', games)
        assert row and row.group(1).endswith(f'<td class="num"><code>{seed}</code></td>'), game


def test_what_a_bot_controls_is_escaped(page: str) -> None:
    assert HOSTILE_ARG not in page and HOSTILE_NAME not in page  # ...and never raw in the page
    assert html.escape(HOSTILE_ARG) in page and html.escape(HOSTILE_NAME) in page
    assert len(re.findall(r"<script\b", page)) == 2  # the data and the viewer
    assert "<b>" not in page


def test_the_title_is_given_escaped_or_names_the_database(page: str, tournament: Path) -> None:
    assert "<title>Club &lt;night&gt; &amp; cup</title>" in page
    assert "<h1>Club &lt;night&gt; &amp; cup</h1>" in page
    data = json.loads(_ok("report", "--db", str(tournament), "--json", "--no-replays", "-o", "-"))
    assert data["title"] == "gin-arena report: club.sqlite"
    done = gin_arena("report", "--db", str(tournament), "--title", " ", "-o", "-")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "gin-arena report: error: --title is empty: give the page a title, or leave --title out"
    ], done.stderr


def test_one_crosstable_headed_by_names(page: str) -> None:
    section = _section(page, "crosstable")
    assert section.count("<table") == 1 and "<svg" not in section and "<figure" not in section
    head = re.search(r"<thead>(.*?)</thead>", section, re.S)
    assert head
    columns = re.findall(r'<th scope="col">(.*?)</th>', head.group(1))
    assert columns[0] == "Bot" and len(columns) == 4
    assert '<span title="greedy">greedy</span>' in columns
    short = LONG_NAME[:8] + "\u2026"
    assert f'<abbr title="{LONG_NAME}" aria-hidden="true">{short}</abbr>' in head.group(1)
    assert f'<span class="sr-only">{LONG_NAME}</span>' in head.group(1)
    escaped = html.escape(HOSTILE_NAME)
    assert f'<abbr title="{escaped}" aria-hidden="true">' in head.group(1)  # 13 characters
    assert not re.search(r"<th[^>]*>\s*\d+\s*</th>", head.group(1))  # no "1 2 3"
    assert page.count('id="crosstable-table"') == 1


def test_the_plots_leave_the_crosstable_to_the_table(tournament: Path) -> None:
    pytest.importorskip("matplotlib")
    names, games, config = from_store(tournament)
    drawn = plots.draw(build(names, games, config, source="club", kind="tournament"))
    assert set(drawn) == {"elo", "elo_history", "move_times"}


def test_the_sentences_are_the_terminals(page: str, tournament: Path) -> None:
    terminal = _ok("ratings", "--db", str(tournament)).splitlines()
    certainty = re.search(r'<div class="sentences" id="certainty">(.*?)</div>', page, re.S)
    assert certainty and certainty.group(1) in _section(page, "standings")
    said = [html.unescape(s) for s in re.findall(r"<(?:p|li)[^>]*>(.*?)</(?:p|li)>", certainty[1])]
    assert len(said) == 3  # what LOS is, then the two pairs of neighbours
    assert said[0].startswith("LOS, the likelihood of superiority")
    for sentence in said:
        assert sentence in terminal
    head = re.search(r'<div class="sentences" id="head-to-head">(.*?)</div>', page, re.S)
    assert head and head.group(1) in _section(page, "crosstable")
    pairs = [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", head.group(1))]
    assert len(pairs) == 3
    for line in pairs:
        assert f"  {line}" in terminal
    assert "greedy beat </script><b>x 2-0-0" in pairs


def test_a_certain_place_is_never_called_100_percent() -> None:
    rows = [
        GameRow(i, "a", "b", i, "a", "normal", None, "", "", 100, 0, 3, 1.0, "")
        for i in range(1, 61)
    ]
    said = facts.sentences(standings(["a", "b"], rows))
    assert said["certainty"][1] == (
        "a is ahead of b with >99% likelihood (LOS): separated (LOS 95% or more)."
    )
    assert not any("100%" in line for line in said["certainty"])
    assert said["head_to_head"] == ["Head to head (won-lost-drawn):", "a beat b 60-0-0"]


def test_the_elo_history_says_its_axis_is_not_the_schedule(page: str, tournament: Path) -> None:
    names, games, config = from_store(tournament)
    data = build(names, games, config, source="club", kind="tournament")
    history = data["elo_history"]
    axis, caption = HISTORY_AXES["rounds"]
    assert (history["order"], history["axis"], history["caption"]) == ("rounds", axis, caption)
    assert "not in the order they were played" in caption and "not form" in caption
    assert html.escape(caption) in _section(page, "elo-history")
    if plots.missing() is None:
        svg = plots.draw(data)["elo_history"]
        assert html.escape(axis) in svg  # the x axis's label
    # A round at a time: the first game of each of the three pairs, then the second.
    firsts = {frozenset(g.row.seats): g.row.id for g in reversed(games)}
    assert [r.id for r in by_round([g.row for g in games])[:3]] == sorted(firsts.values())


def test_by_round_takes_every_table_a_game_at_a_time() -> None:
    def row(number: int, a: str, b: str) -> GameRow:
        return GameRow(number, a, b, 0, None, "normal", None, "", "", 0, 0, 1, 1.0, "")

    played = [row(1, "a", "b"), row(2, "b", "a"), row(3, "a", "c"), row(4, "c", "a")]
    played += [row(5, "b", "c"), row(6, "c", "b")]
    assert [r.id for r in by_round(played)] == [1, 3, 5, 2, 4, 6]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league of three, then greedy updated (greedy@2 replaces greedy@1) and random retired."""
    db = tmp_path_factory.mktemp("organiser") / "league.sqlite"
    where = ("--db", str(db))
    _ok("league", "create", *where, "--seed", "5", "--batch", "2", "--set", "gin_bonus=20")
    bots = db.parent / "bots.toml"
    bots.write_text(
        "".join(f'[[bot]]\nname = "{name}"\ncommand = "{name}"\n' for name in BUILT_IN),
        encoding="utf-8",
    )
    _ok("league", "add", *where, "--bots", str(bots))
    _ok("league", "run", *where, "--pairings", "2", "--concurrency", "1")
    _ok("league", "update", *where, "greedy", "strong")
    _ok("league", "retire", *where, "random")
    _ok("league", "run", *where, "--pairings", "2", "--concurrency", "1")
    return db


def test_a_leagues_header_names_its_pairings_and_versions(league: Path) -> None:
    names, games, config = from_store(league)
    data = build(names, games, config, source=str(league), kind="league")
    event = data["event"]
    assert (event["kind"], event["seed"], event["pairing"]["batch"]) == ("league", "5", 2)
    status = {bot["name"]: bot["status"] for bot in event["bots"]}
    assert status == {
        "strong@1": "scheduled",
        "greedy@1": "replaced by greedy@2",
        "random@1": "retired",
        "greedy@2": "scheduled",
    }
    assert {b["name"]: b["command"] for b in event["bots"]}["greedy@2"] == "builtin:strong"
    assert data["elo_history"]["order"] == "played"  # a league's versions come and go
    assert {"greedy@1", "greedy@2"} <= set(data["elo_history"]["elo"])  # a line a version
    page = render(data, None)
    assert _fact(page, "Kind").startswith("league")
    assert _fact(page, "Pairings").startswith("chosen where they inform the standings most, 2")
    assert _fact(page, "Rules") == "the hoyle preset with gin_bonus=20 (hoyle: 25)"
    assert "<td>replaced by greedy@2</td>" in page
    assert html.escape(HISTORY_AXES["played"][1]) in page


def test_a_records_header_names_its_match(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    _ok("match", "greedy", "random", "--games", "2", "--seed", "4", "--record", str(record))
    names, games, config = from_record(record)
    data = build(names, games, config, source=str(record), kind="record")
    event = data["event"]
    assert (event["kind"], event["seed"]) == ("match", "4")
    assert [(b["name"], b["command"], b["digest"]) for b in event["bots"]] == [
        ("greedy", "builtin:greedy", ""),
        ("random", "builtin:random", ""),
    ]
    page = render(data, None)
    assert _fact(page, "Kind") == "match, two-player" and _fact(page, "Seed") == "4"
    assert "not recorded" in page  # a record keeps no digest


def test_the_facts_are_in_the_json_for_a_live_page(tournament: Path) -> None:
    data: dict[str, Any] = json.loads(
        _ok("report", "--db", str(tournament), "--json", "--no-replays", "-o", "-")
    )
    event = data["event"]
    assert event["seed"] == "77" and event["games_per_pair"] == 2 and event["mirror"] is True
    assert event["clock"]["move"] == 0.5
    assert event["rules"]["preset"] == "hoyle"
    assert event["rules"]["changes"] == {"knock_limit": {"value": 7, "preset": 10}}
    assert [label for label, _ in event["summary"]][:3] == ["Kind", "Seed", "Games per pair"]
    assert data["sentences"]["certainty"][0].startswith("LOS")
    assert data["sentences"]["head_to_head"][0] == "Head to head (won-lost-drawn):"
