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
        {"text": "No call."}]}}]}, "no_tool_call"),
    ("unknown dict", {"hello": "world"}, "unrecognized_output"),
    ("responses custom tool call", [{"type": "custom_tool_call",
                                     "name": "x", "input": "y"}], None),
    ("anthropic blocks, bad argument",
     [{"type": "tool_use", "id": "t", "name": "update_ticket",
       "input": {**ARGS, "priority": "asap"}}], "invalid_arguments"),
]


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
    full = json.dumps(_outputs.reshape(_outputs.to_plain(output)))
    assert _outputs.model_output(output) == ("native_json", full)
