"""Bots as subprocesses: each in its own session and process group, with a minimal environment and
its own working directory (:mod:`arena.seats.launch`), stderr captured to a capped log file
(:mod:`arena.seats.output`), every wait bounded, and the whole group killed at the end, with every
descendant that left the group (:mod:`arena.seats.reaper`). With a
:class:`~arena.seats.walls.sandbox.Sandbox`, the bot runs in bubblewrap, isolated from the
referee, the other bots and the network.

Every wait on a bot is bounded: a reply has the move's deadline (``ask``'s timeout); a write
has one too (the move's for a request, :data:`BACKSTOP_SECONDS` for events), and a bot that
leaves its input unread past it is killed; when ``cpu_seconds`` is set, the kernel's CPU-time
limit (``RLIMIT_CPU``) applies to the bot process as well. Writes never block: the pipe to the
bot is non-blocking, and a full one is waited on with ``poll``.

Events are not written one by one: they wait in an outbox and go with the next request, in one
write (the bot reads them first, on that move's clock), or when the referee flushes the outbox at
the end of a game, or when it holds :data:`OUTBOX_BYTES`.

The bot's output is read by the referee's own thread when it waits for a line (``poll``, then
one read of what has come): no reader thread stands between a reply and the referee, and a bot
that writes when nobody asked cannot fill the referee's memory. Every line written to the bot or
read from it is logged on the wire (:mod:`arena.seats.wire`) as it is written or read.

Why this module is nearly 700 lines: it is one class, :class:`ProcessConnection`, whose start,
reads, writes and stop share one state (pipes, control group, outbox, lines read); what stands
apart is in :mod:`arena.seats.launch`, :mod:`arena.seats.output` and :mod:`arena.seats.last_words`.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Final

from arena.seats import reaper, wire
from arena.seats.connection import (
    BotCrashed,
    BotError,
    BotStartupError,
    BotTimeout,
    Connection,
    MalformedMessage,
    ProtocolViolation,
    check_ready,
    check_reply,
    decode_bot_line,
)
from arena.seats.launch import check_program, die_with_parent, fresh_workdir, minimal_env
from arena.seats.output import Lines, StderrTail, keep_log
from arena.seats.programs import cannot_run, resolve_command, sandbox_startup_hint
from arena.seats.reaper import wait_exit
from arena.seats.walls import limits
from arena.seats.walls.limits import BotGroup, LimitError, Limits
from arena.seats.walls.sandbox import Sandbox, SandboxError
from engine.hand import Action as EngineAction
from engine.hand import ActionKind
from protocol import messages as m
from protocol.codec import ProtocolError, decode, encode, quote
from protocol.convert import engine_action, reply_action
from protocol.views import Decision, RequestForm, request_json

BACKSTOP_SECONDS: Final = 2.0
"""The deadline of a write of events: a bot that has not read its input by then is killed."""
OUTBOX_BYTES: Final = 65536
"""The events the outbox holds before they are written without waiting for a request."""
LOG_LIMIT_BYTES: Final = 1 << 20
"""Default cap of a bot's stderr log file (1 MiB); the rest is read and dropped."""
QUIT_WAIT_SECONDS: Final = 2.0
"""How long a bot may take to exit after ``quit`` before its group is killed (by default: long
enough for a Python bot with heavy imports to end by itself)."""

_CPU_WATCH_SECONDS: Final = 0.02
"""The shortest wait between two looks at a bot's CPU total near its ``--cpu-seconds``."""
_DRAWS: Final = frozenset({ActionKind.DRAW_STOCK, ActionKind.DRAW_DISCARD})
"""Actions after which the same player is asked at once for its discard: a bot that drew is
left running between its two requests of the turn (no freeze and thaw around the referee's own
few microseconds; no other bot runs meanwhile)."""
_CHUNK: Final = 65536
_READ_BUDGET: Final = m.MAX_LINE_BYTES + 2 + _CHUNK
"""The most bytes of a bot's output read at once: more than a whole reply line, so that a reply
is never cut, and bounded, so that a bot writing without pause cannot hold the referee."""


def _now() -> float:
    """The clock of moves (a function, so that tests can drive it)."""
    return time.perf_counter()


