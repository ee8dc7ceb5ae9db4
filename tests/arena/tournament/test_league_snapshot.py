"""A league's snapshots (:func:`arena.tournament.league.load`): a league opened from its last
snapshot is the league its whole history replays to, plays on to the same history, and a
snapshot that does not fit (damaged, of other settings, pointing nowhere) is passed over for the
full replay. The games are drawn, not played (the runner's ``play`` is replaced): what is tested
is the league's bookkeeping, which is the same whatever played them."""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.seats.botspec import resolve
from arena.stats.league import League
from arena.stats.ratings import expected_score
from arena.tournament import league as leagues
from arena.tournament.config import Task, bot_digest
from arena.tournament.runner import Committer, Venue
from arena.tournament.store import GameRow, Store

STRENGTH = {"random": -300.0, "greedy": 0.0, "strong": 150.0}


def drawn(
    jobs: Sequence[tuple[dict[str, Any], Task]], commit: Committer, *_: Any, **__: Any
) -> None:
    """Stands in for :func:`arena.tournament.runner.play`: each game's winner drawn from the
    Elo odds of the two programs, seeded by the game, so that every run draws the same."""
    for config, task in jobs:
        names = [bot["name"] for bot in config["bots"]]
        builtins = [bot["builtin"] for bot in config["bots"]]
        rows = []
        for game in task.games:
            first, second = (task.table[s] for s in game.seats)
            odds = expected_score(STRENGTH[builtins[first]] - STRENGTH[builtins[second]])
            won = random.Random(f"{game.seed}:{game.number}").random() < odds
            winner = names[first] if won else names[second]
            rows.append(
                GameRow(
                    game.number,
                    names[first],
                    names[second],
                    game.seed,
                    winner,
                    "score",
                    None,
                    "",
                    "",
                    100 if won else 0,
                    0 if won else 100,
                    3,
                    0.0,
                    "",
                )
            )
        commit(rows)


def enter(store: Store, name: str, program: str, *, update: bool = False) -> None:
    """What ``league add`` and ``update`` log, without probing the program."""
    state = leagues.load(store)
    old = state.current(name)
    count = 1 if old is None else int(old.rpartition("@")[2]) + 1
    spec = resolve(program, name=leagues.version_name(name, count))
    store.set_bot(spec.name, spec.command_line, "1", bot_digest(spec))
    data = {"old": old, "bot": name} if update else {"bot": name}
    store.add_log("replace" if update else "join", {**data, "spec": leagues.spec_json(spec)})


def play_on(store: Store, pairings: int) -> None:
    leagues.run(store, 1, Venue("none"), pairings=pairings)


