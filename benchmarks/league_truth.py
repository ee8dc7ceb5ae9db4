"""The league judged against the truth: hidden true strengths, games drawn from them, and the
league's reported ratings and 95% intervals compared with those strengths, not with another fit.

``benchmarks/league_sim.py`` asks how many games each scheduler needs until the fit's own
intervals are within the target; that cannot tell an interval that is right from one that is
too narrow, nor a scale that is stretched. This one hides the answer and checks against it.

**The pool** is ``league_sim``'s: true Elo drawn from a normal distribution of standard
deviation ``--sd`` (150, 200, 250: several pools a run), a game won with the logistic
probability of the difference; with ``--draws`` (e.g. 0.03) a game is drawn with that
probability and counts half, the expected score unchanged (``league_sim.draw_games``). A
pairing is one deal twice: two games.

**The league** is the runtime's (``arena.stats.league.League``, used as a library): it is fed
the joins and the results and asked for ``--batch`` pairings at a time (default a quarter of
the bots) by its scheduler (``--schedulers``: adaptive, random).

**The judge.** Ratings are read from ``League.standings`` (every version), centred on their
mean, and compared with the true strengths centred on theirs (so only differences count). At
each checkpoint (``--step`` apart in games, default 5%, from one game per bot) it records:

- ``rms`` and ``max``: the root-mean-square and the largest error, in Elo;
- ``coverage``: the share of bots whose true (centred) strength lies in the reported 95%
  interval;
- ``slope``: the least-squares slope of reported on true ratings (1: the scale is right; above
  1: stretched);
- ``widest``: the largest reported half-width.

Reported, per pool, scheduler and seed: the figures **at the league's own stop** (the adaptive
scheduler asks for nothing more once every active half-width is within ``--target``; random
pairing has no stop, so its stop is the first checkpoint with every half-width within the
target), **at fixed budgets** (``--budgets`` games per bot), random pairing **at the adaptive
run's stop** (the same games), and the **games to an RMS error** of ``--rms`` (default 15 Elo,
the standard error a 95% interval of +-30 implies): the first checkpoint at or under it, and
the ratio random / adaptive. To get there the adaptive league runs on past its stop with its
target halved (the same scheduler, asked for more).

    python benchmarks/league_truth.py [--sizes 30 100] [--sd 200 250] [--draws 0 0.03]
        [--seeds 0 1 2] [--schedulers adaptive random] [--json out.json]

30 bots take seconds a seed; 100 bots a minute or two (most of it the adaptive league's own
arithmetic).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.stats.league import SCHEDULERS, TARGET_ELO, Adaptive, Join, League, Pairing
from arena.stats.ratings import PRIOR_DRAWS

Play = Callable[[League, list[Pairing]], object]
"""Draws and reports the games of a batch of pairings (``league_sim.play`` with a pool)."""


@dataclass
class Point:
    """The league's reported ratings against the truth, after ``games`` games."""

    games: int
    rms: float
    max: float
    coverage: float
    slope: float
    widest: float


@dataclass
class Run:
    size: int
    sd: float
    draws: float
    seed: int
    scheduler: str
    stop: Point | None = None
    """At the league's own stop (random: the first checkpoint with every interval within the
    target); None: not within the cap."""
    at_other_stop: Point | None = None
    """Random pairing at the adaptive run's stop (the same number of games)."""
    budgets: dict[str, Point] = field(default_factory=dict)
    games_to_rms: int | None = None
    seconds: float = 0.0
    curve: list[Point] = field(default_factory=list)


def judge(league: League, truth: Sequence[float], games: int) -> Point:
    """The league's standings (every version, in the order they joined) against ``truth``.

    Pure Python (no numpy), so that the test of the fast lane can use it. Read from a copy of
    the league, so that reading never steers its later pairings."""
    table = {row.version: row for row in copy.deepcopy(league).standings(all_versions=True)}
    rows = [table[name] for name in league.versions]
    centre = statistics.fmean(truth)
    true = [t - centre for t in truth]
    mean = statistics.fmean(row.elo for row in rows)
    # Centred alike: only differences count.
    error = [row.elo - mean - t for row, t in zip(rows, true, strict=True)]
    # The reported interval is of each rating less the mean of those that played, as the truth.
    inside = [abs(row.elo - t) <= row.half_width for row, t in zip(rows, true, strict=True)]
    slope = sum((row.elo - mean) * t for row, t in zip(rows, true, strict=True))
    return Point(
        games=games,
        rms=math.sqrt(statistics.fmean(e * e for e in error)),
        max=max(abs(e) for e in error),
        coverage=statistics.fmean(inside),
        slope=slope / sum(t * t for t in true),
        widest=max(row.half_width for row in rows),
    )


