#!/usr/bin/python3
"""Writes cases.json: the request bodies and REST paths the differential
test (tests/mesh/reference_diff_test.py) sends to toolgate and to the
reference reader (read.mjs). Each is one a server could read otherwise than
a strict reader: duplicate keys, ids, numbers, encodings, batches, paths.

    tests/mesh/reference/make_cases.py    (then check.sh --update)
"""
import base64
import json
import os

TOOL = "echo"  # Any arguments (the test's snapshot).
ARGS = {"text": "hi"}


def msg(method="tools/call", call_id=1, params=None, **extra):
    m = {"jsonrpc": "2.0", "method": method}
    if call_id is not Ellipsis:
        m["id"] = call_id
    if params is not None:
        m["params"] = params
    m.update(extra)
    return m


def call(name=TOOL, args=None, call_id=1):
    return msg(call_id=call_id, params={"name": name,
                                        "arguments": args or ARGS})


def text(value):
    return json.dumps(value, separators=(",", ":"))


BODIES = {
    # Read the same by both.
    "single call": text(call()),
    "batch of one": text([call()]),
    "batch calls": text([call(call_id=1), call("transfer", {"amount": 5}, 2)]),
    "batch with ping and notification": text(
        [msg("ping", "p"), call(call_id=2),
         msg("notifications/progress", ..., {})]),
    "escaped method": '{"jsonrpc":"2.0","id":1,"method":"tools\\/c\\u0061ll",'
                      '"params":{"name":"echo","arguments":{"text":"hi"}}}',
    "whitespace around": "\n\t " + text(call()) + " \r\n",
    "numbers": text(call(args={"text": "hi", "n": [1e2, -0.0, 0.1, 2 ** 60,
                                                    -(2 ** 53) + 1]})),
    "nul and unicode": text(call(args={"text": "a\u0000b\u2028c\U0001F600"})),
    "proto key in arguments": '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                              '"params":{"name":"echo","arguments":'
                              '{"__proto__":{"admin":true},"text":"hi"}}}',
    "proto key in params": '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                           '"params":{"name":"echo","arguments":{"text":"hi"},'
                           '"__proto__":{"name":"transfer"}}}',
    "string and number ids": text([call(call_id=1), call(call_id="1")]),
    "meta in params": text(msg(params={"name": TOOL, "arguments": ARGS,
                                       "_meta": {"progressToken": 7}})),
    "extra member": text(msg(params={"name": TOOL, "arguments": ARGS},
                             extra=1)),
    "tools/call notification": text(msg(call_id=...,
                                        params={"name": TOOL,
                                                "arguments": ARGS})),
    # Read otherwise (or not at all) by the reference.
    "duplicate name": '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
                      '{"name":"echo","name":"transfer","arguments":{}}}',
    "duplicate method": '{"jsonrpc":"2.0","id":1,"method":"tools/list",'
                        '"method":"tools/call","params":{"name":"transfer",'
                        '"arguments":{}}}',
    "duplicate argument": '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                          '"params":{"name":"echo","arguments":'
                          '{"text":"hi","text":"bye"}}}',
    "duplicate id in batch": text([call(call_id=1), call("transfer",
                                                          {"amount": 1}, 1)]),
    "duplicate id with a ping": text([msg("ping", 1), call(call_id=1)]),
    "null id": text(call(call_id=None)),
    "fractional id": text(call(call_id=1.0)),
    "unsafe id": text(call(call_id=2 ** 53)),
    "huge id": text(call(call_id=2 ** 64 - 1)),
    "inexact integer": text(call(args={"text": "hi",
                                       "n": 9007199254740993})),
    "inexact negative": text(call(args={"text": "hi",
                                        "n": -(2 ** 63) + 1})),
    "bom": "\ufeff" + text(call()),
    "lone surrogate": '{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                      '"params":{"name":"ech\\ud800","arguments":{}}}',
    "nbsp around": "\u00a0" + text(call()),
    "trailing comma": text(call())[:-1] + ",}",
    "two documents": text(call()) + text(call("transfer", {"amount": 1})),
    "nested batch": text([[call()]]),
    "empty batch": "[]",
    "batch of 101 pings": text([msg("ping", i) for i in range(101)]),
    "method case": text(msg("Tools/Call", params={"name": TOOL,
                                                  "arguments": ARGS})),
    "version with space": text(call()).replace('"2.0"', '"2.0 "'),
    "params another shape": text(msg(params={"tool_calls": [{
        "id": "c", "type": "function", "function": {
            "name": "transfer", "arguments": "{}"}}]})),
    "params array": text(msg(params=[{"type": "function", "function": {
        "name": "transfer", "arguments": "{}"}}])),
    "response": text({"jsonrpc": "2.0", "id": 1, "result": {}}),
}

# Bytes that are not UTF-8 text as written, or a charset a server decodes.
RAW = {
    "invalid utf-8": (b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
                      b'"params":{"name":"ech\xff","arguments":{}}}', None),
}
CHARSETS = {
    "utf-7 hides another call": (
        text(call(args={"text": "+ACIAfQAsACI-name+ACI-:+ACI-transfer+ACIALAAi-"
                                 "z+ACI-:+AHsAIg-y+ACI-:+ACI-"})),
        "application/json; charset=utf-7"),
    "utf-16le": (text(call()), "application/json; charset=utf-16le"),
    "utf-8 named": (text(call()), "application/json; charset=UTF-8"),
    "latin1": (text(call(args={"text": "caf\u00e9"})),
               "application/json; charset=latin1"),
}

PATHS = ["/tools/echo", "/tools/ech%6F", "/tools/echo?x=1", "/tools/echo?",
         "/tools/echo#f", "/tools/echo?#", "/tools/echo%3Fx=1",
         "/tools/echo%23f", "/tools/%2e%2e", "/tools/%2E", "/tools/echo;a=b",
         "/tools/echo%3Ba=b", "/tools/echo%2Fx", "/tools/echo%252F",
         "/tools/echo/", "/tools//echo", "/tools/ECHO", "/tools/echo%",
         "/tools/echo%zz", "/tools/e%C3%A9", "/tools/e%FF", "/tools/echo%00",
         "/tools/a%5Cb", "/tools/echo%20", "/tools/%20echo"]


def main():
    cases = []
    for name, body in BODIES.items():
        cases.append({"name": name, "body_b64": base64.b64encode(
            body.encode("utf-8", "surrogatepass")).decode()})
    for name, (body, ctype) in RAW.items():
        cases.append({"name": name, "body_b64": base64.b64encode(body).decode()})
    for name, (body, ctype) in CHARSETS.items():
        cases.append({"name": name, "content_type": ctype,
                      "body_b64": base64.b64encode(body.encode()).decode()})
    for path in PATHS:
        cases.append({"name": "path " + path, "path": path})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "cases.json")
    with open(out, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
