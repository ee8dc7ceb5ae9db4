"""The example bots in other languages (``bots/examples/``): the JavaScript bot and the C bot.

Each is run for real, as a subprocess: whole games through the arena against ``greedy`` (a bot that
breaks the protocol or plays an illegal action forfeits, so no failure means legal play), single
hands under the presets whose legal lists differ (Oklahoma's knock limit, big gin's knock without
a card), every decision of seeded hands checked against the strategy the READMEs describe, and
raw lines the arena never sends (unknown types, bad JSON, CRLF, a split line, an over-long line).
A bot whose toolchain is missing (``node``; ``cc`` or ``gcc``) is skipped, saying so.
"""

from __future__ import annotations

import json
import queue
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from support import LONG

from arena.play.match import Match
from arena.play.referee import Clock, Referee
from arena.seats.botspec import Launch, resolve
from arena.seats.connection import Connection
from engine.cards import VALUES, parse_card
from engine.hand import BIG_GIN, DRAW_DISCARD, DRAW_STOCK, PASS, ActionKind, Hand, HandEnd, Phase
from engine.hand import Action as EngineAction
from engine.melds import best_discards, deadwood
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import encode
from protocol.convert import engine_action, legal_models
from protocol.views import observation_model

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "bots" / "examples"
JS_SOURCE = EXAMPLES / "javascript" / "ginbot.js"
C_SOURCE = EXAMPLES / "c" / "ginbot.c"
C_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Werror")
"""The flags of bots/examples/c/Makefile: the bot must build warning-free with them."""
NODE_MIN = 18
LANGUAGES = ("javascript", "c")
WAIT = 10.0
"""Seconds to wait for one line from a bot before calling it stuck."""


# -- the bots -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def javascript_bot() -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the JavaScript example bot needs Node.js 18 or later")
    version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, timeout=WAIT, check=False
    ).stdout.strip()
    major = version.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MIN:
        pytest.skip(f"node {version or '(unknown version)'} is too old: the bot needs Node.js 18+")
    return [node, str(JS_SOURCE)]


@pytest.fixture(scope="module")
def c_bot(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) on PATH: cannot build the C example bot")
    binary = tmp_path_factory.mktemp("c-bot") / "ginbot"
    build = subprocess.run(
        [compiler, *C_FLAGS, "-o", str(binary), str(C_SOURCE)],
        capture_output=True,
        text=True,
        timeout=LONG,
        check=False,
    )
    assert build.returncode == 0, f"the C bot does not build with {C_FLAGS}:\n{build.stderr}"
    return [str(binary)]


@pytest.fixture(params=LANGUAGES)
def bot(request: pytest.FixtureRequest) -> list[str]:
    """The argv of one example bot."""
    argv: list[str] = request.getfixturevalue(f"{request.param}_bot")
    return argv


# -- through the arena ----------------------------------------------------------------------------


def play(argv: list[str], rules: Rules, games: int, single_hands: bool, seed: int) -> None:
    """A mirrored match against greedy; fails on any forfeit, naming the bot's complaint."""
    match = Match(
        (resolve("greedy"), resolve(shlex.join(argv), name="example")),
        rules,
        Clock(move=1.0),
        games=games,
        single_hands=single_hands,
        seed=seed,
        mirror=True,
    )
    result = match.play()
    assert len(result.games) == games
    for report in result.games:
        failure = report.outcome.failure
        assert failure is None, (
            f"game {report.number}: {result.names[report.seats[failure.seat]]} forfeited "
            f"({failure.reason}): {failure.message}"
        )
        if not single_hands:
            assert report.winner is not None
            assert max(report.outcome.scores) >= rules.game_target


def test_plays_whole_games_against_greedy(bot: list[str]) -> None:
    play(bot, Rules(), games=4, single_hands=False, seed=2024)


@pytest.mark.parametrize("preset", ["oklahoma", "big-gin"])
def test_plays_hands_under_other_rules(bot: list[str], preset: str) -> None:
    play(bot, Rules.preset(preset), games=6, single_hands=True, seed=7)


# -- every decision against the strategy ----------------------------------------------------------


