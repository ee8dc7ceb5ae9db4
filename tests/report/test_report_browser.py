"""gin-arena report in a real browser: Debian's chromium, headless, driven by Playwright.

A real tournament (the built-in bots) and a real match record with a crashing bot are made with
the command line, as a user would, and their reports are opened from ``file://`` with every
request that is not the file itself aborted and counted: no request may leave the page, and no
script error or console error may happen. Each section is shown and screenshotted; the standings
are those of ``gin-arena ratings``; the game list's filter keeps one pair's games; whole games are
stepped through with the keyboard, the viewer's hands checked against the engine's show-downs in
the embedded data; a phone-wide window has no sideways scroll; the page prints to PDF with the
viewer's controls hidden. ``REPORT_SCREENSHOT=PATH`` also saves the top of the report (header,
standings, Elo plot), 1200 px wide, to PATH (docs/report.png for the README).

Run by ``tox -e report-browser`` (which installs playwright and, as root, Debian's chromium);
anywhere without them these tests are skipped with what to install.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena_support import hostile
from support import bound, gin_arena

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Request, Route

pytestmark = pytest.mark.slow

SECTIONS = ("standings", "crosstable", "elo-history", "failures", "move-times", "games", "replay")
TIMEOUT_MS = 60_000
"""Playwright's auto-waiting bound: generous, for a machine shared with other test runs."""
CLI_TIMEOUT = bound(900.0)
"""Each command that makes a report or its data: a bound against hangs, not a timing."""
LOCAL_SCHEMES = ("data:", "about:", "blob:")
"""What the page may load besides its own file: nothing that leaves it."""
MINUS = "\u2212"

READ_BOARD = """() => {
  const cards = (id) => Array.from(document.querySelectorAll(`#${id} [data-card]`))
    .map((node) => node.getAttribute("data-card"));
  const result = document.getElementById("replay-result");
  const headline = result.querySelector(".headline");
  return {
    position: document.getElementById("replay-position").textContent,
    hands: [cards("replay-hand-0"), cards("replay-hand-1")],
    names: [0, 1].map((seat) => document.getElementById(`replay-name-${seat}`).textContent),
    action: document.getElementById("replay-action").textContent,
    resultShown: !result.hidden && result.getClientRects().length > 0,
    result: result.textContent,
    resultCards: cards("replay-result"),
    headline: headline ? headline.textContent : null,
    headlineTitle: headline ? headline.getAttribute("title") : null,
    gameOver: result.querySelector(".game-over")?.textContent ?? null,
  };
}"""
"""Everything the viewer shows of one step, read in one round trip; cards by their data-card."""


# ---- making the reports, as a user would ---------------------------------------------------


def cli(*args: str, cwd: Path | None = None) -> str:
    done = (
        gin_arena(*args, timeout=CLI_TIMEOUT)
        if cwd is None
        else gin_arena(*args, timeout=CLI_TIMEOUT, cwd=cwd)
    )
    assert done.returncode == 0, f"gin-arena {shlex.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("league") / "league.sqlite"
    cli("tournament", "--db", str(db), "--games-per-table", "4", "--seed", "3")
    return db


@pytest.fixture(scope="module")
def league_report(league: Path) -> Path:
    # Run where the database is, with the name a user types: the header shows the source as given
    # (the README's screenshot must not show a temporary directory).
    page = league.parent / "report.html"
    cli("report", "--db", league.name, "-o", page.name, cwd=league.parent)
    return page


@pytest.fixture(scope="module")
def crash_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("crash")
    record = where / "games.jsonl"
    crash = shlex.join(hostile("crash.py"))
    cli("match", "strong", crash, "--games", "2", "--record", str(record))
    page = where / "r.html"
    cli("report", "--record", str(record), "-o", str(page))
    return page


