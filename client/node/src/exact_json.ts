// JSON the sidecar validated, read without changing a number.
//
// toolgate keeps integers from -2^63 to 2^64-1 exactly and writes every
// other number in the shortest form of its double (README, "Numbers are
// never changed silently"). JSON.parse reads the doubles exactly, but
// rounds an integer beyond 2^53 - 1 (9007199254740993 becomes ...992), so
// a call would run with an argument that was never validated. parseExact
// reads such an integer as a BigInt instead: the value a tool receives is
// the one toolgate checked. (Node 20 gives a reviver no source text, so
// the integers are found by scanning the text.)

/** The text's value as JSON.parse reads it, except that an integer a
 * number cannot hold exactly is a BigInt. Throws SyntaxError on text that
 * is not JSON. */
export function parseExact(text: string): any {
  // An unsafe integer has at least 16 digits: most texts have no such run.
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const parser = new ExactParser(text);
  const value = parser.value();
  parser.end();
  return value;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class ExactParser {
  private i = 0;
  constructor(private readonly s: string) {}

  end(): void {
    this.ws();
    if (this.i !== this.s.length) this.fail();
  }

  value(): any {
    this.ws();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c >= "0" && c <= "9")) return this.number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    this.fail();
  }

  private object(): Record<string, any> {
    const out: Record<string, any> = {};
    this.i++;  // {
    this.ws();
    if (this.s[this.i] === "}") { this.i++; return out; }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.ws();
      if (this.s[this.i++] !== ":") this.fail();
      // As JSON.parse does: an own member, even one named __proto__.
      Object.defineProperty(out, key, { value: this.value(), writable: true,
        enumerable: true, configurable: true });
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") this.fail();
    }
  }

  private array(): any[] {
    const out: any[] = [];
    this.i++;  // [
    this.ws();
    if (this.s[this.i] === "]") { this.i++; return out; }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") this.fail();
    }
  }

  // The string's bytes up to its closing quote, decoded by JSON.parse.
  private string(): string {
    const start = this.i++;
    while (this.i < this.s.length && this.s[this.i] !== '"') {
      this.i += this.s[this.i] === "\\" ? 2 : 1;
    }
    if (this.i >= this.s.length) this.fail();
    this.i++;
    return JSON.parse(this.s.slice(start, this.i));
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail();
    const token = m![0];
    this.i += token.length;
    if (m![2] === undefined && m![3] === undefined && m![1].length >= 16) {
      const n = BigInt(token);
      if (n > SAFE || n < -SAFE) return n;
    }
    return Number(token);
  }

  private ws(): void {
    while (" \t\n\r".includes(this.s[this.i] ?? "x")) this.i++;
  }

  private fail(): never {
    throw new SyntaxError(`not JSON at position ${this.i}`);
  }
}
