"""The league's scheduling, simulated: no games are played, each pairing's two games are drawn from
a Bradley-Terry model with known strengths, and the league (``arena.stats.league``, the runtime
module itself: its events, its fit, its schedulers) decides what is played next.

**The pool.** ``--spread`` (default 250 Elo) is the standard deviation of the true strengths,
drawn from a normal distribution (a pool of club and research bots spans several hundred Elo; 150
is the check of a tighter pool); or ``--matrix FILE``, measured win rates: ``{"bots": [names],
"win_rate": [[p_ij, ...], ...]}``, ``p_ij`` the probability that bot ``i`` wins one game against
``j`` (``p_ji = 1 - p_ij``; the true order is by mean win rate). A pairing is one deal played
twice: two independent games, no draws.

**The runs.** For each size (``--sizes``, default ``10 100``) and scheduler (adaptive, random
pairing, round-robin) the league asks for ``max(1, n // 4)`` pairings at a time, until every
version's 95% interval is within ``--target`` Elo (default 30) or ``--cap`` games per bot. The
interval that decides it is the **exact** one, the same for every scheduler: the dense inverse of
the Fisher information of the same Bradley-Terry fit (``arena.stats.ratings``' conventions),
computed here with numpy at checkpoints ``--step`` (default 5%) apart in games. It reports:

- ``games_to_target``: the games played when every exact interval is within the target (to the
  checkpoint's resolution), and the ratio random / adaptive;
- ``spearman``: the rank correlation of the fitted ratings with the true order after
  ``--budgets`` games per bot (default 10, 50, 200; ``n * b / 2`` games in all);
- ``ms_per_game`` and ``ms_per_pairing``: the league's own time (``next_pairings`` and applying
  the results) per game and per pairing;
- for the adaptive scheduler, its own half-widths (the sparse approximation) against the exact
  ones at the end: the range of their ratio over the bots.

**The new entrant** (``--entrant-size``, default 100; ``--entrants``, default 5): a league of
that many bots is run with the adaptive scheduler until it is settled (it asks for no more
pairings); then a new bot of a strength drawn from the same pool enters, and the league runs on
until the new bot's exact interval is within the target. Reported: the league's games from the
entry until then (every game, the owed games of settled bots included) and the new bot's own
games, as a share of a **full gauntlet**: the new bot against every other bot, each head-to-head
played until that pair's Elo difference alone is known to the target (``g`` games per opponent,
the least even ``g`` with ``Z95 * ELO_PER_NAT / sqrt(g / 4) <= target``: 516 games for 30 Elo,
the fewest any pair needs, at even odds). Also reported, as a check, the share of a **pooled
gauntlet**: the fewest even games per opponent, the same against each, that place the new bot
alone within the target with the others' ratings taken as known.

    python benchmarks/league_sim.py [--sizes 10 100 1000] [--repeats 1] [--spread 250]
        [--json out.json] [--plot DIR]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.stats.league import (
    SCHEDULERS,
    TARGET_ELO,
    Join,
    League,
    Pairing,
    PairResult,
)
from arena.stats.ratings import ELO_PER_NAT, PRIOR_DRAWS, PRIOR_SD, Z95

PRIOR_PRECISION = (PRIOR_SD / ELO_PER_NAT) ** -2


class Exact:
    """The judge: the Bradley-Terry fit of ``arena.stats.ratings`` (its virtual draws, the
    Gaussian prior, ratings and intervals relative to the mean of the bots that played),
    dense, with numpy, warm-started."""

    def __init__(self, n: int, prior_draws: float = PRIOR_DRAWS) -> None:
        self.prior_draws = prior_draws
        self.games = np.zeros((n, n))
        self.score = np.zeros((n, n))
        self.r = np.zeros(n)

    def grow(self) -> None:
        n = len(self.r) + 1
        for name in ("games", "score"):
            old = getattr(self, name)
            new = np.zeros((n, n))
            new[: n - 1, : n - 1] = old
            setattr(self, name, new)
        self.r = np.append(self.r, 0.0)

    def add(self, i: np.ndarray, j: np.ndarray, wins_i: np.ndarray) -> None:
        np.add.at(self.games, (i, j), 2.0)
        np.add.at(self.games, (j, i), 2.0)
        np.add.at(self.score, (i, j), wins_i)
        np.add.at(self.score, (j, i), 2.0 - wins_i)

    def fit(self) -> tuple[np.ndarray, np.ndarray]:
        """Ratings and 95% half-widths, in Elo."""
        met = self.games > 0
        # Virtual draws as arena.stats.ratings.virtual_draws: a bot's one draw shared among
        # the bots it met, a pair credited prior_draws / max(met by either side).
        degree = np.maximum(met.sum(1), 1)
        virtual = self.prior_draws * met / np.maximum(degree[:, None], degree[None, :])
        g = self.games + virtual
        s = self.score + virtual / 2
        n = len(self.r)
        r = self.r
        for _ in range(100):
            p = 1 / (1 + np.exp(-(r[:, None] - r[None, :])))
            w = g * p * (1 - p)
            hessian = np.diag(w.sum(1) + PRIOR_PRECISION) - w
            grad = (s - g * p).sum(1) - PRIOR_PRECISION * r
            step = np.linalg.solve(hessian, grad)
            # Damped: far from the maximum (a cold start), a full Newton step can overshoot.
            r = r + step / max(1.0, float(np.abs(step).max()))
            if np.abs(step).max() < 1e-9:
                break
        self.r = r
        p = 1 / (1 + np.exp(-(r[:, None] - r[None, :])))
        w = g * p * (1 - p)
        played = met.any(1)
        if not played.any():
            played = np.ones(n, dtype=bool)
        elo = (r - r[played].mean()) * ELO_PER_NAT
        return elo, half_widths(w, played)

    def oracle(self, truth: np.ndarray) -> np.ndarray:
        """The half-widths the games alone give at the true strengths (``truth``, Elo): the
        Fisher information of the games played, no virtual draws, the same Gaussian prior."""
        d = (truth[:, None] - truth[None, :]) / ELO_PER_NAT
        p = 1 / (1 + np.exp(-d))
        w = self.games * p * (1 - p)
        played = (self.games > 0).any(1)
        return half_widths(w, played if played.any() else np.ones(len(truth), dtype=bool))


def half_widths(w: np.ndarray, played: np.ndarray) -> np.ndarray:
    """95% half-widths (Elo) of each rating relative to the mean of ``played``, for pair weights
    ``w`` (Fisher information) and the Gaussian prior."""
    covariance = np.linalg.inv(np.diag(w.sum(1) + PRIOR_PRECISION) - w)
    u = played / played.sum()
    cu = covariance @ u
    var = np.diag(covariance) - 2 * cu + u @ cu
    return Z95 * ELO_PER_NAT * np.sqrt(np.maximum(var, 0))


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    rx = np.argsort(np.argsort(x)).astype(float)
    ry = np.argsort(np.argsort(y)).astype(float)
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass
class Run:
    size: int
    scheduler: str
    repeat: int
    games_to_target: int | None = None
    """By the exact interval of the fit; None: not reached within the cap (or the scheduler
    stopped first)."""
    oracle_games_to_target: int | None = None
    """By the interval the games give at the true strengths, without virtual draws."""
    stopped_by_scheduler: bool = False
    games: int = 0
    spearman: dict[str, float] = field(default_factory=dict)
    ms_per_game: float = 0.0
    ms_per_pairing: float = 0.0
    approx_ratio: tuple[float, float] | None = None
    """Adaptive: min and max over the bots of its own half-width / the exact one, at the end."""
    curve: list[tuple[int, float, float, float]] = field(default_factory=list)
    """(games, largest exact half-width, Spearman, largest oracle half-width) at each
    checkpoint."""


class Pool:
    """True win probabilities and the true order."""

    def __init__(self, p: np.ndarray, truth: np.ndarray) -> None:
        self.p = p
        self.truth = truth

    @classmethod
    def normal(cls, n: int, spread: float, rng: np.random.Generator) -> Pool:
        elo = rng.normal(0, spread, n)
        return cls(1 / (1 + 10 ** ((elo[None, :] - elo[:, None]) / 400)), elo)

    @classmethod
    def matrix(cls, path: Path) -> Pool:
        data = json.loads(path.read_text())
        p = np.array(data["win_rate"], dtype=float)
        n = len(data["bots"])
        if p.shape != (n, n):
            raise SystemExit(f"{path}: win_rate must be {n} x {n}")
        upper = np.triu(p, 1)
        p = upper + (1 - upper.T) * np.tril(np.ones((n, n)), -1)
        np.fill_diagonal(p, 0.5)
        return cls(p, p.mean(1))


def draw_games(
    p: np.ndarray, rng: np.random.Generator, draw_share: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Two games a pairing, ``a`` winning one with probability ``p`` (an array, one a pairing):
    ``a``'s wins and the draws. With ``draw_share``, a game is drawn with that probability (at
    most ``2 min(p, 1 - p)``) and the wins are taken off both sides equally, so the expected
    score stays ``p``: the truth is still the Bradley-Terry model the fit assumes."""
    if not draw_share:
        return rng.binomial(2, p), np.zeros(len(p), dtype=int)
    drawn = np.minimum(draw_share, 2 * np.minimum(p, 1 - p))
    outcome = rng.random((2, len(p)))
    wins = (outcome < p - drawn / 2).sum(0)
    draws = ((outcome >= p - drawn / 2) & (outcome < p + drawn / 2)).sum(0)
    return wins, draws


