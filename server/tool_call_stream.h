// One ValidateToolCallStream call's state between its messages: the header
// the first message set, and the provider stream assembled so far.
//
// Events go to the assembler as each message arrives, so the call holds
// the assembled content, not the events (unless audit payloads are on:
// the audit line then records the events, which replay assembles again).
//
// Once the stream is refused (an event over a limit, malformed, a provider
// error, or more messages or wire bytes than a stream may carry) the
// decision is fixed: decided() says so, no later message is read, and the
// caller answers at once (docs/streaming.md).
//
// Thread-safety: used by one call's reactor, one message at a time.
#ifndef TOOLGATE_SERVER_TOOL_CALL_STREAM_H_
#define TOOLGATE_SERVER_TOOL_CALL_STREAM_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/engine/engine.h"
#include "core/stream/assembler.h"
#include "toolgate/v1/toolgate.pb.h"

namespace toolgate {
namespace server {

// What one stream's messages may carry besides its events: one message per
// event and a header-only first one, and (headers repeated, framing) four
// times the events' byte limit on the wire. Past either, the stream is
// refused as input_too_large, as for its events.
size_t MaxStreamMessages(const EngineOptions& options);
size_t MaxStreamWireBytes(const EngineOptions& options);

class ToolCallStream {
 public:
  explicit ToolCallStream(const EngineOptions& options);

  // The next message, `wire_bytes` long as received. INVALID_ARGUMENT when
  // the first names no stream format, or a later one sets a header field
  // to another value. Must not be called once decided().
  absl::Status Add(const v1::ToolCallStreamRequest& message,
                   size_t wire_bytes);

  // Whether the stream is refused already, so that Finish() would return
  // the same whatever came next.
  bool decided() const;

  // What the engine decides: at half-close, or as soon as decided(). It
  // points into this object, which must outlive the decision.
  // INVALID_ARGUMENT when no message came. Call once.
  absl::StatusOr<ValidateCallRequest> Finish();

  // The header's run, for metrics ("" before the first message).
  const std::string& run_id() const { return header_.run_id(); }
  // The header fields (no events), for the call's span.
  const v1::ToolCallStreamRequest& header() const { return header_; }

  // About the bytes this call holds between messages: the header, the
  // assembled content (measured again every 64 KiB of events, counted as
  // the events' bytes between) and the events kept for the audit.
  size_t held_bytes();

 private:
  absl::Status SetHeader(const v1::ToolCallStreamRequest& message);
  absl::Status CheckHeader(const v1::ToolCallStreamRequest& message) const;
  void AddEvents(const v1::ToolCallStreamRequest& message);
  void Refuse(std::string message);

  const EngineOptions& options_;
  bool started_ = false;
  v1::ToolCallStreamRequest header_;  // Without events.
  size_t header_bytes_ = 0;
  std::unique_ptr<stream::Assembler> assembler_;
  stream::Assembly assembly_;
  // A refusal of the stream as a whole (messages, wire bytes); the
  // assembler's own, when it came first, is the one reported.
  stream::StreamError refused_;
  size_t messages_ = 0;
  size_t wire_bytes_ = 0;
  std::vector<std::string> kept_events_;  // Only under audit_payloads.
  size_t kept_bytes_ = 0;
  size_t assembled_bytes_ = 0;  // At the last measure...
  size_t measured_at_ = 0;      // ...made when the events held this many.
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_TOOL_CALL_STREAM_H_
