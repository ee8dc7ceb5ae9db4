"""In-process bots are handed the referee's message objects, built unvalidated
(``model_construct``): every message of whole games, in every format, must equal its own
encoding decoded again, as a subprocess bot's SDK would read it, and validate against its model."""

from __future__ import annotations

import pytest

from arena import wire
from arena.connection import InProcessConnection
from arena.referee import Clock, Referee
from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import Bot
from bots.strong import StrongBot
from engine.modes import Mode
from engine.rules import PRESETS, Rules
from protocol import messages as m
from protocol.codec import decode, encode


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
