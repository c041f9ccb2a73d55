// A complete agent loop on @toolgate/client, with a scripted model (no
// network). The same three runs as examples/python/agent_loop.py:
//   repair:   schema error -> REJECT (repair prompt to the model) -> the
//             repaired call -> ALLOW -> tool runs -> output checked ->
//             the final answer's verdict is read.
//   breaker:  a model that keeps misformatting -> REJECT ... -> STOP.
//   approval: a destructive call -> NEEDS_APPROVAL -> a human approves with
//             `toolgatectl --admin_token_file FILE approvals decide`
//             -> ALLOW -> tool runs.
// Prints one JSON line per decision.
//
//   node dist/agent_loop.js --target 127.0.0.1:50051 --toolgatectl PATH \
//     --admin-token-file FILE   (the approver's token, for toolgatectl)
import { execFile } from "child_process";
import { Decision, Gate, Run } from "@toolgate/client";

const MANIFEST = {
  toolgate: "v1",
  tools: [{
    name: "update_ticket",
    description: "Change a ticket's priority.",
    input_schema: {
      type: "object",
      properties: {
        ticket_id: { type: "string", pattern: "^TCK-[0-9]{6}$" },
        priority: { enum: ["low", "normal", "high", "urgent"] },
      },
      required: ["ticket_id", "priority"],
      additionalProperties: false,
    },
    output_schema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } },
    output_format: "json",
  }, {
    name: "delete_ticket",
    description: "Delete a ticket for good.",
    input_schema: {
      type: "object",
      properties: { ticket_id: { type: "string", pattern: "^TCK-[0-9]{6}$" } },
      required: ["ticket_id"],
      additionalProperties: false,
    },
    side_effect: "destructive",
    policy: { requires_approval: true },
  }],
  settings: { max_consecutive_rejects: 3 },
};

// The tools. They only ever see arguments toolgate allowed.
const TOOLS: Record<string, (args: any) => unknown> = {
  update_ticket: () => ({ ok: true }),
  delete_ticket: ({ ticket_id }) => ({ ok: true, deleted: ticket_id }),
};

interface Message { role: string; content: string | null; tool_calls?: any[]; tool_call_id?: string; }

const toolCall = (name: string, args: string): Message => ({
  role: "assistant", content: null,
  tool_calls: [{ id: `call_${name}`, type: "function", function: { name, arguments: args } }],
});
const answer = (text: string): Message => ({ role: "assistant", content: text });

/** Answers from a script, in order; records what it was sent. */
class ScriptedModel {
  readonly seen: Message[] = [];
  constructor(private readonly replies: Message[]) {}
  async respond(messages: Message[]): Promise<Message> {
    this.seen.push(messages[messages.length - 1]);
    const reply = this.replies.shift();
    if (!reply) throw new Error("the script ran out");
    return reply;
  }
}

type Emit = (step: string, value: string) => void;

/** The loop: ask the model, gate its call, run the tool, check the
 * output, hand every refusal back, read the final verdict. askHuman is
 * told the approval id of a call that needs one (page someone). */
export async function runAgent(run: Run, model: ScriptedModel, emit: Emit,
  askHuman?: (approvalId: string) => void, maxTurns = 8): Promise<void> {
  const messages: Message[] = [{ role: "user", content: "Escalate TCK-004242." }];
  for (let turn = 0; turn < maxTurns; turn++) {
    const reply = await model.respond(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      const verdict = await run.extractVerdict(reply.content ?? "");
      emit("extract_verdict", verdict.outcome);
      return;
    }
    let decision: Decision = await run.validate(reply);
    emit("validate", decision.decision);
    if (decision.decision === "NEEDS_APPROVAL") {
      askHuman?.(decision.approvalId);
      const state = await run.awaitApproval(decision, { timeoutMs: 30_000 });
      emit("await_approval", state);
      if (state !== "APPROVED") return;
      decision = await run.validate(reply, { approvalId: decision.approvalId });
      emit("validate", decision.decision);
    }
    if (decision.decision === "STOP") return;  // breaker open: a human looks
    if (!decision.allowed) {
      messages.push({ role: "tool", content: decision.repairPrompt,
        tool_call_id: reply.tool_calls[0].id });
      continue;
    }
    for (const call of decision.calls) {
      const result = TOOLS[call.name](call.arguments);
      emit("run_tool", call.name);
      const check = await run.checkOutput(call.name, result);
      emit("check_output", check.verdict);
      messages.push({ role: "tool", tool_call_id: call.id,
        content: check.valid ? JSON.stringify(result) : "the tool's output was withheld" });
    }
  }
}

/** Plays the human: approves with the CLI while the agent waits. Approving
 * needs the server's admin token (never the agent's to hold). */
function approveWithToolgatectl(toolgatectl: string, target: string,
  adminTokenFile: string) {
  return (approvalId: string) => {
    execFile(toolgatectl, ["--admin_token_file", adminTokenFile,
      "approvals", "decide", "--approval", approvalId,
      "--decision", "approve", "--approver", "oncall@example.com",
      "--reason", "ticket is a duplicate"],
    { env: { ...process.env, TOOLGATE_ADDR: target } }, (err) => {
      if (err) console.error(`toolgatectl: ${err.message}`);
    });
  };
}

function flag(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || !process.argv[i + 1]) throw new Error(`give --${name}`);
  return process.argv[i + 1];
}

async function main(): Promise<void> {
  const target = flag("target");
  const toolgatectl = flag("toolgatectl");
  const adminTokenFile = flag("admin-token-file");
  const emitter = (name: string): Emit => (step, value) =>
    console.log(JSON.stringify({ run: name, step, value }));
  const gate = new Gate(target, { timeoutMs: 10_000 });
  try {
    const snapshot = await gate.createSnapshot(MANIFEST, { name: "agent-loop" });

    let model = new ScriptedModel([
      toolCall("update_ticket", '{"ticket_id": "TCK-004242", "priority": "critial"}'),
      toolCall("update_ticket", '{"ticket_id": "TCK-004242", "priority": "urgent"}'),
      answer('Escalated.\n```json\n{"verdict": "pass", "reason": "TCK-004242 is urgent now"}\n```'),
    ]);
    let run = await gate.openRun(snapshot, { model: "scripted" });
    await runAgent(run, model, emitter("repair")).finally(() => run.close());
    // The model was shown the repair prompt before it fixed the call.
    if (!String(model.seen[1].content).includes("tool_validation_failed")) {
      throw new Error("the model never saw the repair prompt");
    }

    const sloppy = toolCall("update_ticket", '{"ticket": 4242}');
    run = await gate.openRun(snapshot, { model: "scripted" });
    await runAgent(run, new ScriptedModel(Array(8).fill(sloppy)), emitter("breaker"))
      .finally(() => run.close());

    model = new ScriptedModel([
      toolCall("delete_ticket", '{"ticket_id": "TCK-000099"}'),
      answer('Deleted.\n```json\n{"verdict": "pass", "reason": "TCK-000099 deleted after approval"}\n```'),
    ]);
    run = await gate.openRun(snapshot, { model: "scripted" });
    await runAgent(run, model, emitter("approval"), approveWithToolgatectl(toolgatectl, target, adminTokenFile))
      .finally(() => run.close());
  } finally {
    gate.close();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
