"""An engine under test run as a process that speaks the adapter protocol (docs/CONFORMANCE.md):
one JSON request a line on its standard input, one JSON response a line on its standard output.

Whatever the process does, a call returns a response or raises :class:`AdapterError` naming what
went wrong (it exited, it said nothing in time, it wrote a line too long, not strict JSON or over
a bound of :func:`protocol.codec.parse_json`, not an object, or more than one line); the runner
then fails the case at hand and the next call starts the process again. Every wait is bounded by
the timeout, writing the request included. The adapter runs in a session of its own; when it
stops, its whole process group is killed, and so is every descendant that left the group (this
process is their child subreaper, :mod:`arena.seats.reaper`): nothing it started outlives it, and
nothing it left holding its output open makes the kit wait.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from arena.conformance.capabilities import Capabilities
from arena.errors import ArenaError
from arena.seats import reaper
from protocol.codec import QUOTE_LIMIT, InvalidJson, parse_json, quote

LINE_LIMIT: Final = 1 << 20
"""The longest response line read (1 MiB): a longer one is an error."""
STDERR_KEPT: Final = 2000
"""How much of the adapter's standard error an error quotes, from its end."""
QUIT_WAIT: Final = 1.0
"""Seconds an adapter has to exit after ``quit`` before it is killed."""
EXIT_CHECK: Final = 0.05
"""How often (seconds) a wait for an answer checks that the adapter is still running: a process
it left behind may hold its output open after it ended."""
_READ: Final = 65536


class AdapterError(ArenaError, RuntimeError):
    """The adapter process failed to answer a request; ``hung``: it did not answer in time."""

    def __init__(self, message: str, *, hung: bool = False) -> None:
        super().__init__(message)
        self.hung = hung


