"""``gin-arena sprt``: is NEW stronger than BASE? A sequential probability ratio test over mirrored
deal pairs that stops as soon as the evidence is enough (:mod:`arena.stats.sprt`)."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import sys
from pathlib import Path
from typing import Any, Final

from arena.cli.options import (
    add_bots_file_argument,
    add_clock_arguments,
    add_concurrency_arguments,
    add_logs_argument,
    add_process_arguments,
    add_rules_arguments,
    add_seed_argument,
    add_subprocess_argument,
    bots_file_from,
    check_concurrency,
    clock_given,
    limits_given,
    logs_from,
    positive_int,
    rules_given,
    sandbox_from,
    seed_given,
)
from arena.play.match import MatchError
from arena.seats.botspec import BotSpec, resolve
from arena.stats.sprt import (
    Pentanomial,
    Verdict,
    bounds,
    decide,
    elo_estimate,
    elo_words,
    los,
    pair_index,
)
from arena.terminal import printable
from arena.tournament import event
from arena.tournament.config import schedule
from arena.tournament.store import GameRow, Store, StoreError

HELP = "is one bot stronger than another? an SPRT over mirrored deal pairs"
DESCRIPTION = """\
Play NEW against BASE in mirrored deal pairs (each deal twice, seats swapped) and after every
pair update the log-likelihood ratio of the pentanomial model (the pair scores 0, 1/2, 1, 3/2, 2
for NEW), as chess engine testing does (fishtest, fastchess, cutechess). Stop as soon as it
crosses a bound: H1 (NEW is at least --elo1 stronger) or H0 (at most --elo0), or at
--max-games. Every game is committed to --db as it ends; --resume continues a stopped test.

examples:
  gin-arena sprt "python3 mybot.py" greedy
  gin-arena sprt strong greedy --elo0 0 --elo1 20 --alpha 0.05 --beta 0.05
  gin-arena sprt --db sprt.sqlite --resume
"""

META: Final = "sprt"
"""The database's meta key holding the test's parameters."""
DECIDED: Final = "sprt_decided"
"""The meta key holding the pentanomial the verdict was reached on: the games still in flight at
the decision may be stored too, and a resumed test reports the verdict as it was reached."""
PROGRESS_PAIRS: Final = 10


class Decided(BaseException):
    """The test has crossed a bound: raised from the per-game callback to stop the games in
    flight. A BaseException, so that no ``except Exception`` on the way (a task's own guard
    against referee bugs) can take it for a failure."""


class _Tally:
    """The pairs completed so far: a game counts once its deal's other game is in."""

    def __init__(self, pair_of: dict[int, int], new: str) -> None:
        self.pair_of = pair_of
        self.new = new
        self.scores: dict[int, list[float]] = {}
        self.p = Pentanomial()

    def add(self, row: GameRow) -> bool:
        """Count a game; True when it completes its pair."""
        score = 1.0 if row.winner == self.new else 0.5 if row.winner is None else 0.0
        pair = self.scores.setdefault(self.pair_of[row.id], [])
        pair.append(score)
        if len(pair) < 2:
            return False
        self.p = self.p.add(pair_index(pair[0], pair[1]))
        return True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("new", nargs="?", help="the bot under test (a name or a command)")
    parser.add_argument("base", nargs="?", help="the bot it is measured against")
    parser.add_argument("--elo0", type=float, help="H0: NEW is at most this much stronger (0)")
    parser.add_argument("--elo1", type=float, help="H1: NEW is at least this much stronger (10)")
    parser.add_argument("--alpha", type=float, help="the chance of accepting H1 wrongly (0.05)")
    parser.add_argument("--beta", type=float, help="the chance of accepting H0 wrongly (0.05)")
    parser.add_argument(
        "--max-games",
        type=positive_int,
        help="stop without a verdict after this many games (default 20000; even)",
    )
    add_bots_file_argument(parser)
    add_concurrency_arguments(parser)
    add_seed_argument(parser)
    add_rules_arguments(parser)
    add_clock_arguments(parser)
    parser.add_argument("--db", type=Path, help="the database (default: sprt-DATE.sqlite)")
    parser.add_argument("--resume", action="store_true", help="continue the test in --db")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    add_subprocess_argument(parser)
    add_process_arguments(parser)
    add_logs_argument(parser)