def new_league(n: int, scheduler: str, seed: int, args: argparse.Namespace) -> League:
    blind = {} if args.blind is None else {"blind": args.blind}
    league = League(
        seed=seed,
        target=args.target,
        scheduler=Adaptive(**blind) if scheduler == "adaptive" else SCHEDULERS[scheduler](),
        prior_draws=args.prior_draws,
        # Only when asked, so that the league of an older commit can be judged too.
        **({"population": False} if args.fixed_prior else {}),
    )
    for k in range(n):
        league.apply(Join(f"bot{k}", f"bot{k}"))
    return league


def run(  # noqa: PLR0917 (a run is all of these)
    truth: Sequence[float],
    play: Play,
    scheduler: str,
    seed: int,
    sd: float,
    draws: float,
    args: argparse.Namespace,
    other_stop: int | None = None,
) -> Run:
    """One league to its stop, its budgets and the RMS aimed at (or the cap)."""
    n = len(truth)
    out = Run(n, sd, draws, seed, scheduler)
    league = new_league(n, scheduler, 1000 * seed + n, args)
    batch = args.batch or max(1, n // 4)
    budgets = sorted({max(1, round(b * n / 2)): b for b in args.budgets}.items())
    cap = args.cap * n / 2
    marks = {total for total, _ in budgets} | ({other_stop} if other_stop else set())
    check = float(n)
    games = 0
    start = time.perf_counter()

    def done() -> bool:
        reached = (out.games_to_rms is not None or not args.rms) and len(out.budgets) == len(
            budgets
        )
        return reached and out.stop is not None and (other_stop is None or out.at_other_stop)

    while games < cap and not done():
        pairings = league.next_pairings(batch)
        if not pairings:
            if out.stop is None:
                out.stop = judge(league, truth, games)
                out.curve.append(out.stop)
            # Past its own stop: the same scheduler, asked for more.
            league.target /= 2
            continue
        play(league, pairings)
        games += 2 * len(pairings)
        hit = sorted(m for m in marks if m <= games)
        if games < check and not hit:
            continue
        check = max(check * (1 + args.step), games + 1)
        point = judge(league, truth, games)
        out.curve.append(point)
        for mark in hit:
            marks.discard(mark)
            for total, b in budgets:
                if total == mark:
                    out.budgets[f"{b:g}"] = point
            if mark == other_stop:
                out.at_other_stop = point
        if out.stop is None and scheduler != "adaptive" and point.widest <= args.target:
            out.stop = point
        if out.games_to_rms is None and point.rms <= args.rms:  # never with --rms 0
            out.games_to_rms = games
    out.seconds = time.perf_counter() - start
    return out


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if len(known) == len(values) and known else None


def summary(runs: list[Run]) -> list[dict[str, Any]]:
    """One row a pool (size, sd, draws) and scheduler: medians and ranges over the seeds."""
    rows = []
    keys = sorted({(r.size, r.sd, r.draws, r.scheduler) for r in runs})
    for size, sd, draws, scheduler in keys:
        mine = [
            r for r in runs if (r.size, r.sd, r.draws, r.scheduler) == (size, sd, draws, scheduler)
        ]
        row: dict[str, Any] = {
            "size": size,
            "sd": sd,
            "draws": draws,
            "scheduler": scheduler,
            "seeds": [r.seed for r in mine],
            "games_to_rms": median([r.games_to_rms for r in mine]),
            "seconds": statistics.median(r.seconds for r in mine),
        }
        for label, points in (
            ("stop", [r.stop for r in mine]),
            ("at_adaptive_stop", [r.at_other_stop for r in mine]),
            *((f"budget {b}", [r.budgets.get(b) for r in mine]) for b in _budgets(mine)),
        ):
            known = [p for p in points if p is not None]
            if not known:
                continue
            row[label] = {
                key: [min(getattr(p, key) for p in known), max(getattr(p, key) for p in known)]
                for key in ("games", "rms", "max", "coverage", "slope", "widest")
            }
            # Coverage pooled over the seeds' bots: the figure the binomial bound is about.
            row[label]["coverage_pooled"] = statistics.fmean(p.coverage for p in known)
        rows.append(row)
    for row in rows:
        adaptive = next(
            (
                x
                for x in rows
                if (x["size"], x["sd"], x["draws"]) == (row["size"], row["sd"], row["draws"])
                and x["scheduler"] == "adaptive"
            ),
            None,
        )
        ratio = None
        if adaptive and adaptive["games_to_rms"] and row["games_to_rms"]:
            ratio = row["games_to_rms"] / adaptive["games_to_rms"]
        row["rms_games_ratio_to_adaptive"] = ratio
    return rows


def _budgets(runs: list[Run]) -> list[str]:
    return sorted({b for r in runs for b in r.budgets}, key=float)


def _span(low_high: list[float], fmt: str) -> str:
    low, high = low_high
    return (
        format(low, fmt)
        if format(low, fmt) == format(high, fmt)
        else (f"{format(low, fmt)}-{format(high, fmt)}")
    )


def table(rows: list[dict[str, Any]], target: float, rms: float) -> str:
    head = ["bots", "sd", "draws", "scheduler", "when", "games", "RMS", "max", "coverage"]
    head += ["slope", "widest", f"games to RMS {rms:g}", "random/adaptive"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        whens = [k for k in row if k in {"stop", "at_adaptive_stop"} or k.startswith("budget")]
        for n, when in enumerate(whens):
            p = row[when]
            label = {"stop": f"stop (+-{target:g})", "at_adaptive_stop": "at adaptive's stop"}
            cells = [str(row["size"]), f"{row['sd']:g}", f"{row['draws']:g}", row["scheduler"]]
            cells += [label.get(when, when.replace("budget ", "") + "/bot")]
            cells += [_span(p["games"], ",.0f"), _span(p["rms"], ".1f"), _span(p["max"], ".0f")]
            cells += [f"{_span(p['coverage'], '.0%')} ({p['coverage_pooled']:.1%})"]
            cells += [_span(p["slope"], ".3f"), _span(p["widest"], ".1f")]
            if n == 0:
                games = row["games_to_rms"]
                ratio = row["rms_games_ratio_to_adaptive"]
                cells += ["not reached" if games is None else f"{games:,.0f}"]
                cells += ["" if ratio is None else f"{ratio:.2f}"]
            else:
                cells += ["", ""]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    out.add_argument("--sizes", type=int, nargs="+", default=[30, 100])
    out.add_argument("--sd", type=float, nargs="+", default=[200.0], help="SD of true Elo")
    out.add_argument("--draws", type=float, nargs="+", default=[0.0], help="draw shares")
    out.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    out.add_argument("--schedulers", nargs="+", default=["adaptive", "random"], choices=SCHEDULERS)
    out.add_argument("--batch", type=int, default=0, help="pairings a batch (0: n / 4)")
    out.add_argument("--target", type=float, default=TARGET_ELO, help="half-width (Elo)")
    out.add_argument("--rms", type=float, default=15.0, help="RMS error to reach (Elo; 0: none)")
    out.add_argument("--budgets", type=float, nargs="*", default=[300, 1000], help="games per bot")
    out.add_argument("--prior-draws", type=float, default=PRIOR_DRAWS)
    out.add_argument(
        "--fixed-prior",
        action="store_true",
        help="the fixed prior of ratings.py, not the pool's spread estimated",
    )
    out.add_argument(
        "--blind", type=float, help="the adaptive scheduler's outcome-blind share (its default)"
    )
    out.add_argument("--cap", type=float, default=4000, help="games per bot at most")
    out.add_argument("--step", type=float, default=0.05, help="checkpoints' spacing")
    out.add_argument("--json", type=Path, help="write the figures here")
    return out


def pool_runs(size: int, sd: float, draws: float, seed: int, args: argparse.Namespace) -> list[Run]:
    """Every scheduler on one pool (``league_sim``'s, numpy), the adaptive one first so that
    the others are also judged at its stop."""
    import numpy as np
    from league_sim import Pool, play

    pool = Pool.normal(size, sd, np.random.default_rng([seed, size, 3]))
    stop: int | None = None
    out = []
    for scheduler in sorted(args.schedulers, key=lambda s: s != "adaptive"):
        rng = np.random.default_rng([seed, size, 7])

        def played(league: League, pairings: list[Pairing]) -> float:
            return play(league, pairings, pool, None, rng, draws)  # noqa: B023 (used at once)

        other = None if scheduler == "adaptive" else stop
        r = run(pool.truth.tolist(), played, scheduler, seed, sd, draws, args, other)
        if scheduler == "adaptive" and r.stop is not None:
            stop = r.stop.games
        out.append(r)
        print(
            f"{size} bots, sd {sd:g}, draws {draws:g}, seed {seed}, {scheduler}: "
            f"stop {r.stop}, RMS {args.rms:g} at {r.games_to_rms}, {r.seconds:.1f} s",
            file=sys.stderr,
        )
    return out


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    runs: list[Run] = []
    for size in args.sizes:
        for sd in args.sd:
            for draws in args.draws:
                for seed in args.seeds:
                    runs += pool_runs(size, sd, draws, seed, args)
    rows = summary(runs)
    print(table(rows, args.target, args.rms))
    if args.json:
        report = {
            "target": args.target,
            "rms": args.rms,
            "prior_draws": args.prior_draws,
            "rows": rows,
            "runs": [asdict(r) for r in runs],
        }
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
