"""Differential test of toolgate's SSE reader (core/mesh/sse_reader.h)
against the readers of the agents' clients, on generated bodies (fixed
seed): BOMs, every Unicode line break, CR/LF mixes, comments, several data
lines, event/id/retry fields, fields without colon, leading spaces, bad
UTF-8, events left open.

References:
  js          eventsource-parser (pinned in package-lock.json, the parser
              of the MCP TypeScript SDK) after TextDecoder, whole and in
              pieces (reference.mjs)
  splitlines  httpx-sse over httpx's line decoder (str.splitlines: \\x0b,
              \\x0c, \\x1c-\\x1e, \\x85, U+2028, U+2029 are line breaks);
              UTF-8 decoded with replacement, BOM kept
  sse-lines   newer httpx-sse, lines split on \\r\\n, \\r, \\n only
Each reads the events of type "message" (or none) with data. For every
body toolgate refuses, or reads exactly what every reference reads.

Usage: differential.py SSE_READ_BINARY [COUNT] [SEED]; ends with
"N passed, N failed" (one case per body) and exits non-zero on a failure,
or when too few bodies were accepted for the test to mean anything.
"""
import json
import random
import subprocess
import sys

HERE = sys.path[0]
BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
TERMINATORS = ["\n"] * 30 + ["\r\n"] * 15 + ["\r"]


def value(rng):
    return rng.choice([
        '{"jsonrpc":"2.0","id":1,"result":{"n":%d}}' % rng.randrange(100),
        "EVIL", "GOOD", "", " lead", "a:b", "caf\u00e9 \u20ac \U0001F600",
        "tab\there", "x" * rng.randrange(1, 5)])


def field_line(rng):
    v = value(rng)
    if rng.random() < 0.85:  # Lines every reader takes alike.
        return rng.choice([
            "data: " + v, "data: " + v, "data: " + v, "data:" + v,
            "data:  " + v, "data", "event: message", "id: 5", "id",
            "retry: 100", "retry: x", ": comment", ":", ": " + v])
    return rng.choice([
        "event: other", "event:", "event", "event: message ", "id: a\x00b",
        "foo: " + v, " data: " + v, "Data: " + v, "\ufeffdata: " + v,
        "data : " + v, "\u00addata: " + v])


def body(rng):
    text = "\ufeff" if rng.random() < 0.05 else ""
    for _ in range(rng.randrange(1, 4)):  # Events.
        for _ in range(rng.randrange(1, 4)):  # Lines of an event.
            line = field_line(rng)
            if rng.random() < 0.03:  # A Unicode line break inside a line.
                at = rng.randrange(len(line) + 1)
                line = line[:at] + rng.choice(BREAKS) + line[at:]
            text += line + rng.choice(TERMINATORS)
        text += rng.choice(TERMINATORS)  # The blank line.
    if rng.random() < 0.05:  # The last event (or line) left open.
        text = text.rstrip("\r\n") if rng.random() < 0.5 else text[:-1]
    raw = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.02:  # A byte that is not UTF-8.
        at = rng.randrange(len(raw) + 1)
        raw = raw[:at] + rng.choice([b"\xff", b"\xc0\xaf", b"\xe2\x80"]) + raw[at:]
    return raw


def decoder_events(lines):
    """httpx-sse's SSEDecoder over lines (last event id kept, as it does)."""
    events, kind, data, last_id, retry = [], "", [], "", None
    for line in lines:
        if not line:
            if kind or data or last_id or retry is not None:
                events.append((kind or "message", "\n".join(data)))
            kind, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        name, _, v = line.partition(":")
        v = v[1:] if v.startswith(" ") else v
        if name == "event":
            kind = v
        elif name == "data":
            data.append(v)
        elif name == "id" and "\0" not in v:
            last_id = v
        elif name == "retry":
            try:
                retry = int(v)
            except ValueError:
                pass
    return [d for k, d in events if k == "message" and d != ""]


def sse_lines(text):
    out, start, i = [], 0, 0
    while i < len(text):
        if text[i] in "\r\n":
            out.append(text[start:i])
            i += 2 if text[i:i + 2] == "\r\n" else 1
            start = i
        else:
            i += 1
    if start < len(text):
        out.append(text[start:])
    return out


def run(cmd, bodies, cwd=None):
    stdin = b"".join(b"%d\n%s" % (len(b), b) for b in bodies)
    out = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, check=True,
                         cwd=cwd).stdout
    # Not splitlines: JSON.stringify leaves U+2028 raw.
    lines = [json.loads(l) for l in out.decode().split("\n") if l]
    assert len(lines) == len(bodies), (cmd, len(lines), len(bodies))
    return lines


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 25)
    bodies = [body(rng) for _ in range(count)]
    ours = run([binary], bodies)
    js = run(["node", "reference.mjs"], bodies, cwd=HERE)
    passed = failed = accepted = split = 0
    for raw, mine, ref in zip(bodies, ours, js):
        text = raw.decode("utf-8", "replace")
        readings = {"js": ref["whole"], "js pieces": ref["pieces"],
                    "splitlines": decoder_events(text.splitlines()),
                    "sse-lines": decoder_events(sse_lines(text))}
        split += len({json.dumps(v) for v in readings.values()}) > 1
        if "refused" in mine:
            passed += 1
            continue
        accepted += 1
        differ = {k: v for k, v in readings.items() if v != mine["events"]}
        if not differ:
            passed += 1
            continue
        failed += 1
        if failed <= 10:
            print("DIFFERS %r: toolgate %r, %r" % (raw, mine["events"], differ))
    print("%d bodies: %d accepted by toolgate and read alike, %d refused"
          % (count, accepted - failed, count - accepted))
    print("%d bodies the references themselves read differently" % split)
    if accepted < count // 5 or split < count // 50:
        print("too few bodies accepted or read differently: the generator "
              "drifted")
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
