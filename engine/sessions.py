"""How the formats above the two-player game are played: Hollywood scoring (R23), three players
(R24) and four players in two partnerships (R25). Every hand in every format is an ordinary
two-player :class:`~engine.hand.Hand`; a session decides who plays it, who deals it and how it is
scored. What each format is, as data, is in :mod:`engine.formats`.

A session is played like a :class:`~engine.game.Game` (the two-player format): ``hand`` is the hand
being played, ``seated`` the players in its seats 0 and 1, :meth:`apply` plays an action and scores
the hand when it ends, :meth:`next_hand` deals the next one, ``result`` is set when the format's
end is reached. Players are numbered from 0 in seating order, clockwise.

Deals come from one SplitMix64 stream seeded with the seed (R21), as in a two-player game: its first
number picks the first dealer (two players: its lowest bit; three players: modulo 3; partnership:
its lowest bit picks the dealing team), then every hand, drawn ones included, shuffles a new deck.
A Hollywood game therefore deals exactly the hands of a two-player game with the same seed.

>>> game = ThreePlayer(seed=0)
>>> game.seated, game.dealer
((2, 0), 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.deck import SplitMix64
from engine.game import GameEnd, GameResult, HandSeries, game_result, next_dealer
from engine.hand import Action, Hand, HandResult
from engine.modes import FormatError, Mode
from engine.rules import HOYLE, Rules

HOLLYWOOD_GAMES = 3
"""How many games Hollywood scores at once (R23)."""


@dataclass(frozen=True, slots=True)
class FormatResult:
    """The end of a game in a format other than two players.

    By player (Hollywood, three players) or by team (partnership: team 0 is players 0 and 2, team 1
    players 1 and 3): ``winner`` (``None`` when drawn), ``scores`` the final totals with every
    bonus, ``hand_points`` the points of hands alone, ``hands_won`` (a partnership counts rounds
    credited to the team), ``line_bonus``. ``game_bonus`` is the game bonus the winner received
    (Hollywood: the sum over its games). ``games`` holds Hollywood's three games, each a
    :class:`~engine.game.GameResult` of its own; ``scores`` is then each player's sum over them.
    """

    mode: Mode
    winner: int | None
    scores: tuple[int, ...]
    hand_points: tuple[int, ...]
    hands_won: tuple[int, ...]
    game_bonus: int
    line_bonus: tuple[int, ...]
    hands_played: int
    end: GameEnd = GameEnd.TARGET
    games: tuple[GameResult, ...] = ()

    def __str__(self) -> str:
        side = "team" if self.mode.teams else "player"
        totals = "-".join(str(s) for s in self.scores)
        after = f"after {self.hands_played} hands"
        if self.end is GameEnd.HAND_LIMIT:
            after += " (the hand limit)"
        if self.winner is None:
            return f"drawn {totals} {after}"
        return f"{side} {self.winner} wins {totals} {after}"


class Session(Protocol):
    """What the referee, the judge and a bot author drive, in any format."""

    rules: Rules
    seed: int
    dealer: int
    hand: Hand
    hand_number: int
    results: list[HandResult]

    @property
    def mode(self) -> Mode: ...

    @property
    def seated(self) -> tuple[int, int]: ...

    @property
    def table(self) -> int: ...

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]: ...

    @property
    def hand_scores(self) -> tuple[int, int]: ...

    @property
    def totals(self) -> tuple[int, ...]: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def result(self) -> GameResult | FormatResult | None: ...

    def apply(self, action: Action) -> HandResult | None: ...

    def record(self, result: HandResult) -> None: ...

    def next_hand(self, deck: Sequence[int] | None = None) -> Hand: ...


class _Format(HandSeries[FormatResult]):
    """What the three formats share: the deal stream, hand bookkeeping and the R22 hand limit
    (counted in rounds: a partnership round is two hands)."""

    mode: Mode

    def __init__(
        self,
        rules: Rules = HOYLE,
        seed: int = 0,
        first_dealer: int | None = None,
        deck: Sequence[int] | None = None,
    ) -> None:
        """Start a game and deal its first hand (from ``deck`` if given, else from the seed);
        ``first_dealer`` is a player, or in partnership the dealing team."""
        check_rules_for(self.mode, rules)
        self.rules = rules
        self.seed = seed
        self._rng = SplitMix64(seed)
        first = self._rng.next()
        self.dealer = self._first_dealer(first) if first_dealer is None else first_dealer
        if not 0 <= self.dealer < self._dealers():
            raise ValueError(
                f"bad first dealer {first_dealer!r}: expected 0..{self._dealers() - 1}"
            )
        self.results: list[HandResult] = []
        self.rounds = 0
        self._result: FormatResult | None = None
        self.hand_number = 0
        self._setup()
        self.hand = self._deal(deck)

    def _setup(self) -> None:
        """Set up the format's own score sheet, before the first deal."""

    def _first_dealer(self, number: int) -> int:
        return number & 1

    def _dealers(self) -> int:
        return 2

    table: int = 0
    """The current hand's table (partnership plays two a round)."""

    @property
    def result(self) -> FormatResult | None:
        return self._result

    def _round_over(self) -> bool:
        """Count a round; True when the hand limit (R22) ends the game."""
        self.rounds += 1
        return self._result is None and self.rounds >= self.rules.hand_limit


