"""Play a recorded game back through the engine: the one reader of records that ``gin-arena
judge`` (:mod:`arena.records.judge`) and ``gin-arena replay`` (:mod:`arena.records.replay`) share.

:func:`play_back` deals every hand from the game's seed, as the referee did, applies every
recorded action with the engine's checks and yields a step for each part of the record as it
passes: :class:`Start` (the game dealt), :class:`Deal` (a hand), :class:`Move` (an action
applied), :class:`HandOver` (a hand's actions done) and :class:`End` (the record of the game
done). It stops with :class:`PlaybackError`, naming the record's line, at the first thing it
cannot play: bad rules or seed, a hand after the game was won, an action by a player who is not
to move, after the hand ended, unreadable or illegal. Comparing what the record says with what
the engine computed (deals, scores, results) is the judge's work, not this module's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.records.record import ActionLine, GameEndLine, RecordedGame, RecordedHand
from engine.formats import Session
from engine.hand import Action, ActionError, ActionKind, Hand, HandResult, IllegalAction
from engine.modes import FormatError
from engine.rules import Rules, RulesError


class PlaybackError(ArenaError, ValueError):
    """The record cannot be played on from ``line``: ``message`` says why."""

    def __init__(
        self, line: int, message: str, action: ActionLine | None = None, reason: str = ""
    ) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message
        self.action = action
        """The action line that cannot be played, if it is one."""
        self.reason = reason or message
        """Why, in the engine's words (an illegal action's rule and reason)."""


@dataclass(frozen=True, slots=True)
class Start:
    """The game, created from its format, rules and seed (``game.dealer`` is the first
    dealer: a player, or in partnership a team)."""

    line: int
    rules: Rules
    game: Session


@dataclass(frozen=True, slots=True)
class Deal:
    """A hand dealt from the seed: ``hand`` is ``game.hand``, before any action."""

    line: int
    index: int
    """The hand's place in the record, from 0."""
    record: RecordedHand
    game: Session
    hand: Hand


@dataclass(frozen=True, slots=True)
class Move:
    """A recorded action, applied: ``game`` and ``hand`` show the state after it."""

    line: int
    number: int
    """The action's place in its hand, from 1."""
    record: ActionLine
    player: int
    action: Action
    drawn: int | None
    """The card the action drew, if it drew one (from the stock or the discard pile)."""
    game: Session
    hand: Hand


@dataclass(frozen=True, slots=True)
class HandOver:
    """Every recorded action of a hand is applied. ``result`` is the engine's (``None``: the
    hand is not over); ``record.end`` the record's ``hand_end`` line, if any."""

    line: int
    index: int
    record: RecordedHand
    result: HandResult | None
    game: Session


@dataclass(frozen=True, slots=True)
class End:
    """The game's record is played through; ``record`` is its ``game_end`` line and number, if
    it has one (a record cut short has none)."""

    record: tuple[int, GameEndLine] | None
    game: Session


Step = Start | Deal | Move | HandOver | End


def play_back(rec: RecordedGame) -> Iterator[Step]:
    """Play ``rec`` through the engine, a step at a time (see the module). The objects the steps
    share (``game``, ``hand``) are live: they change as the next steps are taken."""
    tags = rec.tags
    try:
        rules = Rules.from_dict(tags.rules)
    except RulesError as error:
        raise PlaybackError(rec.line, f"bad rules: {error}") from None
    fmt = tags.game_format
    if len(tags.bots) != fmt.players:
        raise PlaybackError(
            rec.line,
            f"a {fmt} game has {fmt.players} bots, the record names {len(tags.bots)}",
        )
    try:
        game = fmt.new_session(rules, tags.seed)
    except (FormatError, ValueError) as error:
        raise PlaybackError(rec.line, str(error)) from None
    yield Start(rec.line, rules, game)
    for index, (line, hand_rec) in enumerate(rec.hands):
        if index:
            if game.is_over:
                raise PlaybackError(line, "a hand after the game was won")
            game.next_hand()
        hand = game.hand
        yield Deal(line, index, hand_rec, game, hand)
        for number, (action_line, act) in enumerate(hand_rec.actions, 1):
            if hand.is_over:
                raise PlaybackError(action_line, f"action {act.action!r} after the hand ended", act)
            player = hand.to_move
            if act.player != player:
                raise PlaybackError(
                    action_line,
                    f"player to move: the record says {act.player!r}, the rules give {player!r}",
                    act,
                )
            before = hand.hands[player]
            top = hand.pile[-1] if hand.pile else None
            try:
                action = Action.parse(act.action)
                game.apply(action)
            except ActionError as error:
                raise PlaybackError(action_line, str(error), act) from None
            except IllegalAction as error:
                raise PlaybackError(
                    action_line, f"illegal action {act.action!r}: {error}", act, str(error)
                ) from None
            drawn = None
            if action.kind is ActionKind.DRAW_STOCK:
                drawn = (hand.hands[player] & ~before).bit_length() - 1
            elif action.kind is ActionKind.DRAW_DISCARD:
                drawn = top
            yield Move(action_line, number, act, player, action, drawn, game, hand)
        yield HandOver(line, index, hand_rec, hand.result, game)
    yield End(rec.end, game)


__all__ = [
    "Deal",
    "End",
    "HandOver",
    "Move",
    "PlaybackError",
    "Start",
    "Step",
    "play_back",
]
