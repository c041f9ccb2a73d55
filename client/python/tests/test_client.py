"""The blocking client against a real sidecar."""
import json

import pytest

import toolgate


def openai_call(name, arguments, call_id="call_1"):
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": call_id, "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


GOOD = {"ticket_id": "TCK-004242", "priority": "urgent"}


def test_snapshot_from_dict_text_and_name(gate, manifest, snapshot):
    assert snapshot.startswith("sha256:")
    assert gate.create_snapshot(json.dumps(manifest)) == snapshot
    assert gate.create_snapshot(manifest, format="toolgate") == snapshot
    assert gate.resolve_snapshot("client-tests") == snapshot
    with gate.open_run("client-tests", model="m") as run:
        assert run.snapshot_id == snapshot


def test_allow_gives_canonical_arguments(gate, snapshot):
    with gate.open_run(snapshot, model="m", context={"user": "u1"}) as run:
        d = run.validate(openai_call("update_ticket", GOOD))
    assert (d.allowed, d.decision) == (True, "ALLOW")
    assert [(c.name, c.arguments, c.source) for c in d.calls] == [
        ("update_ticket", GOOD, "openai_tool_calls")]
    assert d.audit_id and not d.violations


def test_reject_carries_violation_and_repair_prompt(gate, snapshot):
    with gate.open_run(snapshot) as run:
        d = run.validate(openai_call("update_ticket",
                                     {**GOOD, "priority": "critial"}))
    assert (d.allowed, d.decision) == (False, "REJECT")
    assert [(v.code, v.pointer, v.keyword) for v in d.violations] == [
        ("invalid_arguments", "/priority", "enum")]
    assert json.loads(d.repair_prompt)["error"] == "tool_validation_failed"
    assert (d.attempt, d.attempts_left) == (1, 2)


def test_breaker_stops_the_run(gate, snapshot):
    bad = openai_call("update_ticket", {"ticket_id": "nope", "priority": "x"})
    with gate.open_run(snapshot) as run:
        seen = [run.validate(bad).decision for _ in range(5)]
    # settings.max_consecutive_rejects is 3: the third reject opens it.
    assert seen == ["REJECT", "REJECT", "REJECT", "STOP", "STOP"]


def test_text_output_is_read_as_prose(gate, snapshot):
    with gate.open_run(snapshot) as run:
        d = run.validate('<tool_call>{"name": "update_ticket", "arguments": '
                         + json.dumps(GOOD) + "}</tool_call>")
    assert d.decision == "ALLOW" and d.calls[0].source == "tool_call_tag"


def test_closed_run_is_refused(gate, snapshot):
    run = gate.open_run(snapshot)
    run.close()
    run.close()  # idempotent
    with pytest.raises(toolgate.DenyError) as e:
        run.validate(openai_call("update_ticket", GOOD))
    assert e.value.code in ("NOT_FOUND", "FAILED_PRECONDITION",
                            "PERMISSION_DENIED")


def test_check_output(gate, snapshot):
    with gate.open_run(snapshot) as run:
        ok = run.check_output("get_weather", {"temp_c": 4.5})
        bad = run.check_output("get_weather", {"temp": "warm"})
        text = run.check_output("get_weather", "not json")
    assert (ok.valid, ok.verdict) == (True, "VALID")
    assert (bad.valid, bad.verdict) == (False, "INVALID")
    assert bad.violations and not text.valid


def test_extract_verdict(gate, snapshot):
    with gate.open_run(snapshot) as run:
        v = run.extract_verdict('Done.\n```json\n{"verdict": "pass", '
                                '"reason": "all tests green"}\n```')
        stop = run.extract_verdict("I think it passed.")
        custom = run.extract_verdict(
            '```json\n{"verdict": "fail", "ticket": "TCK-1"}\n```',
            result_schema={"type": "object", "required": ["verdict", "ticket"],
                           "properties": {"verdict": {"enum": ["pass", "fail"]}}})
    assert (v.passed, v.outcome, v.result) == (
        True, "PASS", {"verdict": "pass", "reason": "all tests green"})
    assert (stop.passed, stop.outcome, stop.result) == (
        False, "CONTRACT_STOP", None)
    assert (custom.passed, custom.outcome, custom.result) == (
        False, "FAIL", {"verdict": "fail", "ticket": "TCK-1"})


def test_approval_flow(gate, snapshot):
    call = openai_call("delete_ticket", {"ticket_id": "TCK-000001"})
    with gate.open_run(snapshot, model="m") as run:
        asked = run.validate(call)
        assert (asked.allowed, asked.decision) == (False, "NEEDS_APPROVAL")
        assert run.await_approval(asked, timeout=0) == "PENDING"
        assert gate.decide_approval(asked.approval_id, approve=True,
                                    approver="tests") == "APPROVED"
        assert run.await_approval(asked, timeout=5) == "APPROVED"
        d = run.validate(call, approval_id=asked.approval_id)
        assert d.decision == "ALLOW"
        assert run.await_approval(asked.approval_id, timeout=0) == "USED"
        again = run.validate(call, approval_id=asked.approval_id)
        assert again.decision == "REJECT"


def test_denied_approval(gate, snapshot):
    call = openai_call("delete_ticket", {"ticket_id": "TCK-000002"})
    with gate.open_run(snapshot) as run:
        asked = run.validate(call)
        gate.decide_approval(asked.approval_id, approve=False, approver="t")
        assert run.await_approval(asked) == "DENIED"
        assert run.validate(call, approval_id=asked.approval_id).decision \
            == "REJECT"


@pytest.mark.parametrize("bad", [
    {"format": "yaml"}, {"name": 3},
])
def test_bad_create_snapshot_arguments(gate, manifest, bad):
    with pytest.raises((ValueError, TypeError)):
        gate.create_snapshot(manifest, **bad)


def test_bad_manifest_is_a_deny_error_naming_the_problem(gate):
    with pytest.raises(toolgate.DenyError) as e:
        gate.create_snapshot({"toolgate": "v1", "tools": [
            {"name": "t", "input_schema": {"type": "nope"}}]})
    assert e.value.code == "INVALID_ARGUMENT" and "t" in e.value.detail


def test_await_approval_without_an_approval_id(gate, snapshot):
    with gate.open_run(snapshot) as run:
        d = run.validate(openai_call("update_ticket", GOOD))
        with pytest.raises(toolgate.DenyError) as e:
            run.await_approval(d)
    assert e.value.code == "NO_APPROVAL"


def test_unknown_snapshot_name(gate):
    with pytest.raises(toolgate.DenyError) as e:
        gate.open_run("no-such-name")
    assert e.value.code == "NOT_FOUND"


def test_stateless_scope(gate, snapshot):
    scope = gate.stateless(snapshot)
    assert scope.validate(openai_call("update_ticket", GOOD)).allowed
    scope.close()  # nothing to close
