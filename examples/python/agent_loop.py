"""A complete agent loop on toolgate, with a scripted model (no network).

    python3 agent_loop.py --target 127.0.0.1:50051 --toolgatectl PATH \
        --admin_token_file FILE   (the approver's token, for toolgatectl)

Three runs, each printing one JSON line per decision:
  repair:   a call with a schema error -> REJECT (the repair prompt goes back
            to the model) -> the repaired call -> ALLOW -> the tool runs ->
            its output is checked -> the final answer's verdict is read.
  breaker:  a model that keeps misformatting -> REJECT ... -> STOP.
  approval: a destructive call -> NEEDS_APPROVAL -> a human approves with
            `toolgatectl --admin_token_file FILE approvals decide` -> the
            same call with the approval id -> ALLOW -> the tool runs.
Swap ScriptedModel for a real client (an OpenAI ChatCompletionMessage, an
Anthropic Message, ...): run.validate takes those as they are.
"""
import argparse
import json
import os
import subprocess
import sys
import threading

import toolgate

MANIFEST = {
    "toolgate": "v1",
    "tools": [{
        "name": "update_ticket",
        "description": "Change a ticket's priority.",
        "input_schema": {
            "type": "object",
            "properties": {
                "ticket_id": {"type": "string", "pattern": "^TCK-[0-9]{6}$"},
                "priority": {"enum": ["low", "normal", "high", "urgent"]}},
            "required": ["ticket_id", "priority"],
            "additionalProperties": False},
        "output_schema": {"type": "object", "required": ["ok"],
                          "properties": {"ok": {"type": "boolean"}}},
        "output_format": "json",
    }, {
        "name": "delete_ticket",
        "description": "Delete a ticket for good.",
        "input_schema": {
            "type": "object",
            "properties": {
                "ticket_id": {"type": "string", "pattern": "^TCK-[0-9]{6}$"}},
            "required": ["ticket_id"], "additionalProperties": False},
        "side_effect": "destructive",
        "policy": {"requires_approval": True},
    }],
    "settings": {"max_consecutive_rejects": 3},
}

# The tools themselves. They only ever see arguments toolgate allowed.
TOOLS = {
    "update_ticket": lambda ticket_id, priority: {"ok": True},
    "delete_ticket": lambda ticket_id: {"ok": True, "deleted": ticket_id},
}


def tool_call(name, arguments):
    """What a chat model answers when it calls a tool (OpenAI shape)."""
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_" + name, "type": "function",
        "function": {"name": name, "arguments": arguments}}]}


def answer(text):
    return {"role": "assistant", "content": text}


class ScriptedModel:
    """Answers from a script, in order; records what it was sent."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen = []

    def respond(self, messages):
        self.seen.append(messages[-1])
        return self.replies.pop(0)


def run_agent(run, model, emit, ask_human=None, max_turns=8):
    """The loop: ask the model, gate its call, run the tool, check the
    output, hand every refusal back, read the final verdict. ask_human is
    told the approval id of a call that needs one (page someone)."""
    messages = [{"role": "user", "content": "Escalate TCK-004242."}]
    for _ in range(max_turns):
        reply = model.respond(messages)
        messages.append(reply)
        if not reply.get("tool_calls"):
            verdict = run.extract_verdict(reply["content"])
            emit("extract_verdict", verdict.outcome)
            return verdict
        decision = run.validate(reply)
        emit("validate", decision.decision)
        if decision.decision == "NEEDS_APPROVAL":
            if ask_human:
                ask_human(decision.approval_id)
            state = run.await_approval(decision, timeout=30)
            emit("await_approval", state)
            if state != "APPROVED":
                return None
            decision = run.validate(reply, approval_id=decision.approval_id)
            emit("validate", decision.decision)
        if decision.decision == "STOP":
            return None  # the breaker is open: a human looks at this run
        if not decision.allowed:
            messages.append({"role": "tool", "content": decision.repair_prompt,
                             "tool_call_id": reply["tool_calls"][0]["id"]})
            continue
        for call in decision.calls:
            result = TOOLS[call.name](**call.arguments)
            emit("run_tool", call.name)
            check = run.check_output(call.name, result)
            emit("check_output", check.verdict)
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result) if check.valid
                             else "the tool's output was withheld"})
    return None


def approve_with_toolgatectl(toolgatectl, target, admin_token_file):
    """Plays the human: approves with the CLI, from another thread, while
    the agent waits in run.await_approval. Approving needs the server's
    admin token (never the agent's to hold)."""
    def approve(approval_id):
        env = dict(os.environ, TOOLGATE_ADDR=target)
        subprocess.run([toolgatectl, "--admin_token_file", admin_token_file,
                        "approvals", "decide",
                        "--approval", approval_id, "--decision", "approve",
                        "--approver", "oncall@example.com",
                        "--reason", "ticket is a duplicate"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
    return lambda approval_id: threading.Thread(
        target=approve, args=(approval_id,), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--toolgatectl", required=True)
    parser.add_argument("--admin_token_file", required=True,
                        help="the approver's credential (the human's)")
    args = parser.parse_args()

    def emitter(name):
        def emit(step, value):
            print(json.dumps({"run": name, "step": step, "value": value}),
                  flush=True)
        return emit

    with toolgate.Gate(args.target, timeout=10) as gate:
        snapshot = gate.create_snapshot(MANIFEST, name="agent-loop")

        model = ScriptedModel([
            tool_call("update_ticket",
                      '{"ticket_id": "TCK-004242", "priority": "critial"}'),
            tool_call("update_ticket",
                      '{"ticket_id": "TCK-004242", "priority": "urgent"}'),
            answer('Escalated.\n```json\n{"verdict": "pass", '
                   '"reason": "TCK-004242 is urgent now"}\n```'),
        ])
        with gate.open_run(snapshot, model="scripted") as run:
            run_agent(run, model, emitter("repair"))
        # The model was shown the repair prompt before it fixed the call.
        assert "tool_validation_failed" in model.seen[1]["content"]

        sloppy = tool_call("update_ticket", '{"ticket": 4242}')
        with gate.open_run(snapshot, model="scripted") as run:
            run_agent(run, ScriptedModel([sloppy] * 8), emitter("breaker"))

        model = ScriptedModel([
            tool_call("delete_ticket", '{"ticket_id": "TCK-000099"}'),
            answer('Deleted.\n```json\n{"verdict": "pass", '
                   '"reason": "TCK-000099 deleted after approval"}\n```'),
        ])
        with gate.open_run(snapshot, model="scripted") as run:
            run_agent(run, model, emitter("approval"),
                      ask_human=approve_with_toolgatectl(
                          args.toolgatectl, args.target,
                          args.admin_token_file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
