"""Mirrored deals leak no hand (docs/PROTOCOL.md, "Mirrored deals").

A bot that remembers the hands it is dealt (``tournament_bots/remember.py``) guesses its
opponent's at every hand: the hand it held in the other seating of the deal, if it remembers one.
Played by one process, every mirror of a deal is guessed exactly (the control); in mirrored
tournaments, matches and A/B tests as the arena runs them, no guess ever is, whether the bot
remembers in memory or, in the sandbox, on disk (its home directory and ``/tmp``), because every
seating of a deal is played by processes that played no other seating of it and started after
those had ended. The truth is the deal as the record or the database has it (for ``gin-arena
ab``, which keeps neither, what the other bot was dealt).

The bots run as real subprocesses, without the sandbox when they remember in memory (quicker),
in the default sandbox when they remember on disk (skipped where bubblewrap is not usable).
Also here: the schedule's and the plans' invariants, and a tournament interrupted mid-task that
resumes to the same games.
"""

from __future__ import annotations

import dataclasses
import io
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import RUN, gin_arena

from arena.play.match import Match, Planned, by_leg, rotations
from arena.records.record import RecordedGame, group_games, parse_lines, read_games
from arena.seats.botspec import BotSpec
from arena.seats.walls.sandbox import resolve_sandbox, sandbox_warning
from arena.tournament.ab import ABTest, Pairing, _tasks, chunks
from arena.tournament.config import Config, missing_tasks, schedule
from arena.tournament.runner import run
from arena.tournament.store import GameRow, Store
from engine.modes import Mode
from engine.rules import HOYLE, Rules

HERE = Path(__file__).resolve().parents[1]
REMEMBER = HERE / "tournament_bots" / "remember.py"
SANDBOX = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    SANDBOX is None, reason=f"no usable bubblewrap here: {sandbox_warning()}"
)
SLACK = ("--move-time", "10", "--startup-time", "60")
"""A clock no bot runs out of on a loaded machine: a forfeit would spoil the count."""


# -- what the bots said, and what they were dealt -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Said:
    """A line of the remembering bot: ``predict`` (its guess of the opponent's hand, None for no
    guess) or ``own`` (its own hand)."""

    process: str
    time: float
    bot: str
    kind: str
    game: int
    hand: int
    cards: frozenset[str] | None


def said(bot: str, path: Path) -> list[Said]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        process, moment, kind, game, hand, *cards = line.split()
        guess = None if cards == ["-"] else frozenset(cards)
        out.append(Said(process, float(moment), bot, kind, int(game), int(hand), guess))
    return out


def dealt(games: Iterable[RecordedGame]) -> dict[tuple[int, int, str], frozenset[str]]:
    """Each two-player hand's ten cards, by (game, hand, bot): the deck's first twenty cards go
    one by one to the non-dealer first (engine/deck.py)."""
    hands = {}
    for game in games:
        names = [bot.name for bot in game.tags.bots]
        for _, hand in game.hands:
            deck, dealer = hand.header.deck, hand.header.dealer
            hands[game.tags.game, hand.header.hand, names[1 - dealer]] = frozenset(deck[0:20:2])
            hands[game.tags.game, hand.header.hand, names[dealer]] = frozenset(deck[1:20:2])
    return hands


def played_out(game: RecordedGame) -> bool:
    """Whether the game ended normally: no bot forfeited it."""
    return game.end is not None and game.end[1].reason == "normal"


def database_games(db: Path) -> list[RecordedGame]:
    store = Store.open(db, readonly=True)
    try:
        rows = list(store.games())
    finally:
        store.close()
    games: list[RecordedGame] = []
    for row in rows:
        games += group_games(parse_lines(row.record.splitlines(), f"game {row.id}"), str(db))
    return games


@dataclass(frozen=True, slots=True)
class Tally:
    guesses: int
    """Hands at which a bot guessed its opponent's."""
    exact: int
    """Guesses that were the opponent's hand."""
    hands: int
    """Hands the bots were dealt (both bots' together)."""


