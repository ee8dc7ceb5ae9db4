"""protocol.convert and protocol.views: engine values to protocol messages and back."""

from __future__ import annotations

import json

import pytest

from engine.cards import CARD_NAMES, card_names, parse_cards
from engine.deck import shuffled_deck
from engine.game import Game
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionKind,
    Hand,
)
from engine.rules import Rules
from protocol import messages as m
from protocol.codec import decode, encode
from protocol.convert import action_model, card_mask, engine_action, legal_models
from protocol.views import hand_end_model, observation_model, show_down_model

KNOCKS_WITH_MELDS = [
    Action.parse("knock 9C / AS 2S 3S / 7C 7D 7H"),
    Action.parse("knock KD / 4H 5H 6H 7H 8H / TC TD TS / 2D 3D 4D"),
    Action.parse("knock 9C /"),  # declared, no melds at all
    Action.parse("knock / AS 2S 3S 4S 5S / 5C 6C 7C / 9H 9D 9C"),  # big gin, declared
]
EVERY_ACTION = [
    PASS,
    DRAW_STOCK,
    DRAW_DISCARD,
    *DISCARDS,
    *KNOCKS,
    BIG_GIN,
    *KNOCKS_WITH_MELDS,
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=str)
def test_every_engine_action_survives_the_round_trip_over_the_wire(action: Action) -> None:
    model = action_model(action)
    assert engine_action(model) == action
    reply = decode(encode(m.Reply(type="reply", id=1, action=model)))
    assert isinstance(reply, m.Reply) and engine_action(reply.action) == action


def test_every_action_kind_is_covered() -> None:
    assert {a.kind for a in EVERY_ACTION} == set(ActionKind)


@pytest.mark.parametrize(
    ("action", "wire"),
    [
        (PASS, {"kind": "pass"}),
        (DRAW_STOCK, {"kind": "draw", "source": "stock"}),
        (DRAW_DISCARD, {"kind": "draw", "source": "discard"}),
        (DISCARDS[9], {"kind": "discard", "card": "TC"}),
        (KNOCKS[51], {"kind": "knock", "card": "KS"}),
        (BIG_GIN, {"kind": "knock"}),
        (
            KNOCKS_WITH_MELDS[0],
            {"kind": "knock", "card": "9C", "melds": [["AS", "2S", "3S"], ["7C", "7D", "7H"]]},
        ),
        (KNOCKS_WITH_MELDS[2], {"kind": "knock", "card": "9C", "melds": []}),
    ],
    ids=str,
)
def test_actions_are_written_as_documented(action: Action, wire: dict[str, object]) -> None:
    assert (
        json.loads(encode(m.Reply(type="reply", id=1, action=action_model(action))))["action"]
        == wire
    )


def test_melds_may_be_written_in_any_card_order() -> None:
    model = m.KnockAction(kind="knock", card="9C", melds=[["3S", "AS", "2S"], ["7H", "7C", "7D"]])
    assert engine_action(model) == KNOCKS_WITH_MELDS[0]


def test_card_lists_are_by_suit_then_rank_and_round_trip() -> None:
    mask = parse_cards("KS TD AC 2C 10H")
    assert card_names(mask) == ["AC", "2C", "TD", "TH", "KS"]
    assert card_mask(card_names(mask)) == mask
    assert card_names(0) == [] and card_mask([]) == 0


def test_legal_models_keep_the_engine_order() -> None:
    hand = Hand(Rules(), dealer=0, seed=3)
    hand.apply(DRAW_DISCARD)
    legal = hand.legal_actions()
    assert [engine_action(a) for a in legal_models(legal)] == legal


# -- a known hand: seed 355, the hand of the transcript in docs/PROTOCOL.md ---------------------

PLAY = [
    "pass",
    "pass",
    "draw stock",
    "discard JS",
    "draw stock",
    "discard TH",
    "draw discard",
    "discard 8D",
    "draw discard",
    "knock 8C",
]


def hand_after(steps: int) -> Game:
    game = Game(Rules(), 355)
    for text in PLAY[:steps]:
        game.apply(Action.parse(text))
    return game


