"""The system calls a sandboxed bot never needs, refused by seccomp filters.

:func:`bot_filters` compiles two filters (Berkeley Packet Filter programs for this machine's
architecture) into memory files that bubblewrap loads (``--add-seccomp-fd FD``) just before it
runs the bot; the kernel runs both on every system call and the stricter verdict wins. The main
filter, built with libseccomp, allows everything but:

- what changes the machine or the kernel (mounting, modules, ``kexec``, ``reboot``, swap, quotas,
  ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring``, the kernel log, raw I/O ports,
  handles to files by number) and new namespaces (``unshare``, ``setns``, ``clone`` with a
  namespace flag, ``clone3``, which cannot be inspected and so reports "not implemented", as
  container runtimes do, so that the C library falls back to ``clone``): refused with ``EPERM``;
- what would let two bots talk through files both can read: file locks (``flock``) succeed
  without taking any lock; watching files (``inotify``, ``fanotify``) is refused (``EPERM``); the
  kernel's key rings (shared by every process of one user) are refused;
- what would let a bot see or steer the kernel's page cache, the state that outlives a process
  and so would carry a message from the first seating of a mirrored deal to the second (or
  between two bots that run at once): advice that drops or loads a file's cached pages
  (``posix_fadvise`` ``DONTNEED``/``WILLNEED``/``NOREUSE``, ``readahead``, ``madvise``
  ``COLD``/``PAGEOUT``/``WILLNEED``) succeeds without doing anything; reads and writes with flags
  (``preadv2``/``pwritev2``: ``RWF_NOWAIT`` says whether a page is cached, ``RWF_DONTCACHE``
  drops it) are refused with ``EOPNOTSUPP``, as an older kernel would; ``cachestat``, the kernel's
  native AIO (whose requests take the same flags) and ``process_madvise`` are refused;
- ``sysinfo``, whose figures (free and shared memory, the host's count of threads) any bot can
  move and any other read: refused (``ENOSYS``); the same figures in ``/proc`` are masked
  (:mod:`arena.seats.walls.masks`);
- ``ptrace`` and reading or writing another process's memory: refused (a bot only has its own
  processes to trace, and needs none of it).

The second filter, :func:`fcntl_program`, written here instruction by instruction because
libseccomp cannot compare an argument with a range, makes ``fcntl`` an allow-list: the commands
bots use pass (descriptors, status flags, signals, pipes' sizes, seals); lock commands succeed
without taking a lock and asking who holds one fails with ``ENOLCK``; leases and
``F_NOTIFY`` are refused (``EPERM``); any other command fails with ``EINVAL``.

Every rule on an argument the kernel reads as 32 bits (``fcntl``'s command, an advice, a flags
word) compares the low 32 bits only, as the kernel does: a command with high bits set is the same
command to the kernel, and so to the filter (issue 42: ``(1 << 32) | F_SETLK`` took a real lock
past a filter that compared all 64 bits).

A system call of another architecture (32-bit calls on a 64-bit machine) kills the process, the
libseccomp default. Where libseccomp is missing, :func:`bot_filters` returns nothing and
:func:`unavailable` says why: the bots then run without the filters (docs/PROTOCOL.md, section 10).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import struct
import sys
from typing import Final

from arena.errors import ArenaError

_ALLOW: Final = 0x7FFF0000
_KILL_PROCESS: Final = 0x80000000


def _errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


_MASKED_EQ: Final = 7
_LOW_32: Final = 0xFFFFFFFF

REFUSED: Final = (
    # the machine and the kernel
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "syslog",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "name_to_handle_at",
    "open_by_handle_at",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    # namespaces
    "unshare",
    "setns",
    # watching files, key rings: channels between bots
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "fanotify_init",
    "fanotify_mark",
    "keyctl",
    "add_key",
    "request_key",
    # other processes, and advice on their memory
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_getfd",
)
"""Refused with ``EPERM`` (those this machine's kernel does not know are left out)."""

NOT_IMPLEMENTED: Final = (
    "clone3",
    # the page cache's state, read directly or through native AIO's flags
    "cachestat",
    "io_setup",
    "io_submit",
    # host-wide counters that a bot moves and another reads: the free and shared memory, the
    # number of threads on the host
    "sysinfo",
)
"""Refused with ``ENOSYS``: the C library uses ``clone``, whose flags the filter can see, instead
of ``clone3``; a program without ``cachestat`` or native AIO takes them for a kernel without.
Without ``sysinfo``, a program reads the memory there is from ``/proc/meminfo`` (masked: its own
limit), as Node.js and the JVM do; glibc's ``sysconf(_SC_PHYS_PAGES)`` then returns a
meaningless number (docs/PROTOCOL.md, section 10)."""

NO_OP: Final = ("flock", "readahead")
"""Succeed without doing anything."""

_FADV_WILLNEED, _FADV_DONTNEED, _FADV_NOREUSE = 3, 4, 5
_MADV_WILLNEED, _MADV_COLD, _MADV_PAGEOUT = 3, 20, 21
ADVICE: Final = (
    ("fadvise64", 3, (_FADV_WILLNEED, _FADV_DONTNEED, _FADV_NOREUSE)),
    ("madvise", 2, (_MADV_WILLNEED, _MADV_COLD, _MADV_PAGEOUT)),
)
"""(system call, the index of its advice argument, the advice that succeeds without doing
anything): advice that loads or drops cached pages of a file. The rest is harmless (the access
pattern to expect) or only acts on the caller's own memory, and is kept."""

FLAGGED_IO: Final = (("preadv2", 5), ("pwritev2", 5))
"""(system call, the index of its flags argument): any flag is refused with ``EOPNOTSUPP``, the
kernel's own answer to a flag it does not know."""

_F_GETLK, _F_SETLK, _F_SETLKW = 5, 6, 7
_F_OFD_GETLK, _F_OFD_SETLK, _F_OFD_SETLKW = 36, 37, 38
_F_SETLEASE, _F_NOTIFY = 1024, 1026
FCNTL_ALLOWED: Final = (
    0,  # F_DUPFD
    1,  # F_GETFD
    2,  # F_SETFD
    3,  # F_GETFL
    4,  # F_SETFL
    8,  # F_SETOWN
    9,  # F_GETOWN
    10,  # F_SETSIG
    11,  # F_GETSIG
    15,  # F_SETOWN_EX
    16,  # F_GETOWN_EX
    1025,  # F_GETLEASE (there are none to get)
    1027,  # F_DUPFD_QUERY
    1030,  # F_DUPFD_CLOEXEC
    1031,  # F_SETPIPE_SZ
    1032,  # F_GETPIPE_SZ
    1033,  # F_ADD_SEALS
    1034,  # F_GET_SEALS
)
"""The ``fcntl`` commands a bot may use as they are."""
FCNTL: Final = (
    ((_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW), 0),
    ((_F_GETLK, _F_OFD_GETLK), errno.ENOLCK),
    ((_F_SETLEASE, _F_NOTIFY), errno.EPERM),
)
"""``fcntl`` commands and the error each gets (0: succeed without doing anything); a command
neither here nor in :data:`FCNTL_ALLOWED` fails with ``EINVAL``."""

NAMESPACE_FLAGS: Final = (
    0x00020000,  # CLONE_NEWNS
    0x02000000,  # CLONE_NEWCGROUP
    0x04000000,  # CLONE_NEWUTS
    0x08000000,  # CLONE_NEWIPC
    0x10000000,  # CLONE_NEWUSER
    0x20000000,  # CLONE_NEWPID
    0x40000000,  # CLONE_NEWNET
    0x00000080,  # CLONE_NEWTIME
)
"""``clone`` flags that make a namespace: a ``clone`` with any of them is refused (``EPERM``)."""


class _ArgCmp(ctypes.Structure):
    _fields_ = (
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    )


class SeccompError(ArenaError, RuntimeError):
    """libseccomp refused to build the filter (``call`` failed with ``code``)."""

    def __init__(self, call: str, code: int) -> None:
        super().__init__(f"libseccomp's {call} failed: {os.strerror(abs(code))}")
        self.call = call
        self.code = code


@functools.cache
def _library() -> ctypes.CDLL | str:
    """libseccomp, or why it cannot be used."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return "libseccomp is not installed (apt-get install libseccomp2)"
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = (ctypes.c_uint32,)
    lib.seccomp_release.argtypes = (ctypes.c_void_p,)
    lib.seccomp_rule_add_array.argtypes = (
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    )
    lib.seccomp_syscall_resolve_name.argtypes = (ctypes.c_char_p,)
    lib.seccomp_arch_native.restype = ctypes.c_uint32
    lib.seccomp_export_bpf.argtypes = (ctypes.c_void_p, ctypes.c_int)
    return lib


def unavailable() -> str | None:
    """Why bots run without the filter here, or None when they run with it."""
    lib = _library()
    return lib if isinstance(lib, str) else None


def _rule(lib: ctypes.CDLL, ctx: int, action: int, call: str, *args: _ArgCmp) -> None:
    number = lib.seccomp_syscall_resolve_name(call.encode())
    if number < 0:  # not a system call of this architecture
        return
    array = (_ArgCmp * len(args))(*args) if args else None
    code = lib.seccomp_rule_add_array(ctx, action, number, len(args), array)
    if code != 0:
        raise SeccompError(f"seccomp_rule_add({call})", code)


def _low(arg: int, value: int) -> _ArgCmp:
    """Argument ``arg``'s low 32 bits equal ``value`` (the kernel reads the argument as 32 bits)."""
    return _ArgCmp(arg, _MASKED_EQ, _LOW_32, value)


def _compile() -> bytes:
    lib = _library()
    assert not isinstance(lib, str)
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init", -errno.ENOMEM)
    try:
        for call in REFUSED:
            _rule(lib, ctx, _errno(errno.EPERM), call)
        for call in NOT_IMPLEMENTED:
            _rule(lib, ctx, _errno(errno.ENOSYS), call)
        for call in NO_OP:
            _rule(lib, ctx, _errno(0), call)
        for call, arg, advice in ADVICE:
            for value in advice:
                _rule(lib, ctx, _errno(0), call, _low(arg, value))
        for call, arg in FLAGGED_IO:
            for bit in range(32):
                flag = 1 << bit
                _rule(
                    lib, ctx, _errno(errno.EOPNOTSUPP), call, _ArgCmp(arg, _MASKED_EQ, flag, flag)
                )
        for flag in NAMESPACE_FLAGS:
            _rule(lib, ctx, _errno(errno.EPERM), "clone", _ArgCmp(0, _MASKED_EQ, flag, flag))
        fd = os.memfd_create("gin-arena-seccomp")
        try:
            code = lib.seccomp_export_bpf(ctx, fd)
            if code != 0:
                raise SeccompError("seccomp_export_bpf", code)
            os.lseek(fd, 0, os.SEEK_SET)
            chunks = []
            while chunk := os.read(fd, 65536):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)
    finally:
        lib.seccomp_release(ctx)


