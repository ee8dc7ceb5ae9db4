"""Tournaments (:mod:`arena.tournament.runner`): the schedule, the configuration, and playing it
with
the built-in bots, concurrently or not, resumed or not."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support import LONG

from arena.play.match import MatchError
from arena.play.referee import Clock
from arena.records.judge import judge
from arena.seats.botspec import BotSpec
from arena.tournament.config import (
    TABLE_TASKS,
    TASK_GAMES,
    Config,
    Task,
    TournamentError,
    missing_tasks,
    schedule,
)
from arena.tournament.runner import probe, run, run_task
from arena.tournament.standings import standings
from arena.tournament.store import GameRow, Store
from engine.rules import Rules

HERE = Path(__file__).resolve().parents[1]
ONCE = HERE / "tournament_bots" / "once.py"
GHOST = "/nonexistent/gin-arena-test/ghost-bot"

GREEDY = BotSpec("greedy", builtin="greedy")
RANDOM = BotSpec("random", builtin="random")


def builtins(*kinds: str) -> tuple[BotSpec, ...]:
    """Built-in bots named a, b, c, ... in order."""
    return tuple(BotSpec(chr(ord("a") + i), builtin=kind) for i, kind in enumerate(kinds))


def all_games(tasks: list[Task]) -> list[tuple[int, int, int, int, tuple[int, ...]]]:
    """(id, bot a, bot b, seed, seats) of every scheduled game of pairs, in schedule order."""
    return [(g.number, t.table[0], t.table[1], g.seed, g.seats) for t in tasks for g in t.games]


# -- the schedule -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_round_robin_plays_every_pair_once(n: int) -> None:
    config = Config(bots=builtins(*["greedy"] * n), games_per_pair=4)
    expected_pairs = {(i, j) for i in range(n) for j in range(i + 1, n)}
    assert len(expected_pairs) == n * (n - 1) // 2
    assert set(config.pairs()) == expected_pairs
    assert len(config.pairs()) == len(expected_pairs)
    games = all_games(schedule(config))
    assert len(games) == 4 * n * (n - 1) // 2
    for pair in expected_pairs:
        assert sum(1 for g in games if (g[1], g[2]) == pair) == 4


@pytest.mark.parametrize("n", [2, 3, 5])
def test_gauntlet_plays_the_first_bot_against_each_other(n: int) -> None:
    config = Config(bots=builtins(*["greedy"] * n), kind="gauntlet", games_per_pair=6)
    assert config.pairs() == [(0, k) for k in range(1, n)]
    games = all_games(schedule(config))
    assert len(games) == 6 * (n - 1)
    assert all(g[1] == 0 for g in games)
    assert {g[2] for g in games} == set(range(1, n))


def test_game_ids_are_one_to_n_in_schedule_order() -> None:
    config = Config(bots=builtins("greedy", "random", "greedy", "random"), games_per_pair=6)
    games = all_games(schedule(config))  # the tasks take the tables in turn; ids run by table
    assert sorted(g[0] for g in games) == list(range(1, len(games) + 1)) == list(range(1, 37))


def test_mirrored_deals_share_a_seed_with_the_seats_swapped() -> None:
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=8)
    tasks = schedule(config)
    games = sorted((g for task in tasks for g in task.games), key=lambda g: g.number)
    assert [g.number for g in games] == list(range(1, 25))
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.seed == second.seed
        assert (first.seats, second.seats) == ((0, 1), (1, 0))
        assert second.number == first.number + 1
    seeds = [g.seed for g in games[::2]]
    assert len(set(seeds)) == len(seeds)  # every deal its own
    assert all(0 <= s < 2**64 for s in seeds)


def test_a_task_holds_whole_deals_of_one_table_up_to_task_games() -> None:
    bots = builtins("greedy", "random", "strong")
    # 500 deals a pair: as many as TASK_GAMES allows in a task.
    tasks = schedule(Config(bots=bots, games_per_pair=1000))
    assert {len(t.games) for t in tasks} == {TASK_GAMES} and len(tasks) == 3 * 1000 // TASK_GAMES
    for task in tasks[:6]:
        # A mirrored deal's two games stay in one task, played leg after leg: the first game
        # of every deal, then the second (each leg by bot processes of its own).
        half = len(task.games) // 2
        assert [g.leg for g in task.games] == [0] * half + [1] * half
        assert [g.seed for g in task.games[:half]] == [g.seed for g in task.games[half:]]
        assert [g.number + 1 for g in task.games[:half]] == [g.number for g in task.games[half:]]
    # Bots restarted only after a failure: the tasks come table by table, so that a worker's
    # next task is mostly of the table its bots are playing.
    assert [t.table for t in tasks] == [(0, 1)] * 50 + [(0, 2)] * 50 + [(1, 2)] * 50
    assert [t.games[0].number for t in tasks[:: len(tasks) // 3]] == [1, 1001, 2001]
    # Restarted at each task, or before each game: the tables in turn, so that their standings
    # grow together; the same tasks and ids.
    for restart in ("task", "game"):
        turned = schedule(Config(bots=bots, games_per_pair=1000, restart=restart))
        assert [t.table for t in turned[:6]] == [(0, 1), (0, 2), (1, 2)] * 2, "the tables in turn"
        assert [t.games[0].number for t in turned[:3]] == [1, 1001, 2001], "ids run by table"
        assert sorted(turned, key=lambda t: t.games[0].number) == tasks
    # 30 deals a pair: split into TABLE_TASKS tasks, so that the workers finish together.
    tasks = schedule(Config(bots=bots, games_per_pair=60))
    assert [len(t.games) for t in tasks] == [60 // TABLE_TASKS] * (3 * TABLE_TASKS)


def test_without_mirror_every_game_is_its_own_deal_and_seats_alternate() -> None:
    config = Config(bots=builtins("greedy", "random"), games_per_pair=5, mirror=False)
    tasks = schedule(config)
    games = [g for t in tasks for g in t.games]
    assert [g.seats for g in games] == [(0, 1), (1, 0), (0, 1), (1, 0), (0, 1)]
    assert len({g.seed for g in games}) == 5


def test_the_schedule_is_a_pure_function_of_the_configuration() -> None:
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=4, seed=42)
    assert schedule(config) == schedule(config)
    rebuilt = Config.from_json(json.loads(json.dumps(config.to_json())))
    assert schedule(rebuilt) == schedule(config)
    # The deals do not depend on who plays them.
    same_seed = Config(bots=builtins("random", "greedy", "random"), games_per_pair=4, seed=42)
    assert all_games(schedule(same_seed)) == all_games(schedule(config))
    other = Config(bots=config.bots, games_per_pair=4, seed=43)
    seeds = {g[3] for g in all_games(schedule(config))}
    other_seeds = {g[3] for g in all_games(schedule(other))}
    assert seeds.isdisjoint(other_seeds)
    assert [g[:3] for g in all_games(schedule(other))] == [
        g[:3] for g in all_games(schedule(config))
    ]


def test_configuration_is_checked() -> None:
    bots = builtins("greedy", "random")
    with pytest.raises(TournamentError, match=r"--games-per-table 3 is odd: mirrored deals"):
        Config(bots=bots, games_per_pair=3)
    assert len(all_games(schedule(Config(bots=bots, games_per_pair=3, mirror=False)))) == 3
    with pytest.raises(TournamentError, match=r"duplicate bot name 'a'"):
        Config(bots=(BotSpec("a", builtin="greedy"), BotSpec("a", builtin="random")))
    with pytest.raises(TournamentError, match="at least two bots"):
        Config(bots=(GREEDY,))
    with pytest.raises(TournamentError, match="at least two bots"):
        Config(bots=())
    with pytest.raises(TournamentError, match="unknown tournament kind 'swiss'"):
        Config(bots=bots, kind="swiss")
    with pytest.raises(TournamentError, match="unknown --restart 'never': choose failure, task"):
        Config(bots=bots, restart="never")
    with pytest.raises(TournamentError, match="at least 1"):
        Config(bots=bots, games_per_pair=0)
    for seed in (-1, 2**64):
        with pytest.raises(TournamentError, match="bad seed"):
            Config(bots=bots, seed=seed)
    assert issubclass(TournamentError, ValueError)


def test_configuration_json_round_trip(tmp_path: Path) -> None:
    config = Config(
        bots=(
            GREEDY,
            BotSpec(
                "mine",
                (sys.executable, "-m", "bots.random", "--seed", "3"),
                None,
                tmp_path,
                {"MYBOT_DEPTH": "4"},
            ),
            BotSpec("r", builtin="random"),
        ),
        kind="gauntlet",
        games_per_pair=7,
        mirror=False,
        seed=2**64 - 1,
        rules=Rules.preset("oklahoma").with_options({"knock_limit": "7", "big_gin": "true"}),
        clock=Clock(move=0.25, bank=3.0, grace=0.05, startup=4.0),
        in_process=False,
        memory_mb=512,
        cpu_seconds=30,
        restart="game",
    )
    text = json.dumps(config.to_json())  # as the database stores it
    assert Config.from_json(json.loads(text)) == config
    assert Config.from_json(json.loads(text)).to_json() == config.to_json()
    assert json.loads(text)["seed"] == str(2**64 - 1)  # safe from JSON readers' doubles
    default = Config(bots=builtins("greedy", "random"))
    assert Config.from_json(json.loads(json.dumps(default.to_json()))) == default
    assert default.restart == "failure"
    # A database from before --restart: its bots started afresh at each task, and still do.
    old = default.to_json()
    del old["restart"]
    assert Config.from_json(old).restart == "task"


def test_missing_tasks_are_the_whole_tasks_with_a_game_not_done() -> None:
    """With bots restarted at each task: a stateful bot replays what it saw."""
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=48, restart="task")
    assert missing_tasks(config, set()) == schedule(config)
    assert [len(t.games) for t in schedule(config)] == [8] * 18
    total = len(all_games(schedule(config)))
    assert missing_tasks(config, set(range(1, total + 1))) == []
    done = set(range(1, 9)) | {10, 30, 99}  # pair 1's first task whole, parts of three others
    missing = all_games(missing_tasks(config, done))
    assert sorted(g[0] for g in missing) == list(range(9, total + 1))  # whole tasks
    by_id = {g[0]: g for g in all_games(schedule(config))}
    assert all(by_id[g[0]] == g for g in missing)  # same pair, seed and seats


@pytest.mark.parametrize("restart", ["failure", "game"])
def test_missing_tasks_keep_only_the_missing_games(restart: str) -> None:
    """With bots kept from task to task, or fresh every game: only the missing games."""
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=48, restart=restart)
    assert missing_tasks(config, set()) == schedule(config)
    total = len(all_games(schedule(config)))
    done = set(range(1, 9)) | {10, 30, 99}
    missing = missing_tasks(config, done)
    assert sorted(g[0] for g in all_games(missing)) == sorted(set(range(1, total + 1)) - done)
    by_id = {g[0]: g for g in all_games(schedule(config))}
    assert all(by_id[g[0]] == g for g in all_games(missing))
    assert all(t.games for t in missing)


# -- playing ----------------------------------------------------------------------------------


def key(row: GameRow) -> tuple[object, ...]:
    """Everything about a game but its timing and record."""
    return (
        row.id,
        row.seat0,
        row.seat1,
        row.seed,
        row.winner,
        row.reason,
        row.failed,
        row.score0,
        row.score1,
        row.hands,
    )


def play(path: Path, config: Config, concurrency: int) -> list[GameRow]:
    store = Store.create(path, config.to_json())
    try:
        seen: list[int] = []
        played = run(config, store, concurrency, lambda row: seen.append(row.id))
        rows = list(store.games())
    finally:
        store.close()
    assert played == len(rows) == len(seen)
    assert sorted(seen) == [r.id for r in rows]
    return rows


def check_against_schedule(config: Config, rows: list[GameRow]) -> None:
    names = config.names()
    expected = {}
    for task in schedule(config):
        for g in task.games:
            pair = (names[task.table[0]], names[task.table[1]])
            expected[g.number] = (pair[g.seats[0]], pair[g.seats[1]], g.seed)
    assert {r.id: (r.seat0, r.seat1, r.seed) for r in rows} == expected


def check_records(rows: list[GameRow], scratch: Path) -> None:
    """Each row carries its own game's record, whole, and the judge agrees with it."""
    for r in rows:
        lines = [json.loads(line) for line in r.record.splitlines()]
        header, end = lines[0], lines[-1]
        assert (header["type"], header["game"], header["seed"]) == ("game", r.id, r.seed)
        assert [b["name"] for b in header["bots"]] == [r.seat0, r.seat1]
        assert end["type"] == "game_end"
        assert end["scores"] == [r.score0, r.score1]
        seats = [r.seat0, r.seat1]
        assert (None if end["winner"] is None else seats[end["winner"]]) == r.winner
        assert sum(1 for line in lines if line["type"] == "game") == 1
    path = scratch / "all.jsonl"
    path.write_text("".join(r.record for r in rows))
    verdict = judge(path)
    assert verdict.ok, verdict.disagreement
    assert verdict.games == len(rows)


