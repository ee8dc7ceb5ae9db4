"""The program a bot's command runs, resolved before the sandbox starts
(:mod:`arena.seats.programs`):
a program found on the bot's PATH is left as it is, a version manager's shim (here a stand-in
for pyenv, built as the real one is, under a hidden directory) is replaced by the program its
manager names; and a sandboxed bot that ends before it answers says the sandbox may be why.

The tests that run bots in the sandbox are skipped, with the reason, where bubblewrap is missing
or cannot create namespaces.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from arena_support import CLOCK
from support import cli_env, gin_arena

from arena.play.referee import Referee
from arena.seats import programs
from arena.seats.botspec import BotSpec
from arena.seats.connection import BotStartupError
from arena.seats.process import ProcessConnection
from arena.seats.programs import find_shim, resolve_command, sandbox_startup_hint
from arena.seats.walls.sandbox import resolve_sandbox, sandbox_warning
from engine.rules import HOYLE

SANDBOX = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    SANDBOX is None, reason=f"no usable bubblewrap here: {sandbox_warning()}"
)
START = 60.0  # generous: a loaded machine starts Python slowly
SYSTEM_PATH = "/usr/bin:/bin"

PYENV_SHIM = """\
#!/usr/bin/env bash
set -e
[ -n "$PYENV_DEBUG" ] && set -x

program="${{0##*/}}"

