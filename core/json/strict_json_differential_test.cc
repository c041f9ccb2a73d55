// Differential test of ParseStrictJson (fast parser, SAX parser for error
// reports) against two references, on generated valid documents and their
// mutations:
//
// * the SAX implementation it replaced (strict_json_sax_internal.h): same
//   accept/refuse, same value with the same number types, and the very same
//   status (code, pointer, message) on refusal;
// * nlohmann's own Json::parse, with toolgate's extra rules applied through
//   its parser callback (duplicate keys, depth) and its exceptions mapped to
//   codes: same accept/refuse, same value, same error code.
//
// Numbers a double does not hold as written (FitNumber) are refused by all
// three; the reference applies the rule to the literals it finds itself.
// Every accepted document must also read back from its CanonicalJson as the
// same value.
//
// The one deliberate difference: a NUL byte outside strings, which
// nlohmann's lexer takes for the end of the input, is refused as
// invalid_json by ParseStrictJson.
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/json/strict_json.h"
#include "tests/testing/strict_json_gen.h"
#include "core/json/strict_json_sax_internal.h"
#include "core/json/strict_json_scan_internal.h"
#include "core/json/utf8.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace {

using json_internal::JsonTextGenerator;
using json_internal::ParseStrictJsonWithSax;

// dump() with number types spelled out: nlohmann's == and dump() both call
// 5 (unsigned) and 5 (signed) equal, but the schema engine may not.
// `zero_unsigned`: an integer -0 (signed) counts as 0 (unsigned), as
// CanonicalJson writes both "0".
std::string TypedDump(const Json& v, bool zero_unsigned = false) {
  switch (v.type()) {
    case Json::value_t::number_unsigned: return "u" + v.dump();
    case Json::value_t::number_integer:
      return (zero_unsigned && v == 0 ? "u" : "i") + v.dump();
    case Json::value_t::number_float: return "f" + v.dump();
    case Json::value_t::array: {
      std::string out = "[";
      for (const Json& e : v) {
        absl::StrAppend(&out, TypedDump(e, zero_unsigned), ",");
      }
      return out + "]";
    }
    case Json::value_t::object: {
      std::string out = "{";
      for (const auto& [k, e] : v.items()) {
        absl::StrAppend(&out, Json(k).dump(), ":", TypedDump(e, zero_unsigned),
                        ",");
      }
      return out + "}";
    }
    default: return v.dump();
  }
}

struct Verdict {
  bool ok = false;
  std::string code;  // When !ok.
  Json value;        // When ok.
};

// The number tokens of `text` outside strings, in order, by RFC 8259's
// grammar (as nlohmann's lexer reads them). Past a syntax error the list may
// go astray, but no value is parsed there.
std::vector<std::string> NumberTokens(const std::string& text) {
  std::vector<std::string> out;
  const auto digit = [&](size_t k) {
    return k < text.size() && text[k] >= '0' && text[k] <= '9';
  };
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      ++i;
      continue;
    }
    if (c != '-' && !digit(i)) {
      ++i;
      continue;
    }
    const size_t start = i;
    if (c == '-') ++i;
    if (digit(i) && text[i] == '0') {
      ++i;
    } else {
      while (digit(i)) ++i;
    }
    if (i < text.size() && text[i] == '.' && digit(i + 1)) {
      for (++i; digit(i);) ++i;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      size_t j = i + 1;
      if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
      if (digit(j)) {
        for (i = j; digit(i);) ++i;
      }
    }
    out.push_back(text.substr(start, i - start));
    if (i == start) ++i;
  }
  return out;
}

