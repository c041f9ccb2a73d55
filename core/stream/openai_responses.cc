// OpenAI Responses streams: typed events keyed by output_index. A
// function_call item opens with response.output_item.added, grows by
// response.function_call_arguments.delta and closes with .done and
// response.output_item.done, whose full arguments must equal the deltas
// (a runtime may read either). Message items carry response.output_text
// deltas; reasoning items are read and left out. Other item types (built-in
// and custom tools) are refused. response.completed completes the stream.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/stream/assembler_internal.h"

namespace toolgate {
namespace stream {
namespace internal {
namespace {

// Events that carry nothing the output holds (parts, done-echoes of text,
// lifecycle), read and left out.
bool Ignored(absl::string_view type) {
  static constexpr absl::string_view kIgnored[] = {
      "response.created",
      "response.in_progress",
      "response.queued",
      "response.content_part.added",
      "response.content_part.done",
      "response.output_text.done",
      "response.output_text.annotation.added",
      "response.refusal.done",
  };
  for (absl::string_view t : kIgnored) {
    if (t == type) return true;
  }
  return absl::StartsWith(type, "response.reasoning");
}

class OpenAIResponsesAssembler final : public Assembler {
 public:
  explicit OpenAIResponsesAssembler(const Limits& limits)
      : Assembler(Format::kOpenAIResponses, limits) {}

  size_t assembled_bytes() const override { return acc_.bytes(); }

 private:
  enum class Kind { kMessage, kCall, kReasoning };
  struct Item {
    Kind kind;
    bool done = false;
    bool streamed = false;  // kCall: arguments came as deltas.
    size_t call = 0;
  };

  void OnEvent(const Json& event) override {
    const std::string* type = nullptr;
    if (!event.is_object() || GetString(event, "type", &type) != Got::kOk) {
      return Fail(kMalformedStream, "an event needs a string \"type\"");
    }
    if (completed()) {
      return Fail(kMalformedStream, "an event after response.completed");
    }
    if (*type == "error") {
      return Fail(kStreamError, ProviderError(event));
    }
    if (*type == "response.failed") return Ended(event, "failed");
    if (*type == "response.incomplete") return Ended(event, "incomplete");
    if (*type == "response.completed") return Completed(event);
    if (*type == "response.output_item.added") return Added(event);
    if (*type == "response.output_item.done") return ItemDone(event);
    if (*type == "response.function_call_arguments.delta") {
      return Append(event, Kind::kCall, "delta");
    }
    if (*type == "response.function_call_arguments.done") {
      return ArgumentsDone(event);
    }
    if (*type == "response.output_text.delta" ||
        *type == "response.refusal.delta") {
      return Append(event, Kind::kMessage, "delta");
    }
    if (Ignored(*type)) return;
    Fail(kMalformedStream,
         absl::StrCat("unknown event type ", TruncatedJson(*type)));
  }

  // The not-yet-done item of `kind` an event names, or null (refused).
  Item* OpenItem(const Json& event, Kind kind) {
    size_t index = 0;
    if (GetIndex(event, "output_index", &index) != Got::kOk ||
        index >= items_.size() || items_[index].done ||
        items_[index].kind != kind) {
      Fail(kMalformedStream,
           "an event for an output item that is not open or of another type");
      return nullptr;
    }
    return &items_[index];
  }

  void Added(const Json& event) {
    size_t index = 0;
    const Json* item = nullptr;
    const std::string* type = nullptr;
    if (GetIndex(event, "output_index", &index) != Got::kOk ||
        index != items_.size() || GetObject(event, "item", &item) != Got::kOk ||
        GetString(*item, "type", &type) != Got::kOk) {
      return Fail(kMalformedStream,
                  "response.output_item.added needs the next output_index "
                  "and a typed item");
    }
    if (*type == "message") {
      if (has_text_) acc_.text += '\n';  // Items are separate paragraphs.
      has_text_ = true;
      items_.push_back({Kind::kMessage});
    } else if (*type == "reasoning") {
      items_.push_back({Kind::kReasoning});
    } else if (*type == "function_call") {
      CallAdded(*item);
    } else {
      Fail(kMalformedStream,
           absl::StrCat("output item type ", TruncatedJson(*type),
                        " is not assembled"));
    }
  }

