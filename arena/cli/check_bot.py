"""``gin-arena check-bot``: play a bot through scripted situations that cover every phase and
request type (first-upcard offer, draw, discard, a knock, a show-down with lay-offs, a drawn hand,
a game end, a second game) and check the handshake, reply ids, legality, stdout hygiene, response
times and a clean exit. One line per check; a non-zero exit on any failure.

A little over 600 lines on purpose: the scripted situations and the checks that read them are
one sequence, each phase a function of the session (:class:`_Session`), read top to bottom."""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.cli.layout import hanging, terminal_columns
from arena.cli.options import (
    add_bots_file_argument,
    add_clock_arguments,
    add_logs_argument,
    add_process_arguments,
    add_wire_argument,
    bots_file_from,
    clock_from,
    logs_from,
    positive_int,
    sandbox_from,
)
from arena.play.match import log_tail
from arena.play.referee import Clock, GameOutcome, Referee
from arena.seats import wire
from arena.seats.botspec import BotSpec, Launch, resolve
from arena.seats.connection import BotError, BotTimeout, Connection, InProcessConnection
from arena.seats.process import ProcessConnection
from arena.terminal import printable
from bots.greedy import GreedyBot
from engine.cards import parse_card, parse_cards
from engine.hand import Action
from engine.modes import Mode
from engine.rules import HOYLE, Rules
from protocol import messages as m
from protocol.codec import ProtocolError
from protocol.views import PLAIN

HELP = "check a bot against the protocol and the rules, situation by situation"
DESCRIPTION = """\
Play a bot through scripted situations covering every phase and request type, against the built-in
greedy bot, and check: the handshake, that every reply echoes its request's id and is legal, that
stdout carries only protocol messages, that unknown message types are ignored, response times, and
that the bot exits when told to quit. Prints one line per check; exits 1 if any check fails. A
request the bot does not answer in time is named (its phase, hand and id, as --log-wire shows it)
and fails the response-time check, which counts it.

examples:
  gin-arena check-bot "python3 mybot.py"
  gin-arena check-bot "node bots/examples/javascript/ginbot.js" --move-time 0.5
  gin-arena check-bot "python3 mybot.py" --log-wire -     # and show every line on the wire
"""


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class _Seen:
    """What the bot was asked and told, read off the wire (:func:`arena.seats.wire.tap`), and how
    long
    its moves took by the referee's clock (as the recorder of its games: the bot is seat 0)."""

    phases: set[str] = field(default_factory=set)
    knock_offered: bool = False
    events: set[str] = field(default_factory=set)
    lay_offs: int = 0
    drawn_hands: int = 0
    replies: int = 0
    slowest: float = 0.0
    total: float = 0.0
    requests: int = 0
    """Requests sent to the bot, in every game played."""
    timeouts: int = 0
    """Requests it did not answer in time (each ends its game)."""
    seated: tuple[int, int] = (0, 1)
    """The players in the seats of the hand being played."""

    def count(self, lines: Sequence[wire.WireLine], outcome: GameOutcome) -> None:
        """Note the requests of a game the bot played, and whether one of them timed out."""
        self.requests += sum(1 for r in _requests(lines))
        failure = outcome.failure
        if failure is not None and failure.seat == 0 and failure.reason == BotTimeout.reason:
            self.timeouts += 1

    def read(self, lines: Sequence[wire.WireLine]) -> None:
        """Note the messages the bot was sent."""
        for line in lines:
            if line.direction != wire.TO_BOT:
                continue
            try:
                message = line.message()
            except ProtocolError:  # the probe of an unknown message type
                continue
            self.events.add(message.type)
            if isinstance(message, m.Request):
                self.phases.add(message.phase)
                if any(isinstance(a, m.KnockAction) for a in message.legal):
                    self.knock_offered = True
            elif isinstance(message, m.ShowDown):
                self.lay_offs += len(message.lay_offs)
            elif isinstance(message, m.HandEnd) and message.end == "drawn":
                self.drawn_hands += 1

    # -- arena.play.referee.Recorder ---------------------------------------------------------------

    def game_start(self, tags: dict[str, object]) -> None:
        pass

    def hand_start(
        self,
        number: int,
        dealer: int,
        deck: Sequence[int],
        players: tuple[int, int] = (0, 1),
        table: int = 0,
    ) -> None:
        self.seated = players

    def action(self, player: int, action: Action, seconds: float) -> None:
        if self.seated[player] == 0:  # a hand's seat 0 is not always the bot's (three players)
            self.replies += 1
            self.slowest = max(self.slowest, seconds)
            self.total += seconds

    def hand_end(self, result: m.HandEnd, show_down: m.ShowDown | None) -> None:
        pass

    def game_end(self, outcome: GameOutcome) -> None:
        pass


