"""The example bots of docs/PROTOCOL.md work: taken from the page, run as real subprocesses through
the arena's ProcessConnection and Referee, they play whole games against the built-in greedy bot
without a single failure. The SDK example plays in process."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.play.referee import Clock, Referee
from arena.seats.connection import Connection, InProcessConnection
from arena.seats.process import ProcessConnection
from bots.greedy import GreedyBot
from bots.sdk import Bot
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import encode

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
NODE = shutil.which("node")
SEEDS = (1, 2, 3)
RULES = Rules()
CLOCK = Clock(move=2.0, startup=10.0)
EXTENSIONS = {"python": "py", "javascript": "js"}


FENCES = {"python": "python", "javascript": "javascript", "sdk": "python"}


def example(name: str) -> str:
    """The code between ``<!-- bot:NAME:begin -->`` and its end marker, fences removed."""
    pattern = rf"<!-- bot:{name}:begin -->\n```(\w+)\n(.*?)```\n<!-- bot:{name}:end -->"
    found = re.findall(pattern, DOC, flags=re.DOTALL)
    assert len(found) == 1, f"docs/PROTOCOL.md needs one {name} bot between markers"
    fence, code = found[0]
    assert fence == FENCES[name]
    return str(code)


def command(language: str, tmp_path: Path) -> list[str]:
    path = tmp_path / f"plain.{EXTENSIONS[language]}"
    path.write_text(example(language), encoding="utf-8")
    if language == "python":
        return [sys.executable, str(path)]
    if NODE is None:
        pytest.skip("node is not on PATH: the JavaScript example bot cannot be run")
    return [NODE, str(path)]


LANGUAGES = [
    "python",
    pytest.param(
        "javascript",
        marks=pytest.mark.skipif(NODE is None, reason="node is not on PATH: skipped"),
    ),
]


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_the_example_bots_are_short(language: str) -> None:
    assert len(example(language).splitlines()) <= 40


@pytest.fixture
def process_bot(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ProcessConnection]:
    language: str = request.param
    connection = ProcessConnection(
        f"plain-{language}",
        command(language, tmp_path),
        workdir=tmp_path / "work",
        log_path=tmp_path / "bot.log",
    )
    yield connection
    connection.close()
    log = tmp_path / "bot.log"
    if log.exists():
        assert log.read_text() == "", "the example bot wrote to its log"


def play(bot: Connection, seeds: tuple[int, ...] = SEEDS) -> None:
    referee = Referee(RULES, CLOCK)
    greedy = InProcessConnection("greedy", GreedyBot)
    ready = bot.start(referee.hello(0, "greedy"), CLOCK.startup)
    assert ready.protocol_version == 1
    greedy.start(referee.hello(1, bot.name), CLOCK.startup)
    hands = 0
    for number, seed in enumerate(seeds, start=1):
        seats = [bot, greedy] if number % 2 else [greedy, bot]
        outcome = referee.play_game(seats, seed, number=number)
        assert outcome.failure is None, outcome.failure
        assert outcome.result is not None and outcome.winner is not None
        hands += outcome.hands
    assert hands > len(seeds), "whole games of several hands were played"


@pytest.mark.parametrize("process_bot", LANGUAGES, indirect=True)
def test_an_example_bot_plays_whole_games_against_greedy(process_bot: ProcessConnection) -> None:
    play(process_bot)


def _talk(language: str, tmp_path: Path, *lines: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        command(language, tmp_path),
        input=b"".join(lines),
        capture_output=True,
        timeout=30,
        check=False,
    )


REQUEST = encode(
    m.Request(
        type="request",
        id=9,
        phase="first_upcard",
        legal=[m.DrawAction(kind="draw", source="discard"), m.PassAction(kind="pass")],
        observation=m.Observation(
            seat=0,
            phase="first_upcard",
            hand=["2C", "7C", "3D", "8D", "5H", "9H", "2S", "3S", "7S", "JS"],
            discard_pile=["QC"],
            stock_size=31,
            opponent_known=[],
            opponent_hand_size=10,
            first_upcard="QC",
            knock_limit=10,
            turn=0,
            dealer=1,
            hand_number=1,
            scores=[0, 0],
            target=100,
        ),
        clock=m.Clock(move_ms=1000, bank_ms=0),
    )
)


def _hello(versions: list[int]) -> bytes:
    return (
        Referee(RULES)
        .hello(0)
        .model_copy(update={"versions": versions})
        .model_dump_json(exclude_none=True)
        .encode()
        + b"\n"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_example_bot_ignores_what_it_does_not_know_and_stops_at_quit(
    language: str, tmp_path: Path
) -> None:
    done = _talk(
        language,
        tmp_path,
        _hello([1]),
        b'{"type":"gossip","id":9}\n',
        encode(m.GameStart(type="game_start", game=1, seat=0, target=100)),
        REQUEST.replace(b"\n", b"\r\n"),
        encode(m.Quit(type="quit")),
        REQUEST,
    )
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [o["type"] for o in out] == ["ready", "reply"]
    assert out[1] == {"type": "reply", "id": 9, "action": {"kind": "draw", "source": "discard"}}


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_example_bot_without_a_common_version_exits_2(language: str, tmp_path: Path) -> None:
    done = _talk(language, tmp_path, _hello([2, 3]), REQUEST)
    assert done.returncode == 2 and done.stdout == b""
    assert b"no common protocol version" in done.stderr


def test_the_sdk_example_plays_whole_games_against_greedy() -> None:
    namespace: dict[str, object] = {"__name__": "sdk_example"}
    exec(compile(example("sdk"), "docs/PROTOCOL.md (sdk example)", "exec"), namespace)
    factory = namespace["Simple"]
    assert isinstance(factory, type) and issubclass(factory, Bot)
    play(InProcessConnection("simple", factory))
