// A server that misbehaves on purpose (hostile_server.mjs) behind the
// proxy, driven by the SDK's client, and a raw host sending what no SDK
// would. Nothing the server does wrong reaches the host; nothing the host
// does wrong reaches the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { CTL, HOSTILE, OUT, SERVER, TAP, checkPassThrough, lines, proxied, readTap, refused, sleep } from "./lib.mjs";

const INVALID_TEXT = /toolgate withheld the answer of tool/;

async function rugPulled(s) {
  assert.equal((await s.client.listTools()).tools.length, 3);
  const first = await s.client.callTool({ name: "fetch", arguments: { url: "https://example.org" } });
  assert.match(first.content[0].text, /fetch ok/);
  // The server announced the change; calls wait until the proxy re-read the list.
}

test("rug pull: a changed tool and an added one are refused", async () => {
  const s = await proxied("hostile-rugpull", HOSTILE("rugpull"));
  await rugPulled(s);
  const changed = await refused(s.client.callTool({ name: "fetch", arguments: { url: "https://example.org" } }));
  assert.equal(changed.code, -32042);
  assert.equal(changed.data.reason, "tool_definition_changed");
  assert.equal(changed.data.tool, "fetch");
  assert.equal(changed.data.change, "changed");
  assert.match(changed.message, /fetch/);
  const added = await refused(s.client.callTool({ name: "exfil", arguments: {} }));
  assert.equal(added.data.reason, "tool_definition_changed");
  assert.equal(added.data.change, "added");
  const same = await s.client.callTool({ name: "weather", arguments: { city: "Oslo" } });
  assert.equal(same.structuredContent.celsius, 21);
  const listed = (await s.client.listTools()).tools;  // As the server sent it.
  assert.equal(listed.length, 4);
  const taps = await s.close();
  const calls = lines(taps.server.in).filter((l) => l.includes('"tools/call"'));
  assert.equal(calls.length, 2, calls.join("\n"));
  checkPassThrough(taps);
});

