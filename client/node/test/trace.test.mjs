// The client carries the application's active OpenTelemetry span to
// toolgate, checked on what toolgate exports: a real toolgate started with
// --otlp_endpoint sends its spans to a real OTLP/gRPC receiver
// (tests/trace/otlp_receiver.py: grpcio, the service compiled from
// shared/otel-proto; the test FAILS when either is missing). The spans on
// the application side are the official SDK's (@opentelemetry/sdk-trace-base
// with the AsyncLocalStorage context manager), pinned in package-lock.json.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { ROOT_CONTEXT, context, createTraceState, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { Gate } from "@toolgate/client";
import { ADMIN_TOKEN, MANIFEST, REPO, adminTokenFile, startServer } from "./server.mjs";

const VALIDATE = "toolgate.v1.ToolGate/ValidateToolCall";
const SERVER_KIND = 2; // SPAN_KIND_SERVER
const GOOD = { ticket_id: "TCK-004242", priority: "urgent" };
const call = (args = GOOD) => ({ role: "assistant", content: null, tool_calls: [{
  id: "call_1", type: "function",
  function: { name: "update_ticket", arguments: JSON.stringify(args) } }] });

let receiver, server, gate, snapshot, tracer;
const spans = [];

/** Starts tests/trace/otlp_receiver.py; resolves to its port. */
function startReceiver() {
  const proc = spawn("/usr/bin/python3",
    [path.join(REPO, "tests/trace/otlp_receiver.py")],
    { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    proc.on("exit", (code) => reject(new Error(`otlp_receiver exited ${code}`)));
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const port = /^port (\d+)$/.exec(line);
      if (port) resolve({ proc, port: Number(port[1]) });
      else spans.push(JSON.parse(line));
    });
  });
}

