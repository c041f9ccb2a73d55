// The request headers that say how an MCP request body is to be read,
// checked so that toolgate reads the body as the tool server does.
//
// Thread-safety: pure functions over values.
#ifndef TOOLGATE_CORE_MESH_HTTP_HEADERS_H_
#define TOOLGATE_CORE_MESH_HTTP_HEADERS_H_

#include <optional>
#include <string>

namespace toolgate {
namespace mesh {

// The request's Content-Type and Content-Encoding as the body's reader
// needs them: the media type application/json (when the header is given)
// with no charset but utf-8, and no content coding but identity. Anything
// else is a reason (unsupported_content_type, unsupported_content_encoding)
// and a sentence: a server decoding the body another way (charset=utf-7,
// gzip) would read other calls than toolgate checked.
struct HeaderRefusal {
  std::string reason;
  std::string message;
};
std::optional<HeaderRefusal> CheckBodyHeaders(
    const std::optional<std::string>& content_type,
    const std::optional<std::string>& content_encoding);

}  // namespace mesh
}  // namespace toolgate

#endif  // TOOLGATE_CORE_MESH_HTTP_HEADERS_H_
