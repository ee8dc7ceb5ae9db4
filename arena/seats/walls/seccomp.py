"""The system calls a sandboxed bot never needs, refused by a seccomp filter built with libseccomp.

:func:`bot_filter` compiles the filter (Berkeley Packet Filter, for this machine's architecture)
into a memory file that bubblewrap loads (``--seccomp FD``) just before it runs the bot. The
filter allows everything but:

- what changes the machine or the kernel (mounting, modules, ``kexec``, ``reboot``, swap, quotas,
  ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring``, the kernel log, raw I/O ports,
  handles to files by number) and new namespaces (``unshare``, ``setns``, ``clone`` with a
  namespace flag, ``clone3``, which cannot be inspected and so reports "not implemented", as
  container runtimes do, so that the C library falls back to ``clone``): refused with ``EPERM``;
- what would let two bots talk through files both can read: file locks (``flock`` and the
  ``fcntl`` lock commands) succeed without taking any lock, and asking who holds a lock fails with
  ``ENOLCK``; watching files (``inotify``, ``fanotify``, ``fcntl(F_NOTIFY)``) and leases are
  refused (``EPERM``); the kernel's key rings (shared by every process of one user) are refused;
- ``ptrace`` and reading or writing another process's memory: refused (a bot only has its own
  processes to trace, and needs none of it).

A system call of another architecture (32-bit calls on a 64-bit machine) kills the process, the
libseccomp default. Where libseccomp is missing, :func:`bot_filter` returns None and
:func:`unavailable` says why: the bots then run without the filter (docs/PROTOCOL.md, section 10).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
from typing import Final

from arena.errors import ArenaError

_ALLOW: Final = 0x7FFF0000
_KILL_PROCESS: Final = 0x80000000


def _errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


_EQ: Final = 4
_MASKED_EQ: Final = 7

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
    # other processes
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
)
"""Refused with ``EPERM`` (those this machine's kernel does not know are left out)."""

NOT_IMPLEMENTED: Final = ("clone3",)
"""Refused with ``ENOSYS``: the C library then uses ``clone``, whose flags the filter can see."""

NO_OP: Final = ("flock",)
"""Succeed without doing anything."""

_F_GETLK, _F_SETLK, _F_SETLKW = 5, 6, 7
_F_OFD_GETLK, _F_OFD_SETLK, _F_OFD_SETLKW = 36, 37, 38
_F_SETLEASE, _F_NOTIFY = 1024, 1026
FCNTL: Final = (
    ((_F_SETLK, _F_SETLKW, _F_OFD_SETLK, _F_OFD_SETLKW), 0),
    ((_F_GETLK, _F_OFD_GETLK), errno.ENOLCK),
    ((_F_SETLEASE, _F_NOTIFY), errno.EPERM),
)
"""``fcntl`` commands and the error each gets (0: succeed without doing anything)."""

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
        for commands, code in FCNTL:
            for command in commands:
                _rule(lib, ctx, _errno(code), "fcntl", _ArgCmp(1, _EQ, command, 0))
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


@functools.cache
def program() -> bytes | None:
    """The compiled filter (built once a process), or None without libseccomp."""
    if unavailable() is not None:
        return None
    return _compile()


def bot_filter() -> int | None:
    """A file descriptor, at offset 0, holding the compiled filter, for bwrap's ``--seccomp``
    (the caller closes it once bwrap has started); None without libseccomp."""
    code = program()
    if code is None:
        return None
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


__all__ = [
    "FCNTL",
    "NAMESPACE_FLAGS",
    "NOT_IMPLEMENTED",
    "NO_OP",
    "REFUSED",
    "SeccompError",
    "bot_filter",
    "program",
    "unavailable",
]