/** The server spans matching `match`, once there are `count` (20 s). */
async function serverSpans(match, count, what) {
  let found = [];
  for (let i = 0; i < 400; i++) {
    found = spans.filter((s) => s.kind === SERVER_KIND && match(s));
    if (found.length >= count) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(found.length, count, `${what}: ${found.map((s) => s.name)}`);
  return found;
}

const ofTrace = (traceId, count = 1, name = VALIDATE) => serverSpans(
  (s) => s.trace_id === traceId && (name === null || s.name === name),
  count, `trace ${traceId}`);
const ofRun = (runId, count) => serverSpans(
  (s) => s.name === VALIDATE && s.attributes["toolgate.run_id"] === runId,
  count, `run ${runId}`);

before(async () => {
  receiver = await startReceiver();
  server = await startServer(`--otlp_endpoint=127.0.0.1:${receiver.port}`,
    "--trace_sample_ratio=1", `--admin_token_file=${adminTokenFile()}`);
  gate = new Gate(server.target, { adminToken: ADMIN_TOKEN });
  snapshot = await gate.createSnapshot(MANIFEST, { name: "node-traced" });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  tracer = new BasicTracerProvider().getTracer("agent");
});
after(() => {
  gate?.close();
  server?.stop();
  receiver?.proc.removeAllListeners("exit");
  receiver?.proc.stdin.end();
  context.disable();
});

// Each test waits for toolgate's next flush (500 ms): they run at once,
// told apart by their trace ids and run ids.
describe("trace context", { concurrency: true }, () => {
it("every RPC in an active span carries its trace; toolgate's spans are its children", async () => {
  const parent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "1a".repeat(16), spanId: "2b".repeat(8), traceFlags: 1, isRemote: true,
    traceState: createTraceState("vendor=agent-7") });
  const step = await tracer.startActiveSpan("agent step", {}, parent, async (span) => {
    assert.equal(await gate.createSnapshot(MANIFEST), snapshot); // admin
    const run = await gate.openRun(snapshot, { model: "m" });
    const d = await run.validate(call());
    const streamed = await run.validateStream([
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c1", type: "function",
        function: { name: "update_ticket", arguments: JSON.stringify(GOOD) } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
      "[DONE]"], { format: "openai_chat" });
    const out = await run.checkOutput("get_weather", { temp_c: 3 });
    await run.close();
    span.end();
    assert.deepEqual([d.decision, streamed.decision, out.valid], ["ALLOW", "ALLOW", true]);
    return span.spanContext();
  });
  assert.equal(step.traceId, "1a".repeat(16));
  const found = await ofTrace(step.traceId, 6, null);
  assert.deepEqual(new Set(found.map((s) => s.name.split("/")[1])), new Set([
    "CreateSnapshot", "OpenRun", "ValidateToolCall", "ValidateToolCallStream",
    "ValidateToolOutput", "CloseRun"]));
  for (const s of found) {
    assert.equal(s.parent_span_id, step.spanId, s.name);
    assert.equal(s.trace_state, "vendor=agent-7", s.name);
  }
});

it("an SDK root span's new trace id reaches toolgate; after it, no parent", async () => {
  const run = await gate.openRun(snapshot);
  const step = await tracer.startActiveSpan("agent step", async (span) => {
    await new Promise((r) => setTimeout(r, 1));
    assert.equal((await run.validate(call())).decision, "ALLOW");
    span.end();
    return span.spanContext();
  });
  assert.equal((await run.validate(call())).decision, "ALLOW");
  await run.close();
  const [span] = await ofTrace(step.traceId);
  assert.equal(span.parent_span_id, step.spanId);
  assert.equal(span.trace_state, "");
  const both = await ofRun(run.runId, 2);
  assert.deepEqual(both.map((s) => [s.trace_id === step.traceId, s.parent_span_id]).sort(),
    [[false, ""], [true, step.spanId]]);
});

it("concurrent spans each carry their own trace", async () => {
  const steps = await Promise.all([0, 1, 2].map((i) =>
    tracer.startActiveSpan(`step ${i}`, async (span) => {
      const run = await gate.stateless(snapshot);
      for (let k = 0; k < 3; k++) {
        await new Promise((r) => setTimeout(r, (3 - i) * 2));
        assert.equal((await run.validate(call())).allowed, true);
      }
      span.end();
      return span.spanContext();
    })));
  assert.equal(new Set(steps.map((s) => s.traceId)).size, 3);
  for (const step of steps) {
    const found = await ofTrace(step.traceId, 3);
    assert.deepEqual(new Set(found.map((s) => s.parent_span_id)), new Set([step.spanId]));
  }
});

// A child process whose require("@opentelemetry/api") is absent or broken
// (a preload hooks Module._load): results stay as they are, and what is sent
// is only a well-formed W3C context or nothing.
const PRELOAD = `
const Module = require("module");
const load = Module._load;
const ids = { traceId: "3c".repeat(16), spanId: "4d".repeat(8), traceFlags: 1 };
const api = (getSpanContext, active = () => ({})) => ({
  context: { active }, trace: { getSpanContext } });
const modes = {
  absent: null,
  require_throws: null,
  active_throws: api(() => ids, () => { throw new Error("no context"); }),
  get_throws: api(() => { throw new Error("broken"); }),
  not_an_api: { context: 1, trace: "x" },
  uppercase_ids: api(() => ({ ...ids, traceId: "AB".repeat(16) })),
  zero_span_id: api(() => ({ ...ids, spanId: "0".repeat(16) })),
  flags_not_a_number: api(() => ({ ...ids, traceFlags: "01" })),
  unsendable_tracestate: api(() => ({ ...ids,
    traceState: { serialize: () => "k=v\\nx" } })),
  long_tracestate: api(() => ({ ...ids,
    traceState: { serialize: () => "k=" + "v".repeat(600) } })),
};
globalThis.otelRequires = 0;
Module._load = function (request, ...rest) {
  if (request !== "@opentelemetry/api") return load.call(this, request, ...rest);
  globalThis.otelRequires++;
  const mode = process.env.OTEL_MODE;
  if (mode === "absent") {
    const e = new Error("Cannot find module '@opentelemetry/api'");
    e.code = "MODULE_NOT_FOUND";
    throw e;
  }
  if (mode === "require_throws") throw new TypeError("broken install");
  return modes[mode];
};
`;
const CHILD = `
const { Gate } = require(process.env.CLIENT);
(async () => {
  const gate = new Gate(process.env.TARGET);
  const run = await gate.openRun(process.env.SNAPSHOT);
  const decisions = [];
  for (const args of [${JSON.stringify(GOOD)}, { ...${JSON.stringify(GOOD)}, priority: "nope" }]) {
    decisions.push((await run.validate({ role: "assistant", tool_calls: [{ id: "c",
      type: "function", function: { name: "update_ticket",
        arguments: JSON.stringify(args) } }] })).decision);
  }
  await run.close();
  gate.close();
  console.log(JSON.stringify({ runId: run.runId, decisions, requires: globalThis.otelRequires }));
})();
`;

const CASES = [
  ["absent", null], ["require_throws", null], ["active_throws", null],
  ["get_throws", null], ["not_an_api", null], ["uppercase_ids", null],
  ["zero_span_id", null], ["flags_not_a_number", null],
  ["unsendable_tracestate", "4d".repeat(8)], ["long_tracestate", "4d".repeat(8)],
];

for (const [mode, parentSpan] of CASES) {
  it(`@opentelemetry/api ${mode}: same results, ${parentSpan ? "traceparent only" : "no trace context"}`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "toolgate-otel-"));
    writeFileSync(path.join(dir, "preload.cjs"), PRELOAD);
    // Asynchronous: a blocked event loop would stop reading the receiver.
    const child = await promisify(execFile)(process.execPath,
      ["--require", path.join(dir, "preload.cjs"), "-e", CHILD], {
        encoding: "utf8", env: { ...process.env, OTEL_MODE: mode,
          CLIENT: path.join(REPO, "client/node/dist/cjs/index.js"),
          TARGET: server.target, SNAPSHOT: snapshot } });
    const got = JSON.parse(child.stdout);
    assert.deepEqual(got.decisions, ["ALLOW", "REJECT"]);
    assert.equal(got.requires, 1, "required once per process, not per call");
    const found = await ofRun(got.runId, 2);
    for (const s of found) {
      assert.equal(s.parent_span_id, parentSpan ?? "", mode);
      assert.equal(s.trace_state, "", mode);
      if (parentSpan) assert.equal(s.trace_id, "3c".repeat(16));
    }
  });
}
});
