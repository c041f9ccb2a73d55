// Gemini streams (streamGenerateContent?alt=sse): GenerateContentResponse
// chunks. candidates[0].content.parts[] hold text (thought parts left out)
// and whole functionCall parts {name, args, id}; each is one call, its args
// written as canonical JSON. Calls streamed in pieces (partialArgs,
// willContinue) are refused rather than read as calls without arguments. A
// chunk with finishReason STOP completes the stream; only chunks without
// candidates (usage) may follow.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/stream/assembler_internal.h"

namespace toolgate {
namespace stream {
namespace internal {
namespace {

class GeminiAssembler final : public Assembler {
 public:
  explicit GeminiAssembler(const Limits& limits)
      : Assembler(Format::kGemini, limits) {}

  size_t assembled_bytes() const override { return acc_.bytes(); }

 private:
  void OnEvent(const Json& event) override {
    if (auto failure = ChunkFailure(event)) {
      return Fail(failure->first, failure->second);
    }
    for (const char* foreign : {"type", "object", "choices"}) {
      if (event.contains(foreign)) {
        return Fail(kMalformedStream,
                    "not a GenerateContentResponse (mixed formats?)");
      }
    }
    const Json* feedback = nullptr;
    const std::string* blocked = nullptr;
    if (GetObject(event, "promptFeedback", &feedback) == Got::kOk &&
        GetString(*feedback, "blockReason", &blocked) != Got::kAbsent) {
      return Fail(kStreamError, "the prompt was blocked (promptFeedback)");
    }
    const Json* candidates = nullptr;
    if (GetArray(event, "candidates", &candidates) == Got::kWrong) {
      return Fail(kMalformedStream, "\"candidates\" must be an array");
    }
    if (candidates == nullptr || candidates->empty()) return;  // Usage.
    if (completed()) {
      return Fail(kMalformedStream, "a candidate after the finishReason chunk");
    }
    if (candidates->size() != 1) {
      return Fail(kMalformedStream,
                  "only single-candidate streams are assembled");
    }
    Candidate((*candidates)[0]);
  }

  void Candidate(const Json& candidate) {
    size_t index = 0;
    const Json* content = nullptr;
    const Json* parts = nullptr;
    if (!candidate.is_object() ||
        GetIndex(candidate, "index", &index) == Got::kWrong || index != 0 ||
        GetObject(candidate, "content", &content) == Got::kWrong ||
        (content != nullptr &&
         GetArray(*content, "parts", &parts) == Got::kWrong)) {
      return Fail(kMalformedStream,
                  "a candidate is candidate 0 with content.parts an array");
    }
    if (parts != nullptr) {
      for (const Json& part : *parts) {
        if (!Part(part)) return;
      }
    }
    const std::string* finish = nullptr;
    if (GetString(candidate, "finishReason", &finish) == Got::kWrong) {
      return Fail(kMalformedStream, "finishReason must be a string");
    }
    if (finish == nullptr) return;
    const StopKind kind = ClassifyStop(StopSignal::kGeminiFinishReason, *finish);
    if (kind == StopKind::kComplete) return MarkCompleted();
    auto [code, message] =
        StopFailure(StopSignal::kGeminiFinishReason, *finish, kind);
    Fail(code, message);
  }

  bool Part(const Json& part) {
    if (!part.is_object()) {
      Fail(kMalformedStream, "a part must be an object");
      return false;
    }
    const Json* call = nullptr;
    const std::string* text = nullptr;
    const Got got_call = GetObject(part, "functionCall", &call);
    const Got got_text = GetString(part, "text", &text);
    if (got_call == Got::kOk && got_text == Got::kAbsent) return Call(*call);
    if (got_text == Got::kOk && got_call == Got::kAbsent) {
      auto thought = part.find("thought");
      if (thought == part.end() || thought->is_null() ||
          *thought == Json(false)) {
        acc_.text += *text;
      } else if (!thought->is_boolean()) {
        Fail(kMalformedStream, "\"thought\" must be a boolean");
        return false;
      }
      return true;
    }
    Fail(kMalformedStream,
         "a part is exactly one of text or functionCall (other parts are "
         "not assembled)");
    return false;
  }

  bool Call(const Json& call) {
    // Only whole calls: partialArgs / willContinue (streamed arguments) or
    // any other member would make `args` not the arguments that run.
    for (const auto& [key, value] : call.items()) {
      if (key != "name" && key != "args" && key != "id") {
        Fail(kMalformedStream,
             absl::StrCat("functionCall member ", TruncatedJson(key),
                          " is not assembled (only whole calls are)"));
        return false;
      }
    }
    const std::string *name = nullptr, *id = nullptr;
    const Json* args = nullptr;
    if (GetString(call, "name", &name) != Got::kOk || name->empty() ||
        GetString(call, "id", &id) == Got::kWrong ||
        GetObject(call, "args", &args) == Got::kWrong) {
      Fail(kMalformedStream,
           "a functionCall needs a name (and an object args)");
      return false;
    }
    // No args: a function without parameters, as the SDKs read it.
    acc_.calls.push_back({id != nullptr ? *id : "", *name,
                          args != nullptr ? CanonicalJson(*args) : "{}"});
    return true;
  }

  Assembly Assemble() override { return acc_.Build(); }

  Accumulated acc_;
};

}  // namespace

std::unique_ptr<Assembler> NewGemini(const Limits& limits) {
  return std::make_unique<GeminiAssembler>(limits);
}

}  // namespace internal
}  // namespace stream
}  // namespace toolgate
