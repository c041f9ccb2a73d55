// OpenAI Chat Completions streams: chat.completion.chunk events, then
// optionally usage chunks (no choices) and the literal [DONE].
//
// Tool calls accumulate by delta.tool_calls[].index: the first fragment of
// an index opens the call with its id and function.name, later fragments
// only add function.arguments. SDK accumulators concatenate every string
// they are sent, names included, so a later fragment that names the call
// again would be read differently by a runtime: refused, as are gaps in
// the indexes and choices other than 0 (n > 1: which one would run?).
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/stream/assembler_internal.h"

namespace toolgate {
namespace stream {
namespace internal {
namespace {

class OpenAIChatAssembler final : public Assembler {
 public:
  explicit OpenAIChatAssembler(const Limits& limits)
      : Assembler(Format::kOpenAIChat, limits) {}

  size_t assembled_bytes() const override { return acc_.bytes(); }

 private:
  void OnEvent(const Json& event) override {
    if (auto failure = ChunkFailure(event)) {
      return Fail(failure->first, failure->second);
    }
    const std::string* object = nullptr;
    if (GetString(event, "object", &object) == Got::kWrong ||
        (object != nullptr && *object != "chat.completion.chunk")) {
      return Fail(kMalformedStream,
                  "not a chat.completion.chunk (mixed formats?)");
    }
    const Json* choices = nullptr;
    if (GetArray(event, "choices", &choices) != Got::kOk) {
      return Fail(kMalformedStream,
                  "a chat.completion.chunk needs a \"choices\" array");
    }
    if (choices->empty()) return;  // A usage chunk.
    if (completed()) {
      return Fail(kMalformedStream, "a delta after the finish_reason chunk");
    }
    for (const Json& choice : *choices) {
      if (!Choice(choice)) return;
    }
  }

  // False once the stream is refused.
  bool Choice(const Json& choice) {
    size_t index = 0;
    if (!choice.is_object() || GetIndex(choice, "index", &index) != Got::kOk) {
      Fail(kMalformedStream, "a choice needs an \"index\"");
      return false;
    }
    if (index != 0) {
      Fail(kMalformedStream,
           absl::StrCat("choice ", index,
                        ": only single-choice streams (n = 1) are assembled"));
      return false;
    }
    const Json* delta = nullptr;
    if (GetObject(choice, "delta", &delta) == Got::kWrong ||
        (delta != nullptr && !Delta(*delta))) {
      if (!failed()) Fail(kMalformedStream, "\"delta\" must be an object");
      return false;
    }
    const std::string* finish = nullptr;
    if (GetString(choice, "finish_reason", &finish) == Got::kWrong) {
      Fail(kMalformedStream, "\"finish_reason\" must be a string");
      return false;
    }
    if (finish == nullptr) return true;
    const StopKind kind = ClassifyStop(StopSignal::kOpenAIFinishReason, *finish);
    if (kind == StopKind::kComplete) {
      MarkCompleted();
      return true;
    }
    auto [code, message] =
        StopFailure(StopSignal::kOpenAIFinishReason, *finish, kind);
    Fail(code, message);
    return false;
  }

  bool Delta(const Json& delta) {
    for (const char* key : {"content", "refusal"}) {
      const std::string* text = nullptr;
      if (GetString(delta, key, &text) == Got::kWrong) {
        Fail(kMalformedStream,
             absl::StrCat("delta.", key, " must be a string"));
        return false;
      }
      if (text != nullptr) acc_.text += *text;
    }
    if (auto legacy = delta.find("function_call");
        legacy != delta.end() && !legacy->is_null()) {
      Fail(kMalformedStream,
           "legacy delta.function_call is not assembled (use tool_calls)");
      return false;
    }
    const Json* fragments = nullptr;
    if (GetArray(delta, "tool_calls", &fragments) == Got::kWrong) {
      Fail(kMalformedStream, "delta.tool_calls must be an array");
      return false;
    }
    if (fragments == nullptr) return true;
    for (const Json& fragment : *fragments) {
      if (!Fragment(fragment)) return false;
    }
    return true;
  }

  bool Fragment(const Json& fragment) {
    size_t index = 0;
    const Json* function = nullptr;
    const std::string *id = nullptr, *type = nullptr, *name = nullptr,
                      *arguments = nullptr;
    if (!fragment.is_object() ||
        GetIndex(fragment, "index", &index) != Got::kOk ||
        GetString(fragment, "id", &id) == Got::kWrong ||
        GetString(fragment, "type", &type) == Got::kWrong ||
        GetObject(fragment, "function", &function) == Got::kWrong ||
        (type != nullptr && *type != "function")) {
      Fail(kMalformedStream,
           "a tool_calls fragment needs an \"index\", and its type, if any, "
           "is \"function\"");
      return false;
    }
    if (function != nullptr &&
        (GetString(*function, "name", &name) == Got::kWrong ||
         GetString(*function, "arguments", &arguments) == Got::kWrong)) {
      Fail(kMalformedStream, "function.name and .arguments must be strings");
      return false;
    }
    std::vector<StreamedCall>& calls = acc_.calls;
    if (index == calls.size()) {
      if (name == nullptr || name->empty()) {
        Fail(kMalformedStream, absl::StrCat("the first fragment of tool call ",
                                            index, " names no function"));
        return false;
      }
      calls.push_back({id != nullptr ? *id : "", *name, ""});
    } else if (index > calls.size()) {
      Fail(kMalformedStream,
           absl::StrCat("a fragment for unknown tool call index ", index, " (",
                        calls.size(), " opened)"));
      return false;
    } else if ((name != nullptr && !name->empty()) ||
               (id != nullptr && !id->empty())) {
      Fail(kMalformedStream,
           absl::StrCat("tool call ", index,
                        " is named again by a later fragment"));
      return false;
    }
    if (arguments != nullptr) calls[index].arguments += *arguments;
    return true;
  }

  Assembly Assemble() override { return acc_.Build(); }

  Accumulated acc_;
};

}  // namespace

std::unique_ptr<Assembler> NewOpenAIChat(const Limits& limits) {
  return std::make_unique<OpenAIChatAssembler>(limits);
}

}  // namespace internal
}  // namespace stream
}  // namespace toolgate
