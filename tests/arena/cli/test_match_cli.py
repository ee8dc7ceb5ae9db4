"""``gin-arena match`` as a user runs it: a fresh interpreter per command, output and exit status
checked. Bad inputs are checked through :func:`arena.cli.main` (the same code and exit status,
without an interpreter start each), with one of them also run for real."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from arena_support import hostile
from support import cli_env, gin_arena

from arena.cli.main import main
from arena.records.judge import judge
from arena.records.record import read_games

FIRST_LEGAL_BOT = """\
import json, os, sys

print(f"cwd={os.getcwd()}", file=sys.stderr)
print(f"GREETING={os.environ.get('GREETING')}", file=sys.stderr)
print(f"SECRET={os.environ.get('GIN_ARENA_TEST_SECRET')}", file=sys.stderr)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "ready", "protocol_version": 1, "name": "first-legal"}
    elif message["type"] == "request":
        answer = {"type": "reply", "id": message["id"], "action": message["legal"][0]}
    else:
        continue
    print(json.dumps(answer), flush=True)
"""
"""A bot that plays the first legal action, after writing its directory and environment to
stderr."""


def toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string (no control characters here)


def match_json(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    done = gin_arena("match", *args, "--json", env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert isinstance(result, dict)
    return result


def test_a_mirrored_match_as_json_with_a_record(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    result = match_json(
        "greedy", "random", "--games", "4", "--mirror", "--seed", "5", "--record", str(record)
    )
    assert set(result) == {"bots", "versions", "mode", "seed", "rules", "games", "summary"}
    assert result["bots"] == ["greedy", "random"] and result["versions"] == ["1", "1"]
    assert result["mode"] == "two-player"
    assert result["seed"] == 5
    assert result["rules"]["knock_limit"] == 10 and result["rules"]["oklahoma"] is False
    games = result["games"]
    assert [g["game"] for g in games] == [1, 2, 3, 4]
    assert [g["seats"] for g in games] == [["greedy", "random"], ["random", "greedy"]] * 2
    assert games[0]["seed"] == games[1]["seed"] != games[2]["seed"] == games[3]["seed"]
    for game in games:
        assert set(game) == {"game", "seed", "seats", "winner", "scores", "hands", "reason"}
        assert game["reason"] == "normal" and game["hands"] >= 1
        assert set(game["scores"]) == {"greedy", "random"}
        assert game["scores"][game["winner"]] >= 100
    wins = {name: sum(1 for g in games if g["winner"] == name) for name in result["bots"]}
    for name in result["bots"]:
        summary = result["summary"][name]
        assert summary == {"wins": wins[name], "losses": 4 - wins[name], "draws": 0, "failures": {}}

    assert judge(record).ok
    # Written as played: the first game of both deals, then their mirrors, by fresh bots.
    recorded = sorted(read_games(record), key=lambda g: g.tags.game)
    assert [g.tags.game for g in read_games(record)] == [1, 3, 2, 4]
    assert [g.tags.seed for g in recorded] == [g["seed"] for g in games]
    ends = [g.end[1] for g in recorded if g.end is not None]
    assert [e.scores for e in ends] == [[g["scores"][name] for name in g["seats"]] for g in games]


def test_single_hands_with_oklahoma_rules_and_options(tmp_path: Path) -> None:
    record = tmp_path / "hands.jsonl"
    result = match_json(
        "greedy",
        "random",
        "--hands",
        "4",
        "--mirror",
        "--seed",
        "3",
        "--rules",
        "oklahoma",
        "--set",
        "knock_limit=5",
        "--set",
        "gin_bonus=30",
        "--record",
        str(record),
    )
    rules = result["rules"]
    assert (rules["oklahoma"], rules["knock_limit"], rules["gin_bonus"]) == (True, 5, 30)
    assert [g["hands"] for g in result["games"]] == [1, 1, 1, 1]
    assert judge(record).ok
    tags = [g.tags for g in read_games(record)]
    assert all(t.single_hand and t.rules == rules for t in tags)
    assert all(t.match == {"seed": 3, "mirror": True, "single_hands": True} for t in tags)


def test_the_readable_summary() -> None:
    done = gin_arena("match", "greedy", "random", "--games", "2", "--seed", "5", "--mirror")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "greedy v random: 2 games, seed 5, rules hoyle, mirrored"
    assert re.fullmatch(r"game   1: (greedy|random) wins \d+-\d+ \(\d+ hands\)", lines[1])
    assert re.fullmatch(r"game   2: (greedy|random) wins \d+-\d+ \(\d+ hands\)", lines[2])
    assert lines[3] == ""
    assert lines[4].split() == ["bot", "won", "lost", "drawn", "score", "points/game", "forfeits"]
    assert set(lines[5]) == {"─"}
    assert re.fullmatch(r"greedy +\d +\d +0 +\d+\.\d% +\d+\.\d +-", lines[6])
    assert re.fullmatch(r"random +\d +\d +0 +\d+\.\d% +\d+\.\d +-", lines[7])
    assert re.fullmatch(
        r"greedy - random: [+-]\d+\.\d\d points a game \(2 games\); no interval under 10 "
        r"games played out \(too few to measure the spread\)",
        lines[8],
    )
    assert lines[-1] == "2 games, seed 5"


def write_bots_file(tmp_path: Path) -> Path:
    botdir = tmp_path / "bots" / "first"
    botdir.mkdir(parents=True)
    (botdir / "first_legal.py").write_text(FIRST_LEGAL_BOT)
    bots = tmp_path / "bots.toml"
    bots.write_text(
        f"""\
