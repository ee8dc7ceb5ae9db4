"""arena.seats.wire: every line between the referee and a bot is logged once, with its direction,
the
bot's name and the time, by both kinds of connection; nothing is built while nobody listens; a
tap collects the lines; ``--log-wire`` and ``GIN_ARENA_LOG_WIRE`` write them to a file."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from arena_support import CLOCK
from support import ROOT, cli_env, gin_arena

from arena.play.referee import Referee
from arena.seats import wire
from arena.seats.connection import Connection, InProcessConnection
from arena.seats.process import ProcessConnection
from bots.greedy import GreedyBot
from engine.rules import HOYLE
from protocol import messages as m

ENV_ON = {wire.ENV: "-"}
LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[\d+\] (?P<bot>\S+) (?P<dir>>>|<<) '(?P<text>.*)'$"
)


@pytest.fixture(autouse=True)
def _no_wire_left_on() -> Iterator[None]:
    """Each test starts and ends with the wire off, as a program starts."""
    assert not wire.enabled()
    yield
    wire.disable()
    assert not wire.enabled() and wire.log.propagate


def play_hand(connections: list[Connection], seed: int = 3) -> None:
    referee = Referee(HOYLE, CLOCK)
    try:
        for seat, connection in enumerate(connections):
            connection.start(referee.hello(seat, connections[1 - seat].name), CLOCK.startup)
        outcome = referee.play_game(connections, seed, single_hand=True)
        assert outcome.failure is None, outcome
    finally:
        for connection in connections:
            connection.close()


def greedy_process(tmp_path: Path, name: str) -> ProcessConnection:
    return ProcessConnection(
        name,
        [sys.executable, "-m", "bots.greedy"],
        workdir=tmp_path / name,
        log_path=tmp_path / f"{name}.stderr.log",
        env={"PYTHONPATH": str(ROOT)},
    )


def check_dialogue(lines: list[wire.WireLine]) -> list[m.Message]:
    """The lines of one bot make a well-formed dialogue: hello first, ready back, every request
    answered by the next line with its id, and nothing else from the bot."""
    messages = [line.message() for line in lines]
    assert isinstance(messages[0], m.Hello) and lines[0].direction == wire.TO_BOT
    assert isinstance(messages[1], m.Ready) and lines[1].direction == wire.FROM_BOT
    for index, (line, message) in enumerate(zip(lines, messages, strict=True)):
        assert line.line.endswith(b"\n") and line.text == line.line.decode().rstrip("\n")
        if line.direction == wire.FROM_BOT:
            asked = messages[index - 1]
            assert isinstance(message, m.Ready) or (
                isinstance(asked, m.Request)
                and isinstance(message, m.Reply)
                and message.id == asked.id
            )
            assert lines[index - 1].time <= line.time
    return messages


def test_nothing_is_logged_or_built_while_nobody_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bytes] = []
    monkeypatch.setattr(wire, "_log", lambda bot, direction, line: built.append(line))
    play_hand([InProcessConnection("a", GreedyBot), InProcessConnection("b", GreedyBot)])
    assert built == []
    with wire.tap():
        play_hand([InProcessConnection("a", GreedyBot), InProcessConnection("b", GreedyBot)])
    assert len(built) > 50


def test_a_tap_collects_every_line_of_in_process_bots_in_order() -> None:
    with wire.tap() as lines:
        play_hand([InProcessConnection("a", GreedyBot), InProcessConnection("b", GreedyBot)])
    assert {line.bot for line in lines} == {"a", "b"}
    for name in ("a", "b"):
        messages = check_dialogue([line for line in lines if line.bot == name])
        kinds = {message.type for message in messages}
        assert {"game_start", "hand_start", "request", "reply", "played", "game_end"} <= kinds
    with wire.tap("b") as only_b:
        play_hand([InProcessConnection("a", GreedyBot), InProcessConnection("b", GreedyBot)])
    assert only_b and {line.bot for line in only_b} == {"b"}


def test_a_process_bot_s_lines_are_logged_as_they_travel(tmp_path: Path) -> None:
    with wire.tap() as lines:
        play_hand([greedy_process(tmp_path, "proc"), InProcessConnection("here", GreedyBot)])
    mine = [line for line in lines if line.bot == "proc"]
    messages = check_dialogue(mine[:-1])
    assert isinstance(mine[-1].message(), m.Quit) and mine[-1].direction == wire.TO_BOT
    assert any(isinstance(message, m.Reply) for message in messages)
    # The in-process opponent's lines interleave with them: one logger, one order of time.
    assert [line.time for line in lines] == sorted(line.time for line in lines)


def test_a_tap_turns_the_logger_on_only_while_it_runs_and_keeps_it_out_of_root() -> None:
    root = logging.getLogger()
    heard: list[logging.LogRecord] = []
    catcher = logging.Handler(logging.DEBUG)
    catcher.emit = heard.append  # type: ignore[method-assign]
    root.addHandler(catcher)
    try:
        with wire.tap() as outer:
            assert wire.enabled() and not wire.log.propagate
            with wire.tap() as inner:
                wire.sent("x", b'{"type":"quit"}\n')
            assert wire.enabled()
            wire.received("x", b"garbage\n")
    finally:
        root.removeHandler(catcher)
    assert not wire.enabled() and wire.log.propagate and wire.log.level == logging.NOTSET
    assert [line.text for line in outer] == ['{"type":"quit"}', "garbage"]
    assert [line.text for line in inner] == ['{"type":"quit"}']
    assert heard == []  # the root logger's handlers were not flooded


def test_a_line_is_quoted_and_cut_in_the_log_but_kept_whole_in_the_record(tmp_path: Path) -> None:
    path = tmp_path / "wire.log"
    wire.enable(str(path))
    line = b"\x1b[2J" + b"x" * 70_000 + b"\r\n"
    with wire.tap() as lines:
        wire.received("evil", line)
    assert lines[0].line == line
    (text,) = path.read_text(encoding="utf-8").splitlines()
    assert text.endswith("...'") and "\\x1b[2J" in text and "\x1b" not in text
    assert len(text) < wire.QUOTE_LIMIT + 100


def test_enable_writes_each_line_with_time_name_and_direction_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "wire.log"
    wire.enable(str(path))
    wire.enable(str(path))  # again: still one handler
    play_hand([InProcessConnection("a", GreedyBot), InProcessConnection("b", GreedyBot)])
    wire.disable()
    rows = path.read_text(encoding="utf-8").splitlines()
    parsed = [LINE.match(row) for row in rows]
    assert all(parsed), [row for row, match in zip(rows, parsed, strict=True) if not match][:3]
    first = parsed[0]
    assert first is not None
    assert (first["bot"], first["dir"]) == ("a", ">>")
    assert json.loads(first["text"])["type"] == "hello"
    assert len({(p["bot"], p["dir"]) for p in parsed if p}) == 4
    hellos = [p for p in parsed if p and '"type":"hello"' in p["text"]]
    assert len(hellos) == 2  # one per bot: enabling twice did not double the lines


def test_enable_without_a_target_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(wire.ENV, raising=False)
    wire.enable(None)
    assert not wire.enabled()
    path = tmp_path / "from-env.log"
    monkeypatch.setenv(wire.ENV, str(path))
    wire.enable(None)
    wire.sent("a", b'{"type":"quit"}\n')
    assert path.read_text().rstrip().endswith("""a >> '{"type":"quit"}'""")


def test_enable_names_a_file_it_cannot_write(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"--log-wire: cannot write .*missing"):
        wire.enable(str(tmp_path / "missing" / "wire.log"))


def test_check_bot_logs_the_wire_with_the_option_and_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "wire.log"
    done = gin_arena("check-bot", "greedy", "--in-process", "--games", "1", "--log-wire", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = path.read_text(encoding="utf-8").splitlines()
    assert all(LINE.match(row) for row in rows)
    bots = {match["bot"] for row in rows if (match := LINE.match(row))}
    # the two-player opponent, and the greedy bots of the three-player and partnership checks
    assert bots == {"greedy", "opponent", "opponent-1", "opponent-2", "opponent-3"}
    shown = gin_arena("check-bot", "greedy", "--in-process", "--games", "1", env=cli_env(**ENV_ON))
    assert shown.returncode == 0
    assert sum(1 for row in shown.stderr.splitlines() if LINE.match(row)) > 100
