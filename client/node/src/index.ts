// @toolgate/client: a fail-closed client for the toolgate sidecar.
//
//   const gate = new Gate("127.0.0.1:50051");
//   const snapshot = await gate.createSnapshot(tools);
//   const run = await gate.openRun(snapshot, { model: "gpt-4.1" });
//   const decision = await run.validate(completion.choices[0].message);
//   if (decision.allowed) execute(decision.calls[0]);
//   await run.close();
//
// decision.allowed is true only for ALLOW; an RPC error, a deadline or an
// answer this client cannot read rejects the promise with DenyError. Every
// RPC carries the W3C trace context of the application's active
// OpenTelemetry span when the optional @opentelemetry/api is installed.
import * as grpc from "@grpc/grpc-js";
import { ToolGateClient, enumNumber } from "./proto";
import { modelOutput, toPlain } from "./outputs";
import { formatNumber, streamRequests } from "./stream";
import { withTrace } from "./trace";
import {
  ApprovalStateName, Call, Decision, DenyError, OutputCheck, Verdict,
  readApprovalState, readDecision, readOutputCheck, readVerdict,
} from "./types";

export * from "./types";
export { modelOutput, reshape, toPlain } from "./outputs";
export { parseExact } from "./exact_json";
export { detectFormat, eventText, StreamFormatName } from "./stream";

const ADMIN = new Set(["CreateSnapshot", "DeleteSnapshot", "DecideApproval",
  "ListApprovals"]);
const AWAIT_SLICE_MS = 30_000;

export interface GateOptions {
  /** grpc.credentials.createSsl(...) for TLS; plaintext when absent. */
  credentials?: grpc.ChannelCredentials;
  /** Sent as "authorization: Bearer ..." on admin calls. */
  adminToken?: string;
  /** Deadline of each call; past it the promise rejects with DenyError. */
  timeoutMs?: number;
  channelOptions?: grpc.ChannelOptions;
}

export interface OpenRunOptions {
  model?: string;
  context?: Record<string, string>;
  maxConsecutiveRejects?: number;
  protectedTexts?: string[];
}

function choice(prefix: string, type: string, value: string, what: string): number {
  const n = enumNumber(type, prefix + value.toUpperCase());
  if (n === undefined || value.toUpperCase() === "UNSPECIFIED") {
    throw new TypeError(`${what}: unknown value ${JSON.stringify(value)}`);
  }
  return n;
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(toPlain(value));
}

/** The callback of an RPC: an error (a deadline included) rejects with a
 * DenyError, never resolves. */
function settle(method: string, resolve: (r: any) => void,
  reject: (e: DenyError) => void) {
  return (err: grpc.ServiceError | null, response: any) => {
    if (err) {
      const code = grpc.status[err.code] ?? "UNKNOWN";
      reject(new DenyError(String(code), `${method}: ${err.details}`));
    } else {
      resolve(response);
    }
  };
}

export class Gate {
  readonly timeoutMs: number;
  private readonly client: grpc.Client & Record<string, Function>;
  private readonly admin: grpc.Metadata;

  constructor(target: string, options: GateOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.client = new ToolGateClient(target,
      options.credentials ?? grpc.credentials.createInsecure(),
      options.channelOptions) as any;
    this.admin = new grpc.Metadata();
    if (options.adminToken) {
      this.admin.set("authorization", `Bearer ${options.adminToken}`);
    }
  }

  /** @internal Every RPC: errors and deadlines become DenyError. */
  call(method: string, request: object, timeoutMs = this.timeoutMs): Promise<any> {
    const metadata = withTrace(ADMIN.has(method) ? this.admin : new grpc.Metadata());
    return new Promise((resolve, reject) => {
      this.client[method](request, metadata,
        { deadline: new Date(Date.now() + timeoutMs) },
        settle(method, resolve, reject));
    });
  }

  /** @internal A client-streaming RPC fed from an async generator; an
   * error in the source cancels the call (DenyError). */
  callStream(method: string, messages: AsyncGenerator<object>,
    timeoutMs: number): Promise<any> {
    return new Promise((resolve, reject) => {
      const call = this.client[method](withTrace(new grpc.Metadata()),
        { deadline: new Date(Date.now() + timeoutMs) },
        settle(method, resolve, reject));
      (async () => {
        for await (const m of messages) {
          if (!call.write(m)) await new Promise((r) => call.once("drain", r));
        }
        call.end();
      })().catch((e: Error) => {
        call.cancel();
        reject(new DenyError("CANCELLED", `${method}: the event source failed: ${e.message}`));
      });
    });
  }

  close(): void {
    this.client.close();
  }