export PYENV_ROOT="{root}"
SHIM_PATH=${{0%/*}}
if [[ $SHIM_PATH != "{root}/shims" ]]; then
  export _PYENV_SHIM_PATH="$SHIM_PATH"
fi
exec "{root}/libexec/pyenv" exec "$program" "$@"
"""
"""A shim as pyenv 2 writes it (``pyenv rehash``), for the root ``root``."""

FAKE_PYENV = """\
#!/bin/sh
# A stand-in for pyenv that knows one program, python3: this Python. FAKE_PYENV_BROKEN makes
# `pyenv which` fail; FAKE_PYENV_SLEEP makes it hang.
echo "$1 $2 PYENV_ROOT=$PYENV_ROOT cwd=$(pwd)" >> "$PYENV_ROOT/calls" 2>/dev/null || true
case "$1" in
which)
  [ -n "$FAKE_PYENV_SLEEP" ] && sleep "$FAKE_PYENV_SLEEP"
  if [ "$2" = python3 ] && [ -z "$FAKE_PYENV_BROKEN" ]; then echo "{python}"; exit 0; fi
  echo "pyenv: $2: command not found" >&2
  exit 127 ;;
exec)
  [ "$2" = python3 ] || {{ echo "pyenv: $2: command not found" >&2; exit 127; }}
  shift 2
  exec "{python}" "$@" ;;
esac
echo "pyenv: no such command '$1'" >&2
exit 1
"""

FIRST_LEGAL_BOT = """\
import json, sys

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
"""A bot that plays the first legal action."""


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@dataclass(frozen=True)
class FakePyenv:
    root: Path

    @property
    def shims(self) -> Path:
        return self.root / "shims"

    def path(self, rest: str = SYSTEM_PATH) -> str:
        """A PATH with the shims first, as ``pyenv init`` makes it."""
        return f"{self.shims}{os.pathsep}{rest}"

    def calls(self) -> list[str]:
        calls = self.root / "calls"
        return calls.read_text().splitlines() if calls.exists() else []


@pytest.fixture
def pyenv(tmp_path: Path) -> FakePyenv:
    """A pyenv root under a hidden directory: ``shims/python3`` as pyenv writes it, and a
    stand-in ``libexec/pyenv`` (with ``bin/pyenv`` linked to it, as installed) whose
    ``which python3`` and ``exec python3`` give this Python."""
    root = tmp_path / ".pyenv"
    executable(root / "shims" / "python3", PYENV_SHIM.format(root=root))
    executable(root / "libexec" / "pyenv", FAKE_PYENV.format(python=sys.executable))
    (root / "bin").mkdir()
    (root / "bin" / "pyenv").symlink_to("../libexec/pyenv")
    return FakePyenv(root)


@pytest.fixture
def no_subprocess(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a subprocess was run: {args}")

    monkeypatch.setattr(subprocess, "Popen", refuse)


# -- programs that are no shim -----------------------------------------------------------------


@pytest.mark.usefixtures("no_subprocess")
def test_a_program_that_is_no_shim_is_left_as_it_is_without_a_subprocess(tmp_path: Path) -> None:
    script = executable(tmp_path / "bin" / "mybot", "#!/bin/sh\nexec sleep 1\n")
    (tmp_path / "bin" / "py").symlink_to(sys.executable)
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{SYSTEM_PATH}"}
    for argv in (
        ["mybot", "--level", "3"],  # a script found on PATH
        ["py", "bot.py"],  # a link found on PATH
        [sys.executable, "-m", "bots.greedy"],
        [str(script)],
        ["sh", "-c", "true"],
    ):
        assert resolve_command(argv, env, tmp_path) == argv
        assert find_shim(argv, env, tmp_path) is None


@pytest.mark.usefixtures("no_subprocess")
def test_a_missing_program_is_left_for_exec_to_report(tmp_path: Path) -> None:
    env = {"PATH": SYSTEM_PATH}
    for argv in (["no-such-program", "x"], ["./no-such-bot"], [str(tmp_path / "ghost")], []):
        assert resolve_command(argv, env, tmp_path) == argv


# -- shims -------------------------------------------------------------------------------------


def test_a_pyenv_shim_on_path_is_replaced_by_the_program_pyenv_names(
    pyenv: FakePyenv, tmp_path: Path
) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    env = {"PATH": pyenv.path(), "HOME": str(tmp_path / "home")}
    argv = ["python3", "mybot.py", "--level", "3"]
    assert resolve_command(argv, env, bot) == [sys.executable, "mybot.py", "--level", "3"]
    # Asked as the shim would ask: with the root the shim exports, in the bot's directory.
    assert pyenv.calls() == [f"which python3 PYENV_ROOT={pyenv.root} cwd={bot}"]
    shim = find_shim(argv, env, bot)
    assert shim is not None
    assert (shim.kind, shim.name, shim.path) == ("pyenv", "python3", pyenv.shims / "python3")
    assert shim.question == "pyenv which python3"


def test_a_link_to_a_shim_and_a_shim_named_in_full_are_resolved(
    pyenv: FakePyenv, tmp_path: Path
) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(pyenv.shims / "python3")
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{SYSTEM_PATH}"}
    assert resolve_command(["python3", "bot.py"], env, tmp_path) == [sys.executable, "bot.py"]
    named = str(pyenv.shims / "python3")
    assert resolve_command([named, "bot.py"], {"PATH": SYSTEM_PATH}, tmp_path) == [
        sys.executable,
        "bot.py",
    ]


def test_a_script_whose_interpreter_is_a_shim_runs_with_the_real_interpreter(
    pyenv: FakePyenv, tmp_path: Path
) -> None:
    executable(tmp_path / "mybot.py", "#!/usr/bin/env python3\nprint('hi')\n")
    env = {"PATH": pyenv.path()}
    assert resolve_command(["./mybot.py", "-v"], env, tmp_path) == [
        sys.executable,
        "./mybot.py",
        "-v",
    ]
    executable(tmp_path / "bin" / "mybot", "#!/usr/bin/env python3\n")
    env = {"PATH": pyenv.path(str(tmp_path / "bin"))}
    assert resolve_command(["mybot"], env, tmp_path) == [
        sys.executable,
        str(tmp_path / "bin/mybot"),
    ]


@pytest.mark.parametrize(
    ("setting", "value"), [("FAKE_PYENV_BROKEN", "1"), ("FAKE_PYENV_SLEEP", "30")]
)
def test_a_manager_that_fails_or_hangs_leaves_the_shim(
    pyenv: FakePyenv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, value: str
) -> None:
    monkeypatch.setattr(programs, "SHIM_SECONDS", 0.5)
    env = {"PATH": pyenv.path(), setting: value}
    argv = ["python3", "mybot.py"]
    assert resolve_command(argv, env, tmp_path) == argv
    shim = find_shim(argv, env, tmp_path)
    assert shim is not None
    real, why = shim.which()
    assert real is None
    assert why in (
        "it exited with code 127: pyenv: python3: command not found",
        "it did not answer within 0.5 s",
    )


def test_the_shims_of_other_managers_are_recognised(tmp_path: Path) -> None:
    """rbenv's (with the script's directory, as its shim sets it), asdf's (its manager found on
    PATH, its data directory from where the shim lives), and mise's (a link to mise)."""
    rbenv = tmp_path / ".rbenv"
    executable(
        rbenv / "shims" / "ruby",
        '#!/usr/bin/env bash\nset -e\nprogram="${0##*/}"\nfor arg; do\n  case "$arg" in\n'
        '  */* ) if [ -f "$arg" ]; then export RBENV_DIR="${arg%/*}"; break; fi ;;\n'
        f'  esac\ndone\nexport RBENV_ROOT="{rbenv}"\n'
        f'exec "{rbenv}/libexec/rbenv" exec "$program" "$@"\n',
    )
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "bot.rb").write_text("")
    env = {"PATH": f"{rbenv / 'shims'}{os.pathsep}{SYSTEM_PATH}"}
    shim = find_shim(["ruby", "-w", "bots/bot.rb"], env, tmp_path)
    assert shim is not None and shim.question == "rbenv which ruby"
    assert shim.manager == f"{rbenv}/libexec/rbenv"
    assert (shim.env["RBENV_ROOT"], shim.env["RBENV_DIR"]) == (str(rbenv), "bots")

    asdf = tmp_path / ".asdf"
    executable(
        asdf / "shims" / "node",
        '#!/usr/bin/env bash\n# asdf-plugin: nodejs 20.1.0\nexec asdf exec "node" "$@"',
    )
    executable(tmp_path / "bin" / "asdf", "#!/bin/sh\n")
    env = {"PATH": os.pathsep.join([str(asdf / "shims"), str(tmp_path / "bin"), SYSTEM_PATH])}
    shim = find_shim(["node", "bot.js"], env, tmp_path)
    assert shim is not None and shim.question == "asdf which node"
    assert shim.manager == str(tmp_path / "bin" / "asdf")
    assert shim.env["ASDF_DATA_DIR"] == str(asdf)
    own = find_shim(["node"], {**env, "ASDF_DATA_DIR": "/elsewhere"}, tmp_path)
    assert own is not None and own.env["ASDF_DATA_DIR"] == "/elsewhere"

    mise = executable(tmp_path / ".local" / "bin" / "mise", "#!/bin/sh\n")
    shims = tmp_path / ".local" / "share" / "mise" / "shims"
    shims.mkdir(parents=True)
    (shims / "python3").symlink_to(mise)
    shim = find_shim(["python3"], {"PATH": str(shims)}, tmp_path)
    assert shim is not None and shim.question == "mise which python3"
    assert shim.env["MISE_DATA_DIR"] == str(shims.parent)
    assert find_shim([str(mise), "install"], {"PATH": SYSTEM_PATH}, tmp_path) is None


