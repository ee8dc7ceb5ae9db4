// An honest bot in JavaScript that writes with `fs` to /dev/stdout and /dev/stderr by path.
// It plays the first legal action.
"use strict";
const fs = require("fs");
const readline = require("readline");

const out = fs.openSync("/dev/stdout", "w");
const say = (text) => fs.appendFileSync("/dev/stderr", text + "\n");

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  let reply = null;
  if (message.type === "hello") {
    say("honest: hello");
    reply = { type: "ready", protocol_version: 1, name: "honest-node" };
  } else if (message.type === "request") {
    say("honest: request");
    reply = { type: "reply", id: message.id, action: message.legal[0] };
  } else if (message.type === "quit") {
    process.exit(0);
  }
  if (reply !== null) fs.writeSync(out, JSON.stringify(reply) + "\n");
});
