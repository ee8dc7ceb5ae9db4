"""``walls.py MODE``: a bot that attacks the walls around it, reports what it achieved on stderr
(one line ``WALLS {json}``) and otherwise plays the first legal action at once.

Modes (the attack is made at hello, unless said otherwise):

- ``root``: its uid and capabilities; every ``/proc/sys`` file and the other files of ``/proc``
  that root could write, opened for writing (never written: opening proves it); loading a kernel
  module; mounting a file system; the host paths it can list;
- ``flood``: at its first request, enlarges its stdout pipe and writes ``{}`` lines without
  pause;
- ``tmpfs``: writes up to 1 GiB into each of ``/tmp``, ``/dev/shm`` and its working directory,
  and reports how much each took;
- ``children``: starts four children that each fill 200 MiB, and reports which survived;
- ``forkbomb`` / ``threadbomb``: starts processes (threads) until refused, reports how many;
- ``burn``: from its first request on, a thread burns CPU all along; at each request it reports
  its CPU time and the clock;
- ``cpuhog``: at its first request, starts three children that burn CPU, then takes a second
  for each move;
- ``channel WORD``: tries to pass ``WORD`` to another bot (or read it from one) through a lock on
  a file both can read and through inotify, and reports what it saw of the other;
- ``collude``: at every request, tries to take (and then keeps) an exclusive lock on a file every
  sandbox can read, and reports how often it found the lock taken: a partner holding it would
  be a one-bit channel between them;
- ``peek PATH``: reads PATH (the wire log, say) at each request and reports its size and
  whether it holds a hand's cards;
- ``close``: at its first request closes its stdout and sleeps, running on.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import signal
import sys
import threading
import time
from typing import Any

from _wire import handshake, reply

MODE = sys.argv[1]
MIB = 1 << 20


def report(**facts: Any) -> None:
    print("WALLS " + json.dumps(facts), file=sys.stderr, flush=True)


def libc_call(name: str, *args: Any) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = getattr(libc, name)(*args)
    return 0 if result == 0 else ctypes.get_errno()


def syscall(number: int, *args: Any) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = libc.syscall(number, *args)
    return 0 if result >= 0 else ctypes.get_errno()


def root() -> None:
    writable = []
    for folder, _, files in os.walk("/proc/sys"):
        for name in files:
            path = os.path.join(folder, name)
            try:
                fd = os.open(path, os.O_WRONLY)
            except OSError:
                continue
            os.close(fd)
            writable.append(path)
    others = []
    for path in ("/proc/sysrq-trigger", "/proc/self/oom_score_adj", "/proc/kmsg"):
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        os.close(fd)
        others.append(path)
    with open("/proc/self/status") as file:
        lines = file.read().splitlines()
    status = dict(line.split(":\t", 1) for line in lines if ":\t" in line)
    finit_module = {"x86_64": 313, "aarch64": 273}.get(os.uname().machine, -1)
    null = os.open("/dev/null", os.O_RDONLY)
    module = syscall(finit_module, null, b"", 0) if finit_module > 0 else -1
    os.close(null)
    mount = libc_call("mount", b"none", b"/tmp", b"tmpfs", 0, None)
    seen = {}
    for path in (
        "/root",
        "/home",
        "/var",
        "/srv",
        "/mnt",
        "/boot",
        os.environ.get("WALLS_HOST", "/"),
    ):
        try:
            seen[path] = sorted(os.listdir(path))[:20]
        except OSError as error:
            seen[path] = f"error {error.errno}"
    report(
        uid=os.getuid(),
        euid=os.geteuid(),
        caps=status.get("CapEff", "").strip(),
        bounding=status.get("CapBnd", "").strip(),
        writable=writable,
        others=others,
        module=errno.errorcode.get(module, module),
        mount=errno.errorcode.get(mount, mount),
        seen=seen,
    )


def fill(path: str, limit: int) -> int:
    written = 0
    block = b"x" * MIB
    try:
        with open(path, "wb") as file:
            while written < limit:
                file.write(block)
                file.flush()
                written += MIB
    except OSError:
        pass
    return written


def tmpfs() -> None:
    home = os.environ.get("HOME", ".")
    sizes = {
        where: fill(os.path.join(where, "filler"), 1024 * MIB)
        for where in ("/tmp", "/dev/shm", home)
    }
    report(**sizes)
    for where in sizes:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(where, "filler"))


def children() -> None:
    pids = []
    for _ in range(4):
        pid = os.fork()
        if pid == 0:
            held = bytearray(200 * MIB)
            for i in range(0, len(held), 4096):
                held[i] = 1
            time.sleep(600)
            os._exit(0)
        pids.append(pid)
    time.sleep(3)
    alive = []
    for pid in pids:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            alive.append(pid)
    report(started=len(pids), alive=len(alive))
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def forkbomb() -> None:
    pids = []
    refused = None
    while len(pids) < 5000:
        try:
            pid = os.fork()
        except OSError as error:
            refused = errno.errorcode.get(error.errno, error.errno)
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        pids.append(pid)
    report(started=len(pids), refused=refused)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def threadbomb() -> None:
    stop = threading.Event()
    threads = []
    refused = None
    while len(threads) < 5000:
        thread = threading.Thread(target=stop.wait, daemon=True)
        try:
            thread.start()
        except RuntimeError as error:
            refused = str(error)
            break
        threads.append(thread)
    report(started=len(threads), refused=refused)
    stop.set()


def burn() -> None:
    def spin() -> None:
        while True:
            pass

    threading.Thread(target=spin, daemon=True).start()


def cpuhog() -> None:
    for _ in range(3):
        if os.fork() == 0:
            while True:
                pass


def channel(word: str) -> None:
    """Two bots run this at once: the first to take an exclusive lock on a system file both can
    read holds it for a while; the other, finding the lock taken, would learn that much."""
    target = "/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd"
    facts: dict[str, Any] = {"word": word}
    with open(target) as file:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            facts["flock"] = "taken"
        except OSError as error:
            facts["flock"] = f"busy {error.errno}"
        try:
            fcntl.lockf(file, fcntl.LOCK_SH | fcntl.LOCK_NB)
            facts["lockf"] = "taken"
        except OSError as error:
            facts["lockf"] = f"error {error.errno}"
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init()
        facts["inotify"] = "open" if fd >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
        time.sleep(1.0)  # the other bot looks meanwhile
    report(**facts)


burnt_at = None
held = None
busy = tries = 0
for message in handshake(f"walls-{MODE}"):
    if message["type"] == "request":
        if MODE == "flood":
            fcntl.fcntl(1, 1031, 1 << 20)  # F_SETPIPE_SZ
            line = b"{}\n" * 4096
            while True:
                os.write(1, line)
        if MODE == "burn":
            if burnt_at is None:
                burnt_at = time.monotonic()
                burn()
            report(cpu=time.process_time(), clock=time.monotonic())
        if MODE == "close":
            os.close(1)
            time.sleep(600)
        if MODE == "collude":
            if held is None:
                held = open("/etc/passwd")  # noqa: SIM115 - kept for the whole game
            tries += 1
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                busy += 1
            report(busy=busy, tries=tries)
        if MODE == "peek":
            try:
                with open(sys.argv[2], "rb") as file:
                    seen = file.read()
            except OSError as error:
                seen = f"error {error.errno}".encode()
            report(size=len(seen), hands=seen.count(b'"hand"'), head=seen[:80].decode("latin-1"))
        if MODE == "cpuhog":
            if burnt_at is None:
                burnt_at = time.monotonic()
                cpuhog()
            time.sleep(1.0)
        reply(message)
    elif message["type"] == "game_start":
        if MODE == "root":
            root()
        elif MODE == "tmpfs":
            tmpfs()
        elif MODE == "children":
            children()
        elif MODE == "forkbomb":
            forkbomb()
        elif MODE == "threadbomb":
            threadbomb()
        elif MODE == "channel":
            channel(sys.argv[2])
