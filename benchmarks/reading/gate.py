#!/usr/bin/env python3
"""Score the predictions a gate bot logged (``gate_bot.py --log``): the Brier score of each
predictor of the opponent's take of the bot's discard and of its knock on its next turn, and its
skill against the base rate (1 - Brier / (p (1 - p)), p the observed rate; 0: no better than
always saying p)::

    python benchmarks/reading/gate.py /tmp/gate.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

PREDICTORS = ("odds", "kept", "filter", "forward")


def brier_skill(predictions: Sequence[float], outcomes: Sequence[int]) -> tuple[float, float]:
    """(Brier score, skill against the base rate of ``outcomes``)."""
    if not outcomes:
        raise ValueError("no predictions to score")
    n = len(outcomes)
    brier = sum((p - o) ** 2 for p, o in zip(predictions, outcomes, strict=True)) / n
    rate = sum(outcomes) / n
    reference = rate * (1 - rate)
    return brier, (1 - brier / reference) if reference > 0 else 0.0


def score(rows: Sequence[dict[str, float]]) -> dict[str, dict[str, float]]:
    result: dict[str, dict[str, float]] = {}
    for event, outcome in (("take", "took"), ("knock", "knocked")):
        outcomes = [int(r[outcome]) for r in rows]
        for name in PREDICTORS:
            brier, skill = brier_skill([r[f"{event}_{name}"] for r in rows], outcomes)
            result[f"{event}_{name}"] = {
                "brier": brier,
                "skill": skill,
                "rate": sum(outcomes) / len(outcomes),
                "mean_prediction": sum(r[f"{event}_{name}"] for r in rows) / len(rows),
            }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gate.py", description=__doc__)
    parser.add_argument("log", type=Path)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.log.read_text(encoding="utf-8").splitlines()]
    print(f"{len(rows)} discards")
    if rows and "hidden" in rows[0]:
        hidden = sum(r["hidden"] for r in rows) / len(rows)
        right = {n: sum(r[f"right_{n}"] for r in rows) / len(rows) for n in PREDICTORS}
        print(
            f"hidden cards {hidden:.2f}; right: "
            + ", ".join(f"{n} {v:.2f}" for n, v in right.items())
        )
        for event, outcome in (("take", "took"), ("knock", "knocked")):
            outcomes = [int(r[outcome]) for r in rows]
            brier, skill = brier_skill([r[f"{event}_true"] for r in rows], outcomes)
            print(f"{event}_true      Brier {brier:.4f} skill {skill:+.3f} (the real hand)")
    for key, v in score(rows).items():
        print(
            f"{key:14s} rate {v['rate']:.3f} mean {v['mean_prediction']:.3f} "
            f"Brier {v['brier']:.4f} skill {v['skill']:+.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
