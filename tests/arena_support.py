"""Helpers shared by the arena tests: the hostile bots' command lines, a short clock, bounded
waits on conditions, and checks that no bot process is left behind. Running ``gin-arena`` and the
timeouts are in tests/support.py.

A process killed with its group can stay a zombie for a moment until its parent (or init) reaps
it; a zombie runs no code and holds no resources, so it counts as gone here.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from support import QUICK

from arena.play.referee import Clock
from arena.seats.botspec import BotSpec
from arena.seats.process import BACKSTOP_SECONDS, QUIT_WAIT_SECONDS
from engine.game import Game
from engine.rules import Rules
from protocol import messages as m
from protocol.convert import legal_models
from protocol.views import observation_model

HOSTILE = Path(__file__).resolve().parent / "arena" / "hostile"

CLOCK = Clock(move=0.3, grace=0.1, startup=QUICK)
"""Short moves, so that a hung bot costs a fraction of a second; a start-up generous enough for
a loaded machine (a CI run once saw a plain Python bot miss 5 s, while four test workers shared
two cores). A bot that fails at start-up exits, so a long allowance costs nothing there."""
GREEDY = BotSpec("greedy", builtin="greedy")
"""The built-in greedy bot, run in-process: the well-behaved opponent."""


def a_request(request_id: int = 7) -> m.Request:
    """A request for the first move of a hand (seed 5): what a bot is asked, for tests that talk
    to one bot without a referee."""
    game = Game(Rules(), 5)
    hand = game.hand
    return m.Request(
        type="request",
        id=request_id,
        phase=hand.phase.value,  # type: ignore[arg-type]
        legal=legal_models(hand.legal_actions()),
        observation=observation_model(
            hand.observation(hand.to_move), game.hand_number, game.scores, game.rules.game_target
        ),
        clock=m.Clock(move_ms=1000, bank_ms=0),
    )


def game_bound(clock: Clock = CLOCK) -> float:
    """A generous upper bound on the seconds one forfeited game may take (not a tight timing): a
    bound against hangs, with room for a machine loaded by other test runs."""
    return clock.move + clock.grace + BACKSTOP_SECONDS + 10.0


def match_bound(games: int, clock: Clock = CLOCK) -> float:
    """A generous bound on a whole match of ``games`` forfeited games, restarts included."""
    return games * (game_bound(clock) + QUIT_WAIT_SECONDS) + clock.startup


def hostile(script: str, *args: str) -> tuple[str, ...]:
    """The command line of a hostile bot in tests/arena/hostile/."""
    path = str(HOSTILE / script)
    if script.endswith(".sh"):
        return ("/bin/sh", path, *args)
    return (sys.executable, path, *args)


def hostile_spec(name: str, script: str, *args: str, pidfile: Path, **env: str) -> BotSpec:
    """A hostile bot that appends the pid of each of its runs to ``pidfile``."""
    return BotSpec(name, hostile(script, *args), env={"HOSTILE_PIDFILE": str(pidfile), **env})


def read_pids(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [int(line) for line in path.read_text().split()]


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; return whether it held."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, process group) of ``pid`` from /proc, or None if it is not there."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()
    return fields[0], int(fields[2])


def process_alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if not Path("/proc").is_dir():
        return True
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def group_alive(pgid: int) -> bool:
    """Whether process group ``pgid`` has a member that is not a zombie."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pgid and stat[0] not in ("Z", "X"):
                return True
    return False


def assert_gone(pids: Iterable[int], groups: bool = True) -> None:
    """Every pid (and, with ``groups``, the process group it leads) is gone, or is within a few
    seconds: the kill is sent before the referee returns, but a kill takes effect asynchronously."""
    for pid in pids:
        assert wait_until(functools.partial(_dead, pid)), f"bot process {pid} is alive"
        if groups:
            assert wait_until(functools.partial(_group_dead, pid)), (
                f"process group {pid} still has a live member"
            )


def _dead(pid: int) -> bool:
    return not process_alive(pid)


def _group_dead(pgid: int) -> bool:
    return not group_alive(pgid)
