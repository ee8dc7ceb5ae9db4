"""``covert.py MODE``: a bot that tries to pass what it knows to another bot (or to itself in the
other seating of a mirrored deal) through the kernel's state, reports what it achieved on stderr
(lines ``COVERT {json}``) and otherwise plays the first legal action at once.

Modes:

- ``pagecache``: the attack of issue 42 on duplicate play. At each ``hand_start`` it reads its
  region of the page cache of a large library that nothing maps (a region per upcard, the same
  in both seatings of a deal: a page cached is a 1, a card), with ``cachestat``, or else
  ``preadv2(RWF_NOWAIT)``, which fails with ``EAGAIN`` on a page not cached; then it writes its
  own hand there (a page read in for each card it holds, the rest dropped with
  ``posix_fadvise(DONTNEED)``). In the mirrored seating it thus reads its opponent's ten cards.
  It reports its hand, the upcard, and its guess of the opposing hand: the ten cards it read,
  or nothing when what it read is not a hand;
- ``hilock ROLE``: ``fcntl`` with the high bits of the command set, which the kernel ignores. At
  its first request the ``holder`` takes a read lock on ``/etc/passwd`` (``(1 << 32) | F_SETLK``)
  and keeps it; at each request the ``reader`` asks who holds a conflicting lock (``(1 << 32) |
  F_GETLK``): a lock seen is a bit passed between them;
- ``counters``: reads the host-wide counters (``/proc/meminfo``, ``stat``, ``vmstat``,
  ``loadavg``, ``sys/fs/file-nr``, ``sys/kernel/pty/nr``, the result of ``sysinfo`` but its
  clock), then moves them all (32 MiB in ``/dev/shm``, 200 files open, eight ptys, a burst of
  CPU, 20 children), reads them again and reports which changed: what a bot can move and
  another can read;
- ``hopper``: at its first request starts a dozen processes that fork and exit in a loop,
  counting their rounds in shared memory; at each request it takes the count, lets them run a
  moment, takes it again, and reports both with the clock: the rounds between two requests, when
  the bot should be frozen, against those while it computes;
- ``cpuburst``: at its first request starts three children that burn CPU, and never answers.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import mmap
import os
import struct
import sys
import time
from typing import Any

from _wire import handshake, reply

MODE = sys.argv[1]
PAGE = os.sysconf("SC_PAGE_SIZE")
RANKS, SUITS = "A23456789TJQK", "CDHS"
CARDS = [rank + suit for suit in SUITS for rank in RANKS]
RWF_NOWAIT = 8
STRIDE = 16
"""Pages between two bits: a read brings in at most a folio's worth, never the next bit."""

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def report(**facts: Any) -> None:
    print("COVERT " + json.dumps(facts), file=sys.stderr, flush=True)


def syscall(number: int, *args: int) -> tuple[int, int]:
    """(result, errno) of a raw system call."""
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    return result, (ctypes.get_errno() if result < 0 else 0)


# -- pagecache -----------------------------------------------------------------------------------

NR_PREADV2 = {"x86_64": 327, "aarch64": 286}.get(os.uname().machine, -1)
NR_CACHESTAT = 451


def carrier() -> str:
    """The largest library of the system's, which nothing maps."""
    best, size = "", 0
    for folder in (f"/usr/lib/{os.uname().machine}-linux-gnu", "/usr/lib", "/usr/lib64"):
        with contextlib.suppress(OSError):
            for entry in os.scandir(folder):
                library = ".so" in entry.name and "python" not in entry.name
                if library and entry.is_file(follow_symlinks=False) and entry.stat().st_size > size:
                    best, size = entry.path, entry.stat().st_size
    return best