def deck(dealer: int, bot: str, opponent: str, upcard: str, stock: str = "") -> list[int]:
    """A deck order dealing ``bot`` to seat 0 and ``opponent`` to seat 1 (engine.deck layout)."""
    hands = [[parse_card(c) for c in bot.split()], [parse_card(c) for c in opponent.split()]]
    non_dealer, dealer_cards = hands[1 - dealer], hands[dealer]
    order: list[int] = []
    for a, b in zip(non_dealer, dealer_cards, strict=True):
        order += [a, b]
    order.append(parse_card(upcard))
    order += [parse_card(c) for c in stock.split()]
    used = set(order)
    order += [c for c in range(52) if c not in used]
    return order


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    rules: Rules
    first_dealer: int
    decks: tuple[list[int], ...]
    goal: str


SCENARIOS = (
    Scenario(
        "first upcard and a knock",
        HOYLE.replace(game_target=1),
        1,
        (
            deck(
                1,
                "AC 2C 3C 4D 5D 6D 7H 8H 9H KS",
                "KC QD JH TS 9C 8D 7S 6C KD QS",
                "2S",
                "5S 4S",
            ),
        ),
        "the bot is offered the first upcard and may knock on its first turn",
    ),
    Scenario(
        "opponent knocks: show-down with lay-offs",
        HOYLE.replace(game_target=1),
        0,
        (
            deck(
                0,
                "4H 8H 9H TC AD 3D 5S 7S JS QS",
                "5H 6H 7H 9C 9D 9S JC QC KC 2D",
                "KH",
                "3S",
            ),
        ),
        "the bot deals; the opponent knocks, and the referee lays off the bot's cards onto the "
        "knocker's melds",
    ),
    Scenario(
        "a drawn hand, then a redeal",
        HOYLE.replace(game_target=1, stock_exhausted_at=30),
        1,
        (
            deck(
                1,
                "KC QC 9C 7C 5D KD JD 9H 7H 5S",
                "KH QH JS 9S 7S TD 8D 6H 4C 2C",
                "3H",
            ),
            deck(
                1,
                "KC QC 9C 7C 5D KD JD 9H 7H 5S",
                "AS 2S 3S 4H 5H 6H 8C 8D 8S TS",
                "3H",
            ),
        ),
        "the stock runs down to its floor, the hand is drawn, the same dealer deals again",
    ),
)


def check_bot(
    spec: BotSpec,
    clock: Clock,
    workdir: Path,
    in_process: bool = False,
    games: int = 2,
    *,
    launch: Launch | None = None,
    logs_kept: bool = False,
) -> list[Check]:
    """Run every check; return them in order. ``launch`` says how the bot's process is run
    (sandbox, limits); by default as a process (``in_process`` runs a built-in bot here)."""
    session = _Session(spec, clock, workdir, _launch(launch, in_process, clock))
    handshake = session.handshake(logs_kept)
    if not handshake.ok:
        return [handshake]
    checks = [handshake, *session.send_unknown()]
    checks += session.scenarios()
    checks += session.full_games(games)
    checks += session.plain_requests()
    checks += session.formats()
    if session.is_process and not any(c.name == UNKNOWN for c in checks):
        checks.append(Check(UNKNOWN, True, "an unknown message type changed nothing"))
    checks.append(_coverage(session.seen))
    checks.append(_response_times(session.seen, clock))
    checks += session.close()
    return checks


def _launch(launch: Launch | None, in_process: bool, clock: Clock) -> Launch:
    """How the bot is run: ``launch``'s limits, sandbox and hidden paths, ``in_process``, and
    the clock's time to quit."""
    how = launch or Launch(quit_wait=clock.quit)
    return Launch(
        in_process=in_process,
        memory_mb=how.memory_mb,
        cpu_seconds=how.cpu_seconds,
        pids=how.pids,
        sandbox=how.sandbox,
        hidden=how.hidden,
        quit_wait=clock.quit,
    )


UNKNOWN = "ignores unknown messages"
"""The check that a bot process ignores a message type it does not know."""


