"""A match: games (or single hands) between bots in one format, optionally mirrored, with
forfeits, restarts and a record.

Game seeds come from a SplitMix64 stream seeded with the match seed: deal ``k`` uses its ``k``-th
output. With ``mirror`` every deal is played once for each of the format's :func:`rotations`
(two players: twice, the bots swapping seats; three players: three times, every bot in every
seat; partnership: twice, the teams swapping seats), so the luck of the cards cancels out.

**Mirrored deals.** The ``k``-th seating of every deal is its *leg* ``k`` (:attr:`Planned.leg`).
A bot that remembered the cards it was dealt would know its opponent's hand when the deal comes
back with the seats swapped; so a bot process plays one leg only: :meth:`Match.play` closes
every bot when the leg changes from one game to the next, and starts fresh processes for the new
leg once the old ones have ended. A mirrored match plays the first leg of all its deals, then the
second (:meth:`Match.plan`), so that this costs one start of each bot a leg, not a deal. What
this promises, with the plans of the tournaments and of ``gin-arena ab`` (each holds whole deals,
leg after leg): every seating of a deal is played by processes that played no other seating of
it and started after every process that did had ended. In the sandbox a process also starts with
an empty working directory and ``/tmp`` of its own, so a bot learns nothing from a mirrored deal
that it could not learn from a fresh one; without it, a bot can leave files where its user may
write and read them back in the next leg (docs/PROTOCOL.md, "Mirrored deals").
"""

from __future__ import annotations

import contextlib
import datetime
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.errors import ArenaError
from arena.play.referee import Clock, GameOutcome, Referee
from arena.records.record import BotTag, Writer
from arena.seats.botspec import BotSpec, Launch
from arena.seats.connection import (
    BotError,
    BotStartupError,
    Connection,
    close_together,
    start_together,
)
from arena.seats.walls.sandbox import Sandbox
from engine.deck import SplitMix64
from engine.formats import TWO_PLAYER, Format, format_named
from engine.modes import Mode
from engine.rules import Rules
from protocol import messages as m


class MatchError(ArenaError, RuntimeError):
    """The match cannot go on: a bot that cannot start at all (``bot`` is its index)."""

    def __init__(self, message: str, bot: int) -> None:
        super().__init__(message)
        self.bot = bot

    def __reduce__(self) -> tuple[type[MatchError], tuple[str, int]]:
        # Raised in a worker process (gin-arena ab), it crosses back to the parent pickled.
        return type(self), (str(self), self.bot)


def rotations(mode: Mode | Format) -> tuple[tuple[int, ...], ...]:
    """The seatings a mirrored deal is played in: ``seats[p]`` is the bot at player ``p``
    (:attr:`engine.formats.Format.rotations`)."""
    return format_named(mode).rotations


def side_of(mode: Mode | Format, player: int) -> int:
    """The side a player's result is counted on (:meth:`engine.formats.Format.side_of`)."""
    return format_named(mode).side_of(player)


@dataclass(frozen=True, slots=True)
class Planned:
    """A game to play: its number, its deal seed, which bot sits at each seat (two players)
    or player of the format, and its leg: which seating of its deal it is (the index of
    ``seats`` in :func:`rotations`, 0 for a deal played once)."""

    number: int
    seed: int
    seats: tuple[int, ...]
    leg: int = 0


def by_leg(games: Iterable[Planned], first: int = 0) -> list[Planned]:
    """``games`` leg after leg, from leg ``first`` on and round (three legs from 1: 1, 2, 0),
    each leg's games in their order: how a plan of whole mirrored deals is played, one set of
    bot processes a leg (see the module's documentation)."""
    return sorted(games, key=lambda g: (g.leg < first, g.leg))


@dataclass(frozen=True, slots=True)
class GameReport:
    """One game of a match, by bot (index into the match's bots) rather than by seat."""

    number: int
    seed: int
    seats: tuple[int, ...]
    outcome: GameOutcome

    @property
    def mode(self) -> Format:
        return self.outcome.mode

    @property
    def winners(self) -> tuple[int, ...]:
        """The bots on the winning side (none when drawn; two in partnership)."""
        w = self.outcome.winner
        if w is None:
            return ()
        return tuple(bot for p, bot in enumerate(self.seats) if side_of(self.mode, p) == w)

    @property
    def winner(self) -> int | None:
        """The winning bot (partnership: the first of the winning team's two)."""
        return self.winners[0] if self.winners else None

    @property
    def failed(self) -> int | None:
        f = self.outcome.failure
        return None if f is None else self.seats[f.seat]

    def points(self, bot: int) -> int:
        """The final score of ``bot``'s side (its team's in partnership)."""
        return self.outcome.scores[side_of(self.mode, self.seats.index(bot))]


