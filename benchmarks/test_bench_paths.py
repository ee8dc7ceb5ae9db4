"""Speed of the paths a user takes (``tox -e bench``): every public solver function on what
``parse_cards`` returns (a ``CardSet``) beside the same hands as plain ints, whole random hands
through the engine, hands refereed between in-process bots, and over stdio between SDK bots
beside a ``cat`` echo of the same request lines.

Each solver function has its own benchmark group with an ``int`` and a ``CardSet`` member, so that
``pytest-benchmark compare`` and the group table show the two side by side (the target: a
``CardSet`` at most 10% slower). In the default test run (benchmarks disabled) each runs once and
checks that both inputs give the same answers.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from workload import deals

from arena.play.match import Match
from arena.seats import wire
from arena.seats.botspec import BotSpec
from engine.cards import CardSet, card_names, cards_of, deadwood_value, format_cards, parse_cards
from engine.hand import Hand
from engine.melds import (
    best_arrangement,
    best_discards,
    deadwood,
    discard_deadwoods,
    knock_arrangement,
    min_deadwood,
)
from engine.rules import HOYLE

HANDS = 500

TEN: dict[str, Callable[[Any], Any]] = {
    "min_deadwood": min_deadwood,
    "deadwood": deadwood,
    "best_arrangement": best_arrangement,
    "cards_of": cards_of,
    "card_names": card_names,
    "deadwood_value": deadwood_value,
}
ELEVEN: dict[str, Callable[[Any], Any]] = {
    "min_deadwood_11": min_deadwood,
    "best_discards": best_discards,
    "discard_deadwoods": discard_deadwoods,
    "knock_arrangement": knock_arrangement,
}


def _inputs(size: int, kind: str) -> list[int]:
    hands = [deal.hand10 if size == 10 else deal.hand11 for deal in deals(HANDS)]
    if kind == "CardSet":  # what a user has: parse_cards of the hand's notation
        return [parse_cards(format_cards(h)) for h in hands]
    return hands


@pytest.mark.parametrize("kind", ["int", "CardSet"])
@pytest.mark.parametrize("name", [*TEN, *ELEVEN])
def test_solver_on_int_and_on_cardset(benchmark: BenchmarkFixture, name: str, kind: str) -> None:
    function = TEN.get(name) or ELEVEN[name]
    hands = _inputs(10 if name in TEN else 11, kind)
    benchmark.group = name
    results = benchmark(lambda: [function(h) for h in hands])
    if kind == "CardSet":
        assert all(type(h) is CardSet for h in hands)
        plain = [function(int(h)) for h in hands]
        assert results == plain, "a CardSet and its int give the same answers"


def _random_hands(count: int, copy: bool) -> int:
    rng = random.Random(1)
    base = Hand(HOYLE, 0, seed=1)
    steps = 0
    for i in range(count):
        hand = base.copy() if copy else Hand(HOYLE, i & 1, seed=i)
        while hand.result is None:
            legal = hand.legal_actions()
            hand.apply_unchecked(legal[int(rng.random() * len(legal))])
            steps += 1
    return steps


@pytest.mark.parametrize("how", ["copy", "deal"])
def test_engine_random_hands(benchmark: BenchmarkFixture, how: str) -> None:
    benchmark.group = "engine: 100 random hands"
    steps = benchmark(_random_hands, 100, how == "copy")
    assert steps > 100 * 20


def test_referee_in_process_hands(benchmark: BenchmarkFixture) -> None:
    benchmark.group = "referee: 50 hands, in-process random bots"
    spec = BotSpec("random", builtin="random")

    def play() -> int:
        result = Match((spec, spec), HOYLE, games=50, single_hands=True, seed=1).play()
        return len(result.games)

    assert benchmark(play) == 50


@pytest.fixture(scope="module")
def stdio_requests() -> list[bytes]:
    """The request lines of the stdio match below, as the bots were sent them."""
    spec = BotSpec("random", builtin="random")
    with wire.tap() as tapped:
        Match((spec, spec), HOYLE, games=20, single_hands=True, seed=2, in_process=False).play()
    return [
        t.text.encode() + b"\n"
        for t in tapped
        if t.direction == wire.TO_BOT and t.text.startswith('{"type":"request"')
    ]


@pytest.mark.skipif(shutil.which("cat") is None, reason="needs cat")
@pytest.mark.parametrize("how", ["match", "echo"])
def test_referee_stdio_hands(
    benchmark: BenchmarkFixture, how: str, stdio_requests: list[bytes], tmp_path: Path
) -> None:
    """A match of two SDK random bots as subprocesses, beside a lockstep echo of its request
    lines through ``cat`` (the target: the match at least a third of the echo's requests/s).
    The bots are started once, before the rounds, as ``cat`` is: each round is the match played
    by the same two processes (:meth:`Match.lineup`), as a tournament's worker plays its tasks."""
    benchmark.group = "stdio: 20 hands of SDK random bots, and cat echoing their requests"
    benchmark.extra_info["requests"] = len(stdio_requests)
    if how == "match":
        spec = BotSpec("random", builtin="random")
        match = Match((spec, spec), HOYLE, games=20, single_hands=True, seed=2, in_process=False)
        lineup = match.lineup(tmp_path)
        lineup.start_all()
        try:
            assert benchmark(lambda: len(match.play(lineup=lineup).games)) == 20
            assert lineup.starts == 2
        finally:
            lineup.close()
        return
    echo = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert echo.stdin is not None and echo.stdout is not None
    write, flush, readline = echo.stdin.write, echo.stdin.flush, echo.stdout.readline

    def lockstep() -> int:
        for line in stdio_requests:
            write(line)
            flush()
            readline()
        return len(stdio_requests)

    try:
        assert benchmark(lockstep) == len(stdio_requests)
    finally:
        echo.stdin.close()
        echo.wait()