test("rug pull: --hide-refused-tools hides them from the host's list", async () => {
  const s = await proxied("hostile-rugpull-hide", HOSTILE("rugpull"), { flags: ["--hide-refused-tools"] });
  await rugPulled(s);
  await refused(s.client.callTool({ name: "fetch", arguments: { url: "x" } }));
  const listed = (await s.client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(listed, ["delete_everything", "weather"]);
  checkPassThrough(await s.close(), { hidden: true });
});

test("rug pull: --accept-tool-changes re-pins, and says so", async () => {
  const s = await proxied("hostile-rugpull-accept", HOSTILE("rugpull"), { flags: ["--accept-tool-changes"] });
  await rugPulled(s);
  await sleep(300);
  const again = await s.client.callTool({ name: "fetch", arguments: { url: "https://example.org" } });
  assert.match(again.content[0].text, /fetch ok/);
  const added = await s.client.callTool({ name: "exfil", arguments: {} });
  assert.match(added.content[0].text, /exfil ok/);
  assert.match(s.stderr(), /re-pinned \(--accept-tool-changes\)/);
  checkPassThrough(await s.close());
});

test("invalid structuredContent is withheld, and the kill switch counts it", async () => {
  const s = await proxied("hostile-structured", HOSTILE("structured"));
  await s.client.listTools();
  let last;
  for (let i = 0; i < 3; i++) {
    last = await s.client.callTool({ name: "weather", arguments: { city: "Oslo" } });
    assert.equal(last.isError, true);
    assert.match(last.content[0].text, INVALID_TEXT);
    assert.match(last.content[0].text, /output_schema at \/structuredContent\/celsius/);
  }
  assert.equal(last._meta["dev.toolgate/output"].decision, "INVALID");
  assert.equal(last._meta["dev.toolgate/output"].read_only, true);
  const blocked = await refused(s.client.callTool({ name: "delete_everything", arguments: {} }));
  assert.ok(JSON.stringify(blocked.data).includes("kill_switch_read_only"), JSON.stringify(blocked.data));
  const taps = await s.close();
  assert.ok(!taps.host.out.toString().includes('"celsius":"hot"'));
  assert.ok(!lines(taps.server.in).some((l) => l.includes("delete_everything")));
  checkPassThrough(taps);
});

test("an HTML error page as a tool's text never reaches the host", async () => {
  const s = await proxied("hostile-html", HOSTILE("html"));
  await s.client.listTools();
  const r = await s.client.callTool({ name: "fetch", arguments: { url: "https://example.org" } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /markup_in_string/);
  const taps = await s.close();
  assert.ok(!taps.host.out.toString().includes("502 Bad Gateway"));
  assert.ok(!taps.host.out.toString().includes("<script"));
  checkPassThrough(taps);
});

test("an answer to a call the proxy refused never reaches the host", async () => {
  const s = await proxied("hostile-late", HOSTILE("late"));
  await s.client.listTools();
  await s.client.callTool({ name: "fetch", arguments: { url: "a" } });
  await refused(s.client.callTool({ name: "fetch", arguments: { url: 5 } }));
  const r = await s.client.callTool({ name: "fetch", arguments: { url: "c" } });
  assert.match(r.content[0].text, /fetch ok/);
  const taps = await s.close();
  assert.ok(lines(taps.server.out).some((l) => l.includes("FORGED")));
  assert.ok(!taps.host.out.toString().includes("FORGED"));
  checkPassThrough(taps);
});

test("a server flooding stdout with non-JSON: nothing of it reaches the host, memory stays bounded", async () => {
  const s = await proxied("hostile-flood", HOSTILE("flood"));
  await s.client.listTools();
  const r = await s.client.callTool({ name: "fetch", arguments: { url: "a" } }, undefined, { timeout: 30000 });
  assert.match(r.content[0].text, /fetch ok/);
  const taps = await s.close();
  assert.ok(!taps.host.out.toString().includes("this is not JSON"));
  assert.ok(taps.host.vmhwm_kb < 64 * 1024, `proxy peak RSS ${taps.host.vmhwm_kb} kB`);
  assert.ok(s.stderr().split("\n").filter((l) => l.includes("not JSON")).length <= 20);
  checkPassThrough(taps);
});

test("a 100 MB line is never held or forwarded", async () => {
  const s = await proxied("hostile-bigline", HOSTILE("bigline"), { serverTap: false });
  await s.client.listTools();
  const r = await s.client.callTool({ name: "fetch", arguments: { url: "a" } }, undefined, { timeout: 30000 });
  assert.match(r.content[0].text, /fetch ok/);
  const taps = await s.close();
  assert.ok(taps.host.out.length < 1 << 20);
  assert.ok(!taps.host.out.toString().includes("xxxxxxxx"));
  assert.ok(taps.host.vmhwm_kb < 64 * 1024, `proxy peak RSS ${taps.host.vmhwm_kb} kB`);
  assert.match(s.stderr(), /longer than --max_message_bytes/);
});

test("a server that pages its tools is pinned from every page", async () => {
  const s = await proxied("hostile-paged", HOSTILE("paged"));
  const r = await s.client.callTool({ name: "delete_everything", arguments: {} });  // Page 3.
  assert.match(r.content[0].text, /delete_everything ok/);
  const bad = await refused(s.client.callTool({ name: "delete_everything", arguments: { x: 1 } }));
  assert.equal(bad.code, -32602);
  checkPassThrough(await s.close());
});

// A host speaking raw lines through the proxy (tap on both sides).
function rawSession(name, scenario, flags = []) {
  const hostLog = join(OUT, `${name}.host.json`);
  const serverLog = join(OUT, `${name}.server.json`);
  const proc = spawn(process.execPath, [TAP, hostLog, "--", CTL, "mcp-proxy", "--server_binary", SERVER,
                                        ...flags, "--", process.execPath, TAP, serverLog, "--", ...HOSTILE(scenario)],
                     { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (b) => { stderr += b; });
  const got = [];
  const waiters = [];
  createInterface({ input: proc.stdout }).on("line", (l) => {
    got.push(l);
    for (const w of waiters.splice(0)) w();
  });
  const send = (...ls) => proc.stdin.write(ls.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + "\n").join(""));
  const answer = async (id) => {
    for (let i = 0; i < 200; i++) {
      const hit = got.map((l) => JSON.parse(l)).find((m) => JSON.stringify(m.id) === JSON.stringify(id) && !("method" in m));
      if (hit) return hit;
      await new Promise((r) => { waiters.push(r); setTimeout(r, 50); });
    }
    assert.fail(`no answer for id ${JSON.stringify(id)}; got:\n${got.join("\n")}\n${stderr}`);
  };
  const exit = new Promise((r) => proc.on("exit", (code) => r(code)));
  const close = async () => {
    proc.stdin.end();
    const code = await exit;
    return { code, host: await readTap(hostLog), server: await readTap(serverLog) };
  };
  return { send, answer, got, close, exit, stderr: () => stderr };
}

const INIT = { jsonrpc: "2.0", id: 0, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const call = (id, name, args) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

test("raw host: what no JSON-RPC peer may send is answered by the proxy and never forwarded", async () => {
  const h = rawSession("raw-host-errors", "");
  h.send(INIT);
  await h.answer(0);
  h.send(INITIALIZED, "this is not json",
         // Two methods: which one is it? Refused whole (duplicate key).
         '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call","params":{"name":"delete_everything"}}',
         '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"fetch"}',
         { jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } },
         { jsonrpc: "2.0", method: "tools/call", params: { name: "delete_everything", arguments: {} } },
         { jsonrpc: "2.0", id: 4, method: "ping", result: {} },
         "[]",
         [call(5, "fetch", { url: "ok" }), call(6, "fetch", { url: 6 }), { jsonrpc: "2.0", id: 7, method: "ping" }],
         call(8, "weather", {}));
  const codes = {};
  for (const id of [2, 3, 4, 5, 6, 7, 8]) codes[id] = (await h.answer(id)).error?.code ?? "ok";
  assert.deepEqual(codes, { 2: -32602, 3: -32602, 4: -32600, 5: "ok", 6: -32602, 7: "ok", 8: -32602 });
  // Refused: its cancellation is not the server's business. Still being
  // decided: dropped, never forwarded, never answered.
  h.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } },
         call(9, "fetch", { url: "cancelled" }),
         { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } },
         { jsonrpc: "2.0", id: 10, method: "ping" });
  await h.answer(10);
  const nulls = () => h.got.map((l) => JSON.parse(l)).filter((m) => m.id === null).map((m) => m.error.code);
  assert.deepEqual(nulls(), [-32700, -32700, -32600]);  // Not JSON, duplicate key, "[]".
  const big = "x".repeat(5 << 20);
  h.send(`{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":"${big}"}}`, { jsonrpc: "2.0", id: 12, method: "ping" });
  await h.answer(12);
  assert.deepEqual(nulls(), [-32700, -32700, -32600, -32600]);  // Over --max_message_bytes.
  await sleep(300);
  assert.ok(!h.got.some((l) => JSON.parse(l).id === 9), "a cancelled call was answered");
  const t = await h.close();
  const serverGot = lines(t.server.in);
  assert.ok(!serverGot.some((l) => l.includes("delete_everything")), "a tools/call notification was forwarded");
  assert.ok(!serverGot.some((l) => l.includes("notifications/cancelled")), "a cancellation was forwarded");
  assert.ok(!serverGot.some((l) => l.includes("xxxxxxxx")));
  assert.deepEqual(serverGot.filter((l) => l.includes('"tools/call"')).map((l) => JSON.parse(l).id), [5]);
  checkPassThrough(t);
});

