"""The bubblewrap sandbox: choosing it (``auto | bwrap | none``), the command it builds, and real
bots in it: a snooping bot finds nothing of the referee, the other bots, the tournament's files
or the network (while the same bot without a sandbox finds all of them); an escaping bot's
descendants die with it; well-behaved bots, built-in ones included, play a game in it.

The tests that run bots in the sandbox are skipped, with the reason, where bubblewrap is missing
or cannot create namespaces.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena_support import CLOCK, HOSTILE, hostile, wait_until
from support import GONE, QUICK

import bots
from arena.play.referee import Clock, Referee
from arena.seats.connection import BotStartupError, InProcessConnection
from arena.seats.launch import python_command
from arena.seats.process import ProcessConnection
from arena.seats.walls import sandbox as sb
from arena.seats.walls.paths import sdk_paths
from arena.seats.walls.sandbox import SANDBOX_MODES, Sandbox, SandboxError, resolve_sandbox
from bots.greedy import GreedyBot
from engine.rules import HOYLE
from protocol import messages as m

SANDBOX = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    SANDBOX is None, reason=f"no usable bubblewrap here: {sb.sandbox_warning()}"
)
START = 60.0  # generous: a loaded machine starts Python slowly
SLEEPER = "import time; time.sleep(600)"


# -- choosing a sandbox ------------------------------------------------------------------------


def test_the_modes() -> None:
    assert SANDBOX_MODES == ("auto", "bwrap", "none")
    assert resolve_sandbox("none") is None
    with pytest.raises(SandboxError, match=r"unknown sandbox mode 'docker'.*auto, bwrap, none"):
        resolve_sandbox("docker")
    assert issubclass(SandboxError, ValueError)


def test_bwrap_asked_but_missing_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sb.shutil, "which", lambda name, *args, **kwargs: None)
    with pytest.raises(SandboxError, match=r"not installed.*apt-get install bubblewrap"):
        resolve_sandbox("bwrap")
    assert resolve_sandbox("auto") is None
    warning = sb.sandbox_warning()
    assert "\n" not in warning
    assert "not isolated" in warning and "apt-get install bubblewrap" in warning


def test_a_bwrap_that_cannot_create_namespaces_counts_as_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    with pytest.raises(SandboxError, match=r"cannot create namespaces.*No permissions") as caught:
        resolve_sandbox("bwrap")
    assert "--sandbox none" in str(caught.value)
    assert resolve_sandbox("auto") is None
    assert "No permissions to create new namespace" in sb.sandbox_warning()


# -- the command -------------------------------------------------------------------------------


def test_the_command_hides_the_arena_and_the_hidden_paths(tmp_path: Path) -> None:
    arena, data = tmp_path / "arena", tmp_path / "data"
    workdir = arena / "bot"
    for folder in (workdir, data):
        folder.mkdir(parents=True)
    db, record = data / "t.db", data / "games.jsonl"
    for path in (db, Path(f"{db}-wal"), record):
        path.write_text("secret")
    argv = [sys.executable, str(HOSTILE / "mute.py")]
    root = os.geteuid() == 0
    box = Sandbox("/usr/bin/bwrap", "/usr/bin/setpriv" if root else None)
    options = box.options(argv, workdir=workdir, read_only=[data], hidden=[db, record])

    def at(*words: str) -> int:
        for i in range(len(options) - len(words) + 1):
            if options[i : i + len(words)] == list(words):
                return i
        raise AssertionError(f"{words} not in {options}")

    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"):
        assert flag in options
    assert "--new-session" in options and "--die-with-parent" in options
    if root:  # bwrap keeps only what setpriv needs to drop the bot to nobody
        assert at("--cap-drop", "ALL", "--cap-add", "CAP_SETUID") >= 0
        assert "--unshare-user" not in options
    else:
        assert at("--unshare-user", "--disable-userns") >= 0
    assert at("--proc", "/proc") < at("--ro-bind", str(data), str(data))
    assert at("--ro-bind", str(HOSTILE), str(HOSTILE)) < at("--tmpfs", str(arena))
    # The bot's own directory: a new memory file system, of a bounded size.
    size = str(sb.TMPFS_MB * 1024 * 1024)
    assert at("--tmpfs", str(arena)) < at(
        "--size", size, "--perms", "0777", "--tmpfs", str(workdir)
    )
    assert at("--size", size, "--perms", "1777", "--tmpfs", "/tmp") >= 0
    for path in (db, Path(f"{db}-wal"), record):
        assert at("--ro-bind", "/dev/null", str(path)) > at("--ro-bind", str(data), str(data))
    assert not any(str(Path(f"{db}-shm")) in o for o in options), "only existing files"
    # A /dev of the bot's own, without terminals; host-wide counters of /proc masked.
    assert at("--perms", "0755", "--tmpfs", "/dev") > at("--proc", "/proc")
    assert "/dev/ptmx" not in options and "/dev/pts" not in options and "--dev" not in options
    assert at("--dev-bind", "/dev/null", "/dev/null") > at("--tmpfs", "/dev")
    for masked in ("/proc/meminfo", "/proc/stat", "/proc/sys", "/proc/loadavg"):
        assert options[at("--proc", "/proc") :].count(masked) == 1, masked
    for cover in ("/", "/proc", "/dev", str(arena)):  # read-only once everything is in place
        assert at("--remount-ro", cover) > at("--tmpfs", str(workdir))
    assert options[-2:] == ["--chdir", str(workdir)]
    assert "--die-with-parent" not in box.options(argv, workdir=workdir, die_with_parent=False)

    command, fds = box.wrap(argv, workdir=workdir, read_only=[data], hidden=[db, record])
    try:
        args = fds[-1]
        assert command == ["/usr/bin/bwrap", "--args", str(args), "--", *box.drop(), *argv]
        assert box.drop()[:2] == (["/usr/bin/setpriv", "--reuid=65534"] if root else [])
        passed = os.pread(args, 1 << 20, 0).split(b"\0")
        expected = box.options(argv, workdir=workdir, read_only=[data], hidden=[db, record])
        for fd in fds[:-1]:  # the seccomp filters, where libseccomp is installed
            expected += ["--add-seccomp-fd", str(fd)]
        assert len(fds) in (1, 3), fds
        assert passed[-1] == b"" and [os.fsdecode(p) for p in passed[:-1]] == expected
    finally:
        for fd in fds:
            os.close(fd)


def test_a_file_argument_in_tmp_is_shown_alone_and_the_sdk_is_shown(tmp_path: Path) -> None:
    """/tmp is never shown whole (the sandbox has its own): a file argument lying directly in it
    is shown by itself; the SDK's packages are shown wherever they are installed (an editable
    install's checkout included)."""
    import tempfile

    workdir = tmp_path / "arena" / "bot"
    workdir.mkdir(parents=True)
    with tempfile.NamedTemporaryFile(dir="/tmp", suffix=".npz") as weights:
        argv = [sys.executable, str(HOSTILE / "mute.py"), weights.name]
        options = Sandbox("/usr/bin/bwrap").options(argv, workdir=workdir)
        binds = {options[i + 1] for i, o in enumerate(options) if o == "--ro-bind"}
        assert weights.name in binds and "/tmp" not in binds
    for package in sdk_paths():
        assert any(package.is_relative_to(b) for b in map(Path, binds)), package