def cached(fd: int, page: int) -> bool | None:
    """Whether the page is in the page cache, or None when the kernel will not say: by
    ``cachestat``, which changes nothing, else by ``preadv2(RWF_NOWAIT)`` (whose miss may start
    a read-ahead: the region is written afresh after it is read)."""
    # cachestat(fd, {off, len}, *stat, 0): the cached pages of the range
    span = ctypes.create_string_buffer(struct.pack("QQ", page * PAGE, PAGE))
    stat = ctypes.create_string_buffer(40)
    result, code = syscall(NR_CACHESTAT, fd, ctypes.addressof(span), ctypes.addressof(stat), 0)
    if result == 0:
        return struct.unpack_from("Q", stat.raw)[0] > 0
    buffer = ctypes.create_string_buffer(1)
    vec = ctypes.create_string_buffer(struct.pack("PN", ctypes.addressof(buffer), 1))
    result, code = syscall(NR_PREADV2, fd, ctypes.addressof(vec), 1, page * PAGE, 0, RWF_NOWAIT)
    if result >= 0:
        return True
    if code == errno.EAGAIN:
        return False
    return None


def pagecache(hand: list[str], upcard: str) -> None:
    path = carrier()
    regions = os.path.getsize(path) // (PAGE * 52 * STRIDE) if path else 0
    if not regions:
        report(hand=hand, upcard=upcard, guess=[], read="no carrier")
        return
    base = (CARDS.index(upcard) % regions) * 52 * STRIDE
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead: a page a bit
        bits = [cached(fd, base + i * STRIDE) for i in range(52)]
        guess = [card for card, bit in zip(CARDS, bits, strict=True) if bit]
        readable = None not in bits
        if len(guess) != 10 or set(guess) & {*hand, upcard}:
            guess = []
        time.sleep(0.05)  # any read-ahead started by the reads above is done
        os.posix_fadvise(fd, base * PAGE, 52 * STRIDE * PAGE, os.POSIX_FADV_DONTNEED)
        for i, card in enumerate(CARDS):  # write: this seating's hand for the other
            if card in hand:
                os.pread(fd, 1, (base + i * STRIDE) * PAGE)
            else:
                os.posix_fadvise(fd, (base + i * STRIDE) * PAGE, PAGE, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    report(
        hand=hand,
        upcard=upcard,
        guess=guess,
        ones=sum(1 for b in bits if b),
        read="ok" if readable else "refused",
    )


# -- hilock --------------------------------------------------------------------------------------

F_GETLK, F_SETLK, F_RDLCK, F_WRLCK, F_UNLCK = 5, 6, 0, 1, 2
NR_FCNTL = {"x86_64": 72, "aarch64": 25}.get(os.uname().machine, -1)
HIGH = 1 << 32


held: list[int] = []


def hilock(role: str) -> None:
    """The holder takes its lock once and keeps it (its descriptor open) for good; the reader
    looks at every request."""
    if role == "holder" and held:
        return
    fd = os.open("/etc/passwd", os.O_RDONLY)
    facts: dict[str, Any] = {"role": role}
    if role == "holder":
        lock = ctypes.create_string_buffer(struct.pack("hhqqi", F_RDLCK, 0, 0, 0, 0), 32)
        result, code = syscall(NR_FCNTL, fd, HIGH | F_SETLK, ctypes.addressof(lock))
        facts["set"] = result if result >= 0 else errno.errorcode.get(code, str(code))
        held.append(fd)
    else:
        ask = ctypes.create_string_buffer(struct.pack("hhqqi", F_WRLCK, 0, 0, 0, 0), 32)
        result, code = syscall(NR_FCNTL, fd, HIGH | F_GETLK, ctypes.addressof(ask))
        kind = struct.unpack_from("h", ask.raw)[0]
        facts["get"] = result if result >= 0 else errno.errorcode.get(code, str(code))
        facts["seen"] = result >= 0 and kind != F_UNLCK
        os.close(fd)
    report(**facts)


# -- counters ------------------------------------------------------------------------------------

COUNTED = (
    "/proc/meminfo",
    "/proc/stat",
    "/proc/vmstat",
    "/proc/loadavg",
    "/proc/sys/fs/file-nr",
    "/proc/sys/kernel/pty/nr",
)


def readings() -> dict[str, str]:
    seen: dict[str, str] = {}
    for path in COUNTED:
        try:
            with open(path) as file:
                seen[path] = file.read()
        except OSError as error:
            seen[path] = f"error {error.errno}"
    info = ctypes.create_string_buffer(128)
    if libc.sysinfo(info) == 0:
        # struct sysinfo: uptime (skipped: a clock), loads[3], totalram, freeram, sharedram,
        # bufferram, totalswap, freeswap, procs
        seen["sysinfo"] = repr(struct.unpack_from("9L", info.raw, 8)[:8])
    return seen


def move() -> dict[str, str]:
    """Everything a bot can do to the host's counters, done; what refused it."""
    refused: dict[str, str] = {}
    held: list[Any] = []
    try:
        with open("/dev/shm/covert", "wb") as file:
            file.write(b"\1" * (32 << 20))
    except OSError as error:
        refused["shm"] = str(error.errno)
    for _ in range(200):
        try:
            held.append(open("/proc/self/status"))  # noqa: SIM115
        except OSError as error:
            refused["files"] = str(error.errno)
            break
    for _ in range(8):
        try:
            held.append(open("/dev/ptmx", "rb+", buffering=0))  # noqa: SIM115
        except OSError as error:
            refused["ptmx"] = str(error.errno)
            break
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    children = []
    for _ in range(20):
        try:
            pid = os.fork()
        except OSError as error:
            refused["fork"] = str(error.errno)
            break
        if pid == 0:
            time.sleep(1.0)
            os._exit(0)
        children.append(pid)
    time.sleep(0.2)
    facts = {"refused": refused}
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    for file in held:
        file.close()
    with contextlib.suppress(OSError):
        os.unlink("/dev/shm/covert")
    return facts["refused"]


def counters() -> None:
    before = readings()
    refused = move()
    after = readings()
    # what moved while this bot moved things, and would not have by itself
    changed = sorted(p for p in before if before[p] != after.get(p))
    report(changed=changed, refused=refused, readable=sorted(p for p in before))


# -- hopper --------------------------------------------------------------------------------------

HOPPERS = 12
rounds = mmap.mmap(-1, 8 * HOPPERS)
"""The hoppers' rounds, shared with them (memory mapped before they fork)."""


def fork_again() -> int:
    """``os.fork()``, tried again while the bot is at its process limit (the hoppers started
    first fill it with processes that have ended but are not reaped yet)."""
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            time.sleep(0.001)


def hoppers(count: int = HOPPERS) -> None:
    for slot in range(count):
        if fork_again() == 0:
            while True:  # fork, let the child go on, exit: never the same pid for long
                try:
                    pid = os.fork()
                except OSError:
                    continue
                if pid:
                    os._exit(0)
                value = struct.unpack_from("Q", rounds, 8 * slot)[0] + 1
                struct.pack_into("Q", rounds, 8 * slot, value)


def total() -> int:
    return sum(struct.unpack(f"{len(rounds) // 8}Q", rounds[:]))


def burn_children() -> None:
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass


started = False
for message in handshake(f"covert-{MODE}"):
    kind = message["type"]
    if kind == "hand_start" and MODE == "pagecache":
        pagecache(message["hand"], message["upcard"])
    elif kind == "game_start" and MODE == "counters":
        counters()
    elif kind == "request":
        if MODE == "hilock":
            hilock(sys.argv[2])
        if MODE == "hopper":
            if not started:
                started = True
                hoppers()
            first, at = total(), time.monotonic()
            time.sleep(0.2)
            report(first=first, at=at, last=total(), until=time.monotonic())
        if MODE == "cpuburst":
            burn_children()
            time.sleep(600)
        reply(message)
