"""Fair play among untrusted bots, the referee's side: no game can stop a run, every game ends,
clocks and ids that a bot cannot game, secret seeds, and the command-line inputs that once ended
in a traceback. (The process side, sandbox and containment, is in test_sandbox.py and
test_process.py; the decoder's bounds in tests/protocol/test_codec_limits.py.)"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from arena_support import CLOCK, hostile, wait_until
from support import LONG, QUICK, ROOT, gin_arena, start_gin_arena

import arena.play.referee
from arena.play.match import Match
from arena.play.referee import Referee
from arena.records.judge import judge
from arena.seats.botspec import BotSpec
from arena.seats.connection import InProcessConnection
from arena.tournament.store import Store, StoreError
from bots.greedy import GreedyBot
from bots.sdk import Bot
from engine.rules import HOYLE
from protocol import messages as m

NEVER_KNOCK = ROOT / "tests" / "arena" / "tournament_bots" / "never_knock.py"


def _load_never_knock() -> type[Bot]:
    """The never-knocking bot of tournament_bots/never_knock.py, to run in-process too."""
    spec = importlib.util.spec_from_file_location("never_knock", NEVER_KNOCK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bot: type[Bot] = module.NeverKnock
    return bot


NeverKnock = _load_never_knock()


def never_knock() -> BotSpec:
    return BotSpec("never", (sys.executable, str(NEVER_KNOCK)))


# -- every game ends (R22) ------------------------------------------------------------------------


def test_two_bots_that_never_knock_end_at_the_hand_limit(tmp_path: Path) -> None:
    rules = HOYLE.replace(hand_limit=20)
    referee = Referee(rules, CLOCK)
    bots = [InProcessConnection(f"never{seat}", NeverKnock) for seat in (0, 1)]
    for seat, bot in enumerate(bots):
        bot.start(referee.hello(seat), CLOCK.startup)
    outcome = referee.play_game(bots, seed=5)
    assert outcome.reason == "hand_limit"
    assert (outcome.winner, outcome.scores, outcome.hands) == (None, (0, 0), 20)


def test_a_tournament_of_bots_that_never_knock_finishes(tmp_path: Path) -> None:
    bot = shlex_join(sys.executable, str(NEVER_KNOCK))
    done = gin_arena(
        "tournament",
        *("--bot", f"a={bot}", "--bot", f"b={bot}", "--games-per-pair", "2"),
        *("--set", "hand_limit=3", "--concurrency", "1", "--db", str(tmp_path / "t.sqlite")),
        *("--sandbox", "none"),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    assert "Standings after 2 games" in done.stdout
    assert "hand limit: 2 games ended at the hand limit (R22)" in done.stdout
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        reasons = [r for (r,) in db.execute("SELECT reason FROM games ORDER BY id")]
    assert reasons == ["hand_limit", "hand_limit"]


def shlex_join(*argv: str) -> str:
    import shlex

    return shlex.join(argv)


# -- no game can stop a run -------------------------------------------------------------------


@pytest.fixture
def buggy_referee(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The referee fails while building its 30th request (a bug of its own), once."""
    real = arena.play.referee.Decision
    calls = [0]

    def decision(*fields: object) -> object:
        calls[0] += 1
        if calls[0] == 30:
            raise KeyError("a bug in the referee")
        return real(*fields)  # type: ignore[arg-type]

    monkeypatch.setattr(arena.play.referee, "Decision", decision)
    yield calls


def test_a_referee_bug_abandons_one_game_and_the_match_goes_on(
    buggy_referee: list[int], tmp_path: Path
) -> None:
    record = tmp_path / "games.jsonl"
    match = Match(
        (BotSpec("a", builtin="greedy"), BotSpec("b", builtin="random")),
        HOYLE,
        CLOCK,
        games=3,
        seed=11,
    )
    with record.open("w", encoding="utf-8") as stream:
        result = match.play(record=stream)
    reasons = [g.outcome.reason for g in result.games]
    assert reasons == ["referee", "normal", "normal"]
    abandoned = result.games[0].outcome
    assert abandoned.winner is None and abandoned.failure is None
    assert abandoned.error is not None and "KeyError: 'a bug in the referee'" in abandoned.error
    assert result.to_json()["games"][0]["reason"] == "referee"
    # The record keeps the error, and re-judges: the abandoned game up to the error included.
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    ends = [line for line in lines if line["type"] == "game_end"]
    assert ends[0]["reason"] == "referee" and "a bug in the referee" in ends[0]["error"]
    verdict = judge(record)
    assert verdict.ok, verdict.disagreement
    assert verdict.games == 3


