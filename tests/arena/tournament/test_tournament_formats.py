"""Tournaments in every format (``--mode``): the schedule of tables and seatings, the database's
format-2 columns and the migration of format-1 databases, standings from games of three and four
bots, resuming, and the refusals, mostly through ``gin-arena`` run as a user runs it."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import sqlite3
import subprocess
from collections import Counter
from math import comb
from pathlib import Path
from typing import Any

import pytest
from support import RUN, gin_arena

from arena.play.match import rotations
from arena.records.judge import judge
from arena.seats.botspec import BotSpec
from arena.tournament.config import (
    TASK_GAMES,
    Config,
    Task,
    TournamentError,
    resume_config,
    schedule,
    seatings,
)
from arena.tournament.runner import run_task
from arena.tournament.standings import standings
from arena.tournament.store import FORMAT, GameRow, Store, StoreError
from engine.formats import TWO_PLAYER, format_named
from engine.modes import Mode
from engine.rules import Rules

MODES = list(Mode)
SHORT = ("--set", "game_target=10")
"""Games of a hand or two: the formats' rules are what is tested here, not the bots."""

# The format-1 schema of the games table, as databases made before the formats have it.
OLD_GAMES = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    seat0 TEXT NOT NULL,
    seat1 TEXT NOT NULL,
    seed TEXT NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    failed TEXT,
    message TEXT,
    rule TEXT,
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL,
    record TEXT NOT NULL
)
"""
OLD_COLUMNS = (
    "id, seat0, seat1, seed, winner, reason, failed, message, rule, score0, score1, hands, "
    "seconds, finished_at, record"
)
KEY_COLUMNS = (
    "id, seat0, seat1, seed, winner, reason, failed, score0, score1, hands, mode, seats, scores, "
    "side"
)
"""Everything about a stored game but its timing and record."""


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``gin-arena ARGS`` in ``cwd``, to its end, within the bound of a tournament."""
    return gin_arena(*args, cwd=cwd, timeout=RUN)


