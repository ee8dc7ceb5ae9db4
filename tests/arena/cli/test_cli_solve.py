"""``gin-arena solve``: in-process through :func:`arena.cli.main`, and for real as a subprocess."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from support import gin_arena

from arena.cli.main import main

EXAMPLE = "AS 2S 3S 4S 7H 7D 7C KD QH 9C"
EXAMPLE_TEXT = """\
hand      7C 9C 7D KD 7H QH AS 2S 3S 4S  (10 cards)
melds     [7C 7D 7H] [AS 2S 3S 4S]
deadwood  29: 9C KD QH
"""
KNOCKABLE = "AS 2S 3S 4S 7H 7D 7C 2D 3C AH KH"  # discard KH: deadwood 2D 3C AH = 6
OPENSPIEL = "AS 3D 2S 3H AH AC 4D 2H 2C 2D 3S"  # gin by discarding 4D (three sets)
ELEVEN_RUN = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS"


def solve(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["solve", *args])
    out, err = capsys.readouterr()
    return code, out, err


def solve_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = solve(capsys, *args, "--json")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert isinstance(result, dict)
    return result


def test_the_issue_example_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert solve(capsys, *EXAMPLE.split()) == (0, EXAMPLE_TEXT, "")


def test_cards_may_be_one_quoted_argument_or_split_anyhow(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert solve(capsys, EXAMPLE) == (0, EXAMPLE_TEXT, "")
    assert solve(capsys, "As 2s 3s 4s 7h 7d 7c Kd Qh 9c") == (0, EXAMPLE_TEXT, "")
    assert solve(capsys, "AS 2S 3S,4S 7H", "7D 7C KD QH 9C") == (0, EXAMPLE_TEXT, "")


def test_the_issue_example_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert solve_json(capsys, EXAMPLE) == {
        "hand": ["7C", "9C", "7D", "KD", "7H", "QH", "AS", "2S", "3S", "4S"],
        "size": 10,
        "deadwood": 29,
        "melds": [["7C", "7D", "7H"], ["AS", "2S", "3S", "4S"]],
        "deadwood_cards": ["9C", "KD", "QH"],
    }


def test_eleven_cards_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = solve(capsys, KNOCKABLE)
    assert (code, err) == (0, "")
    assert out == (
        "hand      3C 7C 2D 7D AH 7H KH AS 2S 3S 4S  (11 cards)\n"
        "discard   KH  (leaves deadwood 6)\n"
        "melds     [7C 7D 7H] [AS 2S 3S 4S]  (after discarding KH)\n"
        "deadwood  6: 3C 2D AH\n"
        "knock     yes: deadwood 6 is within the knock limit 10\n"
        "gin       no\n"
        "big gin   no: without a discard the deadwood is 16: 3C 2D AH KH\n"
    )


def test_eleven_cards_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    result = solve_json(capsys, KNOCKABLE)
    assert result["deadwood"] == 6
    assert result["melds"] == [["7C", "7D", "7H"], ["AS", "2S", "3S", "4S"]]
    assert result["deadwood_cards"] == ["3C", "2D", "AH"]
    assert result["discards"] == ["KH"]
    assert result["discard"] == "KH"
    assert result["taken"] is None
    assert (result["can_knock"], result["gin"], result["big_gin"]) == (True, False, False)
    assert result["knock_limit"] == 10
    assert result["without_discard"]["deadwood"] == 16


def test_knock_limit(capsys: pytest.CaptureFixture[str]) -> None:
    assert solve_json(capsys, KNOCKABLE, "--knock-limit", "6")["can_knock"] is True
    assert solve_json(capsys, KNOCKABLE, "--knock-limit", "5")["can_knock"] is False
    _, out, _ = solve(capsys, KNOCKABLE, "--knock-limit", "0")
    assert "knock     no: deadwood 6 is over the knock limit 0\n" in out


def test_gin_and_the_taken_card(capsys: pytest.CaptureFixture[str]) -> None:
    free = solve_json(capsys, OPENSPIEL)
    assert (free["deadwood"], free["discards"], free["gin"], free["can_knock"]) == (
        0,
        ["4D"],
        True,
        True,
    )
    assert free["melds"] == [["AC", "AH", "AS"], ["2C", "2D", "2H", "2S"], ["3D", "3H", "3S"]]
    # 4D was just taken from the discard pile, so it may not be discarded (R8): no gin.
    taken = solve_json(capsys, OPENSPIEL, "--taken", "4d")
    assert (taken["deadwood"], taken["discards"], taken["gin"], taken["taken"]) == (
        1,
        ["2C"],
        False,
        "4D",
    )
    _, out, _ = solve(capsys, OPENSPIEL, "--taken", "4D")
    assert "taken     4D, which may not be discarded (R8)\n" in out


def test_big_gin_needs_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    off = solve_json(capsys, ELEVEN_RUN)
    assert (off["gin"], off["big_gin"], off["deadwood"]) == (True, False, 0)
    assert off["discards"] == ["AS", "4S", "5S", "6S", "7S", "8S", "JS"]
    assert off["without_discard"]["melds"] == [ELEVEN_RUN.split()]
    on = solve_json(capsys, ELEVEN_RUN, "--big-gin")
    assert (on["gin"], on["big_gin"], on["can_knock"]) == (True, True, True)
    _, out, _ = solve(capsys, ELEVEN_RUN, "--big-gin")
    assert "knock     yes: big gin, all eleven cards meld\n" in out
    _, out, _ = solve(capsys, ELEVEN_RUN)
    assert "but big gin is off (--big-gin)" in out


def test_a_partial_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = solve(capsys, "QS KS AS")
    assert (code, err) == (0, "")
    assert out == (
        "hand      AS QS KS  (3 cards, a partial hand)\nmelds     none\ndeadwood  21: AS QS KS\n"
    )


JSONL_INPUT = "\n".join(
    [
        '{"hand": ["AS", "2S", "3S", "4S", "7H", "7D", "7C", "KD", "QH", "9C"]}',
        "AS 2S 3S 4S 7H 7D 7C KD QH 9C AS",  # duplicate
        "",  # skipped
        json.dumps({"hand": OPENSPIEL, "taken": "4D"}),
        "{not json",
        '{"cards": ["AS"]}',
        '["QS", "KS", "AS"]',
        '{"hand": ["AS", "ZZ"]}',
        "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",  # twelve cards
        '{"hand": ["AS", "2S"], "taken": "2S"}',  # taken with fewer than eleven cards
        "",
    ]
)


def check_jsonl_output(out: str) -> None:
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in results] == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    good = {r["line"]: r for r in results if "error" not in r}
    errors = {r["line"]: r["error"] for r in results if "error" in r}
    assert sorted(good) == [1, 4, 7]
    assert good[1]["deadwood"] == 29
    assert good[1]["melds"] == [["7C", "7D", "7H"], ["AS", "2S", "3S", "4S"]]
    assert (good[4]["deadwood"], good[4]["discards"], good[4]["taken"]) == (1, ["2C"], "4D")
    assert good[7]["deadwood"] == 21
    assert "duplicate card 'AS'" in errors[2]
    assert errors[5].startswith("bad JSON")
    assert "'cards'" in errors[6]
    assert "'ZZ'" in errors[8]
    assert "1 to 11 cards, got 12" in errors[9]
    assert "11-card hand" in errors[10]
    assert all(set(r) == {"line", "error"} for r in results if "error" in r)


def test_jsonl_mixed_good_and_bad_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(JSONL_INPUT))
    code, out, err = solve(capsys, "--jsonl")
    assert (code, err) == (1, "")
    check_jsonl_output(out)


def test_jsonl_all_good_exits_0(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{EXAMPLE}\n{ELEVEN_RUN}\n"))
    code, out, err = solve(capsys, "--jsonl", "--big-gin")
    assert (code, err) == (0, "")
    first, second = (json.loads(line) for line in out.splitlines())
    assert (first["line"], first["deadwood"]) == (1, 29)
    assert (second["line"], second["big_gin"]) == (2, True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["AS", "XX"], "bad card 'XX'"),
        (["AS 2S", "AS"], "duplicate card 'AS'"),
        (["AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS"], "1 to 11 cards, got 12"),
        ([], "no cards"),
        ([OPENSPIEL, "--taken", "KS"], "the taken card KS is not in the hand"),
        ([OPENSPIEL, "--taken", "K"], "bad card 'K'"),
        ([EXAMPLE, "--taken", "AS"], "needs an 11-card hand"),
        (["--jsonl", "AS"], "give no cards"),
        (["--jsonl", "--taken", "AS"], "on each line"),
        (["AS", "--knock-limit", "11"], "11 is out of range, expected 0..10"),
        (["AS", "--knock-limit", "ten"], "expected a whole number, got 'ten'"),
        (["AS", "--json", "--jsonl"], "not allowed with argument"),
    ],
)
def test_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = solve(capsys, *args)
    assert (code, out) == (2, "")
    assert message in err
    assert err.startswith(("gin-arena solve: error:", "usage: gin-arena solve"))


def test_top_level_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "solve" in capsys.readouterr().out
    assert main(["solve", "--help"]) == 0
    assert "--knock-limit" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# For real: a separate Python process, as a user or a script runs it.


def test_subprocess_text_and_json() -> None:
    done = gin_arena("solve", *EXAMPLE.split())
    assert (done.returncode, done.stdout, done.stderr) == (0, EXAMPLE_TEXT, "")
    done = gin_arena("solve", OPENSPIEL, "--taken", "4D", "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["discards"] == ["2C"]


def test_subprocess_jsonl() -> None:
    done = gin_arena("solve", "--jsonl", stdin=JSONL_INPUT)
    assert (done.returncode, done.stderr) == (1, "")
    check_jsonl_output(done.stdout)


def test_subprocess_error_exit() -> None:
    done = gin_arena("solve", "AS", "AS")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "gin-arena solve: error: duplicate card 'AS' in 'AS AS'\n"