def test_the_observation_carries_every_field_from_the_engine() -> None:
    game = hand_after(7)  # seat 0 has just taken TH from the discard pile
    obs = observation_model(game.hand.observation(0), hand_number=4, scores=[12, 30], target=100)
    assert obs.model_dump() == {
        "seat": 0,
        "phase": "discard",
        "hand": ["2C", "7C", "3D", "8D", "5H", "8H", "9H", "TH", "2S", "3S", "7S"],
        "discard_pile": ["QC", "JS"],
        "stock_size": 29,
        "opponent_known": [],
        "opponent_hand_size": 10,
        "taken_card": "TH",
        "first_upcard": "QC",
        "knock_limit": 10,
        "turn": 3,
        "dealer": 1,
        "hand_number": 4,
        "scores": [12, 30],
        "target": 100,
        "history": [],
        "history_from": None,
    }


def test_the_opponent_sees_the_taken_card_as_known_but_not_as_its_own_taken_card() -> None:
    game = hand_after(8)  # seat 0 took TH, then discarded 8D
    obs = observation_model(game.hand.observation(1), 1, [0, 0], 100)
    assert obs.phase == "draw" and obs.seat == 1
    assert obs.opponent_known == ["TH"] and obs.taken_card is None
    assert obs.discard_pile == ["QC", "JS", "8D"] and obs.opponent_hand_size == 10


def test_the_first_upcard_offer() -> None:
    game = hand_after(0)
    obs = observation_model(game.hand.observation(0), 1, [0, 0], 1)
    assert (obs.phase, obs.turn, obs.discard_pile, obs.first_upcard) == (
        "first_upcard",
        0,
        ["QC"],
        "QC",
    )
    assert len(obs.hand) == 10 and obs.stock_size == 31


def test_no_observation_once_the_hand_is_over() -> None:
    game = hand_after(len(PLAY))
    with pytest.raises(ValueError, match="hand is over"):
        observation_model(game.hand.observation(0), 1, [0, 0], 100)


def test_the_show_down_and_the_hand_end() -> None:
    game = hand_after(len(PLAY))
    result = game.hand.result
    assert result is not None and result.show_down is not None
    show = show_down_model(result.show_down)
    assert show == m.ShowDown(
        type="show_down",
        knocker=1,
        discard="8C",
        knocker_melds=[["3C", "4C", "5C"], ["8D", "9D", "TD", "JD"]],
        knocker_deadwood_cards=["AC", "2H", "4H"],
        knocker_deadwood=7,
        defender_melds=[["8H", "9H", "TH"]],
        lay_offs=[m.LayOffModel(card="2C", meld=0)],
        defender_deadwood_cards=["7C", "3D", "5H", "2S", "3S", "7S"],
        defender_deadwood=27,
    )
    assert decode(encode(show)) == show
    end = hand_end_model(result, game.scores)
    assert end == m.HandEnd(
        type="hand_end", end="knock", winner=1, points=20, doubled=False, scores=[0, 20]
    )
    assert decode(encode(end)) == end


def big_gin_hand() -> Hand:
    """Seat 1 (the non-dealer) takes the first upcard 5S and melds all eleven cards."""
    mine = list(parse_cards("AS 2S 3S 4S 5C 6C 7C 9H 9D 9C"))
    upcard = CARD_NAMES.index("5S")
    rest = [c for c in shuffled_deck(1) if c not in {*mine, upcard}]
    deck = [0] * 52
    deck[0:20:2] = mine
    deck[1:20:2] = rest[:10]
    deck[20] = upcard
    deck[21:] = rest[10:]
    hand = Hand(Rules().replace(big_gin=True), dealer=0, deck=deck)
    hand.apply(DRAW_DISCARD)
    hand.apply(BIG_GIN)
    return hand


def test_a_big_gin_hand_end() -> None:
    result = big_gin_hand().result
    assert result is not None
    end = hand_end_model(result, [result.points, 0])
    assert end.end == "big_gin" and end.winner == 1 and decode(encode(end)) == end


def test_a_big_gin_show_down_survives_the_wire() -> None:
    result = big_gin_hand().result
    assert result is not None and result.show_down is not None
    show = show_down_model(result.show_down)
    assert show.discard is None and show.knocker_deadwood == 0
    assert decode(encode(show)) == show
