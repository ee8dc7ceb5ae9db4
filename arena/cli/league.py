"""``gin-arena league``: a living league that bots join, are updated in and leave while it runs."""

from __future__ import annotations

import argparse
import csv
import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from arena.cli.options import (
    add_clock_arguments,
    add_concurrency_arguments,
    add_limits_arguments,
    add_logs_argument,
    add_rules_arguments,
    add_sandbox_argument,
    add_seed_argument,
    bots_file_from,
    check_concurrency,
    clock_from,
    limits_given,
    logs_from,
    positive_int,
    rules_from,
    sandbox_from,
    seed_from,
)
from arena.play.match import MatchError
from arena.seats.botspec import BotSpec, resolve
from arena.stats.league import MIN_SHARE, TARGET_ELO
from arena.terminal import printable
from arena.tournament import cluster, compare, event
from arena.tournament import league as leagues
from arena.tournament.league_table import (
    csv_rows,
    render_table,
    standings_document,
    standings_json,
)
from arena.tournament.runner import Venue
from arena.tournament.store import GameRow, Store

HELP = "a living league: bots join, update and leave while it runs; games go where they inform most"
DESCRIPTION = f"""\
A league is a database (--db) that bots join, are updated in and leave at any time, even while
`league run` plays it. Each bot's versions are kept (NAME@1, NAME@2...); the newest is scheduled,
the older ones stay in the history and the ratings. The rules, the clock, the seed and the bots'
limits are fixed when the league is created; bots are the only thing that changes.

`league run` plays batches of pairings (one deal, played twice with the seats swapped), chosen
where they reduce most the uncertainty that matters: a new or updated bot's place, neighbours
whose order is unclear (docs/LEAGUE.md). Every active bot is guaranteed a share of the games. It
stops when every active bot's 95% interval is within --target Elo (default {TARGET_ELO:g}, set at
creation), after --pairings more pairings, or at Ctrl-C; run it again to go on. Every game is
committed as it finishes, so a league resumes after anything, and replays the same: the same
seed and the same events give the same pairings.

examples:
  gin-arena league create --db club.sqlite
  gin-arena league add --db club.sqlite strong strong
  gin-arena league add --db club.sqlite mine "python3 mybot.py"
  gin-arena league add --db club.sqlite --bots bots.toml
  gin-arena league run --db club.sqlite --concurrency 2
  gin-arena league update --db club.sqlite mine            # mybot.py changed: a new version
  gin-arena league update --db club.sqlite mine "python3 mybot2.py" --keep
  gin-arena league compare --db club.sqlite mine@2 mine@1  # is mine@2 better? an SPRT
  gin-arena league retire --db club.sqlite greedy
  gin-arena league standings --db club.sqlite --all
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION", required=True)
    create = actions.add_parser(
        "create",
        help="a new league database: its rules, clock, seed and limits, fixed",
        description="Create a new league database; its settings cannot change afterwards.",
    )
    _db(create)
    add_seed_argument(create)
    add_rules_arguments(create)
    add_clock_arguments(create)
    add_limits_arguments(create)
    create.add_argument(
        "--target",
        type=float,
        default=TARGET_ELO,
        metavar="ELO",
        help=f"a bot is settled when its 95%% interval is within this many Elo either way "
        f"(default {TARGET_ELO:g})",
    )
    create.add_argument(
        "--share",
        type=float,
        default=MIN_SHARE,
        metavar="FRACTION",
        help=f"the share of a fair share of pairings every active bot is guaranteed (default "
        f"{MIN_SHARE:g})",
    )
    create.add_argument(
        "--batch",
        type=int,
        default=leagues.BATCH,
        metavar="N",
        help=f"pairings chosen at a time (default {leagues.BATCH}; fixed, so that the league "
        "replays the same whatever the concurrency)",
    )
    create.add_argument(
        "--subprocess",
        action="store_true",
        help="run built-in bots as subprocesses too (default: in the worker process)",
    )

    add = actions.add_parser(
        "add",
        help="enter a new bot (it must start and say ready)",
        description="Enter a bot as version NAME@1: NAME COMMAND (a command line or a built-in "
        "bot's name), or every bot of a bots file (--bots).",
    )
    _db(add)
    add.add_argument("name", nargs="?", help="the bot's name in the league")
    add.add_argument(
        "program",
        nargs="?",
        metavar="COMMAND",
        help="its command line, or a built-in bot's name",
    )
    add.add_argument("--bots", type=Path, metavar="FILE", help="add every bot of a bots file")
    add_sandbox_argument(add)

    update = actions.add_parser(
        "update",
        help="enter a new version of a bot (its program's digest decides)",
        description="Enter a new version of bot NAME: COMMAND, or its current command read again "
        "(a file it names changed). If the program is the same (the same digest), nothing "
        "changes. The older version stops being scheduled unless --keep; it stays in the history.",
    )
    _db(update)
    update.add_argument("name", help="the bot's name")
    update.add_argument(
        "program", nargs="?", metavar="COMMAND", help="its new command line (default: the same)"
    )
    update.add_argument(
        "--keep",
        action="store_true",
        help="keep scheduling the older version too (then league compare NEW OLD tests whether "
        "the new one is better)",
    )
    add_sandbox_argument(update)

    retire = actions.add_parser(
        "retire",
        help="stop scheduling a bot (or one version of it); its games stay",
        description="Stop scheduling bot NAME (every version of it) or one version NAME@N.",
    )
    _db(retire)
    retire.add_argument("name", help="a bot's name, or a version NAME@N")

    run = actions.add_parser(
        "run",
        help="play the league until every bot is settled, --pairings, or Ctrl-C",
        description="Play batches of pairings until every active bot is settled (its 95% "
        "interval within the league's target), --pairings more pairings, or Ctrl-C; resume "
        "by running it again.",
    )
    _db(run)
    add_concurrency_arguments(run)
    run.add_argument(
        "--pairings",
        type=int,
        metavar="N",
        help="stop once N more pairings (2 games each) have been played; pairings come in "
        "whole batches (the league's --batch)",
    )
    run.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the games on a Ray cluster: HOST:PORT, auto or local; this process keeps "
        "the database (needs pip install 'gin-rummy-arena[ray]'; docs/DISTRIBUTED.md)",
    )
    add_sandbox_argument(run)
    add_logs_argument(run)

    _compare_parser(actions)

    table = actions.add_parser(
        "standings",
        help="the league's standings: Elo, 95%% interval, games",
        description="Print the standings: each active bot's current version (every version "
        "with --all) with its Elo relative to the mean, 95% interval, games, wins, losses, "
        "draws, forfeits by reason, the change from the version before and its status "
        "(playing, settled, broken, replaced, retired); docs/LEAGUE.md lists the JSON fields.",
    )
    _db(table)
    table.add_argument("--all", action="store_true", help="every version, retired ones too")
    table.add_argument(
        "--format", choices=("table", "json", "csv"), default="table", help="default table"
    )


COMPARE_HELP = "is the new version better? an SPRT between two versions, as gin-arena sprt tests"
COMPARE_DESCRIPTION = f"""\
Test whether version NEW of a bot is better than version OLD (both active: typically mine@2 and
mine@1 after `league update mine COMMAND --keep`), as `gin-arena sprt` does: a sequential
probability ratio test of H0 (NEW is at most --elo0 better) against H1 (at least --elo1 better)
over the pentanomial of mirrored pairings, accepting H1 wrongly with probability --alpha and H0
with --beta. While it runs, `league run` reserves {100 * compare.SHARE:g}% of each batch (rounded
up) for NEW v OLD pairings; those games count in the ratings too. It closes at a verdict, or
undecided after --max-pairings. Without NEW and OLD: list the compares and where each stands.
"""


def _compare_parser(actions: Any) -> None:
    parser = actions.add_parser("compare", help=COMPARE_HELP, description=COMPARE_DESCRIPTION)
    _db(parser)
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


def _compare(args: argparse.Namespace) -> int:
    if args.new is None:
        store = leagues.open_league(args.db, readonly=True)
        try:
            found = compare.listed(leagues.view(store))
        finally:
            store.close()
        db = printable(shlex.quote(str(args.db)))
        print("\n".join(found) or f"no compares yet: gin-arena league compare --db {db} NEW OLD")
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
    batch, db = state.settings.batch, printable(shlex.quote(str(args.db)))
    reserved = compare.per_batch(batch)
    pairings = "1 pairing" if reserved == 1 else f"{reserved} pairings"
    print(
        f"compare #{opened.number} opened: is {printable(opened.new)} better than "
        f"{printable(opened.old)}? {compare.hypotheses(opened)}\n"
        f"gin-arena league run --db {db} plays it: {pairings} of each batch of {batch} "
        f"{'is' if reserved == 1 else 'are'} {printable(opened.new)} v {printable(opened.old)} "
        "until a verdict"
    )
    return 0


def _db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, required=True, help="the league's database")


def run(args: argparse.Namespace) -> int:
    action: str = args.action
    if action == "create":
        return _create(args)
    if action == "compare":
        return _compare(args)
    if action == "standings":
        store = leagues.open_league(args.db, readonly=True)
        try:
            _print_standings(leagues.view(store), args)
        finally:
            store.close()
        return 0
    store = leagues.open_league(args.db, lock=action == "run")  # one run at a time
    try:
        if action == "add":
            return _add(args, store)
        if action == "update":
            return _update(args, store)
        if action == "retire":
            for version in leagues.retire(store, args.name):
                print(f"retired {printable(version)}")
            return 0
        return _run(args, store)
    finally:
        store.close()


def _create(args: argparse.Namespace) -> int:
    settings = leagues.Settings(
        seed=seed_from(args.seed),
        rules=rules_from(args.rules, args.options),
        clock=clock_from(args),
        target=args.target,
        share=args.share,
        batch=args.batch,
        in_process=not args.subprocess,
        **limits_given(args),
    )
    if args.db.exists():
        raise leagues.LeagueDatabaseError(
            f"{str(args.db)!r} already exists: add bots to it, or choose another --db"
        )
    store = leagues.create(args.db, settings)
    store.close()
    db = shlex.quote(str(args.db))
    print(
        f"league {printable(str(args.db))} created (seed {settings.seed}); add bots with:\n"
        f"  gin-arena league add --db {printable(db)} NAME COMMAND"
    )
    return 0


def _venue(args: argparse.Namespace, store: Store, specs: list[BotSpec]) -> Venue:
    settings = leagues.load(store).settings
    sandbox = sandbox_from(args.sandbox, specs, settings.in_process)
    logs = logs_from(getattr(args, "logs", None))
    return event.venue_of(args.db, sandbox, logs)


def _add(args: argparse.Namespace, store: Store) -> int:
    specs = list(bots_file_from(args.bots).values())
    if args.name is not None:
        if args.program is None:
            raise ValueError(f"add {args.name}: give its COMMAND too (a command line or built-in)")
        specs.append(resolve(args.program, name=args.name))
    if not specs:
        raise ValueError("add needs NAME COMMAND, or --bots FILE")
    venue = _venue(args, store, specs)
    for spec in specs:
        try:
            version = leagues.add(store, spec, venue)
        except MatchError as error:
            print(f"gin-arena league: {printable(str(error), lines=True)}", file=sys.stderr)
            return 1
        print(f"added {printable(version)}")
    return 0


def _update(args: argparse.Namespace, store: Store) -> int:
    spec = None if args.program is None else resolve(args.program, name=args.name)
    state = leagues.load(store)
    current = state.current(args.name)
    specs = [spec] if spec is not None else [state.specs[current]] if current else []
    try:
        version = leagues.update(store, args.name, spec, _venue(args, store, specs), keep=args.keep)
    except MatchError as error:
        print(f"gin-arena league: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    if version is None:
        print(f"{printable(str(current))} is unchanged (the same program): no new version")
    else:
        kept = " (the older version is still scheduled)" if args.keep else ""
        print(f"added {printable(version)}{kept}")
        if args.keep and current is not None:
            db = shlex.quote(str(args.db))
            print(
                f"is it better? gin-arena league compare --db {printable(db)} "
                f"{printable(version)} {printable(current)}"
            )
    return 0


def _run(args: argparse.Namespace, store: Store) -> int:
    if args.ray is None:
        check_concurrency(args.concurrency, args.oversubscribe)
    if args.pairings is not None and args.pairings < 1:
        raise ValueError(f"--pairings must be at least 1, not {args.pairings}")
    state = leagues.view(store)
    venue = _venue(args, store, list(state.specs.values()))
    played: list[GameRow] = []
    closed = {o.compare.number for o in compare.outcomes(state) if o.state != "running"}
    resume = f"gin-arena league run --db {shlex.quote(str(args.db))}"

    def on_game(row: GameRow) -> None:
        played.append(row)

    def on_broken(broken: leagues.Broken) -> None:
        bot = shlex.quote(broken.version.rpartition("@")[0])
        print(printable(broken.sentence(bot)), flush=True)

    def on_batch(state: leagues.State) -> None:
        unsettled = len(state.league.unsettled()) if len(state.league.active) > 1 else 0
        print(
            f"games {len(played)}: {len(state.league.active)} active bots, {unsettled} not "
            "settled yet",
            file=sys.stderr,
            flush=True,
        )
        for line in compare.closed_since(state, closed):
            print(line, file=sys.stderr, flush=True)

    ray = None
    if args.ray is not None:
        try:
            ray = cluster.connect(args.ray)
            if len(state.active_versions()) > 1:
                cluster.probe(ray, leagues.probe_config(state), venue)
        except cluster.ClusterError as error:
            print(f"gin-arena league: {printable(str(error), lines=True)}", file=sys.stderr)
            if ray is not None:
                cluster.disconnect()
            return 1
    try:
        progress = leagues.run(
            store,
            args.concurrency,
            venue,
            pairings=args.pairings,
            on_game=on_game,
            on_batch=on_batch,
            on_broken=on_broken,
            workdir=None if venue.logs is None else Path(venue.logs),
            ray=ray,
        )
    except KeyboardInterrupt:
        print(
            f"\ninterrupted after {len(played)} games (all saved); go on with:\n  "
            f"{printable(resume)}",
            file=sys.stderr,
        )
        return 130
    except MatchError as error:
        print(f"gin-arena league: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    finally:
        if ray is not None:
            cluster.disconnect()
    print(f"{progress.games} games played; stopped: {progress.stopped}")
    _print_standings(leagues.view(store), argparse.Namespace(all=False, format="table"))
    return 0


def _print_standings(state: leagues.State, args: argparse.Namespace) -> None:
    if len(state.league.versions) == 0:
        print("the league has no bots yet")
        return
    rows = standings_json(state, all_versions=args.all)
    if args.format == "json":
        print(json.dumps(standings_document(state, rows), indent=2))
        return
    if args.format == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(csv_rows(rows))
        sys.stdout.write(out.getvalue())
        return
    sys.stdout.write(render_table(rows, state))
    found = compare.listed(state, tested=False)
    if found:
        print("\ncompares (gin-arena league compare --db DB shows what each tests):")
        print("\n".join(f"  {line}" for line in found))
