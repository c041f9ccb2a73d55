// Why a request's bytes did not parse as its message type.
//
// protobuf refuses a proto3 `string` field that is not valid UTF-8 and
// says so only in a log line; gRPC then answers INTERNAL with no details,
// which tells a caller nothing and reads like a server fault. This walks
// the wire format against the message's descriptor to name the field.
//
// Thread-safety: pure function.
#ifndef TOOLGATE_SERVER_REQUEST_DIAGNOSIS_H_
#define TOOLGATE_SERVER_REQUEST_DIAGNOSIS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace toolgate {
namespace server {

// A sentence for INVALID_ARGUMENT: the first string field (by path, e.g.
// `text` or `context["k"]`) holding invalid UTF-8, or, when the bytes are
// not even well-formed protobuf, that they are not a `type` message.
std::string DiagnoseUnparsableRequest(absl::string_view bytes,
                                      const google::protobuf::Descriptor& type);

}  // namespace server
}  // namespace toolgate

#endif  // TOOLGATE_SERVER_REQUEST_DIAGNOSIS_H_
