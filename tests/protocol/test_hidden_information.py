"""Hidden information never reaches a bot (issue 4, "Security and bad input").

The property: changing anything a player cannot know (the opponent's hidden cards, the stock
order, the seed) never changes a byte of any message that player receives. The boundary is
protocol/views.py: every message about the cards (``hand_start``, a request's ``observation``,
``played``, ``show_down``, ``hand_end``) is built there from the seat's own observation, and the
referee sends nothing else about them. Each trial plays a hand through the real referee, works
out which cards player P never sees, deals a second deck that moves only those cards around (with
another seed), replays the same actions and compares every line P received in the two runs, as
taken off the wire (arena.seats.wire.tap); every one of those kinds of message is among the lines
compared.

What P sees: its own deal, the first upcard, the cards it draws from the stock and every card
that is ever on the discard pile. A show-down (R10) reveals both hands, so when the hand ends
with a knock only the cards still in the stock stay hidden.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from arena.play.referee import GameOutcome, Referee
from arena.seats import wire
from arena.seats.connection import InProcessConnection
from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import Bot, View
from engine.cards import CARD_NAMES, FULL_DECK
from engine.game import Game
from engine.hand import Action, Hand
from engine.rules import PRESETS, Rules
from protocol import messages as m
from protocol.convert import engine_action

RULES: dict[str, Rules] = {
    **PRESETS,
    "taken-card-discardable": Rules().replace(discard_taken_card=True),
    "gin-only": Rules().replace(knock_limit=0, stock_exhausted_at=8),
}
PLAYERS: dict[str, Callable[[int], Bot]] = {
    "greedy": lambda seed: GreedyBot(),
    "random": RandomBot,
}
PAIRS = [("greedy", "greedy"), ("greedy", "random"), ("random", "greedy"), ("random", "random")]
SEEDS = range(6)


class Replaying(Bot):
    """Answers every request with the next of ``actions``, whatever it is asked."""

    def __init__(self, actions: Sequence[m.Action]) -> None:
        super().__init__()
        self.script = iter(actions)

    def choose(self, view: View) -> Action:
        return engine_action(next(self.script))


@dataclass
class Seat:
    """What one seat received and answered, as the wire carried it."""

    received: list[bytes]
    actions: list[m.Action]


def play(
    rules: Rules, seed: int, deck: Sequence[int], dealer: int, bots: Sequence[Bot]
) -> tuple[list[Seat], GameOutcome]:
    """One hand through the referee, dealt from ``deck``, each seat played by ``bots``."""
    referee = Referee(rules, ids=random.Random(0))  # request ids are random: fix them here
    connections = [
        InProcessConnection(f"p{seat}", lambda bot=bot: bot) for seat, bot in enumerate(bots)
    ]
    with wire.tap() as lines:
        for seat, connection in enumerate(connections):
            connection.start(referee.hello(seat, f"p{1 - seat}"), 1.0)
        outcome = referee.play_game(
            connections, seed, single_hand=True, decks=[deck], first_dealer=dealer
        )
    seats = []
    for connection in connections:
        mine = [line for line in lines if line.bot == connection.name]
        replies = [line.message() for line in mine if line.direction == wire.FROM_BOT]
        seats.append(
            Seat(
                [line.line for line in mine if line.direction == wire.TO_BOT],
                [reply.action for reply in replies if isinstance(reply, m.Reply)],
            )
        )
    return seats, outcome


def seen_by(
    player: int, rules: Rules, deck: Sequence[int], dealer: int, actions: Sequence[list[m.Action]]
) -> tuple[int, bool]:
    """The cards ``player`` sees in the hand played with ``actions`` (per seat, in order), and
    whether it ended in a show-down."""
    hand = Hand(rules, dealer, deck)
    seen = hand.hands[player] | 1 << hand.first_upcard
    script = [iter(a) for a in actions]
    while hand.result is None:
        mover = hand.to_move
        before = hand.hands[mover]
        hand.apply(engine_action(next(script[mover])))
        if mover == player:
            seen |= hand.hands[mover] & ~before  # the card drawn, if any
        for card in hand.pile:
            seen |= 1 << card
    if hand.result.show_down is not None:
        stock = 0
        for card in hand.stock:
            stock |= 1 << card
        return FULL_DECK & ~stock, True
    return seen, False


def shuffle_hidden(deck: Sequence[int], seen: int, rng: random.Random) -> tuple[int, ...]:
    """``deck`` with the cards outside ``seen`` shuffled among their own positions."""
    positions = [i for i, card in enumerate(deck) if not seen >> card & 1]
    assert len(positions) >= 2, "a hand always leaves at least two cards unseen"
    out = list(deck)
    while out == list(deck):
        cards = [deck[i] for i in positions]
        rng.shuffle(cards)
        for i, card in zip(positions, cards, strict=True):
            out[i] = card
    return tuple(out)


def first_difference(a: list[bytes], b: list[bytes]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"line {i}:\n  {x!r}\n  {y!r}"
    return f"{len(a)} lines against {len(b)}"


@pytest.mark.parametrize(
    "preset",
    [  # two presets in the default run, every one in the slow lane
        p if p in ("hoyle", "oklahoma") else pytest.param(p, marks=pytest.mark.slow)
        for p in sorted(RULES)
    ],
)
def test_what_a_player_cannot_know_never_changes_what_it_receives(preset: str) -> None:
    rules = RULES[preset]
    rng = random.Random(preset)
    endings = {True: 0, False: 0}
    opponent_views_changed = 0
    kinds: set[str] = set()
    for seed in SEEDS:
        for pair in PAIRS:
            game = Game(rules, seed)
            deck, dealer = game.hand.deck, game.dealer
            bots = [PLAYERS[name](seed + seat) for seat, name in enumerate(pair)]
            first, outcome = play(rules, seed, deck, dealer, bots)
            assert outcome.failure is None, outcome.failure
            actions = [first[0].actions, first[1].actions]
            for player in (0, 1):
                seen, show_down = seen_by(player, rules, deck, dealer, actions)
                endings[show_down] += 1
                other_deck = shuffle_hidden(deck, seen, rng)
                other_seed = seed + 1_000_003
                second, other = play(
                    rules, other_seed, other_deck, dealer, [Replaying(a) for a in actions]
                )
                assert other.failure is None, (
                    f"the replay on the second deck broke a rule: {other.failure}"
                )
                assert [second[0].actions, second[1].actions] == actions
                mine, again = first[player].received, second[player].received
                moved = [CARD_NAMES[c] for c in deck if not seen >> c & 1]
                assert mine == again, (
                    f"{preset}, seed {seed}, {pair}: player {player} received a different "
                    f"message after moving cards it never sees ({' '.join(moved)}): "
                    f"{first_difference(mine, again)}"
                )
                if first[1 - player].received != second[1 - player].received:
                    opponent_views_changed += 1
                kinds.update(_kinds(mine))
    # Not vacuous: both kinds of ending occurred, and the decks really differed where it shows.
    assert endings[True] and endings[False], endings
    assert opponent_views_changed, "no trial changed what the opponent saw"
    # Every message built in protocol.views was compared, a card drawn from the stock included.
    wanted = {"hand_start", "request", "played", "played with a card", "show_down", "hand_end"}
    assert wanted <= kinds, kinds


def _kinds(lines: list[bytes]) -> set[str]:
    kinds = set()
    for message in map(json.loads, lines):
        kinds.add(message["type"])
        if message["type"] == "played" and "card" in message:
            kinds.add("played with a card")
    return kinds


def _played(lines: list[bytes]) -> list[dict[str, object]]:
    return [message for message in map(json.loads, lines) if message["type"] == "played"]


@pytest.mark.parametrize("seed", range(4))
def test_a_stock_card_goes_only_to_its_drawer_and_a_pile_card_to_both(seed: int) -> None:
    rules = Rules()
    game = Game(rules, seed)
    bots = [GreedyBot(), RandomBot(seed)]
    seats, outcome = play(rules, seed, game.hand.deck, game.dealer, bots)
    assert outcome.failure is None
    views = [_played(seats[0].received), _played(seats[1].received)]
    assert len(views[0]) == len(views[1]) > 0
    sources = set()
    for mine, theirs in zip(views[0], views[1], strict=True):
        action = mine["action"]
        assert isinstance(action, dict)
        assert action == theirs["action"] and mine["player"] == theirs["player"]
        drawer = mine["player"]
        if action["kind"] == "draw" and action["source"] == "stock":
            sources.add("stock")
            assert ("card" in mine) == (drawer == 0) and ("card" in theirs) == (drawer == 1)
        elif action["kind"] == "draw":
            sources.add("discard")
            assert mine["card"] == theirs["card"]
        else:
            assert "card" not in mine and "card" not in theirs
    assert "stock" in sources


def test_the_seed_is_in_no_message() -> None:
    """A direct check on top of the property: the seed's digits appear nowhere."""
    seed = 0x5EED_1234_5678_9ABC
    rules = Rules()
    game = Game(rules, seed)
    bots = [GreedyBot(), GreedyBot()]
    seats, outcome = play(rules, seed, game.hand.deck, game.dealer, bots)
    assert outcome.failure is None
    for seat in seats:
        text = b"".join(seat.received)
        assert str(seed).encode() not in text and hex(seed)[2:].encode() not in text.lower()
