// @modelcontextprotocol/server-everything through the proxy: every tool it
// lists, called with valid arguments, answers as it does on a direct
// connection; invalid arguments never reach it; resources, prompts,
// completions, sampling, elicitation, roots, logging and progress pass
// through unchanged (byte for byte: checkPassThrough).
import { test } from "node:test";
import assert from "node:assert/strict";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema,
         LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { EVERYTHING, checkPassThrough, direct, lines, proxied, refused, sleep } from "./lib.mjs";

// Answers the server's requests to the host the same way on both paths.
function setup(client) {
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant", content: { type: "text", text: "sampled" }, model: "test-model", stopReason: "endTurn" }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: "accept", content: { name: "Ada", color: "red" } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///tmp/root", name: "root" }] }));
}

// Valid arguments for each tool (defaults for the rest).
const ARGS = {
  "echo": { message: "hello" },
  "get-annotated-message": { messageType: "success", includeImage: true },
  "get-env": {},
  "get-resource-links": { count: 2 },
  "get-resource-reference": { resourceType: "Text", resourceId: 2 },
  "get-structured-content": { location: "Chicago" },
  "get-sum": { a: 2, b: 3 },
  "get-tiny-image": {},
  "gzip-file-as-resource": { name: "a.txt.gz", data: "data:text/plain;base64,aGVsbG8gd29ybGQ=", outputType: "resourceLink" },
  "toggle-simulated-logging": {},
  "toggle-subscriber-updates": {},
  "trigger-long-running-operation": { duration: 0.2, steps: 2 },
  "get-roots-list": {},
  "trigger-elicitation-request": {},
  "trigger-sampling-request": { prompt: "hi", maxTokens: 5 },
};

// Results with the clock taken out (resources say when they were made).
const stable = (v) => JSON.stringify(v)
    .replace(/\d{1,2}:\d{2}:\d{2}( [AP]M)?/g, "TIME")
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, "DATE");

async function callAll(client) {
  const out = {};
  const tools = (await client.listTools()).tools;
  for (const tool of tools) {
    const args = ARGS[tool.name] ?? {};
    try {
      out[tool.name] = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 20000 });
    } catch (e) {
      out[tool.name] = { thrown: e.code ?? String(e), message: String(e.message).slice(0, 300), data: e.data };
    }
  }
  return { tools, out };
}

test("server-everything: every tool answers as on a direct connection", async () => {
  const plain = await direct(EVERYTHING, { setup });
  const want = await callAll(plain);
  await plain.close();
  const s = await proxied("everything-tools", EVERYTHING, { setup });
  const got = await callAll(s.client);
  const taps = await s.close();
  assert.deepEqual(got.tools, want.tools);
  const differ = Object.keys(want.out).filter(
      (name) => stable(got.out[name]) !== stable(want.out[name]));
  for (const name of differ) {
    console.log(`# ${name}\n#  direct: ${stable(want.out[name]).slice(0, 600)}\n#  proxy:  ${stable(got.out[name]).slice(0, 600)}`);
  }
  assert.deepEqual(differ, []);
  console.log(`# ${Object.keys(got.out).length} tools, ${checkPassThrough(taps)} messages passed through unchanged`);
});

test("server-everything: invalid arguments never reach the server", async () => {
  const s = await proxied("everything-invalid", EVERYTHING, { setup });
  await s.client.listTools();
  const e = await refused(s.client.callTool({ name: "get-sum", arguments: { a: "2", b: 3 } }));
  assert.equal(e.code, -32602);
  assert.equal(e.data.decision, "REJECT");
  assert.equal(e.data.violations[0].pointer, "/a");
  assert.ok(e.data.repair_prompt.length > 0);
  const missing = await refused(s.client.callTool({ name: "echo", arguments: {} }));
  assert.equal(missing.code, -32602);
  const unknown = await refused(s.client.callTool({ name: "no-such-tool", arguments: {} }));
  assert.equal(unknown.data.violations[0].code, "unknown_tool");
  const ok = await s.client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
  assert.equal(ok.content[0].text, "The sum of 2 and 3 is 5.");
  const taps = await s.close();
  const calls = lines(taps.server.in).filter((l) => l.includes('"tools/call"'));
  assert.equal(calls.length, 1, calls.join("\n"));
  assert.ok(calls[0].includes('"arguments":{"a":2,"b":3}'));
  checkPassThrough(taps);
});

test("server-everything: resources, prompts, completion, logging and progress pass through", async () => {
  const logs = [];
  const progress = [];
  const run = async (client, notes) => {
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => notes.push(n.params.level));
    const out = {};
    out.resources = await client.listResources();
    out.templates = await client.listResourceTemplates();
    out.read = await client.readResource({ uri: out.resources.resources[0].uri });
    out.prompts = await client.listPrompts();
    out.prompt = await client.getPrompt({ name: out.prompts.prompts[0].name, arguments: {} });
    await client.setLoggingLevel("debug");
    out.ping = await client.ping();
    out.long = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
                                     undefined, { onprogress: (p) => progress.push(p.progress) });
    return out;
  };
  const plain = await direct(EVERYTHING, { setup });
  const want = await run(plain, []);
  await plain.close();
  const s = await proxied("everything-passthrough", EVERYTHING, { setup });
  const got = await run(s.client, logs);
  await s.client.callTool({ name: "toggle-simulated-logging", arguments: {} });
  for (let i = 0; i < 80 && logs.length === 0; i++) await sleep(100);
  const taps = await s.close();
  const norm = (v) => JSON.stringify(v).replace(/\d{1,2}:\d{2}:\d{2}( [AP]M)?/g, "TIME");
  assert.equal(norm(got), norm(want));
  assert.ok(progress.length >= 3, `progress notifications: ${progress}`);
  assert.ok(logs.length >= 1, "no logging notification came through");
  assert.ok(checkPassThrough(taps) >= 10);
});
