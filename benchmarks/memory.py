"""Memory over long runs: does the resident set stay flat while the arena plays on and on?

Two commands, each run as a user runs it (``python -m arena``, the ``gin-arena`` command, with
this interpreter) in a fresh subprocess, in a temporary directory, while this script samples
``/proc``:

1. **A match of in-process bots, single hands**::

       gin-arena match random random --hands 100000 --seed 1

   Its RSS (``VmRSS`` of ``/proc/PID/status``) every 0.2 s. Reported: its peak RSS, the larger
   of the ``ru_maxrss`` that ``os.wait4`` returns for this one child at its exit (the match
   starts no processes of its own) and its ``VmHWM`` at the last sample (the two can differ
   slightly: the kernel keeps its resident page counts per CPU and does not always sum them
   exactly); its RSS at about 10%, 50% and 100% of the run by time (the sample nearest each
   moment; 100% is the last sample); the growth from 10% to the end; and hands/s (hands over
   the wall time of the whole command, interpreter start included).

2. **A tournament of stdio bots**::

       gin-arena tournament --subprocess --bot random=random --bot greedy=greedy \\
           --bot strong=strong --games-per-table 334 --concurrency 2 --seed 1 \\
           --db tournament.sqlite --format json

   A round-robin of the three built-in bots, each run as a subprocess speaking the protocol on
   stdin/stdout (in a bubblewrap sandbox when ``bwrap`` is installed, as by default): 3 pairs x
   334 mirrored games = **1,002 games**, two worker processes. ``--games N`` asks for about N
   games: ``ceil(N / 3)`` games per pair, rounded up to an even number (mirrored deals come in
   pairs). Every 0.5 s: the RSS and ``VmHWM`` of the main process and of each of its descendants
   (found by walking the parent links in ``/proc/*/stat``): the multiprocessing workers (python
   processes running ``spawn_main``), the resource tracker, the bots and their ``bwrap``
   parents. Reported: the main process's peak (its ``VmHWM`` at the last sample) and its RSS at
   about 10% and at the end (the last sample), the peak of any single worker and of any single
   bot process (their largest ``VmHWM``), the largest RSS of one worker at 10% and at the end,
   the peak of the whole tree (the largest sum of RSS over the main process and all its
   descendants in one sample; shared pages count once per process, so the sum overstates the
   memory used), the peak of any one process of the tree (``ru_maxrss`` from ``os.wait4``: the
   largest of the main process and every descendant reaped below it), and games/s.

Memory is in MiB (1,048,576 bytes); ``--json`` writes every figure in KiB, and the samples.

    tox -e bench-memory                     # both, at full size (about 5 min on two cores)
    python benchmarks/memory.py --hands 10000 --games 120 --json memory.json
    python benchmarks/memory.py --only tournament --concurrency 1

Linux only (``/proc``). Exit status 1 if a command fails (its standard error is printed) or does
not play what it was asked to.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from peers import machine

MATCH_INTERVAL = 0.2
"""Seconds between samples of the match."""
TOURNAMENT_INTERVAL = 0.5
"""Seconds between samples of the tournament's process tree."""
POLL = 0.05
"""Seconds between checks for the command's exit, between samples."""
BOTS = ("random", "greedy", "strong")
"""The tournament's bots: the built-in ones, each as a subprocess (``--subprocess``)."""
PAIRS = len(BOTS) * (len(BOTS) - 1) // 2
SEED = 1


class Failed(Exception):
    """A command exited non-zero or did not play what it was asked to."""


# ---------------------------------------------------------------------------------------------
# /proc


def status_kib(pid: int) -> tuple[int, int]:
    """``VmRSS`` and ``VmHWM`` of ``pid`` in KiB; zeros for a process gone or a zombie."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except (OSError, ValueError):
        return 0, 0
    return rss, hwm


def parents() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, start time), from ``/proc/*/stat``."""
    found: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                text = stat.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()  # after the command, which may hold spaces
        found[int(name)] = (int(fields[1]), fields[19])  # ppid, starttime
    return found


