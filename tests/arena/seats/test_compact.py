"""The compact form of the protocol (docs/PROTOCOL.md, "The compact form"): a bot that asks for
it in ``ready`` is sent, at each request, the history entries since its previous request of the
hand, and the SDK puts the hand's history back together: a bot sees the same history, and
plays the same game, in either form, in this process and over stdio; the lines are shorter."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from arena_support import CLOCK

from arena.play.referee import Referee
from arena.seats import wire
from arena.seats.connection import InProcessConnection
from arena.seats.process import ProcessConnection
from arena.seats.walls.sandbox import resolve_sandbox
from bots.greedy import GreedyBot
from bots.sdk import View
from engine.hand import Action
from engine.rules import HOYLE
from protocol import messages as m
from protocol.codec import encode

HONEST = Path(__file__).parent / "honest"
SEED = 23


def histories(bot: type[GreedyBot]) -> tuple[list[list[object]], list[int]]:
    """Every history the two bots' views held, in order, and the request lines' lengths, in a
    two-game match of in-process bots whose every message goes through the codec (the wire
    tapped, so the requests are encoded and decoded as over stdio)."""
    seen: list[list[object]] = []

    class Historian(bot):
        def choose(self, view: View) -> Action:
            seen.append(list(view.history))
            return super().choose(view)

    referee = Referee(HOYLE.replace(game_target=40), CLOCK)
    conns = [InProcessConnection(f"seat {seat}", Historian) for seat in (0, 1)]
    with wire.tap() as tapped:
        for seat, conn in enumerate(conns):
            conn.start(referee.hello(seat, "greedy"), CLOCK.startup)
        for game in (1, 2):
            outcome = referee.play_game(conns, SEED + game, number=game)
            assert outcome.failure is None, outcome.failure
    sizes = [len(t.text) for t in tapped if t.text.startswith('{"type":"request"')]
    return seen, sizes


class Plain(GreedyBot):
    form = "plain"


def test_a_bot_sees_the_same_history_in_either_form_and_the_lines_are_shorter() -> None:
    compact, compact_sizes = histories(GreedyBot)
    plain, plain_sizes = histories(Plain)
    assert compact == plain
    assert len(compact) > 100 and max(len(h) for h in compact) > 20  # whole hands, long ones
    assert len(compact_sizes) == len(plain_sizes)
    assert sum(compact_sizes) < 0.6 * sum(plain_sizes), (sum(compact_sizes), sum(plain_sizes))


def test_the_referee_sends_the_compact_form_only_to_a_bot_that_asks() -> None:
    referee = Referee(HOYLE, CLOCK)
    conns = [InProcessConnection("compact", GreedyBot), InProcessConnection("plain", Plain)]
    with wire.tap() as tapped:
        for seat, conn in enumerate(conns):
            conn.start(referee.hello(seat), CLOCK.startup)
        referee.play_game(conns, SEED, number=1, single_hand=True)
    requests = {
        name: [json.loads(t.text) for t in tapped if t.bot == name and '"request"' in t.text[:20]]
        for name in ("compact", "plain")
    }
    assert all("history_from" in r["observation"] for r in requests["compact"])
    assert not any("history_from" in r["observation"] for r in requests["plain"])
    starts = [r["observation"]["history_from"] for r in requests["compact"]]
    assert starts[0] == 0 and starts == sorted(starts) and starts[-1] > 0


def sdk_run(
    bot: GreedyBot, lines: list[bytes], capsys: pytest.CaptureFixture[str]
) -> tuple[list[dict[str, object]], str]:
    """The lines a bot of the SDK writes for ``lines``, and what it says on stderr."""
    out = io.BytesIO()
    capsys.readouterr()
    bot.run(io.BytesIO(b"".join(lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()], capsys.readouterr().err


def compact_requests() -> list[bytes]:
    """The request lines a compact bot was sent in one hand (and the hello before them)."""
    referee = Referee(HOYLE, CLOCK)
    conns = [InProcessConnection(f"s{seat}", GreedyBot) for seat in (0, 1)]
    with wire.tap() as tapped:
        for seat, conn in enumerate(conns):
            conn.start(referee.hello(seat), CLOCK.startup)
        referee.play_game(conns, SEED, number=1, single_hand=True)
    return [
        t.text.encode() + b"\n"
        for t in tapped
        if t.bot == "s0" and t.direction == wire.TO_BOT and '"type":"request"' in t.text[:20]
    ]


@pytest.mark.parametrize("direct", [True, False], ids=["json", "messages"])
def test_the_sdk_holds_the_history_and_says_so_when_entries_are_missing(
    direct: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both of the SDK's paths (the JSON read straight, and the decoded messages of a bot that
    handles them itself) hold the history; a request whose history starts past what is held is
    said on stderr, and the bot plays on."""

    class Seer(GreedyBot):
        def __init__(self) -> None:
            super().__init__()
            self.lengths: list[int] = []

        def choose(self, view: View) -> Action:
            self.lengths.append(len(view.history))
            return super().choose(view)

        if not direct:

            def handle(self, message: m.Message) -> m.Message | None:
                return super().handle(message)

    hello = encode(Referee(HOYLE, CLOCK).hello(0))
    requests = compact_requests()
    assert Seer.answers_directly() is direct
    bot = Seer()
    replies, said = sdk_run(bot, [hello, *requests], capsys)
    assert len(replies) == 1 + len(requests) and "missing" not in said, said
    seen = [json.loads(r)["observation"] for r in requests]
    assert bot.lengths == [o["history_from"] + len(o["history"]) for o in seen]
    gap = Seer()
    replies, said = sdk_run(gap, [hello, requests[0], *requests[2:]], capsys)
    assert len(replies) == len(requests)  # ready, and every request answered
    assert "the history is missing some" in said, said


def program_histories(form: str, tmp_path: Path) -> list[list[object]]:
    """What two SDK programs asking for ``form`` print of their views' histories, in order, in
    a game over stdio with the default sandbox."""
    referee = Referee(HOYLE.replace(game_target=40), CLOCK)
    conns = [
        ProcessConnection(
            f"{form}{seat}",
            [sys.executable, str(HONEST / "historian.py"), form],
            workdir=tmp_path / "arena" / f"{form}{seat}",
            log_path=tmp_path / "arena" / f"{form}{seat}.stderr.log",
            sandbox=resolve_sandbox("auto"),
        )
        for seat in (0, 1)
    ]
    try:
        for seat, conn in enumerate(conns):
            conn.start(referee.hello(seat), CLOCK.startup)
        outcome = referee.play_game(conns, SEED + 1, number=1)
    finally:
        for conn in conns:
            conn.close()
    assert outcome.failure is None, outcome.failure
    assert all(conn.form.compact is (form == "compact") for conn in conns)
    return [
        json.loads(line[8:])
        for conn in conns
        for line in Path(conn.log_path).read_text().splitlines()
        if line.startswith("HISTORY ")
    ]


def test_program_bots_see_the_whole_history_in_either_form(tmp_path: Path) -> None:
    compact = program_histories("compact", tmp_path / "compact")
    plain = program_histories("plain", tmp_path / "plain")
    assert compact == plain
    assert len(compact) > 50 and max(len(h) for h in compact) > 20
