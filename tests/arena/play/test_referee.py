"""The referee and its connections: the clock and the time bank, the deadline of writes, each bot
process in its own session with a minimal environment and a capped log, and in-process bots that
fail the same ways subprocess bots do."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest
from arena_support import (
    CLOCK,
    assert_gone,
    game_bound,
    group_alive,
    hostile,
    process_alive,
    wait_until,
)

from arena.play.referee import Clock, GameOutcome, Referee
from arena.records.judge import judge
from arena.records.record import BotTag, Writer
from arena.seats.connection import (
    BotError,
    BotStartupError,
    BotTimeout,
    Connection,
    InProcessConnection,
)
from arena.seats.process import BACKSTOP_SECONDS, ProcessConnection
from bots.greedy import GreedyBot
from bots.sdk import Bot, View
from engine.hand import DISCARDS, Action
from engine.rules import HOYLE, Rules
from protocol import messages as m

# -- helpers ----------------------------------------------------------------------------------

HANG_SECONDS = 30.0
"""A bound against hangs, not a timing: what the referee does takes a few seconds at most, but a
loaded machine may stretch them; a hang is forever."""


def greedy(name: str = "greedy") -> InProcessConnection:
    return InProcessConnection(name, GreedyBot)


def process(tmp_path: Path, name: str, argv: Sequence[str], **kwargs: object) -> ProcessConnection:
    return ProcessConnection(
        name,
        argv,
        workdir=tmp_path / name,
        log_path=tmp_path / f"{name}.stderr.log",
        **kwargs,  # type: ignore[arg-type]
    )


def play(
    referee: Referee, connections: Sequence[Connection], seed: int = 1, single_hand: bool = False
) -> GameOutcome:
    """Start both bots, play one game, close both."""
    try:
        for seat, connection in enumerate(connections):
            connection.start(referee.hello(seat), referee.clock.startup)
        return referee.play_game(connections, seed, single_hand=single_hand)
    finally:
        for connection in connections:
            connection.close()


# -- the clock --------------------------------------------------------------------------------


def test_clock_values_are_checked_and_sent_in_milliseconds() -> None:
    clock = Clock(move=0.25, bank=3.0, grace=0.05, startup=2.0, quit=1.5)
    assert clock.message() == m.TimeControl(
        move_ms=250, bank_ms=3000, grace_ms=50, startup_ms=2000, quit_ms=1500
    )
    for bad in (
        {"move": 0.0},
        {"startup": 0.0},
        {"bank": -1.0},
        {"grace": -0.1},
        {"move": -1},
        {"quit": -1.0},
        {"move": float("inf")},  # once an OverflowError deep in the referee
        {"move": 1e308},
        {"bank": 86_401.0},
        {"move": True},
        {"move": "1"},
    ):
        with pytest.raises(ValueError, match="bad time control"):
            Clock(**bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bad time control: move"):
        Clock(move=float("nan"))
    assert Clock(move=86_400.0, quit=0.0).quit == 0.0


def bank_log(path: Path) -> list[int]:
    return [int(v) for v in re.findall(r"bank_ms=(\d+)", path.read_text())]


def test_a_slow_move_within_the_bank_is_charged_to_the_bank(tmp_path: Path) -> None:
    # A bank far above what the test needs: on a loaded machine the slow move may take longer than
    # its 0.6 s, and quick moves may overrun too; only the referee's accounting is checked.
    clock = Clock(move=0.2, grace=0.1, bank=3.0, startup=5.0)
    slow = process(tmp_path, "slow", hostile("slow.py", "0.6"))
    outcome = play(Referee(HOYLE, clock), [slow, greedy()], seed=4, single_hand=True)
    assert outcome.failure is None, outcome.failure
    assert outcome.move_seconds[0] >= 0.6
    banks = bank_log(tmp_path / "slow.stderr.log")
    assert len(banks) >= 2
    # The first request offers the whole bank; the 0.6 s move overran move + grace (0.3 s) by at
    # least 0.3 s, which the bank paid. (The quick moves after it cost nothing, unless the machine
    # is very slow: the bank never grows back.)
    assert banks[0] == 3000
    assert 0 < banks[1] <= 2700
    assert banks[1:] == sorted(banks[1:], reverse=True) and banks[-1] > 0


@pytest.mark.parametrize("bank", [0.0, 0.2])
def test_a_slow_move_beyond_move_grace_and_bank_times_out(bank: float, tmp_path: Path) -> None:
    clock = Clock(move=0.2, grace=0.1, bank=bank, startup=5.0)
    slow = process(tmp_path, "slow", hostile("slow.py", "0.6"))
    start = time.monotonic()
    outcome = play(Referee(HOYLE, clock), [greedy(), slow], seed=4, single_hand=True)
    assert time.monotonic() - start < clock.startup + game_bound(clock)
    assert outcome.failure is not None
    assert (outcome.failure.seat, outcome.failure.reason) == (1, "timeout")
    waited = re.fullmatch(r"no reply within (\d+\.\d{3}) s", outcome.failure.message)
    assert waited is not None, outcome.failure.message
    assert abs(float(waited[1]) - (clock.move + clock.grace + bank)) < 0.05
    assert outcome.winner == 0 and outcome.result is None
    assert outcome.seconds < game_bound(clock)
    assert slow.pid is not None
    assert_gone([slow.pid])


# -- processes --------------------------------------------------------------------------------

ENV_BOT = """
env >&2
echo "cwd=$(pwd)" >&2
echo '{"type": "ready", "protocol_version": 1, "name": "env"}'
exec sleep 60
"""


def test_a_bot_process_has_its_own_session_environment_and_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIN_ARENA_TEST_SECRET", "do-not-pass")
    bot = process(tmp_path, "env", ["/bin/sh", "-c", ENV_BOT], env={"BOT_LEVEL": "3"})
    bot.start(Referee(HOYLE).hello(0), 5.0)
    pid = bot.pid
    assert pid is not None
    assert os.getpgid(pid) == pid and os.getsid(pid) == pid
    assert os.getpgid(pid) != os.getpgid(0)
    started = time.monotonic()
    bot.close()
    bot.close()  # safe twice
    # The bot does not read its quit: it is killed after the quit wait, not waited for (its sleep
    # lasts 60 s; the bound is a guard against that, not a timing).
    assert bot.quit_by_itself is False
    assert time.monotonic() - started < HANG_SECONDS
    assert_gone([pid])
    lines = set((tmp_path / "env.stderr.log").read_text().splitlines())
    home = str(tmp_path / "env")
    assert {f"HOME={home}", f"TMPDIR={home}", f"cwd={home}", "BOT_LEVEL=3"} <= lines
    assert "PYTHONUNBUFFERED=1" in lines
    assert not any(line.startswith("GIN_ARENA_TEST_SECRET=") for line in lines)


def test_a_bot_that_stops_reading_is_killed_at_the_write_deadline_and_the_log_is_capped(
    tmp_path: Path,
) -> None:
    bot = process(tmp_path, "flood", hostile("flood.py", "200000"), log_limit=1000)
    bot.start(Referee(HOYLE).hello(0), 5.0)
    pid = bot.pid
    assert pid is not None
    event = m.GameEnd(type="game_end", winner=0, scores=[100, 0], reason="normal")
    start = time.monotonic()
    # Once the pipe to the bot is full a write waits, until its deadline: then the bot is killed.
    with pytest.raises(BotTimeout, match="stopped reading its input"):
        for _ in range(100_000):
            bot.send(event)
    assert time.monotonic() - start < 2 * BACKSTOP_SECONDS + HANG_SECONDS
    assert_gone([pid])
    bot.close()
    log = (tmp_path / "flood.stderr.log").read_bytes()
    assert log == b"flood " * 166 + b"floo" + b"\n[gin-arena: log truncated at the size cap]\n"


def test_a_bot_started_from_a_thread_outlives_that_thread(tmp_path: Path) -> None:
    """A bot must live as long as its referee process, whichever thread started it (a runner may
    start bots from a helper thread and play from another)."""
    bot = process(tmp_path, "prompt", hostile("slow.py", "0"))
    referee = Referee(HOYLE, CLOCK)
    starter = threading.Thread(target=bot.start, args=(referee.hello(0), 5.0))
    starter.start()
    starter.join()
    try:
        greedy_bot = greedy()
        greedy_bot.start(referee.hello(1), 1.0)
        outcome = referee.play_game([bot, greedy_bot], 4, single_hand=True)
    finally:
        bot.close()
    assert outcome.failure is None, f"the bot died with the thread that started it: {outcome}"


def test_the_last_words_of_a_bot_that_exits_at_once_are_kept_in_its_log(tmp_path: Path) -> None:
    """Why a bot could not start is in its stderr: the log must hold all of it once the
    connection is closed. (Closing the pipes before the reader thread has drained them loses
    it, some of the time: hence many tries.)"""
    hello = Referee(HOYLE).hello(0)
    lost = []
    for attempt in range(100):
        bot = process(tmp_path, f"quitter{attempt}", hostile("exit_at_once.sh"))
        with pytest.raises(BotStartupError, match="exited with code 7"):
            bot.start(hello, 5.0)
        bot.close()
        if "giving up before hello" not in Path(bot.log_path).read_text():
            lost.append(attempt)
    assert not lost, f"the bot's stderr was lost from the log in {len(lost)} of 100 tries"


def test_a_command_that_cannot_run_is_a_startup_error(tmp_path: Path) -> None:
    bot = process(tmp_path, "ghost", [str(tmp_path / "no-such-bot")])
    with pytest.raises(BotStartupError, match=r"ghost: cannot run '.*no-such-bot': No such file"):
        bot.start(Referee(HOYLE).hello(0), 1.0)
    bot.close()
    with pytest.raises(ValueError, match="empty command"):
        process(tmp_path, "nothing", [])


def test_an_unsupported_protocol_version_is_the_same_failure_in_and_out_of_process(
    tmp_path: Path,
) -> None:
    class OtherVersion(GreedyBot):
        def handle(self, message: m.Message) -> m.Message | None:
            if isinstance(message, m.Hello):
                return m.Ready(type="ready", protocol_version=99, name="other")
            return super().handle(message)

    hello = Referee(HOYLE).hello(0)
    failures: list[BotError] = []
    for bot in (
        InProcessConnection("other", OtherVersion),
        process(tmp_path, "other", hostile("wrong_version.py")),
    ):
        with pytest.raises(BotError, match="chose protocol version 99") as caught:
            bot.start(hello, 5.0)
        bot.close()
        failures.append(caught.value)
    assert [type(f) for f in failures] == [BotStartupError, BotStartupError], failures


# -- in-process bots fail like subprocess bots ---------------------------------------------


class Raising(GreedyBot):
    def discard(self, view: View) -> Action:
        raise RuntimeError("out of ideas")


class Illegal(GreedyBot):
    def discard(self, view: View) -> Action:
        return DISCARDS[next(c for c in range(52) if not view.hand >> c & 1)]


class Slow(GreedyBot):
    """Thinks hard: 0.35 s of its thread's CPU time for a draw."""

    def draw(self, view: View) -> Literal["stock", "discard"]:
        start = time.thread_time()
        while time.thread_time() - start < 0.35:
            pass
        return super().draw(view)