// nlohmann's DOM parser plus toolgate's rules. The callback sees events in
// input order, so the first rule broken there precedes any later syntax
// error, as in ParseStrictJson. Numbers: FitNumber on the literal (nlohmann
// itself throws on 1e400).
Verdict Reference(const std::string& text, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) return {false, "input_too_large", {}};
  if (text.find_first_not_of(" \t\n\r") == std::string::npos) {
    return {false, "empty_input", {}};
  }
  std::string broken;
  std::vector<std::set<std::string>> keys;
  const std::vector<std::string> tokens = NumberTokens(text);
  size_t next_token = 0;
  auto rules = [&](int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    if ((event == E::object_start || event == E::array_start) &&
        depth >= limits.max_depth && broken.empty()) {
      broken = "nesting_too_deep";
    }
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end) keys.pop_back();
    if (event == E::key &&
        !keys.back().insert(parsed.get<std::string>()).second &&
        broken.empty()) {
      broken = "duplicate_key";
    }
    if (event == E::value && parsed.is_number()) {
      const std::string& literal = tokens.at(next_token++);
      if (parsed.is_number_float() && broken.empty()) {
        switch (json_internal::FitNumber(literal, parsed.get<double>())) {
          case json_internal::NumberFit::kExact: break;
          case json_internal::NumberFit::kInexact:
            broken = "number_inexact";
            break;
          default: broken = "number_out_of_range";
        }
      }
    }
    return true;
  };
  Verdict v;
  try {
    v.value = Json::parse(text, rules);
    v.ok = true;
  } catch (const Json::parse_error& e) {
    v.code = e.byte > text.size() ? "truncated_json" : "invalid_json";
  } catch (const Json::out_of_range&) {
    v.code = "number_out_of_range";
  }
  if (!broken.empty()) return {false, broken, {}};
  // nlohmann ends the input at a NUL byte outside strings (inside them it
  // is an unescaped control character, refused); ParseStrictJson refuses.
  if (v.ok && text.find('\0') != std::string::npos) {
    return {false, "invalid_json", {}};
  }
  return v;
}

class Differential : public testing::Test {
 protected:
  void Check(const std::string& text, const JsonLimits& limits = {}) {
    if (failures_ >= 20) return;  // Enough to debug; keep the log readable.
    ++checked_;
    const std::string shown = absl::CEscape(text.substr(0, 300));
    absl::StatusOr<Json> fast = ParseStrictJson(text, limits);
    absl::StatusOr<Json> sax = ParseStrictJsonWithSax(text, limits);
    const Verdict ref = Reference(text, limits);
    bool ok = true;
    if (fast.ok()) {
      ++accepted_;
      const std::string dump = TypedDump(*fast);
      ok &= sax.ok() && TypedDump(*sax) == dump;
      ok &= ref.ok && TypedDump(ref.value) == dump;
      // What toolgate writes it reads back as the same value.
      absl::StatusOr<Json> again = ParseStrictJson(CanonicalJson(*fast));
      ok &= again.ok() && TypedDump(*again, true) == TypedDump(*fast, true);
      EXPECT_TRUE(ok) << shown << "\n fast: " << dump << "\n sax: "
                      << (sax.ok() ? TypedDump(*sax) : sax.status().ToString())
                      << "\n reference: "
                      << (ref.ok ? TypedDump(ref.value) : ref.code);
    } else {
      const std::string code = JsonErrorCode(fast.status());
      ok &= !ref.ok && ref.code == code;
      // The SAX parser explains every refusal but the NUL one it accepts.
      const bool nul = sax.ok() && text.find('\0') != std::string::npos &&
                       code == "invalid_json";
      ok &= nul || (!sax.ok() && sax.status() == fast.status());
      ok &= FindInvalidUtf8(fast.status().message()) == absl::string_view::npos;
      EXPECT_TRUE(ok) << shown << "\n fast: " << fast.status() << " [" << code
                      << " " << JsonErrorPointer(fast.status()) << "]"
                      << "\n sax: "
                      << (sax.ok() ? "ok" : sax.status().ToString())
                      << "\n reference: " << (ref.ok ? "ok" : ref.code);
    }
    if (!ok) ++failures_;
    ++outcomes_[fast.ok() ? "accepted" : JsonErrorCode(fast.status())];
  }

  // What the inputs exercised, for the log: a generator that stopped
  // reaching some refusal would go unnoticed otherwise.
  void TearDown() override {
    std::string summary;
    for (const auto& [outcome, n] : outcomes_) {
      absl::StrAppend(&summary, " ", outcome, "=", n);
    }
    std::cout << checked_ << " inputs:" << summary << "\n";
  }

  std::map<std::string, int> outcomes_;
  int failures_ = 0;
  int checked_ = 0;
  int accepted_ = 0;
};

TEST_F(Differential, ValidDocumentsOfEveryShape) {
  JsonTextGenerator gen(1);
  for (int i = 0; i < 20000; ++i) Check(gen.Document(gen.Uniform(0, 6)));
  // Most generated documents are valid (some numbers overflow).
  EXPECT_GT(accepted_, checked_ * 8 / 10);
}

TEST_F(Differential, NumbersAndStringsAlone) {
  JsonTextGenerator gen(2);
  for (int i = 0; i < 20000; ++i) {
    Check(gen.Number());
    Check(gen.String());
    Check("[" + gen.Number() + "," + gen.String() + "]");
  }
}

