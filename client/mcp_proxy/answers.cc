#include "client/mcp_proxy/answers.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace toolgate {
namespace mcp_proxy {

mesh::RpcError ProtocolError(int code, absl::string_view reason,
                             absl::string_view detail) {
  mesh::RpcError e;
  e.code = code;
  e.message = code == -32700   ? "Parse error"
              : code == -32600 ? "Invalid Request"
                               : "Invalid params";
  if (!detail.empty()) absl::StrAppend(&e.message, ": ", detail);
  e.data = {{"decision", "DENY"}, {"reason", std::string(reason)}};
  return e;
}

mesh::RpcError ToolRefusedError(absl::string_view tool,
                                absl::string_view reason,
                                absl::string_view change,
                                absl::string_view detail) {
  mesh::RpcError e = mesh::DeniedError(
      reason, absl::StrCat("tool \"", tool, "\" refused (", reason, "): ",
                           detail));
  e.data["tool"] = std::string(tool);
  if (!change.empty()) e.data["change"] = std::string(change);
  return e;
}

std::string ErrorLine(const Json& id, const mesh::RpcError& error) {
  return mesh::JsonRpcErrorBody(id, error);
}

}  // namespace mcp_proxy
}  // namespace toolgate