def test_the_shared_files_are_read_once_by_the_referee(monkeypatch: pytest.MonkeyPatch) -> None:
    """What nearly every Python bot loads (the SDK, the standard library's compiled modules) is
    read by the referee before its first bot, once: those pages are then charged to the referee,
    not evicted with a bot's group, and tell no seating anything."""
    opened: list[str] = []
    real_open = open

    def spy(path: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    sb.warm_shared.cache_clear()
    monkeypatch.setattr("builtins.open", spy)
    assert sb.warm_shared() > 0
    assert any(name.endswith(".so") for name in opened)
    for package in sdk_paths():
        assert any(Path(name).is_relative_to(package) for name in opened), package
    count = len(opened)
    sb.warm_shared()
    assert len(opened) == count


# -- real bots ---------------------------------------------------------------------------------


@contextlib.contextmanager
def closing(*conns: ProcessConnection) -> Iterator[None]:
    try:
        yield
    finally:
        for conn in conns:
            conn.close()


def with_token(token: str) -> list[int]:
    """The live (not zombie) processes whose command line holds ``token``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state not in ("Z", "X"):
            pids.append(int(entry.name))
    return pids


@contextlib.contextmanager
def decoy(secret: str, token: str) -> Iterator[int]:
    """A process of ours with a secret in its environment and a token on its command line, as
    the referee's own would have."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SLEEPER, token], env={**os.environ, "GIN_SECRET": secret}
    )
    try:
        yield proc.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)


