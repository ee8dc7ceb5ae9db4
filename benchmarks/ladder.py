"""The strength ladder: mirrored games between pairs of built-in bots, with 95% intervals.

Every pair plays ``--games`` games in-process (arena.play.match.Match, mirrored: each deal is played
twice with the bots swapping seats), split into fixed blocks of games so that the results do not
depend on how many processes play them. Prints a Markdown table; ``--json`` writes the numbers.

    tox -e ladder                                         # the default pairs
    tox -e ladder -- --pairs strong:greedy --games 200    # a quick look
    python benchmarks/ladder.py --json ladder.json  # with the package installed
    tox -e ladder-peers                                   # search v strong and the peers' bots

The peers' bots are stdio bots written from docs/PROTOCOL.md alone (benchmarks/peer_bots/):
``openspiel-simple`` (OpenSpiel's ``make_simple_gin_rummy_bot``) and ``rlcard-novice`` (RLCard's
``GinRummyNoviceRuleAgent``); they need open-spiel and rlcard installed, as ``tox -e ladder-peers``
does.

The score is the first bot's share of the games (a game nobody won counts a half). The two games
of a mirrored deal are not independent, so the 95% interval is the wider of two: the Wilson
interval over games (which treats every game as independent) and the normal approximation over the
mirrored pairs (the mean pair score plus or minus 1.96 standard errors of the pair scores). Both
are in the JSON output.

The time columns are the seconds a bot took per move, measured by the referee from request to
reply (codec included), over every move of the first bot in all of its games.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import multiprocessing
import os
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.play.match import Match, game_seeds
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec, resolve
from arena.seats.walls.sandbox import SANDBOX_MODES, SandboxError, resolve_sandbox, sandbox_warning
from bots import BUILTIN
from engine.rules import Rules

BLOCK = 50
"""Games per unit of work (an even number, so every block holds whole mirrored pairs)."""

DEFAULT_PAIRS = ("strong:greedy", "strong:random", "greedy:random")
PEER_BOTS = Path(__file__).resolve().parent / "peer_bots"
PEERS = {
    "openspiel-simple": (sys.executable, str(PEER_BOTS / "openspiel_simple.py")),
    "rlcard-novice": (sys.executable, str(PEER_BOTS / "rlcard_novice.py")),
}
"""The peers' bots, by name: their command lines."""
PEER_PAIRS = (
    "search:openspiel-simple",
    "search:strong",
    "search:rlcard-novice",
    "strong:openspiel-simple",
    "strong:rlcard-novice",
    "greedy:openspiel-simple",
    "greedy:rlcard-novice",
)
PEER_GAMES = 400
DEFAULT_GAMES = {"strong:greedy": 1000}
OTHER_GAMES = 200
Z95 = 1.959964


@dataclass
class BlockResult:
    """One block of a pair's games, from the first bot's side."""

    pair: str
    index: int
    scores: list[float] = field(default_factory=list)
    """Per game: 1 for a win of the first bot, 0 for a loss, 0.5 for a game nobody won."""
    failures: dict[str, int] = field(default_factory=dict)
    """Forfeits by bot name and reason, e.g. ``"strong: timeout"``."""
    hands: int = 0
    moves: tuple[int, int] = (0, 0)
    move_seconds: tuple[float, float] = (0.0, 0.0)
    slowest_move: tuple[float, float] = (0.0, 0.0)


def play_block(
    pair: str, index: int, games: int, seed: int, move_time: float, *, sandbox: str | None = None
) -> BlockResult:
    """Play one block of mirrored games between the bots of ``pair`` (``"first:second"``).

    With ``sandbox`` (a ``--sandbox`` mode: ``bwrap``, ``auto`` or ``none``) every bot, the
    built-ins too, runs as its own process, walled in as ``gin-arena match`` walls a bot in;
    without it the built-ins play in this process (the peers' bots are processes either way)."""
    first, second = pair.split(":")
    match = Match(
        bots=(bot_spec(first), bot_spec(second)),
        rules=Rules(),
        clock=Clock(move=move_time),
        games=games,
        seed=seed,
        mirror=True,
        in_process=sandbox is None,
        sandbox=None if sandbox is None else resolve_sandbox(sandbox),
    )
    record = io.StringIO()
    result = match.play(record=record)
    block = BlockResult(pair, index)
    names = result.names
    for game in result.games:
        block.scores.append(0.5 if game.winner is None else float(game.winner == 0))
        block.hands += game.outcome.hands
        failed = game.failed
        if failed is not None and game.outcome.failure is not None:
            key = f"{names[failed]}: {game.outcome.failure.reason}"
            block.failures[key] = block.failures.get(key, 0) + 1
    block.moves, block.move_seconds, block.slowest_move = _move_times(
        record.getvalue(), (names[0], names[1])
    )
    return block