@pytest.fixture
def every_three(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot every three batches of two pairings."""
    monkeypatch.setattr(leagues, "SNAPSHOT_EVERY", 6)
    monkeypatch.setattr(leagues, "play", drawn)


def a_league(path: Path) -> Store:
    """Nine bots of three programs, 14 batches of two pairings with an update, a retirement
    and a newcomer between them: snapshots after batches 3, 6, 9 and 12."""
    store = leagues.create(path, leagues.Settings(seed=3, target=40.0, batch=2))
    for k, program in enumerate(["random", "greedy", "strong"] * 3):
        enter(store, f"b{k}", program)
    play_on(store, 10)
    enter(store, "b1", "strong", update=True)
    store.add_log("retire", {"version": "b0@1"})
    play_on(store, 8)
    enter(store, "late", "greedy")
    play_on(store, 10)
    return store


def same(one: leagues.State, other: leagues.State) -> None:
    assert one.league.snapshot() == other.league.snapshot()
    assert (one.unapplied, one.batches, one.last_seq) == (
        other.unapplied,
        other.batches,
        other.last_seq,
    )
    assert (one.specs, one.digests, one.waiting) == (other.specs, other.digests, other.waiting)


def counting(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """Count the batches the scheduler issues from here on."""
    calls = [0]
    issue = League.next_pairings

    def counted(self: League, k: int, *reserved: Any) -> Any:
        calls[0] += 1
        return issue(self, k, *reserved)

    monkeypatch.setattr(League, "next_pairings", counted)
    return lambda: calls[0]


def test_a_league_opened_from_its_snapshot_is_the_league_its_history_replays_to(
    tmp_path: Path, every_three: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = a_league(tmp_path / "club.sqlite")
    kept = store.snapshot()
    assert kept is not None
    schedules = [seq for seq, kind, _ in store.log() if kind == "schedule"]
    assert len(schedules) == 14 and kept[0] == schedules[11], "the snapshot after batch 12"
    batches = counting(monkeypatch)
    fast = leagues.load(store)
    assert batches() == 2, "only the batches after the snapshot are replayed"
    slow = leagues.load(store, snapshot=False)
    assert batches() == 2 + 14
    same(fast, slow)
    table = leagues.standings(fast, all_versions=True)
    assert table == leagues.standings(slow, all_versions=True)
    assert {row.version for row in table} >= {"b0@1", "b1@1", "b1@2", "late@1"}
    store.close()


def test_a_league_plays_on_from_its_snapshot_to_the_same_history(
    tmp_path: Path, every_three: None
) -> None:
    store = a_league(tmp_path / "club.sqlite")
    store.close()
    shutil.copy(tmp_path / "club.sqlite", tmp_path / "bare.sqlite")
    with sqlite3.connect(tmp_path / "bare.sqlite") as db:
        db.execute("DELETE FROM snapshot")
    histories = []
    for name in ("club.sqlite", "bare.sqlite"):
        store = Store.open(tmp_path / name, lock=True)
        play_on(store, 12)
        histories.append([(kind, data) for _, kind, data in store.log()])
        games = [(g.id, g.winner) for g in store.games(records=False)]
        store.close()
        histories[-1].append(("games", games))
    assert histories[0] == histories[1]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE snapshot SET data = x'0001020304'",
        "UPDATE snapshot SET seq = (SELECT MIN(seq) FROM log)",  # a join, not a batch
        "UPDATE snapshot SET seq = (SELECT MAX(seq) FROM log WHERE kind = 'join')",  # mid-way
        "UPDATE snapshot SET seq = (SELECT MAX(seq) FROM log) + 5",  # beyond the history
        "UPDATE snapshot SET seq = (SELECT MAX(seq) FROM log WHERE kind = 'schedule')",  # later
        "DROP TABLE snapshot",
    ],
)
def test_a_snapshot_that_does_not_fit_is_passed_over(
    tmp_path: Path, every_three: None, damage: str
) -> None:
    store = a_league(tmp_path / "club.sqlite")
    store.close()
    with sqlite3.connect(tmp_path / "club.sqlite") as db:
        db.execute(damage)
    store = Store.open(tmp_path / "club.sqlite")
    same(leagues.load(store), leagues.load(store, snapshot=False))
    store.close()


def test_a_snapshot_of_other_settings_is_passed_over(tmp_path: Path, every_three: None) -> None:
    store = a_league(tmp_path / "club.sqlite")
    seq, data = store.snapshot() or (0, {})
    data["league"]["seed"] = 4
    store.set_snapshot(seq, data)
    same(leagues.load(store), leagues.load(store, snapshot=False))
    store.close()


def test_a_league_created_before_the_model_changed_still_replays(
    tmp_path: Path, every_three: None
) -> None:
    """A league stored without a model (created before issue 44's prior and outcome-blind
    pairings) keeps the old model, so its history replays; a league of today's model would
    issue other pairings for the same history."""
    path = tmp_path / "old.sqlite"
    store = leagues.create(path, leagues.Settings(seed=3, target=40.0, batch=2, model=1))
    for k, program in enumerate(["random", "greedy", "strong"] * 2):
        enter(store, f"b{k}", program)
    play_on(store, 12)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM snapshot")
        db.execute("UPDATE meta SET value = json_remove(value, '$.model') WHERE key = 'config'")
    store = Store.open(path)
    assert "model" not in store.config()
    old = leagues.load(store)
    assert old.settings.model == 1 and old.batches == 6
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = json_set(value, '$.model', 2) WHERE key = 'config'")
    with pytest.raises(leagues.LeagueDatabaseError, match="does not replay"):
        leagues.load(Store.open(path))
    store.close()
