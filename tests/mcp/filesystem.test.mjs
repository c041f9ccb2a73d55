// @modelcontextprotocol/server-filesystem on a temp dir through the proxy,
// under a policy: reads run; writes are destructive (approval), and their
// paths must stay in the dir (path rules, before any approval).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FILESYSTEM, checkPassThrough, lines, proxied, refused, sleep } from "./lib.mjs";

function workspace() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "mcp-fs-")));
  writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
  const inside = { kind: "path", root: dir, allow_absolute: true };
  const policy = join(dir, "..", `policy-${dir.split("-").pop()}.json`);
  writeFileSync(policy, JSON.stringify({
    settings: { require_approval_for: ["destructive"] },
    tools: {
      write_file: { policy: { arguments: { "/path": inside } } },
      edit_file: { policy: { arguments: { "/path": inside } } },
      move_file: { policy: { arguments: { "/source": inside, "/destination": inside } } },
    },
  }));
  return { dir, policy };
}

// The operator: approves with the command the proxy printed.
async function approve(stderr, approvalId) {
  let hint;
  for (let i = 0; i < 100 && !hint; i++) {
    hint = new RegExp(`\\n  (.*) --approval ${approvalId} `).exec(stderr());
    if (!hint) await sleep(50);
  }
  assert.ok(hint, `no approval hint on stderr:\n${stderr()}`);
  const [ctl, ...args] = hint[1].split(" ");
  const out = execFileSync(ctl, [...args, "--approval", approvalId, "--decision", "approve",
                                 "--approver", "test", "--reason", "ok"]).toString();
  assert.match(out, /APPROVAL_STATE_APPROVED/);
}

const writes = (taps) => lines(taps.server.in).filter((l) => l.includes('"name":"write_file"'));

test("server-filesystem: reads run, traversal is refused, a write runs once after approval", async () => {
  const { dir, policy } = workspace();
  const s = await proxied("filesystem-approval", FILESYSTEM(dir), { flags: ["--policy", policy] });
  const names = (await s.client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("write_file") && names.includes("read_text_file"));
  const listing = await s.client.callTool({ name: "list_directory", arguments: { path: dir } });
  assert.match(listing.content[0].text, /\[FILE\] notes\.txt/);
  const read = await s.client.callTool({ name: "read_text_file", arguments: { path: join(dir, "notes.txt") } });
  assert.equal(read.content[0].text, "first line\nsecond line\n");

  const escape = await refused(s.client.callTool({ name: "write_file",
      arguments: { path: `${dir}/../escaped.txt`, content: "x" } }));
  assert.equal(escape.code, -32602);
  assert.equal(escape.data.violations[0].code, "path_outside_root");
  assert.equal(escape.data.violations[0].pointer, "/path");
  const moved = await refused(s.client.callTool({ name: "move_file",
      arguments: { source: join(dir, "notes.txt"), destination: "/etc/notes.txt" } }));
  assert.equal(moved.data.violations[0].pointer, "/destination");

  const target = join(dir, "new.txt");
  const call = { name: "write_file", arguments: { path: target, content: "written once\n" } };
  const pending = await refused(s.client.callTool(call));
  assert.equal(pending.code, -32040);
  const approvalId = pending.data.approval_id;
  assert.match(approvalId, /\S+/);
  assert.ok(!existsSync(target));
  const again = await refused(s.client.callTool(call));  // Still pending: same approval.
  assert.equal(again.code, -32040);
  assert.equal(again.data.approval_id, approvalId);
  await approve(s.stderr, approvalId);
  const done = await s.client.callTool(call);
  assert.match(done.content[0].text, /Successfully wrote/);
  assert.equal(readFileSync(target, "utf8"), "written once\n");
  const used = await refused(s.client.callTool(call));  // The approval was for one call.
  assert.equal(used.code, -32040);
  assert.notEqual(used.data.approval_id, approvalId);
  const taps = await s.close();
  assert.equal(writes(taps).length, 1, writes(taps).join("\n"));
  assert.ok(!existsSync(join(dir, "..", "escaped.txt")));
  checkPassThrough(taps);
});

test("server-filesystem: --await-approval holds the call until an operator approves", async () => {
  const { dir, policy } = workspace();
  const s = await proxied("filesystem-await", FILESYSTEM(dir),
                          { flags: ["--policy", policy, "--await-approval", "30"] });
  const target = join(dir, "awaited.txt");
  const call = s.client.callTool({ name: "write_file", arguments: { path: target, content: "approved\n" } },
                                 undefined, { timeout: 30000 });
  let id;
  for (let i = 0; i < 100 && !id; i++) {
    id = /needs approval (\S+); waiting/.exec(s.stderr())?.[1];
    if (!id) await sleep(50);
  }
  assert.ok(id, s.stderr());
  assert.ok(!existsSync(target));
  await approve(s.stderr, id);
  const done = await call;
  assert.match(done.content[0].text, /Successfully wrote/);
  assert.equal(readFileSync(target, "utf8"), "approved\n");
  const taps = await s.close();
  assert.equal(writes(taps).length, 1);
  checkPassThrough(taps);
});