# -- the fcntl filter, instruction by instruction ------------------------------------------------

_LD_W_ABS: Final = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k
_JEQ_K: Final = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: A == k ? skip jt : skip jf
_RET_K: Final = 0x06  # BPF_RET | BPF_K: return k
_NR_OFFSET: Final = 0  # struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6]
_ARCH_OFFSET: Final = 4
_ARGS_OFFSET: Final = 16


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def fcntl_program(arch: int, fcntl_nr: int, *, little_endian: bool = True) -> bytes:
    """The filter that makes ``fcntl`` an allow-list (see the module), for the architecture
    ``arch`` (an ``AUDIT_ARCH_*`` value) whose ``fcntl`` is system call ``fcntl_nr``: a system
    call of another architecture or number passes (the main filter judges it). The command is
    read as the low 32 bits of the second argument, as the kernel reads it."""
    verdicts = [(command, _ALLOW) for command in FCNTL_ALLOWED]
    verdicts += [(command, _errno(code)) for commands, code in FCNTL for command in commands]
    low_word = _ARGS_OFFSET + 8 * 1 + (0 if little_endian else 4)
    body = [_insn(_LD_W_ABS, low_word)]
    # Each test jumps, when equal, over the tests after it and the returns before its own.
    returns = [verdict for _, verdict in verdicts]
    for index, (command, _) in enumerate(verdicts):
        after = len(verdicts) - index - 1
        body.append(_insn(_JEQ_K, command, jt=after + index + 1, jf=0))
    body.append(_insn(_RET_K, _errno(errno.EINVAL)))
    body += [_insn(_RET_K, verdict) for verdict in returns]
    allow = len(body)  # the instruction after the body: return allow
    head = [
        _insn(_LD_W_ABS, _ARCH_OFFSET),
        _insn(_JEQ_K, arch, jt=0, jf=2 + allow),
        _insn(_LD_W_ABS, _NR_OFFSET),
        _insn(_JEQ_K, fcntl_nr, jt=0, jf=allow),
    ]
    return b"".join([*head, *body, _insn(_RET_K, _ALLOW)])


