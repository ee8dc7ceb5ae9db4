"""Every message of the bot protocol, version 1, as pydantic models.

One JSON object per line in each direction. Every message has a `type` tag (no default, so it is
required in the schema); `MESSAGE_ADAPTER` decodes any of them. Unknown fields are ignored
(the protocol can grow); cards are written in the engine's notation (`"TD"`).

The words the protocol shares with the engine come from the engine's enums, never retyped here:
a request's `phase` is a :data:`engine.hand.DecisionPhase` and a hand's `end` a
:class:`engine.hand.HandEnd`, each written as its value. The action `kind`s are the protocol's
own (`draw` with a `source` covers the engine's `draw_stock` and `draw_discard`);
:mod:`protocol.convert` maps them to the engine's :class:`engine.hand.ActionKind`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Annotated, Final, Literal, TypeVar, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, WithJsonSchema

from engine.cards import CARD_INDEX, CARD_NAMES, CardError, parse_card
from engine.hand import DecisionPhase
from engine.hand import HandEnd as EngineHandEnd
from engine.modes import Mode as EngineMode

SKIPPABLE_EVENTS: Final = frozenset(
    ("hand_start", "played", "show_down", "hand_end", "sit_out", "round_end")
)
"""The events a bot may ask not to be sent (``ready.ignores``): those of a hand and a round."""

PROTOCOL_NAME: Final = "gin-arena"
PROTOCOL_VERSIONS: Final = (1,)
MAX_LINE_BYTES: Final = 64 * 1024
HISTORY_LIMIT: Final = 400
"""The most actions an observation's ``history`` holds: the hand's last ones (a hand longer than
that needs the turn limit, O15, above its default of 100)."""
"""The longest line either side may send, newline excluded (64 KiB)."""

Seat = Annotated[int, Field(ge=0, le=1, description="A seat: 0 or 1.")]
Player = Annotated[
    int, Field(ge=0, le=3, description="A player of the format, by seating order from 0.")
]


def _card(value: object) -> object:
    if value.__class__ is str and value in CARD_INDEX:  # canonical already: the usual case
        return value
    if isinstance(value, str):
        try:
            return CARD_NAMES[parse_card(value)]
        except CardError as error:
            raise ValueError(str(error)) from None
    return value


# Field before the validator: pydantic drops a pattern placed after a BeforeValidator.
Card = Annotated[
    str,
    Field(
        pattern=r"^[A2-9TJQK][CDHS]$",
        description="A card: rank A23456789TJQK then suit CDHS, e.g. 'TD'. Replies may also "
        "use lower-case suits and 10 for T.",
        examples=["AS", "TD", "7H"],
    ),
    BeforeValidator(_card),
]
Meld = Annotated[list[Card], Field(min_length=3, description="The cards of one meld.")]


def _values_of(members: Iterable[enum.StrEnum], description: str) -> WithJsonSchema:
    """The JSON Schema of a field holding one of ``members``: their values, inline."""
    return WithJsonSchema(
        {"enum": [m.value for m in members], "type": "string", "description": description}
    )


End = Annotated[
    EngineHandEnd,
    _values_of(EngineHandEnd, "How the hand ended (R11-R14, R17, R19)."),
]
"""How a hand ended: an :class:`engine.hand.HandEnd`, written as its value (``"big_gin"``)."""

ModeName = Annotated[
    EngineMode,
    _values_of(EngineMode, "The format (R23-R25); two-player when absent."),
]
"""A format: an :class:`engine.modes.Mode`, written as its value (``"three-player"``)."""

DrawSource = Literal["stock", "discard"]
"""Where a draw takes its card from: the top of the stock or of the discard pile."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


Built = TypeVar("Built", bound=BaseModel)


def trusted(cls: type[Built], **values: object) -> Built:
    """A message the referee builds from the engine's values, unvalidated: what
    ``cls.model_construct`` makes, without its per-field work. ``values`` must give every field,
    in the model's order, each already of its type (``tests/protocol/test_messages.py`` checks
    this against validation; ``tests/arena/play/test_typed.py`` whole games against their encoding).
    What a bot sends is always validated."""
    built = cls.__new__(cls)
    _set(built, "__dict__", values)
    _set(built, "__pydantic_fields_set__", set(values))
    _set(built, "__pydantic_extra__", None)
    _set(built, "__pydantic_private__", None)
    return built