  /** Compiles a manifest (object or JSON text); resolves to its id. */
  async createSnapshot(manifest: unknown,
    { format = "auto", name = "" }: { format?: string; name?: string } = {}): Promise<string> {
    const r = await this.call("CreateSnapshot", {
      manifest_json: text(manifest),
      format: choice("MANIFEST_FORMAT_", "ManifestFormat", format, "format"),
      name,
    });
    return r.snapshot_id;
  }

  /** A snapshot id as given, or the id of the newest snapshot so named. */
  async resolveSnapshot(snapshot: string): Promise<string> {
    if (snapshot.startsWith("sha256:")) return snapshot;
    return (await this.call("GetSnapshot", { name: snapshot })).snapshot_id;
  }

  /** Opens a run pinning a snapshot (id or name); close it when done. */
  async openRun(snapshot: string, options: OpenRunOptions = {}): Promise<Run> {
    const r = await this.call("OpenRun", {
      snapshot_id: await this.resolveSnapshot(snapshot),
      model: options.model ?? "",
      context: options.context ?? {},
      max_consecutive_rejects: options.maxConsecutiveRejects ?? 0,
      protected_texts: options.protectedTexts ?? [],
    });
    return new Run(this, r.snapshot_id, r.run_id, r.run_token);
  }

  /** Validates against a snapshot without a run (no breaker, approvals). */
  async stateless(snapshot: string): Promise<Run> {
    return new Run(this, await this.resolveSnapshot(snapshot), "", "");
  }

  /** Admin: approves or denies a pending approval; resolves to its state. */
  async decideApproval(approvalId: string,
    { approve, approver, reason = "" }: { approve: boolean; approver: string; reason?: string },
  ): Promise<ApprovalStateName> {
    const r = await this.call("DecideApproval", {
      approval_id: approvalId, approve, approver, reason });
    return readApprovalState(r.approval);
  }
}

export interface WrapOptions { tool?: string; checkOutput?: boolean; }

export class Run {
  private closed = false;
  private outputTools?: Set<string>;

  constructor(private readonly gate: Gate, readonly snapshotId: string,
    readonly runId: string, private readonly runToken: string) {}

  private scope(): Record<string, string> {
    return this.runId ? { run_id: this.runId, run_token: this.runToken }
      : { snapshot_id: this.snapshotId };
  }

  /** Closes the run once; later calls do nothing. */
  async close(): Promise<void> {
    if (this.closed || !this.runId) return;
    this.closed = true;
    await this.gate.call("CloseRun", this.scope());
  }

  /** Closes an open misformat breaker (after a human looked). */
  async reset(): Promise<void> {
    await this.gate.call("ResetRun", this.scope());
  }

  /** Decides whether the call(s) in `output` may run: an OpenAI message,
   * ChatCompletion, Responses output, an Anthropic Message or content
   * blocks, a Gemini response, or text. */
  async validate(output: unknown,
    { repair = "strict", approvalId = "" }: { repair?: string; approvalId?: string } = {},
  ): Promise<Decision> {
    const r = await this.gate.call("ValidateToolCall", {
      ...this.scope(), ...modelOutput(output),
      repair: choice("REPAIR_POLICY_", "RepairPolicy", repair, "repair"),
      approval_id: approvalId,
    });
    return readDecision(r);
  }

  /** Decides on a model's streamed output as it arrives: `events` is an
   * async iterable (an openai / @anthropic-ai/sdk stream as returned) or an
   * array of SSE data payloads ("[DONE]" included) or event objects.
   * format: openai_chat, openai_responses, anthropic_messages or gemini
   * (default: read from the first event). timeoutMs bounds the whole
   * stream (default 300 s). */
  async validateStream(events: AsyncIterable<unknown> | Iterable<unknown>,
    { format, repair = "strict", approvalId = "", timeoutMs = 300_000 }:
    { format?: string; repair?: string; approvalId?: string; timeoutMs?: number } = {},
  ): Promise<Decision> {
    if (format !== undefined) formatNumber(format);
    const r = await this.gate.callStream("ValidateToolCallStream", streamRequests(
      this.scope(), events, format,
      choice("REPAIR_POLICY_", "RepairPolicy", repair, "repair"), approvalId), timeoutMs);
    return readDecision(r);
  }

  /** Checks what a tool returned (object as JSON, string, bytes).
   * httpStatus -1 means the tool has no HTTP transport. */
  async checkOutput(tool: string, result: unknown,
    { contentType = "application/json", httpStatus = -1, mode = "fail_closed" }:
    { contentType?: string; httpStatus?: number; mode?: string } = {},
  ): Promise<OutputCheck> {
    const body = result instanceof Uint8Array ? Buffer.from(result)
      : Buffer.from(text(result), "utf8");
    const r = await this.gate.call("ValidateToolOutput", {
      ...this.scope(), tool_name: tool, content_type: contentType,
      http_status: httpStatus, body,
      mode: choice("OUTPUT_MODE_", "OutputMode", mode, "mode"),
    });
    return readOutputCheck(r);
  }

