"""The tournament database (:mod:`arena.tournament.store`): round trips, crash safety and
refusals."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest
from support import COMMAND

import arena.tournament.store
from arena.tournament.store import APPLICATION, FORMAT, GameRow, Store, StoreError

ROOT = Path(__file__).resolve().parents[3]

CONFIG: dict[str, Any] = {"kind": "round-robin", "seed": "18446744073709551615", "bots": ["a"]}


def row(game_id: int, **changes: Any) -> GameRow:
    values: dict[str, Any] = {
        "id": game_id,
        "seat0": "a",
        "seat1": "b",
        "seed": 2**64 - 1 - game_id,  # beyond SQLite's 64-bit signed integers
        "winner": "a",
        "reason": "normal",
        "failed": None,
        "message": "",
        "rule": "",
        "score0": 112,
        "score1": 7,
        "hands": 3,
        "seconds": 0.25,
        "record": '{"type":"game"}\n{"type":"game_end"}\n',
    }
    values.update(changes)
    return GameRow(**values)


def files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def test_create_then_open_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    store = Store.create(path, CONFIG)
    assert store.path == path
    assert store.done() == set()
    assert list(store.games()) == []
    games = [
        row(1),
        row(2, winner=None, reason="drawn", score0=0, score1=0),
        row(3, winner="b", reason="timeout", failed="a", message="no reply within 1 s", rule=""),
        row(4, winner="a", reason="illegal", failed="b", message="discard 5H", rule="R7"),
    ]
    for game in games:
        store.add_game(game)
    store.set_bot("a", "builtin:greedy", "1", "0123456789abcdef")
    store.set_bot("b", "./bot --x 'y z'", "2.0", "fedcba9876543210")
    store.set_bot("b", "./bot --x 'y z'", "2.1", "fedcba9876543211")  # replaced, not added
    store.close()

    again = Store.open(path)
    try:
        assert again.config() == CONFIG
        assert again.done() == {1, 2, 3, 4}
        assert list(again.games()) == games
        assert again.bots() == {
            "a": ("builtin:greedy", "1", "0123456789abcdef"),
            "b": ("./bot --x 'y z'", "2.1", "fedcba9876543211"),
        }
    finally:
        again.close()


def test_games_come_back_in_id_order(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "t.sqlite", CONFIG)
    for game_id in (5, 2, 9, 1):
        store.add_game(row(game_id))
    assert [g.id for g in store.games()] == [1, 2, 5, 9]
    store.close()


def test_a_game_id_is_stored_once(tmp_path: Path) -> None:
    store = Store.create(tmp_path / "t.sqlite", CONFIG)
    store.add_game(row(1, winner="a"))
    with pytest.raises(sqlite3.IntegrityError):
        store.add_game(row(1, winner="b"))
    assert [g.winner for g in store.games()] == ["a"]
    store.close()


def test_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    Store.create(path, CONFIG).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert dict(db.execute("SELECT key, value FROM meta")) | {"created": "-"} == {
            "application": APPLICATION,
            "format": str(FORMAT),
            "created": "-",
            "config": json.dumps(CONFIG, sort_keys=True),
        }
    db.close()
    Store.open(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_reader_sees_each_game_as_it_is_committed(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    writer = Store.create(path, CONFIG)
    reader = Store.open(path)  # `gin-arena ratings` while the tournament runs
    try:
        writer.add_game(row(1))
        assert reader.done() == {1}
        writer.add_game(row(2))
        assert [g.id for g in reader.games()] == [1, 2]
    finally:
        reader.close()
        writer.close()


CRASH = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from arena.tournament.store import GameRow, Store

    path = Path(sys.argv[1])
    if sys.argv[2] == "create":
        store = Store.create(path, {"kind": "round-robin"})
    else:
        store = Store.open(path)
    for k in map(int, sys.argv[3:]):
        store.add_game(GameRow(k, "a", "b", 7, "a", "normal", None, "", "", 100, 0, 2, 0.5, "r"))
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no exit handlers: as kill -9 does
    """
)


