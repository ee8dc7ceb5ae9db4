"""A format defined only here, as data (:class:`engine.formats.Format`), plays through every part
of the arena without an edit anywhere else: a match (mirrored, recorded), the judge, the replay,
the ratings, a tournament with worker processes (which find the format by its name), and the
command line (``--mode MODULE:FORMAT``).

The toy is two-player best-of-three: hands are scored as in a two-player game, a game is won at
the target, the loser of a hand deals the next, and the first to win two games wins the match.
Results are by player, so bots are told it as two-player games.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest
from support import cli_env, gin_arena

from arena.play.match import Match
from arena.records.judge import judge
from arena.records.record import read_games
from arena.records.replay import render
from arena.seats.botspec import BotSpec
from arena.stats.ratings import Result, table_results
from arena.tournament.config import Config, schedule
from arena.tournament.runner import run
from arena.tournament.standings import standings
from arena.tournament.store import Store
from engine.deck import SplitMix64
from engine.formats import Format, FormatResult, format_named
from engine.game import GameEnd, HandSeries
from engine.hand import HandResult
from engine.modes import FormatError, Mode
from engine.rules import HOYLE, Rules

GAMES_TO_WIN = 2
SHORT = HOYLE.replace(game_target=10)
"""Games of a hand or two: the format's plumbing is what is tested here, not the bots."""


class BestOfThree(HandSeries[FormatResult]):
    """Two players; the first to win two games (each to the target) wins."""

    mode = Mode.TWO_PLAYER
    table = 0

    def __init__(
        self,
        rules: Rules = HOYLE,
        seed: int = 0,
        first_dealer: int | None = None,
        deck: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self._rng = SplitMix64(seed)
        pick = self._rng.next() & 1
        self.dealer = pick if first_dealer is None else first_dealer
        self.results: list[HandResult] = []
        self.hand_number = 0
        self.points = [0, 0]
        self.games_won = [0, 0]
        self.hands_won = [0, 0]
        self._result: FormatResult | None = None
        self.hand = self._deal(deck)

    @property
    def result(self) -> FormatResult | None:
        return self._result

    @property
    def next_seating(self) -> tuple[tuple[int, int], int]:
        return (0, 1), self.dealer

    @property
    def hand_scores(self) -> tuple[int, int]:
        return (self.points[0], self.points[1])

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.games_won)

    def _score(self, result: HandResult) -> None:
        winner = result.winner
        if winner is not None:
            self.points[winner] += result.points
            self.hands_won[winner] += 1
            self.dealer = 1 - winner
            if self.points[winner] >= self.rules.game_target:
                self.games_won[winner] += 1
                self.points = [0, 0]
                if self.games_won[winner] == GAMES_TO_WIN:
                    self._end(winner, GameEnd.TARGET)
        if self._result is None and len(self.results) >= self.rules.hand_limit:
            a, b = self.games_won
            self._end(None if a == b else (0 if a > b else 1), GameEnd.HAND_LIMIT)

    def _end(self, winner: int | None, end: GameEnd) -> None:
        self._result = FormatResult(
            mode=self.mode,
            winner=winner,
            scores=tuple(self.games_won),
            hand_points=tuple(self.points),
            hands_won=tuple(self.hands_won),
            game_bonus=0,
            line_bonus=(0, 0),
            hands_played=len(self.results),
            end=end,
        )


BEST_OF_THREE = Format(
    name=f"{__name__}:BEST_OF_THREE",
    wire=Mode.TWO_PLAYER,
    players=2,
    sides=(0, 1),
    start=BestOfThree,
    rotations=((0, 1), (1, 0)),
    summary="two players, the first to win two games wins",
)


def test_the_format_is_known_by_its_name_and_crosses_processes_by_it() -> None:
    assert format_named(BEST_OF_THREE.name) is BEST_OF_THREE
    assert format_named(BEST_OF_THREE.name, load=True) is BEST_OF_THREE
    with pytest.raises(FormatError, match="name a format of your own module:ATTRIBUTE"):
        Format(name="toy", wire=Mode.TWO_PLAYER, players=2, sides=(0, 1), start=BestOfThree,
               rotations=((0, 1), (1, 0)))  # fmt: skip
    with pytest.raises(FormatError, match="which is not loaded: name it with --mode"):
        format_named("no_such_module_here:TOY")
    with pytest.raises(FormatError, match="cannot import no_such_module_here"):
        format_named("no_such_module_here:TOY", load=True)


