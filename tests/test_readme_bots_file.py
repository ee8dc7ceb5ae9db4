"""The bots file is documented where a user looks, and the documents cannot drift from the loader
(:func:`arena.seats.botspec.load_bots_file`): the README's "Bots files" section names exactly the
keys
the loader takes, required or not as the loader has them; its example is the shipped
docs/examples/bots.toml, which uses every key and plays a real match; ``gin-arena tournament
--help`` gives every key, and every command's ``--bots`` points to the README."""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest
from support import LONG, ROOT, cli_env, gin_arena

from arena.cli.main import main
from arena.seats.botspec import BotSpecError, load_bots_file

README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLE = ROOT / "docs" / "examples" / "bots.toml"
POINTER = 'README.md, "Bots files"'


def section() -> str:
    start = README.index("## Bots files")
    return README[start : README.index("\n## ", start)]


def documented() -> dict[str, bool]:
    """The keys of the README's table, each with whether it is required."""
    rows = re.findall(r"^\| `(\w+)` \| (required|optional) \|", section(), re.MULTILINE)
    assert rows, "the README's Bots files section has no table of keys"
    return {key: need == "required" for key, need in rows}


def write(path: Path, entry: dict[str, str | dict[str, str]]) -> Path:
    """A bots file of one bot (TOML strings and inline tables of strings)."""

    def value(v: str | dict[str, str]) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'

    path.write_text("[[bot]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in entry.items()))
    return path


def test_the_readme_names_exactly_the_keys_the_loader_takes(tmp_path: Path) -> None:
    keys = documented()
    path = tmp_path / "bots.toml"
    write(path, {"name": "x", "command": "greedy", "no_such_key": "1"})
    with pytest.raises(BotSpecError) as refused:
        load_bots_file(path)
    listed = re.search(r"unknown key 'no_such_key' \(([\w, ]+)\)", str(refused.value))
    assert listed, str(refused.value)
    assert set(listed.group(1).split(", ")) == set(keys)
    # A bot with every key loads; without a key, it loads exactly when the README says optional.
    (tmp_path / "bot.py").write_text("")
    every: dict[str, str | dict[str, str]] = {
        "name": "x",
        "command": "python3 bot.py",
        "cwd": ".",
        "env": {"A": "1"},
    }
    assert set(every) == set(keys)
    assert load_bots_file(write(path, every))["x"].env == {"A": "1"}
    for key, required in keys.items():
        without = write(path, {k: v for k, v in every.items() if k != key})
        if required:
            with pytest.raises(BotSpecError, match=f"'{key}'"):
                load_bots_file(without)
        else:
            assert load_bots_file(without)["x"].name == "x", key


def test_the_readme_example_is_the_shipped_file_and_it_uses_every_key() -> None:
    block = re.search(r"```toml\n(.*?)```", section(), re.DOTALL)
    assert block, "the README's Bots files section has no example"
    shipped = EXAMPLE.read_text(encoding="utf-8")
    assert block.group(1) == shipped  # the whole file, its heading comment too
    used = {key for entry in tomllib.loads(shipped)["bot"] for key in entry}
    assert used == set(documented())
    specs = load_bots_file(EXAMPLE)
    assert list(specs) == ["mine", "greedy", "strong", "random"]
    mine, greedy, random = specs["mine"], specs["greedy"], specs["random"]
    # Relative paths are the bots file's directory's, whatever the directory gin-arena runs in.
    assert mine.command == ("python3", str(EXAMPLE.parent / "mybot.py"))
    assert dict(mine.env) == {"PYTHONHASHSEED": "0"} and mine.cwd is None
    assert greedy.builtin == "greedy" and not greedy.command
    assert random.command == ("python3", "-m", "bots.random") and random.cwd == ROOT


def test_the_shipped_bots_file_plays_a_match(tmp_path: Path) -> None:
    python3 = Path(sys.executable).with_name("python3")
    if not python3.exists():
        pytest.skip("no python3 beside this Python: the example's commands need one")
    env = cli_env(PATH=os.pathsep.join([str(python3.parent), os.environ.get("PATH", "")]))
    match = ["match", "mine", "random", "--bots", str(EXAMPLE.relative_to(ROOT)), "--json"]
    done = gin_arena(*match, "--games", "1", "--sandbox", "none", env=env, timeout=LONG)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["bots"] == ["mine", "random"]
    assert result["games"][0]["reason"] == "normal", result["games"]


def test_the_tournament_help_gives_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--help"]) == 0
    text = capsys.readouterr().out
    assert POINTER in text and "docs/examples/bots.toml" in text
    for key in documented():
        assert re.search(rf"^  {key} = ", text, re.MULTILINE), key


@pytest.mark.parametrize("command", ["tournament", "match", "sprt", "ab", "play"])
def test_every_bots_option_points_to_the_readme(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    option = help_text[help_text.index("--bots FILE ") :][:120]  # its line, not the usage
    assert POINTER in option or ("(see below)" in option and POINTER in help_text), option


def test_an_unterminated_string_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bots.toml"
    path.write_text('[[bot]]\nname = "mine\ncommand = "greedy"\n', encoding="utf-8")
    with pytest.raises(BotSpecError) as refused:
        load_bots_file(path)
    message = str(refused.value)
    assert "line 2" in message and "an unterminated string?" in message
    path.write_text("[[bot]]\nname = = 1\n", encoding="utf-8")  # another error: no such guess
    with pytest.raises(BotSpecError) as other:
        load_bots_file(path)
    assert "unterminated string?" not in str(other.value)  # (the tmp path holds the word)