[[bot]]
name = "first"
command = {toml_string(shlex.quote(sys.executable) + " first_legal.py")}
cwd = "bots/first"
env = {{ GREETING = "hello from the bots file" }}

[[bot]]
name = "cheat"
command = [{toml_string(sys.executable)}, {toml_string(hostile("illegal.py")[1])}, "held"]
"""
    )
    return bots


def test_a_bots_file_with_cwd_and_env_and_a_forfeit_in_json(tmp_path: Path) -> None:
    bots = write_bots_file(tmp_path)
    logs = tmp_path / "logs"
    result = match_json(
        "first",
        "cheat",
        "--bots",
        str(bots),
        "--games",
        "2",
        "--move-time",
        "0.5",
        "--logs",
        str(logs),
        env=cli_env(GIN_ARENA_TEST_SECRET="not for bots"),
    )
    assert result["bots"] == ["first", "cheat"]
    for game in result["games"]:
        assert (game["winner"], game["failed"], game["reason"], game["rule"]) == (
            "first",
            "cheat",
            "illegal",
            "R7",
        )
        illegal = r"discard \w\w is illegal: \w\w is not in your hand \[.*\]"
        assert re.fullmatch(illegal, game["message"]), game["message"]
    assert result["summary"]["cheat"]["failures"] == {"illegal": 2}
    log = (logs / "first.stderr.log").read_text().splitlines()
    assert f"cwd={(tmp_path / 'bots' / 'first').resolve()}" in log
    assert "GREETING=hello from the bots file" in log
    assert "SECRET=None" in log  # the minimal environment: nothing of ours but a few variables


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "nosuch"], "unknown rules preset 'nosuch': choose one of hoyle, "),
        (["--set", "knock_limit"], "bad option 'knock_limit': write name=value"),
        (["--set", "knock_limit=eleven"], "option knock_limit: expected an integer, got 'eleven'"),
        (["--set", "knock_limit=11"], "option knock_limit: 11 is out of range, expected 0..10"),
        (["--set", "no_such=1"], "unknown rules option 'no_such': the options are knock_limit, "),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--games", "0"], "argument --games: must be at least 1, got 0"),
        (["--hands", "0"], "argument --hands: must be at least 1, got 0"),
        (["--games", "2", "--hands", "2"], "argument --hands: not allowed with argument --games"),
        (["--games", "two"], "argument --games: expected a whole number, got 'two'"),
        (["--move-time", "0"], "bad time control: move must be above 0"),
        # Each of these once ended in a traceback.
        (["--move-time", "inf"], "argument --move-time: expected seconds from 0 to 86400"),
        (["--move-time", "1e308"], "argument --move-time: expected seconds from 0 to 86400"),
        (["--time-bank", "nan"], "argument --time-bank: expected seconds from 0 to 86400"),
        (["--cpu-seconds", "-1"], "argument --cpu-seconds: must be at least 1, got -1"),
        (["--memory-mb", "0"], "argument --memory-mb: must be at least 1, got 0"),
        (["--logs", "{file}"], "--logs '{file}' is a file: give a directory"),
        (["--record", "{directory}"], "--record '{directory}' is a directory: name a file"),
        (["--sandbox", "jail"], "argument --sandbox: invalid choice: 'jail'"),
        (["--seed", "-1"], "bad seed -1: a seed is an integer from 0 to 2**64 - 1"),
        (["--bots", "{missing}"], "cannot read bots file '{missing}': No such file or directory"),
        (["--bots", "{malformed}"], "bots file '{malformed}' is not valid TOML: "),
        (["--bots", "{duplicate}"], "bots file '{duplicate}', bot #2: duplicate bot name 'twin'"),
        (["--bots", "{nameless}"], "bots file '{nameless}', bot #1: 'name' must be a non-empty"),
        (["--bots", "{unknown_key}"], "bots file '{unknown_key}', bot #1: unknown key 'args'"),
    ],
)
def test_a_bad_input_is_a_clear_error_with_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "missing": tmp_path / "missing.toml",
        "malformed": tmp_path / "malformed.toml",
        "duplicate": tmp_path / "duplicate.toml",
        "nameless": tmp_path / "nameless.toml",
        "unknown_key": tmp_path / "unknown_key.toml",
    }
    files["malformed"].write_text('[[bot]]\nname = "x\n')
    files["file"] = tmp_path / "a-file"
    files["file"].write_text("not a directory")
    files["directory"] = tmp_path
    files["duplicate"].write_text(
        '[[bot]]\nname = "twin"\ncommand = "a"\n[[bot]]\nname = "twin"\ncommand = "b"\n'
    )
    files["nameless"].write_text('[[bot]]\ncommand = "a"\n')
    files["unknown_key"].write_text('[[bot]]\nname = "x"\ncommand = "a"\nargs = ["-v"]\n')
    names = {key: str(path) for key, path in files.items()}
    args = [arg.format(**names) for arg in args]
    message = message.format(**names)
    assert main(["match", "greedy", "random", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(("gin-arena match: error: ", "usage: gin-arena")), err
    assert message in err, err
    assert "Traceback" not in err


def test_a_bad_input_run_for_real_exits_2() -> None:
    done = gin_arena("match", "greedy", "random", "--rules", "nosuch")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("gin-arena match: error: unknown rules preset 'nosuch'")


def test_a_command_that_does_not_exist_is_a_startup_failure_with_exit_1(tmp_path: Path) -> None:
    ghost = tmp_path / "no-such-bot"
    # No sandbox: its warning, on a machine without bubblewrap, would come first on stderr.
    done = gin_arena("match", "greedy", str(ghost), "--json", "--sandbox", "none")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(
        f"gin-arena match: bot 'no-such-bot' could not start: cannot run '{ghost}': "
        "No such file or directory"
    ), done.stderr


def test_builtin_bots_run_as_subprocesses_from_an_uninstalled_checkout() -> None:
    """``python -m arena.cli`` in a checkout works without installing the package (the current
    directory is on sys.path); the built-in bots it starts with --subprocess must work too."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = gin_arena("match", "greedy", "random", "--hands", "1", "--subprocess", env=env)
    assert done.returncode == 0, done.stderr


