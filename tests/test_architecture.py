"""The arrows of docs/ARCHITECTURE.md, enforced: every import in the product (engine, protocol,
bots, arena; imports inside functions and type-only imports included) goes from a layer down to a
lower one, never up and never sideways between two rooms of one layer; and a command of the CLI
imports no other command (what two commands share lives in a lower room or in
``arena.cli.options``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "bots", "arena")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("engine",),
    ("protocol",),
    ("bots",),
    ("arena.errors", "arena.terminal"),
    ("arena.stats", "arena.seats"),
    ("arena.records",),
    ("arena.play",),
    ("arena.tournament", "arena.rl", "arena.conformance"),
    ("arena.report",),
    ("arena.serve",),
    ("arena.cli",),
    ("arena.__main__",),
)
"""The rooms of each layer, lowest first; a room is a package, or one module at the top of
arena/. The same table is drawn in docs/ARCHITECTURE.md."""

SHARED_BY_COMMANDS = ("arena.cli.options", "arena.cli.layout")
"""The modules of arena.cli a command may import: the options commands share, and the layout of
text for the terminal (help, check lists, the lines around the standings)."""


def room_of(module: str) -> str | None:
    """The room a dotted module name lives in (None: not the product's)."""
    for layer in LAYERS:
        for room in layer:
            if module == room or module.startswith(room + "."):
                return room
    if module == "arena" or module.startswith("arena.__init__"):
        return "arena"
    return None


LEVEL = {room: level for level, layer in enumerate(LAYERS) for room in layer}


def modules() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


def imports(path: Path, module: str) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line (relative imports resolved)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            for alias in node.names:
                # `from arena.seats import wire` imports the module arena.seats.wire.
                yield node.lineno, f"{base}.{alias.name}"


def arrows() -> list[tuple[str, int, str]]:
    found = []
    for module, path in modules():
        for line, target in imports(path, module):
            if room_of(target) is not None:
                found.append((module, line, target))
    return found


ARROWS = arrows()


def test_every_module_of_the_product_has_a_room() -> None:
    homeless = [name for name, _ in modules() if room_of(name) is None and name != "arena"]
    assert not homeless, f"modules in no room of LAYERS: {homeless}"


def test_no_import_runs_up_or_sideways() -> None:
    wrong = []
    for module, line, target in ARROWS:
        source, goal = room_of(module), room_of(target)
        if source is None or goal is None or goal in (source, "arena"):
            continue
        if source == "arena":
            wrong.append(f"{module}:{line} imports {target}: arena/__init__ imports nothing")
        elif LEVEL[goal] >= LEVEL[source]:
            how = "sideways" if LEVEL[goal] == LEVEL[source] else "up"
            wrong.append(f"{module}:{line} imports {target} ({how}: {source} -> {goal})")
    assert not wrong, "\n".join(wrong)


def test_commands_import_no_command() -> None:
    commands = {name for name, _ in modules() if name.startswith("arena.cli.")} - {
        "arena.cli.main",
        "arena.cli.options",
        "arena.cli.layout",
        "arena.cli.__main__",
    }
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in ARROWS
        if module in commands
        and target.startswith("arena.cli.")
        and not target.startswith(SHARED_BY_COMMANDS)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_architecture_document_draws_these_layers() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- layers -->\n(.*?)<!-- /layers -->", text, re.S)
    assert table, "docs/ARCHITECTURE.md has no <!-- layers --> table"
    rows = [
        tuple(re.findall(r"`([\w.]+)`", line))
        for line in table.group(1).splitlines()
        if line.startswith("| ") and "`" in line
    ]
    assert rows == list(reversed(LAYERS)), "docs/ARCHITECTURE.md's layers differ from LAYERS"


@pytest.mark.parametrize(
    ("module", "target", "room"),
    [
        ("arena.play.match", "arena.seats.botspec", "arena.seats"),
        ("arena.terminal", "arena.terminal", "arena.terminal"),
        ("engine.hand", "engine.actions", "engine"),
    ],
)
def test_rooms_are_found_by_prefix(module: str, target: str, room: str) -> None:
    assert room_of(target) == room
    assert room_of(module) is not None
