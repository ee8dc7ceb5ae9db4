"""Conversions between the engine's values and protocol messages.

Everything a bot receives is built here from the engine's per-player :class:`engine.Observation`
and public results, never from the full hand state, so hidden cards cannot leak into a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import CARD_NAMES, cards_of, parse_card
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    ActionKind,
    HandResult,
    Phase,
)
from engine.hand import Action as EngineAction
from engine.hand import Observation as EngineObservation
from engine.hand import ShowDown as EngineShowDown
from protocol.messages import (
    Action,
    DiscardAction,
    DrawAction,
    HandEnd,
    KnockAction,
    LayOffModel,
    Observation,
    PassAction,
    ShowDown,
)

_PASS = PassAction(kind="pass")
_DRAW_STOCK = DrawAction(kind="draw", source="stock")
_DRAW_DISCARD = DrawAction(kind="draw", source="discard")
_DISCARDS = tuple(DiscardAction(kind="discard", card=CARD_NAMES[c]) for c in range(52))
_KNOCKS = tuple(KnockAction(kind="knock", card=CARD_NAMES[c]) for c in range(52))
_BIG_GIN = KnockAction(kind="knock")


def card_list(mask: int) -> list[str]:
    """A card mask as a list of card names, by suit then rank."""
    return [CARD_NAMES[c] for c in cards_of(mask)]


def card_mask(cards: Iterable[str]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << parse_card(card)
    return mask


def action_model(action: EngineAction) -> Action:
    """The protocol form of an engine action."""
    kind = action.kind
    if kind is ActionKind.PASS:
        return _PASS
    if kind is ActionKind.DRAW_STOCK:
        return _DRAW_STOCK
    if kind is ActionKind.DRAW_DISCARD:
        return _DRAW_DISCARD
    if kind is ActionKind.DISCARD:
        assert action.card is not None
        return _DISCARDS[action.card]
    if action.melds is None:
        return _BIG_GIN if action.card is None else _KNOCKS[action.card]
    return KnockAction(
        kind="knock",
        card=None if action.card is None else CARD_NAMES[action.card],
        melds=[card_list(m) for m in action.melds],
    )


def engine_action(model: Action) -> EngineAction:
    """The engine form of a protocol action (legality is the engine's to check)."""
    if isinstance(model, PassAction):
        return PASS
    if isinstance(model, DrawAction):
        return DRAW_STOCK if model.source == "stock" else DRAW_DISCARD
    if isinstance(model, DiscardAction):
        return DISCARDS[parse_card(model.card)]
    card = None if model.card is None else parse_card(model.card)
    if model.melds is None:
        return BIG_GIN if card is None else KNOCKS[card]
    return EngineAction(ActionKind.KNOCK, card, tuple(card_mask(m) for m in model.melds))


def legal_models(actions: Sequence[EngineAction]) -> list[Action]:
    return [action_model(a) for a in actions]


def observation_model(
    obs: EngineObservation, hand_number: int, scores: Sequence[int], target: int
) -> Observation:
    """The protocol observation for the player to move."""
    if obs.phase is Phase.FINISHED:
        raise ValueError("no observation is sent once the hand is over")
    return Observation(
        seat=obs.player,
        phase=obs.phase.value,
        hand=card_list(obs.hand),
        discard_pile=[CARD_NAMES[c] for c in obs.discard_pile],
        stock_size=obs.stock_size,
        opponent_known=card_list(obs.opponent_known),
        opponent_hand_size=obs.opponent_hand_size,
        taken_card=None if obs.taken_card is None else CARD_NAMES[obs.taken_card],
        first_upcard=CARD_NAMES[obs.first_upcard],
        knock_limit=obs.knock_limit,
        turn=obs.turn,
        dealer=obs.dealer,
        hand_number=hand_number,
        scores=list(scores),
        target=target,
    )


def show_down_model(show: EngineShowDown) -> ShowDown:
    return ShowDown(
        type="show_down",
        knocker=show.knocker,
        discard=None if show.discard is None else CARD_NAMES[show.discard],
        knocker_melds=[card_list(m) for m in show.knocker_melds],
        knocker_deadwood_cards=card_list(show.knocker_deadwood_cards),
        knocker_deadwood=show.knocker_deadwood,
        defender_melds=[card_list(m) for m in show.defender_melds],
        lay_offs=[
            LayOffModel(card=CARD_NAMES[lo.card], meld=lo.meld_index) for lo in show.lay_offs
        ],
        defender_deadwood_cards=card_list(show.defender_deadwood_cards),
        defender_deadwood=show.defender_deadwood,
    )


def hand_end_model(result: HandResult, scores: Sequence[int]) -> HandEnd:
    return HandEnd(
        type="hand_end",
        end=result.end.value,
        winner=result.winner,
        points=result.points,
        doubled=result.doubled,
        scores=list(scores),
    )
