"""The file a match writes its record to (``--record``): written under a temporary name beside
it and moved into place when the match ends (see :class:`RecordFile`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO

from arena.records.outcome import RecordWriteError


class RecordFile:
    """The ``--record`` file. A regular file is written under a temporary name beside it and
    moved into place when the match ends, so that a match that cannot start leaves an existing
    file as it was; whatever ends a match that has started (its last game, Ctrl-C, a failure),
    what was played is in the file, and a game cut short has no ``game_end`` line (``judge``
    says the record is incomplete). A path that is not a regular file (``/dev/stdout``, a pipe)
    is written directly."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_dir():
            raise ValueError(f"--record {str(path)!r} is a directory: name a file")
        self.partial: Path | None = None
        self._stream: IO[str] | None = None
        if path.exists() and not path.is_file():
            return  # a device or a pipe: nothing to replace, nothing to keep
        try:
            handle, name = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".partial", dir=path.parent
            )
        except OSError as error:
            raise ValueError(f"cannot write record {str(path)!r}: {error.strerror}") from None
        os.close(handle)
        self.partial = Path(name)
        # mkstemp makes the file readable by its owner alone; a record is as readable as any
        # file this user writes (the umask decides), like the file it replaces.
        umask = os.umask(0)
        os.umask(umask)
        with contextlib.suppress(OSError):
            self.partial.chmod(0o666 & ~umask)

    @property
    def paths(self) -> tuple[Path, ...]:
        """What a sandboxed bot must not see."""
        if self.partial is None:
            return (self.path.resolve(),)
        return (self.path.resolve(), self.partial.resolve())

    def open(self) -> IO[str]:
        target = self.partial or self.path
        try:
            self._stream = target.open("w", encoding="utf-8")
        except OSError as error:
            self._discard()
            raise ValueError(f"cannot write record {str(self.path)!r}: {error.strerror}") from None
        return self._stream

    def close(self) -> None:
        """Move the record into place if anything was written to it, else drop it."""
        stream = self._stream
        written = stream is not None and stream.tell() > 0 if self.partial else True
        if stream is not None:
            try:
                stream.close()
            except OSError as error:
                self._discard()
                raise RecordWriteError(
                    f"cannot write record {str(self.path)!r}: {error.strerror}"
                ) from None
        if self.partial is None:
            return
        if not written:
            self._discard()
            return
        try:
            os.replace(self.partial, self.path)
        except OSError as error:
            self._discard()
            raise RecordWriteError(
                f"cannot write record {str(self.path)!r}: {error.strerror}"
            ) from None

    def _discard(self) -> None:
        if self.partial is not None:
            with contextlib.suppress(OSError):
                self.partial.unlink()


__all__ = ["RecordFile"]