class _Session:
    """The bot under check and its greedy opponent, through every phase of the checks: the
    handshake, the probe of an unknown message type, the scripted situations, the full games,
    the formats and the quit. The games are numbered on from 1 across all of them."""

    def __init__(self, spec: BotSpec, clock: Clock, workdir: Path, how: Launch) -> None:
        self.spec = spec
        self.clock = clock
        self.workdir = workdir
        self.how = how
        self.seen = _Seen()
        self.referee = Referee(HOYLE, clock)
        self.inner = self._connect()
        self.opponent: Connection | None = None
        self.number = 0

    @property
    def is_process(self) -> bool:
        return isinstance(self.inner, ProcessConnection)

    def _connect(self) -> Connection:
        connection = self.spec.connect(self.workdir, self.how)
        if isinstance(connection, ProcessConnection):
            connection.honours_ignores = False  # every event, to see that the bot copes with each
        return connection

    def handshake(self, logs_kept: bool) -> Check:
        """Start the bot and, once it is ready, its opponent."""
        inner, clock = self.inner, self.clock
        started = time.perf_counter()
        try:
            ready = inner.start(self.referee.hello(0, "greedy"), clock.startup)
        except BotError as error:
            inner.close()
            log = log_tail(inner.log_path, kept=logs_kept)
            return Check("handshake", False, f"{error.reason}: {error.detail}{log}")
        check = Check(
            "handshake",
            True,
            f"ready in {time.perf_counter() - started:.2f} s: protocol {ready.protocol_version}, "
            f"{ready.name!r} {ready.bot_version!r}"
            + (f" by {printable(ready.author)}" if ready.author else "")
            + (f"; ignores {', '.join(map(printable, ready.ignores))}" if ready.ignores else "")
            + ("; asks for the compact form" if ready.form == "compact" else ""),
        )
        # Named apart from the bot, whose lines are taken off the wire by its name.
        name = "greedy" if inner.name != "greedy" else "opponent"
        self.opponent = InProcessConnection(name, GreedyBot)
        self.opponent.start(self.referee.hello(1, ready.name), clock.startup)
        return check

    def send_unknown(self) -> list[Check]:
        """Send a bot process a message of an unknown type: it must ignore it (a failure to
        send is a check failed now; a pass is counted once every game is played)."""
        if not isinstance(self.inner, ProcessConnection):
            return []
        try:
            self.inner.send_line(b'{"type":"x_future_message","data":{"anything":[1,2,3]}}')
        except BotError as error:
            return [Check(UNKNOWN, False, f"{error.reason}: {error.detail}")]
        return []

    def _restart_after(self, outcome: GameOutcome) -> None:
        """Start the bot afresh after a game it failed (a bot that cannot restart fails the
        next checks)."""
        if outcome.failure is None or outcome.failure.seat != 0:
            return
        self.inner.close()
        self.inner = self._connect()
        with contextlib.suppress(BotError):
            self.inner.start(self.referee.hello(0, "greedy"), self.clock.startup)

    def _play(
        self,
        rules: Rules,
        seed: int,
        decks: Sequence[Sequence[int]] = (),
        first_dealer: int | None = None,
    ) -> tuple[GameOutcome, list[wire.WireLine]]:
        """The next game against greedy, read off the wire."""
        assert self.opponent is not None
        self.number += 1
        with wire.tap(self.inner.name) as lines:
            outcome = Referee(rules, self.clock, recorder=self.seen).play_game(
                [self.inner, self.opponent],
                seed,
                number=self.number,
                decks=decks,
                first_dealer=first_dealer,
            )
        self.seen.read(lines)
        self.seen.count(lines, outcome)
        return outcome, lines

    def scenarios(self) -> list[Check]:
        """The scripted situations, a check each."""
        checks: list[Check] = []
        for scenario in SCENARIOS:
            outcome, lines = self._play(
                scenario.rules,
                seed=self.number + 1,
                decks=scenario.decks,
                first_dealer=scenario.first_dealer,
            )
            checks.append(_judge(scenario.name, scenario.goal, outcome, lines))
            self._restart_after(outcome)
        return checks

    def full_games(self, games: int) -> list[Check]:
        """``games`` games to 100 against greedy, a check each."""
        checks: list[Check] = []
        for index in range(games):
            outcome, lines = self._play(HOYLE, seed=1000 + index)
            checks.append(
                _judge(f"full game {index + 1} against greedy", "to 100 points", outcome, lines)
            )
            self._restart_after(outcome)
        return checks

    def plain_requests(self) -> list[Check]:
        """For a bot that asked for the compact form: a game whose requests are plain, as a
        referee that does not know the form sends them (the form says the bot must take a
        request without ``history_from`` as the whole hand's)."""
        if not self.inner.form.compact:
            return []
        asked = self.inner.form
        self.inner.form = PLAIN
        try:
            outcome, lines = self._play(HOYLE.replace(game_target=50), seed=2000)
        finally:
            self.inner.form = asked
        check = _judge(
            "plain requests, though compact asked for",
            "a game as a referee without the compact form plays it",
            outcome,
            lines,
        )
        self._restart_after(outcome)
        return [check]

    def formats(self) -> list[Check]:
        """A short game in each format of :data:`FORMAT_CHECKS`, a check each."""
        checks: list[Check] = []
        for name, mode, goal, event in FORMAT_CHECKS:
            checks.append(self._format_game(name, mode, goal, event))
        return checks

    def _format_game(self, name: str, mode: Mode, goal: str, event: str) -> Check:
        """A short game of ``mode`` against greedy bots; the bot must have been sent ``event``."""
        self.number += 1
        number, inner, clock = self.number, self.inner, self.clock
        others = [InProcessConnection(f"opponent-{k}", GreedyBot) for k in range(1, mode.players)]
        for other in others:
            other.start(self.referee.hello(0, None, mode), clock.startup)
        with wire.tap(inner.name) as lines:
            outcome = Referee(
                HOYLE.replace(game_target=FORMAT_TARGET), clock, recorder=self.seen
            ).play_game(
                [inner, *others],
                seed=number,
                number=number,
                first_dealer=0,
                mode=mode,
                names=[inner.name, *(o.name for o in others)],
            )
        for other in others:
            other.close()
        self.seen.count(lines, outcome)
        check = _judge(name, goal, outcome, lines)
        if check.ok and event not in _types(lines):
            check = Check(name, False, f"the bot was never sent {event!r}")
        self._restart_after(outcome)
        return check

    def close(self) -> list[Check]:
        """Stop both bots: a bot process must exit by itself when told to quit."""
        if self.opponent is not None:
            self.opponent.close()
        inner = self.inner
        inner.close()
        if not isinstance(inner, ProcessConnection):
            return []
        quit_ok = bool(inner.quit_by_itself)
        return [
            Check(
                "exits on quit",
                quit_ok,
                f"exited with code {inner.exit_code}"
                if quit_ok
                else "still running after quit; its process group was killed",
            )
        ]


