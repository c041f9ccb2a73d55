// One ValidateToolCallStream call's state between its messages: the header
// the first message set, and the provider stream assembled so far.
//
// Events go to the assembler as each message arrives, so the call holds
// the assembled content, not the events (unless audit payloads are on:
// the audit line then records the events, which replay assembles again).
//
// Thread-safety: used by one call's reactor, one message at a time.
#ifndef TOOLGATE_SERVER_TOOL_CALL_STREAM_H_
#define TOOLGATE_SERVER_TOOL_CALL_STREAM_H_

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

class ToolCallStream {
 public:
  explicit ToolCallStream(const EngineOptions& options);

  // The next message. INVALID_ARGUMENT when the first names no stream
  // format, or a later one sets a header field to another value.
  absl::Status Add(const v1::ToolCallStreamRequest& message);

  // What the engine decides once the client half-closed; it points into
  // this object, which must outlive the decision. INVALID_ARGUMENT when
  // no message came. Call once.
  absl::StatusOr<ValidateCallRequest> Finish();

  // The header's run, for metrics ("" before the first message).
  const std::string& run_id() const { return header_.run_id(); }

 private:
  absl::Status SetHeader(const v1::ToolCallStreamRequest& message);
  absl::Status CheckHeader(const v1::ToolCallStreamRequest& message) const;

  const EngineOptions& options_;
  bool started_ = false;
  v1::ToolCallStreamRequest header_;  // Without events.
  std::unique_ptr<stream::Assembler> assembler_;
  stream::Assembly assembly_;
  std::vector<std::string> kept_events_;  // Only under audit_payloads.
};

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_TOOL_CALL_STREAM_H_
