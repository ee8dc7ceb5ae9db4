"""Observations as numpy arrays and actions as integer ids: the layout the reinforcement-learning
environments (:mod:`arena.rl`) train on and :mod:`bots.policy` plays with, the same in both.

Needs numpy (``pip install 'gin-rummy-arena[rl]'``).

**Actions** are ids ``0 .. ACTION_COUNT - 1`` (:data:`ACTIONS` maps an id to the engine's action):

=========  ================================================================================
id         action
=========  ================================================================================
0-51       discard card ``id`` (cards are the engine's ints: ``suit * 13 + rank - 1``,
           suits clubs, diamonds, hearts, spades; ``engine.CARD_NAMES[id]`` names it)
52-103     knock, discarding card ``id - 52``; the melds are the engine's best arrangement
           (R20: the least deadwood)
104        draw from the stock
105        draw from the discard pile (take the upcard, the first upcard included)
106        pass on the first upcard
107        big gin: knock with all eleven cards melded, no discard (only where O6 allows it)
=========  ================================================================================

**Observations** are ``float32`` vectors of :data:`OBSERVATION_SIZE` values, all in ``[0, 1]``,
made from the player's own :class:`engine.hand.Observation` and the game scores only, so they
carry nothing the player may not know. Five planes of 52 values, indexed by card id, then nine
scalars (the offsets are the constants below):

=====================  ======================================================================
``HAND`` (0)           1 for each card in the player's hand
``OPPONENT_KNOWN``     1 for each card the opponent took from the discard pile and still holds
(52)
``PILE`` (104)         the discard pile in order: ``(i + 1) / 32`` for the card ``i`` places
                       above the bottom (the first upcard is ``1 / 32`` until taken), 0 for a
                       card not in the pile
``TOP`` (156)          1 for the top card of the discard pile (the one a draw from it takes)
``TAKEN`` (208)        1 for the card taken from the discard pile this turn (under R8 it may
                       not be discarded this turn)
``STOCK`` (260)        cards left in the stock / 32
``PHASE`` (261-263)    one-hot: first upcard, draw, discard
``KNOCK_LIMIT`` (264)  the deadwood a knock may have / 10 (0: gin only)
``SCORES`` (265-266)   the player's game score / target, the opponent's / target (capped at 1)
``DEALER`` (267)       1 when the player dealt this hand
``TURN`` (268)         turns played in the hand / 100 (capped at 1)
=====================  ======================================================================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "bots.encoding needs numpy: install the reinforcement-learning extra with "
        "pip install 'gin-rummy-arena[rl]' (or pip install numpy)"
    ) from error

from engine.hand import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    ActionKind,
    Observation,
    Phase,
)

DISCARD_BASE: Final = 0
KNOCK_BASE: Final = 52
DRAW_STOCK_ID: Final = 104
DRAW_DISCARD_ID: Final = 105
PASS_ID: Final = 106
BIG_GIN_ID: Final = 107
ACTION_COUNT: Final = 108

ACTIONS: Final[tuple[Action, ...]] = (
    *DISCARDS,
    *KNOCKS,
    DRAW_STOCK,
    DRAW_DISCARD,
    PASS,
    BIG_GIN,
)
"""The engine's action of each id."""

HAND: Final = 0
OPPONENT_KNOWN: Final = 52
PILE: Final = 104
TOP: Final = 156
TAKEN: Final = 208
STOCK: Final = 260
PHASE: Final = 261
KNOCK_LIMIT: Final = 264
SCORES: Final = 265
DEALER: Final = 267
TURN: Final = 268
OBSERVATION_SIZE: Final = 269

_PHASE_OFFSET: Final = {Phase.FIRST_UPCARD: 0, Phase.DRAW: 1, Phase.DISCARD: 2}
_ONE_CARD_IDS: Final = {
    ActionKind.DRAW_STOCK: DRAW_STOCK_ID,
    ActionKind.DRAW_DISCARD: DRAW_DISCARD_ID,
    ActionKind.PASS: PASS_ID,
}
_BITS: Final = np.unpackbits(
    np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little"
).astype(np.float32)
"""Row ``b``: the eight bits of the byte ``b``, lowest first."""
_PILE_ORDER: Final = np.arange(1, 53, dtype=np.float32) / 32