class World:
    """An arena directory with the snooping bot's directory, another bot's directory and log,
    and a data directory (visible read-only) holding a database, its WAL, a record file and a
    control file that is not hidden."""

    def __init__(self, root: Path) -> None:
        self.arena = root / "arena"
        self.workdir = self.arena / "snoop"
        self.log = self.arena / "snoop.stderr.log"
        self.other = self.arena / "other"
        self.other.mkdir(parents=True)
        (self.other / "secret.txt").write_text("OTHER-BOT-SECRET")
        self.other_log = self.arena / "other.stderr.log"
        self.other_log.write_text("OTHER-BOT-LOG")
        self.data = root / "data"
        self.data.mkdir()
        self.db = self.data / "tournament.db"
        self.db.write_bytes(b"SQLite format 3\0DB-CONTENT")
        self.wal = self.data / "tournament.db-wal"
        self.wal.write_text("WAL-CONTENT")
        self.record = self.data / "games.jsonl"
        self.record.write_text('{"RECORD-CONTENT": 1}\n')
        self.control = self.data / "control.txt"
        self.control.write_text("CONTROL-VISIBLE")
        self.secrets = [
            "OTHER-BOT-SECRET",
            "OTHER-BOT-LOG",
            "DB-CONTENT",
            "WAL-CONTENT",
            "RECORD-CONTENT",
        ]

    def targets(self) -> list[str]:
        return [
            str(p)
            for p in (
                self.arena,
                self.other,
                self.other / "secret.txt",
                self.other_log,
                self.db,
                self.wal,
                self.record,
                self.control,
            )
        ]

    def snoop(self, port: int, box: Sandbox | None) -> dict[str, Any]:
        conn = ProcessConnection(
            "snoop",
            hostile("snoop.py"),
            workdir=self.workdir,
            log_path=self.log,
            env={"SNOOP_TARGETS": json.dumps(self.targets()), "SNOOP_PORT": str(port)},
            sandbox=box,
            read_only=[self.data],
            hidden=[self.db, self.record],
        )
        with closing(conn):
            conn.start(Referee(HOYLE, CLOCK).hello(0), START)
        for line in self.log.read_text().splitlines():
            if line.startswith("SNOOP "):
                report: dict[str, Any] = json.loads(line[len("SNOOP ") :])
                return report
        raise AssertionError(f"no report in the log: {self.log.read_text()[:2000]}")


@contextlib.contextmanager
def listening() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections (into its backlog)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = f"GIN-SECRET-{uuid.uuid4().hex}"
    monkeypatch.setenv("GIN_SECRET", value)
    return value


def test_without_a_sandbox_the_snooping_bot_finds_everything(tmp_path: Path, secret: str) -> None:
    """The control: the snooping bot and the test's checks do see what an unsandboxed bot can."""
    world = World(tmp_path)
    token = f"GIN-DECOY-{uuid.uuid4().hex}"
    with decoy(secret, token), listening() as port:
        report = world.snoop(port, None)
    text = json.dumps(report)
    assert secret in text and token in text
    for marker in world.secrets:
        assert marker in text, marker
    assert report["connect"] == "connected"


@needs_bwrap
def test_a_sandboxed_bot_finds_nothing_secret(tmp_path: Path, secret: str) -> None:
    world = World(tmp_path)
    token = f"GIN-DECOY-{uuid.uuid4().hex}"
    with decoy(secret, token), listening() as port:
        report = world.snoop(port, SANDBOX)
    text = json.dumps(report)
    # The referee's environment, command line and processes.
    assert secret not in text and token not in text
    cmdlines = [p["cmdline"] for p in report["procs"].values()]
    assert not any("pytest" in c for c in cmdlines), cmdlines
    assert len(report["procs"]) <= 3, "only the sandbox's own processes"
    assert report["parent"]["pid"] == 1
    assert "--ro-bind" not in report["parent"]["cmdline"], "bwrap's arguments are not shown"
    assert set(report["env"]) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "PYTHONPATH",
        "TZ",
        "HOME",
        "TMPDIR",
        "PYTHONUNBUFFERED",
        "SNOOP_TARGETS",
        "SNOOP_PORT",
        "LC_CTYPE",  # set by Python itself under the C locale
        "PWD",  # set by bwrap: the bot's own working directory
    }, report["env"]
    for fd, target in report["fds"].items():
        # Its standard streams; "error": the descriptor that listed the directory, closed since.
        assert target.startswith(("pipe:", "/proc/", "error:")), (fd, target)
    # The other bots, the database and the record.
    for marker in world.secrets:
        assert marker not in text, marker
    assert report["targets"][str(world.arena)] == {"dir": ["snoop"]}
    assert report["dirs"][str(world.arena)] == ["snoop"]
    assert report["targets"][str(world.other)]["file"].startswith("error")
    # What is not hidden shows: the snooping did work.
    assert report["targets"][str(world.control)] == {"file": "CONTROL-VISIBLE"}
    # The network.
    assert report["connect"].startswith("error"), report["connect"]


