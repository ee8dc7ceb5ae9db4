"""The Python SDK's ``run()`` loop over in-memory byte streams, and the built-in bots' legality."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import EVENT_HOOKS, Bot, SessionError, View
from bots.strong import StrongBot
from engine.cards import parse_card
from engine.game import Game
from engine.hand import IllegalAction
from engine.rules import PRESETS, Rules
from protocol import messages as m
from protocol.codec import decode, encode
from protocol.convert import engine_action, legal_models
from protocol.views import observation_model


def hello(versions: list[int] | None = None, rules: Rules | None = None) -> bytes:
    return encode(
        m.Hello(
            type="hello",
            protocol="gin-arena",
            versions=[1] if versions is None else versions,
            seat=0,
            rules=(rules or Rules()).to_dict(),
            time=m.TimeControl(move_ms=1000, bank_ms=0, grace_ms=100, startup_ms=10000),
        )
    )


def request(game: Game, request_id: int) -> m.Request:
    """The request the referee would send for the current decision of ``game``."""
    hand = game.hand
    return m.Request(
        type="request",
        id=request_id,
        phase=hand.decision_phase,
        legal=legal_models(hand.legal_actions()),
        observation=observation_model(
            hand.observation(hand.to_move), game.hand_number, game.scores, game.rules.game_target
        ),
        clock=m.Clock(move_ms=1000, bank_ms=0),
    )


FIRST_REQUEST = encode(request(Game(Rules(), 5), 41))


def run(bot: Bot, *lines: bytes) -> tuple[int, list[dict[str, Any]]]:
    """Run ``bot`` over ``lines``; return its exit status and the messages it wrote."""
    out = io.BytesIO()
    status = bot.run(io.BytesIO(b"".join(lines)), out)
    written = out.getvalue()
    assert not written or written.endswith(b"\n")
    return status, [json.loads(line) for line in written.splitlines()]


class Chatty(GreedyBot):
    """A bot that prints while it thinks, as bot authors do."""

    def first_upcard(self, view: View) -> bool:
        print("thinking about the upcard")
        return super().first_upcard(view)


def test_the_handshake_answers_ready_with_the_bots_identity() -> None:
    status, out = run(GreedyBot(), hello())
    assert status == 0
    assert out == [
        {
            "type": "ready",
            "protocol_version": 1,
            "name": "greedy",
            "author": "gin-rummy-arena",
            "bot_version": "1",
            "ignores": sorted(GreedyBot.ignored_events()),
            "form": "compact",
        }
    ]


def test_the_handshake_picks_the_highest_common_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(m, "PROTOCOL_VERSIONS", (1, 2, 3))
    status, out = run(GreedyBot(), hello([4, 3, 2]))
    assert status == 0 and out[0]["protocol_version"] == 3


def test_no_common_version_exits_2_with_a_message_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out = run(GreedyBot(), hello([7, 8]), FIRST_REQUEST)
    assert status == 2 and out == []
    err = capsys.readouterr().err
    assert "no common protocol version" in err and "[7, 8]" in err and "[1]" in err


def test_no_common_version_is_a_session_error_of_the_sdk() -> None:
    message = decode(hello([7, 8]))
    with pytest.raises(SessionError, match="no common protocol version"):
        GreedyBot().handle(message)


def test_a_request_gets_a_reply_echoing_its_id() -> None:
    status, out = run(GreedyBot(), hello(), FIRST_REQUEST)
    assert status == 0 and [o["type"] for o in out] == ["ready", "reply"]
    assert out[1]["id"] == 41
    assert out[1]["action"] in json.loads(FIRST_REQUEST)["legal"]


def test_unknown_message_types_are_ignored_silently(capsys: pytest.CaptureFixture[str]) -> None:
    gossip = b'{"type":"gossip","about":"the opponent","id":41}\n'
    status, out = run(GreedyBot(), hello(), gossip, FIRST_REQUEST)
    assert status == 0 and [o["type"] for o in out] == ["ready", "reply"]
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "bad",
    [b"{nope\n", b'{"type":"request","id":"x"}\n', b"[1,2]\n", b"\xff\xfe\n"],
)
def test_a_bad_line_from_the_referee_is_logged_and_ignored(
    capsys: pytest.CaptureFixture[str], bad: bytes
) -> None:
    status, out = run(GreedyBot(), hello(), bad, FIRST_REQUEST)
    assert status == 0 and [o["type"] for o in out] == ["ready", "reply"]
    err = capsys.readouterr().err
    assert "ignoring a bad line from the referee" in err
    assert bad.rstrip(b"\n").decode("utf-8", errors="replace")[:5] in err


def test_events_and_crlf_line_ends_are_handled_without_output() -> None:
    events = [
        encode(m.GameStart(type="game_start", game=1, seat=1, target=100)),
        encode(m.Played(type="played", player=0, action=m.PassAction(kind="pass"))),
        encode(m.GameEnd(type="game_end", winner=1, scores=[0, 100])),
    ]
    bot = GreedyBot()
    status, out = run(bot, hello().replace(b"\n", b"\r\n"), *events, b"\n")
    assert status == 0 and [o["type"] for o in out] == ["ready"]
    assert bot.seat == 1, "game_start sets the seat"


def test_print_inside_a_bot_goes_to_stderr_not_to_the_protocol(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out = run(Chatty(), hello(), FIRST_REQUEST)
    assert status == 0 and [o["type"] for o in out] == ["ready", "reply"]
    captured = capsys.readouterr()
    assert "thinking about the upcard" in captured.err
    assert "thinking" not in captured.out
    print("after run")
    assert capsys.readouterr().out == "after run\n", "run() gives sys.stdout back"


def test_quit_ends_the_loop() -> None:
    quit_line = encode(m.Quit(type="quit"))
    status, out = run(GreedyBot(), hello(), quit_line, FIRST_REQUEST)
    assert status == 0 and [o["type"] for o in out] == ["ready"]


def test_the_end_of_input_ends_the_loop() -> None:
    assert run(GreedyBot()) == (0, [])


# -- the built-in bots are always legal ---------------------------------------------------------

RULES = {
    **PRESETS,
    "taken-card-discardable": Rules().replace(discard_taken_card=True),
    "knock-at-3": Rules().replace(knock_limit=3),
}


@pytest.mark.parametrize("preset", sorted(RULES))
def test_greedy_and_random_answer_every_request_with_a_legal_action(preset: str) -> None:
    rules = RULES[preset]
    rng = random.Random(preset)
    bots: list[Bot] = [GreedyBot(), RandomBot(seed=7)]
    for bot in bots:
        assert bot.handle(decode(hello(rules=rules))) is not None
    asked = knocks = 0
    request_id = 0
    for seed in range(12):
        game = Game(rules, seed)
        while not game.hand.is_over:
            request_id += 1
            line = encode(request(game, request_id))
            actions = []
            for bot in bots:
                reply = bot.handle(decode(line))
                assert isinstance(reply, m.Reply) and reply.id == request_id
                action = engine_action(reply.action)
                try:
                    game.hand.copy().apply(action)
                except IllegalAction as error:
                    raise AssertionError(f"{bot.name} played {action}: {error}") from None
                actions.append(action)
                knocks += action.kind.value == "knock"
                asked += 1
            # Play on with either bot's choice, so the states are neither bot's alone.
            game.apply(rng.choice(actions))
    assert asked > 1000 and knocks > 0, (asked, knocks)


def test_the_format_events_reach_their_hooks_and_the_bot_knows_its_place() -> None:
    seen: list[str] = []

    class Listener(GreedyBot):
        def on_sit_out(self, message: m.SitOut) -> None:
            seen.append(f"sit_out {message.players}")

        def on_round_end(self, message: m.RoundEnd) -> None:
            seen.append(f"round_end {message.round} {message.scores}")

    bot = Listener()
    lines = [
        hello(),
        b'{"type":"game_start","game":1,"seat":0,"target":100,"mode":"partnership",'
        b'"players":4,"player":3,"partner":1,"names":["a","b","c","d"]}\n',
        b'{"type":"sit_out","hand_number":1,"players":[2,0]}\n',
        b'{"type":"round_end","round":1,"tables":[{"table":0,"players":[0,1],"dealer":0,'
        b'"end":"drawn","points":0},{"table":1,"players":[2,3],"dealer":2,"end":"gin",'
        b'"winner":3,"points":30}],"credited":1,"points":30,"scores":[0,30]}\n',
    ]
    out = io.BytesIO()
    assert bot.run(io.BytesIO(b"".join(lines)), out) == 0
    assert (bot.seat, bot.mode, bot.player, bot.partner) == (0, "partnership", 3, 1)
    assert seen == ["sit_out [2, 0]", "round_end 1 [0, 30]"]
    assert [json.loads(x)["type"] for x in out.getvalue().splitlines()] == ["ready"]


def test_events_the_bot_ignores_are_skipped_unread_and_the_others_reach_their_hooks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    played = b'{"type":"played","player":1,"action":{"kind":"draw","source":"stock"}}\n'
    broken = b'{"type":"played","player":"not a seat"}\n'  # invalid: never decoded when ignored
    assert "played" in RandomBot.ignored_events()
    out = io.BytesIO()
    assert RandomBot().run(io.BytesIO(hello() + broken + played), out) == 0
    assert capsys.readouterr().err == "", "an ignored event is not even decoded"

    seen: list[int] = []

    class Watcher(RandomBot):
        def on_played(self, message: m.Played) -> None:
            seen.append(message.player)

    assert "played" not in Watcher.ignored_events()
    assert Watcher().run(io.BytesIO(hello() + broken + played), io.BytesIO()) == 0
    assert seen == [1]
    assert "ignoring a bad line" in capsys.readouterr().err


@pytest.mark.parametrize("preset", sorted(RULES))
def test_a_request_read_straight_from_its_json_gets_the_reply_of_the_decoded_message(
    preset: str,
) -> None:
    """The SDK answers a request line from its JSON, without validating the message: the reply
    must be byte for byte the one the decoded message gets, for every request of whole hands."""
    rules = RULES[preset]
    pairs = [(GreedyBot(), GreedyBot()), (RandomBot(seed=3), RandomBot(seed=3))]
    for fast, slow in pairs:
        fast.handle(decode(hello(rules=rules)))
        slow.handle(decode(hello(rules=rules)))
    rng = random.Random(preset)
    asked = 0
    for seed in range(6):
        game = Game(rules, seed)
        while not game.hand.is_over:
            asked += 1
            line = encode(request(game, asked))
            for fast, slow in pairs:
                reply = slow.handle(decode(line))
                assert reply is not None
                assert fast._answer(line) == encode(reply)
            game.apply(rng.choice(game.hand.legal_actions()))
    assert asked > 300


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda r: r["observation"].update(hand=["ZZ"]), "observation.hand.0"),
        (lambda r: r["observation"].pop("turn"), "observation.turn: Field required"),
        (lambda r: r.update(id=0), "id: Input should be greater than or equal to 1"),
        (lambda r: r["legal"].append({"kind": "jump"}), "unknown action kind 'jump'"),
    ],
)
def test_a_request_line_that_does_not_read_straight_gets_the_decoders_verdict(
    change: Any, error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(FIRST_REQUEST)
    change(data)
    line = json.dumps(data, separators=(",", ":")).encode() + b"\n"
    assert line.startswith(b'{"type":"request",')
    status, written = run(GreedyBot(), hello(), line, FIRST_REQUEST)
    assert status == 0
    assert [w["id"] for w in written if w["type"] == "reply"] == [41]
    assert error in capsys.readouterr().err


def test_the_sdk_declares_the_events_its_bot_ignores_and_the_arena_can_skip_them_all() -> None:
    assert set(EVENT_HOOKS) == m.SKIPPABLE_EVENTS
    status, written = run(RandomBot(), hello())
    assert status == 0 and written[0]["ignores"] == sorted(RandomBot.ignored_events())
    status, written = run(StrongBot(), hello())
    assert "played" not in written[0].get("ignores", [])


class Curious(GreedyBot):
    """A greedy bot that keeps the history and the request each view shows it."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[Any, m.Request]] = []

    def choose(self, view: View) -> Any:
        self.seen.append((view.history, view.request))
        return super().choose(view)


def test_the_history_read_apart_from_the_rest_of_a_request_is_the_messages() -> None:
    """The SDK reads a request's history only when the bot asks for it (it is most of the
    bytes of a late request): what the bot then gets is the decoded message's."""
    data = json.loads(FIRST_REQUEST)
    entries = [
        {"player": 0, "action": {"kind": "pass"}},
        {"player": 1, "action": {"kind": "draw", "source": "discard"}, "card": "7H"},
        {"player": 1, "action": {"kind": "discard", "card": "2S"}},
    ]
    data["observation"]["history"] = entries
    line = json.dumps(data, separators=(",", ":")).encode() + b"\n"
    assert b',"history":[' in line and b']},"clock":' in line
    bot = Curious()
    bot.handle(decode(hello()))
    reply = bot._answer(line)
    assert reply is not None
    history, request = bot.seen[-1]
    assert request == decode(line)
    assert history == tuple(
        (e.player, engine_action(e.action), None if e.card is None else parse_card(e.card))
        for e in request.observation.history
    )
    assert len(history) == 3
