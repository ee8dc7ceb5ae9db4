"""Generate the transcripts in docs/PROTOCOL.md: every line of a real game, both seats, in order;
and every line of a real three-player hand, all three players.

Two built-in greedy bots play one game through the real referee
(:class:`arena.play.referee.Referee`)
and in-process connections, which pass every message through the codec both ways; the lines are
taken off the wire (:func:`arena.seats.wire.tap`). The rules
are ``hoyle`` with ``game_target=1``, so the first hand won ends the game; the seed is chosen so
that this hand shows most of the protocol (a pass on the first upcard, draws from both piles, a
knock, a show-down with lay-offs). The block between ``<!-- transcript:begin -->`` and
``<!-- transcript:end -->`` is generated, as is the three-player one between
``<!-- transcript-three-player:begin -->`` and its end marker (:func:`three_player_transcript`);
everything else in the document is written by hand.

    python docs/examples/transcript.py           rewrite the block in docs/PROTOCOL.md
    python docs/examples/transcript.py --check   exit 1 if the block is stale, changing nothing
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Literal

ROOT: Final = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `python docs/examples/transcript.py` from a checkout
    sys.path.append(str(ROOT))

from arena.play.referee import Clock, GameOutcome, Referee  # noqa: E402
from arena.seats import wire  # noqa: E402
from arena.seats.connection import InProcessConnection  # noqa: E402
from bots.greedy import GreedyBot  # noqa: E402
from engine.modes import Mode  # noqa: E402
from engine.rules import Rules  # noqa: E402
from protocol import messages as m  # noqa: E402

PROTOCOL_MD: Final = ROOT / "docs" / "PROTOCOL.md"
BEGIN: Final = "<!-- transcript:begin -->"
END: Final = "<!-- transcript:end -->"

SEED: Final = 355
THREE_PLAYER_SEED: Final = 0
COMPACT_BEGIN: Final = "<!-- transcript-compact:begin -->"
COMPACT_END: Final = "<!-- transcript-compact:end -->"
THREE_BEGIN: Final = "<!-- transcript-three-player:begin -->"
THREE_END: Final = "<!-- transcript-three-player:end -->"
RULES: Final = Rules().replace(game_target=1)
CLOCK: Final = Clock(move=1.0, bank=10.0)

Direction = Literal["->", "<-"]
Line = tuple[int, Direction, str]
"""One line of the transcript: the seat, ``->`` (referee to bot) or ``<-`` (bot to referee),
and the JSON text exactly as it travels, without its newline."""


class StaleError(ValueError):
    """docs/PROTOCOL.md lacks the transcript markers or has them more than once."""


ARROWS: Final[dict[str, Direction]] = {wire.TO_BOT: "->", wire.FROM_BOT: "<-"}


class PlainGreedyBot(GreedyBot):
    """The greedy bot asking for the plain form (the SDK asks for the compact one)."""

    form = "plain"


def play(
    seed: int = SEED, rules: Rules = RULES, mode: Mode = Mode.TWO_PLAYER, compact: bool = False
) -> tuple[list[Line], GameOutcome]:
    """Play one game between greedy bots, in the plain or the ``compact`` form; return every
    line on the wire and the outcome (the seat of each line is the player's number in other
    formats)."""
    bot = GreedyBot if compact else PlainGreedyBot
    referee = Referee(rules, CLOCK, ids=random.Random(SEED))  # stable ids for a stable document
    # Named by seat, so that the wire tells the greedy bots apart.
    connections = [InProcessConnection(f"seat {seat}", bot) for seat in range(mode.players)]
    seats = {connection.name: seat for seat, connection in enumerate(connections)}
    with wire.tap() as tapped:
        for seat, connection in enumerate(connections):
            if mode is Mode.TWO_PLAYER:
                connection.start(referee.hello(seat, "greedy"), CLOCK.startup)
            else:
                connection.start(referee.hello(0, None, mode), CLOCK.startup)
        outcome = referee.play_game(connections, seed, mode=mode, names=["greedy"] * mode.players)
        for connection in connections:
            connection.send(m.Quit(type="quit"))  # what the arena sends when the match is over
            connection.close()
    lines = [(seats[t.bot], ARROWS[t.direction], t.text) for t in tapped if t.bot in seats]
    return lines, outcome


def transcript(compact: bool = False) -> str:
    """The content of the transcript block (plain, or ``compact``): a caption and the lines in a
    code block."""
    lines, outcome = play(compact=compact)
    if outcome.failure is not None or outcome.hands != 1:
        raise RuntimeError(f"seed {SEED} no longer gives a one-hand game: {outcome}")
    changed = ", ".join(f"{k}={v}" for k, v in RULES.changes_from(Rules()).items())
    body = "\n".join(f"{direction} {seat}  {text}" for seat, direction, text in lines)
    return (
        f"Seed {SEED}, rules `hoyle` with `{changed}`, time control move "
        f"{CLOCK.message().move_ms} ms, bank {CLOCK.message().bank_ms} ms;\n"
        f"two `greedy` bots{' asking for the compact form' if compact else ''}; "
        f"{len(lines)} lines.\n\n```text\n{body}\n```"
    )


def compact_transcript() -> str:
    """The block of the same game in the compact form: only the requests' histories differ."""
    return transcript(compact=True)


