"""Game records: JSON Lines that anyone can replay and re-judge.

A record file holds one or more games. Each game is a ``game`` line (the tags), then for every hand
a ``hand`` line (dealer and the full deck order) followed by its ``action`` lines and a
``hand_end`` line, and finally a ``game_end`` line. The line models below are the format's single
source; ``docs/record.schema.json`` is generated from them. See docs/RECORDS.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Annotated, Any, Literal

import pydantic
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from arena.errors import ArenaError
from arena.records.outcome import GameOutcome
from engine.cards import CARD_NAMES, parse_card
from engine.formats import BUILT_IN, TWO_PLAYER, Format, format_named
from engine.hand import Action as EngineAction
from protocol import messages as m

RECORD_FORMAT = 2
"""2 added the formats (``mode``, a hand's ``players`` and ``table``); a format-1 record is a
two-player record and reads as one."""


def _known_format(name: str) -> str:
    format_named(name)  # a FormatError (a ValueError) makes the line invalid, naming the format
    return name


FormatName = Annotated[str, AfterValidator(_known_format)]
"""A format's name in a record: checked against the formats this process knows."""


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BotTag(_Line):
    name: str
    command: str = ""
    version: str = ""
    author: str = ""


class GameLine(_Line):
    """The tags of a game."""

    type: Literal["game"]
    format: int = Field(
        default=RECORD_FORMAT,
        ge=1,
        le=RECORD_FORMAT,
        description="The record format: 2 (1, before the formats, reads as two-player).",
    )
    game: int
    seed: int
    rules: dict[str, int | bool | str]
    engine_version: str
    protocol_version: int
    mode: FormatName = Field(
        default=TWO_PLAYER.name,
        pattern=r"^(" + "|".join(BUILT_IN) + r"|[A-Za-z_][\w.]*:[A-Za-z_]\w*)$",
        description="The format (R23-R25); two-player when absent. A format of one's own "
        "(engine.formats.Format) is named module:ATTRIBUTE.",
    )
    first_dealer: int = Field(
        ge=0, le=2, description="A player; in partnership the dealing team (R4, R24, R25)."
    )
    single_hand: bool = Field(default=False, description="Only the first hand is played.")
    date: str = ""
    bots: list[BotTag] = Field(
        min_length=2, max_length=4, description="By seat, or by player in other formats."
    )
    time: dict[str, float] = Field(default_factory=dict)
    match: dict[str, Any] = Field(default_factory=dict)

    @property
    def game_format(self) -> Format:
        """The format the game is played in (:mod:`engine.formats`), by its name in ``mode``."""
        return format_named(self.mode)


class HandLine(_Line):
    """A deal: the dealer and the whole deck order (deck[0] to the non-dealer first)."""

    type: Literal["hand"]
    hand: int
    dealer: int = Field(ge=0, le=1)
    deck: list[m.Card] = Field(min_length=52, max_length=52)
    players: list[int] | None = Field(
        default=None,
        min_length=2,
        max_length=2,
        description="Formats other than two-player: the players in seats 0 and 1 of this hand.",
    )
    table: int | None = Field(default=None, ge=0, le=1, description="Partnership: the table.")


class ActionLine(_Line):
    """One action in the engine's notation, with the time its bot took; ``player`` is the
    hand's seat."""

    type: Literal["action"]
    player: int = Field(ge=0, le=1)
    action: str
    ms: float = 0.0


class HandEndLine(_Line):
    type: Literal["hand_end"]
    hand: int
    end: m.End
    winner: int | None = Field(default=None, ge=0, le=1, description="None: nobody scored.")
    points: int
    doubled: bool = False
    scores: list[int]
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None


class FailureTag(_Line):
    seat: int = Field(description="The seat, or in other formats the player, that failed.")
    reason: str
    message: str
    rule: str = ""


class GameEndLine(_Line):
    type: Literal["game_end"]
    winner: int | None = Field(
        default=None,
        ge=0,
        le=2,
        description="A seat, or a player (Hollywood, three-player) or team (partnership). None: "
        "a drawn game (a drawn single hand, level at the hand limit, or abandoned by the "
        "referee).",
    )
    scores: list[int] = Field(description="By seat, player or team, as `winner`.")
    hands: int
    reason: str = Field(
        default="normal",
        description="normal, hand_limit (R22), a failure reason (the bot in `failure` forfeited) "
        "or referee (the referee failed: see `error`).",
    )
    failure: FailureTag | None = None
    error: str | None = Field(
        default=None, description="With reason referee: the referee's error, for its developers."
    )
    seconds: float = 0.0


RecordLine = Annotated[
    GameLine | HandLine | ActionLine | HandEndLine | GameEndLine, Field(discriminator="type")
]
LINE_ADAPTER: TypeAdapter[RecordLine] = TypeAdapter(RecordLine)


class RecordError(ArenaError, ValueError):
    """A record file that cannot be read: names the file, the line and the problem."""


def record_schema() -> dict[str, Any]:
    body = LINE_ADAPTER.json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"gin-arena game record line, format {RECORD_FORMAT}",
        "description": "Each line of a record file is one of these objects. See docs/RECORDS.md.",
        **body,
    }


def _dump(line: BaseModel) -> str:
    return json.dumps(line.model_dump(mode="json", exclude_none=True), separators=(",", ":"))