_set = object.__setattr__


# -- actions ----------------------------------------------------------------------------------


class PassAction(_Message):
    """Decline the first upcard (R6)."""

    kind: Literal["pass"]


class DrawAction(_Message):
    """Draw from the stock or take the top of the discard pile (R7); taking the first upcard
    is a draw from the discard pile (R6)."""

    kind: Literal["draw"]
    source: DrawSource


class DiscardAction(_Message):
    """Discard a card, ending the turn (R7)."""

    kind: Literal["discard"]
    card: Card


class KnockAction(_Message):
    """Discard `card` and knock (R9). `melds` optionally declares the arrangement of the ten
    cards kept (R20). Without `card`: big gin, all eleven cards melded (R19)."""

    kind: Literal["knock"]
    card: Card | None = None
    melds: list[Meld] | None = None
    gin: bool | None = Field(
        default=None,
        description="In a request's legal actions only: true when this knock is gin (the ten "
        "cards kept meld completely, R14) or big gin (no card, R19); absent otherwise. A reply "
        "need not repeat it (it is ignored there).",
    )


Action = Annotated[
    PassAction | DrawAction | DiscardAction | KnockAction, Field(discriminator="kind")
]


# -- referee to bot ---------------------------------------------------------------------------


class TimeControl(_Message):
    """The clock for every move, in milliseconds."""

    move_ms: int = Field(ge=1, description="Time for one move, before the grace margin.")
    bank_ms: int = Field(ge=0, description="Extra time for the whole game, spent on overruns.")
    grace_ms: int = Field(ge=0, description="Margin the referee allows for transport delays.")
    startup_ms: int = Field(ge=1, description="Time to answer hello.")
    quit_ms: int | None = Field(
        default=None,
        ge=0,
        description="Time to exit after quit before the bot's processes are killed.",
    )


class Hello(_Message):
    """The referee's first message: the protocol and versions it speaks, the rules, the clock
    and, for information, the seat the bot is expected to take first (the seat of each game is
    in its `game_start`). The bot answers with `Ready`."""

    type: Literal["hello"]
    protocol: Literal["gin-arena"]
    versions: list[int] = Field(min_length=1)
    seat: Seat
    rules: dict[str, int | bool | str] = Field(description="Every rules option by name.")
    time: TimeControl
    opponent: str | None = None
    mode: ModeName | None = Field(default=None, description="The format; absent: two-player.")
    players: int | None = Field(
        default=None, ge=2, le=4, description="How many players the format seats; absent: 2."
    )


class GameStart(_Message):
    """A new game of the match begins; the bot keeps its seat for the whole game. In the
    three-player and partnership formats every hand is shown from the bot's own side: it is
    always seat 0, its opponent of the hand seat 1, and `player` says who it is at the table."""

    type: Literal["game_start"]
    game: int = Field(ge=1, description="The game's number in the match, from 1.")
    seat: Seat
    target: int = Field(description="Score that wins the game (R15).")
    single_hand: bool = Field(
        default=False,
        description="Only one hand is played: its winner wins the game and the target does not "
        "apply (`gin-arena match --hands`).",
    )
    mode: ModeName | None = Field(default=None, description="The format; absent: two-player.")
    players: int | None = Field(
        default=None, ge=2, le=4, description="How many players the format seats; absent: 2."
    )
    player: Player | None = Field(
        default=None,
        description="The bot's player number at the table (formats other than two-player).",
    )
    partner: Player | None = Field(default=None, description="The partner's player (partnership).")
    names: list[str] | None = Field(
        default=None, description="The bots' names by player (formats other than two-player)."
    )


class HandStart(_Message):
    """A hand is dealt (R5). `hand` is the bot's own ten cards."""

    type: Literal["hand_start"]
    hand_number: int = Field(ge=1)
    dealer: Seat
    hand: list[Card]
    upcard: Card
    stock_size: int
    knock_limit: int
    scores: list[int] = Field(description="Game scores before this hand, by seat.")
    players: list[Player] | None = Field(
        default=None,
        description="The players in seats 0 and 1 of this hand (formats other than two-player).",
    )
    table: int | None = Field(default=None, description="The table (partnership: 0 or 1).")