class Sleepy(GreedyBot):
    """Waits (a loaded machine, another game's work) but does not think: costs no CPU time."""

    waits = 0

    def draw(self, view: View) -> Literal["stock", "discard"]:
        Sleepy.waits += 1
        time.sleep(0.35)
        return super().draw(view)


class Speechless(GreedyBot):
    def handle(self, message: m.Message) -> m.Message | None:
        return None if isinstance(message, m.Hello) else super().handle(message)


@pytest.mark.parametrize(
    ("factory", "reason", "rule", "message"),
    [
        (Raising, "crash", "", "raised RuntimeError: out of ideas"),
        (Illegal, "illegal", "R7", r"discard \w\w is illegal: .* is not in your hand"),
        (Slow, "timeout", "", r"used \d+\.\d{3} s of CPU time, over the limit of 0\.300 s"),
    ],
)
def test_an_in_process_bot_that_fails_forfeits(
    factory: type[Bot], reason: str, rule: str, message: str
) -> None:
    clock = Clock(move=0.2, grace=0.1)
    for seat in (0, 1):
        bots = [greedy(), greedy()]
        bots[seat] = InProcessConnection("bad", factory)
        outcome = play(Referee(HOYLE, clock), bots, seed=9)
        assert outcome.failure is not None
        assert (outcome.failure.seat, outcome.failure.reason, outcome.failure.rule) == (
            seat,
            reason,
            rule,
        )
        assert re.search(message, outcome.failure.message), outcome.failure.message
        assert outcome.winner == 1 - seat and outcome.reason == reason


