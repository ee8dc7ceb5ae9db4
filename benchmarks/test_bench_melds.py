"""Speed of the meld solver on 2,000 fixed seeded deals (``tox -e bench``).

Each benchmark times one pass over all the deals and records hands/s in ``extra_info``. Its result
is checked against a golden fingerprint, so a faster but broken solver fails here too. The golden
values were computed once, offline, and agree with OpenSpiel's exact answers on the same hands
(``benchmarks/peers.py`` checks that on 20,000). In the default test run (benchmarks
disabled) each function runs once, as a plain test.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pytest_benchmark.fixture import BenchmarkFixture
from workload import Deal, deals, fingerprint

from engine.melds import best_discards, lay_off, min_deadwood

HANDS = 2000

GOLDEN = {
    "min_deadwood_10": "5c0544b807f6c8d6",
    "min_deadwood_11": "8ff8ae61ebfbddb9",
    "best_discards": "fc8c7072db4aa35c",
    "lay_off": "91da3449bb5f8971",
}


@pytest.fixture(scope="module")
def workload() -> list[Deal]:
    return deals(HANDS)


def _record(benchmark: BenchmarkFixture, hands: int) -> None:
    if benchmark.stats is not None:  # None when benchmarks are disabled
        benchmark.extra_info["hands"] = hands
        benchmark.extra_info["hands_per_s"] = round(hands / benchmark.stats.stats.min)


def _min_deadwoods(hands: list[int]) -> list[int]:
    return list(map(min_deadwood, hands))


def _best_discards(hands: list[int]) -> list[tuple[int, int]]:
    return list(map(best_discards, hands))


def _lay_offs(defenders: list[int], melds: list[Sequence[int]]) -> list[tuple[int, int]]:
    return [(r.deadwood, len(r.lay_offs)) for r in map(lay_off, defenders, melds)]


def test_min_deadwood_10_cards(benchmark: BenchmarkFixture, workload: list[Deal]) -> None:
    hands = [deal.hand10 for deal in workload]
    results = benchmark(_min_deadwoods, hands)
    _record(benchmark, len(hands))
    assert fingerprint(results) == GOLDEN["min_deadwood_10"]


def test_min_deadwood_11_cards(benchmark: BenchmarkFixture, workload: list[Deal]) -> None:
    hands = [deal.hand11 for deal in workload]
    results = benchmark(_min_deadwoods, hands)
    _record(benchmark, len(hands))
    assert fingerprint(results) == GOLDEN["min_deadwood_11"]


def test_best_discards(benchmark: BenchmarkFixture, workload: list[Deal]) -> None:
    hands = [deal.hand11 for deal in workload]
    results = benchmark(_best_discards, hands)
    _record(benchmark, len(hands))
    assert fingerprint(results) == GOLDEN["best_discards"]


def test_lay_off(benchmark: BenchmarkFixture, workload: list[Deal]) -> None:
    defenders = [deal.hand10 for deal in workload]
    melds = [deal.knocker_melds for deal in workload]
    results = benchmark(_lay_offs, defenders, melds)
    _record(benchmark, len(defenders))
    assert fingerprint(results) == GOLDEN["lay_off"]
