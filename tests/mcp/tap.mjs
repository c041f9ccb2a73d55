// A transparent recorder: `node tap.mjs LOG -- COMMAND [ARGS...]` runs the
// command with its stdin and stdout relayed byte for byte, and writes
// what went each way to LOG (JSON: {"in": base64, "out": base64, "code",
// "signal", "vmhwm_kb"}) when the command exits, then exits as it did.
// Used on both sides of the proxy: what the host sent and got, and what the
// server got and sent, so pass-through is checked byte for byte.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { constants } from "node:os";

const [log, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  process.stderr.write("usage: tap.mjs LOG -- COMMAND [ARGS...]\n");
  process.exit(2);
}
const seen = { in: [], out: [] };
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
let peak = 0;
const sample = setInterval(() => {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
    if (m) peak = Math.max(peak, Number(m[1]));
  } catch {}
}, 20);
process.stdin.on("data", (b) => { seen.in.push(b); child.stdin.write(b); });
process.stdin.on("end", () => child.stdin.end());
child.stdin.on("error", () => {});
child.stdout.on("data", (b) => { seen.out.push(b); process.stdout.write(b); });
for (const sig of ["SIGTERM", "SIGINT"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => {
  clearInterval(sample);
  const finish = () => {
    writeFileSync(log, JSON.stringify({
      in: Buffer.concat(seen.in).toString("base64"),
      out: Buffer.concat(seen.out).toString("base64"),
      code, signal, vmhwm_kb: peak,
    }));
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  };
  // The last bytes of its stdout may still be in flight.
  if (child.stdout.readableEnded) finish(); else child.stdout.on("end", finish);
});
