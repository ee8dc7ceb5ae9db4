/* gin-arena report: the game list's pair filter and the replay viewer.
 *
 * The report's data is the JSON block (the script element of id "report-data"). Everything
 * this script shows from it goes in with textContent, createElement and setAttribute: never
 * innerHTML, so that no bot name or message can be read as markup.
 *
 * A replay is stepped through hand by hand: step 0 of a hand is its deal, step k the state after
 * its k-th action. The hands are kept as sets from the deal: draw_stock and draw_discard add the
 * card to the mover's hand (draw_discard also takes the top of the pile), discard and knock move
 * the card from the mover's hand to the pile, pass changes nothing; a knock with no card is big
 * gin.
 */
(function () {
  "use strict";

  var SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var SUIT_ORDER = "CDHS";
  var RANK_ORDER = "A23456789TJQK";
  var SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  var ENDS = {
    knock: "Knock",
    undercut: "Undercut",
    gin: "Gin",
    big_gin: "Big gin",
    drawn: "Drawn hand"
  };

  var source = document.getElementById("report-data");
  if (!source) {
    return;
  }
  var data = JSON.parse(source.textContent || "{}");
  var replays = data.replays || {};
  var gameList = data.game_list || [];
  var gamesById = new Map();
  gameList.forEach(function (game) {
    gamesById.set(String(game.id), game);
  });

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = String(text);
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  /* On paper, the figures behind the plots (the Elo history's table) are shown too. */
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (details) {
      details.open = true;
    });
  });

  /* ---- the game list's filter ---- */

  (function pairFilter() {
    var filter = $("pair-filter");
    var shown = $("games-shown");
    var table = $("games-table");
    if (!filter || !table) {
      return;
    }
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-game]"));
    function apply() {
      var option = filter.options[filter.selectedIndex];
      var a = option ? option.getAttribute("data-a") : null;
      var b = option ? option.getAttribute("data-b") : null;
      var count = 0;
      rows.forEach(function (row) {
        var game = gamesById.get(row.getAttribute("data-game"));
        var keep = !a || !b || (game && game.players.indexOf(a) >= 0 && game.players.indexOf(b) >= 0);
        row.hidden = !keep;
        if (keep) {
          count += 1;
        }
      });
      if (shown) {
        shown.textContent = a ? count + " of " + rows.length + " games" : rows.length + " games";
      }
    }
    filter.addEventListener("change", apply);
    apply();
  })();

  /* ---- cards ---- */

  function cardKey(name) {
    var rank = RANK_ORDER.indexOf(name.charAt(0));
    var suit = SUIT_ORDER.indexOf(name.charAt(1));
    return (suit < 0 ? 9 : suit) * 20 + (rank < 0 ? 19 : rank);
  }

  function sortCards(cards) {
    return cards.slice().sort(function (x, y) {
      return cardKey(x) - cardKey(y) || (x < y ? -1 : x > y ? 1 : 0);
    });
  }

  function cardNode(name, extra) {
    var rank = name.charAt(0);
    var suit = name.charAt(1);
    var node = el("span", "card" + (suit === "D" || suit === "H" ? " red" : "") + (extra ? " " + extra : ""));
    node.textContent = (rank === "T" ? "10" : rank) + (SUITS[suit] || suit);
    node.title = name + (SUIT_NAMES[suit] ? " (" + (rank === "T" ? "10" : rank) + " of " + SUIT_NAMES[suit] + ")" : "");
    node.setAttribute("data-card", name);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", name);
    return node;
  }

  function cardRow(cards, className, mark) {
    var box = el("span", className || "cards-inline");
    cards.forEach(function (name) {
      box.appendChild(cardNode(name, "small" + (mark && mark === name ? " new" : "")));
    });
    return box;
  }

  function cardText(name) {
    if (!name) {
      return "";
    }
    var rank = name.charAt(0);
    var suit = name.charAt(1);
    return (rank === "T" ? "10" : rank) + (SUITS[suit] || suit);
  }

  /* ---- the replay viewer ---- */

  var viewer = $("viewer");
  var select = $("replay-game");
  if (!viewer || !select) {
    return;
  }
  var ui = {
    position: $("replay-position"),
    summary: $("replay-summary"),
    error: $("replay-error"),
    empty: $("replay-empty"),
    board: $("replay-board"),
    info: $("replay-hand-info"),
    seats: [$("replay-seat-0"), $("replay-seat-1")],
    names: [$("replay-name-0"), $("replay-name-1")],
    hands: [$("replay-hand-0"), $("replay-hand-1")],
    stock: $("replay-stock"),
    pile: $("replay-pile"),
    action: $("replay-action"),
    result: $("replay-result"),
    start: $("replay-start"),
    prevHand: $("replay-prev-hand"),
    prev: $("replay-prev"),
    next: $("replay-next"),
    nextHand: $("replay-next-hand"),
    end: $("replay-end")
  };
  var state = { id: null, game: null, hand: 0, step: 0 };

  var ids = Object.keys(replays).sort(function (x, y) {
    return Number(x) - Number(y);
  });
  ids.forEach(function (id) {
    var replay = replays[id];
    var entry = gamesById.get(id);
    var players = (entry ? entry.players : replay.players) || [];
    var text = "#" + id + "  " + players.join(" v ");
    var result = replay.result || {};
    if (result.winner) {
      text += " \u2014 " + result.winner + " won " + (result.scores || []).join("\u2013");
    } else {
      text += " \u2014 drawn " + (result.scores || []).join("\u2013");
    }
    if (result.failed) {
      text += " (" + result.failed + " forfeited)";
    }
    var option = el("option", null, text);
    option.value = id;
    select.appendChild(option);
  });

  if (!ids.length) {
    select.disabled = true;
    ui.empty.hidden = false;
    ui.empty.textContent = "This report keeps no replays (it was made without the games' records).";
    [ui.start, ui.prevHand, ui.prev, ui.next, ui.nextHand, ui.end].forEach(function (b) {
      b.disabled = true;
    });
    return;
  }

  function hands() {
    return state.game ? state.game.hands || [] : [];
  }

  function stepsOf(index) {
    var hand = hands()[index];
    return hand ? (hand.steps || []).length : 0;
  }

  function playTo(hand, count) {
    var held = [new Set(hand.hands[0] || []), new Set(hand.hands[1] || [])];
    var pile = hand.upcard ? [hand.upcard] : [];
    var stock = hand.stock;
    for (var i = 0; i < count; i += 1) {
      var step = hand.steps[i];
      var mine = held[step.seat];
      if (!mine) {
        continue;
      }
      if (step.kind === "draw_stock") {
        if (step.card) {
          mine.add(step.card);
        }
        stock -= 1;
      } else if (step.kind === "draw_discard") {
        pile.pop();
        if (step.card) {
          mine.add(step.card);
        }
      } else if (step.kind === "discard" || step.kind === "knock") {
        if (step.card) {
          mine.delete(step.card);
          pile.push(step.card);
        }
      }
    }
    return { held: held, pile: pile, stock: stock };
  }

  function seatName(hand, seat) {
    var seats = hand.seats || (state.game && state.game.players) || [];
    return seats[seat] !== undefined ? seats[seat] : "seat " + seat;
  }

  function scoreLine(hand, scores) {
    return (scores || [])
      .map(function (score, seat) {
        return seatName(hand, seat) + " " + score;
      })
      .join(", ");
  }

  function gameOverText(replay) {
    var result = replay.result || {};
    var players = replay.players || [];
    var scores = (result.scores || [])
      .map(function (score, i) {
        return (players[i] !== undefined ? players[i] : "seat " + i) + " " + score;
      })
      .join(", ");
    var text = "Game over: ";
    if (result.failed) {
      text += result.failed + " forfeited (" + result.reason + ")";
      if (result.message) {
        text += ": " + result.message;
      }
      if (result.rule) {
        text += " [" + result.rule + "]";
      }
      text += result.winner ? "; " + result.winner + " wins." : ".";
    } else if (result.winner) {
      text += result.winner + " wins, " + scores + (result.reason && result.reason !== "normal" ? " (" + result.reason + ")" : "") + ".";
    } else {
      text += "drawn, " + scores + ".";
    }
    return text;
  }

  function describeStep(hand, step) {
    var who = seatName(hand, step.seat);
    var text = who + ": ";
    if (step.kind === "knock" && !step.card) {
      text += step.action + " (big gin)";
    } else if (step.kind === "draw_stock" && step.card) {
      text += step.action + " (" + step.card + ")";
    } else {
      text += step.action;
    }
    return text;
  }

  function renderAction(hand, index) {
    clear(ui.action);
    if (index === 0) {
      ui.action.appendChild(
        document.createTextNode(
          "Deal: " + seatName(hand, hand.dealer) + " deals; the upcard is " + hand.upcard + ", " +
            hand.stock + " cards in the stock."
        )
      );
      return;
    }
    var step = hand.steps[index - 1];
    ui.action.appendChild(document.createTextNode(describeStep(hand, step)));
    if (typeof step.ms === "number") {
      ui.action.appendChild(document.createTextNode(" "));
      ui.action.appendChild(el("span", "ms", step.ms + " ms"));
    }
  }

  function showLine(label, content) {
    var line = el("div", "show-line");
    line.appendChild(el("span", "row-label", label));
    if (typeof content === "string") {
      line.appendChild(el("span", "none", content));
    } else {
      line.appendChild(content);
    }
    return line;
  }

  function meldsNode(melds, numbered) {
    if (!melds || !melds.length) {
      return "none";
    }
    var box = el("span", "melds");
    melds.forEach(function (meld, i) {
      var group = el("span", "meld");
      if (numbered) {
        group.appendChild(el("span", "meld-number", String(i + 1)));
      }
      meld.forEach(function (name) {
        group.appendChild(cardNode(name, "small"));
      });
      box.appendChild(group);
    });
    return box;
  }

  function deadwoodNode(cards, points) {
    var box = el("span", "melds");
    if (cards && cards.length) {
      box.appendChild(cardRow(cards, "deadwood"));
    }
    box.appendChild(el("span", "none", (cards && cards.length ? "= " : "none, ") + points + (points === 1 ? " point" : " points")));
    return box;
  }

  function renderResult(hand, last) {
    var result = hand.result;
    var box = ui.result;
    clear(box);
    if (result) {
      var headline = (ENDS[result.end] || result.end) + ": ";
      if (result.winner === null || result.winner === undefined) {
        headline += "no score.";
      } else {
        headline += seatName(hand, result.winner) + " scores " + result.points + (result.points === 1 ? " point" : " points");
        headline += result.doubled ? " (doubled: spade upcard)." : ".";
      }
      var head = el("p", "headline", headline);
      head.title = result.text || "";
      box.appendChild(head);
      var show = result.show_down;
      if (show) {
        var grid = el("div", "show");
        var knocker = el("div", "show-side");
        var how = result.end === "big_gin" || !show.discard ? " (no discard)" : " with " + show.discard;
        knocker.appendChild(el("h4", null, seatName(hand, show.knocker) + " knocked" + how));
        knocker.appendChild(showLine("melds", meldsNode(show.knocker_melds, true)));
        knocker.appendChild(showLine("deadwood", deadwoodNode(show.knocker_deadwood_cards, show.knocker_deadwood)));
        var defender = el("div", "show-side");
        defender.appendChild(el("h4", null, seatName(hand, 1 - show.knocker) + " (defender)"));
        defender.appendChild(showLine("melds", meldsNode(show.defender_melds, false)));
        if (show.lay_offs && show.lay_offs.length) {
          var lays = el("span", "lay-offs");
          show.lay_offs.forEach(function (lay) {
            var item = el("span", "lay-off");
            item.appendChild(cardNode(lay.card, "small"));
            item.appendChild(el("span", null, "\u2192 meld " + (lay.meld + 1)));
            var target = (show.knocker_melds || [])[lay.meld];
            if (target) {
              item.title = lay.card + " laid off on " + target.join(" ");
            }
            lays.appendChild(item);
          });
          defender.appendChild(showLine("lay-offs", lays));
        } else {
          defender.appendChild(showLine("lay-offs", "none"));
        }
        defender.appendChild(showLine("deadwood", deadwoodNode(show.defender_deadwood_cards, show.defender_deadwood)));
        grid.appendChild(knocker);
        grid.appendChild(defender);
        box.appendChild(grid);
      }
      box.appendChild(el("p", null, "Scores after the hand: " + scoreLine(hand, result.scores) + "."));
    } else {
      box.appendChild(el("p", "headline", "The hand did not finish."));
    }
    if (last) {
      box.appendChild(el("p", "game-over", gameOverText(state.game)));
    }
    box.hidden = false;
  }

  function setButtons(count, atEnd) {
    var atStart = state.hand === 0 && state.step === 0;
    ui.start.disabled = atStart || !count;
    ui.prev.disabled = atStart || !count;
    ui.prevHand.disabled = atStart || !count;
    ui.next.disabled = atEnd || !count;
    ui.end.disabled = atEnd || !count;
    ui.nextHand.disabled = atEnd || !count; /* on the last hand: to its end */
  }

  function render(remember) {
    var game = state.game;
    var all = hands();
    var entry = gamesById.get(String(state.id));
    var players = (entry ? entry.players : game.players) || [];
    var summary = "Game " + state.id + ": " + players.join(" v ") + " \u00b7 " + (game.mode || "") +
      " \u00b7 seed " + game.seed + " \u00b7 " + all.length + (all.length === 1 ? " hand" : " hands");
    ui.summary.textContent = summary;
    ui.error.hidden = !game.error;
    ui.error.textContent = game.error ? "This replay stops early: " + game.error : "";
    if (!all.length) {
      ui.board.hidden = true;
      ui.empty.hidden = false;
      var result = game.result || {};
      ui.empty.textContent = "This game has no hands: it ended before the first deal (" +
        (result.reason || "no reason") + ")." + " " + gameOverText(game);
      ui.position.textContent = "no hands";
      setButtons(0, true);
      return;
    }
    ui.empty.hidden = true;
    ui.board.hidden = false;
    var hand = all[state.hand];
    var count = (hand.steps || []).length;
    var played = playTo(hand, state.step);
    var lastHand = all.length - 1;
    var atEnd = state.hand === lastHand && state.step === count;
    ui.position.textContent = "hand " + (state.hand + 1) + " of " + all.length + ", step " + state.step + " of " + count;

    var before = scoreLine(hand, hand.scores_before);
    ui.info.textContent = "Hand " + hand.number + " \u00b7 dealer: " + seatName(hand, hand.dealer) +
      " \u00b7 scores before the hand: " + before + " \u00b7 knock limit " + hand.knock_limit;

    var previous = state.step > 0 ? hand.steps[state.step - 1] : null;
    var mover = state.step < count ? hand.steps[state.step].seat : null;
    for (var seat = 0; seat < 2; seat += 1) {
      var name = ui.names[seat];
      clear(name);
      name.appendChild(document.createTextNode(seatName(hand, seat)));
      if (hand.dealer === seat) {
        name.appendChild(el("span", "badge", "dealer"));
      }
      if (mover === seat) {
        name.appendChild(el("span", "badge moving", "to move"));
      }
      var cards = sortCards(Array.from(played.held[seat]));
      name.appendChild(el("span", "count", cards.length + " cards"));
      ui.seats[seat].classList.toggle("to-move", mover === seat);
      var box = ui.hands[seat];
      clear(box);
      var drawn = previous && previous.seat === seat && (previous.kind === "draw_stock" || previous.kind === "draw_discard") ? previous.card : null;
      cards.forEach(function (card) {
        box.appendChild(cardNode(card, card === drawn ? "new" : ""));
      });
    }
    ui.stock.textContent = String(played.stock);
    ui.stock.title = played.stock + " cards in the stock";
    clear(ui.pile);
    if (played.pile.length) {
      var top = played.pile[played.pile.length - 1];
      var thrown = previous && (previous.kind === "discard" || previous.kind === "knock") && previous.card === top;
      ui.pile.appendChild(cardNode(top, thrown ? "new" : ""));
      if (played.pile.length > 1) {
        ui.pile.appendChild(el("span", "none", " (" + played.pile.length + " in the pile)"));
      }
    } else {
      ui.pile.appendChild(el("span", "none", "empty"));
    }
    renderAction(hand, state.step);
    if (state.step === count && (hand.result || state.hand === lastHand)) {
      renderResult(hand, state.hand === lastHand);
    } else {
      ui.result.hidden = true;
      clear(ui.result);
    }
    setButtons(count, atEnd);
    if (remember && window.history && window.history.replaceState) {
      try {
        window.history.replaceState(null, "", "#replay-" + state.id + "-h" + (state.hand + 1) + "-s" + state.step);
      } catch (ignored) {
        /* a browser that refuses to change a file: URL: the position just is not remembered */
      }
    }
  }

  function open(id, hand, step, remember) {
    if (!replays[id]) {
      return false;
    }
    state.id = id;
    state.game = replays[id];
    var all = hands();
    state.hand = Math.max(0, Math.min(hand || 0, Math.max(0, all.length - 1)));
    state.step = Math.max(0, Math.min(step || 0, stepsOf(state.hand)));
    select.value = id;
    render(remember);
    return true;
  }

  function go(hand, step) {
    if (!state.game) {
      return;
    }
    state.hand = hand;
    state.step = step;
    render(true);
  }

  var moves = {
    next: function () {
      if (state.step < stepsOf(state.hand)) {
        go(state.hand, state.step + 1);
      } else if (state.hand < hands().length - 1) {
        go(state.hand + 1, 0);
      }
    },
    prev: function () {
      if (state.step > 0) {
        go(state.hand, state.step - 1);
      } else if (state.hand > 0) {
        go(state.hand - 1, stepsOf(state.hand - 1));
      }
    },
    start: function () {
      go(0, 0);
    },
    end: function () {
      var last = Math.max(0, hands().length - 1);
      go(last, stepsOf(last));
    },
    nextHand: function () {
      if (state.hand < hands().length - 1) {
        go(state.hand + 1, 0);
      } else {
        go(state.hand, stepsOf(state.hand));
      }
    },
    prevHand: function () {
      go(state.step > 0 ? state.hand : Math.max(0, state.hand - 1), 0);
    }
  };

  var KEYS = {
    ArrowRight: moves.next,
    ArrowLeft: moves.prev,
    Home: moves.start,
    End: moves.end,
    PageDown: moves.nextHand,
    PageUp: moves.prevHand,
    n: moves.nextHand,
    p: moves.prevHand
  };

  ui.start.addEventListener("click", moves.start);
  ui.prevHand.addEventListener("click", moves.prevHand);
  ui.prev.addEventListener("click", moves.prev);
  ui.next.addEventListener("click", moves.next);
  ui.nextHand.addEventListener("click", moves.nextHand);
  ui.end.addEventListener("click", moves.end);
  select.addEventListener("change", function () {
    open(select.value, 0, 0, true);
    viewer.focus({ preventScroll: true });
  });

  function onScreen() {
    var box = viewer.getBoundingClientRect();
    var height = window.innerHeight || document.documentElement.clientHeight;
    return box.top < height * 0.75 && box.bottom > height * 0.25;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var move = KEYS[event.key];
    if (!move) {
      return;
    }
    var target = event.target;
    var tag = target && target.tagName ? target.tagName.toUpperCase() : "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || (target && target.isContentEditable)) {
      return;
    }
    var active = document.activeElement;
    var idle = !active || active === document.body || active === document.documentElement;
    if (!viewer.contains(active) && !(idle && onScreen())) {
      return;
    }
    event.preventDefault();
    move();
  });

  function showFromHash(scroll) {
    var match = /^#replay-(\d+)(?:-h(\d+)-s(\d+))?$/.exec(window.location.hash || "");
    if (!match || !replays[match[1]]) {
      return false;
    }
    open(match[1], match[2] ? Number(match[2]) - 1 : 0, match[3] ? Number(match[3]) : 0, false);
    if (scroll) {
      $("replay").scrollIntoView({ block: "start" });
      viewer.focus({ preventScroll: true });
    }
    return true;
  }

  document.addEventListener("click", function (event) {
    var link = event.target && event.target.closest ? event.target.closest("a[data-replay]") : null;
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var id = link.getAttribute("data-replay");
    if (!replays[id]) {
      return;
    }
    event.preventDefault();
    open(id, 0, 0, true);
    $("replay").scrollIntoView({ block: "start" });
    viewer.focus({ preventScroll: true });
  });

  window.addEventListener("hashchange", function () {
    showFromHash(true);
  });

  if (!showFromHash(true)) {
    open(ids[0], 0, 0, false);
  }
})();
