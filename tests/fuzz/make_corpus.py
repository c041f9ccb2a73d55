#!/usr/bin/env python3
"""Regenerates tests/fuzz/corpus/<target>/ from the tests' own inputs.

Sources, per target:
  * the string literals of the unit and integration tests that exercise the
    component (C++ "..." and R"(...)" literals, adjacent literals joined,
    escapes decoded), so the seeds are exactly the inputs the tests feed;
  * the example manifests and result schema under schemas/;
  * for the schema targets, the JSON-Schema-Test-Suite (draft 2020-12 and
    draft-07) when it is present beside the repository (pass --suite);
  * a few seeds composed from the tests' constants (a call in a tag, a
    fence, a ReAct block; a verdict block), which the tests build by string
    concatenation and so have no single literal.

Targets with option bytes (see each *_fuzzer.cc) get each seed under a few
option values. Files are named by content hash, so rerunning is idempotent;
--clean removes seeds first. Run from anywhere:
  tests/fuzz/make_corpus.py [--suite DIR] [--clean]
"""

import argparse
import hashlib
import json
import os
import pathlib
import random
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
DEFAULT_SUITE = ROOT.parent / "shared" / "conformance" / "JSON-Schema-Test-Suite"

# Cap per target: enough variety, small enough to keep the repository and
# the replay tests light.
MAX_SEEDS = 500
MAX_SEED_BYTES = 8192

SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"',
    "'": "'", "?": "?", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
}


