#!/usr/bin/env python3
"""Several variants of a bot and one base, each against the same opponent on the same deals.

``gin-arena ab NEW BASE --against OPP`` replays BASE for every NEW; this plays BASE once and
every variant beside it, chunk by chunk (:func:`arena.tournament.ab.play`), and after every chunk
writes each pairing's net points by deal to ``--out`` (JSON), so a run cut short keeps what it
played. The summary pairs every variant with BASE deal by deal (the same estimate as ``gin-arena
ab``: points a hand, 95% interval over the deals complete in both)::

    python benchmarks/reading/channel.py --seed 100 --hands 400 --out channel.json \\
        --against "python benchmarks/peer_bots/openspiel_simple.py" --base reference \\
        --variant all="python benchmarks/reading/cheat_bot.py --match-seed 100 --parts \\
        worlds,knock,danger,outs" ...

``--summary FILE`` prints the summary of a file written before, nothing played.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.play.match import Match
from arena.seats.botspec import resolve
from arena.tournament.ab import ABTest, Estimate, Pairing, estimate, play
from engine.rules import HOYLE


def summary(nets: dict[str, dict[int, int]], base: str) -> list[tuple[str, Estimate, Estimate]]:
    """For each variant, its own points a hand against the opponent and its edge over ``base``,
    paired over the deals both completed."""
    rows = []
    reference = nets[base]
    for name, by_deal in nets.items():
        own = estimate([float(v) for _, v in sorted(by_deal.items())])
        common = sorted(by_deal.keys() & reference.keys())
        edge = estimate([float(by_deal[d] - reference[d]) for d in common])
        rows.append((name, own, edge))
    return rows


def show(rows: list[tuple[str, Estimate, Estimate]]) -> str:
    lines = ["| variant | deals | points a hand v opponent | over base, paired (95%) |"]
    lines.append("|---|--:|--:|--:|")
    for name, own, edge in rows:
        low, high = edge.interval
        lines.append(
            f"| {name} | {edge.deals} | {own.points:+.2f} ± {own.error:.2f} | "
            f"{edge.points:+.2f} ± {edge.error:.2f} [{low:+.2f}, {high:+.2f}] |"
        )
    return "\n".join(lines)


def load(path: Path) -> tuple[str, dict[str, dict[int, int]]]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    nets = {name: {int(k): v for k, v in d.items()} for name, d in data["nets"].items()}
    return data["base"], nets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="channel.py", description=__doc__)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--hands", type=int, default=400, help="hands a pairing (even)")
    parser.add_argument("--against", help="the common opponent")
    parser.add_argument("--base", default="reference")
    parser.add_argument("--variant", action="append", default=[], help="NAME=BOT (repeatable)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the nets by deal, rewritten every chunk")
    parser.add_argument("--summary", type=Path, help="summarise a file written before")
    args = parser.parse_args(argv)
    if args.summary:
        base, nets = load(args.summary)
        print(show(summary(nets, base)))
        return 0
    if args.against is None or args.out is None or args.hands % 2:
        parser.error("--against, --out and an even --hands are needed to play")
    rules = HOYLE
    opponent = resolve(args.against, name="opponent")
    entries = [("base", args.base)] + [tuple(v.split("=", 1)) for v in args.variant]
    pairings = []
    for name, text in entries:
        spec = resolve(text, name=name)
        match = Match(
            (spec, opponent),
            rules,
            games=args.hands,
            single_hands=True,
            seed=args.seed,
            mirror=True,
        )
        pairings.append(Pairing(name, "opponent", match))
    test = ABTest("variants", "base", "opponent", args.hands, args.seed, pairings)

    def save(t: ABTest) -> None:
        nets = {p.first: p.deal_nets() for p in t.pairings}
        data = {"seed": args.seed, "against": args.against, "base": "base", "nets": nets}
        data["entries"] = dict(entries)
        args.out.write_text(json.dumps(data), encoding="utf-8")

    try:
        play(test, args.jobs, save)
    finally:
        save(test)
        print(show(summary({p.first: p.deal_nets() for p in test.pairings}, "base")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
