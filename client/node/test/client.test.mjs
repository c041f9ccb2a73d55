// The client against a real sidecar: decisions, approvals, outputs,
// verdicts, gated functions.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DenyError, Gate, gated } from "@toolgate/client";
import { ADMIN_TOKEN, MANIFEST, adminTokenFile, startServer } from "./server.mjs";

let server, gate, snapshot;
before(async () => {
  server = await startServer(`--admin_token_file=${adminTokenFile()}`);
  gate = new Gate(server.target, { adminToken: ADMIN_TOKEN });
  snapshot = await gate.createSnapshot(MANIFEST, { name: "node-tests" });
});
after(() => { gate.close(); server.stop(); });

const GOOD = { ticket_id: "TCK-004242", priority: "urgent" };
const call = (name, args) => ({ role: "assistant", content: null, tool_calls: [{
  id: "call_1", type: "function",
  function: { name, arguments: JSON.stringify(args) } }] });

test("snapshot from object, JSON text and name", async () => {
  assert.match(snapshot, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await gate.createSnapshot(JSON.stringify(MANIFEST)), snapshot);
  const run = await gate.openRun("node-tests", { model: "m" });
  assert.equal(run.snapshotId, snapshot);
  await run.close();
  await run.close();  // once
});

test("ALLOW carries the canonical arguments", async () => {
  const run = await gate.openRun(snapshot, { model: "m", context: { user: "u" } });
  const d = await run.validate(call("update_ticket", GOOD));
  await run.close();
  assert.equal(d.allowed, true);
  assert.equal(d.decision, "ALLOW");
  assert.deepEqual(d.calls.map((c) => [c.name, c.arguments, c.source]),
    [["update_ticket", GOOD, "openai_tool_calls"]]);
  assert.ok(d.auditId);
});

test("REJECT carries violations and a repair prompt; the breaker STOPs", async () => {
  const run = await gate.openRun(snapshot);
  const bad = call("update_ticket", { ...GOOD, priority: "critial" });
  const seen = [];
  for (let i = 0; i < 4; i++) seen.push(await run.validate(bad));
  await run.close();
  assert.deepEqual(seen.map((d) => d.decision), ["REJECT", "REJECT", "REJECT", "STOP"]);
  assert.deepEqual(seen[0].violations.map((v) => [v.code, v.pointer, v.keyword]),
    [["invalid_arguments", "/priority", "enum"]]);
  assert.equal(JSON.parse(seen[0].repairPrompt).error, "tool_validation_failed");
  assert.equal(seen.some((d) => d.allowed), false);
});

test("a closed run is refused with DenyError", async () => {
  const run = await gate.openRun(snapshot);
  await run.close();
  await assert.rejects(run.validate(call("update_ticket", GOOD)), DenyError);
});

test("checkOutput and extractVerdict", async () => {
  const run = await gate.openRun(snapshot);
  const ok = await run.checkOutput("get_weather", { temp_c: 2 });
  const bad = await run.checkOutput("get_weather", { temp: "warm" });
  const pass = await run.extractVerdict('Done.\n```json\n{"verdict": "pass", "reason": "green"}\n```');
  const stop = await run.extractVerdict("I think it passed.");
  await run.close();
  assert.deepEqual([ok.valid, ok.verdict, bad.valid, bad.verdict],
    [true, "VALID", false, "INVALID"]);
  assert.deepEqual([pass.passed, pass.outcome, pass.result],
    [true, "PASS", { verdict: "pass", reason: "green" }]);
  assert.deepEqual([stop.passed, stop.outcome, stop.result], [false, "CONTRACT_STOP", null]);
});

test("approval: NEEDS_APPROVAL, decided, awaited, then ALLOW once", async () => {
  const run = await gate.openRun(snapshot);
  const del = call("delete_ticket", { ticket_id: "TCK-000001" });
  const asked = await run.validate(del);
  assert.deepEqual([asked.allowed, asked.decision], [false, "NEEDS_APPROVAL"]);
  assert.equal(await run.awaitApproval(asked, { timeoutMs: 0 }), "PENDING");
  assert.equal(await gate.decideApproval(asked.approvalId,
    { approve: true, approver: "node-tests" }), "APPROVED");
  assert.equal(await run.awaitApproval(asked, { timeoutMs: 5000 }), "APPROVED");
  assert.equal((await run.validate(del, { approvalId: asked.approvalId })).decision, "ALLOW");
  assert.equal((await run.validate(del, { approvalId: asked.approvalId })).decision, "REJECT");
  await run.close();
});

test("approving needs the admin token, even on loopback", async () => {
  const run = await gate.openRun(snapshot);
  const del = call("delete_ticket", { ticket_id: "TCK-000002" });
  const asked = await run.validate(del);
  for (const adminToken of [undefined, "wrong"]) {
    const agent = new Gate(server.target, { adminToken });
    await assert.rejects(agent.decideApproval(asked.approvalId,
      { approve: true, approver: "the agent" }), { code: "UNAUTHENTICATED" });
    agent.close();
  }
  assert.equal((await run.validate(del, { approvalId: asked.approvalId })).decision, "REJECT");
  await run.close();
});

test("awaitApproval without an approval id is a DenyError", async () => {
  const run = await gate.openRun(snapshot);
  const d = await run.validate(call("update_ticket", GOOD));
  await assert.rejects(run.awaitApproval(d), { code: "NO_APPROVAL" });
  await run.close();
});

test("bad arguments are clear errors", async () => {
  await assert.rejects(gate.createSnapshot(MANIFEST, { format: "yaml" }), TypeError);
  await assert.rejects(gate.createSnapshot({ toolgate: "v1", tools: [
    { name: "t", input_schema: { type: "nope" } }] }), { code: "INVALID_ARGUMENT" });
  await assert.rejects(gate.openRun("no-such-name"), { code: "NOT_FOUND" });
});

test("gated: runs only on ALLOW, with canonical arguments; output checked", async () => {
  const run = await gate.openRun(snapshot);
  const seen = [];
  const update = gated(run, async function update_ticket(args) {
    seen.push(args);
    return { ok: true };
  });
  assert.deepEqual(await update({ priority: "high", ticket_id: "TCK-000123" }), { ok: true });
  await assert.rejects(update({ priority: "hgh", ticket_id: "TCK-000123" }),
    (e) => e instanceof DenyError && e.code === "NOT_ALLOWED" && e.decision.decision === "REJECT");
  const del = run.wrap(({ ticket_id }) => seen.push(ticket_id), { tool: "delete_ticket" });
  await assert.rejects(del({ ticket_id: "TCK-000001" }),
    (e) => e.decision.decision === "NEEDS_APPROVAL");
  const weather = run.wrap(({ city }) => (city === "Oslo" ? { temp_c: 1 } : { temp: "hot" }),
    { tool: "get_weather" });
  assert.deepEqual(await weather({ city: "Oslo" }), { temp_c: 1 });
  await assert.rejects(weather({ city: "Cairo" }), { code: "OUTPUT_INVALID" });
  await run.close();
  assert.deepEqual(seen, [{ priority: "high", ticket_id: "TCK-000123" }]);
});