def _parameters(args: argparse.Namespace, stored: dict[str, Any] | None) -> dict[str, Any]:
    defaults = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "max_games": 20000}
    given = {k: getattr(args, k) for k in defaults if getattr(args, k) is not None}
    if stored is not None:
        changed = sorted(k for k, v in given.items() if v != stored.get(k))
        if changed:
            raise ValueError(
                "--resume continues the test as it was started: "
                + ", ".join("--" + c.replace("_", "-") for c in changed)
                + " differ from the stored parameters; leave them out"
            )
        return stored
    params = {**defaults, **given}
    if params["elo1"] <= params["elo0"]:
        raise ValueError(f"--elo1 ({params['elo1']:g}) must be above --elo0 ({params['elo0']:g})")
    if params["max_games"] % 2:
        raise ValueError(f"--max-games {params['max_games']} is odd: games come in pairs")
    for key in ("alpha", "beta"):
        if not 0 < params[key] < 0.5:
            raise ValueError(f"--{key} {params[key]:g} must be between 0 and 0.5")
    return params


def run(args: argparse.Namespace) -> int:
    check_concurrency(args.concurrency, args.oversubscribe)
    params: dict[str, Any] = {}
    if args.resume:

        def check(store: Store) -> None:
            stored = store.meta(META)
            if stored is None:
                raise StoreError(f"{str(args.db)!r} is a tournament, not an SPRT")
            params.update(_parameters(args, json.loads(stored)))

        opening = event.resume(args.db, event.SPRT, {}, check=check)
    else:
        if args.new is None or args.base is None:
            raise ValueError("name the two bots: gin-arena sprt NEW BASE")
        params.update(_parameters(args, None))
        default = datetime.datetime.now().strftime("sprt-%Y%m%d-%H%M%S.sqlite")
        opening = event.new(args.db, event.SPRT, _bots(args), _given(args, params), default)
    try:
        config = opening.config
        sandbox = sandbox_from(args.sandbox, config.bots, config.in_process)
        venue = event.venue_of(opening.db, sandbox, logs_from(args.logs))
        try:
            ready = opening.open(venue, meta={META: json.dumps(params, sort_keys=True)})
        except MatchError as error:
            why = printable(str(error), lines=True)  # may end with the bot's stderr
            print(f"gin-arena sprt: {why}; no game was played", file=sys.stderr)
            opening.close()
            return 1
        try:
            return _test(args, ready, params)
        finally:
            ready.close()
    except BaseException:
        opening.close()
        raise


def _bots(args: argparse.Namespace) -> tuple[BotSpec, BotSpec]:
    """NEW and BASE, each with a name of its own (greedy v greedy: greedy#new, greedy#base)."""
    known = bots_file_from(args.bots)
    new, base = resolve(args.new, known), resolve(args.base, known)
    if new.name == base.name:
        new = resolve(args.new, known, name=f"{new.name}#new")
        base = resolve(args.base, known, name=f"{base.name}#base")
    return new, base


