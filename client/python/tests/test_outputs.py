"""run.validate accepts what agent code holds: SDK objects (read by duck
typing, as the openai / anthropic / google-genai SDKs dump them), their
dicts and lists, and text. Each shape below is what the SDK's model_dump()
or to_dict() returns for a call of update_ticket."""
import json

import pytest

ARGS = {"ticket_id": "TCK-000777", "priority": "high"}
ARGS_JSON = json.dumps(ARGS)


class SdkObject:
    """Stands in for a pydantic SDK model: only model_dump() is used."""

    def __init__(self, dump):
        self._dump = dump

    def model_dump(self, mode="python", exclude_none=False, by_alias=False):
        if not exclude_none:
            return self._dump
        return {k: v for k, v in self._dump.items() if v is not None}


class ProtoPlusObject:
    """Stands in for google-generativeai's response: only to_dict()."""

    def __init__(self, d):
        self._d = d

    def to_dict(self):
        return self._d


OPENAI_MESSAGE = {
    "content": None, "refusal": None, "role": "assistant", "annotations": [],
    "audio": None, "function_call": None,
    "tool_calls": [{"id": "call_abc", "type": "function", "function": {
        "name": "update_ticket", "arguments": ARGS_JSON}}]}
OPENAI_COMPLETION = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 1,
    "model": "gpt-4.1", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "logprobs": None,
        "message": OPENAI_MESSAGE}],
    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
RESPONSES_ITEMS = [
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1",
     "name": "update_ticket", "arguments": ARGS_JSON, "status": "completed"}]
RESPONSES_RESPONSE = {"id": "resp_1", "object": "response",
                      "status": "completed", "model": "gpt-4.1",
                      "output": RESPONSES_ITEMS}
ANTHROPIC_BLOCKS = [
    {"type": "text", "text": "Raising the priority.", "citations": None},
    {"type": "tool_use", "id": "toolu_1", "name": "update_ticket",
     "input": ARGS}]
ANTHROPIC_MESSAGE = {
    "id": "msg_1", "type": "message", "role": "assistant",
    "model": "claude-sonnet-4", "content": ANTHROPIC_BLOCKS,
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 10, "output_tokens": 5}}
GENAI_RESPONSE = {  # google-genai (snake_case)
    "candidates": [{"content": {"role": "model", "parts": [
        {"function_call": {"name": "update_ticket", "args": ARGS}}]},
        "finish_reason": "STOP"}],
    "usage_metadata": {"total_token_count": 15}}
GEMINI_REST = {  # REST / google-generativeai to_dict (camelCase)
    "candidates": [{"content": {"role": "model", "parts": [
        {"text": "Updating."},
        {"functionCall": {"name": "update_ticket", "args": ARGS}}]},
        "finishReason": "STOP"}]}

ALLOWED = [
    ("openai message dict", OPENAI_MESSAGE, "openai_tool_calls"),
    ("openai ChatCompletionMessage", SdkObject(OPENAI_MESSAGE),
     "openai_tool_calls"),
    ("openai ChatCompletion", SdkObject(OPENAI_COMPLETION),
     "openai_tool_calls"),
    ("openai tool_calls list", OPENAI_MESSAGE["tool_calls"],
     "openai_tool_calls"),
    ("responses output items", [SdkObject(i) for i in RESPONSES_ITEMS],
     "openai_tool_calls"),
    ("responses Response", SdkObject(RESPONSES_RESPONSE),
     "openai_tool_calls"),
    ("responses function_call item", SdkObject(RESPONSES_ITEMS[1]),
     "openai_tool_calls"),
    ("anthropic Message", SdkObject(ANTHROPIC_MESSAGE), "anthropic_tool_use"),
    ("anthropic content blocks", [SdkObject(b) for b in ANTHROPIC_BLOCKS],
     "anthropic_tool_use"),
    ("anthropic tool_use block", SdkObject(ANTHROPIC_BLOCKS[1]),
     "anthropic_tool_use"),
    ("google-genai response", SdkObject(GENAI_RESPONSE), "openai_tool_calls"),
    ("gemini REST dict", GEMINI_REST, "openai_tool_calls"),
    ("google-generativeai to_dict", ProtoPlusObject(GEMINI_REST),
     "openai_tool_calls"),
    ("prose", "Calling it now.\n```json\n" + json.dumps(
        {"name": "update_ticket", "arguments": ARGS}) + "\n```",
     "fenced_block"),
]


def _with(doc, **members):
    out = dict(doc)
    out.update(members)
    return out


def _completion(finish_reason):
    choice = _with(OPENAI_COMPLETION["choices"][0],
                   finish_reason=finish_reason)
    return _with(OPENAI_COMPLETION, choices=[choice])