def test_the_same_games_whatever_the_concurrency(tmp_path: Path) -> None:
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=4, seed=5)
    one = play(tmp_path / "one.sqlite", config, 1)
    two = play(tmp_path / "two.sqlite", config, 2)
    assert [r.id for r in one] == list(range(1, 13))
    assert [key(r) for r in one] == [key(r) for r in two]
    check_against_schedule(config, one)
    assert all(r.reason == "normal" and r.failed is None for r in one)
    assert {r.winner for r in one} <= {"a", "b", "c", None}
    check_records(two, tmp_path)
    # Greedy beats random: the games were really played.
    table = standings(config.names(), two)
    assert table.fit.crosstable["a"]["b"][0] > table.fit.crosstable["a"]["b"][1]


def test_resume_plays_exactly_the_missing_games(tmp_path: Path) -> None:
    config = Config(bots=builtins("greedy", "random", "greedy"), games_per_pair=4, seed=9)
    path = tmp_path / "t.sqlite"
    full = play(path, config, 1)
    lost = {2, 5, 6, 11}  # half a mirrored pair, a whole one, and one more
    with sqlite3.connect(path) as db:
        db.executemany("DELETE FROM games WHERE id = ?", [(k,) for k in lost])
    db.close()
    store = Store.open(path)
    try:
        assert store.done() == set(range(1, 13)) - lost
        seen: list[GameRow] = []
        assert run(config, store, 2, seen.append) == len(lost)
        assert sorted(r.id for r in seen) == sorted(lost)
        assert [r.id for r in store.games()] == list(range(1, 13))
        assert run(config, store, 2) == 0  # nothing left: nothing played
        rows = list(store.games())
    finally:
        store.close()
    check_against_schedule(config, rows)
    # The random bot carries its generator from game to game: the lost half of a mirrored pair
    # is played again after its first half, so every game comes out as it first did.
    assert {r.id: key(r) for r in rows} == {r.id: key(r) for r in full}


