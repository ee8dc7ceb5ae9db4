"""A learned value of the hand a discard leaves (issue #35, step 3): its inputs and the network,
in pure Python.

:func:`encode` turns a position (the bot's ten cards kept after a discard and everything public)
into the input vector of the value network that ``train.py`` fits on the strong bot's discards
(``generate.py``); :class:`ValueNet` evaluates such a network without numpy, and :func:`unpack`
reads it as ``pack.py`` writes it, as a bot would (the bots' runtime has no numpy). Not in the
bots: its held-out R² stayed far below the 0.2 that would have justified playing it
(docs/LADDER.md, "The reference bot").
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from typing import Final

from bots.strong import Appraisal, HandMemory
from engine.melds import best_discards, deadwood

STOCK_AT_START: Final = 31
"""Stock cards after the deal and the first upcard (52 - 21)."""

CARD_BLOCKS: Final = ("kept", "pile", "opponent_holds", "opponent_discards", "opponent_passes")
"""The 52-card masks of the input, in order; then the opponent odds (52 floats) and
:data:`SCALARS`."""

SCALARS: Final = (
    "stock",
    "deadwood",
    "appraisal",
    "danger",
    "knock_chance",
    "gin_chance",
)
"""Stock left (a share of :data:`STOCK_AT_START`), the kept hand's deadwood and the strong bot's
appraisal of it (expected deadwood after one more draw; both in tens of points), the chance the
opponent can meld the discard, and the chances of a knock and of gin after the next stock card."""

SIZE: Final = 52 * (len(CARD_BLOCKS) + 1) + len(SCALARS)
"""The length of an input vector."""


def _bits(mask: int, out: list[float], offset: int) -> None:
    while mask:
        low = mask & -mask
        mask ^= low
        out[offset + low.bit_length() - 1] = 1.0


def draw_chances(
    kept: int, draws: Sequence[tuple[int, float]], knock_limit: int
) -> tuple[float, float]:
    """The chances that the next stock card (``draws``: card, chance) lets ``kept`` (ten cards)
    knock, and make gin, after the best discard."""
    knock = gin = 0.0
    for card, p in draws:
        dead, _ = best_discards(kept | 1 << card)
        if dead <= knock_limit:
            knock += p
            if dead == 0:
                gin += p
    return knock, gin


def encode(
    kept: int,
    discarded: int,
    *,
    pile: Sequence[int],
    opponent_holds: int,
    opponent_discards: int,
    opponent_passes: int,
    odds: Sequence[float],
    appraisal: Appraisal,
    danger: float,
    stock_size: int,
    knock_limit: int,
) -> list[float]:
    """The input vector of the position ``kept`` leaves when ``discarded`` goes on ``pile`` (the
    pile before it, bottom first): the cards the opponent is known to hold, has thrown and has
    passed, the strong bot's ``odds`` of each card being in its hand, ``appraisal`` (the strong
    bot's, for this position), the chance ``danger`` that the opponent melds the discard, the
    stock left and the knock limit."""
    x = [0.0] * SIZE
    _bits(kept, x, 0)
    pile_mask = 1 << discarded
    for card in pile:
        pile_mask |= 1 << card
    _bits(pile_mask, x, 52)
    _bits(opponent_holds, x, 104)
    _bits(opponent_discards, x, 156)
    _bits(opponent_passes, x, 208)
    x[260:312] = odds[:52]
    knock, gin = draw_chances(kept, appraisal.stock.draws, knock_limit)
    x[312:] = (
        stock_size / STOCK_AT_START,
        deadwood(kept) / 10.0,
        appraisal.value(kept) / 10.0,
        danger,
        knock,
        gin,
    )
    return x


class ValueNet:
    """A small multilayer perceptron (ReLU between layers, one output: the hand's points for the
    bot, in hand points), evaluated in pure Python. ``layers``: for each layer, its weights by
    input (``weights[i][j]``: from input ``i`` to output ``j``) and its biases. The first layer
    adds only the columns of the inputs that are not zero, most of them being card masks."""

    __slots__ = ("layers",)

    def __init__(self, layers: Sequence[tuple[Sequence[Sequence[float]], Sequence[float]]]) -> None:
        if not layers:
            raise ValueError("a network needs at least one layer")
        width = len(layers[0][0])
        for weights, biases in layers:
            if len(weights) != width or any(len(row) != len(biases) for row in weights):
                raise ValueError("layer shapes do not chain")
            width = len(biases)
        if width != 1:
            raise ValueError("the last layer must have one output")
        self.layers = tuple(
            (tuple(tuple(float(v) for v in row) for row in weights), tuple(map(float, biases)))
            for weights, biases in layers
        )

    @property
    def inputs(self) -> int:
        return len(self.layers[0][0])

    def value(self, x: Sequence[float]) -> float:
        """The network's output for the input vector ``x``."""
        if len(x) != self.inputs:
            raise ValueError(f"expected {self.inputs} inputs, got {len(x)}")
        h: Sequence[float] = x
        last = len(self.layers) - 1
        for n, (weights, biases) in enumerate(self.layers):
            out = list(biases)
            for xi, row in zip(h, weights, strict=True):
                if xi:
                    out = [o + xi * w for o, w in zip(out, row, strict=True)]
            h = out if n == last else [v if v > 0.0 else 0.0 for v in out]
        return h[0]


def unpack(shapes: Sequence[tuple[int, int]], weights: str) -> ValueNet:
    """The network of ``shapes`` ((inputs, outputs) by layer) and ``weights`` (little-endian
    float32, base64: by layer, the weights by input then the biases), as
    ``benchmarks/value_net/pack.py`` writes them."""
    raw = base64.b64decode(weights)
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    layers = []
    at = 0
    for inputs, outputs in shapes:
        rows = [values[at + i * outputs : at + (i + 1) * outputs] for i in range(inputs)]
        at += inputs * outputs
        layers.append((rows, values[at : at + outputs]))
        at += outputs
    if at != len(values):
        raise ValueError(f"{len(values)} weights for shapes {shapes!r}")
    return ValueNet(layers)


def opponent_holds(memory: HandMemory, opponent_known: int) -> int:
    """The cards the opponent is known to hold: taken from the pile and not thrown again."""
    return memory.opponent_takes & ~memory.opponent_discards | opponent_known
