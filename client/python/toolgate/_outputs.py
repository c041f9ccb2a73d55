"""Turns what agent code holds into a ValidateToolCall model_output.

The sidecar reads OpenAI chat messages (or their tool_calls array),
Anthropic messages and MCP tools/call params as native JSON, and prose as
text. Everything else an agent holds (SDK objects, Responses output items,
Gemini responses, Anthropic content blocks) is reshaped here into one of
those, without importing any SDK: objects are read through model_dump() or
to_dict(). Anything unrecognised is still sent as-is, and the sidecar
refuses it (unrecognized_output), so an unknown shape is a deny, never an
allow.

The provider's stop signal travels with the calls: a completion's
finish_reason, an Anthropic message's stop_reason, a Gemini candidate's
finishReason and a Responses object's status are set beside the reshaped
message's members, so that the sidecar refuses an output that was cut
(length, max_tokens), refused or failed, as it refuses the stream of the
same content. Where the provider always sets the signal on a finished
response (those four envelopes), a missing one is sent as null: a response
still being generated, which the sidecar refuses too; a None signal at the
top level of a dict is kept as null for the same reason.
"""
import json
from typing import Any, Optional, Tuple

# (field name in the oneof, value): ("text", str) or ("native_json", str).
ModelOutput = Tuple[str, str]


_SCALARS = (str, int, float, bool)

# The members a provider says why its model stopped in (the sidecar reads
# them: README "Native output accepted"). At a dict's top level None is
# not dropped for them: a null signal says the response had not finished.
_SIGNALS = frozenset({"stop_reason", "finish_reason", "finishReason",
                      "status"})


def to_plain(value: Any) -> Any:
    """Returns value as dicts/lists/scalars, dropping None-valued keys."""
    if isinstance(value, _SCALARS):
        return value
    if type(value) is dict:  # the common case: no SDK object inside
        return {str(k): v if isinstance(v, _SCALARS) else to_plain(v)
                for k, v in value.items() if v is not None}
    if hasattr(value, "model_dump"):  # pydantic v2: openai, anthropic, genai
        try:
            # by_alias: the wire names (google-genai's camelCase).
            value = value.model_dump(mode="json", exclude_none=True,
                                     by_alias=True)
        except TypeError:
            value = value.model_dump()
    elif hasattr(value, "to_dict") and callable(value.to_dict):
        value = value.to_dict()  # google-generativeai, proto-plus
    elif hasattr(value, "dict") and callable(value.dict) and not isinstance(
            value, dict):
        value = value.dict()  # pydantic v1
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def _openai_message(text: str, tool_calls: list) -> dict:
    message = {"role": "assistant", "tool_calls": tool_calls}
    if text:
        message["content"] = text
    return message


def _with_signal(message: Any, key: str, value: Any) -> Any:
    """message with the provider's stop signal `key` beside its members
    (None: sent as null). A signal the message already carries with another
    value makes it null: two that disagree say nothing the sidecar may
    trust. A message reshape could not build (a list) is refused anyway."""
    if not isinstance(message, dict):
        return message
    message = dict(message)
    if key in message and message[key] != value:
        value = None
    message[key] = value
    return message


def _responses_status(items: list, status: Any) -> Any:
    """The status to send for Responses output items: the first item's that
    is not "completed" (a call still streaming or cut), else `status`."""
    for item in items:
        state = item.get("status") if isinstance(item, dict) else None
        if state is not None and state != "completed":
            return state
    return status


def _from_responses(items: list, status: Any = ...) -> Any:
    """Responses output items, with the response's status (`...`: none
    given, as for bare items) or an item's that is not completed."""
    message = _from_responses_items(items)
    status = _responses_status(items, status)
    return message if status is ... else _with_signal(message, "status",
                                                      status)


def _block_reason(doc: dict) -> Any:
    """A Gemini response's promptFeedback.blockReason (either spelling)."""
    feedback = doc.get("promptFeedback", doc.get("prompt_feedback"))
    if not isinstance(feedback, dict):
        return None
    return feedback.get("blockReason", feedback.get("block_reason"))


def _from_gemini_candidate(candidate: dict) -> Any:
    content = candidate.get("content") or {}
    message = _from_gemini_parts(content.get("parts") or [])
    return _with_signal(message, "finishReason", candidate.get(
        "finishReason", candidate.get("finish_reason")))


def _from_responses_items(items: list) -> Any:
    """OpenAI Responses output items -> an OpenAI chat message."""
    calls, texts = [], []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            calls.append({"id": item.get("call_id", item.get("id", "")),
                          "type": "function",
                          "function": {"name": item.get("name"),
                                       "arguments": item.get("arguments")}})
        elif kind == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
        elif kind != "reasoning":
            # A call kind the sidecar cannot check (custom_tool_call,
            # computer_call, ...): send it unchanged so it is refused.
            return items
    return _openai_message("\n".join(texts), calls)