def test_probe_reports_versions_and_the_first_bot_that_cannot_start(tmp_path: Path) -> None:
    config = Config(bots=builtins("greedy", "random"), games_per_pair=2)
    assert probe(config, tmp_path) == {"a": "1", "b": "1"}
    broken = Config(bots=(GREEDY, BotSpec("ghost", (GHOST,)), RANDOM), games_per_pair=2)
    with pytest.raises(MatchError, match=r"bot 'ghost' could not start: cannot run") as caught:
        probe(broken, tmp_path)
    assert caught.value.bot == 1


@pytest.mark.parametrize("ghost_first", [True, False])
def test_a_bot_that_cannot_start_forfeits_its_task(tmp_path: Path, ghost_first: bool) -> None:
    ghost = BotSpec("ghost", (GHOST,))
    bots = (ghost, GREEDY) if ghost_first else (GREEDY, ghost)
    config = Config(bots=bots, games_per_pair=24)
    task = schedule(config)[1]
    rows = run_task(config.to_json(), task, str(tmp_path))
    assert [r.id for r in rows] == [5, 7, 6, 8]  # in the task's order: leg after leg
    for r, planned in zip(rows, task.games, strict=True):
        names = (bots[planned.seats[0]].name, bots[planned.seats[1]].name)
        assert (r.seat0, r.seat1, r.seed) == (*names, planned.seed)
        assert (r.winner, r.failed, r.reason) == ("greedy", "ghost", "startup")
        assert (r.score0, r.score1, r.hands, r.record) == (0, 0, 0, "")
        assert "ghost" in r.message and "could not start" in r.message


