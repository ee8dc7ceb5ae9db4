"""What is left of the page-cache channel across a mirrored deal, measured (docs/PROTOCOL.md,
section 10): the bits a bot can carry from one seating to the next by timing its reads.

With ``posix_fadvise``, ``readahead``, ``preadv2`` flags, ``cachestat`` and ``mincore``'s answer
closed by the walls, a bot can still *set* a page of a system library cached (by reading it) and
a later process can still tell a cached page from one that is not by how long a read takes; it
cannot clear one. So a seating can carry bits only in pages that were not cached when it began,
and every read of the next seating caches the page it reads.

This script plays the two seatings for real, as the arena runs them: each a fresh process in the
sandbox, the second started after the first has ended. The first reads the pages of the 1s of a
random 52-bit word (a hand) in a fresh region of the largest library it can see; the second times
a one-byte read of each page of the region and calls the fast ones 1s, with the threshold taken
from pages known fresh and known cached. It prints the bit errors and what a seating carries:
52 bits a region less the errors' entropy (the capacity of a binary symmetric channel), over the
trials.

    python benchmarks/covert_timing.py --trials 20 [--channel dentry] [--sandbox none]

``--channel dentry`` plays the same game with the kernel's cache of directory entries: the first
seating looks up names that do not exist (each leaves a negative entry), the second times the
lookups.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
STRIDE = 16  # pages between two bits (a read brings in at most a folio)
BITS = 52


def carrier() -> str:
    best, size = "", 0
    for folder in (f"/usr/lib/{os.uname().machine}-linux-gnu", "/usr/lib"):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            library = ".so" in entry.name and "python" not in entry.name
            if library and entry.is_file(follow_symlinks=False) and entry.stat().st_size > size:
                best, size = entry.path, entry.stat().st_size
    return best


def send(region: int, word: int) -> dict[str, object]:
    path = carrier()
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    for bit in range(BITS):
        if word >> bit & 1:
            os.pread(fd, 1, (region + bit * STRIDE) * PAGE)
    return {"carrier": path}


def name(region: int, bit: int) -> str:
    """A name that does not exist in a system directory: looking it up leaves a negative entry
    in the kernel's directory cache."""
    return f"/usr/lib/gin-covert-{region}-{bit}"


def send_names(region: int, word: int) -> dict[str, object]:
    for bit in range(BITS):
        if word >> bit & 1:
            os.path.exists(name(region, bit))
    return {}


def timed_name(path: str) -> float:
    start = time.perf_counter_ns()
    os.path.exists(path)
    return float(time.perf_counter_ns() - start)