def _winner_of(scores: Sequence[int]) -> int | None:
    """The single highest score's index, or None when the highest is shared."""
    top = max(scores)
    leaders = [i for i, s in enumerate(scores) if s == top]
    return leaders[0] if len(leaders) == 1 else None


@dataclass
class _Column:
    """One of Hollywood's three games: each player's points, whether they have a score in it
    (their first win entered), the hands they won in it, and its result once decided."""

    points: list[int]
    entered: list[bool]
    won: list[int]
    result: GameResult | None = None


class Hollywood(_Format):
    """R23: two players, every hand scored into up to three games at once.

    A won hand is entered in every open game in which its winner already has a score, and in the
    first open game in which they have none (first win: game 1; second: games 1 and 2; third and
    later: all three). A game is decided, with its own bonuses, when a player reaches the target in
    it; later wins go only to games still open (a player shut out of a game enters their next win
    as the first score of the next open game). The game is over when all three are decided.

    >>> game = Hollywood(seed=1)
    >>> game.seated, len(game.columns)
    ((0, 1), 3)
    """

    mode = Mode.HOLLYWOOD

    def _setup(self) -> None:
        self.columns = [_Column([0, 0], [False, False], [0, 0]) for _ in range(HOLLYWOOD_GAMES)]

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        return (0, 1), self.dealer

    @property
    def hand_scores(self) -> tuple[int, int]:
        """The scores of the first game still open (the last game once all are decided)."""
        column = next((c for c in self.columns if c.result is None), self.columns[-1])
        return (column.points[0], column.points[1])

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's points so far, summed over the three games (no bonuses)."""
        return tuple(sum(c.points[p] for c in self.columns) for p in (0, 1))

    def entries(self, winner: int) -> list[int]:
        """The games (0, 1, 2) a win by ``winner`` would be entered in now."""
        games = []
        for g, column in enumerate(self.columns):
            if column.result is not None:
                continue
            games.append(g)
            if not column.entered[winner]:
                break
        return games

    def _score(self, result: HandResult) -> None:
        rules = self.rules
        winner = result.winner
        if winner is not None:
            for g in self.entries(winner):
                column = self.columns[g]
                column.points[winner] += result.points
                column.entered[winner] = True
                column.won[winner] += 1
                if column.points[winner] >= rules.game_target:
                    column.result = self._decide(column, winner, GameEnd.TARGET)
            self.dealer = next_dealer(rules, self.dealer, winner)
        if self._round_over():
            for column in self.columns:
                if column.result is None:
                    column.result = self._decide(
                        column, _winner_of(column.points), GameEnd.HAND_LIMIT
                    )
        if all(c.result is not None for c in self.columns):
            self._end()

    def _decide(self, column: _Column, winner: int | None, end: GameEnd) -> GameResult:
        """A Hollywood game's result with its own bonuses (R16), as a two-player game's."""
        return game_result(
            self.rules, column.points, column.won, winner, end=end, hands_played=len(self.results)
        )

    def _end(self) -> None:
        games = tuple(c.result for c in self.columns if c.result is not None)
        scores = tuple(sum(g.scores[p] for g in games) for p in (0, 1))
        end = (
            GameEnd.HAND_LIMIT
            if any(g.end is GameEnd.HAND_LIMIT for g in games)
            else GameEnd.TARGET
        )
        winner = _winner_of(scores)
        self._result = FormatResult(
            mode=self.mode,
            winner=winner,
            scores=scores,
            hand_points=tuple(sum(g.hand_points[p] for g in games) for p in (0, 1)),
            hands_won=tuple(sum(1 for r in self.results if r.winner == p) for p in (0, 1)),
            game_bonus=sum(g.game_bonus for g in games if g.winner == winner),
            line_bonus=tuple(sum(g.line_bonus[p] for g in games) for p in (0, 1)),
            hands_played=len(self.results),
            end=end,
            games=games,
        )


class _Totals(_Format):
    """Formats scored on one running total per side (a player, or a team), with R15 and R16."""

    sides: int

    def _setup(self) -> None:
        self.scores = [0] * self.sides
        self.hands_won = [0] * self.sides

    @property
    def totals(self) -> tuple[int, ...]:
        """The running scores by side (player, or team), no bonuses."""
        return tuple(self.scores)

    def _credit(self, side: int, points: int) -> None:
        self.scores[side] += points
        self.hands_won[side] += 1
        if self.scores[side] >= self.rules.game_target:
            self._end(side, GameEnd.TARGET)

    def _check_limit(self) -> None:
        if self._round_over():
            self._end(_winner_of(self.scores), GameEnd.HAND_LIMIT)

    def _end(self, winner: int | None, end: GameEnd) -> None:
        rules = self.rules
        bonus = 0
        if end is GameEnd.TARGET and winner is not None:
            others = [s for i, s in enumerate(self.scores) if i != winner]
            bonus = rules.game_bonus + (rules.shutout_bonus if not any(others) else 0)
        line = tuple(w * rules.line_bonus for w in self.hands_won)
        final = [s + b for s, b in zip(self.scores, line, strict=True)]
        if winner is not None:
            final[winner] += bonus
        self._result = FormatResult(
            mode=self.mode,
            winner=winner,
            scores=tuple(final),
            hand_points=tuple(self.scores),
            hands_won=tuple(self.hands_won),
            game_bonus=bonus,
            line_bonus=line,
            hands_played=len(self.results),
            end=end,
        )