def test_a_bot_that_stops_starting_mid_task_forfeits_the_rest(tmp_path: Path) -> None:
    # Game 1: the bot crashes at its first move; the restart for game 2 fails.
    once = BotSpec("once", (sys.executable, str(ONCE), str(tmp_path / "started")))
    config = Config(bots=(once, GREEDY), games_per_pair=2, clock=Clock(startup=30.0))
    (task,) = schedule(config)
    rows = run_task(config.to_json(), task, str(tmp_path / "work"))
    assert [r.id for r in rows] == [1, 2]
    first, second = rows
    assert (first.reason, first.failed, first.winner) == ("crash", "once", "greedy")
    assert first.record  # a game that was played keeps its record
    assert (second.reason, second.failed, second.winner) == ("startup", "once", "greedy")
    assert (second.seat0, second.seat1) == ("greedy", "once")
    assert "restarting after game 1" in second.message


def test_startup_forfeits_are_stored_and_counted(tmp_path: Path) -> None:
    config = Config(bots=(GREEDY, BotSpec("ghost", (GHOST,)), RANDOM), games_per_pair=2)
    rows = play(tmp_path / "t.sqlite", config, 1)
    assert len(rows) == 6
    ghost_games = [r for r in rows if "ghost" in (r.seat0, r.seat1)]
    assert len(ghost_games) == 4
    assert all(r.reason == "startup" and r.failed == "ghost" for r in ghost_games)
    table = standings(config.names(), rows)
    assert table.failures["ghost"]["startup"] == 4
    assert table.failures["greedy"]["startup"] == 0
    ratings = {r.name: r for r in table.fit.ratings}
    assert (ratings["ghost"].wins, ratings["ghost"].losses) == (0, 4)
    assert table.fit.ratings[-1].name == "ghost"


