"""Hostile bots, as real subprocesses, in matches against the built-in greedy bot (in-process).

Each hostile bot misbehaves in every game it plays. For each: the failure has the right reason
(and rule ID), the opponent wins, every game ends within a generous time bound, the failing bot is
restarted for the next game, and no bot process (nor any child it started) is left behind. A bot
that cannot start stops the match with :class:`MatchError`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from arena_support import (
    CLOCK,
    GREEDY,
    assert_gone,
    game_bound,
    hostile,
    hostile_spec,
    match_bound,
    read_pids,
)
from support import gin_arena

from arena.play.match import Match, MatchError, MatchResult
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec
from arena.seats.process import LOG_LIMIT_BYTES
from engine.rules import HOYLE


@dataclass(frozen=True)
class Case:
    script: str
    args: tuple[str, ...]
    reason: str
    message: str  # a regular expression the failure message must match
    rule: str = ""


FAILING = {
    "mute": Case("mute.py", (), "timeout", r"no reply within 0\.\d+ s"),
    "crash": Case("crash.py", (), "crash", r"exited with code 3"),
    "garbage": Case("garbage.py", (), "malformed", r"not valid JSON.*I fold! \{not json"),
    "illegal-held": Case("illegal.py", ("held",), "illegal", r"is not in your hand", "R7"),
    "illegal-taken": Case(
        "illegal.py", ("taken",), "illegal", r"just taken from the discard pile", "R8"
    ),
    "wrong-id": Case("wrong_id.py", (), "protocol", r"reply has id (\d+), but the open request"),
    # A line sent when nothing was asked is caught before the next message to the bot, or, if it
    # arrives later than that, as a reply with the wrong id to the next request.
    "unsolicited": Case(
        "unsolicited.py",
        (),
        "protocol",
        r"when no request was open|reply has id 0, but the open request",
    ),
    # A line that is not a message, sent when nothing was asked: malformed, whether it is found
    # before the next message to the bot or read as the reply to the next request.
    "stray": Case("stray.py", (), "malformed", r"debug: my hand looks good"),
    "spawner": Case("spawner.sh", (), "timeout", r"no reply within"),
    "flood": Case("flood.py", (), "timeout", r"no reply within"),
}


def play(match: Match) -> tuple[MatchResult, float]:
    start = time.monotonic()
    result = match.play()
    return result, time.monotonic() - start


@pytest.mark.parametrize(
    "name",
    [  # the flood (3 MiB of stderr, then a timeout) takes some 5 s: the slow lane
        pytest.param(name, marks=pytest.mark.slow) if name == "flood" else name for name in FAILING
    ],
)
def test_a_failing_bot_forfeits_every_game_and_leaves_nothing_behind(
    name: str, tmp_path: Path
) -> None:
    case = FAILING[name]
    pidfile, childfile = tmp_path / "pids", tmp_path / "children"
    spec = hostile_spec(
        name, case.script, *case.args, pidfile=pidfile, HOSTILE_CHILDFILE=str(childfile)
    )
    match = Match(
        (spec, GREEDY), HOYLE, CLOCK, games=2, seed=11, mirror=True, workdir=tmp_path / "work"
    )
    result, seconds = play(match)

    assert len(result.games) == 2
    for report in result.games:
        failure = report.outcome.failure
        assert failure is not None, f"game {report.number} was not forfeited"
        assert (failure.reason, failure.rule) == (case.reason, case.rule), failure
        assert re.search(case.message, failure.message), failure.message
        assert report.failed == 0 and report.winner == 1
        assert report.outcome.reason == case.reason
        assert report.outcome.seconds < game_bound()
    # Mirrored: the hostile bot failed from both seats.
    assert [g.seats.index(0) for g in result.games] == [0, 1]
    assert result.failures(0) == {case.reason: 2} and result.wins(1) == 2
    assert seconds < match_bound(2)

    pids = read_pids(pidfile)
    assert len(pids) == 2, "the bot is restarted once, for the second game"
    assert_gone(pids)
    if name == "spawner":
        children = read_pids(childfile)
        assert len(children) == 2
        assert_gone(children, groups=False)


def test_descendants_that_left_the_group_end_with_the_bot(tmp_path: Path) -> None:
    """A setsid grandchild and a double-forked daemon are out of the bot's process group: the
    referee, their subreaper, kills them when it closes the bot."""
    pidfile, childfile = tmp_path / "pids", tmp_path / "children"
    spec = hostile_spec("escape", "escape.py", pidfile=pidfile, HOSTILE_CHILDFILE=str(childfile))
    result = Match((spec, GREEDY), HOYLE, CLOCK, games=1, seed=8, workdir=tmp_path).play()
    assert result.games[0].outcome.failure is None
    escapees = read_pids(childfile)
    assert len(escapees) == 2
    assert_gone(read_pids(pidfile))
    assert_gone(escapees, groups=False)


def test_error_and_game_end_reach_a_bot_whose_bad_line_came_with_more(tmp_path: Path) -> None:
    """The bot wrote a bad line, a reply and a stray message in one write: it fails for the bad
    line, and what came with it does not keep the notices from it."""
    spec = hostile_spec("burst", "burst.py", pidfile=tmp_path / "pids")
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=1, seed=6, workdir=tmp_path).play()
    failure = result.games[0].outcome.failure
    assert failure is not None and failure.reason == "malformed", failure
    log = (tmp_path / "burst.stderr.log").read_text()
    assert "got error" in log and "got game_end" in log, log


def test_wrong_id_names_the_id_it_sent(tmp_path: Path) -> None:
    spec = hostile_spec("wrong-id", "wrong_id.py", pidfile=tmp_path / "pids")
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=1, seed=5, workdir=tmp_path).play()
    failure = result.games[0].outcome.failure
    assert failure is not None and failure.seat == 1
    sent = re.search(r"reply has id (\d+), but the open request is (\d+)", failure.message)
    assert sent is not None and int(sent[1]) == int(sent[2]) + 1


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ("long", r"^not valid JSON \(.*\): 'x{200}\.\.\.'; it wrote nothing on its stderr$"),
        (
            "huge",
            r"^line of \d+ bytes is over the limit of 65536: 'x{200}(\.\.\.)?'; it wrote nothing "
            r"on its stderr$",
        ),
    ],
)
def test_a_malformed_line_is_quoted_truncated(size: str, message: str, tmp_path: Path) -> None:
    spec = hostile_spec("garbage", "garbage.py", size, pidfile=tmp_path / "pids")
    result = Match((GREEDY, spec), HOYLE, CLOCK, games=1, workdir=tmp_path).play()
    failure = result.games[0].outcome.failure
    assert failure is not None and failure.reason == "malformed"
    assert re.search(message, failure.message), failure.message
    assert_gone(read_pids(tmp_path / "pids"))


def test_three_games_with_a_bot_that_crashes_in_each(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    spec = hostile_spec("crash", "crash.py", pidfile=pidfile)
    result, seconds = play(Match((GREEDY, spec), HOYLE, CLOCK, games=3, seed=2, workdir=tmp_path))
    assert [g.outcome.reason for g in result.games] == ["crash"] * 3
    assert [g.winner for g in result.games] == [0, 0, 0]
    assert result.to_json()["summary"]["crash"]["failures"] == {"crash": 3}
    assert seconds < match_bound(3)
    pids = read_pids(pidfile)
    assert len(set(pids)) == 3
    assert_gone(pids)


@pytest.mark.slow  # two games of 3 MiB floods: the slow lane
def test_the_stderr_log_of_a_flooding_bot_is_capped_over_the_whole_match(tmp_path: Path) -> None:
    spec = hostile_spec("flood", "flood.py", pidfile=tmp_path / "pids")
    Match((spec, GREEDY), HOYLE, CLOCK, games=2, seed=3, workdir=tmp_path).play()
    log = tmp_path / "flood.stderr.log"
    text = log.read_bytes()
    assert text.startswith(b"flood flood")
    assert b"log truncated at the size cap" in text
    # Each run floods 3 MiB; the bot's log file must stay near the cap however often the bot is
    # restarted, or a bot that floods and fails every game fills the disk one cap per game.
    assert len(text) <= LOG_LIMIT_BYTES + 100, (
        f"the log of a bot restarted once holds {len(text)} bytes; the cap is {LOG_LIMIT_BYTES}"
    )


STARTUP = {
    "silent": ("silent.sh", r"no answer to hello: no reply within 1\.000 s"),
    "exit-at-once": ("exit_at_once.sh", r"exited with code 7"),
    "wrong-version": ("wrong_version.py", r"chose protocol version 99"),
}


@pytest.mark.parametrize("name", list(STARTUP))
def test_a_bot_that_cannot_start_stops_the_match(name: str, tmp_path: Path) -> None:
    script, message = STARTUP[name]
    pidfile = tmp_path / "pids"
    clock = Clock(move=0.3, grace=0.1, startup=1.0)
    match = Match(
        (GREEDY, hostile_spec(name, script, pidfile=pidfile)), HOYLE, clock, workdir=tmp_path
    )
    start = time.monotonic()
    with pytest.raises(MatchError, match=f"bot '{name}' could not start: ") as caught:
        match.play()
    assert time.monotonic() - start < clock.startup + game_bound(clock)
    assert re.search(message, str(caught.value)), caught.value
    pids = read_pids(pidfile)
    assert len(pids) == 1, "a bot that cannot start is not retried"
    assert_gone(pids)


def test_a_bot_that_cannot_restart_stops_the_match(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    match = Match(
        (GREEDY, hostile_spec("once", "once.sh", pidfile=pidfile)),
        HOYLE,
        CLOCK,
        games=3,
        workdir=tmp_path,
    )
    with pytest.raises(MatchError, match=r"(?s)exited with code 5.*\(restarting after game 1\)"):
        match.play()
    pids = read_pids(pidfile)
    assert len(pids) == 2
    assert_gone(pids)


def test_the_reason_a_bot_could_not_start_can_be_read_after_the_match(tmp_path: Path) -> None:
    """Without a logs directory the bots' logs live in a temporary directory removed when the match
    ends: the error must not send the user to a file that no longer exists."""
    spec = BotSpec("quitter", hostile("exit_at_once.sh"))
    with pytest.raises(MatchError) as caught:
        Match((GREEDY, spec), HOYLE, CLOCK).play()
    message = str(caught.value)
    named = re.search(r"its stderr: (\S+?)\)", message)
    assert "giving up before hello" in message or (named and Path(named[1]).exists()), (
        f"the bot said why on stderr, but the error neither quotes it nor names a log that "
        f"exists: {message}"
    )


def test_gin_arena_match_exits_1_when_a_bot_cannot_start(tmp_path: Path) -> None:
    command = " ".join(hostile("exit_at_once.sh"))
    done = gin_arena("match", "greedy", command, "--logs", str(tmp_path), "--move-time", "0.3")
    assert done.returncode == 1, done
    assert re.search(
        r"^gin-arena match: bot 'exit_at_once' could not start: no answer to hello: "
        r"exited with code 7",
        done.stderr,
        re.MULTILINE,
    ), done.stderr
    assert "Traceback" not in done.stderr
    assert "giving up before hello" in (tmp_path / "exit_at_once.stderr.log").read_text()
