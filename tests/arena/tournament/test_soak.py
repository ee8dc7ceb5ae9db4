"""Fault injection and soak tests of ``gin-arena tournament``, in the slow lane (``tox -e slow``,
or ``pytest -m slow --runslow``): the command run as a user runs it, killed with SIGKILL at
random moments and resumed until done, and a 500-game tournament of bot processes watched for
leaks. Every wait is bounded; nothing asserts on how long anything takes.

Processes are told apart by their working directory: the tournament and its workers run in the
test's run directory, its bots in directories under the TMPDIR the test gives it, so a process
of the run is found even after its parent died and it was adopted by another.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from support import QUICK, SOAK, cli_env, start_gin_arena

from arena.tournament.store import Store

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
]

TOURNAMENT_BOTS = Path(__file__).resolve().parents[1] / "tournament_bots"
KILLS_PER_CAMPAIGN = 10
"""Two campaigns (bots in the workers, bots as processes): 20 kills in all."""
KILL_SEED = 20_240_611
"""Seeds the kinds and delays of the kills (the moments they land still vary from run to run)."""
TOURNAMENT_SEED = 424_242
GAME_COLUMNS = (
    "id, seat0, seat1, seed, winner, reason, failed, message, rule, score0, score1, hands"
)
"""What decides a game's row; not its times (``seconds``, ``finished_at``) nor its record, which
holds times too."""


# -- processes, from /proc --------------------------------------------------------------------


def _under(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def processes_under(roots: Sequence[Path]) -> dict[int, str]:
    """Live processes (a zombie runs nothing: it counts as gone) whose working directory is
    under one of ``roots``: pid -> command line."""
    found: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX" and _under(cwd, roots):
            found[int(entry.name)] = cmdline.strip()
    return found


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def workers(pid: int) -> list[int]:
    """The tournament's worker processes (multiprocessing's resource tracker is not one)."""
    out = []
    for child in children(pid):
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                out.append(child)
    return out


def status_kib(pid: int, field: str) -> int:
    """A ``kB`` field of /proc/PID/status (VmRSS, VmHWM), 0 for a process that is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_leftovers(roots: Sequence[Path]) -> None:
    """Clean-up after a failure: SIGKILL, by pid, what this test started and is still alive."""
    for pid in processes_under(roots):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