def _coverage(seen: _Seen) -> Check:
    """Whether the games reached every phase and situation a bot must handle."""
    coverage = [
        ("first_upcard", "first_upcard" in seen.phases),
        ("draw", "draw" in seen.phases),
        ("discard", "discard" in seen.phases),
        ("knock offered", seen.knock_offered),
        ("show_down", "show_down" in seen.events),
        ("lay-offs", seen.lay_offs > 0),
        ("drawn hand", seen.drawn_hands > 0),
        ("game_end", "game_end" in seen.events),
    ]
    missing = [name for name, ok in coverage if not ok]
    return Check(
        "situations covered",
        not missing,
        "every phase, a knock, a show-down with lay-offs, a drawn hand and a game end"
        if not missing
        else f"not reached: {', '.join(missing)}",
    )


FORMAT_TARGET = 25
"""The target of the format checks' games (short games; docs/RULES.md R15)."""
FORMAT_CHECKS = (
    (
        "three-player sit-out",
        Mode.THREE_PLAYER,
        f"a three-player game to {FORMAT_TARGET} against two greedy bots: dealt first and sat "
        "out (R24), then every hand it played shown from seat 0",
        "sit_out",
    ),
    (
        "partnership round",
        Mode.PARTNERSHIP,
        f"a partnership game to {FORMAT_TARGET} with three greedy bots: its team's rounds at "
        "both tables (R25), every hand shown from seat 0",
        "round_end",
    ),
)
"""The formats a bot is checked in: name, mode, goal and an event it must have been sent."""


def _types(lines: Sequence[wire.WireLine]) -> set[str]:
    """The types of the messages sent to the bot."""
    types: set[str] = set()
    for line in lines:
        if line.direction == wire.TO_BOT:
            with contextlib.suppress(ProtocolError):
                types.add(line.message().type)
    return types


def _requests(lines: Sequence[wire.WireLine]) -> Iterator[m.Request]:
    """The requests sent to the bot."""
    for line in lines:
        if line.direction == wire.TO_BOT:
            with contextlib.suppress(ProtocolError):
                message = line.message()
                if isinstance(message, m.Request):
                    yield message


def _unanswered(lines: Sequence[wire.WireLine]) -> m.Request | None:
    """The last request sent to the bot, unless the bot replied to it."""
    request = collections.deque(_requests(lines), maxlen=1)
    if not request:
        return None
    for line in lines:
        if line.direction == wire.FROM_BOT:
            with contextlib.suppress(ProtocolError):
                message = line.message()
                if isinstance(message, m.Reply) and message.id == request[0].id:
                    return None
    return request[0]