def test_a_referee_bug_in_a_tournament_is_a_drawn_game_not_an_abort(
    buggy_referee: list[int], tmp_path: Path
) -> None:
    from arena.tournament.config import Config
    from arena.tournament.runner import run

    config = Config(
        bots=(BotSpec("a", builtin="greedy"), BotSpec("b", builtin="random")),
        games_per_pair=4,
        seed=3,
    )
    store = Store.create(tmp_path / "t.sqlite", config.to_json())
    try:
        assert run(config, store, 1) == 4
        rows = list(store.games())
    finally:
        store.close()
    assert [r.reason for r in rows].count("referee") == 1
    abandoned = next(r for r in rows if r.reason == "referee")
    assert abandoned.winner is None and abandoned.failed is None
    assert "a bug in the referee" in abandoned.message


def test_a_worker_that_dies_costs_only_its_own_games(tmp_path: Path) -> None:
    """A bot that kills its worker process: its games are abandoned, every other game is
    played, and the run finishes."""
    from arena.tournament.config import Config
    from arena.tournament.runner import run

    config = Config(
        bots=(
            BotSpec("killer", hostile("parricide.py")),
            BotSpec("g", builtin="greedy"),
            BotSpec("r", builtin="random"),
        ),
        games_per_pair=2,
        seed=4,
        clock=CLOCK,
    )
    store = Store.create(tmp_path / "t.sqlite", config.to_json())
    try:
        assert run(config, store, 2, workdir=tmp_path / "logs") == 6
        rows = list(store.games())
    finally:
        store.close()
    assert sorted(r.id for r in rows) == list(range(1, 7))
    for row in rows:
        if "killer" in (row.seat0, row.seat1):
            assert (row.reason, row.winner) == ("referee", None), row
            assert "the worker process playing it died" in row.message
        else:
            assert row.reason == "normal", row


# -- what the bots are told, and what a failure says ----------------------------------------------


class Listener(GreedyBot):
    """Greedy, noting every game_start it is sent."""

    starts: ClassVar[list[m.GameStart]] = []

    def handle(self, message: m.Message) -> m.Message | None:
        if isinstance(message, m.GameStart):
            Listener.starts.append(message)
        return super().handle(message)


def test_single_hands_are_announced_as_such() -> None:
    Listener.starts = []
    for single in (True, False):
        referee = Referee(HOYLE, CLOCK)
        bots = [InProcessConnection("l", Listener), InProcessConnection("g", GreedyBot)]
        for seat, bot in enumerate(bots):
            bot.start(referee.hello(seat), CLOCK.startup)
        referee.play_game(bots, seed=2, single_hand=single)
    assert [s.single_hand for s in Listener.starts] == [True, False]


def test_a_startup_failure_names_the_log_only_when_it_is_kept(tmp_path: Path) -> None:
    silent = shlex_join(*hostile("exit_at_once.sh"))
    scratch = gin_arena("match", silent, "greedy", "--sandbox", "none", "--startup-time", "2")
    assert scratch.returncode == 1
    assert "could not start" in scratch.stderr
    assert "gin-arena-" not in scratch.stderr  # the scratch directory is gone: not named
    assert "exit_at_once: giving up before hello" in scratch.stderr  # but its words are quoted
    kept = gin_arena(
        *("match", silent, "greedy", "--sandbox", "none", "--startup-time", "2"),
        *("--logs", str(tmp_path / "logs")),
    )
    assert kept.returncode == 1
    (log,) = (tmp_path / "logs").glob("*.stderr.log")
    assert str(log) in kept.stderr