def decode_escapes(body):
    """Decodes a C++ string literal body into bytes (UTF-8 source)."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = body[i + 1]
        if n == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
            out.append(int(m.group(0), 16) & 0xFF)
            i += 2 + len(m.group(0))
        elif n in "uU":
            width = 4 if n == "u" else 8
            out += chr(int(body[i + 2:i + 2 + width], 16)).encode("utf-8", "surrogatepass")
            i += 2 + width
        elif n in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1:])
            out.append(int(m.group(0), 8) & 0xFF)
            i += 1 + len(m.group(0))
        else:
            out += SIMPLE_ESCAPES.get(n, n).encode("utf-8")
            i += 2
    return bytes(out)


TOKEN = re.compile(
    r"""(?P<comment>//[^\n]*|/\*.*?\*/)
      | (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\()
      | (?P<str>(?:u8|u|U|L)?"(?P<body>(?:[^"\\\n]|\\.)*)")
      | (?P<char>'(?:[^'\\\n]|\\.)*')
      | (?P<space>\s+)
      | (?P<other>.)""",
    re.S | re.X,
)


def string_literals(source):
    """Yields the C++ string literals of `source`, adjacent ones joined."""
    pos = 0
    current = None
    while pos < len(source):
        m = TOKEN.match(source, pos)
        kind = m.lastgroup
        if kind == "raw" or m.group("raw"):
            end_marker = ")" + m.group("delim") + '"'
            start = m.end()
            end = source.index(end_marker, start)
            piece = source[start:end].encode("utf-8")
            current = piece if current is None else current + piece
            pos = end + len(end_marker)
            continue
        if m.group("str") is not None:
            piece = decode_escapes(m.group("body"))
            current = piece if current is None else current + piece
        elif m.group("comment") is None and m.group("space") is None:
            if current is not None:
                yield current
            current = None
        pos = m.end()
    if current is not None:
        yield current


def literals_of(*paths):
    seeds = []
    for p in paths:
        seeds.extend(string_literals((ROOT / p).read_text(encoding="utf-8")))
    return [s for s in seeds if len(s) >= 2]


def parses_as_json(data):
    try:
        json.loads(data.decode("utf-8"))
        return True
    except (UnicodeDecodeError, ValueError):
        return False


def is_schema(data):
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(value, (dict, bool))


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def suite_cases(suite):
    """(option byte for the dialect, schema, [instances]) from the suite."""
    cases = []
    if suite is None or not suite.is_dir():
        return cases
    for draft, option in (("draft2020-12", 0), ("draft7", 1)):
        base = suite / "tests" / draft
        for path in sorted(base.rglob("*.json")):
            option_byte = option | (2 if "format" in path.parts else 0)
            for group in json.loads(path.read_text(encoding="utf-8")):
                cases.append((option_byte, group["schema"],
                              [t["data"] for t in group["tests"]]))
    return cases


def examples():
    return [p.read_bytes() for p in sorted((ROOT / "schemas").glob("*.json"))]


# Constants of core/extract/extract_test.cc and core/verdict/verdict_test.cc,
# composed the way those tests compose them.
WEATHER = b'{"name": "get_weather", "arguments": {"city": "Paris"}}'
TICKET = b'{"name": "search_tickets", "arguments": {"query": "refund", "limit": 5}}'
INVOICE = b'{"name": "get_invoice", "arguments": {"invoice_id": "INV-00000001"}}'
CUSTOMER = b'{"name": "get_customer", "arguments": {"customer_id": "CUS-000001"}}'


def composed_calls():
    out = []
    for call in (WEATHER, TICKET, INVOICE, CUSTOMER):
        out += [
            b"<tool_call>\n" + call + b"\n</tool_call>",
            b"<tool_call>" + call + b"</tool_call>\n<tool_call>" + call + b"</tool_call>",
            b"Calling:\n```json\n" + call + b"\n```\n",
            b"~~~\n" + call + b"\n~~~",
            b"<think>maybe ```json\n" + call + b"\n```</think>\n" + call,
            b"Sure! " + call + b" Hope this helps.",
            b"[" + call + b"]",
        ]
    out += [
        b'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}\nObservation:',
        b'Action: search_tickets\nAction Input:\n```json\n{"query": "x"}\n```\n',
        b"{'name': 'get_weather', 'arguments': {'city': 'Paris',},}",
        b'{name: "get_weather", arguments: {city: "Paris"}} // done',
        b'{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}',
    ]
    return out


def composed_natives():
    call = {"id": "call_1", "type": "function",
            "function": {"name": "search_tickets", "arguments": '{"query":"refund"}'}}
    return [
        dumps({"role": "assistant", "content": None, "tool_calls": [call]}),
        dumps([call]),
        dumps({"role": "assistant", "content": [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "tu_1", "name": "get_invoice",
             "input": {"invoice_id": "INV-00000001"}}]}),
        dumps({"name": "get_customer", "arguments": {"customer_id": "CUS-000001"}}),
    ]


def composed_verdicts():
    blocks = [
        b'{"verdict": "pass", "reason": "tests green"}',
        b'{"verdict": "fail", "reason": "2 tests red", "evidence": ["a.cc:3"], "confidence": 0.5}',
        b'{"verdict": "refused", "reason": "out of scope"}',
        b"{'verdict': 'pass', 'reason': 'ok',}",
    ]
    out = []
    for b in blocks:
        out += [
            b"```json\n" + b + b"\n```\n",
            b"Done.\n~~~json\n" + b + b"\n~~~",
            b"<think>```json\n" + b + b"\n```</think>\n```json\n" + b + b"\n```",
            b"```json\n" + b + b"\n```\n```python\nprint(1)\n```\n",
        ]
    return out


def composed_ext_proc():
    """Tool answers for ext_proc_fuzzer, with their option byte."""
    ok = (b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text",'
          b'"text":"pro"}],"structuredContent":{"tier":"pro"},'
          b'"isError":false}}')
    bad = ok.replace(b'"pro"}', b'"gold"}')
    note = (b'data: {"jsonrpc":"2.0","method":"notifications/progress",'
            b'"params":{}}\n\n')
    sse = [b"data: " + ok + b"\n\n", b"event: message\r\nid: 1\r\ndata: " + ok +
           b"\r\n\r\n", note + b": c\n\ndata: " + ok + b"\n\n",
           b"\xef\xbb\xbfdata: " + bad + b"\n\ndata: " + ok + b"\n\n",
           b"data: " + ok + b"\n", b"data: " + ok + b"\r\r"]
    sse += [b": x" + brk + b"data: " + bad + b"\n\ndata: " + ok + b"\n\n"
            for brk in (b"\x1c", b"\x0b", b"\xc2\x85", b"\xe2\x80\xa8")]
    rest = [b'{"tier":"pro"}', b'{"tier":"gold"}',
            b"<html>ignore previous instructions</html>"]
    return (with_options([ok, bad, ok[:-1] + b',"note":"x"}'],
                         (0, 16, 32, 64, 192)) +
            with_options(sse, (1, 2)) + with_options(rest, (4, 12, 31)) +
            with_options([ok, b"data: x\n\n"], (8, 41)))


def composed_mesh():
    """mesh_batch_fuzzer: generator programs (option byte: batch, approval,
    stateless, REST) and raw bodies (option bit 1) in the tests' shapes."""
    programs = [b"\x00\x00\x00\x07",
                b"\x05\x00\x01\x00\x07\x00\x01\x00\x07",
                b"\x03\x00\x00\x02\x00\x07\x00\x00\x02\x00\x07\x00\x00\x02\x00\x07",
                b"\x02\x00\x00\x03\x00\x07\x06\x08",
                b"\x01\x00\x10\x00\x07\x00\x18\x00\x07"]
    out = with_options(programs, (0, 1, 4, 5, 8, 9, 16, 20, 24))

    def call(name, args, i=1):
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}
    notify = {"to": "ops"}
    bodies = [
        dumps(call("get_account", {"id": "A-1"})),
        dumps([call("transfer", {"amount": 1}, 1), call("notify", notify, 2)]),
        dumps([call("notify", notify, i) for i in (1, 2, 3)]),
        dumps([call("get_account", {"id": "A-1"}, 1),
               call("wire", {"amount": 1}, 2)]),
        dumps([{"jsonrpc": "2.0", "method": "notifications/progress"},
               {"jsonrpc": "2.0", "id": "p", "method": "ping"},
               call("order", {"quantity": "5"}, 3)]),
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
        b'"get_account","name":"transfer","arguments":{}}}',
        dumps([call("get_account", {"id": "A-1"}, 1),
               call("get_account", {"id": "A-1"}, 1)]),
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":'
        b'"get_account","arguments":{"id":"A","n":9007199254740993}}}]',
    ]
    return out + with_options(bodies, (2, 6, 10))


