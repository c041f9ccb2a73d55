"""A call runs with exactly the numbers toolgate validated: arguments_json
(and a verdict's result_json) is read into Python values equal to its
canonical text. Integers are exact in Python; a fraction or exponent is
the double whose shortest form is the number written (how the sidecar
writes every such number), and anything else is refused (DenyError)
rather than run as a value that was not validated."""
import json
from decimal import Decimal
from types import SimpleNamespace

import pytest

import toolgate
from toolgate import _types

NUMBERS = {
    "toolgate": "v1",
    "tools": [{
        "name": "set_value",
        "description": "Store a number.",
        "input_schema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "x": {"type": "number"}},
            "additionalProperties": False},
        "side_effect": "write"}]}


def _call(arguments):
    return {"role": "assistant", "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": "set_value", "arguments": arguments}}]}


@pytest.fixture()
def numbers(gate):
    return gate.create_snapshot(NUMBERS, name="numbers")


@pytest.mark.parametrize("written", [
    "9007199254740993", "-9007199254740993", "18446744073709551615",
    "-9223372036854775808", "9007199254740991", "0", "12345678901234567890",
])
def test_integers_run_as_validated(gate, numbers, written):
    with gate.open_run(numbers) as run:
        d = run.validate(_call('{"n": %s}' % written))
    assert d.decision == "ALLOW", d
    value = d.calls[0].arguments["n"]
    assert type(value) is int and value == int(written)
    assert d.calls[0].arguments_json == '{"n":%s}' % written


@pytest.mark.parametrize("written", [
    "0.1", "0.30000000000000004", "5e-324", "1.7976931348623157e308",
    "-0.0", "1e20", "2.5", "9007199254740994.0", "1e-7",
])
def test_fractions_run_as_validated(gate, numbers, written):
    with gate.open_run(numbers) as run:
        d = run.validate(_call('{"x": %s}' % written))
    assert d.decision == "ALLOW", d
    value = d.calls[0].arguments["x"]
    canonical = json.loads(d.calls[0].arguments_json,
                           parse_float=str)["x"]
    # The value run is the double the canonical text names, and that text
    # is the number the model wrote.
    assert type(value) is float
    assert Decimal(repr(value)) == Decimal(canonical) == Decimal(written)


def _read(arguments_json):
    call = SimpleNamespace(id="c", name="set_value",
                           arguments_json=arguments_json, source="s",
                           repairs=[])
    return _types.Call.read(call)


@pytest.mark.parametrize("arguments_json", [
    '{"x":0.10000000000000001}',  # reads as 0.1: not the number written
    '{"x":9007199254740992.5}',
    '{"x":1e400}',  # inf
    '{"x":1e-400}',  # 0.0
    '{"x":NaN}', '{"x":Infinity}', '{"x":-Infinity}',
    '{"x":[1, 3.14159265358979323846]}',
    '{"x":', '',
])
def test_a_number_that_would_change_is_refused(arguments_json):
    if not arguments_json:
        # No arguments_json at all: the ALLOW check refuses it
        # (Decision.read), Call.read reads it as no arguments.
        assert _read("").arguments == {}
        return
    with pytest.raises(toolgate.DenyError) as e:
        _read(arguments_json)
    assert e.value.code == "UNREADABLE"


def test_exact_numbers_read_unchanged():
    call = _read('{"a":[9007199254740993,0.1,5e-324,-0.0,1e+20,'
                 '"9007199254740993"],"b":{"c":1.5}}')
    assert call.arguments == {
        "a": [9007199254740993, 0.1, 5e-324, -0.0, 1e20,
              "9007199254740993"], "b": {"c": 1.5}}


def test_verdict_result_reads_exactly():
    reply = SimpleNamespace(outcome=1, result_json='{"n":9007199254740993}',
                            stop_reason="", blocks_found=1, violations=[],
                            repairs=[], audit_id="a")
    assert _types.Verdict.read(reply).result == {"n": 9007199254740993}
    reply.result_json = '{"n":0.10000000000000001}'
    with pytest.raises(toolgate.DenyError):
        _types.Verdict.read(reply)
