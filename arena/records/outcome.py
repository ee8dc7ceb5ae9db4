"""What a game ended with, as the referee reports it and a record keeps it: the
:class:`GameOutcome` (with its :class:`Failure`, when a bot forfeited), the reasons a game can
end with, and the :class:`Recorder` a record writer implements. Below both the referee
(:mod:`arena.play.referee`), which makes outcomes, and the records (:mod:`arena.records.record`,
:mod:`arena.records.judge`), which write and re-judge them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from arena.errors import ArenaError
from engine.formats import TWO_PLAYER, Format, FormatResult
from engine.game import GameEnd, GameResult
from engine.hand import Action as EngineAction
from protocol import messages as m

REFEREE: Final = "referee"
"""The reason of a game ended by the referee's own failure (drawn, never a bot's forfeit)."""
HAND_LIMIT: Final = GameEnd.HAND_LIMIT.value
"""The reason of a game ended at the hand limit (R22)."""


class RecordWriteError(ArenaError, RuntimeError):
    """The game record could not be written (a full disk, a closed file): the match stops."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a game did not finish normally. ``seat`` is the player who failed (in two-player
    games, its seat)."""

    seat: int
    reason: str
    message: str
    rule: str = ""


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A game's result by side: a seat of a two-player game, a player of the Hollywood and
    three-player formats, a team in partnership (team 0: players 0 and 2). ``failure`` is set when
    a bot forfeited; ``error`` when the referee itself failed (the game is then drawn, ``winner``
    None). ``move_seconds`` is by player."""

    winner: int | None
    scores: tuple[int, ...]
    hands: int
    result: GameResult | FormatResult | None
    failure: Failure | None = None
    seconds: float = 0.0
    move_seconds: tuple[float, ...] = (0.0, 0.0)
    error: str | None = None
    mode: Format = TWO_PLAYER

    @property
    def reason(self) -> str:
        """``normal``, ``hand_limit`` (R22), ``referee``, or the failure's reason."""
        if self.failure is not None:
            return self.failure.reason
        if self.error is not None:
            return REFEREE
        return self.reason_of(self.result)

    @staticmethod
    def reason_of(result: GameResult | FormatResult | None) -> str:
        """The reason of a game that ended by the rules: ``normal`` or ``hand_limit``."""
        return HAND_LIMIT if result is not None and result.end is GameEnd.HAND_LIMIT else "normal"


class Recorder(Protocol):
    """What the referee reports as a game goes (see arena.records.record)."""

    def game_start(self, tags: dict[str, object]) -> None: ...

    def hand_start(
        self,
        number: int,
        dealer: int,
        deck: Sequence[int],
        players: tuple[int, int] = (0, 1),
        table: int = 0,
    ) -> None: ...

    def action(self, player: int, action: EngineAction, seconds: float) -> None: ...

    def hand_end(self, result: m.HandEnd, show_down: m.ShowDown | None) -> None: ...

    def game_end(self, outcome: GameOutcome) -> None: ...


__all__ = ["HAND_LIMIT", "REFEREE", "Failure", "GameOutcome", "RecordWriteError", "Recorder"]
