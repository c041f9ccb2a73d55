// Anthropic Messages streams: message_start, then per content block
// content_block_start / content_block_delta... / content_block_stop, ping
// anywhere, message_delta carrying the stop_reason, and message_stop.
//
// tool_use blocks accumulate input_json_delta.partial_json; text blocks
// text_delta. Thinking blocks are read and left out. Other block types
// (server tools, documents) are refused: nothing a runtime could run goes
// unchecked. message_stop completes the stream only with every block
// stopped and a stop_reason given.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/stream/assembler_internal.h"

namespace toolgate {
namespace stream {
namespace internal {
namespace {

class AnthropicAssembler final : public Assembler {
 public:
  explicit AnthropicAssembler(const Limits& limits)
      : Assembler(Format::kAnthropicMessages, limits) {}

  size_t assembled_bytes() const override {
    size_t n = acc_.bytes();
    for (const Block& b : blocks_) n += b.initial_input.size();
    return n;
  }

 private:
  enum class Kind { kText, kTool, kThinking };
  struct Block {
    Kind kind;
    bool open = true;
    size_t call = 0;            // kTool: its index in acc_.calls.
    std::string initial_input;  // kTool: the start's input, canonical.
  };

  void OnEvent(const Json& event) override {
    const std::string* type = nullptr;
    if (!event.is_object() || GetString(event, "type", &type) != Got::kOk) {
      return Fail(kMalformedStream, "an event needs a string \"type\"");
    }
    if (completed())
      return Fail(kMalformedStream, "an event after message_stop");
    if (*type == "ping") return;
    if (*type == "error") {
      return Fail(kStreamError, ProviderError(event.value("error", Json())));
    }
    if (*type == "message_start") return Start(event);
    if (!started_) {
      return Fail(kMalformedStream,
                  absl::StrCat(*type, " before message_start"));
    }
    if (*type == "content_block_start") return BlockStart(event);
    if (*type == "content_block_delta") return BlockDelta(event);
    if (*type == "content_block_stop") return BlockStop(event);
    if (*type == "message_delta") return MessageDelta(event);
    if (*type == "message_stop") return MessageStop();
    Fail(kMalformedStream,
         absl::StrCat("unknown event type ", TruncatedJson(*type)));
  }

  void Start(const Json& event) {
    const Json* message = nullptr;
    const Json* content = nullptr;
    if (started_) return Fail(kMalformedStream, "a second message_start");
    if (GetObject(event, "message", &message) != Got::kOk ||
        GetArray(*message, "content", &content) == Got::kWrong ||
        (content != nullptr && !content->empty())) {
      return Fail(kMalformedStream,
                  "message_start needs a message with no content yet");
    }
    started_ = true;
  }

  // The open block an event names, or null (the stream is then refused).
  Block* OpenBlock(const Json& event) {
    size_t index = 0;
    if (GetIndex(event, "index", &index) != Got::kOk ||
        index >= blocks_.size() || !blocks_[index].open) {
      Fail(kMalformedStream, "an event for a content block that is not open");
      return nullptr;
    }
    return &blocks_[index];
  }

  void BlockStart(const Json& event) {
    size_t index = 0;
    const Json* block = nullptr;
    const std::string* type = nullptr;
    if (GetIndex(event, "index", &index) != Got::kOk ||
        index != blocks_.size() ||
        GetObject(event, "content_block", &block) != Got::kOk ||
        GetString(*block, "type", &type) != Got::kOk) {
      return Fail(kMalformedStream,
                  "content_block_start needs the next index and a typed "
                  "content_block");
    }
    if (*type == "text") {
      const std::string* text = nullptr;
      if (GetString(*block, "text", &text) == Got::kWrong) {
        return Fail(kMalformedStream, "a text block's text must be a string");
      }
      if (has_text_) acc_.text += '\n';  // Blocks are separate paragraphs.
      has_text_ = true;
      if (text != nullptr) acc_.text += *text;
      blocks_.push_back({Kind::kText});
    } else if (*type == "tool_use") {
      ToolStart(*block);
    } else if (*type == "thinking" || *type == "redacted_thinking") {
      blocks_.push_back({Kind::kThinking});
    } else {
      Fail(kMalformedStream,
           absl::StrCat("content block type ", TruncatedJson(*type),
                        " is not assembled"));
    }
  }