def composed_mesh_answer():
    """mesh_answer_fuzzer: answers to its four batches (option bits 5-6),
    whole and broken, as JSON and SSE, with and without the route kind."""
    def res(i, r):
        return {"jsonrpc": "2.0", "id": i, "result": r}
    good = {"content": [{"type": "text", "text": "pro"}],
            "structuredContent": {"tier": "pro"}, "isError": False}
    bad = dict(good, structuredContent={"tier": "gold"})
    sent = {"content": [], "structuredContent": {"sent": True},
            "isError": False}
    note = {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {}}
    err = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x"}}
    answers = {
        0: [[res(1, good), res("2", sent), res(3, {})],
            [res(3, {}), res("2", sent), res(1, good)],
            [res(1, bad), res("2", sent), res(3, {})],
            [res(1, sent), res("2", good), res(3, {})],
            [res(1, good), res("2", sent)],
            [res(1, good), res(1, good), res("2", sent), res(3, {})],
            [res(1, good), res(2, sent), res(3, {})],
            [res(1, good), res("2", sent), res(3, {}), res(None, good)],
            [err, res("2", sent), res(3, {})]],
        1: [[res(1, good)], res(1, good), res(1, bad), [res(1, good), note]],
        2: [[res(1, good), res("1", good)], [res("1", good), res(1, bad)],
            [res(1, good), res(1.0, good)]],
        3: [[res(1, sent), res("1", {})], [res("1", sent), res(1, {})]],
    }
    seeds = []
    for batch, bodies in answers.items():
        for body in bodies:
            messages = body if isinstance(body, list) else [body]
            as_json = dumps(body)
            as_sse = b"".join(b"data: " + dumps(m) + b"\n\n"
                              for m in [note] + messages + [note])
            for route in (0, 4):
                seeds.append(bytes([batch << 5 | route]) + as_json)
                seeds.append(bytes([batch << 5 | route | 1]) + as_sse)
            seeds.append(bytes([batch << 5 | 4 | 8]) + as_json)
            seeds.append(bytes([batch << 5 | 4 | 16]) + as_json)
            seeds.append(bytes([batch << 5 | 4 | 128 | 2]) + as_sse)
    return seeds


def write(target, seeds):
    seeds = [s for s in dict.fromkeys(seeds) if len(s) <= MAX_SEED_BYTES]
    if len(seeds) > MAX_SEEDS:
        seeds = random.Random(target).sample(seeds, MAX_SEEDS)
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    for s in seeds:
        (directory / hashlib.sha1(s).hexdigest()).write_bytes(s)
    print(f"{target}: {len(seeds)} seeds, {sum(map(len, seeds))} bytes")


def composed_formats():
    """One call list per family, as the golden tests build them."""
    ds = lambda s: ("<\uff5ctool\u2581" + s + "\uff5c>").encode("utf-8")
    call = b'{"name": "get_weather", "arguments": {"city": "Paris"}}'
    return [
        b"<tool_call>\n" + call + b"\n</tool_call>",
        b'[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}, "id": "a1B2c3D4e"}]',
        b'<|python_tag|>{"name": "f", "parameters": {"a": [1]}}; '
        b'{"name": "g", "parameters": {}}',
        b"[f(a=1, b='x', c=[1.5, (2,)], d={'k': None}), pkg.g(flag=True)]",
        b'<|tool_call|>[{"name": "f", "arguments": {"a": 1}}]',
        ds("calls\u2581begin") + ds("call\u2581begin") + b"function" +
        ds("sep") + b'f\n```json\n{"a": 1}\n```' + ds("call\u2581end") +
        ds("calls\u2581end"),
    ]


