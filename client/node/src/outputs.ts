// Turns what agent code holds into a ValidateToolCall model_output, as in
// the Python client (client/python/toolgate/_outputs.py): the sidecar reads
// OpenAI chat messages or tool_calls arrays, Anthropic messages, MCP params
// and text; Responses items, Gemini responses, content blocks and whole
// completions are reshaped into those. The openai and @anthropic-ai/sdk
// packages return plain objects, so no SDK is imported. An unrecognised
// shape is sent as-is and the sidecar refuses it: a deny, never an allow.
//
// The provider's stop signal travels with the calls: a completion's
// finish_reason, an Anthropic message's stop_reason, a Gemini candidate's
// finishReason, a Responses object's status are set beside the reshaped
// message's members, and the sidecar refuses an output that was cut,
// refused or failed, as it refuses its stream. In those four envelopes the
// provider always sets the signal on a finished response, so a missing one
// is sent as null (still being generated: refused too), and a null signal
// at the top level of what the caller passed is kept.

type Json = any;

// The members a provider says why its model stopped in.
const SIGNALS = new Set(["stop_reason", "finish_reason", "finishReason", "status"]);

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

/** `message` with the stop signal `key` beside its members (undefined:
 * null). One it already carries with another value makes it null: two
 * that disagree say nothing to trust. A list (not reshaped) is refused
 * anyway. */
function withSignal(message: Json, key: string, value: Json): Json {
  if (!message || typeof message !== "object" || Array.isArray(message)) return message;
  let v = value ?? null;
  if (key in message && message[key] !== v) v = null;
  return { ...message, [key]: v };
}

// Responses items: the first item status that is not "completed" (a call
// still streaming, or cut), else `status` (undefined: none given).
function fromResponses(items: Json[], status?: Json): Json {
  const message = fromResponsesItems(items);
  for (const item of items) {
    const state = item?.status;
    if (state !== undefined && state !== null && state !== "completed") {
      return withSignal(message, "status", state);
    }
  }
  return status === undefined ? message : withSignal(message, "status", status);
}

function fromGeminiCandidate(candidate: Json): Json {
  return withSignal(fromGeminiParts(candidate.content?.parts ?? []), "finishReason",
    candidate.finishReason ?? candidate.finish_reason);
}

// A Gemini response's promptFeedback.blockReason (either spelling).
function blockReason(doc: Json): Json {
  const feedback = doc.promptFeedback ?? doc.prompt_feedback;
  if (!feedback || typeof feedback !== "object") return undefined;
  return feedback.blockReason ?? feedback.block_reason ?? undefined;
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
      return fromResponses(doc);
    }
    return doc;
  }
  if (!doc || typeof doc !== "object") return doc;
  if (Array.isArray(doc.choices) && doc.choices.length && doc.choices[0] &&
      typeof doc.choices[0] === "object") {
    const choice = doc.choices[0];
    return withSignal(reshape(choice.message ?? choice), "finish_reason",
      choice.finish_reason);
  }
  if (doc.message && typeof doc.message === "object" && "finish_reason" in doc) {
    return withSignal(reshape(doc.message), "finish_reason", doc.finish_reason);  // one choice
  }
  if (doc.object === "response" && Array.isArray(doc.output)) {
    return fromResponses(doc.output, doc.status ?? null);
  }
  const blocked = blockReason(doc);
  if (Array.isArray(doc.candidates) && doc.candidates.length && doc.candidates[0] &&
      typeof doc.candidates[0] === "object") {
    const message = fromGeminiCandidate(doc.candidates[0]);
    if (blocked !== undefined && message && !Array.isArray(message)) {
      message.promptFeedback = { blockReason: blocked };
    }
    return message;
  }
  if (blocked !== undefined) return { promptFeedback: { blockReason: blocked } };
  if (doc.content && typeof doc.content === "object" && !Array.isArray(doc.content) &&
      Array.isArray(doc.content.parts)) {
    return fromGeminiCandidate(doc);  // a Gemini Candidate
  }
  if (Array.isArray(doc.parts) && !("content" in doc)) {
    return fromGeminiParts(doc.parts);
  }
  if (doc.type === "message" && Array.isArray(doc.content)) {  // Anthropic
    return withSignal({ role: "assistant", content: doc.content }, "stop_reason",
      doc.stop_reason);
  }
  if (doc.type === "function_call") return fromResponses([doc]);
  if (doc.type === "tool_use") return { role: "assistant", content: [doc] };
  return doc;
}

/** toPlain, keeping a top-level stop signal that is null (the response had
 * not finished). */
function toPlainOutput(value: unknown): Json {
  const plain = toPlain(value);
  const top: any = value && typeof (value as any).toJSON === "function"
    ? (value as any).toJSON() : value;
  if (plain && typeof plain === "object" && !Array.isArray(plain) && top &&
      typeof top === "object") {
    for (const key of SIGNALS) {
      if (Object.prototype.hasOwnProperty.call(top, key) && top[key] === null) plain[key] = null;
    }
  }
  return plain;
}

/** The oneof member of a ValidateToolCallRequest for `value`. */
export function modelOutput(value: unknown): { text: string } | { native_json: string } {
  if (typeof value === "string") return { text: value };
  if (value instanceof Uint8Array) return { text: Buffer.from(value).toString("utf8") };
  return { native_json: JSON.stringify(reshape(toPlainOutput(value))) };
}
