// Stream assembly end to end: arbitrary provider events through
// core/stream and Engine::ValidateToolCall (stateless, the golden stream
// manifest's tools inline below).
//
// Input: one option byte (bits 0-1: the format, OPENAI_CHAT .. GEMINI;
// bit 2: SYNTAX_REPAIR), then the events, one per line.
//
// Invariants (assembler.h, docs/streaming.md):
//  * a refused stream is one of the five stop codes, with a message and a
//    pointer that is "" or /events/N for an event given; its decision is
//    REJECT with exactly that one violation;
//  * a completed stream's output is text, or a strict-JSON OpenAI
//    assistant message whose tool_calls name a function with string
//    arguments; and the stream decides exactly (decision, codes, calls'
//    names and arguments) as the unary native/text call of that output;
//  * ALLOW only from a completed stream;
//  * splitting the events differently (one at a time vs all at once) and
//    deciding twice give the same result.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/engine/engine.h"
#include "core/stream/assembler.h"
#include "tests/fuzz/fuzz_support.h"

namespace toolgate {
namespace {

constexpr char kManifest[] = R"([
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string","minLength":1},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"],"additionalProperties":false}}},
 {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"timezone":{"type":"string"}},"required":["timezone"],"additionalProperties":false}}},
 {"type":"function","function":{"name":"list_cities","parameters":{"type":"object","properties":{},"additionalProperties":false}}}])";

struct Fixture {
  Engine engine;
  std::string id;
};

Fixture& Shared() {
  static Fixture* const kFixture = [] {
    auto* f = new Fixture;
    auto s = f->engine.CreateSnapshot(kManifest, ManifestFormat::kOpenAI, "");
    FUZZ_CHECK(s.ok(), "manifest: %s",
               std::string(s.status().message()).c_str());
    f->id = (*s)->id();
    return f;
  }();
  return *kFixture;
}

std::vector<std::string> Codes(const ValidateCallResponse& r) {
  std::vector<std::string> codes;
  for (const Violation& v : r.violations) codes.push_back(v.code);
  return codes;
}

void CheckRefusal(const stream::Assembly& a, size_t events) {
  static const char* const kCodes[] = {"truncated_output", "stream_error",
                                       "truncated_stream", "malformed_stream",
                                       "input_too_large"};
  bool known = false;
  for (const char* c : kCodes) known |= a.error.code == c;
  FUZZ_CHECK(known, "unknown stop code %s", a.error.code.c_str());
  FUZZ_CHECK(!a.error.message.empty(), "%s without a message",
             a.error.code.c_str());
  FUZZ_CHECK(a.output.empty(), "a refused stream with output");
  absl::string_view p = a.error.pointer;
  size_t index = 0;
  FUZZ_CHECK(p.empty() || (absl::ConsumePrefix(&p, "/events/") &&
                           absl::SimpleAtoi(p, &index) && index < events),
             "pointer %s for %zu events", a.error.pointer.c_str(), events);
}

void CheckOutput(const stream::Assembly& a) {
  if (!a.native) return;
  absl::StatusOr<Json> message = ParseStrictJson(a.output);
  FUZZ_CHECK(message.ok(), "native output is not strict JSON");
  const Json& calls = (*message)["tool_calls"];
  FUZZ_CHECK(calls.is_array() && !calls.empty(), "native output, no calls");
  for (const Json& c : calls) {
    FUZZ_CHECK(c["function"]["name"].is_string() &&
                   !c["function"]["name"].get<std::string>().empty() &&
                   c["function"]["arguments"].is_string(),
               "a call without a name or string arguments");
  }
}

ValidateCallResponse Decide(ValidateCallRequest r) {
  r.snapshot_id = Shared().id;
  absl::StatusOr<ValidateCallResponse> out = Shared().engine.ValidateToolCall(r);
  FUZZ_CHECK(out.ok(), "engine status %s",
             std::string(out.status().message()).c_str());
  return *std::move(out);
}

void CheckSame(const ValidateCallResponse& a, const ValidateCallResponse& b,
               const char* what) {
  FUZZ_CHECK(a.decision == b.decision && Codes(a) == Codes(b) &&
                 a.calls.size() == b.calls.size(),
             "%s: %s vs %s", what, std::string(DecisionName(a.decision)).c_str(),
             std::string(DecisionName(b.decision)).c_str());
  for (size_t i = 0; i < a.calls.size(); ++i) {
    FUZZ_CHECK(a.calls[i].name == b.calls[i].name &&
                   a.calls[i].arguments_json == b.calls[i].arguments_json,
               "%s: call %zu differs", what, i);
  }
}

}  // namespace
}  // namespace toolgate

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolgate;
  if (size < 1) return 0;
  const stream::Format format = static_cast<stream::Format>(1 + (data[0] & 3));
  const bool repair = (data[0] & 4) != 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::vector<std::string> events = absl::StrSplit(text, '\n');

  auto assembler = stream::Assembler::Create(format, stream::Limits());
  for (const std::string& e : events) assembler->Add(e);
  const stream::Assembly assembly = assembler->Finish();

  ValidateCallRequest request;
  request.kind = OutputKind::kStream;
  request.stream_format = format;
  request.stream_events.assign(events.begin(), events.end());
  request.syntax_repair = repair;
  const ValidateCallResponse streamed = Decide(request);
  CheckSame(streamed, Decide(request), "deciding twice");

  // The same assembly handed over whole, as the streaming RPC does.
  ValidateCallRequest given = request;
  given.assembled = &assembly;
  CheckSame(streamed, Decide(given), "pre-assembled");

  if (!assembly.error.ok()) {
    CheckRefusal(assembly, events.size());
    FUZZ_CHECK(streamed.decision == Decision::kReject &&
                   Codes(streamed) == std::vector<std::string>{assembly.error.code},
               "a refused stream decided %s",
               std::string(DecisionName(streamed.decision)).c_str());
    return 0;
  }
  CheckOutput(assembly);
  ValidateCallRequest whole;
  whole.kind = assembly.native ? OutputKind::kNative : OutputKind::kText;
  whole.output = assembly.output;
  whole.syntax_repair = repair;
  CheckSame(streamed, Decide(whole), "unary output");
  return 0;
}
