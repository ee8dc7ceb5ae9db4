"""How many pairings a league compare (``gin-arena league compare``) plays to its verdict: the
SPRT of :mod:`arena.stats.sprt`, checked after every pair as the league checks it, on simulated
pairs at a true Elo gap, until a verdict or ``--cap``. docs/LEAGUE.md ("Is the new version
better?") argues the default ``--max-pairings`` from these figures.

A simulated pair is two independent games (no draws) that the new version wins with the
logistic probability of the gap: a pair variance of about 1/8 of a game's score, the variance
measured between two versions of the random bot in a league (0.119); mirrored deals of stronger
bots can be more or less correlated than that.

    python benchmarks/compare_length.py --elo 0 5 10 --runs 200 --json compare.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.stats.sprt import Pentanomial, Verdict, decide, elo_to_score
from arena.tournament import compare


def length(
    elo: float, rng: random.Random, cap: int, hypotheses: tuple[float, ...]
) -> tuple[int, str]:
    """One compare at a true gap of ``elo``: the pairings it played and its verdict."""
    elo0, elo1, alpha, beta = hypotheses
    win = elo_to_score(elo)
    counts = [0, 0, 0, 0, 0]
    for pairs in range(1, cap + 1):
        counts[2 * ((rng.random() < win) + (rng.random() < win))] += 1
        p = Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))
        verdict = decide(p, elo0, elo1, alpha, beta)[0]
        if verdict is not Verdict.CONTINUE:
            return pairs, verdict.value
    return cap, "undecided"


def figures(elo: float, runs: int, cap: int, seed: int) -> dict[str, Any]:
    rng = random.Random(f"compare-length:{seed}:{elo}")
    hypotheses = (compare.ELO0, compare.ELO1, compare.ALPHA, compare.BETA)
    played = [length(elo, rng, cap, hypotheses) for _ in range(runs)]
    counts = sorted(n for n, _ in played)
    limit = compare.MAX_PAIRINGS
    return {
        "elo": elo,
        "runs": runs,
        "mean": statistics.mean(counts),
        "median": counts[len(counts) // 2],
        "p90": counts[int(0.9 * len(counts))],
        f"over_{limit}": sum(n > limit for n in counts),
        "H1": sum(v == "H1" for _, v in played),
        "H0": sum(v == "H0" for _, v in played),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elo", type=float, nargs="+", default=[0.0, 5.0, 10.0])
    parser.add_argument("--runs", type=int, default=200, help="compares simulated at each gap")
    parser.add_argument("--cap", type=int, default=20_000, help="pairings at most (default 2x)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures there too")
    args = parser.parse_args(argv)
    rows = [figures(elo, args.runs, args.cap, args.seed) for elo in args.elo]
    for row in rows:
        print(
            ", ".join(
                f"{k} {v:.0f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()
            )
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
