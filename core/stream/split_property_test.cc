// The property of issue 13: for generated calls, splitting the argument
// text at every byte offset (inside escapes and multi-byte UTF-8 too)
// decides exactly as the unary call with the same arguments, with the same
// arguments; dropping the stream's terminal event always yields REJECT.
//
// A split inside one multi-byte UTF-8 character cannot be sent as JSON (a
// JSON text is UTF-8, and so each event must be): such an event is not
// strict JSON and the stream is refused (malformed_stream), never ALLOWed.
// Those offsets are checked for exactly that.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/json/utf8.h"
#include "gtest/gtest.h"
#include "tests/stream/golden_cases.h"

namespace toolgate {
namespace {

using stream::Format;

// A JSON string literal of `bytes` escaping only what JSON requires, and
// leaving every other byte as is (so a cut UTF-8 sequence stays cut).
std::string Quote(const std::string& bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += absl::StrCat("\\u", absl::Hex(c, absl::kZeroPad4));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Pieces of a location value as they appear in argument JSON text:
// escapes, raw multi-byte characters, escaped astral characters.
const char* const kPieces[] = {
    "Paris", "S\\u00e3o Paulo", "Z\xc3\xbcrich",    "\\\"q\\\"",      "a\\\\b",
    "\\n",   "\xe4\xb8\xad",    "\xf0\x9f\x98\x80", "\\ud83d\\ude00", " / ",
    "\\t",   "x\\/y",
};

// Argument texts for get_weather: valid ones and ones the unary call
// rejects (schema, strict parse), in varied layouts.
std::vector<std::string> GeneratedArguments() {
  std::mt19937 rng(20261127);
  std::vector<std::string> out;
  for (int i = 0; i < 24; ++i) {
    std::string location;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) location += kPieces[rng() % std::size(kPieces)];
    const std::string loc = "\"location\":\"" + location + "\"";
    switch (i % 6) {
      case 0:
        out.push_back("{" + loc + "}");
        break;
      case 1:
        out.push_back("{ \"unit\" : \"celsius\" ,\n " + loc + " }");
        break;
      case 2:
        out.push_back("{" + loc + ",\"unit\":\"kelvin\"}");
        break;
      case 3:
        out.push_back("{" + loc + ",}");
        break;  // Not strict JSON.
      case 4:
        out.push_back("{" + loc + "," + loc + "}");
        break;  // Dup key.
      default:
        out.push_back("{" + loc + ",\"extra\":1}");
        break;
    }
  }
  return out;
}

std::string ChatStream(const std::vector<std::string>& parts,
                       std::vector<std::string>* events) {
  events->push_back(
      R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"get_weather","arguments":""}}]}}]})");
  for (const std::string& p : parts) {
    events->push_back(
        R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":)" +
        Quote(p) + "}}]}}]}");
  }
  events->push_back(
      R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})");
  return "[DONE]";  // Optional trailer: appended by half the runs.
}

void AnthropicStream(const std::vector<std::string>& parts,
                     std::vector<std::string>* events) {
  events->push_back(R"({"type":"message_start","message":{"content":[]}})");
  events->push_back(
      R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"c1","name":"get_weather","input":{}}})");
  for (const std::string& p : parts) {
    events->push_back(
        R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":)" +
        Quote(p) + "}}");
  }
  events->push_back(R"({"type":"content_block_stop","index":0})");
  events->push_back(
      R"({"type":"message_delta","delta":{"stop_reason":"tool_use"}})");
  events->push_back(R"({"type":"message_stop"})");
}

void ResponsesStream(const std::vector<std::string>& parts,
                     const std::string& whole,
                     std::vector<std::string>* events) {
  events->push_back(
      R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"get_weather","arguments":""}})");
  for (const std::string& p : parts) {
    events->push_back(
        R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":)" +
        Quote(p) + "}");
  }
  events->push_back(
      R"({"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","call_id":"c1","name":"get_weather","arguments":)" +
      Quote(whole) + "}}");
  events->push_back(
      R"({"type":"response.completed","response":{"status":"completed"}})");
}

std::vector<std::string> Events(Format format,
                                const std::vector<std::string>& parts,
                                const std::string& whole) {
  std::vector<std::string> events;
  if (format == Format::kOpenAIChat) {
    ChatStream(parts, &events);
  } else if (format == Format::kAnthropicMessages) {
    AnthropicStream(parts, &events);
  } else {
    ResponsesStream(parts, whole, &events);
  }
  return events;
}