def _given(args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """A new test's configuration options: every game a mirrored pair, up to --max-games."""
    given: dict[str, Any] = {
        "games_per_pair": params["max_games"],
        "mirror": True,
        "in_process": not args.subprocess,
    }
    if seed_given(args.seed) is not None:
        given["seed"] = args.seed
    rules = rules_given(args.rules, args.options)
    if rules is not None:
        given["rules"] = rules
    clock = clock_given(args)
    if clock:
        given["clock"] = clock
    given.update(limits_given(args))
    return given


def _test(args: argparse.Namespace, ready: event.Event, params: dict[str, Any]) -> int:
    config, store, db = ready.config, ready.store, ready.db
    new, base = (spec.name for spec in config.bots)
    pair_of: dict[int, int] = {}  # game number -> the deal's first game number
    for task in schedule(config):
        firsts: dict[int, int] = {}
        for game in task.games:
            pair_of[game.number] = firsts.setdefault(game.seed, game.number)
    tally = _Tally(pair_of, new)
    elo0, elo1, alpha, beta = params["elo0"], params["elo1"], params["alpha"], params["beta"]
    quiet = args.json

    def line() -> str:
        _, value, (low, high) = decide(tally.p, elo0, elo1, alpha, beta)
        return (
            f"pairs {tally.p.pairs} ({tally.p.games} games)  LLR {value:+.2f} of "
            f"[{low:+.2f}, {high:+.2f}]  {elo_words(*elo_estimate(tally.p))}"
        )

    decided = store.meta(DECIDED)
    if decided is not None:  # the pairs the verdict was reached on (a game or two more may be in)
        counts = json.loads(decided)
        tally.p = Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))
    else:
        for row in store.games(records=False):
            tally.add(row)
    p0 = tally.p
    verdict = decide(p0, elo0, elo1, alpha, beta)[0] if p0.pairs else Verdict.CONTINUE
    shown_new, shown_base = printable(new), printable(base)
    if not quiet:
        print(
            f"SPRT {shown_new} v {shown_base}: H0 Elo <= {elo0:g}, H1 Elo >= {elo1:g}, "
            f"alpha {alpha:g}, beta {beta:g}, at most {params['max_games']} games; "
            f"database {printable(str(db))}"
            + (f"; resuming at {p0.games} games" if p0.games else ""),
            flush=True,
        )

    def on_game(row: GameRow) -> None:
        if not tally.add(row):
            return
        decision = decide(tally.p, elo0, elo1, alpha, beta)[0]
        if not quiet and (tally.p.pairs % PROGRESS_PAIRS == 0 or decision is not Verdict.CONTINUE):
            print(line(), file=sys.stderr, flush=True)
        if decision is not Verdict.CONTINUE:
            raise Decided

    if verdict is Verdict.CONTINUE:
        with contextlib.suppress(Decided):  # the test is decided: the games in flight stop
            ready.play(args.concurrency, on_game)
    p = tally.p
    if (
        decided is None
        and p.pairs
        and decide(p, elo0, elo1, alpha, beta)[0] is not Verdict.CONTINUE
    ):
        store.set_meta(DECIDED, json.dumps(list(p.counts)))
    _report(args, p, params, (new, base), db)
    return 0


def _report(
    args: argparse.Namespace,
    p: Pentanomial,
    params: dict[str, Any],
    bots: tuple[str, str],
    db: Path,
) -> None:
    """The test's result: one JSON object with --json, else the verdict in words."""
    new, base = bots
    elo0, elo1, alpha, beta = params["elo0"], params["elo1"], params["alpha"], params["beta"]
    shown_new, shown_base = printable(new), printable(base)
    verdict, value, (low, high) = (
        decide(p, elo0, elo1, alpha, beta)
        if p.pairs
        else (
            Verdict.CONTINUE,
            0.0,
            bounds(alpha, beta),
        )
    )
    elo, lo, hi = elo_estimate(p) if p.pairs else (0.0, -math.inf, math.inf)
    report = {
        "new": new,
        "base": base,
        "verdict": verdict.value,
        "games": p.games,
        "pairs": p.pairs,
        "pentanomial": list(p.counts),
        "llr": value,
        "bounds": [low, high],
        "elo": elo,
        "elo_interval": [lo, hi],
        "los": los(p) if p.pairs else 0.5,
        **params,
        "db": str(db),
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    what = {
        Verdict.H1: f"H1 accepted: {shown_new} is stronger than {shown_base} by at least "
        f"{elo1:g} Elo",
        Verdict.H0: f"H0 accepted: {shown_new} is not stronger than {shown_base} by more than "
        f"{elo0:g} Elo",
        Verdict.CONTINUE: f"no verdict after {p.games} games (--max-games {params['max_games']})",
    }[verdict]
    print(what)
    print(f"{p.games} games, {pair_words(p, shown_new)}")
    print(
        f"LLR {value:+.2f} of [{low:+.2f}, {high:+.2f}]; "
        + (f"{elo_words(elo, lo, hi)}; LOS {100 * report['los']:.1f}%" if p.pairs else "no Elo")
    )


_PAIR_WORDS: Final = ("lost-lost", "lost-drawn", "won-lost or drawn-drawn", "won-drawn", "won-won")
"""The pair outcomes by pair score (0, 1/2, 1, 3/2, 2: the pentanomial's order), from NEW's side."""


def pair_words(p: Pentanomial, new: str) -> str:
    """``50 pairs: 20 won-won, ...`` in words, best first, from NEW's side."""
    counts = ", ".join(
        f"{count} {words}"
        for count, words in reversed(list(zip(p.counts, _PAIR_WORDS, strict=True)))
    )
    return f"{p.pairs} pairs, {new}'s two games of each deal: {counts}"
