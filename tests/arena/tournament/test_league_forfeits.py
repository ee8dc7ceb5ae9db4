"""A league's forfeits and broken versions, played for real: a Perl bot that dies on its first
request joins with ``league add``; ``league run`` says it is broken (its reason and last words)
and leaves it out; ``league standings`` (table, JSON, CSV) counts its forfeits by reason as a
tournament does; ``update`` brings it back as a new version. And the rule replays: derived from
the games in the order they are applied, a league opened from its history or from a snapshot
finds the same versions broken and issues the same pairings."""

from __future__ import annotations

import json
import random
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from arena_support import HOSTILE
from support import LONG, ROOT, gin_arena

from arena.play.match import Planned
from arena.seats.botspec import resolve
from arena.seats.connection import FAILURE_REASONS
from arena.stats.league import Pairing
from arena.tournament import league as leagues
from arena.tournament.config import Task, bot_digest
from arena.tournament.league_health import Health
from arena.tournament.league_table import FIELDS, NESTED, csv_rows, render_table, standings_json
from arena.tournament.runner import Committer, Venue
from arena.tournament.store import GameRow, Store

CRASHY = f"perl {HOSTILE / 'crash_first.pl'}"
LAST_WORDS = (
    "exited with code 255; its last words on stderr: 'crashy: thinking about the first move' / "
    "'Can\\'t locate object method \"think\" \\x1b]0;pwned\\x07 at crash_first.pl line 15.'"
)


RUN = ("run", "--sandbox", "none", "--concurrency", "1", "--db")
"""One worker: two workers starting one bot at once, without a sandbox, share its working
directory, and one may find it gone (a race of ``fresh_workdir``, not of the league)."""


