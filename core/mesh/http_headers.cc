#include "core/mesh/http_headers.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace toolgate {
namespace mesh {
namespace {

bool TokenChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         absl::StrContains("!#$%&'*+-.^_`|~", c);
}

// Consumes an RFC 9110 token from the front of `s` into `out`.
bool Token(absl::string_view* s, absl::string_view* out) {
  size_t n = 0;
  while (n < s->size() && TokenChar((*s)[n])) ++n;
  if (n == 0) return false;
  *out = s->substr(0, n);
  s->remove_prefix(n);
  return true;
}

// Consumes a token or a quoted-string (escapes undone) into `out`.
bool ParamValue(absl::string_view* s, std::string* out) {
  absl::string_view token;
  if (Token(s, &token)) {
    out->assign(token.data(), token.size());
    return true;
  }
  if (s->empty() || (*s)[0] != '"') return false;
  for (size_t i = 1; i < s->size(); ++i) {
    char c = (*s)[i];
    if (c == '"') {
      s->remove_prefix(i + 1);
      return true;
    }
    if (c == '\\') {
      if (++i == s->size()) return false;
      c = (*s)[i];
    }
    out->push_back(c);
  }
  return false;
}

void SkipSpace(absl::string_view* s) {
  while (!s->empty() && (s->front() == ' ' || s->front() == '\t')) {
    s->remove_prefix(1);
  }
}

// RFC 9110 media type: application/json, each parameter well formed, at
// most one charset and that one utf-8. A comma (two headers joined) or
// anything unparsed fails.
bool JsonUtf8MediaType(absl::string_view value) {
  absl::string_view s = value, type, subtype;
  SkipSpace(&s);
  if (!Token(&s, &type) || !absl::ConsumePrefix(&s, "/") ||
      !Token(&s, &subtype) || !absl::EqualsIgnoreCase(type, "application") ||
      !absl::EqualsIgnoreCase(subtype, "json")) {
    return false;
  }
  bool charset = false;
  for (SkipSpace(&s); !s.empty(); SkipSpace(&s)) {
    if (!absl::ConsumePrefix(&s, ";")) return false;
    SkipSpace(&s);
    absl::string_view name;
    if (s.empty() || s.front() == ';') continue;  // An empty parameter.
    std::string param;
    if (!Token(&s, &name) || !absl::ConsumePrefix(&s, "=") ||
        !ParamValue(&s, &param)) {
      return false;
    }
    if (!absl::EqualsIgnoreCase(name, "charset")) continue;
    if (charset || !absl::EqualsIgnoreCase(param, "utf-8")) return false;
    charset = true;
  }
  return true;
}

}  // namespace

std::optional<HeaderRefusal> CheckBodyHeaders(
    const std::optional<std::string>& content_type,
    const std::optional<std::string>& content_encoding) {
  if (content_encoding.has_value()) {
    absl::string_view coding = absl::StripAsciiWhitespace(*content_encoding);
    if (!coding.empty() && !absl::EqualsIgnoreCase(coding, "identity")) {
      return HeaderRefusal{
          "unsupported_content_encoding",
          absl::StrCat("the body is sent with Content-Encoding \"",
                       *content_encoding,
                       "\": toolgate reads only an identity body, as the "
                       "tool server must")};
    }
  }
  if (content_type.has_value() && !content_type->empty() &&
      !JsonUtf8MediaType(*content_type)) {
    return HeaderRefusal{
        "unsupported_content_type",
        absl::StrCat("Content-Type \"", *content_type,
                     "\" is not application/json in UTF-8 (no charset but "
                     "utf-8): a server decoding the body another way would "
                     "read other calls than toolgate checked")};
  }
  return std::nullopt;
}

}  // namespace mesh
}  // namespace toolgate