def play(  # noqa: PLR0917 (the draw share is the one addition)
    league: League,
    pairings: list[Pairing],
    pool: Pool,
    judge: Exact | None,
    rng: np.random.Generator,
    draw_share: float = 0.0,
) -> float:
    """Draw and report each pairing's two games (:func:`draw_games`; the judge, if any, is told
    the scores); the seconds the league spent taking them."""
    index = {name: k for k, name in enumerate(league.versions)}
    i = np.array([index[x.a] for x in pairings])
    j = np.array([index[x.b] for x in pairings])
    wins, draws = draw_games(pool.p[i, j], rng, draw_share)
    if judge is not None:
        judge.add(i, j, wins + draws / 2)
    start = time.perf_counter()
    for pairing, w, d in zip(pairings, wins.tolist(), draws.tolist(), strict=True):
        league.apply(PairResult(pairing.a, pairing.b, w, 2 - w - d, d, pairing=pairing.index))
    return time.perf_counter() - start


def new_league(n: int, scheduler: str, seed: int, args: argparse.Namespace) -> League:
    league = League(
        seed=seed,
        target=args.target,
        scheduler=SCHEDULERS[scheduler](),
        prior_draws=args.prior_draws,
        # The exact judge is ratings.fit's model, with its fixed prior: the league's too (its
        # default, the pool's spread estimated, is judged against the truth by league_truth.py).
        population=False,
    )
    for k in range(n):
        league.apply(Join(f"bot{k}", f"bot{k}"))
    return league