def check_choice(hand: Hand, action: EngineAction) -> None:
    """``action`` is legal and is what the READMEs promise: take the top of the discard pile
    exactly when that lowers the deadwood; big gin when offered; else a knock when one is legal,
    else a discard; either leaving the least deadwood, the highest card among equals."""
    legal = hand.legal_actions()
    assert action in legal, f"{action} is not legal: {[str(a) for a in legal]}"
    held = hand.hands[hand.to_move]
    if hand.phase is not Phase.DISCARD:
        top = hand.pile[-1]
        helps = best_discards(held | 1 << top, 1 << top)[0] < deadwood(held)
        if DRAW_DISCARD in legal and helps:
            expected = DRAW_DISCARD
        else:
            expected = PASS if hand.phase is Phase.FIRST_UPCARD else DRAW_STOCK
        assert action == expected, f"{action} instead of {expected}"
        return
    if BIG_GIN in legal:
        assert action == BIG_GIN, f"{action} instead of big gin"
        return
    knocks = [a for a in legal if a.kind is ActionKind.KNOCK]
    pool = knocks or [a for a in legal if a.kind is ActionKind.DISCARD]

    def left(a: EngineAction) -> int:
        assert a.card is not None
        return deadwood(held & ~(1 << a.card))

    least = min(left(a) for a in pool)
    highest = max(VALUES[a.card] for a in pool if a.card is not None and left(a) == least)
    assert action in pool, f"{action}: expected a {pool[0].kind.value}"
    assert action.card is not None
    assert left(action) == least, f"{action} leaves {left(action)}, not {least}"
    assert VALUES[action.card] == highest, f"{action} is not the highest card leaving {least}"


def play_hand(conn: Connection, rules: Rules, hand: Hand, ids: Iterator[int]) -> Hand:
    """Let the bot make every decision of ``hand`` for both seats, checking each one."""
    while hand.phase is not Phase.FINISHED:
        player = hand.to_move
        request = m.Request(
            type="request",
            id=next(ids),
            phase=hand.decision_phase,
            legal=legal_models(hand.legal_actions()),
            observation=observation_model(hand.observation(player), 1, [0, 0], rules.game_target),
            clock=m.Clock(move_ms=1000, bank_ms=0),
        )
        reply, _ = conn.ask(request, WAIT)
        action = engine_action(reply.action)
        check_choice(hand, action)
        hand.apply(action)
    return hand


def connect(argv: list[str], rules: Rules, workdir: Path) -> Connection:
    conn = resolve(shlex.join(argv), name="example").connect(workdir, Launch(in_process=False))
    conn.start(Referee(rules, Clock()).hello(0, "test"), WAIT)
    return conn


@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "big-gin"])
def test_every_decision_follows_the_strategy(bot: list[str], preset: str, tmp_path: Path) -> None:
    rules = Rules.preset(preset)
    conn = connect(bot, rules, tmp_path)
    ids = iter(range(1, 1_000_000))
    try:
        for seed in range(24):
            play_hand(conn, rules, Hand(rules, dealer=seed % 2, seed=seed), ids)
    finally:
        conn.close()


def deal(non_dealer: str, upcard: str) -> list[int]:
    """A deck order giving the non-dealer these ten cards and this first upcard."""
    mine = [parse_card(c) for c in non_dealer.split()]
    up = parse_card(upcard)
    rest = [c for c in range(52) if c not in mine and c != up]
    order = []
    for i in range(10):
        order += [mine[i], rest[i]]
    return [*order, up, *rest[10:]]


@pytest.mark.parametrize(
    ("preset", "end", "discard"), [("big-gin", HandEnd.BIG_GIN, None), ("hoyle", HandEnd.GIN, "8D")]
)
def test_takes_the_upcard_for_gin_or_big_gin(
    bot: list[str], preset: str, end: HandEnd, discard: str | None, tmp_path: Path
) -> None:
    # 18 deadwood; the upcard 9C melds all eleven cards: big gin where the rules allow it,
    # otherwise gin, throwing the highest card that keeps the rest melded (8D, not 5D, 4C or AC).
    rules = Rules.preset(preset)
    conn = connect(bot, rules, tmp_path)
    try:
        deck = deal("AC 2C 3C 4C 5D 6D 7D 8D 9H 9S", "9C")
        hand = play_hand(conn, rules, Hand(rules, dealer=1, deck=deck), iter(range(1, 100)))
    finally:
        conn.close()
    assert hand.result is not None and hand.result.end is end
    assert hand.result.show_down is not None
    expected = None if discard is None else parse_card(discard)
    assert hand.result.show_down.discard == expected