def descendants(root: int, table: dict[int, tuple[int, str]]) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read()
    except OSError:
        return b""


# ---------------------------------------------------------------------------------------------
# Running a command while sampling it


@dataclass(frozen=True, slots=True)
class Run:
    """A finished command: its wall time, its ``ru_maxrss`` from ``os.wait4`` and its output."""

    seconds: float
    maxrss_kib: int
    stdout: str
    stderr: str


def run_sampled(
    argv: Sequence[str], cwd: Path, interval: float, sample: Callable[[int, float], None]
) -> Run:
    """Run ``argv`` in ``cwd``; call ``sample(pid, seconds since the start)`` every ``interval``
    seconds while it runs. Reaped with ``os.wait4`` to get its own ``ru_maxrss`` (that of this
    child and the descendants it reaped, not of every child this script ever had, as
    ``getrusage(RUSAGE_CHILDREN)`` would give). Raises :class:`Failed` on a non-zero exit."""
    out_path, err_path = cwd / "stdout.txt", cwd / "stderr.txt"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    began = time.monotonic()
    reaped = False
    try:
        next_sample = began + interval  # not at once: the interpreter has not started yet
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            now = time.monotonic()
            if pid:
                reaped = True
                process.returncode = os.waitstatus_to_exitcode(status)
                break
            if now >= next_sample:
                sample(process.pid, now - began)
                next_sample += interval * (int((now - next_sample) / interval) + 1)
            time.sleep(max(0.0, min(POLL, next_sample - time.monotonic())))
    finally:
        if not reaped:  # interrupted, or a bug here: do not leave the command running
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    seconds = now - began
    stdout = out_path.read_text(errors="replace")
    stderr = err_path.read_text(errors="replace")
    if process.returncode != 0:
        raise Failed(f"`{shlex.join(argv)}` exited with status {process.returncode}:\n{stderr}")
    return Run(seconds, usage.ru_maxrss, stdout, stderr)  # ru_maxrss: KiB on Linux


def nearest(times: Sequence[float], moment: float) -> int:
    """The index of the time nearest ``moment``."""
    return min(range(len(times)), key=lambda i: abs(times[i] - moment))


def mib(kib: float) -> str:
    return f"{kib / 1024:,.1f} MiB"


def growth(start: int, end: int) -> str:
    change = end - start
    return f"{'+' if change >= 0 else '-'}{mib(abs(change))} ({change / start:+.1%})"


# ---------------------------------------------------------------------------------------------
# 1. The match


def measure_match(hands: int, workdir: Path) -> dict[str, Any]:
    shown = ["gin-arena", "match", "random", "random", "--hands", str(hands), "--seed", str(SEED)]
    argv = [sys.executable, "-m", "arena", *shown[1:]]
    samples: list[tuple[float, int, int]] = []  # seconds, VmRSS, VmHWM

    def sample(pid: int, seconds: float) -> None:
        rss, hwm = status_kib(pid)
        if rss:
            samples.append((round(seconds, 3), rss, hwm))

    run = run_sampled(argv, workdir, MATCH_INTERVAL, sample)
    if f"{hands} hands, seed {SEED}" not in run.stdout[-2000:]:
        raise Failed(f"`{shlex.join(shown)}` did not report {hands} hands:\n{run.stdout[-2000:]}")
    if not samples:
        raise Failed(f"`{shlex.join(shown)}` ended before its first sample")
    times = [s[0] for s in samples]
    at = {f: samples[nearest(times, f * run.seconds)] for f in (0.1, 0.5)}
    last = samples[-1]
    return {
        "command": shlex.join(shown),
        "hands": hands,
        "seconds": round(run.seconds, 2),
        "hands_per_s": round(hands / run.seconds, 1),
        "peak_rss_kib": max(run.maxrss_kib, last[2]),
        "wait4_maxrss_kib": run.maxrss_kib,
        "hwm_at_last_sample_kib": last[2],
        "rss_10_kib": at[0.1][1],
        "rss_10_at_s": at[0.1][0],
        "rss_50_kib": at[0.5][1],
        "rss_50_at_s": at[0.5][0],
        "rss_end_kib": last[1],
        "rss_end_at_s": last[0],
        "growth_10_to_end_kib": last[1] - at[0.1][1],
        "interval_s": MATCH_INTERVAL,
        "samples": [[t, rss] for t, rss, _ in samples],
    }