def _judge(
    name: str, goal: str, outcome: GameOutcome, lines: Sequence[wire.WireLine] = ()
) -> Check:
    failure = outcome.failure
    if failure is None:
        return Check(name, True, goal)
    who = "the bot" if failure.seat == 0 else "the opponent"
    rule = f" [{failure.rule}]" if failure.rule else ""
    message = failure.message
    request = _unanswered(lines) if failure.reason == BotTimeout.reason else None
    if failure.seat == 0 and request is not None:
        # Which request, so that the bot's author can find the situation it was slow in.
        asked = (
            f"the {request.phase} request of hand {request.observation.hand_number} "
            f"(request id {request.id})"
        )
        message += f" to {asked}" if message.startswith("no reply") else f" ({asked})"
    return Check(name, False, f"{who} failed: {failure.reason}{rule}: {message}")


def _response_times(seen: _Seen, clock: Clock) -> Check:
    """The bot's move times over every game, a request it did not answer in time counted."""
    move = f"move time {clock.move * 1000:.0f} ms"
    slowest = f"slowest {seen.slowest * 1000:.1f} ms"
    if seen.timeouts:
        answered = (
            f"slowest answered {seen.slowest * 1000:.1f} ms" if seen.replies else "none answered"
        )
        return Check(
            "response times",
            False,
            f"{seen.timeouts} of {seen.requests} requests timed out; {answered} ({move})",
        )
    mean = seen.total / seen.replies if seen.replies else 0.0
    return Check(
        "response times",
        seen.slowest <= clock.move,
        f"{seen.replies} replies, mean {mean * 1000:.1f} ms, {slowest} ({move})",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bot", metavar="COMMAND", help="the bot: a command line or a name")
    add_bots_file_argument(parser)
    add_clock_arguments(parser)
    parser.add_argument(
        "--games",
        type=positive_int,
        default=2,
        help="full games against greedy after the scripted situations (default 2; at least 1: "
        "they reach the situations no script can force on every bot)",
    )
    parser.add_argument("--in-process", action="store_true", help="run a built-in bot in-process")
    add_process_arguments(parser)
    add_logs_argument(parser)
    add_wire_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")


def run(args: argparse.Namespace) -> int:
    known = bots_file_from(args.bots)
    spec = resolve(args.bot, known)
    wire.enable(args.log_wire)
    clock = clock_from(args)
    logs = logs_from(args.logs)
    launch = Launch(
        memory_mb=args.memory_mb,
        cpu_seconds=args.cpu_seconds,
        pids=args.pids,
        sandbox=sandbox_from(args.sandbox, [spec], args.in_process),
    )
    with tempfile.TemporaryDirectory(prefix="gin-arena-check-") as scratch:
        workdir = logs or Path(scratch)
        checks = check_bot(
            spec,
            clock,
            workdir,
            in_process=args.in_process,
            games=args.games,
            launch=launch,
            logs_kept=logs is not None,
        )
    failed = sum(1 for c in checks if not c.ok)
    if args.json:
        print(
            json.dumps(
                [{"check": c.name, "ok": c.ok, "detail": c.detail} for c in checks], indent=2
            )
        )
    else:
        for line in check_lines(checks, terminal_columns()):
            print(line)
        print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


WIDE: Final = 100
"""From this many columns on, the checks' names form a column of their own."""


def check_lines(checks: Sequence[Check], width: int | None) -> list[str]:
    """The checks as lines of at most ``width`` columns: ``PASS  name  detail``, a long detail
    wrapped by words under a hanging indent, the names in a column of their own on a wide
    terminal and followed by a colon on a narrow one (where a column would leave the details a
    sliver). A failure's detail may end with the bot's stderr, each of its lines kept a line.
    With no width (piped, COLUMNS unset): a check a line, whole, for a program to read."""
    pad = max((len(c.name) for c in checks), default=0)
    if width is None:
        return [f"{'PASS' if c.ok else 'FAIL'}  {c.name:<{pad}}  {printable(c.detail, lines=True)}"
                for c in checks]  # fmt: skip
    lines: list[str] = []
    for c in checks:
        first, *rest = printable(c.detail, lines=True).split("\n")
        status = "PASS" if c.ok else "FAIL"
        head = (
            f"{status}  {c.name:<{pad}}  {first}"
            if width >= WIDE
            else f"{status}  {c.name}: {first}"
        )
        lines.extend(hanging(head.rstrip(), width, 6))
        for more in rest:
            lines.extend(hanging("      " + more, width, 2) if more.strip() else [])
    return lines


__all__ = ["Check", "check_bot", "check_lines", "deck", "parse_cards"]
