"""toolgate.aio against a real sidecar: the same answers, awaited."""
import asyncio
import json

import pytest

import toolgate
import toolgate.aio
from conftest import ADMIN_TOKEN


def call(name, arguments):
    return {"role": "assistant", "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def test_async_run(server, manifest):
    async def go():
        async with toolgate.aio.Gate(server, admin_token=ADMIN_TOKEN) as gate:
            snap = await gate.create_snapshot(manifest, name="aio")
            async with await gate.open_run("aio", model="m") as run:
                ok = await run.validate(call("update_ticket", {
                    "ticket_id": "TCK-000001", "priority": "low"}))
                bad = await run.validate(call("update_ticket", {
                    "ticket_id": "TCK-000001", "priority": "lowest"}))
                out = await run.check_output("get_weather", {"temp_c": 1})
                verdict = await run.extract_verdict(
                    '```json\n{"verdict": "fail", "reason": "red"}\n```')
                asked = await run.validate(call("delete_ticket", {
                    "ticket_id": "TCK-000009"}))
                await gate.decide_approval(asked.approval_id, approve=True,
                                           approver="aio")
                state = await run.await_approval(asked, timeout=5)
                again = await run.validate(
                    call("delete_ticket", {"ticket_id": "TCK-000009"}),
                    approval_id=asked.approval_id)
            return (snap, ok.decision, bad.decision, out.verdict,
                    verdict.outcome, asked.decision, state, again.decision)

    snap, *decisions = asyncio.run(go())
    assert snap.startswith("sha256:")
    assert decisions == ["ALLOW", "REJECT", "VALID", "FAIL",
                         "NEEDS_APPROVAL", "APPROVED", "ALLOW"]


def test_async_gated(server, manifest):
    seen = []

    async def go():
        async with toolgate.aio.Gate(server, admin_token=ADMIN_TOKEN) as gate:
            snap = await gate.create_snapshot(manifest)
            async with await gate.open_run(snap) as run:
                @toolgate.aio.gated(run)
                async def get_weather(city):
                    seen.append(city)
                    return {"temp_c": 3}

                result = await get_weather(city="Oslo")
                with pytest.raises(toolgate.DenyError):
                    await get_weather(city="")
                return result

    assert asyncio.run(go()) == {"temp_c": 3}
    assert seen == ["Oslo"]
