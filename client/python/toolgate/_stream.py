"""Provider stream events -> ToolCallStreamRequest messages.

An event is what a provider sends as one SSE `data:` payload: the JSON text
itself, "[DONE]", or what an SDK's stream yields for it (a ChatCompletionChunk,
an Anthropic MessageStreamEvent, a Responses event, a Gemini chunk; read by
model_dump()/to_dict(), or dicts). The format is taken from the first event
when not given; an event no format claims leaves it UNSPECIFIED, which the
sidecar refuses (a deny).
"""
import json
from typing import Any, Iterable, Iterator, Optional

from toolgate import _outputs, _types
from toolgate.v1 import toolgate_pb2 as pb

# Events per stream message: fewer, larger messages cost less per event.
BATCH = 32

_FORMATS = {"openai_chat": "STREAM_FORMAT_OPENAI_CHAT",
            "openai_responses": "STREAM_FORMAT_OPENAI_RESPONSES",
            "anthropic_messages": "STREAM_FORMAT_ANTHROPIC_MESSAGES",
            "gemini": "STREAM_FORMAT_GEMINI"}
_ANTHROPIC_EVENTS = frozenset({
    "message_start", "content_block_start", "content_block_delta",
    "content_block_stop", "message_delta", "message_stop", "ping", "error"})


def format_number(name: str) -> int:
    """The StreamFormat number for "openai_chat", ... (ValueError if none)."""
    key = _FORMATS.get(name.lower())
    if key is None:
        raise ValueError(f"format must be one of {sorted(_FORMATS)}, "
                         f"not {name!r}")
    return pb.StreamFormat.Value(key)


def event_text(event: Any) -> str:
    """The SSE data payload for one event."""
    if isinstance(event, bytes):
        event = event.decode("utf-8", errors="replace")
    if isinstance(event, str):
        text = event.strip()
        return text[5:].strip() if text.startswith("data:") else text
    return json.dumps(_outputs.to_plain(event))


def detect_format(text: str) -> Optional[str]:
    """The format a first event belongs to, or None."""
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    kind = doc.get("type")
    if doc.get("object") == "chat.completion.chunk" or (
            isinstance(doc.get("choices"), list) and kind is None):
        return "openai_chat"
    if isinstance(kind, str) and kind.startswith("response."):
        return "openai_responses"
    if kind in _ANTHROPIC_EVENTS:
        return "anthropic_messages"
    if "candidates" in doc:
        return "gemini"
    return None


def _header(scope, fmt: Optional[str], first: Optional[str], repair: str,
            approval_id: str):
    if fmt is None and first is not None:
        fmt = detect_format(first)
    request = pb.ToolCallStreamRequest(
        repair=_types.repair_policy(repair), approval_id=approval_id,
        stream_format=format_number(fmt) if fmt else 0)
    scope.fill(request)
    return request


class _Batches:
    """The request stream's messages: the first names the run, the format
    and the policy; every message carries up to BATCH events."""

    def __init__(self, scope, fmt: Optional[str], repair: str,
                 approval_id: str):
        if fmt is not None:
            format_number(fmt)  # a misspelt format fails before any send
        self._args = (scope, fmt, repair, approval_id)
        self._batch, self._header = [], None

    def add(self, event: Any):
        """The message `event` completes, else None."""
        self._batch.append(event_text(event))
        if self._header is None:
            scope, fmt, repair, approval_id = self._args
            self._header = _header(scope, fmt, self._batch[0], repair,
                                   approval_id)
        if len(self._batch) < BATCH:
            return None
        self._header.events.extend(self._batch)
        full, self._header, self._batch = (
            self._header, pb.ToolCallStreamRequest(), [])
        return full

    def last(self):
        """The final message (the header alone when there was no event at
        all: the sidecar says so)."""
        if self._header is None:
            scope, fmt, repair, approval_id = self._args
            self._header = _header(scope, fmt, None, repair, approval_id)
        self._header.events.extend(self._batch)
        return self._header


def requests(scope, events: Iterable[Any], fmt: Optional[str], repair: str,
             approval_id: str) -> Iterator[Any]:
    """The request stream of `events` (see _Batches)."""
    batches = _Batches(scope, fmt, repair, approval_id)
    for event in events:
        full = batches.add(event)
        if full is not None:
            yield full
    yield batches.last()


async def async_requests(scope, events: Any, fmt: Optional[str], repair: str,
                         approval_id: str):
    """requests() for an async iterable (or a plain iterable)."""
    if not hasattr(events, "__aiter__"):
        for request in requests(scope, events, fmt, repair, approval_id):
            yield request
        return
    batches = _Batches(scope, fmt, repair, approval_id)
    async for event in events:
        full = batches.add(event)
        if full is not None:
            yield full
    yield batches.last()