# -- request ids a bot cannot guess -----------------------------------------------------------


def test_a_reply_written_before_its_request_is_never_taken(tmp_path: Path) -> None:
    """Whatever the timing, an early line is a protocol failure, never the answer."""
    for attempt in range(3):
        match = Match(
            (BotSpec("guesser", hostile("guesser.py")), BotSpec("g", builtin="greedy")),
            HOYLE,
            CLOCK,
            games=1,
            seed=attempt,
            workdir=tmp_path / str(attempt),
        )
        result = match.play()
        failure = result.games[0].outcome.failure
        assert failure is not None and failure.reason == "protocol", failure


def test_request_ids_are_unpredictable_and_never_repeat_back_to_back() -> None:
    referee = Referee(HOYLE)
    ids = [referee._next_id() for _ in range(2000)]
    assert all(1 <= i < 2**31 for i in ids)
    assert all(a != b for a, b in itertools.pairwise(ids))
    assert len(set(ids)) > 1990  # random, not counted upwards
    assert sorted(ids) != ids


# -- secret seeds ---------------------------------------------------------------------------------


def test_a_match_without_seed_draws_one_and_prints_it_only_at_the_end(tmp_path: Path) -> None:
    seeds = []
    for _ in range(2):
        done = gin_arena("match", "greedy", "random", "--games", "2", "--sandbox", "none")
        assert done.returncode == 0, done.stderr
        first, *_, last = done.stdout.strip().splitlines()
        assert "seed" not in first
        assert last.startswith("2 games, seed ")
        seeds.append(int(last.split()[-1]))
    assert seeds[0] != seeds[1]


# -- command-line inputs that once ended in a traceback ----------------------------------------


def test_a_record_that_cannot_be_written_stops_the_match_with_a_clear_error() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    done = gin_arena("match", "greedy", "random", "--record", "/dev/full", "--sandbox", "none")
    assert done.returncode in (1, 2), done.stderr
    assert "Traceback" not in done.stderr
    assert "/dev/full" in done.stderr


def test_an_existing_record_survives_a_match_that_cannot_start(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    record.write_text("precious\n")
    ghost = tmp_path / "no-such-bot"
    done = gin_arena("match", "greedy", str(ghost), "--record", str(record), "--sandbox", "none")
    assert done.returncode == 1
    assert record.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]  # no partial file left


