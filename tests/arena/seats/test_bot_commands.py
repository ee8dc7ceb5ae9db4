"""A bot command that cannot run gets its likely cause, through the commands a user types
(``match``, ``tournament``, ``check-bot``): a script named without a path, a file that is not
executable or has no ``#!`` line (and what to type instead), a mistyped bot name with the nearest
names, a mistyped program with the nearest programs on PATH."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from support import gin_arena

from arena.cli.main import main
from arena.seats.programs import program_hint
from arena.seats.walls.sandbox import resolve_sandbox, sandbox_warning

needs_bwrap = pytest.mark.skipif(
    resolve_sandbox("auto") is None, reason=f"no usable bubblewrap here: {sandbox_warning()}"
)
SCRIPT = "import sys\nsys.exit(0)\n"
SHEBANG = "#!/usr/bin/env python3\n" + SCRIPT


def script(folder: Path, name: str, text: str = SCRIPT, executable: bool = False) -> Path:
    path = folder / name
    path.write_text(text)
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The error line of ``gin-arena ARGS``, refused before it runs anything (exit 2); run in
    this process (the same entry point as the command's), for speed."""
    assert main(args) == 2
    out, err = capsys.readouterr()
    prefix = f"gin-arena {args[0]}: error: "
    assert out == "" and err.startswith(prefix) and err.count("\n") == 1, out + err
    return err[len(prefix) : -1]


def test_a_script_named_without_a_path_is_refused_with_what_to_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    script(tmp_path, "mybot.py")
    said = refused(capsys, "match", "greedy", "mybot.py")
    assert said == (
        "cannot run 'mybot.py': mybot.py is not executable: run it with its interpreter "
        "(`python3 mybot.py`), or `chmod +x` it, give it a #! line (`#!/usr/bin/env python3`) "
        "and name it by its path (`./mybot.py`)"
    )
    script(tmp_path, "plain.py", executable=True)
    said = refused(capsys, "tournament", "--bot", "mine=plain.py", "--db", "t.sqlite")
    assert said.startswith(
        "cannot run 'plain.py': plain.py has no #! line: run it with its interpreter "
        "(`python3 plain.py`)"
    ), said
    script(tmp_path, "ready", SHEBANG, executable=True)
    said = refused(capsys, "check-bot", "ready")
    assert (
        said
        == "cannot run 'ready': ready is not a program on PATH: name it by its path (`./ready`)"
    )
    assert not (tmp_path / "t.sqlite").exists()


def test_a_mistyped_bot_name_gets_the_nearest_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    said = refused(capsys, "check-bot", "gredy")
    assert said == (
        "unknown bot 'gredy': not a built-in bot, a bots-file entry, a file or a program on PATH;"
        " did you mean 'greedy'?"
    )
    said = refused(capsys, "tournament", "--bot", "s=strnog")
    assert said.endswith("did you mean 'strong'?"), said
    (tmp_path / "bots.toml").write_text('[[bot]]\nname = "mybot"\ncommand = "greedy"\n')
    said = refused(capsys, "match", "mybto", "greedy", "--bots", "bots.toml")
    assert said.endswith("did you mean 'mybot'?"), said
    said = refused(capsys, "match", "xq", "greedy")
    assert said.endswith("(the built-in bots: random, greedy, strong, search, reference)"), said


@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_a_script_that_cannot_run_is_a_startup_failure_with_its_cause(
    tmp_path: Path, sandbox: str
) -> None:
    script(tmp_path, "mybot.py")
    done = gin_arena("match", "greedy", "./mybot.py", "--sandbox", sandbox, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        f"could not start: cannot run '{tmp_path / 'mybot.py'}': Permission denied; ./mybot.py is "
        "not executable: run it with its interpreter (`python3 ./mybot.py`)"
    ) in done.stderr
    # A bots file's command, through check-bot: without a #! line, not even the sandbox's
    # execvp runs it (with /bin/sh).
    script(tmp_path, "plain.py", executable=True)
    (tmp_path / "bots.toml").write_text('[[bot]]\nname = "plain"\ncommand = "./plain.py"\n')
    done = gin_arena(
        "check-bot", "plain", "--bots", "bots.toml", "--sandbox", sandbox, cwd=tmp_path
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("FAIL  handshake"), done.stdout
    assert (
        "startup: cannot run '" + str(tmp_path / "plain.py") + "': Exec format error; ./plain.py "
        "has no #! line: run it with its interpreter (`python3 ./plain.py`), or make its first "
        "line a #! line (`#!/usr/bin/env python3`)"
    ) in done.stdout, done.stdout


def test_a_mistyped_program_gets_the_nearest_programs_on_path(tmp_path: Path) -> None:
    script(tmp_path, "mybot.py")
    done = gin_arena("match", "greedy", "pyhton3 mybot.py", "--sandbox", "none", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "No such file or directory; 'pyhton3' is not a program on PATH" in done.stderr
    if shutil.which("python3"):
        assert "did you mean 'python3'" in done.stderr, done.stderr


def test_the_hints_by_kind_of_file(tmp_path: Path) -> None:
    assert program_hint("d", tmp_path) == "d is a directory, not a program"
    assert program_hint("x", tmp_path / "missing") is None
    ready = script(tmp_path, "ready", SHEBANG, executable=True)
    assert program_hint("ready", ready) is None
    ready.chmod(0o644)
    assert program_hint("ready", ready) == (
        "ready is not executable: `chmod +x ready`, or run it with its interpreter "
        "(`python3 ready`)"
    )
    node = script(tmp_path, "bot.js", "console.log(1)\n", executable=True)
    assert program_hint("bot.js", node) == (
        "bot.js has no #! line: run it with its interpreter (`node bot.js`), or make its first "
        "line a #! line (`#!/usr/bin/env node`)"
    )
    odd = script(tmp_path, "bot.xyz", "text\n")
    assert program_hint("bot.xyz", odd) == (
        "bot.xyz is not executable: run it with its interpreter (`INTERPRETER bot.xyz`), or "
        "`chmod +x` it, give it a #! line (naming its interpreter)"
    )
    binary = tmp_path / "compiled"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(8))
    assert program_hint("compiled", binary) == "compiled is not executable: `chmod +x compiled`"
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    assert program_hint("compiled", binary) is None
    assert os.access(binary, os.X_OK)