def _genai(finish_reason):
    candidate = _with(GENAI_RESPONSE["candidates"][0],
                      finish_reason=finish_reason)
    return _with(GENAI_RESPONSE, candidates=[candidate])


def _gemini_rest(**candidate_members):
    candidate = {"content": GEMINI_REST["candidates"][0]["content"]}
    candidate.update(candidate_members)
    return {"candidates": [candidate]}


# The provider's own stop signal is passed on (README "Native output
# accepted"): a call the model finished normally runs...
ALLOWED += [
    ("anthropic Message end_turn",
     SdkObject(_with(ANTHROPIC_MESSAGE, stop_reason="end_turn")),
     "anthropic_tool_use"),
    ("anthropic Message stop_sequence",
     _with(ANTHROPIC_MESSAGE, stop_reason="stop_sequence"),
     "anthropic_tool_use"),
    ("openai ChatCompletion stop", _completion("stop"), "openai_tool_calls"),
    ("openai Choice", SdkObject(OPENAI_COMPLETION["choices"][0]),
     "openai_tool_calls"),
    ("openai message with its finish_reason",
     _with(OPENAI_MESSAGE, finish_reason="tool_calls"), "openai_tool_calls"),
    ("gemini Candidate", _gemini_rest(finishReason="STOP")["candidates"][0],
     "openai_tool_calls"),
    ("responses items, every one completed",
     [_with(i, status="completed") for i in RESPONSES_ITEMS],
     "openai_tool_calls"),
]

@pytest.mark.parametrize("name,output,source", ALLOWED,
                         ids=[a[0] for a in ALLOWED])
def test_shapes_allow(gate, snapshot, name, output, source):
    with gate.open_run(snapshot) as run:
        d = run.validate(output)
    assert d.decision == "ALLOW", d
    assert [(c.name, c.arguments, c.source) for c in d.calls] == [
        ("update_ticket", ARGS, source)]


REFUSED = [
    ("gemini text only", {"candidates": [{"content": {"parts": [
        {"text": "No call."}]}, "finishReason": "STOP"}]}, "no_tool_call"),
    ("unknown dict", {"hello": "world"}, "unrecognized_output"),
    ("responses custom tool call", [{"type": "custom_tool_call",
                                     "name": "x", "input": "y"}], None),
    ("anthropic blocks, bad argument",
     [{"type": "tool_use", "id": "t", "name": "update_ticket",
       "input": {**ARGS, "priority": "asap"}}], "invalid_arguments"),
]


# ... one it cut, refused or failed does not, however whole its calls look:
# the code is the one a stream of the same content gets.
STOPPED = [
    ("anthropic max_tokens", SdkObject(_with(
        ANTHROPIC_MESSAGE, stop_reason="max_tokens")), "truncated_output"),
    ("anthropic max_tokens dict", _with(ANTHROPIC_MESSAGE,
                                        stop_reason="max_tokens"),
     "truncated_output"),
    ("anthropic pause_turn", _with(ANTHROPIC_MESSAGE, stop_reason="pause_turn"),
     "truncated_output"),
    ("anthropic context window", _with(
        ANTHROPIC_MESSAGE, stop_reason="model_context_window_exceeded"),
     "truncated_output"),
    ("anthropic refusal", _with(ANTHROPIC_MESSAGE, stop_reason="refusal"),
     "stream_error"),
    ("anthropic unknown stop_reason", _with(ANTHROPIC_MESSAGE,
                                            stop_reason="budget"),
     "unrecognized_output"),
    # A message still being generated: stop_reason None (dropped by
    # model_dump(exclude_none=True), or absent) is sent as null.
    ("anthropic stop_reason None", SdkObject(_with(
        ANTHROPIC_MESSAGE, stop_reason=None)), "truncated_output"),
    ("anthropic stop_reason None dict", _with(ANTHROPIC_MESSAGE,
                                              stop_reason=None),
     "truncated_output"),
    ("anthropic stop_reason absent",
     {k: v for k, v in ANTHROPIC_MESSAGE.items() if k != "stop_reason"},
     "truncated_output"),
    ("openai length", SdkObject(_completion("length")), "truncated_output"),
    ("openai length dict", _completion("length"), "truncated_output"),
    ("openai content_filter", _completion("content_filter"),
     "truncated_output"),
    ("openai finish_reason None", SdkObject(_completion(None)),
     "truncated_output"),
    ("openai Choice length", _completion("length")["choices"][0],
     "truncated_output"),
    ("openai function_call", _completion("function_call"),
     "unrecognized_output"),
    ("openai message, finish_reason length",
     _with(OPENAI_MESSAGE, finish_reason="length"), "truncated_output"),
    ("openai message, finish_reason None",
     _with(OPENAI_MESSAGE, finish_reason=None), "truncated_output"),
    ("responses incomplete", SdkObject(_with(
        RESPONSES_RESPONSE, status="incomplete",
        incomplete_details={"reason": "max_output_tokens"})),
     "truncated_output"),
    ("responses failed", _with(RESPONSES_RESPONSE, status="failed"),
     "stream_error"),
    ("responses in_progress", _with(RESPONSES_RESPONSE, status="in_progress"),
     "truncated_output"),
    ("responses status absent",
     {k: v for k, v in RESPONSES_RESPONSE.items() if k != "status"},
     "truncated_output"),
    ("responses item incomplete", [
        RESPONSES_ITEMS[0], _with(RESPONSES_ITEMS[1], status="incomplete")],
     "truncated_output"),
    ("responses item in_progress",
     SdkObject(_with(RESPONSES_ITEMS[1], status="in_progress")),
     "truncated_output"),
    ("google-genai MAX_TOKENS", SdkObject(_genai("MAX_TOKENS")),
     "truncated_output"),
    ("google-genai SAFETY", _genai("SAFETY"), "stream_error"),
    ("gemini MALFORMED_FUNCTION_CALL",
     _gemini_rest(finishReason="MALFORMED_FUNCTION_CALL"), "stream_error"),
    ("gemini RECITATION", _gemini_rest(finishReason="RECITATION"),
     "stream_error"),
    ("gemini no finishReason", _gemini_rest(), "truncated_output"),
    ("gemini Candidate MAX_TOKENS",
     _gemini_rest(finishReason="MAX_TOKENS")["candidates"][0],
     "truncated_output"),
    ("gemini prompt blocked", {"promptFeedback": {"blockReason": "SAFETY"}},
     "stream_error"),
    ("gemini prompt blocked, snake_case",
     {"prompt_feedback": {"block_reason": "OTHER"}, "candidates": []},
     "stream_error"),
]
REFUSED += STOPPED