def play_match(record: io.StringIO, games: int = 4) -> None:
    bots = (BotSpec("greedy", builtin="greedy"), BotSpec("strong", builtin="strong"))
    match = Match(bots, SHORT, games=games, seed=5, mirror=True, mode=BEST_OF_THREE)
    result = match.play(record=record)
    assert result.played == games
    assert all(g.outcome.failure is None and g.outcome.error is None for g in result.games)
    assert all(g.outcome.mode is BEST_OF_THREE for g in result.games)
    # A match is over when a bot has won two games, so its scores are games won.
    assert all(max(g.outcome.scores) == GAMES_TO_WIN for g in result.games)


def test_a_match_is_recorded_judged_replayed_and_rated(tmp_path: Path) -> None:
    record = io.StringIO()
    play_match(record)
    path = tmp_path / "toy.jsonl"
    path.write_text(record.getvalue(), encoding="utf-8")
    verdict = judge(path, BEST_OF_THREE)
    assert verdict.ok and verdict.games == 4
    assert verdict.hands > 4  # two games of at least one hand each, four times
    games = read_games(path)
    assert {g.tags.mode for g in games} == {BEST_OF_THREE.name}
    text = "\n".join(render(games[0]))
    assert f"Game 1, {BEST_OF_THREE.name}: greedy v strong" in text
    assert "Game over:" in text
    end = games[0].end
    assert end is not None
    results = table_results(BEST_OF_THREE.name, ["greedy", "strong"], end[1].winner, end[1].scores)
    assert results == [Result("greedy", "strong", 1.0 - end[1].winner)]  # type: ignore[operator]


def test_a_judge_catches_an_edited_result_of_the_format(tmp_path: Path) -> None:
    record = io.StringIO()
    play_match(record, games=2)
    lines = record.getvalue().splitlines()
    last = max(i for i, line in enumerate(lines) if '"type":"game_end"' in line)
    lines[last] = (
        lines[last].replace('"scores":[2,', '"scores":[3,').replace(',2],"hands"', ',3],"hands"')
    )
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    verdict = judge(path)
    assert verdict.disagreement is not None
    assert verdict.disagreement.line == last + 1


def test_a_tournament_in_worker_processes_rates_every_bot(tmp_path: Path) -> None:
    bots = tuple(BotSpec(name, builtin=name) for name in ("greedy", "strong", "random"))
    config = Config(bots=bots, games_per_pair=2, seed=9, rules=SHORT, mode=BEST_OF_THREE)
    assert len(schedule(config)) == 3
    store = Store.create(tmp_path / "toy.sqlite", config.to_json())
    try:
        played = run(config, store, 2)
        rows = list(store.games())
    finally:
        store.close()
    assert played == len(rows) == 6
    assert {row.mode for row in rows} == {BEST_OF_THREE.name}
    assert all(row.reason == "normal" and row.winner for row in rows)
    reopened = Store.open(tmp_path / "toy.sqlite", readonly=True)
    try:
        assert Config.from_json(reopened.config()).mode is BEST_OF_THREE
    finally:
        reopened.close()
    table = standings(config.names(), rows, None, BEST_OF_THREE.name)
    assert sorted(r.name for r in table.fit.ratings) == ["greedy", "random", "strong"]
    assert sum(r.games for r in table.fit.ratings) == 12


def test_the_command_line_plays_and_judges_it(tmp_path: Path) -> None:
    here = Path(__file__).resolve()
    env_path = f"{here.parent}:{here.parents[2]}"  # this module, and the support it imports
    record = tmp_path / "toy.jsonl"
    mode = BEST_OF_THREE.name
    args = ("greedy", "random", "--mode", mode, "--games", "2", "--set", "game_target=10")
    done = gin_arena("match", *args, "--record", str(record), env=_env(env_path))
    assert done.returncode == 0, done.stderr
    assert f", {mode}" in done.stdout
    judged = gin_arena("judge", str(record), "--mode", mode, env=_env(env_path))
    assert judged.returncode == 0, judged.stderr
    unloaded = gin_arena("judge", str(record))
    assert unloaded.returncode != 0
    assert "which is not loaded: name it with --mode" in unloaded.stdout + unloaded.stderr


def _env(path: str) -> dict[str, str]:
    env = cli_env()
    env["PYTHONPATH"] = path + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
