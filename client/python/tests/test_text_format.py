"""text_format: a run (or a request) declares its model family's call
syntax, and text is read in that grammar only."""
import asyncio

import pytest

import toolgate
import toolgate.aio
from conftest import ADMIN_TOKEN

PYTHONIC = "[update_ticket(ticket_id='TCK-004242', priority='urgent')]"
ARGS = {"priority": "urgent", "ticket_id": "TCK-004242"}


def test_run_reads_its_format(gate, snapshot):
    with gate.open_run(snapshot, text_format="pythonic") as run:
        d = run.validate(PYTHONIC)
        assert d.decision == "ALLOW"
        assert d.calls[0].source == "pythonic"
        assert d.calls[0].arguments == ARGS
        assert run.validate(PYTHONIC, text_format="PYTHONIC").decision == \
            "ALLOW"
        # A request may only repeat the run's format.
        with pytest.raises(toolgate.DenyError) as err:
            run.validate(PYTHONIC, text_format="mistral")
        assert err.value.code == "INVALID_ARGUMENT"
        # Another family's shape is refused, never read by a fallback.
        tag = ('<tool_call>{"name": "update_ticket", "arguments": '
               '{"ticket_id": "TCK-004242", "priority": "urgent"}}</tool_call>')
        assert run.validate(tag).decision == "REJECT"


def test_stateless_request_declares_its_format(gate, snapshot):
    run = gate.stateless(snapshot)
    assert run.validate(PYTHONIC, text_format="pythonic").decision == "ALLOW"
    assert run.validate(PYTHONIC).decision == "REJECT"  # Today's reading.
    d = run.validate("[update_ticket(ticket_id=__import__('os'))]",
                     text_format="pythonic")
    assert d.decision == "REJECT"
    assert d.violations[0].code == "malformed_tool_call"
    assert '"format":"pythonic"' in d.repair_prompt


@pytest.mark.parametrize("bad", ["llama", "unspecified", "", "TEXT_FORMAT_X"])
def test_unknown_format_names_are_refused_before_sending(gate, snapshot, bad):
    with pytest.raises(ValueError):
        gate.open_run(snapshot, text_format=bad)
    with pytest.raises(ValueError):
        gate.stateless(snapshot).validate(PYTHONIC, text_format=bad)


def test_async_open_run_takes_the_format(server, manifest):
    async def go():
        async with toolgate.aio.Gate(server, admin_token=ADMIN_TOKEN) as gate:
            await gate.create_snapshot(manifest, name="aio-formats")
            async with await gate.open_run("aio-formats",
                                           text_format="granite") as run:
                ok = await run.validate(
                    '<|tool_call|>[{"name": "update_ticket", "arguments": '
                    '{"ticket_id": "TCK-004242", "priority": "urgent"}}]')
                return ok.decision, ok.calls[0].source

    assert asyncio.run(go()) == ("ALLOW", "granite")