class ThreePlayer(_Totals):
    """R24: three players. The dealer deals to the other two and sits out; the player on the
    dealer's left (``dealer + 1``) is the hand's non-dealer (seat 0, first to decide on the upcard,
    R6) and the other (``dealer + 2``) holds the dealer's seat (seat 1). The loser of a hand deals
    the next, which the winner and the previous dealer play; after a drawn hand the same dealer
    deals again to the same two. Each player has a running score; the first to the target wins
    (R15), with R16's bonuses (a shutout when neither other player scored).

    >>> game = ThreePlayer(seed=0)
    >>> game.dealer, game.sitting_out, game.seated
    (1, 1, (2, 0))
    """

    mode = Mode.THREE_PLAYER
    sides = 3

    def _first_dealer(self, number: int) -> int:
        return number % 3

    def _dealers(self) -> int:
        return 3

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        return ((self.dealer + 1) % 3, (self.dealer + 2) % 3), 1

    @property
    def sitting_out(self) -> int:
        """The player who dealt the current hand and does not play it."""
        return 3 - sum(self.seated)

    @property
    def hand_scores(self) -> tuple[int, int]:
        a, b = self.seated
        return (self.scores[a], self.scores[b])

    def _score(self, result: HandResult) -> None:
        if result.winner is not None:
            players = self.seated
            winner = players[result.winner]
            self.dealer = players[1 - result.winner]  # the loser deals the next hand
            self._credit(winner, result.points)
        self._check_limit()


class Partnership(_Totals):
    """R25: four players in two teams, team 0 (players 0 and 2) against team 1 (players 1 and 3).

    A round is two hands, at table 0 then table 1, each between a player of each team: in even
    rounds (the first is round 0) 0 v 1 and 2 v 3, in odd rounds 0 v 3 and 2 v 1, so each player
    meets both opponents in turn. Seat 0 of every hand is the team-0 player; the dealing team's
    player deals at both tables (``dealer`` is a team). After both hands, each team's points are the
    sum of the hands its players won (a drawn hand scores nothing); the team with more is credited
    the difference (both won by one team: their sum; one each: the difference; level: nobody). The
    credited team wins the round and O12 decides who deals next, as between two players; after a
    round nobody is credited the same team deals again. Team totals run to the target (R15), with
    R16's bonuses at team level (a box for each round won).

    >>> game = Partnership(seed=3)
    >>> game.table, game.seated
    (0, (0, 1))
    """

    mode = Mode.PARTNERSHIP
    sides = 2
    TABLES = (((0, 1), (2, 3)), ((0, 3), (2, 1)))

    def _setup(self) -> None:
        super()._setup()
        self._next_table = 0
        self.table = 0
        """The current hand's table: 0 or 1."""
        self.round_results: list[HandResult] = []

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        return self.TABLES[self.rounds % 2][self._next_table], self.dealer

    def _deal(self, deck: Sequence[int] | None) -> Hand:
        self.table = self._next_table
        return super()._deal(deck)

    @property
    def hand_scores(self) -> tuple[int, int]:
        return (self.scores[0], self.scores[1])

    def _score(self, result: HandResult) -> None:
        self.round_results.append(result)
        if self.table == 0:
            self._next_table = 1
            return
        points = [0, 0]
        for r in self.round_results:
            if r.winner is not None:
                points[r.winner] += r.points  # seat 0 of every hand is team 0's player
        self.round_results = []
        self._next_table = 0
        credited = _winner_of(points)
        if credited is not None:
            self.dealer = next_dealer(self.rules, self.dealer, credited)
            self._credit(credited, points[credited] - points[1 - credited])
        self._check_limit()


def check_rules_for(mode: Mode, rules: Rules) -> None:
    """Reject options that do not apply to the session of ``mode`` (a :class:`FormatError`)."""
    if mode is Mode.THREE_PLAYER and rules.next_dealer != HOYLE.next_dealer:
        raise FormatError(
            f"option next_dealer={rules.next_dealer} does not apply to three-player: the loser "
            "of each hand deals the next (R24); leave next_dealer at its default"
        )


__all__ = [
    "HOLLYWOOD_GAMES",
    "FormatResult",
    "Hollywood",
    "Partnership",
    "Session",
    "ThreePlayer",
    "check_rules_for",
]