def crash_after(path: Path, how: str, *ids: int) -> None:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(path), how, *map(str, ids)],
        capture_output=True,
        text=True,
        env=env,
        timeout=COMMAND,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_committed_games_survive_a_kill_without_close(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    crash_after(path, "create", 1, 2)
    crash_after(path, "open", 3)
    store = Store.open(path)
    try:
        assert store.config() == {"kind": "round-robin"}
        assert store.done() == {1, 2, 3}
        assert [g.winner for g in store.games()] == ["a", "a", "a"]
        store.add_game(row(4))  # and the database goes on as usual
        assert store.done() == {1, 2, 3, 4}
    finally:
        store.close()


def test_create_refuses_an_existing_path(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    Store.create(path, CONFIG).close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"already exists: resume it with --resume"):
        Store.create(path, {"other": True})
    assert path.read_bytes() == before
    empty = tmp_path / "empty"
    empty.touch()
    with pytest.raises(StoreError, match="already exists"):
        Store.create(empty, CONFIG)
    assert empty.read_bytes() == b""


def test_an_interrupted_create_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C a moment after the tournament starts lands in Store.create about one time in
    # twenty on this machine (sqlite's PRAGMAs, the schema). The file must then be whole or
    # absent: a half-made one is refused by --resume ("no such table: meta") and by a plain
    # re-run ("already exists"), so the user is stuck until they delete it by hand.
    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.tournament.store, "json", types.SimpleNamespace(dumps=interrupted))
    path = tmp_path / "t.sqlite"
    with pytest.raises(KeyboardInterrupt):
        Store.create(path, CONFIG)
    monkeypatch.undo()
    if path.exists():
        Store.open(path).close()  # whole, or
    assert not path.exists(), "a half-created database was left behind"


def test_create_reports_a_path_it_cannot_write(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot create database"):
        Store.create(tmp_path / "no" / "such" / "dir" / "t.sqlite", CONFIG)


@pytest.mark.parametrize("name", ["league#1.sqlite", "what?.sqlite", "t%41.sqlite", "a b.sqlite"])
def test_a_database_path_may_hold_any_character(tmp_path: Path, name: str) -> None:
    # Store.open builds a "file:" URI by pasting the path in: "#" starts a fragment, "?" a
    # query and "%" an escape, so such a path opens another file (and "#" creates it).
    path = tmp_path / name
    Store.create(path, CONFIG).close()
    store = Store.open(path)
    try:
        assert store.config() == CONFIG
    finally:
        store.close()
    assert files(tmp_path) == {name}


def test_open_refuses_a_missing_path_and_a_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"no tournament database at '.*nothing\.sqlite'"):
        Store.open(tmp_path / "nothing.sqlite")
    with pytest.raises(StoreError, match="no tournament database"):
        Store.open(tmp_path)
    assert files(tmp_path) == set()


def foreign_sqlite(path: Path) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("INSERT INTO users (name) VALUES ('ada')")
    db.close()


def other_application(path: Path) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('application', 'chess-league'), ('format', '1')")
    db.close()


def meta_without_columns(path: Path) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE meta (name TEXT)")
    db.close()


def random_bytes(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 64)


def text_file(path: Path) -> None:
    path.write_text("[[bot]]\nname = 'mine'\ncommand = './mybot'\n")


def empty_file(path: Path) -> None:
    path.touch()


@pytest.mark.parametrize(
    "make",
    [foreign_sqlite, other_application, meta_without_columns, random_bytes, text_file, empty_file],
)
def test_open_refuses_what_is_not_a_tournament_database(tmp_path: Path, make: Any) -> None:
    path = tmp_path / "x.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert message.startswith(f"'{path}' is not a gin-rummy-arena tournament database")
    assert "Traceback" not in message
    assert path.read_bytes() == before  # looked at, never changed
    assert files(tmp_path) == {"x.sqlite"}
    assert isinstance(caught.value, ValueError)  # the CLI's usage-error exit


def test_open_refuses_another_database_format(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    Store.create(path, CONFIG).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT + 1),))
    db.close()
    with pytest.raises(StoreError, match=rf"database format {FORMAT + 1}; this version reads "):
        Store.open(path)


def test_the_bots_are_written_with_the_configuration_in_one_transaction(tmp_path: Path) -> None:
    bots = [("a", "builtin:greedy", "1", "0123456789abcdef"), ("b", "./bot", "2", "fedcba98")]
    store = Store.create(tmp_path / "t.sqlite", CONFIG, bots)
    try:
        assert store.bots() == {name: (command, v, d) for name, command, v, d in bots}
    finally:
        store.close()


def test_a_create_killed_half_way_leaves_nothing_the_next_run_keeps(tmp_path: Path) -> None:
    """SIGKILL while creating leaves the temporary files; the next create or resume removes
    those of dead processes, and never those of a live one."""
    gone = 2**22 + 12345  # above the usual pid_max: no such process
    leftovers = [tmp_path / f".t.sqlite.{gone}.new", tmp_path / f".t.sqlite.{gone}.new-journal"]
    live = tmp_path / f".t.sqlite.{os.getppid()}.new-wal"  # a live process's: kept
    for path in [*leftovers, live]:
        path.write_text("half a database")
    Store.create(tmp_path / "t.sqlite", CONFIG).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.sqlite", live.name])
    for path in leftovers:
        path.write_text("half a database")
    Store.open(tmp_path / "t.sqlite", lock=True).close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.sqlite", live.name])