# -- the hint ----------------------------------------------------------------------------------


def test_the_hint_names_what_the_sandbox_shows_and_how_to_check() -> None:
    hint = sandbox_startup_hint([sys.executable, "mybot.py"], {"PATH": SYSTEM_PATH}, Path("/"))
    assert hint.startswith("the sandbox may be why: it shows")
    assert "--sandbox none" in hint and "`cwd` in a bots file" in hint
    assert "\n" not in hint


def test_the_hint_for_a_shim_says_what_its_manager_said(pyenv: FakePyenv, tmp_path: Path) -> None:
    env = {"PATH": pyenv.path(), "FAKE_PYENV_BROKEN": "1"}
    hint = sandbox_startup_hint(["python3", "mybot.py"], env, tmp_path)
    assert f"'python3' is a pyenv shim ({pyenv.shims / 'python3'})" in hint
    assert "`pyenv which python3` did not say what it runs (it exited with code 127" in hint
    assert "--sandbox none" in hint and "absolute path" in hint
    del env["FAKE_PYENV_BROKEN"]
    hint = sandbox_startup_hint(["python3", "mybot.py"], env, tmp_path)
    assert f"'python3', a pyenv shim, ran as {sys.executable}" in hint


# -- in the sandbox ----------------------------------------------------------------------------


@pytest.fixture
def arena() -> Iterator[list[ProcessConnection]]:
    """The connections a test opens, closed at its end."""
    opened: list[ProcessConnection] = []
    yield opened
    for conn in opened:
        conn.close()


def connect(
    tmp_path: Path, opened: list[ProcessConnection], name: str, argv: list[str], **kwargs: Any
) -> ProcessConnection:
    conn = ProcessConnection(
        name,
        argv,
        workdir=tmp_path / "arena" / name,
        log_path=tmp_path / "arena" / f"{name}.stderr.log",
        **kwargs,
    )
    opened.append(conn)
    return conn