class EncodingError(ValueError):
    """An action id out of range, or an action with no id."""


def _plane(mask: int) -> npt.NDArray[np.float32]:
    """The 52 bits of a card mask as 0.0/1.0 values."""
    return _BITS[np.frombuffer(mask.to_bytes(7, "little"), dtype=np.uint8)].reshape(56)[:52]


def encode(
    seen: Observation,
    scores: Sequence[int],
    target: int,
    out: npt.NDArray[np.float32] | None = None,
) -> npt.NDArray[np.float32]:
    """The observation vector of ``seen`` (see the module's table). ``scores`` are the game
    scores by seat as the player sees them, ``target`` the score that wins the game; ``out``, an
    array of :data:`OBSERVATION_SIZE` to fill instead of a new one."""
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    out[HAND:OPPONENT_KNOWN] = _plane(seen.hand)
    if seen.opponent_known:
        out[OPPONENT_KNOWN:PILE] = _plane(seen.opponent_known)
    pile = seen.discard_pile
    if pile:
        cards = np.fromiter(pile, dtype=np.intp, count=len(pile))
        out[PILE + cards] = _PILE_ORDER[: len(pile)]
        out[TOP + pile[-1]] = 1.0
    taken = seen.taken_card
    if taken is not None:
        out[TAKEN + taken] = 1.0
    out[STOCK] = seen.stock_size / 32
    phase = _PHASE_OFFSET.get(seen.phase)
    if phase is not None:
        out[PHASE + phase] = 1.0
    out[KNOCK_LIMIT] = seen.knock_limit / 10
    player = seen.player
    if target > 0 and len(scores) >= 2:
        out[SCORES] = min(scores[player] / target, 1.0)
        out[SCORES + 1] = min(scores[1 - player] / target, 1.0)
    out[DEALER] = 1.0 if seen.dealer == player else 0.0
    out[TURN] = min(seen.turn / 100, 1.0)
    return out


def action_id(action: Action) -> int:
    """The id of an engine action (a knock's declared melds, if any, are not part of it)."""
    kind = action.kind
    card = action.card
    if kind is ActionKind.DISCARD and card is not None:
        return DISCARD_BASE + card
    if kind is ActionKind.KNOCK:
        return BIG_GIN_ID if card is None else KNOCK_BASE + card
    try:
        return _ONE_CARD_IDS[kind]
    except KeyError:
        raise EncodingError(f"the action {action} has no id") from None


def action_of(action: int) -> Action:
    """The engine action of an id; :class:`EncodingError` for anything but an int in range
    (numpy integers included)."""
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise EncodingError(f"bad action id {action!r}: an int is expected") from None
    if index != action or not 0 <= index < ACTION_COUNT:
        raise EncodingError(f"bad action id {action!r}: ids are 0 to {ACTION_COUNT - 1}")
    return ACTIONS[index]


def action_mask(legal: Iterable[Action]) -> npt.NDArray[np.int8]:
    """1 at the id of each legal action, 0 elsewhere (``int8``, :data:`ACTION_COUNT` long)."""
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    mask[[action_id(a) for a in legal]] = 1
    return mask


def describe(action: int) -> str:
    """An action id in the engine's notation, e.g. ``57: knock 6C``."""
    return f"{action}: {action_of(action)}"


__all__ = [
    "ACTIONS",
    "ACTION_COUNT",
    "BIG_GIN_ID",
    "DEALER",
    "DISCARD_BASE",
    "DRAW_DISCARD_ID",
    "DRAW_STOCK_ID",
    "HAND",
    "KNOCK_BASE",
    "KNOCK_LIMIT",
    "OBSERVATION_SIZE",
    "OPPONENT_KNOWN",
    "PASS_ID",
    "PHASE",
    "PILE",
    "SCORES",
    "STOCK",
    "TAKEN",
    "TOP",
    "TURN",
    "EncodingError",
    "action_id",
    "action_mask",
    "action_of",
    "describe",
    "encode",
]