# ---- the browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import expect as playwright_expect
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(
            "playwright is not installed: pip install playwright==1.65.2 "
            "(tox -e report-browser installs it)"
        )
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip(
            "chromium is not on PATH: install Debian's with apt-get install chromium "
            "(tox -e report-browser does, as root)"
        )
    pytest.importorskip(
        "matplotlib", reason="the report's plots need the report extra: pip install '.[report]'"
    )
    playwright_expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Opened:
    """A report open in a page, with what the page asked for and what went wrong in it."""

    page: Page
    url: str
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        """No request left the page (none was even tried) and no script or console error."""
        assert self.blocked == [], f"requests the page tried to make: {self.blocked}"
        outside = [
            url
            for url in self.requests
            if url.split("#")[0] != self.url and not url.startswith(LOCAL_SCHEMES)
        ]
        assert outside == [], f"requests other than the file itself: {outside}"
        assert self.url in [url.split("#")[0] for url in self.requests]  # the recording works
        assert self.errors == [], f"errors in the page: {self.errors}"

    def data(self) -> dict[str, Any]:
        """The report's data as the page embeds it."""
        text = self.page.locator("script#report-data").text_content()
        assert text
        loaded: dict[str, Any] = json.loads(text)
        return loaded


Opener = Callable[..., Opened]


@pytest.fixture
def open_report(browser: Browser) -> Iterator[Opener]:
    """Open a report from file:// with the network cut: every request that is not the file
    itself is aborted and counted; requests, page errors and console errors are recorded."""
    contexts: list[BrowserContext] = []

    def opener(path: Path, *, width: int = 1280, height: int = 900) -> Opened:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            device_scale_factor=1,
            service_workers="block",
        )
        contexts.append(context)
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        url = path.resolve().as_uri()
        opened = Opened(page=context.new_page(), url=url)

        def route(route: Route) -> None:
            asked = route.request.url
            if asked.split("#")[0] == url or asked.startswith(LOCAL_SCHEMES):
                route.continue_()
            else:
                opened.blocked.append(asked)
                route.abort()

        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                opened.errors.append(f"console error: {message.text}")

        def request(asked: Request) -> None:
            opened.requests.append(asked.url)

        context.route("**/*", route)
        page = opened.page
        page.on("request", request)
        page.on("pageerror", lambda error: opened.errors.append(f"page error: {error}"))
        page.on("console", console)
        page.on("websocket", lambda socket: opened.blocked.append(socket.url))
        page.goto(url, wait_until="load")
        return opened

    yield opener
    for context in contexts:
        context.close()