@needs_bwrap
def test_a_bot_run_through_a_pyenv_shim_plays_in_the_sandbox(
    pyenv: FakePyenv, tmp_path: Path
) -> None:
    """``gin-arena match "python3 mybot.py" greedy --sandbox bwrap`` with pyenv's shims first
    on PATH: the shim alone, in the sandbox, cannot find pyenv (hidden) and exits with 127."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "mybot.py").write_text(FIRST_LEGAL_BOT)
    env = cli_env(PATH=pyenv.path(os.environ.get("PATH", SYSTEM_PATH)))
    done = gin_arena(
        "match",
        "python3 mybot.py",
        "greedy",
        "--sandbox",
        "bwrap",
        "--games",
        "1",
        "--json",
        env=env,
        cwd=bot,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"][0]["reason"] == "normal"
    assert [call.split()[:2] for call in pyenv.calls()] == [["which", "python3"]]


@needs_bwrap
def test_a_shim_its_manager_cannot_resolve_fails_with_the_hint(
    pyenv: FakePyenv, tmp_path: Path, arena: list[ProcessConnection]
) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "mybot.py").write_text(FIRST_LEGAL_BOT)
    conn = connect(
        tmp_path,
        arena,
        "shimmed",
        ["python3", str(tmp_path / "bot" / "mybot.py")],
        env={"PATH": pyenv.path(), "FAKE_PYENV_BROKEN": "1"},
        sandbox=SANDBOX,
    )
    with pytest.raises(BotStartupError) as caught:
        conn.start(Referee(HOYLE, CLOCK).hello(0), START)
    detail = caught.value.detail
    assert re.match(r"no answer to hello: exited with code \d+; the sandbox may be why: ", detail)
    assert "'python3' is a pyenv shim" in detail and "--sandbox none" in detail
    log = (tmp_path / "arena" / "shimmed.stderr.log").read_text()
    assert f"{pyenv.root}/libexec/pyenv: No such file or directory" in log, log


@needs_bwrap
def test_a_bot_that_needs_a_hidden_file_is_told_the_sandbox_may_be_why(
    tmp_path: Path, arena: list[ProcessConnection]
) -> None:
    """Its configuration is in a directory its command does not name: in the sandbox the bot
    ends at once, and the error says why and how to check; without the sandbox it starts."""
    config = tmp_path / ".config" / "mybot.json"
    config.parent.mkdir()
    config.write_text("{}")
    bot = executable(
        tmp_path / "bot" / "mybot.py",
        f"import runpy\nopen({str(config)!r}).close()\n"
        f"runpy.run_path({str(tmp_path / 'bot' / 'play.py')!r})\n",
    )
    (tmp_path / "bot" / "play.py").write_text(FIRST_LEGAL_BOT)
    hello = Referee(HOYLE, CLOCK).hello(0)
    boxed = connect(tmp_path, arena, "boxed", [sys.executable, str(bot)], sandbox=SANDBOX)
    with pytest.raises(BotStartupError) as caught:
        boxed.start(hello, START)
    detail = caught.value.detail
    assert re.match(r"no answer to hello: exited with code \d+; the sandbox may be why: ", detail)
    assert "--sandbox none" in detail
    assert "No such file" in (tmp_path / "arena" / "boxed.stderr.log").read_text()
    free = connect(tmp_path, arena, "free", [sys.executable, str(bot)])
    assert free.start(hello, START).name == "first-legal"


@needs_bwrap
def test_a_bot_that_does_not_answer_in_time_gets_no_hint(
    tmp_path: Path, arena: list[ProcessConnection]
) -> None:
    conn = connect(
        tmp_path,
        arena,
        "mute",
        [sys.executable, "-c", "import time; time.sleep(60)"],
        sandbox=SANDBOX,
        quit_wait=0.1,
    )
    with pytest.raises(BotStartupError) as caught:
        conn.start(Referee(HOYLE, CLOCK).hello(0), 0.5)
    assert "sandbox" not in caught.value.detail


def test_two_processes_never_share_a_bots_working_directory(tmp_path: Path) -> None:
    """A tournament's workers start the same bot at once, and each empties its bot's working
    directory first: one process's must never be another's (a bot once failed to start, its
    directory removed under it), while their logs stay side by side, where the sandbox hides
    them."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: another worker
        try:
            theirs = BotSpec("same", ("true",)).connect(tmp_path)
            os.write(write, str(getattr(theirs, "workdir", "")).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        theirs_dir = Path(pipe.read().decode())
    os.waitpid(pid, 0)
    mine = BotSpec("same", ("true",)).connect(tmp_path)
    assert isinstance(mine, ProcessConnection)
    assert mine.workdir != theirs_dir
    assert mine.workdir.parent == theirs_dir.parent == tmp_path == Path(mine.log_path).parent
