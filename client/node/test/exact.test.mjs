// What the client sends and reads back is what toolgate decided on:
//  * the provider's stop signal travels with the reshaped calls, so a
//    response that was cut, refused or failed is refused (README "Native
//    output accepted"), as its stream would be;
//  * arguments_json is read with every number as validated: an integer a
//    JavaScript number cannot hold exactly is a BigInt (parseExact), never
//    a neighbour of the number that was checked.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Gate, parseExact, reshape, modelOutput } from "@toolgate/client";
import { MANIFEST, startServer } from "./server.mjs";

const NUMBERS = { toolgate: "v1", tools: [{
  name: "set_value", description: "Store a number.",
  input_schema: { type: "object", properties: { n: { type: "integer" }, x: { type: "number" } },
    additionalProperties: false },
  side_effect: "write" }] };

const ARGS = { ticket_id: "TCK-000777", priority: "high" };
const ARGS_JSON = JSON.stringify(ARGS);
let server, gate, snapshot, numbers;
before(async () => {
  server = await startServer();
  gate = new Gate(server.target);
  snapshot = await gate.createSnapshot(MANIFEST);
  numbers = await gate.createSnapshot(NUMBERS, { name: "numbers" });
});
after(() => { gate.close(); server.stop(); });

async function decide(snap, output) {
  const run = await gate.openRun(snap);
  try {
    return await run.validate(output);
  } finally {
    await run.close();
  }
}

const setValue = (args) => ({ role: "assistant", tool_calls: [{ id: "c1", type: "function",
  function: { name: "set_value", arguments: args } }] });

test("integers beyond 2^53 run as validated (BigInt)", async () => {
  for (const written of ["9007199254740993", "-9007199254740993", "18446744073709551615",
    "-9223372036854775808", "12345678901234567890", "9007199254740992"]) {
    const d = await decide(numbers, setValue(`{"n": ${written}}`));
    assert.equal(d.decision, "ALLOW", written);
    assert.equal(d.calls[0].arguments.n, BigInt(written), written);
    assert.equal(d.calls[0].argumentsJson, `{"n":${written}}`);
  }
});

test("safe integers and fractions are numbers, exactly as validated", async () => {
  for (const [written, value] of [["9007199254740991", 9007199254740991], ["-12", -12],
    ["0.1", 0.1], ["0.30000000000000004", 0.30000000000000004], ["5e-324", 5e-324],
    ["1.7976931348623157e308", 1.7976931348623157e308], ["1e20", 1e20],
    ["9007199254740994.0", 9007199254740994]]) {
    const key = written.match(/[.e]/) ? "x" : "n";
    const d = await decide(numbers, setValue(`{"${key}": ${written}}`));
    assert.equal(d.decision, "ALLOW", written);
    assert.equal(typeof d.calls[0].arguments[key], "number", written);
    assert.equal(d.calls[0].arguments[key], value, written);
  }
});

test("parseExact reads as JSON.parse but for unsafe integers", () => {
  // Each holds a run of 16 digits, so the exact parser reads it.
  const same = [
    '{"a":1,"b":[true,false,null],"c":"x\\"y\\u0041","pad":"1234567890123456"}',
    '["1234567890123456"]',
    '{"s":"12345678901234567890","t":"a\\\\"}',
    '{"f":1.5e+300,"g":-0.0,"h":1e-7,"i":9007199254740991,"pad":"1234567890123456"}',
    ' { "w" : [ 1 , 2 ] , "pad" : "1234567890123456" } ',
    '{"e":"\\ud83d\\ude00 \\u00e9","pad":"1234567890123456"}',
    '{"nested":{"deep":[{"x":[]},{}]},"pad":"1234567890123456"}',
  ];
  for (const text of same) assert.deepEqual(parseExact(text), JSON.parse(text), text);
  const big = parseExact('{"a":[9007199254740993,-9007199254740993,9007199254740991],' +
    '"s":"9007199254740993","f":9007199254740993.0,"e":9007199254740993e0}');
  assert.deepEqual(big, { a: [9007199254740993n, -9007199254740993n, 9007199254740991],
    s: "9007199254740993", f: 9007199254740992, e: 9007199254740992 });
  // __proto__ stays an own member, as JSON.parse leaves it.
  const proto = parseExact('{"__proto__":{"n":9007199254740993}}');
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ["__proto__"]);
  assert.equal(proto["__proto__"].n, 9007199254740993n);
  for (const bad of ['{"a":9007199254740993', '{"a":09007199254740993}',
    '{"a":9007199254740993,}', '[9007199254740993 1]', '"12345678901234567', "-",
    '{"a":-}', '{"a":9007199254740993}x']) {
    assert.throws(() => parseExact(bad), SyntaxError, bad);
  }
});

const MESSAGE = { role: "assistant", content: null, tool_calls: [{ id: "call_1",
  type: "function", function: { name: "update_ticket", arguments: ARGS_JSON } }] };
const completion = (finish_reason) => ({ id: "c", object: "chat.completion", choices: [
  { index: 0, message: MESSAGE, logprobs: null, finish_reason }] });
const ANTHROPIC = { id: "msg_1", type: "message", role: "assistant", model: "m",
  content: [{ type: "tool_use", id: "t1", name: "update_ticket", input: ARGS }],
  stop_reason: "tool_use", stop_sequence: null };