def listing(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def config_of(db: Path) -> str:
    """The configuration a tournament database stores, as JSON text."""
    with contextlib.closing(sqlite3.connect(db)) as connection:
        (value,) = connection.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
    return str(value)


def bots(n: int) -> tuple[BotSpec, ...]:
    return tuple(BotSpec(chr(ord("a") + i), builtin="greedy") for i in range(n))


def config(mode: Mode, n: int, **given: Any) -> Config:
    given.setdefault("games_per_pair", 2 * len(rotations(mode)))
    return Config(bots=bots(n), mode=mode, **given)


def seated(tasks: list[Task]) -> list[tuple[int, int, tuple[int, ...]]]:
    """(id, seed, bot indices by player) of every scheduled game, by id (the tasks take the
    tables in turn; the ids run table by table)."""
    return sorted(
        (g.number, g.seed, tuple(t.table[k] for k in g.seats)) for t in tasks for g in t.games
    )


def teams(players: tuple[int, ...]) -> tuple[frozenset[int], frozenset[int]]:
    return frozenset(players[0::2]), frozenset(players[1::2])


# -- the schedule -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_three_player_round_robin_seats_every_three_bots(n: int) -> None:
    tables = config(Mode.THREE_PLAYER, n).tables()
    assert tables == list(itertools.combinations(range(n), 3))
    meetings = Counter(pair for t in tables for pair in itertools.combinations(t, 2))
    assert set(meetings.values()) == {n - 2}  # every two bots meet equally often
    assert len(meetings) == comb(n, 2)


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_partnership_round_robin_splits_every_four_bots_three_ways(n: int) -> None:
    tables = config(Mode.PARTNERSHIP, n).tables()
    assert len(tables) == 3 * comb(n, 4)
    assert len(set(tables)) == len(tables)
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for table in tables:
        assert len(set(table)) == 4
        one, other = teams(table)
        partners.update([one, other])
        opponents.update(frozenset((x, y)) for x in one for y in other)
    every_pair = {frozenset(p) for p in itertools.combinations(range(n), 2)}
    assert set(partners) == set(opponents) == every_pair
    assert set(partners.values()) == {comb(n - 2, 2)}  # every bot partners every other ...
    assert set(opponents.values()) == {2 * comb(n - 2, 2)}  # ... and faces it, equally often
    # The three splits of each four bots, one after the other.
    for k in range(0, len(tables), 3):
        group = tables[k : k + 3]
        assert len({frozenset(t) for t in group}) == 1
        assert len({frozenset(teams(t)) for t in group}) == 3


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n", [4, 5])
def test_a_gauntlet_keeps_the_tables_that_seat_the_first_bot(mode: Mode, n: int) -> None:
    full = config(mode, n).tables()
    gauntlet = config(mode, n, kind="gauntlet").tables()
    assert gauntlet == [t for t in full if 0 in t]
    assert gauntlet and all(0 in t for t in gauntlet)
    met = {bot for t in gauntlet for bot in t}
    assert met == set(range(n))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("deals", [2, 4])
def test_every_bot_sits_in_every_seat_equally_often(mode: Mode, deals: int) -> None:
    turns = len(rotations(mode))
    c = config(mode, mode.players + 1, games_per_pair=deals * turns, seed=11)
    tasks = schedule(c)
    for table in c.tables():
        games = [g.seats for t in tasks if t.table == table for g in t.games]
        assert len(games) == deals * turns
        for place in range(mode.players):  # each of the table's bots ...
            seats = Counter(s.index(place) for s in games)
            assert seats == dict.fromkeys(range(mode.players), len(games) // mode.players)
        if mode is Mode.PARTNERSHIP:  # ... on each side of the table, its partner unchanged
            for s in games:
                assert {frozenset((s[0], s[2])), frozenset((s[1], s[3]))} == {
                    frozenset((0, 2)),
                    frozenset((1, 3)),
                }


@pytest.mark.parametrize("mode", MODES)
def test_a_mirrored_deal_is_played_in_every_rotation_with_one_seed(mode: Mode) -> None:
    c = config(mode, mode.players + 2, seed=5)
    tasks = schedule(c)
    turns = rotations(mode)
    # A task holds whole deals of one table (at most TASK_GAMES games unless one deal is more).
    assert all(len(t.games) % len(turns) == 0 for t in tasks)
    assert all(len(t.games) <= max(TASK_GAMES, len(turns)) for t in tasks)
    deals = [
        (t.table, t.games[k : k + len(turns)])
        for t in tasks
        for k in range(0, len(t.games), len(turns))
    ]
    for table, games_of_deal in deals:
        assert len({g.seed for g in games_of_deal}) == 1
        numbers = [g.number for g in games_of_deal]
        assert numbers == list(range(numbers[0], numbers[0] + len(turns)))
        # The seatings of a deal are the rotations of one turn of the table.
        first = games_of_deal[0].seats
        assert [g.seats for g in games_of_deal] == [tuple(first[r] for r in rot) for rot in turns]
        if mode is Mode.PARTNERSHIP:  # the teams change sides
            one, two = (teams(tuple(table[p] for p in g.seats)) for g in games_of_deal)
            assert one == (two[1], two[0])
    seeds = [games_of_deal[0].seed for _, games_of_deal in deals]
    assert len(set(seeds)) == len(seeds)  # every deal its own
    games = seated(tasks)
    assert [g[0] for g in games] == list(range(1, len(games) + 1))  # ids unique and dense
    assert len(games) == len(c.tables()) * c.games_per_pair


@pytest.mark.parametrize("mode", MODES)
def test_without_mirror_every_game_is_a_deal_and_the_seats_go_round(mode: Mode) -> None:
    cycle = seatings(mode)
    c = config(mode, mode.players, games_per_pair=2 * len(cycle) + 1, mirror=False)
    first = c.tables()[0]
    tasks = [t for t in schedule(c) if t.table == first]
    games = [g for t in tasks for g in t.games]
    assert len(games) == c.games_per_pair and all(len(t.games) <= TASK_GAMES for t in tasks)
    assert len({g.seed for g in games}) == len(games)
    assert [g.seats for g in games] == [cycle[k % len(cycle)] for k in range(len(games))]
    for place in range(mode.players):  # over each whole cycle, every bot in every seat
        assert Counter(s.index(place) for s in cycle) == dict.fromkeys(
            range(mode.players), len(cycle) // mode.players
        )


def test_the_two_player_schedule_is_unchanged() -> None:
    # Pinned from the schedule of the first tournaments: databases made then resume exactly.
    c = Config(bots=bots(3), games_per_pair=4, seed=42)
    assert c.tables() == c.pairs() == [(0, 1), (0, 2), (1, 2)]
    games = seated(schedule(c))
    assert [g[2] for g in games[:4]] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert [g[0] for g in games] == list(range(1, 13))
    assert games[0][1] == games[1][1] != games[2][1] == games[3][1]
    alternating = Config(bots=bots(2), games_per_pair=3, mirror=False, seed=42)
    assert [g[2] for g in seated(schedule(alternating))] == [(0, 1), (1, 0), (0, 1)]
    for mode in (Mode.TWO_PLAYER, Mode.HOLLYWOOD):  # the two seat formats: the same games
        same = Config(bots=bots(3), games_per_pair=4, seed=42, mode=mode)
        assert seated(schedule(same)) == games


@pytest.mark.parametrize("mode", MODES)
def test_the_schedule_is_a_pure_function_of_the_stored_configuration(mode: Mode) -> None:
    c = config(mode, mode.players + 1, seed=2**64 - 1, mirror=False, games_per_pair=5)
    text = json.dumps(c.to_json())
    assert json.loads(text)["mode"] == mode.value
    rebuilt = Config.from_json(json.loads(text))
    assert rebuilt == c
    assert schedule(rebuilt) == schedule(c)


def test_a_configuration_stored_before_the_formats_is_two_player() -> None:
    data = Config(bots=bots(2)).to_json()
    del data["mode"]
    assert Config.from_json(data).mode is TWO_PLAYER
    data["mode"] = "bridge"
    with pytest.raises(StoreError, match="unknown mode 'bridge'"):
        Config.from_stored(data, "'t.sqlite'")


def test_a_configuration_that_does_not_fit_its_format_is_refused() -> None:
    for mode, n in ((Mode.HOLLYWOOD, 1), (Mode.THREE_PLAYER, 2), (Mode.PARTNERSHIP, 3)):
        with pytest.raises(
            TournamentError,
            match=rf"a {mode} tournament needs at least {mode.players} bots .*, got {n}$",
        ):
            Config(bots=bots(n), mode=mode)
    with pytest.raises(TournamentError, match="a tournament needs at least two bots"):
        Config(bots=bots(1))
    for games in (2, 4, 5):
        with pytest.raises(
            TournamentError,
            match=rf"--games-per-table {games} is not a multiple of 3: a mirrored three-player",
        ):
            Config(bots=bots(3), mode=Mode.THREE_PLAYER, games_per_pair=games)
    assert Config(bots=bots(3), mode=Mode.THREE_PLAYER, games_per_pair=4, mirror=False)
    with pytest.raises(TournamentError, match="--games-per-table 3 is odd"):
        Config(bots=bots(4), mode=Mode.PARTNERSHIP, games_per_pair=3)
    with pytest.raises(TournamentError, match=r"next_dealer=.* does not apply to three-player"):
        Config(
            bots=bots(3),
            mode=Mode.THREE_PLAYER,
            games_per_pair=3,
            rules=Rules().with_options({"next_dealer": "loser"}),
        )
    with pytest.raises(TournamentError, match="unknown mode 'solo'"):
        Config(bots=bots(3), mode="solo")  # type: ignore[arg-type]


def test_resume_refuses_another_mode_before_checking_it() -> None:
    stored = config(Mode.THREE_PLAYER, 3)
    assert resume_config(stored, "'t.sqlite'", mode=Mode.THREE_PLAYER) is stored
    # Three bots could not play a partnership at all: still, the change is what is reported.
    for mode in (Mode.TWO_PLAYER, Mode.PARTNERSHIP):
        with pytest.raises(TournamentError, match=r"changed configuration \(mode\)"):
            resume_config(stored, "'t.sqlite'", mode=mode)


# -- the database -----------------------------------------------------------------------------


def multi_rows() -> list[GameRow]:
    three = GameRow(
        id=1,
        seat0="c",
        seat1="a",
        seed=2**64 - 2,
        winner="b",
        reason="normal",
        failed=None,
        message="",
        rule="",
        score0=3,
        score1=0,
        hands=4,
        seconds=0.5,
        record="r",
        mode="three-player",
        seats=("c", "a", "b"),
        scores=(3, 0, 112),
        side=2,
    )
    team = GameRow(
        id=2,
        seat0="a",
        seat1="b",
        seed=7,
        winner="b & d",
        reason="timeout",
        failed="c",
        message="no reply",
        rule="",
        score0=0,
        score1=0,
        hands=0,
        seconds=0.0,
        record="",
        mode="partnership",
        seats=("a", "b", "c", "d"),
        scores=(0, 0),
        side=1,
    )
    return [three, team]


def test_games_of_every_format_round_trip(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "t.sqlite", {"kind": "round-robin"})
    try:
        for row in multi_rows():
            store.add_game(row)
        assert list(store.games()) == multi_rows()
    finally:
        store.close()
    three, team = multi_rows()
    assert (three.winners, three.failed_player) == (("b",), None)
    assert (team.winners, team.failed_player) == (("b", "d"), 2)
    # A row made the two-player way is a two-player game, its winning side from its winner.
    old = GameRow(3, "x", "y", 1, "y", "normal", None, "", "", 40, 120, 3, 0.1, "")
    assert (old.mode, old.seats, old.scores, old.side, old.winners) == (
        "two-player",
        ("x", "y"),
        (40, 120),
        1,
        ("y",),
    )
    assert GameRow(4, "x", "y", 1, None, "referee", None, "", "", 0, 0, 0, 0.0, "").side is None


def test_damaged_format_columns_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    store = Store.create(path, {"kind": "round-robin"})
    store.add_game(multi_rows()[0])
    store.close()
    for damage in ("seats = 'not json'", "scores = '[1]'", "side = 7"):
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute(
                "UPDATE games SET seats = ?, scores = ?, side = 2", ('["c","a","b"]', "[3,0,112]")
            )
            db.execute(f"UPDATE games SET {damage}")
        store = Store.open(path, readonly=True)
        try:
            with pytest.raises(StoreError, match=r"is damaged \(game 1: "):
                list(store.games())
        finally:
            store.close()


def old_database(path: Path, games: list[tuple[Any, ...]], config: dict[str, Any]) -> None:
    """A database as gin-arena made it before the formats: database format 1."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute(
            "CREATE TABLE bots (name TEXT PRIMARY KEY, command TEXT NOT NULL, "
            "version TEXT NOT NULL, digest TEXT NOT NULL)"
        )
        db.execute(OLD_GAMES)
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("application", "gin-rummy-arena"),
                ("format", "1"),
                ("created", "2024-01-01T00:00:00+00:00"),
                ("config", json.dumps(config, sort_keys=True)),
            ],
        )
        db.executemany(f"INSERT INTO games ({OLD_COLUMNS}) VALUES ({', '.join('?' * 15)})", games)


OLD_GAMES_ROWS = [
    (1, "a", "b", str(2**64 - 1), "a", "normal", None, "", "", 112, 7, 3, 0.5, "-", "r1"),
    (2, "b", "a", "5", "a", "timeout", "b", "late", "", 0, 30, 1, 0.2, "-", "r2"),
    (3, "a", "b", "6", None, "referee", None, "bug", "", 0, 0, 0, 0.0, "-", ""),
]


def test_an_old_database_reads_read_only_and_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old_database(path, OLD_GAMES_ROWS, {"kind": "round-robin"})
    before = listing(tmp_path)
    store = Store.open(path, readonly=True)
    try:
        games = list(store.games())
    finally:
        store.close()
    assert listing(tmp_path) == before  # not migrated: read as it is
    assert [(g.mode, g.seats, g.scores, g.side) for g in games] == [
        ("two-player", ("a", "b"), (112, 7), 0),
        ("two-player", ("b", "a"), (0, 30), 1),
        ("two-player", ("a", "b"), (0, 0), None),
    ]
    assert games[1].failed_player == 0
    table = standings(["a", "b"], games)
    by_name = {r.name: r for r in table.fit.ratings}
    assert (by_name["a"].wins, by_name["a"].losses, by_name["a"].draws) == (2, 0, 1)
    assert table.failures["b"]["timeout"] == 1


def test_an_old_database_opened_for_writing_is_migrated_in_one_transaction(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite"
    old_database(path, OLD_GAMES_ROWS, {"kind": "round-robin"})
    read_only = Store.open(path, readonly=True)
    try:
        expected = list(read_only.games())
    finally:
        read_only.close()
    team = dataclasses.replace(multi_rows()[1], id=4)
    store = Store.open(path, lock=True)
    try:
        assert list(store.games()) == expected
        store.add_game(team)  # and it takes games of any format
    finally:
        store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == (
            str(FORMAT),
        )
        stored = db.execute("SELECT mode, seats, scores, side FROM games ORDER BY id").fetchall()
    assert stored == [
        ("two-player", '["a", "b"]', "[112, 7]", 0),
        ("two-player", '["b", "a"]', "[0, 30]", 1),
        ("two-player", '["a", "b"]', "[0, 0]", None),
        ("partnership", '["a", "b", "c", "d"]', "[0, 0]", 1),
    ]
    again = Store.open(path)  # migrated once: opening it again changes nothing
    try:
        assert list(again.games()) == [*expected, team]
    finally:
        again.close()


def test_a_migration_that_fails_leaves_the_old_database_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    old_database(path, OLD_GAMES_ROWS, {"kind": "round-robin"})
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(  # the migration's update of the rows fails after the columns are added
            "CREATE TRIGGER refuse BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
    with pytest.raises(StoreError, match="is damaged"):
        Store.open(path)
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() == ("1",)
        columns = [row[1] for row in db.execute("PRAGMA table_info(games)")]
    assert columns == OLD_COLUMNS.split(", ")


def downgrade(path: Path) -> None:
    """Turn a two-player tournament's database into the format-1 database an earlier version
    would have written for it."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("ALTER TABLE games RENAME TO new_games")
        db.execute(OLD_GAMES)
        db.execute(f"INSERT INTO games SELECT {OLD_COLUMNS} FROM new_games")
        db.execute("DROP TABLE new_games")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'format'")
        config = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
        del config["mode"]
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(config, sort_keys=True),)
        )


