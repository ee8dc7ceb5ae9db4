"""What people read: the standings fitted to a terminal of 80 or 200 columns and whole when piped,
the sentences on how sure the order is, head-to-head results, the match summary with points a
hand and its interval, and the SPRT's lines in words (a clamped Elo shown as a bound)."""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path
from statistics import NormalDist

import pytest
from arena_support import hostile
from support import gin_arena

from arena.cli import match as match_cmd
from arena.cli.main import main
from arena.cli.sprt import pair_words
from arena.stats.ratings import Fit, Rating
from arena.stats.sprt import CLAMP_ELO, Pentanomial, elo_estimate, elo_text, elo_words
from arena.tournament.standings import (
    NARROWING,
    Standings,
    certainty,
    head_to_head,
    render,
    render_notes,
    render_table,
    standings,
)
from arena.tournament.store import GameRow

LONG = "greedy-with-a-rather-long-name-v2"
LONGER = "strong-bot-from-the-autumn-league"
NAMES = [LONG, LONGER, "random"]


def game(number: int, first: str, second: str, winner: str | None, **kw: str | None) -> GameRow:
    reason = kw.get("reason") or "normal"
    return GameRow(
        number, first, second, 1, winner, reason, kw.get("failed"), "m", "", 1, 0, 1, 1.0, ""
    )


def league() -> list[GameRow]:
    """Three bots, two of them long-named, with a timeout, a crash and a drawn game."""
    rows: list[GameRow] = []
    for first, second, won, lost in ((LONG, LONGER, 13, 7), (LONG, "random", 19, 1)):
        for k in range(won + lost):
            rows.append(game(len(rows) + 1, first, second, first if k < won else second))
    for k in range(20):
        rows.append(game(len(rows) + 1, LONGER, "random", LONGER if k < 18 else "random"))
    rows.append(game(len(rows) + 1, LONG, LONGER, LONG, failed=LONGER, reason="timeout"))
    rows.append(game(len(rows) + 1, "random", LONGER, LONGER, failed="random", reason="crash"))
    rows.append(game(len(rows) + 1, "random", LONGER, None, reason="hand_limit"))
    return rows


def cells(text: str) -> list[str]:
    """The table's cells: its lines split at runs of two spaces or more."""
    return [cell for line in text.splitlines() for cell in re.split(r" {2,}", line.strip())]


