/* gin-arena serve: the live page.
 *
 * The page's data comes from the server's event stream (/events: an "event: state" with the
 * whole of it, at once and after every change of the database); the page is drawn again from
 * each. Everything shown goes in with textContent and createElement, never innerHTML: a bot's
 * name or a failure's message is text, whatever it holds.
 */
(function () {
  "use strict";

  var seen = null; /* the ids of the games listed so far: new ones are marked as they land */

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
    return node;
  }

  function signed(value) {
    var rounded = Math.round(value);
    return (rounded > 0 ? "+" : rounded < 0 ? "\u2212" : "\u00b1") + Math.abs(rounded);
  }

  function row(cells, className) {
    var tr = el("tr", className);
    cells.forEach(function (cell) {
      var td = typeof cell === "object" && cell !== null && cell.nodeType ? cell : el("td", null, cell);
      tr.appendChild(td);
    });
    return tr;
  }

  function num(text) {
    return el("td", "num", text);
  }

  function list(target, lines) {
    clear(target);
    (lines || []).forEach(function (line) {
      target.appendChild(el("li", null, line));
    });
  }

  function forfeitTotal(data, name) {
    var counts = (data.forfeits && data.forfeits.counts && data.forfeits.counts[name]) || {};
    return Object.keys(counts).reduce(function (sum, reason) {
      return sum + counts[reason];
    }, 0);
  }

  function standings(data) {
    var body = clear($("standings-body"));
    data.standings.forEach(function (r) {
      var interval = r.games ? signed(r.ci95[0]) + " to " + signed(r.ci95[1]) : "no games yet";
      var tr = row(
        [
          num(r.rank),
          el("td", "name", r.label || r.name),
          num(r.games ? signed(r.elo) : "\u2013"),
          num(interval),
          num(r.games),
          num(r.wins),
          num(r.losses),
          num(r.draws),
          num(forfeitTotal(data, r.name)),
          el("td", null, r.change || ""),
          el("td", "status", r.status || "")
        ],
        r["new"] ? "new" : null
      );
      tr.setAttribute("data-bot", r.name);
      body.appendChild(tr);
    });
    list($("certainty"), data.certainty);
  }

  function versions(data) {
    var target = clear($("versions-list"));
    $("versions-none").hidden = data.versions.length > 0;
    data.versions.forEach(function (bot) {
      var item = el("li");
      item.appendChild(el("strong", null, bot.bot));
      item.appendChild(
        document.createTextNode(
          ": " +
            bot.versions
              .map(function (v) {
                return v.version + " (" + v.status + ", " + v.games + " games)";
              })
              .join(", ")
        )
      );
      var changes = el("ul");
      bot.changes.forEach(function (c) {
        var text =
          c.elo === null
            ? c.from + " \u2192 " + c.to + ": not measured yet (both need games)"
            : c.from +
              " \u2192 " +
              c.to +
              ": " +
              signed(c.elo) +
              " Elo [" +
              signed(c.ci95[0]) +
              ", " +
              signed(c.ci95[1]) +
              "]";
        changes.appendChild(el("li", null, text));
      });
      item.appendChild(changes);
      target.appendChild(item);
    });
  }

  function compares(data) {
    var shown = data.kind === "league";
    $("compares").hidden = !shown;
    var entries = data.compares || [];
    $("compares-none").hidden = entries.length > 0;
    clear($("compares-list"));
    entries.forEach(function (entry) {
      $("compares-list").appendChild(el("li", null, "#" + entry.number + " " + entry.summary));
    });
  }

  function forfeits(data) {
    var counts = data.forfeits.counts;
    var names = Object.keys(counts).sort();
    var body = clear($("forfeits-body"));
    names.forEach(function (name) {
      Object.keys(counts[name])
        .sort()
        .forEach(function (reason) {
          body.appendChild(row([el("td", "name", name), el("td", null, reason), num(counts[name][reason])]));
        });
    });
    $("forfeits-wrap").hidden = names.length === 0;
    $("forfeits-none").hidden = names.length > 0;
    list($("forfeit-lines"), data.forfeits.lines);
  }

  function result(game) {
    var scores = game.scores.join("\u2013");
    var text = game.winner ? game.winner + " won " + scores : "drawn " + scores;
    if (game.failed) {
      text += " (" + game.failed + " forfeited: " + game.reason + ")";
    } else if (game.reason !== "normal") {
      text += " (" + game.reason + ")";
    }
    return text;
  }

  function recent(data) {
    var body = clear($("recent-body"));
    var now = {};
    data.recent.forEach(function (game) {
      now[game.id] = true;
      var link = el("td");
      if (game.replay) {
        var a = el("a", null, "replay");
        a.href = "/game/" + encodeURIComponent(game.id);
        link.appendChild(a);
      } else {
        link.textContent = "no record";
      }
      var cell = el("td", null, result(game));
      if (game.message) {
        cell.title = game.message;
      }
      var fresh = seen !== null && !seen[game.id];
      var tr = row([num(game.id), el("td", null, game.players.join(" v ")), cell, num(game.hands), link], fresh ? "fresh" : null);
      tr.setAttribute("data-game", game.id);
      body.appendChild(tr);
    });
    seen = now;
  }

  function crosstable(data) {
    var table = clear($("crosstable"));
    var bots = data.crosstable.bots;
    var head = el("tr");
    head.appendChild(el("th"));
    bots.forEach(function (name) {
      var th = el("th", "col", name);
      th.scope = "col";
      th.title = name;
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    data.crosstable.cells.forEach(function (line, i) {
      var tr = el("tr");
      var th = el("th", "name", bots[i]);
      th.scope = "row";
      tr.appendChild(th);
      line.forEach(function (cell, j) {
        if (i === j) {
          tr.appendChild(el("td", "diagonal", ""));
        } else if (!cell) {
          tr.appendChild(el("td", null, ""));
        } else {
          var td = el(
            "td",
            cell.score > 0.5 ? "good" : cell.score < 0.5 ? "bad" : null,
            cell.wins + "-" + cell.losses + "-" + cell.draws
          );
          td.title = bots[i] + " v " + bots[j] + ": " + Math.round(cell.score * 100) + "% of " + cell.games + " games";
          tr.appendChild(td);
        }
      });
      tbody.appendChild(tr);
    });
    table.appendChild(tbody);
    list($("head-to-head-lines"), data.head_to_head);
  }

  function about(data) {
    var list = clear($("facts"));
    (data.facts.summary || []).forEach(function (line) {
      list.appendChild(el("dt", null, line[0]));
      list.appendChild(el("dd", null, line[1]));
    });
    var body = clear($("bots-body"));
    (data.facts.bots || []).forEach(function (bot) {
      var digest = el("td", null, bot.digest_short);
      digest.title = bot.digest;
      var command = el("td", "message", bot.command);
      body.appendChild(row([el("td", "name", bot.name), command, el("td", null, bot.version), digest]));
    });
  }

  function render(data) {
    document.title = data.title;
    $("title").textContent = data.title;
    var active = data.standings.filter(function (r) {
      return r.status !== "retired";
    }).length;
    $("live-summary").textContent =
      data.kind + " " + data.source + ": " + data.games + " games, " + data.standings.length + " bots" +
      (data.kind === "league" ? " (" + active + " not retired)" : "");
    $("read-at").textContent = data.read;
    about(data);
    standings(data);
    versions(data);
    compares(data);
    forfeits(data);
    recent(data);
    crosstable(data);
  }

  function status(text, className) {
    var node = $("live-status");
    node.textContent = text;
    node.className = "live-status " + className;
  }

  if (!window.EventSource) {
    status("this browser cannot follow the server's events: reload to update", "stale");
    return;
  }
  var events = new EventSource("/events");
  events.addEventListener("state", function (event) {
    $("live-problem").hidden = true;
    status("live", "live");
    render(JSON.parse(event.data));
  });
  events.addEventListener("problem", function (event) {
    var problem = $("live-problem");
    problem.textContent = "The database cannot be read now: " + JSON.parse(event.data).error;
    problem.hidden = false;
    status("showing the last state read", "stale");
  });
  events.onerror = function () {
    status("reconnecting\u2026 (the server is not answering)", "stale");
  };
})();
