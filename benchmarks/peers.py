"""Side-by-side speed of our meld solver and its peers, in one process, on the same seeded hands.

Peers: OpenSpiel's C++ ``GinRummyUtils`` through its Python binding (``pyspiel``) and RLCard's
pure-Python gin rummy melding code. Each solver is timed from its own card representation (our
52-bit masks, OpenSpiel's int tuples, RLCard's ``Card`` objects), all built before the clock
starts. Every timing is the best of many passes over all the hands, made in ``--repeats`` rounds
that take the solvers in turn, so that their ratios hold on a noisy shared machine.

The script also checks that every one of our answers equals OpenSpiel's exact answer (exit status
1 if not) and counts the 11-card hands on which OpenSpiel's direct 11-card call is wrong.

    tox -e bench-peers                                  # the usual way
    python benchmarks/peers.py --hands 2000 --json peers.json

A peer that is not importable is skipped with a note; the other rows are still measured.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from workload import SEED, Deal, deals, has_set_rank

from engine.cards import CARD_NAMES, RANKS, SUITS, cards_of, format_cards, parse_cards
from engine.melds import best_discards, lay_off, min_deadwood

OURS = "gin-rummy-arena"
OURS_PARSED = "gin-rummy-arena, on parse_cards results"
OPENSPIEL = "OpenSpiel"
RLCARD = "RLCard"

TEN = "10-card min deadwood"
ELEVEN = "11-card min deadwood"
ELEVEN_DIRECT = "11-card min deadwood, direct call"
ELEVEN_ROUTE = "11-card min deadwood, least over the 11 discards"
DISCARDS = "11-card best discards"
LAY_OFF = "lay-off (defender's best show-down)"
TASKS = (TEN, ELEVEN, ELEVEN_DIRECT, ELEVEN_ROUTE, DISCARDS, LAY_OFF)

COUNTEREXAMPLE = "AS 3D 2S 3H AH AC 4D 2H 2C 2D 3S"
"""11 cards whose exact minimum is 0 (discard 4D: three sets) but OpenSpiel's direct call says 1."""


@dataclass
class Timing:
    """One solver on one task over a list of inputs; ``seconds`` is its best pass so far."""

    solver: str
    task: str
    exact: bool
    run: Callable[[], list[Any]]
    hands: int
    path: str = "all"
    seconds: float = float("inf")
    passes: int = 0
    passes_per_round: int = 1
    results: list[Any] | None = None

    @property
    def rate(self) -> float:
        return self.hands / self.seconds


# ---------------------------------------------------------------------------------------------
# The peers and their card representations.


