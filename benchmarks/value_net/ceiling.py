"""How much of a hand's points a value of the position could explain at best: the share of
their variance left once everything but the order of the stock is known.

Hands of the search bot's fast policy for both players (:func:`bots.search.rollout`: take a card
that melds, throw the highest of the least deadwood, knock at once), hoyle rules. After a discard
of player 0 (not a knock) a position is kept, with its real cards, both hands included; from it
the hand is played out ``--continuations`` times, the stock shuffled anew each time. The best
any value of that position could do is the mean of those continuations, so its R² is at most
``1 - E[variance within a position] / variance over all``; a value that sees only the bot's
side (not the opponent's hand) does worse still. ``--redraw-opponent`` measures that: each
continuation also deals the opponent's hidden cards anew (uniformly from the cards player 0 has
not seen; the ones it saw the opponent take stay), so the bound is that of a value that knows
what player 0 knows but reads nothing from how the opponent played::

    nice -n 10 python benchmarks/value_net/ceiling.py --positions 2000
    nice -n 10 python benchmarks/value_net/ceiling.py --positions 2000 --redraw-opponent
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bots.search import rollout  # noqa: E402
from engine.hand import Hand, Phase  # noqa: E402
from engine.rules import HOYLE  # noqa: E402


def redraw_opponent(hand: Hand, rng: random.Random) -> None:
    """Deal player 1's hidden cards (those player 0 did not see it take) and the stock anew, from
    the same cards: what player 0 cannot tell apart."""
    known = hand.known[1]
    hidden = hand.hands[1] & ~known
    pool = [c for c in range(52) if hidden >> c & 1] + list(hand.stock)
    rng.shuffle(pool)
    count = hidden.bit_count()
    hand.hands[1] = known | sum(1 << c for c in pool[:count])
    hand.stock = pool[count:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--continuations", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--redraw-opponent",
        action="store_true",
        help="also deal the opponent's hidden cards anew in each continuation",
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    started = time.process_time()
    within: list[float] = []
    outcomes: list[int] = []
    by_stock: dict[str, tuple[list[float], list[int]]] = {}
    deal = 0
    while len(within) < args.positions:
        deal += 1
        hand = Hand(HOYLE, deal % 2, seed=rng.getrandbits(63))
        positions = []
        while hand.result is None:
            rollout(hand, 0, 1)
            if hand.phase is Phase.DRAW and hand.to_move == 1 and hand.turn > 1:
                positions.append(hand.copy())
        if not positions:
            continue
        position = rng.choice(positions)  # one a hand: positions of a hand are not independent
        points = []
        for _ in range(args.continuations):
            branch = position.copy()
            if args.redraw_opponent:
                redraw_opponent(branch, rng)
            else:
                rng.shuffle(branch.stock)
            points.append(rollout(branch, 0)[0])
        variance = statistics.pvariance(points)
        within.append(variance)
        outcomes.extend(points)
        stock = len(position.stock)
        band = "25+" if stock >= 25 else "15-24" if stock >= 15 else "<15"
        w, o = by_stock.setdefault(band, ([], []))
        w.append(variance)
        o.extend(points)
    total = statistics.pvariance(outcomes)
    print(
        f"{len(within)} positions x {args.continuations} continuations, "
        f"{time.process_time() - started:.0f} s CPU"
    )
    knowing = "player 0's cards only" if args.redraw_opponent else "both hands"
    print(
        f"all: points sd {total**0.5:.1f}; R² at most "
        f"{1 - statistics.fmean(within) / total:.3f} knowing {knowing}"
    )
    for band, (w, o) in sorted(by_stock.items()):
        ceiling = 1 - statistics.fmean(w) / statistics.pvariance(o)
        print(f"stock {band}: {len(w)} positions, R² at most {ceiling:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
