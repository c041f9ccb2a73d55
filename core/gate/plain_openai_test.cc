// The plain OpenAI reader must answer exactly as the general reader
// whenever it answers at all.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/gate/plain_native.h"
#include "core/gate/plain_native_testutil.h"
#include "gtest/gtest.h"

namespace toolgate {
namespace gate_internal {
namespace {

using plain_testing::Compare;
using plain_testing::Maker;
using plain_testing::Tally;

// Messages from pieces: the plain shape, its near misses (a number, a
// nested value, an extra or repeated member, a key naming a call, a type
// that is not "function", escapes valid and not, content that looks like
// a call) and broken JSON.
class MessageMaker : public Maker {
 public:
  using Maker::Maker;

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
    if (Chance(0.2)) members.push_back(Member("audio", Extra()));
    if (Chance(0.08)) {
      members.push_back(
          Member("function_call",
                 Pick({"null", R"({"name": "x", "arguments": "{}"})"})));
    }
    if (Chance(0.05)) members.push_back(Member("name", R"("x")"));
    if (Chance(0.3)) members.push_back(StopMember());
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
};
TEST(PlainOpenAITest, AnswersAsTheGeneralReaderWheneverItAnswers) {
  const Tally t =
      Compare(MessageMaker(20261127), 30000, &ReadPlainOpenAIMessage);
  // The plain path answers often, including calls whose arguments fail,
  // and the generator makes plenty the general reader refuses.
  EXPECT_GT(t.plain_answers, 1000);
  EXPECT_GT(t.argument_errors, 300);
  EXPECT_GT(t.general_refusals, 3000);
  EXPECT_GT(t.dispatched, t.plain_answers * 3 / 4);
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