def _from_gemini_parts(parts: list) -> Any:
    calls, texts = [], []
    for i, part in enumerate(parts):
        call = part.get("functionCall", part.get("function_call"))
        if call is not None:
            calls.append({"id": call.get("id") or f"gemini_{i}",
                          "type": "function",
                          "function": {"name": call.get("name"),
                                       "arguments": json.dumps(
                                           call.get("args", {}))}})
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    return _openai_message("\n".join(texts), calls)


def _is_responses_list(doc: list) -> bool:
    return bool(doc) and all(
        isinstance(i, dict) and i.get("type") in (
            "function_call", "message", "reasoning") for i in doc) and any(
        i.get("type") != "message" or i.get("role") == "assistant"
        for i in doc)


def _is_anthropic_blocks(doc: list) -> bool:
    return bool(doc) and all(
        isinstance(b, dict) and b.get("type") in (
            "text", "tool_use", "thinking", "redacted_thinking",
            "server_tool_use") for b in doc)


def reshape(doc: Any) -> Any:
    """Maps a plain provider document to a shape the sidecar reads."""
    if isinstance(doc, list):
        if _is_anthropic_blocks(doc):
            return {"role": "assistant", "content": doc}
        if _is_responses_list(doc):
            return _from_responses(doc)
        return doc  # an OpenAI tool_calls array, or refused
    if not isinstance(doc, dict):
        return doc
    choices = doc.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        choice = choices[0]
        return _with_signal(reshape(choice.get("message", choice)),
                            "finish_reason", choice.get("finish_reason"))
    if isinstance(doc.get("message"), dict) and "finish_reason" in doc:
        return _with_signal(reshape(doc["message"]), "finish_reason",
                            doc["finish_reason"])  # one Choice
    if doc.get("object") == "response" and isinstance(doc.get("output"), list):
        return _from_responses(doc["output"], doc.get("status"))
    candidates = doc.get("candidates")
    blocked = _block_reason(doc)
    if isinstance(candidates, list) and candidates and isinstance(
            candidates[0], dict):
        message = _from_gemini_candidate(candidates[0])
        if blocked is not None and isinstance(message, dict):
            message["promptFeedback"] = {"blockReason": blocked}
        return message
    if blocked is not None:  # a blocked prompt has no candidates
        return {"promptFeedback": {"blockReason": blocked}}
    content = doc.get("content")
    if isinstance(content, dict) and isinstance(content.get("parts"), list):
        return _from_gemini_candidate(doc)  # a Gemini Candidate
    if isinstance(doc.get("parts"), list) and "content" not in doc:
        return _from_gemini_parts(doc["parts"])
    if doc.get("type") == "message" and isinstance(content, list):
        return _with_signal({"role": "assistant", "content": content},
                            "stop_reason", doc.get("stop_reason"))  # Anthropic
    if doc.get("type") == "function_call":
        return _from_responses([doc])
    if doc.get("type") == "tool_use":
        return {"role": "assistant", "content": [doc]}
    return doc


def to_plain_output(value: Any) -> Any:
    """to_plain, keeping a dict's top-level stop signal that is None (as
    null: the response had not finished)."""
    plain = to_plain(value)
    if type(value) is dict and isinstance(plain, dict):
        for key in _SIGNALS:
            if key in value and value[key] is None:
                plain[key] = None
    return plain


def _plain_json(value: Any) -> Optional[str]:
    """The JSON text of a dict or list that is already what to_plain would
    return (top-level None values aside), else None.

    This is the hot path (a dict of an OpenAI message, "content": None): it
    skips the to_plain copy. json.dumps itself is the proof: it raises
    TypeError on an SDK object inside, and a "null" anywhere in the text
    means a nested None to_plain would have dropped (or only looks like
    one, inside a string): both take the full path.
    """
    doc = value
    if type(value) is dict:
        doc = {k: v for k, v in value.items()
               if v is not None or k in _SIGNALS}
    try:
        text = json.dumps(reshape(doc))
    except (TypeError, AttributeError, ValueError):
        return None  # an SDK object reshape or json could not read
    return None if "null" in text else text


def model_output(value: Any) -> ModelOutput:
    """Returns the oneof field and value for a ValidateToolCallRequest."""
    if isinstance(value, str):
        return ("text", value)
    if isinstance(value, bytes):
        return ("text", value.decode("utf-8", errors="replace"))
    if type(value) is dict or type(value) is list:
        text = _plain_json(value)
        if text is not None:
            return ("native_json", text)
    return ("native_json", json.dumps(reshape(to_plain_output(value))))