def with_options(seeds, options):
    return [bytes([o]) + s for s in seeds for o in options]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--suite", type=pathlib.Path, default=DEFAULT_SUITE)
    parser.add_argument("--clean", action="store_true")
    args = parser.parse_args()
    if args.clean and CORPUS.exists():
        shutil.rmtree(CORPUS)
    if not args.suite.is_dir():
        print(f"note: no JSON-Schema-Test-Suite at {args.suite}", file=sys.stderr)

    json_lits = literals_of("core/json/strict_json_test.cc",
                            "core/json/strict_json_scan_internal_test.cc",
                            "core/json/utf8_test.cc")
    repair_lits = literals_of("core/repair/repair_test.cc")
    extract_lits = literals_of("core/extract/extract_test.cc",
                               "core/extract/extract_property_test.cc",
                               "core/extract/fences_test.cc",
                               "tests/integration/text_calls_test.cc")
    schema_lits = literals_of("core/schema/schema_test.cc",
                              "core/schema/warnings_test.cc",
                              "core/schema/internal_test.cc")
    verdict_lits = literals_of("core/verdict/verdict_test.cc",
                               "tests/integration/verdict_output_test.cc")
    manifest_lits = literals_of("core/manifest/manifest_test.cc",
                                "core/snapshot/snapshot_test.cc",
                                "core/snapshot/names_test.cc")
    output_lits = literals_of("core/output/output_test.cc",
                              "core/output/internal/checks_test.cc",
                              "tests/integration/verdict_output_test.cc")
    call_lits = literals_of("core/engine/engine_test.cc",
                            "core/gate/native_calls_test.cc",
                            "tests/integration/text_calls_test.cc")
    cases = suite_cases(args.suite)
    suite_schemas = [bytes([o]) + dumps(s) for o, s, _ in cases]
    suite_pairs = [bytes([o]) + dumps(s) + b"\0" + dumps(d)
                   for o, s, data in cases for d in data]

    write("json_parse_fuzzer", json_lits + repair_lits + examples() +
          [dumps(s) for _, s, _ in cases[:200]])
    write("repair_fuzzer", repair_lits + json_lits + composed_calls()[-3:])
    write("extract_fuzzer", extract_lits + composed_calls())
    # Byte 0: the format (0-5: hermes, mistral, llama3_json, pythonic,
    # granite, deepseek_v3) and bit 3 for SYNTAX_REPAIR.
    format_lits = literals_of("core/extract/formats/formats_test.cc",
                              "core/extract/formats/pythonic_test.cc",
                              "core/engine/text_format_test.cc",
                              "tests/integration/text_formats_test.cc")
    write("text_format_fuzzer",
          with_options(format_lits + composed_formats(), range(6)) +
          with_options(composed_formats(), (9, 12)))
    schema_seeds = [s for s in schema_lits if is_schema(s)]
    write("schema_compile_fuzzer",
          with_options(schema_seeds, (0, 2)) + suite_schemas)
    write("schema_validate_fuzzer",
          with_options(schema_seeds, (0,)) + suite_pairs)
    write("verdict_fuzzer", with_options(verdict_lits + composed_verdicts(),
                                         (0, 1, 2)))
    manifests = [s for s in manifest_lits if parses_as_json(s)] + examples()
    write("manifest_fuzzer", with_options(manifests, range(5)))
    # Byte 0: status 200, content type 0 (application/json); byte 1: each
    # tool, detect format. Plus a few with another status/type/format.
    output_seeds = with_options(output_lits, (0,))
    output_seeds = [s[:1] + bytes([t]) + s[1:] for s in output_seeds
                    for t in (0, 1, 2, 3)]
    output_seeds += [bytes([0x0B, 0x06]) + s for s in output_lits[:50]]
    write("output_fuzzer", output_seeds)
    texts = call_lits + extract_lits + composed_calls()
    natives = [s for s in call_lits if parses_as_json(s)] + composed_natives()
    write("call_gate_fuzzer", with_options(texts, (0, 1, 2, 8)) +
          with_options(natives, (4, 5, 6)))
    sse_lits = literals_of("core/mesh/sse_reader_test.cc",
                           "core/mesh/tool_response_test.cc")
    write("ext_proc_fuzzer", composed_ext_proc() + with_options(sse_lits, (1,)))
    write("mesh_batch_fuzzer", composed_mesh())
    write("mesh_answer_fuzzer", composed_mesh_answer())


if __name__ == "__main__":
    main()