def key_rows(path: Path) -> dict[int, tuple[Any, ...]]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {row[0]: row for row in db.execute(f"SELECT {KEY_COLUMNS} FROM games")}


# About 10 s: in the slow lane; the quick lane migrates an old database in one transaction.
@pytest.mark.slow
def test_a_tournament_of_an_earlier_version_resumes(tmp_path: Path) -> None:
    two = ("--bot", "a=greedy", "--bot", "b=random", "--bot", "c=random", "--seed", "3")
    common = (*two, "--games-per-pair", "2", "--concurrency", "1", "--format", "csv", *SHORT)
    whole = cli(tmp_path, "tournament", *common, "--db", "whole.sqlite")
    assert whole.returncode == 0, whole.stderr
    cut = cli(tmp_path, "tournament", *common, "--db", "old.sqlite")
    assert cut.returncode == 0, cut.stderr
    old = tmp_path / "old.sqlite"
    downgrade(old)
    with contextlib.closing(sqlite3.connect(old)) as db, db:
        db.execute("DELETE FROM games WHERE id IN (2, 5, 6)")  # as if interrupted
    # `ratings` reads it as it is, and leaves it so.
    before = old.read_bytes()
    rated = cli(tmp_path, "ratings", "--db", "old.sqlite", "--format", "json")
    assert rated.returncode == 0, rated.stderr
    assert json.loads(rated.stdout)["games"] == 3
    assert old.read_bytes() == before

    resumed = cli(tmp_path, "tournament", "--db", "old.sqlite", "--resume", *two)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming at 3 of 6 games" in resumed.stdout
    assert key_rows(old) == key_rows(tmp_path / "whole.sqlite")
    assert "mode" not in json.loads(config_of(old))  # the configuration as it was stored