  void ToolStart(const Json& block) {
    const std::string *id = nullptr, *name = nullptr;
    const Json* input = nullptr;
    if (GetString(block, "id", &id) == Got::kWrong ||
        GetString(block, "name", &name) != Got::kOk || name->empty() ||
        GetObject(block, "input", &input) == Got::kWrong) {
      return Fail(kMalformedStream,
                  "a tool_use block needs a name (and an object input)");
    }
    Block b{Kind::kTool};
    b.call = acc_.calls.size();
    b.initial_input = input != nullptr ? CanonicalJson(*input) : "{}";
    acc_.calls.push_back({id != nullptr ? *id : "", *name, ""});
    blocks_.push_back(std::move(b));
  }

  void BlockDelta(const Json& event) {
    Block* block = OpenBlock(event);
    if (block == nullptr) return;
    const Json* delta = nullptr;
    const std::string* type = nullptr;
    if (GetObject(event, "delta", &delta) != Got::kOk ||
        GetString(*delta, "type", &type) != Got::kOk) {
      return Fail(kMalformedStream, "content_block_delta needs a typed delta");
    }
    const char* member = nullptr;
    std::string* sink = nullptr;
    if (*type == "text_delta" && block->kind == Kind::kText) {
      member = "text";
      sink = &acc_.text;
    } else if (*type == "input_json_delta" && block->kind == Kind::kTool) {
      member = "partial_json";
      sink = &acc_.calls[block->call].arguments;
    } else if ((*type == "thinking_delta" || *type == "signature_delta") &&
               block->kind == Kind::kThinking) {
      return;
    } else {
      return Fail(kMalformedStream,
                  absl::StrCat("a ", TruncatedJson(*type),
                               " delta does not belong to this block"));
    }
    const std::string* piece = nullptr;
    if (GetString(*delta, member, &piece) != Got::kOk) {
      return Fail(kMalformedStream,
                  absl::StrCat("the delta needs a string \"", member, "\""));
    }
    *sink += *piece;
  }

  void BlockStop(const Json& event) {
    if (Block* block = OpenBlock(event)) block->open = false;
  }

  void MessageDelta(const Json& event) {
    const Json* delta = nullptr;
    const std::string* reason = nullptr;
    if (GetObject(event, "delta", &delta) != Got::kOk ||
        GetString(*delta, "stop_reason", &reason) == Got::kWrong) {
      return Fail(kMalformedStream, "message_delta needs a delta object");
    }
    if (reason == nullptr) return;
    const StopKind kind = ClassifyStop(StopSignal::kAnthropicStopReason, *reason);
    if (kind == StopKind::kComplete) {
      stopped_ = true;
      return;
    }
    auto [code, message] =
        StopFailure(StopSignal::kAnthropicStopReason, *reason, kind);
    Fail(code, message);
  }

  void MessageStop() {
    for (const Block& b : blocks_) {
      if (b.open) {
        return Fail(kMalformedStream, "message_stop with a block still open");
      }
    }
    if (!stopped_) {
      return Fail(kMalformedStream, "message_stop without a stop_reason");
    }
    MarkCompleted();
  }

  // An input never streamed (a tool without parameters) is the start's.
  Assembly Assemble() override {
    for (const Block& b : blocks_) {
      if (b.kind != Kind::kTool) continue;
      std::string& arguments = acc_.calls[b.call].arguments;
      if (arguments.empty()) arguments = b.initial_input;
    }
    return acc_.Build();
  }

  Accumulated acc_;
  std::vector<Block> blocks_;
  bool started_ = false;
  bool stopped_ = false;
  bool has_text_ = false;
};

}  // namespace

std::unique_ptr<Assembler> NewAnthropicMessages(const Limits& limits) {
  return std::make_unique<AnthropicAssembler>(limits);
}

}  // namespace internal
}  // namespace stream
}  // namespace toolgate
