"""``gin-arena league compare``: is the new version better? An SPRT between two versions of one
bot over pairings the league schedules for it (:mod:`arena.tournament.compare`), and the lines
``league standings`` and ``league run`` print of the compares."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from arena.cli.options import positive_int
from arena.terminal import printable
from arena.tournament import compare
from arena.tournament import league as leagues

HELP = "is the new version better? an SPRT between two versions, as gin-arena sprt tests"
DESCRIPTION = f"""\
Test whether version NEW of a bot is better than version OLD (both active: typically mine@2 and
mine@1 after `league update mine COMMAND --keep`), as `gin-arena sprt` does: a sequential
probability ratio test of H0 (NEW is at most --elo0 better) against H1 (at least --elo1 better)
over the pentanomial of mirrored pairings, accepting H1 wrongly with probability --alpha and H0
with --beta. While it runs, `league run` reserves {100 * compare.SHARE:g}% of each batch (rounded
up) for NEW v OLD pairings; those games count in the ratings too. It closes at a verdict, or
undecided after --max-pairings. Without NEW and OLD: list the compares and where each stands.
"""


def add_parser(actions: Any, db: Any) -> None:
    """The ``compare`` action of ``gin-arena league`` (``db`` adds the ``--db`` option)."""
    parser = actions.add_parser("compare", help=HELP, description=DESCRIPTION)
    db(parser)
    parser.add_argument("new", nargs="?", metavar="NEW", help="the version under test: NAME@N")
    parser.add_argument("old", nargs="?", metavar="OLD", help="the version it is measured against")
    for key, default, what in (
        ("elo0", compare.ELO0, "H0: NEW is at most this much better"),
        ("elo1", compare.ELO1, "H1: NEW is at least this much better"),
        ("alpha", compare.ALPHA, "the chance of accepting H1 wrongly"),
        ("beta", compare.BETA, "the chance of accepting H0 wrongly"),
    ):
        parser.add_argument(f"--{key}", type=float, default=default, help=f"{what} ({default:g})")
    parser.add_argument(
        "--max-pairings",
        type=positive_int,
        default=compare.MAX_PAIRINGS,
        metavar="N",
        help=f"close undecided after N pairings (default {compare.MAX_PAIRINGS}: sprt's "
        "--max-games in pairs)",
    )


def run(args: argparse.Namespace) -> int:
    if args.new is None:
        store = leagues.open_league(args.db, readonly=True)
        try:
            lines = listed(leagues.view(store), args.db)
        finally:
            store.close()
        print("\n".join(lines))
        return 0
    if args.old is None:
        raise ValueError(f"name both versions: gin-arena league compare {args.new} OLD")
    store = leagues.open_league(args.db)
    try:
        state = leagues.load(store)
        opened = compare.open_compare(
            store,
            state,
            args.new,
            args.old,
            elo0=args.elo0,
            elo1=args.elo1,
            alpha=args.alpha,
            beta=args.beta,
            max_pairings=args.max_pairings,
        )
    finally:
        store.close()
    batch = state.settings.batch
    reserved = compare.per_batch(batch)
    pairings = "1 pairing" if reserved == 1 else f"{reserved} pairings"
    print(
        f"compare #{opened.number} opened: is {printable(opened.new)} better than "
        f"{printable(opened.old)}? {hypotheses(opened)}\n"
        f"{printable(_run_command(args.db))} plays it: {pairings} of each batch of {batch} "
        f"{'is' if reserved == 1 else 'are'} {printable(opened.new)} v {printable(opened.old)} "
        "until a verdict"
    )
    return 0


def hypotheses(c: compare.Compare) -> str:
    """``H0 Elo <= 0, H1 Elo >= 10, alpha 0.05, beta 0.05, at most 10000 pairings``."""
    return (
        f"H0 Elo <= {c.elo0:g}, H1 Elo >= {c.elo1:g}, alpha {c.alpha:g}, beta {c.beta:g}, at "
        f"most {c.max_pairings} pairings"
    )


def listed(state: leagues.State, db: Path) -> list[str]:
    """Every compare, where it stands and what it tests, or how to open one."""
    found = compare.outcomes(state)
    if not found:
        return [
            "no compares yet: gin-arena league compare --db "
            f"{printable(shlex.quote(str(db)))} NEW OLD opens one"
        ]
    out = []
    for outcome in found:
        out.append(f"#{outcome.compare.number} {printable(compare.summary(outcome))}")
        out.append(f"   {hypotheses(outcome.compare)}")
    return out


def verdicts(state: leagues.State) -> list[str]:
    """The compares' sentences, for the standings' table (none without compares)."""
    found = compare.outcomes(state)
    if not found:
        return []
    return ["", "compares:"] + [
        f"  #{o.compare.number} {printable(compare.summary(o))}" for o in found
    ]


def by_version(state: leagues.State) -> dict[str, list[dict[str, Any]]]:
    """:func:`arena.tournament.compare.compares_json`'s entries by the versions they compare,
    for the JSON standings."""
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in compare.compares_json(state):
        for version in (entry["new"], entry["old"]):
            out.setdefault(version, []).append(entry)
    return out


def decided(state: leagues.State, seen: set[int]) -> list[str]:
    """The sentences of the compares decided (or closed) since ``seen`` (updated), for a run."""
    out = []
    for outcome in compare.outcomes(state):
        if outcome.state != "running" and outcome.compare.number not in seen:
            seen.add(outcome.compare.number)
            out.append(f"compare #{outcome.compare.number}: {printable(compare.summary(outcome))}")
    return out


def _run_command(db: Path) -> str:
    return f"gin-arena league run --db {shlex.quote(str(db))}"
