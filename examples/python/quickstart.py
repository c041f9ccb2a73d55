import os, toolgate

tools = [{"type": "function", "function": {"name": "update_ticket", "parameters": {
    "type": "object", "properties": {"priority": {"enum": ["low", "high"]}},
    "required": ["priority"], "additionalProperties": False}}}]
message = {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    "function": {"name": "update_ticket", "arguments": '{"priority": "high"}'}}]}

gate = toolgate.Gate(os.environ.get("TOOLGATE_ADDR", "127.0.0.1:50051"))
snapshot = gate.create_snapshot(tools)  # OpenAI, Anthropic, MCP or toolgate format
with gate.open_run(snapshot, model="gpt-4.1") as run:
    decision = run.validate(message)  # or an SDK object: completion.choices[0].message
    if decision.allowed:  # True only for ALLOW; RPC errors and timeouts raise DenyError
        print("run", decision.calls[0].name, decision.calls[0].arguments)
    else:
        print(decision.decision, decision.repair_prompt)  # hand back to the model
