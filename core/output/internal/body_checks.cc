#include "core/output/internal/body_checks.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace toolgate {
namespace output {
namespace internal {
namespace {

constexpr int kNoHttpStatus = -1;

// RFC 9110 token characters.
bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  return absl::string_view("!#$%&'*+-.^_`|~").find(c) !=
         absl::string_view::npos;
}

bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

bool IsJsonMediaType(absl::string_view media_type) {
  if (!absl::ConsumePrefix(&media_type, "application/")) return false;
  if (media_type == "json") return true;
  return absl::ConsumeSuffix(&media_type, "+json") && IsToken(media_type);
}

// "" when the parameter is acceptable.
std::string CheckParameter(absl::string_view param) {
  param = absl::StripAsciiWhitespace(param);
  if (param.empty()) return "";  // "application/json;" is harmless.
  const size_t eq = param.find('=');
  if (eq == absl::string_view::npos || !IsToken(param.substr(0, eq))) {
    return absl::StrCat("malformed content type parameter \"", param, "\"");
  }
  if (!absl::EqualsIgnoreCase(param.substr(0, eq), "charset")) return "";
  absl::string_view value = param.substr(eq + 1);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  // JSON exchanged between systems must be UTF-8 (RFC 8259 section 8.1).
  if (absl::EqualsIgnoreCase(value, "utf-8") ||
      absl::EqualsIgnoreCase(value, "utf8")) {
    return "";
  }
  return absl::StrCat("content type declares charset \"", value,
                      "\"; JSON must be UTF-8");
}

// Length of the well-formed UTF-8 sequence at text[i], 0 when ill-formed.
}  // namespace

std::string CheckHttpStatus(int http_status) {
  if (http_status == kNoHttpStatus) return "";
  if (http_status == 0) {
    return "HTTP status is missing (0); pass -1 for tools without HTTP";
  }
  if (http_status >= 200 && http_status <= 299) return "";
  return absl::StrCat("HTTP status ", http_status, " is not 2xx");
}

std::string CheckContentType(absl::string_view content_type) {
  // A null string_view splits into nothing at all, so test emptiness first.
  if (absl::StripAsciiWhitespace(content_type).empty()) {
    return "content type is missing";
  }
  const std::vector<absl::string_view> parts =
      absl::StrSplit(content_type, ';');
  const std::string media_type =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
  if (media_type.empty()) return "content type is missing";
  if (!IsJsonMediaType(media_type)) {
    return absl::StrCat("content type \"", media_type, "\" is not JSON");
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string problem = CheckParameter(parts[i]);
    if (!problem.empty()) return problem;
  }
  return "";
}

bool LooksLikeMarkupBody(absl::string_view body) {
  constexpr absl::string_view kBom = "\xEF\xBB\xBF";
  while (true) {
    const size_t before = body.size();
    body = absl::StripLeadingAsciiWhitespace(body);
    while (absl::ConsumePrefix(&body, kBom)) {
    }
    if (body.size() == before) break;
  }
  if (body.size() < 2 || body[0] != '<') return false;
  const char c = body[1];
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '!' ||
         c == '?' || c == '/';
}

std::string Excerpt(absl::string_view text, size_t start, size_t max_bytes) {
  if (start >= text.size()) return "";
  const auto continuation = [&](size_t i) {
    return (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  };
  while (start > 0 && continuation(start)) --start;
  size_t end = std::min(text.size(), start + max_bytes);
  while (end < text.size() && end > start && continuation(end)) --end;
  std::string out(text.substr(start, end - start));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  }
  return out;
}

std::string HexBytes(absl::string_view text, size_t start, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = start; i < text.size() && i < start + max_bytes; ++i) {
    const unsigned char b = static_cast<unsigned char>(text[i]);
    if (!out.empty()) out += ' ';
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

}  // namespace internal
}  // namespace output
}  // namespace toolgate
