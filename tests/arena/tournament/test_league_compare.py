"""``league compare``: is the new version better? The compare's log entry replays (the same
pairings reserved, the same verdict, from a snapshot too, and after a run stopped mid-batch),
its pairings lead each batch while it runs and stop at its verdict, and each way it closes (H1,
H0, undecided, stopped) is reached. The bookkeeping is tested with drawn games (the runner's
``play`` replaced, as in ``test_league_snapshot``); the command with real games of the built-in
bots, and bad compares as a user types them."""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import LONG, ROOT, gin_arena
from test_league_command import killed_mid_pairing
from test_league_snapshot import drawn, enter, same

from arena.seats.botspec import resolve
from arena.stats.league import Join, League, LeagueError
from arena.tournament import compare
from arena.tournament import league as leagues
from arena.tournament.runner import Venue
from arena.tournament.store import GameRow, Store


@pytest.fixture
def drawn_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leagues, "play", drawn)


def versions_league(path: Path, *, batch: int = 4, new: str = "strong") -> Store:
    """mine@1 (random) and mine@2 (``new``, kept beside it), and two others."""
    store = leagues.create(path, leagues.Settings(seed=11, target=40.0, batch=batch))
    enter(store, "mine", "random")
    enter(store, "rival", "greedy")
    enter(store, "third", "strong")
    enter(store, "mine", new)  # a join: --keep
    return store


def opened(store: Store, new: str = "mine@2", old: str = "mine@1", **given: Any) -> None:
    compare.open_compare(store, leagues.load(store), new, old, **given)


def schedules(store: Store) -> list[dict[str, Any]]:
    return [data for _, kind, data in store.log() if kind == "schedule"]


def outcome(store: Store) -> compare.Outcome:
    (found,) = compare.outcomes(leagues.view(store))
    return found


def test_reserved_pairings_come_first_in_a_batch_and_are_checked() -> None:
    league = League(seed=1)
    league.extend(Join(n, f"{n}@1") for n in ("a", "b", "c", "d"))
    issued = league.next_pairings(4, [("a@1", "b@1"), ("a@1", "b@1")])
    assert [(p.a, p.b) for p in issued[:2]] == [("a@1", "b@1")] * 2
    assert [p.index for p in issued] == [0, 1, 2, 3] and len(issued) == 4
    with pytest.raises(LeagueError):
        league.next_pairings(1, [("a@1", "b@1"), ("c@1", "d@1")])  # more than the batch
    with pytest.raises(LeagueError, match="unknown version 'z@1'"):
        league.next_pairings(2, [("a@1", "z@1")])


def test_a_compare_reserves_half_of_each_batch_until_its_verdict(
    tmp_path: Path, drawn_games: None
) -> None:
    store = versions_league(tmp_path / "club.sqlite")
    try:
        leagues.run(store, 1, Venue("none"), pairings=8)  # two batches before the compare
        opened(store, elo1=100.0)
        leagues.run(store, 1, Venue("none"), pairings=40)
        found = outcome(store)
        batches = schedules(store)
    finally:
        store.close()
    assert found.state == "H1" and found.compare.number == 1
    assert found.pairings == 12, "a sweep at elo1 100 reaches the bound at 12 pairs"
    assert found.scheduled == 12 and found.pentanomial.counts == (0, 0, 0, 0, 12)
    assert "compares" not in batches[0] and "compares" not in batches[1]
    comparing = [b for b in batches if "compares" in b]
    assert len(comparing) == 6, "two pairings a batch of four: six batches to 12"
    for batch in comparing:
        assert batch["compares"] == [[1, 2]]
        assert [(a, b) for _, a, b in batch["pairings"][:2]] == [("mine@2", "mine@1")] * 2
    after = batches[batches.index(comparing[-1]) + 1 :]
    assert after and all("compares" not in b for b in after), "closed: nothing reserved"
    summary = compare.summary(found)
    assert summary.startswith("mine@2 v mine@1: H1 accepted (mine@2 is better, by at least 100")
    assert "LLR +2.96 >= +2.94" in summary and "over 12 pairings" in summary
    assert summary.endswith("false positive at most 5%, false negative at most 5%")


