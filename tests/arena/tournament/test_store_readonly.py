"""A tournament database opened read-only (:mod:`arena.tournament.access`,
:meth:`arena.tournament.store.Store.open`): it is never written, nothing is created beside it,
it reads beside a writer and notices one arriving; and a database that cannot be written or
created is said to be read-only. Through the command line, on a read-only mount and an immutable
file: tests/arena/cli/test_readonly_cli.py."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_store import row

import arena.tournament.access
from arena.tournament import access
from arena.tournament.store import READ_TRIES, Store, StoreError

CONFIG: dict[str, Any] = {"kind": "round-robin", "seed": "7", "bots": ["a", "b"]}


def files(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def made(path: Path, games: int = 2) -> Path:
    store = Store.create(path, CONFIG, [("a", "x", "1", "d"), ("b", "y", "1", "e")])
    for game in range(1, games + 1):
        store.add_game(row(game))
    store.add_log("join", {"bot": "a"})
    store.close()
    return path


def read_all(path: Path) -> tuple[Any, ...]:
    """Everything a read-only store reads, through each of its reading methods."""
    store = Store.open(path, readonly=True)
    try:
        assert store.readonly
        return (
            store.config(),
            store.meta("nothing"),
            sorted(store.bots()),
            sorted(store.done()),
            [g.id for g in store.games()],
            [kind for _, kind, _ in store.log()],
            store.snapshot(),
        )
    finally:
        store.close()


def test_a_read_only_open_creates_nothing_and_writes_nothing(tmp_path: Path) -> None:
    path = made(tmp_path / "t.sqlite")
    before, seen = path.read_bytes(), access.fingerprint(path)
    assert files(tmp_path) == {"t.sqlite"}
    assert read_all(path) == (CONFIG, None, ["a", "b"], [1, 2], [1, 2], ["join"], None)
    assert files(tmp_path) == {"t.sqlite"}, "a read-only open left files beside the database"
    assert path.read_bytes() == before and access.fingerprint(path) == seen


def test_a_read_only_store_refuses_to_write(tmp_path: Path) -> None:
    store = Store.open(made(tmp_path / "t.sqlite"), readonly=True)
    with pytest.raises(StoreError, match="opened read-only"):
        store.add_game(row(3))
    store.close()
    assert read_all(tmp_path / "t.sqlite")[3] == [1, 2]


def test_a_reader_beside_a_writer_sees_each_commit_and_leaves_the_writers_files_to_it(
    tmp_path: Path,
) -> None:
    path = made(tmp_path / "t.sqlite")
    writer = Store.open(path, lock=True)
    assert files(tmp_path) == {"t.sqlite", "t.sqlite-wal", "t.sqlite-shm"}
    assert access.read_uri(path)[1] is None, "beside a writer, SQLite's locks (mode=ro)"
    reader = Store.open(path, readonly=True)
    writer.add_game(row(3))
    assert reader.done() == {1, 2, 3}
    writer.add_game(row(4))
    assert [g.id for g in reader.games()] == [1, 2, 3, 4]
    writer.close()  # the last connection: its log copied in, its files removed
    assert files(tmp_path) == {"t.sqlite"}
    assert reader.done() == {1, 2, 3, 4}
    reader.close()
    assert files(tmp_path) == {"t.sqlite"}


def test_a_writer_arriving_during_an_immutable_read_makes_it_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between choosing immutable=1 (nobody connected) and the query, a writer comes, commits a
    # game and leaves, copying it into the file: the reader must not keep what it read then.
    path = made(tmp_path / "t.sqlite")
    store = Store.open(path, readonly=True)
    real = access.read_uri
    calls: list[str] = []

    def then_a_writer(where: Path) -> tuple[str, access.Fingerprint | None]:
        chosen = real(where)
        calls.append(chosen[0])
        if len(calls) == 1:
            writer = Store.open(where, lock=True)
            writer.add_game(row(3))
            writer.close()
        return chosen

    monkeypatch.setattr(arena.tournament.access, "read_uri", then_a_writer)
    assert store.done() == {1, 2, 3}
    store.close()
    assert len(calls) == 2 and all("immutable=1" in uri for uri in calls)


def test_a_file_that_moves_at_every_read_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = made(tmp_path / "t.sqlite")
    store = Store.open(path, readonly=True)
    moves = iter(range(10**6))
    real = access.fingerprint
    monkeypatch.setattr(
        arena.tournament.access, "fingerprint", lambda p: (*real(p)[:4], next(moves))
    )
    with pytest.raises(StoreError, match=rf"changed every time it was read \({READ_TRIES} tries"):
        store.done()
    store.close()


def test_a_crashed_writers_log_is_read_not_passed_over(tmp_path: Path) -> None:
    # A writer killed before it closed leaves its -wal (committed games in it) and -shm: the
    # database file alone lacks them, so immutable=1 would lose them.
    path = made(tmp_path / "t.sqlite")
    writer = Store.open(path)
    writer.add_game(row(3))
    kept = {end: access.beside(path, end).read_bytes() for end in access.WAL_ENDS}
    database = path.read_bytes()
    writer.close()
    path.write_bytes(database)
    for end, content in kept.items():
        access.beside(path, end).write_bytes(content)
    assert access.read_uri(path)[1] is None
    assert read_all(path)[3] == [1, 2, 3]


def test_writing_a_read_only_file_is_refused_as_read_only_before_it_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = made(tmp_path / "t.sqlite")
    monkeypatch.setattr(os, "access", lambda p, mode, **_: not mode & os.W_OK)
    for lock in (False, True):
        with pytest.raises(
            StoreError, match=r"'.*t\.sqlite' cannot be written: the file is read-only"
        ):
            Store.open(path, lock=lock)
    with pytest.raises(StoreError, match=r"cannot create database .*: its folder .* is read-only"):
        Store.create(tmp_path / "new.sqlite", CONFIG)
    monkeypatch.undo()
    assert files(tmp_path) == {"t.sqlite"}


# ---------------------------------------------------------------------------------------------
# As an ordinary user: root ignores permission bits, so a child drops to nobody.


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user can reach (pytest's tmp_path is under a folder only root may)."""
    folder = Path(tempfile.mkdtemp(prefix="gin-arena-readonly-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for inner in [folder, *folder.rglob("*")]:
            inner.chmod(0o755 if inner.is_dir() else 0o644)
        shutil.rmtree(folder)


def as_nobody(work: Callable[[], object], *, another: bool = False) -> Any:
    """What ``work`` returns (JSON-ready) when an ordinary user does it, or the text of the
    error it raised: this user when it is one, or as root a forked child that is user nobody.
    ``another``: the test needs a user other than the one that made the files (root only)."""
    if os.geteuid() != 0 and another:
        pytest.skip("needs root, to be a user other than the one that made the database")
    if os.geteuid() != 0:
        try:
            return json.loads(json.dumps({"value": work()}))
        except Exception as error:
            return {"error": f"{type(error).__name__}: {error}"}
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody on this system")
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's result goes through the pipe
        os.close(read)
        try:
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            result: object = {"value": work()}
        except BaseException as error:
            result = {"error": f"{type(error).__name__}: {error}"}
        os.write(write, json.dumps(result).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as stream:
        text = stream.read()
    os.waitpid(child, 0)
    return json.loads(text)


def test_an_ordinary_user_reads_a_database_in_a_read_only_folder_and_cannot_write_it(
    shared: Path,
) -> None:
    (shared / "club").mkdir()
    path = made(shared / "club" / "t.sqlite")
    path.chmod(0o444)
    path.parent.chmod(0o555)

    def read() -> object:
        return list(read_all(path)[3:5])

    def write(lock: bool) -> Callable[[], object]:
        return lambda: Store.open(path, lock=lock).close()

    assert as_nobody(read) == {"value": [[1, 2], [1, 2]]}
    for lock in (False, True):
        refused = as_nobody(write(lock))["error"]
        assert "cannot be written: the file is read-only for this user" in refused, refused
    path.chmod(0o666)  # the file writable, not its folder (where the -wal and -shm go)
    refused = as_nobody(write(False))["error"]
    assert "its folder" in refused and "is read-only for this user" in refused, refused
    created = as_nobody(lambda: Store.create(path.parent / "new.sqlite", CONFIG).close())
    assert "cannot create database" in created["error"], created
    assert "is read-only for this user" in created["error"], created
    assert files(path.parent) == {"t.sqlite"}


def test_an_ordinary_user_reads_a_read_only_file_in_a_writable_folder_leaving_nothing(
    shared: Path,
) -> None:
    path = made(shared / "t.sqlite")
    path.chmod(0o444)
    shared.chmod(0o777)
    assert as_nobody(lambda: list(read_all(path)[3:5])) == {"value": [[1, 2], [1, 2]]}
    assert files(shared) == {"t.sqlite"}


def test_git_ignores_every_file_sqlite_and_a_create_leave_beside_a_database(
    tmp_path: Path,
) -> None:
    root = Path(__file__).resolve().parents[3]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("needs git and the checkout (not an installed copy)")
    path = made(tmp_path / "t.sqlite")
    writer = Store.open(path, lock=True)
    beside = files(tmp_path)
    writer.close()
    temporary = f".t.sqlite.{os.getpid()}.new"
    names = beside | {temporary, f"{temporary}-journal", "t.db-wal", "t.db-shm", "t.sqlite-journal"}
    assert {"t.sqlite-wal", "t.sqlite-shm"} <= names
    for name in sorted(names):
        check = ["git", "-C", str(root), "check-ignore", "--no-index", "-q", f"runs/{name}"]
        assert subprocess.run(check, check=False).returncode == 0, f"{name} is not in .gitignore"


def test_an_ordinary_user_reads_beside_another_users_writer_in_a_folder_it_cannot_write(
    shared: Path,
) -> None:
    # The writer's -wal and -shm are its own (this user may only read them): the reader sees
    # the games committed to the -wal, not yet copied into the database file.
    path = made(shared / "t.sqlite")
    writer = Store.open(path, lock=True)
    try:
        writer.add_game(row(3))
        shared.chmod(0o755)
        reads = as_nobody(lambda: list(read_all(path)[3:5]), another=True)
        assert reads == {"value": [[1, 2, 3]] * 2}
        writer.add_game(row(4))
        reads = as_nobody(lambda: list(read_all(path)[3:5]), another=True)
        assert reads == {"value": [[1, 2, 3, 4]] * 2}
    finally:
        writer.close()
    assert files(shared) == {"t.sqlite"}


def test_a_read_only_store_reads_from_many_threads_at_once(tmp_path: Path) -> None:
    path = made(tmp_path / "t.sqlite", games=20)
    store = Store.open(path, readonly=True)
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda _: sorted(store.done()), range(16)))
    store.close()
    assert found == [list(range(1, 21))] * 16