# -- tournaments of three and four bots, from the command line ----------------------------------


def stored_games(path: Path) -> list[GameRow]:
    store = Store.open(path, readonly=True)
    try:
        return list(store.games())
    finally:
        store.close()


def check_games(path: Path, mode: Mode, scratch: Path) -> list[GameRow]:
    """The database holds the scheduled games, each with its own record, which the judge
    accepts."""
    c = Config.from_json(json.loads(config_of(path)))
    assert c.mode is format_named(mode)
    names = c.names()
    rows = stored_games(path)
    expected = {
        number: (tuple(names[p] for p in players), seed)
        for number, seed, players in seated(schedule(c))
    }
    assert {r.id: (r.seats, r.seed) for r in rows} == expected
    sides = 2 if mode.teams else mode.players
    for r in rows:
        assert (r.mode, len(r.seats), len(r.scores)) == (mode.value, mode.players, sides)
        assert (r.seat0, r.seat1, r.score0, r.score1) == (*r.seats[:2], *r.scores[:2])
        expected_winner = None if r.side is None else " & ".join(r.seats[r.side :: sides])
        assert r.winner == expected_winner
        lines = [json.loads(line) for line in r.record.splitlines()]
        header, end = lines[0], lines[-1]
        assert (header["game"], header["seed"], header.get("mode", "two-player")) == (
            r.id,
            r.seed,
            mode.value,
        )
        assert [b["name"] for b in header["bots"]] == list(r.seats)
        assert end["type"] == "game_end"
        assert (end["winner"], end["scores"]) == (r.side, list(r.scores))
    records = scratch / f"{path.stem}.jsonl"
    records.write_text("".join(r.record for r in rows))
    verdict = judge(records)
    assert verdict.ok, verdict.disagreement
    assert verdict.games == len(rows)
    return rows


