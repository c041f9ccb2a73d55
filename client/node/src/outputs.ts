// Turns what agent code holds into a ValidateToolCall model_output, as in
// the Python client (client/python/toolgate/_outputs.py): the sidecar reads
// OpenAI chat messages or tool_calls arrays, Anthropic messages, MCP params
// and text; Responses items, Gemini responses, content blocks and whole
// completions are reshaped into those. The openai and @anthropic-ai/sdk
// packages return plain objects, so no SDK is imported. An unrecognised
// shape is sent as-is and the sidecar refuses it: a deny, never an allow.

type Json = any;

/** Plain JSON data: toJSON() honoured, undefined/null members dropped. */
export function toPlain(value: unknown): Json {
  if (value && typeof (value as any).toJSON === "function") {
    value = (value as any).toJSON();
  }
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === "object") {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined && v !== null) out[k] = toPlain(v);
    }
    return out;
  }
  return value;
}

function openaiMessage(text: string, toolCalls: Json[]): Json {
  const message: Json = { role: "assistant", tool_calls: toolCalls };
  if (text) message.content = text;
  return message;
}

function fromResponsesItems(items: Json[]): Json {
  const calls: Json[] = [];
  const texts: string[] = [];
  for (const item of items) {
    if (item.type === "function_call") {
      calls.push({ id: item.call_id ?? item.id ?? "", type: "function",
        function: { name: item.name, arguments: item.arguments } });
    } else if (item.type === "message") {
      for (const part of item.content || []) {
        if (part && typeof part.text === "string") texts.push(part.text);
      }
    } else if (item.type !== "reasoning") {
      return items;  // a call kind the sidecar cannot check: refused
    }
  }
  return openaiMessage(texts.join("\n"), calls);
}

function fromGeminiParts(parts: Json[]): Json {
  const calls: Json[] = [];
  const texts: string[] = [];
  parts.forEach((part, i) => {
    const call = part.functionCall ?? part.function_call;
    if (call) {
      calls.push({ id: call.id || `gemini_${i}`, type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } });
    } else if (typeof part.text === "string") {
      texts.push(part.text);
    }
  });
  return openaiMessage(texts.join("\n"), calls);
}

const ANTHROPIC_BLOCKS = new Set(["text", "tool_use", "thinking",
  "redacted_thinking", "server_tool_use"]);
const RESPONSES_ITEMS = new Set(["function_call", "message", "reasoning"]);

export function reshape(doc: Json): Json {
  if (Array.isArray(doc)) {
    if (doc.length && doc.every((b) => b && ANTHROPIC_BLOCKS.has(b.type))) {
      return { role: "assistant", content: doc };
    }
    if (doc.length && doc.every((i) => i && RESPONSES_ITEMS.has(i.type))) {
      return fromResponsesItems(doc);
    }
    return doc;
  }
  if (!doc || typeof doc !== "object") return doc;
  if (Array.isArray(doc.choices) && doc.choices.length) {
    return reshape(doc.choices[0].message ?? doc.choices[0]);
  }
  if (doc.object === "response" && Array.isArray(doc.output)) {
    return fromResponsesItems(doc.output);
  }
  if (Array.isArray(doc.candidates) && doc.candidates.length) {
    return fromGeminiParts(doc.candidates[0].content?.parts ?? []);
  }
  if (Array.isArray(doc.parts) && !("content" in doc)) {
    return fromGeminiParts(doc.parts);
  }
  if (doc.type === "message" && Array.isArray(doc.content)) {
    return { role: "assistant", content: doc.content };
  }
  if (doc.type === "function_call") return fromResponsesItems([doc]);
  if (doc.type === "tool_use") return { role: "assistant", content: [doc] };
  return doc;
}

/** The oneof member of a ValidateToolCallRequest for `value`. */
export function modelOutput(value: unknown): { text: string } | { native_json: string } {
  if (typeof value === "string") return { text: value };
  if (value instanceof Uint8Array) return { text: Buffer.from(value).toString("utf8") };
  return { native_json: JSON.stringify(reshape(toPlain(value))) };
}