@dataclass
class MatchResult:
    """The tallies of a match and, when ``keep`` is set, the report of every game (``games``,
    by number once the match is over; in the order of play while it goes on); without it a match
    of any length holds the same memory."""

    names: tuple[str, ...]
    seed: int
    rules: Rules
    games: list[GameReport] = field(default_factory=list)
    versions: list[str] = field(default_factory=lambda: ["", ""])
    mode: Format = TWO_PLAYER
    keep: bool = True
    played: int = 0
    _wins: list[int] = field(default_factory=list)
    _losses: list[int] = field(default_factory=list)
    _draws: int = 0
    _failures: list[dict[str, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mode = format_named(self.mode)

    def add(self, report: GameReport) -> None:
        """Count a finished game (and keep its report, with ``keep``)."""
        if not self._wins:
            self._wins = [0] * len(self.names)
            self._losses = [0] * len(self.names)
            self._failures = [{} for _ in self.names]
        self.played += 1
        winners = report.winners
        if not winners:
            self._draws += 1
        for bot in report.seats:
            if winners and bot in winners:
                self._wins[bot] += 1
            elif winners:
                self._losses[bot] += 1
        failure, failed = report.outcome.failure, report.failed
        if failure is not None and failed is not None:
            tally = self._failures[failed]
            tally[failure.reason] = tally.get(failure.reason, 0) + 1
        if self.keep:
            self.games.append(report)

    def wins(self, bot: int) -> int:
        return self._wins[bot] if self._wins else 0

    def losses(self, bot: int) -> int:
        return self._losses[bot] if self._losses else 0

    def draws(self) -> int:
        return self._draws

    def failures(self, bot: int) -> dict[str, int]:
        return dict(self._failures[bot]) if self._failures else {}

    def to_json(self) -> dict[str, Any]:
        games = []
        bots = range(len(self.names))
        for g in self.games:
            item: dict[str, Any] = {
                "game": g.number,
                "seed": g.seed,
                "seats": [self.names[b] for b in g.seats],
                "winner": None if g.winner is None else self.names[g.winner],
                "scores": {self.names[b]: g.points(b) for b in bots},
                "hands": g.outcome.hands,
                "reason": g.outcome.reason,
            }
            if self.mode.teams:
                item["winners"] = [self.names[b] for b in g.winners]
            if g.outcome.failure is not None and g.failed is not None:
                item["failed"] = self.names[g.failed]
                item["message"] = g.outcome.failure.message
                if g.outcome.failure.rule:
                    item["rule"] = g.outcome.failure.rule
            games.append(item)
        return {
            "bots": list(self.names),
            "versions": self.versions,
            "mode": self.mode.value,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "games": games,
            "summary": {
                self.names[b]: {
                    "wins": self.wins(b),
                    "losses": self.losses(b),
                    "draws": self.draws(),
                    "failures": self.failures(b),
                }
                for b in bots
            },
        }


def log_tail(path: str | None, kept: bool, lines: int = 5) -> str:
    """The end of a bot's stderr log, for an error message. The log's path is named only when
    the log is ``kept`` (``--logs``): a scratch directory is gone by the time the message is read.
    """
    if not path:
        return ""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    where = f" ({path})" if kept else ""
    if not text:
        return f" (its stderr{where} is empty)"
    tail = "\n    ".join(text.splitlines()[-lines:])
    return f"; the end of its stderr{where}:\n    {tail}"


def game_seeds(seed: int) -> Iterator[int]:
    rng = SplitMix64(seed)
    while True:
        yield rng.next()


@dataclass
class Match:
    """The bots (as many as the format seats), the rules, the clock and how many games."""

    bots: tuple[BotSpec, ...]
    rules: Rules
    clock: Clock = field(default_factory=Clock)
    games: int = 2
    single_hands: bool = False
    seed: int = 0
    mirror: bool = False
    in_process: bool = True
    memory_mb: int | None = None
    cpu_seconds: int | None = None
    pids: int | None = None
    sandbox: Sandbox | None = None
    hidden: tuple[Path, ...] = ()
    """Paths no sandboxed bot may see (the record, a database)."""
    workdir: Path | None = None
    """Where the bots' working directories and logs go (kept); default a scratch directory."""
    record_tags: dict[str, Any] | None = None
    """Written in each record's game line under ``match`` (default: the match seed and mode)."""
    mode: Format = TWO_PLAYER
    """The format (a :class:`~engine.modes.Mode` or a format's name is taken too)."""
    restart_each_game: bool = False
    """Close every bot after each game, so that each game is played by fresh processes (by
    default a bot plays every game of the match in one process, and starts afresh only after it
    failed)."""

    def __post_init__(self) -> None:
        self.mode = format_named(self.mode)
        if len(self.bots) != self.mode.players:
            raise MatchError(f"{self.mode} takes {self.mode.players} bots, got {len(self.bots)}", 0)

    def launch(self) -> Launch:
        return Launch(
            in_process=self.in_process,
            memory_mb=self.memory_mb,
            cpu_seconds=self.cpu_seconds,
            pids=self.pids,
            sandbox=self.sandbox,
            hidden=self.hidden,
            quit_wait=self.clock.quit,
        )

    def names(self) -> tuple[str, ...]:
        """The bots' names, numbered ``name#k`` where a name is given more than once."""
        given = [b.name for b in self.bots]
        return tuple(
            f"{name}#{given[: k + 1].count(name)}" if given.count(name) > 1 else name
            for k, name in enumerate(given)
        )

    def plan(self) -> list[Planned]:
        """The games of the match, in the order they are played: deal seeds from the match
        seed; with ``mirror``, each deal is played in every seating of :func:`rotations`, its
        games numbered one after another (deal 1 is games 1 and 2), and the first leg of every
        deal is played first, then the second... (:func:`by_leg`)."""
        seeds = game_seeds(self.seed)
        turns = rotations(self.mode) if self.mirror else (tuple(range(self.mode.players)),)
        games = []
        deal_seed = 0
        for number in range(1, self.games + 1):
            turn = (number - 1) % len(turns)
            if turn == 0:
                deal_seed = next(seeds)
            games.append(Planned(number, deal_seed, turns[turn], turn))
        return by_leg(games)

    def lineup(self, workdir: Path) -> Lineup:
        """This match's bots, not yet started, with their logs and scratch space under
        ``workdir``: what :meth:`play` plays with, and what a tournament's worker keeps from one
        task to the next (:meth:`Lineup.fits`)."""
        referee = Referee(self.rules, self.clock)
        names = self.names()
        if self.mode.relative_seats:  # seat 0 in every hand; no single opponent
            hellos = [referee.hello(0, None, self.mode) for _ in names]
        else:
            hellos = [referee.hello(bot, names[1 - bot], self.mode) for bot in range(len(names))]
        return Lineup(self, workdir, tuple(hellos))

    def play(
        self,
        record: IO[str] | None = None,
        on_game: Callable[[GameReport, MatchResult], None] | None = None,
        plan: Sequence[Planned] | None = None,
        keep: bool = True,
        lineup: Lineup | None = None,
    ) -> MatchResult:
        """Play the whole match (or the games of ``plan``). Raises :class:`MatchError` if a bot
        cannot start. Without ``keep`` the result holds tallies only, not every game's report
        (``on_game`` still sees each one).

        The games are played in the order of ``plan``, and every bot is closed, to start
        afresh, where the leg changes from one game to the next (:attr:`Lineup.leg`): a plan of
        mirrored deals (:meth:`plan`) holds each leg's games together.

        With ``lineup`` (from :meth:`lineup`, of a match that :meth:`Lineup.fits` this one) the
        games are played by its bots, started if they are not (and started afresh if they played
        another leg than the first game's), and the lineup is left open for the caller to play
        more games of the same leg with, or close; a bot that failed in the last game is already
        closed, to be started afresh with the next game. Without it the bots are started here
        and closed at the end."""
        names = self.names()
        result = MatchResult(names, self.seed, self.rules, mode=self.mode, keep=keep)
        with contextlib.ExitStack() as stack:
            if lineup is None:
                workdir = self.workdir
                if workdir is None:
                    workdir = Path(
                        stack.enter_context(tempfile.TemporaryDirectory(prefix="gin-arena-"))
                    )
                lineup = self.lineup(workdir)
                stack.callback(lineup.close)
            elif not lineup.fits(self, lineup.workdir):
                raise ValueError("the lineup given to Match.play is of another match")
            referee = Referee(self.rules, self.clock)
            games = self.plan() if plan is None else plan
            if games and lineup.leg not in (None, games[0].leg):
                lineup.close()  # bots of another leg: a process plays one leg only
            lineup.start_all()
            result.versions = list(lineup.versions)
            writer = None if record is None else self._writer(record)
            referee.recorder = writer
            after: int | None = None  # the game after which bots were closed, for the message
            last: int | None = None  # the game played last
            for planned in games:
                number, deal_seed, seats = planned.number, planned.seed, planned.seats
                if lineup.leg not in (None, planned.leg):
                    lineup.close()  # a new seating of the deals: by processes that never saw one
                    after = last
                try:
                    lineup.start_all()
                except MatchError as error:
                    if after is None:
                        raise
                    message = f"{error} (restarting after game {after})"
                    raise MatchError(message, error.bot) from None
                lineup.leg = planned.leg
                if writer is not None:
                    writer.bots = self._bot_tags(lineup, seats)
                outcome = referee.play_game(
                    lineup.connections(seats),
                    deal_seed,
                    number=number,
                    single_hand=self.single_hands,
                    mode=self.mode,
                    names=[names[b] for b in seats],
                )
                last = number
                report = GameReport(number, deal_seed, seats, outcome)
                result.add(report)
                if on_game:
                    on_game(report, result)
                if outcome.failure is not None:  # the bot that failed starts afresh
                    lineup.close(seats[outcome.failure.seat])
                elif outcome.error is not None or self.restart_each_game:
                    lineup.close()  # the referee failed (all may be confused), or fresh bots
                else:
                    continue
                after = number
        result.games.sort(key=lambda g: g.number)  # played leg after leg; reported by number
        return result

    def _writer(self, record: IO[str]) -> Writer:
        """The record's writer, its ``match`` tags the match's own (seed, mirror, format)."""
        return Writer(
            record,
            date=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            match=self.record_tags
            if self.record_tags is not None
            else {
                "seed": self.seed,
                "mirror": self.mirror,
                "single_hands": self.single_hands,
                **({} if self.mode is TWO_PLAYER else {"mode": self.mode.name}),
            },
        )

    def _bot_tags(self, lineup: Lineup, seats: Sequence[int]) -> list[BotTag]:
        """The bots of a game as its record names them, by player."""
        names = self.names()
        return [
            BotTag(
                name=names[b],
                command=self.bots[b].command_line,
                version=lineup.versions[b],
                author=lineup.authors[b],
            )
            for b in seats
        ]


class Lineup:
    """The bots of one match, each started when first needed and restarted after a failure: one
    connection per bot, with what its ``ready`` said."""

    def __init__(self, match: Match, workdir: Path, hellos: tuple[m.Hello, ...]) -> None:
        self.match = match
        self.workdir = workdir
        self.names = match.names()
        self._hellos = hellos
        self._launch = match.launch()
        self._connections: list[Connection | None] = [None] * len(self.names)
        self.versions = [""] * len(self.names)
        self.authors = [""] * len(self.names)
        self.starts = 0
        """How many times a bot was started (a restart counts)."""
        self.leg: int | None = None
        """The leg (:attr:`Planned.leg`) the running bots have played, None once all are
        closed: :meth:`Match.play` closes them before a game of another leg."""

    def fits(self, match: Match, workdir: Path) -> bool:
        """Whether ``match`` (its games still to play) can be played by these bots: the same
        bots, names, rules, clock, format and limits, logs in the same place."""
        mine = self.match
        return (
            workdir == self.workdir
            and match.bots == mine.bots
            and match.names() == self.names
            and match.rules == mine.rules
            and match.clock == mine.clock
            and match.mode is mine.mode
            and match.launch() == self._launch
            and match.restart_each_game == mine.restart_each_game
        )

    def start_all(self) -> None:
        """Start every bot that is not running, side by side (:func:`start_together`), or
        raise :class:`MatchError` for the first that cannot start (the others closed)."""
        missing = [bot for bot, conn in enumerate(self._connections) if conn is None]
        conns = [
            self.match.bots[b].connect(self.workdir, self._launch, self.names[b]) for b in missing
        ]
        self.starts += len(conns)
        answers = start_together(
            conns, [self._hellos[b] for b in missing], self.match.clock.startup
        )
        failed = next(((b, c, a) for b, c, a in zip(missing, conns, answers, strict=True)
                       if isinstance(a, BotError)), None)  # fmt: skip
        if failed is not None:
            close_together(conns)
            bot, conn, error = failed
            assert isinstance(error, BotError)
            log = log_tail(conn.log_path, kept=self.match.workdir is not None)
            raise MatchError(
                f"bot {self.names[bot]!r} could not start: {error.detail}{log}", bot
            ) from None
        for bot, conn, ready in zip(missing, conns, answers, strict=True):
            assert isinstance(ready, m.Ready)
            self._connections[bot] = conn
            self.versions[bot] = ready.bot_version
            self.authors[bot] = ready.author

    def connections(self, seats: Sequence[int]) -> list[Connection]:
        """The started bots in the order of ``seats``."""
        out = []
        for bot in seats:
            conn = self._connections[bot]
            if conn is None:
                raise RuntimeError(f"bot {self.names[bot]!r} is not started")
            out.append(conn)
        return out

    def close(self, bot: int | None = None) -> None:
        """Close one bot (it starts afresh when next needed), or all of them, side by side."""
        closing = []
        for index, conn in enumerate(self._connections):
            if conn is not None and bot in (None, index):
                self._connections[index] = None
                closing.append(conn)
        close_together(closing)
        if all(conn is None for conn in self._connections):
            self.leg = None


__all__ = [
    "BotStartupError",
    "GameReport",
    "Lineup",
    "Match",
    "MatchError",
    "MatchResult",
    "Planned",
    "by_leg",
    "rotations",
    "side_of",
]
