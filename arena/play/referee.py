"""The referee: plays games between two bot connections, enforcing every rule and timing every
move, and reports each game's outcome, forfeits included.

Time rules: a move may take ``move`` seconds; ``grace`` more is allowed for transport delays and
never charged; time beyond ``move + grace`` comes out of the game's ``bank``; a move that needs more
than is left is a timeout. For a bot process the clock runs from having written the request to
having read the whole reply; a bot in this process is charged its thread's CPU time.

No single game can stop a match: whatever goes wrong while a game is played, a bug of the referee
included, ends that game with a reason (a bot's failure forfeits it; anything else is ``referee``,
a drawn game with the error in the record and the log) and the next game is played. Only a record
that cannot be written stops the match (:class:`RecordWriteError`).

What a seat is told about the cards is decided in :mod:`protocol.views`, from that seat's own
observation; the referee adds only a request's legal actions, which depend on the mover's own
cards and the phase.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final

from arena.records.outcome import (
    HAND_LIMIT,
    REFEREE,
    Failure,
    GameOutcome,
    Recorder,
    RecordWriteError,
)
from arena.seats.connection import BotCrashed, BotError, Connection, IllegalMove
from arena.seats.last_words import forfeit_message
from engine import __version__ as engine_version
from engine.formats import TWO_PLAYER, Format, Hollywood, Session, format_named
from engine.hand import ActionKind, HandResult, IllegalAction
from engine.modes import FormatError, Mode
from engine.rules import Rules
from protocol import messages as m
from protocol.views import (
    Decision,
    HandMessage,
    History,
    as_seat_zero,
    hand_end_model,
    hand_start_model,
    played_model,
    show_down_model,
)

GRACE_SECONDS = 0.1
"""The default grace margin for transport delays (documented in docs/PROTOCOL.md)."""
QUIT_SECONDS = 2.0
"""The default time a bot has to exit after ``quit`` before its processes are killed."""
_DRAW_STOCK: Final = ActionKind.DRAW_STOCK
_DRAW_DISCARD: Final = ActionKind.DRAW_DISCARD

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Clock:
    """A time control, in seconds."""

    move: float = 1.0
    bank: float = 0.0
    grace: float = GRACE_SECONDS
    startup: float = 10.0
    quit: float = QUIT_SECONDS

    LIMIT: ClassVar[float] = 86_400.0
    """The longest any of them may be (a day): a finite deadline for every wait."""

    def __post_init__(self) -> None:
        for name in ("move", "bank", "grace", "startup", "quit"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"bad time control: {name} must be a number, got {value!r}")
            if not 0 <= value <= self.LIMIT or (name in ("move", "startup") and value == 0):
                raise ValueError(
                    f"bad time control: {name} must be "
                    + ("above 0" if name in ("move", "startup") else "at least 0")
                    + f" and at most {self.LIMIT:.0f} seconds (a day), got {value!r}"
                )

    def message(self) -> m.TimeControl:
        return m.TimeControl(
            move_ms=round(self.move * 1000),
            bank_ms=round(self.bank * 1000),
            grace_ms=round(self.grace * 1000),
            startup_ms=round(self.startup * 1000),
            quit_ms=round(self.quit * 1000),
        )


@dataclass
class _Seat:
    connection: Connection
    bank: float
    used: float = 0.0


@dataclass
class Referee:
    """Plays games between ``connections[0]`` (seat 0) and ``connections[1]`` (seat 1), which must
    already be started (:meth:`Connection.start`, with :meth:`hello`)."""

    rules: Rules
    clock: Clock = field(default_factory=Clock)
    recorder: Recorder | None = None
    ids: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    """Where request ids come from: unpredictable, so that no line a bot writes before it has
    read a request can carry that request's id (a seeded generator makes transcripts stable)."""
    _request_id: int = 0

    def hello(
        self, seat: int, opponent: str | None = None, mode: Mode | Format = TWO_PLAYER
    ) -> m.Hello:
        fmt = format_named(mode)
        wire = fmt.wire
        return m.Hello(
            type="hello",
            protocol=m.PROTOCOL_NAME,
            versions=list(m.PROTOCOL_VERSIONS),
            seat=seat,
            rules=self.rules.to_dict(),
            time=self.clock.message(),
            opponent=opponent,
            mode=None if wire is Mode.TWO_PLAYER else wire,
            players=None if wire is Mode.TWO_PLAYER else fmt.players,
        )

    def play_game(
        self,
        connections: Sequence[Connection],
        seed: int,
        *,
        number: int = 1,
        tags: dict[str, object] | None = None,
        single_hand: bool = False,
        decks: Sequence[Sequence[int]] = (),
        first_dealer: int | None = None,
        mode: Mode | Format = TWO_PLAYER,
        names: Sequence[str] = (),
    ) -> GameOutcome:
        """Play one game from ``seed`` in ``mode``, ``connections`` by player (only its first hand
        with ``single_hand``, two players only; that hand's winner, if any, wins). A bot's failure
        forfeits the game (see :meth:`engine.formats.Format.forfeit_winner`).

        ``decks`` (scripted deals, as the bot checker uses) replace the seeded deals of the first
        hands, and ``first_dealer`` the seeded first dealer; such a game cannot be re-judged from
        its seed alone. ``names`` are the bots' names by player, told to them in other formats."""
        fmt = format_named(mode)
        if len(connections) != fmt.players:
            raise FormatError(f"{fmt} takes {fmt.players} bots, got {len(connections)}")
        if single_hand and not fmt.single_hands:
            raise FormatError(f"single hands (--hands) do not apply to {fmt}: it plays games")
        seats = [_Seat(c, self.clock.bank) for c in connections]
        game = fmt.new_session(self.rules, seed, first_dealer, decks[0] if decks else None)
        started = time.perf_counter()
        if self.recorder:
            opening = self._game_tags(fmt, number, seed, game.dealer, single_hand)
            self._record(self.recorder.game_start, {**opening, **(tags or {})})
        try:
            for player in range(fmt.players):
                start = _game_start(fmt, number, player, self.rules, names)
                _send(seats, player, start.model_copy(update={"single_hand": single_hand}))
            round_hands: list[tuple[int, tuple[int, int], int, HandResult]] = []
            while True:
                players, table, dealer = game.seated, game.table, game.hand.dealer
                result = self._play_hand(game, seats, fmt)
                round_hands.append((table, players, players[dealer], result))
                if fmt.wire is not Mode.TWO_PLAYER and table == fmt.hands_a_round - 1:
                    notice = _round_end(game, fmt, len(game.results), round_hands)
                    round_hands = []
                    for player in range(fmt.players):
                        _send(seats, player, notice)
                if game.result is not None or single_hand:
                    break
                game.next_hand(decks[len(game.results)] if len(game.results) < len(decks) else None)
        except RecordWriteError:
            raise
        except BotError as error:
            if error.seat is None:  # a bot failure the referee did not tag: its own bug
                return self._referee_failed(game, fmt, seats, started, error)
            if game.result is not None or (single_hand and game.results):
                # The game was decided before the bot failed (being told the last result): the
                # result stands; the failure shows up when the bot is next needed.
                return self._decided(game, fmt, seats, started, single_hand)
            failed = error.seat
            message = forfeit_message(error, seats[failed].connection)  # its last words
            failure = Failure(failed, error.reason, message, getattr(error, "rule", ""))
            scores = standing(game)
            outcome = GameOutcome(
                winner=fmt.forfeit_winner(failed, scores),
                scores=scores,
                hands=len(game.results),
                result=None,
                failure=failure,
                seconds=time.perf_counter() - started,
                move_seconds=tuple(s.used for s in seats),
                mode=fmt,
            )
            self._notify_end(seats, outcome)
            return outcome
        except Exception as error:  # any other error is the referee's own: see the module
            return self._referee_failed(game, fmt, seats, started, error)
        return self._decided(game, fmt, seats, started, single_hand)

    def _game_tags(
        self, fmt: Format, number: int, seed: int, first_dealer: int, single_hand: bool
    ) -> dict[str, object]:
        """What a record says of a game before its first hand (see docs/RECORDS.md)."""
        return {
            "game": number,
            "seed": seed,
            "rules": self.rules.to_dict(),
            "engine_version": engine_version,
            "protocol_version": m.PROTOCOL_VERSIONS[-1],
            **({} if fmt is TWO_PLAYER else {"mode": fmt.name}),
            "first_dealer": first_dealer,
            "single_hand": single_hand,
            "time": {"move": self.clock.move, "bank": self.clock.bank, "grace": self.clock.grace},
        }

    def _referee_failed(
        self,
        game: Session,
        fmt: Format,
        seats: list[_Seat],
        started: float,
        error: BaseException,
    ) -> GameOutcome:
        """End a game that the referee could not go on with: drawn, with the error kept."""
        where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
        at = f" at {where[0].filename}:{where[0].lineno}" if where else ""
        message = f"{type(error).__name__}: {error}{at}"
        log.error("game abandoned by the referee: %s", message, exc_info=error)
        outcome = GameOutcome(
            winner=None,
            scores=standing(game),
            hands=len(game.results),
            result=None,
            seconds=time.perf_counter() - started,
            move_seconds=tuple(s.used for s in seats),
            error=message[:2000],
            mode=fmt,
        )
        self._notify_end(seats, outcome)
        return outcome

    def _record(self, call: Callable[..., None], *args: object) -> None:
        """Call the recorder; a record that cannot be written stops the match."""
        try:
            call(*args)
        except OSError as error:
            raise RecordWriteError(f"cannot write the record: {error.strerror or error}") from error

    def _decided(
        self, game: Session, fmt: Format, seats: list[_Seat], started: float, single_hand: bool
    ) -> GameOutcome:
        result = game.result
        if single_hand:
            outcome = GameOutcome(
                winner=game.results[0].winner,
                scores=standing(game),
                hands=1,
                result=result,
                seconds=time.perf_counter() - started,
                move_seconds=tuple(s.used for s in seats),
            )
            self._notify_end(seats, outcome)
            return outcome
        assert result is not None
        outcome = GameOutcome(
            winner=result.winner,
            scores=result.scores,
            hands=result.hands_played,
            result=result,
            seconds=time.perf_counter() - started,
            move_seconds=tuple(s.used for s in seats),
            mode=fmt,
        )
        self._notify_end(seats, outcome)
        return outcome

    def _notify_end(self, seats: list[_Seat], outcome: GameOutcome) -> None:
        if self.recorder:
            self._record(self.recorder.game_end, outcome)
        failure = outcome.failure
        for player, s in enumerate(seats):
            try:
                if failure is not None and failure.seat == player:
                    # What it wrote after the bad line is moot: it must not stop the notice.
                    s.connection.discard_pending()
                    s.connection.send(
                        m.ErrorNotice(
                            type="error",
                            reason=failure.reason,
                            message=failure.message,
                            rule=failure.rule or None,
                        )
                    )
                s.connection.send(_game_end(outcome, player))
                s.connection.flush()
            except BotError:
                pass  # a bot that is gone cannot be told; its failure is already recorded

    def _play_hand(self, game: Session, seats: list[_Seat], fmt: Format) -> HandResult:
        """Play the current hand to its end. ``seats`` are by player; the hand's seats 0 and 1
        are ``game.seated``.

        Longer than 80 lines on purpose: its loop runs for every move of every game, and keeps
        what it looks up in locals of this one frame (the referee's time per move is in the
        README's performance table); the steps around the loop are few and read in order."""
        hand = game.hand
        players = game.seated
        relative = fmt.relative_seats

        def send(seat: int, message: HandMessage) -> None:
            _send(seats, players[seat], as_seat_zero(message) if relative and seat else message)

        if self.recorder:
            self._record(
                self.recorder.hand_start,
                game.hand_number,
                hand.dealer,
                hand.deck,
                players,
                game.table,
            )
        if fmt.dealer_sits_out:
            _send(
                seats,
                next(p for p in range(fmt.players) if p not in players),
                m.SitOut(type="sit_out", hand_number=game.hand_number, players=list(players)),
            )
        scores = list(game.hand_scores)
        seating = None if fmt.wire is Mode.TWO_PLAYER else list(players)
        table = game.table if fmt.hands_a_round > 1 else None
        for seat in (0, 1):
            send(
                seat,
                hand_start_model(hand.observation(seat), game.hand_number, scores, seating, table),
            )
        move_ms = round(self.clock.move * 1000)
        listeners = [seat for seat in (0, 1) if seats[players[seat]].connection.heeds("played")]
        told = (History(), History())  # each seat's played events, in order
        free = self.clock.move + self.clock.grace  # a move's time before the bank is drawn on
        # The loop below runs for every move of every game: what it looks up is looked up once.
        target, number, recorder = self.rules.game_target, game.hand_number, self.recorder
        observe, legal_actions, next_id, apply = (
            hand.observation,
            hand.legal_actions,
            self._next_id,
            game.apply,
        )
        while hand.result is None:
            p = hand.to_move
            s = seats[players[p]]
            seen = observe(p)
            decision = Decision(  # the request, from the mover's own observation
                next_id(),
                hand.decision_phase,
                legal_actions(),
                seen,
                number,
                scores,
                target,
                move_ms,
                free,
                s.bank,
                relative and p == 1,
                told[p],
                len(told[p]),
            )
            try:
                action, elapsed = s.connection.decide(decision)
            except BotError as error:
                error.seat = players[p]
                raise
            s.used += elapsed
            if elapsed > free:
                s.bank -= elapsed - free
            try:
                apply(action)
            except IllegalAction as error:
                failure = IllegalMove(
                    f"{action} is illegal: {error.reason}", s.connection.name, error.rule
                )
                failure.seat = players[p]
                raise failure from None
            if recorder:
                self._record(recorder.action, p, action, elapsed)
            kind = action.kind
            if kind is _DRAW_STOCK:  # the card drawn, told to the drawer only
                drawn = (hand.hands[p] & ~seen.hand).bit_length() - 1
                told[p].append((p, action, drawn))
                told[1 - p].append((p, action, None))
            elif kind is _DRAW_DISCARD:  # public
                drawn = seen.discard_pile[-1]
                told[0].append((p, action, drawn))
                told[1].append((p, action, drawn))
            else:
                drawn = None
                told[0].append((p, action, None))
                told[1].append((p, action, None))
            for seat in listeners:
                send(seat, played_model(action, p, seat, drawn))
        result = hand.result
        show = None if result.show_down is None else show_down_model(result.show_down)
        end = hand_end_model(result, game.hand_scores)
        if self.recorder:
            self._record(self.recorder.hand_end, end, show)
        for seat in (0, 1):
            if show is not None:
                send(seat, show)
            send(seat, end)
        return result

    def _next_id(self) -> int:
        """A request id in 1..2^31-1, never the previous one (a late reply stays detectable)."""
        draw = self.ids.getrandbits
        while True:
            value = draw(31)
            if value and value != self._request_id:
                self._request_id = value
                return value


