"""gin-arena serve in a real browser: Debian's chromium, headless, driven by Playwright.

A real league is made with the command line (the built-in bots, one of them under a name that is
markup, and a bot program that crashes mid-hand), served with ``gin-arena serve``, and opened in
the browser with every request that is not the server's own aborted and counted. While the page
is open, ``league run`` plays more games: the page must show them without a reload (a mark left
in the page's window survives), with the crashing bot's forfeits counted and the markup name shown
as text. A recent game's replay opens in the report's viewer and is stepped through. No script or
console error may happen (a broken Content-Security-Policy shows there).
``SERVE_SCREENSHOT=PATH`` also saves the page, 1200 px wide, to PATH (docs/serve.png).

Run by ``tox -e serve-browser`` (which installs playwright, the web extra and, as root, Debian's
chromium); anywhere without them these tests are skipped with what to install.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena_support import hostile
from support import QUICK, bound, gin_arena, start_gin_arena

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Route

pytestmark = pytest.mark.slow

TIMEOUT_MS = 60_000
"""Playwright's auto-waiting bound: generous, for a machine shared with other test runs."""
MARKUP = "<img src=x onerror=window.owned=1>"


def cli(*args: str) -> str:
    done = gin_arena(*args, timeout=bound(300.0))
    assert done.returncode == 0, f"gin-arena {shlex.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture
def league(tmp_path: Path) -> Path:
    db = tmp_path / "club.sqlite"
    cli("league", "create", "--db", str(db), "--seed", "11")
    cli("league", "add", "--db", str(db), "strong", "strong")
    cli("league", "add", "--db", str(db), "greedy", "greedy")
    cli("league", "add", "--db", str(db), MARKUP, "random")
    cli("league", "run", "--db", str(db), "--pairings", "8")
    cli("league", "add", "--db", str(db), "crashy", shlex.join(hostile("crash.py")))
    return db


@pytest.fixture
def server(league: Path) -> Iterator[str]:
    process = start_gin_arena(
        "serve", "--db", str(league), "--port", "0", "--poll", "0.3", "--title", "Club league",
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"at (http://\S+/) ", line)
    assert found, line
    try:
        yield found.group(1)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            assert process.wait(timeout=QUICK) == 0
        finally:
            if process.poll() is None:
                process.kill()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    try:
        from playwright.sync_api import expect as playwright_expect
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip(
            "playwright is not installed: pip install playwright==1.65.2 "
            "(tox -e serve-browser installs it)"
        )
    pytest.importorskip(
        "starlette", reason="gin-arena serve needs the web extra: pip install '.[web]'"
    )
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip(
            "chromium is not on PATH: install Debian's with apt-get install chromium "
            "(tox -e serve-browser does, as root)"
        )
    playwright_expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def expect(*args: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(*args)


def test_the_page_follows_a_league_run_live(
    browser: Browser, server: str, league: Path, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    outside: list[str] = []
    errors: list[str] = []

    def route(route: Route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"console error: {message.text}")

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", console)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
    page.goto(server, wait_until="load")

    expect(page.get_by_test_id("live-status")).to_have_text("live")
    expect(page.get_by_test_id("live-summary")).to_contain_text("16 games")
    rows = page.locator("#standings-body tr")
    expect(rows).to_have_count(4)  # crashy is in, with no games yet
    expect(page.locator('#standings-body tr[data-bot="crashy@1"]')).to_contain_text("no games yet")
    expect(page.locator("#standings-body")).to_contain_text(MARKUP)  # shown as text
    page.evaluate("window.sameDocument = 'still here'")

    # league run plays while the page is open: the page follows without a reload.
    run = start_gin_arena(
        "league", "run", "--db", str(league), "--pairings", "8",
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _, err = run.communicate(timeout=bound(300.0))
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    expect(page.get_by_test_id("live-summary")).to_contain_text("32 games")
    assert page.evaluate("window.sameDocument") == "still here"
    assert page.evaluate("window.owned") is None
    expect(page.locator('#standings-body tr[data-bot="crashy@1"]')).not_to_contain_text(
        "no games yet"
    )
    expect(page.get_by_test_id("forfeits")).to_contain_text("crash")
    crashy = page.locator('#standings-body tr[data-bot="crashy@1"]')
    expect(crashy).to_contain_text("broken")  # all the games of its first pairings forfeited
    expect(crashy).to_contain_text("crash: exiting mid-hand")  # and its last words
    expect(page.locator("#recent-body tr").first).to_have_attribute("data-game", "32")
    assert page.locator("#certainty li").count() >= 2
    shot = os.environ.get("SERVE_SCREENSHOT")
    if shot:
        page.screenshot(path=shot, full_page=False)
    page.get_by_test_id("facts").locator("summary").click()
    expect(page.locator("#facts")).to_contain_text("11")  # the league's seed
    expect(page.get_by_test_id("bots")).to_contain_text("crash.py")  # each bot's command
    expect(page.get_by_test_id("crosstable")).to_contain_text("strong@1")
    page.screenshot(path=str(tmp_path / "live.png"), full_page=True)
    assert (tmp_path / "live.png").stat().st_size > 10_000

    # A game's replay, in the report's viewer.
    link = page.locator("#recent-body a", has_text="replay").first
    link.click()
    page.wait_for_url(re.compile(r"/game/\d+$"))
    expect(page.get_by_test_id("replay-board")).to_be_visible()
    before = page.get_by_test_id("replay-position").text_content()
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("replay-position")).not_to_have_text(before or "")
    expect(page.get_by_test_id("replay-hand-0").locator("[data-card]")).not_to_have_count(0)
    assert outside == [], f"requests that left the server: {outside}"
    assert errors == [], errors
    context.close()
