"""In-process bots are handed the referee's message objects, built unvalidated
(``model_construct``): every message of whole games, in every format, must equal its own
encoding decoded again, as a subprocess bot's SDK would read it, and validate against its model."""

from __future__ import annotations

import json
import re

import pytest

from arena.play.referee import Clock, Referee
from arena.seats import wire
from arena.seats.connection import Connection, InProcessConnection
from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import Bot, View
from bots.strong import StrongBot
from engine.cards import parse_card
from engine.hand import Action as EngineAction
from engine.hand import ActionKind
from engine.melds import deadwood
from engine.modes import Mode
from engine.rules import PRESETS, Rules
from protocol import messages as m
from protocol.codec import decode, encode
from protocol.convert import action_json, engine_action, reply_action
from protocol.messages import HISTORY_LIMIT
from protocol.views import Decision, History, RequestForm, request_json, request_model


class Keeper(RandomBot):
    """A random bot that keeps every message it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[m.Message] = []

    def handle(self, message: m.Message) -> m.Message | None:
        self.seen.append(message)
        return super().handle(message)


def messages_of(mode: Mode, rules: Rules, seed: int) -> list[m.Message]:
    bots: list[Bot] = []

    def make() -> Bot:
        bot = Keeper() if not bots else GreedyBot()
        bots.append(bot)
        return bot

    connections = [InProcessConnection(f"bot{k}", make) for k in range(mode.players)]
    referee = Referee(rules, Clock(move=5.0))
    for c in connections:
        c.start(referee.hello(0, None, mode), 5.0)
    referee.play_game(connections, seed, mode=mode, names=[c.name for c in connections])
    keeper = bots[0]
    assert isinstance(keeper, Keeper)
    return keeper.seen


@pytest.mark.parametrize("mode", list(Mode), ids=str)
@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "big-gin"])
def test_every_message_handed_over_is_what_its_encoding_decodes_to(mode: Mode, preset: str) -> None:
    seen = messages_of(mode, PRESETS[preset].replace(game_target=60), seed=3)
    kinds = {message.type for message in seen}
    assert {"hand_start", "request", "played", "hand_end", "game_end"} <= kinds
    for message in seen:
        again = decode(encode(message))
        assert again == message, message.type
        assert type(message).model_validate(message.model_dump()) == message


def test_an_event_a_bot_does_nothing_with_is_not_built_for_it() -> None:
    assert "played" in RandomBot.ignored_events()
    assert "hand_start" in GreedyBot.ignored_events()
    assert "played" not in StrongBot.ignored_events(), "it tracks the discards"
    assert Keeper.ignored_events() == frozenset(), "a bot that overrides handle sees everything"
    connection = InProcessConnection("random", RandomBot)
    connection.start(Referee(Rules()).hello(0), 5.0)
    assert not connection.heeds("played") and connection.heeds("game_end")
    with wire.tap():
        assert connection.heeds("played"), "the wire log gets every line"


class Viewer(GreedyBot):
    """A greedy bot that checks each view it is shown against the message it stands for: the
    view an in-process bot gets straight from the engine must be the one a subprocess bot's SDK
    makes of the request, whether from the decoded message or from its JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.views = 0  # decisions seen

    def choose(self, view: View) -> EngineAction:
        assert view._request is None, "an in-process bot is handed no message"
        line = encode(view.request)
        for other in (
            View.of_request(decode(line), self.rules),
            View.of_json(json.loads(line), self.rules),
        ):
            assert other.seen == view.seen
            assert other.legal == view.legal
            assert other.request == view.request
            assert other.history == view.history
            assert other.gin_knocks() == view.gin_knocks()
        assert view.observation.seat == view.seat
        self.views += 1
        return super().choose(view)


@pytest.mark.parametrize("mode", list(Mode), ids=str)
@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "big-gin"])
def test_the_view_from_the_engine_is_the_view_of_the_request(mode: Mode, preset: str) -> None:
    bots: list[Viewer] = []

    def make() -> Bot:
        bots.append(Viewer())
        return bots[-1]

    assert Viewer.answers_directly()
    connections = [InProcessConnection(f"bot{k}", make) for k in range(mode.players)]
    referee = Referee(PRESETS[preset].replace(game_target=60), Clock(move=5.0))
    for c in connections:
        c.start(referee.hello(0, None, mode), 5.0)
    outcome = referee.play_game(connections, 4, mode=mode, names=[c.name for c in connections])
    assert outcome.failure is None and outcome.error is None, outcome
    assert all(bot.views > 20 for bot in bots), [bot.views for bot in bots]


class Returns(RandomBot):
    """A bot whose ``choose`` returns what it is given, whatever that is."""

    def __init__(self, answer: object) -> None:
        super().__init__()
        self.answer = answer

    def choose(self, view: View) -> EngineAction:
        return self.answer  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        ("discard AS", r"raised AttributeError: 'str' object has no attribute 'kind'"),
        (EngineAction(ActionKind.DISCARD, -1), r"raised ValueError: bad card -1 in discard"),
        (EngineAction(ActionKind.DISCARD, 52), r"raised ValueError: bad card 52 in discard"),
        (EngineAction(ActionKind.DISCARD), r"raised ValueError: a discard names its card"),
        (EngineAction(ActionKind.KNOCK, 3, (1 << 60,)), r"raised CardError"),
        (EngineAction("discard", 3), r"raised ValueError: not an action kind: 'discard'"),  # type: ignore[arg-type]
    ],
)
def test_an_in_process_bot_that_returns_no_action_has_crashed(answer: object, detail: str) -> None:
    """The action an in-process bot returns is taken only if a reply could carry it."""
    connection = InProcessConnection("odd", lambda: Returns(answer))
    referee = Referee(Rules())
    connection.start(referee.hello(0), 5.0)
    greedy = InProcessConnection("greedy", GreedyBot)
    greedy.start(referee.hello(1), 5.0)
    outcome = referee.play_game([connection, greedy], 1, single_hand=True)
    assert outcome.failure is not None and outcome.failure.reason == "crash", outcome
    assert re.search(detail, outcome.failure.message), outcome.failure.message


