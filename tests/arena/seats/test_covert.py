"""No channel through the kernel (issue 42): across the two seatings of a mirrored deal, and
between two bots that run at once.

A bot of tests/arena/hostile/covert.py tries each channel the attack found open: the page cache
(its own dealt hand written into pages of a system library, read back by the other seating), a
lock taken past the seccomp filter with the high bits of ``fcntl``'s command, the host-wide
counters of ``/proc`` and ``sysinfo``, processes that fork and exit to outrun the freeze between
moves, children that burn CPU past ``--cpu-seconds``. In the sandbox, as every command runs bots
by default, each is closed; without it (the controls), each works, so that these tests would
catch a wall that falls. Each test is skipped, with the reason, where the machine lacks
bubblewrap or control groups (CI, root with both, runs them all).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from arena_support import a_request, hostile
from support import LONG, RUN, gin_arena

from arena.cli.options import sandbox_from
from arena.play.referee import Clock, Referee
from arena.seats.botspec import BotSpec
from arena.seats.connection import BotCrashed, BotError
from arena.seats.process import ProcessConnection
from arena.seats.walls import limits
from arena.seats.walls import sandbox as sb
from arena.seats.walls.sandbox import SandboxError, resolve_sandbox
from engine.rules import HOYLE

SANDBOX = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    SANDBOX is None, reason=f"no usable bubblewrap here: {sb.sandbox_warning()}"
)
CGROUPS = limits.unavailable()
needs_cgroups = pytest.mark.skipif(
    CGROUPS is not None, reason=f"no control groups for bots here: {CGROUPS}"
)
START = 60.0
CLOCK = Clock(move=5.0, grace=1.0, startup=START)


def covert(mode: str, *args: str) -> str:
    return shlex.join(hostile("covert.py", mode, *args))


def reports(logs: Path) -> list[dict[str, Any]]:
    """Every ``COVERT`` report in the logs under ``logs``, in the order written."""
    found = []
    for path in sorted(logs.rglob("*.stderr.log")):
        for line in path.read_text().splitlines():
            if line.startswith("COVERT "):
                found.append(json.loads(line[7:]))
    return found


def read_hands(found: list[dict[str, Any]]) -> int:
    """How many guesses of the page-cache bot are exactly the hand it held in the other seating
    of the same deal (the opposing hand it was after): the hand of an earlier report with the
    same upcard, disjoint from its own."""
    hits = 0
    for later, facts in enumerate(found):
        guess = set(facts["guess"])
        if not guess:
            continue
        for earlier in found[:later]:
            same_deal = earlier["upcard"] == facts["upcard"]
            if same_deal and set(earlier["hand"]) == guess and not guess & set(facts["hand"]):
                hits += 1
                break
    return hits


def assert_nothing_read(found: list[dict[str, Any]]) -> None:
    """The kernel told the page-cache bot nothing: no page's state read, no hand guessed."""
    assert found, "the page-cache bot reported nothing"
    assert all(f["read"] == "refused" and f["guess"] == [] for f in found), found
    assert read_hands(found) == 0


# -- the page cache across a mirrored deal -------------------------------------------------------


