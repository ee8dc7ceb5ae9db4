"""Show a recorded game hand by hand, readably: the deal, every action (with the card drawn),
the show-down and the scores. The record is played back through the engine
(:mod:`arena.records.playback`) to show what happened; ``gin-arena judge`` is the tool that checks
it."""

from __future__ import annotations

from collections.abc import Iterator

from arena.records.playback import Deal, End, HandOver, Move, PlaybackError, Start, play_back
from arena.records.record import RecordedGame
from engine.cards import CARD_NAMES, format_cards
from engine.formats import TWO_PLAYER, Format, Hollywood, Session
from engine.rules import HOYLE


def _sides(fmt: Format, names: list[str]) -> list[str]:
    """The names of the sides results are given by: players, or teams (``a & b``)."""
    return [
        " & ".join(n for p, n in enumerate(names) if fmt.side_of(p) == side)
        for side in range(fmt.side_count)
    ]


def _scores(game: Session) -> str:
    """The scores so far: by player or team, and Hollywood's three games."""
    text = "-".join(str(s) for s in game.totals)
    if isinstance(game, Hollywood):
        games = ", ".join(f"{c.points[0]}-{c.points[1]}" for c in game.columns)
        text += f" (games {games})"
    return text


def render(rec: RecordedGame) -> Iterator[str]:
    tags = rec.tags
    names = [b.name for b in tags.bots]
    fmt = tags.game_format
    seated = names[:2]  # the names in the current hand's seats 0 and 1
    oklahoma = started = False
    actions = 0  # of the current hand
    try:
        for step in play_back(rec):
            match step:
                case Start():
                    started, oklahoma = True, step.rules.oklahoma
                    changes = step.rules.changes_from(HOYLE)
                    rule_text = ", ".join(f"{k}={v}" for k, v in changes.items()) or "hoyle"
                    if fmt is TWO_PLAYER:
                        yield f"Game {tags.game}: {names[0]} (seat 0) v {names[1]} (seat 1)"
                    else:
                        yield f"Game {tags.game}, {fmt}: " + " v ".join(_sides(fmt, names))
                    yield f"  seed {tags.seed}, rules: {rule_text}" + (
                        f", played {tags.date}" if tags.date else ""
                    )
                case Deal():
                    hand, game = step.hand, step.game
                    seated = [names[p] for p in game.seated]
                    actions = 0
                    yield ""
                    where = f" (table {game.table})" if fmt.hands_a_round > 1 else ""
                    out = ""
                    if fmt.dealer_sits_out:
                        out_player = next(p for p in range(fmt.players) if p not in game.seated)
                        out = f", {names[out_player]} sits out"
                    yield (
                        f"  Hand {game.hand_number}{where}: {seated[hand.dealer]} deals{out}; "
                        f"scores {_scores(game)}"
                    )
                    for seat in (0, 1):
                        yield f"    {seated[seat]:>12}: {format_cards(hand.hands[seat])}"
                    yield f"    {'upcard':>12}: {CARD_NAMES[hand.first_upcard]}" + (
                        f" (knock limit {hand.knock_limit})" if oklahoma else ""
                    )
                case Move():
                    actions = step.number
                    note = "" if step.drawn is None else f" ({CARD_NAMES[step.drawn]})"
                    yield (
                        f"    {step.number:3}. {seated[step.player]}: {step.action}{note}  "
                        f"[{step.record.ms:.1f} ms]"
                    )
                case HandOver():
                    yield from _hand_over(step, seated)
                case End():
                    yield from _game_end(step, names, fmt)
    except PlaybackError as error:
        if not started:
            yield f"game {tags.game}: cannot replay, {error.message}"
        elif error.action is not None:
            yield (
                f"    {actions + 1:3}. {seated[error.action.player]}: {error.action.action}  "
                f"<- rejected: {error.reason}"
            )
        else:
            yield f"  (the record cannot go on: line {error.line}: {error.message})"


def _hand_over(step: HandOver, names: list[str]) -> Iterator[str]:
    result, game = step.result, step.game
    if result is None:
        yield "    (the hand stops here)"
        return
    sd = result.show_down
    if sd is not None:
        knocker, defender = names[sd.knocker], names[1 - sd.knocker]
        melds = " ".join(f"[{format_cards(m)}]" for m in sd.knocker_melds)
        yield f"    show-down: {knocker} {melds} deadwood {sd.knocker_deadwood}"
        melds = " ".join(f"[{format_cards(m)}]" for m in sd.defender_melds)
        laid = ", ".join(f"{CARD_NAMES[lo.card]}" for lo in sd.lay_offs)
        yield (
            f"               {defender} {melds} deadwood {sd.defender_deadwood}"
            + (f", laid off {laid}" if laid else "")
        )
    winner = "nobody" if result.winner is None else names[result.winner]
    yield (
        f"    result: {result.end.value}, {winner} scores {result.points}"
        f"{' (doubled)' if result.doubled else ''}; now {_scores(game)}"
    )


def _game_end(step: End, names: list[str], fmt: Format) -> Iterator[str]:
    if step.record is None:
        return
    _, end = step.record
    yield ""
    if end.failure is not None:
        f = end.failure
        rule = f" [{f.rule}]" if f.rule else ""
        yield f"  {names[f.seat]} forfeits ({f.reason}{rule}): {f.message}"
    sides = _sides(fmt, names)
    winner = "nobody" if end.winner is None else sides[end.winner]
    scores = "-".join(str(s) for s in end.scores)
    yield f"  Game over: {winner} wins, {scores} after {end.hands} hands"
