import { Gate } from "@toolgate/client";

const tools = [{ type: "function", function: { name: "update_ticket", parameters: {
  type: "object", properties: { priority: { enum: ["low", "high"] } },
  required: ["priority"], additionalProperties: false } } }];
const message = { role: "assistant", tool_calls: [{ id: "call_1", type: "function",
  function: { name: "update_ticket", arguments: '{"priority": "high"}' } }] };

const gate = new Gate(process.env.TOOLGATE_ADDR ?? "127.0.0.1:50051");
const snapshot = await gate.createSnapshot(tools); // OpenAI, Anthropic, MCP or toolgate format
const run = await gate.openRun(snapshot, { model: "gpt-4.1" });
const decision = await run.validate(message); // or completion.choices[0].message as the SDK returns it
if (decision.allowed) console.log("run", decision.calls[0].name, decision.calls[0].arguments);
else console.log(decision.decision, decision.repairPrompt); // hand back to the model
await run.close(); gate.close(); // errors and timeouts reject with DenyError, never allow
