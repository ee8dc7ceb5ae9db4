"""What a bot writes: its output, cut into lines as it is read (:class:`Lines`), and its stderr,
kept in a log file with a cap (:func:`keep_log`) and its last few lines in memory
(:class:`StderrTail`: a bot's last words, for the message of its failure, whether or not the log
outlives the game).
"""

from __future__ import annotations

import collections
import os
import threading
import time
from pathlib import Path
from typing import IO, Final

from protocol import messages as m

_LOG_THROTTLE_SECONDS: Final = 0.01
"""The pause between reads of a bot's stderr once its log is full: a bot that floods its stderr
is slowed, not the referee."""


class Lines:
    """The lines of a bot's output as they are read: :meth:`feed` takes each chunk read, and the
    complete lines wait in :attr:`ready`. A line over the limit is cut at the limit (to be found
    malformed) and the rest of it dropped; a last line without its end is a line too."""

    def __init__(self) -> None:
        self.ready: collections.deque[bytes] = collections.deque()
        self.ended = False
        self._pending = bytearray()
        self._skipping = False  # in the rest of a line over the limit

    def feed(self, chunk: bytes) -> list[bytes]:
        """Take a chunk of output; return the lines it completed (also queued)."""
        limit = m.MAX_LINE_BYTES + 2
        pending = self._pending
        seen = len(pending)  # holds no line end: search the chunk only
        pending += chunk
        new = []
        start = 0
        while (end := pending.find(b"\n", max(start, seen))) >= 0:
            if self._skipping:
                self._skipping = False
            else:
                new.append(bytes(pending[start : min(end + 1, start + limit)]))
            start = end + 1
        del pending[:start]
        if self._skipping:
            pending.clear()
        elif len(pending) >= limit:
            new.append(bytes(pending[:limit]))
            pending.clear()
            self._skipping = True
        self.ready.extend(new)
        return new

    def end(self) -> list[bytes]:
        """The end of the output; return its last line, if it had no line end."""
        self.ended = True
        last = [] if self._skipping or not self._pending else [bytes(self._pending)]
        self._pending.clear()
        self.ready.extend(last)
        return last


_LOG_READ: Final = 65536
"""The most of a bot's stderr read at once."""
TAIL_BYTES: Final = 4096
"""What :class:`StderrTail` keeps of the end of a bot's stderr."""


class StderrTail:
    """The end of one bot process's stderr, as its reader (:func:`keep_log`) copies it: the last
    :data:`TAIL_BYTES` of it, its own words only (a log file may hold earlier processes' too),
    kept past the log's cap. Thread-safe: the reader feeds it, the referee reads it."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._seen = 0
        self._changed = threading.Condition()
        self._ended = False
        self._at = time.monotonic()

    def feed(self, chunk: bytes) -> None:
        with self._changed:
            self._data += chunk
            del self._data[: max(0, len(self._data) - TAIL_BYTES)]
            self._seen += len(chunk)
            self._at = time.monotonic()
            self._changed.notify_all()

    def end(self) -> None:
        """The stderr is closed: the process and every child that held it are gone."""
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def settle(self, timeout: float, quiet: float) -> None:
        """Wait, at most ``timeout`` seconds, until the stderr has ended or nothing came for
        ``quiet`` seconds: what the bot wrote just before it failed is then in."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._ended:
                now = time.monotonic()
                if now >= deadline or now - self._at >= quiet:
                    return
                self._changed.wait(min(deadline, self._at + quiet) - now)

    @property
    def ended(self) -> bool:
        return self._ended

    def lines(self, count: int) -> tuple[list[str], int]:
        """Its last ``count`` non-blank lines (decoded, undecodable bytes replaced) and how many
        bytes the bot wrote in all."""
        with self._changed:
            text = bytes(self._data).decode("utf-8", errors="replace")
            seen = self._seen
        kept = [line.strip() for line in text.splitlines() if line.strip()]
        return kept[-count:] if count else [], seen


def keep_log(stream: IO[bytes], path: Path, limit: int, tail: StderrTail | None = None) -> None:
    """Copy ``stream`` (a bot's stderr) to the end of the file at ``path`` until it ends, keeping
    the file within ``limit`` bytes (across restarts: the file may hold earlier runs' words); past
    it, the rest is read and dropped, slowly, so that a bot that floods its stderr is slowed, not
    the referee. What the bot writes is copied as it comes, in whole lines (a line longer than a
    read goes as it is): processes of one bot that run at once (two workers' games) may share a
    log, and appending whole lines keeps their lines whole. ``tail``, if given, gets every byte
    read, the cap regardless, and is ended when the stream is."""
    fd = stream.fileno()
    try:
        _copy(fd, path, limit, tail)
    finally:
        if tail is not None:
            tail.end()


def _copy(fd: int, path: Path, limit: int, tail: StderrTail | None) -> None:
    with open(path, "ab") as log:
        written = log.seek(0, os.SEEK_END)  # the cap holds for the file, across restarts
        pending = b""
        try:
            while True:
                chunk = os.read(fd, _LOG_READ)
                data = pending + chunk
                cut = len(data) if not chunk else data.rfind(b"\n") + 1
                if chunk and cut == 0 and len(data) < _LOG_READ:
                    pending = data  # the rest of the line is to come
                    continue
                cut = cut or len(data)
                piece, pending = data[:cut], data[cut:]
                if tail is not None:
                    tail.feed(piece)
                if written < limit:
                    piece = piece[: limit - written]
                    log.write(piece)
                    log.flush()
                    written += len(piece)
                    if written >= limit:
                        log.write(b"\n[gin-arena: log truncated at the size cap]\n")
                        log.flush()
                elif chunk:
                    time.sleep(_LOG_THROTTLE_SECONDS)
                if not chunk:
                    break
        except (OSError, ValueError):
            pass