def check_standings(data: dict[str, Any], played: dict[str, int], per_game: int) -> None:
    bots = {b["name"]: b for b in data["bots"]}
    assert {name: b["played"] for name, b in bots.items()} == played
    for name, b in bots.items():
        assert b["games"] == per_game * b["played"]
        assert b["wins"] + b["losses"] + b["draws"] == b["games"]
        assert b["failures"]["startup"] == 0
        low, high = b["ci95"]
        assert low < b["elo"] < high
        for opponent, (wins, losses) in b["crosstable"].items():
            assert bots[opponent]["crosstable"][name] == [losses, wins]
    assert abs(sum(b["elo"] for b in data["bots"])) < 0.5


def test_a_three_player_tournament_end_to_end(tmp_path: Path) -> None:
    done = cli(
        tmp_path,
        "tournament",
        *("--mode", "three-player", "--bot", "a=greedy", "--bot", "b=random"),
        *("--bot", "c=greedy", "--bot", "d=random", "--games-per-table", "3", *SHORT),
        *("--seed", "5", "--concurrency", "2", "--oversubscribe", "--db", "t.sqlite"),
    )
    assert done.returncode == 0, done.stderr
    header, _, rest = done.stdout.partition("\n")
    assert header == (
        "three-player round-robin of 4 bots (a, b, c, d): 4 tables of 3 bots, 3 games a table, "
        "mirrored, seed 5; database t.sqlite"
    )
    assert rest.startswith("Standings after 12 games (three-player)\n")
    assert "a result against each of the other two players" in " ".join(rest.split())
    assert rest.splitlines()[2].split()[5:9] == ["games", "won", "lost", "drawn"]
    rows = check_games(tmp_path / "t.sqlite", Mode.THREE_PLAYER, tmp_path)
    assert len(rows) == 12
    for name in "abcd":  # three tables each, in each seat once a table
        assert Counter(r.seats.index(name) for r in rows if name in r.seats) == {0: 3, 1: 3, 2: 3}

    as_json = cli(tmp_path, "ratings", "--db", "t.sqlite", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["games"], data["mode"]) == (12, "three-player")
    check_standings(data, dict.fromkeys("abcd", 9), per_game=2)
    bots = {b["name"]: b for b in data["bots"]}
    for b in bots.values():  # a three-player game is a result against each other player
        assert sum(w for w, _ in b["crosstable"].values()) == b["wins"]
        assert sum(n for _, n in b["crosstable"].values()) == b["losses"]
        assert all(sum(wl) <= 6 for wl in b["crosstable"].values())  # met at two tables
    winners = Counter(r.winner for r in rows if r.winner is not None)
    assert sum(bots[n]["wins"] for n in "abcd") >= 2 * sum(winners.values())
    as_table = cli(tmp_path, "ratings", "--db", "t.sqlite")
    assert as_table.returncode == 0, as_table.stderr
    assert as_table.stdout == rest.rsplit("seed 5 ", 1)[0]


