// The reference reading of the differential test (differential.py): the
// bodies on stdin ("<length>\n<bytes>" each) read as the MCP TypeScript
// SDK reads an answer: TextDecoder (UTF-8, BOM dropped, bad bytes as
// U+FFFD), eventsource-parser, and only events of type "message" (or none)
// with data. Once whole, once in pieces cut at pseudo-random points (as a
// network delivers them, through a streaming TextDecoder). One JSON line
// per body: {"whole": [...], "pieces": [...]}.
import { createParser } from "eventsource-parser";

function read(chunks) {
  const events = [];
  const parser = createParser({
    onEvent(e) {
      if ((e.event === undefined || e.event === "message") && e.data !== "") {
        events.push(e.data);
      }
    },
  });
  const decoder = new TextDecoder("utf-8");
  for (const chunk of chunks) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== "") parser.feed(text);
  }
  const rest = decoder.decode();
  if (rest !== "") parser.feed(rest);
  return events;  // No flush: clients drop an event left open.
}

function pieces(body, seed) {
  let state = (seed * 2654435761 + 1) >>> 0;
  const out = [];
  let at = 0;
  while (at < body.length) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const size = 1 + (state >>> 16) % 7;
    out.push(body.subarray(at, at + size));
    at += size;
  }
  return out;
}

const input = Buffer.concat(await (async () => {
  const parts = [];
  for await (const part of process.stdin) parts.push(part);
  return parts;
})());
let at = 0;
let index = 0;
const lines = [];
while (at < input.length) {
  const newline = input.indexOf(10, at);
  const length = Number(input.subarray(at, newline).toString());
  const body = input.subarray(newline + 1, newline + 1 + length);
  at = newline + 1 + length;
  lines.push(JSON.stringify({ whole: read([body]), pieces: read(pieces(body, index++)) }));
}
process.stdout.write(lines.join("\n") + (lines.length ? "\n" : ""));