class Played(_Message):
    """An action by either player (`player`), sent to both. `card` is the card drawn: for a
    draw from the discard pile (public) it goes to both; for a draw from the stock only to the
    player who drew it."""

    type: Literal["played"]
    player: Seat
    action: Action
    card: Card | None = None


class LayOffModel(_Message):
    card: Card
    meld: int = Field(ge=0, description="Index into knocker_melds.")


class ShowDown(_Message):
    """Both spreads after a knock (R10), with the defender's lay-offs."""

    type: Literal["show_down"]
    knocker: Seat
    discard: Card | None = Field(default=None, description="Absent after big gin.")
    knocker_melds: list[Meld]
    knocker_deadwood_cards: list[Card]
    knocker_deadwood: int
    defender_melds: list[Meld]
    lay_offs: list[LayOffModel]
    defender_deadwood_cards: list[Card]
    defender_deadwood: int


class HandEnd(_Message):
    """How the hand ended and the game scores after it (R11-R14, R17-R19)."""

    type: Literal["hand_end"]
    end: End
    winner: Seat | None = None
    points: int
    doubled: bool = False
    scores: list[int]


class SitOut(_Message):
    """Three players: the bot deals this hand to `players` and sits it out (R24)."""

    type: Literal["sit_out"]
    hand_number: int = Field(ge=1)
    players: list[Player] = Field(min_length=2, max_length=2, description="Seats 0 and 1.")


class TableResult(_Message):
    """One hand's public result, for the whole table."""

    table: int = Field(ge=0, le=1)
    players: list[Player] = Field(min_length=2, max_length=2, description="Seats 0 and 1.")
    dealer: Player
    end: End
    winner: Player | None = None
    points: int


class HollywoodGame(_Message):
    """One of Hollywood's three games (R23)."""

    scores: list[int] = Field(description="Points in this game, by player.")
    winner: Player | None = Field(default=None, description="Set once the game is decided.")


class RoundEnd(_Message):
    """Formats other than two-player: a round's public results, sent to every player (R23-R25).
    A round is one hand, or in partnership the two hands of both tables. `scores` are by player
    (three-player, Hollywood: the sum of the three games) or by team (partnership: team 0 is
    players 0 and 2)."""

    type: Literal["round_end"]
    round: int = Field(ge=1)
    tables: list[TableResult] = Field(min_length=1, max_length=2)
    credited: int | None = Field(
        default=None, description="Partnership: the team credited with `points` (R25)."
    )
    points: int = Field(default=0, description="Partnership: the points credited.")
    scores: list[int]
    games: list[HollywoodGame] | None = Field(default=None, description="Hollywood's games.")


class GameEnd(_Message):
    """The game is over. `reason` is `normal`, `hand_limit` (R22), the failure that forfeited it,
    or `referee` (the referee failed; the game is drawn). In the three-player and partnership
    formats `winner` and `scores` are from the bot's side (0: itself or its team; three-player:
    the others follow in seating order); `final_winner` and `final_scores` are by player or
    team."""

    type: Literal["game_end"]
    winner: int | None = Field(
        default=None, ge=0, le=2, description="Absent when a single hand was drawn."
    )
    scores: list[int]
    reason: str = "normal"
    final_winner: int | None = Field(
        default=None, ge=0, le=3, description="The winning player, or team in partnership."
    )
    final_scores: list[int] | None = None


class HistoryEntry(_Message):
    """One action of the hand so far, as the player was told it in its ``played`` event."""

    player: Seat
    action: Action
    card: Card | None = Field(
        default=None,
        description="The card drawn: from the discard pile (public), or from the stock by the "
        "player itself.",
    )


