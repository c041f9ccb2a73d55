#!/usr/bin/python3
"""Writes the golden streams of tests/stream/golden from the specs below.

Each case is a stream in a provider's documented event shapes (OpenAI Chat
Completions and Responses streaming, Anthropic Messages streaming, Gemini
streamGenerateContent?alt=sse), written by hand here, and what toolgate must
make of it against manifest.openai.json: the assembly (or the stream's
refusal code), the decision and the violation codes. Files:
  <format>/<case>.sse            the stream as an SSE capture (data: lines)
  <format>/<case>.jsonl          ... or one event per line
  <format>/<case>.expected.json  {"assembly": ..., "decision", "codes"}
Run it again after editing a case; review the diff.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
W = '{"location":"Paris, France","unit":"celsius"}'
T = '{"timezone":"Europe/Paris"}'


def dump(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def split(text, *cuts):
    out, last = [], 0
    for c in cuts:
        out.append(text[last:c])
        last = c
    out.append(text[last:])
    return out


# ---- OpenAI Chat Completions ----
def chunk(delta=None, finish=None, choices=True):
    c = {"id": "chatcmpl-9x", "object": "chat.completion.chunk",
         "created": 1732600000, "model": "gpt-4o-2024-08-06",
         "system_fingerprint": "fp_1"}
    c["choices"] = [{"index": 0, "delta": delta or {}, "logprobs": None,
                     "finish_reason": finish}] if choices else []
    return c


def tc(index, args=None, id=None, name=None):
    f = {"index": index}
    if id:
        f.update(id=id, type="function")
    fn = {}
    if name:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    f["function"] = fn
    return chunk({"tool_calls": [f]})


def chat_call(index, id, name, args, cuts):
    parts = split(args, *cuts)
    return [tc(index, "", id, name)] + [tc(index, p) for p in parts]


ROLE = chunk({"role": "assistant", "content": None})
USAGE = dict(chunk(choices=False), usage={"prompt_tokens": 82,
             "completion_tokens": 17, "total_tokens": 99})
FIN = chunk(finish="tool_calls")


def weather_call(args=W):
    return {"name": "get_weather", "arguments": args}


CHAT = {
    "single_call": (
        [ROLE] + chat_call(0, "call_abc", "get_weather", W, [2, 13, 30])
        + [FIN, USAGE, "[DONE]"],
        {"calls": [dict(id="call_abc", **weather_call())]}, "ALLOW", []),
    "parallel_interleaved": (
        [ROLE, tc(0, "", "call_1", "get_weather"), tc(0, W[:12]),
         tc(1, "", "call_2", "get_time"), tc(1, T[:5]), tc(0, W[12:]),
         tc(1, T[5:]), FIN, "[DONE]"],
        {"calls": [dict(id="call_1", **weather_call()),
                   {"id": "call_2", "name": "get_time", "arguments": T}]},
        "ALLOW", []),
    "sdk_iterator_without_done": (
        [ROLE] + chat_call(0, "call_x", "get_time", T, [9]) + [FIN],
        {"calls": [{"id": "call_x", "name": "get_time", "arguments": T}]},
        "ALLOW", []),
    "text_then_call": (
        [ROLE, chunk({"content": "Let me check "}),
         chunk({"content": "the weather."})]
        + chat_call(0, "call_w", "get_weather", W, [20]) + [FIN],
        {"text": "Let me check the weather.",
         "calls": [dict(id="call_w", **weather_call())]}, "ALLOW", []),
    "text_tag_call": (
        [ROLE, chunk({"content": "<tool_call>{\"name\":\"get_ti"}),
         chunk({"content": "me\",\"arguments\":" + T + "}"}),
         chunk({"content": "</tool_call>"}), chunk(finish="stop"),
         "[DONE]"],
        {"text": "<tool_call>{\"name\":\"get_time\",\"arguments\":" + T +
         "}</tool_call>"}, "ALLOW", []),
    "text_only": (
        [ROLE, chunk({"content": "It is sunny in Paris."}),
         chunk(finish="stop"), "[DONE]"],
        {"text": "It is sunny in Paris."}, "REJECT", ["no_tool_call"]),
    "schema_violation": (
        [ROLE] + chat_call(0, "call_k", "get_weather",
                           '{"location":"Oslo","unit":"kelvin"}', [10])
        + [FIN, "[DONE]"],
        {"calls": [{"id": "call_k", "name": "get_weather",
                    "arguments": '{"location":"Oslo","unit":"kelvin"}'}]},
        "REJECT", ["invalid_arguments"]),
    "broken_arguments": (
        [ROLE] + chat_call(0, "call_b", "get_weather",
                           '{"location":"Oslo",}', [5]) + [FIN, "[DONE]"],
        {"calls": [{"id": "call_b", "name": "get_weather",
                    "arguments": '{"location":"Oslo",}'}]},
        "REJECT", ["invalid_json"]),
    "finish_length": (
        [ROLE] + chat_call(0, "call_l", "get_weather", W[:20], [10])
        + [chunk(finish="length"), "[DONE]"],
        {"error": "truncated_output"}, "REJECT", ["truncated_output"]),
    "content_filter": (
        [ROLE, chunk({"content": "Sure"}), chunk(finish="content_filter")],
        {"error": "truncated_output"}, "REJECT", ["truncated_output"]),
    "cut_mid_arguments": (
        [ROLE] + chat_call(0, "call_c", "get_weather", W[:25], [10]),
        {"error": "truncated_stream"}, "REJECT", ["truncated_stream"]),
    "done_before_finish": (
        [ROLE] + chat_call(0, "call_d", "get_weather", W, [10]) + ["[DONE]"],
        {"error": "truncated_stream"}, "REJECT", ["truncated_stream"]),
    "provider_error": (
        [ROLE, tc(0, "", "call_e", "get_weather"),
         {"error": {"message": "The server had an error while processing "
                    "your request.", "type": "server_error"}}],
        {"error": "stream_error"}, "REJECT", ["stream_error"]),
    "unknown_index": (
        [ROLE, tc(0, "", "call_u", "get_weather"), tc(1, '{"a":1}'), FIN],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
    "delta_after_finish": (
        [ROLE] + chat_call(0, "call_f", "get_weather", W, [10])
        + [FIN, tc(0, '{"x":1}')],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
    "not_json": (
        [ROLE, '{"id":"chatcmpl-9x","choices":[{"index":0,"delta":{'],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
    "mixed_formats": (
        [ROLE, {"type": "message_start", "message": {"content": []}}, FIN],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
}


# ---- OpenAI Responses ----
def rev(type, **kw):
    return dict(type=type, **kw)


def fc_item(i, call_id, name, args, cuts, status=True):
    item_id = "fc_%d" % i
    added = {"type": "function_call", "id": item_id, "call_id": call_id,
             "name": name, "arguments": "", "status": "in_progress"}
    ev = [rev("response.output_item.added", output_index=i, item=added)]
    for p in split(args, *cuts):
        ev.append(rev("response.function_call_arguments.delta",
                      item_id=item_id, output_index=i, delta=p))
    ev.append(rev("response.function_call_arguments.done", item_id=item_id,
                  output_index=i, arguments=args))
    done = dict(added, arguments=args, status="completed")
    ev.append(rev("response.output_item.done", output_index=i, item=done))
    return ev


def msg_item(i, text, cuts):
    ev = [rev("response.output_item.added", output_index=i,
              item={"type": "message", "id": "msg_1", "role": "assistant",
                    "status": "in_progress", "content": []}),
          rev("response.content_part.added", item_id="msg_1", output_index=i,
              content_index=0, part={"type": "output_text", "text": ""})]
    for p in split(text, *cuts):
        ev.append(rev("response.output_text.delta", item_id="msg_1",
                      output_index=i, content_index=0, delta=p))
    ev += [rev("response.output_text.done", item_id="msg_1", output_index=i,
               content_index=0, text=text),
           rev("response.content_part.done", item_id="msg_1", output_index=i,
               content_index=0, part={"type": "output_text", "text": text}),
           rev("response.output_item.done", output_index=i,
               item={"type": "message", "id": "msg_1", "role": "assistant",
                     "status": "completed",
                     "content": [{"type": "output_text", "text": text}]})]
    return ev


RESP = {"id": "resp_1", "object": "response", "status": "in_progress",
        "model": "gpt-4.1", "output": []}
START = [rev("response.created", response=RESP),
         rev("response.in_progress", response=RESP)]
DONE = rev("response.completed", response=dict(RESP, status="completed"))

RESPONSES = {
    "function_call": (
        START + fc_item(0, "call_w", "get_weather", W, [1, 14]) + [DONE],
        {"calls": [dict(id="call_w", **weather_call())]}, "ALLOW", []),
    "reasoning_then_parallel_calls": (
        START + [rev("response.output_item.added", output_index=0,
                     item={"type": "reasoning", "id": "rs_1", "summary": []}),
                 rev("response.output_item.done", output_index=0,
                     item={"type": "reasoning", "id": "rs_1", "summary": []})]
        + fc_item(1, "call_a", "get_weather", W, [7])
        + fc_item(2, "call_b", "get_time", T, [3]) + [DONE],
        {"calls": [dict(id="call_a", **weather_call()),
                   {"id": "call_b", "name": "get_time", "arguments": T}]},
        "ALLOW", []),
    "text_only": (
        START + msg_item(0, "It is sunny in Paris.", [6]) + [DONE],
        {"text": "It is sunny in Paris."}, "REJECT", ["no_tool_call"]),
    "incomplete_max_output_tokens": (
        START + fc_item(0, "call_i", "get_weather", W, [9])[:3]
        + [rev("response.incomplete", response=dict(
            RESP, status="incomplete",
            incomplete_details={"reason": "max_output_tokens"}))],
        {"error": "truncated_output"}, "REJECT", ["truncated_output"]),
    "failed": (
        START + [rev("response.failed", response=dict(
            RESP, status="failed",
            error={"code": "server_error", "message": "The model failed."}))],
        {"error": "stream_error"}, "REJECT", ["stream_error"]),
    "error_event": (
        START + [rev("error", code="rate_limit_exceeded",
                     message="Rate limit reached", param=None)],
        {"error": "stream_error"}, "REJECT", ["stream_error"]),
    "done_differs_from_deltas": (
        START + fc_item(0, "call_m", "get_weather", W, [9])[:3]
        + [rev("response.function_call_arguments.done", item_id="fc_0",
               output_index=0, arguments='{"location":"Rome"}')],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
    "cut_before_completed": (
        START + fc_item(0, "call_c", "get_weather", W, [9]),
        {"error": "truncated_stream"}, "REJECT", ["truncated_stream"]),
    "unassembled_item_type": (
        START + [rev("response.output_item.added", output_index=0,
                     item={"type": "custom_tool_call", "id": "ctc_1",
                           "call_id": "call_z", "name": "shell",
                           "input": ""})],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
}


# ---- Anthropic Messages ----
MSG = {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
       "model": "claude-sonnet-4-5", "stop_reason": None,
       "stop_sequence": None, "usage": {"input_tokens": 472,
                                        "output_tokens": 2}}


def an(type, **kw):
    return dict(type=type, **kw)


def text_block(i, text, cuts):
    ev = [an("content_block_start", index=i,
             content_block={"type": "text", "text": ""})]
    for p in split(text, *cuts):
        ev.append(an("content_block_delta", index=i,
                     delta={"type": "text_delta", "text": p}))
    return ev + [an("content_block_stop", index=i)]


def tool_block(i, id, name, args, cuts):
    ev = [an("content_block_start", index=i,
             content_block={"type": "tool_use", "id": id, "name": name,
                            "input": {}})]
    for p in (split(args, *cuts) if args else []):
        ev.append(an("content_block_delta", index=i,
                     delta={"type": "input_json_delta", "partial_json": p}))
    return ev + [an("content_block_stop", index=i)]


A_START = [an("message_start", message=MSG), an("ping")]


def a_stop(reason):
    return [an("message_delta", delta={"stop_reason": reason,
                                       "stop_sequence": None},
               usage={"output_tokens": 89}), an("message_stop")]


ANTHROPIC = {
    "text_and_tool_use": (
        A_START + text_block(0, "Okay, let's check the weather for Paris:",
                             [5]) + tool_block(1, "toolu_01", "get_weather",
                                               W, [0, 12, 30])
        + a_stop("tool_use"),
        {"text": "Okay, let's check the weather for Paris:",
         "calls": [dict(id="toolu_01", **weather_call())]}, "ALLOW", []),
    "parallel_tool_use": (
        A_START + tool_block(0, "toolu_a", "get_weather", W, [8])
        + tool_block(1, "toolu_b", "get_time", T, [4]) + a_stop("tool_use"),
        {"calls": [dict(id="toolu_a", **weather_call()),
                   {"id": "toolu_b", "name": "get_time", "arguments": T}]},
        "ALLOW", []),
    "tool_without_input": (
        A_START + tool_block(0, "toolu_n", "list_cities", "", [])
        + a_stop("tool_use"),
        {"calls": [{"id": "toolu_n", "name": "list_cities",
                    "arguments": "{}"}]}, "ALLOW", []),
    "thinking_then_tool_use": (
        A_START + [an("content_block_start", index=0,
                      content_block={"type": "thinking", "thinking": ""}),
                   an("content_block_delta", index=0,
                      delta={"type": "thinking_delta",
                             "thinking": "The user wants the time."}),
                   an("content_block_delta", index=0,
                      delta={"type": "signature_delta", "signature": "EqQB"}),
                   an("content_block_stop", index=0)]
        + tool_block(1, "toolu_t", "get_time", T, [10]) + a_stop("tool_use"),
        {"calls": [{"id": "toolu_t", "name": "get_time", "arguments": T}]},
        "ALLOW", []),
    "text_only": (
        A_START + text_block(0, "It is sunny in Paris.", [3])
        + a_stop("end_turn"),
        {"text": "It is sunny in Paris."}, "REJECT", ["no_tool_call"]),
    "max_tokens": (
        A_START + tool_block(0, "toolu_m", "get_weather", W[:15], [7])
        + a_stop("max_tokens"),
        {"error": "truncated_output"}, "REJECT", ["truncated_output"]),
    "overloaded_error": (
        A_START + tool_block(0, "toolu_o", "get_weather", W, [7])[:2]
        + [an("error", error={"type": "overloaded_error",
                              "message": "Overloaded"})],
        {"error": "stream_error"}, "REJECT", ["stream_error"]),
    "no_message_stop": (
        A_START + tool_block(0, "toolu_s", "get_weather", W, [7])
        + a_stop("tool_use")[:1],
        {"error": "truncated_stream"}, "REJECT", ["truncated_stream"]),
    "delta_for_unopened_block": (
        A_START + [an("content_block_delta", index=3,
                      delta={"type": "input_json_delta",
                             "partial_json": "{}"})],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
    "block_left_open": (
        A_START + tool_block(0, "toolu_x", "get_weather", W, [7])[:-1]
        + a_stop("tool_use"),
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
}


# ---- Gemini ----
def gem(parts=None, finish=None, usage=False):
    c = {"content": {"role": "model", "parts": parts or []}, "index": 0}
    if finish:
        c["finishReason"] = finish
    out = {"candidates": [c], "modelVersion": "gemini-2.5-flash",
           "responseId": "r1"}
    if usage:
        out["usageMetadata"] = {"promptTokenCount": 40,
                                "candidatesTokenCount": 12,
                                "totalTokenCount": 52}
    return out


def fcall(name, args):
    return {"functionCall": {"name": name, "args": args}}


WA = {"location": "Paris, France", "unit": "celsius"}
WC = '{"location":"Paris, France","unit":"celsius"}'
GEMINI = {
    "function_call": (
        [gem([fcall("get_weather", WA)], "STOP", usage=True)],
        {"calls": [{"name": "get_weather", "arguments": WC}]}, "ALLOW", []),
    "parallel_calls_across_chunks": (
        [gem([fcall("get_weather", WA)]),
         gem([fcall("get_time", {"timezone": "Europe/Paris"})], "STOP",
             usage=True)],
        {"calls": [{"name": "get_weather", "arguments": WC},
                   {"name": "get_time", "arguments": T}]}, "ALLOW", []),
    "text_then_call": (
        [gem([{"text": "I'll check "}]), gem([{"text": "the weather."}]),
         gem([fcall("get_weather", WA)], "STOP")],
        {"text": "I'll check the weather.",
         "calls": [{"name": "get_weather", "arguments": WC}]}, "ALLOW", []),
    "thought_then_call": (
        [gem([{"text": "Need the weather tool.", "thought": True}]),
         gem([dict(fcall("get_weather", WA), thoughtSignature="c2ln")],
             "STOP")],
        {"calls": [{"name": "get_weather", "arguments": WC}]}, "ALLOW", []),
    "text_only": (
        [gem([{"text": "It is sunny "}]), gem([{"text": "in Paris."}], "STOP")],
        {"text": "It is sunny in Paris."}, "REJECT", ["no_tool_call"]),
    "max_tokens": (
        [gem([{"text": "Let me"}]), gem([], "MAX_TOKENS", usage=True)],
        {"error": "truncated_output"}, "REJECT", ["truncated_output"]),
    "safety": (
        [gem([fcall("get_weather", WA)]), gem([], "SAFETY")],
        {"error": "stream_error"}, "REJECT", ["stream_error"]),
    "no_finish_reason": (
        [gem([fcall("get_weather", WA)])],
        {"error": "truncated_stream"}, "REJECT", ["truncated_stream"]),
    "candidate_after_stop": (
        [gem([fcall("get_weather", WA)], "STOP"),
         gem([fcall("get_time", {"timezone": "UTC"})])],
        {"error": "malformed_stream"}, "REJECT", ["malformed_stream"]),
}

FORMATS = {"openai_chat": (CHAT, "sse"),
           "openai_responses": (RESPONSES, "sse"),
           "anthropic_messages": (ANTHROPIC, "sse"),
           "gemini": (GEMINI, "jsonl")}


def write(fmt, name, events, assembly, decision, codes, style):
    d = os.path.join(HERE, fmt)
    os.makedirs(d, exist_ok=True)
    texts = [e if isinstance(e, str) else dump(e) for e in events]
    with open(os.path.join(d, name + "." + style), "w") as f:
        for e, t in zip(events, texts):
            if style == "jsonl":
                f.write(t + "\n")
            else:
                kind = e.get("type") if isinstance(e, dict) else None
                if kind and fmt != "openai_chat":
                    f.write("event: %s\n" % kind)
                f.write("data: %s\n\n" % t)
    with open(os.path.join(d, name + ".expected.json"), "w") as f:
        json.dump({"assembly": assembly, "decision": decision,
                   "codes": codes}, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    for fmt, (cases, style) in FORMATS.items():
        for name, (events, assembly, decision, codes) in cases.items():
            write(fmt, name, events, assembly, decision, codes, style)


if __name__ == "__main__":
    main()