TEST_F(Differential, TruncatedAtEveryOffset) {
  JsonTextGenerator gen(3);
  for (int i = 0; i < 300; ++i) {
    const std::string doc = gen.Document(gen.Uniform(1, 5));
    for (size_t n = 0; n <= doc.size(); ++n) Check(doc.substr(0, n));
  }
}

TEST_F(Differential, Mutations) {
  JsonTextGenerator gen(4);
  for (int i = 0; i < 6000; ++i) {
    const std::string doc = gen.Document(gen.Uniform(0, 5));
    for (int k = 0; k < 10; ++k) {
      std::string mutant = gen.Mutate(doc);
      for (int more = gen.Uniform(0, 2); more > 0; --more) {
        mutant = gen.Mutate(mutant);
      }
      Check(mutant);
    }
  }
}

TEST_F(Differential, DuplicateKeys) {
  JsonTextGenerator gen(5);
  for (int i = 0; i < 10000; ++i) {
    Check(gen.Document(gen.Uniform(1, 5), /*duplicate_key=*/true));
  }
  for (const char* text :
       {R"({"a":1,"a":1})", R"({"a":{},"\u0061":[]})", R"({"a/b":1,"a\/b":2})",
        R"({"\ud83d\ude00":1,"😀":2})", R"({"":1,"":2})",
        R"({"x":{"a":1,"b":2},"y":{"b":1,"b":2}})", R"([{"a":1},{"a":1}])"}) {
    Check(text);
  }
}

TEST_F(Differential, NestingAroundTheLimit) {
  JsonTextGenerator gen(6);
  for (int limit : {0, 1, 2, 3, 5, 256}) {
    JsonLimits limits;
    limits.max_depth = limit;
    for (int depth = std::max(0, limit - 2); depth <= limit + 2; ++depth) {
      for (int k = 0; k < 20; ++k) Check(gen.Nested(depth), limits);
    }
    for (int i = 0; i < 300; ++i) Check(gen.Document(4), limits);
  }
  Check(std::string(100000, '['));
  Check(std::string(5000, '[') + std::string(5000, ']'));
}

TEST_F(Differential, SizeCap) {
  JsonTextGenerator gen(7);
  JsonLimits limits;
  limits.max_bytes = 40;
  for (int i = 0; i < 2000; ++i) Check(gen.Document(3), limits);
}

TEST_F(Differential, HandPickedEdges) {
  for (const std::string& text :
       std::vector<std::string>{"\xEF\xBB\xBF{}",
                                "\xEF\xBB\xBF",
                                "\xEF\xBB",
                                " \xEF\xBB\xBF{}",
                                std::string("{}\0", 3),
                                std::string("{}\0junk", 7),
                                std::string("\0", 1),
                                std::string("[1,\0]", 5),
                                std::string("\"a\0\"", 4),
                                "{} \"ab",
                                "{} tru",
                                "{} 1",
                                "{} 1e",
                                "[1 \"ab",
                                "\"\\ud800",
                                "\"\\ud800\\",
                                "\"\\ud800\\u",
                                "\"\\u12",
                                "\"\xC3",
                                "\"\xE2\x82\"",
                                "-",
                                "[-",
                                "1.",
                                "1e+",
                                "01",
                                "-01",
                                "1x",
                                "[1,]",
                                "[,1]",
                                "{,}",
                                "{\"a\"}",
                                "{\"a\":}",
                                "{\"a\" 1}",
                                "[01]",
                                "\"\x7F\"",
                                "\"\\u0000\"",
                                "-0",
                                "-0.0",
                                "0e5",
                                "[1e400]",
                                "[1e-400]",
                                "1.7976931348623157e308",
                                "[true,false,null]",
                                "nulll",
                                "truefalse",
                                "[]]",
                                "{}}",
                                "\"\\/\"",
                                "\"\\'\"",
                                "\t\n\r 7 \t\n\r"}) {
    Check(text);
  }
}

// The one place ParseStrictJson and the SAX parser it replaced differ, by
// design: the SAX parser took "{}\0junk" for {}.
TEST(StrictJsonNul, TrailingNulIsRefusedAsTrailingBytes) {
  const std::string text("{\"a\":1}\0{\"a\":2}", 15);
  ASSERT_TRUE(ParseStrictJsonWithSax(text, JsonLimits()).ok());
  absl::StatusOr<Json> parsed = ParseStrictJson(text);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(JsonErrorCode(parsed.status()), "invalid_json");
  EXPECT_EQ(JsonErrorPointer(parsed.status()), "");
  EXPECT_EQ(parsed.status().message(),
            "unexpected byte 0x00 at byte offset 7; expected end of input");
}

}  // namespace
}  // namespace toolgate