# -- raw lines ------------------------------------------------------------------------------------


class RawBot:
    """A bot process fed raw bytes, for what the arena never sends."""

    def __init__(self, argv: list[str], workdir: Path) -> None:
        self.stderr = (workdir / "stderr.log").open("wb")
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            cwd=workdir,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self.lines.put(line)
        self.lines.put(b"")  # end of output

    def write(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        line = self.lines.get(timeout=WAIT)
        assert line, "the bot closed its stdout"
        assert line.endswith(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def finish(self) -> int:
        """Wait for the bot to exit; its exit status. Nothing more may be on its stdout."""
        try:
            status = self.proc.wait(timeout=WAIT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.stderr.close()
        assert self.lines.get(timeout=WAIT) == b"", "the bot wrote more than expected"
        return status


def raw_hello(versions: list[int]) -> bytes:
    hello = Referee(Rules(), Clock()).hello(0, "test").model_copy(update={"versions": versions})
    return encode(hello)


def first_request() -> tuple[m.Request, Hand]:
    """The first request of a seeded hand, as the referee would send it."""
    hand = Hand(Rules(), dealer=0, seed=3)
    request = m.Request(
        type="request",
        id=41,
        phase="first_upcard",
        legal=legal_models(hand.legal_actions()),
        observation=observation_model(hand.observation(1), 1, [0, 0], 100),
        clock=m.Clock(move_ms=1000, bank_ms=0),
    )
    return request, hand


def test_ignores_unknown_and_malformed_lines(bot: list[str], tmp_path: Path) -> None:
    raw = RawBot(bot, tmp_path)
    raw.write(raw_hello([7, 1]))  # a version it does not speak, and 1
    ready = raw.read()
    assert ready["type"] == "ready"
    assert ready["protocol_version"] == 1
    assert ready["name"].startswith("example-")
    request, hand = first_request()
    data = json.loads(encode(request))
    # Fields the protocol may grow, at every level.
    data["future_field"] = {"nested": [1, 2, {"deep": None}]}
    data["observation"]["future_field"] = "x"
    for action in data["legal"]:
        action["hint"] = 1
    line = json.dumps(data).encode()
    raw.write(
        b'{"type":"mystery","id":99,"legal":[{"kind":"pass"}]}\n'  # an unknown type, ignored
        b"this is not JSON\n"
        b"[1, 2, 3]\n"
        b'{"type": "request", "id": \n'  # cut short
        b"\n"
        b"   \r\n"
        + b'{"type":"request","id":40,"legal":[{"kind":"pass"}],"pad":"'
        + b"x" * m.MAX_LINE_BYTES
        + b'"}\n'  # over the limit: ignored, never answered
        + line[:100]  # the request in two pieces, CRLF-terminated
    )
    time.sleep(0.05)
    raw.write(line[100:] + b"\r\n")
    reply = raw.read()
    assert reply["type"] == "reply"
    assert reply["id"] == 41
    assert reply["action"] in data["legal"]
    hand.apply(engine_action(m.Reply.model_validate(reply).action))
    raw.write(b'{"type":"quit"}\n{"type":"request","id":42,"legal":[{"kind":"pass"}]}\n')
    assert raw.finish() == 0


def test_exits_at_the_end_of_input(bot: list[str], tmp_path: Path) -> None:
    raw = RawBot(bot, tmp_path)
    raw.write(raw_hello([1]))
    assert raw.read()["type"] == "ready"
    request, _ = first_request()
    raw.write(encode(request).rstrip(b"\n"))  # a last line with no newline still counts
    raw.close_stdin()
    assert raw.read()["id"] == request.id
    assert raw.finish() == 0


def test_refuses_a_referee_with_no_common_version(bot: list[str], tmp_path: Path) -> None:
    raw = RawBot(bot, tmp_path)
    raw.write(raw_hello([2, 3]))
    assert raw.finish() != 0
    assert "version" in (tmp_path / "stderr.log").read_text()
