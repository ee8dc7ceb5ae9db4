"""Bot processes: the orphan reaper, the fair move clock, stray lines, lines that come with a
failing one, the reader's line limit and the quit grace.

The clock tests drive :func:`arena.seats.process._now` by hand, so that no test depends on how fast
this
machine is; the process tests bound every wait generously and assert no duration.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from arena_support import CLOCK, a_request, hostile, process_alive, read_pids, wait_until
from support import COMMAND, GONE, QUICK

from arena.play.match import Match
from arena.play.referee import Referee
from arena.seats import launch, output, process, reaper, wire
from arena.seats.botspec import BotSpec
from arena.seats.connection import BotCrashed, BotTimeout, MalformedMessage, ProtocolViolation
from arena.seats.process import QUIT_WAIT_SECONDS, ProcessConnection
from arena.seats.walls import limits
from engine.rules import HOYLE
from protocol import messages as m
from protocol.codec import encode

LINUX = sys.platform.startswith("linux") and Path("/proc/self/stat").exists()
needs_linux = pytest.mark.skipif(not LINUX, reason="the reaper needs Linux and /proc")
SLEEPER = "import time; time.sleep(600)"


def a_reply(request: m.Request) -> bytes:
    return encode(m.Reply(type="reply", id=request.id, action=request.legal[0]))


def unstarted(tmp_path: Path) -> ProcessConnection:
    return ProcessConnection(
        "bot", ["unused"], workdir=tmp_path / "bot", log_path=tmp_path / "bot.log"
    )


class Clock:
    """A clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(process, "_now", fake)
    return fake


# -- the move clock ----------------------------------------------------------------------------


