"""pytest-benchmark groups for tournaments (``tox -e bench``), through
:func:`arena.tournament.runner.run`
as the ``tournament`` command calls it, each round a new database:

- the default tournament's bots (in-process), with one worker and with two;
- a bot slow to start (``tests/arena/tournament_bots/pids.py --start-delay``) against the built-in
  greedy bot over stdio, two workers, under each ``--restart``; ``extra_info`` holds how many
  times it was started in the last round.

``benchmarks/tournaments.py`` (``tox -e bench-tournaments``) times the same through the
command line, at the README's sizes. Marked slow: the slow lane runs each once (benchmarks
disabled) to check that it plays every game; ``tox -e bench`` times them.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from arena.seats.botspec import BotSpec, resolve
from arena.tournament.config import Config
from arena.tournament.runner import run
from arena.tournament.store import Store
from bots import DEFAULT_TOURNAMENT

pytestmark = pytest.mark.slow

PIDS = Path(__file__).resolve().parents[1] / "tests" / "arena" / "tournament_bots" / "pids.py"


def rounds_of(config: Config, concurrency: int, where: Path) -> Callable[[], int]:
    """A round: the whole tournament into a new database; returns the games played."""
    numbers = itertools.count()

    def play() -> int:
        store = Store.create(where / f"t{next(numbers)}.sqlite", config.to_json())
        try:
            return run(config, store, concurrency, workdir=where / "logs")
        finally:
            store.close()

    return play


@pytest.mark.parametrize("concurrency", [1, 2])
def test_tournament_of_the_default_bots(
    benchmark: BenchmarkFixture, concurrency: int, tmp_path: Path
) -> None:
    benchmark.group = "tournament: the default's three bots, in-process, 12 games a pair"
    bots = tuple(resolve(name) for name in DEFAULT_TOURNAMENT)
    config = Config(bots=bots, games_per_pair=12, seed=1)
    play = rounds_of(config, concurrency, tmp_path)
    assert benchmark.pedantic(play, rounds=3, iterations=1) == 36


@pytest.mark.parametrize("restart", ["failure", "task", "game"])
def test_tournament_with_a_bot_slow_to_start(
    benchmark: BenchmarkFixture, restart: str, tmp_path: Path
) -> None:
    benchmark.group = "tournament: a bot that takes 0.3 s to start v greedy, 12 games, 2 workers"
    log = tmp_path / "slow.log"
    slow = BotSpec("slow", (sys.executable, str(PIDS), str(log), "--start-delay", "0.3"))
    config = Config(
        bots=(slow, BotSpec("greedy", builtin="greedy")),
        games_per_pair=12,
        seed=1,
        in_process=False,
        restart=restart,
    )
    play = rounds_of(config, 2, tmp_path)

    def round_() -> Any:
        log.unlink(missing_ok=True)
        return play()

    assert benchmark.pedantic(round_, rounds=3, iterations=1) == 12
    starts = {line.split()[0] for line in log.read_text().splitlines()}
    benchmark.extra_info["starts"] = len(starts)
    # 6 tasks of 2 games; with bots kept, one process a worker (or one, if a worker took all).
    # 12 mirrored games are 6 deals, a task each, played seating after seating with a set of
    # processes a seating: kept, a worker's last seating plays first in its next task (one
    # start a task, one more for each worker's first); afresh each task, two starts a task.
    assert len(starts) in {"failure": (7, 8), "task": (12,), "game": (12,)}[restart]
