"""Events (:mod:`arena.tournament.event`): a tournament and an SPRT are opened and resumed the same
way, so what one refuses the other refuses too: a database that exists already, a bot that does
not start (no database is made), a bot whose program changed since the event began."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import gin_arena

from arena.play.match import MatchError
from arena.seats.botspec import BotSpec
from arena.tournament import event
from arena.tournament.config import TournamentError
from arena.tournament.store import StoreError

BOT = """\
import sys
from bots.greedy import GreedyBot
sys.exit(GreedyBot().run())
"""


def script_bot(path: Path, name: str) -> BotSpec:
    path.write_text(BOT, encoding="utf-8")
    return BotSpec(name, (sys.executable, str(path)))


@pytest.mark.parametrize("kind", [event.TOURNAMENT, event.SPRT])
def test_a_new_event_refuses_a_database_that_exists(tmp_path: Path, kind: event.Kind) -> None:
    db = tmp_path / "taken.sqlite"
    db.write_bytes(b"")
    bots = (BotSpec("a", builtin="greedy"), BotSpec("b", builtin="random"))
    with pytest.raises(StoreError, match=f"already exists: {kind.resume_word} it with --resume"):
        event.new(db, kind, bots, {}, "unused.sqlite")


@pytest.mark.parametrize("kind", [event.TOURNAMENT, event.SPRT])
def test_resume_needs_a_database(kind: event.Kind) -> None:
    with pytest.raises(ValueError, match=f"the database of the {kind.noun} to {kind.resume_verb}"):
        event.resume(None, kind, {})


def test_a_bot_that_does_not_start_makes_no_database(tmp_path: Path) -> None:
    db = tmp_path / "never.sqlite"
    ghost = BotSpec("ghost", ("/nonexistent/gin-arena-test/ghost-bot",))
    opening = event.new(db, event.TOURNAMENT, (BotSpec("a", builtin="greedy"), ghost), {}, "x")
    with pytest.raises(MatchError):
        opening.open(event.venue_of(db, None, None))
    assert not db.exists()


def test_an_sprt_whose_bot_changed_is_not_resumed(tmp_path: Path) -> None:
    # Through the command line, as a user resumes it: the test is decided on nothing yet (one
    # pair of games), then the bot's script is edited.
    script = tmp_path / "mine.py"
    script_bot(script, "mine")
    db = tmp_path / "s.sqlite"
    command = f"{sys.executable} {script}"
    first = gin_arena(
        "sprt", command, "random", "--max-games", "2", "--db", str(db), "--json", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["games"] == 2
    script.write_text(BOT + "# a new version\n", encoding="utf-8")
    again = gin_arena("sprt", "--db", str(db), "--resume", cwd=tmp_path)
    assert again.returncode == 2
    assert "is not the program that started this tournament" in again.stderr


def test_resume_refuses_a_changed_bot_in_process(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    mine = script_bot(script, "mine")
    db = tmp_path / "t.sqlite"
    bots = (mine, BotSpec("r", builtin="random"))
    opening = event.new(db, event.TOURNAMENT, bots, {"games_per_pair": 2}, "x")
    ready = opening.open(event.venue_of(db, None, None))
    ready.close()
    resumed = event.resume(db, event.TOURNAMENT, {})
    resumed.close()  # unchanged: resumes
    script.write_text(BOT + "# changed\n", encoding="utf-8")
    with pytest.raises(TournamentError, match="is not the program that started"):
        event.resume(db, event.TOURNAMENT, {})