def test_the_move_clock_starts_once_the_request_is_written(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = unstarted(tmp_path)
    request = a_request()

    def slow_write(lines: list[bytes], timeout: float) -> None:
        clock.now += 10.0  # the write took long (a loaded machine): not the bot's time
        conn._lines.feed(a_reply(request))

    monkeypatch.setattr(conn, "_write_out", slow_write)
    reply, elapsed = conn.ask(request, timeout=1.0)
    assert reply.id == request.id
    assert elapsed == 0.0


class EarlyWaits:
    """Waits for the bot's output that wake up after half the time asked, with nothing, until
    ``arrives`` waits have passed: then ``line`` comes."""

    def __init__(self, conn: ProcessConnection, clock: Clock, line: bytes = b"", arrives: int = 0):
        self.conn, self.clock, self.line, self.arrives = conn, clock, line, arrives
        self.waits: list[float] = []

    def __call__(self, wait: float) -> None:
        self.waits.append(wait)
        if self.line and len(self.waits) > self.arrives:
            self.conn._lines.feed(self.line)
        else:
            self.clock.now += wait / 2


def test_a_timeout_is_never_reported_before_the_limit(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = unstarted(tmp_path)
    early = EarlyWaits(conn, clock)
    monkeypatch.setattr(conn, "_read", early)
    monkeypatch.setattr(conn, "_write_out", lambda lines, timeout: None)
    start = clock.now
    with pytest.raises(BotTimeout, match=r"no reply within 1\.000 s"):
        conn.ask(a_request(), timeout=1.0)
    assert clock.now - start >= 1.0
    assert len([w for w in early.waits if w]) > 1, "an early wake-up must wait again"


def test_a_reply_that_comes_after_an_early_wake_up_is_taken(
    tmp_path: Path, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = unstarted(tmp_path)
    request = a_request()
    monkeypatch.setattr(conn, "_read", EarlyWaits(conn, clock, a_reply(request), arrives=3))
    monkeypatch.setattr(conn, "_write_out", lambda lines, timeout: None)
    reply, elapsed = conn.ask(request, timeout=1.0)
    assert reply.id == request.id and 0.0 < elapsed < 1.0


# -- stray lines and discarding ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "error", "message"),
    [
        (b"debug: thinking\n", MalformedMessage, r"not valid JSON.*when no request was open"),
        (b"\n", MalformedMessage, r"when no request was open"),
        (
            b'{"type": "reply", "id": 3, "action": {"kind": "draw", "source": "stock"}}\n',
            ProtocolViolation,
            r"when no request was open \(before the request message\)",
        ),
    ],
)
def test_a_stray_line_is_judged_by_what_it_is_not_by_when_it_is_found(
    tmp_path: Path, line: bytes, error: type[Exception], message: str
) -> None:
    conn = unstarted(tmp_path)
    conn._lines.feed(line)
    with pytest.raises(error, match=message):
        conn.ask(a_request(), timeout=1.0)


def test_discard_pending_drops_what_came_with_a_failing_line_but_keeps_the_end(
    tmp_path: Path,
) -> None:
    conn = unstarted(tmp_path)
    conn._lines.feed(b'more\n{"type": "ready"}\n')
    conn._lines.end()
    conn.discard_pending()
    assert not conn._lines.ready and conn._lines.ended
    with pytest.raises(BotCrashed, match="not started"):
        conn.ask(a_request(), timeout=1.0)
    conn.discard_pending()  # nothing pending: nothing happens
    assert not conn._lines.ready


def read_lines(data: bytes, chunk: int = 4096) -> list[bytes]:
    lines = output.Lines()
    for start in range(0, len(data), chunk):
        lines.feed(data[start : start + chunk])
    lines.end()
    return list(lines.ready)


def test_the_reader_cuts_a_line_over_the_limit_and_reads_on() -> None:
    limit = m.MAX_LINE_BYTES + 2
    huge = b"x" * 200_000 + b"\n"
    data = huge + b'{"a": 1}\n' + b"x" * 70_000
    for chunk in (1, 4096, 65536, len(data)):
        lines = read_lines(data, chunk)
        assert lines == [b"x" * limit, b'{"a": 1}\n', b"x" * limit], chunk


def test_the_reader_keeps_a_last_line_without_its_end() -> None:
    assert read_lines(b"one\ntwo") == [b"one\n", b"two"]
    assert read_lines(b"one\ntwo", chunk=1) == [b"one\n", b"two"]


def test_error_and_game_end_reach_a_bot_whose_bad_line_came_with_more(tmp_path: Path) -> None:
    conn = ProcessConnection(
        "burst",
        hostile("burst.py"),
        workdir=tmp_path / "burst",
        log_path=tmp_path / "burst.log",
        quit_wait=30.0,
    )
    referee = Referee(HOYLE, CLOCK)
    try:
        conn.start(referee.hello(0, "greedy"), timeout=30.0)
        with pytest.raises(MalformedMessage, match="oops"):
            conn.ask(a_request(), timeout=30.0)
        conn.discard_pending()
        conn.send(m.ErrorNotice(type="error", reason="malformed", message="oops"))
        conn.send(m.GameEnd(type="game_end", winner=1, scores=[0, 0], reason="malformed"))
    finally:
        conn.close()
    log = (tmp_path / "burst.log").read_text()
    assert "got error" in log and "got game_end" in log, log
    assert conn.quit_by_itself


# -- quit ---------------------------------------------------------------------------------------


def test_the_default_quit_grace_lets_a_heavy_python_bot_exit() -> None:
    assert QUIT_WAIT_SECONDS >= 2.0


@pytest.mark.parametrize(("quit_wait", "by_itself"), [(60.0, True), (0.0, False)])
def test_the_quit_grace_is_configurable(quit_wait: float, by_itself: bool, tmp_path: Path) -> None:
    conn = ProcessConnection(
        "lingering",
        hostile("lingering.py", "0.5"),
        workdir=tmp_path / "lingering",
        log_path=tmp_path / "lingering.log",
        quit_wait=quit_wait,
    )
    try:
        conn.start(Referee(HOYLE, CLOCK).hello(0), timeout=30.0)
    finally:
        conn.close()
    assert conn.quit_by_itself is by_itself


# -- the reaper ---------------------------------------------------------------------------------


@contextlib.contextmanager
def cleanup(*procs: subprocess.Popen[bytes]) -> Iterator[None]:
    try:
        yield
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)


ORPHAN = f"""
import os, sys
child = os.fork()
if child == 0:
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.execv(sys.executable, [sys.executable, "-c", {SLEEPER!r}])
print(child, flush=True)
"""


def start_orphan() -> int:
    """A process in a session of its own whose parent has exited: with this process a subreaper,
    it is our child."""
    done = subprocess.run(
        [sys.executable, "-c", ORPHAN], capture_output=True, text=True, timeout=COMMAND, check=True
    )
    pid = int(done.stdout)
    assert wait_until(lambda: pid in reaper.children(), timeout=GONE), "the orphan is not ours"
    return pid


@needs_linux
def test_the_reaper_kills_orphans_and_spares_our_own_processes() -> None:
    assert reaper.become_subreaper()
    assert reaper.become_subreaper(), "idempotent"
    ours = subprocess.Popen([sys.executable, "-c", SLEEPER])  # our session: a helper
    registered = subprocess.Popen([sys.executable, "-c", SLEEPER], start_new_session=True)
    reaper.register(registered.pid)  # another session, but an open bot
    with cleanup(ours, registered):
        try:
            orphan = start_orphan()
            assert reaper.session_of(orphan) not in (None, os.getsid(0))
            assert set(reaper.orphans()) == {orphan}
            assert reaper.reap_orphans() == [orphan]
            assert not process_alive(orphan)
            assert process_alive(ours.pid) and process_alive(registered.pid)
            assert ours.poll() is None and registered.poll() is None
            assert reaper.orphans() == []
        finally:
            reaper.unregister(registered.pid)


@needs_linux
def test_close_ends_a_setsid_grandchild_and_a_daemon(tmp_path: Path) -> None:
    childfile = tmp_path / "children"
    conn = ProcessConnection(
        "escape",
        hostile("escape.py"),
        workdir=tmp_path / "escape",
        log_path=tmp_path / "escape.log",
        env={"HOSTILE_CHILDFILE": str(childfile)},
    )
    try:
        conn.start(Referee(HOYLE, CLOCK).hello(0), timeout=30.0)
        escapees = read_pids(childfile)
        assert len(escapees) == 2
        assert all(process_alive(pid) for pid in escapees)
        assert wait_until(
            lambda: all(reaper.session_of(pid) != conn.pid for pid in escapees), timeout=QUICK
        ), "the escapees left the bot's session"
    finally:
        conn.close()
    for pid in escapees:
        assert not process_alive(pid), f"escapee {pid} outlived close()"


# -- the outbox ---------------------------------------------------------------------------------


def test_events_go_with_the_next_request_in_one_write_or_when_flushed(tmp_path: Path) -> None:
    bot = ProcessConnection(
        "greedy",
        launch.python_command("bots.greedy"),
        workdir=tmp_path / "greedy",
        log_path=tmp_path / "greedy.log",
    )
    writes: list[int] = []
    real_write = os.write

    def counted(fd: int, data: bytes) -> int:
        written = real_write(fd, data)
        writes.append(written)
        return written

    event = m.GameStart(type="game_start", game=1, seat=0, target=100)
    request = a_request(9)
    try:
        bot.start(Referee(HOYLE).hello(0), 30.0)
        with wire.tap("greedy") as lines, pytest.MonkeyPatch.context() as patch:
            patch.setattr(process.os, "write", counted)
            bot.send(event)
            bot.send(event)
            assert lines == [] and writes == [], "events wait for the request"
            reply, _ = bot.ask(request, 30.0)
            assert reply.id == 9
            assert [(line.direction, line.text.split(",")[0]) for line in lines] == [
                (wire.TO_BOT, '{"type":"game_start"'),
                (wire.TO_BOT, '{"type":"game_start"'),
                (wire.TO_BOT, '{"type":"request"'),
                (wire.FROM_BOT, '{"type":"reply"'),
            ]
            assert len(writes) == 1, "the events and the request in one write"
            bot.send(event)
            bot.flush()
            bot.flush()  # nothing left: nothing written
            assert len(writes) == 2 and lines[-1].text.startswith('{"type":"game_start"')
            size = len(encode(event))
            count = process.OUTBOX_BYTES // size + 1
            for _ in range(count):
                bot.send(event)
            # A full outbox is written without waiting (in parts if the pipe fills up).
            assert writes[2] > 0 and sum(writes[2:]) == count * size
    finally:
        bot.close()
    assert bot.quit_by_itself


def test_the_events_a_bot_says_it_ignores_are_not_sent(tmp_path: Path) -> None:
    """``ready.ignores``: the SDK's random bot does nothing with ``played``, the strong bot tracks
    it; a hand between them over stdio sends ``played`` to the strong bot only."""
    spec = {name: BotSpec(name, builtin=name) for name in ("random", "strong")}
    with wire.tap() as lines:
        Match(
            (spec["random"], spec["strong"]), HOYLE, games=1, single_hands=True, in_process=False
        ).play()
    sent = {(line.bot, line.message().type) for line in lines if line.direction == wire.TO_BOT}
    assert ("strong", "played") in sent and ("random", "request") in sent
    assert ("random", "played") not in sent and ("random", "hand_start") not in sent
    assert ("random", "game_end") in sent, "game_start, game_end and error always go"


# -- a bot's end, seen when it happens -------------------------------------------------------------


def test_wait_exit_is_woken_by_the_end_and_gives_up_at_its_time() -> None:
    quick = subprocess.Popen([sys.executable, "-c", "pass"])
    assert reaper.wait_exit(quick, 30.0) and quick.returncode == 0
    assert reaper.wait_exit(quick, 0.0)  # already ended and reaped: at once
    stuck = subprocess.Popen(["sleep", "30"])
    try:
        assert not reaper.wait_exit(stuck, 0.05)
        assert stuck.poll() is None
    finally:
        stuck.kill()
        stuck.wait()


@pytest.mark.skipif(limits.unavailable() is not None, reason="no control groups for bots here")
def test_a_groups_processes_are_read_afresh_after_one_ends() -> None:
    """A v1 hierarchy keeps the process list it gave an open descriptor for a second after its
    last read: read through one, a process that has ended would be listed on, and removing its
    group would wait for nothing."""
    group = limits.BotGroup.create("afresh", limits.Limits())
    group.open_join()
    try:
        child = subprocess.Popen(["sleep", "30"], preexec_fn=group.join)  # noqa: PLW1509
        group.close_join()
        assert group.pids() == [child.pid]
        child.kill()
        child.wait()
        assert group.pids() == []
    finally:
        group.remove()


def test_processes_sharing_a_log_keep_their_lines_whole(tmp_path: Path) -> None:
    """Two processes of one bot at once (two workers' games) write their stderr, in pieces, to
    one log, more than a read holds: each line arrives whole, whatever the pieces (copied a read
    at a time, a line cut between two reads had the other process's words in its middle)."""
    script = (
        "import os, sys, time\n"
        "tag = sys.argv[1]\n"
        "for n in range(200):\n"
        "    line = f'{tag} {n} ' + 'x' * (900 + n % 97) + '\\n'\n"
        "    os.write(2, line[:5].encode()); time.sleep(0.0005); os.write(2, line[5:].encode())\n"
    )
    log = tmp_path / "bot.stderr.log"
    children = [
        subprocess.Popen([sys.executable, "-c", script, tag], stderr=subprocess.PIPE)
        for tag in ("north", "south")
    ]
    keepers = [
        threading.Thread(target=output.keep_log, args=(child.stderr, log, 1 << 20))
        for child in children
    ]
    for keeper in keepers:
        keeper.start()
    for child, keeper in zip(children, keepers, strict=True):
        child.wait()
        keeper.join()
    lines = log.read_text().splitlines()
    assert len(lines) == 400
    for line in lines:
        tag, number, *rest = line.split(" ")
        assert tag in ("north", "south") and rest == ["x" * (900 + int(number) % 97)], line[:80]