def expect(*args: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(*args)


def png_size(path: Path) -> tuple[int, int]:
    """The width and height of a PNG file, from its header."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def assert_picture(path: Path, *, least_bytes: int = 3000) -> None:
    """A screenshot that shows something: a PNG of some size, more than a few KB."""
    width, height = png_size(path)
    assert width >= 200, (path, width, height)
    assert height >= 40, (path, width, height)
    assert path.stat().st_size > least_bytes, (path, path.stat().st_size)


def number(text: str) -> float:
    """A number as the page shows it: a sign (+, - or U+2212), no thousands separator."""
    return float(text.strip().replace(MINUS, "-"))


# ---- the tests -----------------------------------------------------------------------------


def test_every_section_shows_with_nothing_fetched(
    open_report: Opener, league_report: Path, tmp_path: Path
) -> None:
    opened = open_report(league_report)
    page = opened.page
    data = opened.data()
    assert data["games"] == 12
    for name in SECTIONS:
        section = page.locator(f"section#{name}")
        expect(section).to_be_visible()
        shot = tmp_path / f"section-{name}.png"
        section.screenshot(path=str(shot))
        assert_picture(shot)
    # The tables are there, with a row for each bot and each game.
    expect(page.locator("#standings-table tbody tr[data-bot]")).to_have_count(3)
    expect(page.locator("#crosstable-table tbody tr[data-bot]")).to_have_count(3)
    expect(page.locator("#games-table tbody tr[data-game]")).to_have_count(12)
    expect(page.locator("#no-failures")).to_be_visible()
    # Every plot is inline SVG, drawn; the crosstable is one table, coloured, headed by names.
    expect(page.locator("section#crosstable svg")).to_have_count(0)
    heads = page.locator("#crosstable-table thead th").all_inner_texts()
    assert [text.strip() for text in heads] == ["Bot", *(r["name"] for r in data["standings"])]
    for name in ("standings", "elo-history", "move-times"):
        plot = page.locator(f"section#{name} figure svg")
        expect(plot).to_have_count(1)
        box = plot.bounding_box()
        assert box is not None
        assert box["width"] > 200
        assert box["height"] > 100
    opened.assert_clean()


def test_standings_are_those_of_the_ratings_command(
    open_report: Opener, league: Path, league_report: Path
) -> None:
    ratings = json.loads(cli("ratings", "--db", str(league), "--format", "json"))
    opened = open_report(league_report)
    page = opened.page
    head = page.locator("#standings-table thead th").all_inner_texts()
    column = {text.strip(): i for i, text in enumerate(head)}
    rows: list[list[str]] = page.locator("#standings-table tbody tr[data-bot]").evaluate_all(
        "rows => rows.map(row => [row.dataset.bot,"
        " ...Array.from(row.children).map(cell => cell.textContent.trim())])"
    )
    assert [row[0] for row in rows] == [bot["name"] for bot in ratings["bots"]]
    for bot, row in zip(ratings["bots"], rows, strict=True):
        cells = row[1:]
        assert cells[column["#"]] == str(bot["rank"])
        assert cells[column["Bot"]] == bot["name"]
        shown = cells[column["Elo"]]
        assert re.fullmatch(rf"[+{MINUS}]?\d+", shown), shown  # whole points, signed
        assert abs(number(shown) - bot["elo"]) <= 0.5 + 1e-9, (bot["name"], shown, bot["elo"])
        interval = re.fullmatch(r"\[(\S+), (\S+)\]", cells[column["95% interval"]])
        assert interval is not None, cells
        low, high = interval.groups()
        assert abs(number(low) - bot["ci95"][0]) <= 0.5 + 1e-9
        assert abs(number(high) - bot["ci95"][1]) <= 0.5 + 1e-9
        assert cells[column["Games"]] == str(bot["games"])
        assert cells[column["Wins"]] == str(bot["wins"])
        assert cells[column["Losses"]] == str(bot["losses"])
        assert cells[column["Score"]] == f"{bot['score'] * 100:.1f}%"
    opened.assert_clean()


def test_standings_elo_reads_as_the_ratings_table_shows_it(
    open_report: Opener, league: Path, league_report: Path
) -> None:
    """The same tournament's Elo is the same whole number in the page as in the terminal."""
    table = cli("ratings", "--db", str(league))
    shown_there = {
        match["name"]: (match["elo"], match["low"], match["high"])
        for match in re.finditer(
            r"^\s*\d+\s+(?P<name>\S+)\s+(?P<elo>[+-]?\d+)"
            r"\s+\[(?P<low>[+-]?\d+),\s*(?P<high>[+-]?\d+)\]",
            table,
            re.MULTILINE,
        )
    }
    opened = open_report(league_report)
    rows: list[list[str]] = opened.page.locator("#standings-table tbody tr[data-bot]").evaluate_all(
        "rows => rows.map(row => [row.dataset.bot, row.children[2].textContent.trim(),"
        " row.children[3].textContent.trim()])"
    )
    shown_here = {}
    for name, elo, interval in rows:
        low, high = interval.strip("[]").split(", ")
        shown_here[name] = tuple(int(number(x)) for x in (elo, low, high))
    assert shown_here == {
        name: tuple(int(x) for x in values) for name, values in shown_there.items()
    }
    opened.assert_clean()


def test_the_game_list_filter_keeps_one_pair(open_report: Opener, league_report: Path) -> None:
    opened = open_report(league_report)
    page = opened.page
    data = opened.data()
    pair_of = {str(g["id"]): frozenset(g["players"]) for g in data["game_list"]}
    rows = page.locator("#games-table tbody tr[data-game]")
    filter_ = page.locator("select#pair-filter")
    options: list[dict[str, str]] = filter_.locator("option").evaluate_all(
        "options => options.map(o => ({value: o.value, label: o.textContent,"
        " a: o.getAttribute('data-a'), b: o.getAttribute('data-b')}))"
    )
    pairs = [o for o in options if o["a"]]
    assert {frozenset((o["a"], o["b"])) for o in pairs} == set(pair_of.values())
    assert len(pairs) == 3

    def visible_games() -> list[str]:
        ids: list[str] = rows.evaluate_all(
            "rows => rows.filter(r => r.getClientRects().length > 0).map(r => r.dataset.game)"
        )
        return ids

    assert sorted(visible_games(), key=int) == sorted(pair_of, key=int)
    for option in pairs:
        pair = frozenset((option["a"], option["b"]))
        wanted = sorted((gid for gid, p in pair_of.items() if p == pair), key=int)
        assert len(wanted) == 4
        filter_.select_option(value=option["value"])
        expect(rows.locator("visible=true")).to_have_count(len(wanted))
        assert visible_games() == wanted
        for gid in pair_of:
            row = page.locator(f'#games-table tr[data-game="{gid}"]')
            if gid in wanted:
                expect(row).to_be_visible()
            else:
                expect(row).to_be_hidden()
        assert option["a"] in option["label"]
        assert option["b"] in option["label"]
        expect(page.locator("#games-shown")).to_have_text(f"{len(wanted)} of 12 games")
    filter_.select_option(value="")
    expect(rows.locator("visible=true")).to_have_count(12)
    opened.assert_clean()


def cards(groups: list[list[str]]) -> set[str]:
    return {card for group in groups for card in group}


def check_hand_end(board: dict[str, Any], hand: dict[str, Any], last: bool, game: Any) -> None:
    """The viewer at a hand's end: its result and show-down as the embedded data has them."""
    result = hand["result"]
    seats = hand["seats"]
    assert board["resultShown"], board["position"]
    if result is None:
        assert "did not finish" in board["result"]
    else:
        assert board["headlineTitle"] == result["text"]
        if result["winner"] is not None:
            assert f"{seats[result['winner']]} scores {result['points']}" in board["headline"]
        line = ", ".join(f"{seats[i]} {score}" for i, score in enumerate(result["scores"]))
        assert f"Scores after the hand: {line}." in board["result"]
        show = result["show_down"]
        if show is not None:
            knocker, defender = show["knocker"], 1 - show["knocker"]
            held = [set(board["hands"][0]), set(board["hands"][1])]
            assert held[knocker] == cards(show["knocker_melds"]) | set(
                show["knocker_deadwood_cards"]
            ), board["position"]
            laid = {lay["card"] for lay in show["lay_offs"]}
            assert (
                held[defender]
                == cards(show["defender_melds"]) | set(show["defender_deadwood_cards"]) | laid
            ), board["position"]
            # The show-down itself lists every card of both hands, once.
            assert sorted(board["resultCards"]) == sorted(held[0] | held[1])
            if show["discard"]:
                assert f"knocked with {show['discard']}" in board["result"]
    if last:
        over = board["gameOver"]
        assert over is not None
        outcome = game["result"]
        if outcome["winner"]:
            assert outcome["winner"] in over
        for player, score in zip(game["players"], outcome["scores"], strict=True):
            if not outcome["failed"]:
                assert f"{player} {score}" in over
        if outcome["failed"]:
            assert f"{outcome['failed']} forfeited ({outcome['reason']})" in over
            assert outcome["message"] in over
    else:
        assert board["gameOver"] is None


def step_through(page: Page, game: dict[str, Any]) -> dict[str, int]:
    """Press ArrowRight from the start of ``game`` to its end, checking every step: the
    position, the hands (as the engine's records move the cards), the action and, at each
    hand's end, the result. Returns counts of what was checked."""
    position = page.locator("#replay-position")
    hands = game["hands"]
    total = len(hands)
    seen = {"steps": 0, "knock": 0, "gin": 0, "undercut": 0, "lay_offs": 0}
    for h, hand in enumerate(hands, 1):
        held = [set(hand["hands"][0]), set(hand["hands"][1])]
        steps = hand["steps"]
        for s in range(len(steps) + 1):
            if (h, s) != (1, 0):
                page.keyboard.press("ArrowRight")
            expect(position).to_have_text(f"hand {h} of {total}, step {s} of {len(steps)}")
            board = page.evaluate(READ_BOARD)
            if s == 0:
                assert board["action"].startswith("Deal: ")
                assert f"the upcard is {hand['upcard']}" in board["action"]
            else:
                step = steps[s - 1]
                mine = held[step["seat"]]
                if step["kind"] in ("draw_stock", "draw_discard"):
                    mine.add(step["card"])
                elif step["kind"] in ("discard", "knock") and step["card"]:
                    mine.remove(step["card"])
                assert board["action"].startswith(
                    f"{hand['seats'][step['seat']]}: {step['action']}"
                ), (board["position"], board["action"], step)
            assert [set(board["hands"][0]), set(board["hands"][1])] == held, board["position"]
            assert len(board["hands"][0]) == len(held[0])  # each card shown once
            assert len(board["hands"][1]) == len(held[1])
            for seat in (0, 1):
                assert board["names"][seat].startswith(hand["seats"][seat])
            seen["steps"] += 1
            if s < len(steps):
                assert not board["resultShown"], board["position"]
                continue
            check_hand_end(board, hand, h == total, game)
            result = hand["result"]
            if result is not None:
                seen[result["end"]] = seen.get(result["end"], 0) + 1
                show = result["show_down"]
                if show and show["lay_offs"]:
                    seen["lay_offs"] += 1
    # Past the end, ArrowRight stays there.
    last = len(hands[-1]["steps"])
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"hand {total} of {total}, step {last} of {last}")
    return seen


