// Assembles a provider's streamed response (server-sent events) into the
// output toolgate decides on, and refuses a stream that did not complete.
//
// Agent runtimes stream; a runtime that reassembles tool-call deltas itself
// is where a cut-off stream turns into a plausible "valid" call. So the
// rule here: only a stream that ended with the provider's own completion
// event assembles to an output. A stream that stopped for length, carried a
// provider error, broke off, or does not follow the format's documented
// event shapes assembles to a StreamError instead, which the pipeline turns
// into a REJECT (or STOP through the run's breaker), never an ALLOW.
//
// The assembler is incremental: Add() takes one event (the `data:` payload
// of one server-sent event: a JSON text, or the literal [DONE]) at a time
// and keeps only what the output will hold (text, and each call's id, name
// and argument text), never the events themselves, so a client stream is
// assembled as it arrives in memory proportional to the assembled content.
//
// A completed stream assembles to exactly what a unary ValidateToolCall
// would be given for the same content, so the decisions are identical by
// construction:
//   - with tool calls: an OpenAI assistant message (native_json)
//     {"role":"assistant","content":TEXT|null,"tool_calls":[{"id","type":
//     "function","function":{"name","arguments":ARGUMENT_TEXT}}]}, the
//     argument text kept exactly as the provider streamed it, so that a
//     broken argument fragment is the same strict-parse REJECT as unary
//     native output (Gemini sends arguments as objects: their canonical
//     JSON);
//   - text only: the text (extraction runs as for unary text).
//
// Thread-safety: an Assembler is used by one thread at a time; the free
// functions are pure.
#ifndef TOOLGATE_CORE_STREAM_ASSEMBLER_H_
#define TOOLGATE_CORE_STREAM_ASSEMBLER_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/json/strict_json.h"
#include "core/stream/stop_signal.h"

namespace toolgate {
namespace stream {

enum class Format {
  kUnspecified,
  kOpenAIChat,
  kOpenAIResponses,
  kAnthropicMessages,
  kGemini,
};

// "openai_chat", "openai_responses", "anthropic_messages", "gemini"; ""
// for kUnspecified.
absl::string_view FormatName(Format format);

// ToolCall.source of an assembled call: "stream_" + FormatName.
std::string SourceName(Format format);

// A format by name: openai_chat, OPENAI_CHAT or STREAM_FORMAT_OPENAI_CHAT
// (any case); nullopt for anything else, UNSPECIFIED included.
std::optional<Format> ParseFormat(absl::string_view name);

// Stable codes of a refused stream.
// (truncated_output and stream_error: stop_signal.h.)
inline constexpr absl::string_view kTruncatedStream = "truncated_stream";
inline constexpr absl::string_view kMalformedStream = "malformed_stream";
inline constexpr absl::string_view kInputTooLarge = "input_too_large";

// The literal OpenAI chat streams end with (and proxies append to others):
// accepted once after a stream's completion event, in every format.
inline constexpr absl::string_view kDoneEvent = "[DONE]";

inline constexpr size_t kDefaultMaxStreamEvents = 100000;

struct Limits {
  JsonLimits json;  // Each event is parsed strictly under these.
  size_t max_events = kDefaultMaxStreamEvents;
  size_t max_bytes = size_t{1} << 20;  // All events together.
};

// Why a stream assembled to no output: a code above, the JSON Pointer of
// the event at fault ("/events/3"; "" when the stream as a whole is) and
// a sentence.
struct StreamError {
  std::string code;
  std::string pointer;
  std::string message;

  bool ok() const { return code.empty(); }
};

// What a stream assembled to: an error, or an output of one kind.
struct Assembly {
  StreamError error;
  bool native = false;  // `output` is native_json (else text).
  std::string output;
};

class Assembler {
 public:
  // An assembler for `format` (not kUnspecified: the caller refuses that
  // as a caller error before any event is read).
  static std::unique_ptr<Assembler> Create(Format format, const Limits& limits);

  virtual ~Assembler() = default;
  Assembler(const Assembler&) = delete;
  Assembler& operator=(const Assembler&) = delete;

  // The next event. Once the stream is refused, later events are only
  // counted.
  void Add(absl::string_view event);

  // What the stream assembled to; call once, after the last event.
  Assembly Finish();

  Format format() const { return format_; }
  // Whether the stream is refused already: no later event can change what
  // Finish() returns (the first reason is kept), so a caller reading a
  // stream as it arrives can answer now instead of reading on.
  bool refused() const { return failed(); }
  size_t events() const { return events_; }
  size_t bytes() const { return bytes_; }
  // Bytes the assembly holds now (text and calls): what grows with a
  // stream, for tests and benchmarks of memory.
  virtual size_t assembled_bytes() const = 0;

 protected:
  Assembler(Format format, const Limits& limits)
      : format_(format), limits_(limits) {}

  // One parsed event (never [DONE]); the subclass either accumulates it,
  // marks the stream completed, or calls Fail.
  virtual void OnEvent(const Json& event) = 0;
  // [DONE]: accepted once after the completion event; before it, the
  // stream was cut (truncated_stream).
  void OnDone();
  // The output of a completed, unrefused stream.
  virtual Assembly Assemble() = 0;

  // Refuses the stream (the first reason is kept) at the current event.
  void Fail(absl::string_view code, absl::string_view message);
  bool failed() const { return !error_.ok(); }
  void MarkCompleted() { completed_ = true; }
  bool completed() const { return completed_; }
  const JsonLimits& json_limits() const { return limits_.json; }

 private:
  const Format format_;
  const Limits limits_;
  size_t events_ = 0;
  size_t bytes_ = 0;
  bool completed_ = false;
  bool done_ = false;  // [DONE] seen.
  StreamError error_;
};

}  // namespace stream
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STREAM_ASSEMBLER_H_
