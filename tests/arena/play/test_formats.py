"""The referee, records, judge and ``gin-arena match`` in every format (R23-R25): games played to
the end, every hand shown from seat 0 where seats change (so a bot written for two players plays
them unchanged), the sit-out and round events, forfeits, and bad input."""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import gin_arena

from arena.cli.main import main
from arena.play.match import Match, rotations
from arena.play.referee import Clock, GameOutcome, Referee
from arena.records.judge import judge
from arena.records.record import BotTag, RecordedGame, RecordError, Writer, read_games
from arena.seats.botspec import BotSpec
from arena.seats.connection import InProcessConnection
from bots.greedy import GreedyBot
from bots.random import RandomBot
from bots.sdk import Bot, View
from engine.cards import CARD_NAMES, card_names
from engine.formats import FormatResult, ThreePlayer, format_named
from engine.hand import Action, Hand
from engine.modes import Mode
from engine.rules import HOYLE, PRESETS, Rules
from protocol import messages as m

SHORT = HOYLE.replace(game_target=40)
CLOCK = Clock(move=5.0)
MODES = [Mode.HOLLYWOOD, Mode.THREE_PLAYER, Mode.PARTNERSHIP]


class SeatKeeper(GreedyBot):
    """A bot written for two players only: it keeps the seat ``game_start`` gave it and notes
    every message that disagrees with it (a move of its own reported as the opponent's, a request
    for another seat)."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.messages: list[m.Message] = []
        self.acted = False

    def handle(self, message: m.Message) -> m.Message | None:
        self.messages.append(message)
        return super().handle(message)

    def choose(self, view: View) -> Action:
        if view.request.observation.seat != self.seat:
            self.problems.append(f"asked for seat {view.request.observation.seat}")
        self.acted = True
        return super().choose(view)

    def on_played(self, message: m.Played) -> None:
        if (message.player == self.seat) != self.acted:
            self.problems.append(f"played by {message.player} after acted={self.acted}")
        self.acted = False


class Crasher(RandomBot):
    """Plays randomly, then fails on its ``crash_at``-th request."""

    crash_at = 3

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def choose(self, view: View) -> Action:
        self.asked += 1
        if self.asked == self.crash_at:
            raise RuntimeError("deliberate crash")
        return super().choose(view)


def play(
    mode: Mode,
    factories: list[Callable[[], Bot]],
    seed: int = 1,
    rules: Rules = SHORT,
) -> tuple[GameOutcome, list[Bot], str]:
    """One game in ``mode`` between in-process bots; the outcome, the bot objects, the record."""
    bots: list[Bot] = []

    def keep(factory: Callable[[], Bot]) -> Callable[[], Bot]:
        def make() -> Bot:
            bot = factory()
            bots.append(bot)
            return bot

        return make

    connections = [InProcessConnection(f"bot{k}", keep(f)) for k, f in enumerate(factories)]
    stream = io.StringIO()
    tags = [BotTag(name=c.name) for c in connections]
    referee = Referee(rules, CLOCK, recorder=Writer(stream, tags))
    for player, c in enumerate(connections):
        c.start(referee.hello(0 if mode.relative_seats else min(player, 1), None, mode), 5)
    outcome = referee.play_game(connections, seed, mode=mode, names=[c.name for c in connections])
    for c in connections:
        c.close()
    return outcome, bots, stream.getvalue()


def judged(tmp_path: Path, record: str) -> None:
    path = tmp_path / "record.jsonl"
    path.write_text(record)
    verdict = judge(path)
    assert verdict.ok, verdict.disagreement


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_format_is_played_to_its_end_and_judged(
    mode: Mode, seed: int, tmp_path: Path
) -> None:
    outcome, _, record = play(mode, [GreedyBot] * mode.players, seed, PRESETS["bonus"])
    assert outcome.failure is None and outcome.error is None
    result = outcome.result
    assert isinstance(result, FormatResult) and result.mode is mode
    assert outcome.winner == result.winner and outcome.scores == result.scores
    assert len(outcome.scores) == (2 if mode is not Mode.THREE_PLAYER else 3)
    if mode is Mode.HOLLYWOOD:
        assert len(result.games) == 3 and all(g.winner is not None for g in result.games)
        assert result.scores == tuple(sum(g.scores[p] for g in result.games) for p in (0, 1))
    judged(tmp_path, record)


@pytest.mark.parametrize("mode", [Mode.THREE_PLAYER, Mode.PARTNERSHIP])
def test_a_bot_written_for_two_players_is_shown_every_hand_from_seat_zero(
    mode: Mode, tmp_path: Path
) -> None:
    outcome, bots, record = play(mode, [SeatKeeper] * mode.players, seed=3)
    assert outcome.failure is None
    hands = {}
    for game in parse(record, tmp_path):
        for _, hand in game.hands:
            hands[hand.header.hand] = hand
    keepers = [b for b in bots if isinstance(b, SeatKeeper)]
    assert len(keepers) == mode.players
    for keeper in keepers:
        assert keeper.problems == []
        start = next(x for x in keeper.messages if isinstance(x, m.GameStart))
        assert start.seat == 0 and start.mode is mode and start.players == mode.players
        me = start.player
        assert me is not None
        assert start.partner == ((me + 2) % 4 if mode is Mode.PARTNERSHIP else None)
        dealt = [x for x in keeper.messages if isinstance(x, m.HandStart)]
        assert dealt, "every player plays some hands"
        for message in dealt:
            recorded = hands[message.hand_number]
            assert recorded.header.players is not None
            players = recorded.header.players
            assert message.players is not None and message.players[0] == me
            seat = players.index(me)
            dealt_hand = Hand(SHORT, recorded.header.dealer, recorded.deck)
            assert message.hand == card_names(dealt_hand.hands[seat]), "its own cards only"
            assert message.dealer == (
                recorded.header.dealer if seat == 0 else 1 - recorded.header.dealer
            )
        end = next(x for x in keeper.messages if isinstance(x, m.GameEnd))
        assert end.final_winner == outcome.winner and end.final_scores == list(outcome.scores)
        own = me % 2 if mode is Mode.PARTNERSHIP else me
        assert end.scores[0] == outcome.scores[own]
        assert (end.winner == 0) == (outcome.winner == own)


def parse(record: str, tmp_path: Path) -> list[RecordedGame]:
    path = tmp_path / "parsed.jsonl"
    path.write_text(record)
    return read_games(path)


def test_three_players_the_dealer_sits_out_is_told_so_and_the_loser_deals_next(
    tmp_path: Path,
) -> None:
    outcome, bots, record = play(Mode.THREE_PLAYER, [SeatKeeper] * 3, seed=5)
    assert outcome.failure is None
    (game,) = parse(record, tmp_path)
    hands = [hand for _, hand in game.hands]
    seated = {h.header.hand: h.header.players for h in hands}
    told: dict[int, list[int]] = {}
    for bot in bots:
        assert isinstance(bot, SeatKeeper) and bot.player is not None
        for message in bot.messages:
            if isinstance(message, m.SitOut):
                told.setdefault(message.hand_number, []).append(bot.player)
                assert message.players == seated[message.hand_number]
            if isinstance(message, m.HandStart):
                assert bot.player in (seated[message.hand_number] or [])
    assert set(told) == set(seated), "a sit-out notice for every hand"
    for number, players in seated.items():
        assert players is not None
        assert told[number] == [3 - sum(players)], "only the dealer sits out, and is told"
    assert game.tags.first_dealer == 3 - sum(seated[1] or [])
    for before, after in itertools.pairwise(hands):
        assert before.end is not None and before.header.players and after.header.players
        winner = before.end[1].winner
        if winner is None:  # a drawn hand: the same dealer deals to the same two
            assert after.header.players == before.header.players
        else:  # the loser deals; the winner and the previous dealer play
            loser = before.header.players[1 - winner]
            assert 3 - sum(after.header.players) == loser
            assert set(after.header.players) == {
                before.header.players[winner],
                3 - sum(before.header.players),
            }


def test_partnership_rounds_credit_the_sum_or_the_difference_to_the_same_sheet_for_all() -> None:
    outcome, bots, _ = play(Mode.PARTNERSHIP, [SeatKeeper] * 4, seed=7, rules=HOYLE)
    assert outcome.failure is None
    sheets = [[x for x in b.messages if isinstance(x, m.RoundEnd)] for b in bots]  # type: ignore[attr-defined]
    assert all(s == sheets[0] for s in sheets), "every player is sent the same round results"
    totals = [0, 0]
    for number, notice in enumerate(sheets[0], 1):
        assert notice.round == number and len(notice.tables) == 2
        pairs = [t.players for t in notice.tables]
        assert pairs == ([[0, 1], [2, 3]] if number % 2 else [[0, 3], [2, 1]])
        points = [0, 0]
        for t in notice.tables:
            if t.winner is not None:
                points[t.winner % 2] += t.points
        if points[0] == points[1]:
            assert notice.credited is None and notice.points == 0
        else:
            side = 0 if points[0] > points[1] else 1
            assert notice.credited == side and notice.points == points[side] - points[1 - side]
            totals[side] += notice.points
        assert notice.scores == totals
    assert outcome.scores == tuple(totals) and max(totals) >= HOYLE.game_target


@pytest.mark.parametrize("mode", MODES)
def test_a_forfeit_ends_the_game_for_the_format_and_the_record_judges(
    mode: Mode, tmp_path: Path
) -> None:
    factories: list[Callable[[], Bot]] = [GreedyBot] * mode.players
    factories[1] = Crasher
    outcome, _, record = play(mode, factories, seed=2, rules=HOYLE)
    failure = outcome.failure
    assert failure is not None and failure.seat == 1 and failure.reason == "crash"
    assert outcome.winner == format_named(mode).forfeit_winner(1, outcome.scores)
    if mode is Mode.PARTNERSHIP:
        assert outcome.winner == 0, "the other team wins"
    judged(tmp_path, record)


def test_forfeit_winner_by_format() -> None:
    assert format_named(Mode.TWO_PLAYER).forfeit_winner(0, (5, 9)) == 1
    assert format_named(Mode.HOLLYWOOD).forfeit_winner(1, (5, 9)) == 0
    assert format_named(Mode.PARTNERSHIP).forfeit_winner(3, (0, 50)) == 0
    assert format_named(Mode.PARTNERSHIP).forfeit_winner(2, (50, 0)) == 1
    assert format_named(Mode.THREE_PLAYER).forfeit_winner(0, (90, 10, 30)) == 2
    assert format_named(Mode.THREE_PLAYER).forfeit_winner(2, (10, 10, 80)) is None


def test_a_mirrored_three_player_match_seats_every_bot_in_every_seat() -> None:
    spec = BotSpec("greedy", builtin="greedy")
    match = Match((spec, spec, spec), SHORT, games=6, mirror=True, mode=Mode.THREE_PLAYER)
    plan = sorted(match.plan(), key=lambda p: p.number)
    assert [p.seats for p in plan] == [*rotations(Mode.THREE_PLAYER)] * 2
    assert plan[0].seed == plan[1].seed == plan[2].seed != plan[3].seed
    # Played leg after leg: each rotation of both deals, by processes of its own.
    assert [p.number for p in match.plan()] == [1, 4, 2, 5, 3, 6]
    assert [p.leg for p in match.plan()] == [0, 0, 1, 1, 2, 2]
    assert match.names() == ("greedy#1", "greedy#2", "greedy#3")


@pytest.mark.parametrize(
    ("bots", "mode"),
    [
        (["random", "greedy"], "hollywood"),
        (["random", "greedy", "strong"], "three-player"),
        (["random", "greedy", "strong", "greedy"], "partnership"),
    ],
)
def test_the_cli_plays_each_format_to_the_end_and_judge_rechecks_it(
    bots: list[str], mode: str, tmp_path: Path
) -> None:
    record = tmp_path / "games.jsonl"
    done = gin_arena(
        "match", *bots, "--mode", mode, "--seed", "11", "--json", "--record", str(record)
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["mode"] == mode and len(result["bots"]) == len(bots)
    assert len(result["games"]) == 2
    for game in result["games"]:
        assert game["reason"] == "normal" and game["winner"] is not None
        assert len(game["seats"]) == len(bots)
    checked = gin_arena("judge", str(record), "--mode", mode)
    assert checked.returncode == 0, checked.stdout
    assert "OK (2 games" in checked.stdout
    shown = gin_arena("replay", str(record))
    assert shown.returncode == 0 and "Game over:" in shown.stdout


def test_the_readable_summary_of_a_partnership_match_names_the_teams() -> None:
    done = gin_arena(
        "match",
        "random",
        "greedy",
        "strong",
        "greedy",
        "--mode",
        "partnership",
        "--seed",
        "2",
        "--set",
        "game_target=30",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("random & strong v greedy#1 & greedy#2: 2 games, partnership")
    assert " & " in done.stdout.splitlines()[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random", "greedy", "strong"], "--mode two-player takes 2 bots, got 3"),
        (["random", "greedy", "--mode", "three-player"], "--mode three-player takes 3 bots, got 2"),
        (["a", "b", "c", "--mode", "partnership"], "--mode partnership takes 4 bots, got 3"),
        (["random", "greedy", "--mode", "hollywood", "--hands", "3"], "--hands does not apply"),
        (
            ["random", "greedy", "strong", "--mode", "three-player", "--set", "next_dealer=loser"],
            "does not apply to three-player",
        ),
        (["random", "greedy", "--mode", "four-player"], "unknown mode 'four-player'"),
    ],
)
def test_a_mode_that_does_not_fit_is_a_clear_error(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and "Traceback" not in err


def test_a_record_judged_as_another_format_or_with_its_players_changed_fails(
    tmp_path: Path,
) -> None:
    _, _, record = play(Mode.THREE_PLAYER, [GreedyBot] * 3, seed=4)
    path = tmp_path / "three.jsonl"
    path.write_text(record)
    verdict = judge(path, Mode.PARTNERSHIP)
    assert verdict.disagreement is not None
    assert "is a three-player game, not partnership" in verdict.disagreement.message
    lines = record.splitlines()
    second = [k for k, line in enumerate(lines) if json.loads(line)["type"] == "hand"][1]
    hand = json.loads(lines[second])
    hand["players"] = hand["players"][::-1]
    lines[second] = json.dumps(hand)
    path.write_text("\n".join(lines) + "\n")
    verdict = judge(path)
    assert verdict.disagreement is not None and "players" in verdict.disagreement.message
    assert verdict.disagreement.line == second + 1
    game = json.loads(lines[0])
    game["bots"] = game["bots"][:2]
    lines[0] = json.dumps(game)
    path.write_text("\n".join(lines) + "\n")
    verdict = judge(path)
    assert verdict.disagreement is not None
    assert "three-player game has 3 bots, the record names 2" in verdict.disagreement.message


def test_the_three_player_hand_line_in_records_md_is_real() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "RECORDS.md").read_text()
    (example,) = [
        json.loads(line)
        for line in doc.splitlines()
        if line.startswith('{"type": "hand"') and '"players"' in line
    ]
    game = ThreePlayer(HOYLE, 0)
    assert example["players"] == list(game.seated) and example["dealer"] == game.hand.dealer
    assert example["deck"] == [CARD_NAMES[c] for c in game.hand.deck]


def test_a_format_1_record_reads_as_two_player_and_an_unknown_format_is_refused(
    tmp_path: Path,
) -> None:
    _, _, record = play(Mode.TWO_PLAYER, [GreedyBot, RandomBot], seed=6)
    lines = [json.loads(line) for line in record.splitlines()]
    assert lines[0]["format"] == 2 and lines[0]["mode"] == "two-player"
    del lines[0]["mode"]
    lines[0]["format"] = 1
    old = tmp_path / "format1.jsonl"
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert judge(old).ok
    lines[0]["format"] = 3
    new = tmp_path / "format3.jsonl"
    new.write_text("".join(json.dumps(line) + "\n" for line in lines))
    refused = r"format3.jsonl:1: record format 3 is not one this gin-arena reads \(1 to 2\)"
    with pytest.raises(RecordError, match=refused):
        judge(new)