  /** Reads the verdict in the last fenced JSON block of `envelope`. */
  async extractVerdict(envelope: string,
    { resultSchema, repair = "strict" }: { resultSchema?: unknown; repair?: string } = {},
  ): Promise<Verdict> {
    const r = await this.gate.call("ExtractVerdict", {
      ...this.scope(), envelope,
      result_schema: resultSchema === undefined ? "" : text(resultSchema),
      repair: choice("REPAIR_POLICY_", "RepairPolicy", repair, "repair"),
    });
    return readVerdict(r);
  }

  /** Waits until a NEEDS_APPROVAL decision (or approval id) is decided:
   * APPROVED, DENIED, EXPIRED, USED, or PENDING after timeoutMs. Only
   * APPROVED lets the call run: validate the same output again with
   * { approvalId: decision.approvalId }. */
  async awaitApproval(decision: Decision | string,
    { timeoutMs = 300_000 }: { timeoutMs?: number } = {}): Promise<ApprovalStateName> {
    const approvalId = typeof decision === "string" ? decision : decision?.approvalId;
    if (!approvalId) {
      throw new DenyError("NO_APPROVAL",
        "no approval id to wait for (the decision was not NEEDS_APPROVAL in a run)");
    }
    const end = Date.now() + timeoutMs;
    for (;;) {
      const left = Math.max(0, end - Date.now());
      const wait = Math.min(left, AWAIT_SLICE_MS);
      const r = await this.gate.call("AwaitApproval", {
        run_id: this.runId, run_token: this.runToken, approval_id: approvalId,
        timeout_ms: wait }, wait + this.gate.timeoutMs);
      const state = readApprovalState(r);
      if (state !== "PENDING" || left <= wait) return state;
    }
  }

  /** Names of the snapshot's tools that declare an output_schema. */
  async outputSchemaTools(): Promise<Set<string>> {
    if (!this.outputTools) {
      const r = await this.gate.call("GetSnapshot", { snapshot_id: this.snapshotId });
      const manifest = JSON.parse(r.manifest_json);
      this.outputTools = new Set((manifest.tools || [])
        .filter((t: any) => t.output_schema != null).map((t: any) => t.name));
    }
    return this.outputTools;
  }

  /** gated(this, fn, options). */
  wrap<A extends Record<string, unknown>, R>(fn: (args: A) => R | Promise<R>,
    options: WrapOptions = {}): (args: A) => Promise<R> {
    return gated(this, fn, options);
  }
}

/** The one call a gated function may run with, or DenyError. */
function allowedCall(decision: Decision, tool: string): Call {
  if (!decision.allowed) {
    throw new DenyError("NOT_ALLOWED",
      `${tool}: ${decision.decision} ${decision.stopReason || decision.message}`.trim(),
      decision);
  }
  if (decision.calls.length !== 1 || decision.calls[0].name !== tool) {
    throw new DenyError("NOT_ALLOWED", `${tool}: ALLOW for a different call`, decision);
  }
  return decision.calls[0];
}

/** Wraps a tool function taking one arguments object: the arguments are
 * validated as a call of `tool` (default fn.name) first, and fn runs only
 * on ALLOW, with the canonical arguments. Its result is checked when the
 * tool declares an output_schema (or checkOutput is true); an INVALID
 * result rejects with DenyError instead of being returned. */
export function gated<A extends Record<string, unknown>, R>(run: Run,
  fn: (args: A) => R | Promise<R>, options: WrapOptions = {}): (args: A) => Promise<R> {
  const tool = options.tool || fn.name;
  if (!tool) throw new TypeError("gated: name the tool ({ tool })");
  return async (args: A) => {
    const decision = await run.validate({ role: "assistant", tool_calls: [{
      id: "call_gated", type: "function",
      function: { name: tool, arguments: JSON.stringify(toPlain(args)) } }] });
    const call = allowedCall(decision, tool);
    const result = await fn(call.arguments as A);
    const check = options.checkOutput ?? (await run.outputSchemaTools()).has(tool);
    if (check) {
      const verdict = await run.checkOutput(tool, result);
      if (!verdict.valid) {
        throw new DenyError("OUTPUT_INVALID", `${tool}: ${verdict.stopReason}`, verdict);
      }
    }
    return result;
  };
}