@pytest.mark.parametrize("name,output,code", REFUSED,
                         ids=[r[0] for r in REFUSED])
def test_shapes_refused(gate, snapshot, name, output, code):
    with gate.open_run(snapshot) as run:
        d = run.validate(output)
    assert not d.allowed and d.decision == "REJECT"
    if code:
        assert code in [v.code for v in d.violations]


# model_output skips the to_plain copy for plain dicts and lists: whatever it
# sends must be byte for byte what the full path (to_plain, then reshape)
# sends, for every shape above and for the cases the fast path must leave to
# the full path (a None nested inside, an SDK object inside, "null" text).
SAME_TEXT = [o for _, o, _ in ALLOWED + REFUSED] + [
    {"role": "assistant", "content": "a null pointer", "tool_calls": None},
    {"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "index": None,
         "function": {"name": "update_ticket", "arguments": ARGS_JSON}}]},
    {"role": "assistant", "tool_calls": [SdkObject(
        OPENAI_MESSAGE["tool_calls"][0])]},
    {"choices": [SdkObject({"message": OPENAI_MESSAGE})]},
    [None, {"type": "tool_use", "input": ARGS}], (1, 2), {1: "one"},
]


@pytest.mark.parametrize("output", SAME_TEXT)
def test_model_output_matches_the_full_path(output):
    from toolgate import _outputs
    if isinstance(output, str):
        assert _outputs.model_output(output) == ("text", output)
        return
    full = json.dumps(_outputs.reshape(_outputs.to_plain_output(output)))
    assert _outputs.model_output(output) == ("native_json", full)


def test_reshape_passes_the_signal_on():
    from toolgate import _outputs
    assert _outputs.reshape(_completion("length"))["finish_reason"] == "length"
    assert _outputs.reshape(_with(ANTHROPIC_MESSAGE, stop_reason="refusal"))[
        "stop_reason"] == "refusal"
    assert _outputs.reshape(_gemini_rest(finishReason="SAFETY"))[
        "finishReason"] == "SAFETY"
    assert _outputs.reshape(_with(RESPONSES_RESPONSE, status="failed"))[
        "status"] == "failed"
    # Two signals that disagree say nothing to trust: null.
    choice = {"index": 0, "finish_reason": "stop",
              "message": _with(OPENAI_MESSAGE, finish_reason="length")}
    assert _outputs.reshape({"choices": [choice]})["finish_reason"] is None
    # A None argument is still dropped (as before); a None signal at the
    # top is kept.
    kind, text = _outputs.model_output(
        {"role": "assistant", "finish_reason": None, "content": [
            {"type": "tool_use", "id": "t", "name": "update_ticket",
             "input": {"ticket_id": "TCK-000777", "status": None}}]})
    assert json.loads(text)["finish_reason"] is None
    assert json.loads(text)["content"][0]["input"] == {
        "ticket_id": "TCK-000777"}