  void CallAdded(const Json& item) {
    const std::string *call_id = nullptr, *name = nullptr, *args = nullptr;
    if (GetString(item, "call_id", &call_id) == Got::kWrong ||
        GetString(item, "name", &name) != Got::kOk || name->empty() ||
        GetString(item, "arguments", &args) == Got::kWrong) {
      return Fail(kMalformedStream,
                  "a function_call item needs a name (and string call_id, "
                  "arguments)");
    }
    Item added{Kind::kCall};
    added.call = acc_.calls.size();
    acc_.calls.push_back({call_id != nullptr ? *call_id : "", *name,
                          args != nullptr ? *args : ""});
    added.streamed = args != nullptr && !args->empty();
    items_.push_back(added);
  }

  void Append(const Json& event, Kind kind, const char* member) {
    Item* item = OpenItem(event, kind);
    if (item == nullptr) return;
    const std::string* piece = nullptr;
    if (GetString(event, member, &piece) != Got::kOk) {
      return Fail(kMalformedStream,
                  absl::StrCat("the event needs a string \"", member, "\""));
    }
    if (kind == Kind::kMessage) {
      acc_.text += *piece;
    } else {
      acc_.calls[item->call].arguments += *piece;
      item->streamed = true;
    }
  }

  // Full arguments sent at the end must be what the deltas built; with no
  // deltas they are the arguments.
  bool Agree(Item* item, const std::string& arguments) {
    std::string& built = acc_.calls[item->call].arguments;
    if (!item->streamed) {
      built = arguments;
      item->streamed = true;
      return true;
    }
    if (built == arguments) return true;
    Fail(kMalformedStream,
         "the full arguments sent differ from the deltas that built them");
    return false;
  }

  void ArgumentsDone(const Json& event) {
    Item* item = OpenItem(event, Kind::kCall);
    const std::string* arguments = nullptr;
    if (item == nullptr) return;
    if (GetString(event, "arguments", &arguments) != Got::kOk) {
      return Fail(kMalformedStream,
                  "function_call_arguments.done needs \"arguments\"");
    }
    Agree(item, *arguments);
  }

  void ItemDone(const Json& event) {
    size_t index = 0;
    const Json* item = nullptr;
    if (GetIndex(event, "output_index", &index) != Got::kOk ||
        index >= items_.size() || GetObject(event, "item", &item) != Got::kOk) {
      return Fail(kMalformedStream,
                  "response.output_item.done needs an output_index and item");
    }
    Item* open = OpenItem(event, items_[index].kind);
    if (open == nullptr) return;
    if (open->kind == Kind::kCall) {
      const std::string *arguments = nullptr, *name = nullptr;
      if (GetString(*item, "arguments", &arguments) == Got::kWrong ||
          GetString(*item, "name", &name) == Got::kWrong ||
          (name != nullptr && *name != acc_.calls[open->call].name)) {
        return Fail(kMalformedStream,
                    "the done function_call item differs from the added one");
      }
      if (arguments != nullptr && !Agree(open, *arguments)) return;
    }
    open->done = true;
  }

  // response.failed and response.incomplete end the response with the
  // status their names say, which the stop table (stop_signal.h) reads.
  void Ended(const Json& event, absl::string_view status) {
    auto [code, message] = StopFailure(
        StopSignal::kResponsesStatus, status,
        ClassifyStop(StopSignal::kResponsesStatus, status));
    const Json* response = nullptr;
    std::string detail;
    if (GetObject(event, "response", &response) == Got::kOk) {
      const Json& why = response->value(
          status == "failed" ? "error" : "incomplete_details", Json());
      if (!why.is_null()) detail = absl::StrCat(" (", Describe(why), ")");
    }
    Fail(code, absl::StrCat("response.", status, ": ", message, detail));
  }

  void Completed(const Json& event) {
    const Json* response = nullptr;
    const std::string* status = nullptr;
    if (GetObject(event, "response", &response) == Got::kWrong ||
        (response != nullptr &&
         (GetString(*response, "status", &status) == Got::kWrong ||
          (status != nullptr && *status != "completed")))) {
      return Fail(kMalformedStream,
                  "response.completed whose response is not completed");
    }
    for (const Item& item : items_) {
      if (!item.done) {
        return Fail(kMalformedStream,
                    "response.completed with an output item not done");
      }
    }
    MarkCompleted();
  }

  Assembly Assemble() override { return acc_.Build(); }

  Accumulated acc_;
  std::vector<Item> items_;
  bool has_text_ = false;
};

}  // namespace

std::unique_ptr<Assembler> NewOpenAIResponses(const Limits& limits) {
  return std::make_unique<OpenAIResponsesAssembler>(limits);
}

}  // namespace internal
}  // namespace stream
}  // namespace toolgate
