// Fail-closed rules: no RPC error, deadline or unreadable answer is ever an
// allow. A fake server answers with UNSPECIFIED or an enum number the
// client does not know (the real one never does), or too slowly.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, test } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { DenyError, Gate } from "@toolgate/client";
import { ToolGateClient } from "../dist/cjs/proto.js";

const CALL = { role: "assistant", tool_calls: [{ id: "c", type: "function",
  function: { name: "update_ticket", arguments: "{}" } }] };
const servers = [];
after(() => servers.forEach((s) => s.forceShutdown()));

async function fake({ value = 0, sleepMs = 0, fail = null,
  calls = [{ name: "update_ticket", arguments_json: "{}" }] } = {}) {
  const answer = (response) => (call, cb) => {
    if (fail) return cb({ code: fail, details: "boom" });
    setTimeout(() => cb(null, response), sleepMs);
  };
  const server = new grpc.Server();
  server.addService(ToolGateClient.service, {
    OpenRun: answer({ run_id: "r", run_token: "t", snapshot_id: "sha256:0" }),
    CloseRun: answer({}),
    ValidateToolCall: answer({ decision: value, calls }),
    ValidateToolOutput: answer({ verdict: value }),
    ExtractVerdict: answer({ outcome: value }),
    AwaitApproval: answer({ state: value }),
  });
  const port = await new Promise((resolve, reject) => server.bindAsync(
    "127.0.0.1:0", grpc.ServerCredentials.createInsecure(),
    (err, p) => (err ? reject(err) : resolve(p))));
  servers.push(server);
  return `127.0.0.1:${port}`;
}

const CHECKS = {
  validate: (run) => run.validate(CALL),
  checkOutput: (run) => run.checkOutput("t", {}),
  extractVerdict: (run) => run.extractVerdict("x"),
  awaitApproval: (run) => run.awaitApproval("apr_1", { timeoutMs: 0 }),
};

for (const [value, code] of [[0, "UNSPECIFIED"], [99, "UNKNOWN_ENUM"]]) {
  for (const [method, check] of Object.entries(CHECKS)) {
    test(`${method}: enum ${value} is a deny (${code})`, async () => {
      const gate = new Gate(await fake({ value }));
      const run = await gate.openRun("sha256:0");
      await assert.rejects(check(run), (e) => e instanceof DenyError && e.code === code);
      gate.close();
    });
  }
}

for (const [what, calls, code] of [
  ["no call", [], "NO_CALLS"],
  ["a call without arguments_json", [{ name: "update_ticket" }], "UNREADABLE"],
  ["a call without a name", [{ arguments_json: "{}" }], "UNREADABLE"]]) {
  test(`ALLOW with ${what} is a deny (${code})`, async () => {
    const gate = new Gate(await fake({ value: 1, calls }));
    const run = await gate.stateless("sha256:0");
    await assert.rejects(run.validate(CALL), (e) => e instanceof DenyError && e.code === code);
    gate.close();
  });
}

test("PASS without result_json is a deny (UNREADABLE)", async () => {
  const gate = new Gate(await fake({ value: 1 }));
  const run = await gate.stateless("sha256:0");
  await assert.rejects(run.extractVerdict("x"), (e) => e instanceof DenyError && e.code === "UNREADABLE");
  gate.close();
});

test("deadline is a deny", async () => {
  const gate = new Gate(await fake({ value: 1, sleepMs: 2000 }), { timeoutMs: 200 });
  const run = await gate.openRun("sha256:0").catch(() => null);
  const scope = run ?? await gate.stateless("sha256:0");
  await assert.rejects(scope.validate(CALL), { code: "DEADLINE_EXCEEDED" });
  gate.close();
});

test("server error is a deny", async () => {
  const gate = new Gate(await fake({ fail: grpc.status.INTERNAL }));
  const run = await gate.stateless("sha256:0");
  await assert.rejects(run.validate(CALL), (e) => e.code === "INTERNAL" && /boom/.test(e.detail));
  gate.close();
});

test("server down is a deny, and a gated function is not called", async () => {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const gate = new Gate(`127.0.0.1:${port}`, { timeoutMs: 1000 });
  const run = await gate.stateless("sha256:0");
  await assert.rejects(run.validate(CALL),
    (e) => ["UNAVAILABLE", "DEADLINE_EXCEEDED"].includes(e.code));
  let called = false;
  const fn = run.wrap(() => { called = true; }, { tool: "update_ticket" });
  await assert.rejects(fn({ ticket_id: "TCK-000001", priority: "low" }), DenyError);
  assert.equal(called, false);
  gate.close();
});
