"""Pythonic against Python itself: the differential oracle.

Generates Python literals (fixed seed, several thousand, in every spelling
the pythonic grammar reads and many it refuses) and mutations of them,
places each as a keyword argument in a call list, `[f(v=LITERAL)]`, and
compares toolgate's reading (tests/formats/format_reader) with Python's:
ast.parse of the call list, then ast.literal_eval of each keyword value,
as reference decoders do.

  * everything toolgate reads, Python reads as the same value (type for
    type: int is not float, bool is not int, tuples are lists; floats bit
    for bit);
  * everything Python refuses, toolgate refuses.

Refusing what Python reads is allowed (rare spellings, duplicate keys,
numbers JSON cannot hold exactly): those are only counted.
"""
import ast
import json
import math
import os
import random
import struct
import subprocess
import sys
import warnings

SEED = 29
COUNT = 6000
MUTATIONS_PER_LITERAL = 2

READER = os.path.join(os.environ.get("TEST_SRCDIR", "."),
                      os.environ.get("TEST_WORKSPACE", "."),
                      "tests/formats/format_reader")


# ---------------------------------------------------------------- generation

class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def ws(self):
        return self.pick(["", "", "", " ", "  ", "\n", "\n  ", "\t", " \r\n "])

    def integer(self):
        kind = self.r.randrange(8)
        if kind == 0:
            return str(self.r.randrange(10))
        if kind == 1:
            return str(self.r.randrange(10 ** self.r.randrange(1, 25)))
        if kind == 2:
            return self.pick(["0", "00", "000", "9223372036854775807",
                              "9223372036854775808", "18446744073709551615",
                              "18446744073709551616", "1" + "0" * 30])
        if kind == 3:
            return self.pick(["0x1f", "0o17", "0b11", "1_000", "01", "007",
                              "1j", "1L"])
        return str(self.r.randrange(-10 ** 6, 10 ** 6)).lstrip("-")

    def float_(self):
        kind = self.r.randrange(9)
        digits = lambda n: "".join(self.pick("0123456789") for _ in range(n))
        if kind == 0:
            return digits(self.r.randrange(1, 4)) + "."
        if kind == 1:
            return "." + digits(self.r.randrange(1, 6))
        if kind == 2:
            return (digits(self.r.randrange(1, 3)) + self.pick(["e", "E"]) +
                    self.pick(["", "+", "-"]) + digits(self.r.randrange(1, 4)))
        if kind == 3:
            return self.pick(["1e400", "1e-400", "1e308", "2.5e-324", "5e-324",
                              "0.1", "0.10000000000000001",
                              "0.30000000000000004", "9007199254740993.0",
                              "1.7976931348623157e308", "0e0", "00.5",
                              "1.e5", "1_0.5", "1.5j", "1e", "1e+", ".e1"])
        if kind == 4:
            return repr(self.r.uniform(-1e6, 1e6)).lstrip("-")
        if kind == 5:
            return repr(self.r.random() * 10 ** self.r.randrange(-30, 30))
        return (digits(self.r.randrange(1, 8)) + "." +
                digits(self.r.randrange(0, 8)))

    def number(self):
        body = self.integer() if self.chance(0.5) else self.float_()
        sign = self.pick(["", "", "", "-", "- ", "+", "-\n"])
        return sign + body

    STRING_PIECES = [
        "a", "b", "xyz", " ", "\u00e9", "\u4e2d", "\U0001F600", "\t", "\x01",
        "\x7f", "\\n", "\\t", "\\r", "\\\\", "\\'", '\\"', "\\a", "\\b",
        "\\f", "\\v", "\\0", "\\101", "\\7", "\\777", "\\x41", "\\xe9",
        "\\u00e9", "\\u4e2d", "\\U0001F600", "\\\n", "\\d", "\\N{BULLET}",
        "\\ud83d", "\\udfff", "\\U00110000", "\\x4", "'", '"', "#", "</tool_call>",
        "[TOOL_CALLS]", "\n", "\r", "{", "}", "(", ")", ",", "=",
    ]

    def string(self):
        quote = self.pick(["'", '"', "'''", '"""'])
        prefix = self.pick(["", "", "", "", "u", "U", "r", "b", "f", "rb"])
        body = "".join(self.pick(self.STRING_PIECES)
                       for _ in range(self.r.randrange(0, 6)))
        return prefix + quote + body + quote

    def value(self, depth):
        kind = self.r.randrange(12 if depth < 4 else 7)
        if kind <= 1:
            return self.number()
        if kind <= 3:
            return self.string()
        if kind == 4:
            return self.pick(["True", "False", "None"])
        if kind == 5:
            return self.string() + self.ws() + self.string()  # concatenation
        if kind == 6:
            return self.pick(["x", "f(1)", "1+1", "...", "[1][0]", "-(1)",
                              "--1", "-True", "{1, 2}", "b''", "1 if 1 else 2",
                              "(1)", "((2,))", "{}", "[]", "()"])
        n = self.r.randrange(0, 4)
        items = [self.value(depth + 1) for _ in range(n)]
        trailing = "," if items and self.chance(0.3) else ""
        sep = "," + self.ws()
        if kind in (7, 8):
            return "[" + self.ws() + sep.join(items) + trailing + self.ws() + "]"
        if kind == 9:
            if n == 1 and not trailing and self.chance(0.5):
                return "(" + items[0] + ")"  # grouping, not a tuple
            if n == 1:
                trailing = ","
            return "(" + sep.join(items) + trailing + ")"
        keys = [self.string() if self.chance(0.9) else self.number()
                for _ in range(n)]
        if n > 1 and self.chance(0.1):
            keys[-1] = keys[0]  # duplicate key
        pairs = [k + self.ws() + ":" + self.ws() + v for k, v in zip(keys, items)]
        return "{" + sep.join(pairs) + trailing + "}"

    SNIPPETS = ["", " ", ",", ")", "(", "]", "[", "{", "}", "'", '"', "\\",
                "#", "+", "-", "*", ".", "x", "_", "j", "e", "0", "0x", "=",
                ":", "\n", "\r", "lambda", "not ", "\u00e9", "\x00", "'''"]

    def mutate(self, text):
        if not text:
            return text
        i = self.r.randrange(len(text) + 1)
        op = self.r.randrange(3)
        if op == 0 and i < len(text):
            return text[:i] + text[i + 1:]
        if op == 1 and i < len(text):
            return text[:i] + self.pick(self.SNIPPETS) + text[i + 1:]
        return text[:i] + self.pick(self.SNIPPETS) + text[i:]


