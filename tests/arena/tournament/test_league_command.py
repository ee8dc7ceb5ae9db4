"""``gin-arena league`` played for real: built-in bots and a script bot join, are updated and
retire; a run resumes after kill -9 with nothing lost or played twice; the history replays to the
same pairings; a league's database is refused where a tournament's is expected."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import LEAGUE, LONG, ROOT, gin_arena, start_gin_arena

from arena.seats.botspec import resolve
from arena.tournament import league as leagues
from arena.tournament.runner import Venue
from arena.tournament.store import Store

MYBOT = ROOT / "docs" / "examples" / "mybot.py"


def league(tmp_path: Path, *args: str, timeout: float = LONG) -> subprocess.CompletedProcess[str]:
    return gin_arena("league", *args, cwd=tmp_path, timeout=timeout)


def created(
    tmp_path: Path, *bots: tuple[str, str], seed: str = "5", target: str = "150", batch: str = "2"
) -> Path:
    """A league of ``bots``; batches of 2 pairings (4 games) keep the quick tests quick."""
    db = tmp_path / "club.sqlite"
    done = league(
        tmp_path, "create", "--db", str(db), "--seed", seed, "--target", target, "--batch", batch
    )
    assert done.returncode == 0, done.stderr
    for name, command in bots:
        done = league(tmp_path, "add", "--db", str(db), name, command, "--sandbox", "none")
        assert done.returncode == 0, done.stderr
        assert f"added {name}@1" in done.stdout
    return db


def made(tmp_path: Path, *bots: tuple[str, str], seed: int = 5, batch: int = 2) -> Path:
    """The same league as :func:`created`, made in this process (quicker, for the tests of what
    happens after): the command's create and add are tested above."""
    db = tmp_path / "club.sqlite"
    store = leagues.create(db, leagues.Settings(seed=seed, target=150.0, batch=batch))
    try:
        for name, command in bots:
            spec = resolve(command, name=name)
            assert leagues.add(store, spec, Venue("none")) == f"{name}@1"
    finally:
        store.close()
    return db


def standings(tmp_path: Path, db: Path, *more: str) -> list[dict[str, object]]:
    done = league(tmp_path, "standings", "--db", str(db), "--format", "json", *more)
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, object]] = json.loads(done.stdout)
    return rows


