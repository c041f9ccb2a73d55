// The plain Anthropic and MCP readers must answer exactly as the general
// reader whenever they answer at all, and ReadPlainNative as they do.
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
using plain_testing::ExpectSame;
using plain_testing::Maker;
using plain_testing::Tally;

// Anthropic messages from pieces: text, thinking and tool_use blocks and
// their near misses (a block type not let pass or escaped, a missing or
// non-string member, a name or arguments where no call is read, input
// that is not an object, not strict or too deep, call-like text).
class AnthropicMaker : public Maker {
 public:
  using Maker::Maker;

  std::string Make() {
    std::vector<std::string> members = {
        Member("id", R"("msg_01XFDUDYJgAACzvnptvVoYEL")"),
        Member("type", Pick({R"("message")", R"("mess\u0061ge")"})),
        Member("role", R"("assistant")"), Member("content", Content())};
    if (Chance(0.6)) {
      members.push_back(Member("stop_reason", R"("tool_use")"));
    } else if (Chance(0.4)) {
      members.push_back(StopMember());
    }
    if (Chance(0.5)) members.push_back(Member("stop_sequence", "null"));
    if (Chance(0.7)) {
      members.push_back(Member(
          "usage",
          Mostly(R"({"input_tokens": 812, "output_tokens": 64})", {Extra()})));
    }
    if (Chance(0.06)) {
      members.push_back(Pick({R"("name": "x")", R"("tool_calls": [])",
                              R"("function_call": null)", R"("input": {})",
                              R"("content": [])"}));
    }
    if (Chance(0.03)) members.push_back(members[Index(members.size())]);
    std::shuffle(members.begin(), members.end(), rng_);
    return Break(Ws() + Object(members) + Ws());
  }

 private:
  std::string Content() {
    if (Chance(0.03)) return Pick({"[]", "null", R"("text")", "{}"});
    std::vector<std::string> blocks;
    if (Chance(0.7)) blocks.push_back(TextBlock());
    if (Chance(0.15)) {
      std::vector<std::string> thinking = {
          Member("type", R"("thinking")"),
          Member("thinking", R"("first, search")"),
          Member("signature", R"("c2lnbmF0dXJl")")};
      // A "text" member is only read in text blocks, yet must be strict.
      if (Chance(0.3)) {
        thinking.push_back(
            Member("text", Pick({R"("<tool_call>")", R"("bad \q")"})));
      }
      blocks.push_back(Object(thinking));
    }
    for (size_t n = Index(3) + (Chance(0.9) ? 1 : 0); n > 0; --n) {
      blocks.push_back(ToolUse());
    }
    if (Chance(0.04)) blocks.push_back(Pick({"1", "null", "[]"}));
    std::shuffle(blocks.begin(), blocks.end(), rng_);
    return absl::StrCat("[", Ws(), absl::StrJoin(blocks, "," + Ws()), Ws(),
                        "]");
  }

  std::string TextBlock() {
    std::vector<std::string> members = {
        Member("type",
               Mostly(R"("text")", {R"("te\u0078t")", R"("image")", "7"})),
        Member("text", Mostly(R"("I'll look for the ticket.")",
                              {R"("call <tool_call> now")", R"("{\"a\": 1}")",
                               R"("caf\u00e9 ticket")", R"("bad \q")", "3"}))};
    if (Chance(0.05)) {
      members.push_back(
          Pick({R"("name": "x")", R"("citations": null)", R"("id": "t1")",
                R"("stop_reason": "max_tokens")", R"("finishReason": "STOP")",
                R"("status": "failed")",
                R"("id": "t\u00e9")", R"("id": "bad \q")", R"("args": null)",
                "\"input\": " + Input()}));
    }
    if (Chance(0.03)) members.erase(members.begin());
    std::shuffle(members.begin(), members.end(), rng_);
    return Object(members);
  }