def standing(game: Session) -> tuple[int, ...]:
    """The scores so far by side (see :class:`GameOutcome`), before any end-of-game bonus."""
    result = game.result
    return game.totals if result is None else result.scores


def _game_start(
    fmt: Format, number: int, player: int, rules: Rules, names: Sequence[str]
) -> m.GameStart:
    if fmt.wire is Mode.TWO_PLAYER:
        return m.GameStart(type="game_start", game=number, seat=player, target=rules.game_target)
    return m.GameStart(
        type="game_start",
        game=number,
        seat=0 if fmt.relative_seats else player,
        target=rules.game_target,
        mode=fmt.wire,
        players=fmt.players,
        player=player,
        partner=fmt.partner(player),
        names=list(names) or None,
    )


def _game_end(outcome: GameOutcome, player: int) -> m.GameEnd:
    """The end of the game as ``player`` is told it (its own side first in relative formats)."""
    fmt, winner, scores = outcome.mode, outcome.winner, list(outcome.scores)
    if fmt.wire is Mode.TWO_PLAYER:
        return m.GameEnd(type="game_end", winner=winner, scores=scores, reason=outcome.reason)
    order = fmt.sides_as_told(player)
    return m.GameEnd(
        type="game_end",
        winner=None if winner is None else order.index(winner),
        scores=[scores[k] for k in order],
        reason=outcome.reason,
        final_winner=winner,
        final_scores=scores,
    )