def league(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return gin_arena("league", *args, cwd=tmp_path, timeout=LONG)


def made(tmp_path: Path, *bots: tuple[str, str]) -> Path:
    """A league of ``bots`` in batches of 2 pairings, made in this process (each bot probed as
    ``league add`` probes it): the command's own create and add are run in the first test."""
    db = tmp_path / "club.sqlite"
    store = leagues.create(db, leagues.Settings(seed=5, batch=2))
    try:
        for name, command in bots:
            assert leagues.add(store, resolve(command, name=name), Venue("none")) == f"{name}@1"
    finally:
        store.close()
    return db


def viewed(db: Path) -> leagues.State:
    store = Store.open(db, readonly=True)
    try:
        return leagues.view(store)
    finally:
        store.close()


def test_a_bot_that_crashes_at_once_is_broken_named_and_left_out(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite"
    done = league(tmp_path, "create", "--db", str(db), "--seed", "5", "--batch", "2")
    assert done.returncode == 0, done.stderr
    for name, command in (("greedy", "greedy"), ("crashy", CRASHY)):
        done = league(tmp_path, "add", "--db", str(db), name, command, "--sandbox", "none")
        assert done.returncode == 0 and f"added {name}@1" in done.stdout, done.stderr
    done = league(tmp_path, *RUN, str(db), "--pairings", "2")
    assert done.returncode == 0, done.stderr
    assert (
        "crashy@1 is broken: all 4 games of its first 2 pairings forfeited (crash: "
        f"{LAST_WORDS}); left out until `gin-arena league update crashy`"
    ) in done.stdout
    assert (
        "stopped: every active bot but greedy@1 is broken (crashy@1): gin-arena league update "
        "NAME enters a new version"
    ) in done.stdout
    assert "\x1b" not in done.stdout + done.stderr
    # The table: the forfeits by reason, with the tournament's note, and the broken status.
    table = league(tmp_path, "standings", "--db", str(db))
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == [
        "#", "bot", "Elo", "95%", "interval", "games", "won", "lost", "drawn", "crash", "status"
    ]  # fmt: skip
    crashy = next(line for line in lines if "crashy@1" in line)
    assert crashy.split()[6:11] == ["4", "0", "4", "0", "4"], "games, won, lost, drawn, crash"
    assert crashy.endswith(f"broken (crash: {LAST_WORDS})")
    assert "crash: games forfeited for that reason (t/o: on time)" in lines
    # JSON: the same, as fields.
    done = league(tmp_path, "standings", "--db", str(db), "--format", "json")
    rows = {row["version"]: row for row in json.loads(done.stdout)}
    assert set(rows) == {"greedy@1", "crashy@1"}, "a broken version is shown until its update"
    row = rows["crashy@1"]
    assert row["status"] == "broken" and row["active"] is False
    assert row["forfeits"] == {**dict.fromkeys(FAILURE_REASONS, 0), "crash": 4}
    assert row["broken"] == {
        "reason": "crash",
        "message": LAST_WORDS,
        "games": 4,
        "pairings": 2,
        "first_game": row["broken"]["first_game"],
    }
    assert rows["greedy@1"]["forfeits"] == dict.fromkeys(FAILURE_REASONS, 0)
    # CSV: the same fields, flattened.
    flat = {r[1]: dict(zip(*[csv_rows(list(rows.values()))[0], r], strict=True)) for r in
            csv_rows(list(rows.values()))[1:]}  # fmt: skip
    assert flat["crashy@1"]["forfeits_crash"] == 4
    assert flat["crashy@1"]["broken_reason"] == "crash"
    done = league(tmp_path, "retire", "--db", str(db), "crashy")
    assert done.returncode == 2 and "crashy@1 is broken: it is left out of scheduling already" in (
        done.stderr
    )
    # An update enters a new version, scheduled again; the broken one is replaced by it.
    done = league(tmp_path, "update", "--db", str(db), "crashy", "random", "--sandbox", "none")
    assert done.returncode == 0 and "added crashy@2" in done.stdout, done.stderr
    done = league(tmp_path, *RUN, str(db), "--pairings", "2")
    assert done.returncode == 0, done.stderr
    assert "4 games played" in done.stdout and "is broken" not in done.stdout
    state = viewed(db)
    every = {row["version"]: row for row in standings_json(state, all_versions=True)}
    assert every["crashy@1"]["replaced_by"] == "crashy@2" and every["crashy@1"]["games"] == 4
    assert every["crashy@2"]["replaces"] == "crashy@1" and every["crashy@2"]["status"] == "playing"
    table = render_table(list(every.values()), state)
    assert f"broken (crash: {LAST_WORDS}); replaced by crashy@2" in table
    assert "crashy@2 (replaces crashy@1)" in table


def test_a_broken_version_is_left_out_of_the_scheduling_that_follows(tmp_path: Path) -> None:
    db = made(tmp_path, ("greedy", "greedy"), ("random", "random"), ("crashy", CRASHY))
    told: list[leagues.Broken] = []
    store = Store.open(db, lock=True)
    try:
        leagues.run(store, 1, Venue("none"), pairings=8, on_broken=told.append)
        batches = [data["pairings"] for _, kind, data in store.log() if kind == "schedule"]
        games = [g for g in store.games(records=False) if "crashy@1" in g.seats]
    finally:
        store.close()
    assert [(b.version, b.reason, b.games, b.pairings) for b in told] == [
        ("crashy@1", "crash", 4, 2)
    ]
    seen = [k for k, batch in enumerate(batches) for _, a, b in batch if "crashy@1" in (a, b)]
    assert len(seen) >= 2 and all(k <= seen[1] for k in seen), "none after its second pairing"
    assert len(batches) == 4 and all(g.failed == "crashy@1" and g.reason == "crash" for g in games)


# ---------------------------------------------------------------------------------------------
# The rule replays (the games drawn, not played: the bookkeeping is what is tested).


def drawn(
    jobs: Sequence[tuple[dict[str, Any], Task]], commit: Committer, *_: Any, **__: Any
) -> None:
    """Stands in for the runner's ``play``: a version of bot ``crashy`` forfeits every game, any
    other game is won by a side drawn from its seed."""
    for config, task in jobs:
        names = [names["name"] for names in config["bots"]]
        commit([_game(game, *(names[task.table[s]] for s in game.seats)) for game in task.games])


def _game(game: Planned, first: str, second: str) -> GameRow:
    crashed = next((n for n in (first, second) if n.startswith("crashy@")), None)
    if crashed is not None:
        winner = second if crashed == first else first
    else:
        winner = random.Random(f"{game.seed}:{game.number}").choice((first, second))
    reason, message = ("crash", "died") if crashed else ("score", "")
    points = (100 * (winner == first), 100 * (winner == second))
    return GameRow(game.number, first, second, game.seed, winner, reason, crashed, message, "",
                   *points, 1, 0.0, "")  # fmt: skip


def enter(store: Store, name: str, program: str) -> None:
    """What ``league add`` logs, without probing the program."""
    spec = resolve(program, name=leagues.version_name(name, 1))
    store.set_bot(spec.name, spec.command_line, "1", bot_digest(spec))
    store.add_log("join", {"bot": name, "spec": leagues.spec_json(spec)})


def test_broken_versions_replay_from_the_history_and_from_a_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(leagues, "SNAPSHOT_EVERY", 6)
    monkeypatch.setattr(leagues, "play", drawn)
    store = leagues.create(tmp_path / "l.sqlite", leagues.Settings(seed=3, batch=2))
    try:
        for k, program in enumerate(["random", "greedy", "strong", "random"]):
            enter(store, f"b{k}", program)
        leagues.run(store, 1, Venue("none"), pairings=8)
        enter(store, "crashy", "random")
        told: list[str] = []
        leagues.run(
            store, 1, Venue("none"), pairings=16, on_broken=lambda b: told.append(b.version)
        )
        assert told == ["crashy@1"]
        snapshot, full = leagues.load(store), leagues.load(store, snapshot=False)
        assert store.snapshot() is not None
        assert snapshot.league.snapshot() == full.league.snapshot()
        assert snapshot.health.to_json() == full.health.to_json()
        assert "crashy@1" in full.health.broken and "crashy@1" not in full.league.active
        rows = {row["version"]: row for row in standings_json(leagues.view(store))}
        assert rows["crashy@1"]["status"] == "broken"
    finally:
        store.close()


def test_a_league_from_before_the_rule_never_breaks_a_version() -> None:
    """Its history was scheduled without the rule: replayed with it, it would not replay."""
    settings = leagues.Settings(seed=1).to_json()
    assert settings["broken_after"] == leagues.BROKEN_AFTER == 2
    del settings["broken_after"]
    assert leagues.Settings.from_json(settings, "old.sqlite").broken_after == 0
    assert Health(0).take(Pairing(0, "a@1", "b@1"), []) == []


def test_a_run_rounded_up_to_a_whole_batch_says_so(tmp_path: Path) -> None:
    db = made(tmp_path, ("greedy", "greedy"), ("random", "random"))
    done = league(tmp_path, *RUN, str(db), "--pairings", "1")
    assert done.returncode == 0, done.stderr
    assert "stopped: 2 pairings: --pairings 1, rounded up to a whole batch of 2" in done.stdout
    assert leagues.played(8, 8, 8) == "8 pairings played, as --pairings asked"
    assert leagues.played(16, 10, 8) == (
        "16 pairings: --pairings 10, rounded up to whole batches of 8"
    )


def test_versions_are_shown_as_replacements_with_the_change_between_them(tmp_path: Path) -> None:
    db = made(tmp_path, ("greedy", "greedy"), ("random", "random"), ("mine", "greedy"))
    store = Store.open(db, lock=True)
    try:
        leagues.run(store, 1, Venue("none"), pairings=8)
        assert leagues.update(store, "mine", resolve("random", name="mine"), Venue("none"))
        state = leagues.view(store)
        rows = {row["version"]: row for row in standings_json(state, all_versions=True)}
        new, old = rows["mine@2"], rows["mine@1"]
        assert (new["replaces"], new["replaced_by"], new["change"]) == ("mine@1", None, None)
        assert (old["status"], old["replaced_by"]) == ("replaced", "mine@2")
        placed = new["placed"]
        assert placed is not None and placed["by"] == "mine@1"
        assert abs(placed["elo"] - old["elo"]) < 150, "its predecessor's rating, as last fitted"
        table = render_table(standings_json(state), state)
        assert "mine@2 (replaces mine@1)" in table
        assert f"placed at {round(placed['elo']):+d} by mine@1; no games yet" in table
        assert "placed at: where the scheduler puts an update until it has played" in table
        table = render_table(list(rows.values()), state)
        assert "replaced by mine@2" in table
        leagues.run(store, 1, Venue("none"), pairings=8)
        state = leagues.view(store)
        rows = {row["version"]: row for row in standings_json(state, all_versions=True)}
        change = rows["mine@2"]["change"]
        assert change is not None and change["from"] == "mine@1" and rows["mine@2"]["games"]
        low, high = change["ci95"]
        assert low < change["elo"] < high
        assert abs(change["elo"] - (rows["mine@2"]["elo"] - rows["mine@1"]["elo"])) < 0.2
        assert rows["mine@2"]["placed"] is None
        table = render_table(standings_json(state), state)
        assert f"{round(change['elo']):+d} [{round(low):+d}, {round(high):+d}]" in table
        assert "change: Elo over the version before, with its 95% interval" in table
        # Kept beside the older version: no replacement, but the change all the same.
        leagues.update(store, "mine", resolve("strong", name="mine"), Venue("none"), keep=True)
        state = leagues.view(store)
        rows = {row["version"]: row for row in standings_json(state)}
        assert rows["mine@3"]["replaces"] is None and rows["mine@2"]["replaced_by"] is None
        assert {"mine@2", "mine@3"} <= set(rows)
        assert "mine@3 (beside mine@2)" in render_table(list(rows.values()), state)
    finally:
        store.close()


DOCUMENTED = re.compile(r"^\| `(?P<field>[a-z_0-9.]+)` \|", re.MULTILINE)


def test_the_documented_fields_are_the_rows_fields(tmp_path: Path) -> None:
    """docs/LEAGUE.md's table of the standings' fields lists every field of a row and of its
    objects, and nothing else."""
    text = (ROOT / "docs" / "LEAGUE.md").read_text()
    block = text.split("<!-- standings-fields -->")[1].split("<!-- /standings-fields -->")[0]
    documented = DOCUMENTED.findall(block)
    expected = [
        f"{name}.{sub}" if sub else name
        for name in FIELDS
        for sub in ("", *NESTED.get(name, ()))
        if not (sub and name == "forfeits")
    ]
    assert documented == expected
    db = made(tmp_path, ("greedy", "greedy"), ("random", "random"))
    rows = standings_json(viewed(db))
    assert all(tuple(row) == FIELDS for row in rows)
