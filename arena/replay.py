"""Show a recorded game hand by hand, readably: the deal, every action (with the card drawn),
the show-down and the scores. The record is played back through the engine
(:mod:`arena.playback`) to show what happened; ``gin-arena judge`` is the tool that checks it."""

from __future__ import annotations

from collections.abc import Iterator

from arena.playback import Deal, End, HandOver, Move, PlaybackError, Start, play_back
from arena.record import RecordedGame
from engine.cards import CARD_NAMES, format_cards
from engine.rules import HOYLE


def render(rec: RecordedGame) -> Iterator[str]:
    tags = rec.tags
    names = [b.name for b in tags.bots]
    oklahoma = started = False
    actions = 0  # of the current hand
    try:
        for step in play_back(rec):
            match step:
                case Start():
                    started, oklahoma = True, step.rules.oklahoma
                    changes = step.rules.changes_from(HOYLE)
                    rule_text = ", ".join(f"{k}={v}" for k, v in changes.items()) or "hoyle"
                    yield f"Game {tags.game}: {names[0]} (seat 0) v {names[1]} (seat 1)"
                    yield f"  seed {tags.seed}, rules: {rule_text}" + (
                        f", played {tags.date}" if tags.date else ""
                    )
                case Deal():
                    hand, game = step.hand, step.game
                    actions = 0
                    yield ""
                    scores = f"{game.scores[0]}-{game.scores[1]}"
                    yield f"  Hand {game.hand_number}: {names[hand.dealer]} deals; scores {scores}"
                    for seat in (0, 1):
                        yield f"    {names[seat]:>12}: {format_cards(hand.hands[seat])}"
                    yield f"    {'upcard':>12}: {CARD_NAMES[hand.first_upcard]}" + (
                        f" (knock limit {hand.knock_limit})" if oklahoma else ""
                    )
                case Move():
                    actions = step.number
                    note = "" if step.drawn is None else f" ({CARD_NAMES[step.drawn]})"
                    yield (
                        f"    {step.number:3}. {names[step.player]}: {step.action}{note}  "
                        f"[{step.record.ms:.1f} ms]"
                    )
                case HandOver():
                    yield from _hand_over(step, names)
                case End():
                    yield from _game_end(step, names)
    except PlaybackError as error:
        if not started:
            yield f"game {tags.game}: cannot replay, {error.message}"
        elif error.action is not None:
            yield (
                f"    {actions + 1:3}. {names[error.action.player]}: {error.action.action}  "
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
        f"{' (doubled)' if result.doubled else ''}; now {game.scores[0]}-{game.scores[1]}"
    )


def _game_end(step: End, names: list[str]) -> Iterator[str]:
    if step.record is None:
        return
    _, end = step.record
    yield ""
    if end.failure is not None:
        f = end.failure
        rule = f" [{f.rule}]" if f.rule else ""
        yield f"  {names[f.seat]} forfeits ({f.reason}{rule}): {f.message}"
    winner = "nobody" if end.winner is None else names[end.winner]
    yield f"  Game over: {winner} wins, {end.scores[0]}-{end.scores[1]} after {end.hands} hands"
