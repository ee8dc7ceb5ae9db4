"""arena.report.data: the figures behind each section of a report, checked against the ratings
command, the records and the engine's show-downs, from a real tournament database and a real
match record (with a bot that crashes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena_support import hostile
from support import gin_arena

from arena.records.record import read_games
from arena.report.data import (
    HISTOGRAM_EDGES_MS,
    ReportError,
    build,
    from_record,
    from_store,
)
from engine.cards import parse_card


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("league") / "league.sqlite"
    done = gin_arena("tournament", "--db", str(db), "--games-per-table", "4", "--seed", "3")
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="module")
def crash_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("record")
    crash = " ".join(hostile("crash.py"))
    parts = []
    for number, opponent in enumerate(("greedy", crash)):  # one clean match, one with forfeits
        part = where / f"{number}.jsonl"
        done = gin_arena(
            "match", "strong", opponent, "--games", "2", "--seed", "5", "--record", str(part)
        )
        assert done.returncode == 0, done.stderr
        parts.append(part.read_text(encoding="utf-8"))
    record = where / "games.jsonl"  # one file of both, as `cat` makes it
    record.write_text("".join(parts), encoding="utf-8")
    return record


def league_data(db: Path) -> dict[str, Any]:
    names, games, config = from_store(db)
    return build(names, games, config, source=str(db), kind="tournament")


def test_standings_are_those_of_the_ratings_command(league: Path) -> None:
    data = league_data(league)
    done = gin_arena("ratings", "--db", str(league), "--format", "json")
    assert done.returncode == 0, done.stderr
    expected = json.loads(done.stdout)
    assert data["games"] == expected["games"] == 12
    assert [s["name"] for s in data["standings"]] == [b["name"] for b in expected["bots"]]
    for row, bot in zip(data["standings"], expected["bots"], strict=True):
        assert round(row["elo"], 1) == bot["elo"]
        assert [round(row["low"], 1), round(row["high"], 1)] == bot["ci95"]
        assert (row["wins"], row["losses"], row["games"]) == (bot["wins"], bot["losses"], 8)
        assert row["los_next"] == bot["los_next"]
        # The crosstable's row: wins and losses against each opponent, as the ratings have them.
        cells = data["crosstable"]["cells"][data["crosstable"]["bots"].index(row["name"])]
        for other, cell in zip(data["crosstable"]["bots"], cells, strict=True):
            if other == row["name"]:
                assert cell is None
                continue
            assert [cell["wins"], cell["losses"]] == bot["crosstable"][other]
            assert cell["games"] == 4
            assert cell["score"] == pytest.approx((cell["wins"] + cell["draws"] / 2) / 4, abs=1e-4)


def test_elo_history_ends_at_the_standings(league: Path) -> None:
    data = league_data(league)
    history = data["elo_history"]
    assert history["games"][-1] == 12 and history["games"] == sorted(history["games"])
    for row in data["standings"]:
        assert history["elo"][row["name"]][-1] == row["elo"]
        assert len(history["elo"][row["name"]]) == len(history["games"])


def test_move_times_count_every_recorded_action(league: Path) -> None:
    names, games, config = from_store(league)
    data = build(names, games, config, source="x", kind="tournament")
    counted: dict[str, int] = {}
    for game in games:
        assert game.record is not None
        bots = [b.name for b in game.record.tags.bots]
        for _, hand in game.record.hands:
            for _, action in hand.actions:
                counted[bots[action.player]] = counted.get(bots[action.player], 0) + 1
    for entry in data["move_times"]:
        assert entry["moves"] == counted[entry["bot"]]
        assert sum(entry["histogram"]["counts"]) == entry["moves"]
        assert entry["histogram"]["edges_ms"] == list(HISTOGRAM_EDGES_MS)
        assert entry["median_ms"] <= entry["p90_ms"] <= entry["max_ms"]


def play_steps(hand: dict[str, Any]) -> tuple[list[set[str]], list[str], int]:
    """Step through a replay's hand as the viewer does: the hands, the pile and the stock."""
    hands = [set(hand["hands"][0]), set(hand["hands"][1])]
    pile = [hand["upcard"]]
    stock = hand["stock"]
    for step in hand["steps"]:
        seat, kind, card = step["seat"], step["kind"], step["card"]
        if kind == "draw_stock":
            hands[seat].add(card)
            stock -= 1
        elif kind == "draw_discard":
            assert pile.pop() == card
            hands[seat].add(card)
        elif kind in ("discard", "knock") and card is not None:
            hands[seat].remove(card)
            pile.append(card)
    return hands, pile, stock


def test_replays_step_through_to_each_show_down(league: Path) -> None:
    data = league_data(league)
    assert set(data["replays"]) == {str(g["id"]) for g in data["game_list"]}
    assert all(g["replay"] for g in data["game_list"])
    knocks = 0
    for replay in data["replays"].values():
        assert replay["error"] is None
        for hand in replay["hands"]:
            assert len(hand["hands"][0]) == len(hand["hands"][1]) == 10
            hands, pile, stock = play_steps(hand)
            assert stock + len(pile) + sum(map(len, hands)) == 52
            result = hand["result"]
            show = result["show_down"]
            if show is None:
                continue
            knocks += 1
            knocker, defender = show["knocker"], 1 - show["knocker"]
            melded = {c for meld in show["knocker_melds"] for c in meld}
            assert hands[knocker] == melded | set(show["knocker_deadwood_cards"])
            own = {c for meld in show["defender_melds"] for c in meld}
            laid = {lay["card"] for lay in show["lay_offs"]}
            assert hands[defender] == own | laid | set(show["defender_deadwood_cards"])
            assert show["knocker_deadwood"] == sum(
                min(parse_card(c) % 13 + 1, 10) for c in show["knocker_deadwood_cards"]
            )
    assert knocks > 0


def test_a_record_with_forfeits(crash_record: Path) -> None:
    names, games, config = from_record(crash_record)
    assert names == ["strong", "greedy", "crash"]
    data = build(names, games, config, source=str(crash_record), kind="record")
    assert data["games"] == 4
    counts = data["failures"]["counts"]
    assert counts == [{"bot": "crash", "reason": "crash", "count": 2}]
    example = data["failures"]["examples"][0]
    assert example["bot"] == "crash" and "exited with code 3" in example["message"]
    crashed = [g for g in data["game_list"] if g["failed"] == "crash"]
    assert len(crashed) == 2 and all(g["winner"] == "strong" for g in crashed)
    strong = next(s for s in data["standings"] if s["name"] == "strong")
    assert strong["games"] == 4
    replay = data["replays"][str(crashed[0]["id"])]
    assert replay["result"]["failed"] == "crash" and replay["error"] is None


def test_a_game_cut_short_is_left_out(tmp_path: Path, crash_record: Path) -> None:
    lines = crash_record.read_text(encoding="utf-8").splitlines()
    games = read_games(crash_record)
    last_end = games[-1].end
    assert last_end is not None
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[: last_end[0] - 1]) + "\n", encoding="utf-8")
    _, kept, _ = from_record(cut)
    assert len(kept) == len(games) - 1


def test_unusable_inputs_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="no tournament database"):
        from_store(tmp_path / "missing.sqlite")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game"}\n', encoding="utf-8")
    with pytest.raises(ReportError, match=r"bad\.jsonl:1"):
        from_record(bad)
    with pytest.raises(ReportError, match="cannot read record"):
        from_record(tmp_path / "missing.jsonl")
    with pytest.raises(ReportError, match="nothing to report"):
        build(["a", "b"], [], {}, source="empty", kind="record")