def print_match(result: dict[str, Any]) -> None:
    seconds = result["seconds"]
    print(f"\n## 1. In-process match: `{result['command']}`\n")
    print("| measure | value |\n|---|--:|")
    print(f"| hands | {result['hands']:,} |")
    print(f"| wall time | {seconds:,.1f} s |")
    print(f"| hands/s | {result['hands_per_s']:,.0f} |")
    print(
        f"| peak RSS (wait4 ru_maxrss {mib(result['wait4_maxrss_kib'])}, VmHWM at the last "
        f"sample {mib(result['hwm_at_last_sample_kib'])}) | {mib(result['peak_rss_kib'])} |"
    )
    for key, label in (("10", "~10%"), ("50", "~50%"), ("end", "end (last sample)")):
        t = result[f"rss_{key}_at_s"]
        print(f"| RSS at {label}, {t:,.1f} s | {mib(result[f'rss_{key}_kib'])} |")
    print(
        f"| growth, ~10% to end | {growth(result['rss_10_kib'], result['rss_end_kib'])} |"
        f"\n| samples | {len(result['samples']):,}, every {MATCH_INTERVAL} s |"
    )


# ---------------------------------------------------------------------------------------------
# 2. The tournament


@dataclass
class TreeSamples:
    """What the tournament's samples found; memory in KiB."""

    root: int = 0
    times: list[float] = field(default_factory=list)
    main_rss: list[int] = field(default_factory=list)
    main_hwm: list[int] = field(default_factory=list)
    tree_rss: list[int] = field(default_factory=list)
    """The sum over the main process and all its descendants."""
    processes: list[int] = field(default_factory=list)
    """Live processes in the tree, the main one included."""
    largest_worker_rss: list[int] = field(default_factory=list)
    """The largest RSS of one worker (0 when none is running)."""
    worker_hwm: dict[tuple[int, str], int] = field(default_factory=dict)
    bot_hwm: dict[tuple[int, str], int] = field(default_factory=dict)
    """The bots and their bwrap parents: every descendant not a worker or the resource tracker."""
    kinds: dict[tuple[int, str], str] = field(default_factory=dict)

    def kind(self, pid: int, key: tuple[int, str], ppid: int) -> str:
        if key not in self.kinds:
            line = cmdline(pid)
            if ppid == self.root and b"spawn_main" in line:
                self.kinds[key] = "worker"
            elif b"resource_tracker" in line:
                self.kinds[key] = "tracker"
            else:
                self.kinds[key] = "bot"
        return self.kinds[key]

    def sample(self, pid: int, seconds: float) -> None:
        self.root = pid
        main_rss, main_hwm = status_kib(pid)
        if not main_rss:
            return
        table = parents()
        total, count, largest_worker = main_rss, 1, 0
        for child in descendants(pid, table):
            rss, hwm = status_kib(child)
            if not rss:
                continue
            key = (child, table[child][1])
            kind = self.kind(child, key, table[child][0])
            total += rss
            count += 1
            if kind == "worker":
                largest_worker = max(largest_worker, rss)
                self.worker_hwm[key] = max(self.worker_hwm.get(key, 0), hwm)
            elif kind == "bot":
                self.bot_hwm[key] = max(self.bot_hwm.get(key, 0), hwm)
        self.times.append(round(seconds, 3))
        self.main_rss.append(main_rss)
        self.main_hwm.append(main_hwm)
        self.tree_rss.append(total)
        self.processes.append(count)
        self.largest_worker_rss.append(largest_worker)


