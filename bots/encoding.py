"""Observations as numpy arrays and actions as integer ids: the layout the reinforcement-learning
environments (:mod:`arena.rl`) train on and :mod:`bots.policy` plays with, the same in both.

An action id is ``0-51`` discard card ``id``, ``52-103`` knock discarding card ``id - 52`` (the
engine's best melds, R20), then draw stock, draw discard, pass and big gin (:data:`ACTIONS` maps
an id to the engine's action). An observation is a ``float32`` vector: five planes of 52 values
indexed by card (hand, opponent's known cards, pile order, pile top, card taken this turn) and
nine scalars, at the offsets below. docs/RL.md has both tables ("The observation", "The
actions"); tests/rl/test_rl_docs.py holds them to these constants.

Needs numpy (``pip install 'gin-rummy-arena[rl]'``).
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

from bots.errors import BotsError
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


class EncodingError(BotsError, ValueError):
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
