"""What a bot writes: its output, cut into lines as it is read (:class:`Lines`), and its stderr,
kept in a log file with a cap (:func:`keep_log`).
"""

from __future__ import annotations

import collections
import os
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


def keep_log(stream: IO[bytes], path: Path, limit: int) -> None:
    """Copy ``stream`` (a bot's stderr) to the end of the file at ``path`` until it ends, keeping
    the file within ``limit`` bytes (across restarts: the file may hold earlier runs' words); past
    it, the rest is read and dropped, slowly, so that a bot that floods its stderr is slowed, not
    the referee. What the bot writes is copied as it comes, in whole lines (a line longer than a
    read goes as it is): processes of one bot that run at once (two workers' games) may share a
    log, and appending whole lines keeps their lines whole."""
    fd = stream.fileno()
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
