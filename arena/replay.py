"""Show a recorded game hand by hand, readably: the deal, every action (with the card drawn),
the show-down and the scores. The record is re-played through the engine to show what happened;
``gin-arena judge`` is the tool that checks it."""

from __future__ import annotations

from collections.abc import Iterator

from arena.record import RecordedGame
from engine.cards import CARD_NAMES, format_cards
from engine.game import Game
from engine.hand import Action, ActionError, ActionKind, IllegalAction
from engine.rules import HOYLE, Rules, RulesError


def render(rec: RecordedGame) -> Iterator[str]:
    tags = rec.tags
    names = [b.name for b in tags.bots]
    try:
        rules = Rules.from_dict(tags.rules)
    except RulesError as error:
        yield f"game {tags.game}: cannot replay, bad rules: {error}"
        return
    changes = rules.changes_from(HOYLE)
    rule_text = ", ".join(f"{k}={v}" for k, v in changes.items()) or "hoyle"
    yield f"Game {tags.game}: {names[0]} (seat 0) v {names[1]} (seat 1)"
    yield f"  seed {tags.seed}, rules: {rule_text}" + (f", played {tags.date}" if tags.date else "")
    game = Game(rules, tags.seed)
    for index, (_, hand_rec) in enumerate(rec.hands):
        if index:
            if game.is_over:
                yield "  (the record goes on after the game was won)"
                return
            game.next_hand()
        hand = game.hand
        yield ""
        scores = f"{game.scores[0]}-{game.scores[1]}"
        yield f"  Hand {game.hand_number}: {names[hand.dealer]} deals; scores {scores}"
        for seat in (0, 1):
            yield f"    {names[seat]:>12}: {format_cards(hand.hands[seat])}"
        yield f"    {'upcard':>12}: {CARD_NAMES[hand.first_upcard]}" + (
            f" (knock limit {hand.knock_limit})" if rules.oklahoma else ""
        )
        for number, (_, act) in enumerate(hand_rec.actions, 1):
            player = hand.to_move
            before = hand.hands[player]
            top = hand.pile[-1] if hand.pile else None
            try:
                action = Action.parse(act.action)
                game.apply(action)
            except (ActionError, IllegalAction) as error:
                yield f"    {number:3}. {names[player]}: {act.action}  <- rejected: {error}"
                return
            note = ""
            if action.kind is ActionKind.DRAW_STOCK:
                note = f" ({CARD_NAMES[(hand.hands[player] & ~before).bit_length() - 1]})"
            elif action.kind is ActionKind.DRAW_DISCARD and top is not None:
                note = f" ({CARD_NAMES[top]})"
            yield f"    {number:3}. {names[player]}: {action}{note}  [{act.ms:.1f} ms]"
        result = hand.result
        if result is None:
            yield "    (the hand stops here)"
            continue
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
    if rec.end is not None:
        _, end = rec.end
        yield ""
        if end.failure is not None:
            f = end.failure
            rule = f" [{f.rule}]" if f.rule else ""
            yield f"  {names[f.seat]} forfeits ({f.reason}{rule}): {f.message}"
        winner = "nobody" if end.winner is None else names[end.winner]
        yield f"  Game over: {winner} wins, {end.scores[0]}-{end.scores[1]} after {end.hands} hands"