@dataclass
class Writer:
    """A :class:`arena.play.referee.Recorder` writing JSON Lines to a stream, flushed per game."""

    stream: IO[str]
    bots: Sequence[BotTag] = ()
    date: str = ""
    match: dict[str, Any] = field(default_factory=dict)
    _hand: int = 0
    _format: Format = TWO_PLAYER

    def _write(self, line: BaseModel) -> None:
        self.stream.write(_dump(line) + "\n")

    def game_start(self, tags: dict[str, object]) -> None:
        bots = tags.pop("bots", None) or list(self.bots)
        line = GameLine.model_validate(
            {"type": "game", **tags, "date": self.date, "bots": bots, "match": self.match}
        )
        self._format = line.game_format
        self._write(line)

    def hand_start(
        self,
        number: int,
        dealer: int,
        deck: Sequence[int],
        players: tuple[int, int] = (0, 1),
        table: int = 0,
    ) -> None:
        self._hand = number
        other = self._format.wire is not TWO_PLAYER.wire
        self._write(
            HandLine(
                type="hand",
                hand=number,
                dealer=dealer,
                deck=[CARD_NAMES[c] for c in deck],
                players=list(players) if other else None,
                table=table if self._format.hands_a_round > 1 else None,
            )
        )

    def action(self, player: int, action: EngineAction, seconds: float) -> None:
        self._write(
            ActionLine(type="action", player=player, action=str(action), ms=round(seconds * 1e3, 3))
        )

    def hand_end(self, result: m.HandEnd, show_down: m.ShowDown | None) -> None:
        self._write(
            HandEndLine(
                type="hand_end",
                hand=self._hand,
                end=result.end,
                winner=result.winner,
                points=result.points,
                doubled=result.doubled,
                scores=result.scores,
                knocker_deadwood=None if show_down is None else show_down.knocker_deadwood,
                defender_deadwood=None if show_down is None else show_down.defender_deadwood,
            )
        )

    def game_end(self, outcome: GameOutcome) -> None:
        f = outcome.failure
        self._write(
            GameEndLine(
                type="game_end",
                winner=outcome.winner,
                scores=list(outcome.scores),
                hands=outcome.hands,
                reason=outcome.reason,
                failure=None
                if f is None
                else FailureTag(seat=f.seat, reason=f.reason, message=f.message, rule=f.rule),
                error=outcome.error,
                seconds=round(outcome.seconds, 3),
            )
        )
        self.stream.flush()


@dataclass
class RecordedHand:
    header: HandLine
    actions: list[tuple[int, ActionLine]] = field(default_factory=list)
    end: tuple[int, HandEndLine] | None = None

    @property
    def deck(self) -> list[int]:
        return [parse_card(c) for c in self.header.deck]


@dataclass
class RecordedGame:
    """One game read back from a record, with the line number of every part."""

    line: int
    tags: GameLine
    hands: list[tuple[int, RecordedHand]] = field(default_factory=list)
    end: tuple[int, GameEndLine] | None = None


def read_lines(path: Path) -> Iterator[tuple[int, RecordLine]]:
    """Every line of a record, validated, with its line number."""
    try:
        stream = path.open(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"cannot read record {str(path)!r}: {error.strerror}") from None
    with stream:
        try:
            yield from parse_lines(stream, str(path))
        except UnicodeDecodeError as error:
            raise RecordError(f"{path}: not UTF-8 text ({error.reason})") from None


def parse_lines(lines: Iterable[str], where: str) -> Iterator[tuple[int, RecordLine]]:
    """Every line of a record's text, validated, with its line number; errors name ``where``
    (a file, or a game of a database) and the line."""
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            yield number, LINE_ADAPTER.validate_json(text)
        except pydantic.ValidationError as error:
            first = error.errors()[0]
            if first["loc"] == ("game", "format"):
                raise RecordError(
                    f"{where}:{number}: record format {first['input']!r} is not one this "
                    f"gin-arena reads (1 to {RECORD_FORMAT}): read it with the version that "
                    "wrote it, or a newer one"
                ) from None
            loc = ".".join(str(p) for p in first["loc"])
            raise RecordError(
                f"{where}:{number}: not a record line ({loc}: {first['msg']})"
            ) from None


def read_games(path: Path) -> list[RecordedGame]:
    """Group a record's lines into games; structural errors name the line."""
    return group_games(read_lines(path), str(path))


def group_games(lines: Iterable[tuple[int, RecordLine]], where: str) -> list[RecordedGame]:
    """Group record lines (:func:`read_lines`, :func:`parse_lines`) into games."""
    games: list[RecordedGame] = []
    hand: RecordedHand | None = None
    for number, line in lines:
        game = games[-1] if games else None
        if isinstance(line, GameLine):
            games.append(RecordedGame(number, line))
            hand = None
            continue
        if game is None or game.end is not None:
            raise RecordError(f"{where}:{number}: a {line.type} line outside a game")
        if isinstance(line, HandLine):
            hand = RecordedHand(line)
            game.hands.append((number, hand))
        elif isinstance(line, GameEndLine):
            game.end = (number, line)
        elif hand is None or hand.end is not None:
            raise RecordError(f"{where}:{number}: a {line.type} line outside a hand")
        elif isinstance(line, ActionLine):
            hand.actions.append((number, line))
        else:
            hand.end = (number, line)
    if not games:
        raise RecordError(f"{where}: no game in this record")
    return games