def _native_fcntl() -> bytes:
    lib = _library()
    assert not isinstance(lib, str)
    number = lib.seccomp_syscall_resolve_name(b"fcntl")
    if number < 0:  # pragma: no cover - every Linux architecture has fcntl
        raise SeccompError("seccomp_syscall_resolve_name(fcntl)", -errno.ENOSYS)
    return fcntl_program(lib.seccomp_arch_native(), number, little_endian=sys.byteorder == "little")


@functools.cache
def programs() -> tuple[bytes, ...]:
    """The compiled filters (built once a process): the main one and the ``fcntl`` one; none
    without libseccomp."""
    if unavailable() is not None:
        return ()
    return (_compile(), _native_fcntl())


def _memory_file(code: bytes) -> int:
    fd = os.memfd_create("gin-arena-seccomp")
    try:
        view = memoryview(code)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def bot_filters() -> list[int]:
    """File descriptors, at offset 0, each holding a compiled filter, for bwrap's
    ``--add-seccomp-fd`` (the caller closes them once bwrap has started); none without
    libseccomp."""
    fds: list[int] = []
    try:
        for code in programs():
            fds.append(_memory_file(code))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds


__all__ = [
    "ADVICE",
    "FCNTL",
    "FCNTL_ALLOWED",
    "FLAGGED_IO",
    "NAMESPACE_FLAGS",
    "NOT_IMPLEMENTED",
    "NO_OP",
    "REFUSED",
    "SeccompError",
    "bot_filters",
    "fcntl_program",
    "programs",
    "unavailable",
]
