"""Helpers of the rl tests."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from support import LONG, cli_env

from arena.play.referee import Referee
from engine import Rules
from protocol import codec
from protocol import messages as m


def ready_name(command: Sequence[str], cwd: Path) -> str:
    """The name a bot process gives in its ``ready`` message (stdin closed after the hello)."""
    hello = codec.encode(Referee(Rules()).hello(0, "other")).decode()
    done = subprocess.run(
        list(command),
        input=hello,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=cli_env(),
        timeout=LONG,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ready = codec.decode(done.stdout.splitlines()[0])
    assert isinstance(ready, m.Ready), ready
    return ready.name
