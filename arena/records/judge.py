"""Re-judge a record from the record alone: every deal against its seed, every action against
the rules, every hand's score and the game's result recomputed. The first disagreement is
reported with its line number. The record is played back by :mod:`arena.records.playback`; this
module
compares what it says with what the engine computes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.records.outcome import REFEREE, GameOutcome
from arena.records.playback import Deal, End, HandOver, Move, PlaybackError, Start, play_back
from arena.records.record import RecordedGame, RecordError, read_games
from engine.cards import CARD_NAMES
from engine.formats import TWO_PLAYER, Format, format_named
from engine.modes import Mode


@dataclass(frozen=True, slots=True)
class Disagreement:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class _Stop(Exception):
    def __init__(self, line: int, message: str) -> None:
        self.disagreement = Disagreement(line, message)


@dataclass(frozen=True, slots=True)
class Verdict:
    games: int
    hands: int
    actions: int
    disagreement: Disagreement | None
    incomplete: int | None = None
    """The line of the last game when the record stops before that game's end (a match that
    was interrupted); everything before it agrees with the rules."""

    @property
    def ok(self) -> bool:
        return self.disagreement is None and self.incomplete is None


def judge(path: Path, mode: Mode | Format | None = None) -> Verdict:
    """Check every game of the record at ``path`` (each must be in ``mode``, if given). Raises
    RecordError if it cannot be read."""
    wanted = None if mode is None else format_named(mode)
    games = read_games(path)
    hands = actions = 0
    for number, game in enumerate(games, 1):
        last = number == len(games)
        if wanted is not None and game.tags.game_format is not wanted:
            stop = Disagreement(
                game.line,
                f"game {game.tags.game} is a {game.tags.mode} game, not {wanted}: judge it "
                f"with --mode {game.tags.mode} (or without --mode)",
            )
            return Verdict(number - 1, hands, actions, stop)
        try:
            for step in _judge_game(game, last):
                if isinstance(step, Deal):
                    hands += 1
                else:
                    actions += 1
        except _Stop as stop:
            return Verdict(number - 1, hands, actions, stop.disagreement)
        if last and game.end is None:
            return Verdict(number - 1, hands, actions, None, incomplete=game.line)
    return Verdict(len(games), hands, actions, None)


def _expect(line: int, what: str, recorded: object, computed: object) -> None:
    if recorded != computed:
        raise _Stop(line, f"{what}: the record says {recorded!r}, the rules give {computed!r}")


def _judge_game(rec: RecordedGame, last: bool = False) -> Iterator[Deal | Move]:
    """Check one game, yielding each hand and action once checked. The ``last`` game of a
    record may stop anywhere (an interrupted match): what it holds is checked, no more."""
    try:
        for step in play_back(rec):
            match step:
                case Start():
                    _check_start(rec, step)
                case Deal():
                    _check_deal(rec, step)
                    yield step
                case Move():
                    yield step
                case HandOver():
                    _check_hand_over(rec, step, last)
                case End():
                    _check_end(rec, step, last)
    except PlaybackError as error:
        raise _Stop(error.line, error.message) from None


def _check_start(rec: RecordedGame, step: Start) -> None:
    _expect(rec.line, "first dealer", rec.tags.first_dealer, step.game.dealer)
    if rec.tags.single_hand and len(rec.hands) > 1:
        raise _Stop(rec.hands[1][0], "a second hand in a single-hand game")


def _check_deal(rec: RecordedGame, step: Deal) -> None:
    line, header, hand, number = step.line, step.record.header, step.hand, step.game.hand_number
    _expect(line, f"hand {number} number", header.hand, number)
    _expect(line, f"hand {number} dealer", header.dealer, hand.dealer)
    _expect(
        line,
        f"hand {number} deck (from seed {rec.tags.seed})",
        header.deck,
        [CARD_NAMES[c] for c in hand.deck],
    )
    fmt = rec.tags.game_format
    if fmt.wire is not TWO_PLAYER.wire:
        _expect(line, f"hand {number} players", header.players, list(step.game.seated))
    if fmt.hands_a_round > 1:
        _expect(line, f"hand {number} table", header.table, step.game.table)


def _check_hand_over(rec: RecordedGame, step: HandOver, last: bool) -> None:
    game, number = step.game, step.game.hand_number
    final = step.index == len(rec.hands) - 1
    if step.record.end is None:
        if last and rec.end is None and final:
            return  # the record stops in this hand
        if (
            rec.end is not None
            and (rec.end[1].failure is not None or rec.end[1].reason == REFEREE)
            and final
        ):
            return  # the game was forfeited, or abandoned by the referee, in this hand
        raise _Stop(step.line, f"hand {number} has no hand_end line")
    end_line, hand_end = step.record.end
    result = step.result
    if result is None:
        raise _Stop(end_line, f"the record ends hand {number}, but it is not over")
    _expect(end_line, "end", hand_end.end, result.end.value)
    _expect(end_line, "winner", hand_end.winner, result.winner)
    _expect(end_line, "points", hand_end.points, result.points)
    _expect(end_line, "doubled", hand_end.doubled, result.doubled)
    _expect(end_line, "scores", hand_end.scores, list(game.hand_scores))
    if result.show_down is not None:
        sd = result.show_down
        _expect(end_line, "knocker deadwood", hand_end.knocker_deadwood, sd.knocker_deadwood)
        _expect(end_line, "defender deadwood", hand_end.defender_deadwood, sd.defender_deadwood)


def _check_end(rec: RecordedGame, step: End, last: bool) -> None:
    game, single_hand = step.game, rec.tags.single_hand
    if step.record is None:
        if last:
            return
        raise _Stop(rec.line, "the game has no game_end line")
    end_line, end = step.record
    if end.reason == REFEREE:
        # The referee abandoned the game: what was played up to there is checked above; the
        # game is drawn at the scores it had.
        _expect(end_line, "winner of an abandoned game", end.winner, None)
        _expect(end_line, "scores when the referee failed", end.scores, list(game.totals))
        _expect(end_line, "hands before the referee failed", end.hands, len(game.results))
    elif end.failure is None and single_hand:
        first = game.results[0] if game.results else None
        if first is None:
            raise _Stop(end_line, "the single hand did not end")
        _expect(end_line, "winner of the hand", end.winner, first.winner)
        _expect(end_line, "scores", end.scores, list(game.totals))
    elif end.failure is None:
        if game.result is None:
            raise _Stop(end_line, "the record ends the game, but nobody reached the target")
        _expect(end_line, "how the game ended", end.reason, GameOutcome.reason_of(game.result))
        _expect(end_line, "game winner", end.winner, game.result.winner)
        _expect(end_line, "final scores", end.scores, list(game.result.scores))
        _expect(end_line, "hands played", end.hands, game.result.hands_played)
    else:
        if game.result is not None or (single_hand and game.results):
            raise _Stop(end_line, "a forfeit recorded after the game was already over")
        totals = game.totals
        winner = rec.tags.game_format.forfeit_winner(end.failure.seat, totals)
        _expect(end_line, "winner of a forfeit", end.winner, winner)
        _expect(end_line, "scores at the forfeit", end.scores, list(totals))
        _expect(end_line, "hands before the forfeit", end.hands, len(game.results))


__all__ = ["Disagreement", "RecordError", "Verdict", "judge"]