def openspiel_card(card: int) -> int:
    """OpenSpiel's number for our ``card``: its suits run s c d h (0 is ``As``), ours C D H S."""
    return (card // 13 + 1) % 4 * 13 + card % 13


def openspiel_name(card: int) -> str:
    """How OpenSpiel writes our ``card``: ``As``, ``Tc``, ..."""
    return CARD_NAMES[card][0] + "scdh"[openspiel_card(card) // 13]


def load_openspiel() -> Any | None:
    """OpenSpiel's ``GinRummyUtils`` (13 ranks, 4 suits, 10-card hands), or None after a note."""
    try:
        import pyspiel

        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    except Exception as error:  # no wheel for this platform, an ABI mismatch, a build without it
        print(f"note: OpenSpiel is not available ({error!r}); its rows are skipped.")
        print("      Install it with `pip install open-spiel`, or run `tox -e bench-peers`.\n")
        return None
    for card in range(52):
        if utils.card_string(openspiel_card(card)) != openspiel_name(card):
            sys.exit(f"error: OpenSpiel's card {openspiel_card(card)} is not {CARD_NAMES[card]}")
    return utils


@dataclass(frozen=True)
class RLCardApi:
    card: Callable[..., Any]
    best_meld_clusters: Callable[[list[Any]], list[list[list[Any]]]]
    deadwood_count: Callable[..., int]

    def hand(self, cards: Sequence[int]) -> list[Any]:
        return [self.card(suit=SUITS[c // 13], rank=RANKS[c % 13]) for c in cards]


def load_rlcard() -> RLCardApi | None:
    """RLCard's ``Card`` class and gin rummy melding functions, or None after a note."""
    try:  # its gin rummy utils import numpy too
        from rlcard.games.base import Card
        from rlcard.games.gin_rummy.utils import melding, utils
    except Exception as error:
        print(f"note: RLCard is not available ({error!r}); its rows are skipped.")
        print("      Install it with `pip install rlcard numpy`, or run `tox -e bench-peers`.\n")
        return None
    api = RLCardApi(Card, melding.get_best_meld_clusters, utils.get_deadwood_count)
    for card in range(52):
        if str(api.hand([card])[0]) != CARD_NAMES[card]:
            sys.exit(f"error: RLCard does not write card {card} as {CARD_NAMES[card]}")
    return api


def version_of(*distributions: str) -> str:
    for name in distributions:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"


# ---------------------------------------------------------------------------------------------
# The timed solvers: each returns a pass over all its hands.


def ours_min_deadwood(hands: list[int]) -> Callable[[], list[int]]:
    return lambda: list(map(min_deadwood, hands))


def ours_best_discards(hands: list[int]) -> Callable[[], list[tuple[int, int]]]:
    return lambda: list(map(best_discards, hands))


def ours_lay_off(defenders: list[int], melds: list[tuple[int, ...]]) -> Callable[[], list[int]]:
    return lambda: [result.deadwood for result in map(lay_off, defenders, melds)]


def openspiel_min_deadwood(utils: Any, hands: list[tuple[int, ...]]) -> Callable[[], list[int]]:
    return lambda: list(map(utils.min_deadwood, hands))


def openspiel_exact_11(utils: Any, hands: list[tuple[int, ...]]) -> Callable[[], list[int]]:
    """OpenSpiel's exact 11-card answer: the least of its 10-card answers over the 11 discards."""
    solve = utils.min_deadwood
    return lambda: [min(solve(h[:i] + h[i + 1 :]) for i in range(11)) for h in hands]


def rlcard_min_deadwood(api: RLCardApi, hands: list[list[Any]]) -> Callable[[], list[int]]:
    """RLCard's 10-card minimum deadwood, computed as its round scoring does."""
    best_meld_clusters, deadwood_count = api.best_meld_clusters, api.deadwood_count

    def solve(hand: list[Any]) -> int:
        clusters = best_meld_clusters(hand)
        return deadwood_count(hand, clusters[0] if clusters else [])

    if hands and len(hands[0]) == 11:  # its melding takes exactly 10 cards: least over discards
        return lambda: [min(solve(h[:i] + h[i + 1 :]) for i in range(11)) for h in hands]
    return lambda: list(map(solve, hands))


def parsed(hands: list[int]) -> list[int]:
    """The hands as a user has them: ``parse_cards`` of their notation (``CardSet`` objects)."""
    return [parse_cards(format_cards(h)) for h in hands]


def timings_for(workload: list[Deal], openspiel: Any, rlcard: RLCardApi | None) -> list[Timing]:
    """The main table's timings, for the peers that are available."""
    n = len(workload)
    ours10 = [deal.hand10 for deal in workload]
    ours11 = [deal.hand11 for deal in workload]
    melds = [deal.knocker_melds for deal in workload]
    out = [
        Timing(OURS, TEN, True, ours_min_deadwood(ours10), n),
        Timing(OURS, ELEVEN, True, ours_min_deadwood(ours11), n),
        Timing(OURS_PARSED, TEN, True, ours_min_deadwood(parsed(ours10)), n),
        Timing(OURS_PARSED, ELEVEN, True, ours_min_deadwood(parsed(ours11)), n),
        Timing(OURS, DISCARDS, True, ours_best_discards(ours11), n),
        Timing(OURS, LAY_OFF, True, ours_lay_off(ours10, melds), n),
    ]
    if openspiel is not None:
        os11 = [tuple(map(openspiel_card, deal.cards)) for deal in workload]
        os10 = [hand[:10] for hand in os11]
        out += [
            Timing(OPENSPIEL, TEN, True, openspiel_min_deadwood(openspiel, os10), n),
            Timing(OPENSPIEL, ELEVEN_DIRECT, False, openspiel_min_deadwood(openspiel, os11), n),
            Timing(OPENSPIEL, ELEVEN_ROUTE, True, openspiel_exact_11(openspiel, os11), n),
        ]
    if rlcard is not None:
        rl11 = [rlcard.hand(deal.cards) for deal in workload]
        rl10 = [hand[:10] for hand in rl11]
        out += [
            Timing(RLCARD, TEN, True, rlcard_min_deadwood(rlcard, rl10), n),
            Timing(RLCARD, ELEVEN_ROUTE, True, rlcard_min_deadwood(rlcard, rl11), n),
        ]
    return out


def path_timings_for(workload: list[Deal], openspiel: Any) -> list[Timing]:
    """Ours and OpenSpiel's single call, split by whether a hand holds a rank in 3+ suits."""
    out = []
    for size in (10, 11):
        hands = [
            (deal.hand10 if size == 10 else deal.hand11, deal.cards[:size]) for deal in workload
        ]
        for path, pick in (("rank in 3+ suits", True), ("no rank in 3+ suits", False)):
            some = [(mask, cards) for mask, cards in hands if has_set_rank(mask) == pick]
            if not some:
                continue
            masks = [mask for mask, _ in some]
            task = TEN if size == 10 else ELEVEN
            out.append(Timing(OURS, task, True, ours_min_deadwood(masks), len(some), path))
            if openspiel is not None:
                os_hands = [tuple(map(openspiel_card, cards)) for _, cards in some]
                task = TEN if size == 10 else ELEVEN_DIRECT
                run = openspiel_min_deadwood(openspiel, os_hands)
                out.append(Timing(OPENSPIEL, task, size == 10, run, len(some), path))
    return out


def measure(timings: list[Timing], repeats: int, round_seconds: float = 0.2) -> None:
    """Each timing's best pass over ``repeats`` rounds, taking the timings in turn in each round.

    A fast timing makes several passes per round (as many as fit in about ``round_seconds``,
    judged from its first pass), so that a short burst of load on the machine cannot spoil all
    of its passes, while the slow ones still get one pass per round.
    """
    for round_ in range(repeats):
        for timing in timings:
            for _ in range(timing.passes_per_round):
                gc.collect()
                gc.disable()
                try:
                    start = time.perf_counter()
                    results = timing.run()
                    seconds = time.perf_counter() - start
                finally:
                    gc.enable()
                timing.seconds = min(timing.seconds, seconds)
                timing.passes += 1
                if timing.results is None:
                    timing.results = results
            if round_ == 0:
                timing.passes_per_round = max(1, min(50, int(round_seconds / timing.seconds)))


# ---------------------------------------------------------------------------------------------
# Reporting.


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    affinity = getattr(os, "sched_getaffinity", None)
    return {
        "cpu": model,
        "nproc": len(affinity(0)) if affinity else os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "open_spiel": version_of("open-spiel", "open_spiel"),
        "rlcard": version_of("rlcard"),
    }


def ratio(timing: Timing, reference: Timing | None) -> str:
    return "-" if reference is None else f"{timing.rate / reference.rate:.2f}x"


def table(timings: list[Timing]) -> list[dict[str, Any]]:
    """Print the main table; return its rows. Ratios are to OpenSpiel's matching timing."""
    by_key = {(t.solver, t.task): t for t in timings}
    ten = by_key.get((OPENSPIEL, TEN))
    direct, exact = by_key.get((OPENSPIEL, ELEVEN_DIRECT)), by_key.get((OPENSPIEL, ELEVEN_ROUTE))
    print("| solver | task | exact | hands/s | vs OpenSpiel direct | vs OpenSpiel exact |")
    print("|---|---|---|--:|--:|--:|")
    rows = []
    order = (OURS, OURS_PARSED, OPENSPIEL, RLCARD)
    for t in sorted(timings, key=lambda t: (TASKS.index(t.task), order.index(t.solver))):
        refs = (
            (ten, ten) if t.task == TEN else (None, None) if t.task == LAY_OFF else (direct, exact)
        )
        row = {
            "solver": t.solver,
            "task": t.task,
            "exact": t.exact,
            "hands": t.hands,
            "hands_per_s": round(t.rate),
            "passes": t.passes,
            "vs_openspiel_direct": ratio(t, refs[0]),
            "vs_openspiel_exact": ratio(t, refs[1]),
        }
        rows.append(row)
        print(
            f"| {t.solver} | {t.task} | {'yes' if t.exact else 'no'} | {t.rate:,.0f} | "
            f"{row['vs_openspiel_direct']} | {row['vs_openspiel_exact']} |"
        )
    print(
        "\nOpenSpiel 'direct' is its one `min_deadwood` call on the hand; 'exact' is its exact "
        "answer: the same call for 10 cards, the least of the 10-card calls over the 11 discards "
        "for 11."
    )
    return rows


def path_table(timings: list[Timing]) -> list[dict[str, Any]]:
    print("\n## By path: hands holding a rank in three or four suits, or not\n")
    print("| solver | task | path | hands | hands/s |")
    print("|---|---|---|--:|--:|")
    rows = []
    for t in timings:
        rows.append(
            {
                "solver": t.solver,
                "task": t.task,
                "path": t.path,
                "hands": t.hands,
                "hands_per_s": round(t.rate),
            }
        )
        print(f"| {t.solver} | {t.task} | {t.path} | {t.hands:,} | {t.rate:,.0f} |")
    return rows


def format_hand(cards: Sequence[int]) -> str:
    return " ".join(CARD_NAMES[c] for c in cards)


def check_counterexample(utils: Any) -> bool:
    """OpenSpiel's direct call on :data:`COUNTEREXAMPLE` says 1; its exact route and ours say 0."""
    mask = parse_cards(COUNTEREXAMPLE)
    cards = cards_of(mask)
    hand = tuple(map(openspiel_card, cards))
    direct = utils.min_deadwood(hand)
    exact = min(utils.min_deadwood(hand[:i] + hand[i + 1 :]) for i in range(11))
    ours = min_deadwood(mask)
    ok = (direct, exact, ours) == (1, 0, 0)
    print(
        f"- {COUNTEREXAMPLE} (OpenSpiel: {' '.join(map(openspiel_name, cards))}): OpenSpiel "
        f"direct {direct}, OpenSpiel exact {exact}, ours {ours}{'' if ok else ' (UNEXPECTED)'}."
    )
    return ok


def check_answers(
    timings: list[Timing], workload: list[Deal], utils: Any, report: dict[str, Any]
) -> bool:
    """Compare the answers; print the findings and add them to ``report``. True on a failure."""
    found = {(t.solver, t.task): t.results for t in timings}
    ours10, ours11, discards = found[OURS, TEN], found[OURS, ELEVEN], found[OURS, DISCARDS]
    assert ours10 is not None and ours11 is not None and discards is not None
    failed = False
    print("\n## Answers\n")
    if [dw for dw, _ in discards] != ours11:
        print("- MISMATCH: our best_discards and min_deadwood disagree on 11-card hands.")
        failed = True
    os10, os_direct = found.get((OPENSPIEL, TEN)), found.get((OPENSPIEL, ELEVEN_DIRECT))
    os_exact = found.get((OPENSPIEL, ELEVEN_ROUTE))
    if utils is None or os10 is None or os_direct is None or os_exact is None:
        print("- OpenSpiel is not available: our answers were not checked against it.")
    else:
        failed |= not check_counterexample(utils)
        mismatches = {}
        for size, ours, theirs in ((10, ours10, os10), (11, ours11, os_exact)):
            wrong = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
            mismatches[str(size)] = len(wrong)
            if wrong:
                failed = True
                print(
                    f"- MISMATCH: our {size}-card answer differs from OpenSpiel's exact answer on "
                    f"{len(wrong):,} hands, e.g. {format_hand(workload[wrong[0]].cards[:size])}: "
                    f"ours {ours[wrong[0]]}, OpenSpiel {theirs[wrong[0]]}."
                )
            else:
                print(
                    f"- Our {size}-card answers equal OpenSpiel's exact answers on all "
                    f"{len(ours):,} hands."
                )
        report["mismatches_vs_openspiel_exact"] = mismatches
        off = [i for i, (a, b) in enumerate(zip(os_direct, os_exact, strict=True)) if a != b]
        print(
            f"- OpenSpiel's direct 11-card call is wrong on {len(off):,} of {len(os_exact):,} "
            f"11-card hands ({len(off) / len(os_exact):.2%})."
        )
        report["openspiel_direct_11_wrong"] = len(off)
        if not off:
            print("  (It is rarely wrong on random hands; the hand above is a constructed case.)")
        else:
            cards = workload[off[0]].cards
            direct, exact = os_direct[off[0]], os_exact[off[0]]
            print(
                f"  For example {format_hand(cards)} (OpenSpiel: "
                f"{' '.join(map(openspiel_name, cards))}): direct {direct}, exact {exact}."
            )
            report["openspiel_direct_11_example"] = {
                "hand": format_hand(cards),
                "direct": direct,
                "exact": exact,
            }
    for size, task, mine in ((10, TEN, ours10), (11, ELEVEN_ROUTE, ours11)):
        rlcard = found.get((RLCARD, task))
        if rlcard is not None:
            differ = sum(a != b for a, b in zip(mine, rlcard, strict=True))
            print(f"- RLCard's {size}-card answers differ from ours on {differ:,} hands.")
            report[f"rlcard_{size}_differ"] = differ
    return failed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000, help="seeded hands (default 20000)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds of passes (default 5)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"deal seed (default {SEED})")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.repeats < 1:
        parser.error("--hands and --repeats must be at least 1")

    info = machine()
    print(
        f"# Meld solvers side by side: {args.hands:,} seeded hands (seed {args.seed}), "
        f"best pass of {args.repeats} rounds\n"
    )
    print(f"{info['cpu']}, {info['nproc']} CPUs, {info['python']}, {info['platform']}")
    print(f"open-spiel {info['open_spiel']}, rlcard {info['rlcard']}\n", flush=True)
    workload = deals(args.hands, args.seed)
    openspiel = load_openspiel()
    rlcard = load_rlcard()
    timings = timings_for(workload, openspiel, rlcard)
    paths = path_timings_for(workload, openspiel)
    measure(timings + paths, args.repeats)

    report: dict[str, Any] = {
        "hands": args.hands,
        "seed": args.seed,
        "repeats": args.repeats,
        "machine": info,
        "rows": table(timings),
        "paths": path_table(paths),
    }
    failed = check_answers(timings, workload, openspiel, report)
    report["ok"] = not failed
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=2)
            out.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
