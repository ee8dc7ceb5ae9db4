"""Tournament throughput, run as a user runs it (``python -m arena tournament``, this
interpreter, a fresh process and a temporary directory each time):

1. **The default tournament** (``gin-arena tournament --seed 1``: the three quick built-in bots,
   180 games) with one worker and with two: the wall time of each and the speed-up.
2. **A bot slow to start**: a greedy bot that sleeps ``--start-delay`` seconds (default 0.5)
   before it answers ``hello`` (``tests/arena/tournament_bots/pids.py``, which logs each process
   it runs as on its standard error), against the built-in greedy bot over stdio,
   ``--games-per-table`` mirrored games (default 40), two workers, once for each ``--restart``:
   the wall time and how many times the slow bot was started.

Each row is the best (least) wall time of ``--rounds`` runs (default 3), the runs of the rows
taken in turn, so a noisy machine slows all rows alike.

    python benchmarks/tournaments.py [--rounds 3] [--json out.json]
    tox -e bench-tournaments
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIDS = ROOT / "tests" / "arena" / "tournament_bots" / "pids.py"


@dataclass
class Row:
    name: str
    args: list[str]
    log: Path | None = None
    """The slow bot's process log, when it plays."""
    seconds: list[float] = field(default_factory=list)
    starts: int | None = None

    @property
    def best(self) -> float:
        return min(self.seconds)


def run_once(row: Row, scratch: Path) -> None:
    db = scratch / "t.sqlite"
    db.unlink(missing_ok=True)
    shutil.rmtree(scratch / "logs", ignore_errors=True)
    command = [sys.executable, "-m", "arena", "tournament", *row.args, "--db", str(db)]
    command += ["--format", "json", "--logs", str(scratch / "logs")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(
        command, check=False, cwd=scratch, env=env, capture_output=True, text=True
    )
    row.seconds.append(time.perf_counter() - start)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed:\n{done.stderr}")
    failures = {b["name"]: b["failures"] for b in json.loads(done.stdout)["bots"]}
    if any(sum(counts.values()) for counts in failures.values()):
        raise SystemExit(f"{row.name}: a bot failed: {failures}")
    if row.log is not None:
        lines = row.log.read_text().splitlines()
        row.starts = len({line.split()[0] for line in lines if line.split()[1:2] == ["game"]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each row (default 3)")
    parser.add_argument("--games-per-table", type=int, default=40, help="slow-bot games")
    parser.add_argument("--start-delay", type=float, default=0.5, help="slow bot's start (s)")
    parser.add_argument(
        "--default-games-per-table",
        type=int,
        help="games a pair in the default tournament rows (default: the command's own, 60)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gin-arena-bench-") as name:
        scratch = Path(name)
        log = scratch / "logs" / "slow.stderr.log"  # the bot writes to its stderr, kept here
        slow = f"{shlex.quote(sys.executable)} {PIDS} - --start-delay {args.start_delay}"
        size = []
        if args.default_games_per_table is not None:
            size = ["--games-per-table", str(args.default_games_per_table)]
        rows = [
            Row("default tournament, 1 worker", ["--seed", "1", "--concurrency", "1", *size]),
            Row("default tournament, 2 workers", ["--seed", "1", "--concurrency", "2", *size]),
        ]
        for restart in ("failure", "task", "game"):
            rows.append(
                Row(
                    f"slow-starting bot v greedy, 2 workers, --restart {restart}",
                    [
                        *("--bot", f"slow={slow}", "--bot", "greedy=greedy", "--subprocess"),
                        *("--games-per-table", str(args.games_per_table), "--seed", "1"),
                        *("--concurrency", "2", "--restart", restart),
                    ],
                    log=log,
                )
            )
        for _ in range(args.rounds):
            for row in rows:
                run_once(row, scratch)
    print(f"\n# Tournaments: best of {args.rounds} runs\n")
    print("| tournament | seconds | bot starts |\n|---|--:|--:|")
    for row in rows:
        starts = "-" if row.starts is None else str(row.starts)
        print(f"| {row.name} | {row.best:.1f} | {starts} |")
    speedup = rows[0].best / rows[1].best
    print(f"\ntwo workers v one on the default tournament: {speedup:.2f}x")
    if args.json:
        report = {
            "rows": [
                {"name": r.name, "seconds": r.seconds, "best": r.best, "starts": r.starts}
                for r in rows
            ],
            "speedup": speedup,
        }
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