class Observation(_Message):
    """Everything the bot may know when asked to act: its own cards and the public record."""

    seat: Seat
    phase: DecisionPhase
    hand: list[Card]
    discard_pile: list[Card] = Field(description="Bottom first; the last card is the top.")
    stock_size: int
    opponent_known: list[Card] = Field(
        description="Cards the opponent took from the discard pile and still holds."
    )
    opponent_hand_size: int
    taken_card: Card | None = Field(
        default=None,
        description="The card just taken from the discard pile, which may not be discarded "
        "this turn (R8), if the rules forbid it.",
    )
    first_upcard: Card
    knock_limit: int
    turn: int
    dealer: Seat
    hand_number: int
    scores: list[int]
    target: int
    history: list[HistoryEntry] = Field(
        default_factory=list,
        max_length=HISTORY_LIMIT,
        description="The hand's actions so far, oldest first, each as the player's played event "
        "told it: every first-upcard decision, every draw with its source (and the card, when "
        "it came from the discard pile or the player drew it), every discard and who made it. "
        "At most the last 400 (a longer hand needs a turn limit, O15, above 200). In the "
        "compact form (ready.form), only the entries since the bot's previous request of this "
        "hand: see history_from.",
    )
    history_from: int | None = Field(
        default=None,
        ge=0,
        description='The compact form only (ready.form "compact"): the index, in the hand\'s '
        "history, of the first entry of history, which then holds the entries since the bot's "
        "previous request of this hand (0 at its first request of a hand). The bot appends them "
        "to the entries it has: history_from is always the number it holds. Absent in the plain "
        "form, where history is the whole hand's.",
    )


class Clock(_Message):
    move_ms: int = Field(description="Time for this move, before the grace margin.")
    bank_ms: int = Field(description="Time bank left for the game.")


class Request(_Message):
    """A decision to make. Answer with a `Reply` echoing `id`, whose `action` is one
    of `legal` (a knock may add `melds`)."""

    type: Literal["request"]
    id: int = Field(ge=1)
    phase: DecisionPhase
    legal: list[Action]
    observation: Observation
    clock: Clock


class ErrorNotice(_Message):
    """The referee tells the bot why it forfeits, before the game ends."""

    type: Literal["error"]
    reason: str
    message: str
    rule: str | None = Field(default=None, description="The rule ID an illegal action broke.")


class Quit(_Message):
    """The match is over: the bot should exit."""

    type: Literal["quit"]


# -- bot to referee ---------------------------------------------------------------------------


class Ready(_Message):
    """The bot's answer to `Hello`."""

    type: Literal["ready"]
    protocol_version: int = Field(
        strict=True, description="The version the bot chose from hello.versions."
    )
    name: str = Field(
        min_length=1,
        max_length=100,
        description="The bot's name for itself, for information only: the arena names a bot as "
        "the organiser did.",
    )
    author: str = Field(default="", max_length=200)
    bot_version: str = Field(default="", max_length=100)
    ignores: list[Annotated[str, Field(max_length=40)]] | None = Field(
        default=None,
        max_length=20,
        description="The events the bot does nothing with: the referee need not send them. "
        "Only hand_start, played, show_down, hand_end, sit_out and round_end may be left out; "
        "other names are ignored.",
    )
    form: Literal["plain", "compact"] | None = Field(
        default=None,
        description='How the bot wants its requests: "plain" (the default), each with the '
        'hand\'s whole history, or "compact", each with only the history entries since its '
        "previous request of the hand (observation.history_from says where they start).",
    )


class Reply(_Message):
    """The bot's answer to a `Request`."""

    type: Literal["reply"]
    id: int = Field(strict=True, description="The id of the request this answers.")
    action: Action


RefereeMessage = (
    Hello
    | GameStart
    | HandStart
    | Request
    | Played
    | ShowDown
    | HandEnd
    | GameEnd
    | SitOut
    | RoundEnd
    | ErrorNotice
    | Quit
)
BotMessage = Ready | Reply
Message = Annotated[RefereeMessage | BotMessage, Field(discriminator="type")]

MESSAGE_ADAPTER: Final[TypeAdapter[Message]] = TypeAdapter(
    Message, config=ConfigDict(defer_build=True)
)
"""Decodes any message of either direction."""

MESSAGE_TYPES: Final = {
    get_args(m.model_fields["type"].annotation)[0]: m
    for m in (
        Hello,
        GameStart,
        HandStart,
        Request,
        Played,
        ShowDown,
        HandEnd,
        GameEnd,
        SitOut,
        RoundEnd,
        ErrorNotice,
        Quit,
        Ready,
        Reply,
    )
}
