// Test-only: reads JSON lines {"format": "pythonic", "text": "..."} from
// stdin and writes, per line, what ReadDeclaredFormat makes of the text:
// {"ok": true, "calls": [{"name", "arguments", "id"}]} or {"ok": false,
// "code", "pointer"}. The differential oracle
// (pythonic_oracle_test.py) compares it with Python's own reading.
#include <iostream>
#include <string>

#include "core/extract/formats/formats.h"
#include "core/json/strict_json.h"

int main() {
  using toolgate::Json;
  namespace extract = toolgate::extract;
  toolgate::JsonLimits limits;
  limits.max_bytes = 1 << 24;
  std::string line;
  while (std::getline(std::cin, line)) {
    auto in = toolgate::ParseStrictJson(line, limits);
    if (!in.ok()) {
      std::cerr << "bad input line: " << in.status() << "\n";
      return 2;
    }
    auto format = extract::ParseTextFormat(in->value("format", ""));
    if (!format) {
      std::cerr << "unknown format\n";
      return 2;
    }
    const std::string text = in->value("text", "");
    const extract::ExtractionResult r =
        extract::ReadDeclaredFormat(text, *format);
    Json out = {{"ok", r.ok()}};
    if (r.ok()) {
      Json calls = Json::array();
      for (const extract::ExtractedCall& c : r.calls) {
        calls.push_back(
            {{"name", c.name}, {"arguments", c.arguments}, {"id", c.id}});
      }
      out["calls"] = std::move(calls);
    } else {
      out["code"] = r.error.code;
      out["pointer"] = r.error.pointer;
    }
    std::cout << toolgate::CanonicalJson(out) << "\n";
  }
  return 0;
}