def tally(lines: list[Said], truth: dict[tuple[int, int, str], frozenset[str]]) -> Tally:
    """How the guesses in ``lines`` compare with ``truth`` (two bots, named in it)."""
    bots = {bot for _, _, bot in truth}
    assert len(bots) == 2, bots
    guesses = [s for s in lines if s.kind == "predict" and s.cards is not None]
    exact = 0
    for guess in guesses:
        (other,) = bots - {guess.bot}
        exact += truth[guess.game, guess.hand, other] == guess.cards
    owns = [s for s in lines if s.kind == "own"]
    for own in owns:  # the bot's own lines are what it was dealt: the logs are read right
        assert truth[own.game, own.hand, own.bot] == own.cards
    assert len(owns) == len(truth), "every hand dealt was seen by its bot"
    return Tally(len(guesses), exact, len(owns))


def check_one_seating_a_process(lines: list[Said]) -> None:
    """A process plays one seating (leg) of a deal's: the first games of deals (odd game
    numbers) or their mirrors, never both; and the processes of one seating of a deal ended
    before those of its other seating started (their lives, from their first line to their
    last, do not overlap)."""
    by_process: dict[tuple[str, str], list[Said]] = {}
    for s in lines:
        by_process.setdefault((s.bot, s.process), []).append(s)
    for said_by in by_process.values():
        assert len({s.game % 2 for s in said_by if s.game}) == 1, said_by[0]
    deals = {(s.game + 1) // 2 for s in lines if s.game}
    for deal in deals:
        legs = []
        for game in (2 * deal - 1, 2 * deal):
            players = {
                key for key, said_by in by_process.items() if any(s.game == game for s in said_by)
            }
            times = [s.time for key in players for s in by_process[key]]
            legs.append((min(times), max(times)))
        (_, last), (other_first, _) = sorted(legs)
        assert last < other_first, f"deal {deal}: the processes of its two seatings overlap"


def bots_file(tmp_path: Path, memory: str, out: bool = False, names: str = "ab") -> Path:
    """Remembering bots, ``a`` and ``b`` (or ``names``); with ``out``, each also writes its
    lines to ``NAME.out`` in ``tmp_path``."""
    text = ""
    for name in names:
        command = [sys.executable, str(REMEMBER), "--memory", memory]
        if out:
            command += ["--out", str(tmp_path / f"{name}.out")]
        text += f'[[bot]]\nname = "{name}"\ncommand = {json.dumps(command)}\n\n'
    path = tmp_path / "bots.toml"
    path.write_text(text, encoding="utf-8")
    return path


def logged(logs: Path) -> list[Said]:
    """The lines of bots ``a`` and ``b`` in their ``--logs`` directory."""
    lines = []
    for bot in ("a", "b"):
        for path in sorted(logs.rglob(f"{bot}*.log")):
            lines += said(bot, path)
    return lines


# -- the control: one process for both seatings ------------------------------------------------


def test_one_process_for_both_seatings_of_a_deal_would_give_every_mirror_away(
    tmp_path: Path,
) -> None:
    """The test's own check: played by the same processes (every game taken for leg 0, as every
    game of a match was before mirroring split them), each bot guesses its opponent's hand
    exactly at the second seating of every deal."""
    bots = tuple(BotSpec(name, (sys.executable, str(REMEMBER))) for name in ("a", "b"))
    match = Match(bots, Rules(), games=20, single_hands=True, seed=3, mirror=True)
    match.workdir = tmp_path / "logs"
    plan = [dataclasses.replace(g, leg=0) for g in sorted(match.plan(), key=lambda g: g.number)]
    record = io.StringIO()
    match.play(record=record, plan=plan)
    truth = dealt(group_games(parse_lines(record.getvalue().splitlines(), "record"), "record"))
    result = tally(logged(match.workdir), truth)
    assert result.hands == 40 and result.exact == 20  # each bot's ten mirrors


# -- mirrored, as the arena runs it --------------------------------------------------------------


@pytest.mark.parametrize(
    "memory",
    # In memory, the quick lane has it from the matches and the A/B test below.
    [pytest.param("mem", marks=pytest.mark.slow), pytest.param("disk", marks=needs_bwrap)],
    ids=["memory", "disk-sandboxed"],
)
def test_a_mirrored_tournament_gives_no_hand_away(tmp_path: Path, memory: str) -> None:
    bots = bots_file(tmp_path, memory)
    db, logs = tmp_path / "t.sqlite", tmp_path / "logs"
    sandbox = "auto" if memory == "disk" else "none"
    done = gin_arena(
        *("tournament", "--bots", str(bots), "--games-per-table", "8", "--seed", "5", *SLACK),
        *("--concurrency", "2", "--db", str(db), "--logs", str(logs), "--sandbox", sandbox),
        *("--format", "json"),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    games = database_games(db)
    assert len(games) == 8 and all(played_out(game) for game in games)
    lines = logged(logs)
    result = tally(lines, dealt(games))
    assert result.exact == 0, result
    check_one_seating_a_process(lines)


@pytest.mark.parametrize(
    ("count", "memory"),
    [
        (("--hands", "20"), "mem"),
        (("--games", "2"), "mem"),
        pytest.param(("--hands", "20"), "disk", marks=[needs_bwrap, pytest.mark.slow]),
    ],
    ids=["hands-memory", "games-memory", "hands-disk-sandboxed"],
)
def test_a_mirrored_match_gives_no_hand_away(
    tmp_path: Path, count: tuple[str, str], memory: str
) -> None:
    bots = bots_file(tmp_path, memory)
    record, logs = tmp_path / "games.jsonl", tmp_path / "logs"
    sandbox = "auto" if memory == "disk" else "none"
    done = gin_arena(
        *("match", "a", "b", "--bots", str(bots), *count, "--mirror", "--seed", "3", *SLACK),
        *("--record", str(record), "--logs", str(logs), "--sandbox", sandbox),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    games = read_games(record)
    assert all(played_out(game) for game in games)
    lines = logged(logs)
    result = tally(lines, dealt(games))
    assert result.exact == 0, result
    assert result.hands >= (20 if count[0] == "--hands" else 2)
    check_one_seating_a_process(lines)


def test_an_ab_test_gives_no_hand_away(tmp_path: Path) -> None:
    """Head to head in two workers; ``gin-arena ab`` keeps no logs or records, so the bots also
    write their lines to files of their own (no sandbox), and the truth is what the other bot
    was dealt."""
    bots = bots_file(tmp_path, "mem", out=True)
    done = gin_arena(
        *("ab", "a", "b", "--bots", str(bots), "--hands", "60", "--seed", "3", "--jobs", "2"),
        *SLACK,
        *("--sandbox", "none", "--json"),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["played"] == 60
    lines = said("a", tmp_path / "a.out") + said("b", tmp_path / "b.out")
    truth = {(s.game, s.hand, s.bot): s.cards for s in lines if s.kind == "own" and s.cards}
    result = tally(lines, truth)
    assert result.hands == 120 and result.exact == 0, result
    check_one_seating_a_process(lines)


@pytest.mark.slow  # three bots, two pairings: the quick lane checks the chunks' shape below
def test_an_ab_test_against_an_opponent_gives_no_hand_away(tmp_path: Path) -> None:
    """``a`` and ``b`` each play ``c`` on the same deals: ``c`` is dealt each deal's cards of
    one seat in both pairings, and the other seat's in both mirrors; whichever pairing it met a
    deal in, it never guesses the other seat's hand, nor does ``a`` or ``b`` guess ``c``'s."""
    bots = bots_file(tmp_path, "mem", out=True, names="abc")
    done = gin_arena(
        *("ab", "a", "b", "--against", "c", "--bots", str(bots), "--hands", "40"),
        *("--seed", "4", "--jobs", "2", "--sandbox", "none", "--json", *SLACK),
        timeout=RUN,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["played"] == 80
    lines = [s for name in "abc" for s in said(name, tmp_path / f"{name}.out")]
    own = {(s.game, s.hand, s.bot == "c"): s.cards for s in lines if s.kind == "own"}
    assert len([s for s in lines if s.kind == "own"]) == 160
    for s in lines:  # a and b hold the same cards, in the same seat: one truth for both
        if s.kind == "own":
            assert own[s.game, s.hand, s.bot == "c"] == s.cards
    guesses = [s for s in lines if s.kind == "predict" and s.cards is not None]
    exact = [s for s in guesses if own[s.game, s.hand, s.bot != "c"] == s.cards]
    assert exact == []
    check_one_seating_a_process(lines)


# -- the schedule and the plans ------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("restart", ["failure", "task"])
def test_a_task_holds_whole_deals_leg_after_leg(mode: Mode, restart: str) -> None:
    names = "abcd"[: max(mode.players, 2) + (mode is not Mode.PARTNERSHIP)]
    bots = tuple(BotSpec(name, builtin="random") for name in names)
    turns = len(rotations(mode))
    config = Config(bots=bots, games_per_pair=turns * 9, seed=11, mode=mode, restart=restart)
    tasks = schedule(config)
    where: dict[tuple[tuple[int, ...], int], int] = {}  # (table, seed) -> the task holding it
    for index, task in enumerate(tasks):
        legs = [g.leg for g in task.games]
        assert legs == sorted(legs), "leg after leg"
        per_leg = [[g for g in task.games if g.leg == k] for k in range(turns)]
        # Every leg holds the same deals, in the same order, each in its own seating.
        for k, games in enumerate(per_leg):
            assert [g.seed for g in games] == [g.seed for g in per_leg[0]]
            assert [g.number for g in games] == [g.number + k for g in per_leg[0]]
        for game in task.games:
            assert where.setdefault((task.table, game.seed), index) == index, "a deal in one task"
    assert sorted(g.number for t in tasks for g in t.games) == list(
        range(1, len(config.tables()) * config.games_per_pair + 1)
    )
    # Resuming keeps a task's order: the missing games, leg after leg.
    done = {g.number for t in tasks for g in t.games if g.number % 3 == 0}
    for task in missing_tasks(config, done):
        assert [g.leg for g in task.games] == sorted(g.leg for g in task.games)


def test_by_leg_goes_round_from_the_kept_leg() -> None:
    games = [Planned(n, n // 3, (0, 1, 2), (n - 1) % 3) for n in range(1, 7)]
    assert [g.number for g in by_leg(games)] == [1, 4, 2, 5, 3, 6]
    assert [g.number for g in by_leg(games, 1)] == [2, 5, 3, 6, 1, 4]
    assert [g.number for g in by_leg(games, 2)] == [3, 6, 1, 4, 2, 5]


@pytest.mark.parametrize(
    ("mode", "bots"),
    [
        (Mode.TWO_PLAYER, ("random", "greedy")),
        (Mode.THREE_PLAYER, ("random", "greedy", "strong")),
        (Mode.PARTNERSHIP, ("random", "greedy", "random", "greedy")),
    ],
)
def test_a_mirrored_match_starts_each_bot_once_a_leg(
    tmp_path: Path, mode: Mode, bots: tuple[str, ...]
) -> None:
    """In-process built-in bots too: a fresh instance a leg, every seating's games together."""
    specs = tuple(BotSpec(name, builtin=name) for name in bots)
    turns = len(rotations(mode))
    short = HOYLE.replace(game_target=25)
    single = mode is Mode.TWO_PLAYER  # single hands are two-player
    match = Match(
        specs, short, games=3 * turns, single_hands=single, seed=2, mirror=True, mode=mode
    )
    assert [g.leg for g in match.plan()] == [k for k in range(turns) for _ in range(3)]
    lineup = match.lineup(tmp_path)
    try:
        result = match.play(plan=match.plan(), lineup=lineup)
    finally:
        lineup.close()
    assert lineup.starts == turns * len(bots)
    assert [g.number for g in result.games] == list(range(1, 3 * turns + 1))  # by number
    # Unmirrored, every game is a deal of its own: one set of bots for the whole match.
    plain = dataclasses.replace(match, mirror=False)
    lineup = plain.lineup(tmp_path)
    try:
        plain.play(lineup=lineup)
    finally:
        lineup.close()
    assert lineup.starts == len(bots)


# -- resume --------------------------------------------------------------------------------------


def key(row: GameRow) -> tuple[object, ...]:
    return (row.id, row.seats, row.seed, row.winner, row.reason, row.scores, row.hands)


class Stop(Exception):
    pass


@pytest.mark.parametrize("restart", ["failure", "task"])
def test_interrupted_between_a_tasks_legs_a_tournament_resumes_to_the_same_games(
    tmp_path: Path, restart: str
) -> None:
    bots = tuple(
        BotSpec(name, builtin=kind)
        for name, kind in zip("abc", ("greedy", "random", "greedy"), strict=True)
    )
    config = Config(bots=bots, games_per_pair=24, seed=21, restart=restart)
    whole = Store.create(tmp_path / "whole.sqlite", config.to_json())
    try:
        run(config, whole, 1)
        expected = [key(r) for r in whole.games()]
    finally:
        whole.close()
    store = Store.create(tmp_path / "cut.sqlite", config.to_json())
    try:
        seen: list[int] = []

        def stop_after_six(row: GameRow) -> None:
            seen.append(row.id)
            if len(seen) == 6:
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run(config, store, 1, stop_after_six)
        first, second = schedule(config)[:2]
        assert [g.leg for g in first.games] == [0, 0, 1, 1]
        assert seen[:4] == [g.number for g in first.games]
        # Cut in the second task after one of its legs (the mirrors, played first with the bots
        # kept from the first task's; or the first games, with bots restarted at each task).
        cut = [g for g in second.games if g.number in seen[4:]]
        assert len(cut) == 2 and cut[0].leg == cut[1].leg == (1 if restart == "failure" else 0)
        assert run(config, store, 2) == len(expected) - 6
        assert [key(r) for r in store.games()] == expected
    finally:
        store.close()


def test_chunks_of_an_ab_test_hold_whole_deals() -> None:
    spec = BotSpec("g", builtin="greedy")
    match = Match((spec, spec), Rules(), games=30, single_hands=True, mirror=True)
    pieces = chunks(match.plan(), deals=4)
    deals = [{(g.number + 1) // 2 for g in piece} for piece in pieces]
    assert deals == [set(range(4 * k + 1, min(4 * k + 5, 16))) for k in range(4)]
    assert all([g.leg for g in piece] == sorted(g.leg for g in piece) for piece in pieces)


def test_a_chunk_against_an_opponent_holds_its_deals_in_both_pairings() -> None:
    """So that one worker plays a deal's seatings in both pairings, leg after leg: the
    opponent's processes of one seating end before any of another start, whichever pairing."""
    new, base, opponent = (BotSpec(name, builtin="greedy") for name in ("n", "b", "o"))
    pairings = [
        Pairing(
            first.name,
            "o",
            Match((first, opponent), Rules(), games=50, single_hands=True, mirror=True, seed=6),
        )
        for first in (new, base)
    ]
    test = ABTest("n", "b", "o", 50, 6, pairings)
    tasks = list(_tasks(test))
    assert len(tasks) == 3  # 25 deals, 10 a chunk
    for parts in tasks:
        assert [index for index, _, _ in parts] == [0, 1]
        (_, _, first), (_, _, second) = parts
        assert [(g.number, g.seed, g.leg) for g in first] == [
            (g.number, g.seed, g.leg) for g in second
        ]
