// Starts the real toolgate binary (TOOLGATE_SERVER, default the Bazel
// build) on a free port for a test file.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, "..", "..", "..");
export const SERVER = process.env.TOOLGATE_SERVER ??
  path.join(REPO, "bazel-bin/server/toolgate");
export const TOOLGATECTL = process.env.TOOLGATE_CTL ??
  path.join(REPO, "bazel-bin/client/toolgatectl");
export const MANIFEST = JSON.parse(readFileSync(
  path.join(REPO, "client/python/tests/manifest.json"), "utf8"));

export async function startServer(...flags) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolgate-node-"));
  const portFile = path.join(dir, "port");
  const proc = spawn(SERVER, ["--listen=127.0.0.1:0", `--port_file=${portFile}`,
    ...flags], { stdio: "ignore" });
  for (let i = 0; i < 600; i++) {
    if (existsSync(portFile)) {
      const port = readFileSync(portFile, "utf8").trim();
      if (port) return { target: `127.0.0.1:${port}`, stop: () => proc.kill() };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill();
  throw new Error(`toolgate did not start (${SERVER})`);
}

/** Approving needs the admin token on every listener, loopback included. */
export const ADMIN_TOKEN = "node-tests-admin-token";

/** A file holding ADMIN_TOKEN, for --admin_token_file. */
export function adminTokenFile() {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "toolgate-token-")), "token");
  writeFileSync(file, `${ADMIN_TOKEN}\n`, { mode: 0o600 });
  return file;
}
