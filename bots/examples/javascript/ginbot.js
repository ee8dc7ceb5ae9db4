#!/usr/bin/env node
// An example gin-arena bot in plain Node.js (18 or later, no packages).
//
// It speaks the gin-arena protocol, version 1: one JSON object per line on stdin and stdout.
// It plays like the built-in `greedy` bot: it takes the upcard when that lowers its deadwood,
// discards the card that leaves the least deadwood (the highest card among equals) and knocks as
// soon as a knock is legal. Every action it sends is copied from the request's `legal` list.
//
// Logs go to stderr only: stdout carries the protocol and nothing else.
"use strict";

const NAME = "example-js";
const AUTHOR = "gin-rummy-arena";
const BOT_VERSION = "1";
const SUPPORTED_VERSIONS = [1];
const MAX_LINE_BYTES = 64 * 1024; // protocol.messages.MAX_LINE_BYTES

function log(...parts) {
  process.stderr.write(`${NAME}: ${parts.join(" ")}\n`);
}

// -- cards ---------------------------------------------------------------------------------------

const RANKS = "A23456789TJQK";
const SUITS = "CDHS";

// A card as {rank: 0..12, suit: 0..3}, or null if `text` is not a card ("TD", "10d", "as").
function parseCard(text) {
  if (typeof text !== "string") return null;
  const t = text.trim().toUpperCase();
  const rankText = t.startsWith("10") ? "T" : t.slice(0, 1);
  const suitText = t.slice(t.startsWith("10") ? 2 : 1);
  const rank = RANKS.indexOf(rankText);
  const suit = SUITS.indexOf(suitText);
  if (rank < 0 || suit < 0 || suitText.length !== 1 || rankText.length !== 1) return null;
  return { rank, suit };
}

function cardKey(card) {
  return card.suit * 13 + card.rank;
}

// Deadwood value: Ace 1, 2-9 their pips, T J Q K 10.
function cardValue(card) {
  return Math.min(card.rank + 1, 10);
}

const MAX_HAND = 16; // a hand has 10 or 11 cards; more are ignored (masks stay small)

// The cards of a list of names, without duplicates or unreadable entries.
function parseCards(list) {
  const seen = new Set();
  const cards = [];
  for (const text of Array.isArray(list) ? list : []) {
    if (cards.length === MAX_HAND) break;
    const card = parseCard(text);
    if (card !== null && !seen.has(cardKey(card))) {
      seen.add(cardKey(card));
      cards.push(card);
    }
  }
  return cards;
}

// -- the meld solver -----------------------------------------------------------------------------
//
// A hand has at most 11 cards, so sets of cards are bitmasks over positions in the hand array.

// Every meld that can be made from `cards`, as masks over their positions: sets of 3 or 4 of a
// rank (and each 3-card part of a 4-card set), runs of 3 or more consecutive ranks in one suit
// (the Ace is low, nothing wraps past the King).
function allMelds(cards) {
  const melds = [];
  const at = new Map(); // card key -> position
  cards.forEach((card, i) => at.set(cardKey(card), i));
  for (let rank = 0; rank < 13; rank++) {
    const pos = [];
    for (let suit = 0; suit < 4; suit++) {
      const i = at.get(suit * 13 + rank);
      if (i !== undefined) pos.push(i);
    }
    if (pos.length >= 3) {
      const all = pos.reduce((mask, i) => mask | (1 << i), 0);
      melds.push(all);
      if (pos.length === 4) for (const i of pos) melds.push(all & ~(1 << i));
    }
  }
  for (let suit = 0; suit < 4; suit++) {
    for (let low = 0; low < 13; low++) {
      let mask = 0;
      for (let rank = low; rank < 13; rank++) {
        const i = at.get(suit * 13 + rank);
        if (i === undefined) break;
        mask |= 1 << i;
        if (rank - low >= 2) melds.push(mask);
      }
    }
  }
  return melds;
}

// A solver for one hand: deadwood(mask) is the least deadwood of the cards at the positions in
// `mask`, over every way to pick disjoint melds among them (exact, memoised).
function solver(cards) {
  const melds = allMelds(cards);
  const memo = new Map();
  function deadwood(mask) {
    if (mask === 0) return 0;
    const cached = memo.get(mask);
    if (cached !== undefined) return cached;
    // The lowest card left is either deadwood or in one of the melds that contain it.
    const low = mask & -mask;
    const i = 31 - Math.clz32(low);
    let best = cardValue(cards[i]) + deadwood(mask & ~low);
    for (const meld of melds) {
      if (meld & low && (meld & mask) === meld) best = Math.min(best, deadwood(mask & ~meld));
    }
    memo.set(mask, best);
    return best;
  }
  return deadwood;
}

function handDeadwood(cards) {
  return solver(cards)((1 << cards.length) - 1);
}

// -- decisions -----------------------------------------------------------------------------------

// Would taking `card` into the ten cards `hand`, then discarding another card at best, lower the
// deadwood? The taken card itself is never counted as a discard: discarding it again gains
// nothing, and the rules usually forbid it (R8).
function takingHelps(hand, card) {
  if (card === null || hand.some((c) => cardKey(c) === cardKey(card))) return false;
  const now = handDeadwood(hand);
  const cards = [...hand, card];
  const deadwood = solver(cards);
  const all = (1 << cards.length) - 1;
  for (let i = 0; i < hand.length; i++) {
    if (deadwood(all & ~(1 << i)) < now) return true;
  }
  return false;
}

function isDraw(action, source) {
  return action.kind === "draw" && action.source === source;
}

