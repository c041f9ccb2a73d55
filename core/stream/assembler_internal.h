// What the per-format assemblers share: the assembled content and small
// readers of event members. Internal to core/stream.
#ifndef TOOLGATE_CORE_STREAM_ASSEMBLER_INTERNAL_H_
#define TOOLGATE_CORE_STREAM_ASSEMBLER_INTERNAL_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json/strict_json.h"
#include "core/stream/assembler.h"
#include "core/stream/stop_signal.h"

namespace toolgate {
namespace stream {
namespace internal {

struct StreamedCall {
  std::string id;
  std::string name;
  std::string arguments;  // As streamed: not parsed here.
};

// Text and calls as they grow; nothing else of a stream is kept.
struct Accumulated {
  std::string text;
  std::vector<StreamedCall> calls;

  size_t bytes() const;
  // Text only: the text (moved, not copied: it may be most of the
  // stream). With calls: an OpenAI assistant message (see assembler.h).
  Assembly Build();
};

// Reading a member of an event: absent and null are "absent"; a member of
// another type than asked is "wrong" (the event does not follow its
// format's shape).
enum class Got { kAbsent, kOk, kWrong };
Got GetString(const Json& object, const char* key, const std::string** out);
Got GetObject(const Json& object, const char* key, const Json** out);
Got GetArray(const Json& object, const char* key, const Json** out);
// A non-negative integer member.
Got GetIndex(const Json& object, const char* key, size_t* out);

// A provider error object, bounded, for a message: its message when it has
// one.
std::string Describe(const Json& error);
// "the provider sent an error: " and Describe(error).
std::string ProviderError(const Json& error);

// Why an OpenAI chat or Gemini chunk fails before its content is read (not
// an object, or an "error" member): {code, message}; nullopt when neither.
std::optional<std::pair<absl::string_view, std::string>> ChunkFailure(
    const Json& event);

// How a stream is refused for a stop signal that does not say complete
// (stop_signal.h): its code (a value toolgate does not know is
// malformed_stream, not the format's shape) and message.
std::pair<absl::string_view, std::string> StopFailure(StopSignal signal,
                                                      absl::string_view value,
                                                      StopKind kind);

std::unique_ptr<Assembler> NewOpenAIChat(const Limits& limits);
std::unique_ptr<Assembler> NewOpenAIResponses(const Limits& limits);
std::unique_ptr<Assembler> NewAnthropicMessages(const Limits& limits);
std::unique_ptr<Assembler> NewGemini(const Limits& limits);

}  // namespace internal
}  // namespace stream
}  // namespace toolgate

#endif  // TOOLGATE_CORE_STREAM_ASSEMBLER_INTERNAL_H_