  std::string ToolUse() {
    std::vector<std::string> members;
    members.push_back(
        Member("type", Mostly(R"("tool_use")",
                              {R"("tool\u005fuse")", R"("server_tool_use")"})));
    if (Chance(0.9)) {
      members.push_back(Member(
          "id",
          Mostly(R"("toolu_01A09q90qw90lq917835lq9")", {R"("t\u00e9")", "5"})));
    }
    if (Chance(0.96)) {
      members.push_back(
          Member("name", Pick({R"("search_tickets")", R"("search_tickets")",
                               R"("")", R"("se\u0061rch_tickets")", "null"})));
    }
    if (Chance(0.96)) members.push_back(Member("input", Input()));
    if (Chance(0.06)) {
      members.push_back(Pick({R"("arguments": {})", R"("parameters": 1)",
                              R"("cache_control": {"type": "ephemeral"})",
                              R"("text": "x")", R"("text": "bad \q")"}));
    }
    if (Chance(0.03)) members.push_back(members[Index(members.size())]);
    std::shuffle(members.begin(), members.end(), rng_);
    return Object(members);
  }

 protected:
  std::string Input() {
    if (Chance(0.6)) {
      return R"({"query": "refund not received", "status": "open", "limit": 20})";
    }
    return Pick(
        {R"({"query": "refund not received", "status": "open", "limit": 20})",
         R"({"query": "refund not received", "status": "open", "limit": 20})",
         R"({})", R"({"q": {"deep": [1, {"x": [true]}]}})",
         R"({"a": 1, "a": 2})", R"({"n": 1e400})", R"({"s": "\ud800"})",
         R"({"s": "tab	in"})", R"("{}")", "[]", "null",
         R"({"nested": {"name": "x", "input": {}}})", R"({"s": "\"}"})",
         R"({"u": "caf\u00e9", "x": 0.1})", R"({"open": [)"});
  }
};

// MCP tools/call params from pieces, with the same near misses.
class McpMaker : public AnthropicMaker {
 public:
  using AnthropicMaker::AnthropicMaker;

  std::string Make() {
    std::vector<std::string> members;
    if (Chance(0.96)) {
      members.push_back(Member(
          "name",
          Pick({R"("update_customer_email")", R"("update_customer_email")",
                R"("upd\u0061te")", "1", R"("")"})));
    }
    if (Chance(0.96)) members.push_back(Member("arguments", Input()));
    if (Chance(0.2)) members.push_back(Member("_meta", Extra()));
    if (Chance(0.15)) members.push_back(StopMember());
    if (Chance(0.06)) {
      members.push_back(
          Pick({R"("input": {})", R"("content": "x")", R"("content": [])",
                R"("content": "<tool_call>")", R"("tool_calls": null)",
                R"("type": "call")", R"("function_call": null)"}));
    }
    if (Chance(0.03) && !members.empty()) {
      members.push_back(members[Index(members.size())]);
    }
    std::shuffle(members.begin(), members.end(), rng_);
    return Break(Ws() + Object(members) + Ws());
  }
};
TEST(PlainAnthropicTest, AnswersAsTheGeneralReaderWheneverItAnswers) {
  const Tally t =
      Compare(AnthropicMaker(20261128), 30000, &ReadPlainAnthropicMessage);
  EXPECT_GT(t.plain_answers, 1000);
  EXPECT_GT(t.general_refusals, 3000);
  EXPECT_GT(t.dispatched, t.plain_answers * 3 / 4);
}

TEST(PlainMcpTest, AnswersAsTheGeneralReaderWheneverItAnswers) {
  const Tally t = Compare(McpMaker(20261129), 30000, &ReadPlainMcpParams);
  EXPECT_GT(t.plain_answers, 3000);
  EXPECT_GT(t.general_refusals, 3000);
  EXPECT_GT(t.dispatched, t.plain_answers * 3 / 4);
}