def test_running_compares_share_the_reserved_half_the_oldest_first(
    tmp_path: Path, drawn_games: None
) -> None:
    store = versions_league(tmp_path / "club.sqlite", batch=8)
    try:
        enter(store, "rival", "strong")  # rival@2, beside rival@1
        opened(store, max_pairings=1)
        opened(store, "rival@2", "rival@1")
        leagues.run(store, 1, Venue("none"), pairings=16)
        first, second = schedules(store)
        state = leagues.view(store)
    finally:
        store.close()
    assert first["compares"] == [[1, 1], [2, 3]], "half of 8; #1 has room for one only"
    assert [(a, b) for _, a, b in first["pairings"][:4]] == [("mine@2", "mine@1")] + [
        ("rival@2", "rival@1")
    ] * 3
    assert len(first["pairings"]) == 8, "the scheduler fills the other half"
    assert second["compares"] == [[2, 4]], "#1 is done scheduling: #2 has the half alone"
    assert state.compares.reserved == {1: [0], 2: [1, 2, 3, 8, 9, 10, 11]}


def test_the_history_with_a_compare_replays_to_the_same_league(
    tmp_path: Path, drawn_games: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(leagues, "SNAPSHOT_EVERY", 12)  # a snapshot mid-compare
    store = versions_league(tmp_path / "club.sqlite")
    try:
        opened(store, elo1=50.0)
        leagues.run(store, 1, Venue("none"), pairings=40)
        assert store.snapshot() is not None
        once, twice = leagues.load(store), leagues.load(store)
        whole = leagues.load(store, snapshot=False)
        verdicts = [compare.compares_json(leagues.view(store)) for _ in range(2)]
    finally:
        store.close()
    for other in (twice, whole):
        same(once, other)
        assert other.compares.reserved == once.compares.reserved
    assert once.compares.reserved[1], "pairings were reserved"
    assert verdicts[0] == verdicts[1] and verdicts[0][0]["state"] == "running"


def stop_after(games: int) -> Callable[[GameRow], None]:
    """An ``on_game`` that stops the run (as Ctrl-C does) once ``games`` games are committed."""
    seen: list[GameRow] = []

    def on_game(row: GameRow) -> None:
        seen.append(row)
        if len(seen) == games:
            raise KeyboardInterrupt

    return on_game


def test_a_run_stopped_mid_compare_goes_on_to_the_same_history(
    tmp_path: Path, drawn_games: None
) -> None:
    """One league played straight on; its twin stopped mid-batch (Ctrl-C after a pairing's first
    game, as kill -9 would leave it) and run again: the same log, games and verdict."""
    histories = []
    for name, stops in (("straight", False), ("stopped", True)):
        store = versions_league(tmp_path / f"{name}.sqlite")
        try:
            opened(store, elo1=100.0)
            if stops:
                with pytest.raises(KeyboardInterrupt):  # mid-pairing, in the second batch
                    leagues.run(store, 1, Venue("none"), pairings=40, on_game=stop_after(11))
                assert outcome(store).state == "running"
                left = 40 - 4 * len(schedules(store))
                assert left == 32
            else:
                left = 40
            leagues.run(store, 1, Venue("none"), pairings=left)
            games = sorted((g.id, g.winner) for g in store.games(records=False))
            histories.append(([(k, d) for _, k, d in store.log()], games, outcome(store)))
        finally:
            store.close()
    (log, games, found), (log_again, games_again, found_again) = histories
    assert len(log) == len(log_again) and log == log_again
    assert games == games_again and found == found_again and found.state == "H1"


def test_worse_undecided_and_retired_compares_close_as_such(
    tmp_path: Path, drawn_games: None
) -> None:
    store = versions_league(tmp_path / "club.sqlite")
    try:
        opened(store, "mine@1", "mine@2", elo1=100.0)  # random is not better than strong
        leagues.run(store, 1, Venue("none"), pairings=48)
        opened(store, "mine@2", "mine@1", elo0=-1000.0, elo1=1000.0, max_pairings=2)
        leagues.run(store, 1, Venue("none"), pairings=8)
        first, second = compare.outcomes(leagues.view(store))
        assert first.state == "H0" and second.state == "undecided"
        assert second.scheduled == 2 and second.pairings == 2
        worse = compare.summary(first)
        assert "H0 accepted (mine@1 is not better by more than 0 Elo), LLR -" in worse
        assert "undecided after its 2 pairings" in compare.summary(second)
        opened(store, elo1=5.0)
        leagues.run(store, 1, Venue("none"), pairings=8)
        store.add_log("retire", {"version": "mine@1"})
        leagues.run(store, 1, Venue("none"), pairings=8)
        third = compare.outcomes(leagues.view(store))[2]
        reserved = [b for b in schedules(store)[-2:] if "compares" in b]
    finally:
        store.close()
    assert third.state == "stopped" and "(mine@1 retired)" in compare.summary(third)
    assert not reserved, "a compare of a retired version reserves nothing"


# ---------------------------------------------------------------------------------------------
# The command, with real games.


def league(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return gin_arena("league", *args, cwd=tmp_path, timeout=LONG)


DOC = ROOT / "docs" / "LEAGUE.md"
EXTRA = {"add": ("--sandbox", "none"), "update": ("--sandbox", "none")}
EXTRA["run"] = ("--sandbox", "none", "--concurrency", "1")
"""What each command of the example gets besides (a test runs no sandbox; one worker is quicker
for so few games, and the league's games do not depend on it)."""


def example() -> list[tuple[list[str], str]]:
    """The commands of docs/LEAGUE.md's compare example, each with what it prints."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Is the new version better?") :]
    block = section[section.index("```console\n") + len("```console\n") :]
    block = block[: block.index("```")]
    steps: list[tuple[list[str], str]] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ gin-arena "):
            steps.append((shlex.split(line[len("$ gin-arena ") :]), ""))
        else:
            steps[-1] = (steps[-1][0], steps[-1][1] + line)
    return steps


def test_the_example_in_the_docs_is_what_real_games_print_and_reaches_h1(
    tmp_path: Path,
) -> None:
    """A version that plays as greedy against one that plays at random, with real games of the
    built-in bots, by the commands of docs/LEAGUE.md: each prints what the page shows."""
    steps = example()
    assert [args[:2] for args, _ in steps][-4:] == [
        ["league", "update"],
        ["league", "compare"],
        ["league", "run"],
        ["league", "compare"],
    ]
    for args, shown in steps:
        done = gin_arena(*args, *EXTRA.get(args[1], ()), cwd=tmp_path, timeout=LONG)
        assert done.returncode == 0, done.stderr
        assert done.stdout == shown, f"gin-arena {shlex.join(args)}"
        if args[1] == "run":
            verdict = "compare #1: mine@2 v mine@1: H1 accepted (mine@2 is better, by at least"
            assert verdict in done.stderr, "the run says so as the compare closes"
    db = tmp_path / "club.sqlite"
    done = league(tmp_path, "standings", "--db", str(db), "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {row["version"]: row for row in json.loads(done.stdout)}
    (entry,) = rows["mine@2"]["compares"]
    assert rows["mine@1"]["compares"] == [entry] and rows["rival@1"]["compares"] == []
    assert entry["state"] == "H1" and entry["pairings"] == 8 and entry["new"] == "mine@2"
    assert entry["pentanomial"] == [0, 0, 0, 0, 8] and entry["summary"] in steps[-1][1]
    assert entry["llr"] >= entry["bounds"][1] and entry["elo_interval"][0] > 0
    store = Store.open(db, readonly=True)
    try:
        reserved = [d.get("compares") for _, k, d in store.log() if k == "schedule"]
    finally:
        store.close()
    assert reserved == [[[1, 4]]] * 2 + [None], "two batches for it, then none"


def test_with_no_compares_the_listing_says_how_to_open_one(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite"
    leagues.create(db, leagues.Settings(seed=1)).close()
    done = league(tmp_path, "compare", "--db", str(db))
    assert done.returncode == 0
    assert done.stdout == f"no compares yet: gin-arena league compare --db {db} NEW OLD\n"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("mine@9", "mine@1"), "the league has no version 'mine@9': mine's versions are mine@1, "),
        (("mine", "mine@1"), "the league has no version 'mine': mine's versions are"),
        (("mine@2", "rival@1"), "versions of different bots (mine, rival)"),
        (("mine@2", "mine@2"), "not mine@2 with itself"),
        (("mine@2",), "name both versions: gin-arena league compare mine@2 OLD"),
        (("mine@2", "mine@1", "--elo1", "-1"), "--elo1 (-1) must be above --elo0 (0)"),
        (("mine@2", "mine@1", "--alpha", "0.7"), "--alpha 0.7 must be between 0 and 0.5"),
    ],
)
def test_a_bad_compare_says_what_to_do_in_one_line(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    db = tmp_path / "club.sqlite"
    store = leagues.create(db, leagues.Settings(seed=1))
    try:
        for name, program in (("mine", "random"), ("rival", "greedy"), ("mine", "greedy")):
            enter(store, name, program)
    finally:
        store.close()
    done = league(tmp_path, "compare", "--db", str(db), *args)
    assert done.returncode == 2, done.stdout
    assert says in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_retired_version_and_a_compare_running_twice_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "club.sqlite"
    store = leagues.create(db, leagues.Settings(seed=1))
    try:
        for name, program in (("mine", "random"), ("mine", "greedy"), ("mine", "strong")):
            enter(store, name, program)
        store.add_log("retire", {"version": "mine@1"})
    finally:
        store.close()
    done = league(tmp_path, "compare", "--db", str(db), "mine@2", "mine@1")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "mine@1 is retired: a compare plays both versions" in done.stderr
    assert league(tmp_path, "compare", "--db", str(db), "mine@3", "mine@2").returncode == 0
    done = league(tmp_path, "compare", "--db", str(db), "mine@2", "mine@3")
    assert done.returncode == 2 and "compare #1 of mine@3 v mine@2 is still running" in (
        done.stderr
    )


def test_a_run_killed_mid_compare_goes_on_to_the_same_verdict(tmp_path: Path) -> None:
    """kill -9 in the middle of a pairing of the compare's first batch; the next run plays the
    missing game first, and the compare reaches the verdict of the docs' example, at the same
    pairing (the league of the example, entered in this process)."""
    db = tmp_path / "club.sqlite"
    store = leagues.create(db, leagues.Settings(seed=3))
    try:
        for name in ("mine", "rival"):
            leagues.add(store, resolve("random", name=name), Venue("none"))
        leagues.update(store, "mine", resolve("greedy", name="mine"), Venue("none"), keep=True)
        opened(store, elo1=200.0)
    finally:
        store.close()
    run = ("--pairings", "24", "--concurrency", "1")
    killed_mid_pairing(tmp_path, db, *run)  # in the first batch: 4 of its 8 are the compare's
    done = league(tmp_path, "run", "--db", str(db), *run, "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    shown = example()[-1][1].splitlines()[0]  # the docs' verdict
    assert f"compare #1: {shown[3:]}" in done.stderr
    store = Store.open(db, readonly=True)
    try:
        state = leagues.view(store)
        ids = sorted(g.id for g in store.games(records=False))
    finally:
        store.close()
    assert ids == list(range(1, 2 * state.league.issued + 1)), "every pairing's games, once"
    assert compare.listed(state)[0] == shown
