"""The wire's cost beside a bare pipe (issue "the wire at pipe speed"): whole processes, timed
from outside, taken in turn.

- ``match``: ``gin-arena match random random --subprocess --hands N --seed S`` as a user runs it
  (two SDK bots as programs, the default sandbox, or ``--sandbox none``), start-up included;
- ``pipe``: the physical limit for a Python bot here: a Python process that writes the same
  request lines, one at a time, to a Python child that reads each line and writes it back,
  lockstep, as the referee and a bot take turns (start-up included).

Both count the same requests (the match's own, read from its ``--log-wire`` once, untimed), so
requests a second compare directly::

    python benchmarks/wire.py --hands 300 --seed 5 --rounds 5

prints each command's median wall time, its requests a second and the match's share of the
pipe's rate, with the default sandbox and without one (the walls alone: the two matches' ratio).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ECHO = (
    "import sys\n"
    "read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.flush\n"
    "while line := read():\n"
    "    write(line)\n"
    "    flush()\n"
)
"""The bare bot: each line read is written back, as ``cat`` would (lockstep, in Python)."""


def gin_arena() -> str:
    found = shutil.which("gin-arena", path=str(Path(sys.executable).parent))
    return found or "gin-arena"


def match_command(hands: int, seed: int, sandbox: str | None) -> list[str]:
    argv = [gin_arena(), "match", "random", "random", "--subprocess"]
    argv += ["--hands", str(hands), "--seed", str(seed)]
    return argv + ([] if sandbox is None else ["--sandbox", sandbox])


def request_lines(hands: int, seed: int, folder: Path) -> list[bytes]:
    """The request lines the match sends its bots, as each was sent (two SDK random bots that
    copy what they read to a file, in a match without a sandbox)."""
    bots = []
    for seat in (0, 1):
        copy = folder / f"read-{seat}.jsonl"
        bots.append(f"sh -c 'tee {copy} | {sys.executable} -m bots.random'")
    argv = [gin_arena(), "match", *bots, "--hands", str(hands), "--seed", str(seed)]
    subprocess.run(
        [*argv, "--sandbox", "none"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lines: list[bytes] = []
    for seat in (0, 1):
        read = (folder / f"read-{seat}.jsonl").read_bytes().splitlines(keepends=True)
        lines += [line for line in read if line.startswith(b'{"type":"request"')]
    return lines


def pipe(path: Path) -> int:
    """Send every line of ``path`` to a bare Python echo, lockstep; the round trips made."""
    lines = path.read_bytes().splitlines(keepends=True)
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None
    write, flush, readline = child.stdin.write, child.stdin.flush, child.stdout.readline
    for line in lines:
        write(line)
        flush()
        if not readline():
            raise RuntimeError("the echo ended early")
    child.stdin.close()
    child.wait()
    return len(lines)


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pipe", type=Path, help=argparse.SUPPRESS)  # the timed echo itself
    args = parser.parse_args()
    if args.pipe is not None:
        print(pipe(args.pipe))
        return
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        lines = request_lines(args.hands, args.seed, folder)
        path = folder / "requests.jsonl"
        path.write_bytes(b"".join(lines))
        commands = {
            "pipe": [sys.executable, os.path.abspath(__file__), "--pipe", str(path)],
            "match, default sandbox": match_command(args.hands, args.seed, None),
            "match, --sandbox none": match_command(args.hands, args.seed, "none"),
        }
        times: dict[str, list[float]] = {what: [] for what in commands}
        for _ in range(args.rounds):  # in turn, so that a drift of the machine moves all
            for what, argv in commands.items():
                times[what].append(timed(argv))
    requests = len(lines)
    mean_bytes = sum(map(len, lines)) / requests
    print(f"{requests:,} requests ({mean_bytes:.0f} bytes mean), median of {args.rounds} rounds")
    rate = {what: requests / statistics.median(ts) for what, ts in times.items()}
    for what, ts in times.items():
        share = rate[what] / rate["pipe"]
        print(
            f"{what:24} {statistics.median(ts):6.2f} s  {rate[what]:8,.0f} requests/s  "
            f"{share:.2f} of the pipe"
        )
    walled, bare = times["match, default sandbox"], times["match, --sandbox none"]
    walls = [a / b for a, b in zip(walled, bare, strict=True)]
    print(f"the walls alone: default / none wall time {statistics.median(walls):.2f} (per round)")


if __name__ == "__main__":
    main()