# ------------------------------------------------------------ Python's reading

class Refused(Exception):
    pass


def python_read(text):
    """The calls Python reads in `text`, as reference decoders read them:
    [(name, {keyword: literal_eval(value)})]; Refused when it does not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
            if not isinstance(tree.body, ast.List):
                raise Refused("not a list")
            calls = []
            for element in tree.body.elts:
                if not isinstance(element, ast.Call) or element.args:
                    raise Refused("not a call with keywords only")
                name = dotted(element.func)
                args = {}
                for kw in element.keywords:
                    if kw.arg is None:
                        raise Refused("**kwargs")
                    args[kw.arg] = ast.literal_eval(kw.value)
                calls.append((name, args))
            return calls
    except Refused:
        raise
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise Refused(type(e).__name__) from e


def dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return dotted(node.value) + "." + node.attr
    raise Refused("not a name")


def same(py, js):
    """Python value `py` is exactly JSON value `js` (as json.loads gives it):
    tuples are arrays; no int/float/bool confusion; floats bit for bit."""
    if py is None or isinstance(py, bool):
        return py is js if py is None else (type(js) is bool and py == js)
    if isinstance(py, int):
        return type(js) is int and py == js
    if isinstance(py, float):
        return (type(js) is float and not math.isnan(py) and
                struct.pack("<d", py) == struct.pack("<d", js))
    if isinstance(py, str):
        return type(js) is str and py == js
    if isinstance(py, (list, tuple)):
        return (type(js) is list and len(py) == len(js) and
                all(same(a, b) for a, b in zip(py, js)))
    if isinstance(py, dict):
        return (type(js) is dict and len(py) == len(js) and
                all(type(k) is str and k in js and same(v, js[k])
                    for k, v in py.items()))
    return False  # bytes, sets, complex, Ellipsis: never JSON


# ---------------------------------------------------------------------- main

def toolgate_read(texts):
    lines = "".join(json.dumps({"format": "pythonic", "text": t}) + "\n"
                    for t in texts)
    out = subprocess.run([READER], input=lines.encode("utf-8", "surrogatepass"),
                         stdout=subprocess.PIPE, check=True).stdout
    results = [json.loads(line) for line in out.decode("utf-8").splitlines()]
    assert len(results) == len(texts), (len(results), len(texts))
    return results


def main():
    gen = Gen(SEED)
    texts = []
    for _ in range(COUNT):
        literal = gen.value(0)
        texts.append("[f(v=" + literal + ")]")
        for _ in range(MUTATIONS_PER_LITERAL):
            texts.append("[f(v=" + gen.mutate(literal) + ")]")
    # Mutations of the call list's own syntax, and a few exact edges.
    for _ in range(COUNT // 4):
        texts.append(gen.mutate(gen.mutate(
            "[pkg.f(a=" + gen.value(1) + ", b=" + gen.value(1) + "), g()]")))
    texts += ["[f(v=" + "[" * n + "]" * n + ")]" for n in (97, 98, 99, 150)]
    # Text toolgate cannot even receive (NUL, lone surrogates) still counts.
    texts = [t for t in texts if "\x00" not in t]

    results = toolgate_read(texts)
    stats = {"both_read": 0, "both_refused": 0, "toolgate_refused_only": 0}
    codes = {}
    failures = []
    for text, got in zip(texts, results):
        try:
            expected = python_read(text)
        except Refused:
            if got["ok"]:
                failures.append(("python refuses, toolgate reads", text, got))
            else:
                stats["both_refused"] += 1
            continue
        if not got["ok"]:
            stats["toolgate_refused_only"] += 1
            codes[got["code"]] = codes.get(got["code"], 0) + 1
            continue
        calls = got["calls"]
        if len(calls) != len(expected) or not all(
                c["name"] == name and same(args, c["arguments"])
                for c, (name, args) in zip(calls, expected)):
            failures.append(("different values", text, got, repr(expected)))
            continue
        stats["both_read"] += 1

    print("texts:", len(texts), stats)
    print("refused by toolgate only, by code:", dict(sorted(codes.items())))
    for f in failures[:20]:
        print("FAIL", *[repr(x) for x in f])
    assert not failures, f"{len(failures)} disagreements"
    # The generator must exercise both sides substantially.
    assert stats["both_read"] >= 3000, stats
    assert stats["both_refused"] >= 3000, stats
    print("OK")


if __name__ == "__main__":
    sys.exit(main())