def test_a_partnership_tournament_end_to_end(tmp_path: Path) -> None:
    done = cli(
        tmp_path,
        "tournament",
        *("--mode", "partnership", "--bot", "a=greedy", "--bot", "b=random"),
        *("--bot", "c=greedy", "--bot", "d=random", "--games-per-table", "4", *SHORT),
        *(
            "--seed",
            "8",
            "--concurrency",
            "2",
            "--oversubscribe",
            "--db",
            "p.sqlite",
            "--format",
            "csv",
        ),
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0].split(",")[-1] == "played"
    rows = check_games(tmp_path / "p.sqlite", Mode.PARTNERSHIP, tmp_path)
    assert len(rows) == 12
    partners = Counter(frozenset(r.seats[s::2]) for r in rows for s in (0, 1))
    assert set(partners.values()) == {4} and len(partners) == 6  # every pair, equally often
    for name in "abcd":  # every bot in every seat equally often
        assert Counter(r.seats.index(name) for r in rows) == dict.fromkeys(range(4), 3)
    for r in rows:
        assert r.winner is None or r.winner == f"{r.seats[r.side]} & {r.seats[r.side + 2]}"

    as_json = cli(tmp_path, "ratings", "--db", "p.sqlite", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert (data["games"], data["mode"]) == (12, "partnership")
    check_standings(data, dict.fromkeys("abcd", 12), per_game=1)
    bots = {b["name"]: b for b in data["bots"]}
    decided = [r for r in rows if r.side is not None]
    for name, b in bots.items():
        assert b["wins"] == sum(1 for r in decided if name in r.winners)
        # A team game counts against both opponents: each win twice in the crosstable.
        assert sum(w for w, _ in b["crosstable"].values()) == 2 * b["wins"]
    # The greedy team beats the random one: the games were really played.
    assert bots["a"]["wins"] + bots["c"]["wins"] > bots["b"]["wins"] + bots["d"]["wins"]


def test_a_hollywood_gauntlet(tmp_path: Path) -> None:
    done = cli(
        tmp_path,
        "tournament",
        *("--mode", "hollywood", "--kind", "gauntlet", "--bot", "a=greedy"),
        *("--bot", "b=random", "--bot", "c=random", "--games-per-pair", "2", *SHORT),
        *("--concurrency", "1", "--db", "h.sqlite"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "hollywood gauntlet of 3 bots (a, b, c): 2 pairs, 2 games each, mirrored;"
    )
    rows = check_games(tmp_path / "h.sqlite", Mode.HOLLYWOOD, tmp_path)
    assert len(rows) == 4 and all("a" in r.seats for r in rows)


@pytest.mark.parametrize(
    ("mode", "options", "lost", "total"),
    [
        # Lost: one rotation of a deal, a whole deal, and the last game.
        (Mode.THREE_PLAYER, ("--kind", "gauntlet", "--games-per-table", "6"), (2, 7, 8, 9, 18), 18),
        # Lost: the second half of a deal (the table turned), a whole deal, the first game.
        pytest.param(
            Mode.PARTNERSHIP, ("--games-per-table", "4"), (1, 4, 5, 6), 12, marks=pytest.mark.slow
        ),
    ],
)
def test_a_tournament_of_three_or_four_resumes_to_the_same_games(
    tmp_path: Path, mode: Mode, options: tuple[str, ...], lost: tuple[int, ...], total: int
) -> None:
    args = (
        *("tournament", "--mode", mode.value, "--bot", "a=greedy", "--bot", "b=random"),
        *("--bot", "c=random", "--bot", "d=greedy", *SHORT, *options),
        *("--seed", "21", "--format", "json"),
    )
    whole = cli(tmp_path, *args, "--concurrency", "1", "--db", "whole.sqlite")
    assert whole.returncode == 0, whole.stderr
    cut = cli(tmp_path, *args, "--concurrency", "2", "--oversubscribe", "--db", "cut.sqlite")
    assert cut.returncode == 0, cut.stderr
    db = tmp_path / "cut.sqlite"
    with contextlib.closing(sqlite3.connect(db)) as connection, connection:
        connection.executemany("DELETE FROM games WHERE id = ?", [(k,) for k in lost])
    resumed = cli(tmp_path, "tournament", "--db", "cut.sqlite", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming at {total - len(lost)} of {total} games" in resumed.stdout
    assert f"Standings after {total} games ({mode})" in resumed.stdout
    # The random bots carry their generators from game to game: a deal is replayed whole.
    assert key_rows(db) == key_rows(tmp_path / "whole.sqlite")
    rated = cli(tmp_path, "ratings", "--db", "cut.sqlite", "--format", "json")
    assert json.loads(rated.stdout) == json.loads(whole.stdout)


@pytest.mark.parametrize("mode", [Mode.THREE_PLAYER, Mode.PARTNERSHIP])
def test_a_bot_that_cannot_start_forfeits_its_tables_games(tmp_path: Path, mode: Mode) -> None:
    ghost = BotSpec("ghost", ("/nonexistent/gin-arena-test/ghost-bot",))
    c = Config(bots=(*bots(mode.players - 1), ghost), mode=mode, games_per_pair=1, mirror=False)
    (task, *_) = schedule(c)
    rows = run_task(c.to_json(), task, str(tmp_path))
    assert [r.id for r in rows] == [1]
    (row,) = rows
    assert (row.reason, row.failed, row.hands, row.record) == ("startup", "ghost", 0, "")
    assert row.seats == tuple(c.names()[task.table[k]] for k in task.games[0].seats)
    assert row.scores == (0,) * (2 if mode.teams else 3)
    if mode is Mode.PARTNERSHIP:  # the other team wins
        assert "ghost" not in row.winners and len(row.winners) == 2
        assert row.winner == " & ".join(row.winners)
    else:  # the other two are level at nothing: nobody wins
        assert (row.side, row.winner) == (None, None)
    table = standings(c.names(), rows, mode=mode)
    assert table.failures["ghost"]["startup"] == 1
    ghost_rating = next(r for r in table.fit.ratings if r.name == "ghost")
    assert (ghost_rating.wins, ghost_rating.losses) == (0, 2 if mode is Mode.THREE_PLAYER else 1)


# -- refusals ---------------------------------------------------------------------------------


def refused(cwd: Path, *args: str) -> str:
    done = cli(cwd, "tournament", *args)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert "Traceback" not in done.stderr
    return done.stderr


def test_bad_tournaments_are_refused_before_anything_is_made(tmp_path: Path) -> None:
    three = ("--bot", "a=greedy", "--bot", "b=random", "--bot", "c=greedy")
    assert refused(tmp_path, "--mode", "partnership", *three, "--db", "t.sqlite") == (
        "gin-arena tournament: error: a partnership tournament needs at least 4 bots (the 4 "
        "players of each game), got 3\n"
    )
    # Three built-in bots by default: not enough for a partnership either.
    assert "a partnership tournament needs at least 4 bots" in refused(
        tmp_path, "--mode", "partnership"
    )
    assert refused(tmp_path, "--mode", "three-player", *three, "--games-per-table", "4") == (
        "gin-arena tournament: error: --games-per-table 4 is not a multiple of 3: a mirrored "
        "three-player deal is played 3 times (every bot in every seat); give a multiple of 3, "
        "or --no-mirror\n"
    )
    assert "--games-per-table 5 is odd" in refused(tmp_path, *three, "--games-per-pair", "5")
    assert "unknown mode 'solo'" in refused(tmp_path, "--mode", "solo", *three)
    assert listing(tmp_path) == {}


def test_resume_with_another_mode_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    done = cli(
        tmp_path,
        "tournament",
        *("--mode", "three-player", "--bot", "a=greedy", "--bot", "b=random"),
        *("--bot", "c=greedy", "--games-per-table", "3", "--concurrency", "1", *SHORT),
        *("--db", "t.sqlite", "--format", "csv"),
    )
    assert done.returncode == 0, done.stderr
    before = listing(tmp_path)
    for mode in ("two-player", "partnership", "hollywood"):
        assert refused(tmp_path, "--db", "t.sqlite", "--resume", "--mode", mode) == (
            "gin-arena tournament: error: --resume with a changed configuration (mode): the "
            "database 't.sqlite' holds another tournament; drop those options to resume it\n"
        )
        assert listing(tmp_path) == before
    same = cli(tmp_path, "tournament", "--db", "t.sqlite", "--resume", "--mode", "three-player")
    assert same.returncode == 0, same.stderr
    assert "resuming at 3 of 3 games" in same.stdout
