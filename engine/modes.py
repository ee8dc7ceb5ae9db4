"""The formats a game can be played in, by name (R23-R25); the rules of each are in
:mod:`engine.formats`."""

from __future__ import annotations

import enum

from engine.errors import EngineError


class FormatError(EngineError, ValueError):
    """A format asked for something it cannot do: rules or a player count that do not apply."""


class Mode(enum.StrEnum):
    """A format: how many play, who plays each hand and how hands are scored."""

    TWO_PLAYER = "two-player"
    """Two players, one game to the target (R15)."""
    HOLLYWOOD = "hollywood"
    """Two players, three games scored at once (R23)."""
    THREE_PLAYER = "three-player"
    """Three players; the dealer sits out and the loser deals (R24)."""
    PARTNERSHIP = "partnership"
    """Four players in two teams, two tables a round (R25)."""

    @property
    def players(self) -> int:
        """How many players the format seats."""
        return _PLAYERS[self]

    @property
    def relative_seats(self) -> bool:
        """Whether a player's seat changes from hand to hand (three players, partnership): the
        protocol then shows every player its own hand from seat 0."""
        return self in (Mode.THREE_PLAYER, Mode.PARTNERSHIP)

    @property
    def teams(self) -> bool:
        """Whether results are by team (partnership: players 0 and 2 against 1 and 3)."""
        return self is Mode.PARTNERSHIP

    @classmethod
    def parse(cls, text: str) -> Mode:
        try:
            return cls(text)
        except ValueError:
            raise FormatError(
                f"unknown mode {text!r}: choose one of {', '.join(m.value for m in cls)}"
            ) from None


_PLAYERS = {Mode.TWO_PLAYER: 2, Mode.HOLLYWOOD: 2, Mode.THREE_PLAYER: 3, Mode.PARTNERSHIP: 4}
