// The plain OpenAI reader must answer exactly as the general reader
// whenever it answers at all.
#include "core/gate/plain_openai.h"

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace gate_internal {
namespace {

// Messages from pieces: the plain shape, its near misses (a number, a
// nested value, an extra or repeated member, a key naming a call, a type
// that is not "function", escapes valid and not, content that looks like
// a call) and broken JSON.
class MessageMaker {
 public:
  explicit MessageMaker(uint32_t seed) : rng_(seed) {}

  std::string Make() {
    std::vector<std::string> members;
    members.push_back(Member(
        "role", Pick({R"("assistant")", R"("assistant")", R"("assistant")",
                      R"("assistant")", R"("assist\u0061nt")", R"("bad\x")"})));
    if (Chance(0.8)) {
      members.push_back(Member(
          "content",
          Pick({"null", "null", "null", R"("I will file the ticket.")",
                R"("I will file the ticket.")",
                R"("<tool_call>{\"name\": \"x\"}</tool_call>")",
                R"("line\nbreak \u00e9")", "[]",
                R"([{"type": "text", "text": "hi"}])", "12", R"("\ud800")"})));
    }
    if (Chance(0.5))
      members.push_back(Member("refusal", Pick({"null", R"("no")"})));
    if (Chance(0.3))
      members.push_back(Member("annotations", Pick({"[]", "[1]", "[ ]"})));
    if (Chance(0.2))
      members.push_back(Member("audio", Pick({"null", "{}", "true"})));
    if (Chance(0.08)) {
      members.push_back(
          Member("function_call",
                 Pick({"null", R"({"name": "x", "arguments": "{}"})"})));
    }
    if (Chance(0.05)) members.push_back(Member("name", R"("x")"));
    if (Chance(0.92)) members.push_back(Member("tool_calls", ToolCalls()));
    if (Chance(0.05)) members.push_back(members[Index(members.size())]);
    std::shuffle(members.begin(), members.end(), rng_);
    std::string text = absl::StrCat(
        Ws(), "{", Ws(), absl::StrJoin(members, "," + Ws()), Ws(), "}", Ws());
    return Break(std::move(text));
  }

 private:
  std::string ToolCalls() {
    if (Chance(0.05)) return Pick({"null", "{}", "[]"});
    std::vector<std::string> calls;
    for (size_t n = 1 + Index(2); n > 0; --n) calls.push_back(Call());
    return absl::StrCat("[", Ws(), absl::StrJoin(calls, "," + Ws()), Ws(), "]");
  }

  std::string Call() {
    std::vector<std::string> members;
    if (Chance(0.9)) {
      members.push_back(
          Member("id", Pick({R"("call_Vx3t9QkYp2")", R"("call_Vx3t9QkYp2")",
                             R"("call_Vx3t9QkYp2")", R"("c\u00e9")", "7"})));
    }
    if (Chance(0.95)) {
      members.push_back(
          Member("type", Pick({R"("function")", R"("function")", R"("func")",
                               R"("fun\u0063tion")"})));
    }
    if (Chance(0.95)) members.push_back(Member("function", Function()));
    if (Chance(0.06)) {
      members.push_back(Pick({R"("index": 0)", R"("name": "x")",
                              R"("arguments": "{}")", R"("extra": {})"}));
    }
    if (Chance(0.03)) members.push_back(members[Index(members.size())]);
    std::shuffle(members.begin(), members.end(), rng_);
    return absl::StrCat("{", Ws(), absl::StrJoin(members, "," + Ws()), Ws(),
                        "}");
  }

  std::string Function() {
    std::vector<std::string> members;
    if (Chance(0.95)) {
      members.push_back(
          Member("name", Pick({R"("create_ticket")", R"("create_ticket")",
                               R"("")", "1", R"("cre\u0061te_ticket")"})));
    }
    if (Chance(0.95)) {
      members.push_back(Member(
          "arguments",
          Pick({R"("{\"title\": \"Refund\", \"priority\": \"high\"}")",
                R"("{\"title\": \"Refund\", \"priority\": \"high\"}")",
                R"("{}")", R"("")", R"("[1]")", R"("{\"a\": 1, \"a\": 2}")",
                R"("{\"q\": \"\\ud800\"}")", R"("\ud800")", "{}",
                R"("{\"n\": 1e400}")", R"("{\"t\": \"\u00e9\"}")"})));
    }
    if (Chance(0.05)) {
      members.push_back(Pick(
          {R"("input": {})", R"("parameters": "x")", R"("description": "d")"}));
    }
    std::shuffle(members.begin(), members.end(), rng_);
    return absl::StrCat("{", Ws(), absl::StrJoin(members, "," + Ws()), Ws(),
                        "}");
  }

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

  std::string Member(absl::string_view key, absl::string_view value) {
    return absl::StrCat("\"", key, "\"", Ws(), ":", Ws(), value);
  }
  std::string Ws() {
    static const char* const kWs[] = {"", "", "", " ", "\n  ", "\t"};
    return kWs[Index(6)];
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

void ExpectSame(const RawCalls& plain, const RawCalls& general,
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

TEST(PlainOpenAITest, AnswersAsTheGeneralReaderWheneverItAnswers) {
  MessageMaker maker(20261127);
  const JsonLimits limits;
  int plain_answers = 0;
  int argument_errors = 0;
  int general_refusals = 0;
  for (int n = 0; n < 30000; ++n) {
    const std::string text = maker.Make();
    const RawCalls general = ReadNativeCallsGeneral(text, limits);
    if (!general.error.ok()) ++general_refusals;
    const std::optional<RawCalls> plain = ReadPlainOpenAIMessage(text, limits);
    if (!plain.has_value()) continue;
    ++plain_answers;
    for (const RawCall& call : plain->calls) {
      if (!call.error.ok()) ++argument_errors;
    }
    ExpectSame(*plain, general, text);
    if (HasFailure()) return;
  }
  // The plain path answers often, including calls whose arguments fail,
  // and the generator makes plenty the general reader refuses.
  EXPECT_GT(plain_answers, 1000);
  EXPECT_GT(argument_errors, 300);
  EXPECT_GT(general_refusals, 3000);
}

TEST(PlainOpenAITest, LeavesLimitsToTheGeneralReader) {
  const std::string text =
      R"({"role": "assistant", "tool_calls": [{"id": "c", "type": "function",)"
      R"( "function": {"name": "f", "arguments": "{}"}}]})";
  ASSERT_TRUE(ReadPlainOpenAIMessage(text, JsonLimits()).has_value());
  JsonLimits shallow;
  shallow.max_depth = 3;
  EXPECT_FALSE(ReadPlainOpenAIMessage(text, shallow).has_value());
  JsonLimits small;
  small.max_bytes = text.size() - 1;
  EXPECT_FALSE(ReadPlainOpenAIMessage(text, small).has_value());
}

}  // namespace
}  // namespace gate_internal
}  // namespace toolgate