def test_an_in_process_bot_that_does_not_answer_hello_cannot_start() -> None:
    with pytest.raises(BotStartupError, match="did not answer hello"):
        InProcessConnection("speechless", Speechless).start(Referee(HOYLE).hello(0), 1.0)

    def broken() -> Bot:
        raise OSError("no weights file")

    with pytest.raises(BotStartupError, match="could not be created: no weights file"):
        InProcessConnection("broken", broken).start(Referee(HOYLE).hello(0), 1.0)


def test_an_in_process_bot_is_charged_its_cpu_time_not_the_wall_clock() -> None:
    """A built-in bot that waits (the machine is busy) is not charged for the wait."""
    outcome = play(
        Referee(HOYLE, Clock(move=0.2, grace=0.1)),
        [InProcessConnection("sleepy", Sleepy), greedy()],
        seed=9,
        single_hand=True,
    )
    assert outcome.failure is None, outcome.failure
    assert Sleepy.waits >= 1, "the bot was never asked to draw: pick another seed"


def test_a_normal_game_reaches_the_target() -> None:
    outcome = play(Referee(HOYLE, CLOCK), [greedy("a"), InProcessConnection("b", GreedyBot)], 3)
    assert outcome.failure is None and outcome.reason == "normal"
    assert outcome.result is not None and outcome.winner == outcome.result.winner
    assert outcome.winner is not None
    assert outcome.scores[outcome.winner] >= HOYLE.game_target
    assert outcome.hands == outcome.result.hands_played >= 1