# -- bot processes: --restart -----------------------------------------------------------------

PIDS = HERE / "tournament_bots" / "pids.py"


def pid_bot(name: str, log: Path, *extra: str) -> BotSpec:
    return BotSpec(name, (sys.executable, str(PIDS), str(log), *extra))


def processes(log: Path) -> dict[str, list[str]]:
    """What each process of a :data:`PIDS` bot logged, by ``PID.TOKEN``."""
    out: dict[str, list[str]] = {}
    for line in log.read_text().splitlines():
        process, text = line.split(" ", 1)
        out.setdefault(process, []).append(text)
    return out


def games_of(log: Path) -> list[list[int]]:
    """The games each process played, in the order the processes started."""
    return [
        [int(t.split()[1]) for t in texts if t.startswith("game ")]
        for texts in processes(log).values()
    ]


def assert_ended_by_quit(*logs: Path) -> None:
    """Every process was told to quit, and none is left running."""
    for log in logs:
        for process, texts in processes(log).items():
            assert texts[-1] == "end quit", (process, texts)
            with pytest.raises(ProcessLookupError):
                os.kill(int(process.split(".")[0]), 0)


@pytest.mark.parametrize(
    ("restart", "expected"),
    [
        # One process a leg, kept for the same leg of the next task, which is played first: the
        # first games of deals 1 and 2 are 1 and 3, their mirrors 2 and 4.
        ("failure", [[1], [2, 4], [3]]),
        ("task", [[1], [2], [3], [4]]),  # one a leg of a task (here one mirrored deal a task)
        pytest.param("game", [[1], [2], [3], [4]], marks=pytest.mark.slow),  # one a game
    ],
)
def test_restart_decides_which_games_a_bot_process_plays(
    tmp_path: Path, restart: str, expected: list[list[int]]
) -> None:
    logs = tmp_path / "x.log", tmp_path / "y.log"
    bots = pid_bot("x", logs[0]), pid_bot("y", logs[1])
    config = Config(bots=bots, games_per_pair=4, seed=3, restart=restart)
    assert [len(t.games) for t in schedule(config)] == [2, 2]
    rows = play(tmp_path / "t.sqlite", config, 1)
    assert all(r.reason == "normal" for r in rows)
    assert games_of(logs[0]) == games_of(logs[1]) == expected
    assert_ended_by_quit(*logs)