// For a draw or a first-upcard request: take the top of the discard pile when it helps,
// otherwise draw from the stock (or pass on the first upcard).
function chooseDraw(request, legal) {
  const obs = request.observation || {};
  const hand = parseCards(obs.hand);
  const pile = Array.isArray(obs.discard_pile) ? obs.discard_pile : [];
  const top = pile.length > 0 ? parseCard(pile[pile.length - 1]) : null;
  const take = legal.find((a) => isDraw(a, "discard"));
  if (take && takingHelps(hand, top)) return take;
  return legal.find((a) => isDraw(a, "stock")) || legal.find((a) => a.kind === "pass") || legal[0];
}

// For a discard request: big gin if offered; otherwise the knock (if any is legal) or else the
// discard whose card leaves the least deadwood, the highest card among equals.
function chooseDiscard(request, legal) {
  const bigGin = legal.find((a) => a.kind === "knock" && (a.card === undefined || a.card === null));
  if (bigGin) return bigGin;
  const hand = parseCards((request.observation || {}).hand);
  const deadwood = solver(hand);
  const all = (1 << hand.length) - 1;
  function score(action) {
    // [deadwood left, -value, -rank, -suit]: smaller is better.
    const card = parseCard(action.card);
    const i = card === null ? -1 : hand.findIndex((c) => cardKey(c) === cardKey(card));
    if (i < 0) return [Infinity, 0, 0, 0];
    return [deadwood(all & ~(1 << i)), -cardValue(card), -card.rank, -card.suit];
  }
  function best(actions) {
    let choice = null;
    let choiceScore = null;
    for (const action of actions) {
      const s = score(action);
      if (choice === null || less(s, choiceScore)) {
        choice = action;
        choiceScore = s;
      }
    }
    return choice;
  }
  const knocks = legal.filter((a) => a.kind === "knock");
  if (knocks.length > 0) return best(knocks);
  const discards = legal.filter((a) => a.kind === "discard");
  return best(discards) || legal[0];
}

function less(a, b) {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i];
  }
  return false;
}

// The action to play: one of `legal`, the request's action objects (at least one).
function choose(request, legal) {
  if (legal.some((a) => a.kind === "discard" || a.kind === "knock")) {
    return chooseDiscard(request, legal);
  }
  return chooseDraw(request, legal);
}

// -- the protocol --------------------------------------------------------------------------------

let finished = false;

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function finish(code) {
  if (finished) return;
  finished = true;
  process.exitCode = code;
  process.stdin.pause();
  process.stdin.destroy(); // nothing else keeps Node alive: it exits once stdout is flushed
}

function handle(message) {
  switch (message.type) {
    case "hello": {
      const offered = Array.isArray(message.versions) ? message.versions : [];
      const common = offered.filter((v) => SUPPORTED_VERSIONS.includes(v));
      if (common.length === 0) {
        log(`the referee speaks protocol versions ${JSON.stringify(offered)}; I speak 1`);
        finish(2);
        return;
      }
      send({
        type: "ready",
        protocol_version: Math.max(...common),
        name: NAME,
        author: AUTHOR,
        bot_version: BOT_VERSION,
      });
      return;
    }
    case "request": {
      const legal = (Array.isArray(message.legal) ? message.legal : []).filter(
        (a) => a !== null && typeof a === "object" && !Array.isArray(a),
      );
      if (legal.length === 0) {
        log(`request ${message.id} has no legal action; not answering`);
        return;
      }
      let action = legal[0];
      try {
        action = choose(message, legal);
      } catch (error) {
        log(`could not decide (${error}); playing the first legal action`);
      }
      send({ type: "reply", id: message.id, action });
      return;
    }
    case "error":
      log(`referee: ${message.reason}: ${message.message}`);
      return;
    case "quit":
      finish(0);
      return;
    default:
      // game_start, hand_start, played, show_down, hand_end, game_end need no answer; unknown
      // types are ignored, as the protocol may grow.
      return;
  }
}

function handleLine(line) {
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (line.trim() === "") return;
  if (line.length > MAX_LINE_BYTES / 4 && Buffer.byteLength(line) > MAX_LINE_BYTES) {
    log(`ignoring a line over ${MAX_LINE_BYTES} bytes`);
    return;
  }
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    log(`ignoring a line that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
    return;
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    log(`ignoring a line that is not a JSON object: ${JSON.stringify(line.slice(0, 200))}`);
    return;
  }
  handle(message);
}

function main() {
  let pending = ""; // the start of a line whose end has not arrived yet
  let skipping = false; // inside a line over the limit, dropped up to its newline
  process.stdin.setEncoding("utf8"); // decodes characters split across chunks correctly
  process.stdout.on("error", (error) => {
    log(`stdout closed (${error.code || error})`);
    finish(0);
  });
  process.stdin.on("data", (chunk) => {
    let start = 0;
    while (!finished) {
      const newline = chunk.indexOf("\n", start);
      if (newline < 0) break;
      const line = pending + chunk.slice(start, newline);
      pending = "";
      start = newline + 1;
      if (skipping) skipping = false;
      else handleLine(line);
    }
    if (finished) return;
    if (!skipping) pending += chunk.slice(start);
    if (pending.length > MAX_LINE_BYTES / 4 && Buffer.byteLength(pending) > MAX_LINE_BYTES + 1) {
      log(`ignoring a line over ${MAX_LINE_BYTES} bytes`);
      pending = "";
      skipping = true;
    }
  });
  process.stdin.on("end", () => {
    if (finished) return;
    if (!skipping && pending !== "") handleLine(pending); // a last line without its newline
    finish(0);
  });
}

main();