// Whether offset `k` of `text` falls inside one UTF-8 character.
bool InsideCharacter(const std::string& text, size_t k) {
  return k > 0 && k < text.size() &&
         (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
}

class SplitProperty : public ::testing::Test {
 protected:
  ValidateCallResponse Decide(ValidateCallRequest r) {
    return golden_.Decide(std::move(r));
  }
  ValidateCallResponse Unary(const std::string& arguments) {
    Json message = {
        {"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         {{{"id", "c1"},
           {"type", "function"},
           {"function",
            {{"name", "get_weather"}, {"arguments", arguments}}}}}}};
    const std::string native = message.dump();
    ValidateCallRequest r;
    r.kind = OutputKind::kNative;
    r.output = native;
    return Decide(r);
  }
  ValidateCallResponse Streamed(Format format,
                                const std::vector<std::string>& events) {
    ValidateCallRequest r;
    r.kind = OutputKind::kStream;
    r.stream_format = format;
    r.stream_events.assign(events.begin(), events.end());
    return Decide(r);
  }
  static std::vector<std::string> Codes(const ValidateCallResponse& r) {
    std::vector<std::string> codes;
    for (const Violation& v : r.violations) codes.push_back(v.code);
    return codes;
  }

  testutil::GoldenEngine golden_;
};

TEST_F(SplitProperty, EveryByteOffsetDecidesAsTheUnaryCall) {
  int allowed = 0, rejected = 0, cut_characters = 0;
  for (const std::string& args : GeneratedArguments()) {
    ASSERT_EQ(FindInvalidUtf8(args), std::string::npos);
    const ValidateCallResponse whole = Unary(args);
    (whole.decision == Decision::kAllow ? allowed : rejected)++;
    for (Format format : {Format::kOpenAIChat, Format::kAnthropicMessages,
                          Format::kOpenAIResponses}) {
      for (size_t k = 0; k <= args.size(); ++k) {
        std::vector<std::string> events =
            Events(format, {args.substr(0, k), args.substr(k)}, args);
        if (format == Format::kOpenAIChat && k % 2 == 0) {
          events.push_back("[DONE]");
        }
        const ValidateCallResponse got = Streamed(format, events);
        const std::string where = absl::StrCat(stream::FormatName(format),
                                               " split at ", k, " of ", args);
        if (InsideCharacter(args, k)) {
          ++cut_characters;
          EXPECT_EQ(got.decision, Decision::kReject) << where;
          EXPECT_EQ(Codes(got), std::vector<std::string>{"malformed_stream"})
              << where;
          continue;
        }
        EXPECT_EQ(got.decision, whole.decision) << where;
        EXPECT_EQ(Codes(got), Codes(whole)) << where;
        ASSERT_EQ(got.calls.size(), whole.calls.size()) << where;
        for (size_t i = 0; i < got.calls.size(); ++i) {
          EXPECT_EQ(got.calls[i].arguments_json, whole.calls[i].arguments_json)
              << where;
          EXPECT_EQ(got.calls[i].source, stream::SourceName(format));
        }
      }
    }
  }
  // The generator covers both outcomes and cut characters.
  EXPECT_GT(allowed, 3);
  EXPECT_GT(rejected, 10);
  EXPECT_GT(cut_characters, 10);
}

TEST_F(SplitProperty, ManyFragmentsDecideAsTheUnaryCall) {
  std::mt19937 rng(7);
  for (const std::string& args : GeneratedArguments()) {
    const ValidateCallResponse whole = Unary(args);
    // Cut at character boundaries into up to 8 fragments, some empty.
    std::vector<std::string> parts;
    size_t last = 0;
    for (size_t k = 0; k <= args.size(); ++k) {
      if (k == args.size() || (!InsideCharacter(args, k) && rng() % 5 == 0)) {
        parts.push_back(args.substr(last, k - last));
        last = k;
      }
    }
    for (Format format : {Format::kOpenAIChat, Format::kAnthropicMessages,
                          Format::kOpenAIResponses}) {
      const ValidateCallResponse got =
          Streamed(format, Events(format, parts, args));
      EXPECT_EQ(got.decision, whole.decision) << args;
      EXPECT_EQ(Codes(got), Codes(whole)) << args;
    }
  }
}

TEST_F(SplitProperty, DroppingTheTerminalEventAlwaysRejects) {
  for (const std::string& args : GeneratedArguments()) {
    for (Format format : {Format::kOpenAIChat, Format::kAnthropicMessages,
                          Format::kOpenAIResponses}) {
      for (size_t k = 0; k <= args.size(); k += 3) {
        if (InsideCharacter(args, k)) continue;
        std::vector<std::string> events =
            Events(format, {args.substr(0, k), args.substr(k)}, args);
        events.pop_back();  // The finish chunk, message_stop, completed.
        const ValidateCallResponse got = Streamed(format, events);
        EXPECT_EQ(got.decision, Decision::kReject) << args;
        EXPECT_EQ(Codes(got), std::vector<std::string>{"truncated_stream"});
        // And any shorter prefix too.
        events.resize(k % events.size());
        EXPECT_EQ(Streamed(format, events).decision, Decision::kReject);
      }
    }
  }
  // Gemini's terminal event is its finishReason chunk.
  const std::vector<std::string> gemini = {
      R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"location":"Paris"}}}]}}]})"};
  EXPECT_EQ(Streamed(Format::kGemini, gemini).decision, Decision::kReject);
}

}  // namespace
}  // namespace toolgate