def three_player_transcript() -> str:
    """The three-player block: one hand of a three-player game to 1 point, every player's lines
    (the dealer's ``sit_out``, the two others' hand shown from seat 0, everyone's
    ``round_end``)."""
    lines, outcome = play(THREE_PLAYER_SEED, RULES, Mode.THREE_PLAYER)
    if outcome.failure is not None or outcome.hands != 1:
        raise RuntimeError(f"seed {THREE_PLAYER_SEED} no longer gives a one-hand game: {outcome}")
    body = "\n".join(f"{direction} {seat}  {text}" for seat, direction, text in lines)
    return (
        f"Seed {THREE_PLAYER_SEED}, `--mode three-player`, rules as above; three `greedy` bots, "
        f"the number after the arrow is the player; {len(lines)} lines.\n\n"
        f"```text\n{body}\n```"
    )


BLOCKS: Final = (
    (BEGIN, END, transcript),
    (COMPACT_BEGIN, COMPACT_END, compact_transcript),
    (THREE_BEGIN, THREE_END, three_player_transcript),
)


def _span(text: str, begin: str = BEGIN, end: str = END) -> tuple[int, int]:
    if text.count(begin) != 1 or text.count(end) != 1:
        raise StaleError(f"docs/PROTOCOL.md needs exactly one {begin} and one {end}")
    start, stop = text.index(begin) + len(begin), text.index(end)
    if stop < start:
        raise StaleError(f"docs/PROTOCOL.md: {end} comes before {begin}")
    return start, stop


def read_block(text: str, begin: str = BEGIN, end: str = END) -> str:
    """A transcript block's content in ``text``, without the newlines next to its markers."""
    start, stop = _span(text, begin, end)
    return text[start:stop].strip("\n")


def render(text: str) -> str:
    """``text`` with every transcript block replaced by a fresh one."""
    for begin, end, make in BLOCKS:
        start, stop = _span(text, begin, end)
        text = f"{text[:start]}\n{make()}\n{text[stop:]}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the transcript in docs/PROTOCOL.md.")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the block is stale; change nothing"
    )
    parser.add_argument("--path", type=Path, default=PROTOCOL_MD, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path: Path = args.path
    text = path.read_text(encoding="utf-8")
    try:
        fresh = all(read_block(text, begin, end) == make() for begin, end, make in BLOCKS)
    except StaleError as error:
        print(error, file=sys.stderr)
        return 1
    if args.check:
        if not fresh:
            print(
                f"{path}: the transcript is stale; run python docs/examples/transcript.py",
                file=sys.stderr,
            )
            return 1
        return 0
    if not fresh:
        path.write_text(render(text), encoding="utf-8")
        print(f"{path}: regenerated the transcript")
    return 0


if __name__ == "__main__":
    sys.exit(main())