def _round_end(
    game: Session,
    fmt: Format,
    number: int,
    hands: Sequence[tuple[int, tuple[int, int], int, HandResult]],
) -> m.RoundEnd:
    """The public results of a round (R23-R25), the same for every player."""
    tables = [
        m.TableResult(
            table=table,
            players=list(players),
            dealer=dealer,
            end=result.end,
            winner=None if result.winner is None else players[result.winner],
            points=result.points,
        )
        for table, players, dealer, result in hands
    ]
    credited, points = None, 0
    if fmt.teams:  # the side with more points over the round's tables is credited the difference
        sums = [0, 0]
        for _, players, _, result in hands:
            if result.winner is not None:
                sums[fmt.side_of(players[result.winner])] += result.points
        if sums[0] != sums[1]:
            credited = 0 if sums[0] > sums[1] else 1
            points = abs(sums[0] - sums[1])
    games = None
    if isinstance(game, Hollywood):
        games = [
            m.HollywoodGame(
                scores=list(c.points), winner=None if c.result is None else c.result.winner
            )
            for c in game.columns
        ]
    return m.RoundEnd(
        type="round_end",
        round=number // fmt.hands_a_round,
        tables=tables,
        credited=credited,
        points=points,
        scores=list(game.totals),
        games=games,
    )


def _send(seats: list[_Seat], seat: int, message: m.Message) -> None:
    try:
        seats[seat].connection.send(message)
    except BotError as error:
        error.seat = seat
        raise


__all__ = [
    "GRACE_SECONDS",
    "HAND_LIMIT",
    "QUIT_SECONDS",
    "REFEREE",
    "BotCrashed",
    "Clock",
    "Failure",
    "GameOutcome",
    "RecordWriteError",
    "Recorder",
    "Referee",
]