def test_a_bot_command_with_a_relative_script_runs_from_the_current_directory(
    tmp_path: Path,
) -> None:
    """As in the README: ``gin-arena match greedy "python3 mybot.py"``, run where mybot.py is."""
    (tmp_path / "mybot.py").write_text(FIRST_LEGAL_BOT)
    command = f"{sys.executable} mybot.py"
    done = gin_arena("match", "greedy", command, "--hands", "1", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"][0]["reason"] == "normal"


def test_a_relative_interpreter_keeps_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``env/bin/python mybot.py``: a virtual environment's python is a link to the interpreter
    it was made from, and only by its own path is it the environment's."""
    from arena.seats.botspec import resolve

    (tmp_path / "env" / "bin").mkdir(parents=True)
    (tmp_path / "env" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / "mybot.py").write_text(FIRST_LEGAL_BOT)
    monkeypatch.chdir(tmp_path)
    spec = resolve("env/bin/python mybot.py")
    assert spec.command == (str(tmp_path / "env" / "bin" / "python"), str(tmp_path / "mybot.py"))


def test_a_long_match_without_lines_says_how_far_it_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over 20 hands, no line a hand: a line on stderr every PROGRESS_SECONDS (0 here: one a
    hand) says how many are played."""
    from arena.cli import match as match_cmd
    from arena.cli.main import main

    monkeypatch.setattr(match_cmd, "PROGRESS_SECONDS", 0.0)
    assert main(["match", "greedy", "random", "--hands", "24", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if line.startswith("match: ")]
    assert notes[0] == "match: 1 of 24 hands played" and notes[-1] == "match: 24 of 24 hands played"
    assert "match:" not in out


class _Report:
    """What :class:`arena.cli.match.Points` reads of a game's report: who failed, the scores."""

    def __init__(self, scores: tuple[int, int], failed: int | None = None) -> None:
        self.scores, self.failed = scores, failed

    def points(self, bot: int) -> int:
        return self.scores[bot]


def _points(*reports: _Report) -> object:
    from arena.cli.match import Points
    from engine.formats import TWO_PLAYER

    points = Points(2, TWO_PLAYER)
    for report in reports:
        points.add(report)  # type: ignore[arg-type]
    return points


def test_no_interval_from_a_handful_of_games_and_forfeits_apart_from_points() -> None:
    from arena.cli.match import FEWEST_FOR_INTERVAL, _difference

    sides = ("a", "b")
    two = _difference(_points(_Report((150, 0)), _Report((140, 10))), sides, "game")  # type: ignore[arg-type]
    assert two == [
        "a - b: +140.00 points a game (2 games); no interval under 10 games played out (too "
        "few to measure the spread)"
    ]
    enough = [_Report((100 + i, 0)) for i in range(FEWEST_FOR_INTERVAL)]
    shown = _difference(_points(*enough, _Report((0, 0), failed=1)), sides, "game")  # type: ignore[arg-type]
    assert "± " in shown[0] and "95% [" in shown[0]
    assert shown[0].endswith("(10 games; 1 game forfeited, not counted in points)")
    forfeits = _difference(_points(_Report((0, 0), 0), _Report((0, 0), 1)), sides, "game")  # type: ignore[arg-type]
    assert forfeits == ["a - b: no points, every game forfeited"]  # not +0.00 +- 0.00: not even
    one = _difference(_points(_Report((25, 0))), sides, "hand")  # type: ignore[arg-type]
    assert one[0].startswith("a - b: +25.00 points a hand (1 hand);")  # never "1 hands"


def test_one_game_is_one_game() -> None:
    done = gin_arena("match", "greedy", "random", "--games", "1", "--seed", "5")
    assert done.returncode == 0, done.stderr
    assert "1 games" not in done.stdout and done.stdout.splitlines()[-1] == "1 game, seed 5"