# About 30 s on a loaded machine: in the slow lane (the quick lane holds the restart rules in
# test_restart_decides_which_games_a_bot_process_plays).
@pytest.mark.slow
def test_a_worker_keeps_its_bots_from_task_to_task_and_plays_the_same_games(
    tmp_path: Path,
) -> None:
    """Two workers, two tables of four tasks (a mirrored deal each): a worker's bot process
    plays one leg of its table's deals (the first games, or their mirrors), from task to task,
    and the games are those of one worker with bots restarted at every task (the built-in bots'
    generators are seeded by the game's number)."""
    logs = tmp_path / "x.log", tmp_path / "y.log"
    bots = (pid_bot("x", logs[0]), pid_bot("y", logs[1]), BotSpec("g", builtin="random"))
    config = Config(bots=bots, kind="gauntlet", games_per_pair=8, seed=4)
    tasks = schedule(config)
    assert [t.table for t in tasks] == [(0, 1)] * 4 + [(0, 2)] * 4
    two = play(tmp_path / "two.sqlite", config, 2)
    assert len(two) == 16 and all(r.failed is None for r in two)
    assert {r.winner for r in two if "g" in (r.seat0, r.seat1)} == {"x"}  # greedy v random
    x_games, y_games = games_of(logs[0]), games_of(logs[1])
    assert sorted(g for games in x_games for g in games) == list(range(1, 17))
    assert sum(len(games) for games in x_games) == 16
    assert all(games == sorted(games) for games in x_games + y_games)
    # A process plays one leg: the first games of deals (odd ids) or their mirrors (even).
    assert all(len({g % 2 for g in games}) == 1 for games in x_games + y_games)
    # A task starts one set of bots for its second leg, and its first leg's when its worker's
    # last task was of another table (at most twice a worker): x plays 8 tasks, y 4.
    assert len(x_games) <= 8 + 2 * 2 and len(y_games) <= 4 + 2
    assert_ended_by_quit(*logs)
    for log in logs:
        log.unlink()
    fresh = dataclasses.replace(config, restart="task")
    one = play(tmp_path / "one.sqlite", fresh, 1)
    assert len(processes(logs[0])) == 16  # two a task: one a leg
    assert [key(r) for r in one] == [key(r) for r in two]


def test_a_bot_that_fails_in_a_tasks_last_game_starts_afresh_for_the_next(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "x.log", tmp_path / "y.log"
    bots = pid_bot("x", logs[0], "--crash-at", "2"), pid_bot("y", logs[1])
    config = Config(bots=bots, games_per_pair=6, seed=3)
    assert [[g.number for g in t.games] for t in schedule(config)] == [[1, 2], [3, 4], [5, 6]]
    rows = play(tmp_path / "t.sqlite", config, 1)
    assert [r.failed for r in rows] == [None, "x", None, None, None, None]
    assert rows[1].reason == "crash"
    # One process a leg, the last leg's kept for the next task and played first there (its
    # mirror, game 4, before game 3); x's crashed process is replaced in the same leg.
    assert games_of(logs[0]) == [[1], [2], [4], [3, 5], [6]]
    assert games_of(logs[1]) == [[1], [2, 4], [3, 5], [6]]  # its opponent's crash costs it nothing
    assert processes(logs[0]).popitem()[1][-1] == "end quit"


HALF_A_RESULT = """
import concurrent.futures, multiprocessing, os, struct, sys
from arena.tournament.pool import stop as stop_workers

if __name__ == "__main__":
    pool = concurrent.futures.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context("spawn")
    )
    assert pool.submit(int, "7").result() == 7  # the workers are up
    # Half of a 1,000-byte message, as from a worker killed while it sent a task's result: the
    # pool's manager thread wakes up and blocks reading the rest.
    writer = pool._result_queue._writer
    os.write(writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    stop_workers(pool)
    pool.shutdown(wait=True)
    print("shut down", flush=True)
"""


def test_killing_the_workers_with_half_a_result_in_the_pipe_does_not_hang(tmp_path: Path) -> None:
    """Ctrl-C, or an SPRT's decision, kills the workers; one may be sending its result."""
    script = tmp_path / "half.py"
    script.write_text(HALF_A_RESULT)
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[1])}
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=LONG,
        env=env,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "shut down\n"), done.stderr
