"""gated / wrap: the tool function runs only on ALLOW."""
import pytest

import toolgate


def test_runs_on_allow_with_canonical_arguments(gate, snapshot):
    seen = []
    with gate.open_run(snapshot) as run:
        @toolgate.gated(run)
        def update_ticket(ticket_id, priority):
            seen.append((ticket_id, priority))
            return {"ok": True}

        assert update_ticket(priority="high", ticket_id="TCK-000123") == {
            "ok": True}
    assert seen == [("TCK-000123", "high")]


def test_never_runs_on_reject(gate, snapshot):
    seen = []
    with gate.open_run(snapshot) as run:
        fn = run.wrap(lambda **a: seen.append(a), tool="update_ticket")
        with pytest.raises(toolgate.DenyError) as e:
            fn(ticket_id="TCK-1", priority="high")
    assert seen == []
    assert e.value.code == "NOT_ALLOWED"
    assert e.value.decision.decision == "REJECT"
    assert e.value.decision.repair_prompt


def test_never_runs_on_needs_approval(gate, snapshot):
    seen = []
    with gate.open_run(snapshot) as run:
        @toolgate.gated(run, tool="delete_ticket")
        def delete(ticket_id):
            seen.append(ticket_id)

        with pytest.raises(toolgate.DenyError) as e:
            delete(ticket_id="TCK-000001")
    assert seen == [] and e.value.decision.decision == "NEEDS_APPROVAL"


def test_output_schema_checked(gate, snapshot):
    with gate.open_run(snapshot) as run:
        @toolgate.gated(run)
        def get_weather(city):
            return {"temp_c": 21} if city == "Oslo" else {"temp": "hot"}

        assert get_weather(city="Oslo") == {"temp_c": 21}
        with pytest.raises(toolgate.DenyError) as e:
            get_weather(city="Cairo")
    assert e.value.code == "OUTPUT_INVALID"
    assert e.value.decision.verdict == "INVALID"


def test_gate_wrap_stateless(gate, snapshot):
    fn = gate.wrap(lambda ticket_id, priority: priority, snapshot=snapshot,
                   tool="update_ticket")
    assert fn(ticket_id="TCK-000001", priority="low") == "low"
    with pytest.raises(toolgate.DenyError):
        fn(ticket_id="TCK-000001", priority="lowest")
