// Provider stream events -> ToolCallStreamRequest messages, as in the
// Python client (client/python/toolgate/_stream.py). An event is one SSE
// `data:` payload (the JSON text, or "[DONE]") or what an SDK stream yields
// for it (openai's ChatCompletionChunk / Responses events, @anthropic-ai/sdk
// stream events, Gemini chunks). The format is read from the first event
// unless given; an event no format claims leaves it UNSPECIFIED, which the
// sidecar refuses (a deny).
import { enumNumber } from "./proto";
import { toPlain } from "./outputs";

export type StreamFormatName =
  "openai_chat" | "openai_responses" | "anthropic_messages" | "gemini";

/** Events per stream message: fewer, larger messages cost less per event. */
export const BATCH = 32;

const ANTHROPIC_EVENTS = new Set(["message_start", "content_block_start",
  "content_block_delta", "content_block_stop", "message_delta", "message_stop",
  "ping", "error"]);

export function formatNumber(name: string): number {
  const n = ["openai_chat", "openai_responses", "anthropic_messages", "gemini"]
    .includes(name) ? enumNumber("StreamFormat", `STREAM_FORMAT_${name.toUpperCase()}`)
    : undefined;
  if (n === undefined) {
    throw new TypeError(`format: unknown value ${JSON.stringify(name)}`);
  }
  return n;
}

export function eventText(event: unknown): string {
  if (event instanceof Uint8Array) event = Buffer.from(event).toString("utf8");
  if (typeof event === "string") {
    const text = event.trim();
    return text.startsWith("data:") ? text.slice(5).trim() : text;
  }
  return JSON.stringify(toPlain(event));
}

export function detectFormat(text: string): StreamFormatName | undefined {
  let doc: any;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return undefined;
  const kind = doc.type;
  if (doc.object === "chat.completion.chunk" ||
      (Array.isArray(doc.choices) && kind === undefined)) return "openai_chat";
  if (typeof kind === "string" && kind.startsWith("response.")) return "openai_responses";
  if (ANTHROPIC_EVENTS.has(kind)) return "anthropic_messages";
  if ("candidates" in doc) return "gemini";
  return undefined;
}

/** The request messages for `events`, yielded as they arrive. */
export async function* streamRequests(scope: Record<string, string>,
  events: AsyncIterable<unknown> | Iterable<unknown>, format: string | undefined,
  repair: number, approvalId: string): AsyncGenerator<Record<string, unknown>> {
  let header: Record<string, unknown> | undefined;
  let batch: string[] = [];
  const start = (first?: string) => {
    const name = format ?? (first === undefined ? undefined : detectFormat(first));
    return { ...scope, repair, approval_id: approvalId,
      stream_format: name ? formatNumber(name) : 0 };
  };
  for await (const event of events as AsyncIterable<unknown>) {
    batch.push(eventText(event));
    header ??= start(batch[0]);
    if (batch.length === BATCH) {
      yield { ...header, events: batch };
      header = {};
      batch = [];
    }
  }
  yield { ...(header ?? start()), events: batch };
}