class AdapterProcess:
    """An adapter command, started on the first call and after every failure."""

    def __init__(self, command: str | Sequence[str], *, timeout: float = 10.0) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the adapter command is empty")
        self.timeout = timeout
        self.name = " ".join(self.argv)
        self.notes: list[str] = []
        """The lines the adapter's ``hello`` asked the report to print."""
        self.capabilities = Capabilities()
        """What the engine has, as its ``hello`` declares (everything, until it does)."""
        self.timeouts_in_a_row = 0
        """How many requests in a row the adapter has not answered in time (0 after any line)."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._stderr = bytearray()
        """The end of the adapter's standard error."""
        self._stderr_open = False

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return the adapter's response object."""
        proc = self._proc if self._proc is not None else self._start()
        self._drain(proc)
        if self._buffer:
            unasked = quote(bytes(self._buffer))
            raise self._failed(f"wrote {unasked} when nothing was asked (one line per request)")
        self._send(proc, json.dumps(request, separators=(",", ":")).encode() + b"\n")
        answer = self._read_line(proc).rstrip(b"\r\n")
        self.timeouts_in_a_row = 0
        if self._buffer:
            more = quote(bytes(self._buffer))
            raise self._failed(
                f"wrote more than one line for one request: {quote(answer)}, then {more}"
            )
        try:
            data = parse_json(answer)
        except InvalidJson as error:
            raise self._failed(f"answered {quote(answer)}: {error.detail}") from None
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            raise self._failed(f"answered {quote(answer)}: not an object with ok true or false")
        return data

    def _start(self) -> subprocess.Popen[bytes]:
        # Descendants that leave the adapter's session come to us when it ends, to be killed.
        reaper.become_subreaper()
        try:
            with reaper.starting():
                proc = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                    bufsize=0,
                )
                reaper.register(proc.pid)
        except OSError as error:
            raise AdapterError(
                f"cannot run the adapter {self.name!r}: {error.strerror or error}"
            ) from None
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        self._proc = proc
        self._buffer.clear()
        self._stderr.clear()
        self._stderr_open = True
        return proc

    def _send(self, proc: subprocess.Popen[bytes], line: bytes) -> None:
        """Write ``line`` to the adapter within the timeout (one that reads nothing fills the pipe
        and would block a plain write for ever)."""
        assert proc.stdin is not None
        fd = proc.stdin.fileno()
        deadline = time.monotonic() + self.timeout
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                pass
            except OSError:  # a broken pipe: it closed its input or exited
                raise self._failed(f"stopped reading its input ({self._exit_note()})") from None
            left = deadline - time.monotonic()
            if view and (left <= 0 or not poller.poll(left * 1000)):
                raise self._failed(f"did not read its input within {self.timeout:g} s", hung=True)

    def _read_line(self, proc: subprocess.Popen[bytes]) -> bytes:
        assert proc.stdout is not None and proc.stderr is not None
        fd, err = proc.stdout.fileno(), proc.stderr.fileno()
        deadline = time.monotonic() + self.timeout
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if self._stderr_open:
            poller.register(err, select.POLLIN)
        while (end := self._buffer.find(b"\n", 0, LINE_LIMIT + 2)) < 0:
            if len(self._buffer) > LINE_LIMIT + 1:  # the line and a "\r"
                raise self._too_long()
            left = deadline - time.monotonic()
            if left <= 0:
                what = f"did not answer within {self.timeout:g} s{self._unfinished()}"
                raise self._failed(what, hung=True)
            ready = {ready_fd for ready_fd, _ in poller.poll(min(left, EXIT_CHECK) * 1000)}
            if err in ready and not self._keep_stderr(err):
                poller.unregister(err)  # at its end: it would be ready for ever
            if fd not in ready:
                if proc.poll() is None:
                    continue
                # It has ended, and what it wrote before is there to read; beyond that, only a
                # process it left behind holds its output open.
                if fd not in {ready_fd for ready_fd, _ in poller.poll(0)}:
                    what = f"ended ({self._exit_note()}) without answering{self._unfinished()}"
                    raise self._failed(what)
            try:
                chunk = os.read(fd, _READ)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._failed(f"closed its output ({self._exit_note()}){self._unfinished()}")
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        if len(line.rstrip(b"\r\n")) > LINE_LIMIT:
            raise self._too_long()
        del self._buffer[: end + 1]
        return line

    def _too_long(self) -> AdapterError:
        start = quote(bytes(self._buffer[:QUOTE_LIMIT]))
        what = f"wrote a line over {LINE_LIMIT} bytes, starting {start}"
        return self._failed(what, wait=0.0)  # it may still be writing it: it would not read quit

    def _unfinished(self) -> str:
        """What the adapter wrote of a line it did not finish, for a message."""
        return f" (it wrote {quote(bytes(self._buffer))} and no newline)" if self._buffer else ""

    def _drain(self, proc: subprocess.Popen[bytes]) -> None:
        """Read what the adapter wrote since its last answer, if anything (at most a line's
        worth), without waiting."""
        assert proc.stdout is not None and proc.stderr is not None
        self._keep_stderr(proc.stderr.fileno())
        fd = proc.stdout.fileno()
        with contextlib.suppress(OSError):  # BlockingIOError: nothing more to read
            while len(self._buffer) <= LINE_LIMIT and (chunk := os.read(fd, _READ)):
                self._buffer += chunk

    def _keep_stderr(self, fd: int) -> bool:
        """Read the adapter's standard error as far as it goes without waiting, keeping its end;
        False once it is closed."""
        if not self._stderr_open:
            return False
        with contextlib.suppress(OSError):  # BlockingIOError: nothing more to read
            for _ in range(LINE_LIMIT // _READ):  # bounded: an adapter may write without end
                chunk = os.read(fd, _READ)
                if not chunk:
                    self._stderr_open = False
                    break
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]
        return self._stderr_open

    def _exit_note(self) -> str:
        proc = self._proc
        if proc is None:
            return "not running"
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(0.5)
        code = proc.returncode
        return "still running" if code is None else f"exit code {code}"

    def _failed(self, what: str, *, hung: bool = False, wait: float = QUIT_WAIT) -> AdapterError:
        """Stop the process, giving it ``wait`` seconds to quit (the next call starts it afresh;
        one that ``hung`` is killed at once: it would not answer quit either), and describe the
        failure."""
        if self._proc is not None and self._proc.stderr is not None:
            self._keep_stderr(self._proc.stderr.fileno())
        note = self._stderr.decode("utf-8", "replace").strip()
        self.close(wait=0.0 if hung else wait)
        self.timeouts_in_a_row = self.timeouts_in_a_row + 1 if hung else 0
        message = f"the adapter {what}" + (f"; its stderr ends: {note}" if note else "")
        return AdapterError(message, hung=hung)

    def close(self, wait: float | None = None) -> None:
        """Ask the adapter to quit, give it ``wait`` seconds (default :data:`QUIT_WAIT`), then
        make sure that it, its process group and every descendant that left the group are gone."""
        wait = QUIT_WAIT if wait is None else wait
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None
        with contextlib.suppress(OSError, ValueError):
            os.write(proc.stdin.fileno(), b'{"op":"quit"}\n')  # not waiting: a full pipe drops it
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
        # The group goes whether the adapter quit or not: what it left in it goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5.0)
        reaper.unregister(proc.pid)
        reaper.reap_orphans()  # descendants in sessions of their own, handed to us
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> AdapterProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def adapter_command(python: str | Path) -> list[str]:
    """The command that runs this project's engine as an adapter with ``python``."""
    return [str(python), "-m", "arena.conformance.adapter"]
