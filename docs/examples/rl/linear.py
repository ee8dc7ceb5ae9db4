"""The policy of ``train.py`` and ``rl_linear.py``: a linear softmax over per-action features.

Both scripts import this module, so the bot plays exactly the function that was trained. A policy
is ``(observation, mask) -> action id``, the signature of :mod:`bots.policy`: the observation
vector and the action mask are those of :mod:`bots.encoding`, as the environments of
:mod:`arena.rl` give them and as :func:`bots.policy.run_policy` gives them to a bot.

The policy does not score the 269 raw observation values. It reads the player's hand, the
discard pile, the cards the opponent is known to hold and the stock size back out of the
observation, and describes each legal action by :data:`FEATURE_NAMES` (the deadwood left after a
discard, the deadwood a card from the pile would save, ...), computed with the engine's meld
solver (:mod:`engine.melds`). An action's score (logit) is ``weights @ features``; the policy
plays the highest score (:func:`best_action`), or samples the softmax of the scores during
training (:func:`sample_action`). With all weights zero the softmax makes every legal action
equally likely: the untrained sampling policy plays as the ``random`` bot does.

This file is a module, not a script: see ``train.py`` and ``rl_linear.py`` in this directory.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from bots.encoding import (
    BIG_GIN_ID,
    DRAW_DISCARD_ID,
    DRAW_STOCK_ID,
    HAND,
    KNOCK_BASE,
    OBSERVATION_SIZE,
    OPPONENT_KNOWN,
    PASS_ID,
    PILE,
    STOCK,
    TOP,
)
from engine.cards import VALUES
from engine.melds import best_discards, deadwood, min_deadwood

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

FEATURE_NAMES: Final = (
    "knock",  # 1 for a knock (big gin included)
    "knock_deadwood",  # the deadwood a knock leaves / 10
    "gin",  # 1 for a knock with no deadwood (gin, big gin)
    "deadwood_after",  # discard or knock: the least deadwood of the ten cards kept / 10
    "card_value",  # discard or knock: the value of the card let go / 10
    "card_links",  # discard or knock: how well the card connects with the hand (0 to 1)
    "feeds_opponent",  # discard or knock: 1 if the card fits a card the opponent took
    "take_upcard",  # 1 for taking the top card of the discard pile
    "upcard_gain",  # taking it: the deadwood saved / 10 (after the best allowed discard)
    "stock_gain",  # drawing from the stock or passing: the mean deadwood an unseen card saves / 10
    "late_knock",  # a knock, times the share of the stock already drawn
)
FEATURE_COUNT: Final = len(FEATURE_NAMES)
KNOCK, KNOCK_DEADWOOD, GIN, DEADWOOD_AFTER, CARD_VALUE, CARD_LINKS, FEEDS_OPPONENT = range(7)
TAKE_UPCARD, UPCARD_GAIN, STOCK_GAIN, LATE_KNOCK = range(7, 11)

STOCK_AT_DEAL: Final = 31
"""Cards in the stock once the hands and the first upcard are dealt (52 - 2 * 10 - 1)."""
_CARD_BYTES: Final = 7


class WeightsError(ValueError):
    """A weights file that is missing, unreadable or not made for these features."""


Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]


def card_set(plane: npt.NDArray[np.float32]) -> int:
    """The engine's card mask (bit ``c`` for card ``c``) of a 52-value plane of the observation."""
    bits = np.packbits(plane > 0, bitorder="little")
    return int.from_bytes(bits.tobytes().ljust(_CARD_BYTES, b"\0"), "little")


def _links(card: int, hand: int) -> float:
    """How much ``card`` is part of a meld or a near-meld in ``hand``: the other cards of its
    rank, and the cards of its suit one rank (counted 1) or two ranks (counted 1/2) away."""
    rank, suit = card % 13, card // 13
    same_rank = sum(1 for s in range(4) if s != suit and hand >> (s * 13 + rank) & 1)
    neighbours = 0.0
    for step, weight in ((1, 1.0), (2, 0.5)):
        for other in (rank - step, rank + step):
            if 0 <= other < 13 and hand >> (suit * 13 + other) & 1:
                neighbours += weight
    return min((same_rank + neighbours) / 3.0, 1.0)


def _fits(card: int, cards: int) -> bool:
    """Does ``card`` make a meld or a near-meld with some card of ``cards`` (same rank, or same
    suit and at most two ranks away)?"""
    rank, suit = card % 13, card // 13
    for other_suit in range(4):
        if other_suit != suit and cards >> (other_suit * 13 + rank) & 1:
            return True
    return any(
        0 <= other < 13 and other != rank and cards >> (suit * 13 + other) & 1
        for other in range(rank - 2, rank + 3)
    )


def action_features(
    observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]
) -> tuple[IntArray, FloatArray]:
    """The legal action ids of ``mask`` and their features: an array of shape
    ``(legal actions, FEATURE_COUNT)``, columns as :data:`FEATURE_NAMES`."""
    if observation.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"an observation has {OBSERVATION_SIZE} values, not {observation.shape}")
    legal: IntArray = np.flatnonzero(mask)
    if not legal.size:
        raise ValueError("the mask allows no action (the episode is over)")
    features = np.zeros((len(legal), FEATURE_COUNT))
    hand = card_set(observation[HAND:OPPONENT_KNOWN])
    opponent = card_set(observation[OPPONENT_KNOWN:PILE])
    drawn = 1.0 - min(float(observation[STOCK]) * 32 / STOCK_AT_DEAL, 1.0)
    if legal[0] >= DRAW_STOCK_ID:  # a draw: stock, discard pile, or a pass on the first upcard
        _draw_features(observation, legal, features, hand, opponent)
        return legal, features
    for row, action in enumerate(legal):
        if action == BIG_GIN_ID:
            features[row, [KNOCK, GIN]] = 1.0
            features[row, LATE_KNOCK] = drawn
            continue
        card = int(action) % KNOCK_BASE
        left = deadwood(hand & ~(1 << card)) / 10
        features[row, DEADWOOD_AFTER] = left
        features[row, CARD_VALUE] = VALUES[card] / 10
        features[row, CARD_LINKS] = _links(card, hand)
        features[row, FEEDS_OPPONENT] = float(_fits(card, opponent))
        if action >= KNOCK_BASE:
            features[row, KNOCK] = 1.0
            features[row, KNOCK_DEADWOOD] = left
            features[row, GIN] = float(left == 0)
            features[row, LATE_KNOCK] = drawn
    return legal, features