class Writer(Connection):
    """A connection that checks the request line written straight from each decision against
    the encoding of the request message, and plays the first legal action."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.checked = 0
        self.form = RequestForm(compact=True)

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        return m.Ready(type="ready", protocol_version=1, name=self.name)

    def send(self, message: m.Message) -> None:
        pass

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        raise AssertionError("decide() is the referee's way to ask")

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        line = request_json(decision)
        assert line == encode(request_model(decision))
        start = self.form.start(decision)  # the compact form, from the previous request on
        assert request_json(decision, start) == encode(request_model(decision, start))
        self.checked += 1
        choice = decision.legal[self.checked % len(decision.legal)]
        reply = b'{"type":"reply","id":%d,"action":%s}\n' % (decision.id, action_json(choice))
        assert reply_action(reply, decision.id) is choice
        assert reply_action(reply, decision.id + 1) is None
        assert reply_action(reply.replace(b":", b": ", 1), decision.id) is None
        return choice, 0.0

    def close(self) -> None:
        pass


@pytest.mark.parametrize("mode", list(Mode), ids=str)
@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "bonus", "big-gin"])
def test_the_request_line_written_from_a_decision_is_the_encoded_message(
    mode: Mode, preset: str
) -> None:
    connections = [Writer(f"bot{k}") for k in range(mode.players)]
    referee = Referee(
        PRESETS[preset].replace(game_target=60, hand_limit=6), Clock(move=5.0, bank=3.25)
    )
    outcome = referee.play_game(connections, 11, mode=mode, names=[c.name for c in connections])
    assert outcome.error is None, outcome.error
    # Hands of blind play are mostly drawn: with three players the same two may play them all.
    assert sum(c.checked > 20 for c in connections) >= 2, [c.checked for c in connections]


def test_a_history_writes_each_entry_once_and_as_the_whole_history_would() -> None:
    """:class:`protocol.views.History` keeps its entries' JSON: a request line from it equals
    the line from a plain list of the same entries, as it grows, past the history limit, and
    when the same history is shown relabelled."""
    writers = [Writer("a"), Writer("b")]
    last: list[Decision] = []

    class Keeping(Writer):
        def decide(self, decision: Decision) -> tuple[EngineAction, float]:
            last[:] = [decision]
            return super().decide(decision)

    writers[0] = Keeping("a")
    Referee(Rules(), Clock()).play_game(writers, 5, single_hand=True)
    decision = last[0]
    entries = list(decision.told[: decision.told_count])
    assert len(entries) > 4
    grown = [entries[k % len(entries)] for k in range(HISTORY_LIMIT + 30)]
    history = History()
    for count in [1, 2, 3, *range(10, len(grown) + 1, 37), len(grown)]:
        history[:] = grown[:count]
        for relabel in (False, True, False):
            asked = decision._replace(told=history, told_count=count, relabel=relabel)
            plain = decision._replace(told=grown[:count], told_count=count, relabel=relabel)
            assert request_json(asked) == request_json(plain) == encode(request_model(plain))
    assert request_json(decision).count(b'"player"') == len(entries)


class Historian(GreedyBot):
    """A greedy bot that keeps the ``played`` events of each hand and checks that every view's
    history is exactly them, and that the knocks the view calls gin are gin."""

    def __init__(self) -> None:
        super().__init__()
        self.told: list[tuple[int, EngineAction, int | None]] = []
        self.checked = 0
        self.gins = 0

    def on_hand_start(self, message: m.HandStart) -> None:
        self.told = []

    def on_played(self, message: m.Played) -> None:
        card = None if message.card is None else parse_card(message.card)
        self.told.append((message.player, engine_action(message.action), card))

    def choose(self, view: View) -> EngineAction:
        assert list(view.history) == self.told
        for action in view.legal:
            if action.kind is ActionKind.KNOCK and action.card is not None:
                kept = view.hand & ~(1 << action.card)
                assert view.is_gin(action) == (deadwood(kept) == 0)
                self.gins += view.is_gin(action)
        self.checked += 1
        return super().choose(view)


@pytest.mark.parametrize("mode", list(Mode), ids=str)
def test_the_history_in_a_view_is_the_played_events_the_bot_was_sent(mode: Mode) -> None:
    bots: list[Historian] = []

    def make() -> Bot:
        bots.append(Historian())
        return bots[-1]

    connections = [InProcessConnection(f"bot{k}", make) for k in range(mode.players)]
    referee = Referee(PRESETS["hoyle"].replace(game_target=100), Clock(move=5.0))
    for c in connections:
        c.start(referee.hello(0, None, mode), 5.0)
    outcome = referee.play_game(connections, 8, mode=mode, names=[c.name for c in connections])
    assert outcome.failure is None and outcome.error is None, outcome
    assert sum(bot.checked for bot in bots) > 100
    assert sum(bot.gins for bot in bots) >= 0