def expect_position(page: Page, hand: int, game: dict[str, Any], step: int | None = None) -> None:
    steps = len(game["hands"][hand - 1]["steps"])
    at = steps if step is None else step
    expect(page.locator("#replay-position")).to_have_text(
        f"hand {hand} of {len(game['hands'])}, step {at} of {steps}"
    )


def test_the_replay_steps_through_whole_games(
    open_report: Opener, league_report: Path, tmp_path: Path
) -> None:
    opened = open_report(league_report)
    page = opened.page
    data = opened.data()
    replays = data["replays"]
    assert sorted(replays, key=int) == [str(g["id"]) for g in data["game_list"]]

    def ends(gid: str) -> set[str]:
        return {h["result"]["end"] for h in replays[gid]["hands"] if h["result"]}

    longest = max(replays, key=lambda gid: len(replays[gid]["hands"]))
    # A second game, with an undercut if one has (the longest may be the only one that does).
    others = [gid for gid in sorted(replays, key=int) if gid != longest]
    undercut = next((gid for gid in others if "undercut" in ends(gid)), others[0])
    seen: dict[str, int] = {}

    # The game list's link opens a game in the viewer, and focuses it.
    page.locator(f'#games-table tr[data-game="{longest}"] a[data-replay]').click()
    expect(page.locator("select#replay-game")).to_have_value(longest)
    expect(page.locator("#viewer")).to_be_focused()
    expect(page.locator("#replay-board")).to_be_visible()
    for what, count in step_through(page, replays[longest]).items():
        seen[what] = seen.get(what, 0) + count
    page.locator("section#replay").screenshot(path=str(tmp_path / "replay-end.png"))
    assert_picture(tmp_path / "replay-end.png")

    # The game menu opens another; the keys work on the page (focus on the body).
    page.locator("select#replay-game").select_option(value=undercut)
    expect_position(page, 1, replays[undercut], 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.locator("#replay-summary").scroll_into_view_if_needed()
    for what, count in step_through(page, replays[undercut]).items():
        seen[what] = seen.get(what, 0) + count
    assert seen["knock"] and seen["gin"] and seen["undercut"] and seen["lay_offs"], seen

    # Home, End, and the hand keys.
    game = replays[longest]
    page.locator(f'#games-table tr[data-game="{longest}"] a[data-replay]').click()
    expect_position(page, 1, game, 0)
    total = len(game["hands"])
    page.keyboard.press("End")
    expect_position(page, total, game)
    board = page.evaluate(READ_BOARD)
    check_hand_end(board, game["hands"][-1], True, game)
    page.keyboard.press("Home")
    expect_position(page, 1, game, 0)
    page.keyboard.press("ArrowLeft")  # nothing before the deal of the first hand
    expect_position(page, 1, game, 0)
    page.keyboard.press("n")
    expect_position(page, 2, game, 0)
    page.keyboard.press("PageDown")
    expect_position(page, 3, game, 0)
    page.keyboard.press("ArrowLeft")  # back over a hand's start: the end of the one before
    expect_position(page, 2, game)
    page.keyboard.press("p")  # mid-hand: to this hand's deal
    expect_position(page, 2, game, 0)
    page.keyboard.press("p")
    expect_position(page, 1, game, 0)
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    page.keyboard.press("PageUp")
    expect_position(page, 2, game, 0)
    page.keyboard.press("PageUp")
    expect_position(page, 1, game, 0)
    for _ in range(total + 1):  # n on the last hand goes to its end
        page.keyboard.press("n")
    expect_position(page, total, game)
    # The buttons do as the keys.
    page.locator("#replay-start").click()
    expect_position(page, 1, game, 0)
    page.locator("#replay-next").click()
    expect_position(page, 1, game, 1)
    page.locator("#replay-next-hand").click()
    expect_position(page, 2, game, 0)
    page.locator("#replay-end").click()
    expect_position(page, total, game)
    opened.assert_clean()


def test_a_crashing_bot_in_the_failures_and_its_replay(
    open_report: Opener, crash_report: Path, tmp_path: Path
) -> None:
    opened = open_report(crash_report)
    page = opened.page
    data = opened.data()
    assert data["failures"]["counts"] == [{"bot": "crash", "reason": "crash", "count": 2}]
    for name in SECTIONS:
        expect(page.locator(f"section#{name}")).to_be_visible()
    failures = page.locator("section#failures")
    shot = tmp_path / "section-failures.png"
    failures.screenshot(path=str(shot))
    assert_picture(shot)
    count = page.locator('#failures-table tbody tr[data-bot="crash"]')
    expect(count).to_have_count(1)
    expect(count).to_contain_text("crash")
    expect(count.locator("td").last).to_have_text("2")
    examples = page.locator("#failure-examples tbody tr[data-game]")
    expect(examples).to_have_count(2)
    for example in data["failures"]["examples"]:
        row = page.locator(f'#failure-examples tr[data-game="{example["game"]}"]')
        expect(row).to_contain_text(example["message"])
        expect(row).to_contain_text(example["bot"])
    # The example's link opens the game; its end says who forfeited and why.
    first = str(data["failures"]["examples"][0]["game"])
    game = data["replays"][first]
    page.locator(f'#failure-examples tr[data-game="{first}"] a[data-replay]').click()
    expect(page.locator("select#replay-game")).to_have_value(first)
    step_through(page, game)
    expect(page.locator("#replay-result .game-over")).to_contain_text(
        "crash forfeited (crash): exited with code 3; its last words on stderr: 'crash: exiting "
        "mid-hand'; strong wins."
    )
    opened.assert_clean()


STICKING_OUT = """() => {
  const width = document.documentElement.clientWidth;
  const inScroller = (node) => {
    for (let up = node.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (["auto", "scroll", "hidden", "clip"].includes(style.overflowX)) return true;
    }
    return false;
  };
  return Array.from(document.body.querySelectorAll("*"))
    .filter((node) => {
      const box = node.getBoundingClientRect();
      return box.width > 0 && box.right > width + 1 && !inScroller(node);
    })
    .map((node) => node.tagName + (node.id ? "#" + node.id : ""));
}"""
"""The elements past the window's right edge that are not inside a box of their own that
scrolls (or clips) sideways."""

OUTSIDE_THE_BOARD = """() => {
  const board = document.getElementById("replay-board").getBoundingClientRect();
  return Array.from(document.querySelectorAll("#replay-board [data-card]"))
    .filter((card) => {
      const box = card.getBoundingClientRect();
      return box.left < board.left - 1 || box.right > board.right + 1;
    })
    .map((card) => `${card.dataset.card} in .${card.parentElement.className}`);
}"""
"""The viewer's cards (the hands, the pile, the show-down) that stick out of its board."""


def test_a_phone_wide_window_scrolls_no_sideways(
    open_report: Opener, league_report: Path, tmp_path: Path
) -> None:
    opened = open_report(league_report, width=390, height=844)
    page = opened.page
    data = opened.data()
    replays = data["replays"]
    wide = "document.documentElement.scrollWidth - window.innerWidth"
    assert page.evaluate(wide) <= 1
    assert page.evaluate(STICKING_OUT) == []
    # Every hand's end (its show-down, the widest the viewer gets), reached by the address
    # the viewer keeps (#replay-GAME-hHAND-sSTEP).
    problems: dict[str, dict[str, Any]] = {}
    for gid in sorted(replays, key=int):
        game = replays[gid]
        for number, hand in enumerate(game["hands"], 1):
            steps = len(hand["steps"])
            where = f"#replay-{gid}-h{number}-s{steps}"
            page.evaluate("where => { window.location.hash = where; }", where)
            expect(page.locator("#replay-summary")).to_contain_text(f"Game {gid}:")
            expect_position(page, number, game)
            expect(page.locator("#replay-result")).to_be_visible()
            found = {
                "sideways scroll (px)": page.evaluate(wide),
                "past the window": page.evaluate(STICKING_OUT),
                "cards out of the board": page.evaluate(OUTSIDE_THE_BOARD),
            }
            if (
                found["sideways scroll (px)"] > 1
                or found["past the window"]
                or found["cards out of the board"]
            ):
                problems[where] = found
    # And with the keys, to the first show-down with lay-offs: the screenshot.
    gid, number = next(
        (gid, i)
        for gid in sorted(replays, key=int)
        for i, hand in enumerate(replays[gid]["hands"], 1)
        if hand["result"]
        and hand["result"]["show_down"]
        and hand["result"]["show_down"]["lay_offs"]
    )
    game = replays[gid]
    page.locator(f'#games-table tr[data-game="{gid}"] a[data-replay]').click()
    expect_position(page, 1, game, 0)
    for _ in range(number - 1):
        page.keyboard.press("n")
    expect_position(page, number, game, 0)
    for _ in range(len(game["hands"][number - 1]["steps"])):
        page.keyboard.press("ArrowRight")
    expect_position(page, number, game)
    expect(page.locator("#replay-result")).to_be_visible()
    assert page.evaluate(wide) <= 1
    shot = tmp_path / "phone.png"
    page.screenshot(path=str(shot), full_page=True)
    width, height = png_size(shot)
    assert width == 390
    assert height > 844
    assert problems == {}, f"hands' ends too wide for a 390 px window: {problems}"
    opened.assert_clean()


def test_the_page_prints(open_report: Opener, league_report: Path, tmp_path: Path) -> None:
    opened = open_report(league_report)
    page = opened.page
    page.emulate_media(media="print")
    for hidden in ("#viewer .viewer-controls", "nav.toc", "#games .filter", "#replay-keys"):
        expect(page.locator(hidden)).to_be_hidden()
    for name in SECTIONS:
        expect(page.locator(f"section#{name}")).to_be_visible()
    pdf = tmp_path / "report.pdf"
    page.pdf(path=str(pdf), format="A4", print_background=True)
    # Printing opens the <details> (the Elo history's figures), so that they are on paper too.
    expect(page.locator("#elo-history-table")).to_be_visible()
    body = pdf.read_bytes()
    assert body.startswith(b"%PDF-")
    assert len(body) > 20_000
    assert len(re.findall(rb"/Type\s*/Page\b", body)) >= 2
    page.emulate_media(media="screen")
    expect(page.locator("#viewer .viewer-controls")).to_be_visible()
    opened.assert_clean()


def test_a_screenshot_of_the_top_for_the_readme(
    open_report: Opener, league_report: Path, tmp_path: Path
) -> None:
    opened = open_report(league_report, width=1200, height=900)
    page = opened.page
    plot = page.locator("section#standings figure svg")
    expect(plot).to_be_visible()
    expect(page.locator("dl.meta code").first).to_have_text("league.sqlite")
    box = page.locator("section#standings").bounding_box()
    plot_box = plot.bounding_box()
    assert box is not None
    assert plot_box is not None
    bottom = box["y"] + box["height"] + 12
    assert plot_box["y"] + plot_box["height"] <= bottom
    wanted = os.environ.get("REPORT_SCREENSHOT")
    shot = Path(wanted).resolve() if wanted else tmp_path / "report.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(shot),
        type="png",
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1200, "height": bottom},
    )
    width, height = png_size(shot)
    assert width == 1200
    assert abs(height - bottom) <= 1
    assert_picture(shot, least_bytes=20_000)
    assert shot.stat().st_size < 300_000
    opened.assert_clean()