def _draw_features(
    observation: npt.NDArray[np.float32],
    legal: IntArray,
    features: FloatArray,
    hand: int,
    opponent: int,
) -> None:
    """Fill in the features of a draw: taking the upcard against drawing from the stock (or
    passing on the first upcard, after which the stock comes next)."""
    now = deadwood(hand)
    seen = hand | opponent | card_set(observation[PILE:TOP])
    unseen = [card for card in range(52) if not seen >> card & 1]
    stock_gain = (
        sum(max(now - min_deadwood(hand | 1 << card), 0) for card in unseen) / len(unseen) / 10
        if unseen
        else 0.0
    )
    for row, action in enumerate(legal):
        if action == DRAW_DISCARD_ID:
            top = int(np.argmax(observation[TOP : TOP + 52]))
            after, _ = best_discards(hand | 1 << top, 1 << top)
            features[row, TAKE_UPCARD] = 1.0
            features[row, UPCARD_GAIN] = (now - after) / 10
        elif action in (DRAW_STOCK_ID, PASS_ID):
            features[row, STOCK_GAIN] = stock_gain


def logits(weights: FloatArray, features: FloatArray) -> FloatArray:
    """The logit of each action (one row of ``features`` each)."""
    result: FloatArray = features @ weights
    return result


def softmax(values: FloatArray) -> FloatArray:
    """The probabilities of the softmax of ``values``."""
    shifted = np.exp(values - values.max())
    result: FloatArray = shifted / shifted.sum()
    return result


def best_action(
    weights: FloatArray, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]
) -> int:
    """The legal action with the highest score (the first such id on a tie)."""
    legal, features = action_features(observation, mask)
    return int(legal[int(np.argmax(logits(weights, features)))])


def sample_action(
    weights: FloatArray,
    observation: npt.NDArray[np.float32],
    mask: npt.NDArray[np.int8],
    rng: np.random.Generator,
) -> tuple[int, FloatArray]:
    """An action drawn from the softmax policy, and the gradient of its log-probability with
    respect to the weights (its features minus their expectation under the policy)."""
    legal, features = action_features(observation, mask)
    probabilities = softmax(logits(weights, features))
    row = int(rng.choice(len(legal), p=probabilities))
    gradient: FloatArray = features[row] - probabilities @ features
    return int(legal[row]), gradient


def make_policy(weights: FloatArray) -> Policy:
    """The trained policy as :mod:`bots.policy` takes it: the best-scoring legal action."""
    frozen = np.array(weights, dtype=np.float64)

    def policy(observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        return best_action(frozen, observation, mask)

    return policy


def save_weights(
    path: Path, weights: FloatArray, *, seed: int, iterations: int, opponent: str
) -> None:
    """Write ``weights`` to ``path`` (``.npz``), with the feature names they go with and how they
    were trained."""
    with path.open("wb") as file:  # np.savez would add ".npz" to a name without it
        np.savez(
            file,
            weights=np.asarray(weights, dtype=np.float64),
            features=np.array(FEATURE_NAMES),
            seed=np.int64(seed),
            iterations=np.int64(iterations),
            opponent=np.str_(opponent),
        )


def load_weights(path: Path) -> FloatArray:
    """The weights saved in ``path`` by :func:`save_weights`; :class:`WeightsError` saying what is
    wrong with the file otherwise."""
    try:
        with path.open("rb") as file:
            if not zipfile.is_zipfile(file):
                raise WeightsError(
                    f"{path}: not an .npz file of arrays (train.py --out writes one)"
                )
            file.seek(0)
            with np.load(file, allow_pickle=False) as data:
                if "weights" not in data or "features" not in data:
                    raise WeightsError(
                        f"{path}: not a weights file of train.py (no 'weights' and 'features' "
                        "arrays)"
                    )
                weights = np.asarray(data["weights"], dtype=np.float64)
                names = tuple(str(name) for name in data["features"])
    except FileNotFoundError:
        raise WeightsError(f"{path}: no such file (train one with train.py --out {path})") from None
    except WeightsError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise WeightsError(f"{path}: cannot read the weights ({error})") from None
    if names != FEATURE_NAMES or weights.shape != (FEATURE_COUNT,):
        raise WeightsError(
            f"{path}: weights for the features {list(names)} (shape {weights.shape}), but this "
            f"policy has {FEATURE_COUNT}: {list(FEATURE_NAMES)}"
        )
    if not np.all(np.isfinite(weights)):
        raise WeightsError(f"{path}: the weights are not all finite numbers")
    return weights


__all__ = [
    "FEATURE_COUNT",
    "FEATURE_NAMES",
    "Policy",
    "WeightsError",
    "action_features",
    "best_action",
    "card_set",
    "load_weights",
    "logits",
    "make_policy",
    "sample_action",
    "save_weights",
    "softmax",
]
