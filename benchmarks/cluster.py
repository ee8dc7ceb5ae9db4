"""Games/s of one tournament played by the local worker pool and on Ray clusters of one and two
nodes on this machine (docs/DISTRIBUTED.md quotes the table).

Each run is ``gin-arena tournament`` as a user runs it, a fresh database each time, the same seed,
so the games are the same; the two-node cluster is two real nodes on 127.0.0.1
(``ray.cluster_utils.Cluster``) sharing this machine's cores, one CPU each.

    tox -e cluster -- --benchmark        # or, with Ray installed:
    python benchmarks/cluster.py --games-per-pair 40 --json cluster.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def tournament(cwd: Path, name: str, *extra: str, games_per_pair: int) -> float:
    """Seconds of one tournament run (checked to succeed)."""
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "tournament",
            "--db",
            f"{name}.sqlite",
            "--seed",
            "5",
            "--games-per-pair",
            str(games_per_pair),
            "--format",
            "json",
            *extra,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{name}: the tournament failed:\n{done.stderr}")
    return seconds


@contextmanager
def ray_cluster(cpus: Sequence[int]) -> Iterator[str]:
    """Nodes with these CPUs on this machine; yields the head's address."""
    from ray.cluster_utils import Cluster

    nodes = Cluster(
        initialize_head=True, head_node_args={"num_cpus": cpus[0], "include_dashboard": False}
    )
    try:
        for more in cpus[1:]:
            nodes.add_node(num_cpus=more)
        nodes.wait_for_nodes()
        yield nodes.address
    finally:
        nodes.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games-per-pair", type=int, default=40, help="default 40 (120 games)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    games = 3 * args.games_per_pair
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="gin-cluster-bench-") as temp:
        cwd = Path(temp)

        def measure(label: str, run: Callable[[], float]) -> None:
            seconds = run()
            rows.append({"how": label, "seconds": seconds, "games_per_s": games / seconds})
            print(f"  {label}: {seconds:.1f} s", file=sys.stderr, flush=True)

        n = args.games_per_pair
        measure(
            "local pool, 2 workers",
            lambda: tournament(cwd, "local2", "--concurrency", "2", games_per_pair=n),
        )
        measure(
            "local pool, 1 worker",
            lambda: tournament(cwd, "local1", "--concurrency", "1", games_per_pair=n),
        )
        with ray_cluster([2]) as address:
            measure(
                "Ray, 1 node (2 CPUs)",
                lambda: tournament(cwd, "ray1", "--ray", address, games_per_pair=n),
            )
        with ray_cluster([1, 1]) as address:
            measure(
                "Ray, 2 nodes (1 CPU each)",
                lambda: tournament(cwd, "ray2", "--ray", address, games_per_pair=n),
            )
    local = rows[0]["seconds"]
    print(f"\n# One tournament ({games} games, 3 built-in bots), this machine\n")
    print("| how | seconds | games/s | overhead a game vs the local pool |")
    print("|---|--:|--:|--:|")
    for row in rows:
        extra = (row["seconds"] - local) / games * 1000
        overhead = f"{extra:+.1f} ms" if row["how"].startswith("Ray") else "-"
        print(f"| {row['how']} | {row['seconds']:.1f} | {row['games_per_s']:.1f} | {overhead} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"games": games, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
