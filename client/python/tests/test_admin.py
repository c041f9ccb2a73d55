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
