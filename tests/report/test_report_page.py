"""The report page (:mod:`arena.report.html`, :mod:`arena.report.plots`): rendered from the data
of a real small tournament and of real match records (one with forfeits, one whose bots have
hostile names), it has every section, embeds the data once as JSON that parses back equal, shows
what comes from the data only escaped, fetches nothing from outside, and without plots still has
every table and the note saying what to install. The plots (when matplotlib is installed) are
inline SVG with no image, no outside reference and no id shared between two of them.

No browser here: the viewer's behaviour is checked by hand (see the report of the change).
"""

from __future__ import annotations

import contextlib
import html
import importlib.resources
import io
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.report import plots
from arena.report.data import build, from_record, from_store
from arena.report.html import render, script_json

HOSTILE = "</script><script>alert(1)</script>"
AMPERSAND = "<b>&amp; {{css}} $x^$"  # markup, a placeholder, broken mathtext
SECTIONS = ("standings", "crosstable", "elo-history", "failures", "move-times", "games", "replay")
VIEWER_IDS = (
    "replay-game",
    "replay-position",
    "replay-hand-0",
    "replay-hand-1",
    "replay-action",
    "replay-result",
    "pair-filter",
)
ILLEGAL_BOT = Path(__file__).resolve().parents[1] / "arena" / "hostile" / "illegal.py"
DATA_BLOCK = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def _cli(*args: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(list(args)) == 0


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A round-robin of three bots, two games a pair, from its database."""
    db = tmp_path_factory.mktemp("report") / "league.sqlite"
    _cli(
        "tournament",
        *("--bot", "greedy=greedy", "--bot", "random=random", "--bot", "second=greedy"),
        *("--games-per-pair", "2", "--concurrency", "1", "--db", str(db)),
    )
    names, games, config = from_store(db)
    return build(names, games, config, source=str(db), kind="tournament")


@pytest.fixture(scope="module")
def forfeits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two games against a bot that discards a card it does not hold (forfeits, rule R7)."""
    record = tmp_path_factory.mktemp("report") / "forfeits.jsonl"
    illegal = shlex.join([sys.executable, str(ILLEGAL_BOT), "held"])
    _cli("match", "greedy", illegal, "--games", "2", "--record", str(record))
    names, games, config = from_record(record)
    return build(names, games, config, source=str(record), kind="record")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real record whose two bots are renamed to markup: a script and an entity."""
    folder = tmp_path_factory.mktemp("report")
    record = folder / "plain.jsonl"
    _cli("match", "greedy", "random", "--games", "2", "--record", str(record))
    text = record.read_text(encoding="utf-8")
    text = text.replace('"name":"random"', '"name":' + json.dumps(HOSTILE))
    text = text.replace('"name":"greedy"', '"name":' + json.dumps(AMPERSAND))
    renamed = folder / "hostile.jsonl"
    renamed.write_text(text, encoding="utf-8")
    names, games, config = from_record(renamed)
    assert set(names) == {HOSTILE, AMPERSAND}
    return build(names, games, config, source=str(renamed), kind="record")


@pytest.fixture(params=["tournament", "forfeits", "hostile"])
def data(request: pytest.FixtureRequest) -> dict[str, Any]:
    value: dict[str, Any] = request.getfixturevalue(request.param)
    return value


def _embedded(page: str) -> Any:
    blocks = DATA_BLOCK.findall(page)
    assert len(blocks) == 1
    return json.loads(blocks[0])


def _section(page: str, name: str) -> str:
    match = re.search(rf'<section id="{name}"[^>]*>(.*?)</section>', page, re.S)
    assert match, name
    return match.group(1)


def test_every_section_is_there_with_its_heading_and_tables(data: dict[str, Any]) -> None:
    page = render(data, None)
    assert page.startswith("<!DOCTYPE html>")
    for name in SECTIONS:
        assert "<h2" in _section(page, name)
    for element in VIEWER_IDS:
        assert f'id="{element}"' in page
    standings = _section(page, "standings")
    assert 'id="standings-table"' in standings
    for row in data["standings"]:
        assert standings.count(f'<tr data-bot="{html.escape(row["name"])}"') == 1
    assert 'id="crosstable-table"' in _section(page, "crosstable")
    games = _section(page, "games")
    for game in data["game_list"]:
        assert games.count(f'<tr data-game="{game["id"]}"') == 1
        if game["replay"]:
            assert f'href="#replay-{game["id"]}"' in games
    options = re.findall(r"<option [^>]*>", games)
    bots = {name for game in data["game_list"] for name in game["players"]}
    assert len(options) == 1 + len(bots) * (len(bots) - 1) // 2  # all pairs, then each pair


def test_the_data_is_embedded_once_and_parses_back_equal(data: dict[str, Any]) -> None:
    page = render(data, None)
    assert _embedded(page) == data
    assert page.count('id="report-data"') == 1


def test_script_json_cannot_close_its_element() -> None:
    value = {"name": "</script><!-- <script>", "text": "a & b > c \u2028"}
    text = script_json(value)
    assert "<" not in text
    assert ">" not in text
    assert json.loads(text) == value


def test_hostile_names_appear_only_escaped(hostile: dict[str, Any]) -> None:
    page = render(hostile, None)
    assert HOSTILE not in page
    assert "<b>" not in page
    assert html.escape(HOSTILE) in page
    assert html.escape(AMPERSAND) in page  # "&amp;amp;": the name's own "&amp;" escaped
    assert len(re.findall(r"<script\b", page)) == 2  # the data and the viewer
    assert len(re.findall(r"</script>", page)) == 2
    assert page.count("--red-suit:") == 1  # "{{css}}" in a name is not a placeholder
    assert _embedded(page) == hostile
    assert f'data-bot="{html.escape(HOSTILE)}"' in page


def test_failures_are_listed_with_their_rule_and_replay(
    forfeits: dict[str, Any], tournament: dict[str, Any]
) -> None:
    failures = _section(render(forfeits, None), "failures")
    assert 'id="failures-table"' in failures
    assert 'id="failure-examples"' in failures
    example = forfeits["failures"]["examples"][0]
    assert example["rule"] == "R7"
    assert f'href="#replay-{example["game"]}"' in failures
    assert '<span class="rule">R7</span>' in failures
    assert html.escape(example["message"]) in failures
    assert 'id="no-failures"' not in failures
    calm = _section(render(tournament, None), "failures")
    assert 'id="no-failures"' in calm
    assert "No forfeits" in calm


def test_the_page_fetches_nothing_from_outside(data: dict[str, Any]) -> None:
    svgs = plots.draw(data) if plots.missing() is None else None
    page = render(data, svgs)
    lowered = page.lower()
    assert "http://" not in lowered
    assert "https://" not in lowered
    assert "<link" not in lowered
    assert "@import" not in lowered
    assert not re.search(r"<script[^>]*\bsrc=", lowered)
    assert not re.search(r"<(img|image|iframe|embed|object|video|audio|source)\b", lowered)
    assert not re.search(r"\s(src|srcset|xlink:href)=", lowered)
    assert not re.search(r"\bhref=\"(?!#)", lowered)  # links go within the page only
    assert not re.search(r"url\((?!#)", lowered)


def test_without_plots_the_note_shows_and_the_tables_stay(data: dict[str, Any]) -> None:
    page = render(data, None, note=plots.INSTALL_NOTE)
    assert "<svg" not in page
    assert html.escape(plots.INSTALL_NOTE) in page
    assert "pip install &#x27;gin-rummy-arena[report]&#x27;" in page
    for table in (
        "standings-table",
        "crosstable-table",
        "elo-history-table",
        "move-times-table",
        "games-table",
    ):
        assert f'<table id="{table}"' in page
    assert 'id="report-note"' not in render(data, None)


def test_missing_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    note = plots.missing()
    assert note is not None
    assert "pip install 'gin-rummy-arena[report]'" in note


def test_the_inlined_assets_are_safe_to_inline() -> None:
    folder = importlib.resources.files("arena.report")
    for name in ("page.css", "viewer.js"):
        text = folder.joinpath(name).read_text(encoding="utf-8")
        assert not re.search(r"</(script|style)", text, re.I), name
    script = folder.joinpath("viewer.js").read_text(encoding="utf-8")
    script = re.sub(r"/\*.*?\*/", "", script, flags=re.S)  # the code, not what it says of itself
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script


_ID = re.compile(r'\sid="([^"]+)"')
_REFERENCE = re.compile(r'(?:url\(#|href="#)([^)"]+)')


def test_plots_are_inline_svg_with_no_clashing_ids(data: dict[str, Any]) -> None:
    pytest.importorskip("matplotlib")
    assert plots.missing() is None
    drawn = plots.draw(data)
    assert set(drawn) == {"elo", "elo_history", "move_times"}  # the crosstable is a table
    seen: dict[str, str] = {}
    for key, svg in drawn.items():
        assert svg.startswith("<svg ") and svg.endswith("</svg>"), key
        assert svg.count("<svg") == 1
        assert "<?xml" not in svg and "<!DOCTYPE" not in svg
        assert "<image" not in svg and "http" not in svg and "<script" not in svg
        assert "<text" in svg  # svg.fonttype none: text stays text
        ids = _ID.findall(svg)
        assert len(ids) == len(set(ids)), key
        for name in ids:
            assert name not in seen, f"{name} in both {seen.get(name)} and {key}"
            seen[name] = key
        assert set(_REFERENCE.findall(svg)) <= set(ids), key
    assert plots.draw(data) == drawn  # the same data, the same bytes
    page = render(data, drawn)
    assert page.count('<svg class="plot"') == 3
    page_ids = _ID.findall(page)
    assert len(page_ids) == len(set(page_ids))


def test_hostile_names_in_plots_are_text(hostile: dict[str, Any]) -> None:
    pytest.importorskip("matplotlib")
    drawn = plots.draw(hostile)
    for svg in drawn.values():
        assert "<script" not in svg and "<b>" not in svg
    assert any("&lt;/script&gt;" in svg for svg in drawn.values())
    page = render(hostile, drawn)
    assert len(re.findall(r"<script\b", page)) == 2
    assert _embedded(page) == hostile


def test_the_page_never_prints_a_los_of_100_and_says_what_separated_means() -> None:
    from arena.report import html as page

    row = {"rank": 1, "name": "greedy", "elo": 400.0, "low": 300.0, "high": 500.0, "games": 200,
           "wins": 200, "losses": 0, "draws": 0, "score": 1.0}  # fmt: skip
    data = {"standings": [{**row, "los_next": 1.0}, {**row, "name": "random", "los_next": None}]}
    shown = page._standings(data, None, {})
    cells = re.findall(r'<td class="num">([^<]*)</td></tr>', shown)
    assert cells in (["&gt;99%", "\u2013"], [">99%", "\u2013"])
    assert "separated at a LOS of 95% or more" in shown