// Arguments are parsed apart from the message, under the nesting the
// message leaves them: at every limit the plain readers answer exactly
// when the general reader reads the call.
TEST(PlainNativeTest, ArgumentsGetTheNestingTheOutputLeavesThem) {
  for (int nesting = 1; nesting <= 4; ++nesting) {
    std::string input = "1";
    for (int i = 0; i < nesting; ++i)
      input = absl::StrCat(R"({"a": )", input, "}");
    const std::string anthropic = absl::StrCat(
        R"({"role": "assistant", "usage": {"n": {"m": 1}}, "content": [)",
        R"({"type": "tool_use", "name": "f", "input": )", input, "}]}");
    const std::string mcp =
        absl::StrCat(R"({"name": "f", "arguments": )", input, "}");
    for (int max_depth = 1; max_depth <= 9; ++max_depth) {
      JsonLimits limits;
      limits.max_depth = max_depth;
      for (const std::string& text : {anthropic, mcp}) {
        const RawCalls general = ReadNativeCallsGeneral(text, limits);
        const std::optional<RawCalls> plain = ReadPlainNative(text, limits);
        EXPECT_EQ(plain.has_value(), general.error.ok())
            << text << " max_depth " << max_depth;
        if (plain.has_value()) ExpectSame(*plain, general, text);
      }
    }
  }
}

// The plain readers read a top-level stop signal that says complete
// themselves (the Anthropic hot path carries stop_reason "tool_use") and
// leave every other one (escaped, null, cut, unknown, below the top) to
// the general reader, which refuses the output or reads it the same.
TEST(PlainNativeTest, ReadsCompleteStopSignalsAndLeavesTheRest) {
  const std::string openai =
      R"({"role": "assistant", "tool_calls": [{"id": "c", "type": "function",)"
      R"( "function": {"name": "f", "arguments": "{}"}}])";
  const std::string anthropic =
      R"({"role": "assistant", "content": [{"type": "tool_use", "id": "t",)"
      R"( "name": "f", "input": {}}])";
  const std::string mcp = R"({"name": "f", "arguments": {})";
  struct Signal {
    std::string member;
    bool plain;    // The plain reader answers.
    bool general;  // The general reader reads the calls.
  };
  const Signal signals[] = {
      {R"("stop_reason": "tool_use")", true, true},
      {R"("stop_reason": "end_turn")", true, true},
      {R"("stop_reason": "stop_sequence")", true, true},
      {R"("finish_reason": "tool_calls")", true, true},
      {R"("finish_reason": "stop")", true, true},
      {R"("finishReason": "STOP")", true, true},
      {R"("status": "completed")", true, true},
      {R"("stop_reason": "tool\u005fuse")", false, true},
      {R"("usage": {"finish_reason": "stop"})", false, true},
      {R"("usage": {"status": "failed"})", true, true},
      {R"("stop_reason": "max_tokens")", false, false},
      {R"("stop_reason": "max\u005ftokens")", false, false},
      {R"("stop_reason": "refusal")", false, false},
      {R"("stop_reason": null)", false, false},
      {R"("stop_reason": 1)", false, false},
      {R"("finish_reason": "length")", false, false},
      {R"("finishReason": "MAX_TOKENS")", false, false},
      {R"("status": "incomplete")", false, false},
      {R"("status": "ok")", false, false},
      {R"("promptFeedback": {"blockReason": "SAFETY"})", false, false},
      {R"("usage": {"finish_reason": "length"})", false, false},
  };
  for (const std::string& shape : {openai, anthropic, mcp}) {
    for (const Signal& signal : signals) {
      const std::string text = absl::StrCat(shape, ", ", signal.member, "}");
      const RawCalls general = ReadNativeCallsGeneral(text, JsonLimits());
      const std::optional<RawCalls> plain = ReadPlainNative(text, JsonLimits());
      EXPECT_EQ(plain.has_value(), signal.plain) << text;
      EXPECT_EQ(general.error.ok(), signal.general) << text;
      if (plain.has_value()) ExpectSame(*plain, general, text);
    }
  }
}

}  // namespace
}  // namespace gate_internal
}  // namespace toolgate
