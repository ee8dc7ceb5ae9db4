"""Game records: a seeded match's record is accepted by ``judge`` and is the same, apart from
times, every time and whether the bots run in-process or as subprocesses; records edited by hand
are rejected at the right line, and records cut short in their last game are incomplete; corrupt
files are errors naming the line; judge and replay play a record back alike; the record schema
(docs/record.schema.json) and the examples of docs/RECORDS.md agree with the code."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from arena_support import CLOCK, GREEDY, hostile_spec
from pydantic import BaseModel
from support import ROOT, cli_env, gin_arena

from arena.cli.main import main
from arena.play.match import Match, game_seeds
from arena.play.referee import Referee
from arena.records.judge import judge
from arena.records.playback import Deal, End, Move, play_back
from arena.records.record import (
    LINE_ADAPTER,
    ActionLine,
    BotTag,
    FailureTag,
    GameEndLine,
    GameLine,
    HandEndLine,
    HandLine,
    RecordError,
    Writer,
    read_games,
    record_schema,
)
from arena.seats.botspec import BotSpec
from arena.seats.connection import InProcessConnection
from bots.greedy import GreedyBot
from bots.sdk import View
from engine.cards import CARD_NAMES
from engine.game import Game
from engine.hand import Action, IllegalAction
from engine.rules import HOYLE, Rules

RANDOM = BotSpec("random", builtin="random")
SEED = 7
GAMES = 4
SCHEMA_FILE = ROOT / "docs" / "record.schema.json"
RECORDS_DOC = ROOT / "docs" / "RECORDS.md"

Line = dict[str, Any]


def record_match(path: Path, in_process: bool = True, seed: int = SEED) -> Path:
    match = Match(
        (GREEDY, RANDOM), HOYLE, CLOCK, games=GAMES, seed=seed, mirror=True, in_process=in_process
    )
    with path.open("w", encoding="utf-8") as stream:
        match.play(record=stream)
    return path


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mirrored match of four games, greedy v random, in-process."""
    return record_match(tmp_path_factory.mktemp("records") / "match.jsonl")


def lines_of(path: Path) -> list[Line]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def write_lines(path: Path, lines: list[Line]) -> Path:
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return path


def without_times(text: str) -> str:
    """The record with its date and every time taken cut out."""
    return re.sub(r',"(?:date|ms|seconds)":(?:"[^"]*"|[-+0-9.eE]+)', "", text)


# -- a seeded match ---------------------------------------------------------------------------


def test_the_record_of_a_seeded_match_is_accepted(record: Path) -> None:
    lines = lines_of(record)
    verdict = judge(record)
    assert verdict.ok, verdict.disagreement
    counts = {kind: sum(1 for line in lines if line["type"] == kind) for kind in ("game", "hand")}
    actions = sum(1 for line in lines if line["type"] == "action")
    assert (verdict.games, verdict.hands, verdict.actions) == (GAMES, counts["hand"], actions)
    assert counts["game"] == GAMES and actions > 100
    # Mirrored: each deal is played twice, the bots swapping seats; the first game of each
    # deal first, then their mirrors (by fresh bots), and the record lists them as played.
    assert [g.tags.game for g in read_games(record)] == [1, 3, 2, 4]
    games = sorted(read_games(record), key=lambda g: g.tags.game)
    assert [g.tags.seed for g in games][::2] == [g.tags.seed for g in games][1::2]
    assert [[b.name for b in g.tags.bots] for g in games] == [
        ["greedy", "random"],
        ["random", "greedy"],
    ] * 2
    assert games[0].hands[0][1].header.deck == games[1].hands[0][1].header.deck
    assert all(g.tags.match == {"seed": SEED, "mirror": True, "single_hands": False} for g in games)
    assert [b.version for b in games[0].tags.bots] == ["1", "1"]


def test_the_same_seed_gives_the_same_record_apart_from_times(record: Path, tmp_path: Path) -> None:
    again = record_match(tmp_path / "again.jsonl")
    first, second = without_times(record.read_text()), without_times(again.read_text())
    assert '"ms"' not in first and '"date"' not in first and '"seconds"' not in first
    assert first.count("\n") > 100
    assert first == second
    other = record_match(tmp_path / "other.jsonl", seed=SEED + 1)
    assert without_times(other.read_text()) != first


