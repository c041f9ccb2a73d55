// Helpers of the gateway tests: sessions through toolgatectl mcp-proxy
// (with a tap on both sides of the proxy) and direct ones, and the
// byte-for-byte pass-through check over the two taps' transcripts.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

export const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, "..", "..");
export const CTL = process.env.TOOLGATE_CTL ?? join(REPO, "bazel-bin/client/toolgatectl");
export const SERVER = process.env.TOOLGATE_SERVER ?? join(REPO, "bazel-bin/server/toolgate");
export const TAP = join(HERE, "tap.mjs");
export const OUT = process.env.MCP_TRANSCRIPTS ?? join(HERE, "transcripts");
export const EVERYTHING = [process.execPath, join(HERE, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"];
export const FILESYSTEM = (dir) => [process.execPath, join(HERE, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), dir];
export const HOSTILE = (scenario) => [process.execPath, join(HERE, "hostile_server.mjs"), scenario];
mkdirSync(OUT, { recursive: true });

const CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } };

function newClient(onSetup) {
  const client = new Client({ name: "toolgate-gateway-test", version: "1.0.0" }, { capabilities: CAPABILITIES });
  onSetup?.(client);
  return client;
}

// A session through the proxy. `name` names its transcripts.
// Without `serverTap` the server's side is not recorded (a 100 MB line
// through a recorder only measures the recorder).
export async function proxied(name, server, { flags = [], setup, serverTap = true } = {}) {
  const hostLog = join(OUT, `${name}.host.json`);
  const serverLog = join(OUT, `${name}.server.json`);
  const serverSide = serverTap ? [process.execPath, TAP, serverLog, "--", ...server] : server;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TAP, hostLog, "--", CTL, "mcp-proxy", "--server_binary", SERVER, ...flags,
           "--", ...serverSide],
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (b) => { stderr += b.toString(); });
  const client = newClient(setup);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async close() {
      await client.close();
      return { host: await readTap(hostLog), server: serverTap ? await readTap(serverLog) : undefined };
    },
  };
}

export async function direct(server, { setup } = {}) {
  const [command, ...args] = server;
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const client = newClient(setup);
  await client.connect(transport);
  return client;
}

export async function readTap(path) {
  for (let i = 0; i < 200 && !existsSync(path); i++) await sleep(50);
  const t = JSON.parse(readFileSync(path, "utf8"));
  return { ...t, in: Buffer.from(t.in, "base64"), out: Buffer.from(t.out, "base64") };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Complete lines (the bytes between newlines).
export function lines(buffer) {
  const all = buffer.toString("utf8").split("\n");
  all.pop();  // After the last "\n": not a line.
  return all;
}

function parse(line) {
  try { return JSON.parse(line); } catch { return undefined; }
}

function multiset(list) {
  const m = new Map();
  for (const x of list) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

function take(set, line) {
  const n = set.get(line) ?? 0;
  if (n === 0) return false;
  set.set(line, n - 1);
  return true;
}

const MAX_MESSAGE_BYTES = 4 << 20;  // mcp-proxy's default.
const isOwn = (id) => typeof id === "string" && id.startsWith("toolgate-mcp-proxy-");

// Every message passed through is the same bytes on the other side, and
// nothing reaches either side that its peer did not send, except what a
// decision produced: tools/calls (forwarded with validated arguments, or
// answered by the proxy), their results (checked), tools/list answers
// (filtered with --hide-refused-tools), cancellations of calls the server
// never got, and the proxy's own tools/list.
export function checkPassThrough({ host, server }, { hidden = false } = {}) {
  const refusedIds = new Set(lines(host.out).map(parse)
      .filter((m) => [-32700, -32600, -32602].includes(m?.error?.code) && m.error.data?.decision === "DENY")
      .map((m) => JSON.stringify(m.id)));
  // A batch is split: its messages travel on their own, canonical.
  const hostSent = lines(host.in).flatMap((l) => {
    const m = parse(l);
    return Array.isArray(m) ? m.map(canonical) : [l];
  });
  const serverGot = multiset(lines(server.in));
  const serverSent = lines(server.out), hostGot = multiset(lines(host.out));
  const calls = new Set(), lists = new Set();
  let passed = 0;
  for (const line of hostSent) {
    const m = parse(line);
    if (m?.method === "tools/call") {  // Decided (without an id: dropped).
      if ("id" in m) calls.add(JSON.stringify(m.id));
      continue;
    }
    if (m?.method === "notifications/cancelled") { take(serverGot, line); continue; }
    if (m?.method === "tools/list") lists.add(JSON.stringify(m.id));
    if (m === undefined || Array.isArray(m) || m.jsonrpc !== "2.0") continue;  // Refused.
    if ("id" in m && refusedIds.has(JSON.stringify(m.id))) continue;  // Refused.
    if (Buffer.byteLength(line) > MAX_MESSAGE_BYTES) continue;  // Refused.
    assert.ok(take(serverGot, line), `host -> server changed or lost: ${line.slice(0, 300)}`);
    passed++;
  }
  for (const [line, n] of serverGot) {
    if (n === 0) continue;
    const m = parse(line);
    const ok = (m?.method === "tools/call" && calls.has(JSON.stringify(m.id))) ||
               (m?.method === "tools/list" && isOwn(m.id)) ||
               isProxyError(m);  // The answer to a line of the server's it refused.
    assert.ok(ok, `the server got what the host never sent: ${line.slice(0, 300)}`);
  }
  const answered = new Set();
  for (const line of serverSent) {
    const m = parse(line);
    if (m === undefined || m.jsonrpc !== "2.0" || isOwn(m.id)) continue;
    const id = JSON.stringify(m.id);
    const response = "id" in m && !("method" in m);
    if (response && calls.has(id)) continue;  // Checked.
    if (hidden && response && lists.has(id)) continue;
    // Dropped: an answer to nothing the host asked, or a second answer.
    if (response && (!hostSentId(hostSent, m.id) || answered.has(id))) continue;
    if (response) answered.add(id);
    assert.ok(take(hostGot, line), `server -> host changed or lost: ${line.slice(0, 300)}`);
    passed++;
  }
  return passed;
}

// toolgate's canonical JSON for the values tests send: keys sorted.
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

function isProxyError(m) {
  return m?.id === null && m.error?.data?.decision === "DENY";
}

function hostSentId(hostSent, id) {
  const key = JSON.stringify(id);
  return hostSent.some((l) => { const m = parse(l); return m && "method" in m && JSON.stringify(m.id) === key; });
}

// The McpError a call was refused with.
export async function refused(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("expected the call to be refused");
}
