"""The value network's pure-Python parts (value_net.py): the inputs of a position, the network
evaluated as the dense computation, the weights' packing; and the data and training scripts end
to end (only with numpy installed)."""

from __future__ import annotations

import base64
import itertools
import json
import math
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from value_net import (
    SCALARS,
    SIZE,
    ValueNet,
    draw_chances,
    encode,
    opponent_holds,
    unpack,
)

from bots.strong import Appraisal, HandMemory, StockOdds, stock_odds, unseen_cards
from engine.cards import parse_card
from engine.melds import deadwood

HERE = Path(__file__).resolve().parent


def mask(*names: str) -> int:
    out = 0
    for name in names:
        out |= 1 << parse_card(name)
    return out


def reference_value(layers: list[tuple[list[list[float]], list[float]]], x: list[float]) -> float:
    """The network written out the obvious way: dense, every input."""
    h = x
    for n, (weights, biases) in enumerate(layers):
        out = [
            biases[j] + sum(h[i] * weights[i][j] for i in range(len(h))) for j in range(len(biases))
        ]
        h = out if n == len(layers) - 1 else [max(0.0, v) for v in out]
    return h[0]


def random_layers(
    rng: random.Random, sizes: list[int]
) -> list[tuple[list[list[float]], list[float]]]:
    return [
        (
            [[rng.uniform(-1, 1) for _ in range(b)] for _ in range(a)],
            [rng.uniform(-1, 1) for _ in range(b)],
        )
        for a, b in itertools.pairwise(sizes)
    ]


def test_the_network_is_the_dense_computation_skipping_zero_inputs() -> None:
    rng = random.Random(3)
    layers = random_layers(rng, [7, 5, 4, 1])
    net = ValueNet(layers)
    for _ in range(50):
        x = [rng.choice([0.0, 0.0, 1.0, rng.uniform(-2, 2)]) for _ in range(7)]
        assert math.isclose(net.value(x), reference_value(layers, x), abs_tol=1e-9)


def test_bad_shapes_and_inputs_are_refused() -> None:
    rng = random.Random(4)
    with pytest.raises(ValueError, match="chain"):
        ValueNet([random_layers(rng, [3, 2])[0], random_layers(rng, [3, 1])[0]])
    with pytest.raises(ValueError, match="one output"):
        ValueNet(random_layers(rng, [3, 2]))
    with pytest.raises(ValueError, match="inputs"):
        ValueNet(random_layers(rng, [3, 1])).value([1.0, 0.0])


def test_unpack_reads_what_pack_writes(tmp_path: Path) -> None:
    rng = random.Random(5)
    layers = random_layers(rng, [6, 3, 1])
    source = tmp_path / "net.json"
    source.write_text(json.dumps({"layers": [{"w": w, "b": b} for w, b in layers]}))
    out = tmp_path / "weights.py"
    subprocess.run(
        [sys.executable, str(HERE / "pack.py"), str(source), str(out)],
        check=True,
        capture_output=True,
    )
    namespace: dict[str, object] = {}
    exec(out.read_text(), namespace)
    net = unpack(namespace["SHAPES"], namespace["WEIGHTS"])  # type: ignore[arg-type]
    for _ in range(20):
        x = [rng.uniform(-1, 1) for _ in range(6)]
        assert math.isclose(net.value(x), reference_value(layers, x), rel_tol=1e-5, abs_tol=1e-5)
    values = struct.pack("<3f", 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="weights for shapes"):
        unpack(((1, 1),), base64.b64encode(values).decode())


def test_draw_chances_count_the_cards_that_knock_and_make_gin() -> None:
    kept = mask("AS", "2S", "3S", "7H", "7D", "7C", "KD", "QD", "JD", "2C")  # 2 deadwood
    draws = [(parse_card("4S"), 0.25), (parse_card("5H"), 0.25), (parse_card("KC"), 0.5)]
    knock, gin = draw_chances(kept, draws, 10)
    # Every card knocks (the 2C or the card drawn is thrown); the 4S makes gin (AS-4S, the 7s,
    # KD-JD, the 2C thrown).
    assert knock == pytest.approx(1.0)
    assert gin == pytest.approx(0.25)
    high = mask("KS", "QH", "JC", "9D", "8S", "6H", "5C", "4D", "TS", "TH")
    assert draw_chances(high, draws, 10) == (0.0, 0.0)


