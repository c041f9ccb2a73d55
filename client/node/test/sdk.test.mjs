// run.validate takes what the openai and @anthropic-ai/sdk packages return,
// as they return it. The SDKs are driven through a fetch that answers with
// a canned provider response (no network), so the objects are real SDK
// objects, not hand-made look-alikes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { Gate } from "@toolgate/client";
import { MANIFEST, startServer } from "./server.mjs";

const ARGS = { ticket_id: "TCK-000777", priority: "high" };
let server, gate, snapshot;
before(async () => {
  server = await startServer();
  gate = new Gate(server.target);
  snapshot = await gate.createSnapshot(MANIFEST);
});
after(() => { gate.close(); server.stop(); });

const cannedFetch = (body) => async () => new Response(JSON.stringify(body),
  { status: 200, headers: { "content-type": "application/json" } });

function openai(body) {
  return new OpenAI({ apiKey: "test", baseURL: "http://model.invalid/v1",
    fetch: cannedFetch(body), maxRetries: 0 });
}

function anthropic(body) {
  return new Anthropic({ apiKey: "test", baseURL: "http://model.invalid",
    fetch: cannedFetch(body), maxRetries: 0 });
}

const chatBody = (args) => ({ id: "chatcmpl-1", object: "chat.completion",
  created: 1, model: "gpt-4.1", choices: [{ index: 0, finish_reason: "tool_calls",
    logprobs: null, message: { role: "assistant", content: null, refusal: null,
      tool_calls: [{ id: "call_1", type: "function", function: {
        name: "update_ticket", arguments: JSON.stringify(args) } }] } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });

const responsesBody = { id: "resp_1", object: "response", created_at: 1,
  status: "completed", model: "gpt-4.1", output: [
    { type: "reasoning", id: "rs_1", summary: [] },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "update_ticket",
      arguments: JSON.stringify(ARGS), status: "completed" }] };

const messageBody = (input) => ({ id: "msg_1", type: "message", role: "assistant",
  model: "claude-sonnet-4", stop_reason: "tool_use", stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 }, content: [
    { type: "text", text: "Raising it." },
    { type: "tool_use", id: "toolu_1", name: "update_ticket", input }] });

async function decide(output) {
  const run = await gate.openRun(snapshot);
  try {
    return await run.validate(output);
  } finally {
    await run.close();
  }
}

const chatRequest = { model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] };
const CASES = [
  ["openai ChatCompletion", async () => openai(chatBody(ARGS)).chat.completions.create(chatRequest),
    "openai_tool_calls"],
  ["openai ChatCompletionMessage", async () =>
    (await openai(chatBody(ARGS)).chat.completions.create(chatRequest)).choices[0].message,
  "openai_tool_calls"],
  ["openai Responses Response", async () =>
    openai(responsesBody).responses.create({ model: "gpt-4.1", input: "hi" }), "openai_tool_calls"],
  ["openai Responses output items", async () =>
    (await openai(responsesBody).responses.create({ model: "gpt-4.1", input: "hi" })).output,
  "openai_tool_calls"],
  ["anthropic Message", async () => anthropic(messageBody(ARGS)).messages.create({
    model: "claude-sonnet-4", max_tokens: 100, messages: [{ role: "user", content: "hi" }] }),
  "anthropic_tool_use"],
  ["anthropic content blocks", async () => (await anthropic(messageBody(ARGS)).messages.create({
    model: "claude-sonnet-4", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })).content,
  "anthropic_tool_use"],
  ["gemini response (REST JSON)", async () => ({ candidates: [{ content: { role: "model",
    parts: [{ functionCall: { name: "update_ticket", args: ARGS } }] },
    finishReason: "STOP" }] }), "openai_tool_calls"],
];

for (const [name, make, source] of CASES) {
  test(`${name}: ALLOW`, async () => {
    const d = await decide(await make());
    assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
    assert.deepEqual(d.calls.map((c) => [c.name, c.arguments, c.source]),
      [["update_ticket", ARGS, source]]);
  });
}

test("SDK objects with a bad argument: REJECT", async () => {
  const bad = { ...ARGS, priority: "asap" };
  const chat = await openai(chatBody(bad)).chat.completions.create(chatRequest);
  const msg = await anthropic(messageBody(bad)).messages.create({
    model: "claude-sonnet-4", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
  for (const output of [chat, msg]) {
    const d = await decide(output);
    assert.equal(d.decision, "REJECT");
    assert.deepEqual(d.violations.map((v) => v.pointer), ["/priority"]);
  }
});

test("unrecognised shapes are refused, never allowed", async () => {
  for (const output of [{ hello: "world" }, [{ type: "custom_tool_call", name: "x" }], 42]) {
    const d = await decide(output);
    assert.equal(d.allowed, false);
  }
});

// The provider's own stop signal travels with the calls (README "Native
// output accepted"): a real SDK object whose model was cut, refused or
// failed is refused with the code its stream would get, however whole its
// calls look.
test("SDK objects that stopped short: refused as their stream would be", async () => {
  const cases = [
    [{ ...chatBody(ARGS), choices: [{ ...chatBody(ARGS).choices[0], finish_reason: "length" }] },
      "chat", "truncated_output"],
    [{ ...chatBody(ARGS), choices: [{ ...chatBody(ARGS).choices[0],
      finish_reason: "content_filter" }] }, "chat", "truncated_output"],
    [{ ...messageBody(ARGS), stop_reason: "max_tokens" }, "messages", "truncated_output"],
    [{ ...messageBody(ARGS), stop_reason: "refusal" }, "messages", "stream_error"],
    [{ ...messageBody(ARGS), stop_reason: "pause_turn" }, "messages", "truncated_output"],
    [{ ...messageBody(ARGS), stop_reason: null }, "messages", "truncated_output"],
    [{ ...responsesBody, status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" } }, "responses", "truncated_output"],
    [{ ...responsesBody, status: "failed" }, "responses", "stream_error"],
  ];
  for (const [body, api, code] of cases) {
    const output = api === "chat"
      ? await openai(body).chat.completions.create(chatRequest)
      : api === "responses"
        ? await openai(body).responses.create({ model: "gpt-4.1", input: "hi" })
        : await anthropic(body).messages.create({ model: "claude-sonnet-4", max_tokens: 100,
          messages: [{ role: "user", content: "hi" }] });
    const d = await decide(output);
    assert.equal(d.decision, "REJECT", `${api} ${code}`);
    assert.deepEqual(d.violations.map((v) => v.code), [code], `${api} ${JSON.stringify(body)}`);
  }
});