def seating(mode: str, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """The covert bot as a plain process, outside every wall, told ``messages`` after hello:
    what it reports."""
    lines = [{"type": "hello", "protocol_version": 1}, *messages, {"type": "quit"}]
    done = subprocess.run(
        list(hostile("covert.py", mode)),
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=LONG,
        check=True,
    )
    return [json.loads(x[7:]) for x in done.stderr.splitlines() if x.startswith("COVERT ")]


def test_without_the_walls_the_page_cache_bot_reads_the_opposing_hand() -> None:
    """The control: two seatings of one deal, as plain processes one after the other (no
    sandbox, no control group), and the second reads the first's hand, exact."""
    first = ["AC", "2C", "3C", "4D", "5D", "6H", "7H", "8S", "9S", "TS"]
    second = ["KC", "QC", "JC", "KD", "QD", "JD", "KH", "QH", "KS", "QS"]
    for hand in (first, second):
        (found,) = seating("pagecache", {"type": "hand_start", "hand": hand, "upcard": "7D"})
    assert found["read"] == "ok" and found["guess"] == first, found


@needs_bwrap
def test_a_mirrored_match_carries_nothing_through_the_page_cache(tmp_path: Path) -> None:
    done = gin_arena(
        *("match", covert("pagecache"), "greedy", "--hands", "20", "--mirror", "--seed", "5"),
        *("--logs", str(tmp_path / "logs")),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    found = reports(tmp_path / "logs")
    assert len(found) == 20
    assert_nothing_read(found)


@needs_bwrap
def test_a_tournament_carries_nothing_through_the_page_cache(tmp_path: Path) -> None:
    done = gin_arena(
        *("tournament", "--bot", f"covert={covert('pagecache')}", "--bot", "greedy=greedy"),
        *("--games-per-table", "4", "--seed", "5", "--db", str(tmp_path / "t.sqlite")),
        *("--logs", str(tmp_path / "logs")),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    assert_nothing_read(reports(tmp_path / "logs"))


@needs_bwrap
def test_ab_and_sprt_carry_nothing_through_the_page_cache(tmp_path: Path) -> None:
    ab = gin_arena(
        *("ab", covert("pagecache"), "greedy", "--hands", "8", "--seed", "5"),
        *("--logs", str(tmp_path / "ab")),
        timeout=LONG,
    )
    assert ab.returncode == 0, ab.stderr
    assert_nothing_read(reports(tmp_path / "ab"))
    sprt = gin_arena(
        *("sprt", covert("pagecache"), "greedy", "--max-games", "4", "--seed", "5"),
        *("--db", str(tmp_path / "sprt.sqlite"), "--logs", str(tmp_path / "sprt")),
        timeout=RUN,
    )
    assert sprt.returncode == 0, sprt.stderr
    assert_nothing_read(reports(tmp_path / "sprt"))


@needs_bwrap
def test_a_league_carries_nothing_through_the_page_cache(tmp_path: Path) -> None:
    db = str(tmp_path / "club.sqlite")
    for step in (
        ("create", "--db", db),
        ("add", "--db", db, "covert", covert("pagecache")),
        ("add", "--db", db, "greedy", "greedy"),
        ("run", "--db", db, "--pairings", "2", "--logs", str(tmp_path / "logs")),
    ):
        done = gin_arena("league", *step, timeout=RUN)
        assert done.returncode == 0, (step, done.stderr)
    assert_nothing_read(reports(tmp_path / "logs"))


# -- between bots that run at once ---------------------------------------------------------------


def run_together(conns: list[ProcessConnection]) -> None:
    """Start the bots at once and play one game between them (the attacks come at its start)."""
    referee = Referee(HOYLE.replace(game_target=1, hand_limit=1), CLOCK)
    errors: list[BaseException] = []

    def start(conn: ProcessConnection, seat: int) -> None:
        try:
            conn.start(referee.hello(seat), START)
        except BotError as error:
            errors.append(error)

    try:
        threads = [threading.Thread(target=start, args=(c, s)) for s, c in enumerate(conns)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        referee.play_game(conns, 3, number=1)
    finally:
        for conn in conns:
            conn.close()


def bot(tmp_path: Path, mode: str, *args: str, **options: Any) -> ProcessConnection:
    name = "-".join(("covert", mode, *args))
    return ProcessConnection(
        name,
        list(hostile("covert.py", mode, *args)),
        workdir=tmp_path / "arena" / name,
        log_path=tmp_path / "arena" / f"{name}.stderr.log",
        sandbox=options.pop("sandbox", SANDBOX),
        **options,
    )


def hilock(tmp_path: Path, sandbox: sb.Sandbox | None) -> dict[str, Any]:
    holder = bot(tmp_path, "hilock", "holder", sandbox=sandbox)
    reader = bot(tmp_path, "hilock", "reader", sandbox=sandbox)
    run_together([holder, reader])
    found: dict[str, Any] = {}
    for facts in reports(tmp_path / "arena"):
        role = facts["role"]
        if role == "reader":  # it looks at every request: seen once is seen
            facts["seen"] = facts["seen"] or found.get("reader", {}).get("seen", False)
        found[role] = facts
    assert set(found) == {"holder", "reader"}, found
    return found


def test_without_the_sandbox_a_high_bit_lock_is_seen(tmp_path: Path) -> None:
    """The control: the kernel keeps the low 32 bits of the command, so the lock is real."""
    found = hilock(tmp_path, None)
    assert found["holder"]["set"] == 0 and found["reader"]["seen"], found


@needs_bwrap
def test_a_lock_with_the_high_bits_set_takes_nothing_and_shows_nothing(tmp_path: Path) -> None:
    found = hilock(tmp_path, SANDBOX)
    assert found["holder"]["set"] == 0, found  # succeeded, as a lock does, and took none
    assert found["reader"]["get"] == "ENOLCK" and not found["reader"]["seen"], found


def partners_lock(tmp_path: Path, sandbox: str) -> dict[str, Any]:
    """A partnership game of two greedy bots against a team whose first player takes a lock with
    the command's high bits set and whose partner looks for it at every request."""
    done = gin_arena(
        *("match", covert("hilock", "holder"), "greedy", covert("hilock", "reader"), "greedy"),
        *("--mode", "partnership", "--games", "1", "--seed", "3", "--sandbox", sandbox),
        *("--set", "game_target=25", "--logs", str(tmp_path / "logs")),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = {}
    for facts in reports(tmp_path / "logs"):
        role = facts["role"]
        if role == "reader":
            facts["seen"] = facts["seen"] or found.get("reader", {}).get("seen", False)
        found[role] = facts
    assert set(found) == {"holder", "reader"}, found
    return found


def test_without_the_sandbox_partners_see_each_others_high_bit_lock(tmp_path: Path) -> None:
    """The control, in the game the attack was made in: partners whose processes live side by
    side for the whole game."""
    found = partners_lock(tmp_path, "none")
    assert found["holder"]["set"] == 0 and found["reader"]["seen"], found


@needs_bwrap
def test_partners_cannot_talk_through_a_high_bit_lock(tmp_path: Path) -> None:
    found = partners_lock(tmp_path, "auto")
    assert found["holder"]["set"] == 0, found
    assert found["reader"]["get"] == "ENOLCK" and not found["reader"]["seen"], found


def test_without_the_sandbox_the_host_counters_move(tmp_path: Path) -> None:
    """The control: what the bot does shows in the host's counters."""
    attacker = bot(tmp_path, "counters", sandbox=None)
    run_together([attacker, bot(tmp_path, "pagecache", sandbox=None)])
    (found,) = [f for f in reports(tmp_path / "arena") if "changed" in f]
    assert {"/proc/meminfo", "sysinfo"} <= set(found["changed"]), found


@needs_bwrap
def test_no_host_wide_counter_moves_in_the_sandbox(tmp_path: Path) -> None:
    """A bot that fills /dev/shm, opens files and terminals, burns CPU and forks reads the same
    counters before and after: /proc's host-wide figures are masked, sysinfo is refused, and
    there is no terminal to open."""
    attacker = bot(tmp_path, "counters")
    run_together([attacker, bot(tmp_path, "pagecache")])
    (found,) = [f for f in reports(tmp_path / "arena") if "changed" in f]
    assert found["changed"] == [], found
    assert "ptmx" in found["refused"], found


# -- the freeze and the CPU total ----------------------------------------------------------------


@needs_bwrap
@needs_cgroups
def test_forking_hoppers_do_not_outrun_the_freeze(tmp_path: Path) -> None:
    """A dozen processes that fork and exit in a loop: between two requests, when the bot is
    frozen, its control group gets under 5% of the CPU it gets while the bot computes, by the
    kernel's own count. (What the hoppers count themselves also takes in the moments around a
    move that are the bot's time, from the thaw to its reading the request and from its reply
    to the referee's reading it, which a loaded machine draws out.)"""
    attacker = bot(tmp_path, "hopper")
    running, frozen = [0.0, 0.0], [0.0, 0.0]  # CPU seconds, wall seconds
    try:
        attacker.start(Referee(HOYLE, CLOCK).hello(0), START)
        for number in range(4):
            cpu, at = attacker.cpu_used, time.monotonic()
            attacker.ask(a_request(number + 1), 10.0)
            asked, answered = attacker.cpu_used, time.monotonic()
            time.sleep(1.0)
            slept, woke = attacker.cpu_used, time.monotonic()
            assert cpu is not None and asked is not None and slept is not None
            running[0] += asked - cpu
            running[1] += answered - at
            frozen[0] += slept - asked
            frozen[1] += woke - answered
    finally:
        attacker.close()
    found = reports(tmp_path / "arena")
    assert len(found) == 4 and all(f["last"] > f["first"] for f in found), found
    assert running[0] > 0, running  # the hoppers ran while the bot computed
    assert frozen[0] / frozen[1] < 0.05 * running[0] / running[1], (frozen, running)


@needs_bwrap
@needs_cgroups
def test_the_cpu_total_bites_while_the_bot_computes(tmp_path: Path) -> None:
    """Three children burn CPU from the first request on, and the bot never answers: it is
    ended for its CPU total (all its processes), close to the limit, long before its move
    time is up (which would make it a timeout)."""
    attacker = bot(tmp_path, "cpuburst", cpu_seconds=1)
    try:
        attacker.start(Referee(HOYLE, CLOCK).hello(0), START)
        with pytest.raises(BotCrashed) as caught:
            attacker.ask(a_request(1), 60.0)
    finally:
        attacker.close()
    message = str(caught.value)
    assert "--cpu-seconds 1" in message, message
    used = float(re.search(r"used (\d+\.\d+) s", message).group(1))  # type: ignore[union-attr]
    assert 1.0 <= used < 1.5, message  # printed to 0.01 s: 1.004 reads 1.00


# -- honest bots ---------------------------------------------------------------------------------

HONEST = Path(__file__).parent / "honest"


@needs_bwrap
@pytest.mark.parametrize(
    "argv",
    [
        ["bash", str(HONEST / "devstderr.sh")],
        [sys.executable, str(HONEST / "devstdout.py")],
        pytest.param(
            ["node", str(HONEST / "devstdout.js")],
            marks=pytest.mark.skipif(shutil.which("node") is None, reason="no node here"),
        ),
    ],
    ids=["bash-stderr", "python-stdout", "node-stdout"],
)
def test_a_bot_that_opens_its_stdio_by_name_plays_in_the_sandbox(
    argv: list[str], tmp_path: Path
) -> None:
    """Bots write to /dev/stdout, /dev/stderr or /proc/self/fd/N by name: as root the sandbox
    runs them as nobody, and their pipes are theirs."""
    logs = tmp_path / "logs"
    done = gin_arena(
        *("match", shlex.join(argv), "greedy", "--hands", "2", "--logs", str(logs)),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    hands = [line for line in done.stdout.splitlines() if line.lstrip().startswith("hand ")]
    assert len(hands) == 2 and not any("forfeit" in h for h in hands), done.stdout
    said = "".join(p.read_text() for p in logs.glob("*.stderr.log"))
    assert "honest: request" in said, said[-2000:]
    assert "Permission denied" not in said, said[-2000:]


# -- no fallback hands out root ------------------------------------------------------------------


def test_as_root_auto_without_bubblewrap_refuses_program_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sb.shutil, "which", lambda name: None)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    program = BotSpec("mine", command=("python3", "mybot.py"))
    with pytest.raises(SandboxError) as caught:
        sandbox_from(None, [program], in_process=True)
    message = str(caught.value)
    assert "apt-get install bubblewrap" in message and "--sandbox none" in message, message
    assert "\n" not in message
    # Built-in bots in the referee's own process need no sandbox: nothing to refuse.
    assert sandbox_from(None, [BotSpec("greedy", builtin="greedy")], in_process=True) is None
    assert sandbox_from("none", [program], in_process=True) is None


def test_as_a_user_auto_without_bubblewrap_warns_with_the_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sb.shutil, "which", lambda name: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert sandbox_from(None, [BotSpec("mine", command=("python3", "mybot.py"))], True) is None
    warning = capsys.readouterr().err
    assert "apt-get install bubblewrap" in warning and "not isolated" in warning, warning


def test_without_control_groups_the_warning_says_the_caches_are_shared(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ordinary user without a delegated cgroup subtree gets no eviction after a bot: the
    warning says so, since a mirrored deal's seatings may then share the kernel's caches."""
    monkeypatch.setattr(limits, "unavailable", lambda: "no control groups here")
    sandbox_from("none", [BotSpec("mine", command=("python3", "mybot.py"))], True)
    warning = capsys.readouterr().err
    assert "no control groups here" in warning and "caches" in warning, warning
    assert "mirrored deal" in warning, warning