def test_a_position_is_encoded_block_by_block() -> None:
    kept = mask("AS", "2S", "3S", "7H", "7D", "7C", "KD", "QD", "JD", "2C")
    pile = (parse_card("9H"), parse_card("5D"))
    discarded = parse_card("TC")
    memory = HandMemory(
        pile=list(pile),
        opponent_discards=mask("5D"),
        opponent_passes=mask("9H"),
        opponent_takes=mask("8C", "5D"),
    )
    holds = opponent_holds(memory, 0)
    assert holds == mask("8C")
    unseen = unseen_cards(kept | 1 << discarded, pile, 0)
    odds = [0.0] * 52
    for card in range(52):
        if unseen >> card & 1:
            odds[card] = 0.3
    appraisal = Appraisal(StockOdds.of(stock_odds(unseen, odds)), 1.0)
    x = encode(
        kept,
        discarded,
        pile=pile,
        opponent_holds=holds,
        opponent_discards=memory.opponent_discards,
        opponent_passes=memory.opponent_passes,
        odds=odds,
        appraisal=appraisal,
        danger=0.4,
        stock_size=20,
        knock_limit=10,
    )
    assert len(x) == SIZE == 52 * 6 + len(SCALARS)

    def block(n: int) -> int:
        return sum(1 << c for c in range(52) if x[52 * n + c])

    assert block(0) == kept
    assert block(1) == mask("9H", "5D", "TC")
    assert block(2) == mask("8C")
    assert block(3) == mask("5D")
    assert block(4) == mask("9H")
    assert x[260:312] == odds
    stock, dead, value, danger, knock, gin = x[312:]
    assert stock == pytest.approx(20 / 31)
    assert dead == pytest.approx(deadwood(kept) / 10)
    assert value == pytest.approx(appraisal.value(kept) / 10)
    assert danger == 0.4
    assert (knock, gin) == draw_chances(kept, appraisal.stock.draws, 10)
    assert 0 <= gin <= knock <= 1 + 1e-9


def test_the_training_scripts_run_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    data, weights = tmp_path / "vn.npz", tmp_path / "vn.json"
    run = [sys.executable, str(HERE / "generate.py")]
    subprocess.run([*run, "--hands", "6", "--out", str(data)], check=True, capture_output=True)
    train = [sys.executable, str(HERE / "train.py"), str(data)]
    result = subprocess.run(
        [*train, "--epochs", "1", "--weights", str(weights)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert "MLP 64,64" in result.stdout
    net = json.loads(weights.read_text())
    assert [len(layer["b"]) for layer in net["layers"]] == [64, 64, 1]
    assert len(net["layers"][0]["w"]) == SIZE


def test_the_ceiling_script_runs_and_bounds_r2() -> None:
    result = subprocess.run(
        [sys.executable, str(HERE / "ceiling.py"), "--positions", "20", "--continuations", "8"],
        check=True,
        capture_output=True,
        text=True,
    )
    ceiling = float(result.stdout.split("R² at most ")[1].split()[0])
    assert 0.0 <= ceiling <= 1.0


def test_redrawing_the_opponent_keeps_what_player_0_saw() -> None:
    from ceiling import redraw_opponent

    from bots.search import rollout
    from engine.hand import Hand, Phase

    rng = random.Random(3)
    checked = 0
    for seed in range(40):
        hand = Hand(dealer=seed % 2, seed=seed)
        while hand.result is None and checked < 60:
            rollout(hand, 0, 1)
            if hand.phase is Phase.DRAW and hand.to_move == 1 and hand.known[1]:
                branch = hand.copy()
                redraw_opponent(branch, rng)
                assert branch.hands[0] == hand.hands[0] and branch.pile == hand.pile
                assert branch.hands[1] & hand.known[1] == hand.known[1], "the seen cards stay"
                assert branch.hands[1].bit_count() == hand.hands[1].bit_count()
                assert len(branch.stock) == len(hand.stock)
                before = hand.hands[1] | sum(1 << c for c in hand.stock)
                after = branch.hands[1] | sum(1 << c for c in branch.stock)
                assert before == after, "the same cards, dealt anew"
                checked += 1
    assert checked > 10


def test_the_ceiling_script_redraws_the_opponents_hidden_cards() -> None:
    argv = [sys.executable, str(HERE / "ceiling.py"), "--positions", "20", "--continuations", "8"]
    result = subprocess.run(
        [*argv, "--redraw-opponent"], check=True, capture_output=True, text=True
    )
    assert "knowing player 0's cards only" in result.stdout
