#include "core/stream/assembler.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/stream/assembler_internal.h"

namespace toolgate {
namespace stream {
namespace {

struct Named {
  Format format;
  absl::string_view name;
};

constexpr Named kFormats[] = {
    {Format::kOpenAIChat, "openai_chat"},
    {Format::kOpenAIResponses, "openai_responses"},
    {Format::kAnthropicMessages, "anthropic_messages"},
    {Format::kGemini, "gemini"},
};

}  // namespace

absl::string_view FormatName(Format format) {
  for (const Named& f : kFormats) {
    if (f.format == format) return f.name;
  }
  return "";
}

std::string SourceName(Format format) {
  return absl::StrCat("stream_", FormatName(format));
}

std::optional<Format> ParseFormat(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  absl::string_view bare = lower;
  absl::ConsumePrefix(&bare, "stream_format_");
  for (const Named& f : kFormats) {
    if (f.name == bare) return f.format;
  }
  return std::nullopt;
}

std::unique_ptr<Assembler> Assembler::Create(Format format,
                                             const Limits& limits) {
  switch (format) {
    case Format::kOpenAIChat:
      return internal::NewOpenAIChat(limits);
    case Format::kOpenAIResponses:
      return internal::NewOpenAIResponses(limits);
    case Format::kAnthropicMessages:
      return internal::NewAnthropicMessages(limits);
    case Format::kGemini:
      return internal::NewGemini(limits);
    case Format::kUnspecified:
      break;
  }
  return nullptr;
}

void Assembler::Add(absl::string_view event) {
  ++events_;
  bytes_ += event.size();
  if (failed()) return;
  if (events_ > limits_.max_events) {
    Fail(kInputTooLarge, absl::StrCat("the stream has more than ",
                                      limits_.max_events, " events"));
    return;
  }
  if (bytes_ > limits_.max_bytes) {
    Fail(kInputTooLarge, absl::StrCat("the stream's events hold more than ",
                                      limits_.max_bytes, " bytes"));
    return;
  }
  if (absl::StripAsciiWhitespace(event) == kDoneEvent) {
    OnDone();
    return;
  }
  if (done_) {
    Fail(kMalformedStream, "an event after [DONE]");
    return;
  }
  absl::StatusOr<Json> parsed = ParseStrictJson(event, limits_.json);
  if (!parsed.ok()) {
    const std::string code = JsonErrorCode(parsed.status());
    Fail(code == kInputTooLarge ? kInputTooLarge : kMalformedStream,
         absl::StrCat("the event is not strict JSON: ",
                      parsed.status().message()));
    return;
  }
  OnEvent(*parsed);
}

// [DONE] ends OpenAI chat streams; proxies append it to other formats too.
// It carries nothing: after the completion event it is accepted (once),
// before it the stream ended cut off.
void Assembler::OnDone() {
  if (done_) {
    Fail(kMalformedStream, "a second [DONE]");
  } else if (!completed_) {
    Fail(kTruncatedStream,
         absl::StrCat("[DONE] before the ", FormatName(format_),
                      " stream's completion event"));
  }
  done_ = true;
}

void Assembler::Fail(absl::string_view code, absl::string_view message) {
  if (failed()) return;
  error_.code = std::string(code);
  error_.pointer = absl::StrCat("/events/", events_ - 1);
  error_.message = std::string(message);
}

Assembly Assembler::Finish() {
  if (!failed() && !completed()) {
    error_.code = std::string(kTruncatedStream);
    error_.message = absl::StrCat(
        "the ", FormatName(format_), " stream ended after ", events_,
        " events without its completion event: a cut-off stream is never a "
        "call to run");
  }
  if (failed()) {
    Assembly out;
    out.error = std::move(error_);
    return out;
  }
  return Assemble();
}

namespace internal {

size_t Accumulated::bytes() const {
  size_t n = text.size();
  for (const StreamedCall& c : calls) {
    n += c.id.size() + c.name.size() + c.arguments.size();
  }
  return n;
}

Assembly Accumulated::Build() {
  Assembly out;
  if (calls.empty()) {
    out.output = std::move(text);
    text.clear();
    return out;
  }
  Json message = {{"role", "assistant"}};
  message["content"] = text.empty() ? Json(nullptr) : Json(text);
  Json tool_calls = Json::array();
  for (const StreamedCall& c : calls) {
    Json call = {{"type", "function"},
                 {"function", {{"name", c.name}, {"arguments", c.arguments}}}};
    if (!c.id.empty()) call["id"] = c.id;
    tool_calls.push_back(std::move(call));
  }
  message["tool_calls"] = std::move(tool_calls);
  out.native = true;
  out.output = CanonicalJson(message);
  return out;
}

Got GetString(const Json& object, const char* key, const std::string** out) {
  *out = nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Got::kAbsent;
  if (!it->is_string()) return Got::kWrong;
  *out = it->get_ptr<const std::string*>();
  return Got::kOk;
}

Got GetObject(const Json& object, const char* key, const Json** out) {
  *out = nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Got::kAbsent;
  if (!it->is_object()) return Got::kWrong;
  *out = &*it;
  return Got::kOk;
}

Got GetArray(const Json& object, const char* key, const Json** out) {
  *out = nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Got::kAbsent;
  if (!it->is_array()) return Got::kWrong;
  *out = &*it;
  return Got::kOk;
}

Got GetIndex(const Json& object, const char* key, size_t* out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return Got::kAbsent;
  if (!it->is_number_unsigned()) return Got::kWrong;
  *out = it->get<size_t>();
  return Got::kOk;
}

std::string Describe(const Json& error) {
  if (error.is_object()) {
    auto message = error.find("message");
    if (message != error.end() && message->is_string()) {
      return TruncatedJson(*message, 200);
    }
  }
  return TruncatedJson(error, 200);
}

std::string ProviderError(const Json& error) {
  return absl::StrCat("the provider sent an error: ", Describe(error));
}

std::optional<std::pair<absl::string_view, std::string>> ChunkFailure(
    const Json& event) {
  if (!event.is_object()) {
    return std::make_pair(kMalformedStream,
                          std::string("a chunk must be a JSON object"));
  }
  if (auto error = event.find("error"); error != event.end()) {
    return std::make_pair(kStreamError, ProviderError(*error));
  }
  return std::nullopt;
}

std::pair<absl::string_view, std::string> StopFailure(StopSignal signal,
                                                      absl::string_view value,
                                                      StopKind kind) {
  const absl::string_view code = StopCode(kind);
  return {code.empty() ? kMalformedStream : code,
          StopMessage(signal, value, kind)};
}

}  // namespace internal
}  // namespace stream
}  // namespace toolgate