@pytest.mark.parametrize("sandboxed", [False, pytest.param(True, marks=needs_bwrap)])
def test_close_ends_every_descendant_of_a_bot(sandboxed: bool, tmp_path: Path) -> None:
    token = f"GIN-ESCAPEE-{uuid.uuid4().hex}"
    workdir = tmp_path / "arena" / "escape"
    conn = ProcessConnection(
        "escape",
        hostile("escape.py"),
        workdir=workdir,
        log_path=tmp_path / "arena" / "escape.stderr.log",
        env={"HOSTILE_CHILDFILE": str(workdir / "children"), "HOSTILE_TOKEN": token},
        sandbox=SANDBOX if sandboxed else None,
    )
    with closing(conn):
        conn.start(Referee(HOYLE, CLOCK).hello(0), START)
        # The child in the group, its setsid grandchild, the daemon.
        assert wait_until(lambda: len(with_token(token)) == 3, timeout=QUICK), with_token(token)
        if not sandboxed:  # the sandbox's working directory is its own, invisible here
            assert len((workdir / "children").read_text().split()) == 2
    assert wait_until(lambda: not with_token(token), timeout=GONE), with_token(token)


@needs_bwrap
def test_well_behaved_bots_play_a_game_in_the_sandbox(tmp_path: Path) -> None:
    """A Python bot from a script, and a built-in bot run as a subprocess the way
    ``BotSpec.connect`` runs it (``python -m bots.greedy``, the source tree on PYTHONPATH)."""
    arena = tmp_path / "arena"
    source = str(Path(bots.__file__).resolve().parent.parent)
    builtin = ProcessConnection(
        "greedy-subprocess",
        python_command("bots.greedy"),
        workdir=arena / "greedy",
        log_path=arena / "greedy.stderr.log",
        env={"PYTHONPATH": source},
        sandbox=SANDBOX,
    )
    script = ProcessConnection(
        "first-legal",
        hostile("slow.py", "0"),
        workdir=arena / "first-legal",
        log_path=arena / "first-legal.stderr.log",
        sandbox=SANDBOX,
    )
    clock = Clock(move=5.0, grace=1.0, startup=START)
    referee = Referee(HOYLE, clock)
    with closing(builtin, script):
        builtin.start(referee.hello(0, "first-legal"), START)
        script.start(referee.hello(1, "greedy"), START)
        outcome = referee.play_game([builtin, script], 7, number=1)
    logs = [(arena / f"{n}.stderr.log").read_text()[-2000:] for n in ("greedy", "first-legal")]
    assert outcome.failure is None, (outcome.failure, logs)
    assert outcome.winner in (0, 1)
    assert builtin.quit_by_itself and script.quit_by_itself


@needs_bwrap
def test_a_sandboxed_bot_against_an_in_process_bot(tmp_path: Path) -> None:
    conn = ProcessConnection(
        "first-legal",
        hostile("slow.py", "0"),
        workdir=tmp_path / "arena" / "first-legal",
        log_path=tmp_path / "arena" / "first-legal.stderr.log",
        sandbox=SANDBOX,
    )
    greedy = InProcessConnection("greedy", GreedyBot)
    referee = Referee(HOYLE, Clock(move=5.0, grace=1.0, startup=START))
    with closing(conn):
        conn.start(referee.hello(0, "greedy"), START)
        greedy.start(referee.hello(1, "first-legal"), START)
        outcome = referee.play_game([conn, greedy], 3, number=1)
    assert outcome.failure is None, outcome.failure


def test_a_missing_program_is_reported_as_without_a_sandbox(tmp_path: Path) -> None:
    ghost = tmp_path / "no-such-bot"
    conn = ProcessConnection(
        "ghost",
        [str(ghost)],
        workdir=tmp_path / "arena" / "ghost",
        log_path=tmp_path / "arena" / "ghost.stderr.log",
        sandbox=Sandbox("/usr/bin/bwrap"),
    )
    with closing(conn), pytest.raises(BotStartupError) as caught:
        conn.start(Referee(HOYLE, CLOCK).hello(0), START)
    assert caught.value.detail == f"cannot run '{ghost}': No such file or directory"


