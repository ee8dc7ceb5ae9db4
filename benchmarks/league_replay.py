"""What opening a big league costs: a league database of many bots, its games drawn instead of
played, then :func:`arena.tournament.league.load` timed from its last snapshot and from the
whole history (every batch rescheduled and checked).

Every ``league`` command opens the database this way (``add``, ``update``, ``retire``,
``standings``, ``run``, and ``report`` through ``view``), so this is the wait before each of them.

    python benchmarks/league_replay.py                         # 1,000 bots, 20,000 pairings
    python benchmarks/league_replay.py --bots 200 --pairings 4000 --json replay.json

The league is built through the real :func:`arena.tournament.league.run` (its scheduler, store,
history and snapshots), with the runner's ``play`` replaced by a draw from the Elo odds of
strengths normal around 0 (SD 250), seeded by each game: no bot is started.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.seats.botspec import resolve
from arena.stats.ratings import expected_score
from arena.tournament import league as leagues
from arena.tournament.config import Task, bot_digest
from arena.tournament.runner import Committer, Venue
from arena.tournament.store import GameRow, Store


class Drawn:
    """Stands in for the runner's ``play``: each game's winner drawn from the Elo odds of its
    two versions' strengths, seeded by the game."""

    def __init__(self, strength: dict[str, float]) -> None:
        self.strength = strength

    def __call__(
        self, jobs: Sequence[tuple[dict[str, Any], Task]], commit: Committer, *_: Any, **__: Any
    ) -> None:
        for config, task in jobs:
            names = [bot["name"] for bot in config["bots"]]
            rows = []
            for game in task.games:
                first, second = (names[task.table[s]] for s in game.seats)
                odds = expected_score(self.strength[first] - self.strength[second])
                won = random.Random(f"{game.seed}:{game.number}").random() < odds
                row = (game.number, first, second, game.seed, first if won else second, "score")
                scores = (100, 0) if won else (0, 100)
                rows.append(GameRow(*row, None, "", "", *scores, 3, 0.0, ""))
            commit(rows)


def build(path: Path, bots: int, pairings: int, batch: int, seed: int) -> float:
    """A league of ``bots`` versions that has issued ``pairings`` pairings; the seconds it took."""
    started = time.perf_counter()
    rng = random.Random(seed)
    store = leagues.create(path, leagues.Settings(seed=seed, target=30.0, batch=batch))
    strength: dict[str, float] = {}
    try:
        for k in range(bots):
            spec = resolve("random", name=leagues.version_name(f"b{k}", 1))
            strength[spec.name] = rng.gauss(0, 250)
            store.set_bot(spec.name, spec.command_line, "1", bot_digest(spec))
            store.add_log("join", {"bot": f"b{k}", "spec": leagues.spec_json(spec)})
        setattr(leagues, "play", Drawn(strength))  # noqa: B010 (the runner's play, replaced)
        leagues.run(store, 1, Venue("none"), pairings=pairings)
    finally:
        store.close()
    return time.perf_counter() - started


def timed_load(path: Path, *, snapshot: bool) -> tuple[float, leagues.State]:
    store = Store.open(path, readonly=True)
    try:
        started = time.perf_counter()
        state = leagues.load(store, snapshot=snapshot)
        return time.perf_counter() - started, state
    finally:
        store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="league_replay.py", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--pairings", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=leagues.BATCH, help="pairings a batch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="keep the league here (default: a scratch file)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if args.bots < 2 or args.pairings < 1 or args.batch < 1:
        parser.error("--bots must be at least 2, --pairings and --batch at least 1")
    with tempfile.TemporaryDirectory(prefix="league-replay-") as scratch:
        path = args.db or Path(scratch) / "league.sqlite"
        if path.exists():
            parser.error(f"{path} exists: name a new file with --db")
        built = build(path, args.bots, args.pairings, args.batch, args.seed)
        fast, state = timed_load(path, snapshot=True)
        slow, full = timed_load(path, snapshot=False)
        if state.league.snapshot() != full.league.snapshot():
            print("the league from its snapshot differs from its replayed history", file=sys.stderr)
            return 1
        store = Store.open(path, readonly=True)
        kept = store.snapshot()
        store.close()
        figures = {
            "bots": args.bots,
            "pairings": state.league.issued,
            "games": 2 * state.league.issued,
            "batch": args.batch,
            "snapshot_every": leagues.SNAPSHOT_EVERY,
            "build_seconds": round(built, 1),
            "load_from_snapshot_seconds": round(fast, 3),
            "load_full_replay_seconds": round(slow, 3),
            "speedup": round(slow / fast, 1),
            "snapshot_bytes": len(json.dumps(kept[1])) if kept else 0,
            "database_bytes": path.stat().st_size,
        }
    print(
        f"{figures['bots']:,} bots, {figures['pairings']:,} pairings ({figures['games']:,} games, "
        f"batches of {args.batch}): opened from its snapshot in {fast:.2f} s, by replaying its "
        f"whole history in {slow:.2f} s ({slow / fast:.0f} times longer); built in {built:.0f} s"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
