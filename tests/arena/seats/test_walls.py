"""The walls around a bot, tried as an attacker would (issue 30): a bot that is never the host's
root and writes no kernel setting, a reply flood judged at once with the referee's memory flat,
memory file systems and children bounded by the bot's memory, fork and thread bombs refused,
CPU burnt between moves stopped, a CPU total over all of a bot's processes, and no channel
between two bots through file locks or watches.

Real bot processes (tests/arena/hostile/walls.py) in the sandbox and in a control group, as the
arena runs them by default; each test is skipped, with the reason, where the machine lacks
bubblewrap or control groups (the CI machine, root with both, runs them all).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_support import a_request, hostile, wait_until
from support import GONE, LONG, RUN, gin_arena

from arena.play.referee import Clock, GameOutcome, Referee
from arena.seats.connection import BotCrashed, BotError
from arena.seats.launch import python_command
from arena.seats.process import ProcessConnection
from arena.seats.walls import limits
from arena.seats.walls import sandbox as sb
from arena.seats.walls.limits import groups_left
from arena.seats.walls.sandbox import resolve_sandbox
from engine.hand import Action as EngineAction
from engine.hand import ActionKind
from engine.rules import HOYLE
from protocol.views import Decision

SANDBOX = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    SANDBOX is None, reason=f"no usable bubblewrap here: {sb.sandbox_warning()}"
)
CGROUPS = limits.unavailable()
needs_cgroups = pytest.mark.skipif(
    CGROUPS is not None, reason=f"no control groups for bots here: {CGROUPS}"
)
START = 60.0
CLOCK = Clock(move=1.0, grace=0.5, startup=START)
RULES = HOYLE.replace(game_target=1, hand_limit=2)
"""A game of a hand or two: the attacks come at its start."""


def walls(mode: str, *args: str) -> list[str]:
    return list(hostile("walls.py", mode, *args))


def bot(tmp_path: Path, mode: str, *args: str, **options: Any) -> ProcessConnection:
    name = f"walls-{mode}"
    return ProcessConnection(
        name,
        walls(mode, *args),
        workdir=tmp_path / "arena" / name,
        log_path=tmp_path / "arena" / f"{name}.stderr.log",
        sandbox=options.pop("sandbox", SANDBOX),
        **options,
    )


def first_legal(tmp_path: Path, name: str = "opponent", delay: str = "0") -> ProcessConnection:
    return ProcessConnection(
        name,
        list(hostile("slow.py", delay)),
        workdir=tmp_path / "arena" / name,
        log_path=tmp_path / "arena" / f"{name}.stderr.log",
        sandbox=SANDBOX,
    )


def play(conns: list[ProcessConnection], clock: Clock = CLOCK, seed: int = 7) -> GameOutcome:
    referee = Referee(RULES, clock)
    try:
        for seat, conn in enumerate(conns):
            conn.start(referee.hello(seat, conns[1 - seat].name), START)
        return referee.play_game(conns, seed, number=1)
    finally:
        for conn in conns:
            conn.close()


def reports(conn: ProcessConnection) -> list[dict[str, Any]]:
    text = Path(conn.log_path).read_text()
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("WALLS ")]


def the_report(conn: ProcessConnection) -> dict[str, Any]:
    found = reports(conn)
    assert found, Path(conn.log_path).read_text()[-3000:]
    return found[0]


@pytest.fixture(autouse=True)
def no_group_left() -> Iterator[None]:
    """Every control group made for a bot of this test is gone after it."""
    mine = f"gin-arena-{os.getpid()}-"
    before = set(groups_left(mine))
    yield
    assert wait_until(lambda: not set(groups_left(mine)) - before, timeout=GONE), list(
        groups_left(mine)
    )


# -- the host -----------------------------------------------------------------------------------


@needs_bwrap
def test_a_bot_is_never_root_and_changes_nothing_of_the_kernel(tmp_path: Path) -> None:
    host = tmp_path / "host"  # a directory of the host's that nothing shows
    host.mkdir()
    (host / "secret").write_text("host")
    attacker = bot(tmp_path, "root", env={"WALLS_HOST": str(host)})
    outcome = play([attacker, first_legal(tmp_path)])
    found = the_report(attacker)
    assert outcome.failure is None, outcome.failure
    assert found["uid"] != 0 and found["euid"] != 0
    if os.geteuid() == 0:  # dropped to nobody, with nothing left to regain
        assert found["uid"] == sb.BOT_UID
    assert int(found["caps"], 16) == 0 and int(found["bounding"], 16) == 0
    assert found["writable"] == [] and found["others"] == []
    assert found["module"] in ("EPERM", "ENOSYS", "EACCES")
    assert found["mount"] in ("EPERM", "EACCES")
    assert found["seen"][str(host)] == "error 2"
    for path in ("/root", "/home", "/var", "/srv", "/mnt", "/boot"):
        # Not there, or only the way to what the sandbox shows (this Python under ~/.pyenv).
        assert found["seen"][path] in ("error 2", "error 13", []) or set(found["seen"][path]) <= {
            ".pyenv"
        }, (path, found["seen"][path])


# -- the referee --------------------------------------------------------------------------------


@needs_bwrap
def test_a_reply_flood_is_judged_at_once_and_the_referee_stays_small(tmp_path: Path) -> None:
    """Run in a process of its own, so that its peak memory is the referee's alone: a bot that
    writes ``{}`` lines without end through an enlarged pipe is judged on its first line
    (malformed) and the referee's peak RSS stays within 150 MiB (a Python referee with the
    engine and pydantic loaded is about 60 MiB)."""
    script = f"""