# -- a failure once the game is decided ------------------------------------------------------


class Sulks(GreedyBot):
    """Raises (an in-process bot's crash) when told the result of the hand that decides the game:
    any hand of a single-hand game, else the hand that reaches the target."""

    single_hand = False

    def on_hand_end(self, message: m.HandEnd) -> None:
        if self.single_hand or max(message.scores) >= self.rules.game_target:
            raise RuntimeError("I lost")


class SulksAtOnce(Sulks):
    single_hand = True


def recorded(
    referee: Referee, connections: Sequence[Connection], seed: int, single_hand: bool
) -> tuple[GameOutcome, str]:
    """Play one game with a record; return the outcome and the record's text."""
    stream = io.StringIO()
    referee.recorder = Writer(stream, bots=[BotTag(name=c.name) for c in connections])
    outcome = play(referee, connections, seed, single_hand)
    return outcome, stream.getvalue()


@pytest.mark.parametrize("single_hand", [False, True])
def test_a_bot_leaving_after_the_deciding_hand_does_not_overturn_the_result(
    single_hand: bool, tmp_path: Path
) -> None:
    """The game was decided by the rules before the bot left: the result stands, and the record
    the referee writes is one that ``judge`` accepts."""
    rules = Rules(game_target=30)
    sulker = InProcessConnection("sulker", SulksAtOnce if single_hand else Sulks)
    bots: list[Connection] = [sulker, greedy()]
    outcome, text = recorded(Referee(rules, CLOCK), bots, seed=8, single_hand=single_hand)
    record = tmp_path / "game.jsonl"
    record.write_text(text)
    verdict = judge(record)
    assert verdict.ok, f"judge rejects the referee's own record: {verdict.disagreement}"
    # With this seed the bot that leaves (seat 0) is the one the rules made the winner.
    ends = [json.loads(line) for line in text.splitlines() if '"type":"hand_end"' in line]
    assert ends[-1]["winner"] == 0
    assert outcome.winner == 0, f"a game already decided was forfeited: {outcome.failure}"


def test_the_helpers_that_look_for_processes_left_behind_can_see_them() -> None:
    """The checks of no process left behind would pass vacuously if these could not fail."""
    start = time.monotonic()
    assert not wait_until(lambda: False, timeout=0.05)
    assert wait_until(lambda: True, timeout=0.0)
    assert time.monotonic() - start < 1.0
    assert process_alive(os.getpid()) and group_alive(os.getpgid(0))
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        assert process_alive(child.pid) and group_alive(child.pid)
    finally:
        child.kill()
    assert wait_until(lambda: not process_alive(child.pid))  # a zombie until reaped: gone
    child.wait()
    assert not process_alive(child.pid) and not group_alive(child.pid)
