"""The command layer: the resume rules (in arena.tournament.runner, tested without a command line),
the
shared options, the registration of commands, the help texts generated from the rules object,
built-in bots in a bots file, and the tournament's output (grammar, progress lines when not on a
terminal, an ETA weighted by pair; the tables' widths are in test_readable_output.py)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import cli_env

from arena.cli import tournament as tournament_cmd
from arena.cli.main import COMMANDS, build_parser, main
from arena.cli.options import add_rules_arguments, rules_from
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec, BotSpecError, load_bots_file
from arena.tournament.config import (
    Config,
    TournamentError,
    bot_digest,
    check_anchor,
    check_bots,
    new_config,
    resume_config,
    schedule,
)
from arena.tournament.store import GameRow
from engine.rules import PRESETS, Rules, option_names

BOTS = (BotSpec("a", builtin="greedy"), BotSpec("b", builtin="random"))


# -- the resume rules ---------------------------------------------------------------------------


def test_a_new_tournament_takes_what_is_given_and_draws_a_secret_seed() -> None:
    first = new_config(BOTS, games_per_pair=4, clock={"move": 0.5})
    second = new_config(BOTS, games_per_pair=4, clock={"move": 0.5})
    assert first.games_per_pair == 4
    assert first.clock == Clock(move=0.5)
    assert first.seed != second.seed  # random, not 1
    assert new_config(BOTS, seed=7).seed == 7


def test_resuming_may_repeat_the_configuration_but_not_change_it() -> None:
    stored = new_config(BOTS, games_per_pair=4, seed=3, clock={"move": 0.5, "bank": 2.0})
    assert resume_config(stored, "'t.sqlite'") == stored
    same = resume_config(
        stored, "'t.sqlite'", games_per_pair=4, seed=3, bots=list(BOTS), clock={"bank": 2.0}
    )
    assert same == stored
    for change, field in (
        ({"seed": 4}, "seed"),
        ({"games_per_pair": 6}, "games_per_pair"),
        ({"clock": {"move": 1.0}}, "clock"),
        ({"rules": Rules().replace(knock_limit=7)}, "rules"),
        ({"bots": (BOTS[1], BOTS[0])}, "bots"),
        ({"in_process": False, "kind": "gauntlet"}, "in_process, kind"),
    ):
        with pytest.raises(TournamentError, match=rf"changed configuration \({field}\)"):
            resume_config(stored, "'t.sqlite'", **change)


def test_a_bot_whose_files_changed_cannot_resume(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print('v1')\n")
    bot = BotSpec("mine", (sys.executable, str(script)))
    config = Config(bots=(bot, BOTS[0]), games_per_pair=2)
    digests = {"mine": bot_digest(bot), "a": bot_digest(BOTS[0])}
    check_bots(config, digests, "'t.sqlite'")
    script.write_text("print('v2')\n")
    with pytest.raises(TournamentError, match="'mine' is not the program that started"):
        check_bots(config, digests, "'t.sqlite'")
    with pytest.raises(TournamentError, match="does not record bot 'a'"):
        check_bots(config, {"mine": bot_digest(bot)}, "'t.sqlite'")


def test_an_anchor_must_be_a_bot_of_the_tournament() -> None:
    config = Config(bots=BOTS, games_per_pair=2)
    check_anchor(None, config)
    check_anchor("a", config)
    with pytest.raises(TournamentError, match="--anchor 'z' is not a bot of this tournament"):
        check_anchor("z", config)


# -- shared options and registration -----------------------------------------------------------


def test_rules_options_take_values_and_the_help_lists_presets_and_options() -> None:
    assert rules_from("oklahoma", ["knock_limit=7"]) == PRESETS["oklahoma"].replace(knock_limit=7)
    parser = argparse.ArgumentParser()
    add_rules_arguments(parser)
    text = " ".join(parser.format_help().split())
    for name in (*PRESETS, *option_names()):
        assert name in text, name


def test_every_command_is_registered_once_and_has_help() -> None:
    names = [command.name for command in COMMANDS]
    assert len(names) == len(set(names))
    assert {"tournament", "ratings", "match", "replay", "judge", "check-bot", "solve"} <= set(names)
    parser = build_parser()
    for command in COMMANDS:
        assert command.help and command.description
        with pytest.raises(SystemExit):
            parser.parse_args([command.name, "--help"])


def test_version_and_python_dash_m() -> None:
    from engine import __version__

    done = subprocess.run(
        [sys.executable, "-m", "arena", "--version"],
        capture_output=True,
        text=True,
        env=cli_env(),
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, f"gin-arena {__version__}")
    assert main(["--version"]) == 0


def test_a_bots_file_may_name_a_built_in_bot(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_text(
        '[[bot]]\nname = "g"\ncommand = "greedy"\n'
        '[[bot]]\nname = "s"\ncommand = "strong"\nenv = { X = "1" }\n'
    )
    specs = load_bots_file(path)
    assert specs["g"] == BotSpec("g", builtin="greedy")
    assert specs["s"].builtin == "strong" and dict(specs["s"].env) == {"X": "1"}
    path.write_text('[[bot]]\nname = "g"\ncommand = "greedy"\ncwd = "."\n')
    with pytest.raises(BotSpecError, match="a built-in bot has no 'cwd'"):
        load_bots_file(path)


# -- the tournament's output --------------------------------------------------------------------


def test_counts_are_grammatical() -> None:
    assert tournament_cmd.plural(1, "pair") == "1 pair"
    assert tournament_cmd.plural(2, "game") == "2 games"
    assert tournament_cmd.plural(0, "bot") == "0 bots"


def row(number: int, seconds: float) -> GameRow:
    return GameRow(number, "a", "b", 1, "a", "normal", None, "", "", 1, 0, 1, seconds, "")


def test_the_eta_weighs_the_pairs_still_to_play() -> None:
    config = Config(
        bots=(*BOTS, BotSpec("c", builtin="strong")), games_per_pair=2, mirror=False, seed=1
    )
    tasks = schedule(config)  # pairs (a, b), (a, c), (b, c): two games each, ids 1..6
    now = [0.0]
    eta = tournament_cmd.Eta(tasks, [], workers=1, clock=lambda: now[0])
    assert eta.remaining() == "?"
    now[0] = 1.0
    eta.finished(row(1, 1.0))  # pair (a, b): 1 s a game
    now[0] = 11.0
    eta.finished(row(3, 10.0))  # pair (a, c): 10 s a game
    # Left: one (a, b) game at 1 s, one (a, c) at 10 s, two (b, c) at the recent mean, 5.5 s.
    assert eta.remaining() == "0:22"
    now[0] = 0.0
    two = tournament_cmd.Eta(tasks, [row(1, 0.0), row(3, 0.0)], workers=2, clock=lambda: now[0])
    now[0] = 1.0
    two.finished(row(2, 1.0))
    now[0] = 5.5
    two.finished(row(4, 10.0))  # 11 game-seconds in 5.5 s: two workers busy
    assert two.remaining() == "0:06"  # two (b, c) games at 5.5 s, on two workers


def test_the_eta_follows_the_recent_rate() -> None:
    """A slow table after many quick ones: the rate and the time left are the recent games',
    not the whole run's average (which would say 2.5 games a second long after it is 0.2)."""
    bots = tuple(BotSpec(name, builtin="random") for name in "abc")
    config = Config(bots=bots, games_per_pair=100, mirror=False, seed=1)
    tasks = schedule(config)  # (a, b) ids 1..100, (a, c) 101..200, (b, c) 201..300
    now = [0.0]
    eta = tournament_cmd.Eta(tasks, [], workers=1, clock=lambda: now[0])
    for number in range(1, 101):  # the quick table: 0.1 s a game
        now[0] += 0.1
        eta.finished(row(number, 0.1))
    for number in range(101, 101 + tournament_cmd.RECENT):  # then a slow one: 5 s a game
        now[0] += 5.0
        eta.finished(row(number, 5.0))
    assert eta.rate() == "0.2/s"
    # left: 70 games of the slow table at 5 s and 100 unseen at the recent 5 s, one at a time
    assert eta.remaining() == f"{170 * 5 // 60}:{170 * 5 % 60:02d}"


def test_without_a_terminal_progress_is_a_plain_line_now_and_then(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(tournament_cmd, "PROGRESS_SECONDS", 0.0)
    code = main(
        [
            *("tournament", "--bot", "a=greedy", "--bot", "b=random", "--games-per-pair", "4"),
            *("--concurrency", "1", "--db", str(tmp_path / "t.sqlite"), "--sandbox", "none"),
        ]
    )
    assert code == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 4, err
    assert all(re.fullmatch(r"games \d/4  \d+\.\d/s eta \d+:\d\d  leader: [ab]", x) for x in lines)
    assert "2 bots (a, b): 1 pair, 4 games each, mirrored" in out