def bot_spec(name: str) -> BotSpec:
    """A built-in bot (in process) or a peer's bot (a process)."""
    if name in PEERS:
        return BotSpec(name, PEERS[name])
    return resolve(name, name=name)


def _move_times(
    record: str, names: tuple[str, str]
) -> tuple[tuple[int, int], tuple[float, float], tuple[float, float]]:
    """Moves, total seconds and the slowest move of each bot (by match index), from a record."""
    moves = [0, 0]
    total = [0.0, 0.0]
    slowest = [0.0, 0.0]
    seat_to_bot = [0, 1]
    for text in record.splitlines():
        line = json.loads(text)
        if line["type"] == "game":
            seat_to_bot = [names.index(tag["name"]) for tag in line["bots"]]
        elif line["type"] == "action":
            bot = seat_to_bot[line["player"]]
            seconds = line["ms"] / 1000
            moves[bot] += 1
            total[bot] += seconds
            slowest[bot] = max(slowest[bot], seconds)
    return (moves[0], moves[1]), (total[0], total[1]), (slowest[0], slowest[1])


Task = tuple[str, int, int, int, float, "str | None"]


def _play(task: Task) -> BlockResult:
    pair, index, games, seed, move_time, sandbox = task
    return play_block(pair, index, games, seed, move_time, sandbox=sandbox)


@dataclass
class PairSummary:
    pair: str
    games: int
    wins: int
    losses: int
    score: float
    low: float
    high: float
    pair_low: float
    pair_high: float
    wilson_low: float
    wilson_high: float
    hands: int
    failures: dict[str, int]
    mean_move_ms: float
    max_move_ms: float


def summarise(pair: str, blocks: Sequence[BlockResult]) -> PairSummary:
    scores = [s for b in sorted(blocks, key=lambda b: b.index) for s in b.scores]
    n = len(scores)
    score = sum(scores) / n
    pairs = [(scores[i] + scores[i + 1]) / 2 for i in range(0, n - 1, 2)]
    pair_low, pair_high = _normal_interval(pairs)
    wilson_low, wilson_high = _wilson_interval(score, n)
    low, high = min(pair_low, wilson_low), max(pair_high, wilson_high)
    failures: dict[str, int] = {}
    for b in blocks:
        for key, count in b.failures.items():
            failures[key] = failures.get(key, 0) + count
    moves = sum(b.moves[0] for b in blocks)
    seconds = sum(b.move_seconds[0] for b in blocks)
    return PairSummary(
        pair=pair,
        games=n,
        wins=sum(1 for s in scores if s == 1.0),
        losses=sum(1 for s in scores if s == 0.0),
        score=score,
        low=low,
        high=high,
        pair_low=pair_low,
        pair_high=pair_high,
        wilson_low=wilson_low,
        wilson_high=wilson_high,
        hands=sum(b.hands for b in blocks),
        failures=failures,
        mean_move_ms=1000 * seconds / moves if moves else 0.0,
        max_move_ms=1000 * max(b.slowest_move[0] for b in blocks),
    )


def _normal_interval(samples: Sequence[float]) -> tuple[float, float]:
    """Mean plus or minus 1.96 standard errors."""
    n = len(samples)
    mean = sum(samples) / n
    if n < 2:
        return mean, mean
    variance = sum((x - mean) ** 2 for x in samples) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def _wilson_interval(p: float, n: int) -> tuple[float, float]:
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return centre - half, centre + half