def test_bots_join_update_and_retire_while_the_league_keeps_its_history(tmp_path: Path) -> None:
    db = created(tmp_path, ("random", "random"), ("greedy", "greedy"))
    done = league(tmp_path, "run", "--db", str(db), "--pairings", "3", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    assert "8 games played" in done.stdout, "whole batches: 2 batches of 2 pairings"
    # a duplicate name is refused with what to do instead
    done = league(tmp_path, "add", "--db", str(db), "greedy", "strong")
    assert done.returncode == 2 and "league update greedy" in done.stderr
    # the same program is no new version; another program is
    done = league(tmp_path, "update", "--db", str(db), "greedy")
    assert done.returncode == 0 and "unchanged" in done.stdout
    done = league(tmp_path, "update", "--db", str(db), "greedy", "strong", "--sandbox", "none")
    assert done.returncode == 0 and "added greedy@2" in done.stdout
    done = league(tmp_path, "retire", "--db", str(db), "random")
    assert done.returncode == 0 and "retired random@1" in done.stdout
    done = league(tmp_path, "retire", "--db", str(db), "random")
    assert done.returncode == 2 and "retired already" in done.stderr
    # a new bot enters while the league has history
    done = league(tmp_path, "add", "--db", str(db), "mine", f"{sys.executable} {MYBOT}")
    assert done.returncode == 0, done.stderr
    done = league(tmp_path, "run", "--db", str(db), "--pairings", "4", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    current = {row["version"]: row for row in standings(tmp_path, db)}
    assert set(current) == {"greedy@2", "mine@1"}
    assert all(row["games"] for row in current.values()), "the newcomers played"
    every = {row["version"]: row for row in standings(tmp_path, db, "--all")}
    assert set(every) == {"random@1", "greedy@1", "greedy@2", "mine@1"}
    assert every["random@1"]["active"] is False and every["greedy@1"]["active"] is False
    before = every["greedy@1"]["games"]
    assert isinstance(before, int) and before > 0
    # the retired versions played no more after they left
    store = Store.open(db, readonly=True)
    try:
        state = leagues.load(store)
        games = list(store.games(records=False))
    finally:
        store.close()
    # the report reads a league: every version rated, which ones are still scheduled
    done = gin_arena(
        "report", "--db", str(db), "--json", "-o", "r.json", cwd=tmp_path, timeout=LONG
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["source"]["kind"] == "league"
    assert set(report["league"]["active"]) == {"greedy@2", "mine@1"}
    assert set(report["league"]["retired"]) == {"random@1", "greedy@1"}
    assert {row["name"] for row in report["standings"]} == set(every)
    last_batch_pairs = {frozenset((p.a, p.b)) for p in state.unapplied}
    assert all("random@1" not in pair and "greedy@1" not in pair for pair in last_batch_pairs)
    assert len({g.id for g in games}) == len(games), "no game twice"


def test_a_program_changed_without_an_update_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    shutil.copy(MYBOT, bot)
    db = made(tmp_path, ("greedy", "greedy"), ("mine", f"{sys.executable} {bot}"))
    bot.write_text(bot.read_text() + "\n# a new version\n")
    done = league(tmp_path, "run", "--db", str(db), "--pairings", "2", "--sandbox", "none")
    assert done.returncode == 2
    assert "mine@1's program changed since it joined" in done.stderr
    assert "league update mine" in done.stderr
    done = league(tmp_path, "update", "--db", str(db), "mine", "--sandbox", "none")
    assert done.returncode == 0 and "added mine@2" in done.stdout
    done = league(tmp_path, "run", "--db", str(db), "--pairings", "2", "--sandbox", "none")
    assert done.returncode == 0, done.stderr


def test_the_same_seed_and_events_give_the_same_games(tmp_path: Path) -> None:
    logs = []
    for run in ("a", "b"):
        where = tmp_path / run
        where.mkdir()
        db = made(where, ("random", "random"), ("greedy", "greedy"), ("strong", "strong"))
        store = Store.open(db, lock=True)
        try:
            progress = leagues.run(store, 1, Venue("none"), pairings=4)
            assert progress.games == 8 and progress.pairings == 4
            schedule = [d for _, kind, d in store.log() if kind == "schedule"]
            games = [(g.id, g.seats, g.winner, g.seed) for g in store.games(records=False)]
        finally:
            store.close()
        logs.append((schedule, sorted(games)))
    assert logs[0] == logs[1]
    assert len(logs[0][0]) == 2, "two batches of two pairings"


def test_a_league_database_is_not_a_tournament_s_and_bad_input_says_so(tmp_path: Path) -> None:
    db = created(tmp_path, ("random", "random"))
    done = gin_arena("ratings", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 2 and "league standings --db" in done.stderr
    done = league(tmp_path, "create", "--db", str(db))
    assert done.returncode == 2 and "already exists" in done.stderr
    done = league(tmp_path, "add", "--db", str(tmp_path / "none.sqlite"), "x", "greedy")
    assert done.returncode == 2 and "no tournament database" in done.stderr
    done = league(tmp_path, "create", "--db", str(tmp_path / "t.sqlite"), "--target", "-3")
    assert done.returncode == 2 and "--target" in done.stderr
    done = league(tmp_path, "retire", "--db", str(db), "nobody")
    assert done.returncode == 2 and "no bot or version 'nobody'" in done.stderr
    done = league(tmp_path, "standings", "--db", str(db))
    assert done.returncode == 0 and "random@1" in done.stdout and "no games yet" in done.stdout
    tournament = tmp_path / "t2.sqlite"
    done = gin_arena(
        "tournament",
        "--bot",
        "a=random",
        "--bot",
        "b=greedy",
        "--games-per-table",
        "2",
        "--db",
        str(tournament),
        "--sandbox",
        "none",
        cwd=tmp_path,
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    done = league(tmp_path, "standings", "--db", str(tournament))
    assert done.returncode == 2 and "not a league's" in done.stderr


def killed_mid_pairing(tmp_path: Path, db: Path, *args: str, after: int = 1) -> None:
    """``league run --db DB ARGS`` killed with SIGKILL once ``after`` games or more are in, at
    an odd count: between the two games of a pairing."""
    runner = start_gin_arena(
        *("league", "run", "--db", str(db), *args, "--sandbox", "none"),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + LEAGUE
        while time.monotonic() < deadline and runner.poll() is None:
            with sqlite3.connect(db) as connection:
                (games,) = connection.execute("SELECT COUNT(*) FROM games").fetchone()
            if games >= after and games % 2 == 1:
                break
            time.sleep(0.01)
        runner.send_signal(signal.SIGKILL)
    finally:
        runner.wait(timeout=LONG)
    assert runner.returncode == -signal.SIGKILL, "killed mid-run"


def test_a_run_killed_mid_batch_resumes_with_nothing_lost_or_played_twice(tmp_path: Path) -> None:
    db = made(tmp_path, ("random", "random"), ("greedy", "greedy"), ("strong", "strong"))
    killed_mid_pairing(tmp_path, db, "--pairings", "40", after=3)  # mid-pairing, mid-batch
    done = league(tmp_path, "run", "--db", str(db), "--pairings", "2", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    store = Store.open(db, readonly=True)
    try:
        state = leagues.load(store)  # the history replays to the same pairings
        ids = sorted(g.id for g in store.games(records=False))
    finally:
        store.close()
    assert ids == list(range(1, 2 * state.league.issued + 1)), "every pairing's games, once"


@pytest.mark.slow
def test_the_league_agrees_with_a_full_round_robin(tmp_path: Path) -> None:
    """Run until every bot is settled at the target; a round-robin of the same bots (its own
    deals) gives an Elo gap inside the league's intervals. (A bot that loses every game, such as
    random against these, settles only slowly: its games carry little information.)"""
    bots = (
        ("greedy", "greedy"),
        ("twin", f"{sys.executable} -m bots.greedy"),
        ("strong", "strong"),
    )
    db = created(tmp_path, *bots, batch="8")
    done = league(tmp_path, "run", "--db", str(db), "--sandbox", "none", timeout=LEAGUE)
    assert done.returncode == 0, done.stderr
    assert "every active bot is settled" in done.stdout
    rows = {row["bot"]: row for row in standings(tmp_path, db)}
    robin = tmp_path / "rr.sqlite"
    done = gin_arena(
        "tournament",
        *(f"--bot={name}={command}" for name, command in bots),
        "--games-per-table",
        "100",
        "--db",
        str(robin),
        "--sandbox",
        "none",
        "--format",
        "json",
        cwd=tmp_path,
        timeout=LEAGUE,
    )
    assert done.returncode == 0, done.stderr
    table = {bot["name"]: bot for bot in json.loads(done.stdout)["bots"]}
    for a, b in (("strong", "greedy"), ("strong", "twin"), ("greedy", "twin")):
        league_gap = float(rows[a]["elo"]) - float(rows[b]["elo"])  # type: ignore[arg-type]
        robin_gap = table[a]["elo"] - table[b]["elo"]
        slack = sum(
            (float(r["ci95"][1]) - float(r["ci95"][0])) / 2  # type: ignore[index]
            for r in (rows[a], rows[b])
        )
        assert abs(league_gap - robin_gap) <= slack, (a, b, league_gap, robin_gap, slack)
