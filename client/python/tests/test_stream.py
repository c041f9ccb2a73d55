"""validate_stream: a model's streamed output, event by event, in each
provider's format (tests/streams.json: SSE data payloads of one
update_ticket call per format), as text, as SDK-like objects, and through
toolgate.aio from an async iterator."""
import asyncio
import json
import os

import pytest

import toolgate
import toolgate.aio
from conftest import ADMIN_TOKEN

with open(os.path.join(os.path.dirname(__file__), "streams.json")) as f:
    STREAMS = json.load(f)
FORMATS = sorted(STREAMS["formats"])


class SdkEvent:
    """Stands in for an SDK stream event: only model_dump() is used."""

    def __init__(self, text):
        self._doc = json.loads(text)

    def model_dump(self, mode="python", exclude_none=False, by_alias=False):
        return self._doc


def objects(events):
    return [e if e == "[DONE]" else SdkEvent(e) for e in events]


@pytest.mark.parametrize("fmt", FORMATS)
def test_complete_stream_allows(gate, snapshot, fmt):
    events = STREAMS["formats"][fmt]["allow"]
    with gate.open_run(snapshot) as run:
        given = run.validate_stream(events, format=fmt)
        detected = run.validate_stream(iter(events))  # format from event 1
        sse = run.validate_stream("data: " + e for e in events)
        sdk = run.validate_stream(objects(events))
    for d in (given, detected, sse, sdk):
        assert d.decision == "ALLOW", d
        assert [(c.name, c.arguments) for c in d.calls] == [
            ("update_ticket", STREAMS["arguments"])]


@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_argument_rejects(gate, snapshot, fmt):
    with gate.open_run(snapshot) as run:
        d = run.validate_stream(STREAMS["formats"][fmt]["reject"])
    assert d.decision == "REJECT"
    assert [v.pointer for v in d.violations] == ["/priority"]
    assert d.repair_prompt


@pytest.mark.parametrize("fmt", FORMATS)
def test_truncated_stream_is_never_allowed(gate, snapshot, fmt):
    with gate.open_run(snapshot) as run:
        try:
            d = run.validate_stream(STREAMS["formats"][fmt]["truncated"])
        except toolgate.DenyError:
            return
    assert not d.allowed, d


def test_empty_and_unknown_streams_are_never_allowed(gate, snapshot):
    with gate.open_run(snapshot) as run:
        for events in ([], ['{"hello": "world"}'], ["not json"]):
            try:
                assert not run.validate_stream(events).allowed
            except toolgate.DenyError:
                pass


def test_failing_event_source_is_a_deny(gate, snapshot):
    def events():
        yield STREAMS["formats"]["openai_chat"]["allow"][0]
        raise ConnectionError("model stream broke")

    with gate.open_run(snapshot) as run:
        with pytest.raises(toolgate.DenyError):
            run.validate_stream(events())


def test_unknown_format_name(gate, snapshot):
    with gate.open_run(snapshot) as run:
        with pytest.raises(ValueError):
            run.validate_stream([], format="openai")


def test_many_events_cross_batches(gate, snapshot):
    events = STREAMS["formats"]["openai_chat"]["allow"]
    parts = [json.loads(e) for e in events[1:3]]
    args = "".join(p["choices"][0]["delta"]["tool_calls"][0]["function"]
                   ["arguments"] for p in parts)
    # The same arguments, one character per event: several batches.
    split = []
    for ch in args:
        c = parts[0]
        c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = ch
        split.append(json.dumps(c))
    stream = [events[0]] + split + events[3:]
    with gate.open_run(snapshot) as run:
        d = run.validate_stream(stream)
    assert len(stream) > 32  # BATCH: more than one stream message
    assert d.decision == "ALLOW", d
    assert d.calls[0].arguments == STREAMS["arguments"]


def test_async_iterable(server, manifest):
    async def source(events):
        for e in events:
            await asyncio.sleep(0)
            yield e

    async def go():
        async with toolgate.aio.Gate(server, admin_token=ADMIN_TOKEN) as gate:
            snap = await gate.create_snapshot(manifest)
            async with await gate.open_run(snap) as run:
                return [(await run.validate_stream(source(
                    STREAMS["formats"][f]["allow"]))).decision
                    for f in FORMATS]

    assert asyncio.run(go()) == ["ALLOW"] * len(FORMATS)
