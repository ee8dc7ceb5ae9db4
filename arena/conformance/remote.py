"""An engine under test run as a process that speaks the adapter protocol (docs/CONFORMANCE.md):
one JSON request a line on its standard input, one JSON response a line on its standard output.

Whatever the process does, a call returns a response or raises :class:`AdapterError` naming what
went wrong (it exited, it said nothing in time, it wrote something that is not a JSON object);
the runner then fails the case at hand and the next call starts the process again.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shlex
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Final

from protocol.codec import quote

LINE_LIMIT: Final = 1 << 20
"""The longest response line read (1 MiB): a longer one is an error."""
STDERR_KEPT: Final = 2000
"""How much of the adapter's standard error an error quotes, from its end."""
QUIT_WAIT: Final = 1.0
"""Seconds an adapter has to exit after ``quit`` before it is killed."""


class AdapterError(RuntimeError):
    """The adapter process failed to answer a request."""


class AdapterProcess:
    """An adapter command, started on the first call and after every failure."""

    def __init__(self, command: str | Sequence[str], *, timeout: float = 10.0) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the adapter command is empty")
        self.timeout = timeout
        self.name = " ".join(self.argv)
        self.rule_ids = True
        """Whether the engine names the rule an action breaks (its ``hello`` says)."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = bytearray()
        self._stderr: IO[bytes] | None = None

    def call(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return the adapter's response object."""
        proc = self._proc if self._proc is not None else self._start()
        assert proc.stdin is not None
        line = json.dumps(request, separators=(",", ":")).encode() + b"\n"
        try:
            proc.stdin.write(line)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._failed(f"stopped reading its input ({self._exit_note()})") from None
        answer = self._read_line(proc)
        try:
            data = json.loads(answer)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise self._failed(f"answered {quote(answer.rstrip())}: not JSON ({error})") from None
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            raise self._failed(f"answered {quote(answer.rstrip())}: not an object with ok")
        return data

    def _start(self) -> subprocess.Popen[bytes]:
        stderr = self._stderr_file()
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
            )
        except OSError as error:
            raise AdapterError(
                f"cannot run the adapter {self.name!r}: {error.strerror or error}"
            ) from None
        assert proc.stdout is not None
        os.set_blocking(proc.stdout.fileno(), False)
        self._proc = proc
        self._buffer.clear()
        return proc

    def _stderr_file(self) -> IO[bytes]:
        if self._stderr is None:
            import tempfile

            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - kept for the adapter's life
        self._stderr.seek(0)
        self._stderr.truncate()
        return self._stderr

    def _read_line(self, proc: subprocess.Popen[bytes]) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while (end := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > LINE_LIMIT:
                raise self._failed(f"wrote a line over {LINE_LIMIT} bytes")
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                raise self._failed(f"did not answer within {self.timeout:g} s", hung=True)
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise self._failed(f"closed its output ({self._exit_note()})")
            self._buffer += chunk
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def _exit_note(self) -> str:
        proc = self._proc
        if proc is None:
            return "not running"
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(0.5)
        code = proc.returncode
        return "still running" if code is None else f"exit code {code}"

    def _failed(self, what: str, hung: bool = False) -> AdapterError:
        """Stop the process (the next call starts it afresh; one that ``hung`` is killed at once:
        it would not answer quit either) and describe the failure."""
        note = self._stderr_tail()
        self.close(wait=0.0 if hung else QUIT_WAIT)
        return AdapterError(f"the adapter {what}" + (f"; its stderr ends: {note}" if note else ""))

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        size = self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, size - STDERR_KEPT))
        return self._stderr.read().decode("utf-8", "replace").strip()

    def close(self, wait: float | None = None) -> None:
        """Ask the adapter to quit, give it ``wait`` seconds (default :data:`QUIT_WAIT`), then
        make sure it is gone."""
        wait = QUIT_WAIT if wait is None else wait
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            assert proc.stdin is not None
            proc.stdin.write(b'{"op":"quit"}\n')
            proc.stdin.close()
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, 9)
            proc.wait(5.0)
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> AdapterProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def adapter_command(python: str | Path) -> list[str]:
    """The command that runs this project's engine as an adapter with ``python``."""
    return [str(python), "-m", "arena.conformance.adapter"]
