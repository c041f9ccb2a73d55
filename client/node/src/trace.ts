// W3C Trace Context on every RPC, so toolgate's spans join the caller's
// trace: `traceparent` / `tracestate` gRPC metadata from the span of the
// application's active OpenTelemetry context.
//
// @opentelemetry/api is an optional peer dependency: it is required on the
// first RPC and never again (an absent package costs one failed require per
// process, not one per call). Tracing never changes a call's result: an
// absent or broken API (a require that throws, a context that throws, a
// span context that is not valid W3C) sends no trace metadata, and the call
// goes on as if there were none.
import * as grpc from "@grpc/grpc-js";

// The longest tracestate toolgate keeps (core/trace/trace_context.h).
const MAX_TRACESTATE = 512;
const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;
const PRINTABLE = /^[\x20-\x7e]*$/;

interface Api {
  context: { active(): unknown };
  trace: { getSpanContext(ctx: unknown): any };
}

let api: Api | null | undefined; // undefined: not looked up yet.

function lookUp(): Api | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const found = require("@opentelemetry/api");
    return typeof found?.context?.active === "function" &&
      typeof found?.trace?.getSpanContext === "function" ? found : null;
  } catch {
    return null;
  }
}

/** The W3C headers of the active span: [] when there is none. */
export function traceHeaders(): [string, string][] {
  if (api === undefined) api = lookUp();
  if (api === null) return [];
  try {
    const sc = api.trace.getSpanContext(api.context.active());
    if (!sc || typeof sc.traceId !== "string" || typeof sc.spanId !== "string" ||
      !TRACE_ID.test(sc.traceId) || !SPAN_ID.test(sc.spanId) ||
      !Number.isInteger(sc.traceFlags)) {
      return [];
    }
    const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, "0");
    const headers: [string, string][] = [
      ["traceparent", `00-${sc.traceId}-${sc.spanId}-${flags}`]];
    const state = sc.traceState?.serialize?.();
    if (typeof state === "string" && state !== "" &&
      state.length <= MAX_TRACESTATE && PRINTABLE.test(state)) {
      headers.push(["tracestate", state]);
    }
    return headers;
  } catch {
    return [];
  }
}

/** `base` plus the trace headers; `base` itself when there are none. */
export function withTrace(base: grpc.Metadata): grpc.Metadata {
  const headers = traceHeaders();
  if (headers.length === 0) return base;
  const metadata = base.clone();
  for (const [key, value] of headers) metadata.set(key, value);
  return metadata;
}
