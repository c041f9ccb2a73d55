// Result types and the fail-closed reading of every response: an enum
// value this client does not know, UNSPECIFIED included, throws DenyError
// (the server never sends one, so seeing one means something is wrong).
import { parseExact } from "./exact_json";
import { enumNames } from "./proto";

/** The call must not run. code: a gRPC status name (UNAVAILABLE,
 * DEADLINE_EXCEEDED, ...), UNSPECIFIED, UNKNOWN_ENUM, NOT_ALLOWED,
 * OUTPUT_INVALID, NO_APPROVAL, NO_CALLS or UNREADABLE. */
export class DenyError extends Error {
  readonly code: string;
  readonly detail: string;
  readonly decision: unknown;
  constructor(code: string, detail: string, decision: unknown = undefined) {
    super(`toolgate deny (${code}): ${detail}`);
    this.name = "DenyError";
    this.code = code;
    this.detail = detail;
    this.decision = decision;
  }
}

export interface Violation {
  code: string;
  tool: string;
  pointer: string;
  keyword: string;
  expected: string;
  received: string;
  message: string;
  schemaPointer: string;
  callIndex: number;
}

/** A validated call: execute `arguments` (canonical, policy applied). */
export interface Call {
  id: string;
  name: string;
  /** Exactly as validated: an integer beyond 2^53 - 1 is a BigInt. */
  arguments: Record<string, unknown>;
  argumentsJson: string;
  source: string;
  repairs: string[];
}

export type DecisionName = "ALLOW" | "REJECT" | "NEEDS_APPROVAL" | "STOP";

/** A ValidateToolCall answer; `allowed` is true only for ALLOW. */
export interface Decision {
  allowed: boolean;
  decision: DecisionName;
  calls: Call[];
  violations: Violation[];
  repairPrompt: string;
  approvalId: string;
  auditId: string;
  attempt: number;
  attemptsLeft: number;
  stopReason: string;
  message: string;
}

export interface Finding { code: string; pointer: string; excerpt: string; }

/** A ValidateToolOutput answer; `valid` is true only for VALID. */
export interface OutputCheck {
  valid: boolean;
  verdict: "VALID" | "INVALID";
  stopReason: string;
  safeMode: string;
  violations: Violation[];
  findings: Finding[];
  readOnly: boolean;
  auditId: string;
}

/** An ExtractVerdict answer; `passed` is true only for PASS. */
export interface Verdict {
  passed: boolean;
  outcome: "PASS" | "FAIL" | "REFUSED" | "CONTRACT_STOP";
  result: Record<string, unknown> | null;
  resultJson: string;
  stopReason: string;
  blocksFound: number;
  violations: Violation[];
  repairs: string[];
  auditId: string;
}

export type ApprovalStateName =
  "PENDING" | "APPROVED" | "DENIED" | "EXPIRED" | "USED";

const NAMES = {
  Decision: enumNames("Decision", "DECISION_"),
  OutputVerdict: enumNames("OutputVerdict", "OUTPUT_VERDICT_"),
  Outcome: enumNames("Outcome", "OUTCOME_"),
  ApprovalState: enumNames("ApprovalState", "APPROVAL_STATE_"),
};

function name(type: keyof typeof NAMES, value: unknown, what: string): string {
  const known = typeof value === "number" ? NAMES[type].get(value) : undefined;
  if (known === undefined) {
    throw new DenyError("UNKNOWN_ENUM", `${what} ${String(value)} is not known`);
  }
  if (known === "UNSPECIFIED") {
    throw new DenyError("UNSPECIFIED", `${what} is UNSPECIFIED`);
  }
  return known;
}

// Validated JSON (arguments, a verdict's result), read with every number
// as validated: an integer beyond 2^53 is a BigInt (exact_json.ts).
function parseJson(text: string, what: string): any {
  try {
    return parseExact(text);
  } catch (e) {
    throw new DenyError("UNREADABLE", `${what}: ${(e as Error).message}`);
  }
}

function violations(list: any[]): Violation[] {
  return (list || []).map((v) => ({
    code: v.code, tool: v.tool, pointer: v.pointer, keyword: v.keyword,
    expected: v.expected, received: v.received, message: v.message,
    schemaPointer: v.schema_pointer, callIndex: v.call_index,
  }));
}

export function readDecision(r: any): Decision {
  const decision = name("Decision", r.decision, "decision") as DecisionName;
  const calls: Call[] = (r.calls || []).map((c: any) => ({
    id: c.id, name: c.name,
    arguments: c.arguments_json ? parseJson(c.arguments_json, "arguments_json") : {},
    argumentsJson: c.arguments_json, source: c.source, repairs: c.repairs || [],
  }));
  if (decision === "ALLOW" && calls.length === 0) {
    throw new DenyError("NO_CALLS", "ALLOW without a call");
  }
  // An allowed call always carries its canonical arguments ("{}" at least):
  // a missing one must not read as "no arguments".
  if (decision === "ALLOW" && calls.some((c) => !c.argumentsJson || !c.name)) {
    throw new DenyError("UNREADABLE", "ALLOW with a call missing its name or arguments_json");
  }
  return {
    allowed: decision === "ALLOW", decision, calls,
    violations: violations(r.violations), repairPrompt: r.repair_prompt,
    approvalId: r.approval_id, auditId: r.audit_id, attempt: r.attempt,
    attemptsLeft: r.attempts_left, stopReason: r.stop_reason, message: r.message,
  };
}

export function readOutputCheck(r: any): OutputCheck {
  const verdict = name("OutputVerdict", r.verdict, "verdict") as OutputCheck["verdict"];
  return {
    valid: verdict === "VALID", verdict, stopReason: r.stop_reason,
    safeMode: r.safe_mode, violations: violations(r.violations),
    findings: (r.findings || []).map((f: any) => ({
      code: f.code, pointer: f.pointer, excerpt: f.excerpt })),
    readOnly: !!r.read_only, auditId: r.audit_id,
  };
}

export function readVerdict(r: any): Verdict {
  const outcome = name("Outcome", r.outcome, "outcome") as Verdict["outcome"];
  if (outcome === "PASS" && !r.result_json) {
    throw new DenyError("UNREADABLE", "PASS without a result_json");
  }
  return {
    passed: outcome === "PASS", outcome,
    result: r.result_json ? parseJson(r.result_json, "result_json") : null,
    resultJson: r.result_json, stopReason: r.stop_reason,
    blocksFound: r.blocks_found, violations: violations(r.violations),
    repairs: r.repairs || [], auditId: r.audit_id,
  };
}

export function readApprovalState(r: any): ApprovalStateName {
  return name("ApprovalState", r.state, "approval state") as ApprovalStateName;
}