def receive_names(region: int, fresh: int) -> dict[str, object]:
    slow = sorted(timed_name(name(fresh, i)) for i in range(16))
    fast = sorted(timed_name(name(fresh, i)) for i in range(16))  # now cached
    threshold = math.sqrt(slow[len(slow) // 2] * fast[len(fast) // 2])
    word = 0
    for bit in range(BITS):
        if timed_name(name(region, bit)) < threshold:
            word |= 1 << bit
    return {"word": word, "slow_ns": slow[len(slow) // 2], "fast_ns": fast[len(fast) // 2]}


def timed(fd: int, page: int) -> float:
    start = time.perf_counter_ns()
    os.pread(fd, 1, page * PAGE)
    return float(time.perf_counter_ns() - start)


def receive(region: int, fresh: int) -> dict[str, object]:
    """Times the region's pages; calibrates on a fresh region (``fresh``: never read) and on a
    page read twice."""
    fd = os.open(carrier(), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    slow = sorted(timed(fd, fresh + i * STRIDE) for i in range(8))
    fast = sorted(timed(fd, fresh + i * STRIDE) for i in range(8))  # now cached
    threshold = math.sqrt(slow[len(slow) // 2] * fast[len(fast) // 2])
    word = 0
    for bit in range(BITS):
        if timed(fd, region + bit * STRIDE) < threshold:
            word |= 1 << bit
    return {"word": word, "slow_ns": slow[len(slow) // 2], "fast_ns": fast[len(fast) // 2]}


def seating(role: str, sandbox: str, *args: int) -> dict[str, object]:
    """One seating: this script as a fresh process, sandboxed as the arena runs bots."""
    argv = [sys.executable, str(Path(__file__).resolve()), "--role", role, *map(str, args)]
    fds: tuple[int, ...] = ()
    if sandbox != "none":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from arena.seats.walls.sandbox import resolve_sandbox

        box = resolve_sandbox(sandbox)
        if box is None:
            raise SystemExit(f"no sandbox here (--sandbox {sandbox}): install bubblewrap")
        work = Path(tempfile.mkdtemp(prefix="covert-")) / "bot"
        work.mkdir()
        argv, fds = box.wrap(argv, workdir=work, read_only=[Path(__file__).resolve()])
    group = None
    if sandbox != "none":
        from arena.seats.walls.limits import BotGroup, Limits

        group = BotGroup.create(role, Limits())
        group.open_join()
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            pass_fds=fds,
            check=False,
            preexec_fn=None if group is None else group.join,
        )
    finally:
        for fd in fds:
            os.close(fd)
        if group is not None:
            group.close_join()
            group.remove()
    if done.returncode != 0:
        raise SystemExit(f"{role} failed: {done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def forget(*regions: int) -> None:
    """Drop the regions' pages from the page cache (done by this harness, outside the sandbox,
    where ``posix_fadvise`` works): they stand for pages of the system that nothing read since
    the machine started, of which a large system has millions."""
    fd = os.open(carrier(), os.O_RDONLY)
    try:
        for region in regions:
            os.posix_fadvise(fd, region * PAGE, BITS * STRIDE * PAGE, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def entropy(p: float) -> float:
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "auto", "none"))
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--channel",
        choices=("pagecache", "dentry"),
        default="pagecache",
        help="pages of a library cached or not (default), or names looked up or not",
    )
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("numbers", nargs="*", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    roles = {
        "send": send,
        "receive": receive,
        "send-names": send_names,
        "receive-names": receive_names,
    }
    if args.role is not None:
        print(json.dumps(roles[args.role](*args.numbers)))
        return
    suffix = "-names" if args.channel == "dentry" else ""
    rng = random.Random(args.seed)
    size = os.path.getsize(carrier())
    regions = size // (PAGE * BITS * STRIDE)
    chosen = rng.sample(range(regions), min(regions, 2 * args.trials))
    errors = []
    for trial in range(min(args.trials, len(chosen) // 2)):
        region = chosen[2 * trial] * BITS * STRIDE
        fresh = chosen[2 * trial + 1] * BITS * STRIDE
        word = rng.getrandbits(BITS)
        forget(region, fresh)  # the harness, not a bot: as pages no one has read for long
        if args.channel == "dentry":  # names never looked up before
            region, fresh = rng.getrandbits(48), rng.getrandbits(48)
        seating("send" + suffix, args.sandbox, region, word)
        got = seating("receive" + suffix, args.sandbox, region, fresh)
        wrong = bin(int(str(got["word"])) ^ word).count("1")
        errors.append(wrong)
        print(
            f"trial {trial + 1}: {wrong} of {BITS} bits wrong "
            f"(uncached read {got['slow_ns']:.0f} ns, cached {got['fast_ns']:.0f} ns)"
        )
    rate = sum(errors) / (BITS * len(errors))
    carried = BITS * (1 - entropy(rate))
    print(
        f"{len(errors)} seatings, {args.channel}, sandbox {args.sandbox}: "
        f"bit error rate {rate:.3f}; "
        f"about {carried:.1f} bits a seating a region of {BITS} pages (capacity 52 (1 - H(p)))"
    )


if __name__ == "__main__":
    main()