def games_per_pair(games: int) -> int:
    """About ``games`` games over the pairs, mirrored: an even number per pair, at least 2."""
    per = -(-games // PAIRS)
    return max(2, per + per % 2)


def measure_tournament(games: int, concurrency: int, sandbox: str, workdir: Path) -> dict[str, Any]:
    per_pair = games_per_pair(games)
    total = per_pair * PAIRS
    shown = [
        "gin-arena",
        "tournament",
        "--subprocess",
        *(arg for bot in BOTS for arg in ("--bot", f"{bot}={bot}")),
        *("--games-per-table", str(per_pair), "--concurrency", str(concurrency)),
        *("--seed", str(SEED), "--db", "tournament.sqlite", "--format", "json"),
        *(("--sandbox", sandbox) if sandbox != "auto" else ()),
    ]
    argv = [sys.executable, "-m", "arena", *shown[1:]]
    tree = TreeSamples()
    run = run_sampled(argv, workdir, TOURNAMENT_INTERVAL, tree.sample)
    try:
        played = json.loads(run.stdout)["games"]
    except (ValueError, KeyError, TypeError) as error:
        raise Failed(
            f"`{shlex.join(shown)}` printed no standings ({error}):\n{run.stdout}"
        ) from None
    if played != total:
        raise Failed(f"`{shlex.join(shown)}` played {played} games, not {total}")
    if not tree.times:
        raise Failed(f"`{shlex.join(shown)}` ended before its first sample")
    if not tree.worker_hwm:
        raise Failed("no worker process was ever seen: nothing was measured")
    ten = nearest(tree.times, 0.1 * run.seconds)
    working = [i for i, rss in enumerate(tree.largest_worker_rss) if rss]
    ten_w = working[nearest([tree.times[i] for i in working], 0.1 * run.seconds)]
    peak = max(range(len(tree.times)), key=tree.tree_rss.__getitem__)
    return {
        "command": shlex.join(shown),
        "bots": list(BOTS),
        "games_per_pair": per_pair,
        "games": total,
        "concurrency": concurrency,
        "sandbox": sandbox,
        "bwrap_found": shutil.which("bwrap") is not None,
        "seconds": round(run.seconds, 2),
        "games_per_s": round(total / run.seconds, 2),
        "main_peak_kib": tree.main_hwm[-1],
        "main_rss_10_kib": tree.main_rss[ten],
        "main_rss_10_at_s": tree.times[ten],
        "main_rss_end_kib": tree.main_rss[-1],
        "main_rss_end_at_s": tree.times[-1],
        "main_growth_10_to_end_kib": tree.main_rss[-1] - tree.main_rss[ten],
        "worker_peak_kib": max(tree.worker_hwm.values()),
        "workers_seen": len(tree.worker_hwm),
        "worker_rss_10_kib": tree.largest_worker_rss[ten_w],
        "worker_rss_10_at_s": tree.times[ten_w],
        "worker_rss_end_kib": tree.largest_worker_rss[working[-1]],
        "worker_rss_end_at_s": tree.times[working[-1]],
        "bot_peak_kib": max(tree.bot_hwm.values(), default=0),
        "bot_processes_seen": len(tree.bot_hwm),
        "tree_peak_kib": tree.tree_rss[peak],
        "tree_peak_processes": tree.processes[peak],
        "tree_peak_at_s": tree.times[peak],
        "any_process_peak_kib": run.maxrss_kib,
        "interval_s": TOURNAMENT_INTERVAL,
        "samples": [
            [t, main, worker, whole, n]
            for t, main, worker, whole, n in zip(
                tree.times,
                tree.main_rss,
                tree.largest_worker_rss,
                tree.tree_rss,
                tree.processes,
                strict=True,
            )
        ],
        "sample_columns": ["seconds", "main_rss", "largest_worker_rss", "tree_rss", "processes"],
    }


def print_tournament(result: dict[str, Any]) -> None:
    sandbox = result["sandbox"]
    if sandbox == "auto":
        sandbox += f" (bwrap {'found: sandboxed' if result['bwrap_found'] else 'not found'})"
    print(f"\n## 2. Tournament of stdio bots: `{result['command']}`\n")
    print(
        f"A round-robin of {', '.join(result['bots'])} as subprocesses: {PAIRS} pairs x "
        f"{result['games_per_pair']:,} mirrored games = {result['games']:,} games, "
        f"{result['concurrency']} workers, sandbox {sandbox}.\n"
    )
    print("| measure | value |\n|---|--:|")
    print(f"| games | {result['games']:,} |")
    print(f"| wall time | {result['seconds']:,.1f} s |")
    print(f"| games/s | {result['games_per_s']:,.2f} |")
    print(f"| main process: peak (VmHWM at the last sample) | {mib(result['main_peak_kib'])} |")
    print(
        f"| main process: RSS at ~10%, {result['main_rss_10_at_s']:,.1f} s | "
        f"{mib(result['main_rss_10_kib'])} |"
    )
    print(
        f"| main process: RSS at the end (last sample), {result['main_rss_end_at_s']:,.1f} s | "
        f"{mib(result['main_rss_end_kib'])} |"
    )
    print(
        "| main process: growth, ~10% to end | "
        f"{growth(result['main_rss_10_kib'], result['main_rss_end_kib'])} |"
    )
    print(
        f"| one worker: peak (largest VmHWM of {result['workers_seen']} workers) | "
        f"{mib(result['worker_peak_kib'])} |"
    )
    print(
        f"| one worker: largest RSS at ~10% / at the end | {mib(result['worker_rss_10_kib'])} / "
        f"{mib(result['worker_rss_end_kib'])} |"
    )
    print(
        f"| one bot process: peak (largest VmHWM of {result['bot_processes_seen']:,}, bwrap "
        f"included) | {mib(result['bot_peak_kib'])} |"
    )
    print(
        f"| whole tree: peak of summed RSS ({result['tree_peak_processes']} processes, at "
        f"{result['tree_peak_at_s']:,.1f} s) | {mib(result['tree_peak_kib'])} |"
    )
    print(
        f"| any one process of the tree: peak (wait4 ru_maxrss) | "
        f"{mib(result['any_process_peak_kib'])} |"
    )
    print(f"| samples | {len(result['samples']):,}, every {TOURNAMENT_INTERVAL} s |")


# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--hands", type=int, default=100_000, help="hands of the match (default 100000)"
    )
    parser.add_argument(
        "--games",
        type=int,
        default=1000,
        help=f"about this many tournament games: ceil(N/{PAIRS}) per pair, made even "
        "(default 1000, which plays 1002)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="tournament workers (default 2, or 1 on one core)",
    )
    parser.add_argument(
        "--sandbox",
        choices=("auto", "bwrap", "none"),
        default="auto",
        help="the tournament's --sandbox (default auto, as a user runs it)",
    )
    parser.add_argument("--only", choices=("match", "tournament"), help="run only this one")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.games < 1 or args.concurrency < 1:
        parser.error("--hands, --games and --concurrency must be at least 1")
    if not Path("/proc/self/status").exists():
        print("error: this benchmark reads /proc (Linux only)", file=sys.stderr)
        return 1

    info = machine()
    print("# Memory over long runs: an in-process match and a tournament of stdio bots\n")
    print(
        f"{info['cpu']}, nproc {info['nproc']}, {info['python']}, {info['platform']}",
        flush=True,
    )
    report: dict[str, Any] = {"machine": info}
    try:
        with tempfile.TemporaryDirectory(prefix="gin-memory-") as temp:
            if args.only in (None, "match"):
                workdir = Path(temp, "match")
                workdir.mkdir()
                report["match"] = measure_match(args.hands, workdir)
                print_match(report["match"])
            if args.only in (None, "tournament"):
                workdir = Path(temp, "tournament")
                workdir.mkdir()
                result = measure_tournament(args.games, args.concurrency, args.sandbox, workdir)
                report["tournament"] = result
                print_tournament(result)
    except Failed as failure:
        print(f"\nerror: {failure}", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
