// Client overhead per validate call, Node: run.validate versus the raw
// grpc-js stub, against a real server. Same method as bench_python.py
// (process.hrtime.bigint; N calls after 500 warm-up; raw, same and client
// alternating call by call; "raw" sends a prebuilt request, "same" is the
// raw stub doing the least any caller must: JSON.stringify the message,
// check ALLOW, JSON.parse the arguments; "local" is the client's own work
// alone: the request built from the message plus a canned response read
// into a Decision).
//   node bench_node.mjs TARGET [N]   (from bench/clients, after
//   `npm ci` in client/node; imports the built package by path)
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const client = require("../../client/node/dist/cjs/index.js");
const { ToolGateClient } = require("../../client/node/dist/cjs/proto.js");
const { readDecision } = require("../../client/node/dist/cjs/types.js");
const grpc = require("../../client/node/node_modules/@grpc/grpc-js");

const [target, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 5000);
const MANIFEST = [{ type: "function", function: { name: "update_ticket", parameters: {
  type: "object", properties: { ticket_id: { type: "string", pattern: "^TCK-[0-9]{6}$" },
    priority: { enum: ["low", "normal", "high", "urgent"] } },
  required: ["ticket_id", "priority"], additionalProperties: false } } }];
const MESSAGE = { role: "assistant", content: null, tool_calls: [{ id: "call_1",
  type: "function", function: { name: "update_ticket",
    arguments: JSON.stringify({ ticket_id: "TCK-004242", priority: "urgent" }) } }] };

const pct = (s, p) => {
  const sorted = [...s].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p / 100))] / 100) / 10;
};

const gate = new client.Gate(target, { timeoutMs: 10_000 });
const snapshot = await gate.createSnapshot(MANIFEST);
const run = await gate.openRun(snapshot, { model: "bench" });
const stub = new ToolGateClient(target, grpc.credentials.createInsecure());
const rawRequest = { run_id: run.runId, run_token: run.runToken,
  native_json: JSON.stringify(MESSAGE), repair: 1, approval_id: "" };
const rawCall = () => new Promise((resolve, reject) => stub.ValidateToolCall(rawRequest,
  new grpc.Metadata(), { deadline: new Date(Date.now() + 10_000) },
  (err, r) => (err ? reject(err) : resolve(r))));
const canned = await rawCall();
if (!readDecision(canned).allowed) throw new Error("bench call not allowed");
const sameWork = () => new Promise((resolve, reject) => stub.ValidateToolCall(
  { run_id: run.runId, run_token: run.runToken, native_json: JSON.stringify(MESSAGE) },
  new grpc.Metadata(), { deadline: new Date(Date.now() + 10_000) }, (err, r) => {
    if (err) return reject(err);
    if (r.decision !== 1) return reject(new Error("not allowed"));  // DECISION_ALLOW
    resolve(r.calls.map((c) => JSON.parse(c.arguments_json)));
  }));
for (let i = 0; i < 500; i++) { await rawCall(); await sameWork(); await run.validate(MESSAGE); }
const raw = [], same = [], cl = [], local = [];
for (let i = 0; i < n; i++) {
  let t = process.hrtime.bigint(); await rawCall(); raw.push(Number(process.hrtime.bigint() - t));
  t = process.hrtime.bigint(); await sameWork(); same.push(Number(process.hrtime.bigint() - t));
  t = process.hrtime.bigint(); await run.validate(MESSAGE); cl.push(Number(process.hrtime.bigint() - t));
}
const { modelOutput } = client;
for (let i = 0; i < n; i++) {
  const t = process.hrtime.bigint();
  ({ run_id: run.runId, ...modelOutput(MESSAGE), repair: 1 });
  readDecision(canned);
  local.push(Number(process.hrtime.bigint() - t));
}
await run.close();
const out = { language: "node", calls: raw.length };
for (const [k, s] of [["raw", raw], ["same", same], ["client", cl], ["local", local]]) {
  out[k] = { p50_us: pct(s, 50), p99_us: pct(s, 99) };
}
for (const [k, s] of [["raw", raw], ["same", same]]) {  // % of the base call
  out[`client_over_${k}_pct`] = Object.fromEntries([50, 99].map((p) =>
    [`p${p}`, Math.round(1000 * (pct(cl, p) / pct(s, p) - 1)) / 10]));
}
console.log(JSON.stringify(out));
gate.close();
stub.close();
