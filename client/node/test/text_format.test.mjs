// textFormat: a run (or a request) declares its model family's call
// syntax, and text is read in that grammar only.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DenyError, Gate } from "@toolgate/client";
import { MANIFEST, startServer } from "./server.mjs";

let server, gate, snapshot;
before(async () => {
  server = await startServer();
  gate = new Gate(server.target);
  snapshot = await gate.createSnapshot(MANIFEST, { name: "node-formats" });
});
after(() => { gate.close(); server.stop(); });

const PYTHONIC = "[update_ticket(ticket_id='TCK-004242', priority='urgent')]";
const ARGS = { priority: "urgent", ticket_id: "TCK-004242" };

test("openRun({textFormat}) reads the run's text in its format", async () => {
  const run = await gate.openRun(snapshot, { textFormat: "pythonic" });
  try {
    const d = await run.validate(PYTHONIC);
    assert.equal(d.decision, "ALLOW");
    assert.deepEqual([d.calls[0].source, d.calls[0].arguments], ["pythonic", ARGS]);
    assert.equal((await run.validate(PYTHONIC, { textFormat: "pythonic" })).decision,
      "ALLOW");
    await assert.rejects(run.validate(PYTHONIC, { textFormat: "mistral" }),
      (e) => e instanceof DenyError && e.code === "INVALID_ARGUMENT");
    const tag = '<tool_call>{"name": "update_ticket", "arguments": ' +
      JSON.stringify(ARGS) + "}</tool_call>";
    assert.equal((await run.validate(tag)).decision, "REJECT");
  } finally {
    await run.close();
  }
});

test("a stateless request declares its format", async () => {
  const run = await gate.stateless(snapshot);
  assert.equal((await run.validate(PYTHONIC, { textFormat: "PYTHONIC" })).decision,
    "ALLOW");
  assert.equal((await run.validate(PYTHONIC)).decision, "REJECT");
  const d = await run.validate("[update_ticket(ticket_id=__import__('os'))]",
    { textFormat: "pythonic" });
  assert.equal(d.violations[0].code, "malformed_tool_call");
  assert.match(d.repairPrompt, /"format":"pythonic"/);
});

test("unknown format names are refused before sending", async () => {
  for (const bad of ["llama", "unspecified", "", "TEXT_FORMAT_PYTHONIC"]) {
    await assert.rejects(gate.openRun(snapshot, { textFormat: bad }), TypeError);
    const run = await gate.stateless(snapshot);
    await assert.rejects(run.validate(PYTHONIC, { textFormat: bad }), TypeError);
  }
});