import json, resource, sys
sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(Path(__file__).parents[2])!r}]
from pathlib import Path
from test_walls import bot, first_legal, play
tmp = Path({str(tmp_path)!r})
outcome = play([bot(tmp, "flood"), first_legal(tmp)])
print(json.dumps({{"reason": outcome.reason, "failed": outcome.failure.seat,
                   "message": outcome.failure.message[:200],
                   "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=LONG, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["failed"] == 0 and result["reason"] in ("malformed", "protocol"), result
    assert result["rss_mib"] < 150, result


# -- limits per bot -----------------------------------------------------------------------------


@needs_bwrap
def test_memory_file_systems_are_sized_at_the_bots_memory(tmp_path: Path) -> None:
    """Each of /tmp and the working directory holds at most the bot's memory, /dev/shm 64 MiB;
    with a control group, all three together count against the bot's memory, and filling them
    past it has the kernel end the bot (a crash, out of memory). Nothing reaches the host's
    disk."""
    attacker = bot(tmp_path, "tmpfs", memory_mb=128)
    outcome = play([attacker, first_legal(tmp_path)])
    found = reports(attacker)
    if found:
        sizes = found[0]
        home = next(k for k in sizes if k not in ("/tmp", "/dev/shm"))
        assert sizes["/tmp"] <= 128 * 2**20 and sizes[home] <= 128 * 2**20, sizes
        assert sizes["/dev/shm"] <= sb.SHM_MB * 2**20, sizes
    if CGROUPS is not None:
        assert found, "without a control group the sizes alone bound it: the bot plays on"
    else:
        failure = outcome.failure
        assert failure is not None and failure.seat == 0, outcome
        assert "out of memory" in failure.message, failure.message
    assert not any((tmp_path / "arena" / "walls-tmpfs").iterdir()), "nothing on the host's disk"


@needs_bwrap
@needs_cgroups
def test_children_share_the_bots_memory(tmp_path: Path) -> None:
    attacker = bot(tmp_path, "children", memory_mb=256)
    play([attacker, first_legal(tmp_path)])
    found = the_report(attacker)
    assert found["started"] == 4 and found["alive"] <= 1, found


@needs_bwrap
@needs_cgroups
@pytest.mark.parametrize("mode", ["forkbomb", "threadbomb"])
def test_a_bomb_is_refused_at_the_bots_process_limit(mode: str, tmp_path: Path) -> None:
    attacker = bot(tmp_path, mode, pids=32)
    outcome = play([attacker, first_legal(tmp_path)])
    found = the_report(attacker)
    assert found["started"] < 32 and found["refused"], found
    assert outcome.failure is None, outcome.failure  # refused, it played on


@needs_bwrap
@needs_cgroups
def test_a_bot_burns_no_cpu_between_its_moves(tmp_path: Path) -> None:
    """A bot with a thread that spins from its first move on, asked to move every 0.3 s (its
    opponent thinking meanwhile): frozen whenever no request is open to it, it gets next to no
    CPU between its moves. (Without the freezing it would take a core all along.)"""
    attacker = bot(tmp_path, "burn")
    try:
        attacker.start(Referee(HOYLE, CLOCK).hello(0), START)
        for number in range(6):
            attacker.ask(a_request(number + 1), 5.0)
            time.sleep(0.3)
    finally:
        attacker.close()
    found = reports(attacker)
    assert len(found) == 6, found
    cpu = found[-1]["cpu"] - found[0]["cpu"]
    wall = found[-1]["clock"] - found[0]["clock"]
    assert wall >= 1.5, found  # five waits of 0.3 s between the first report and the last
    assert cpu < 0.25 * wall, (cpu, wall)


class Watched(ProcessConnection):
    """A bot whose state after each of its moves is kept: the action's kind, and frozen or not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.after: list[tuple[ActionKind, bool]] = []

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        action, elapsed = super().decide(decision)
        self.after.append((action.kind, self.frozen))
        return action, elapsed


@needs_cgroups
def test_a_bot_is_frozen_after_every_move_but_a_draw(tmp_path: Path) -> None:
    """A bot that drew is asked for its discard straight away: it is left running between the
    two requests of its turn, and frozen after every other move (its opponent's time)."""
    conns = [
        Watched(
            name,
            python_command("bots.random"),
            workdir=tmp_path / "arena" / name,
            log_path=tmp_path / "arena" / f"{name}.stderr.log",
            sandbox=SANDBOX,
        )
        for name in ("north", "south")
    ]
    outcome = play(list[ProcessConnection](conns))
    assert outcome.failure is None, outcome.failure
    after = [state for conn in conns for state in conn.after]
    draws = {ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD}
    assert any(kind in draws for kind, _ in after) and any(k not in draws for k, _ in after)
    assert all(frozen is (kind not in draws) for kind, frozen in after), after


@needs_bwrap
@needs_cgroups
def test_cpu_seconds_count_every_process_of_the_bot(tmp_path: Path) -> None:
    attacker = bot(tmp_path, "cpuhog", cpu_seconds=2)
    outcome = play(
        [attacker, first_legal(tmp_path)], clock=Clock(move=3.0, grace=1.0, startup=START)
    )
    assert outcome.failure is not None and outcome.failure.seat == 0, outcome
    assert outcome.reason == BotCrashed.reason
    assert "--cpu-seconds 2" in outcome.failure.message, outcome.failure.message


# -- between bots -------------------------------------------------------------------------------


@needs_bwrap
def test_two_bots_cannot_talk_through_locks_or_watches(tmp_path: Path) -> None:
    """Both try at once to take the same lock on a file both can read: both get it, so neither
    learns anything of the other; inotify is refused."""
    first = bot(tmp_path / "a", "channel", "alpha")
    second = bot(tmp_path / "b", "channel", "beta")
    referee = Referee(RULES, CLOCK)
    errors: list[BaseException] = []

    def start(conn: ProcessConnection, seat: int) -> None:
        try:
            conn.start(referee.hello(seat), START)
        except BotError as error:
            errors.append(error)

    try:
        threads = [
            threading.Thread(target=start, args=(c, s)) for s, c in enumerate((first, second))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        referee.play_game([first, second], 3, number=1)
    finally:
        first.close()
        second.close()
    seen = [the_report(first), the_report(second)]
    for facts in seen:
        assert facts["flock"] == "taken" and facts["lockf"] == "taken", seen
        assert facts["inotify"] != "open", seen


@needs_bwrap
@needs_cgroups
def test_pids_and_memory_reach_the_bot_from_the_command_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    done = gin_arena(
        *("match", "greedy", shlex.join(walls("forkbomb"))),
        *("--hands", "1", "--pids", "16", "--memory-mb", "300", "--logs", str(logs)),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    found = [
        json.loads(line[6:])
        for log in logs.glob("*.stderr.log")
        for line in log.read_text().splitlines()
        if line.startswith("WALLS ")
    ]
    assert len(found) == 1 and found[0]["started"] < 16 and found[0]["refused"], found


@needs_bwrap
def test_a_bot_that_closes_its_stdout_in_the_sandbox_crashes_at_once(tmp_path: Path) -> None:
    """bwrap holds no copy of the bot's stdout: its closing is seen at once (a crash), not after
    the move time (a timeout)."""
    outcome = play(
        [bot(tmp_path, "close"), first_legal(tmp_path)],
        clock=Clock(move=60.0, grace=1.0, startup=START),
    )
    assert outcome.failure is not None and outcome.failure.seat == 0, outcome
    assert outcome.reason == BotCrashed.reason, outcome.failure
    assert "closed its stdout" in outcome.failure.message, outcome.failure.message


@needs_bwrap
def test_the_wire_log_is_hidden_wherever_it_is(tmp_path: Path) -> None:
    """``--log-wire`` in the bot's own directory, which the sandbox shows it: the bot finds it
    unreadable while the log fills with every line, the dealt hands included."""
    home = tmp_path / "mybot"
    home.mkdir()
    script = home / "walls.py"
    script.write_text((Path(walls("peek")[1])).read_text())
    (home / "_wire.py").write_text((Path(walls("peek")[1]).parent / "_wire.py").read_text())
    log = home / "wire.log"
    done = gin_arena(
        *("match", "greedy"),
        shlex.join([sys.executable, str(script), "peek", str(log)]),
        *("--hands", "2", "--log-wire", str(log), "--logs", str(tmp_path / "logs")),
        timeout=LONG,
    )
    assert done.returncode == 0, done.stderr
    assert '"hand"' in log.read_text()
    found = [
        json.loads(line[6:])
        for path in (tmp_path / "logs").glob("*.stderr.log")
        for line in path.read_text().splitlines()
        if line.startswith("WALLS ")
    ]
    assert found and all(f["hands"] == 0 and f["head"].startswith("error") for f in found), found


@needs_bwrap
def test_colluding_partners_cannot_signal_through_a_lock(tmp_path: Path) -> None:
    """Partners (players 0 and 2 of a partnership game) that each try, at every move, to take
    and keep an exclusive lock on a file both can read: with real locks the one second to try
    would find it taken every time; here neither ever does."""
    collude = shlex.join(walls("collude"))
    logs = tmp_path / "logs"
    done = gin_arena(
        "match",
        *(collude, "greedy", collude, "greedy"),
        *("--mode", "partnership", "--set", "game_target=25", "--logs", str(logs)),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    last: dict[str, dict[str, Any]] = {}
    for path in logs.glob("*.stderr.log"):
        for line in path.read_text().splitlines():
            if line.startswith("WALLS "):
                last[path.name] = json.loads(line[6:])
    assert len(last) == 2, (last, list(logs.iterdir()))
    assert all(r["tries"] > 0 and r["busy"] == 0 for r in last.values()), last