def test_ctrl_c_in_a_match_keeps_a_record_that_judges_as_incomplete(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    slow = shlex_join(*hostile("slow.py", "0.05"))
    proc = start_gin_arena(
        *("match", slow, "greedy", "--games", "50"),
        *("--record", str(record), "--sandbox", "none", "--move-time", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert wait_until(lambda: any(tmp_path.glob(".games.jsonl.*.partial")), timeout=QUICK)
        assert wait_until(
            lambda: any(p.stat().st_size > 0 for p in tmp_path.glob(".games.jsonl.*.partial")),
            timeout=QUICK,
        )
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=QUICK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "interrupted after" in err
    judged = gin_arena("judge", str(record))
    # Stopped mid-game, the record is INCOMPLETE; stopped at the end of a game (the interrupt
    # landed where Python drops it, and the match stopped after the game), it is whole and OK.
    assert (judged.returncode, "INCOMPLETE" in judged.stdout) in ((1, True), (0, False)), (
        judged.stdout
    )
    assert "checked before it" not in judged.stdout  # no disagreement
    assert "Traceback" not in judged.stderr


def test_ctrl_c_in_solve_jsonl_is_quiet() -> None:
    proc = start_gin_arena(
        "solve",
        "--jsonl",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write('"AS 2S 3S 4S 7H 7D 7C KD QH 9C"\n')
        proc.stdin.flush()
        assert proc.stdout.readline()  # it is running and answering
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=QUICK)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert "Traceback" not in err


def test_check_bot_games_must_be_at_least_one_and_the_referee_lays_off() -> None:
    done = gin_arena("check-bot", "greedy", "--games", "1", "--sandbox", "none")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the referee lays off the bot's cards" in done.stdout
    for bad in ("0", "-1"):
        refused = gin_arena("check-bot", "greedy", "--games", bad)
        assert refused.returncode == 2
        assert f"argument --games: must be at least 1, got {bad}" in refused.stderr


# -- tournaments: concurrency, anchors, locks, damaged databases ---------------------------------


def test_concurrency_above_the_cores_is_refused_unless_asked_for(tmp_path: Path) -> None:
    too_many = str((os.cpu_count() or 1) + 1)
    db = tmp_path / "t.sqlite"
    done = gin_arena("tournament", "--concurrency", too_many, "--db", str(db))
    assert done.returncode == 2
    assert f"--concurrency {too_many} is more than the" in done.stderr
    assert "--oversubscribe" in done.stderr
    assert not db.exists()
    forced = gin_arena(
        "tournament",
        *("--bot", "a=greedy", "--bot", "b=random", "--games-per-pair", "2"),
        *("--concurrency", too_many, "--oversubscribe", "--db", str(db)),
    )
    assert forced.returncode == 0, forced.stderr


def test_an_unknown_anchor_is_refused_before_any_game(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    done = gin_arena("tournament", "--anchor", "nobody", "--db", str(db))
    assert done.returncode == 2
    assert "--anchor 'nobody' is not a bot of this tournament" in done.stderr
    assert not db.exists()


def small(db: Path) -> None:
    done = gin_arena(
        "tournament",
        *("--bot", "a=greedy", "--bot", "b=random", "--games-per-pair", "2"),
        *("--concurrency", "1", "--db", str(db)),
    )
    assert done.returncode == 0, done.stderr


def test_a_second_run_on_a_database_in_use_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    small(db)
    holder = Store.open(db, lock=True)  # as a tournament playing into it does
    try:
        with pytest.raises(StoreError, match="being played by another gin-arena process"):
            Store.open(db, lock=True)
        done = gin_arena("tournament", "--db", str(db), "--resume")
        assert done.returncode == 2
        assert "being played by another gin-arena process" in done.stderr
        assert "IntegrityError" not in done.stderr
        ratings = gin_arena("ratings", "--db", str(db))  # reading needs no lock
        assert ratings.returncode == 0, ratings.stderr
    finally:
        holder.close()
    assert gin_arena("tournament", "--db", str(db), "--resume").returncode == 0


def test_ratings_open_the_database_read_only(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    small(db)
    store = Store.open(db, readonly=True)
    try:
        assert store.readonly  # every read a connection of its own, opened read-only
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._read("DELETE FROM games")
    finally:
        store.close()
    assert len(Store.open(db, readonly=True).done()) > 0


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("DROP TABLE games", "is damaged (no such table: games)"),
        ("DELETE FROM meta WHERE key = 'config'", "has no configuration"),
        (
            "UPDATE meta SET value = json_remove(value, '$.clock') WHERE key = 'config'",
            "has no 'clock'",
        ),
    ],
)
def test_a_hand_edited_database_is_a_clear_error(tmp_path: Path, damage: str, message: str) -> None:
    db = tmp_path / "t.sqlite"
    small(db)
    with sqlite3.connect(db) as connection:
        connection.execute(damage)
    connection.close()
    for command in (("ratings", "--db", str(db)), ("tournament", "--db", str(db), "--resume")):
        done = gin_arena(*command)
        assert done.returncode == 2, (command, done.stderr)
        assert message in done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr


def test_the_output_names_every_forfeit_by_reason(tmp_path: Path) -> None:
    crash = shlex_join(*hostile("crash.py"))
    done = gin_arena(
        "tournament",
        *("--bot", f"crasher={crash}", "--bot", "g=greedy", "--games-per-pair", "2"),
        *("--concurrency", "1", "--db", str(tmp_path / "t.sqlite"), "--sandbox", "none"),
    )
    assert done.returncode == 0, done.stderr
    assert "forfeits: crasher lost 2 games by crashing [crash], first game 1: " in done.stdout
    # its last words, in the tournament's output as in the game's row
    assert "exited with code 3; its last words on stderr: 'crash: exiting mid-hand'" in done.stdout