def test_subprocess_bots_give_the_same_record_as_in_process_bots(
    record: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checkout on PYTHONPATH, so that "python -m bots.greedy" works uninstalled (see
    # test_match_cli.test_builtin_bots_run_as_subprocesses_from_an_uninstalled_checkout).
    monkeypatch.setenv("PYTHONPATH", cli_env()["PYTHONPATH"])
    sub = record_match(tmp_path / "sub.jsonl", in_process=False)
    assert judge(sub).ok
    assert without_times(sub.read_text()) == without_times(record.read_text())


# -- records edited by hand -------------------------------------------------------------------


def first(lines: list[Line], test: Callable[[Line], bool], start: int = 0) -> int:
    """The index of the first line from ``start`` that passes ``test``."""
    return next(i for i in range(start, len(lines)) if test(lines[i]))


def edit_score(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "hand_end" and line["winner"] is not None)
    lines[i]["scores"][lines[i]["winner"]] += 1
    return i


def edit_points(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "hand_end" and line["winner"] is not None)
    lines[i]["points"] += 10
    return i


def edit_discard(lines: list[Line]) -> int:
    # The last card of the deck is the bottom of the stock: never drawn while the stock is
    # exhausted at two cards, so never held. Discarding it is illegal at any point of the hand.
    hand = first(lines, lambda line: line["type"] == "hand")
    bottom = lines[hand]["deck"][-1]
    i = first(lines, lambda line: line["type"] == "action" and line["action"].startswith("discard"))
    lines[i]["action"] = f"discard {bottom}"
    return i


def edit_deck(lines: list[Line]) -> int:
    i = [n for n, line in enumerate(lines) if line["type"] == "hand"][1]  # a later deal
    deck = lines[i]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    return i


def edit_remove_action(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "action" and line["action"] == "draw stock")
    del lines[i]
    return i  # the player's discard now stands where its draw was: a discard before drawing


def edit_hand_winner(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "hand_end" and line["winner"] is not None)
    lines[i]["winner"] = 1 - lines[i]["winner"]
    return i


def edit_game_winner(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "game_end")
    lines[i]["winner"] = 1 - lines[i]["winner"]
    return i


def edit_action_player(lines: list[Line]) -> int:
    i = first(lines, lambda line: line["type"] == "action", start=5)
    lines[i]["player"] = 1 - lines[i]["player"]
    return i


def edit_seed(lines: list[Line]) -> int:
    lines[0]["seed"] += 1
    return 0


EDITS: dict[str, tuple[Callable[[list[Line]], int], str]] = {
    "score changed": (edit_score, r"scores: the record says \[\d+, \d+\], the rules give"),
    "points changed": (edit_points, r"points: the record says \d+, the rules give \d+"),
    "illegal discard": (
        edit_discard,
        r"illegal action 'discard \w\w': R7: \w\w is not in your hand",
    ),
    "deck card swapped": (edit_deck, r"hand \d deck \(from seed \d+\): the record says"),
    "action removed": (edit_remove_action, r"illegal action 'discard \w\w': R7: draw first"),
    "hand winner changed": (edit_hand_winner, r"winner: the record says [01], the rules give [01]"),
    "game winner changed": (edit_game_winner, r"game winner: the record says [01]"),
    "player changed": (edit_action_player, r"player to move: the record says [01]"),
    "seed changed": (edit_seed, r"first dealer|deck \(from seed"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_a_record_edited_by_hand_is_rejected_at_the_edited_line(
    name: str, record: Path, tmp_path: Path
) -> None:
    edit, message = EDITS[name]
    lines = lines_of(record)
    index = edit(lines)
    verdict = judge(write_lines(tmp_path / "edited.jsonl", lines))
    assert verdict.disagreement is not None, f"judge accepts a record with the {name}"
    # The seed decides the first dealer, then the deck: a changed seed shows in one or the other.
    expected = {1, 2} if name == "seed changed" else {index + 1}
    assert verdict.disagreement.line in expected, verdict.disagreement
    assert re.search(message, verdict.disagreement.message), verdict.disagreement.message
    assert str(verdict.disagreement).startswith(f"line {verdict.disagreement.line}: ")


def test_a_record_rewritten_without_edits_is_still_accepted(record: Path, tmp_path: Path) -> None:
    """The edits above are the only change: re-serialising the lines changes nothing judged."""
    assert judge(write_lines(tmp_path / "same.jsonl", lines_of(record))).ok


# -- corrupt files ----------------------------------------------------------------------------


def corrupt_not_json(lines: list[str]) -> list[str]:
    lines[2] = lines[2][:-1] + ",\n"
    return lines


def corrupt_type(lines: list[str]) -> list[str]:
    lines[2] = re.sub(r'"player":\d', '"player":"zero"', lines[2])
    return lines


def corrupt_unknown_line(lines: list[str]) -> list[str]:
    lines[2] = '{"type":"comment","text":"hi"}\n'
    return lines


def corrupt_action_first(lines: list[str]) -> list[str]:
    return [lines[2], *lines]


def corrupt_after_game_end(lines: list[str]) -> list[str]:
    end = next(i for i, text in enumerate(lines) if '"type":"game_end"' in text)
    return [*lines[: end + 1], lines[2], *lines[end + 1 :]]


def corrupt_hand_end_without_hand(lines: list[str]) -> list[str]:
    end = next(i for i, text in enumerate(lines) if '"type":"hand_end"' in text)
    return [lines[0], lines[end]]


CORRUPT: dict[str, tuple[Callable[[list[str]], list[str]], int, str]] = {
    "not JSON": (corrupt_not_json, 3, "not a record line"),
    "a wrong field type": (corrupt_type, 3, r"not a record line \(action\.player: "),
    "an unknown line type": (corrupt_unknown_line, 3, "not a record line"),
    "an action before any game": (corrupt_action_first, 1, "a action line outside a game"),
    "an action after the game's end": (corrupt_after_game_end, 0, "line outside a game"),
    "a hand_end outside a hand": (corrupt_hand_end_without_hand, 2, "outside a hand"),
}


@pytest.mark.parametrize("name", list(CORRUPT))
def test_a_corrupt_record_is_an_error_naming_the_line(
    name: str, record: Path, tmp_path: Path
) -> None:
    corrupt, number, message = CORRUPT[name]
    texts = corrupt(record.read_text().splitlines(keepends=True))
    if number == 0:  # the line after the first game_end
        number = next(i for i, t in enumerate(texts) if '"type":"game_end"' in t) + 2
    path = tmp_path / "corrupt.jsonl"
    path.write_text("".join(texts))
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}:{number}: .*{message}"):
        judge(path)


def test_an_empty_or_missing_record_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(RecordError, match="no game in this record"):
        judge(empty)
    with pytest.raises(RecordError, match=r"cannot read record .*missing\.jsonl"):
        judge(tmp_path / "missing.jsonl")


# -- forfeits in records ----------------------------------------------------------------------


def test_a_record_of_a_game_forfeited_in_its_first_hand_is_accepted(tmp_path: Path) -> None:
    crash = hostile_spec("crash", "crash.py", pidfile=tmp_path / "pids")
    path = tmp_path / "forfeit.jsonl"
    with path.open("w") as stream:
        Match((GREEDY, crash), HOYLE, CLOCK, games=2, mirror=True, workdir=tmp_path).play(stream)
    games = read_games(path)
    assert [g.end[1].reason for g in games if g.end] == ["crash", "crash"]
    assert [len(g.hands) for g in games] == [1, 1] and games[0].hands[0][1].end is None
    verdict = judge(path)
    assert verdict.ok, verdict.disagreement


class GivesUp(GreedyBot):
    """Plays like greedy for 60 requests, then raises (an in-process crash), well into the game."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    def choose(self, view: View) -> Action:
        self.requests += 1
        if self.requests > 60:
            raise RuntimeError("tired")
        return super().choose(view)


@pytest.fixture(scope="module")
def late_forfeit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game forfeited after at least one finished hand."""
    stream = io.StringIO()
    bots = [InProcessConnection("greedy", GreedyBot), InProcessConnection("quitter", GivesUp)]
    referee = Referee(HOYLE, CLOCK, Writer(stream, bots=[BotTag(name=b.name) for b in bots]))
    for seat, bot in enumerate(bots):
        bot.start(referee.hello(seat), 1.0)
    outcome = referee.play_game(bots, seed=12)
    assert outcome.failure is not None and outcome.failure.reason == "crash"
    assert outcome.hands >= 1 and max(outcome.scores) > 0, "the forfeit comes after a hand"
    path = tmp_path_factory.mktemp("forfeit") / "late.jsonl"
    path.write_text(stream.getvalue())
    return path


def test_a_record_of_a_game_forfeited_after_some_hands_is_accepted(late_forfeit: Path) -> None:
    verdict = judge(late_forfeit)
    assert verdict.ok, verdict.disagreement
    end = lines_of(late_forfeit)[-1]
    assert end["type"] == "game_end" and end["winner"] == 0
    assert end["failure"] == {
        "seat": 1,
        "reason": "crash",
        "message": "raised RuntimeError: tired",
        "rule": "",
    }


@pytest.mark.parametrize("field", ["scores", "winner"])
def test_a_forfeited_game_edited_by_hand_is_rejected(
    field: str, late_forfeit: Path, tmp_path: Path
) -> None:
    lines = lines_of(late_forfeit)
    end = lines[-1]
    if field == "scores":
        end["scores"] = [end["scores"][0] + 5, end["scores"][1]]
    else:
        end["winner"] = 1
    verdict = judge(write_lines(tmp_path / "edited.jsonl", lines))
    assert verdict.disagreement is not None, f"judge accepts a forfeit with its {field} changed"
    assert verdict.disagreement.line == len(lines)


# -- the commands -----------------------------------------------------------------------------


def test_gin_arena_judge_exit_codes_and_output(record: Path, tmp_path: Path) -> None:
    ok = gin_arena("judge", str(record))
    verdict = judge(record)
    counts = f"{verdict.games} games, {verdict.hands} hands, {verdict.actions} actions"
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, f"{record}: OK ({counts} checked)\n", "")

    lines = lines_of(record)
    index = edit_score(lines)
    edited = write_lines(tmp_path / "edited.jsonl", lines)
    bad = gin_arena("judge", str(edited))
    assert bad.returncode == 1, bad
    first_line, second_line = bad.stdout.splitlines()
    assert first_line.startswith(f"{edited}: line {index + 1}: scores: the record says")
    # The edit is in the first game: no later game was checked.
    assert re.match(r"checked before it: [01] games?, \d+ hands?, \d+ actions?$", second_line), (
        second_line
    )

    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    unreadable = gin_arena("judge", str(broken))
    assert (unreadable.returncode, unreadable.stdout) == (2, "")
    assert unreadable.stderr.startswith(f"gin-arena judge: error: {broken}:1: not a record line")


def test_gin_arena_replay_shows_every_hand_and_action(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out
    lines = lines_of(record)
    hands = [line for line in lines if line["type"] == "hand"]
    actions = [line for line in lines if line["type"] == "action"]
    shown = re.findall(r"^  Hand (\d+): (\w+) deals; scores \d+-\d+$", out, re.MULTILINE)
    assert [int(number) for number, _ in shown] == [h["hand"] for h in hands]
    played = re.findall(r"^ +\d+\. (\w+): (.+?)(?: \(\w\w\))?  \[[\d.]+ ms\]$", out, re.MULTILINE)
    assert [text for _, text in played] == [a["action"] for a in actions]
    assert len(re.findall(r"^    result: ", out, re.MULTILINE)) == len(hands)
    assert len(re.findall(r"^  Game over: \w+ wins", out, re.MULTILINE)) == GAMES
    assert out.startswith("Game 1: greedy (seat 0) v random (seat 1)\n")

    assert main(["replay", str(record), "--game", "2"]) == 0
    assert capsys.readouterr().out.startswith("Game 2: random (seat 0) v greedy (seat 1)\n")
    assert main(["replay", str(record), "--game", "9"]) == 2
    assert "no game 9: the record holds 4 games" in capsys.readouterr().err


def test_gin_arena_replay_shows_a_forfeit(
    late_forfeit: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(late_forfeit)]) == 0
    out = capsys.readouterr().out
    assert "    (the hand stops here)\n" in out
    assert "  quitter forfeits (crash): raised RuntimeError: tired\n" in out
    assert re.search(r"^  Game over: greedy wins, \d+-\d+ after \d+ hands$", out, re.MULTILINE)


def cut_in_last_game(lines: list[Line], where: str) -> list[Line]:
    """The record stopped in its last game: in the middle of a hand, or just after a hand
    ended, or just after that game's first line (a match interrupted there)."""
    start = max(i for i, line in enumerate(lines) if line["type"] == "game")
    if where == "mid-hand":
        stop = first(lines, lambda line: line["type"] == "action", start) + 7
    elif where == "between hands":
        stop = first(lines, lambda line: line["type"] == "hand_end", start) + 1
    else:
        stop = start + 1
    return lines[:stop]


@pytest.mark.parametrize("where", ["mid-hand", "between hands", "at the game line"])
def test_a_record_cut_in_its_last_game_is_incomplete(
    where: str, record: Path, tmp_path: Path
) -> None:
    lines = cut_in_last_game(lines_of(record), where)
    game_line = max(i for i, line in enumerate(lines) if line["type"] == "game") + 1
    cut = write_lines(tmp_path / "cut.jsonl", lines)
    verdict = judge(cut)
    assert verdict.disagreement is None and verdict.incomplete == game_line
    assert not verdict.ok and verdict.games == GAMES - 1
    done = gin_arena("judge", str(cut))
    counts = f"{verdict.games} games, {verdict.hands} hands, {verdict.actions} actions"
    assert done.returncode == 1
    assert done.stdout == (
        f"{cut}: INCOMPLETE: the record stops in the middle of the game at line {game_line} "
        f"(an interrupted match); what it holds agrees with the rules ({counts} checked)\n"
    )


def test_a_game_cut_short_before_the_last_is_a_disagreement(record: Path, tmp_path: Path) -> None:
    lines = lines_of(record)
    second = [i for i, line in enumerate(lines) if line["type"] == "game"][1]
    edited = write_lines(tmp_path / "cut.jsonl", lines[: second - 3] + lines[second:])
    verdict = judge(edited)
    assert verdict.disagreement is not None and verdict.incomplete is None


def test_judge_and_replay_play_the_record_back_alike(record: Path) -> None:
    """Both read a record through arena.records.playback: the hands and actions the judge counts are
    the
    ones the replay shows, and a record whose player is wrong stops both at that line."""
    verdict = judge(record)
    steps = [step for game in read_games(record) for step in play_back(game)]
    assert sum(isinstance(step, Deal) for step in steps) == verdict.hands
    assert sum(isinstance(step, Move) for step in steps) == verdict.actions
    assert sum(isinstance(step, End) for step in steps) == GAMES


def test_replay_stops_where_an_edited_record_cannot_be_played(
    record: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(record)
    index = edit_action_player(lines)
    edited = write_lines(tmp_path / "edited.jsonl", lines)
    judged = judge(edited).disagreement
    assert judged is not None and judged.line == index + 1
    assert main(["replay", str(edited), "--game", "1"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].endswith(f"<- rejected: {judged.message}")


# -- the schema and the documentation ---------------------------------------------------------

REGENERATE = (
    "python -c 'import json; from arena.records.record import record_schema; "
    "print(json.dumps(record_schema(), indent=2, sort_keys=True))' > docs/record.schema.json"
)


def test_the_record_schema_file_matches_the_code() -> None:
    expected = json.dumps(record_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_FILE.exists(), f"docs/record.schema.json is missing; generate it: {REGENERATE}"
    assert SCHEMA_FILE.read_text() == expected, (
        f"docs/record.schema.json is out of date with arena/records/record.py; "
        f"regenerate it: {REGENERATE}"
    )


def test_every_line_of_real_records_validates_against_the_schema(
    record: Path, late_forfeit: Path
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_FILE.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    validator.check_schema(schema)
    seen = set()
    for path in (record, late_forfeit):
        for number, line in enumerate(lines_of(path), 1):
            errors = [e.message for e in validator.iter_errors(line)]
            assert not errors, f"{path.name}:{number}: {errors}"
            seen.add(line["type"])
    assert seen == {"game", "hand", "action", "hand_end", "game_end"}
    # The schema is not vacuous: it rejects what the code rejects.
    for bad in (
        {"type": "action", "player": 2, "action": "pass"},
        {"type": "hand", "hand": 1, "dealer": 0, "deck": ["AS"]},
        {"type": "action", "player": 0, "action": "pass", "extra": 1},
        {"type": "comment"},
    ):
        assert not validator.is_valid(bad), bad


def code_blocks(language: str) -> list[str]:
    """The fenced code blocks of docs/RECORDS.md in ``language``."""
    pattern = rf"^```{language}\n(.*?)^```$"
    return re.findall(pattern, RECORDS_DOC.read_text(), re.MULTILINE | re.DOTALL)


def test_every_json_example_in_records_md_is_a_record_line() -> None:
    examples = code_blocks("json")
    examples += [text for block in code_blocks("jsonl") for text in block.splitlines()]
    kinds = [LINE_ADAPTER.validate_json(example).type for example in examples]
    assert set(kinds) == {"game", "hand", "action", "hand_end", "game_end"}, kinds


def test_the_examples_in_records_md_come_from_a_real_game() -> None:
    """The game, hand and first action examples are one game's: the match seed gives the game
    seed, which gives the first dealer and the deck, and the actions shown are legal in order."""
    lines = [json.loads(text) for text in code_blocks("json")]
    lines += [json.loads(t) for block in code_blocks("jsonl") for t in block.splitlines()]
    tags = next(line for line in lines if line["type"] == "game")
    deal = next(line for line in lines if line["type"] == "hand")
    assert next(game_seeds(tags["match"]["seed"])) == tags["seed"]
    game = Game(Rules.from_dict(tags["rules"]), tags["seed"])
    assert (game.dealer, game.hand.dealer) == (tags["first_dealer"], deal["dealer"])
    assert [CARD_NAMES[card] for card in game.hand.deck] == deal["deck"]
    actions = [line for line in lines if line["type"] == "action"]
    for line in actions[:6]:
        assert line["player"] == game.hand.to_move
        game.apply(Action.parse(line["action"]))


def test_the_rejudging_recipe_in_records_md_works(
    record: Path, late_forfeit: Path, tmp_path: Path
) -> None:
    (recipe,) = [code for code in code_blocks("python") if "def rejudge(" in code]
    namespace: dict[str, Any] = {}
    exec(recipe, namespace)
    rejudge = namespace["rejudge"]
    rejudge(record)
    rejudge(late_forfeit)
    for edit in (edit_score, edit_deck, edit_hand_winner, edit_game_winner, edit_points):
        lines = lines_of(record)
        index = edit(lines)
        with pytest.raises(AssertionError, match=f"^line {index + 1}$"):
            rejudge(write_lines(tmp_path / "edited.jsonl", lines))
    lines = lines_of(record)
    edit_discard(lines)
    with pytest.raises(IllegalAction, match="R7"):
        rejudge(write_lines(tmp_path / "edited.jsonl", lines))


@pytest.mark.parametrize(
    "model", [GameLine, BotTag, HandLine, ActionLine, HandEndLine, GameEndLine, FailureTag]
)
def test_records_md_describes_every_field(model: type[BaseModel]) -> None:
    doc = RECORDS_DOC.read_text()
    for name in model.model_fields:
        assert f"`{name}`" in doc, f"docs/RECORDS.md does not describe {model.__name__}.{name}"
