"""admin_token: sent on admin calls only, as the server requires."""
import os
import tempfile

import pytest

import toolgate
from conftest import start_server


@pytest.fixture(scope="module")
def guarded():
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("s3cret-token\n")
    proc, target = start_server(tmp, "--admin_token_file=" + token_file)
    yield target
    proc.terminate()
    proc.wait(10)


def test_admin_call_without_token_is_refused(guarded, manifest):
    with toolgate.Gate(guarded) as gate:
        with pytest.raises(toolgate.DenyError) as e:
            gate.create_snapshot(manifest)
    assert e.value.code in ("UNAUTHENTICATED", "PERMISSION_DENIED")


@pytest.mark.parametrize("token", ["wrong", "s3cret-token "])
def test_wrong_token_is_refused(guarded, manifest, token):
    with toolgate.Gate(guarded, admin_token=token.strip() + "x") as gate:
        with pytest.raises(toolgate.DenyError):
            gate.create_snapshot(manifest)


def test_admin_token_lets_admin_calls_through(guarded, manifest):
    with toolgate.Gate(guarded, admin_token="s3cret-token") as gate:
        snapshot = gate.create_snapshot(manifest)
        with gate.open_run(snapshot) as run:  # not admin: no token needed
            asked = run.validate({"role": "assistant", "tool_calls": [{
                "id": "c", "type": "function", "function": {
                    "name": "delete_ticket",
                    "arguments": '{"ticket_id": "TCK-000001"}'}}]})
            assert gate.decide_approval(asked.approval_id, approve=True,
                                        approver="t") == "APPROVED"


DELETE = {"role": "assistant", "tool_calls": [{
    "id": "c", "type": "function", "function": {
        "name": "delete_ticket", "arguments": '{"ticket_id": "TCK-000002"}'}}]}


def test_approving_needs_the_token_even_on_loopback(guarded, manifest):
    with toolgate.Gate(guarded, admin_token="s3cret-token") as admin, \
            toolgate.Gate(guarded) as agent:
        snapshot = admin.create_snapshot(manifest)
        with agent.open_run(snapshot) as run:
            asked = run.validate(DELETE)
            assert asked.decision == "NEEDS_APPROVAL"
            for token in (None, "wrong"):
                with toolgate.Gate(guarded, admin_token=token) as other:
                    with pytest.raises(toolgate.DenyError) as e:
                        other.decide_approval(asked.approval_id, approve=True,
                                              approver="the agent")
                    assert e.value.code == "UNAUTHENTICATED"
            assert run.await_approval(asked, timeout=0) == "PENDING"
            assert admin.decide_approval(asked.approval_id, approve=True,
                                         approver="oncall") == "APPROVED"
            assert run.validate(
                DELETE, approval_id=asked.approval_id).decision == "ALLOW"


@pytest.fixture(scope="module")
def unguarded():
    tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
    proc, target = start_server(tmp)
    yield target
    proc.terminate()
    proc.wait(10)


def test_without_an_approver_credential_nobody_approves(unguarded, manifest):
    with toolgate.Gate(unguarded, admin_token="anything") as gate:
        # Loopback without a token: still admin for snapshots...
        with toolgate.Gate(unguarded) as agent:
            snapshot = agent.create_snapshot(manifest)
        with gate.open_run(snapshot) as run:
            asked = run.validate(DELETE)
            # ...but nobody, token or not, can approve.
            with pytest.raises(toolgate.DenyError) as e:
                gate.decide_approval(asked.approval_id, approve=True,
                                     approver="the agent")
            assert e.value.code == "PERMISSION_DENIED"
            assert "nobody can approve" in str(e.value)
            assert run.validate(
                DELETE, approval_id=asked.approval_id).decision == "REJECT"