# -- the standings table -----------------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 200])
def test_the_standings_fit_the_terminal_without_cutting_a_value(width: int) -> None:
    table = standings(NAMES, league())
    text = render_table(table, width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "…" not in text and "..." not in text
    for r in table.fit.ratings:  # every row whole on one line: its name and its Elo
        assert any(r.name in line and f"{r.elo:+.0f}" in line for line in text.splitlines())
    assert {"bot", "Elo", "score"} <= set(cells(text))
    if width == 200:  # everything fits: the interval whole, the failure reasons apart
        assert {"95% interval", "games", "LOS", "t/o", "crash"} <= set(cells(text))
        assert "malformed" not in text  # nobody forfeited for it
        assert "t/o, crash: games forfeited for that reason (t/o: on time)" in text
    else:  # the least important columns went first, and the interval became its half width
        assert {"95% ±", "won", "lost", "drawn"} <= set(cells(text))
        assert not {"t/o", "crash", "forfeits", "games", "95% interval", "LOS"} & set(cells(text))


def test_piped_the_standings_are_whole_and_parseable() -> None:
    table = standings(NAMES, league())
    text = render_table(table, None)
    lines = text.splitlines()
    header = lines[2].split()
    assert header[:4] == ["#", "bot", "Elo", "95%"] and header[-2:] == ["t/o", "crash"]
    rows = [line.split() for line in lines[4:7]]
    assert [row[1] for row in rows] == [r.name for r in table.fit.ratings]
    for row, r in zip(rows, table.fit.ratings, strict=True):
        assert row[2] == f"{r.elo:+.0f}"
        assert " ".join(row[3:5]) == f"[{r.low:+.0f}, {r.high:+.0f}]"
        assert row[5:8] == [str(r.games), str(r.wins), str(r.losses)]


def test_the_order_in_which_columns_give_way_is_the_documented_one() -> None:
    table = standings(NAMES, league())
    seen = []
    for width in range(120, 50, -1):
        shown = set(cells(render_table(table, width)))
        seen.append(shown)
        assert {"bot", "Elo", "score"} <= shown
    order = ("t/o", "95% interval", "games", "forfeits", "LOS", "drawn", "#", "won")
    first = {c: next(k for k, shown in enumerate(seen) if c in shown) for c in order}
    gone = [next(k for k in range(first[c], len(seen)) if c not in seen[k]) for c in order]
    assert gone == sorted(gone)
    assert first["forfeits"] == gone[0]  # the reasons became their total first
    assert len(NARROWING) == 8
    help_text = gin_arena("ratings", "--help").stdout
    assert "1. the failure columns" in help_text and "8. won and lost go" in help_text


def test_names_too_long_for_any_layout_wrap_whole() -> None:
    table = standings(NAMES, league())
    text = render_table(table, 40)
    assert max(len(line) for line in text.splitlines()) <= 40
    names = "".join(cells(line)[0] for line in text.splitlines()[4:] if line.strip())
    assert LONG in names and LONGER in names  # wrapped, every character kept
    assert "…" not in text


def test_three_player_standings_have_a_drawn_column() -> None:
    seats = ("a", "b", "c")
    rows = [
        GameRow(
            k,
            "a",
            "b",
            k,
            "a",
            "normal",
            None,
            "",
            "",
            100,
            30,
            1,
            1.0,
            "",
            "three-player",
            seats,
            (100, 30, 30),
            0,
        )
        for k in range(1, 4)
    ]
    text = render_table(standings(list(seats), rows, mode="three-player"), None)
    header = text.splitlines()[2].split()
    assert header[5:9] == ["games", "won", "lost", "drawn"]
    b = next(line.split() for line in text.splitlines() if line.split()[1:2] == ["b"])
    assert b[5:9] == ["6", "0", "3", "3"]  # lost to a three times, level with c three times


# -- how sure: head to head and certainty ------------------------------------------------------


def test_head_to_head_counts_wins_losses_and_draws_between_each_pair() -> None:
    table = standings(NAMES, league())
    lines = head_to_head(table)
    assert lines[0] == "Head to head (won-lost-drawn):"
    assert f"  {LONG} beat {LONGER} 14-7-0" in lines
    assert f"  {LONG} beat random 19-1-0" in lines
    assert f"  {LONGER} beat random 19-2-1" in lines
    seven = [f"bot{k}" for k in range(7)]
    rows = [game(k + 1, seven[k], seven[k + 1], seven[k]) for k in range(6)]
    assert head_to_head(standings(seven, rows)) == []  # more than six bots: the report has it


def rating(name: str, elo: float, los: float | None) -> Rating:
    return Rating(name, elo, elo - 50, elo + 50, 100, 50, 50, 0, los)


def test_certainty_says_how_many_more_games_would_separate_neighbours() -> None:
    fit = Fit(
        [rating("strong", 40, 0.80), rating("greedy", 10, 0.999), rating("random", -50, None)]
    )
    table = Standings(fit, {}, games=200)
    lines = certainty(table)
    assert lines[0].startswith("LOS, the likelihood of superiority: the chance that a bot is")
    z = NormalDist().inv_cdf(0.80)
    more = 200 * ((NormalDist().inv_cdf(0.95) / z) ** 2 - 1)  # the games' standard error
    assert round(more, -1) == 560  # shrinks as 1 / sqrt(games): 563.9 more for LOS 95%
    assert lines[1] == (
        "strong is ahead of greedy with 80% likelihood (LOS); about 560 more games like these "
        "would separate them (LOS 95%), if the gap holds."
    )
    assert lines[2] == (
        "greedy is ahead of random with >99% likelihood (LOS): separated (LOS 95% or more)."
    )
    assert "Separated means a LOS of 95% or more" in lines[0]  # said where it is printed


def test_a_los_that_rounds_to_100_reads_more_than_99() -> None:
    from arena.tournament.standings import likelihood

    assert [likelihood(x) for x in (1.0, 0.9999, 0.995, 0.994, 0.003)] == [
        ">99%", ">99%", ">99%", "99%", "<1%"
    ]  # fmt: skip
    fit = Fit([rating("greedy", 400, 1.0), rating("random", -400, None)])
    table = render_table(Standings(fit, {"greedy": {}, "random": {}}, games=200))
    assert ">99%" in table and "100%" not in table.replace("100.0%", "")


def test_a_tie_in_the_lead_is_said() -> None:
    fit = Fit(
        [rating("greedy", 214, 0.5), rating("strong", 214, 1.0), rating("random", -428, None)]
    )
    lines = certainty(Standings(fit, {}, games=60))
    assert lines[1] == (
        "greedy and strong are level at the top on Elo (+214): tied, listed by name; LOS 50%."
    )
    close = Fit([rating("a", 20, 0.52), rating("b", 10, None)])
    assert (
        "about level; more than 100 times the games played"
        in certainty(Standings(close, {}, 60))[1]
    )


@pytest.mark.parametrize("width", [80, 200])
def test_the_notes_fit_the_terminal(width: int) -> None:
    text = render_notes(standings(NAMES, league()), width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert LONG in text and LONGER in text


def test_render_puts_table_forfeits_and_notes_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = league()
    text = render(standings(NAMES, rows), "table", rows)
    forfeits, h2h, los = text.rstrip("\n").split("\n\n")[-3:]
    assert forfeits.startswith("forfeits: random lost 1 game by crashing [crash]")
    assert h2h.startswith("Head to head") and los.startswith("LOS, the likelihood")
    assert text.endswith(".\n\n")  # a blank line, then the tournament's seed
    monkeypatch.setattr("arena.tournament.standings.terminal_width", lambda: 80)
    narrow = render(standings(NAMES, rows), "table", rows)
    assert all(len(line) <= 80 for line in narrow.splitlines())


# -- the match summary ---------------------------------------------------------------------------


def test_a_match_of_many_hands_prints_a_summary_with_points_a_hand() -> None:
    done = gin_arena("match", "greedy", "random", "--hands", "30", "--seed", "1")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "greedy v random: 30 hands, seed 1, rules hoyle"
    assert not any(line.startswith("hand ") for line in lines)  # no per-hand lines without -v
    assert lines[2].split() == ["bot", "won", "lost", "drawn", "score", "points/hand", "forfeits"]
    greedy = lines[4].split()
    random = lines[5].split()
    points = float(greedy[5]) - float(random[5])
    found = re.fullmatch(
        r"greedy - random: ([+-]\d+\.\d\d) ± (\d+\.\d\d) points a hand, "
        r"95% \[([+-]\d+\.\d\d), ([+-]\d+\.\d\d)\] \(30 hands\)",
        lines[6],
    )
    assert found, lines[6]
    mean, error, low, high = map(float, found.groups())
    assert mean == pytest.approx(points, abs=0.06)
    assert (low, high) == pytest.approx((mean - 1.96 * error, mean + 1.96 * error), abs=0.02)
    assert lines[-1] == "30 hands, seed 1"
    verbose = gin_arena("match", "greedy", "random", "--hands", "30", "--seed", "1", "--verbose")
    assert sum(line.startswith("hand ") for line in verbose.stdout.splitlines()) == 30
    assert verbose.stdout.splitlines()[-5:] == lines[-5:]


def test_the_points_interval_is_the_per_hand_differences(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["match", "greedy", "random", "--hands", "25", "--seed", "4", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    d = [g["scores"]["greedy"] - g["scores"]["random"] for g in games]
    mean = sum(d) / len(d)
    error = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1) / len(d))
    assert main(["match", "greedy", "random", "--hands", "25", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert f"greedy - random: {mean:+.2f} ± {error:.2f} points a hand" in out


def test_a_narrow_match_summary_with_long_names_and_forfeits_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cheat = shlex.join(hostile("illegal.py", "held"))
    bots = tmp_path / "bots.toml"
    bots.write_text(
        f'[[bot]]\nname = "{LONG}-and-more"\ncommand = "greedy"\n'
        f"[[bot]]\nname = {json.dumps(LONGER)}\ncommand = {json.dumps(cheat)}\n"
    )
    monkeypatch.setattr(match_cmd, "terminal_width", lambda: 80)
    code = main(
        [
            *("match", f"{LONG}-and-more", LONGER, "--bots", str(bots), "--games", "2"),
            *("--seed", "1", "--sandbox", "none", "--move-time", "0.5"),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    summary = out.split("\n\n")[-1]
    assert all(len(line) <= 80 for line in summary.splitlines())
    assert "…" not in summary
    assert f"{LONGER} " in summary and "forfeits" in summary.splitlines()[0]


def test_a_level_partnership_match_says_so() -> None:
    done = gin_arena(
        "match", *("random", "greedy", "random", "greedy"), "--mode", "partnership",
        *("--seed", "2", "--games", "2", "--set", "game_target=30", "--mirror"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    tie = [line for line in lines if "level on wins" in line]
    wins = [int(line.split()[1]) for line in lines if re.match(r"(random|greedy)#\d +\d", line)]
    assert len(wins) == 4, done.stdout
    assert bool(tie) == (len(set(wins)) == 1), done.stdout


# -- the SPRT in words ------------------------------------------------------------------------


def test_sprt_pairs_in_words_and_a_clamped_elo_as_a_bound() -> None:
    sweep = Pentanomial((0, 0, 0, 0, 10))
    assert pair_words(sweep, "new") == (
        "10 pairs, new's two games of each deal: 10 won-won, 0 won-drawn, "
        "0 won-lost or drawn-drawn, 0 lost-drawn, 0 lost-lost"
    )
    assert round(CLAMP_ELO, 1) == 1199.8
    assert elo_text(CLAMP_ELO) == "> +1199" and elo_text(-CLAMP_ELO) == "< -1199"
    assert elo_words(*elo_estimate(sweep)).startswith("Elo > +1199, 95% [+")
    assert "1199.8" not in elo_words(*elo_estimate(Pentanomial((10, 0, 0, 0, 0))))
    assert elo_words(82.04, 51.0, 115.0) == "Elo +82.0, 95% [+51.0, +115.0]"
    assert elo_words(CLAMP_ELO, CLAMP_ELO, CLAMP_ELO) == "Elo > +1199, its 95% interval too"
