// The plain readers must answer exactly as the general reader whenever
// they answer at all.
#include "core/gate/plain_native.h"

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
                 R"({"k\u0061": 1})"});
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
    if (Chance(0.7)) members.push_back(Member("stop_reason", R"("tool_use")"));
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
      blocks.push_back(Object({Member("type", R"("thinking")"),
                               Member("thinking", R"("first, search")"),
                               Member("signature", R"("c2lnbmF0dXJl")")}));
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
