"""docs/RL.md's tables of the observation and the actions are those of bots.encoding."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("numpy")
encoding = pytest.importorskip("bots.encoding")

DOC = Path(__file__).resolve().parents[2] / "docs" / "RL.md"


def table_after(marker: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker}:")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] not in ("offset", "id") and not set(cells[0]) <= {"-"}:
            rows.append(cells)
    return rows


def test_the_observation_table_is_the_encoding() -> None:
    rows = table_after("observation-layout")
    offset = 0
    for start, size, what in rows:
        name = re.match(r"`(\w+)`", what)
        assert name is not None, what
        assert getattr(encoding, name.group(1)) == int(start) == offset, what
        offset += int(size)
    assert offset == encoding.OBSERVATION_SIZE == 269


def test_the_action_table_is_the_encoding() -> None:
    rows = {ids: what for ids, what in table_after("action-ids")}
    assert rows.keys() == {"0-51", "52-103", "104", "105", "106", "107"}
    assert "discard" in rows["0-51"] and encoding.ACTIONS[51].kind == "discard"
    assert "knock" in rows["52-103"] and encoding.ACTIONS[52].kind == "knock"
    assert str(encoding.ACTIONS[encoding.DRAW_STOCK_ID]) == "draw stock" and "stock" in rows["104"]
    assert str(encoding.ACTIONS[105]) == "draw discard" and "discard pile" in rows["105"]
    assert str(encoding.ACTIONS[106]) == "pass" and "pass" in rows["106"]
    assert encoding.ACTIONS[107] == encoding.ACTIONS[encoding.BIG_GIN_ID]
    assert "big gin" in rows["107"] and encoding.ACTION_COUNT == 108
