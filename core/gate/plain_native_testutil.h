// Test support for the plain native readers: random choices and JSON
// pieces for output generators, and the comparison of a plain reader with
// the general one.
#ifndef TOOLGATE_CORE_GATE_PLAIN_NATIVE_TESTUTIL_H_
#define TOOLGATE_CORE_GATE_PLAIN_NATIVE_TESTUTIL_H_

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/gate/plain_native.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace gate_internal {
namespace plain_testing {

// Random choices and the JSON pieces every generator uses.
class Maker {
 public:
  explicit Maker(uint32_t seed) : rng_(seed) {}

 protected:
  // Occasionally broken: a byte order mark, trailing bytes, a cut, a
  // control character or invalid UTF-8 inside.
  std::string Break(std::string text) {
    const double roll = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (roll < 0.02) return "\xEF\xBB\xBF" + text;
    if (roll < 0.04) return text + "x";
    if (roll < 0.07) return text.substr(0, Index(text.size()));
    if (roll < 0.09 || roll < 0.11) {
      const size_t quote = text.find("ticket");
      if (quote != std::string::npos) {
        text.insert(quote, roll < 0.09 ? "\x01" : "\xC3");
      }
    }
    return text;
  }

  // A member value no reader needs: mostly inert (short integers, nested
  // objects of them), sometimes not (a fraction, an exponent, a number
  // too long or malformed, an object naming a call, a non-empty array).
  std::string Extra() {
    return Pick({"null",
                 "true",
                 R"("x")",
                 R"("\u00e9")",
                 R"("bad \q")",
                 "[]",
                 "{}",
                 "812",
                 "-0",
                 "0",
                 R"({"input_tokens": 812, "output_tokens": 64})",
                 R"({"cache": {"read": 0, "write": 12}})",
                 "1.5",
                 "1e3",
                 "0123",
                 "123456789012345",
                 "1234567890123456",
                 "-",
                 R"({"name": "x", "input": {}})",
                 R"({"args": 1})",
                 "[1]",
                 R"({"a": 1, "a": 2})",
                 R"({"k\u0061": 1})",
                 R"({"finish_reason": "length"})",
                 R"({"finish_reason": "stop"})",
                 R"({"m": {"stop_reason": null}})",
                 R"({"finishReason": "STOP"})",
                 R"({"status": "failed"})",
                 R"({"promptFeedback": {"blockReason": "SAFETY"}})"});
  }

  // A top-level stop signal member (native_stop.h): mostly one that says
  // complete, else cut, failed, unknown, null, of another type, escaped
  // (validly or not), under another provider's key, or promptFeedback.
  std::string StopMember() {
    static const char* const kKeys[] = {"stop_reason", "finish_reason",
                                        "finishReason", "status"};
    static const char* const kComplete[] = {R"("tool_use")", R"("tool_calls")",
                                            R"("STOP")", R"("completed")"};
    const size_t key = Index(4);
    if (Chance(0.03)) {
      return Member("promptFeedback",
                    Pick({R"({"blockReason": "SAFETY"})", "{}", "null"}));
    }
    if (Chance(0.5)) return Member(kKeys[key], kComplete[key]);
    return Member(
        kKeys[Index(4)],
        Pick({R"("end_turn")", R"("stop_sequence")", R"("max_tokens")",
              R"("pause_turn")", R"("refusal")", R"("stop")", R"("length")",
              R"("content_filter")", R"("function_call")", R"("MAX_TOKENS")",
              R"("SAFETY")", R"("incomplete")", R"("failed")", R"("")",
              R"("tool\u005fuse")", R"("tool\u005fcalls")", R"("bad \q")",
              "null", "1", "{}", "[]", R"("tool_use")", R"("completed")"}));
  }

  std::string Object(const std::vector<std::string>& members) {
    return absl::StrCat("{", Ws(), absl::StrJoin(members, "," + Ws()), Ws(),
                        "}");
  }
  std::string Member(absl::string_view key, absl::string_view value) {
    return absl::StrCat("\"", key, "\"", Ws(), ":", Ws(), value);
  }
  std::string Ws() {
    static const char* const kWs[] = {"", "", "", " ", "\n  ", "\t"};
    return kWs[Index(6)];
  }
  // `usual` most of the time, else one of `others`.
  std::string Mostly(std::string usual, std::vector<std::string> others) {
    return Chance(0.75) ? usual : Pick(std::move(others));
  }
  std::string Pick(std::vector<std::string> options) {
    return options[Index(options.size())];
  }
  size_t Index(size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  bool Chance(double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
  }

  std::mt19937 rng_;
};
inline void ExpectSame(const RawCalls& plain, const RawCalls& general,
                       const std::string& text) {
  EXPECT_TRUE(plain.error.ok()) << text;
  EXPECT_EQ(plain.error.code, general.error.code) << text;
  ASSERT_EQ(plain.calls.size(), general.calls.size()) << text;
  for (size_t i = 0; i < plain.calls.size(); ++i) {
    const RawCall& a = plain.calls[i];
    const RawCall& b = general.calls[i];
    EXPECT_EQ(a.id, b.id) << text;
    EXPECT_EQ(a.name, b.name) << text;
    EXPECT_EQ(a.source, b.source) << text;
    EXPECT_EQ(a.error.code, b.error.code) << text;
    EXPECT_EQ(a.error.pointer, b.error.pointer) << text;
    EXPECT_EQ(a.error.message, b.error.message) << text;
    if (a.error.ok()) {
      EXPECT_EQ(a.arguments, b.arguments) << text;
    }
    EXPECT_EQ(a.candidates_seen, b.candidates_seen);
    EXPECT_TRUE(a.repairs.empty() && a.coercions.empty() &&
                a.sanitizations.empty());
  }
}

struct Tally {
  int plain_answers = 0;
  int argument_errors = 0;
  int general_refusals = 0;
  int dispatched = 0;  // Of the plain answers, by ReadPlainNative too.
};

// Reads `n` made outputs both ways; every plain answer must be the
// general reader's.
template <typename MakerT>
Tally Compare(MakerT maker, int n,
              std::optional<RawCalls> (*plain_reader)(absl::string_view,
                                                      const JsonLimits&)) {
  const JsonLimits limits;
  Tally tally;
  for (int i = 0; i < n; ++i) {
    const std::string text = maker.Make();
    const RawCalls general = ReadNativeCallsGeneral(text, limits);
    if (!general.error.ok()) ++tally.general_refusals;
    const std::optional<RawCalls> plain = plain_reader(text, limits);
    if (!plain.has_value()) continue;
    ++tally.plain_answers;
    for (const RawCall& call : plain->calls) {
      if (!call.error.ok()) ++tally.argument_errors;
    }
    ExpectSame(*plain, general, text);
    if (::testing::Test::HasFailure()) break;
    // The dispatcher answers as the reader for the shape, unless the key
    // it tells the shape by is written with an escape.
    const std::optional<RawCalls> any = ReadPlainNative(text, limits);
    if (any.has_value()) {
      ++tally.dispatched;
      ExpectSame(*any, general, text);
    }
  }
  return tally;
}

}  // namespace plain_testing
}  // namespace gate_internal
}  // namespace toolgate

#endif  // TOOLGATE_CORE_GATE_PLAIN_NATIVE_TESTUTIL_H_