class ProcessConnection(Connection):
    """A bot process speaking the protocol on its stdin and stdout."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        workdir: Path,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        memory_mb: int | None = None,
        cpu_seconds: int | None = None,
        pids: int | None = None,
        log_limit: int = LOG_LIMIT_BYTES,
        quit_wait: float = QUIT_WAIT_SECONDS,
        sandbox: Sandbox | None = None,
        read_only: Sequence[Path] = (),
        hidden: Sequence[Path] = (),
    ) -> None:
        """``workdir``: the bot's private directory (created at start); ``log_path``: where its
        stderr goes (capped at ``log_limit`` bytes). ``quit_wait``: how long the bot may take to
        exit on ``quit`` before it is killed. ``sandbox``: run the bot in it, with ``read_only``
        paths visible and ``hidden`` paths (the tournament database, the record file) not; both
        are ignored without a sandbox. The bots' working directories and logs must share a
        parent directory, which the sandbox hides but for the bot's own directory.

        ``memory_mb``, ``pids`` and ``cpu_seconds`` bound the bot, all its processes together,
        where control groups are available (:mod:`arena.seats.walls.limits`; None: the
        defaults :data:`~arena.seats.walls.limits.MEMORY_MB` and
        :data:`~arena.seats.walls.limits.PIDS`, and no CPU total);
        elsewhere ``memory_mb`` and ``cpu_seconds`` bound each process (``RLIMIT_AS``,
        ``RLIMIT_CPU``). With control groups the bot is frozen between its moves."""
        if not argv:
            raise ValueError(f"bot {name!r} has an empty command")
        self.name = name
        self.argv = list(argv)
        self.workdir = workdir
        self.cwd = cwd
        self.extra_env = dict(env or {})
        self.memory_mb = memory_mb
        self.cpu_seconds = cpu_seconds
        self.pids = pids
        self.log_limit = log_limit
        self.quit_wait = quit_wait
        self.sandbox = sandbox
        self.read_only = tuple(read_only)
        self.hidden = tuple(hidden)
        self._log_path = log_path
        self._proc: subprocess.Popen[bytes] | None = None
        self._stdin: IO[bytes] | None = None  # the bot's input, written by the referee
        self._stdout: IO[bytes] | None = None  # the bot's output, read by the referee
        self._stderr: IO[bytes] | None = None  # the bot's last words, kept in its log
        self._group: BotGroup | None = None
        self._lines = Lines()
        self._threads: list[threading.Thread] = []
        self._outbox: list[bytes] = []
        self._ignored: frozenset[str] = frozenset()
        self.honours_ignores = True
        """Leave out the events the bot says it ignores (``ready.ignores``); the bot checker
        sends every event all the same, to see that the bot copes with each."""
        self._output: select.poll | None = None  # the bot's stdout, to wait for its lines
        self._outbox_bytes = 0
        self._closed = False
        self._parent = os.getpid()
        self._tie_to_parent = False
        self._begun: tuple[m.Hello, Mapping[str, str], float, float] | None = None
        self._parted = False
        self.quit_by_itself: bool | None = None
        """After close(): whether the bot exited on quit before the kill."""

    @property
    def log_path(self) -> str:
        return str(self._log_path)

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def frozen(self) -> bool:
        """Whether the bot is frozen now (no request open to it), where control groups are."""
        return self._group is not None and self._group.frozen

    @property
    def cpu_used(self) -> float | None:
        """The CPU seconds the bot has used so far, all its processes together, as its control
        group counts them (None without one, or once the bot is closed)."""
        return None if self._group is None else self._group.cpu_seconds()

    # -- start ------------------------------------------------------------------------------

    def _before_exec(self) -> None:  # runs in the child between fork and exec
        import resource

        if self._tie_to_parent:
            die_with_parent(self._parent)
        if self._group is not None:
            self._group.join()
        elif self.memory_mb:  # without a control group, a bound per process
            size = self.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if self.cpu_seconds:
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 1))
        size = limits.FILE_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    def _limits(self) -> Limits:
        return Limits(
            memory_mb=limits.MEMORY_MB if self.memory_mb is None else self.memory_mb,
            pids=limits.PIDS if self.pids is None else self.pids,
            cpu_seconds=self.cpu_seconds,
        )

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        self.begin(hello, timeout)
        return self.finish_start()

    def begin(self, hello: m.Hello, timeout: float) -> None:
        """Start the process (its sandbox and control group): it boots while other bots do."""
        self._prepare()
        env = minimal_env(self.extra_env, self.workdir)
        self._bound()
        self._spawn(env)
        self._listen()
        self._begun = (hello, env, _now() + timeout, timeout)

    def finish_start(self) -> m.Ready:
        if self._begun is None:
            raise RuntimeError(f"bot {self.name!r}: finish_start() before begin()")
        hello, env, deadline, allowed = self._begun
        return self._greet(hello, max(0.0, deadline - _now()), env, allowed)

    def _prepare(self) -> None:
        """The bot's working directory, new, its log's directory, and this process made ready
        to be its parent."""
        try:
            fresh_workdir(self.workdir, sandboxed=self.sandbox is not None)
        except OSError as error:
            raise BotStartupError(
                f"cannot make its working directory {str(self.workdir)!r}: "
                f"{error.strerror or error}",
                self.name,
            ) from None
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        self._parent = os.getpid()
        # Linux's parent-death signal follows the thread that forked: only tie the bot to the
        # main thread, which lives as long as the process.
        self._tie_to_parent = threading.current_thread() is threading.main_thread()
        # Orphans of bots (a setsid grandchild, a daemon) come to us, to be killed at close().
        reaper.become_subreaper()

    def _bound(self) -> None:
        """The bot's control group, where control groups are available."""
        if limits.unavailable() is None:
            try:
                self._group = BotGroup.create(self.name, self._limits())
                self._group.open_join()
            except (LimitError, OSError) as error:
                self._drop_group()
                raise BotStartupError(f"cannot bound its resources: {error}", self.name) from None

    def _spawn(self, env: Mapping[str, str]) -> None:
        """Start the bot's process, in the sandbox if there is one, with its pipes."""
        argv: list[str] = self.argv
        fds: tuple[int, ...] = ()
        ends: list[int] = []  # the bot's ends of its stdin and stdout (sandbox), closed here
        theirs: list[int] = []  # the bot's end of its stderr (sandbox), closed here
        try:
            if self.sandbox is not None:
                # In the sandbox a missing program is only bwrap's complaint in the log: say it
                # here, as without a sandbox.
                check_program(self.argv[0], env, self.cwd or self.workdir)
                if self.sandbox.bash is not None:
                    # bwrap gets /dev/null, the bot its pipes as other descriptors, moved into
                    # place inside: so bwrap holds no copy of them, and a bot that closes its
                    # stdout is seen to at once.
                    stdin_read, stdin_write = os.pipe()
                    stdout_read, stdout_write = os.pipe()
                    ends = [stdin_read, stdout_write]
                    self._give_pipes(ends)
                    self._stdin = open(stdin_write, "wb", buffering=0)  # noqa: SIM115
                    self._stdout = open(stdout_read, "rb", buffering=0)  # noqa: SIM115
                argv, fds = self.sandbox.wrap(
                    resolve_command(self.argv, env, self.cwd or self.workdir),
                    workdir=self.workdir,
                    cwd=self.cwd,
                    read_only=self.read_only,
                    hidden=self.hidden,
                    env=env,
                    die_with_parent=self._tie_to_parent,
                    stdio=(ends[0], ends[1]) if len(ends) == 2 else None,
                    tmpfs_mb=self._limits().memory_mb or limits.MEMORY_MB,
                )
            piped = subprocess.DEVNULL if ends else subprocess.PIPE
            stderr: int = subprocess.PIPE
            if self.sandbox is not None:
                err_read, stderr = os.pipe()
                theirs.append(stderr)
                self._stderr = open(err_read, "rb", buffering=0)  # noqa: SIM115
                self._give_pipes([stderr])
            with reaper.starting():
                self._proc = subprocess.Popen(
                    argv,
                    stdin=piped,
                    stdout=piped,
                    stderr=stderr,
                    cwd=self.cwd or self.workdir,
                    env=env,
                    start_new_session=True,
                    pass_fds=(*fds, *ends),
                    # Only prctl, setrlimit and a write to a control group's file run between
                    # fork and exec, safe with threads.
                    preexec_fn=self._before_exec,  # noqa: PLW1509
                    bufsize=0,
                )
                reaper.register(self._proc.pid)
            if self._stdin is None:
                self._stdin, self._stdout = self._proc.stdin, self._proc.stdout
                if self._stdin is not None and self._stdout is not None:
                    self._give_pipes([self._stdin.fileno(), self._stdout.fileno()])
            if self._stderr is None:
                self._stderr = self._proc.stderr
        except SandboxError as error:
            self._drop_group()
            raise BotStartupError(str(error), self.name) from None
        except OSError as error:
            self._drop_group()
            bwrap = self.sandbox.bwrap if self.sandbox else None
            why = cannot_run(self.argv, error, bwrap, env, self.cwd or self.workdir)
            raise BotStartupError(why, self.name) from None
        finally:
            for fd in (*fds, *ends, *theirs):
                os.close(fd)
            if self._group is not None:
                self._group.close_join()

    def _give_pipes(self, fds: Sequence[int]) -> None:
        if self.sandbox is not None:  # the bot's own pipes: Sandbox.give
            self.sandbox.give(fds)

    def _listen(self) -> None:
        """Start reading the bot: its stderr into the log (a thread), its output by polling."""
        assert self._stderr is not None and self._stdin is not None and self._stdout is not None
        self.stderr_tail = StderrTail()  # this process's last words, whatever its log holds
        thread = threading.Thread(
            target=keep_log,
            args=(self._stderr, self._log_path, self.log_limit, self.stderr_tail),
            daemon=True,
            name=self.name,
        )
        thread.start()
        self._threads.append(thread)
        os.set_blocking(self._stdin.fileno(), False)  # see _write_out
        os.set_blocking(self._stdout.fileno(), False)  # see _read
        self._output = select.poll()
        self._output.register(self._stdout.fileno(), select.POLLIN)

    def _greet(
        self, hello: m.Hello, timeout: float, env: Mapping[str, str], allowed: float
    ) -> m.Ready:
        """Say hello and read the bot's ``ready`` within ``timeout`` seconds (what is left of
        the ``allowed`` start-up); then freeze it until its first request."""
        try:
            self._write_out([encode(hello)], timeout)
            line = self._receive(timeout)
        except (BotTimeout, BotCrashed) as error:
            detail = error.detail
            if detail.startswith("no reply within"):  # the whole allowance, not what was left
                detail = f"no reply within {allowed:.3f} s of its start"
            if self.sandbox is not None and isinstance(error, BotCrashed):
                hint = sandbox_startup_hint(self.argv, env, self.cwd or self.workdir)
                detail = f"{detail}; {hint}"
            raise BotStartupError(f"no answer to hello: {detail}", self.name) from None
        except MalformedMessage as error:
            raise BotStartupError(f"bad answer to hello: {error.detail}", self.name) from None
        try:
            ready = check_ready(decode_bot_line(line, self.name), hello, self.name)
        except (MalformedMessage, ProtocolViolation) as error:
            raise BotStartupError(error.detail, self.name) from None
        if self.honours_ignores:
            self._ignored = frozenset(ready.ignores or ()) & m.SKIPPABLE_EVENTS
        self.form = RequestForm(ready.form == "compact")
        self._pause()
        return ready

    def _drop_group(self) -> None:
        group, self._group = self._group, None
        if group is not None:
            group.remove()

    def _pause(self) -> None:
        """Freeze the bot until it is written to again: it may compute only while a request is
        open to it (no-op without control groups)."""
        if self._group is not None:
            self._group.freeze()

    def _check_cpu(self) -> None:
        """The bot's CPU total (all its processes) against ``cpu_seconds``: over it, the bot is
        killed."""
        group = self._group
        if group is None or not self.cpu_seconds:
            return
        used = group.cpu_seconds()
        if used is not None and used > self.cpu_seconds:
            self._kill()
            raise BotCrashed(
                f"used {used:.2f} s of CPU time (all its processes), over the limit of "
                f"--cpu-seconds {self.cpu_seconds}",
                self.name,
            )

    def _cpu_watch(self) -> float:
        """How long the bot may compute before it could cross ``cpu_seconds`` (all its
        processes, at most :data:`~arena.seats.walls.limits.CPU_CORES` at a time): the wait
        for a reply is cut there, so that a bot is ended within moments of crossing its total,
        not after its reply (infinite without a total or a control group)."""
        group = self._group
        if group is None or not self.cpu_seconds:
            return float("inf")
        used = group.cpu_seconds()
        if used is None:
            return float("inf")
        cores = self._limits().cpu_cores or float(os.cpu_count() or 1)
        return max((self.cpu_seconds - used) / cores, _CPU_WATCH_SECONDS)

    def heeds(self, kind: str) -> bool:
        """False for the events the bot said it ignores (``ready.ignores``): they are not sent."""
        return kind not in self._ignored

    # -- reading ----------------------------------------------------------------------------

    def _read(self, wait: float) -> None:
        """Read what the bot has written, waiting up to ``wait`` seconds for something (none:
        only what is there already)."""
        lines = self._lines
        stdout = self._stdout
        if lines.ended or stdout is None or self._output is None:
            return
        if not self._output.poll(wait * 1000):
            return
        fd = stdout.fileno()
        taken = 0
        while taken < _READ_BUDGET:  # bounded: a bot that never stops writing is judged
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            taken += len(chunk)
            new = lines.feed(chunk) if chunk else lines.end()
            if new and wire.enabled():
                for line in new:
                    wire.received(self.name, line)
            if len(chunk) < _CHUNK:  # all there was (or the end)
                return

    # -- I/O --------------------------------------------------------------------------------

    def _exit_note(self) -> str:
        proc = self._proc
        if proc is None:
            return "not started"
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(0.2)
        code = proc.returncode
        if self._group is not None and self._group.oom_killed():
            limit = self._limits().memory_mb
            return f"was killed by the kernel: out of memory (over its limit of {limit} MiB)"
        if code is None:
            return "closed its stdout"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
            return f"was killed by signal {-code}"
        if self.sandbox is not None and 128 < code < 128 + signal.NSIG:
            # bwrap exits with 128 + the signal that killed the bot.
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(code - 128).name} (exit code {code})"
        return f"exited with code {code}"

    def _write_out(self, lines: list[bytes], timeout: float) -> None:
        """Write ``lines`` (the outbox's, then any given) within ``timeout`` seconds: the pipe is
        non-blocking, so a bot that reads nothing cannot stall the referee; once the time is up
        it is killed."""
        stdin = self._stdin
        if self._proc is None or stdin is None:
            raise BotCrashed("is not running", self.name)
        if self._group is not None:
            self._group.thaw()
        if self._outbox:
            lines = [*self._outbox, *lines]
            self._outbox.clear()
            self._outbox_bytes = 0
        if wire.enabled():
            for line in lines:
                wire.sent(self.name, line)
        data = memoryview(b"".join(lines))
        fd = stdin.fileno()
        deadline: float | None = None
        try:
            while True:
                with contextlib.suppress(BlockingIOError):  # the pipe is full: wait below
                    data = data[os.write(fd, data) :]
                if not data:
                    return
                if deadline is None:
                    deadline = time.monotonic() + timeout
                left = deadline - time.monotonic()
                if left <= 0 or not self._writable(fd, left):
                    self._kill()
                    raise BotTimeout("stopped reading its input", self.name)
        except (BrokenPipeError, OSError, ValueError):
            raise BotCrashed(self._exit_note(), self.name) from None

    def _receive(self, timeout: float, start: float | None = None) -> bytes:
        """The bot's next line, waiting until ``timeout`` seconds from ``start`` (default: now)
        have really passed: a wait that wakes early waits again, so that a timeout is never
        reported before its time."""
        deadline = (_now() if start is None else start) + timeout
        lines = self._lines
        while not lines.ready:
            if lines.ended:
                raise BotCrashed(self._exit_note(), self.name)
            left = deadline - _now()
            if left <= 0:
                raise BotTimeout(f"no reply within {timeout:.3f} s", self.name)
            self._read(min(left, self._cpu_watch()))
            self._check_cpu()
        line = lines.ready.popleft()
        if lines.ready:  # more than a reply can be: judged now, as if it came unasked
            decode_bot_line(line, self.name)  # but the reply's own fault first
            self._check_quiet("the request that would need it")
        return line

    def _writable(self, fd: int, seconds: float) -> bool:
        """Wait up to ``seconds`` for room in the pipe ``fd`` to the bot (or its reader to be
        gone: the write then fails, as it should) or for output from it, which is read, so that
        a bot blocked on a full output pipe is not taken for one that stops reading. False when
        the time is up."""
        out = None if self._stdout is None or self._lines.ended else self._stdout
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        if out is not None:
            poller.register(out.fileno(), select.POLLIN)
        events = poller.poll(seconds * 1000)
        if any(ready != fd for ready, _ in events):
            self._read(0)
        return bool(events)

    def send(self, message: m.Message) -> None:
        """Put an event in the outbox (see the module); a full one is written at once."""
        if self._proc is None:
            raise BotCrashed("is not running", self.name)
        if message.type in self._ignored:
            return
        line = encode(message)
        self._outbox.append(line)
        self._outbox_bytes += len(line)
        if self._outbox_bytes >= OUTBOX_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the events in the outbox (what the bot sent unasked meanwhile is a failure)."""
        if self._outbox:
            self._check_quiet("events were written to it")
            self._write_out([], BACKSTOP_SECONDS)
            self._pause()

    def send_line(self, line: bytes) -> None:
        """Send a raw line (the bot checker's probes of unknown messages)."""
        if self._proc is None or self._stdin is None:
            raise BotCrashed("is not running", self.name)
        self._write_out([line.rstrip(b"\n") + b"\n"], BACKSTOP_SECONDS)

    @property
    def exit_code(self) -> int | None:
        """The exit status once the bot has ended (negative: killed by that signal)."""
        return None if self._proc is None else self._proc.poll()

    def _check_quiet(self, before: str) -> None:
        """Anything the bot sent unasked is a failure, classified as it would be had it come while
        a request was open, whenever it is found: a line that is not a message is malformed, a
        message is a protocol violation (a reply to nothing)."""
        self._read(0)
        lines = self._lines
        if not lines.ready:
            if lines.ended:
                raise BotCrashed(self._exit_note(), self.name)
            return
        line = lines.ready.popleft()
        when = f"when no request was open (before {before})"
        try:
            decode(line)
        except ProtocolError as error:
            raise MalformedMessage(f"{error} (sent {when})", self.name) from None
        text = quote(line.rstrip(b"\r\n"))
        raise ProtocolViolation(f"sent {text} {when}", self.name)

    def discard_pending(self) -> None:
        """Drop every line the bot has written and the referee has not read (the lines that came
        with a failing one), so that ``error`` and ``game_end`` still reach it; the end of its
        output, if seen, stays."""
        self._read(0)  # the rest of what came with the failing line
        self._lines.ready.clear()

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        """Send ``request`` and wait for the reply; the clock starts once the request is written
        (a write the bot does not read within the time kills it)."""
        line, elapsed = self._exchange(encode(request), timeout)
        return check_reply(decode_bot_line(line, self.name), request.id, self.name), elapsed

    def decide(self, decision: Decision) -> tuple[EngineAction, float]:
        """As :meth:`Connection.decide`, with the request written straight from the decision
        (:func:`~protocol.views.request_json`) and a reply written exactly as the SDK writes it
        taken by a look-up (:func:`~protocol.convert.reply_action`); any other reply is decoded
        and validated."""
        line, elapsed = self._exchange(
            request_json(decision, self.form.start(decision)),
            decision.free + decision.bank,
            pause=False,
        )
        try:
            action = reply_action(line, decision.id)
            if action is None:
                reply = check_reply(decode_bot_line(line, self.name), decision.id, self.name)
                action = engine_action(reply.action)
        except BaseException:
            self._pause()
            raise
        if action.kind not in _DRAWS:
            self._pause()
        return action, elapsed

    def _exchange(self, request: bytes, timeout: float, pause: bool = True) -> tuple[bytes, float]:
        """Write a request line (after the events held) and read the line that answers it,
        with the seconds from the written request to the line read; then freeze the bot unless
        ``pause`` is False (the caller then does)."""
        self._check_quiet("the request message")
        self._write_out([request], timeout)
        start = _now()
        try:
            line = self._receive(timeout, start)
        except BaseException:
            self._pause()
            raise
        elapsed = _now() - start
        if pause:
            self._pause()
        self._check_cpu()
        return line, elapsed

    # -- stop -------------------------------------------------------------------------------

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if self._group is not None:  # every process of the bot, wherever it went
            self._group.kill()

    def part(self) -> bool:
        """Say quit and close the bot's input, without waiting: bots told together exit
        together (:meth:`close` waits). Whether the bot has been told (now or before)."""
        proc, stdin = self._proc, self._stdin
        if proc is not None and stdin is not None and not self._parted and proc.poll() is None:
            self._parted = True
            with contextlib.suppress(BotError):
                self._write_out([encode(m.Quit(type="quit"))], min(self.quit_wait, 0.5))
            with contextlib.suppress(OSError, ValueError):
                stdin.close()
        return self._parted

    def close(self) -> None:
        """Say quit, give the bot ``quit_wait`` seconds, then kill its whole process group and
        every orphan its descendants left (:func:`arena.seats.reaper.reap_orphans`)."""
        proc = self._proc
        if proc is None or self._closed:
            return
        if self.part():
            wait_exit(proc, self.quit_wait)
        self.quit_by_itself = proc.poll() is not None
        self._kill()  # the group: children the bot left behind go too
        wait_exit(proc, 5.0)
        # Descendants that left the group (another session) were handed to us: end them.
        reaper.unregister(proc.pid)
        reaper.reap_orphans()
        self._drop_group()
        self._closed = True
        for thread in self._threads:  # the log's reader ends at EOF; let it save the last words
            thread.join(timeout=2)
        for stream in (self._stdin, self._stdout, self._stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
