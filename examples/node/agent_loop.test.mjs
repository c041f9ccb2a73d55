// Runs the compiled agent_loop.ts against a real sidecar and checks the
// decisions, in order (the same sequence as examples/python).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { test } from "node:test";
import { adminTokenFile, startServer, TOOLGATECTL }
  from "../../client/node/test/server.mjs";

const EXPECTED = [
  ["repair", "validate", "REJECT"],
  ["repair", "validate", "ALLOW"],
  ["repair", "run_tool", "update_ticket"],
  ["repair", "check_output", "VALID"],
  ["repair", "extract_verdict", "PASS"],
  ["breaker", "validate", "REJECT"],
  ["breaker", "validate", "REJECT"],
  ["breaker", "validate", "REJECT"],
  ["breaker", "validate", "STOP"],
  ["approval", "validate", "NEEDS_APPROVAL"],
  ["approval", "await_approval", "APPROVED"],
  ["approval", "validate", "ALLOW"],
  ["approval", "run_tool", "delete_ticket"],
  ["approval", "check_output", "VALID"],
  ["approval", "extract_verdict", "PASS"],
];

test("agent_loop.ts: the decision sequence", async () => {
  // The approver holds the admin token; the agent registers its own tools.
  const token = adminTokenFile();
  const server = await startServer(`--admin_token_file=${token}`, "--snapshot_create=any");
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath,
      ["dist/agent_loop.js", "--target", server.target, "--toolgatectl", TOOLGATECTL,
        "--admin-token-file", token],
      { cwd: new URL(".", import.meta.url).pathname, timeout: 120_000 });
    const steps = stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(steps.map((s) => [s.run, s.step, s.value]), EXPECTED, stderr);
  } finally {
    server.stop();
  }
});

test("quickstart.mjs prints the allowed call", async () => {
  const server = await startServer();
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["quickstart.mjs"],
      { cwd: new URL(".", import.meta.url).pathname, timeout: 60_000,
        env: { ...process.env, TOOLGATE_ADDR: server.target } });
    assert.equal(stdout, "run update_ticket { priority: 'high' }\n");
  } finally {
    server.stop();
  }
});