const RESPONSE = { id: "r", object: "response", status: "completed", output: [
  { type: "function_call", id: "fc", call_id: "c1", name: "update_ticket",
    arguments: ARGS_JSON, status: "completed" }] };
const gemini = (candidate) => ({ candidates: [{ content: { role: "model", parts: [
  { functionCall: { name: "update_ticket", args: ARGS } }] }, ...candidate }] });
const without = (doc, key) => Object.fromEntries(Object.entries(doc).filter(([k]) => k !== key));

const ALLOWED = [
  ["chat tool_calls", completion("tool_calls")],
  ["chat stop", completion("stop")],
  ["one choice", completion("tool_calls").choices[0]],
  ["message with its finish_reason", { ...MESSAGE, finish_reason: "tool_calls" }],
  ["anthropic end_turn", { ...ANTHROPIC, stop_reason: "end_turn" }],
  ["anthropic stop_sequence", { ...ANTHROPIC, stop_reason: "stop_sequence" }],
  ["responses completed", RESPONSE],
  ["gemini STOP", gemini({ finishReason: "STOP" })],
  ["gemini candidate STOP", gemini({ finishReason: "STOP" }).candidates[0]],
];

const STOPPED = [
  ["chat length", completion("length"), "truncated_output"],
  ["chat content_filter", completion("content_filter"), "truncated_output"],
  ["chat null", completion(null), "truncated_output"],
  ["chat finish_reason absent", { choices: [{ index: 0, message: MESSAGE }] }, "truncated_output"],
  ["chat function_call", completion("function_call"), "unrecognized_output"],
  ["one choice, length", completion("length").choices[0], "truncated_output"],
  ["message, finish_reason length", { ...MESSAGE, finish_reason: "length" }, "truncated_output"],
  ["message, finish_reason null", { ...MESSAGE, finish_reason: null }, "truncated_output"],
  ["anthropic max_tokens", { ...ANTHROPIC, stop_reason: "max_tokens" }, "truncated_output"],
  ["anthropic pause_turn", { ...ANTHROPIC, stop_reason: "pause_turn" }, "truncated_output"],
  ["anthropic context window", { ...ANTHROPIC, stop_reason: "model_context_window_exceeded" },
    "truncated_output"],
  ["anthropic refusal", { ...ANTHROPIC, stop_reason: "refusal" }, "stream_error"],
  ["anthropic null", { ...ANTHROPIC, stop_reason: null }, "truncated_output"],
  ["anthropic absent", without(ANTHROPIC, "stop_reason"), "truncated_output"],
  ["anthropic unknown", { ...ANTHROPIC, stop_reason: "budget" }, "unrecognized_output"],
  ["responses incomplete", { ...RESPONSE, status: "incomplete" }, "truncated_output"],
  ["responses failed", { ...RESPONSE, status: "failed" }, "stream_error"],
  ["responses queued", { ...RESPONSE, status: "queued" }, "truncated_output"],
  ["responses absent", without(RESPONSE, "status"), "truncated_output"],
  ["responses item in_progress", [{ ...RESPONSE.output[0], status: "in_progress" }],
    "truncated_output"],
  ["gemini MAX_TOKENS", gemini({ finishReason: "MAX_TOKENS" }), "truncated_output"],
  ["gemini SAFETY", gemini({ finishReason: "SAFETY" }), "stream_error"],
  ["gemini MALFORMED_FUNCTION_CALL", gemini({ finishReason: "MALFORMED_FUNCTION_CALL" }),
    "stream_error"],
  ["gemini no finishReason", gemini({}), "truncated_output"],
  ["gemini candidate MAX_TOKENS", gemini({ finishReason: "MAX_TOKENS" }).candidates[0],
    "truncated_output"],
  ["gemini prompt blocked", { promptFeedback: { blockReason: "SAFETY" } }, "stream_error"],
];

for (const [name, output] of ALLOWED) {
  test(`stop signal passed on, complete: ${name}`, async () => {
    const d = await decide(snapshot, output);
    assert.equal(d.decision, "ALLOW", JSON.stringify(d.violations));
  });
}

for (const [name, output, code] of STOPPED) {
  test(`stop signal passed on, refused: ${name}`, async () => {
    const d = await decide(snapshot, output);
    assert.equal(d.decision, "REJECT");
    assert.deepEqual(d.violations.map((v) => v.code), [code], modelOutput(output).native_json);
  });
}

test("reshape keeps the signal beside the message it builds", () => {
  assert.equal(reshape(completion("length")).finish_reason, "length");
  assert.equal(reshape({ ...ANTHROPIC, stop_reason: "max_tokens" }).stop_reason, "max_tokens");
  assert.equal(reshape(gemini({ finishReason: "SAFETY" })).finishReason, "SAFETY");
  assert.equal(reshape({ ...RESPONSE, status: "incomplete" }).status, "incomplete");
  // Two signals that disagree say nothing to trust: null.
  const both = { ...completion("length"), choices: [{ index: 0, finish_reason: "stop",
    message: { ...MESSAGE, finish_reason: "length" } }] };
  assert.equal(reshape(both).finish_reason, null);
});
