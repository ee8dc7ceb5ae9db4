"""Who may read or write a tournament database, and how SQLite is to open it for reading: what
:class:`arena.tournament.store.Store` asks before it opens a file, so that a database that
cannot be written is said to be read-only (not damaged, not foreign) before anything starts, and
one that can only be read is read without leaving a file beside it.

**Reading a WAL database without writing anything.** A database in WAL mode (every database
this project writes) is read by SQLite through two files beside it, ``-wal`` (the log of
committed transactions not yet copied into the database) and ``-shm`` (the index that readers
and writers share). A ``mode=ro`` connection needs both: it uses them when they exist, creates
them when the folder lets it (and leaves them, since a reader may not checkpoint and remove them),
and cannot open the database at all when they do not exist and cannot be made (a read-only
folder or mount: "unable to open database file"). ``immutable=1`` reads the database file alone,
with no locks and no other file, which is only right while nobody writes it. So
:func:`read_uri` chooses, at each read:

- a ``-wal`` and a ``-shm`` both there, a non-empty ``-wal``, or a rollback ``-journal``: a writer
  is connected, or one stopped without cleaning up (a crash), and committed transactions may be
  in the log: ``mode=ro``, SQLite's own locking, which creates nothing when both files exist;
- otherwise no connection has the database open (a WAL connection keeps both files for as long as
  it is connected, and the last one to close copies the log into the database, then removes
  them), so the database file holds everything: ``immutable=1``, creating nothing whether the
  folder is writable or not. A writer that arrives while it is read changes nothing the reader
  sees until it copies its log into the database file, which changes the file's size or times:
  the reader compares the file's :func:`fingerprint` before and after each query and asks again
  (by then the writer's files are there, and ``mode=ro`` is chosen) when it moved. Missing such a
  write would take a writer that arrives, commits, copies its log in and leaves within one tick
  of the file system's clock (milliseconds) of the database's previous change, leaving its size
  as it was; a live page that reads again and again would see the next write anyway.

Each read of a store opened read-only is a connection of its own, closed after it: a reader holds no
lock between reads, so a writer that closes meanwhile removes its ``-wal`` and ``-shm`` as if no
reader were there, and nothing is left that the reader made (SQLite 3.22 or later reads a WAL
database through files it may not write).

**Writing** needs the database file writable, and its folder, where SQLite keeps the ``-wal`` and
``-shm`` of a writer (unless both are already there and writable): :func:`unwritable` says why
not, from ``access(2)`` and the file system's flags, opening no file (closing a descriptor of a
database would drop the locks SQLite holds on it in this process).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

Fingerprint = tuple[int, int, int, int, int]
"""A file's device, inode, size, and modification and change times (ns): what a write moves."""

WAL_ENDS: Final = ("-wal", "-shm")
"""The files SQLite keeps beside a database in WAL mode while it is open."""


def beside(path: Path, end: str) -> Path:
    """The file SQLite keeps beside the database at ``path`` with the name ending ``end``."""
    return path.with_name(path.name + end)


def fingerprint(path: Path) -> Fingerprint:
    """What a write to the file at ``path`` would change (an OSError if it is gone)."""
    info = os.stat(path)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def read_uri(path: Path) -> tuple[str, Fingerprint | None]:
    """The URI to read the database at ``path`` with (see the module's documentation), and the
    file's fingerprint when it is read ``immutable=1`` (None: SQLite's locks keep reads whole)."""
    uri = path.absolute().as_uri() + "?mode=ro"
    wal, shm, journal = (beside(path, end) for end in (*WAL_ENDS, "-journal"))
    if (wal.exists() and shm.exists()) or _size(wal) > 0 or journal.exists():
        return uri, None
    return uri + "&immutable=1", fingerprint(path)


def unreadable(path: Path) -> str | None:
    """Why this process cannot read the file at ``path``, or None when it can."""
    if os.access(path, os.R_OK, effective_ids=_EFFECTIVE):
        return None
    return "it is not readable by this user"


def unwritable(path: Path) -> str | None:
    """Why this process cannot write the database at ``path`` (the file, or the folder its
    ``-wal`` and ``-shm`` go in), in words, or None when it can."""
    if not _can_write(path):
        return _why(path, "the file")
    folder = path.absolute().parent
    kept = [beside(path, end) for end in WAL_ENDS]
    if not _can_write(folder) and not all(p.exists() and _can_write(p) for p in kept):
        return _why(folder, f"its folder {str(folder)!r} (where SQLite keeps the -wal and -shm)")
    return None


def uncreatable(path: Path) -> str | None:
    """Why this process cannot create a database at ``path`` (its folder), or None."""
    folder = path.absolute().parent
    if not folder.is_dir():
        return f"there is no folder {str(folder)!r}"
    if _can_write(folder):
        return None
    return _why(folder, f"its folder {str(folder)!r}")


def _can_write(path: Path) -> bool:
    mode = os.W_OK | (os.X_OK if path.is_dir() else 0)
    return os.access(path, mode, effective_ids=_EFFECTIVE)


def _why(path: Path, what: str) -> str:
    """Why ``what`` (``path``) cannot be written: the file system, its permissions, or (when
    they allow it) an attribute such as chattr's immutable."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return f"{what} is on a read-only file system"
        info = os.stat(path)
    except OSError as error:
        return f"{what} cannot be examined ({error.strerror})"
    mine = info.st_uid == os.geteuid() and info.st_mode & stat.S_IWUSR
    if os.geteuid() == 0 or mine:
        return f"{what} is read-only (immutable or append-only: lsattr shows it)"
    return f"{what} is read-only for this user"


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


_EFFECTIVE: Final = os.access in os.supports_effective_ids


__all__ = [
    "WAL_ENDS",
    "Fingerprint",
    "beside",
    "fingerprint",
    "read_uri",
    "uncreatable",
    "unreadable",
    "unwritable",
]