# -- the command and its database ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Where a tournament runs: its directory (with its database), the TMPDIR its bots' working
    directories go under, and where its output is kept."""

    run: Path
    tmp: Path
    logs: Path

    @classmethod
    def make(cls, base: Path) -> Place:
        place = cls(base / "run", base / "tmp", base / "logs")
        for path in (place.run, place.tmp, place.logs):
            path.mkdir(parents=True)
        return place

    @property
    def roots(self) -> tuple[Path, Path]:
        return (self.run, self.tmp)


def start(place: Place, label: str, *args: str) -> subprocess.Popen[bytes]:
    """``gin-arena ARGS`` in a session of its own (for the clean-up), its output to files: a pipe
    held open by a process that outlived the run would hang the reader."""
    with (
        (place.logs / f"{label}.out").open("wb") as out,
        (place.logs / f"{label}.err").open("wb") as err,
    ):
        return start_gin_arena(
            *args,
            cwd=place.run,
            env=cli_env(TMPDIR=str(place.tmp)),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
        )


def output(place: Place, label: str) -> str:
    return "".join(
        f"--- {label}.{end}\n" + (place.logs / f"{label}.{end}").read_text(errors="replace")
        for end in ("out", "err")
    )


def finish(place: Place, label: str, *args: str) -> None:
    """Run the command to its end; it must succeed."""
    process = start(place, label, *args)
    try:
        code = process.wait(timeout=SOAK)
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    assert code == 0, output(place, label)


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """Read-only, so that the files stay as a killed run left them (a read-write connection
    that closes last folds the WAL back into the database)."""
    uri = db.absolute().as_uri() + "?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
        return connection.execute(sql).fetchall()


def game_rows(db: Path, columns: str = "*") -> dict[int, tuple[Any, ...]]:
    return {row[0]: row for row in query(db, f"SELECT {columns} FROM games ORDER BY id")}


def wal_signature(db: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(f"{db}-wal")
    except FileNotFoundError:
        return None
    return stat.st_size, stat.st_mtime_ns


# -- SIGKILL at random moments, resumed until done ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Kill:
    kind: str
    """``create``: as soon as the database's temporary file appears; ``early``: after ``delay``
    seconds (start-up, the probe of the bots, the database being made or opened, workers
    starting); ``commit``: once the workers are up, at the ``writes``-th change seen to the
    database's WAL, that is while the games of a finished task are being committed (the first
    change is the first page of the first game's transaction; a game with its record spans
    several pages); ``random``: after ``delay`` seconds."""
    delay: float = 0.0
    writes: int = 0

    def __str__(self) -> str:
        if self.kind == "commit":
            return f"commit, WAL write {self.writes}"
        return self.kind if self.kind == "create" else f"{self.kind}, {self.delay:.2f} s"


def plan_kills(rng: random.Random, count: int) -> list[Kill]:
    kills = [Kill("create")]
    while len(kills) < count:
        kind = rng.choice(("early", "commit", "commit", "random"))
        if kind == "early":
            kills.append(Kill(kind, delay=rng.uniform(0.0, 1.2)))
        elif kind == "random":
            kills.append(Kill(kind, delay=rng.uniform(1.2, 3.0)))
        else:
            kills.append(Kill(kind, writes=rng.randint(1, 8)))
    return kills


def strike(process: subprocess.Popen[bytes], kill: Kill, db: Path, timeout: float = 90.0) -> bool:
    """Wait for the moment ``kill`` names and SIGKILL the tournament's main process alone (its
    workers and bots must die with it by themselves); False if it exited first."""
    deadline = time.monotonic() + timeout
    if kill.kind in ("early", "random"):
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=kill.delay)
            return False
    elif kill.kind == "create":
        prefix = f".{db.name}."
        while not any(name.startswith(prefix) for name in os.listdir(db.parent)):
            if process.poll() is not None:
                return False
            assert time.monotonic() < deadline, "no temporary database appeared"
    else:  # commit: the bots are recorded and the WAL is in use once the workers exist
        while not workers(process.pid):
            if process.poll() is not None:
                return False
            assert time.monotonic() < deadline, "no worker process started"
            time.sleep(0.005)
        last = wal_signature(db)
        changes = spins = 0
        while changes < kill.writes:  # os.stat alone: as close to the writes as we can
            now = wal_signature(db)
            changes += now != last
            last = now
            spins += 1
            if spins % 2000 == 0:
                if process.poll() is not None:
                    return False
                assert time.monotonic() < deadline, "no game was committed"
    process.kill()
    return True


def planned_games(games_per_pair: int, bots: int) -> list[int]:
    return list(range(1, games_per_pair * bots * (bots - 1) // 2 + 1))


@pytest.mark.parametrize("as_processes", [False, True], ids=["in-workers", "bot-processes"])
def test_kill_9_at_random_moments_then_resume_plays_every_game_once_as_uninterrupted(
    tmp_path: Path, as_processes: bool
) -> None:
    """Ten SIGKILLs of the main process at random moments (two campaigns: 20 in all), each
    followed by a check that no worker or bot survived and that every committed game is still
    there, unchanged, then ``--resume`` (or the first command again while no database exists),
    until the tournament is done. The result is compared with an uninterrupted run of the same
    seed: the same game ids, each once, and the same game rows; the database is intact and no
    stray file is left in its directory."""
    games_per_pair = 20 if as_processes else 40  # bot processes start slower: fewer games
    bots = ("--bot", "a=greedy", "--bot", "b=random", "--bot", "c=strong")
    planned = planned_games(games_per_pair, 3)
    args = (
        "tournament",
        *bots,
        *("--games-per-pair", str(games_per_pair), "--seed", str(TOURNAMENT_SEED)),
        *("--sandbox", "none", "--concurrency", "2", "--oversubscribe", "--format", "csv"),
        *(("--subprocess",) if as_processes else ()),
    )
    killed, reference = Place.make(tmp_path / "killed"), Place.make(tmp_path / "reference")
    db = killed.run / "t.sqlite"
    resume = ("tournament", "--resume", "--sandbox", "none", "--concurrency", "2")
    resume += ("--oversubscribe", "--format", "csv")
    kills = plan_kills(random.Random(KILL_SEED + as_processes), KILLS_PER_CAMPAIGN)
    saved: dict[int, tuple[Any, ...]] = {}
    landed = 0
    try:
        for number in range(1, 4 * KILLS_PER_CAMPAIGN + 1):
            if landed == len(kills):
                break
            kill = kills[landed]
            fresh = not db.exists()
            if not fresh and len(saved) == len(planned):
                kill = Kill("early", delay=0.2)  # done: go on killing resumed runs
            elif kill.kind == "create" and not fresh:
                kill = Kill("early", delay=0.5)
            label = f"run{number}"
            process = start(killed, label, *(args if fresh else resume), "--db", "t.sqlite")
            tree: set[int] = set()
            try:
                hit = strike(process, kill, db)
                tree = set(processes_under(killed.roots))
                if hit:
                    assert process.wait(timeout=QUICK) == -signal.SIGKILL, output(killed, label)
                else:
                    assert process.wait(timeout=SOAK) == 0, output(killed, label)
                gone = wait_until(lambda: not processes_under(killed.roots), QUICK)
                assert gone, (
                    f"{label}: processes of the killed run survive it: "
                    f"{processes_under(killed.roots)} ({kill})"
                )
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=QUICK)
            landed += hit
            now = game_rows(db) if db.exists() else {}
            assert set(now) <= set(planned), f"{label}: unplanned games {set(now) - set(planned)}"
            assert {k: now.get(k) for k in saved} == saved, f"{label}: a saved game changed"
            if db.exists():
                Store.open(db, readonly=True).close()  # a killed run leaves a usable database
            print(
                f"{label}: {'killed' if hit else 'ended'}{' a new run' if fresh else ''} "
                f"[{kill}]: games {len(saved)} -> {len(now)}; {len(tree)} processes of the "
                "run had to die with it",
                flush=True,
            )
            saved = now
        assert landed == len(kills), f"only {landed} of {len(kills)} kills landed"

        finish(killed, "last", *(resume if db.exists() else args), "--db", "t.sqlite")
        left = sorted(os.listdir(killed.run))  # before a reader adds its own -wal and -shm
        finish(reference, "reference", *args, "--db", "t.sqlite")
    finally:
        kill_leftovers(killed.roots + reference.roots)

    # Every check, then one verdict: a soak run that fails should say all it found.
    problems = []
    counts = query(db, "SELECT count(*), count(DISTINCT id) FROM games")
    if counts != [(len(planned), len(planned))] or sorted(game_rows(db, "id")) != planned:
        missing = sorted(set(planned) - set(game_rows(db, "id")))
        problems.append(f"games (rows, distinct ids) {counts[0]}, missing {missing[:20]}")
    integrity = query(db, "PRAGMA integrity_check")
    if integrity != [("ok",)]:
        problems.append(f"integrity_check: {integrity}")
    expected = game_rows(reference.run / "t.sqlite", GAME_COLUMNS)
    played = game_rows(db, GAME_COLUMNS)
    differ = [k for k in planned if played.get(k) != expected[k]]
    if differ:
        problems.append(
            f"{len(differ)} games played otherwise than uninterrupted (ours, the reference's):\n"
            + "\n".join(f"  {played.get(k)}\n  {expected[k]}" for k in differ[:6])
        )
    bot_rows = "SELECT name, command, version, digest FROM bots ORDER BY name"
    if query(db, bot_rows) != query(reference.run / "t.sqlite", bot_rows):
        problems.append(f"bots table {query(db, bot_rows)} (uninterrupted: recorded)")
    if left != ["t.sqlite"]:  # a killed Store.create or run may leave no file behind
        problems.append(f"files left beside the database after the last run: {left}")
    assert not problems, "\n".join(problems)


# -- a long tournament of bot processes -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sample:
    seconds: float
    games: int
    main_rss_kib: int
    main_hwm_kib: int
    main_fds: int
    workers: int
    workers_rss_kib: int
    workers_fds: int
    bots: list[int]


def sample(pid: int, began: float, db: Path, place: Place) -> Sample:
    games = 0
    if wal_signature(db) is not None:  # WAL mode: reading cannot get in the run's way
        with contextlib.suppress(sqlite3.Error):
            games = query(db, "SELECT count(*) FROM games")[0][0]
    pool = workers(pid)
    everyone = processes_under(place.roots)
    return Sample(
        seconds=round(time.monotonic() - began, 2),
        games=games,
        main_rss_kib=status_kib(pid, "VmRSS"),
        main_hwm_kib=status_kib(pid, "VmHWM"),
        main_fds=open_fds(pid),
        workers=len(pool),
        workers_rss_kib=sum(status_kib(w, "VmRSS") for w in pool),
        workers_fds=sum(open_fds(w) for w in pool),
        bots=sorted(set(everyone) - {pid, *pool} - set(children(pid))),
    )


def test_500_games_of_bot_processes_at_full_concurrency_leak_nothing(tmp_path: Path) -> None:
    """500 games (a round-robin of five bot processes, 50 games a pair, so 250 tasks each
    starting two bot processes) with ``--concurrency`` the number of cores. Sampled every half
    second: the resident memory and the open file descriptors of the main process and of its
    workers. "Start" is the first sample with 5% of the games done, "end" the last one before
    the workers stop (the main process then closes the database and ends the pool).

    Bounds, generous against noise but broken by a leak of one fd or a few hundred KiB a game:

    - main fds at the end <= at the start + 8 (a leak of one fd a game would add about 450);
    - workers' fds (summed) at the end <= at the start + 12 per worker (at a sample a worker may
      hold a task's two bot connections, a few pipes each, or none; a leak of one fd per task
      adds about 110 per worker);
    - main RSS at the end <= 1.5 x at the start + 50 MiB: the main process keeps every game row
      for the standings and the progress line, its record included (about 14 KiB a game here,
      so about 10 MiB for 500 games); a leak of 200 KiB a game breaks it. The same bound, per
      worker, for the workers' summed RSS.
    """
    cores = os.cpu_count() or 1
    never_knock = shlex.join([sys.executable, str(TOURNAMENT_BOTS / "never_knock.py")])
    bots = ("a=greedy", "b=random", f"c={never_knock}", "d=greedy", "e=random")
    total = 50 * len(bots) * (len(bots) - 1) // 2
    assert total == 500
    place = Place.make(tmp_path)
    db = place.run / "soak.sqlite"
    args = [
        "tournament",
        "--subprocess",
        *(arg for bot in bots for arg in ("--bot", bot)),
        *("--games-per-pair", "50", "--set", "hand_limit=5", "--seed", str(TOURNAMENT_SEED)),
        *("--concurrency", str(cores), "--sandbox", "none", "--db", db.name, "--format", "json"),
    ]
    samples: list[Sample] = []
    seen: set[int] = set()
    began = time.monotonic()
    process = start(place, "soak", *args)
    try:
        while process.poll() is None:
            assert time.monotonic() - began < SOAK, "the tournament did not finish"
            now = sample(process.pid, began, db, place)
            seen.update(now.bots)
            if process.poll() is None:  # still running when sampled: a sample of the run
                samples.append(now)
            time.sleep(0.5)
        elapsed = time.monotonic() - began
        code = process.wait()
        gone = wait_until(lambda: not processes_under(place.roots), QUICK)
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        kill_leftovers(place.roots)
    assert code == 0, output(place, "soak")
    assert gone, f"processes left after the tournament: {processes_under(place.roots)}"
    assert len(seen) > 2 * cores, "bot processes were never seen: nothing was measured"
    standings = json.loads((place.logs / "soak.out").read_text())
    assert standings["games"] == total
    assert query(db, "SELECT count(*), min(id), max(id) FROM games") == [(total, 1, total)]
    reasons = dict(query(db, "SELECT reason, count(*) FROM games GROUP BY reason"))

    pool = max((s.workers for s in samples), default=1)
    playing = [s for s in samples if s.workers == pool and s.games > 0]  # not starting, stopping
    first = next(s for s in playing if s.games >= total // 20)
    last = playing[-1]
    figures = {
        "games": total,
        "concurrency": cores,
        "seconds": round(elapsed, 1),
        "games_per_second": round(total / elapsed, 2),
        "reasons": reasons,
        "start": asdict(first) | {"bots": len(first.bots)},
        "end": asdict(last) | {"bots": len(last.bots)},
        "peak_main_hwm_kib": max(s.main_hwm_kib for s in samples),
        "peak_main_and_workers_rss_kib": max(s.main_rss_kib + s.workers_rss_kib for s in samples),
        "peak_bots": max(len(s.bots) for s in samples),
        "bot_processes_seen": len(seen),
        "samples": len(samples),
    }
    report = tmp_path / "soak.json"
    report.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\n{report}:\n{report.read_text()}", flush=True)

    assert last.games >= total * 8 // 10, "no sample near the end"
    mib = 1024
    assert last.main_fds <= first.main_fds + 8
    assert last.workers_fds <= first.workers_fds + 12 * pool
    assert last.main_rss_kib <= first.main_rss_kib * 1.5 + 50 * mib
    assert last.workers_rss_kib <= first.workers_rss_kib * 1.5 + 50 * mib * pool
