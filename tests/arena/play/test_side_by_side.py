"""Bots start and end side by side: a lineup starts every bot before it waits for any handshake,
and tells every bot to quit before it waits for any to end (issue "the wire at pipe speed":
start-up off the critical path). Checked without a clock: twin bots that each wait for the
other at start and at quit (tests/arena/hostile/waits_for_twin.py) can only play that way."""

from __future__ import annotations

from pathlib import Path

from arena_support import hostile
from support import QUICK

from arena.play.match import Match
from arena.play.referee import Clock, Referee
from arena.seats.botspec import BotSpec
from arena.seats.connection import close_together, start_together
from arena.tournament.config import Config
from arena.tournament.runner import probe
from engine.rules import HOYLE

CLOCK = Clock(move=5.0, grace=1.0, startup=QUICK, quit=QUICK)


def twins(folder: Path) -> tuple[BotSpec, BotSpec]:
    return (
        BotSpec("castor", hostile("waits_for_twin.py", str(folder), "castor", "pollux")),
        BotSpec("pollux", hostile("waits_for_twin.py", str(folder), "pollux", "castor")),
    )


def test_a_match_starts_and_ends_twin_bots_side_by_side(tmp_path: Path) -> None:
    result = Match(twins(tmp_path), HOYLE, CLOCK, games=1, seed=3, workdir=tmp_path / "w").play()
    outcome = result.games[0].outcome
    assert outcome.failure is None, outcome.failure
    marks = sorted(p.name for p in tmp_path.iterdir() if p.is_file())
    assert marks == ["castor.booted", "castor.quit", "pollux.booted", "pollux.quit"]


def test_start_together_reports_each_bot_and_close_together_ends_them(tmp_path: Path) -> None:
    specs = twins(tmp_path)
    launch = Match(specs, HOYLE, CLOCK).launch()
    conns = [spec.connect(tmp_path / "w", launch) for spec in specs]
    hello = Referee(HOYLE, CLOCK).hello(0, None)
    try:
        answers = start_together(conns, [hello, hello], CLOCK.startup)
        assert [getattr(a, "name", a) for a in answers] == ["castor", "pollux"]
    finally:
        close_together(conns)
    assert all(getattr(c, "quit_by_itself", None) for c in conns)  # both ended on quit


def test_the_probe_starts_bots_side_by_side(tmp_path: Path) -> None:
    config = Config(bots=twins(tmp_path), clock=CLOCK)
    assert probe(config, tmp_path / "w") == {"castor": "", "pollux": ""}
