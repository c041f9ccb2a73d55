// Google Benchmark of stream assembly (core/stream), in MB/s of events:
// how fast a provider's server-sent events become the output toolgate
// decides on, per format, and what deciding a stream costs over deciding
// the same content sent whole.
//
// Each stream is one get_weather-like call whose argument text is a JSON
// object of `arg_bytes` bytes (escapes and non-ASCII included), streamed in
// fragments of `fragment` bytes the way providers stream tokens (OpenAI
// chat chunks, Responses deltas, Anthropic input_json_delta; Gemini sends
// whole calls, so its stream is text deltas and one call). Counters:
// events, event bytes, and held_bytes (what the assembler holds at the end:
// the assembled content, not the events). Not a test: nothing asserts
// timing.
//
//   bazel run -c opt //bench/stream:stream_benchmark
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine/engine.h"
#include "core/stream/assembler.h"

namespace toolgate {
namespace {

using stream::Format;

std::string Arguments(size_t bytes) {
  std::string note;
  const std::string piece = R"(Z\u00fcrich \"q\" caf)"
                            "\xc3\xa9 ";
  while (note.size() + piece.size() < bytes) note += piece;
  return R"({"location":"Paris, France","unit":"celsius","note":")" + note +
         "\"}";
}

std::string Q(const std::string& s) { return Json(s).dump(); }

std::vector<std::string> Fragments(const std::string& text, size_t size) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    size_t n = std::min(size, text.size() - i);
    // Never cut a UTF-8 character (providers cannot either).
    while (i + n < text.size() &&
           (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) {
      ++n;
    }
    out.push_back(text.substr(i, n));
    i += n;
  }
  return out;
}

std::vector<std::string> Stream(Format format, const std::string& args,
                                size_t fragment) {
  std::vector<std::string> ev;
  const std::vector<std::string> parts = Fragments(args, fragment);
  const std::string chat_head =
      R"({"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1732600000,"model":"gpt-4o","choices":[{"index":0,"delta":)";
  switch (format) {
    case Format::kOpenAIChat:
      ev.push_back(
          chat_head +
          R"({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]})");
      for (const auto& p : parts) {
        ev.push_back(chat_head +
                     R"({"tool_calls":[{"index":0,"function":{"arguments":)" +
                     Q(p) + R"(}}]},"finish_reason":null}]})");
      }
      ev.push_back(chat_head + R"({},"finish_reason":"tool_calls"}]})");
      ev.push_back("[DONE]");
      break;
    case Format::kOpenAIResponses:
      ev.push_back(
          R"({"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}})");
      for (const auto& p : parts) {
        ev.push_back(
            R"({"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":)" +
            Q(p) + "}");
      }
      ev.push_back(
          R"({"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":)" +
          Q(args) + R"(,"status":"completed"}})");
      ev.push_back(
          R"({"type":"response.completed","sequence_number":4,"response":{"status":"completed"}})");
      break;
    case Format::kAnthropicMessages:
      ev.push_back(
          R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null}})");
      ev.push_back(
          R"({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}})");
      for (const auto& p : parts) {
        ev.push_back(
            R"({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":)" +
            Q(p) + "}}");
      }
      ev.push_back(R"({"type":"content_block_stop","index":0})");
      ev.push_back(
          R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}})");
      ev.push_back(R"({"type":"message_stop"})");
      break;
    default:  // Gemini: text deltas, then the whole call.
      for (const auto& p : Fragments(std::string(args.size(), 'w'), fragment)) {
        ev.push_back(
            R"({"candidates":[{"content":{"role":"model","parts":[{"text":)" +
            Q(p) + R"(}]},"index":0}],"modelVersion":"gemini-2.5-flash"})");
      }
      ev.push_back(
          R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":)" +
          args + R"(}}]},"finishReason":"STOP","index":0}]})");
  }
  return ev;
}

void Assemble(benchmark::State& state, Format format) {
  const std::string args = Arguments(static_cast<size_t>(state.range(0)));
  const std::vector<std::string> events =
      Stream(format, args, static_cast<size_t>(state.range(1)));
  size_t bytes = 0;
  for (const auto& e : events) bytes += e.size();
  stream::Limits limits;
  limits.max_bytes = size_t{1} << 30;
  size_t held = 0;
  for (auto _ : state) {
    auto assembler = stream::Assembler::Create(format, limits);
    for (const auto& e : events) assembler->Add(e);
    held = assembler->assembled_bytes();
    stream::Assembly out = assembler->Finish();
    if (!out.error.ok()) state.SkipWithError(out.error.message.c_str());
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["events"] = static_cast<double>(events.size());
  state.counters["event_bytes"] = static_cast<double>(bytes);
  state.counters["held_bytes"] = static_cast<double>(held);
}

void BM_AssembleOpenAIChat(benchmark::State& s) {
  Assemble(s, Format::kOpenAIChat);
}
void BM_AssembleOpenAIResponses(benchmark::State& s) {
  Assemble(s, Format::kOpenAIResponses);
}
void BM_AssembleAnthropic(benchmark::State& s) {
  Assemble(s, Format::kAnthropicMessages);
}
void BM_AssembleGemini(benchmark::State& s) { Assemble(s, Format::kGemini); }

// {argument bytes, fragment bytes}: token-sized fragments (8 B) of a
// typical (200 B) and a large (16 KB) call, and coarse 256 B fragments.
#define SIZES ->Args({200, 8})->Args({16000, 8})->Args({16000, 256})
BENCHMARK(BM_AssembleOpenAIChat) SIZES;
BENCHMARK(BM_AssembleOpenAIResponses) SIZES;
BENCHMARK(BM_AssembleAnthropic) SIZES;
BENCHMARK(BM_AssembleGemini) SIZES;

constexpr char kManifest[] =
    R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]},"note":{"type":"string"}},"required":["location"],"additionalProperties":false}}}])";

// A whole decision: the stream through the engine, against the same
// content sent whole as native_json (the floor a stream cannot beat).
void Decide(benchmark::State& state, bool streamed) {
  Engine engine;
  auto snapshot = engine.CreateSnapshot(kManifest, ManifestFormat::kOpenAI, "");
  const std::string args = Arguments(static_cast<size_t>(state.range(0)));
  const std::vector<std::string> events = Stream(Format::kOpenAIChat, args, 8);
  const std::string native =
      R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":)" +
      Q(args) + "}}]}";
  ValidateCallRequest request;
  request.snapshot_id = (*snapshot)->id();
  if (streamed) {
    request.kind = OutputKind::kStream;
    request.stream_format = Format::kOpenAIChat;
    request.stream_events.assign(events.begin(), events.end());
  } else {
    request.kind = OutputKind::kNative;
    request.output = native;
  }
  for (auto _ : state) {
    auto out = engine.ValidateToolCall(request);
    if (!out.ok() || out->decision != Decision::kAllow) {
      state.SkipWithError("not ALLOW");
    }
    benchmark::DoNotOptimize(out);
  }
}
void BM_DecideStreamedOpenAIChat(benchmark::State& s) { Decide(s, true); }
void BM_DecideNativeSameContent(benchmark::State& s) { Decide(s, false); }
BENCHMARK(BM_DecideStreamedOpenAIChat)->Arg(200)->Arg(16000);
BENCHMARK(BM_DecideNativeSameContent)->Arg(200)->Arg(16000);

}  // namespace
}  // namespace toolgate

BENCHMARK_MAIN();