@needs_bwrap
def test_a_sandboxed_bot_that_crashes_or_is_killed_says_so(tmp_path: Path) -> None:
    referee = Referee(HOYLE, CLOCK)
    for name, argv, said in (
        ("exits", hostile("exit_at_once.sh"), r"exited with code 7"),
        ("killed", ["/bin/sh", "-c", "kill -9 $$"], r"was killed by SIGKILL"),
    ):
        conn = ProcessConnection(
            name,
            argv,
            workdir=tmp_path / "arena" / name,
            log_path=tmp_path / "arena" / f"{name}.stderr.log",
            sandbox=SANDBOX,
        )
        with closing(conn), pytest.raises(BotStartupError, match=said):
            conn.start(referee.hello(0), START)


def test_a_bot_kept_in_the_logs_directory_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    with pytest.raises(SandboxError, match=r"give the bots' logs a directory of their own"):
        Sandbox("/usr/bin/bwrap").options(
            [sys.executable, str(tmp_path / "bot.py")], workdir=tmp_path / "bot"
        )


@needs_bwrap
def test_a_sandbox_started_from_a_thread_outlives_the_thread_and_ends_at_close(
    tmp_path: Path,
) -> None:
    """Linux ties the parent-death signal to the thread that forked, so a bot started from a
    worker thread is not tied to it; it must live on when the thread ends, and still end with
    close(): its PID namespace's first process is then an orphan of ours, killed by the reaper."""
    token = f"GIN-ESCAPEE-{uuid.uuid4().hex}"
    workdir = tmp_path / "arena" / "escape"
    conn = ProcessConnection(
        "escape",
        hostile("escape.py"),
        workdir=workdir,
        log_path=tmp_path / "arena" / "escape.stderr.log",
        env={"HOSTILE_TOKEN": token},
        sandbox=SANDBOX,
    )
    errors: list[BaseException] = []

    def start() -> None:
        try:
            conn.start(Referee(HOYLE, CLOCK).hello(0), START)
        except BaseException as error:
            errors.append(error)

    with closing(conn):
        thread = threading.Thread(target=start)
        thread.start()
        thread.join(START + 10)
        assert not thread.is_alive() and not errors, errors
        assert wait_until(lambda: len(with_token(token)) == 3, timeout=QUICK), with_token(token)
        conn.send(m.GameEnd(type="game_end", winner=0, scores=[0, 0], reason="normal"))
        assert conn.exit_code is None, "the bot died with the thread that started it"
    assert wait_until(lambda: not with_token(token), timeout=GONE), with_token(token)


@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as nobody only when the arena is root")
def test_as_root_a_bot_in_a_private_directory_is_refused_with_the_fix(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    script = private / "mybot.py"
    script.write_text("print('hi')\n")
    box = Sandbox("/usr/bin/bwrap", "/usr/bin/setpriv")
    with pytest.raises(SandboxError, match=r"not readable by all users.*nobody.*chmod o\+rx"):
        box.options([sys.executable, str(script)], workdir=tmp_path / "arena" / "bot")
    private.chmod(0o755)
    box.options([sys.executable, str(script)], workdir=tmp_path / "arena" / "bot")


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="bots run as nobody only when the arena is root")
def test_as_root_a_bot_behind_a_private_directory_of_a_shown_one_starts(tmp_path: Path) -> None:
    """A checkout shown whole (the bot's cwd) with the bot's program in a directory below a
    private one (tox makes .tox 0700): nobody reaches it through a cover of the private one."""
    checkout = tmp_path / "checkout"
    program = checkout / ".tox" / "env" / "bin"
    program.mkdir(parents=True)
    (checkout / ".tox").chmod(0o700)
    (checkout / ".tox" / "other-secret").write_text("hidden")
    script = program / "bot.py"
    script.write_text((HOSTILE / "slow.py").read_text())
    (program / "_wire.py").write_text((HOSTILE / "_wire.py").read_text())
    conn = ProcessConnection(
        "behind",
        [sys.executable, str(script), "0"],
        workdir=tmp_path / "arena" / "behind",
        log_path=tmp_path / "arena" / "behind.stderr.log",
        cwd=checkout,
        env={"PYTHONPATH": str(program)},
        sandbox=SANDBOX,
    )
    with closing(conn):
        conn.start(Referee(HOYLE, CLOCK).hello(0), START)
    options = SANDBOX.options(
        [sys.executable, str(script), "0"],
        workdir=tmp_path / "arena" / "behind",
        cwd=checkout,
        env={"PYTHONPATH": str(program)},
    )
    cover = options.index(str(checkout / ".tox"))
    assert options[cover - 1] == "--tmpfs" and str(program) in options[cover:]
