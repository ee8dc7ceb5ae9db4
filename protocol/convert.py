"""Conversions between the engine's values and the protocol's: cards and card masks, actions and
lists of legal actions. Which seat may see what is decided in :mod:`protocol.views`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.cards import CARD_INDEX, CARD_NAMES, card_names, parse_card
from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    ActionKind,
)
from engine.hand import Action as EngineAction
from engine.melds import deadwood
from protocol.messages import Action, DiscardAction, DrawAction, KnockAction, PassAction

_PASS = PassAction.model_construct(kind="pass")
_DRAW_STOCK = DrawAction.model_construct(kind="draw", source="stock")
_DRAW_DISCARD = DrawAction.model_construct(kind="draw", source="discard")
_DISCARDS = tuple(
    DiscardAction.model_construct(kind="discard", card=CARD_NAMES[c]) for c in range(52)
)
_KNOCKS = tuple(KnockAction.model_construct(kind="knock", card=CARD_NAMES[c]) for c in range(52))
_BIG_GIN = KnockAction.model_construct(kind="knock")
_GIN_KNOCKS = tuple(
    KnockAction.model_construct(kind="knock", card=CARD_NAMES[c], gin=True) for c in range(52)
)
_BIG_GIN_MARKED = KnockAction.model_construct(kind="knock", gin=True)


def card_mask(cards: Iterable[str]) -> int:
    """The mask of cards in any notation (canonical names by one look-up each)."""
    mask = 0
    index = CARD_INDEX
    for card in cards:
        found = index.get(card)
        mask |= 1 << (parse_card(card) if found is None else found)
    return mask


def card_of(name: str) -> int:
    """The card of a name in any notation (a canonical one by one look-up)."""
    found = CARD_INDEX.get(name)
    return parse_card(name) if found is None else found


def action_model(action: EngineAction) -> Action:
    """The protocol form of an engine action."""
    kind = action.kind
    if kind is ActionKind.PASS:
        return _PASS
    if kind is ActionKind.DRAW_STOCK:
        return _DRAW_STOCK
    if kind is ActionKind.DRAW_DISCARD:
        return _DRAW_DISCARD
    card = action.card
    if card is not None and not (type(card) is int and 0 <= card < 52):
        raise ValueError(f"bad card {card!r} in {kind} action: cards are ints 0..51")
    if kind is ActionKind.DISCARD:
        if card is None:
            raise ValueError("a discard names its card")
        return _DISCARDS[card]
    if kind is not ActionKind.KNOCK:
        raise ValueError(f"not an action kind: {kind!r}")
    if action.melds is None:
        return _BIG_GIN if card is None else _KNOCKS[card]
    return KnockAction(
        kind="knock",
        card=None if action.card is None else CARD_NAMES[action.card],
        melds=[card_names(m) for m in action.melds],
    )


_PAIRS: tuple[tuple[Action, EngineAction], ...] = (
    (_PASS, PASS),
    (_DRAW_STOCK, DRAW_STOCK),
    (_DRAW_DISCARD, DRAW_DISCARD),
    (_BIG_GIN, BIG_GIN),
    *zip(_DISCARDS, DISCARDS, strict=True),
    *zip(_KNOCKS, KNOCKS, strict=True),
)
_MARKED: tuple[tuple[Action, EngineAction], ...] = (
    (_BIG_GIN_MARKED, BIG_GIN),
    *zip(_GIN_KNOCKS, KNOCKS, strict=True),
)
"""The knocks as a request lists them when they are gin (``"gin": true``)."""
_ENGINE_OF: dict[int, EngineAction] = {id(model): action for model, action in (*_PAIRS, *_MARKED)}
"""The engine action of each of the models above, by identity: the models the referee puts in a
request (:func:`legal_models`) live as long as this module, so no other object has their id."""


def engine_action(model: Action) -> EngineAction:
    """The engine form of a protocol action (legality is the engine's to check)."""
    known = _ENGINE_OF.get(id(model))
    if known is not None:  # one of this module's own models: an in-process bot's request
        return known
    if isinstance(model, PassAction):
        return PASS
    if isinstance(model, DrawAction):
        return DRAW_STOCK if model.source == "stock" else DRAW_DISCARD
    if isinstance(model, DiscardAction):
        return DISCARDS[card_of(model.card)]
    card = None if model.card is None else card_of(model.card)
    if model.melds is None:
        return BIG_GIN if card is None else KNOCKS[card]
    return EngineAction(ActionKind.KNOCK, card, tuple(card_mask(m) for m in model.melds))


_MODEL_OF: dict[int, Action] = {id(action): model for model, action in _PAIRS}
"""The model of each of the engine's own action constants (:data:`engine.hand.DISCARDS` ...), by
identity, as :data:`_ENGINE_OF` the other way."""


_JSON_OF: dict[int, bytes] = {
    id(action): model.model_dump_json(exclude_none=True).encode() for model, action in _PAIRS
}


def action_json(action: EngineAction) -> bytes:
    """The JSON of the protocol form of an engine action, as :func:`protocol.codec.encode`
    writes it (the engine's constants from a table)."""
    known = _JSON_OF.get(id(action))
    if known is not None:
        return known
    return action_model(action).model_dump_json(exclude_none=True).encode()


_GIN_JSON_OF: dict[int, bytes] = {
    id(action): model.model_dump_json(exclude_none=True).encode() for model, action in _MARKED
}
_ACTION_OF_JSON: dict[bytes, EngineAction] = {
    **{_JSON_OF[id(a)]: a for _, a in _PAIRS},
    **{_GIN_JSON_OF[id(a)]: a for _, a in _MARKED},
}


def is_gin(action: EngineAction, hand: int) -> bool:
    """Whether ``action``, legal for a player holding ``hand``, is a knock that makes gin (the
    ten cards kept meld completely, R14) or big gin (R19)."""
    if action.kind is not ActionKind.KNOCK:
        return False
    if action.card is None:
        return True
    return deadwood(hand & ~(1 << action.card)) == 0


def legal_json(action: EngineAction, hand: int) -> bytes:
    """:func:`action_json` of a legal action, marked ``"gin": true`` when it is gin."""
    if action.kind is ActionKind.KNOCK and action.melds is None and is_gin(action, hand):
        return _GIN_JSON_OF[id(BIG_GIN if action.card is None else KNOCKS[action.card])]
    return action_json(action)


def reply_action(line: bytes, request_id: int) -> EngineAction | None:
    """The action of ``line`` if it is the reply to ``request_id`` with one of the engine's
    constant actions written byte for byte as :func:`protocol.codec.encode` writes it (as the
    SDK does): a valid reply, found by a look-up. None for any other line, which is then to be
    decoded and validated."""
    head = b'{"type":"reply","id":%d,"action":' % request_id
    if line.startswith(head) and line.endswith(b"}\n"):
        return _ACTION_OF_JSON.get(line[len(head) : -2])
    return None


def action_of_json(data: dict[str, Any]) -> EngineAction:
    """The engine action of a protocol action as JSON decodes it (unvalidated: the referee's
    own messages); ``KeyError`` or ``ValueError`` when it is no action."""
    kind = data["kind"]
    if kind == "discard":
        return DISCARDS[card_of(data["card"])]
    if kind == "draw":
        source = data["source"]
        if source == "stock":
            return DRAW_STOCK
        if source == "discard":
            return DRAW_DISCARD
        raise ValueError(f"unknown draw source {source!r}")
    if kind == "pass":
        return PASS
    if kind != "knock":
        raise ValueError(f"unknown action kind {kind!r}")
    card = data.get("card")
    melds = data.get("melds")
    if melds is None:
        return BIG_GIN if card is None else KNOCKS[card_of(card)]
    return EngineAction(
        ActionKind.KNOCK,
        None if card is None else card_of(card),
        tuple(card_mask(m) for m in melds),
    )


def own_action(action: EngineAction) -> EngineAction:
    """``action`` as a bot's reply would carry it: one of the engine's constants is taken as it
    is; anything else goes through its protocol model, validated (a card out of range, melds
    that are not masks of cards, or an object that is no action raise), and back."""
    if id(action) in _MODEL_OF:
        return action
    return engine_action(action_model(action))


def legal_models(actions: Sequence[EngineAction], hand: int | None = None) -> list[Action]:
    """The protocol form of a list of legal actions (the engine lists its own constants); with
    the mover's ``hand``, the knocks that are gin say so (``"gin": true``)."""
    known = _MODEL_OF.get
    models = [known(id(a)) or action_model(a) for a in actions]
    if hand is None:
        return models
    for index, action in enumerate(actions):
        if action.kind is ActionKind.KNOCK and action.melds is None and is_gin(action, hand):
            models[index] = _BIG_GIN_MARKED if action.card is None else _GIN_KNOCKS[action.card]
    return models
