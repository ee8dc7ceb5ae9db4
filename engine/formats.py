"""What a format is, as data, defined once (R15, R23-R25): a :class:`Format` says who plays,
which side each player's result counts for, how seats turn in mirrored deals and tournaments, who
sits out, the round structure and how a forfeit is scored. The referee, matches, tournaments,
ratings, records, the judge and the replay all ask it. The four formats of the rules are
:data:`BUILT_IN`; a format of your own is a :class:`Format` in any module, named
``"module:ATTRIBUTE"`` (:func:`format_named`). How each built-in is played is in
:mod:`engine.sessions` (and :mod:`engine.game` for two players).

>>> session = new_session(Mode.THREE_PLAYER, seed=0)
>>> session.seated, session.dealer
((2, 0), 1)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from engine.game import Game
from engine.modes import FormatError, Mode
from engine.rules import HOYLE, Rules
from engine.sessions import (
    HOLLYWOOD_GAMES,
    FormatResult,
    Hollywood,
    Partnership,
    Session,
    ThreePlayer,
    check_rules_for,
)


def _any_rules(rules: Rules) -> None:
    """A format that takes every option."""


def _three_player_rules(rules: Rules) -> None:
    check_rules_for(Mode.THREE_PLAYER, rules)


def _to_the_opponent(failed: int, sides: tuple[int, ...], scores: Sequence[int]) -> int | None:
    """The forfeit of a format of two sides: the other side wins."""
    return 1 - sides[failed]


def _to_the_leader(failed: int, sides: tuple[int, ...], scores: Sequence[int]) -> int | None:
    """The forfeit of a format of three or more sides: the leader of the others on points wins
    (nobody when the lead is shared)."""
    others = [s for s in range(len(scores)) if s != sides[failed]]
    top = max(scores[s] for s in others)
    leaders = [s for s in others if scores[s] == top]
    return leaders[0] if len(leaders) == 1 else None


SessionFactory = Callable[[Rules, int, "int | None", "Sequence[int] | None"], Session]
"""How a format starts a game: ``(rules, seed, first_dealer, deck) -> Session``."""
Forfeit = Callable[[int, tuple[int, ...], Sequence[int]], "int | None"]
"""Who wins a game forfeited by player ``failed``: ``(failed, sides, scores by side) -> side``."""


@dataclass(frozen=True, eq=False)
class Format:
    """A format as data: everything the referee, a match, a tournament, the ratings, records, the
    judge and the replay ask of a format, defined once. A format is known by its :attr:`name`
    (the built-ins by :class:`Mode`, any other by ``"module:ATTRIBUTE"``, see
    :func:`format_named`), which is what records and tournament databases store.

    ``sides[p]`` is the side player ``p``'s result counts for: its own (``(0, 1)``, ``(0, 1, 2)``)
    or its team's (partnership: ``(0, 1, 0, 1)``). Results and scores are by side.

    >>> PARTNERSHIP.players, PARTNERSHIP.teams, PARTNERSHIP.partner(1)
    (4, True, 3)
    >>> format_named("three-player").forfeit_winner(0, (10, 30, 20))
    1
    """

    name: str
    """How the format is named on the command line, in records and in databases."""
    wire: Mode
    """What bots are told the format is (docs/PROTOCOL.md knows the four built-ins; a format of
    its own is told as the built-in whose messages it uses)."""
    players: int
    sides: tuple[int, ...]
    start: SessionFactory
    """Start a game: its first hand dealt."""
    rotations: tuple[tuple[int, ...], ...]
    """The seatings a mirrored deal is played in (``seats[p]`` is the bot at player ``p``): each
    bot plays every seat of the deal once."""
    orientations: tuple[tuple[int, ...], ...] = ()
    """How a tournament's table is turned from one deal to the next (``orientation[p]`` is the
    table place at player ``p`` before the rotation); none: the identity."""
    arrangements: tuple[tuple[int, ...], ...] = ()
    """The distinct ways a tournament seats one group of bots at a table (partnership: the three
    ways to split four bots into two teams); none: the group as it comes."""
    relative_seats: bool = False
    """Whether each player is shown its hands from seat 0 (its seat changes from hand to hand)."""
    dealer_sits_out: bool = False
    """Whether the dealer of a hand sits it out (and is told so)."""
    hands_a_round: int = 1
    """Hands played a round, at tables 0, 1, ... (partnership: two)."""
    single_hands: bool = False
    """Whether a match may play single hands instead of games (``--hands``)."""
    check: Callable[[Rules], None] = _any_rules
    """Refuse options that do not apply (a :class:`FormatError` naming them)."""
    forfeit: Forfeit = _to_the_opponent
    summary: str = ""
    """One line: who plays, how it is scored, its rule ID."""

    def __post_init__(self) -> None:
        if len(self.sides) != self.players or sorted(set(self.sides)) != list(
            range(max(self.sides) + 1)
        ):
            raise FormatError(f"format {self.name}: sides {self.sides} do not fit its players")
        for seating in (*self.rotations, *self.orientations, *self.arrangements):
            if sorted(seating) != list(range(self.players)):
                raise FormatError(f"format {self.name}: {seating} is not a seating of its players")
        if ":" in self.name:  # a format of one's own: known from now on in this process
            _OWN[self.name] = self
        elif self.name not in set(Mode):
            raise FormatError(
                f"format {self.name!r}: name a format of your own module:ATTRIBUTE (where it is "
                "defined), so that records, databases and worker processes can find it"
            )

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Format({self.name!r})"

    def __reduce__(self) -> tuple[Callable[[str], Format], tuple[str]]:
        # A format crosses to worker processes by name: the same object comes out of the registry.
        return _loaded, (self.name,)

    @property
    def value(self) -> str:
        """The name (as a :class:`Mode`'s value)."""
        return self.name

    @property
    def side_count(self) -> int:
        """How many sides results and scores are given for."""
        return max(self.sides) + 1

    @property
    def teams(self) -> bool:
        """Whether results are by team (two or more players share a side)."""
        return self.side_count < self.players

    def side_of(self, player: int) -> int:
        """The side player ``player``'s result is counted on."""
        return self.sides[player]

    def members(self, side: int) -> tuple[int, ...]:
        """The players whose results count for ``side``."""
        return tuple(p for p, s in enumerate(self.sides) if s == side)

    def partner(self, player: int) -> int | None:
        """The other player of ``player``'s team, if it has one."""
        mates = [p for p, s in enumerate(self.sides) if s == self.sides[player] and p != player]
        return mates[0] if len(mates) == 1 else None

    def sides_as_told(self, player: int) -> list[int]:
        """The sides in the order ``player`` is told them: its own first, then round the table,
        where seats are relative; in side order otherwise."""
        count = self.side_count
        if not self.relative_seats:
            return list(range(count))
        own = self.sides[player]
        return [(own + k) % count for k in range(count)]

    def forfeit_winner(self, failed: int, scores: Sequence[int]) -> int | None:
        """The side that wins a game player ``failed`` forfeits, from the scores by side: its
        opponent; with three or more sides, the leader of the others (nobody when level)."""
        return self.forfeit(failed, self.sides, scores)

    def seatings(self) -> tuple[tuple[int, ...], ...]:
        """The cycle of seatings a tournament table's games go through: each orientation, in
        every rotation (``seats[p]`` is the table place of the bot at player ``p``)."""
        turns = self.orientations or (tuple(range(self.players)),)
        return tuple(
            tuple(turn[r] for r in rotation) for turn in turns for rotation in self.rotations
        )

    def tables_of(self, group: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The tables a tournament seats ``group`` (bots by table place) at."""
        if not self.arrangements:
            return [group]
        return [tuple(group[i] for i in arrangement) for arrangement in self.arrangements]

    def new_session(
        self,
        rules: Rules = HOYLE,
        seed: int = 0,
        first_dealer: int | None = None,
        deck: Sequence[int] | None = None,
    ) -> Session:
        """A game in this format with its first hand dealt (from ``deck`` if given)."""
        self.check(rules)
        return self.start(rules, seed, first_dealer, deck)


TWO_PLAYER = Format(
    name=Mode.TWO_PLAYER.value,
    wire=Mode.TWO_PLAYER,
    players=2,
    sides=(0, 1),
    start=Game,
    rotations=((0, 1), (1, 0)),
    single_hands=True,
    summary="two players, one game to the target (R15)",
)
HOLLYWOOD = Format(
    name=Mode.HOLLYWOOD.value,
    wire=Mode.HOLLYWOOD,
    players=2,
    sides=(0, 1),
    start=Hollywood,
    rotations=((0, 1), (1, 0)),
    summary="two players, three games scored at once (R23)",
)
THREE_PLAYER = Format(
    name=Mode.THREE_PLAYER.value,
    wire=Mode.THREE_PLAYER,
    players=3,
    sides=(0, 1, 2),
    start=ThreePlayer,
    rotations=((0, 1, 2), (1, 2, 0), (2, 0, 1)),
    orientations=((0, 1, 2), (0, 2, 1)),
    relative_seats=True,
    dealer_sits_out=True,
    check=_three_player_rules,
    forfeit=_to_the_leader,
    summary="three players; the dealer sits out and the loser deals (R24)",
)
PARTNERSHIP = Format(
    name=Mode.PARTNERSHIP.value,
    wire=Mode.PARTNERSHIP,
    players=4,
    sides=(0, 1, 0, 1),
    start=Partnership,
    rotations=((0, 1, 2, 3), (1, 0, 3, 2)),
    orientations=((0, 1, 2, 3), (2, 3, 0, 1)),
    # Team 0 is players 0 and 2: the three ways to split a, b, c, d into two teams.
    arrangements=((0, 2, 1, 3), (0, 1, 2, 3), (0, 1, 3, 2)),
    relative_seats=True,
    hands_a_round=2,
    summary="four players in two teams, two tables a round (R25)",
)
BUILT_IN: Mapping[str, Format] = {
    f.name: f for f in (TWO_PLAYER, HOLLYWOOD, THREE_PLAYER, PARTNERSHIP)
}
"""The formats of the rules (R15, R23-R25), by name."""


_OWN: dict[str, Format] = {}
"""The formats of one's own this process knows, by name: each registers itself when made."""


def format_named(name: str | Mode | Format, *, load: bool = False) -> Format:
    """The format called ``name``: a built-in (:data:`BUILT_IN`), or a format of one's own, named
    ``"module:ATTRIBUTE"``, that this process knows (its module was imported). With ``load`` (a
    name the user gave, or a worker process receiving a format from its parent), such a module is
    imported first; a name read from a record or a database never imports anything. A
    :class:`FormatError` says what is wrong and what to do."""
    if isinstance(name, Format):
        return name
    text = str(name)
    found = BUILT_IN.get(text) or _OWN.get(text)
    if found is not None:
        return found
    module_name, colon, attribute = text.partition(":")
    if not colon or not module_name or not attribute:
        raise FormatError(
            f"unknown mode {text!r}: choose one of {', '.join(BUILT_IN)}, or name a Format "
            "of your own as module:ATTRIBUTE"
        )
    if not load:
        raise FormatError(
            f"format {text!r} is defined in {module_name}, which is not loaded: name it with "
            f"--mode {text} to load it"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise FormatError(f"format {text!r}: cannot import {module_name}: {error}") from None
    found = getattr(module, attribute, None)
    if not isinstance(found, Format):
        raise FormatError(f"format {text!r}: {module_name} has no Format called {attribute}")
    if found.name != text:
        raise FormatError(
            f"format {text!r}: the Format there is named {found.name!r}; name it {text!r} so "
            "that records and databases find it again"
        )
    return found


def _loaded(name: str) -> Format:
    """A format a worker process receives by name (:meth:`Format.__reduce__`)."""
    return format_named(name, load=True)


def check_rules(mode: Mode | Format, rules: Rules) -> None:
    """Reject options that do not apply to ``mode`` (a :class:`FormatError` naming them)."""
    format_named(mode).check(rules)


def new_session(
    mode: Mode | Format,
    rules: Rules = HOYLE,
    seed: int = 0,
    first_dealer: int | None = None,
    deck: Sequence[int] | None = None,
) -> Session:
    """A game in ``mode`` with its first hand dealt (from ``deck`` if given). ``first_dealer``
    is a player, or in partnership the dealing team."""
    return format_named(mode).new_session(rules, seed, first_dealer, deck)


__all__ = [
    "BUILT_IN",
    "HOLLYWOOD",
    "HOLLYWOOD_GAMES",
    "PARTNERSHIP",
    "THREE_PLAYER",
    "TWO_PLAYER",
    "Format",
    "FormatError",
    "FormatResult",
    "Hollywood",
    "Mode",
    "Partnership",
    "Session",
    "ThreePlayer",
    "check_rules",
    "format_named",
    "new_session",
]