test("raw host: a server dying mid-call ends the proxy with its exit status", async () => {
  const h = rawSession("raw-host-die", "die");
  h.send(INIT);
  await h.answer(0);
  h.send(INITIALIZED, call(1, "fetch", { url: "a" }));
  assert.equal(await h.exit, 3);
  const t = await h.close();
  assert.equal(t.code, 3);
  assert.ok(!h.got.some((l) => l.includes('"id":1')));
});

test("raw host: SIGTERM goes to the server; the proxy exits with its status", async () => {
  const h = rawSession("raw-host-sigterm", "");
  h.send(INIT);
  await h.answer(0);
  const t0 = Date.now();
  const tap = h;  // The tap forwards SIGTERM to the proxy, which passes it on.
  tap.send(INITIALIZED);
  await sleep(200);
  const proxyExit = h.exit;
  process.kill(await proxyPid(h), "SIGTERM");
  assert.equal(await proxyExit, 143);
  assert.ok(Date.now() - t0 < 10000);
});

async function proxyPid(h) {
  // The tap's child is the proxy: find it by its command line.
  const { execFileSync } = await import("node:child_process");
  const out = execFileSync("pgrep", ["-f", `${CTL} mcp-proxy`]).toString().trim().split("\n");
  return Number(out[out.length - 1]);
}