def run(pool: Pool, scheduler: str, repeat: int, args: argparse.Namespace) -> Run:
    n = len(pool.truth)
    out = Run(n, scheduler, repeat)
    league = new_league(n, scheduler, 1000 * repeat + n, args)
    judge = Exact(n, args.prior_draws)
    rng = np.random.default_rng([repeat, n, 7])
    batch = max(1, n // 4)
    budgets = sorted({max(1, round(b * n / 2)): b for b in args.budgets}.items())
    cap = args.cap * n / 2
    check = float(n)
    spent = 0.0
    pairings_played = 0

    def judge_now() -> None:
        elo, half = judge.fit()
        worst = float(half.max())
        oracle = float(judge.oracle(pool.truth).max())
        out.curve.append((out.games, worst, spearman(elo, pool.truth), oracle))
        if worst <= args.target and out.games_to_target is None:
            out.games_to_target = out.games
        if oracle <= args.target and out.oracle_games_to_target is None:
            out.oracle_games_to_target = out.games

    def done() -> bool:
        reached = out.games_to_target is not None and out.oracle_games_to_target is not None
        return reached and len(out.spearman) == len(budgets)

    while out.games < cap:
        start = time.perf_counter()
        pairings = league.next_pairings(batch)
        spent += time.perf_counter() - start
        if not pairings:
            out.stopped_by_scheduler = True
            judge_now()
            break
        spent += play(league, pairings, pool, judge, rng)
        pairings_played += len(pairings)
        out.games += 2 * len(pairings)
        at_budget = [b for total, b in budgets if total <= out.games and str(b) not in out.spearman]
        if out.games >= check or at_budget:
            check = max(check * (1 + args.step), out.games + 1)
            judge_now()
            for b in at_budget:
                out.spearman[str(b)] = out.curve[-1][2]
            if done():
                break
    out.ms_per_game = 1000 * spent / max(1, out.games)
    out.ms_per_pairing = 1000 * spent / max(1, pairings_played)
    if scheduler == "adaptive":
        _, half = judge.fit()
        mine = np.array(list(league.half_widths().values()))
        ratio = mine / half
        out.approx_ratio = (float(ratio.min()), float(ratio.max()))
    return out


@dataclass
class Entrant:
    strength: float
    league_games: int
    own_games: int
    oracle_league_games: int | None
    head_to_head_gauntlet: int
    pooled_gauntlet: int

    @property
    def share(self) -> float:
        return self.league_games / self.head_to_head_gauntlet

    @property
    def pooled_share(self) -> float:
        return self.league_games / self.pooled_gauntlet


def gauntlets(p: np.ndarray, target: float) -> tuple[int, int]:
    """Games of a head-to-head gauntlet and of a pooled one (module docstring) for a new bot
    whose per-game win probabilities against the others are ``p``."""
    per_pair = 2 * math.ceil((Z95 * ELO_PER_NAT / target) ** 2 * 4 / 2)
    need = (Z95 * ELO_PER_NAT / target) ** 2
    per_opponent = 2 * math.ceil(need / float((p * (1 - p)).sum()) / 2)
    return per_pair * len(p), per_opponent * len(p)


def entrant_experiment(args: argparse.Namespace, spread: float) -> dict[str, Any]:
    n = args.entrant_size
    rng = np.random.default_rng([n, 11])
    pool = Pool.normal(n, spread, rng)
    league = new_league(n, "adaptive", 5, args)
    judge = Exact(n, args.prior_draws)
    settle_games = 0
    while pairings := league.next_pairings(max(1, n // 4)):
        play(league, pairings, pool, judge, rng)
        settle_games += 2 * len(pairings)
    _, half = judge.fit()
    settled_worst = float(half.max())
    entrants = []
    for e in range(args.entrants):
        strength = float(rng.normal(0, spread))
        elo = np.append(pool.truth, strength)
        p = 1 / (1 + 10 ** ((elo[None, :] - elo[:, None]) / 400))
        mine = Pool(p, elo)
        lg, jd = copy.deepcopy(league), copy.deepcopy(judge)
        jd.grow()
        name = f"entrant{e}"
        lg.apply(Join(name, name))
        games = own = 0
        reached: int | None = None
        oracle: int | None = None
        while reached is None or oracle is None:
            pairings = lg.next_pairings(max(1, n // 4))
            if not pairings:
                break
            play(lg, pairings, mine, jd, rng)
            games += 2 * len(pairings)
            if reached is None:
                own += 2 * sum(name in (x.a, x.b) for x in pairings)
            _, h = jd.fit()
            if reached is None and h[-1] <= args.target:
                reached = games
            if oracle is None and jd.oracle(elo)[-1] <= args.target:
                oracle = games
        h2h, pooled = gauntlets(p[-1, :-1], args.target)
        if reached is None:
            raise SystemExit(f"entrant {e}: the league stopped before its interval was within")
        entrants.append(Entrant(strength, reached, own, oracle, h2h, pooled))
    return {
        "size": n,
        "settle_games": settle_games,
        "settled_worst_half_width": settled_worst,
        "entrants": [
            {**asdict(x), "share": x.share, "pooled_share": x.pooled_share} for x in entrants
        ],
        "median_share": float(np.median([x.share for x in entrants])),
        "max_share": max(x.share for x in entrants),
        "median_pooled_share": float(np.median([x.pooled_share for x in entrants])),
    }


def median_reached(values: list[int | None]) -> float | None:
    """The median of the games to the target over repeats; None if a repeat did not reach it."""
    if any(v is None for v in values):
        return None
    return float(np.median([v for v in values if v is not None]))


def summary(runs: list[Run]) -> list[dict[str, Any]]:
    """One row a size and scheduler: medians over the repeats."""
    rows = []
    keys = sorted({(r.size, r.scheduler) for r in runs}, key=lambda k: (k[0], k[1] != "adaptive"))
    for size, scheduler in keys:
        mine = [r for r in runs if (r.size, r.scheduler) == (size, scheduler)]
        games = median_reached([r.games_to_target for r in mine])
        oracle = median_reached([r.oracle_games_to_target for r in mine])
        budgets = sorted({b for r in mine for b in r.spearman}, key=float)
        rows.append(
            {
                "size": size,
                "scheduler": scheduler,
                "repeats": len(mine),
                "games_to_target": games,
                "games_per_bot_to_target": None if games is None else games * 2 / size,
                "oracle_games_to_target": oracle,
                "spearman": {
                    b: float(np.median([r.spearman[b] for r in mine if b in r.spearman]))
                    for b in budgets
                },
                "ms_per_game": float(np.median([r.ms_per_game for r in mine])),
                "ms_per_pairing": float(np.median([r.ms_per_pairing for r in mine])),
                "approx_ratio": next((r.approx_ratio for r in mine if r.approx_ratio), None),
            }
        )
    for row in rows:
        adaptive = next(
            (x for x in rows if x["size"] == row["size"] and x["scheduler"] == "adaptive"), None
        )
        for key, ratio in (
            ("games_to_target", "ratio_to_adaptive"),
            ("oracle_games_to_target", "oracle_ratio_to_adaptive"),
        ):
            if adaptive and adaptive[key] and row[key]:
                row[ratio] = row[key] / adaptive[key]
            else:
                row[ratio] = None
    return rows


def _games(value: float | None) -> str:
    return "not reached" if value is None else f"{value:,.0f}"


def _ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def table(rows: list[dict[str, Any]], entrant: dict[str, Any] | None, target: float) -> str:
    budgets = sorted({b for row in rows for b in row["spearman"]}, key=float)
    head = ["bots", "scheduler", f"games to +-{target:g}", "per bot", "x adaptive"]
    head += ["oracle games", "x adaptive"]
    head += [f"rho @{b}/bot" for b in budgets] + ["ms/pairing", "approx/exact"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        per_bot = row["games_per_bot_to_target"]
        cells = [
            str(row["size"]),
            row["scheduler"],
            _games(row["games_to_target"]),
            "" if per_bot is None else f"{per_bot:,.0f}",
            _ratio(row["ratio_to_adaptive"]),
            _games(row["oracle_games_to_target"]),
            _ratio(row["oracle_ratio_to_adaptive"]),
        ]
        cells += [f"{row['spearman'][b]:.3f}" if b in row["spearman"] else "" for b in budgets]
        cells.append(f"{row['ms_per_pairing']:.3f}")
        ratio = row["approx_ratio"]
        cells.append("" if ratio is None else f"{ratio[0]:.3f}-{ratio[1]:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    if entrant is not None:
        lines.append("")
        lines.append(
            f"New entrant into a settled {entrant['size']}-bot league (settled after "
            f"{entrant['settle_games']:,} games; largest exact half-width then "
            f"{entrant['settled_worst_half_width']:.1f}):"
        )
        lines.append("")
        lines.append(
            "| strength | league games | its own games | oracle: league games "
            "| head-to-head gauntlet | share | pooled gauntlet | share |"
        )
        lines.append("|---|---|---|---|---|---|---|---|")
        for x in entrant["entrants"]:
            lines.append(
                f"| {x['strength']:+.0f} | {x['league_games']:,} | {x['own_games']:,} "
                f"| {_games(x['oracle_league_games'])} "
                f"| {x['head_to_head_gauntlet']:,} | {100 * x['share']:.2f}% "
                f"| {x['pooled_gauntlet']:,} | {100 * x['pooled_share']:.0f}% |"
            )
        lines.append(
            f"\nmedian share of a head-to-head gauntlet {100 * entrant['median_share']:.2f}% "
            f"(max {100 * entrant['max_share']:.2f}%); of a pooled one "
            f"{100 * entrant['median_pooled_share']:.0f}%"
        )
    return "\n".join(lines)


def plot(runs: list[Run], folder: Path, target: float) -> list[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(
            "league_sim: --plot needs matplotlib (pip install matplotlib); no plots written",
            file=sys.stderr,
        )
        return []
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    colours = {"adaptive": "tab:blue", "random": "tab:orange", "round-robin": "tab:green"}
    for size in sorted({r.size for r in runs}):
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        for r in (x for x in runs if x.size == size):
            games = [c[0] for c in r.curve]
            label = r.scheduler if r.repeat == 0 else None
            left.plot(games, [c[1] for c in r.curve], color=colours[r.scheduler], label=label)
            left.plot(games, [c[3] for c in r.curve], color=colours[r.scheduler], linestyle=":")
            right.plot(games, [c[2] for c in r.curve], color=colours[r.scheduler], label=label)
        left.axhline(target, color="grey", linestyle="--", linewidth=1)
        left.set(
            xscale="log",
            yscale="log",
            xlabel="games",
            ylabel="largest 95% half-width (Elo; dotted: oracle)",
            title=f"{size} bots: the least certain bot",
        )
        right.set(
            xscale="log",
            xlabel="games",
            ylabel="Spearman rank correlation with the truth",
            title=f"{size} bots: the order",
        )
        left.legend()
        right.legend()
        fig.tight_layout()
        path = folder / f"league-{size}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--schedulers", nargs="+", default=list(SCHEDULERS), choices=SCHEDULERS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--spread", type=float, default=250.0, help="SD of strengths (Elo)")
    parser.add_argument("--matrix", type=Path, help="measured win rates (JSON), instead")
    parser.add_argument("--target", type=float, default=TARGET_ELO, help="half-width (Elo)")
    parser.add_argument(
        "--budgets", type=float, nargs="+", default=[10, 50, 200], help="games per bot"
    )
    parser.add_argument(
        "--prior-draws",
        type=float,
        default=PRIOR_DRAWS,
        help="virtual draws a bot carries in all, shared among the bots it met (league and "
        "judge; default ratings.py's)",
    )
    parser.add_argument("--cap", type=float, default=20_000, help="games per bot at most")
    parser.add_argument("--step", type=float, default=0.05, help="checkpoints' spacing")
    parser.add_argument("--entrant-size", type=int, default=100, help="0: no entrant run")
    parser.add_argument("--entrants", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--plot", type=Path, metavar="DIR", help="write PNG curves here")
    args = parser.parse_args(argv)
    runs = []
    for size in [None] if args.matrix else args.sizes:
        for repeat in range(args.repeats):
            rng = np.random.default_rng([repeat, size or 0, 3])
            pool = Pool.matrix(args.matrix) if args.matrix else Pool.normal(size, args.spread, rng)
            for scheduler in args.schedulers:
                runs.append(run(pool, scheduler, repeat, args))
                r = runs[-1]
                print(
                    f"{r.size} bots, {scheduler}, repeat {repeat}: {r.games:,} games, "
                    f"target at {r.games_to_target} (oracle {r.oracle_games_to_target})",
                    file=sys.stderr,
                )
    entrant = entrant_experiment(args, args.spread) if args.entrant_size else None
    rows = summary(runs)
    print(table(rows, entrant, args.target))
    if args.json:
        report = {
            "spread": None if args.matrix else args.spread,
            "prior_draws": args.prior_draws,
            "matrix": None if args.matrix is None else str(args.matrix),
            "target": args.target,
            "rows": rows,
            "runs": [asdict(r) for r in runs],
            "entrant": entrant,
        }
        args.json.write_text(json.dumps(report, indent=1))
    if args.plot:
        for path in plot(runs, args.plot, args.target):
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