def table(summaries: Sequence[PairSummary]) -> str:
    lines = [
        "| pair | games | wins | losses | score | 95% interval | hands/game "
        "| ms/move mean | ms/move max | forfeits |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for s in summaries:
        first, second = s.pair.split(":")
        forfeits = ", ".join(f"{k} x{v}" for k, v in sorted(s.failures.items())) or "none"
        lines.append(
            f"| {first} v {second} | {s.games:,} | {s.wins:,} | {s.losses:,} "
            f"| {100 * s.score:.1f}% | {100 * s.low:.1f}% to {100 * s.high:.1f}% "
            f"| {s.hands / s.games:.1f} | {s.mean_move_ms:.1f} | {s.max_move_ms:.0f} "
            f"| {forfeits} |"
        )
    return "\n".join(lines)


def parse_pairs(text: str) -> list[str]:
    pairs = []
    for item in text.split(","):
        names = item.strip().split(":")
        if len(names) != 2 or not all(names):
            raise argparse.ArgumentTypeError(f"bad pair {item!r}: write first:second")
        for name in names:
            if name not in BUILTIN and name not in PEERS:
                raise argparse.ArgumentTypeError(
                    f"unknown bot {name!r}: choose from {', '.join([*BUILTIN, *PEERS])}"
                )
        if names[0] == names[1]:
            raise argparse.ArgumentTypeError(f"bad pair {item!r}: a bot against itself")
        pairs.append(f"{names[0]}:{names[1]}")
    return pairs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ladder.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--pairs",
        type=parse_pairs,
        default=None,
        help=f"comma-separated first:second pairs (default {','.join(DEFAULT_PAIRS)}; with "
        "--peers, the peer pairs)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help=f"games per pair, even (default 1000 for strong:greedy, {OTHER_GAMES} otherwise)",
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help=f"play the peer pairs ({','.join(PEER_PAIRS)}; {PEER_GAMES} games each) "
        f"instead of the default pairs; with --pairs, those pairs, {PEER_GAMES} games each",
    )
    parser.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    parser.add_argument(
        "--move-time", type=float, default=1.0, help="seconds allowed per move (default 1.0)"
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: every core)"
    )
    parser.add_argument(
        "--sandbox",
        choices=SANDBOX_MODES,
        default=None,
        help="run every bot, the built-ins too, as its own process in this sandbox (bwrap: "
        "bubblewrap or stop; auto: bubblewrap where it works; none: plain processes); by "
        "default the built-ins play in the ladder's own processes",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.sandbox is not None:
        try:
            if resolve_sandbox(args.sandbox) is None and args.sandbox == "auto":
                print(sandbox_warning(), file=sys.stderr)
        except SandboxError as error:
            parser.error(str(error))
    if args.games is not None and (args.games < 2 or args.games % 2):
        parser.error("--games must be an even number of at least 2 (games are mirrored)")

    if args.pairs is None:
        args.pairs = list(PEER_PAIRS if args.peers else DEFAULT_PAIRS)
    tasks: list[Task] = []
    for pair in args.pairs:
        games = args.games or DEFAULT_GAMES.get(pair, PEER_GAMES if args.peers else OTHER_GAMES)
        seeds = game_seeds(args.seed)
        for index, start in enumerate(range(0, games, BLOCK)):
            tasks.append(
                (pair, index, min(BLOCK, games - start), next(seeds), args.move_time, args.sandbox)
            )
    started = time.perf_counter()
    blocks: dict[str, list[BlockResult]] = {pair: [] for pair in args.pairs}
    progress = sys.stderr.isatty()  # drawn on a terminal only, and erased at the end
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for done, block in enumerate(pool.imap_unordered(_play, tasks), 1):
            blocks[block.pair].append(block)
            if progress:
                print(f"\r{done}/{len(tasks)} blocks of {BLOCK} games", end="", file=sys.stderr)
    if progress:
        print("\r\033[K", end="", file=sys.stderr)
    wall = time.perf_counter() - started
    summaries = [summarise(pair, blocks[pair]) for pair in args.pairs]
    command = "python benchmarks/ladder.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(table(summaries))
    print()
    where = "bots in process" if args.sandbox is None else f"each bot a process, {args.sandbox}"
    print(
        f"Mirrored games, hoyle rules, {args.move_time:g} s a move, seed {args.seed}, {where}, "
        f"{args.jobs} processes, {wall:.0f} s wall time. Command: `{command.strip()}`"
    )
    if args.json:
        data: dict[str, Any] = {
            "command": command.strip(),
            "seed": args.seed,
            "move_time": args.move_time,
            "sandbox": args.sandbox,
            "rules": "hoyle",
            "mirror": True,
            "wall_seconds": round(wall, 1),
            "machine": {
                "python": platform.python_version(),
                "system": platform.platform(),
                "cpus": os.cpu_count(),
            },
            "pairs": [asdict(s) for s in summaries],
        }
        with open(args.json, "w", encoding="utf-8") as stream:
            json.dump(data, stream, indent=2)
            stream.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
