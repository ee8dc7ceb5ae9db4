"""The SDK bot in the README is a real bot: it passes every check of ``gin-arena check-bot``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from arena.cli.check_bot import check_bot
from arena.play.referee import Clock
from arena.seats.botspec import BotSpec

ROOT = Path(__file__).resolve().parent.parent


def readme_bot() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Writing a bot") :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "the README's 'Writing a bot' section has no Python example"
    return match.group(1)


def test_the_readme_sdk_bot_passes_check_bot(tmp_path: Path) -> None:
    script = tmp_path / "highest_out.py"
    script.write_text(readme_bot(), encoding="utf-8")
    spec = BotSpec("highest-out", (sys.executable, str(script)), env={"PYTHONPATH": str(ROOT)})
    checks = check_bot(spec, Clock(move=2.0), tmp_path / "work", games=1)
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.ok]
    assert not failed, failed
    assert len(checks) >= 8
