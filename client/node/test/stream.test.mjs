// validateStream: streamed model output, from arrays of SSE data payloads
// and from the openai / @anthropic-ai/sdk streams themselves (async
// iterables, driven through a fetch that answers with a canned SSE body).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { DenyError, Gate } from "@toolgate/client";
import { MANIFEST, REPO, startServer } from "./server.mjs";

const STREAMS = JSON.parse(readFileSync(
  path.join(REPO, "client/python/tests/streams.json"), "utf8"));
const FORMATS = Object.keys(STREAMS.formats).sort();
let server, gate, snapshot;
before(async () => {
  server = await startServer();
  gate = new Gate(server.target);
  snapshot = await gate.createSnapshot(MANIFEST);
});
after(() => { gate.close(); server.stop(); });

async function decide(events, options) {
  const run = await gate.openRun(snapshot);
  try {
    return await run.validateStream(events, options);
  } finally {
    await run.close();
  }
}

async function* slowly(events) {
  for (const e of events) {
    await new Promise((r) => setImmediate(r));
    yield e;
  }
}

for (const format of FORMATS) {
  test(`${format}: complete stream ALLOWs (array, async iterable, format given)`, async () => {
    const events = STREAMS.formats[format].allow;
    for (const d of [await decide(events), await decide(slowly(events)),
      await decide(events, { format })]) {
      assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
      assert.deepEqual(d.calls.map((c) => [c.name, c.arguments]),
        [["update_ticket", STREAMS.arguments]]);
    }
  });
  test(`${format}: bad argument REJECTs; truncated never ALLOWs`, async () => {
    const bad = await decide(STREAMS.formats[format].reject);
    assert.equal(bad.decision, "REJECT");
    assert.deepEqual(bad.violations.map((v) => v.pointer), ["/priority"]);
    const cut = await decide(STREAMS.formats[format].truncated).catch((e) => e);
    assert.ok(cut instanceof DenyError || cut.allowed === false);
  });
}

const sse = (events, named) => events.map((e) => {
  const type = named && e !== "[DONE]" ? `event: ${JSON.parse(e).type}\n` : "";
  return `${type}data: ${e}\n\n`;
}).join("");
const sseFetch = (body) => async () => new Response(body,
  { status: 200, headers: { "content-type": "text/event-stream" } });

test("openai SDK stream (chat.completions, stream: true) as returned", async () => {
  const client = new OpenAI({ apiKey: "t", baseURL: "http://model.invalid/v1", maxRetries: 0,
    fetch: sseFetch(sse(STREAMS.formats.openai_chat.allow, false)) });
  const stream = await client.chat.completions.create({ model: "gpt-4.1", stream: true,
    messages: [{ role: "user", content: "hi" }] });
  const d = await decide(stream);
  assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
});

test("openai SDK stream (responses, stream: true) as returned", async () => {
  const client = new OpenAI({ apiKey: "t", baseURL: "http://model.invalid/v1", maxRetries: 0,
    fetch: sseFetch(sse(STREAMS.formats.openai_responses.allow, true)) });
  const stream = await client.responses.create({ model: "gpt-4.1", stream: true, input: "hi" });
  const d = await decide(stream);
  assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
});

test("anthropic SDK stream (messages, stream: true) as returned", async () => {
  const client = new Anthropic({ apiKey: "t", baseURL: "http://model.invalid", maxRetries: 0,
    fetch: sseFetch(sse(STREAMS.formats.anthropic_messages.allow, true)) });
  const stream = await client.messages.create({ model: "claude-sonnet-4", max_tokens: 100,
    stream: true, messages: [{ role: "user", content: "hi" }] });
  const d = await decide(stream);
  assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
});

test("a failing event source is a deny; an unknown format a TypeError", async () => {
  async function* broken() {
    yield STREAMS.formats.openai_chat.allow[0];
    throw new Error("model stream broke");
  }
  await assert.rejects(decide(broken()), DenyError);
  await assert.rejects(decide([], { format: "openai" }), TypeError);
});

test("empty and unknown streams never ALLOW", async () => {
  for (const events of [[], ['{"hello": "world"}'], ["not json"]]) {
    const d = await decide(events).catch((e) => e);
    assert.ok(d instanceof DenyError || d.allowed === false);
  }
});
